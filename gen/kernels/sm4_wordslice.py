"""SM4 word-sliced: the comparison strategy (the layout of libgcrypt's and
Linux's AES-NI SM4).

Register w holds 32-bit word w of 4 blocks per 128-bit lane, byte-swapped to
native order so that L's rotations are element rotations.  The S-box is the
decomposition A2·inv(A1·x ^ c1) ^ c2 applied to every byte, L is computed from
its rotations; `groups` independent sets of 4 registers are interleaved to hide
the S-box's latency.
"""

from ..ir import Builder, Index
from ..linalg import AffineMap, byteswap_mask
from ..specs import sm4
from .rotations import linear_layer
from .sm4_constants import decomposition, round_loop_count
from .transpose import transpose

def program(bits, groups=2, decomposition_index=None, rounds_per_iteration=4):
    """`groups` independent sets of 4 registers interleaved; the round loop
    writes `rounds_per_iteration` rounds out (a multiple of 4: every iteration
    starts at slot 0)."""
    dec = decomposition(decomposition_index)
    lanes = bits // 128
    blocks = 4 * lanes * groups
    b = Builder(f"wordslice{bits}", bits, ("rk", "in", "out"))
    bswap = b.const(byteswap_mask(4), "bswap32", "byte order reversal in each 32-bit word")
    b.comment(f"Load {blocks} blocks ({groups} groups), big-endian words to native, transpose 4x4 words.")
    x = []
    for g in range(groups):
        rows = [b.lookup16(b.load("in", (4 * g + k) * bits // 8, "row"), bswap, "rowle") for k in range(4)]
        cols = transpose(b, rows, 32, "tr")
        words = [b.var(f"g{g}x{w}") for w in range(4)]
        for w in range(4):
            b.assign(words[w], cols[w])
        x.append(words)

    inner = AffineMap(dec.A1, dec.c1)
    outer = AffineMap(dec.A2, dec.c2)
    with b.loop("r", round_loop_count(rounds_per_iteration)):
        for k in range(rounds_per_iteration):
            b.comment(f"Round {rounds_per_iteration}r+{k}: X{k} ^= L(S(X{k + 1} ^ X{k + 2} ^ X{k + 3} ^ rk)) (slots mod 4).")
            key = b.bcast32("rk", Index(4 * k, (("r", 4 * rounds_per_iteration),)), "rkw")
            for g in range(groups):
                word = [x[g][(k + w) % 4] for w in range(4)]
                t = b.xor_all([word[1], word[2], key, word[3]], f"g{g}t")  # word[3]: newest, joins last
                s = b.affine_inv8(b.affine8(t, inner, f"g{g}a", note="A1, c1: S-box inner affine"),
                                  outer, f"g{g}s", note="A2·inv(.) ^ c2: S-box outer affine")
                b.assign(word[0], b.xor(word[0], linear_layer(b, s, sm4.L_ROTATIONS, f"g{g}l"), f"g{g}x"))

    b.comment("Output (X35, X34, X33, X32): slots 3, 2, 1, 0; transpose back, native words to big-endian.")
    for g in range(groups):
        rows = transpose(b, [x[g][slot] for slot in (3, 2, 1, 0)], 32, "tro")
        for k in range(4):
            b.store("out", (4 * g + k) * bits // 8, b.lookup16(rows[k], bswap, "outbe"))
    return b.finish(batch_blocks=blocks, key_form="words", rounds_per_iteration=rounds_per_iteration,
                    strategy="wordslice")
