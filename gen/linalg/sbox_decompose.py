"""Every way to write an 8-bit S-box as ``A2·inv(A1·x ⊕ c1) ⊕ c2`` over a chosen field.

Why: GFNI (``gf2p8affineinvqb``) and AES-NI (``aesenclast``) both compute an
affine map of the inverse in the AES field.  An S-box that is affine-
equivalent to that inversion (SM4's is) can therefore be computed by one of
them plus affine maps before and after.  The maps are found from the S-box
table alone; published constants are only used by the tests.

Method, in three steps:

1. *Where does the inner map hit zero?*  If ``S(x) = A2·inv(A1·x ⊕ c1) ⊕ c2``
   and ``x0 = A1⁻¹·c1``, then for every input difference ``α ≠ 0`` the
   difference table row of ``S`` has exactly one output difference with four
   solutions, and those solutions are ``x0 ⊕ A1⁻¹·(a·GF(4))`` with
   ``a = A1·α`` -- a set that always contains ``x0`` (inversion over a field of
   even degree).  Intersecting those sets for a few ``α`` leaves the candidates
   for ``x0`` (normally exactly one).  This is a necessary condition only, so
   no solution is lost; an S-box whose difference table lacks the pattern is
   not equivalent to inversion and gets ``[]``.
2. *Linear equivalence.*  With ``c2 = S(x0)`` and ``S'(y) = S(y ⊕ x0) ⊕ c2``
   we need linear ``P = A1`` and ``Q = A2⁻¹`` with ``Q·S'(y) = inv(P·y)``.
   Guess-and-determine (Biryukov, De Cannière, Braeken, Preneel, Eurocrypt
   2003): knowing ``P`` on a subspace gives ``Q`` on its image under ``S'``,
   which gives ``P`` on more points through ``S'⁻¹`` and ``inv``; linearity
   extends each new point to a whole coset; a contradiction kills the guess.
   Because ``inv(a·u) = a⁻¹·inv(u)``, any solution can be rescaled so that
   ``P·e0 = 1``; we fix that and then try *every* value of ``P·e1`` (and
   branch further if propagation ever stalls), so the search finds all
   solutions with ``P·e0 = 1`` (for inversion-equivalent S-boxes: the 8 that
   differ by a Frobenius power).
3. *Rescale.*  Each normalised solution gives 255 more by
   ``A1 → a·A1, c1 → a·c1, A2 → A2·a``; for an 8-bit S-box affine-equivalent
   to inversion that is ``8·255 = 2040`` solutions in all.

Results are cached per (S-box, field polynomial).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Iterator, Sequence

from .bits import AffineMap, BitMatrix
from .gf2n import Field


@dataclass(frozen=True)
class Decomposition:
    """``S(x) = A2·inv(A1·x ⊕ c1) ⊕ c2`` with ``inv`` the inversion of the field
    the decomposition was computed for (``inv(0) = 0``)."""

    A1: BitMatrix
    c1: int
    A2: BitMatrix
    c2: int

    @property
    def inner(self) -> AffineMap:
        """The affine map applied before the inversion."""
        return AffineMap(self.A1, self.c1)

    @property
    def outer(self) -> AffineMap:
        """The affine map applied after the inversion."""
        return AffineMap(self.A2, self.c2)

    def sort_key(self) -> tuple:
        return (self.A1.rows, self.c1, self.A2.rows, self.c2)

    def table(self, field: Field) -> tuple[int, ...]:
        """The S-box this decomposition computes over ``field``."""
        inv = field.inverse_table()
        t1 = self.inner.table()
        t2 = self.outer.table()
        return tuple(t2[inv[u]] for u in t1)


def _check_sbox(sbox: Sequence[int], size: int) -> tuple[int, ...]:
    table = tuple(int(v) for v in sbox)
    if len(table) != size:
        raise ValueError(f"S-box has {len(table)} entries; a bijection of 0..{size - 1} needs {size}")
    seen: dict[int, int] = {}
    for x, v in enumerate(table):
        if not 0 <= v < size:
            raise ValueError(f"S-box entry {x} = {v} is outside 0..{size - 1}")
        if v in seen:
            raise ValueError(f"S-box is not a bijection: S({seen[v]}) = S({x}) = {v:#x}")
        seen[v] = x
    return table


def _zero_candidates(table: tuple[int, ...], n: int) -> list[int] | None:
    """Candidates for ``x0`` (step 1); ``None`` if the DDT shows S is not inversion-like."""
    size = 1 << n
    if n % 2 or n < 4:
        return list(range(size))  # the 4-solution pattern needs GF(4) inside the field
    cands = set(range(size))
    for bit in range(n):
        alpha = 1 << bit
        buckets: dict[int, list[int]] = {}
        for x in range(size):
            buckets.setdefault(table[x] ^ table[x ^ alpha], []).append(x)
        fours = [xs for xs in buckets.values() if len(xs) == 4]
        if len(fours) != 1 or any(len(xs) > 4 for xs in buckets.values()):
            return None
        cands &= set(fours[0])
        if not cands:
            return None
    return sorted(cands)


class _State:
    """Partial linear maps P (S'-input → inv-input) and Q (S'-output → inv-output)."""

    __slots__ = ("P", "Pimg", "Q", "Qimg", "todoP", "todoQ")

    def __init__(self):
        self.P = {0: 0}
        self.Pimg = {0}
        self.Q = {0: 0}
        self.Qimg = {0}
        self.todoP: list[int] = []
        self.todoQ: list[int] = []

    def copy(self) -> "_State":
        s = _State.__new__(_State)
        s.P, s.Pimg, s.Q, s.Qimg = dict(self.P), set(self.Pimg), dict(self.Q), set(self.Qimg)
        s.todoP, s.todoQ = list(self.todoP), list(self.todoQ)
        return s


def _extend(m: dict, img: set, todo: list, key: int, val: int) -> bool:
    """Set m(key) = val on a linear partial map, extending to the coset; False on contradiction."""
    if key in m:
        return m[key] == val
    if val in img:  # would make the map non-injective
        return False
    new = [(k ^ key, v ^ val) for k, v in m.items()]
    for k, v in new:
        m[k] = v
        img.add(v)
        todo.append(k)
    return True


def _propagate(s: _State, sp: Sequence[int], sp_inv: Sequence[int], inv: Sequence[int]) -> bool:
    P, Q = s.P, s.Q
    while s.todoP or s.todoQ:
        while s.todoP:
            y = s.todoP.pop()
            if not _extend(Q, s.Qimg, s.todoQ, sp[y], inv[P[y]]):
                return False
        while s.todoQ:
            z = s.todoQ.pop()
            if not _extend(P, s.Pimg, s.todoP, sp_inv[z], inv[Q[z]]):
                return False
    return True


def _search(s: _State, sp, sp_inv, inv, size: int) -> Iterator[_State]:
    if not _propagate(s, sp, sp_inv, inv):
        return
    if len(s.P) == size:
        if len(s.Q) == size:
            yield s
        return
    y = next(v for v in range(size) if v not in s.P)
    for val in range(size):
        if val in s.Pimg:
            continue
        t = s.copy()
        _extend(t.P, t.Pimg, t.todoP, y, val)
        yield from _search(t, sp, sp_inv, inv, size)


def _linear_solutions(sp: Sequence[int], inv: Sequence[int], n: int) -> list[tuple[BitMatrix, BitMatrix]]:
    """All (P, Q) with Q·sp(y) = inv(P·y) and P·e0 = 1."""
    size = 1 << n
    sp_inv = [0] * size
    for y, z in enumerate(sp):
        sp_inv[z] = y
    root = _State()
    _extend(root.P, root.Pimg, root.todoP, 1, 1)
    out = []
    for s in _search(root, sp, sp_inv, inv, size):
        P = BitMatrix.from_columns([s.P[1 << j] for j in range(n)], n)
        Q = BitMatrix.from_columns([s.Q[1 << j] for j in range(n)], n)
        out.append((P, Q))
    return out


@lru_cache(maxsize=64)
def _decompose(table: tuple[int, ...], poly: int) -> tuple[Decomposition, ...]:
    field = Field(poly)
    n = field.n
    inv = field.inverse_table()
    cands = _zero_candidates(table, n)
    if cands is None:
        return ()
    seeds: list[Decomposition] = []
    for x0 in cands:
        c2 = table[x0]
        sp = [table[y ^ x0] ^ c2 for y in range(1 << n)]
        for P, Q in _linear_solutions(sp, inv, n):
            d = Decomposition(P, P.apply(x0), Q.inverse(), c2)
            if d.table(field) != table:  # cannot happen; guards the derivation
                raise AssertionError("internal error: decomposition does not reproduce the S-box")
            seeds.append(d)
    scalars = [field.mul_matrix(a) for a in range(1, 1 << n)]
    found = set()
    for d in seeds:
        for a, Ma in enumerate(scalars, start=1):
            found.add(Decomposition(Ma @ d.A1, field.mul(a, d.c1), d.A2 @ Ma, d.c2))
    return tuple(sorted(found, key=Decomposition.sort_key))


def affine_decompositions(sbox: Sequence[int], field: Field) -> list[Decomposition]:
    """All ``(A1, c1, A2, c2)`` with ``sbox[x] = A2·inv(A1·x ⊕ c1) ⊕ c2`` for every ``x``.

    ``inv`` is inversion in ``field`` with ``inv(0) = 0``.  Sorted by
    ``Decomposition.sort_key`` = ``(A1.rows, c1, A2.rows, c2)``.  Returns ``[]``
    if the S-box is not affine-equivalent to that inversion; raises
    ``ValueError`` if it is not a bijection of ``0 .. 2^n - 1``.
    """
    table = _check_sbox(sbox, field.size)
    return list(_decompose(table, field.poly))


def preferred_decomposition(solutions: Sequence[Decomposition]) -> Decomposition:
    """The canonical choice: the smallest ``(A1.rows, c1, A2.rows, c2)``
    (lexicographic, rows as ints in row order 0..7), i.e. ``solutions`` sorted
    by ``Decomposition.sort_key`` and the first taken.  Independent of the
    input order; ``ValueError`` if there are none."""
    if not solutions:
        raise ValueError("no decompositions to choose from (S-box not affine-equivalent to inversion?)")
    return min(solutions, key=Decomposition.sort_key)
