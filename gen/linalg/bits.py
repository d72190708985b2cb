"""GF(2) bit matrices and affine maps: the one place where bit order is defined.

Convention (used by every other module of the generator):

* An integer ``x`` is the GF(2) column vector whose component ``i`` is
  ``(x >> i) & 1`` -- bit 0 is the least significant bit.
* A ``BitMatrix`` stores one int per row; bit ``j`` of ``rows[i]`` is entry
  ``(i, j)``.  Output bit ``i`` of ``M·x`` is therefore ``parity(rows[i] & x)``.
* For matrices wider than a byte, "byte ``k``" of a vector is bits
  ``8k .. 8k+7`` (little-endian numbering, byte 0 is the least significant).
  ``BitMatrix.block(i, j)`` is the block that maps input byte ``j`` to output
  byte ``i`` in that numbering.  Big-endian word numbering lives in
  ``fusion.byte_blocks`` and is derived from this one.

Everything is plain Python ints so that building thousands of small matrices
stays far below the generator's time budget.
"""

from __future__ import annotations

from typing import Callable, Iterable, Sequence


def bit_reversal(n: int) -> "BitMatrix":
    """The ``n × n`` matrix with output bit i = input bit n-1-i."""
    return BitMatrix(tuple(1 << (n - 1 - i) for i in range(n)), n)


def parity(x: int) -> int:
    """Parity (XOR of all bits) of a non-negative int: the GF(2) dot product helper."""
    return x.bit_count() & 1


