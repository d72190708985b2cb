"""Fusion of consecutive linear maps, and the byte-block view of word-level maps.

Why: in a byte-sliced SM4 round the S-box's outer affine map, the word-level
linear map L and the next S-box's inner affine map act back to back, so they
can be fused into one 32×32 matrix; its 8×8 blocks become the per-byte
constants (GFNI qwords or nibble tables) the kernel needs.

Byte numbering for words: ``byte_blocks`` uses *big-endian* numbering, byte 0
= the most significant byte (bits 24..31 of a 32-bit word), which is the byte
that comes first in memory for a big-endian word.  ``BitMatrix.block`` numbers
from the least significant byte; ``byte_blocks`` converts.
"""

from __future__ import annotations

from typing import Sequence

from .bits import AffineMap, BitMatrix


def fuse(*maps: AffineMap | BitMatrix) -> AffineMap | BitMatrix:
    """``maps[0] ∘ maps[1] ∘ … ∘ maps[-1]`` (the last one is applied first, like ``@``).
    A BitMatrix if every argument is one, otherwise an AffineMap."""
    if not maps:
        raise ValueError("fuse needs at least one map")
    acc = maps[-1]
    for m in reversed(maps[:-1]):
        if isinstance(m, BitMatrix) and isinstance(acc, BitMatrix):
            acc = m @ acc
        else:
            acc = (m if isinstance(m, AffineMap) else AffineMap(m, 0)).compose(acc)
    return acc


def rotl(x: int, r: int, width: int) -> int:
    r %= width
    mask = (1 << width) - 1
    return ((x << r) | (x >> (width - r))) & mask


def word_linear_matrix(rotations: Sequence[int], width: int = 32) -> BitMatrix:
    """Matrix of ``x ↦ x ⊕ rotl(x, r1) ⊕ rotl(x, r2) ⊕ …`` on a ``width``-bit int."""
    def f(x: int) -> int:
        v = x
        for r in rotations:
            v ^= rotl(x, r, width)
        return v
    return BitMatrix.from_columns([f(1 << j) for j in range(width)], width)


def byte_blocks(m32: BitMatrix) -> tuple[tuple[BitMatrix, ...], ...]:
    """4×4 grid of 8×8 blocks, big-endian byte numbering: ``grid[i][j]`` maps
    input byte ``j`` to output byte ``i`` where byte 0 is the most significant."""
    if m32.nrows != 32 or m32.ncols != 32:
        raise ValueError(f"byte_blocks needs a 32x32 matrix, got {m32.nrows}x{m32.ncols}")
    return tuple(tuple(m32.block(3 - i, 3 - j) for j in range(4)) for i in range(4))


def matrix_from_byte_blocks(grid: Sequence[Sequence[BitMatrix]]) -> BitMatrix:
    """Inverse of ``byte_blocks`` (big-endian byte numbering)."""
    return BitMatrix.from_blocks([[grid[3 - i][3 - j] for j in range(4)] for i in range(4)])


def circulant_blocks(m32: BitMatrix) -> tuple[BitMatrix, BitMatrix, BitMatrix, BitMatrix]:
    """``(C0, C1, C2, C3)`` with ``byte_blocks(m32)[i][j] == C[(j - i) % 4]``
    (big-endian numbering; the first grid row is ``C0 C1 C2 C3``);
    ``ValueError`` if the block grid is not circulant."""
    grid = byte_blocks(m32)
    first = grid[0]
    for i in range(4):
        for j in range(4):
            if grid[i][j] != first[(j - i) % 4]:
                raise ValueError(f"block grid is not circulant: block ({i},{j}) differs from block (0,{(j - i) % 4})")
    return tuple(first)  # type: ignore[return-value]


def block_diagonal(a: BitMatrix, count: int = 4) -> BitMatrix:
    """``diag(a, a, …, a)`` with ``count`` copies: ``a`` applied to every byte."""
    z = BitMatrix.zero(a.nrows, a.ncols)
    return BitMatrix.from_blocks([[a if i == j else z for j in range(count)] for i in range(count)])


def fused_round_linear(a1: BitMatrix, ml32: BitMatrix, a2: BitMatrix) -> BitMatrix:
    """``diag(A1)·ML·diag(A2)``: the outer map of one S-box layer, then the word
    map ML, then the inner map of the next S-box layer, as one 32×32 matrix."""
    k = ml32.nrows // a1.nrows
    return block_diagonal(a1, k) @ ml32 @ block_diagonal(a2, ml32.ncols // a2.ncols)
