"""GF(2^n) for any irreducible polynomial, and every isomorphism between two such fields.

Why here: S-box decompositions, GFNI and AES-NI all need inversion and
multiplication in a chosen field, and moving a cipher's S-box from its own
field into the AES field needs the field isomorphisms as bit matrices.

An element is an int whose bit ``i`` is the coefficient of ``x^i`` (the same
bit order as ``bits``).  For ``n <= 8`` log/exp tables make ``mul`` and ``inv``
table lookups; the tables are built once per polynomial and cached.
"""

from __future__ import annotations

from functools import lru_cache

from .bits import BitMatrix

_TABLE_MAX_DEGREE = 8


def carryless_product(a: int, b: int) -> int:
    """Carry-less product of two polynomials over GF(2) (also the meaning of
    the IR's clmul on each pair of 64-bit halves)."""
    r = 0
    while b:
        if b & 1:
            r ^= a
        a <<= 1
        b >>= 1
    return r


def _polymod(a: int, m: int) -> int:
    """Remainder of polynomial ``a`` modulo ``m``."""
    dm = m.bit_length()
    while a.bit_length() >= dm:
        a ^= m << (a.bit_length() - dm)
    return a


def _polygcd(a: int, b: int) -> int:
    while b:
        a, b = b, _polymod(a, b)
    return a


def _mulmod(a: int, b: int, m: int) -> int:
    return _polymod(carryless_product(a, b), m)


