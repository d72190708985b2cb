"""uBlock nibble-sliced: many blocks per register, one register per nibble
position, so that a round is table lookups and XORs and nothing else.

Layout.  A batch is `bits`/8 blocks, one per byte of the register.  Register p
holds nibble p (gen/specs/ublock.py's numbering: high nibble first) of every
block of the batch, in the low four bits of that block's byte.  The linear
layer's rotations <<<_32 b and the byte permutations PL/PR only move nibbles
from one position to another, and moving a whole register is renaming it: no
instruction at all.

An encryption round (algorithm 1), one loop iteration:
  * the S-box with the round key folded into its table (key form
    "folded_sboxes"): for each position a 16-byte table T[x] = S[x ^ RK^i[p]],
    broadcast to every 128-bit lane from `rk`, and one byte shuffle;
  * the linear layer (steps 6-11): the reference's own `linear_layer`, run on
    registers instead of nibbles (see `_Register`), so its rotations are list
    re-indexing here as they are there.  They stay inside 32-bit words, so
    word w of X0 and word w of X1 form an independent problem of 16 registers;
    the round is emitted one word pair at a time, S-boxes then XORs, which
    keeps that many values live while the rest of the state waits in memory;
  * PL and PR: the state variables are assigned from the reference's
    `permute_bytes` of the results, which the compiler resolves into its
    choice of registers and spill slots, not into instructions.
The last round key RK^r is folded into the tables too (`final_key_sources`):
when encrypting, the last step's tables add c = L^-1(PL^-1 || PR^-1(RK^r))
to their outputs, which the linear layer and PL/PR turn into RK^r; when
decrypting, the first step's tables add c to their index.  So a kernel has
no key XOR at all.  Decryption (algorithm 2) runs the inverse steps in
reverse; its loop is rotated (the first round's PL^-1, PR^-1 and inverse
linear layer before the loop, the last S^-1 after it) so that, as in
encryption, an iteration starts with the table lookups, which read the state
straight from memory, and ends with XORs.  With the S^-1 last, GCC 12
(-O3 -mavx2, 128-bit blocks) stored 61 registers per round instead of 32,
keeping two copies of the state (llvm-mca, znver3: a throughput bound of 66
instead of 49.5 cycles per round).

Per round, after lowering on avx2 (tests/test_ublock_nibbleslice.py pins
these counts; ssse3 lowers to the same):
  128-bit blocks, 32 registers:  32 bcast128 table loads, 32 shuffles,  96 xors
  256-bit blocks, 64 registers:  64 bcast128 table loads, 64 shuffles, 192 xors
i.e. per nibble position one table load and one shuffle, and three XORs (48
per word pair); nothing else: the renaming costs no instruction.  On avx512
the XORs are 64 (128) three-input XORs instead, two per position: every
value of the linear layer feeds the next two steps, and the backend copies
every other step into both (avx512_gfni.shared_xor_as_ternary_logic).  Once per
batch: the transposition each way: 16 row loads or stores per 128 bits of block, a
16 x 16 byte transpose per 128-bit piece of the blocks (4 stages of 16
unpacks), three ops per byte register to split it into its nibbles and two to
join them, and, for 256-bit blocks in registers of 256 or 512 bits, one
128-bit block selection per row to put the two halves of a block into
different registers (and one to join them).

CTR's counter form (program(..., counters=True)) replaces the transposition
in and the first round: the blocks are V + j, and only V's last byte
differs between them, so every nibble above it is V's or V + 256's, and so
is every first-round output that does not depend on the last byte.
`counter_pairs_program` runs the first round once per group of up to 256
blocks on those pairs and stores them as two-entry tables; the counter form
reads each output nibble from its table by the block's carry (one byte
shuffle), XORs in the last byte's share, and loops over the other rounds.
The mode layer has no counter blocks at all.  On the Zen 3 of docs/performance/ublock.md
(avx2, through the library, 64 KiB), with the transposition in replaced:
CTR 2.77 -> 2.59 c/B for 256-bit blocks, 1.72 -> 1.63 for 128-bit ones;
with the first round once per group too: 2.60 -> 2.55 and 1.62 -> 1.55.
"""

