"""uBlock register-per-block: the AVX2 paper's method (Gao et al., "Fast
software implementation of the block cipher uBlock algorithm", sections
2.2-2.6), at any vector width.

A state half is held spread, one nibble per byte (ublock_constants), so the
S-box is a pshufb table lookup and the rotations and PL/PR are byte shuffles.
Storage is "left-left + right-right" (section 2.2): one register holds the X0
halves of its blocks, another the X1 halves, so X1 ^= X0 needs no permute.
The free high nibble of every byte carries a second block (section 2.6): the
S-box looks up both nibbles and ors the results, everything else is bitwise
or moves whole bytes and serves both blocks at once.  A 256-bit block's half
spans two 128-bit lanes: PL/PR are then two shuffles and a lane swap
(algorithm 5); on 128-bit registers the half is two registers and the swap is
free; at 512 bits every 256-bit half of the register holds its own block.

Layout (one group; ``units`` blocks in the low nibbles, as many in the high):
128-bit blocks: block s in 128-bit lane s % units; 256-bit blocks: in 256-bit
block s % units (one per register pair on 128-bit registers); the low nibble
for s < units, the high nibble otherwise.  The round keys arrive in exactly
that layout (key form "register_image", laid out by `key_image`), so a key
addition is a plain load and an XOR.
"""

from dataclasses import dataclass

from ..ir import Builder, Index
from ..linalg.shuffle import LANE_BYTES, deinterleave_mask, lane_swap_partner
from ..specs import ublock
from . import ublock_constants as uc

PARAMS = ("rk", "in", "out")
BLOCK_SIZES = tuple(sorted({n for n, _ in ublock.VARIANTS}))
HALVES = 2  # X0 and X1
# Every half image occupies the widest register's bytes, whatever the kernel's
# width: one single-key image then serves every width (each loads its prefix),
# and the C core keeps one copy per key (ublock_key.image).
IMAGE_HALF_BYTES = 512 // 8
IMAGE_STEP_BYTES = HALVES * IMAGE_HALF_BYTES


