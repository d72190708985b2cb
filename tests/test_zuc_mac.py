"""The ZUC MACs' carry-less fold (gen/kernels/zuc_mac.py): the folding
method against the standards' bit-by-bit MAC (zuc_reference.mac), and the
fold programs, abstract and lowered for every ZUC target, in the IR
interpreter against the reference's sums; the lowered programs pass the
static constant-time check."""

import random

import pytest

from gen import choices
from gen.backends import SIMD_TARGETS
from gen.emit import zuc_kernel_files
from gen.ir import ct_check, run
from gen.kernels import zuc_mac, zuc_reference

TARGETS = list(zuc_kernel_files.TARGET_ORDER)
TAGS = [(128, 32), (256, 32), (256, 64), (256, 128)]


@pytest.mark.parametrize("variant, tag_bits", TAGS)
@pytest.mark.parametrize("bits", [0, 1, 31, 63, 64, 65, 127, 128, 200, 1000])
def test_folding_gives_the_standards_mac(variant, tag_bits, bits):
    rng = random.Random(bits * 7 + tag_bits + variant)
    key = rng.randbytes(16 if variant == 128 else 32)
    iv = rng.randbytes(16 if variant == 128 else 25)
    if variant == 256:
        iv = iv[:17] + bytes(b & 0x3F for b in iv[17:])
    msg = rng.randbytes((bits + 7) // 8)
    assert (zuc_reference.mac_by_folding(variant, key, iv, msg, bits, tag_bits)
            == zuc_reference.mac(variant, key, iv, msg, bits, tag_bits))


def _run_fold(program, bits, msg, ks, sums):
    """sums (a list of per-block 128-bit integers per P_h) after one call."""
    step = bits // 8
    memory = {"sums": bytearray(b"".join(s.to_bytes(step, "little") for s in sums)),
              "msg": bytearray(msg), "ks": bytearray(ks)}
    run(program, memory)
    return [int.from_bytes(memory["sums"][h * step:(h + 1) * step], "little") for h in range(len(sums))]


def _blocks_added(value, bits):
    """The XOR of a `bits`-wide sum's 128-bit blocks: what the core adds up at the end."""
    out = 0
    for q in range(bits // 128):
        out ^= value >> (128 * q) & ((1 << 128) - 1)
    return out


def check_fold(program, bits, tag_bits, seed):
    rng = random.Random(seed)
    count = zuc_mac.pieces(tag_bits)
    chunks = program.info["chunks"]
    msg, ks = rng.randbytes(8 * chunks), rng.randbytes(8 * chunks + 8 * (count - 1))
    start = [rng.getrandbits(bits) for _ in range(count)]
    after = _run_fold(program, bits, msg, ks, start)
    want = zuc_reference.fold_sums(msg, ks, chunks, count)
    for h in range(count):
        assert _blocks_added(after[h] ^ start[h], bits) == want[h]


@pytest.mark.parametrize("bits", [128, 256, 512])
@pytest.mark.parametrize("tag_bits", [32, 128])
def test_abstract_fold_matches_the_reference(bits, tag_bits):
    check_fold(zuc_mac.fold_program(bits, tag_bits), bits, tag_bits, seed=bits + tag_bits)


@pytest.mark.parametrize("target_name", TARGETS)
@pytest.mark.parametrize("tag_bits", [64, 128])
def test_lowered_fold_matches_the_reference_and_is_constant_time(target_name, tag_bits):
    target = SIMD_TARGETS[target_name]
    lowered = target.lower(zuc_mac.fold_program(target.bits, tag_bits))
    assert not ct_check.check(lowered)
    assert "clmul" in {op.opcode for op in lowered.walk() if hasattr(op, "opcode")}  # every ZUC target has one
    check_fold(lowered, target.bits, tag_bits, seed=len(target_name) + tag_bits)


def test_every_zuc_kernel_emits_both_folds():
    for strategy, name in zuc_kernel_files.KERNELS:
        programs = zuc_kernel_files.lowered_programs(SIMD_TARGETS[name], strategy, choices.load())
        assert {"mac_fold", "mac_fold_wide"} <= set(programs)


def test_a_tag_size_no_mac_has_is_refused():
    with pytest.raises(ValueError, match="16-bit"):
        zuc_mac.pieces(16)