from functools import reduce
from operator import xor

from ..ir import Builder, Index, run
from ..ir.keystream import CTR_GROUP_BLOCKS
from ..linalg import inverse_permutation
from ..linalg.shuffle import LANE_BYTES
from ..specs import ublock
from .transpose import join_halves256, split_halves256, transpose
from .ublock_constants import LOW_NIBBLE, NIBBLE_BITS, check_direction, nibble_mask, sbox_tables
from .ublock_reference import linear_layer, linear_layer_inverse, permute_bytes

NIBBLE_VALUES = 1 << NIBBLE_BITS          # entries of one S-box table = bytes of one pshufb table
WORD_NIBBLES = len(ublock.nibble_rotation(0))  # nibbles of one word of <<<_32
LANE_BITS = 8 * LANE_BYTES                # in-lane shuffles and unpacks work on 128-bit lanes
ROUND = "r"                               # the loop variable: one iteration per round
PAIRS_PER_TABLE = LANE_BYTES // 2         # two-entry tables one 16-byte shuffle table holds
# CTR's group buffer: counter_pairs_program writes it, the counter form reads it.
GROUP_LOW_BYTE = 0     # header: V's last byte L (written by the caller)
GROUP_FIRST_BLOCK = 1  # header: the batch's first block j0 in the group (written by the caller)
GROUP_TABLES = 64      # the pair tables, past a header as wide as the widest register
GROUP_BLOCKS = CTR_GROUP_BLOCKS  # V + j for j < 256: the last byte carries at most once


def table_offset(block_bits, step, position):
    """Byte offset in the key form "folded_sboxes" of the table of (step, nibble position)."""
    nibbles = block_bits // NIBBLE_BITS
    return (step * nibbles + position) * NIBBLE_VALUES


def final_key_sources(block_bits):
    """Which nibbles of RK^r make up each nibble of c = L^-1(PL^-1 || PR^-1(RK^r)),
    as bit masks: c[p] is the XOR of RK^r[q] over the bits q of mask p.

    Y = PL || PR(L(s)) ^ RK^r = PL || PR(L(s ^ c)), L being linear: the last
    key XOR is the same as adding c to the last S-box outputs, which the last
    step's tables do for free (and, decrypting, L^-1(PL^-1 || PR^-1(Y ^ RK^r))
    is the inverse round's output plus c, which the first S^-1 tables take
    off their index).  Found by running the reference's inverse steps on
    masks instead of nibbles: XOR of masks is XOR of the sets they stand for."""
    nibbles = block_bits // NIBBLE_BITS
    half = nibbles // 2
    key = [1 << q for q in range(nibbles)]
    x0 = permute_bytes(key[:half], inverse_permutation(ublock.PL[block_bits]))
    x1 = permute_bytes(key[half:], inverse_permutation(ublock.PR[block_bits]))
    y0, y1 = linear_layer_inverse(x0, x1)
    return tuple(y0 + y1)


def final_key_share(block_bits, last_key):
    """c = L^-1(PL^-1 || PR^-1(RK^r)) for RK^r = `last_key` (nibbles)."""
    return [reduce(xor, (k for q, k in enumerate(last_key) if mask >> q & 1), 0)
            for mask in final_key_sources(block_bits)]


def folded_tables(round_keys, direction):
    """The key form "folded_sboxes" for one direction, from RK^0 .. RK^r as
    nibble lists (gen/kernels/ublock_reference.round_keys): step by step and
    position by position, the 16-entry table with the step's round key
    folded in, and RK^r as c = final_key_share(RK^r) in the step next to it.
    Encryption step i: T[x] = S[x ^ RK^i[p]], and ^ c[p] when i = r - 1;
    decryption step i (round r - i of algorithm 2): T[x] = S^-1[x] ^
    RK^(r-1-i)[p], read at x ^ c[p] when i = 0."""
    sbox, _ = sbox_tables(direction)  # S, or S^-1 when decrypting
    rounds = len(round_keys) - 1
    share = final_key_share(len(round_keys[rounds]) * NIBBLE_BITS, round_keys[rounds])
    if direction == "encrypt":
        tables = (bytes(sbox[x ^ k] ^ (c if step == rounds - 1 else 0) for x in range(NIBBLE_VALUES))
                  for step in range(rounds) for k, c in zip(round_keys[step], share))
    else:
        tables = (bytes(sbox[x ^ (c if step == 0 else 0)] ^ k for x in range(NIBBLE_VALUES))
                  for step in range(rounds) for k, c in zip(round_keys[rounds - 1 - step], share))
    return b"".join(tables)


