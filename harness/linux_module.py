#!/usr/bin/env python3
"""generated/linux/x86_64/ as a kernel module, built against Debian's headers
and booted: Debian's own kernel under QEMU (TCG; KVM does not work on these
machines) with a busybox initramfs that loads the module, shows /proc/crypto
and runs tcrypt's SM4 tests (docs/consumers.md).

  python3 harness/linux_module.py [--work build/linux-boot] [--headers DIR]
      [--kernel /boot/vmlinuz-VERSION] [--timeout 300]

Passes when the module builds with no warning, loads, every driver of ours
shows "selftest : passed" in /proc/crypto, tcrypt mode=191 (ecb, cbc, cfb and
ctr(sm4) against testmgr's vectors) reports no failure, and the kernel log has
no warning, oops or BUG.  The whole serial console is kept in WORK/boot.log.
The guest is QEMU's "max" CPU (QEMU 7.2: SSSE3, AES-NI, PCLMULQDQ, AVX2 and
VAES, but no VPCLMULQDQ, GFNI or AVX-512), so the module takes
wordslice_avx2_aesni there (avx2_vaes also needs VPCLMULQDQ); the log says
which, and the guest's flags."""

import argparse
import glob
import gzip
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
GLUE = os.path.join(REPO, "generated", "linux", "x86_64")
ASM = os.path.join(REPO, "generated", "asm", "linux", "x86_64")
DRIVERS = ("ecb", "cbc", "cfb", "ctr")
# The modules of Debian's kernel ours needs loaded first (crypto_simd's wrapper
# and cryptd under it), and tcrypt.
DEBIAN_MODULES = ("kernel/crypto/cryptd.ko", "kernel/crypto/crypto_simd.ko", "kernel/crypto/tcrypt.ko")
END = "kcrypt-boot: done"

INIT = """#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
echo "kcrypt-boot: guest CPU flags: $(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\\n' | grep -x -E 'ssse3|aes|pclmulqdq|avx2|vaes|vpclmulqdq|gfni|avx512f|avx512vl' | tr '\\n' ' ')"
insmod /cryptd.ko && insmod /crypto_simd.ko && insmod /kcrypt_sm4.ko
echo "kcrypt-boot: insmod kcrypt_sm4: $?"
echo "kcrypt-boot: /proc/crypto"
awk '/^name/ {{ keep = 0 }} /^name *: *(__)?(ecb|cbc|cfb|ctr)\\(sm4\\)/ {{ keep = 1 }} keep' /proc/crypto
echo "kcrypt-boot: tcrypt mode=191"
insmod /tcrypt.ko mode=191
echo "kcrypt-boot: tcrypt returned $? (-EAGAIN, 'Resource temporarily unavailable', is its success)"
echo "kcrypt-boot: dmesg"
dmesg
echo "{end}"
poweroff -f
"""


def headers_dir(given):
    if given:
        return given
    found = sorted(glob.glob("/usr/src/linux-headers-*-amd64"))
    if not found:
        sys.exit("linux_module: no /usr/src/linux-headers-*-amd64: make deps installs linux-headers-amd64")
    return found[-1]


def build_module(work, headers):
    """The module from the generated glue and assembly; returns its path."""
    src = os.path.join(work, "module")
    shutil.rmtree(src, ignore_errors=True)
    os.makedirs(src)
    kbuild = open(os.path.join(GLUE, "Kbuild")).read()
    shutil.copy(os.path.join(GLUE, "Kbuild"), src)
    shutil.copy(os.path.join(GLUE, "kcrypt_sm4_glue.c"), src)
    objects = re.search(r"^kcrypt_sm4-y := (.*)$", kbuild, re.M).group(1).split()
    for obj in objects[1:]:
        shutil.copy(os.path.join(ASM, obj[:-2] + ".S"), src)
    proc = subprocess.run(["make", "-C", headers, f"M={src}", "modules"], capture_output=True, text=True)
    output = proc.stdout + proc.stderr
    warnings = [line for line in output.splitlines() if "warning" in line.lower() and "BTF" not in line
                and "Module.symvers" not in line]
    if proc.returncode or warnings:
        sys.exit(f"linux_module: FAIL: the module build {'failed' if proc.returncode else 'warned'}:\n{output[-4000:]}")
    print(f"linux_module: built {os.path.join(src, 'kcrypt_sm4.ko')} against {headers}")
    return os.path.join(src, "kcrypt_sm4.ko")


