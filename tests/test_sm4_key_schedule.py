"""SM4's key schedule as an IR program (gen/kernels/sm4_key_schedule.py): the
whole key form of sm4_key (round keys in both orders and in the byte-sliced
domain) against the scalar reference (gen/kernels/sm4_reference.key_schedule)
and the published example of the SM4 standard, abstract, lowered for every
target it is emitted for, and compiled (C and assembly twins); the lowering of
its S-box from nibble tables; the static constant-time check; the emitted
files' shape; and the C core's key set-up through every key schedule."""

import ctypes
import random
import subprocess
from pathlib import Path

import pytest

from gen import choices, cli
from gen.backends import SIMD_TARGETS
from gen.emit import sm4_files
from gen.ir import Builder, ct_check
from gen.ir.interpreter import run
from gen.kernels import sm4_key_schedule as ks, sm4_reference as ref
from gen.kernels.sm4_constants import decomposition
from gen.linalg import AffineMap
from gen.specs import sm4

from compiled_kernels import run_compiled, why_not_runnable
from conftest import ROOT, generated_library

OK, ERR_NO_IMPL = 0, -2
TARGETS = [t.name for t in sm4_files.key_schedule_targets()]
C_TARGETS = [name for name in TARGETS if SIMD_TARGETS[name].form == "c"]
# GB/T 32907-2016's example (and the SM4 standard's, 2006): the key and its first and last round keys.
EXAMPLE_KEY = bytes.fromhex("0123456789abcdeffedcba9876543210")
EXAMPLE_RK0, EXAMPLE_RK31 = 0xF12186F9, 0x9124A012
# The default decomposition and one other (libgcrypt's choice): the sliced domain follows the choice.
DECOMPOSITIONS = [None, 415]


def expected_key_form(key, decomposition_index=None):
    """sm4_key's bytes from the reference: rk[DECRYPT], rk[ENCRYPT] (native
    words), then rk_sliced[DECRYPT], rk_sliced[ENCRYPT] (byte j of each round
    key through A1, c1, in all four bytes of word j)."""
    dec = decomposition(decomposition_index)
    inner = AffineMap(dec.A1, dec.c1)
    rks = ref.key_schedule(key)
    orders = {"encrypt": rks, "decrypt": rks[::-1]}
    words = {d: b"".join(w.to_bytes(4, "little") for w in orders[d]) for d in orders}
    sliced = {d: b"".join(bytes([inner.apply(byte)] * 4) for w in orders[d] for byte in w.to_bytes(4, "big"))
              for d in orders}
    return words["decrypt"] + words["encrypt"] + sliced["decrypt"] + sliced["encrypt"]


def memory(key):
    return {"key": key, "ck": ks.ck_table(), "out": bytes(ks.key_bytes())}


def interpret(program, key):
    return bytes(run(program, {k: bytearray(v) for k, v in memory(key).items()})["out"])


def round_keys(form, direction="encrypt"):
    start = ks.layout()["rk", direction]
    return [int.from_bytes(form[start + 4 * i:start + 4 * i + 4], "little") for i in range(sm4.ROUNDS)]


def test_reference_gives_the_published_round_keys():
    rks = ref.key_schedule(EXAMPLE_KEY)
    assert (rks[0], rks[-1]) == (EXAMPLE_RK0, EXAMPLE_RK31)


def test_layout_is_sm4_keys():
    """rk[2][32] then rk_sliced[2][32][4] of 32-bit words, by sm4_direction (DECRYPT = 0);
    the C file checks the same with offsetof."""
    assert ks.layout() == {("rk", "decrypt"): 0, ("rk", "encrypt"): 128,
                           ("rk_sliced", "decrypt"): 256, ("rk_sliced", "encrypt"): 768}
    assert ks.key_bytes() == 1280 == len(expected_key_form(EXAMPLE_KEY))


@pytest.mark.parametrize("target", [None] + C_TARGETS)
def test_published_example(target):
    program = ks.program()
    if target:
        program = SIMD_TARGETS[target].lower(program)
    form = interpret(program, EXAMPLE_KEY)
    rks = round_keys(form)
    assert (rks[0], rks[-1]) == (EXAMPLE_RK0, EXAMPLE_RK31)
    assert round_keys(form, "decrypt")[0] == EXAMPLE_RK31