def program(bits, block_bits, rounds, direction, counters=False):
    """The kernel for `bits`-wide registers: `bits`/8 blocks of uBlock with
    `block_bits`-bit blocks and `rounds` rounds, one direction.  With
    `counters` (encryption only), CTR's keystream kernel: the blocks are the
    counters V + j0 + j of a group whose first round counter_pairs_program
    ran, read from `in`, the group buffer (_counter_first_round)."""
    check_direction(direction)
    _check_variant(block_bits, rounds)
    if counters and direction != "encrypt":
        raise ValueError("the counter form of the kernel encrypts only (CTR)")
    batch = bits // 8
    name = f"ublock{block_bits}_r{rounds}_nibbleslice{bits}_{'ctr' if counters else direction}"
    b = Builder(name, bits, ("rk", "in", "out"))

    nibbles = block_bits // NIBBLE_BITS
    half = nibbles // 2
    state = [b.var(f"x{_position_name(p, half)}") for p in range(nibbles)]
    if direction == "encrypt":
        if counters:
            b.comment(f"The {batch} counter blocks V + j0 + j after the first round, from the group's pair tables: "
                      "register p = nibble p of every block, one block per byte.")
            _assign(b, state, _counter_first_round(b, block_bits))
        else:
            b.comment(f"Load {batch} blocks and transpose: register p = nibble p of every block, one block per byte.")
            _assign(b, state, slice_batch(b, block_bits))
        first_step = 1 if counters else 0
        with b.loop(ROUND, rounds - first_step):
            _assign(b, state, _encryption_round(b, block_bits, state, first_step))
        out = state  # Y: RK^r came in with the last step's tables
    else:
        b.comment(f"Load {batch} blocks and transpose: register p = nibble p of every block, one block per byte.")
        sliced = slice_batch(b, block_bits)
        b.comment("Algorithm 2, rotated: every iteration starts with the S^-1 table lookups and ends with the "
                  "next round's XORs, as in encryption.  Here the first round's PL^-1, PR^-1 and inverse linear "
                  f"layer, on Y: the first S^-1 tables take RK^{rounds} off their index.")
        _assign(b, state, _inverse_permutation_and_linear_layer(b, block_bits, lambda p: sliced[p]))
        with b.loop(ROUND, rounds - 1):
            _assign(b, state, _inverse_permutation_and_linear_layer(
                b, block_bits, lambda p: _lookup(b, _step_index(block_bits, ROUND), state[p], p, half),
                "S^-1 with the next round key folded in"))
        b.comment("The last S^-1, with RK^0 folded in.")
        out = [_lookup(b, _step_index(block_bits, rounds - 1), v, p, half) for p, v in enumerate(state)]
    b.comment("Pack nibble pairs into bytes, transpose back and store.")
    unslice_batch(b, block_bits, out)
    return b.finish(batch_blocks=batch, key_form="folded_sboxes", block_bits=block_bits, rounds=rounds,
                    direction=direction, strategy="nibbleslice", input="counter group" if counters else "blocks")


def _check_variant(block_bits, rounds):
    if (block_bits, rounds) not in {(n, r) for (n, _), r in ublock.VARIANTS.items()}:
        raise ValueError(f"no uBlock variant has {block_bits}-bit blocks and {rounds} rounds")


def _assign(b, variables, values):
    for var, value in zip(variables, values):
        b.assign(var, value)


