"""Transpositions with in-lane unpacks, shared by the sliced kernels, and the
byte-sliced load and store built on them.

One stage maps registers (old[i], old[i + n/2]) to (new[2i], new[2i+1]) by
unpacklo/unpackhi of `lane`-bit elements.  With register index bits r and
element position bits c, a stage rotates the bit string (r | c) left by one,
so log2(n) stages transpose an n x n matrix of elements; the transpose is its
own inverse, so the same routine undoes it.
"""


def transpose(b, regs, lane, hint):
    n = len(regs)
    stages = n.bit_length() - 1
    if 1 << stages != n or n * lane != 128:
        raise ValueError(f"transpose needs n*lane == 128 with n a power of two, got n={n}, lane={lane}")
    for stage in range(stages):
        half = n // 2
        new = []
        for i in range(half):
            new.append(b.unpacklo(regs[i], regs[i + half], lane, f"{hint}{stage}"))
            new.append(b.unpackhi(regs[i], regs[i + half], lane, f"{hint}{stage}"))
        regs = new
    return regs


def split_halves256(b, x, y, hint):
    """Regroup 256-bit elements by half: x and y hold consecutive 256-bit
    elements (at 128 bits, x is the low and y the high half of one element);
    returns (lows, highs), the low and the high 128-bit halves of x's elements
    then y's.  An in-lane transpose of such registers then sees the same half
    of a different element in every lane.  `join_halves256` undoes it."""
    blocks = x.bits // 128
    if blocks == 1:
        return x, y
    return (b.blocks128(x, y, range(0, 2 * blocks, 2), f"{hint}lo"),
            b.blocks128(x, y, range(1, 2 * blocks, 2), f"{hint}hi"))


def join_halves256(b, lows, highs, hint):
    """The inverse of `split_halves256`: (lows, highs) -> (x, y), element e
    of the pair being block e of lows followed by block e of highs."""
    blocks = lows.bits // 128
    if blocks == 1:
        return lows, highs

    def picks(elements):
        return [k for e in elements for k in (e, blocks + e)]

    per_register = blocks // 2  # 256-bit elements
    return (b.blocks128(lows, highs, picks(range(per_register)), hint),
            b.blocks128(lows, highs, picks(range(per_register, blocks)), hint))


def load_byte_sliced(b, param, groups, bits):
    """Each group's 16 registers (variables) holding byte j of its 16 * bits/128
    blocks in register j: 16 rows loaded from `param` and transposed in-lane."""
    row_bytes = bits // 8
    states = []
    for g in range(groups):
        rows = [b.load(param, (16 * g + k) * row_bytes, "row") for k in range(16)]
        cols = transpose(b, rows, 8, "tr")
        x = [b.var(f"g{g}x{j}" if groups > 1 else f"x{j}") for j in range(16)]
        for j in range(16):
            b.assign(x[j], cols[j])
        states.append(x)
    return states


def store_byte_sliced(b, param, states, bits):
    """load_byte_sliced's inverse: each group's 16 registers (byte j of every
    block in register j, in the order given) transposed back and stored."""
    row_bytes = bits // 8
    for g, x in enumerate(states):
        rows = transpose(b, list(x), 8, "tro")
        for k in range(16):
            b.store(param, (16 * g + k) * row_bytes, rows[k])
