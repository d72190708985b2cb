"""GHASH (NIST SP 800-38D) as IR programs: the aggregated update of the
hash state over n blocks, and the key-side program that makes its table of
n powers of H.  Neither knows an instruction set: the backends lower clmul
(PCLMULQDQ, VPCLMULQDQ, PMULL/PMULL2, or shifts and masks) and lookup16
(pshufb, TBL).

The domain.  A GCM block is loaded and its 16 bytes reversed (lookup16 with
REVERSE_BYTES), so the register holds, as a little-endian 128-bit number,
the block's bit string read as a big-endian number: bit 127 - i holds the
coefficient of x^i (gen/specs/gf128.py).  Call that phi(A).  In y = 1/x it is
the reversed polynomial y^127 A(1/y), and the carry-less product of two such
registers is y^254 (AB)(1/y): reversal turns GCM's reduction modulo
P = x^128 + x^7 + x^2 + x + 1 at the top into a reduction at the bottom,
modulo the reversed polynomial Q(y) = y^128 P(1/y) = y^128 + y^127 + y^126 +
y^121 + 1.  Worked through, phi(A) phi(B) = y^127 phi(AB) mod Q, and:

* the table holds T_k = phi(H^k) * y mod Q (KEY_FORM_MULTIPLIER below: the
  factor y makes the product's y^127 a whole y^128);
* the update sums S = XOR of phi(Z_i) T_k over the step's n blocks, each
  product unreduced (four clmuls per block: low, high and two middle
  halves), which is y^128 phi(Y') mod Q as a polynomial of degree <= 254;
* one Montgomery reduction per step divides S by y^128 modulo Q in two
  64-bit halves: Q = 1 + y^64 c (mod y^128) with c = y^57 + y^62 + y^63
  (FOLD below), so S's low 64 bits L are cleared by adding L Q, which is
  L + L c y^64 + L y^128, and the sum shifted down by 64 bits; twice.  In
  registers (lo and hi the two 128-bit halves of S, swap exchanging the
  64-bit halves of a block): p1 = clmul(lo.low, c); v = lo xor swap(p1);
  p2 = clmul(v.high, c); phi(Y') = v xor hi xor p2.  With one block a
  register the middle sum need not be split into lo and hi first
  (_reduce_sums): p1 = clmul(lo.low, c); w = lo xor swap(p1 xor mid);
  p2 = clmul(w.high, c); phi(Y') = w xor hi xor p2, three operations fewer.
* the key program makes T_1 = phi(H) * y from phi(H) by the same product
  and reduction, with the constant y^129 mod Q (KEY_FORM below) as the other
  factor, and T_k = T_a T_b y^-128 for a + b = k, each one such product.

Vector widths.  One GHASH stream is a chain from step to step, but the n
products of a step are independent: a program `bits` wide puts bits / 128
consecutive blocks in one register and loads the matching powers from the
table in one load (entry i of the table, at byte 16 i, is T_(n - i), the
power block i of a step is multiplied by).  The three sums are kept that
wide; at the end of the step the 128-bit blocks of the register are added
(blocks128 exchanges, log2(bits / 128) of them) and every block holds S, so
the reduction runs in every block alike and y receives Y' in every block.
The key program is 128 bits wide only: its products form a chain (depth
log2(n)), and wider registers would buy nothing for one stream; it is for
128-bit targets (on a wider x86 target a 128-bit program takes AVX-512VL
forms that those targets' flags do not ask for).  On a target without a
carry-less multiply the shift-and-mask legalization makes a step of 8 blocks
some 13,500 operations: correct and constant-time, far from fast.

POLYVAL (RFC 8452) is this computation without the reflection: its blocks
are little-endian polynomials already, reduced modulo the same Q, and
dot(a, b) = a b y^-128 is the product the step makes.  So POLYVAL's update is
the same program with no byte reversal of the blocks and y kept in the
register's own order, and its table holds the dot powers H_k = H^k y^(-128 (k-1))
(H_1 = H as loaded, H_(a+b) = H_a H_b y^-128, the same product and
reduction): `polyval=True` below.  ZUC-NIA6 and NCA6 hash with it.

A step of m < n blocks (a message's last blocks) reads the last m entries of
the same table, T_m .. T_1: one table serves the steps of every length.
Each product is four clmuls; Karatsuba's three (with (t0 xor t1) kept in the
table beside each power) and n itself are for gen explore once the programs
are emitted and measured.
"""

