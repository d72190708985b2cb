"""Properties of gen.linalg.gf2n: field axioms, inversion, matrices, isomorphisms.

galois is used only here, as an independent implementation to cross-check."""

import galois
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from gen.linalg.bits import BitMatrix
from gen.linalg.gf2n import Field, field_isomorphisms, is_irreducible

DEG8_IRREDUCIBLE = [int(p) for p in galois.irreducible_polys(2, 8)]
NAMED_POLYS = [0x11B, 0x18B, 0x1F5]  # AES; x^8+x^7+x^3+x+1; x^8+x^7+x^6+x^5+x^4+x^2+1

polys8 = st.sampled_from(sorted(set(DEG8_IRREDUCIBLE)))
named = st.sampled_from(NAMED_POLYS)
elem = st.integers(0, 255)


def test_irreducibility_matches_galois():
    assert len(DEG8_IRREDUCIBLE) == 30
    ours = [p for p in range(256, 512) if is_irreducible(p)]
    assert ours == sorted(DEG8_IRREDUCIBLE)
    for n in range(1, 7):
        ref = sorted(int(p) for p in galois.irreducible_polys(2, n))
        assert [p for p in range(1 << n, 2 << n) if is_irreducible(p)] == ref
    for p in NAMED_POLYS:
        assert p in DEG8_IRREDUCIBLE


def test_reducible_rejected_with_clear_message():
    with pytest.raises(ValueError, match="reducible"):
        Field(0x100)  # x^8
    with pytest.raises(ValueError, match="reducible"):
        Field(0x105)  # x^8+x^2+1 = (x^4+x+1)^2
    with pytest.raises(ValueError):
        Field(1)


@given(polys8, elem, elem, elem)
def test_field_axioms(poly, a, b, c):
    f = Field(poly)
    assert f.n == 8 and f.poly == poly and len(f.elements) == 256
    assert f.mul(a, b) == f.mul(b, a)
    assert f.mul(f.mul(a, b), c) == f.mul(a, f.mul(b, c))
    assert f.mul(a, b ^ c) == f.mul(a, b) ^ f.mul(a, c)
    assert f.mul(a, 1) == a and f.mul(a, 0) == 0
    assert f.square(a) == f.mul(a, a)
    if a:
        assert f.mul(a, f.inv(a)) == 1
        assert f.pow(a, 255) == 1
        assert f.pow(a, -1) == f.inv(a)
    assert f.pow(a, 256) == a


@pytest.mark.parametrize("poly", NAMED_POLYS)
def test_mul_and_inv_match_galois_exhaustively(poly):
    G = galois.GF(2**8, irreducible_poly=poly)
    f = Field(poly)
    a = G(np.arange(256))
    ref = (a[:, None] * a[None, :]).view(np.ndarray)
    ours = np.array([[f.mul(x, y) for y in range(256)] for x in range(256)])
    assert (ref == ours).all()
    ref_inv = [0] + [int(v) for v in (a[1:] ** -1)]
    assert list(f.inverse_table()) == ref_inv


def test_inverse_table_and_zero_convention():
    f = Field(0x11B)
    t = f.inverse_table()
    assert t[0] == 0 and len(t) == 256 and sorted(t) == list(range(256))
    assert f.inv(0x53) == 0xCA  # FIPS 197 worked example
    assert f.mul(0x57, 0x83) == 0xC1  # FIPS 197 section 4.2


@given(polys8, elem, elem)
def test_mul_and_frobenius_matrices(poly, a, x):
    f = Field(poly)
    assert f.mul_matrix(a).apply(x) == f.mul(a, x)
    fr = f.frobenius_matrix()
    assert fr.apply(x) == f.square(x)
    # Frobenius has order n
    m = BitMatrix.identity(8)
    for k in range(1, 9):
        m = fr @ m
        assert (m == BitMatrix.identity(8)) == (k == 8)


def test_small_fields():
    for poly in (0b111, 0b1011, 0b10011):
        f = Field(poly)
        for a in range(1, f.size):
            assert f.mul(a, f.inv(a)) == 1
    big = Field((1 << 16) | 0b101101)  # x^16+x^5+x^3+x^2+1 (irreducible)
    for a in (1, 2, 0x1234, 0xFFFF):
        assert big.mul(a, big.inv(a)) == 1


@given(named, named, elem, elem)
def test_isomorphisms_preserve_mul_and_add(src_poly, dst_poly, a, b):
    src, dst = Field(src_poly), Field(dst_poly)
    isos = field_isomorphisms(src, dst)
    assert len(isos) == 8 and len(set(isos)) == 8
    assert isos == sorted(isos, key=lambda t: t.apply(0b10))
    for T in isos:
        assert T.is_invertible()
        assert T.apply(1) == 1
        assert T.apply(src.mul(a, b)) == dst.mul(T.apply(a), T.apply(b))
        assert T.apply(a ^ b) == T.apply(a) ^ T.apply(b)
        assert T.apply(src.inv(a)) == dst.inv(T.apply(a))


@settings(max_examples=15)
@given(polys8, polys8)
def test_isomorphisms_between_any_degree8_fields(src_poly, dst_poly):
    src, dst = Field(src_poly), Field(dst_poly)
    isos = field_isomorphisms(src, dst)
    assert len(isos) == 8
    T = isos[0]
    mt = [T.apply(a) for a in range(256)]
    # exhaustive multiplicativity on one isomorphism
    for a in range(0, 256, 7):
        for b in range(256):
            assert mt[src.mul(a, b)] == dst.mul(mt[a], mt[b])
    # the isomorphisms are the first one composed with the Frobenius powers of dst
    fr = dst.frobenius_matrix()
    orbit, m = set(), T
    for _ in range(8):
        orbit.add(m)
        m = fr @ m
    assert orbit == set(isos)
    # inverse of an isomorphism is an isomorphism back
    back = field_isomorphisms(dst, src)
    assert T.inverse() in back


def test_self_isomorphisms_are_frobenius_powers():
    f = Field(0x11B)
    isos = field_isomorphisms(f, f)
    assert BitMatrix.identity(8) in isos
    assert f.frobenius_matrix() in isos


def test_different_degrees_have_no_isomorphisms():
    assert field_isomorphisms(Field(0x11B), Field(0b10011)) == []