def _position_name(position, half):
    """"h_i" for nibble i of half Xh: the suffix of every name that belongs to one position."""
    return f"{position // half}_{position % half}"


class _Register:
    """A register where the reference has a nibble: `^` emits an IR XOR, so
    the reference's linear layer (and its inverse) run unchanged on registers,
    their rotations being list re-indexing, i.e. renaming.  The reference
    always XORs into its left operand, so the result keeps the left operand's
    name: the C reads `y0_3_2 = y0_3_1 ^ y1_4_1` as X0 nibble 3 ^= X1 nibble 4."""

    __slots__ = ("b", "value", "hint")

    def __init__(self, b, value, hint):
        self.b, self.value, self.hint = b, value, hint

    def __xor__(self, other):
        if other is ZERO:
            return self
        return _Register(self.b, self.b.xor(self.value, other.value, self.hint), self.hint)


class _Zero:
    """A register known to be 0: XORs with it cost nothing (CTR's first round,
    where whole inputs of the linear layer are left out)."""

    value = None

    def __xor__(self, other):
        return other

    def __repr__(self):
        return "ZERO"


ZERO = _Zero()


def _step_index(block_bits, step, first_step=0):
    """Where the tables of a step start in `rk`: `step` is a number, or ROUND
    for the step of the current loop iteration, the loop starting at step
    `first_step`."""
    if step == ROUND:
        stride = table_offset(block_bits, 1, 0) - table_offset(block_bits, 0, 0)
        return Index(table_offset(block_bits, first_step, 0), ((ROUND, stride),))
    return Index(table_offset(block_bits, step, 0))


def _lookup(b, step_index, value, position, half):
    """The folded S-box (or S^-1) of one step at one nibble position."""
    name = _position_name(position, half)
    table = b.bcast128("rk", step_index + position * NIBBLE_VALUES, f"t{name}")
    return b.lookup16(table, value, f"s{name}")


def word_pairs(half):
    """Nibble index ranges of the word pairs (word w of X0 with word w of X1)."""
    return [range(w, w + WORD_NIBBLES) for w in range(0, half, WORD_NIBBLES)]


def _encryption_round(b, block_bits, state, first_step=0):
    """Round r of algorithm 1 on the state registers; returns the new state."""
    half = len(state) // 2
    step = _step_index(block_bits, ROUND, first_step)
    y = _round_linear(b, block_bits, lambda p: _lookup(b, step, state[p], p, half),
                      "S-box with RK^r folded in, one table per nibble")
    b.comment("PL and PR: the new state is the old one renamed (no instruction).")
    return permute_halves(block_bits, y)


def _round_linear(b, block_bits, source, source_note=None):
    """The linear layer of a round on the S-box outputs source(p) (a register,
    or ZERO), p the nibble position; returns y, its output, before PL/PR
    (values, or ZERO where nothing reaches).

    The rotations stay inside 32-bit words, so word w of X0 and word w of X1
    form an independent problem: source(p) is called, and the XORs emitted,
    one word pair at a time, which keeps that many values live while the rest
    of the state waits in memory."""
    half = block_bits // NIBBLE_BITS // 2
    y = [None] * (2 * half)
    for w, word in enumerate(word_pairs(half)):
        if source_note:
            b.comment(f"Word pair {w} (X0, X1 nibbles {word.start}..{word.stop - 1}): {source_note}.")
        x0 = [_as_register(b, source(i), f"y0_{i}") for i in word]
        x1 = [_as_register(b, source(half + i), f"y1_{i}") for i in word]
        if source_note:
            b.comment(f"Word pair {w}: linear layer (algorithm 1, steps 6-11), XORs only; <<<_32 "
                      f"{', '.join(map(str, ublock.ROTATIONS))} are renamings.")
        y0, y1 = linear_layer(x0, x1)
        y[word.start:word.stop] = [r if r is ZERO else r.value for r in y0]
        y[half + word.start:half + word.stop] = [r if r is ZERO else r.value for r in y1]
    return y


def _as_register(b, value, hint):
    return value if value is ZERO else _Register(b, value, hint)


