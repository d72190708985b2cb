#!/usr/bin/env python3
"""generated/linux/<arch>/ as a kernel module, built and booted under QEMU
(TCG; KVM does not work on these machines) with an initramfs that loads it,
shows /proc/crypto and runs tcrypt's SM4 tests (docs/consumers.md).

  python3 harness/linux_module.py [--arch x86_64|aarch64] [--work DIR]
      [--headers DIR] [--kernel FILE] [--timeout 300]

x86_64: Debian's own kernel (linux-image-amd64) and its modules cryptd,
  crypto_simd and tcrypt, the module built against linux-headers-amd64.
aarch64: Debian has no arm64 image or headers for this machine, so the kernel
  is built from Debian's linux-source-6.1 (tinyconfig and what the test needs:
  modules, the crypto manager with its self-tests, tcrypt as a module, a
  serial console; about 2 minutes, cached under WORK/kernel), the module
  against that tree.
The initramfs holds harness/linux_init.c built static for the guest (no shell:
it loads the modules listed in /modules, prints /proc/crypto's SM4 entries
and the kernel log, and powers off).  Passes when the module builds with no
warning and loads, every driver of ours shows "selftest : passed", the AF_ALG
vectors come back as the Python reference says, tcrypt modes 191 and 55 (ecb,
cbc, cfb, ctr and gcm(sm4) against testmgr's vectors) return -EAGAIN (their
success) with no failure logged, and the kernel log has no warning, oops or
BUG.  The console is kept in WORK/boot.log.  The guests are
QEMU's "max" CPUs: on x86-64 (QEMU 7.2) SSSE3, AES-NI, PCLMULQDQ, AVX2 and VAES
but no VPCLMULQDQ, GFNI or AVX-512; on AArch64 AES, PMULL, SHA3 and SM4.  The
log says which kernel the module took."""

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
MODES = ("ecb", "cbc", "cfb", "ctr", "xts", "gcm")
# Message lengths the in-guest AF_ALG vectors take per mode: whole blocks for
# ECB and CBC; for the others partial blocks too, past a 64-block batch and a
# page (XTS: at least a block, with ciphertext stealing).
VECTOR_LENGTHS = {"ecb": (16, 1024, 4096), "cbc": (16, 1040, 4096), "cfb": (1, 17, 1024, 4099),
                  "ctr": (1, 31, 1024, 4099), "xts": (16, 17, 31, 1024, 1041, 4100)}
END = "kcrypt-boot: done"
# tcrypt's runs: mode 191 tests ecb, cbc, cfb and ctr(sm4) against testmgr's
# vectors, mode 55 gcm(sm4) (xts(sm4) has none in Linux 6.1: the AF_ALG vectors).
TCRYPT = ("tcrypt.ko mode=191", "tcrypt.ko mode=55")


class Arch:
    def __init__(self, name, cc, make, qemu, console, debian_modules, simd_wrapper):
        self.name, self.cc, self.make, self.qemu, self.console = name, cc, make, qemu, console
        self.debian_modules = debian_modules  # loaded before ours, from the kernel's own modules
        self.simd_wrapper = simd_wrapper      # x86: internal "__" drivers behind crypto_simd's


ARCHES = {
    "x86_64": Arch("x86_64", "gcc", (), ["qemu-system-x86_64", "-cpu", "max"], "ttyS0",
                   ("kernel/crypto/cryptd.ko", "kernel/crypto/crypto_simd.ko", "kernel/crypto/af_alg.ko",
                    "kernel/crypto/algif_skcipher.ko"), True),
    "aarch64": Arch("aarch64", "aarch64-linux-gnu-gcc", ("ARCH=arm64", "CROSS_COMPILE=aarch64-linux-gnu-"),
                    ["qemu-system-aarch64", "-M", "virt", "-cpu", "max"], "ttyAMA0", (), False),
}

# The arm64 kernel's configuration on top of tinyconfig.
ARM64_CONFIG = """CONFIG_PRINTK=y
CONFIG_TTY=y
CONFIG_SERIAL_AMBA_PL011=y
CONFIG_SERIAL_AMBA_PL011_CONSOLE=y
CONFIG_BLK_DEV_INITRD=y
CONFIG_RD_GZIP=y
CONFIG_BINFMT_ELF=y
CONFIG_PROC_FS=y
CONFIG_SYSFS=y
CONFIG_MODULES=y
CONFIG_MODULE_UNLOAD=y
CONFIG_KERNEL_MODE_NEON=y
CONFIG_CRYPTO=y
CONFIG_CRYPTO_MANAGER=y
# CONFIG_CRYPTO_MANAGER_DISABLE_TESTS is not set
CONFIG_CRYPTO_SKCIPHER=y
CONFIG_CRYPTO_AEAD=y
CONFIG_CRYPTO_TEST=m
CONFIG_NET=y
CONFIG_CRYPTO_USER_API_SKCIPHER=y
CONFIG_MULTIUSER=y
CONFIG_POSIX_TIMERS=y
CONFIG_FUTEX=y
"""


