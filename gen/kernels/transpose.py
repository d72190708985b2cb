"""Transpositions with in-lane unpacks, shared by the sliced kernels.

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