def permute_halves(block_bits, y):
    """PL and PR: the new state is the old one renamed (no instruction)."""
    half = len(y) // 2
    return permute_bytes(y[:half], ublock.PL[block_bits]) + permute_bytes(y[half:], ublock.PR[block_bits])


def _inverse_permutation_and_linear_layer(b, block_bits, source, source_note=None):
    """Steps 8-13 of algorithm 2 (PL^-1, PR^-1, the inverse linear layer) on
    the registers source(p), p the nibble position; returns the new state.

    PL^-1 and PR^-1 only say which positions feed each word pair, so source(p)
    (inside the loop a table lookup, `source_note` says which) is emitted
    where its word pair needs it."""
    half = block_bits // NIBBLE_BITS // 2
    feeds0 = permute_bytes(list(range(half)), inverse_permutation(ublock.PL[block_bits]))
    feeds1 = permute_bytes(list(range(half, 2 * half)), inverse_permutation(ublock.PR[block_bits]))
    y = [None] * (2 * half)
    for w, word in enumerate(word_pairs(half)):
        if source_note:
            b.comment(f"Word pair {w} (X0, X1 nibbles {word.start}..{word.stop - 1}): {source_note} on the "
                      "nibbles PL^-1 / PR^-1 bring to it (renaming).")
        x0 = [_Register(b, source(feeds0[i]), f"y0_{i}") for i in word]
        x1 = [_Register(b, source(feeds1[i]), f"y1_{i}") for i in word]
        b.comment(f"Word pair {w}: inverse linear layer (algorithm 2), XORs only.")
        y0, y1 = linear_layer_inverse(x0, x1)
        y[word.start:word.stop] = [r.value for r in y0]
        y[half + word.start:half + word.stop] = [r.value for r in y1]
    return y