from functools import lru_cache

from ..ir import Builder
from ..linalg import Field, byteswap_mask, permutation_mask
from ..specs import gf128

# Blocks per step, n: each step's one reduction (two clmuls and a few XORs) is
# shared by n products of four clmuls each, and the table holds n powers.  Steps
# chain through Y, so a long message is a chain of steps whose length n sets: on
# llvm-mca 19's icelake-server model, 128 blocks hashed in steps of 8, 16 and 32
# cost 489, 257 and 200 cycles at 512 bits, 735, 364 and 345 at 256 bits, and
# 611, 633 and 686 at 128 bits (docs/performance/sm4.md).  16 is a multiple of
# every width's blocks per register, halves the wide targets' cost against 8,
# and keeps the table at 256 bytes (GCM's state holds it).
BLOCKS = 16

BLOCK_BITS = 8 * gf128.BLOCK_BYTES
HALF_BITS = BLOCK_BITS // 2
HALF_MASK = (1 << HALF_BITS) - 1

REVERSE_BYTES = byteswap_mask(gf128.BLOCK_BYTES)   # byte i <- byte 15 - i: GCM bytes <-> phi
SWAP_HALVES = permutation_mask([(j + 8) % 16 for j in range(16)])           # (a0, a1) -> (a1, a0)
HALF_UP = permutation_mask([None] * 8 + list(range(8)))                     # (a0, a1) -> (0, a0)
HALF_DOWN = permutation_mask(list(range(8, 16)) + [None] * 8)               # (a0, a1) -> (a1, 0)


def reversed_polynomial(poly=gf128.POLY):
    """Q(y) = y^128 P(1/y): the field polynomial with its coefficients in reverse order."""
    degree = poly.bit_length() - 1
    return sum(1 << (degree - i) for i in range(degree + 1) if poly >> i & 1)


@lru_cache(maxsize=None)
def reflected_field():
    """GF(2)[y] / Q(y), where phi-form values multiply (a field: Q is P reversed,
    and Field refuses a reducible polynomial)."""
    return Field(reversed_polynomial())


@lru_cache(maxsize=None)
def fold():
    """c with Q = 1 + y^64 c (mod y^128): what a 64-bit half L of the sum is
    multiplied by when L Q is added to clear it.  The two-step reduction needs
    Q's low 64 bits to be 1 alone (true for GCM's polynomial: its terms below
    x^128 are of degree 7 or less)."""
    low = reversed_polynomial() ^ 1 << BLOCK_BITS
    if low & HALF_MASK != 1:
        raise ValueError(f"reduction by halves: Q's low 64 bits are {low & HALF_MASK:#x}, not 1")
    return low >> HALF_BITS


def to_key_form(value):
    """T = phi(A) * y mod Q, from phi(A) as an integer: the table's form."""
    return reflected_field().mul(value, 0b10)


@lru_cache(maxsize=None)
def key_form_multiplier():
    """y^129 mod Q: the product phi(H) y^129 y^-128 (one product and
    reduction) is phi(H) * y = T_1."""
    return reflected_field().pow(0b10, BLOCK_BITS + 1)


def phi(block):
    """phi(A) as an integer, from A's 16 GCM bytes: the bytes read big-endian."""
    return int.from_bytes(block, "big")


def table_entry(power_of_h):
    """The table's 16 bytes (little-endian register) for the GCM block H^k."""
    return to_key_form(phi(power_of_h)).to_bytes(gf128.BLOCK_BYTES, "little")


def _halves_constant(b, value, label, note):
    """A 64-bit value in both halves of every block (a clmul may take either)."""
    return b.const(value.to_bytes(8, "little") * 2, label, note)


def _products(b, z, t, terms):
    """The unreduced product of blocks z and t (phi form and key form) as
    lo + mid y^64 + hi y^128, each term appended to terms[part]."""
    terms["lo"].append(b.clmul(z, t, (0, 0), "lo"))
    terms["mid"] += [b.clmul(z, t, (0, 1), "mid"), b.clmul(z, t, (1, 0), "mid")]
    terms["hi"].append(b.clmul(z, t, (1, 1), "hi"))


