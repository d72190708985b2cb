"""Multiplication by x^m in GF(2^128) as IR programs: XTS's tweak sequence
(IEEE 1619 and GB/T 17964-2021) and CMAC's subkeys K1, K2.

Each 128-bit block of a register holds one field element in one of the
conventions of gen/specs/gf128.py.  The programs first put it in a working
form, a 128-bit little-endian number (two 64-bit lanes) whose bit p is the
coefficient of x^p ("ascending") or of x^(127 - p) ("descending"), by
reversing its bytes or not: IEEE's bytes are that already (ascending), CMAC's
reversed are (ascending), GB's reversed are (descending).  `layout` finds
which from the convention, so no rule here names one.

In the working form, times x^m (1 <= m <= MAX_POWER) is
  shifted   each 64-bit lane moved m places up (shl; shr when descending),
  carry     the m bits that leave the lower half in degree order, moved into
            the other half (a 64-bit shift the other way and a byte move),
  reduction the m bits that leave the element, h, are h * x^128 =
            h * (x^7 + x^2 + x + 1): a 16-entry table lookup indexed by them,
            per byte the product touches (two at most, packed in one table
            where they fit),
and the three XORed.  No branch and no address depends on the value: the
overflow selects its reduction by a table lookup in a register (lookup16),
never by a compare and branch, so a tweak or key-derived L costs the same whatever it
is.  The IR has no arithmetic shift or compare to turn a top bit into a mask;
the lookup is that mask and the product with the reduction at once.

Every constant is derived here from gf128.POLY and the layout, and annotated.
"""

from dataclasses import dataclass
from functools import lru_cache

from ..ir import Builder
from ..linalg import byteswap_mask, carryless_product
from ..specs import gf128

# The overflow of x^m indexes a 16-entry table: m bits, so m <= 4.
MAX_POWER = 4
HALF_BYTES = 8
ZERO = 0x80   # a lookup16 index that gives a zero byte


@dataclass(frozen=True)
class Layout:
    """A convention's working form: `reverse` the byte order or not, and
    whether bit p is the coefficient of x^p (`ascending`) or of x^(127 - p)."""

    convention: gf128.Convention
    reverse: bool
    ascending: bool

    def position(self, degree):
        """The working form's bit holding the coefficient of x^degree."""
        return degree if self.ascending else gf128.DEGREE - 1 - degree

    def degree(self, position):
        return self.position(position)   # the map is its own inverse

    def encode(self, poly):
        """A polynomial (bit i: coefficient of x^i, degree < 128) in the working form's 16 bytes."""
        return sum(1 << self.position(d) for d in range(gf128.DEGREE) if poly >> d & 1).to_bytes(16, "little")


@lru_cache(maxsize=None)
def layout(convention):
    """The working form of `convention`: the byte order (as is or reversed)
    in which its coefficients run monotonically through a little-endian number."""
    last = gf128.BLOCK_BYTES - 1
    for reverse in (False, True):
        bits = []
        for degree in range(gf128.DEGREE):
            byte, bit = convention.position(degree)
            bits.append(8 * (last - byte if reverse else byte) + bit)
        if bits == list(range(gf128.DEGREE)):
            return Layout(convention, reverse, True)
        if bits == list(reversed(range(gf128.DEGREE))):
            return Layout(convention, reverse, False)
    raise ValueError(f"convention {convention.name}: no byte order makes its coefficients run in order")


def memory_order(b, value, lay, hint="order"):
    """Between a convention's bytes and its working form (the same move both
    ways: a byte reversal per block, or nothing)."""
    if not lay.reverse:
        return value
    return b.lookup16(value, b.const(byteswap_mask(gf128.BLOCK_BYTES), "reverse_bytes",
                                     f"byte j <- byte 15 - j: {lay.convention.name}'s bytes <-> its working form"),
                      hint)


def times_x_power(b, value, m, lay, hint="tx"):
    """value * x^m in every 128-bit block, `value` and the result in the working form `lay`."""
    if not 1 <= m <= MAX_POWER:
        raise ValueError(f"times x^{m}: the overflow must index a 16-entry table, so 1 <= m <= {MAX_POWER}")
    name = lay.convention.name
    up, down = (b.shl, b.shr) if lay.ascending else (b.shr, b.shl)
    shifted = up(value, m, 64, hint=f"{hint}_shift")
    spill = down(value, 64 - m, 64, hint=f"{hint}_spill")   # each half's m leaving bits, at its other end
    # The lower half in degree order (the low lane when ascending, the high one
    # when descending) passes its m bits to the other half.
    lower = range(HALF_BYTES) if lay.ascending else range(HALF_BYTES, 2 * HALF_BYTES)
    source = {j: j - HALF_BYTES if lay.ascending else j + HALF_BYTES for j in range(16) if j not in lower}
    carry = b.lookup16(spill, b.const(bytes(source.get(j, ZERO) for j in range(16)), "next_half",
                                      f"{name}: the lower half's top {m} bit(s) enter the upper half"),
                       f"{hint}_carry")
    if lay.ascending:   # the upper half's spill is the overflow itself, in byte 8's low m bits
        overflow, at = spill, HALF_BYTES
    else:               # the overflow is bits 0..m-1 of the number, byte 0's low bits
        overflow, at = b.and_(value, b.const(bytes([(1 << m) - 1]) + bytes(15), f"low_{m}_bits",
                                             f"{name}: bits 0..{m - 1}, the coefficients that x^{m} carries past x^127"),
                              f"{hint}_over"), 0
    terms = [b.lookup16(b.const(table, f"reduce_x{m}", note),
                        _index(b, overflow, at, positions, m, name, hint), f"{hint}_reduce")
             for positions, table, note in reduction_tables(lay, m)]
    return b.xor_all([shifted, carry, *terms], hint)


