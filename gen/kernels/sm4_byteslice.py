"""SM4 byte-sliced (Gong et al., "High performance implementation of SM4 byte
slicing", algorithms 1-3).

Register j holds byte j of every block in the batch (16 registers; a W-bit
register carries W/8 blocks: W/128 lanes of 16).  The state lives in the
domain X' = A1·X, so the S-box's inner affine map folds into the round keys
(rk' = A1·rk ^ c1) and its outer map, L and the next round's A1 fold into the
8x8 blocks of M'_L.  A round is then: t = X'1 ^ X'2 ^ X'3 ^ rk', inversion in
AES's field, two block products per byte (B'1, B'2; B'3 = B'1 ^ B'2), XORs.
"""

from ..ir import Builder, Index
from ..linalg import AffineMap, BitMatrix
from ..specs import sm4
from .sm4_constants import decomposition, fused_round, identity8, round_loop_count
from .transpose import transpose

from itertools import combinations

ZERO8 = BitMatrix.zero(8, 8)


def distinct_blocks(grid):
    """The grid's distinct nonzero blocks, in the order they first appear
    row by row: B'1, B'2, B'3 ... (the paper's B'1 = grid[0][0], B'2 = grid[0][1])."""
    return list(dict.fromkeys(block for row in grid for block in row if block != ZERO8))


def _as_sum(block, basis):
    """The fewest basis indices whose blocks XOR to `block`, or None."""
    for size in range(1, len(basis) + 1):
        for combo in combinations(range(len(basis)), size):
            total = ZERO8
            for k in combo:
                total = total + basis[k]
            if total == block:
                return combo
    return None


def bases(grid):
    """{name: indices into distinct_blocks} of every choice of basis blocks:
    the sets of the grid's distinct blocks from which XORs make every other
    block, fewest blocks first, named by their blocks ("b1_b2").  A basis
    block costs a product per input byte; a block outside it costs the XOR of
    its basis blocks' products in each output it reaches.  The paper's choice,
    B'1 and B'2 with B'3 = B'1 ^ B'2, is the first where the grid has three blocks."""
    blocks = distinct_blocks(grid)
    return {"_".join(f"b{k + 1}" for k in combo): combo
            for size in range(1, len(blocks) + 1) for combo in combinations(range(len(blocks)), size)
            if all(_as_sum(block, [blocks[k] for k in combo]) is not None for block in blocks)}


def block_terms(grid, basis_name="b1_b2"):
    """Every block of the grid as a XOR of the basis blocks `basis_name` (bases(grid)).

    Returns (basis, names, terms): the basis matrices, their names (B'n, n
    counted over distinct_blocks), and terms[i] a list of (basis index,
    input byte j) whose products XOR to output byte i."""
    blocks, choices = distinct_blocks(grid), bases(grid)
    if basis_name not in choices:
        raise ValueError(f"basis blocks {basis_name!r}: the grid's are {', '.join(choices)}")
    basis = [blocks[k] for k in choices[basis_name]]
    terms = [[(k, j) for j in range(4) if grid[i][j] != ZERO8 for k in _as_sum(grid[i][j], basis)]
             for i in range(4)]
    return basis, [f"B'{k + 1}" for k in choices[basis_name]], terms


def constant_carrier(terms, nbasis):
    """A basis product that appears an odd number of times in every output:
    the fused constant C' rides on it (XORed an odd number of times = once)."""
    for k in range(nbasis):
        if all(sum(1 for kk, _ in row if kk == k) % 2 == 1 for row in terms):
            return k
    return None


