"""ZUC's derived S-box constants for the lane-parallel kernels.

S0 (a nibble Feistel network) is computed with 16-entry table lookups (lookup16):
    t = P1[xL] ^ xH;  outL = P2[t] ^ xL;  S0(x) = rotl8((P3[outL] ^ t) << 4 | outL, 5).
The last step folds into one more lookup: the high nibble rotated left by 5
lands in bits 1..4 without wrapping (bit 4+k goes to bit k+1 for k = 0..3), so
rotl8(h << 4, 5) = h << 1 and
    rotl8((P3[outL] ^ t) << 4 | outL, 5) = rotl8(outL, 5) ^ (P3[outL] << 1) ^ (t << 1)
                                         = Q[outL] ^ (t << 1),  Q[v] = rotl8(v, 5) ^ (P3[v] << 1).
Because t < 16, t << 1 never leaves its byte (the kernel adds t to itself).

S1 = M * inv_ZUC(x) ^ 0x55.  Each field isomorphism K from GF(2^8)/0x18B to the
AES field GF(2^8)/0x11B satisfies K * inv_ZUC(x) = inv_AES(K * x), hence
    S1(x) = (M * K^-1) * inv_AES(K * x) ^ 0x55,
an A2 * inv(A1 * x ^ c1) ^ c2 decomposition with A1 = K, c1 = 0, A2 = M * K^-1,
c2 = 0x55.  There are exactly 8 such K (one per conjugate root of 0x18B in the AES
field); which one a kernel uses is a parameter (`k_index`).  The kernel writes
affine8(K) then affine_inv8(M * K^-1, 0x55); each backend lowers those onto its
own instructions (tests/test_zuc_published_constants.py checks the x86 forms
against the published ones).
"""

from dataclasses import dataclass
from functools import lru_cache

from ..linalg import BitMatrix, Decomposition, Field, field_isomorphisms, rotl
from ..specs import aes, zuc


@dataclass(frozen=True)
class S0NibbleTables:
    """16-entry lookup tables for S0: p1, p2, p3 the Feistel maps, `folded` the table Q with
    S0(x) = Q[outL] ^ (t << t_shift) (see the module docstring; t_shift = 5 - 4 = 1)."""

    p1: bytes
    p2: bytes
    p3: bytes
    folded: bytes
    t_shift: int


@lru_cache(maxsize=None)
def s0_nibble_tables():
    # rotl8(h << 4, r) = h << (r - 4) only while the high nibble does not wrap: r >= 4
    t_shift = zuc.S0_ROTATION - 4
    if t_shift < 0:
        raise ValueError(f"S0 rotation {zuc.S0_ROTATION} wraps the high nibble: no folded form")
    folded = bytes(rotl(v, zuc.S0_ROTATION, 8) ^ (zuc.P3[v] << t_shift) for v in range(16))
    return S0NibbleTables(bytes(zuc.P1), bytes(zuc.P2), bytes(zuc.P3), folded, t_shift)


def s1_matrix():
    return BitMatrix(zuc.S1_MATRIX_ROWS, 8)


@lru_cache(maxsize=None)
def isomorphisms():
    """The 8 field isomorphisms GF(2^8)/0x18B -> GF(2^8)/0x11B, in linalg's order
    (ascending image of x)."""
    return tuple(field_isomorphisms(Field(zuc.S1_FIELD_POLY), Field(aes.FIELD_POLY)))


def _isomorphism(k_index):
    isos = isomorphisms()
    if not 0 <= k_index < len(isos):
        raise ValueError(f"ZUC isomorphism index {k_index} out of range 0..{len(isos) - 1}")
    return isos[k_index]


@lru_cache(maxsize=None)
def s1_decomposition(k_index):
    """S1(x) = A2 * inv_AES(A1 * x ^ c1) ^ c2 with A1 = K, c1 = 0, A2 = M * K^-1, c2 = 0x55."""
    k = _isomorphism(k_index)
    return Decomposition(k, 0, s1_matrix() @ k.inverse(), zuc.S1_CONSTANT)