def run(cmd, **kw):
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if proc.returncode:
        sys.exit(f"linux_module: {' '.join(cmd)} failed:\n{(proc.stdout + proc.stderr)[-4000:]}")
    return proc.stdout + proc.stderr


def x86_tree(given):
    """Debian's headers (the tree the module builds against) and the kernel's version."""
    if given:
        return given, os.path.basename(given).removeprefix("linux-headers-")
    found = sorted(glob.glob("/usr/src/linux-headers-*-amd64"))
    if not found:
        sys.exit("linux_module: no /usr/src/linux-headers-*-amd64: make deps installs linux-headers-amd64")
    return found[-1], os.path.basename(found[-1]).removeprefix("linux-headers-")


def arm64_tree(cache):
    """An arm64 kernel built from Debian's linux-source (see ARM64_CONFIG), made
    once under `cache`: its build folder, which holds the Image and tcrypt.ko."""
    tarballs = sorted(glob.glob("/usr/src/linux-source-*.tar.xz"))
    if not tarballs:
        sys.exit("linux_module: no /usr/src/linux-source-*.tar.xz: make deps installs linux-source-6.1")
    out, stamp = os.path.join(cache, "out"), os.path.join(cache, "built")
    key = tarballs[-1] + "\n" + ARM64_CONFIG
    if os.path.exists(stamp) and open(stamp).read() == key:
        return out
    shutil.rmtree(cache, ignore_errors=True)
    os.makedirs(out)
    print(f"linux_module: building an arm64 kernel from {tarballs[-1]} (tinyconfig and the test's options)",
          flush=True)
    run(["tar", "xf", tarballs[-1], "-C", cache])
    source = glob.glob(os.path.join(cache, "linux-source-*"))[0]
    make = ["make", "-s", "-C", source, *ARCHES["aarch64"].make, f"O={out}"]
    run([*make, "tinyconfig"])
    with open(os.path.join(cache, "kcrypt.config"), "w") as f:
        f.write(ARM64_CONFIG)
    run([os.path.join(source, "scripts", "kconfig", "merge_config.sh"), "-m", ".config",
         os.path.join(cache, "kcrypt.config")], cwd=out)
    run([*make, "olddefconfig"])
    run([*make, f"-j{os.cpu_count() or 2}", "Image", "modules"])
    with open(stamp, "w") as f:
        f.write(key)
    return out


def reference_vectors(seed=45):
    """Lines of /vectors: each driver of ours, both directions, VECTOR_LENGTHS,
    random keys, IVs and messages, the expected output from the Python
    reference (gen/kernels/modes_reference.py's SM4 and XTS, CBC, CFB and CTR
    written out here).  Linux 6.1's testmgr has no xts(sm4) vectors: these
    are that driver's check."""
    import random

    from gen.kernels import modes_reference as ref

    rng = random.Random(seed)
    xor = ref.xor

    def blocks(data):
        return [data[i:i + 16] for i in range(0, len(data), 16)]

    def ctr(cipher, iv, data):
        counter, out = int.from_bytes(iv, "big"), b""
        for b in blocks(data):
            out += xor(b, cipher.encrypt(counter.to_bytes(16, "big"))[:len(b)])
            counter = (counter + 1) % (1 << 128)
        return out

    def cfb(cipher, iv, data, decrypt):
        chain, out = iv, b""
        for b in blocks(data):
            piece = xor(b, cipher.encrypt(chain)[:len(b)])
            out += piece
            chain = b if decrypt else piece
        return out

    def cbc(cipher, iv, data, decrypt):
        chain, out = iv, b""
        for b in blocks(data):
            piece = xor(cipher.decrypt(b), chain) if decrypt else cipher.encrypt(xor(b, chain))
            out += piece
            chain = b if decrypt else piece
        return out

    lines = []
    for mode in VECTOR_LENGTHS:
        for length in VECTOR_LENGTHS[mode]:
            key = rng.randbytes(32 if mode == "xts" else 16)
            iv = rng.randbytes(16) if mode != "ecb" else b""
            plain = rng.randbytes(length)
            cipher = ref.sm4(key[:16])
            if mode == "ecb":
                encrypted = b"".join(cipher.encrypt(b) for b in blocks(plain))
            elif mode == "cbc":
                encrypted = cbc(cipher, iv, plain, False)
            elif mode == "cfb":
                encrypted = cfb(cipher, iv, plain, False)
            elif mode == "ctr":
                encrypted = ctr(cipher, iv, plain)
            else:
                encrypted = ref.xts_encrypt(cipher, ref.sm4(key[16:]), iv, plain)
            for direction, given, wanted in (("enc", plain, encrypted), ("dec", encrypted, plain)):
                lines.append(f"{mode}-sm4-kcrypt {direction} {key.hex()} {iv.hex() or '-'} {given.hex()} {wanted.hex()}")
    return lines