@pytest.mark.parametrize("index", DECOMPOSITIONS)
@pytest.mark.parametrize("target", [None] + C_TARGETS)
def test_key_form_matches_reference(target, index):
    program = ks.program(index)
    if target:
        program = SIMD_TARGETS[target].lower(program)
    rng = random.Random(index or 0)
    for _ in range(3):
        key = rng.randbytes(sm4.KEY_BYTES)
        assert interpret(program, key) == expected_key_form(key, index)


@pytest.mark.parametrize("target", ["ssse3", "neon"])
def test_sbox8_lowers_to_nibble_tables(target):
    """sbox8 on a target with no 256-entry byte permutation
    (rules.sbox8_by_nibble_tables) is the table lookup, on every byte value and
    for a table that is no bijection; nothing of it is left abstract."""
    rng = random.Random(8)
    table = rng.randbytes(256)
    b = Builder("sbox8_probe", 128, ("in", "out"))
    for k in range(16):
        b.store("out", 16 * k, b.sbox8(b.load("in", 16 * k), table, "s"))
    lowered = SIMD_TARGETS[target].lower(b.finish())
    assert {op.opcode for op in lowered.body if hasattr(op, "opcode")} & {"sbox8"} == set()
    data = bytes(range(256))
    out = run(lowered, {"in": bytearray(data), "out": bytearray(256)})["out"]
    assert bytes(out) == bytes(table[x] for x in data)


@pytest.mark.parametrize("target", C_TARGETS)
def test_lowered_program_is_constant_time(target):
    lowered = SIMD_TARGETS[target].lower(ks.program())
    assert ct_check.secret_sources(lowered)
    assert ct_check.check(lowered) == []


def test_abstract_sbox_would_be_flagged():
    """Unlowered, the S-box is a table in memory indexed by the key: what the lowering removes."""
    assert any("sbox8" in v for v in map(str, ct_check.check(ks.program())))


def test_ct_check_goes_over_every_key_schedule():
    assert {name for _, name in sm4_files.KEY_SCHEDULES} == {"ssse3", "neon"}
    for strategy, name in sm4_files.KEY_SCHEDULES:
        assert (strategy, name) in cli.checked_kernels("sm4")
        assert len(cli.emitted_programs("sm4", strategy, SIMD_TARGETS[name], choices.load())) == 1


def test_one_key_schedule_file_per_architecture_and_its_twin():
    """Below every SM4 kernel's target (they need AES or SM4 instructions): the
    baseline of each architecture, with its twin in the library's and the
    downstream dialects."""
    assert TARGETS == ["ssse3", "ssse3_asm", "neon", "neon_asm"]
    files = sm4_files.key_schedule_file(SIMD_TARGETS["neon_asm"], choices.load())
    assert set(files) == {"src/sm4_key_schedule_neon_asm.c", "src/sm4_key_schedule_neon_asm.S",
                          "asm/linux/aarch64/sm4_key_schedule_neon.S",
                          "asm/libgcrypt/aarch64/sm4_key_schedule_neon.S"}
    assert {("key_schedule", name) for name in TARGETS} <= set(cli.emitted_files("sm4"))


@pytest.mark.parametrize("target", TARGETS)
def test_emitted_code_matches_reference(target, tmp_path):
    t = SIMD_TARGETS[target]
    if why_not_runnable(t):
        pytest.skip(why_not_runnable(t))
    for key in (EXAMPLE_KEY, random.Random(target).randbytes(sm4.KEY_BYTES)):
        assert run_compiled(t.lower(ks.program()), t, memory(key), "out", tmp_path) == expected_key_form(key)


class Sm4KeySchedule(ctypes.Structure):
    _fields_ = [("target", ctypes.c_char_p), ("cpu_supported", ctypes.CFUNCTYPE(ctypes.c_int)),
                ("expand", ctypes.c_void_p)]


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    so = generated_library(tmp_path_factory.mktemp("sm4_key_schedule"), sm4_files.sources(), "sm4")
    p, size = ctypes.c_void_p, ctypes.c_size_t
    so.sm4_set_key.argtypes = [p, ctypes.c_char_p]
    so.sm4_set_key_using.argtypes = [p, p, ctypes.c_char_p]
    so.sm4_key_schedules.restype = ctypes.POINTER(ctypes.POINTER(Sm4KeySchedule))
    so.sm4_key_schedules.argtypes = [ctypes.POINTER(size)]
    return so


