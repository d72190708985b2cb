"""ZUC lane-parallel: one stream per 32-bit element, `bits` / 32 streams per
register, `groups` registers' worth of streams interleaved.

Every ZUC word (the LFSR cells s0..s15, R1, R2, the BR words X0..X3) is one
register holding that word of every lane, so a round is the scalar round on
vectors: the LFSR update with additions modulo 2^31 - 1, bit reorganisation
by shifts and 16-bit blends, the FSM, L1 and L2 by rotations, and the S-box
layer S = (S0, S1, S0, S1) on the bytes of each word.  The S-box layer runs S0
and S1 once each, on regrouped bytes (the paper's algorithm 5): S0's inputs are
the odd bytes of both L1's and L2's outputs, S1's the even bytes (by an
exchange of odd bytes with L2's output rotated by 8, or by interleaving: the
swap_form).  S0 is its three-round Feistel of 4-bit tables, or on a target
that looks up whole bytes (AVX-512 VBMI's VPERMI2B) its 256-entry table; S1
is A2·inv(A1·x) ^ c2 over the AES field through a field isomorphism, which
the backend lowers to GF2P8AFFINE(INV)QB or to nibble tables around
AESENCLAST (AESE on AArch64).  Sixteen rounds are unrolled so that the LFSR
never moves: cell i of round r is register (r + i) mod 16, or, with
keystream_program's lfsr_in_memory, row (r + i) mod 16 of the state array,
loaded by the rounds that use it.  The 16 keystream words of a block are
transposed (4 x 4 words in each 128-bit lane) so that each lane's 64 bytes
are stored contiguously, to that lane's own pointer (`out[lane]`), so that
the cores can point a lane at its message (the fused encryption,
gen/ir/keystream.py) or at its row of MAC keystream.
"""

from ..ir import Builder, Index
from ..linalg import AffineMap, byteswap_mask
from ..specs import zuc
from .rotations import rotation_sum
from .transpose import transpose
from .zuc_reference import INIT_MORE_ROUNDS
from .zuc_constants import s0_nibble_tables, s1_decomposition

ROUNDS_PER_BLOCK = 16
S0_FORMS = ("folded", "rotate", "table")
ADD_FORMS = ("min", "fold")
ROT16_FORMS = ("select", "rotate")
SWAP_FORMS = ("select", "xor", "interleave")
# The choices the generator makes by cost on each target, with their options
# (on equal cost the earlier option is taken).
FORMS = {"s0_form": S0_FORMS, "add_form": ADD_FORMS, "rot16_form": ROT16_FORMS, "swap_form": SWAP_FORMS}
# What a program gets for a choice it is not given: forms that every target has.
DEFAULT_FORMS = {"s0_form": "folded", "add_form": "fold", "rot16_form": "select", "swap_form": "select"}
STATE_WORDS = 18  # s0..s15, R1, R2
ROUND_VAR = "r"  # the loop variable of a rolled block: its round
RING, Z_ROWS = "ring", "zrows"  # a rolled block's scratch buffers
MODULUS = zuc.LFSR_MODULUS
LOW_NIBBLE = 0x0F  # S0's Feistel halves are the nibbles of a byte