def program(bits, groups=1, decomposition_index=None, rounds_per_iteration=8, basis_blocks="b1_b2"):
    """The kernel for `bits`-wide vectors; `groups` independent 16-register
    states are interleaved round by round to hide the S-box's latency, the
    round loop writes `rounds_per_iteration` rounds out (a multiple of 4,
    so that every iteration starts at slot 0), and the products are those of
    the basis blocks `basis_blocks` (bases())."""
    dec = decomposition(decomposition_index)
    fused = fused_round(dec)
    basis, names, terms = block_terms(fused.grid, basis_blocks)
    carrier = constant_carrier(terms, len(basis))
    lanes = bits // 128
    blocks = 16 * lanes * groups
    row_bytes = bits // 8
    b = Builder(f"byteslice{bits}", bits, ("rk", "in", "out"))

    b.comment(f"Load {blocks} blocks and transpose: register j = byte j of every block (algorithm 3).")
    to_domain = AffineMap(dec.A1, 0)
    states = []
    for g in range(groups):
        rows = [b.load("in", (16 * g + k) * row_bytes, "row") for k in range(16)]
        cols = transpose(b, rows, 8, "tr")
        if g == 0:
            b.comment("Into the sliced domain: X' = A1·X byte by byte (algorithm 1).")
        x = [b.var(f"g{g}x{j}" if groups > 1 else f"x{j}") for j in range(16)]
        for j in range(16):
            b.assign(x[j], b.affine8(cols[j], to_domain, "xin", note="A1 (S-box inner affine, linear part)"))
        states.append(x)

    inverse = AffineMap(identity8(), 0)
    products = [AffineMap(m, fused.constant if k == carrier else 0) for k, m in enumerate(basis)]
    b.comment(f"Products per input byte: {', '.join(names)}; every other block of M'_L is a XOR of them.")
    with b.loop("r", round_loop_count(rounds_per_iteration)):
        for k in range(rounds_per_iteration):
            slots = [(k + w) % 4 for w in range(4)]
            b.comment(f"Round {rounds_per_iteration}r+{k}: slot {slots[0]} ^= M'_L·inv(slot {slots[1]} ^ slot {slots[2]}"
                      f" ^ slot {slots[3]} ^ rk') ^ C'.")
            # rk'[round][j] is stored as a 32-bit word holding the byte four times:
            # a 32-bit broadcast from memory needs no shuffle unit, a byte one does.
            keys = [b.bcast32("rk", Index(16 * k + 4 * j, (("r", 16 * rounds_per_iteration),)), f"rk{j}",
                              uniform=True) for j in range(4)]
            for x in states:
                round_function(b, x, k, keys, products, names, terms, carrier, fused.constant)

    b.comment("Output (X35, X34, X33, X32): slots 3, 2, 1, 0; back to X = A1^-1·X'.")
    from_domain = AffineMap(dec.A1.inverse(), 0)
    for g, x in enumerate(states):
        order = [x[4 * slot + j] for slot in (3, 2, 1, 0) for j in range(4)]
        outs = [b.affine8(v, from_domain, "xout", note="A1^-1") for v in order]
        rows = transpose(b, outs, 8, "tro")
        for k in range(16):
            b.store("out", (16 * g + k) * row_bytes, rows[k])
    return b.finish(batch_blocks=blocks, key_form="sliced", rounds_per_iteration=rounds_per_iteration,
                    strategy="byteslice")


def round_function(b, x, k, keys, products, names, terms, carrier, constant):
    """One round on one 16-register state (algorithm 2)."""
    word = [x[4 * ((k + w) % 4):4 * ((k + w) % 4) + 4] for w in range(4)]
    # word[3] was written by the previous round: it joins last, after the key.
    t = [b.xor_all([word[1][j], word[2][j], keys[j], word[3][j]], f"t{j}") for j in range(4)]
    y = [b.affine_inv8(t[j], AffineMap(identity8(), 0), f"y{j}", note="inversion in GF(2^8)/0x11B")
         for j in range(4)]
    prod = {}
    for kk, m in enumerate(products):
        for j in range(4):
            prod[kk, j] = b.affine8(y[j], m, f"p{kk + 1}_{j}", note=f"{names[kk]} of M'_L = diag(A1)·M_L·diag(A2)")
    for i in range(4):
        parts = [prod[t_] for t_ in terms[i]]
        if carrier is None and constant:
            parts.append(b.const([constant] * 16, "c_fused", "C' = A1·L(c2,c2,c2,c2)"))
        b.assign(word[0][i], b.xor(word[0][i], b.xor_tree(parts, f"m{i}"), f"x{i}n"))
