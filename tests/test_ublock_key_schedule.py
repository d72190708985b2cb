"""uBlock's key schedule as IR programs (gen/kernels/ublock_key_schedule.py):
the expansion and the folded key form's steps against the scalar reference
(gen/kernels/ublock_reference.round_keys, ublock_nibbleslice.folded_tables) in
every variant, abstract, lowered for every target the key schedule is emitted
for, and compiled (C and assembly twins); the static constant-time check of
every one; and the emitted files' shape (one per architecture, and its twin)."""

import random

import pytest

from gen import choices, cli
from gen.backends import SIMD_TARGETS
from gen.emit import ublock_files
from gen.ir import ct_check
from gen.ir.interpreter import run
from gen.kernels import ublock_key_schedule as ks, ublock_nibbleslice, ublock_reference as ref
from gen.specs import ublock

from compiled_kernels import run_compiled, why_not_runnable

VARIANTS = list(ublock.VARIANTS)
TARGETS = [t.name for t in ublock_files.key_schedule_targets()]
C_TARGETS = [name for name in TARGETS if SIMD_TARGETS[name].form == "c"]


def variant_id(v):
    return f"{v[0]}_{v[1]}"


def key_pair(block_bits, key_bits, seed):
    rng = random.Random(seed * 7919 + block_bits + key_bits)
    return rng.randbytes(key_bits // 8), rng.randbytes(key_bits // 8)


def expand_case(block_bits, key_bits, seed):
    """(memory, expected out) of expand_program: two keys, the second in the high nibbles."""
    a, b = key_pair(block_bits, key_bits, seed)
    register = bytes(lo | hi << 4 for lo, hi in zip(ref.to_nibbles(a), ref.to_nibbles(b)))
    rounds = ublock.VARIANTS[block_bits, key_bits]
    expected = b"".join(bytes(lo | hi << 4 for lo, hi in zip(ka, kb))
                        for ka, kb in zip(ref.round_keys(block_bits, key_bits, a), ref.round_keys(block_bits, key_bits, b)))
    memory = {"key": register, "rc": b"".join(ks.round_constant_rows()), "out": bytes((rounds + 1) * block_bits // 4)}
    return memory, expected


def fold_cases(block_bits, key_bits, direction, seed):
    """Per step, (memory, expected out) of fold_program: the step's slice of folded_tables."""
    key, _ = key_pair(block_bits, key_bits, seed)
    rks = ref.round_keys(block_bits, key_bits, key)
    rounds = len(rks) - 1
    share = bytes(ublock_nibbleslice.final_key_share(block_bits, rks[rounds]))
    tables = ublock_nibbleslice.folded_tables(rks, direction)
    step_bytes = 16 * block_bits // 4
    cases = []
    for step in range(rounds):
        rk = rks[step] if direction == "encrypt" else rks[rounds - 1 - step]
        shared = step == (rounds - 1 if direction == "encrypt" else 0)
        memory = {"rk": ref.from_nibbles(rk), "share": share if shared else bytes(len(share)),
                  "out": bytes(step_bytes)}
        cases.append((memory, tables[step * step_bytes:(step + 1) * step_bytes]))
    return cases


def interpret(program, memory, output="out"):
    return bytes(run(program, {k: bytearray(v) for k, v in memory.items()})[output])


def programs(block_bits, key_bits):
    """Every program a variant's key set-up runs: its expansion, and both fold directions."""
    return [ks.expand_program(block_bits, key_bits)] + [ks.fold_program(block_bits, d) for d in ks.DIRECTIONS]


@pytest.mark.parametrize("variant", VARIANTS, ids=variant_id)
@pytest.mark.parametrize("target", [None] + C_TARGETS)
def test_expand_matches_algorithm_3_for_two_keys(variant, target):
    program = ks.expand_program(*variant)
    if target:
        program = SIMD_TARGETS[target].lower(program)
    for seed in range(3):
        memory, expected = expand_case(*variant, seed)
        assert interpret(program, memory) == expected


@pytest.mark.parametrize("variant", VARIANTS, ids=variant_id)
@pytest.mark.parametrize("direction", ks.DIRECTIONS)
@pytest.mark.parametrize("target", [None] + C_TARGETS)
def test_fold_steps_make_the_folded_key_form(variant, direction, target):
    program = ks.fold_program(variant[0], direction)
    if target:
        program = SIMD_TARGETS[target].lower(program)
    for memory, expected in fold_cases(*variant, direction, seed=1):
        assert interpret(program, memory) == expected


def test_expand_reads_only_the_chunks_of_its_key():
    """uBlock-128/128 keeps a 32-nibble register: two chunks, not four."""
    states = {v: len(ks.expand_program(*v).state) for v in VARIANTS}
    assert states == {(128, 128): 2, (128, 256): 4, (256, 256): 4}


def test_round_constant_rows_are_the_specs_constants_in_both_halves():
    rows = ks.round_constant_rows()
    assert len(rows) == len(ublock.round_constants()) >= max(ublock.VARIANTS.values())
    for row, rc in zip(rows, ublock.round_constants()):
        assert bytes(b & 15 for b in row[:8]) == bytes(rc >> (28 - 4 * i) & 15 for i in range(8))
        assert all(b >> 4 == b & 15 for b in row[:8]) and row[8:] == bytes(8)


@pytest.mark.parametrize("variant", VARIANTS, ids=variant_id)
@pytest.mark.parametrize("target", C_TARGETS)
def test_lowered_programs_are_constant_time(variant, target):
    for program in programs(*variant):
        lowered = SIMD_TARGETS[target].lower(program)
        assert ct_check.secret_sources(lowered), lowered.name
        assert ct_check.check(lowered) == [], lowered.name


def test_ct_check_goes_over_every_key_schedule_program():
    """gen ct-check's list holds the key schedule of each architecture, with all its programs."""
    assert {name for _, name in ublock_files.KEY_SCHEDULES} == {"ssse3", "neon"}
    for strategy, name in ublock_files.KEY_SCHEDULES:
        assert (strategy, name) in cli.checked_kernels("ublock")
        recorded = cli.emitted_programs("ublock", strategy, SIMD_TARGETS[name], choices.load())
        assert len(recorded) == len(VARIANTS) + 2 * len({n for n, _ in VARIANTS})


def test_one_key_schedule_file_per_architecture_and_its_twin():
    assert TARGETS == ["ssse3", "ssse3_asm", "neon", "neon_asm"]
    files = ublock_files.key_schedule_file(SIMD_TARGETS["ssse3_asm"])
    assert set(files) == {"src/ublock_key_schedule_ssse3_asm.c", "src/ublock_key_schedule_ssse3_asm.S"}
    assert "ublock_key_schedule_ssse3_ublock128_fold_encrypt_asm" in files["src/ublock_key_schedule_ssse3_asm.S"]
    # The ABI check (harness/abi_check.py) goes over every file of lowered programs, the twins' included.
    assert {("key_schedule", name) for name in TARGETS} <= set(cli.emitted_files("ublock"))


@pytest.mark.parametrize("variant", VARIANTS, ids=variant_id)
@pytest.mark.parametrize("target", TARGETS)
def test_emitted_code_matches_reference(variant, target, tmp_path):
    t = SIMD_TARGETS[target]
    if why_not_runnable(t):
        pytest.skip(why_not_runnable(t))
    memory, expected = expand_case(*variant, seed=5)
    assert run_compiled(t.lower(ks.expand_program(*variant)), t, memory, "out", tmp_path) == expected
    for direction in ks.DIRECTIONS:
        memory, expected = fold_cases(*variant, direction, seed=5)[0 if direction == "decrypt" else -1]
        assert run_compiled(t.lower(ks.fold_program(variant[0], direction)), t, memory, "out", tmp_path) == expected