class LaneRound:
    """One ZUC round on `bits`-wide registers, written against a Builder."""

    def __init__(self, b, isomorphism, s0_form, add_form, rot16_form, swap_form):
        for name, value in (("s0_form", s0_form), ("add_form", add_form), ("rot16_form", rot16_form),
                            ("swap_form", swap_form)):
            if value not in FORMS[name]:
                raise ValueError(f"{name} must be one of {FORMS[name]}, not {value!r}")
        self.b = b
        self.s0_form = s0_form
        self.add_form = add_form
        self.rot16_form = rot16_form
        self.swap_form = swap_form
        dec = s1_decomposition(isomorphism)
        self.s1_inner = AffineMap(dec.A1, dec.c1)
        self.s1_outer = AffineMap(dec.A2, dec.c2)
        self.isomorphism = isomorphism
        if s0_form != "table":  # the table form looks S0 up whole (sbox8)
            tables = s0_nibble_tables()
            self.p1 = b.const(tables.p1, "s0_p1", "S0 Feistel round 1: P1 (gen/specs/zuc.py)")
            self.p2 = b.const(tables.p2, "s0_p2", "S0 Feistel round 2: P2")
            if s0_form == "folded":
                self.p3 = b.const(tables.folded, "s0_p3_rot",
                                  "S0 round 3 with the final rotation folded in: rotl8(v, 5) ^ (P3[v] << 1)")
            else:
                self.p3 = b.const(tables.p3, "s0_p3", "S0 Feistel round 3: P3")
            self.nibble = b.const(bytes([LOW_NIBBLE] * 16), "nibble_mask", "low nibble of every byte")
        self.hi16 = b.const(bytes([0, 0, 0xFF, 0xFF] * 4), "high16", "high 16 bits of every 32-bit word")
        self.odd = b.const(bytes([0, 0xFF] * 8), "odd_bytes", "bytes 1 and 3 of every word (the S0 bytes)")
        self.modulus = b.const(MODULUS.to_bytes(4, "little") * 4, "modulus", "2^31 - 1 in every word")
        if add_form == "min":
            self.minus_modulus = b.const(((-MODULUS) % 2**32).to_bytes(4, "little") * 4, "minus_modulus",
                                         "-(2^31 - 1) mod 2^32 in every word")

    # ---- S-boxes ----------------------------------------------------------
    def s0(self, x, hint):
        """S0 on every byte: t = P1[x_L] ^ x_H; o_L = P2[t] ^ x_L; o_H = P3[o_L] ^ t;
        out = rotl8(o_H || o_L, 5); or its 256-entry table (derived from the
        same Feistel) where a target looks up whole bytes."""
        b = self.b
        if self.s0_form == "table":
            return b.sbox8(x, zuc.s0_table(), hint, note="S0 (gen/specs/zuc.py: P1, P2, P3, rotation by 5)")
        low = b.and_(x, self.nibble, f"{hint}_xl")
        # The AND keeps the shifted byte's low nibble: its other bits are don't-care.
        high = b.and_(b.shr(x, 4, 8, f"{hint}_xs", care=LOW_NIBBLE), self.nibble, f"{hint}_xh")
        t = b.xor(b.lookup16(self.p1, low, f"{hint}_p1"), high, f"{hint}_t")
        out_low = b.xor(b.lookup16(self.p2, t, f"{hint}_p2"), low, f"{hint}_ol")
        if self.s0_form == "folded":
            # rotl8((P3[o_L] ^ t) << 4 | o_L, 5) = rotl8(o_L, 5) ^ (P3[o_L] << 1) ^ (t << 1):
            # the high nibble rotated by 5 lands in bits 1..4 without wrapping.
            return b.xor(b.lookup16(self.p3, out_low, f"{hint}_p3"), b.add(t, t, 8, f"{hint}_t2"), hint)
        out_high = b.xor(b.lookup16(self.p3, out_low, f"{hint}_p3"), t, f"{hint}_oh")
        joined = b.or_(b.shl(out_high, 4, 8, f"{hint}_ohs", known=LOW_NIBBLE), out_low, f"{hint}_o")  # o_H < 16
        return b.rotl(joined, zuc.S0_ROTATION, 8, hint)

    def s1(self, x, hint):
        """S1 on every byte: M·inv_ZUC(x) ^ B = A2·inv_AES(A1·x) ^ c2."""
        b = self.b
        inner = b.affine8(x, self.s1_inner, f"{hint}_k",
                          note=f"S1 inner map K (isomorphism #{self.isomorphism}: ZUC field to AES field)")
        return b.affine_inv8(inner, self.s1_outer, hint, note="S1 outer map M·K^-1, constant 0x55")

    def exchange_odd_bytes(self, x, y, hint):
        """(x with y's odd bytes, y with x's odd bytes): two selects, or where a
        select takes three instructions (SSSE3) the delta swap d = (x ^ y) & odd,
        (x ^ d, y ^ d)."""
        b = self.b
        if self.swap_form == "select":
            return b.select(self.odd, x, y, f"{hint}_x"), b.select(self.odd, y, x, f"{hint}_y")
        delta = b.and_(b.xor(x, y, f"{hint}_xy"), self.odd, f"{hint}_d")
        return b.xor(x, delta, f"{hint}_x"), b.xor(y, delta, f"{hint}_y")

    def interleave_bytes(self, x, y, odd, hint):
        """(x_1, y_1, x_3, y_3, ...) from the odd bytes of x and y, or from their
        even bytes (x_0, y_0, x_2, y_2, ...): a shift of 16-bit elements by a
        byte and a select, which a backend with an element transpose lowers to
        one instruction."""
        b = self.b
        if odd:
            return b.select(self.odd, b.shr(x, 8, 16, f"{hint}_sh"), y, hint)
        return b.select(self.odd, x, b.shl(y, 8, 16, f"{hint}_sh"), hint)

    def rotates_v(self):
        """Whether the S-box layer takes L2's output rotated left by 8 (v8)."""
        return self.swap_form != "interleave"

    def sbox_layer(self, u, v, hint):
        """(S(u), S(v)) with S = S0 on bytes 3 and 1, S1 on bytes 2 and 0: regroup
        so that S0 and S1 each run once (algorithm 5).  With the exchange forms
        v comes rotated left by 8 (v8): v's S0 bytes sit on u's even (S1) bytes
        and v's S1 bytes on u's odd ones, so the regrouping is one exchange of
        odd bytes, and R2 is rotated back at the end.  The interleave form takes
        v itself and interleaves the odd (S0) and the even (S1) bytes of v and
        u, and the S-boxes' outputs back the same way: no rotation."""
        if not self.rotates_v():
            s0_out = self.s0(self.interleave_bytes(v, u, True, f"{hint}_in_x"), f"{hint}_s0")
            s1_out = self.s1(self.interleave_bytes(v, u, False, f"{hint}_in_y"), f"{hint}_s1")
            # s0_out holds (S0(v_1), S0(u_1), ...), s1_out (S1(v_0), S1(u_0), ...).
            return (self.interleave_bytes(s1_out, s0_out, True, "r1"),
                    self.interleave_bytes(s1_out, s0_out, False, "r2"))
        # S0's input: u's bytes 3, 1 and v's bytes 1, 3 on 2, 0; S1's: u's bytes 2, 0 and v's bytes 0, 2 on 1, 3.
        s0_in, s1_in = self.exchange_odd_bytes(v, u, f"{hint}_in")
        s0_out = self.s0(s0_in, f"{hint}_s0")
        s1_out = self.s1(s1_in, f"{hint}_s1")
        # Exchanged back: R1, and R2 rotated left by 8, which is turned back.
        r1, r2_8 = self.exchange_odd_bytes(s1_out, s0_out, f"{hint}_out")
        return r1, self.b.rotl(r2_8, 24, 32, "r2")

    # ---- arithmetic modulo 2^31 - 1 -------------------------------------------
    def doubled(self, x):
        """2x as a 32-bit word (a cell has 31 bits): shared by BR and the feedback.
        An addition, not a shift: on AVX-512 shifts issue on half the vector
        pipes that additions do, and the round is short of shift slots."""
        return self.b.add(x, x, 32, "dbl")

    def times_power_of_two(self, x, k, hint):
        """x · 2^k mod (2^31 - 1): the 31-bit rotation (x << k | x >> (31 - k)) & p,
        with x >> (31 - k) = (2x) >> (32 - k) so that it is one double shift."""
        return self.b.and_(self.b.shld(x, self.doubled(x), k, 32, f"{hint}_o"), self.modulus, hint)

    def add_fold(self, x, y, hint):
        """x + y mod (2^31 - 1) for x, y <= 2^31 - 1: the sum fits 32 bits and
        2^31 = 1 mod 2^31 - 1 folds bit 31 back in.  The result lies in [1, p]
        when the sum is positive, so 0 is never produced from a nonzero cell."""
        b = self.b
        total = b.add(x, y, 32, f"{hint}_s")
        return b.add(b.and_(total, self.modulus, f"{hint}_m"), b.shr(total, 31, 32, f"{hint}_c"), 32, hint)

    def add_min(self, x, y, hint):
        """x + y mod (2^31 - 1) for x, y in [0, p], result in [0, p]: the smaller
        (unsigned) of t and t - p, since t - p wraps around exactly when t < p."""
        b = self.b
        total = b.add(x, y, 32, f"{hint}_s")
        return b.minu(total, b.add(total, self.minus_modulus, 32, f"{hint}_p"), 32, hint)

    def add_max(self, x, y, hint):
        """x + y mod (2^31 - 1) for x in [0, p], y in [1, p], result in [1, p] like
        add_fold's, in two instructions instead of three (and no shift): the
        larger (signed) of t and t - p.  For t <= p, t is positive and t - p <= 0;
        for t >= 2^31, t is negative and t - p = t - 2^31 + 1 lies in [1, p]."""
        b = self.b
        total = b.add(x, y, 32, f"{hint}_s")
        return b.maxs(total, b.add(total, self.minus_modulus, 32, f"{hint}_p"), 32, hint)

    def sum_mod(self, terms, anchor, hint):
        """anchor + sum(terms) mod p, a cell value in [1, p] (anchor is a cell,
        never 0).  The terms are summed in a balanced tree (they become ready
        together) with add_min where it is cheaper, then added to the anchor by
        add_fold, or add_max where the target has add_min's instructions (both are
        SSE4.1): these map a zero sum to p as the LFSR requires."""
        level = list(terms)
        depth = 0
        add = self.add_min if self.add_form == "min" else self.add_fold
        while len(level) > 1:
            pairs = [add(level[i], level[i + 1], f"{hint}{depth}") for i in range(0, len(level) - 1, 2)]
            level = pairs + level[len(level) - len(level) % 2:]
            depth += 1
        final = self.add_max if self.add_form == "min" else self.add_fold
        return final(level[0], anchor, hint)

    # ---- one round ----------------------------------------------------------------
    def run(self, s, r1, r2, init):
        """One round on LFSR registers s[0..15] (s[0] oldest).  Returns (s16,
        R1, R2, Z); Z is None in initialisation mode, where the FSM output W
        (shifted right by one) joins the LFSR feedback instead."""
        b = self.b
        # BR: X0 = s15_H || s14_L, X1 = s11_L || s9_H, X2 = s7_L || s5_H, X3 = s2_L || s0_H,
        # where cell_H (bits 30..15) is the high half of 2 * cell.
        x0 = b.select(self.hi16, s[14], self.doubled(s[15]), "x0")
        x1 = b.shld(s[11], self.doubled(s[9]), 16, 32, "x1")
        x2 = b.shld(s[7], self.doubled(s[5]), 16, 32, "x2")
        w = b.add(b.xor(x0, r1, "x0r1"), r2, 32, "w")
        z = None if init else b.xor(w, b.shld(s[2], self.doubled(s[0]), 16, 32, "x3"), "z")
        w1 = b.add(r1, x1, 32, "w1")
        w2 = b.xor(r2, x2, "w2")
        # u = L1(W1_L || W2_H) and v = L2(W2_L || W1_H), or v8 = rotl(v, 8) (sbox_layer).  Each
        # input rotated by 16 is W2_H || W1_L (W1_H || W2_L): a select where that is cheaper.
        by_select = self.rot16_form == "select"
        u = rotation_sum(b, b.shld(w1, w2, 16, 32, "l1in"), (0,) + zuc.L1_ROTATIONS, "u",
                         known={16: b.select(self.hi16, w1, w2, "l1in16")} if by_select else None)
        turn = 8 if self.rotates_v() else 0
        v = rotation_sum(b, b.shld(w2, w1, 16, 32, "l2in"), [(r + turn) % 32 for r in (0,) + zuc.L2_ROTATIONS],
                         "v8" if turn else "v", known={16: b.select(self.hi16, w2, w1, "l2in16")} if by_select else None)
        new_r1, new_r2 = self.sbox_layer(u, v, "sb")
        (anchor_cell, _), *taps = _feedback_terms()
        terms = [self.times_power_of_two(s[cell], power.bit_length() - 1, f"s{cell}k") for cell, power in taps]
        if init:
            terms.append(b.shr(w, 1, 32, "w_half"))
        return self.sum_mod(terms, s[anchor_cell], "fb"), new_r1, new_r2, z


