"""GFNI: the qword layout of an 8×8 matrix, and bit-exact models of the instructions.

Why: the backends emit ``gf2p8affineqb`` / ``gf2p8affineinvqb`` with matrices
derived by ``linalg``; the layout must be right to the bit, and the models let
the IR interpreter and the tests run the instructions on any machine.

Intel SDM definition (per byte ``x`` of an 8-byte group, ``A`` that group's
qword from the second source, ``A.byte[k]`` byte ``k`` little-endian)::

    result.bit[i] = parity(A.byte[7 - i] AND x) XOR imm8.bit[i]

so row ``i`` of our ``BitMatrix`` (output bit ``i``) is byte ``7 - i`` of the
qword.  The identity is ``0x0102040810204080``; bit reversal is
``0x8040201008040201``.  ``gf2p8affineinvqb`` first inverts each byte in
GF(2^8) modulo ``x^8+x^4+x^3+x+1`` (0x11B) with ``inv(0) = 0``.
"""

from __future__ import annotations

from typing import Sequence

from .bits import BitMatrix
from .gf2n import Field

GFNI_POLY = 0x11B
IDENTITY_QWORD = 0x0102040810204080


def gfni_qword(m: BitMatrix) -> int:
    """The 64-bit qword operand that makes GF2P8AFFINEQB compute ``m·x``."""
    if m.nrows != 8 or m.ncols != 8:
        raise ValueError(f"GFNI needs an 8x8 matrix, got {m.nrows}x{m.ncols}")
    q = 0
    for i, r in enumerate(m.rows):
        q |= r << (8 * (7 - i))
    return q


def matrix_from_gfni_qword(q: int) -> BitMatrix:
    """Inverse of ``gfni_qword``."""
    if not 0 <= q < 1 << 64:
        raise ValueError(f"GFNI qword {q:#x} is not a 64-bit value")
    return BitMatrix(tuple((q >> (8 * (7 - i))) & 0xFF for i in range(8)), 8)


def _qwords_for(x_bytes: bytes, qwords: int | Sequence[int]) -> list[int]:
    if len(x_bytes) % 8:
        raise ValueError(f"GFNI operates on whole 8-byte groups; got {len(x_bytes)} bytes")
    groups = len(x_bytes) // 8
    if isinstance(qwords, int):
        return [qwords] * groups
    qs = list(qwords)
    if len(qs) != groups:
        raise ValueError(f"{groups} 8-byte groups need {groups} qwords, got {len(qs)}")
    return qs


def _affine_byte(q: int, x: int, imm: int) -> int:
    out = 0
    for i in range(8):
        row = (q >> (8 * (7 - i))) & 0xFF
        out |= (((row & x).bit_count() & 1) ^ ((imm >> i) & 1)) << i
    return out


def gf2p8affineqb(x_bytes: bytes, qwords: int | Sequence[int], imm: int) -> bytes:
    """Model of GF2P8AFFINEQB: byte ``b`` of group ``j`` goes through qword ``j``
    (a single int is broadcast to every group, like the ``m64bcst`` form)."""
    if not 0 <= imm <= 0xFF:
        raise ValueError(f"imm8 {imm:#x} out of range")
    qs = _qwords_for(x_bytes, qwords)
    return bytes(_affine_byte(qs[k // 8], x, imm) for k, x in enumerate(x_bytes))


def gf2p8affineinvqb(x_bytes: bytes, qwords: int | Sequence[int], imm: int) -> bytes:
    """Model of GF2P8AFFINEINVQB: inverse mod 0x11B (``inv(0) = 0``), then the affine map."""
    inv = Field(GFNI_POLY).inverse_table()
    return gf2p8affineqb(bytes(inv[x] for x in x_bytes), qwords, imm)


def gf2p8mul(a_bytes: bytes, b_bytes: bytes) -> bytes:
    """Model of GF2P8MULB: byte-wise product mod 0x11B."""
    if len(a_bytes) != len(b_bytes):
        raise ValueError("gf2p8mul operands must have the same length")
    f = Field(GFNI_POLY)
    return bytes(f.mul(a, b) for a, b in zip(a_bytes, b_bytes))