def _halves_of_sum(b, terms):
    """S's two 128-bit halves (lo, hi) from the three sums of products: the
    middle sum straddles them by 64 bits."""
    lo, mid, hi = (b.xor_tree(terms[part], part + "_sum") for part in ("lo", "mid", "hi"))
    up = b.const(HALF_UP, "half_up", "(a0, a1) -> (0, a0): the middle sum's low half into S's bits 64..127")
    down = b.const(HALF_DOWN, "half_down", "(a0, a1) -> (a1, 0): its high half into S's bits 128..191")
    return (b.xor(lo, b.lookup16(mid, up, "mid_lo"), "s_lo"),
            b.xor(hi, b.lookup16(mid, down, "mid_hi"), "s_hi"))


def _fold_constants(b):
    """The reduction's constants: c in both halves of every block, and the half swap."""
    return (_halves_constant(b, fold(), "fold", "c = (Q - y^128 - 1) / y^64, Q = GHASH's polynomial reversed "
                                               "(gen/kernels/ghash.py fold)"),
            b.const(SWAP_HALVES, "swap_halves", "(a0, a1) -> (a1, a0)"))


def _reduce(b, lo, hi):
    """S y^-128 mod Q, S = lo + hi y^128 of degree <= 254: two folds of 64 bits
    by c (fold()), in every 128-bit block."""
    c, swap = _fold_constants(b)
    p1 = b.clmul(lo, c, (0, 0), "fold_lo")               # L0 c, L0 = S's bits 0..63
    v = b.xor(lo, b.lookup16(p1, swap, "fold_lo_sw"), "v")  # + L0 c y^64 + L0 y^128, shifted down 64
    p2 = b.clmul(v, c, (1, 1), "fold_hi")                # L1 c, L1 = the next 64 bits
    return b.xor(b.xor(v, hi, "v_hi"), p2, "reduced")


def _reduce_sums(b, terms):
    """S y^-128 mod Q from the three sums of products (lo + mid y^64 + hi
    y^128) of one 128-bit block, mid never split into S's halves: the first
    fold reads only lo's low 64 bits, which mid does not reach, and mid's two
    halves then join the sum as one half swap together with the fold's:
    w = lo + swap(p1 + mid), p2 = w.high c, S y^-128 = w + hi + p2.  Three
    operations fewer than splitting mid first (_halves_of_sum, _reduce)."""
    lo, mid, hi = (b.xor_tree(terms[part], part + "_sum") for part in ("lo", "mid", "hi"))
    c, swap = _fold_constants(b)
    p1 = b.clmul(lo, c, (0, 0), "fold_lo")                    # L0 c, L0 = S's bits 0..63
    w = b.xor(lo, b.lookup16(b.xor(p1, mid, "fold_mid"), swap, "fold_mid_sw"), "w")
    p2 = b.clmul(w, c, (1, 1), "fold_hi")                     # L1 c, L1 = the next 64 bits
    return b.xor(b.xor(w, hi, "w_hi"), p2, "reduced")