def _index(b, overflow, at, positions, m, name, hint):
    """The overflow's value copied from byte `at` to each byte of `positions`,
    the t-th raised by t * 2^m to reach its own segment of the table."""
    gather = b.lookup16(overflow, b.const(bytes(at if j in positions else ZERO for j in range(16)), "overflow_to",
                                          f"{name}: the overflow index into the bytes its reduction touches"),
                        f"{hint}_index")
    if len(positions) == 1:
        return gather
    segments = bytearray(16)
    for t, j in enumerate(positions):
        segments[j] = t << m
    return b.or_(gather, b.const(bytes(segments), "segment",
                                 f"{name}: each reduced byte's segment of the x^{m} table"), f"{hint}_segment")


@lru_cache(maxsize=None)
def reduction_tables(lay, m):
    """The lookups that reduce an overflow of x^m: (positions, table, note)
    each, `table`'s segment t (2^m entries) giving byte positions[t] of the
    reduction h * (x^7 + x^2 + x + 1) for every overflow index.  The index's
    bit i stands for x^(128 + i) when ascending, x^(128 + m - 1 - i) when
    descending (where the working form keeps it)."""
    size = 1 << m
    rows = {}
    for index in range(size):
        overflow = 0
        for i in range(m):
            if index >> i & 1:
                # degree of bit i before the multiplication, then past x^127
                before = lay.degree(gf128.DEGREE - m + i) if lay.ascending else lay.degree(i)
                overflow |= 1 << (before + m - gf128.DEGREE)
        product = carryless_product(overflow, gf128.REDUCTION)
        for j, byte in enumerate(lay.encode(product)):
            rows.setdefault(j, [0] * size)[index] = byte
    touched = [j for j, row in sorted(rows.items()) if any(row)]
    per_table = 16 // size
    out = []
    for first in range(0, len(touched), per_table):
        positions = tuple(touched[first:first + per_table])
        table = b"".join(bytes(rows[j]) for j in positions).ljust(16, b"\0")
        where = f"byte {positions[0]}" if len(positions) == 1 else f"bytes {', '.join(map(str, positions))}"
        note = (f"{lay.convention.name}: overflow h of x^{m} -> {where} "
                f"of h * (x^7 + x^2 + x + 1), the reduction of h * x^128")
        out.append((positions, table, note))
    return tuple(out)


def first_register(b, value, k, lay):
    """From `value` in every block (working form), the register value * x^i
    in block i, i < k: log2(k) steps, each multiplying by x^s and taking the
    blocks whose number has bit s."""
    step = 1
    while step < k:
        ahead = times_x_power(b, value, step, lay, f"spread{step}")
        value = b.blocks128(value, ahead, [k + i if i & step else i for i in range(k)], f"spread{step}")
        step *= 2
    return value


def tweak_registers(b, first, registers, lay):
    """The batch from its first register (working form, blocks T*a^i, i < k):
    `registers` registers, each the one before times x^k, and the register
    to carry to the next batch (its blocks T*a^(n + i), n = registers * k)."""
    k = b.bits // 128
    out = [first]
    for _ in range(registers):
        out.append(times_x_power(b, out[-1], k, lay, f"next{len(out)}"))
    return out[:-1], out[-1]


def tweak_program(bits, registers, convention, start="tweak"):
    """XTS's tweaks for one batch of `registers` registers of bits/128 blocks:
    `out` receives the registers in memory order (block i of the batch holds
    T*a^i in `convention`), then the register to carry (blocks T*a^(n + i)).
    `start` "tweak": `tweak` holds T (16 bytes); "register": it holds a
    carried register, as the last store of the batch before wrote it."""
    lay = layout(convention)
    k = bits // 128
    if k > MAX_POWER:
        raise ValueError(f"{bits}-bit registers step by x^{k}, more than x^{MAX_POWER}")
    b = Builder(f"xts_tweaks_{convention.name}_{start}_r{registers}", bits, ("tweak", "out"))
    if start == "tweak":
        first = first_register(b, memory_order(b, b.bcast128("tweak", 0, "tweak"), lay), k, lay)
    elif start == "register":
        first = memory_order(b, b.load("tweak", 0, "carried"), lay)
    else:
        raise ValueError(f"tweak program: start {start!r} is neither 'tweak' nor 'register'")
    tweaks, carried = tweak_registers(b, first, registers, lay)
    step = bits // 8
    for r, value in enumerate(tweaks):
        b.store("out", r * step, memory_order(b, value, lay, f"tweaks{r}"))
    b.store("out", registers * step, memory_order(b, carried, lay, "carried_out"))
    return b.finish(batch_blocks=registers * k, convention=convention.name, input=start)


def cmac_subkeys_program(bits):
    """CMAC's subkeys K1 = dbl(L), K2 = dbl(K1) of every block of `l` (one L
    per 128-bit block: bits/128 keys at once): `out` receives the K1
    register, then the K2 register."""
    lay = layout(gf128.CMAC)
    b = Builder("cmac_subkeys", bits, ("l", "out"))
    l_value = memory_order(b, b.load("l", 0, "l"), lay)
    k1 = times_x_power(b, l_value, 1, lay, "k1")
    k2 = times_x_power(b, k1, 1, lay, "k2")
    b.store("out", 0, memory_order(b, k1, lay, "k1_out"))
    b.store("out", bits // 8, memory_order(b, k2, lay, "k2_out"))
    return b.finish(convention=gf128.CMAC.name)
