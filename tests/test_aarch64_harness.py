"""The harness cross-built for AArch64 (`make -C harness/c CC=aarch64-linux-gnu-gcc`:
statically linked, no peer libraries, no SIMDe builds) and its kcrypt run under
qemu-user, as `make verify-aarch64` runs verify:

* --list-impls: on qemu's "max" CPU every AArch64 implementation the library
  builds (gen.backends.implementations: each kernel the backend lists and its
  assembly twin) is native, beside the scalar reference, and
  nothing else is listed (no x86 target, no emulated build); on Neoverse N1 and
  Cortex-A53 exactly the kernels whose target needs a feature the CPU lacks
  (SM4, SHA3) are unavailable, and the default choice still gives the right
  answer there;
* SM4, ZUC (EEA3 and the MACs) and uBlock through kcrypt on every kernel: the
  official vectors, and random messages against the x86-64 build's kcrypt
  (conftest.py's harness_build) and back;
* the build without peers or SIMDe builds says so: --emulated is refused.

The AArch64 build goes to $KC_AARCH64_BUILD_DIR, by default <KC_BUILD_DIR>/aarch64
(<repo>/build/aarch64, where `make verify-aarch64` puts it), once per session.
"""

import json
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, VECTORS
from gen.backends import SIMD_TARGETS, aarch64, implementations
from gen.backends.arch import AARCH64
from test_kcrypt_cli import load_vectors, load_zuc_vectors, py_crypt, zuc_vector_ivs

CROSS_CC = "aarch64-linux-gnu-gcc"
QEMU = ["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu"]
# The features each qemu CPU model has (kc_cpu's names): "max" has every one.
CPU_FEATURES = {
    "max": {"asimd", "arm_aes", "arm_pmull", "arm_sha3", "arm_sm4"},
    "neoverse-n1": {"asimd", "arm_aes", "arm_pmull"},
    "cortex-a53": {"asimd", "arm_aes", "arm_pmull"},
}
# kcrypt's cipher names for the library's ciphers.
CIPHER_NAMES = {"sm4": ("sm4",), "zuc": ("zuc128", "zuc256", "zuc_nea6"),
                "ublock": ("ublock128_128", "ublock128_256", "ublock256_256")}
UBLOCK_BYTES = {"ublock128_128": (16, 16), "ublock128_256": (16, 32), "ublock256_256": (32, 32)}  # block, key