def build_module(arch, work, tree):
    """The module from the generated glue and assembly; returns its path."""
    glue = os.path.join(REPO, "generated", "linux", arch.name)
    src = os.path.join(work, "module")
    shutil.rmtree(src, ignore_errors=True)
    os.makedirs(src)
    shutil.copy(os.path.join(glue, "Kbuild"), src)
    shutil.copy(os.path.join(glue, "kcrypt_sm4_glue.c"), src)
    kbuild = open(os.path.join(glue, "Kbuild")).read()
    for obj in re.search(r"^kcrypt_sm4-y := (.*)$", kbuild, re.M).group(1).split()[1:]:
        shutil.copy(os.path.join(REPO, "generated", "asm", "linux", arch.name, obj[:-2] + ".S"), src)
    proc = subprocess.run(["make", "-C", tree, *arch.make, f"M={src}", "modules"], capture_output=True, text=True)
    output = proc.stdout + proc.stderr
    warnings = [line for line in output.splitlines() if "warning" in line.lower() and "BTF" not in line
                and "Module.symvers" not in line]
    if proc.returncode or warnings:
        sys.exit(f"linux_module: FAIL: the module build {'failed' if proc.returncode else 'warned'}:\n{output[-4000:]}")
    print(f"linux_module: built {os.path.join(src, 'kcrypt_sm4.ko')} against {tree}")
    return os.path.join(src, "kcrypt_sm4.ko")