def _feedback_terms():
    """The feedback (1 + 2^8)s0 + 2^20 s4 + ... as (cell, power of two) pairs;
    the first is (0, 1): s0 itself."""
    terms = []
    for cell, multiplier in zuc.LFSR_TAPS:
        power = 1
        while multiplier:
            if multiplier & 1:
                terms.append((cell, power))
            multiplier >>= 1
            power <<= 1
    return terms


def _row(group, row, lanes_total, lanes):
    """Byte offset of state word `row` for the lanes of `group`."""
    return (row * lanes_total + group * lanes) * 4


def _load_state(b, groups, lanes, lanes_total, first_row=0):
    """Each group's state words from first_row on (16: R1 and R2 only)."""
    return [[b.load("state", _row(g, i, lanes_total, lanes), f"g{g}s{i}" if i < 16 else f"g{g}r{i - 15}")
             for i in range(first_row, STATE_WORDS)] for g in range(groups)]


def _store_state(b, groups, lanes, lanes_total, state, first_row=0):
    for g in range(groups):
        for i, value in enumerate(state[g], first_row):
            b.store("state", _row(g, i, lanes_total, lanes), value)


class _CellsInMemory:
    """One round's LFSR cells s0..s15 of one group when they stay in memory:
    `address(i)` is where cell i of this round lives in `param`, and the new
    cell s16 goes to address(16).  Unrolled (keystream_program's lfsr_in_memory)
    that is row (r + i) mod 16 of the state array, s16 taking the row of s0,
    which the round has read by then; in a rolled block, row r + i of its
    scratch ring.  A cell is loaded when the round first uses it, once per
    round, so that nothing derived from it (its doubled value, its halves)
    lives on into later rounds either.  The exception is s15, the previous
    round's s16 (`newest`, when this block made it): it is taken from its
    register, since a reload right after the store would wait for the store's
    data (about 13 cycles for 512 bits on Zen 4) on the LFSR's own chain of
    rounds."""

    def __init__(self, b, group, param, address, newest=None):
        self.b = b
        self.group = group
        self.param = param
        self.address = address
        self._loaded = {} if newest is None else {15: newest}

    def __getitem__(self, cell):
        if cell not in self._loaded:
            self._loaded[cell] = self.b.load(self.param, self.address(cell), f"g{self.group}s{cell}", volatile=True)
        return self._loaded[cell]

    def store_new_cell(self, value):
        self.b.store(self.param, self.address(16), value, volatile=True)


