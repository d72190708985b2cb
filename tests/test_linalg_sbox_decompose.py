"""Properties of gen.linalg.sbox_decompose on planted and structured S-boxes.

The SM4-specific checks (published constants) are in test_sm4_published_constants.py."""

import random
import time

import pytest
from hypothesis import given, settings, strategies as st

import gen.linalg.sbox_decompose as sd
from gen.linalg.bits import AffineMap, BitMatrix
from gen.linalg.gf2n import Field, field_isomorphisms
from gen.linalg.sbox_decompose import Decomposition, affine_decompositions, preferred_decomposition

from conftest import self_equivalence_orbit

NAMED_POLYS = [0x11B, 0x18B, 0x1F5]


def random_invertible(rng, n=8):
    while True:
        m = BitMatrix([rng.getrandbits(n) for _ in range(n)], n)
        if m.is_invertible():
            return m


def planted(seed, poly):
    rng = random.Random(seed)
    d = Decomposition(random_invertible(rng), rng.getrandbits(8), random_invertible(rng), rng.getrandbits(8))
    return d, d.table(Field(poly))


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from(NAMED_POLYS))
def test_finds_planted_decomposition(seed, poly):
    field = Field(poly)
    d, table = planted(seed, poly)
    sols = affine_decompositions(table, field)
    assert d in sols
    assert len(sols) == 2040 == len(set(sols))
    assert sols == sorted(sols, key=Decomposition.sort_key)
    assert set(sols) == self_equivalence_orbit(d, field)
    for s in sols[::97]:
        assert s.table(field) == table
    assert preferred_decomposition(sols) == sols[0]
    assert preferred_decomposition(list(reversed(sols))) == sols[0]


def test_every_solution_of_a_planted_sbox_is_valid():
    field = Field(0x11B)
    d, table = planted(12345, 0x11B)
    sols = affine_decompositions(table, field)
    inv = field.inverse_table()
    for s in sols:
        assert s.table(field) == table
        # and by the slow, direct definition for a few inputs
        for x in (0, 1, 0x80, 0xA5):
            assert s.A2.apply(inv[s.A1.apply(x) ^ s.c1]) ^ s.c2 == table[x]


def test_inversion_itself_and_across_fields():
    f = Field(0x11B)
    sols = affine_decompositions(f.inverse_table(), f)
    ident = Decomposition(BitMatrix.identity(8), 0, BitMatrix.identity(8), 0)
    assert ident in sols and len(sols) == 2040
    # inversion in another field is T⁻¹∘inv∘T for every isomorphism T into the AES field
    g = Field(0x18B)
    sols = affine_decompositions(g.inverse_table(), f)
    for T in field_isomorphisms(g, f):
        assert Decomposition(T, 0, T.inverse(), 0) in sols


def test_not_equivalent_returns_empty():
    f = Field(0x11B)
    assert affine_decompositions(list(range(256)), f) == []
    rng = random.Random(7)
    perm = list(range(256))
    rng.shuffle(perm)
    assert affine_decompositions(perm, f) == []
    cube = [f.pow(x, 7) for x in range(256)]  # x^7 is a permutation (gcd(7,255)=1), not inversion
    assert sorted(cube) == list(range(256))
    assert affine_decompositions(cube, f) == []


def test_rejects_non_bijections():
    f = Field(0x11B)
    with pytest.raises(ValueError, match="not a bijection"):
        affine_decompositions([0] * 256, f)
    with pytest.raises(ValueError, match="256"):
        affine_decompositions(list(range(255)), f)
    with pytest.raises(ValueError, match="outside"):
        affine_decompositions(list(range(1, 257)), f)


def test_zero_filter_loses_nothing(monkeypatch):
    """The DDT filter for x0 is only a speed-up: searching all 256 candidates gives the same list."""
    field = Field(0x1F5)
    d, table = planted(99, 0x1F5)
    fast = affine_decompositions(table, field)
    monkeypatch.setattr(sd, "_zero_candidates", lambda t, n: list(range(256)))
    slow = sd._decompose.__wrapped__(tuple(table), 0x1F5)
    assert list(slow) == fast


def test_speed():
    d, table = planted(2024, 0x11B)
    sd._decompose.cache_clear()
    t = time.perf_counter()
    affine_decompositions(table, Field(0x11B))
    assert time.perf_counter() - t < 1.0