def initramfs(arch, work, modules, vectors):
    """A gzipped cpio (newc) of the init, `modules` [(path, parameters)], loaded
    in order, and the AF_ALG `vectors` (lines)."""
    root = os.path.join(work, "root")
    shutil.rmtree(root, ignore_errors=True)
    for d in ("proc", "sys", "dev"):
        os.makedirs(os.path.join(root, d))
    run([arch.cc, "-static", "-O2", "-Wall", "-Werror", "-o", os.path.join(root, "init"),
         os.path.join(HERE, "linux_init.c")])
    lines = []
    for path, params in modules:
        if not os.path.exists(path):
            sys.exit(f"linux_module: {path} missing (make deps installs the kernel packages)")
        shutil.copy(path, root)
        lines.append(f"{os.path.basename(path)} {params}".strip())
    with open(os.path.join(root, "modules"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(root, "vectors"), "w") as f:
        f.write("\n".join(vectors) + "\n")
    listing = run(["find", ".", "-mindepth", "1"], cwd=root)
    cpio = subprocess.run(["cpio", "-o", "-H", "newc", "--quiet"], cwd=root, input=listing.encode(),
                          capture_output=True, check=True).stdout
    path = os.path.join(work, "initramfs.cpio.gz")
    with gzip.open(path, "wb") as f:
        f.write(cpio)
    return path


def boot(arch, work, kernel, initrd, timeout):
    cmd = [*arch.qemu, "-m", "1024", "-smp", "1", "-nographic", "-no-reboot", "-kernel", kernel,
           "-initrd", initrd, "-append", f"console={arch.console} panic=-1 oops=panic loglevel=6"]
    print(f"linux_module: booting {kernel} under {' '.join(arch.qemu)} (TCG)", flush=True)
    t0 = time.time()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        log = proc.stdout + proc.stderr
    except subprocess.TimeoutExpired as e:
        log = (e.stdout or b"").decode(errors="replace") + f"\n(QEMU killed after {timeout} s)\n"
    with open(os.path.join(work, "boot.log"), "w") as f:
        f.write(log)
    print(f"linux_module: QEMU done after {time.time() - t0:.0f} s; the console is in {work}/boot.log")
    return log


def drivers(arch):
    """The drivers /proc/crypto must show as ours."""
    names = [f"{m}-sm4-kcrypt" for m in MODES]
    return names + [f"__{n}" for n in names] if arch.simd_wrapper else names


def check(arch, log, vectors=0):
    """The failures the boot log shows, as lines (`vectors`: how many AF_ALG
    vectors the guest was given)."""
    problems = []
    results = re.findall(r"^kcrypt-boot: af_alg (\S+) (\S+) (\d+) bytes: (.*)$", log, re.M)
    if len(results) != vectors:
        problems.append(f"{len(results)} AF_ALG results for {vectors} vectors")
    for driver, direction, length, verdict in results:
        if verdict.strip() != "ok":
            problems.append(f"AF_ALG {driver} {direction} {length} bytes: {verdict.strip()}")
    if END not in log:
        problems.append("the init did not finish")
    if not re.search(r"^kcrypt-boot: insmod kcrypt_sm4\.ko: 0$", log, re.M):
        problems.append("kcrypt_sm4 did not load")
    crypto = log.split("kcrypt-boot: /proc/crypto", 1)[-1].split("kcrypt-boot:", 1)[0]
    for driver in drivers(arch):
        block = re.search(rf"^driver\s*:\s*{re.escape(driver)}\s*$(.*?)(?=^name|\Z)", crypto, re.M | re.S)
        if not block:
            problems.append(f"{driver} is not in /proc/crypto")
        elif not re.search(r"^selftest\s*:\s*passed", block.group(1), re.M):
            problems.append(f"{driver}: selftest not passed")
    for run in TCRYPT:
        if not re.search(rf"^kcrypt-boot: insmod {re.escape(run)}: 11 ", log, re.M):
            problems.append(f"{run} did not return -EAGAIN (11), its success")
    dmesg = log.split("kcrypt-boot: dmesg", 1)[-1]
    for pattern in (r"tcrypt: one or more tests failed", r"alg: .*(failed|error)", r"WARNING:", r"BUG:", r"Oops",
                    r"Call Trace"):
        for line in re.findall(rf"^.*{pattern}.*$", dmesg, re.M):
            problems.append(f"kernel log: {line.strip()}")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", choices=sorted(ARCHES), default="x86_64")
    ap.add_argument("--work", help="default build/linux-boot (x86_64) or build/linux-boot-aarch64")
    ap.add_argument("--headers", help="x86_64: the kernel headers (default Debian's newest -amd64)")
    ap.add_argument("--kernel", help="the kernel image to boot")
    ap.add_argument("--timeout", type=int, default=300)
    args = ap.parse_args()
    arch = ARCHES[args.arch]
    work = os.path.abspath(args.work or os.path.join(REPO, "build", "linux-boot" + (
        "" if arch.name == "x86_64" else "-aarch64")))
    os.makedirs(work, exist_ok=True)
    if arch.name == "x86_64":
        tree, version = x86_tree(args.headers)
        kernel = args.kernel or f"/boot/vmlinuz-{version}"
        modules_dir = os.path.join("/lib/modules", version)
    else:
        tree = arm64_tree(os.path.join(work, "kernel"))
        kernel = args.kernel or os.path.join(tree, "arch", "arm64", "boot", "Image")
        modules_dir = tree
    if not os.path.exists(kernel):
        sys.exit(f"linux_module: no {kernel}: make deps installs linux-image-amd64 (the headers' version)")
    module = build_module(arch, work, tree)
    tcrypt = os.path.join(modules_dir, "kernel/crypto/tcrypt.ko" if arch.name == "x86_64" else "crypto/tcrypt.ko")
    modules = [(os.path.join(modules_dir, m), "") for m in arch.debian_modules]
    modules += [(module, "")] + [(tcrypt, run.split(" ", 1)[1]) for run in TCRYPT]
    vectors = reference_vectors()
    log = boot(arch, work, kernel, initramfs(arch, work, modules, vectors), args.timeout)
    for line in log.splitlines():
        if (line.startswith("kcrypt-boot:") and "af_alg" not in line) or "kcrypt_sm4:" in line or \
                line.startswith(("driver", "selftest")):
            print("  " + line.strip()[:200])
    problems = check(arch, log, len(vectors))
    for p in problems:
        print(f"linux_module: FAIL: {p}")
    if problems:
        return 1
    print(f"linux_module: PASS ({arch.name}): {len(drivers(arch))} drivers of ours selftest passed, "
          f"{len(vectors)} AF_ALG vectors against the Python reference, tcrypt modes 191 and 55 clean")
    return 0


if __name__ == "__main__":
    sys.exit(main())
