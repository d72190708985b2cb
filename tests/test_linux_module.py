"""harness/linux_module.py's reading of a boot log (the boots themselves are
the linux-boot-check stage of `make test`): what passes, and each way a log
fails, on both architectures' driver sets."""

import importlib.util

import pytest

from conftest import ROOT

_spec = importlib.util.spec_from_file_location("linux_module", ROOT / "harness" / "linux_module.py")
linux_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(linux_module)


def boot_log(arch, selftest="passed", dmesg="", loaded=True, finished=True, tcrypt=11):
    crypto = "".join(f"name         : x(sm4)\ndriver       : {d}\nmodule       : kcrypt_sm4\nselftest     : {selftest}\n"
                     for d in linux_module.drivers(arch))
    return ("kcrypt-boot: guest CPU flags : aes avx2\n"
            f"kcrypt-boot: insmod kcrypt_sm4.ko: {0 if loaded else 22}\n"
            "kcrypt-boot: /proc/crypto\n" + crypto
            + "".join(f"kcrypt-boot: insmod {run}: {tcrypt} Resource temporarily unavailable\n"
                      for run in linux_module.TCRYPT) +
            "kcrypt-boot: dmesg\n<6>[    1.8] kcrypt_sm4: kernel wordslice_avx2_aesni (64 blocks a pass)\n" + dmesg +
            (linux_module.END + "\n" if finished else ""))


@pytest.mark.parametrize("name", sorted(linux_module.ARCHES))
def test_a_clean_boot_passes(name):
    arch = linux_module.ARCHES[name]
    assert len(linux_module.drivers(arch)) == len(linux_module.MODES) * (2 if arch.simd_wrapper else 1)
    assert linux_module.check(arch, boot_log(arch)) == []


@pytest.mark.parametrize("name", sorted(linux_module.ARCHES))
def test_each_failure_is_reported(name):
    arch = linux_module.ARCHES[name]

    def problems(**kw):
        return "\n".join(linux_module.check(arch, boot_log(arch, **kw)))

    assert "selftest not passed" in problems(selftest="unknown")
    assert "did not load" in problems(loaded=False)
    assert "did not finish" in problems(finished=False)
    assert "-EAGAIN" in problems(tcrypt=22)
    assert "tests failed" in problems(dmesg="<3>[ 2.0] tcrypt: one or more tests failed!\n")
    assert "WARNING" in problems(dmesg="<4>[ 2.0] WARNING: CPU: 0 PID: 1 at arch/x86/kernel/fpu/core.c:1\n")
    log = boot_log(arch).replace("driver       : ctr-sm4-kcrypt\n", "driver       : ctr-sm4-other\n")
    assert "ctr-sm4-kcrypt is not in /proc/crypto" in linux_module.check(arch, log)
    vectors = boot_log(arch, dmesg="").replace("kcrypt-boot: dmesg", "kcrypt-boot: af_alg xts-sm4-kcrypt enc 17 bytes: ok\n"
                                               "kcrypt-boot: af_alg xts-sm4-kcrypt dec 17 bytes: MISMATCH\nkcrypt-boot: dmesg")
    found = linux_module.check(arch, vectors, vectors=2)
    assert found == ["AF_ALG xts-sm4-kcrypt dec 17 bytes: MISMATCH"]
    assert "1 AF_ALG results for 2 vectors" in linux_module.check(
        arch, vectors.replace("kcrypt-boot: af_alg xts-sm4-kcrypt enc 17 bytes: ok\n", ""), vectors=2)[0]


def test_reference_vectors_are_the_reference_s():
    """The in-guest vectors' expected outputs: XTS's first (16 bytes) against
    the reference directly, and every mode and length present, both ways."""
    from gen.kernels import modes_reference as ref

    lines = linux_module.reference_vectors()
    assert len(lines) == 2 * sum(len(v) for v in linux_module.VECTOR_LENGTHS.values())
    assert {l.split("-")[0] for l in lines} == set(linux_module.VECTOR_LENGTHS)
    driver, direction, key, iv, given, wanted = next(l for l in lines if l.startswith("xts-")).split()
    key, iv, given, wanted = (bytes.fromhex(x) for x in (key, iv, given, wanted))
    assert wanted == ref.xts_encrypt(ref.sm4(key[:16]), ref.sm4(key[16:]), iv, given)
