"""SM4 on an instruction that does four rounds (AArch64 SM4E, x86
VSM4RNDS4): each 128-bit block is one SM4 block, its four words byte-swapped
to native order; eight instructions with the round keys four at a time make
the 32 rounds, and `groups` blocks go through them side by side to hide the
instruction's latency.  The output (X35, X34, X33, X32) in big-endian words is
the state (X32..X35) with all 16 bytes reversed: one table lookup.
"""

from ..ir import Builder
from ..linalg import byteswap_mask
from ..specs import sm4

ROUNDS_PER_INSTRUCTION = 4


def program(bits, groups=8, decomposition_index=None):
    """`decomposition_index` is accepted for the strategies' common signature:
    the instruction's S-box needs no decomposition."""
    if bits != 128:
        raise ValueError("rounds4: one block per 128-bit register; the instructions are 128-bit")
    b = Builder(f"rounds4_{groups}", bits, ("rk", "in", "out"))
    bswap = b.const(byteswap_mask(4), "bswap32", "byte order reversal in each 32-bit word")
    reverse = b.const(bytes(range(15, -1, -1)), "reverse16", "all 16 bytes reversed: (X35..X32) big-endian")
    b.comment(f"Load {groups} blocks, big-endian words to native.")
    state = [b.var(f"x{g}") for g in range(groups)]
    for g, var in enumerate(state):
        b.assign(var, b.lookup16(b.load("in", 16 * g, "blk"), bswap, "le"))
    b.comment("32 rounds, four per instruction: round keys 4i..4i+3 for the i-th.")
    for i in range(sm4.ROUNDS // ROUNDS_PER_INSTRUCTION):
        keys = b.load("rk", 16 * i, f"rk{i}")
        for var in state:
            b.assign(var, b.sm4_rounds4(var, keys, "x"))
    b.comment("Output (X35, X34, X33, X32) big-endian: the state's bytes reversed.")
    for g, var in enumerate(state):
        b.store("out", 16 * g, b.lookup16(var, reverse, "outbe"))
    return b.finish(batch_blocks=groups, key_form="words", rounds_per_iteration=sm4.ROUNDS,
                    strategy="rounds4", sbox="instruction")
