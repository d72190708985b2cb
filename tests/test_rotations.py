"""Linear layers of word rotations (gen/kernels/rotations.py) in the IR
interpreter against Python integers."""

import struct

from hypothesis import given, strategies as st

from gen.ir import Builder, Op, run
from gen.kernels.rotations import linear_layer, rotation_sum
from gen.specs import zuc


def rotl32(x, n):
    return ((x << n) | (x >> (32 - n))) & 0xFFFFFFFF if n % 32 else x


def expected(words, amounts):
    out = []
    for w in words:
        acc = 0
        for a in amounts:
            acc ^= rotl32(w, a)
        out.append(acc)
    return out


def evaluate(build, words):
    b = Builder("rot", 128, ("in", "out"))
    b.store("out", 0, build(b, b.load("in", 0)))
    program = b.finish()
    memory = {"in": bytearray(struct.pack("<4I", *words)), "out": bytearray(16)}
    run(program, memory)
    return list(struct.unpack("<4I", memory["out"])), program


words4 = st.lists(st.integers(0, 2**32 - 1), min_size=4, max_size=4)


@given(words4)
def test_linear_layer_is_x_xor_its_rotations(words):
    got, _ = evaluate(lambda b, y: linear_layer(b, y, zuc.L1_ROTATIONS, "l"), words)
    assert got == expected(words, (0,) + zuc.L1_ROTATIONS)


@given(words4, st.sets(st.integers(0, 31), min_size=1, max_size=6))
def test_rotation_sum_of_any_amounts(words, amounts):
    got, _ = evaluate(lambda b, y: rotation_sum(b, y, sorted(amounts), "r"), words)
    assert got == expected(words, amounts)


@given(words4)
def test_known_rotation_is_used_instead_of_rotating(words):
    """ZUC's rotl(v, 8) = rotl(L2 input, 8) ^ ... with rotl(input, 16) given."""
    amounts = [(r + 8) % 32 for r in (0,) + zuc.L2_ROTATIONS]

    def build(b, y):
        return rotation_sum(b, y, amounts, "v", known={16: b.rotl(y, 16, 32, "given")})

    got, program = evaluate(build, words)
    assert got == expected(words, amounts)
    rotations = [s.attrs["n"] for s in program.walk() if isinstance(s, Op) and s.opcode == "rotl"]
    assert rotations.count(16) == 1  # only the given one