def slice_batch(b, block_bits):
    """Load the batch from `in`; return the nibble registers 0 .. block_bits/4 - 1.

    Each 128-bit piece of the blocks (one for 128-bit blocks, two for 256-bit
    ones) becomes 16 registers that hold that piece of a different block in
    every lane; a 16 x 16 byte transpose in each lane turns them into byte
    registers, each of which splits into its high and low nibble (nibbles
    2j and 2j + 1)."""
    mask = b.const(nibble_mask(high=False), "nibble_mask", "low nibble of every byte")
    pieces = block_bits // LANE_BITS
    rows = [b.load("in", k * b.bits // 8, "row") for k in range(LANE_BYTES * pieces)]
    if pieces == 1:
        slabs = [rows]
    else:
        halves = [split_halves256(b, rows[k], rows[k + 1], "row") for k in range(0, len(rows), 2)]
        slabs = [[lo for lo, _ in halves], [hi for _, hi in halves]]
    nibbles = []
    for slab in slabs:
        for byte in transpose(b, slab, 8, "tr"):
            nibbles.extend(_split_nibbles(b, byte, mask))
    return nibbles


def batch_order(bits, block_bits):
    """Which block of the batch each byte of a nibble register holds after
    `slice_batch` (its unpacks interleave the blocks): found by running the
    slicing on blocks whose bytes are their own index."""
    b = Builder("batch_order", bits, ("in", "out"))
    sliced = slice_batch(b, block_bits)
    for k, register in enumerate(sliced[:2]):  # the high and low nibble of byte 0
        b.store("out", k * bits // 8, register)
    batch, block_bytes = bits // 8, block_bits // 8
    memory = run(b.finish(), {"in": bytearray(j for j in range(batch) for _ in range(block_bytes)),
                              "out": bytearray(2 * batch)})
    return [hi << NIBBLE_BITS | lo for hi, lo in zip(memory["out"][:batch], memory["out"][batch:])]


def counter_pairs_program(bits, block_bits, rounds):
    """CTR's first round, once per group of counter blocks V + j (j < 256)
    instead of once per batch; its output is the group buffer that the
    counter form of the kernel (program(..., counters=True)) reads.

    Only V's last byte L differs from block to block, as (L + j) mod 256; the
    bytes above it are those of V where L + j < 256 and those of V + 256
    beyond (a group carries out of L at most once).  So every nibble above
    the last byte is one of two values, and so is every first-round output
    that does not depend on the last byte: all but one word pair's.  This
    kernel runs the first round on those pairs (nibble p of V, nibble p of
    V + 256), with the S-box outputs of the last byte's two nibbles taken as
    0: the linear layer is linear, so the counter form XORs in their share
    block by block.  It stores y (the linear layer's output, before PL/PR) as
    pair tables at GROUP_TABLES: table t holds, at bytes 2i and 2i + 1 of
    every lane, output nibble 8t + i for carry 0 and for carry 1, a two-entry
    table that one byte shuffle indexed by 2i + carry reads.  `in` = V || V +
    256, two big-endian blocks."""
    _check_variant(block_bits, rounds)
    b = Builder(f"ublock{block_bits}_r{rounds}_nibbleslice{bits}_ctr_pairs", bits, ("rk", "in", "out"))
    b.comment("Every nibble above the last byte as a pair (nibble of V, nibble of V + 256) in every byte pair.")
    pairs = _counter_pairs(b, block_bits)
    half = block_bits // NIBBLE_BITS // 2
    b.comment("The first round on the pairs; the last byte's S-box outputs taken as 0 (their share is added per "
              "block).")
    y = _round_linear(b, block_bits, lambda p: _lookup(b, _step_index(block_bits, 0), pairs[p], p, half)
                      if p < len(pairs) else ZERO)
    b.comment("Pack eight outputs' pairs into each table (bytes 2i, 2i + 1: output i) and store them.")
    for t in range(len(y) // PAIRS_PER_TABLE):
        packed = y[t * PAIRS_PER_TABLE:(t + 1) * PAIRS_PER_TABLE]
        for lane in (16, 32, 64):
            packed = [b.unpacklo(packed[k], packed[k + 1], lane, "pack") for k in range(0, len(packed), 2)]
        b.store("out", GROUP_TABLES + t * bits // 8, packed[0])
    return b.finish(block_bits=block_bits, rounds=rounds, strategy="nibbleslice", input="counters",
                    output="counter group")


def group_bytes(bits, block_bits):
    """The size of a group buffer for `bits`-wide registers."""
    return GROUP_TABLES + block_bits // NIBBLE_BITS // PAIRS_PER_TABLE * bits // 8


def _counter_pairs(b, block_bits):
    """Registers p (every nibble position but the last byte's two) holding
    (nibble p of V, nibble p of V + 256) in every byte pair, from `in` = V || V + 256."""
    mask = b.const(nibble_mask(high=False), "nibble_mask", "low nibble of every byte")
    block_bytes = block_bits // 8
    pair_index = [b.const([2 * i, 2 * i + 1] * PAIRS_PER_TABLE, f"pair{i}", f"pair {i} of a table, in every byte pair")
                  for i in range(PAIRS_PER_TABLE)]
    pairs = []
    for piece in range(block_bits // LANE_BITS):
        counter = [b.bcast128("in", k * block_bytes + piece * LANE_BYTES, name) for k, name in enumerate("vw")]
        high, low = zip(*(_split_nibbles(b, c, mask) for c in counter))
        tables = [(unpack(*high, 8, "pairs_hi"), unpack(*low, 8, "pairs_lo")) for unpack in (b.unpacklo, b.unpackhi)]
        for byte in range(LANE_BYTES):
            if piece * LANE_BYTES + byte == block_bytes - 1:
                break  # the last byte: its nibbles differ from block to block
            for table in tables[byte // PAIRS_PER_TABLE]:
                pairs.append(b.lookup16(table, pair_index[byte % PAIRS_PER_TABLE], "pair"))
    return pairs


def _counter_first_round(b, block_bits):
    """The state after CTR's first round and PL/PR for the batch's blocks V +
    j0 + j, from the group buffer `in` (counter_pairs_program): each output
    nibble is its pair table read by the block's carry, XORed with the share
    of the last byte's S-box outputs.  The carry out of L + j is bit 7 of
    (L & j) | ((L | j) & ~(L + j)).  No branch and no address depends on the
    counter."""
    if b.bits // 8 > GROUP_BLOCKS:
        raise ValueError(f"a batch of {b.bits // 8} blocks does not fit in a group of {GROUP_BLOCKS}")
    nibbles = block_bits // NIBBLE_BITS
    half = nibbles // 2
    mask = b.const(nibble_mask(high=False), "nibble_mask", "low nibble of every byte")
    low = b.bcast8("in", GROUP_LOW_BYTE, "low")  # L
    offsets = b.add(b.const(batch_order(b.bits, block_bits), "block_offsets", "j: the block each byte holds"),
                    b.bcast8("in", GROUP_FIRST_BLOCK, "first"), 8, "offsets")  # j0 + j < 256
    low_bytes = b.add(low, offsets, 8, "low_byte")
    carry_bits = b.or_(b.and_(low, offsets, "both"),
                       b.andnot(low_bytes, b.or_(low, offsets, "either"), "either_not_sum"), "carry_bit7")
    # The AND makes the carry a clean 0 or 1 whatever the shift leaves above bit 0 (care).
    carry = b.and_(b.shr(carry_bits, 7, 8, care=0x01), b.const([1] * LANE_BYTES, "one", "1 in every byte"), "carry")
    picks = [carry] + [b.or_(carry, b.const([2 * i] * LANE_BYTES, f"pick{i}", f"2 x {i} in every byte"), "pick")
                       for i in range(1, PAIRS_PER_TABLE)]
    b.comment("The last byte L + j0 + j of every block: the S-box of its two nibbles, RK^0 folded in.")
    last = {p: _lookup(b, _step_index(block_bits, 0), v, p, half)
            for p, v in zip((nibbles - 2, nibbles - 1), _split_nibbles(b, low_bytes, mask))}
    b.comment("Their share of the linear layer's output (XORs only; the other inputs taken as 0).")
    share = _round_linear(b, block_bits, lambda p: last.get(p, ZERO))
    b.comment("Every output nibble: its pair table read by the carry, XOR the share.")
    tables = [b.load("in", GROUP_TABLES + t * b.bits // 8, "pairs") for t in range(nibbles // PAIRS_PER_TABLE)]
    y = []
    for q, extra in enumerate(share):
        both = b.lookup16(tables[q // PAIRS_PER_TABLE], picks[q % PAIRS_PER_TABLE], f"y{_position_name(q, half)}")
        y.append(both if extra is ZERO else b.xor(both, extra, f"y{_position_name(q, half)}"))
    b.comment("PL and PR: the new state is the old one renamed (no instruction).")
    return permute_halves(block_bits, y)


def _split_nibbles(b, byte, mask):
    """(high, low) nibble of every byte, each in the low four bits of its byte
    (the AND keeps the shifted byte's low nibble: its other bits are don't-care)."""
    high = b.and_(b.shr(byte, NIBBLE_BITS, 8, "hi_shifted", care=LOW_NIBBLE), mask, "hi")
    return high, b.and_(byte, mask, "lo")


def unslice_batch(b, block_bits, nibbles):
    """The inverse of `slice_batch`, storing to `out`: each high nibble shifted
    up into the top of its byte (the nibbles are below 16: `known`), OR the low one."""
    byte_regs = [b.or_(b.shl(nibbles[j], NIBBLE_BITS, 8, "hi_up", known=LOW_NIBBLE), nibbles[j + 1],
                       "byte")
                 for j in range(0, len(nibbles), 2)]
    slabs = [transpose(b, byte_regs[k:k + LANE_BYTES], 8, "tro") for k in range(0, len(byte_regs), LANE_BYTES)]
    if len(slabs) == 1:
        rows = slabs[0]
    else:
        rows = [row for lo, hi in zip(*slabs) for row in join_halves256(b, lo, hi, "row_out")]
    for k, row in enumerate(rows):
        b.store("out", k * b.bits // 8, row)