def _round_row(group, row, lanes_total, lanes):
    """The offset of `group`'s row `row` + r in a rolled block's scratch, r the round."""
    return Index(_row(group, row, lanes_total, lanes), ((ROUND_VAR, _row(0, 1, lanes_total, lanes)),))


def _rolled_rounds(b, rnd, groups, lanes, lanes_total):
    """The 16 rounds of a block as a loop of one round (of every group) per
    iteration, the LFSR in a scratch ring (_CellsInMemory), the keystream words in
    scratch rows: a kernel function a few hundred instructions long instead of
    thousands, which the CPU's decoded-instruction cache holds whole.  Returns
    each group's Z words, loaded back from their rows."""
    b.scratch_buffer(RING, 2 * ROUNDS_PER_BLOCK * lanes_total * 4)
    b.scratch_buffer(Z_ROWS, ROUNDS_PER_BLOCK * lanes_total * 4)
    b.comment(f"Copy the LFSR cells of {lanes_total} lanes to the first 16 rows of the ring; "
              "R1, R2 and s15 (the newest cell) into variables.")
    newest, fsm = [], []
    for g in range(groups):
        for i in range(16):
            cell = b.load("state", _row(g, i, lanes_total, lanes), f"g{g}s{i}")
            b.store(RING, _row(g, i, lanes_total, lanes), cell)
        newest.append(b.var(f"g{g}newest"))
        b.assign(newest[g], cell)
    for g, words in enumerate(_load_state(b, groups, lanes, lanes_total, first_row=16)):
        fsm.append([b.var(value.name) for value in words])
        for var, value in zip(fsm[g], words):
            b.assign(var, value)
    with b.loop(ROUND_VAR, ROUNDS_PER_BLOCK):
        for g in range(groups):
            b.comment(f"Round r, lanes {g * lanes}..{g * lanes + lanes - 1}: BR, F (Z to its row), LFSR feedback "
                      "into row r + 16 of the ring.")
            cells = _CellsInMemory(b, g, RING, lambda cell, g=g: _round_row(g, cell, lanes_total, lanes), newest[g])
            s16, r1, r2, z = rnd.run(cells, fsm[g][0], fsm[g][1], init=False)
            cells.store_new_cell(s16)
            b.store(Z_ROWS, _round_row(g, 0, lanes_total, lanes), z)
            for var, value in zip([newest[g]] + fsm[g], [s16, r1, r2]):
                b.assign(var, value)
    b.comment("Store the block's last 16 cells (rows 16..31 of the ring), R1 and R2 back.")
    for g in range(groups):
        for i in range(16):
            b.store("state", _row(g, i, lanes_total, lanes), b.load(RING, _row(g, 16 + i, lanes_total, lanes), "cell"))
    _store_state(b, groups, lanes, lanes_total, fsm, first_row=16)
    return [[b.load(Z_ROWS, _row(g, r, lanes_total, lanes), "z") for r in range(ROUNDS_PER_BLOCK)]
            for g in range(groups)]


