"""harness/linux_module.py's reading of a boot log (the boot itself is the
linux-boot-check stage of `make test`): what passes, and each way a log
fails."""

import importlib.util

from conftest import ROOT

_spec = importlib.util.spec_from_file_location("linux_module", ROOT / "harness" / "linux_module.py")
linux_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(linux_module)


def entry(name, driver, selftest="passed"):
    return f"name         : {name}\ndriver       : {driver}\nmodule       : kcrypt_sm4\nselftest     : {selftest}\n"


def boot_log(selftest="passed", dmesg="", loaded=True, finished=True):
    crypto = "".join(entry(f"{p}{m}(sm4)", f"{p}{m}-sm4-kcrypt", selftest) + entry(f"__{m}(sm4)", f"cryptd(__{m}-sm4-kcrypt)")
                     for m in linux_module.DRIVERS for p in ("", "__"))
    return ("kcrypt-boot: guest CPU flags: aes avx2\n"
            f"kcrypt-boot: insmod kcrypt_sm4: {0 if loaded else 1}\n"
            "kcrypt-boot: /proc/crypto\n" + crypto +
            "kcrypt-boot: tcrypt mode=191\nkcrypt-boot: tcrypt returned 11\nkcrypt-boot: dmesg\n"
            "[    1.8] kcrypt_sm4: kernel wordslice_avx2_aesni (64 blocks a pass)\n" + dmesg +
            (linux_module.END + "\n" if finished else ""))


def test_a_clean_boot_passes():
    assert linux_module.check(boot_log()) == []


def test_each_failure_is_reported():
    assert any("selftest not passed" in p for p in linux_module.check(boot_log(selftest="unknown")))
    assert any("did not load" in p for p in linux_module.check(boot_log(loaded=False)))
    assert any("did not finish" in p for p in linux_module.check(boot_log(finished=False)))
    failed = linux_module.check(boot_log(dmesg="[ 2.0] tcrypt: one or more tests failed!\n"))
    assert any("tests failed" in p for p in failed)
    warned = linux_module.check(boot_log(dmesg="[ 2.0] WARNING: CPU: 0 PID: 1 at arch/x86/kernel/fpu/core.c:1\n"))
    assert any("WARNING" in p for p in warned)
    log = boot_log().replace("driver       : ctr-sm4-kcrypt\n", "driver       : ctr-sm4-other\n")
    assert "ctr-sm4-kcrypt is not in /proc/crypto" in linux_module.check(log)