@lru_cache(maxsize=None)
def is_irreducible(poly: int) -> bool:
    """Rabin's test: ``poly`` of degree n is irreducible over GF(2) iff
    ``x^(2^n) ≡ x`` mod poly and ``gcd(x^(2^(n/p)) - x, poly) = 1`` for each prime p | n."""
    n = poly.bit_length() - 1
    if n < 1:
        return False
    if n == 1:
        return True
    primes = [p for p in range(2, n + 1) if n % p == 0 and all(p % q for q in range(2, p))]

    def x_pow_2k(k: int) -> int:
        t = 0b10
        for _ in range(k):
            t = _mulmod(t, t, poly)
        return t

    if x_pow_2k(n) != _polymod(0b10, poly):
        return False
    for p in primes:
        if _polygcd(poly, x_pow_2k(n // p) ^ 0b10) != 1:
            return False
    return True


@lru_cache(maxsize=None)
def _log_exp_tables(poly: int) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """exp table (doubled length, so exp[log a + log b] needs no reduction), log table, generator."""
    n = poly.bit_length() - 1
    order = (1 << n) - 1
    for g in range(2, 1 << n):
        exp = [0] * (2 * order)
        v = 1
        ok = True
        for k in range(order):
            if k and v == 1:
                ok = False
                break
            exp[k] = v
            v = _mulmod(v, g, poly)
        if ok and v == 1:
            for k in range(order, 2 * order):
                exp[k] = exp[k - order]
            log = [0] * (1 << n)
            for k in range(order):
                log[exp[k]] = k
            return tuple(exp), tuple(log), g
    if n == 1:  # GF(2): the only unit is 1
        return (1, 1), (0, 0), 1
    raise AssertionError("an irreducible polynomial always has a primitive element")


class Field:
    """GF(2^n) = GF(2)[x]/(poly).  ``inv(0) = 0`` (the GFNI/AES convention)."""

    __slots__ = ("_poly", "_n", "_exp", "_log", "_order")

    def __init__(self, poly: int):
        poly = int(poly)
        n = poly.bit_length() - 1
        if n < 1:
            raise ValueError(f"field polynomial {poly:#x} must have degree >= 1")
        if not is_irreducible(poly):
            raise ValueError(
                f"field polynomial {poly:#x} (degree {n}) is reducible over GF(2); "
                f"GF(2)[x]/(poly) is not a field")
        self._poly = poly
        self._n = n
        self._order = (1 << n) - 1
        if n <= _TABLE_MAX_DEGREE:
            self._exp, self._log, _ = _log_exp_tables(poly)
        else:
            self._exp = self._log = None

    @property
    def poly(self) -> int:
        return self._poly

    @property
    def n(self) -> int:
        return self._n

    @property
    def size(self) -> int:
        return 1 << self._n

    @property
    def elements(self) -> range:
        return range(1 << self._n)

    def add(self, a: int, b: int) -> int:
        return a ^ b

    def mul(self, a: int, b: int) -> int:
        if self._exp is None:
            return _mulmod(a, b, self._poly)
        if a == 0 or b == 0:
            return 0
        return self._exp[self._log[a] + self._log[b]]

    def square(self, a: int) -> int:
        return self.mul(a, a)

    def pow(self, a: int, e: int) -> int:
        """``a^e``; negative ``e`` uses the inverse; ``0^0 = 1``, ``0^e = 0`` otherwise."""
        if e < 0:
            return self.pow(self.inv(a), -e)
        if e == 0:
            return 1
        if a == 0:
            return 0
        if self._exp is not None:
            return self._exp[(self._log[a] * e) % self._order]
        r = 1
        while e:
            if e & 1:
                r = self.mul(r, a)
            a = self.mul(a, a)
            e >>= 1
        return r

    def inv(self, a: int) -> int:
        """Multiplicative inverse, with ``inv(0) = 0``."""
        if a == 0:
            return 0
        if self._exp is not None:
            return self._exp[(self._order - self._log[a]) % self._order]
        return self.pow(a, self._order - 1)

    def inverse_table(self) -> tuple[int, ...]:
        return _inverse_table(self._poly)

    def mul_matrix(self, a: int) -> BitMatrix:
        """Matrix of ``x ↦ a·x`` (column j is ``a·x^j``)."""
        return BitMatrix.from_columns([self.mul(a, 1 << j) for j in range(self._n)], self._n)

    def frobenius_matrix(self) -> BitMatrix:
        """Matrix of ``x ↦ x²`` (GF(2)-linear in characteristic 2)."""
        return BitMatrix.from_columns([self.square(1 << j) for j in range(self._n)], self._n)

    def eval_poly(self, poly: int, a: int) -> int:
        """Evaluate a GF(2)-coefficient polynomial (bit i = coeff of x^i) at ``a`` (Horner)."""
        r = 0
        for i in range(poly.bit_length() - 1, -1, -1):
            r = self.mul(r, a) ^ ((poly >> i) & 1)
        return r

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Field) and other._poly == self._poly

    def __hash__(self) -> int:
        return hash(("Field", self._poly))

    def __repr__(self) -> str:
        return f"Field({self._poly:#x})"


@lru_cache(maxsize=None)
def _inverse_table(poly: int) -> tuple[int, ...]:
    f = Field(poly)
    return tuple(f.inv(a) for a in f.elements)


@lru_cache(maxsize=None)
def _isomorphisms(src_poly: int, dst_poly: int) -> tuple[BitMatrix, ...]:
    src, dst = Field(src_poly), Field(dst_poly)
    if src.n != dst.n:
        return ()
    roots = [r for r in dst.elements if dst.eval_poly(src_poly, r) == 0]
    out = []
    for r in sorted(roots):
        # x^j in src maps to r^j in dst; by linearity that fixes T on all of src.
        out.append(BitMatrix.from_columns([dst.pow(r, j) for j in range(src.n)], dst.n))
    return tuple(out)


def field_isomorphisms(src: Field, dst: Field) -> list[BitMatrix]:
    """Every ring isomorphism ``src → dst`` as an n×n BitMatrix ``T``
    (``T(a·b) = T(a)·T(b)``, ``T(a ⊕ b) = T(a) ⊕ T(b)``).

    An isomorphism is fixed by where it sends the class of ``x``, which must be
    a root of ``src.poly`` in ``dst``; there are exactly ``n`` roots (the
    Frobenius conjugates), hence ``n`` isomorphisms.  Sorted by that root
    (``T.apply(0b10)``), ascending.  Empty if the degrees differ.
    """
    return list(_isomorphisms(src.poly, dst.poly))
