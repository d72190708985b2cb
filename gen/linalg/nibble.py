"""An 8×8 affine map as two 16-entry nibble lookup tables (the pshufb / tbl form).

Why: without GFNI, an affine map on bytes is computed as two in-register table
lookups, one on the low nibble and one on the high nibble, XORed together.

Convention: ``affine(x) = lo[x & 15] ^ hi[x >> 4]`` with the whole constant
folded into ``lo`` (so ``lo[0]`` is the constant and ``hi[0]`` is 0).  The
published SM4 AES-NI tables (sm4ni, libgcrypt) follow the same convention.
"""

from __future__ import annotations

from typing import Sequence

from .bits import AffineMap, BitMatrix


def nibble_tables(affine: AffineMap | BitMatrix) -> tuple[bytes, bytes]:
    """``(lo, hi)``, 16 bytes each, with ``affine(x) = lo[x & 15] ^ hi[x >> 4]``."""
    if isinstance(affine, BitMatrix):
        affine = AffineMap(affine, 0)
    m = affine.linear
    if m.nrows != 8 or m.ncols != 8:
        raise ValueError(f"nibble tables need an 8x8 map, got {m.nrows}x{m.ncols}")
    lo = bytes(m.apply(v) ^ affine.constant for v in range(16))
    hi = bytes(m.apply(v << 4) for v in range(16))
    return lo, hi


def affine_from_nibble_tables(lo: Sequence[int], hi: Sequence[int]) -> AffineMap:
    """The affine map computed by ``lo[x & 15] ^ hi[x >> 4]``; ``ValueError`` if
    the tables do not describe an affine map (a constant split between ``lo[0]``
    and ``hi[0]`` is accepted and merged)."""
    if len(lo) != 16 or len(hi) != 16:
        raise ValueError("nibble tables must have 16 entries each")
    return AffineMap.from_function(lambda x: lo[x & 15] ^ hi[x >> 4], 8, 8)