def test_c_core_sets_keys_through_every_key_schedule(lib):
    """sm4_set_key and each key schedule of this architecture (the C one and
    its assembly twin) write the reference's key form; with none, the key is
    refused and nothing written."""
    count = ctypes.c_size_t()
    listed = lib.sm4_key_schedules(ctypes.byref(count))
    schedules = [listed[j] for j in range(count.value)]
    assert [s.contents.target.decode() for s in schedules] == \
        [t.name for t in sm4_files.key_schedule_targets() if t.arch.name == "x86_64"]
    rng = random.Random(32)
    index = choices.load().get("sm4.decomposition")
    for key in (EXAMPLE_KEY, rng.randbytes(sm4.KEY_BYTES)):
        form = ctypes.create_string_buffer(ks.key_bytes())
        assert lib.sm4_set_key(form, key) == OK
        assert form.raw == expected_key_form(key, index)
        for schedule in schedules:
            form = ctypes.create_string_buffer(ks.key_bytes())
            assert lib.sm4_set_key_using(schedule, form, key) == OK
            assert form.raw == expected_key_form(key, index), schedule.contents.target
    form = ctypes.create_string_buffer(b"\xaa" * ks.key_bytes(), ks.key_bytes())
    assert lib.sm4_set_key_using(None, form, EXAMPLE_KEY) == ERR_NO_IMPL
    assert form.raw == b"\xaa" * ks.key_bytes()


STACK_PROBE = r"""
#include <stdio.h>
#include <string.h>
#include "sm4.h"

/* Round keys (either byte order) that the stack below the caller still holds. */
static __attribute__((noipa)) int left_below(const sm4_key *key)
{
    volatile unsigned char below[8192];
    int found = 0;
    for (int r = 0; r < SM4_ROUNDS; r++) {
        const uint32_t w = key->rk[SM4_ENCRYPT][r], s = __builtin_bswap32(w);
        for (size_t i = 0; i + 4 <= sizeof below; i++)
            if (!memcmp((const void *)(below + i), &w, 4) || !memcmp((const void *)(below + i), &s, 4)) {
                found++;
                break;
            }
    }
    return found;
}

/* The control: a callee that leaves the round keys in its frame, as a spill would. */
static __attribute__((noipa)) void spill(const sm4_key *key)
{
    volatile uint32_t copy[SM4_ROUNDS];
    for (int r = 0; r < SM4_ROUNDS; r++)
        copy[r] = key->rk[SM4_ENCRYPT][r];
}

int main(void)
{
    static const unsigned char key_bytes[16] = {0x3c, 0x91, 0x5a, 0x07, 0xe2, 0x44, 0x19, 0xb8,
                                                0x6d, 0xf0, 0x23, 0x8e, 0xa5, 0x71, 0xcc, 0x12};
    sm4_key key;
    if (sm4_set_key(&key, key_bytes) != SM4_OK)
        return 2;
    const int after_set_key = left_below(&key);
    spill(&key);
    printf("%d %d\n", after_set_key, left_below(&key));
    return 0;
}
"""


def test_set_key_leaves_no_round_key_on_the_stack(lib, tmp_path):
    """The key schedule spills round keys like any kernel spills its values;
    sm4_set_key overwrites the stack below it afterwards (kc_wipe_stack), so
    none of the 32 is left there, while the probe does find a callee's
    leftovers (the control).  The probe reads memory it never wrote, so it is
    built -O0 and its functions noipa: an optimiser may fold such reads."""
    (tmp_path / "probe.c").write_text(STACK_PROBE)
    exe = tmp_path / "probe"
    subprocess.run(["gcc", "-O0", f"-I{ROOT / 'generated' / 'include'}", str(tmp_path / "probe.c"), lib._name,
                    f"-Wl,-rpath,{Path(lib._name).parent}", "-o", str(exe)], check=True, capture_output=True, text=True)
    after_set_key, after_spill = map(int, subprocess.run([str(exe)], check=True, capture_output=True,
                                                         text=True).stdout.split())
    assert after_spill == 32
    assert after_set_key == 0