@dataclass(frozen=True)
class Layout:
    """Where one group's blocks sit in the registers (the contract's image layout)."""

    bits: int
    block_bits: int

    def __post_init__(self):
        if self.block_bits not in BLOCK_SIZES:
            raise ValueError(f"uBlock blocks are {BLOCK_SIZES} bits, got {self.block_bits}")

    @property
    def lanes(self):
        return self.bits // (8 * LANE_BYTES)

    @property
    def units(self):
        """Blocks in the low nibbles of a register pair (as many in the high)."""
        return max(1, self.bits // self.block_bits)

    @property
    def key_slots(self):
        return uc.NIBBLES_PER_BYTE * self.units

    @property
    def parts(self):
        """Registers per spread state half: a 256-bit block's half fills 256 bits."""
        return max(1, self.block_bits // self.bits)

    @property
    def half_nibbles(self):
        return self.block_bits // 8

    @property
    def register_bytes(self):
        return self.bits // 8

    @property
    def image_bytes(self):
        """One half's round-key image: exactly the registers the kernel XORs."""
        return self.parts * self.register_bytes

    @property
    def group_bytes(self):
        return self.key_slots * self.block_bits // 8

    @property
    def half_spans_lanes(self):
        """A register holds a 256-bit block's whole half, across two lanes."""
        return self.parts == 1 and self.half_nibbles > LANE_BYTES


def batch_blocks(bits, block_bits, groups=1):
    return Layout(bits, block_bits).key_slots * groups


def key_image(round_keys, bits, block_bits):
    """One key addition's images (the X0 image, then the X1 image) for the
    key slots of a batch: round_keys[s] is the round key (block_bits/4
    nibbles) for the block in slot s.  Each image is what the kernel XORs into
    its registers: slot s's nibble p of the half in byte p of unit s % units,
    low nibble for the first units slots, high for the others."""
    layout = Layout(bits, block_bits)
    if len(round_keys) != layout.key_slots:
        raise ValueError(f"{layout.key_slots} key slots at {bits} bits for {block_bits}-bit blocks, "
                         f"got {len(round_keys)} round keys")
    n = layout.half_nibbles
    if any(len(rk) != HALVES * n for rk in round_keys):
        raise ValueError(f"a {block_bits}-bit round key has {HALVES * n} nibbles")
    image = bytearray()
    for half in range(HALVES):
        record = bytearray()
        for u in range(layout.units):
            low, high = round_keys[u], round_keys[u + layout.units]
            record += bytes(low[half * n + p] | high[half * n + p] << uc.NIBBLE_BITS for p in range(n))
        image += record.ljust(IMAGE_HALF_BYTES, b"\0")
    return bytes(image)


def key_material(slot_round_keys, bits, block_bits, direction):
    """The whole `rk` buffer for one direction: slot_round_keys[s] lists RK^0..RK^r
    for slot s; the key additions in the order the kernel makes them."""
    steps = range(len(slot_round_keys[0]))
    order = steps if uc.check_direction(direction) == "encrypt" else reversed(steps)
    return b"".join(key_image([rks[i] for rks in slot_round_keys], bits, block_bits) for i in order)


def program(bits, block_bits, rounds, direction, groups=1):
    """`groups` independent register pairs, each `key_slots` blocks, go
    through every round together (more work in flight hides the latency of a
    round's chain of shuffles); every group uses the same key images."""
    uc.check_direction(direction)
    layout = Layout(bits, block_bits)
    b = Builder(f"ublock{block_bits}_register{bits}_{direction}", bits, PARAMS)
    b.comment(f"Load {batch_blocks(bits, block_bits, groups)} blocks, spread one nibble per byte, a second "
              "block in the high nibbles; X0 halves and X1 halves in separate registers (left-left + right-right).")
    states = [load_group(b, layout, g) for g in range(groups)]
    round_step = round_encrypt if direction == "encrypt" else round_decrypt
    stride = IMAGE_STEP_BYTES
    with b.loop("r", rounds):
        keys = round_key_images(b, layout, Index(0, (("r", stride),)))
        for state in states:
            round_step(b, layout, state, keys)
    b.comment("Final key addition.")
    keys = round_key_images(b, layout, Index(rounds * stride))
    for g, state in enumerate(states):
        store_group(b, layout, g, [xor_parts(b, x, k, f"y{h}") for h, (x, k) in enumerate(zip(state, keys))])
    return b.finish(batch_blocks=batch_blocks(bits, block_bits, groups), key_form="register_image",
                    block_bits=block_bits, rounds=rounds, direction=direction, strategy="register", groups=groups,
                    key_slots=layout.key_slots, image_bytes=layout.image_bytes,
                    key_bytes=(rounds + 1) * stride)


ONE_BLOCK_BITS = 128  # the one-block form's registers: a 128-bit block's half is one of them


def one_block_program(block_bits, rounds, direction):
    """One block per pass, for calls of fewer blocks than a batch (the uBlock
    paper's one block per call): the block alone in the low nibbles of
    128-bit registers, so a call pays for one block, not a padded batch, and
    its chain is one round's latency per round.  The high nibbles carry no
    second block: the S-box is one lookup per half on the low nibbles (the
    single-key image's copy of the key in the high nibble is masked off with
    the index), and the store packs the low nibbles only.  The key form is
    the single-key register image (slot 0's nibbles are read)."""
    uc.check_direction(direction)
    layout = Layout(ONE_BLOCK_BITS, block_bits)
    b = Builder(f"ublock{block_bits}_register_one_block_{direction}", ONE_BLOCK_BITS, PARAMS)
    b.comment("Load one block, spread one nibble per byte in the low nibbles; X0 and X1 in separate registers.")
    zero = b.const(bytes(layout.register_bytes), "zero", "no block in the high nibbles")
    regs = [b.load("in", k * layout.register_bytes, "blk") for k in range(layout.parts)]
    spread = [v for reg in regs for v in spread_pair(b, reg, zero)]
    state = tuple([b.var(f"x{h}_{k}" if layout.parts > 1 else f"x{h}") for k in range(layout.parts)]
                  for h in range(HALVES))
    write(b, state, (spread[:layout.parts], spread[layout.parts:]))
    stride = IMAGE_STEP_BYTES
    with b.loop("r", rounds):
        keys = round_key_images(b, layout, Index(0, (("r", stride),)))
        if direction == "encrypt":
            x0, x1 = (substitute_low(b, xor_parts(b, x, k, f"k{h}"), "encrypt", f"s{h}")
                      for h, (x, k) in enumerate(zip(state, keys)))
            x0, x1 = linear_layer(b, x0, x1)
            write(b, state, (permute_half(b, layout, x0, "left", "encrypt"),
                             permute_half(b, layout, x1, "right", "encrypt")))
        else:
            y0, y1 = (xor_parts(b, y, k, f"k{h}") for h, (y, k) in enumerate(zip(state, keys)))
            y0, y1 = linear_layer_inverse(b, permute_half(b, layout, y0, "left", "decrypt"),
                                          permute_half(b, layout, y1, "right", "decrypt"))
            write(b, state, [substitute_low(b, y, "decrypt", f"s{h}") for h, y in enumerate((y0, y1))])
    b.comment("Final key addition; the store packs the low nibbles (the key's copy in the high ones is dropped).")
    keys = round_key_images(b, layout, Index(rounds * stride))
    x0, x1 = (xor_parts(b, x, k, f"y{h}") for h, (x, k) in enumerate(zip(state, keys)))
    spread = x0 + x1
    for k in range(layout.parts):
        b.store("out", k * layout.register_bytes, pack_low(b, spread[2 * k], spread[2 * k + 1]))
    return b.finish(batch_blocks=1, key_form="register_image", block_bits=block_bits, rounds=rounds,
                    direction=direction, strategy="register", groups=1, key_slots=layout.key_slots,
                    image_bytes=layout.image_bytes, key_bytes=(rounds + 1) * stride)


# ---- rounds ------------------------------------------------------------------

def round_encrypt(b, layout, state, keys):
    """Algorithm 1: key, S-box, linear layer, PL/PR."""
    b.comment("Round: X ^= RK, S-box on both nibbles, linear layer, PL/PR.")
    x0, x1 = (xor_parts(b, x, k, f"k{h}") for h, (x, k) in enumerate(zip(state, keys)))
    tables = sbox_tables(b, "encrypt")
    x0, x1 = (substitute(b, x, tables, f"s{h}") for h, x in enumerate((x0, x1)))
    x0, x1 = linear_layer(b, x0, x1)
    write(b, state, (permute_half(b, layout, x0, "left", "encrypt"), permute_half(b, layout, x1, "right", "encrypt")))


def round_decrypt(b, layout, state, keys):
    """Algorithm 2: key, PL^-1/PR^-1, inverse linear layer, inverse S-box."""
    b.comment("Round: Y ^= RK, PL^-1/PR^-1, inverse linear layer, inverse S-box on both nibbles.")
    y0, y1 = (xor_parts(b, y, k, f"k{h}") for h, (y, k) in enumerate(zip(state, keys)))
    y0, y1 = permute_half(b, layout, y0, "left", "decrypt"), permute_half(b, layout, y1, "right", "decrypt")
    y0, y1 = linear_layer_inverse(b, y0, y1)
    tables = sbox_tables(b, "decrypt")
    write(b, state, [substitute(b, y, tables, f"s{h}") for h, y in enumerate((y0, y1))])


def linear_layer(b, x0, x1):
    """Steps 6-11 of algorithm 1 on both halves' parts."""
    x1 = xor_parts(b, x1, x0, "x1")
    for step, bits in enumerate(ublock.ROTATIONS):
        if step % 2 == 0:
            x0 = xor_parts(b, x0, rotate_parts(b, x1, bits), "x0")
        else:
            x1 = xor_parts(b, x1, rotate_parts(b, x0, bits), "x1")
    return xor_parts(b, x0, x1, "x0"), x1


def linear_layer_inverse(b, y0, y1):
    """Steps 8-13 of algorithm 2: linear_layer undone, step by step backwards."""
    y0 = xor_parts(b, y0, y1, "y0")
    for step, bits in reversed(list(enumerate(ublock.ROTATIONS))):
        if step % 2 == 0:
            y0 = xor_parts(b, y0, rotate_parts(b, y1, bits), "y0")
        else:
            y1 = xor_parts(b, y1, rotate_parts(b, y0, bits), "y1")
    return y0, xor_parts(b, y1, y0, "y1")


def sbox_tables(b, direction):
    low, high = uc.sbox_tables(direction)
    name, label = ("S", "sbox") if direction == "encrypt" else ("S^-1", "sbox_inv")
    return (b.const(low, f"{label}_lo", f"{name}[x]: the block in the low nibbles"),
            b.const(high, f"{label}_hi", f"{name}[x] << {uc.NIBBLE_BITS}: the block in the high nibbles"))


def substitute(b, parts, tables, hint):
    """The S-box on both nibbles of every byte: one pshufb per nibble (section 2.4)."""
    low_table, high_table = tables
    low_nibbles = b.const(uc.nibble_mask(False), "low_nibbles", "low nibble of every byte")
    out = []
    for x in parts:
        low = b.and_(x, low_nibbles, hint + "_lo")
        high = b.and_(b.shr(x, uc.NIBBLE_BITS, 8, hint + "_sh", care=uc.LOW_NIBBLE), low_nibbles, hint + "_hi")
        out.append(b.or_(b.lookup16(low_table, low, hint + "_l"), b.lookup16(high_table, high, hint + "_h"), hint))
    return out


def substitute_low(b, parts, direction, hint):
    """The S-box on the low nibble of every byte (the one-block form): one
    pshufb per part, the high nibble masked off the index."""
    low_table, _ = sbox_tables(b, direction)
    low_nibbles = b.const(uc.nibble_mask(False), "low_nibbles", "low nibble of every byte")
    return [b.lookup16(low_table, b.and_(x, low_nibbles, hint + "_lo"), hint) for x in parts]


def rotate_parts(b, parts, bits):
    """<<<_32 bits on spread words: a byte rotation of each 8-byte word (section 2.5.2)."""
    return [b.rotl(x, uc.spread_rotation(bits), uc.SPREAD_WORD_BITS, f"rot{bits}") for x in parts]


def permute_half(b, layout, parts, side, direction):
    """PL/PR (decrypt: their inverses) on a spread half (section 2.5.1)."""
    in_lane, swapped = uc.permutation_masks(layout.block_bits, side, direction)
    name = ("PL" if side == "left" else "PR") + ("" if direction == "encrypt" else "^-1")
    hint = "pl" if side == "left" else "pr"
    if swapped is None:
        return [b.lookup16(parts[0], b.const(in_lane, f"{hint}_mask", f"{name}_{layout.block_bits} on spread nibbles"),
                          hint)]
    if layout.half_spans_lanes:
        x = parts[0]
        copies = layout.register_bytes // len(in_lane)
        front = b.const(in_lane * copies, f"{hint}_front", f"{name}_256 spread: bytes that stay in their lane")
        rear = b.const(swapped * copies, f"{hint}_rear",
                       f"{name}_256 spread: bytes from the other lane, after the swap")
        lanes_swapped = b.blocks128(x, x, [lane_swap_partner(LANE_BYTES * i) // LANE_BYTES
                                           for i in range(layout.lanes)], hint + "_swap")
        return [b.xor(b.lookup16(x, front, hint + "_f"), b.lookup16(lanes_swapped, rear, hint + "_r"), hint)]
    out = []
    for k in range(layout.parts):  # one 128-bit register per lane: the swap is the other register
        lane = slice(LANE_BYTES * k, LANE_BYTES * (k + 1))
        front = b.const(in_lane[lane], f"{hint}_front{k}", f"{name}_256 spread, lane {k}: bytes from this lane")
        rear = b.const(swapped[lane], f"{hint}_rear{k}", f"{name}_256 spread, lane {k}: bytes from the other lane")
        other = parts[lane_swap_partner(LANE_BYTES * k) // LANE_BYTES]
        out.append(b.xor(b.lookup16(parts[k], front, hint + "_f"), b.lookup16(other, rear, hint + "_r"), hint))
    return out


# ---- state, keys, loads and stores -----------------------------------------------

def write(b, state, halves):
    for vars_, values in zip(state, halves):
        for var, value in zip(vars_, values):
            b.assign(var, value)


def xor_parts(b, a, c, hint):
    return [b.xor(x, y, hint) for x, y in zip(a, c)]


def round_key_images(b, layout, index):
    """The two halves' key images of one key addition: plain full-width loads."""
    return [[b.load("rk", index + half * IMAGE_HALF_BYTES + k * layout.register_bytes, f"rk{half}")
             for k in range(layout.parts)] for half in range(HALVES)]


def load_group(b, layout, g):
    """Group g's blocks as (X0 parts, X1 parts) state variables."""
    base = g * layout.group_bytes
    regs = [b.load("in", base + k * layout.register_bytes, "blk") for k in range(2 * layout.parts)]
    spread = [v for k in range(layout.parts) for v in spread_pair(b, regs[k], regs[layout.parts + k])]
    halves = (spread[:layout.parts], spread[layout.parts:])
    if layout.half_spans_lanes:
        halves = tuple([v] for v in regroup_lanes(b, layout, spread[0], spread[1]))
    state = tuple([b.var(f"g{g}x{h}_{k}" if layout.parts > 1 else f"g{g}x{h}") for k in range(layout.parts)]
                  for h in range(HALVES))
    write(b, state, halves)
    return state


def store_group(b, layout, g, halves):
    x0, x1 = halves
    if layout.half_spans_lanes:
        spread = list(regroup_lanes(b, layout, x0[0], x1[0]))
    else:
        spread = x0 + x1
    base = g * layout.group_bytes
    for k in range(layout.parts):
        low, high = pack_pair(b, spread[2 * k], spread[2 * k + 1])
        b.store("out", base + k * layout.register_bytes, low)
        b.store("out", base + (layout.parts + k) * layout.register_bytes, high)


def spread_pair(b, low_blocks, high_blocks):
    """Two registers of data bytes -> the same bytes spread one nibble per
    byte, low_blocks in the low nibbles, high_blocks in the high ones: the
    even spread bytes (each data byte's high nibble) and the odd ones, then
    interleaved by unpacklo/unpackhi (table 8, not four shuffles).  Each
    select reads a shifted byte's nibble on one side only (care)."""
    high = b.const(uc.nibble_mask(True), "high_nibbles", "high nibble of every byte")
    even = b.select(high, b.shr(low_blocks, uc.NIBBLE_BITS, 8, "lo_sh", care=uc.LOW_NIBBLE), high_blocks, "even")
    odd = b.select(high, low_blocks, b.shl(high_blocks, uc.NIBBLE_BITS, 8, "hi_sh", care=uc.HIGH_NIBBLE), "odd")
    return b.unpacklo(even, odd, 8, "sp"), b.unpackhi(even, odd, 8, "sp")


def pack_pair(b, first, second):
    """spread_pair undone: deinterleave even and odd spread bytes, then put
    each block's two nibbles back into one byte."""
    high = b.const(uc.nibble_mask(True), "high_nibbles", "high nibble of every byte")
    even, odd = deinterleave_spread(b, first, second)
    low_blocks = b.select(high, odd, b.shl(even, uc.NIBBLE_BITS, 8, "ev_sh", care=uc.HIGH_NIBBLE), "out_lo")
    high_blocks = b.select(high, b.shr(odd, uc.NIBBLE_BITS, 8, "od_sh", care=uc.LOW_NIBBLE), even, "out_hi")
    return low_blocks, high_blocks


def pack_low(b, first, second):
    """pack_pair's low-nibble block alone: it reads only the low nibbles."""
    high = b.const(uc.nibble_mask(True), "high_nibbles", "high nibble of every byte")
    even, odd = deinterleave_spread(b, first, second)
    return b.select(high, odd, b.shl(even, uc.NIBBLE_BITS, 8, "ev_sh", care=uc.HIGH_NIBBLE), "out_lo")


def deinterleave_spread(b, first, second):
    """The even spread bytes (each data byte's high nibble) and the odd ones of two spread registers."""
    deinterleave = b.const(deinterleave_mask(), "deinterleave", "even bytes to the low half, odd to the high")
    a, c = b.lookup16(first, deinterleave, "de"), b.lookup16(second, deinterleave, "de")
    return b.unpacklo(a, c, 64, "even"), b.unpackhi(a, c, 64, "odd")


def regroup_lanes(b, layout, first, second):
    """Exchange lanes between two registers so each 256-bit block of the
    results holds one half: (lane 2t of first, lane 2t of second) and (lane
    2t+1 of first, lane 2t+1 of second).  It is its own inverse: it turns the
    unpacked (low 16 nibbles, high 16 nibbles) registers into (X0, X1) and back."""
    picks = [[p for t in range(0, layout.lanes, 2) for p in (t + odd, t + odd + layout.lanes)] for odd in (0, 1)]
    return b.blocks128(first, second, picks[0], "lanes"), b.blocks128(first, second, picks[1], "lanes")
