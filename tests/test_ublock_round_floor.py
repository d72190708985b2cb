"""harness/ublock_round_floor.py: the hand-scheduled round it times is the
uBlock-128/128 round (run on this CPU against the reference), its variants
leave out what they say, and the kernel it times twice differs only in the
CTR round loop's count."""

import ctypes
import os
import random
import sys

import pytest

from gen.kernels.ublock_reference import linear_layer, permute_bytes
from gen.specs import ublock

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "harness"))

import ublock_round_floor as floor  # noqa: E402


def _has_avx2():
    try:
        with open("/proc/cpuinfo") as f:
            return " avx2" in f.read()
    except OSError:
        return False


def _reference_round(state, tables):
    """One round on nibble-sliced state (state[p][j] = nibble p of block j),
    tables[p] the folded 16-entry table of position p."""
    sboxed = [[tables[p][v] for v in row] for p, row in enumerate(state)]
    blocks = len(state[0])
    out = [[0] * blocks for _ in state]
    for j in range(blocks):
        y0, y1 = linear_layer([sboxed[p][j] for p in range(floor.HALF)],
                              [sboxed[p][j] for p in range(floor.HALF, floor.NIBBLES)])
        new = permute_bytes(y0, ublock.PL[128]) + permute_bytes(y1, ublock.PR[128])
        for p, v in enumerate(new):
            out[p][j] = v
    return out


@pytest.mark.skipif(not _has_avx2(), reason="runs AVX2 code")
def test_round_variant_is_two_rounds_of_the_cipher(tmp_path):
    mixes = ctypes.CDLL(str(floor.build(tmp_path, "gcc", shared=True)))
    rng = random.Random(7)
    tables = [[[rng.randrange(16) for _ in range(16)] for _ in range(floor.NIBBLES)] for _ in range(2)]
    state = [[rng.randrange(16) for _ in range(floor.REGISTER_BYTES)] for _ in range(floor.NIBBLES)]
    memory = bytes(v for step in tables for table in step for v in table)
    rk = ctypes.create_string_buffer(memory, len(memory))
    size = floor.REGISTER_BYTES * floor.NIBBLES
    buffers = [ctypes.create_string_buffer(size + 32) for _ in range(2)]
    a, b = (_aligned(buffer) for buffer in buffers)  # vmovdqa needs 32-byte alignment
    ctypes.memmove(a, bytes(v for row in state for v in row), size)
    mixes.mix_round(rk, ctypes.c_void_p(a), ctypes.c_void_p(b), ctypes.c_long(1))
    expected = _reference_round(_reference_round(state, tables[0]), tables[1])
    got = ctypes.string_at(a, size)
    width = floor.REGISTER_BYTES
    assert [list(got[width * p:width * (p + 1)]) for p in range(floor.NIBBLES)] == expected


def _aligned(buffer):
    """The first 32-byte aligned address in `buffer` (which keeps 32 bytes to spare)."""
    address = ctypes.addressof(buffer)
    return address + (-address) % 32


def _count(text, mnemonic, memory=None):
    lines = [line.strip() for line in text.splitlines() if line.strip().startswith(mnemonic)]
    if memory is not None:
        lines = [line for line in lines if ("(%r" in line.split(",")[0]) == memory]
    return len(lines)


@pytest.mark.parametrize("variant, shuffles_from_memory, xors, stores", [
    ("round", 64, 192, 64), ("no_stores", 64, 192, 0), ("in_registers", 0, 192, 0), ("no_xors", 64, 0, 64)])
def test_variants_leave_out_what_they_say(variant, shuffles_from_memory, xors, stores):
    text = floor.function_text(variant)  # two rounds
    assert _count(text, "vbroadcasti128") == 2 * floor.NIBBLES
    assert _count(text, "vpshufb") == 2 * floor.NIBBLES
    assert _count(text, "vpshufb", memory=True) == shuffles_from_memory
    assert _count(text, "vpxor") == xors
    assert _count(text, "vmovdqa") == stores


def test_empty_kernel_differs_only_in_the_ctr_round_count():
    full, empty = floor.kernel_source("full"), floor.kernel_source("empty")
    loop = f"for (size_t r = 0; r < {floor.CTR_ROUNDS}; r++)"
    assert full.count(loop) == empty.count(loop) + 1
    assert empty.count("for (size_t r = 0; r < 0; r++)") == 1
    assert empty.replace("r < 0;", f"r < {floor.CTR_ROUNDS};").replace("kernel_empty", "kernel_full") == full
    assert f"__attribute__((noinline)) static void {floor.CTR_KERNEL}(" in full