class BitMatrix:
    """An immutable, hashable ``nrows × ncols`` matrix over GF(2), one int per row."""

    __slots__ = ("_rows", "_ncols", "_hash")

    def __init__(self, rows: Iterable[int], ncols: int):
        rows = tuple(int(r) for r in rows)
        if ncols < 0:
            raise ValueError(f"ncols must be >= 0, got {ncols}")
        limit = 1 << ncols
        for i, r in enumerate(rows):
            if r < 0 or r >= limit:
                raise ValueError(f"row {i} = {r:#x} does not fit in {ncols} columns")
        self._rows = rows
        self._ncols = ncols
        self._hash = hash((rows, ncols))

    # -- constructors -------------------------------------------------------
    @classmethod
    def identity(cls, n: int) -> "BitMatrix":
        """The ``n × n`` identity."""
        return cls(tuple(1 << i for i in range(n)), n)

    @classmethod
    def zero(cls, nrows: int, ncols: int) -> "BitMatrix":
        """The all-zero ``nrows × ncols`` matrix."""
        return cls((0,) * nrows, ncols)

    @classmethod
    def from_columns(cls, cols: Sequence[int], nrows: int) -> "BitMatrix":
        """Matrix whose column ``j`` is the vector ``cols[j]`` (the image of bit ``j``)."""
        limit = 1 << nrows
        for j, c in enumerate(cols):
            if c < 0 or c >= limit:
                raise ValueError(f"column {j} = {c:#x} does not fit in {nrows} rows")
        rows = [0] * nrows
        for j, c in enumerate(cols):
            i = 0
            while c:
                if c & 1:
                    rows[i] |= 1 << j
                c >>= 1
                i += 1
        return cls(rows, len(cols))

    @classmethod
    def from_function(cls, f: Callable[[int], int], nin: int, nout: int) -> "BitMatrix":
        """Matrix of a GF(2)-linear function on ``nin``-bit ints.

        The columns are the images of the unit vectors; linearity is then
        checked on every input (for ``nin <= 12``) or on a deterministic sample
        of pairs otherwise, and a ``ValueError`` is raised if ``f`` is not linear.
        """
        cols = [f(1 << j) for j in range(nin)]
        m = cls.from_columns(cols, nout)
        if f(0) != 0:
            raise ValueError(f"function is not linear: f(0) = {f(0):#x} != 0")
        if nin <= 12:
            xs: Iterable[int] = range(1 << nin)
        else:
            mask = (1 << nin) - 1
            xs = [((k * 0x9E3779B97F4A7C15) >> 7) & mask for k in range(1, 4097)]
        for x in xs:
            got = f(x)
            if got != m.apply(x):
                raise ValueError(
                    f"function is not linear: f({x:#x}) = {got:#x}, but the XOR of the "
                    f"images of its bits is {m.apply(x):#x}")
        return m

    @classmethod
    def from_blocks(cls, blocks_2d: Sequence[Sequence["BitMatrix"]]) -> "BitMatrix":
        """Assemble a matrix from a grid of blocks.

        ``blocks_2d[i][j]`` maps input chunk ``j`` to output chunk ``i``, chunks
        numbered from the least significant bits upward (the same numbering as
        ``block``).  Blocks in one grid row share ``nrows``; blocks in one grid
        column share ``ncols``.
        """
        if not blocks_2d or not blocks_2d[0]:
            raise ValueError("from_blocks needs a non-empty grid")
        width = len(blocks_2d[0])
        if any(len(r) != width for r in blocks_2d):
            raise ValueError("from_blocks: grid rows have different lengths")
        col_widths = [blocks_2d[0][j].ncols for j in range(width)]
        col_offsets = [sum(col_widths[:j]) for j in range(width)]
        rows: list[int] = []
        for bi, brow in enumerate(blocks_2d):
            h = brow[0].nrows
            for bj, b in enumerate(brow):
                if b.nrows != h:
                    raise ValueError(f"from_blocks: block ({bi},{bj}) has {b.nrows} rows, expected {h}")
                if b.ncols != col_widths[bj]:
                    raise ValueError(f"from_blocks: block ({bi},{bj}) has {b.ncols} cols, expected {col_widths[bj]}")
            for r in range(h):
                v = 0
                for bj, b in enumerate(brow):
                    v |= b.rows[r] << col_offsets[bj]
                rows.append(v)
        return cls(rows, sum(col_widths))

    # -- accessors ----------------------------------------------------------
    @property
    def rows(self) -> tuple[int, ...]:
        return self._rows

    @property
    def nrows(self) -> int:
        return len(self._rows)

    @property
    def ncols(self) -> int:
        return self._ncols

    def columns(self) -> tuple[int, ...]:
        """Column ``j`` as an int (the image of input bit ``j``)."""
        return tuple(sum(((r >> j) & 1) << i for i, r in enumerate(self._rows))
                     for j in range(self._ncols))

    def entry(self, i: int, j: int) -> int:
        return (self._rows[i] >> j) & 1

    # -- algebra ------------------------------------------------------------
    def apply(self, x: int) -> int:
        """``M·x``: output bit ``i`` is ``parity(rows[i] & x)``."""
        out = 0
        for i, r in enumerate(self._rows):
            out |= ((r & x).bit_count() & 1) << i
        return out

    def __matmul__(self, other: "BitMatrix") -> "BitMatrix":
        """Composition: ``(A @ B).apply(x) == A.apply(B.apply(x))``."""
        if not isinstance(other, BitMatrix):
            return NotImplemented
        if self._ncols != other.nrows:
            raise ValueError(f"shape mismatch: {self.nrows}x{self.ncols} @ {other.nrows}x{other.ncols}")
        orows = other.rows
        out = []
        for r in self._rows:
            v = 0
            j = 0
            while r:
                if r & 1:
                    v ^= orows[j]
                r >>= 1
                j += 1
            out.append(v)
        return BitMatrix(out, other.ncols)

    def __add__(self, other: "BitMatrix") -> "BitMatrix":
        """Entry-wise sum over GF(2) (XOR)."""
        if not isinstance(other, BitMatrix):
            return NotImplemented
        if (self.nrows, self.ncols) != (other.nrows, other.ncols):
            raise ValueError("shape mismatch in matrix addition")
        return BitMatrix(tuple(a ^ b for a, b in zip(self._rows, other.rows)), self._ncols)

    __xor__ = __add__

    def transpose(self) -> "BitMatrix":
        return BitMatrix.from_columns(self._rows, self._ncols)

    def rank(self) -> int:
        """Rank over GF(2) by elimination on the row ints."""
        pivots: dict[int, int] = {}  # leading bit -> reduced row
        for r in self._rows:
            while r:
                top = r.bit_length() - 1
                if top in pivots:
                    r ^= pivots[top]
                else:
                    pivots[top] = r
                    break
        return len(pivots)

    def is_invertible(self) -> bool:
        return self.nrows == self._ncols and self.rank() == self._ncols

    def inverse(self) -> "BitMatrix":
        """Inverse by Gauss-Jordan elimination; ``ValueError`` if singular or not square."""
        n = self.nrows
        if n != self._ncols:
            raise ValueError(f"cannot invert a non-square {n}x{self._ncols} matrix")
        # Augment each row with the identity in bits n..2n-1.
        aug = [r | (1 << (n + i)) for i, r in enumerate(self._rows)]
        for col in range(n):
            bit = 1 << col
            piv = next((k for k in range(col, n) if aug[k] & bit), None)
            if piv is None:
                raise ValueError(f"matrix is singular (rank {self.rank()} < {n})")
            aug[col], aug[piv] = aug[piv], aug[col]
            p = aug[col]
            for k in range(n):
                if k != col and aug[k] & bit:
                    aug[k] ^= p
        return BitMatrix(tuple(r >> n for r in aug), n)

    def block(self, i: int, j: int, size: int = 8) -> "BitMatrix":
        """The ``size × size`` block mapping input chunk ``j`` to output chunk ``i``
        (chunk ``k`` = bits ``size*k .. size*k+size-1``)."""
        if (i + 1) * size > self.nrows or (j + 1) * size > self._ncols or i < 0 or j < 0:
            raise ValueError(f"block ({i},{j}) of size {size} is outside a {self.nrows}x{self.ncols} matrix")
        mask = (1 << size) - 1
        return BitMatrix(tuple((self._rows[i * size + r] >> (j * size)) & mask for r in range(size)), size)

    def table(self) -> tuple[int, ...]:
        """``apply`` on every input (only for small ``ncols``), built by XOR accumulation."""
        if self._ncols > 16:
            raise ValueError("table() is only for matrices with at most 16 columns")
        cols = self.columns()
        t = [0] * (1 << self._ncols)
        for j, c in enumerate(cols):
            step = 1 << j
            for x in range(step):
                t[x | step] = t[x] ^ c
        return tuple(t)

    # -- python protocol ----------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BitMatrix):
            return NotImplemented
        return self._ncols == other._ncols and self._rows == other._rows

    def __hash__(self) -> int:
        return self._hash

    def __lt__(self, other: "BitMatrix") -> bool:
        """Deterministic order (by shape, then rows) so lists of matrices sort."""
        return (self.nrows, self._ncols, self._rows) < (other.nrows, other.ncols, other.rows)

    def __repr__(self) -> str:
        w = max(1, (self._ncols + 3) // 4)
        return f"BitMatrix([{', '.join(f'0x{r:0{w}x}' for r in self._rows)}], ncols={self._ncols})"


class AffineMap:
    """``x ↦ matrix·x ⊕ constant`` over GF(2); immutable and hashable."""

    __slots__ = ("_m", "_c")

    def __init__(self, matrix: BitMatrix, constant: int = 0):
        if constant < 0 or constant >= (1 << matrix.nrows):
            raise ValueError(f"constant {constant:#x} does not fit in {matrix.nrows} bits")
        self._m = matrix
        self._c = int(constant)

    @classmethod
    def identity(cls, n: int) -> "AffineMap":
        return cls(BitMatrix.identity(n), 0)

    @classmethod
    def from_function(cls, f: Callable[[int], int], nin: int, nout: int) -> "AffineMap":
        """Affine map of ``f`` (constant ``f(0)``); ``ValueError`` if ``f`` is not affine."""
        c = f(0)
        return cls(BitMatrix.from_function(lambda x: f(x) ^ c, nin, nout), c)

    @property
    def linear(self) -> BitMatrix:
        return self._m

    matrix = linear

    @property
    def constant(self) -> int:
        return self._c

    def apply(self, x: int) -> int:
        return self._m.apply(x) ^ self._c

    def compose(self, other: "AffineMap | BitMatrix") -> "AffineMap":
        """``self ∘ other`` (``other`` applied first)."""
        if isinstance(other, BitMatrix):
            other = AffineMap(other, 0)
        return AffineMap(self._m @ other.linear, self._m.apply(other.constant) ^ self._c)

    def __matmul__(self, other: "AffineMap | BitMatrix") -> "AffineMap":
        if not isinstance(other, (AffineMap, BitMatrix)):
            return NotImplemented
        return self.compose(other)

    def __rmatmul__(self, other: BitMatrix) -> "AffineMap":
        if not isinstance(other, BitMatrix):
            return NotImplemented
        return AffineMap(other, 0).compose(self)

    def inverse(self) -> "AffineMap":
        """``y ↦ M⁻¹·(y ⊕ c)``; ``ValueError`` if the linear part is singular."""
        mi = self._m.inverse()
        return AffineMap(mi, mi.apply(self._c))

    def table(self) -> tuple[int, ...]:
        c = self._c
        return tuple(v ^ c for v in self._m.table())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AffineMap):
            return NotImplemented
        return self._m == other._m and self._c == other._c

    def __hash__(self) -> int:
        return hash((self._m, self._c))

    def __repr__(self) -> str:
        return f"AffineMap({self._m!r}, constant={self._c:#x})"