def initramfs(work, module, version):
    """A gzipped cpio (newc) of busybox, the init script and the modules."""
    path = os.path.join(work, "initramfs.cpio.gz")
    root = os.path.join(work, "root")
    shutil.rmtree(root, ignore_errors=True)
    for d in ("bin", "proc", "sys", "dev"):
        os.makedirs(os.path.join(root, d))
    shutil.copy("/bin/busybox", os.path.join(root, "bin", "busybox"))
    with open(os.path.join(root, "init"), "w") as f:
        f.write(INIT.format(end=END))
    os.chmod(os.path.join(root, "init"), 0o755)
    shutil.copy(module, root)
    for rel in DEBIAN_MODULES:
        found = os.path.join("/lib/modules", version, rel)
        if not os.path.exists(found):
            sys.exit(f"linux_module: {found} missing: make deps installs linux-image-amd64")
        shutil.copy(found, root)
    listing = subprocess.run(["find", ".", "-mindepth", "1"], cwd=root, capture_output=True, text=True,
                             check=True).stdout
    cpio = subprocess.run(["cpio", "-o", "-H", "newc", "--quiet"], cwd=root, input=listing.encode(),
                          capture_output=True, check=True).stdout
    with gzip.open(path, "wb") as f:
        f.write(cpio)
    return path


def boot(work, kernel, initrd, timeout):
    cmd = ["qemu-system-x86_64", "-cpu", "max", "-m", "1024", "-smp", "1", "-nographic", "-no-reboot",
           "-kernel", kernel, "-initrd", initrd, "-append", "console=ttyS0 panic=-1 oops=panic loglevel=6"]
    print(f"linux_module: booting {kernel} under QEMU (TCG, -cpu max)", flush=True)
    t0 = time.time()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    log = proc.stdout + proc.stderr
    with open(os.path.join(work, "boot.log"), "w") as f:
        f.write(log)
    print(f"linux_module: QEMU exited after {time.time() - t0:.0f} s; the console is in {work}/boot.log")
    return log


def check(log):
    """The failures the boot log shows, as lines."""
    problems = []
    if END not in log:
        problems.append("the init script did not finish")
    if "kcrypt-boot: insmod kcrypt_sm4: 0" not in log:
        problems.append("kcrypt_sm4 did not load")
    crypto = log.split("kcrypt-boot: /proc/crypto", 1)[-1].split("kcrypt-boot: tcrypt", 1)[0]
    for mode in DRIVERS:
        for driver in (f"{mode}-sm4-kcrypt", f"__{mode}-sm4-kcrypt"):
            block = re.search(rf"^driver\s*:\s*{re.escape(driver)}\s*$(.*?)(?=^name|\Z)", crypto, re.M | re.S)
            if not block:
                problems.append(f"{driver} is not in /proc/crypto")
            elif not re.search(r"^selftest\s*:\s*passed", block.group(1), re.M):
                problems.append(f"{driver}: selftest not passed")
    dmesg = log.split("kcrypt-boot: dmesg", 1)[-1]
    for pattern in (r"tcrypt: one or more tests failed", r"alg: .*(failed|error)", r"WARNING:", r"BUG:", r"Oops",
                    r"Call Trace"):
        for line in re.findall(rf"^.*{pattern}.*$", dmesg, re.M):
            problems.append(f"kernel log: {line.strip()}")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", default=os.path.join(REPO, "build", "linux-boot"))
    ap.add_argument("--headers")
    ap.add_argument("--kernel")
    ap.add_argument("--timeout", type=int, default=300)
    args = ap.parse_args()
    work = os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)
    headers = headers_dir(args.headers)
    version = os.path.basename(headers).removeprefix("linux-headers-")
    kernel = args.kernel or f"/boot/vmlinuz-{version}"
    if not os.path.exists(kernel):
        sys.exit(f"linux_module: no {kernel}: make deps installs linux-image-amd64 (the headers' version)")
    module = build_module(work, headers)
    log = boot(work, kernel, initramfs(work, module, version), args.timeout)
    for line in log.splitlines():
        if line.startswith("kcrypt-boot:") or "kcrypt_sm4:" in line or line.startswith(("name", "driver", "selftest")):
            print("  " + line.strip())
    problems = check(log)
    for p in problems:
        print(f"linux_module: FAIL: {p}")
    if problems:
        return 1
    print(f"linux_module: PASS: {', '.join(f'{m}(sm4)' for m in DRIVERS)} selftest passed, tcrypt mode=191 clean")
    return 0


if __name__ == "__main__":
    sys.exit(main())