def _add_blocks(b, value, hint):
    """Every 128-bit block of value replaced by the XOR of all its blocks."""
    span = b.bits // BLOCK_BITS // 2
    while span:
        picks = [i ^ span for i in range(b.bits // BLOCK_BITS)]
        value = b.xor(value, b.blocks128(value, value, picks, hint + "_x"), hint)
        span //= 2
    return value


# The byte orders y may be kept in: GCM's, or phi's (GCM's reversed, the
# register's own): a caller that calls the program over and over (GCM's
# stitched form, a batch a call) reverses y once per message, not twice per call.
Y_ORDERS = ("gcm", "phi")


def update_program(bits=128, blocks=BLOCKS, steps=1, y_order="gcm", polyval=False):
    """`steps` aggregated steps, each Y <- (Y xor X_1) H^n xor X_2 H^(n-1) ...
    xor X_n H, n = `blocks`, Y carried from step to step in a register.
    params (y, table, msg): y is bits / 8 bytes, the program reads Y (in
    `y_order`, one of Y_ORDERS) from its first 16 and writes Y' (the same
    order) into every 16-byte block of it; table holds T_n .. T_1 (16 bytes
    each, key_program's form); msg the steps * n blocks.
    Several steps in one program are GCM's stitched form: a chain of steps
    beside a batch of CTR rounds (gen/ir/stitch.py).
    polyval: POLYVAL's update (blocks and y little-endian, unreflected; the
    table key_program(polyval=True) makes; y_order is then "phi")."""
    if polyval:
        y_order = "phi"
    if y_order not in Y_ORDERS:
        raise ValueError(f"y in {y_order!r} order: the orders are {Y_ORDERS}")
    per_register = bits // BLOCK_BITS
    if blocks < 1 or blocks % per_register:
        raise ValueError(f"{blocks} blocks per step do not fill whole {bits}-bit registers "
                         f"({per_register} blocks each)")
    if steps < 1:
        raise ValueError(f"GHASH in {steps} steps")
    name = f"{'polyval' if polyval else 'ghash'}_update{bits}_n{blocks}" + (f"_x{steps}" if steps > 1 else "")
    b = Builder(name, bits, ("y", "table", "msg"))
    reverse = b.const(REVERSE_BYTES, "reverse16", "byte i <- byte 15 - i: GCM bytes to the reflected form phi")
    first = None
    if per_register > 1:
        first = b.const(bytes([0xFF] * 16) + bytes(bits // 8 - 16), "first_block", "Y joins X_1 alone")
    y = b.bcast128("y", 0, "y")
    if y_order == "gcm":
        y = b.lookup16(y, reverse, "phi_y")
    per_step = blocks // per_register
    for step in range(steps):
        if first is not None:
            y = b.and_(y, first, "y1")
        b.comment(f"Step {step + 1} of {steps}: {blocks} blocks, {per_register} per register: "
                  f"block i times T_(n - i), products unreduced." if steps > 1 else
                  f"{blocks} blocks, {per_register} per register: block i times T_(n - i), products unreduced.")
        terms = {"lo": [], "mid": [], "hi": []}
        for r in range(per_step):
            z = b.load("msg", (step * per_step + r) * bits // 8, "x")
            if not polyval:
                z = b.lookup16(z, reverse, "z")
            if r == 0:
                z = b.xor(z, y, "z1_y")
            _products(b, z, b.load("table", r * bits // 8, "h"), terms)
        if per_register == 1:
            b.comment("The sums and one reduction.")
            y = _reduce_sums(b, terms)
            continue
        b.comment("The sums, then S's halves, their blocks added, and one reduction.")
        lo, hi = (_add_blocks(b, half, name) for half, name in zip(_halves_of_sum(b, terms), ("s_lo", "s_hi")))
        y = _reduce(b, lo, hi)
    b.store("y", 0, b.lookup16(y, reverse, "y_next") if y_order == "gcm" else y)
    return b.finish(blocks=blocks, steps=steps, y_order=y_order, polyval=polyval)


def _product_reduced(b, a, t, hint):
    """a t y^-128 mod Q of two blocks, reduced."""
    terms = {"lo": [], "mid": [], "hi": []}
    _products(b, a, t, terms)
    b.comment(hint)
    return _reduce_sums(b, terms)


def key_program(blocks=BLOCKS, polyval=False):
    """The table update_program reads, from H = E_K(0): params (table, h); h is
    16 bytes (GCM order), table receives T_n .. T_1, T_k at byte 16 (n - k).
    polyval: POLYVAL's table, the dot powers H_n .. H_1 of its key h."""
    if blocks < 1:
        raise ValueError(f"a table of {blocks} powers")
    b = Builder(f"{'polyval' if polyval else 'ghash'}_powers_n{blocks}", BLOCK_BITS, ("table", "h"))
    if polyval:
        powers = {1: b.load("h", 0, "h")}
    else:
        reverse = b.const(REVERSE_BYTES, "reverse16", "byte i <- byte 15 - i: GCM bytes to the reflected form phi")
        start = b.const(key_form_multiplier().to_bytes(gf128.BLOCK_BYTES, "little"), "y129",
                        "y^129 mod Q: phi(H) times it, reduced, is T_1 = phi(H) y (gen/kernels/ghash.py)")
        powers = {1: _product_reduced(b, b.lookup16(b.load("h", 0, "h"), reverse, "phi_h"), start, "T_1 = phi(H) y")}
    for k in range(2, blocks + 1):
        powers[k] = _product_reduced(b, powers[k - k // 2], powers[k // 2], f"T_{k} = T_{k - k // 2} T_{k // 2}")
    for k, value in powers.items():
        b.store("table", gf128.BLOCK_BYTES * (blocks - k), value)
    return b.finish(blocks=blocks, polyval=polyval)
