"""SM4's derived constants: the S-box decomposition over AES's field and the
fused round-function blocks of the SM4 byte-slicing paper (eq. 13-19).

`decomposition` picks one of the 2040 (A1, c1, A2, c2) with
S(x) = A2·inv(A1·x ^ c1) ^ c2; which one is a generator parameter
(`gen --sm4-decomposition N`), the default being linalg's preferred choice.
"""

from dataclasses import dataclass
from functools import lru_cache

from ..linalg import (AffineMap, BitMatrix, Field, affine_decompositions, fused_round_linear,
                      preferred_decomposition, word_linear_matrix)
from ..specs import aes, sm4


@lru_cache(maxsize=None)
def decompositions():
    return tuple(affine_decompositions(sm4.SBOX, Field(aes.FIELD_POLY)))


@lru_cache(maxsize=None)
def decomposition(index=None):
    """The chosen decomposition: linalg's preferred one, or solution `index`."""
    solutions = decompositions()
    if not solutions:
        raise ValueError("the SM4 S-box is not affine-equivalent to inversion in AES's field")
    if index is None:
        return preferred_decomposition(solutions)
    if not 0 <= index < len(solutions):
        raise ValueError(f"SM4 decomposition index {index} out of range 0..{len(solutions) - 1}")
    return solutions[index]


def decomposition_index(dec):
    return decompositions().index(dec)


def be_block(matrix32, out_byte, in_byte):
    """The 8x8 block of a 32x32 word matrix from big-endian input byte `in_byte`
    (0 = most significant) to big-endian output byte `out_byte`."""
    return matrix32.block(3 - out_byte, 3 - in_byte)


@dataclass(frozen=True)
class FusedRound:
    """X'[i+4] = X'[i] ^ M'_L · inv(t) ^ C' with t = X'[i+1]^X'[i+2]^X'[i+3]^rk'.

    grid[i][j] is the 8x8 block from inverse output byte j to state byte i
    (big-endian byte numbering); constant the byte C' adds to every state byte."""

    grid: tuple
    constant: int


@lru_cache(maxsize=None)
def fused_round(dec):
    """diag(A1) · M_L · diag(A2), and A1 · L(c2 c2 c2 c2), as in the paper's eq. 16-18."""
    m_l = word_linear_matrix(sm4.L_ROTATIONS, 32)
    fused = fused_round_linear(dec.A1, m_l, dec.A2)
    grid = tuple(tuple(be_block(fused, i, j) for j in range(4)) for i in range(4))
    c2_word = int.from_bytes(bytes([dec.c2] * 4), "big")
    c_word = m_l.apply(c2_word)
    consts = {dec.A1.apply(b) for b in c_word.to_bytes(4, "big")}
    if len(consts) != 1:
        raise ValueError("fused constant differs between bytes: L is not byte-circulant")
    return FusedRound(grid, consts.pop())


def sliced_round_key_map(dec):
    """rk' = A1·rk ^ c1, byte by byte: round keys in the byte-sliced domain."""
    return AffineMap(dec.A1, dec.c1)


def identity8():
    return BitMatrix.identity(8)


def round_loop_count(rounds_per_iteration):
    """Iterations of a round loop that writes `rounds_per_iteration` rounds out:
    a multiple of 4, so that every iteration starts at state slot 0."""
    if rounds_per_iteration <= 0 or rounds_per_iteration % 4 or sm4.ROUNDS % rounds_per_iteration:
        raise ValueError(f"rounds per iteration: {rounds_per_iteration} is not a multiple of 4 dividing {sm4.ROUNDS}")
    return sm4.ROUNDS // rounds_per_iteration