def _lane_blocks(b, quarters):
    """Regroup 128-bit blocks: quarters[q] holds words 4q..4q+3 of lane 4c + j
    in its block c; returns, for each block c, the registers that hold lane
    4c + j's 64 bytes in order (4 x 4 blocks in two VSHUFI32X4 stages at 512
    bits; pairs of blocks by VPERM2I128 at 256)."""
    if b.bits == 128:
        return [quarters]
    if b.bits == 256:
        return [[b.blocks128(quarters[i], quarters[i + 1], (c, 2 + c), "zl") for i in (0, 2)] for c in (0, 1)]
    even, odd = (0, 2, 4, 6), (1, 3, 5, 7)
    t = [b.blocks128(quarters[i], quarters[i + 1], picks, "zq") for i in (0, 2) for picks in (even, odd)]
    return [[b.blocks128(t[lo], t[lo + 2], picks, "zl")] for picks in (even, odd) for lo in (0, 1)]


def _store_keystream(b, group, lanes, z_words, bswap):
    """Transpose 16 rounds x `lanes` words into 64 bytes per lane, big-endian,
    stored to out[lane]: 4 x 4 words within 128-bit blocks, then the blocks
    across registers."""
    be = [b.lookup16(z, bswap, "zbe") for z in z_words]
    cols = [transpose(b, be[4 * q:4 * q + 4], 32, "ztr") for q in range(4)]
    for j in range(4):  # cols[q][j]: block c holds lane 4c + j
        for c, parts in enumerate(_lane_blocks(b, [col[j] for col in cols])):
            for k, part in enumerate(parts):
                b.store("out", k * part.bits // 8, part, row=group * lanes + 4 * c + j)


def _rounds(rnd, lfsr, fsm, count, lanes, init, cells_in_memory=None):
    """`count` rounds of every group, interleaved: lfsr[g] grows by one cell
    per round and fsm[g] is replaced; returns each group's Z words (None in
    initialisation mode).  With cells_in_memory (group, round, the newest
    cell or None -> a _CellsInMemory), the rounds read and write the cells
    there instead; lfsr[g] then starts empty."""
    b = rnd.b
    z_words = [[] for _ in lfsr]
    for r in range(count):
        for g in range(len(lfsr)):
            low, high = g * lanes, g * lanes + lanes - 1
            b.comment(f"Initialisation round 16r+{r}, lanes {low}..: s16 = feedback + (W >> 1)." if init else
                      f"Round {r}, lanes {low}..{high}: BR, F (Z out), LFSR feedback.")
            cells = cells_in_memory(g, r, lfsr[g][-1] if lfsr[g] else None) if cells_in_memory else lfsr[g][r:r + 16]
            s16, r1, r2, z = rnd.run(cells, fsm[g][0], fsm[g][1], init=init)
            if cells_in_memory:
                cells.store_new_cell(s16)
            lfsr[g].append(s16)
            fsm[g] = [r1, r2]
            z_words[g].append(z)
    return z_words


def keystream_program(bits, groups=1, isomorphism=0, lfsr_in_memory=False, rolled=False, **forms):
    """16 work-mode rounds for groups x bits/32 lanes: params (state, out);
    out[lane] receives that lane's 64 keystream bytes.  With lfsr_in_memory the
    LFSR cells stay in the state array (_CellsInMemory) and only R1 and R2 are
    loaded up front: the compiler then holds far fewer values in registers.
    With rolled the rounds are a loop instead (_rolled_rounds)."""
    if rolled and lfsr_in_memory:
        raise ValueError("a rolled block keeps its LFSR in its own ring; lfsr_in_memory is the unrolled form")
    lanes = bits // 32
    lanes_total = lanes * groups
    b = Builder(f"zuc_keystream{bits}", bits, ("state", "out"))
    rnd = LaneRound(b, isomorphism=isomorphism, **{**DEFAULT_FORMS, **forms})
    bswap = b.const(byteswap_mask(4), "bswap32", "byte order reversal in each 32-bit word")
    if rolled:
        z_words = _rolled_rounds(b, rnd, groups, lanes, lanes_total)
        for g in range(groups):
            b.comment(f"Keystream of lanes {g * lanes}..{g * lanes + lanes - 1}: big-endian, transposed to 64 bytes "
                      "per lane.")
            _store_keystream(b, g, lanes, z_words[g], bswap)
        return b.finish(lanes=lanes_total, strategy="lanes")
    if lfsr_in_memory:
        b.comment(f"Load R1 and R2 of {lanes_total} lanes; each round loads the LFSR cells it uses "
                  "and stores its new cell over s0.")
        fsm = _load_state(b, groups, lanes, lanes_total, first_row=16)
        lfsr = [[] for _ in range(groups)]
    else:
        b.comment(f"Load the state of {lanes_total} lanes: one register per word.")
        state = _load_state(b, groups, lanes, lanes_total)
        lfsr = [words[:16] for words in state]
        fsm = [words[16:] for words in state]
    cells_in_memory = (lambda g, r, newest: _CellsInMemory(
        b, g, "state", lambda cell: _row(g, (r + cell) % 16, lanes_total, lanes), newest)) if lfsr_in_memory else None
    z_words = _rounds(rnd, lfsr, fsm, ROUNDS_PER_BLOCK, lanes, init=False, cells_in_memory=cells_in_memory)
    for g in range(groups):
        b.comment(f"Keystream of lanes {g * lanes}..{g * lanes + lanes - 1}: big-endian, transposed to 64 bytes per lane.")
        _store_keystream(b, g, lanes, z_words[g], bswap)
    if lfsr_in_memory:
        b.comment("Store R1 and R2 back.")
        _store_state(b, groups, lanes, lanes_total, fsm, first_row=16)
    else:
        b.comment("Store the state back.")
        _store_state(b, groups, lanes, lanes_total, [lfsr[g][16:] + fsm[g] for g in range(groups)])
    return b.finish(lanes=lanes_total, strategy="lanes")


def _state_vars(b, state):
    """Each group's state words as variables, set to the loaded values."""
    words = [[b.var(value.name) for value in group] for group in state]
    for group_vars, group in zip(words, state):
        for var, value in zip(group_vars, group):
            b.assign(var, value)
    return words


def _assign_state(b, words, lfsr, fsm, rounds):
    """The state variables after `rounds` rounds: the LFSR moved on by as many cells."""
    for g, group_vars in enumerate(words):
        for var, value in zip(group_vars, lfsr[g][rounds:rounds + 16] + fsm[g]):
            b.assign(var, value)


def init_program(bits, groups=1, isomorphism=0, **forms):
    """The 32 initialisation rounds (two loop iterations of 16) and the one
    work-mode round whose output is discarded: params (state,)."""
    return _init_mode_program(f"zuc_init{bits}", bits, zuc.INIT_ROUNDS, True, groups, isomorphism, forms)


def init_more_program(bits, groups=1, isomorphism=0, **forms):
    """The initialisation rounds a variant runs beyond init_program's 32
    (NEA6: 16 of its 48), run before it, none discarded: params (state,)."""
    return _init_mode_program(f"zuc_init_more{bits}", bits, INIT_MORE_ROUNDS, False, groups, isomorphism, forms)


def _init_mode_program(name, bits, rounds, discard, groups, isomorphism, forms):
    if rounds % ROUNDS_PER_BLOCK:
        raise ValueError(f"{rounds} initialisation rounds: not whole loop iterations of {ROUNDS_PER_BLOCK}")
    lanes = bits // 32
    lanes_total = lanes * groups
    b = Builder(name, bits, ("state",))
    rnd = LaneRound(b, isomorphism=isomorphism, **{**DEFAULT_FORMS, **forms})
    b.comment(f"Load the state of {lanes_total} lanes.")
    state = _state_vars(b, _load_state(b, groups, lanes, lanes_total))
    with b.loop("r", rounds // ROUNDS_PER_BLOCK):
        lfsr = [list(words[:16]) for words in state]
        fsm = [list(words[16:]) for words in state]
        _rounds(rnd, lfsr, fsm, ROUNDS_PER_BLOCK, lanes, init=True)
        _assign_state(b, state, lfsr, fsm, ROUNDS_PER_BLOCK)
    final = state
    if discard:
        final = []
        for g in range(groups):
            b.comment(f"Work-mode round with its keystream word discarded, lanes {g * lanes}...")
            s16, r1, r2, _ = rnd.run(state[g][:16], state[g][16], state[g][17], init=False)
            final.append(list(state[g][1:16]) + [s16, r1, r2])
    b.comment("Store the state.")
    _store_state(b, groups, lanes, lanes_total, final)
    return b.finish(lanes=lanes_total, strategy="lanes")


def word_program(bits, groups=1, isomorphism=0, **forms):
    """One work-mode round for groups x bits/32 lanes: params (state, out).
    The LFSR moves on by one cell in the state array (rows 1..15 to 0..14,
    the new cell to row 15, then R1 and R2), and out receives each lane's
    keystream word, lane j's at word j: what a one-stream core needs for the
    last n mod 16 words of a keystream (templates/zuc_core.c.j2
    zuc_keystream), one call per word.  One round rather than a program of k
    rounds for each k < 16: an IR loop's count is a constant (gen/ir/ct_check.py),
    so k rounds would be 15 programs of up to 15 unrolled rounds each; a
    round's load and store of the 18 rows is small beside the round itself.
    With groups=1 it is also the one round whose lowered instructions the
    tests count (tests/test_zuc_kernels.py)."""
    lanes = bits // 32
    lanes_total = lanes * groups
    b = Builder(f"zuc_word{bits}", bits, ("state", "out"))
    rnd = LaneRound(b, isomorphism=isomorphism, **{**DEFAULT_FORMS, **forms})
    b.comment(f"Load the state of {lanes_total} lanes: one register per word.")
    state = _load_state(b, groups, lanes, lanes_total)
    lfsr = [words[:16] for words in state]
    fsm = [words[16:] for words in state]
    for g, (z,) in enumerate(_rounds(rnd, lfsr, fsm, 1, lanes, init=False)):
        b.store("out", g * bits // 8, z)
    b.comment("Store the state back, the LFSR one cell on.")
    _store_state(b, groups, lanes, lanes_total, [lfsr[g][1:] + fsm[g] for g in range(groups)])
    return b.finish(lanes=lanes_total, strategy="lanes")