@pytest.fixture(scope="session")
def aarch64_build():
    """The harness built for AArch64 by its own Makefile, once per session."""
    for tool in (CROSS_CC, QEMU[0]):
        assert shutil.which(tool), f"{tool} is not installed (make deps installs it)"
    default = Path(os.environ.get("KC_BUILD_DIR", ROOT / "build")) / "aarch64"
    out = Path(os.environ.get("KC_AARCH64_BUILD_DIR", default)).resolve()
    cmd = ["make", "-C", str(ROOT / "harness" / "c"), f"BUILD={out}", f"CC={CROSS_CC}"]
    if os.environ.get("KC_GENERATED"):
        cmd.append(f"GENERATED={Path(os.environ['KC_GENERATED']).resolve()}")
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.fail(f"building the AArch64 harness failed:\n$ {' '.join(cmd)}\n"
                    f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return out


def kcrypt(build, args, data=b"", cpu="max"):
    """kcrypt under qemu: the CompletedProcess (bytes)."""
    env = {k: v for k, v in os.environ.items() if k != "KC_DISABLE_TARGETS"}
    return subprocess.run([*QEMU, "-cpu", cpu, str(build / "kcrypt"), *map(str, args)], input=data,
                          capture_output=True, env=env, timeout=300)


def ok(proc):
    """stdout of a kcrypt run that must succeed quietly."""
    assert proc.returncode == 0 and proc.stderr == b"", (proc.args, proc.stderr.decode())
    return proc.stdout


def list_impls(build, cpu):
    """--list-impls as {(cipher, strategy, target): status}."""
    rows = [line.split() for line in ok(kcrypt(build, ["--list-impls"], cpu=cpu)).decode().splitlines()
            if not line.startswith("dispatch ")]  # dispatch's defaults: tests/test_dispatch.py
    assert rows and all(len(r) == 4 for r in rows), rows
    table = {tuple(r[:3]): r[3] for r in rows}
    assert len(table) == len(rows), "an implementation is listed twice"
    return table


def expected_impls():
    """(cipher, strategy, target) of every AArch64 implementation (kernels and
    their assembly twins) and every reference."""
    return {(name, strategy, target)
            for cipher in aarch64.KERNELS
            for name in CIPHER_NAMES[cipher]
            for strategy, target in (*implementations(cipher), ("reference", "scalar"))
            if target == "scalar" or SIMD_TARGETS[target].arch == AARCH64}


def target_features():
    return {t.name: set(t.cpu_features) for t in SIMD_TARGETS.values() if t.arch == AARCH64} | {"scalar": set()}


def impl_flags(cipher, build, cpu="max"):
    """kcrypt -s/-t options for every native implementation of `cipher` on `cpu`,
    and [] (the default choice)."""
    table = list_impls(build, cpu)
    flags = [["-s", s, "-t", t] for (c, s, t), status in sorted(table.items())
             if c == cipher and status == "native"]
    assert flags, cipher
    return [[], *flags]


@pytest.fixture(scope="session")
def x86_kcrypt(harness_build):
    return harness_build / "kcrypt"


def x86(exe, args, data):
    proc = subprocess.run([str(exe), *map(str, args)], input=data, capture_output=True, timeout=120)
    return ok(proc)


# --------------------------------------------------------------------------
# What runs where
# --------------------------------------------------------------------------

def test_every_kernel_is_native_on_max(aarch64_build):
    table = list_impls(aarch64_build, "max")
    assert set(table) == expected_impls()
    assert set(table.values()) == {"native"}


@pytest.mark.parametrize("cpu", ["neoverse-n1", "cortex-a53"])
def test_dispatch_follows_the_cpus_features(aarch64_build, cpu):
    """Unavailable exactly where the target needs a feature the CPU lacks (SM4E
    and EOR3/BCAX on these two); the default choice is then a kernel that runs."""
    table = list_impls(aarch64_build, cpu)
    needs = target_features()
    assert set(table) == expected_impls()
    for (cipher, strategy, target), status in table.items():
        want = "native" if needs[target] <= CPU_FEATURES[cpu] else "unavailable"
        assert status == want, (cipher, strategy, target)
    assert "unavailable" in table.values()  # else this CPU would show nothing about dispatch
    v = next(v for mode, v in load_vectors() if mode == "ctr")
    got = ok(kcrypt(aarch64_build, ["sm4", "ctr", "-e", "-k", v["key"], "-i", v["iv"]],
                    bytes.fromhex(v["plaintext"]), cpu=cpu))
    assert got.hex() == v["ciphertext"]


def test_no_emulated_builds(aarch64_build):
    """libkcrypt_emulated.a is x86-64 only: --emulated finds nothing to run."""
    proc = kcrypt(aarch64_build, ["sm4", "ecb", "-e", "-k", "00" * 16, "-t", "neon_aes", "--emulated"],
                  bytes(16))
    assert proc.returncode == 2 and proc.stdout == b""
    assert b"emulated" in proc.stderr


# --------------------------------------------------------------------------
# SM4
# --------------------------------------------------------------------------

def test_sm4_official_vectors_every_kernel(aarch64_build):
    """Every mode's vectors (not the 1,000,000-fold one: verify runs that),
    encrypting and decrypting, on every kernel and the default choice."""
    checked = 0
    for flags in impl_flags("sm4", aarch64_build):
        for mode, v in load_vectors():
            if v.get("iterations", 1) != 1:
                continue
            iv = ["-i", v["iv"]] if "iv" in v else []
            pt, ct = bytes.fromhex(v["plaintext"]), bytes.fromhex(v["ciphertext"])
            assert ok(kcrypt(aarch64_build, ["sm4", mode, "-e", "-k", v["key"], *iv, *flags], pt)) == ct
            assert ok(kcrypt(aarch64_build, ["sm4", mode, "-d", "-k", v["key"], *iv, *flags], ct)) == pt
            checked += 1
    assert checked >= 3 * 5


def test_sm4_ctr_round_trip_against_x86(aarch64_build, x86_kcrypt):
    """A message of many batches and a partial block, its counter near a carry:
    each kernel gives what the x86-64 build and the Python model give, and
    decrypting gives the message back."""
    rng = random.Random(30)
    key, iv = rng.randbytes(16).hex(), "00112233445566778899aabbfffffff0"
    data = rng.randbytes(64 * 16 + 5)
    want = x86(x86_kcrypt, ["sm4", "ctr", "-e", "-k", key, "-i", iv], data)
    assert want == py_crypt("ctr", True, key, iv, data)
    for flags in impl_flags("sm4", aarch64_build):
        ct = ok(kcrypt(aarch64_build, ["sm4", "ctr", "-e", "-k", key, "-i", iv, *flags], data))
        assert ct == want, flags
        assert ok(kcrypt(aarch64_build, ["sm4", "ctr", "-d", "-k", key, "-i", iv, *flags], ct)) == data


def test_sm4_cbc_decrypt_against_x86(aarch64_build, x86_kcrypt):
    """CBC decryption is the kernels' parallel path (encryption is serial)."""
    rng = random.Random(31)
    key, iv = rng.randbytes(16).hex(), rng.randbytes(16).hex()
    data = rng.randbytes(37 * 16)
    want = x86(x86_kcrypt, ["sm4", "cbc", "-d", "-k", key, "-i", iv], data)
    for flags in impl_flags("sm4", aarch64_build):
        assert ok(kcrypt(aarch64_build, ["sm4", "cbc", "-d", "-k", key, "-i", iv, *flags], data)) == want, flags


# --------------------------------------------------------------------------
# ZUC
# --------------------------------------------------------------------------

@pytest.mark.parametrize("cipher", ["zuc128", "zuc256"])
def test_zuc_vectors_every_kernel(aarch64_build, cipher):
    """Keystream vectors as EEA3 of zeros (every IV form), MAC vectors with
    every tag length, both MAC methods (PMULL and the portable fold)."""
    doc = load_zuc_vectors()
    checked = 0
    for flags in impl_flags(cipher, aarch64_build):
        for v in doc[f"{cipher}_keystream"]:
            want = bytes.fromhex("".join(v["keystream"]))
            for iv in zuc_vector_ivs(v):
                got = ok(kcrypt(aarch64_build, [cipher, "enc", "-k", v["key"], "-i", iv, *flags], bytes(len(want))))
                assert got == want, (v["source"], flags)
                checked += 1
        for v in doc[f"{cipher}_mac"]:
            for tag in (32, 64, 128):
                if f"tag{tag}" not in v:
                    continue
                for method in ("clmul", "compare"):
                    args = [cipher, "mac", "-k", v["key"], "-i", v.get("iv", v.get("iv25")), "--bits", v["bits"],
                            "--tag", tag, "--mac-method", method, *flags]
                    got = ok(kcrypt(aarch64_build, args, bytes.fromhex(v["message"])))
                    assert got.decode().strip() == v[f"tag{tag}"], (v["source"], tag, method, flags)
                    checked += 1
    assert checked >= 2 * 4


@pytest.mark.parametrize("cipher,tag", [("zuc128", 32), ("zuc256", 128)])
def test_zuc_against_x86(aarch64_build, x86_kcrypt, cipher, tag):
    """EEA3 of an odd bit length over several keystream blocks, and the
    streaming MAC of the whole message, as the x86-64 build computes them."""
    rng = random.Random(32)
    key = rng.randbytes(16 if cipher == "zuc128" else 32).hex()
    iv = rng.randbytes(16).hex() if cipher == "zuc128" else rng.randbytes(16).hex() + "".join(
        f"{rng.randrange(64):02x}" for _ in range(9))
    data = rng.randbytes(1000)
    enc = [cipher, "enc", "-k", key, "-i", iv, "--bits", 8 * 999 + 3]
    mac = [cipher, "mac", "-k", key, "-i", iv, "--tag", tag]
    want_enc, want_mac = x86(x86_kcrypt, enc, data), x86(x86_kcrypt, mac, data)
    assert len(want_enc) == 1000 and len(want_mac.strip()) == tag // 4
    for flags in impl_flags(cipher, aarch64_build):
        assert ok(kcrypt(aarch64_build, [*enc, *flags], data)) == want_enc, flags
        assert ok(kcrypt(aarch64_build, [*mac, *flags], data)) == want_mac, flags


# --------------------------------------------------------------------------
# uBlock
# --------------------------------------------------------------------------

def ublock_vectors():
    return json.loads((VECTORS / "ublock.json").read_text())["vectors"]


def test_ublock_vectors_every_kernel(aarch64_build):
    """One block each way, every variant, every kernel (the iterated vectors:
    verify)."""
    checked = set()
    for v in ublock_vectors():
        if "iterations" in v:
            continue
        cipher = "ublock" + v["variant"].replace("/", "_")
        pt, ct = bytes.fromhex(v["plaintext"]), bytes.fromhex(v["ciphertext"])
        for flags in impl_flags(cipher, aarch64_build):
            assert ok(kcrypt(aarch64_build, [cipher, "ecb", "-e", "-k", v["key"], *flags], pt)) == ct, flags
            assert ok(kcrypt(aarch64_build, [cipher, "ecb", "-d", "-k", v["key"], *flags], ct)) == pt, flags
        checked.add(cipher)
    assert checked == set(UBLOCK_BYTES)


@pytest.mark.parametrize("cipher", list(UBLOCK_BYTES))
def test_ublock_modes_against_x86(aarch64_build, x86_kcrypt, cipher):
    """CTR (partial final block) and CBC decryption of many blocks, as the
    x86-64 build computes them, and CTR back."""
    block, key_bytes = UBLOCK_BYTES[cipher]
    rng = random.Random(33)
    key, iv = rng.randbytes(key_bytes).hex(), rng.randbytes(block).hex()
    data = rng.randbytes(40 * block)
    for mode, direction, message in (("ctr", "-e", data + b"xyz"), ("cbc", "-d", data)):
        args = [cipher, mode, direction, "-k", key, "-i", iv]
        want = x86(x86_kcrypt, args, message)
        for flags in impl_flags(cipher, aarch64_build):
            got = ok(kcrypt(aarch64_build, [*args, *flags], message))
            assert got == want, (mode, flags)
            if mode == "ctr":
                back = ok(kcrypt(aarch64_build, [cipher, "ctr", "-d", "-k", key, "-i", iv, *flags], got))
                assert back == message, flags
