"""The `kcrypt` command-line tool (harness/c/kcrypt*.c), end to end.

conftest.py's harness_build builds the harness once per session (`make -C harness/c`,
which also builds generated/), then every test runs build/kcrypt as a subprocess:

* encrypt/decrypt of every mode against an oracle: the `openssl enc -sm4-<mode> -nopad`
  command when this OpenSSL has SM4, else the Python reference model
  (gen.kernels.sm4_reference) wrapped in ECB/CBC/CTR here;
* the official vectors (tests/vectors/sm4.json) through the CLI, on every
  implementation this machine can run (native, and emulated with --emulated);
* each error case: non-zero exit, nothing on stdout, a message on stderr;
* the shape of --list-targets / --list-impls;
* ZUC (zuc128 / zuc256 enc and mac): the vectors of tests/vectors/zuc.json and
  the Python reference model (gen.kernels.zuc_reference) through the CLI on every
  implementation, --bits, --tag, --mac-method, and the error cases;
* streaming (kcrypt reads stdin in 1 MiB pieces and writes as it goes), for every
  cipher: inputs either side of a piece against the whole-input oracle (openssl
  for SM4; for uBlock and ZUC the one-shot library call, through the helper
  harness/stream_check.py builds), empty input, pipes that deliver a few bytes
  at a time, ECB/CBC input ending in a partial block after whole pieces (the
  message counts what was written), --bits across pieces, write errors (a full
  disk, a reader that goes away), a read error, and flat memory on 96 MiB.

Environment: KC_BUILD_DIR (default <repo>/build) and KC_GENERATED (default: the
repo's generated/) redirect the build; KC_VECTORS_DIR overrides the vectors
folder (default <repo>/tests/vectors).
"""

import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # so `gen` imports without an installed package
    sys.path.insert(0, str(REPO))

from gen.kernels import sm4_reference as ref  # noqa: E402
from gen.kernels import zuc_reference as zref  # noqa: E402

KEY = "0123456789abcdeffedcba9876543210"
IV = "00112233445566778899aabbccddeeff"
MODES = ("ecb", "cbc", "ctr")
STATUS = ("native", "emulated", "unavailable")


# --------------------------------------------------------------------------
# Building and running
# --------------------------------------------------------------------------

@pytest.fixture(scope="session")
def kcrypt(harness_build):
    """Path of a freshly built build/kcrypt."""
    exe = harness_build / "kcrypt"
    assert exe.is_file(), f"{exe} missing after the build; run `make build`"
    return exe


def run(exe, args, data=b"", env_extra=None):
    """Runs kcrypt with `args`, feeding `data`; returns the CompletedProcess (bytes)."""
    env = dict(os.environ)
    env.pop("KC_DISABLE_TARGETS", None)
    if env_extra:
        env.update(env_extra)
    return subprocess.run([str(exe), *args], input=data, capture_output=True, env=env, timeout=120)


def crypt(exe, mode, encrypt, key, iv, data, extra=(), env_extra=None):
    """kcrypt output for one operation; fails the test on a non-zero exit."""
    args = ["sm4", mode, "-e" if encrypt else "-d", "-k", key]
    if iv is not None:
        args += ["-i", iv]
    proc = run(exe, [*args, *extra], data, env_extra)
    assert proc.returncode == 0, f"kcrypt {' '.join(args + list(extra))}: {proc.stderr.decode()}"
    assert proc.stderr == b"", proc.stderr.decode()
    return proc.stdout


@pytest.fixture(scope="session")
def impls(kcrypt):
    """Every implementation as (strategy, target, status), from --list-impls sm4."""
    proc = run(kcrypt, ["--list-impls", "sm4"])
    assert proc.returncode == 0, proc.stderr.decode()
    rows = [line.split() for line in proc.stdout.decode().splitlines() if not line.startswith("dispatch ")]
    assert rows and all(len(r) == 4 and r[0] == "sm4" for r in rows), rows
    return [(s, t, st) for _, s, t, st in rows]


def impl_flags(strategy, target, status):
    """kcrypt options selecting one implementation."""
    flags = ["-s", strategy, "-t", target]
    return flags + ["--emulated"] if status == "emulated" else flags


def runnable(impls):
    return [i for i in impls if i[2] != "unavailable"]


# --------------------------------------------------------------------------
# Oracles
# --------------------------------------------------------------------------

def _openssl_has_sm4():
    exe = shutil.which("openssl")
    if not exe:
        return False
    proc = subprocess.run([exe, "enc", "-list"], capture_output=True, text=True)
    names = set(proc.stdout.split())
    return proc.returncode == 0 and {f"-sm4-{m}" for m in MODES} <= names


OPENSSL_SM4 = _openssl_has_sm4()


def py_crypt(mode, encrypt, key_hex, iv_hex, data):
    """ECB/CBC/CTR around the Python reference block cipher (CTR: 128-bit counter)."""
    key = bytes.fromhex(key_hex)
    rk = ref.key_schedule(key)
    rk_dec = rk[::-1]
    blocks = [data[i:i + 16] for i in range(0, len(data), 16)]
    out = bytearray()
    if mode == "ecb":
        for b in blocks:
            out += ref.crypt_block(rk if encrypt else rk_dec, b)
    elif mode == "cbc":
        chain = bytes.fromhex(iv_hex)
        for b in blocks:
            if encrypt:
                chain = ref.crypt_block(rk, bytes(x ^ y for x, y in zip(b, chain)))
                out += chain
            else:
                out += bytes(x ^ y for x, y in zip(ref.crypt_block(rk_dec, b), chain))
                chain = b
    else:
        counter = int.from_bytes(bytes.fromhex(iv_hex), "big")
        for b in blocks:
            stream = ref.crypt_block(rk, counter.to_bytes(16, "big"))
            out += bytes(x ^ y for x, y in zip(b, stream))
            counter = (counter + 1) % (1 << 128)
    return bytes(out)


def openssl_crypt(mode, encrypt, key_hex, iv_hex, data):
    args = ["openssl", "enc", f"-sm4-{mode}", "-nopad", "-e" if encrypt else "-d", "-K", key_hex]
    if mode != "ecb":
        args += ["-iv", iv_hex]
    proc = subprocess.run(args, input=data, capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()
    return proc.stdout


def oracle(mode, encrypt, key_hex, iv_hex, data):
    """The expected output: OpenSSL's CLI when it has SM4, else the Python model."""
    if OPENSSL_SM4:
        return openssl_crypt(mode, encrypt, key_hex, iv_hex, data)
    return py_crypt(mode, encrypt, key_hex, iv_hex, data)


def random_case(seed, mode, length):
    rng = random.Random(seed)
    key = rng.randbytes(16).hex()
    iv = rng.randbytes(16).hex() if mode != "ecb" else None
    return key, iv, rng.randbytes(length)


# --------------------------------------------------------------------------
# Vectors
# --------------------------------------------------------------------------

def load_vectors():
    folder = Path(os.environ.get("KC_VECTORS_DIR", REPO / "tests" / "vectors"))
    path = folder / "sm4.json"
    if not path.is_file():
        pytest.fail(f"{path} not found: restore tests/vectors or set KC_VECTORS_DIR")
    doc = json.loads(path.read_text())
    return [(mode, v) for mode in MODES for v in doc.get(mode, [])]


# --------------------------------------------------------------------------
# Listing
# --------------------------------------------------------------------------

def known_ciphers(kcrypt):
    """The ciphers `kcrypt --help` lists under "ciphers and modes"."""
    text = run(kcrypt, ["--help"]).stdout.decode()
    names = [line.split()[0] for line in text.split("ciphers and modes:", 1)[1].splitlines()
             if line.strip()]
    assert {"sm4", "zuc128", "zuc256"} <= set(names), names
    return names


def test_list_targets_shape(kcrypt):
    proc = run(kcrypt, ["--list-targets"])
    assert proc.returncode == 0 and proc.stderr == b""
    lines = proc.stdout.decode().splitlines()
    assert lines
    for line in lines:
        assert re.fullmatch(r"[a-z0-9_]+ (native|emulated|unavailable)", line), line
    targets = [line.split()[0] for line in lines]
    assert len(targets) == len(set(targets)), "a target is listed twice"
    assert "scalar native" in lines
    # Without a cipher: every target of every cipher, at its best status over them.
    best = {}
    for cipher in known_ciphers(kcrypt):
        for line in run(kcrypt, ["--list-targets", cipher]).stdout.decode().splitlines():
            target, status = line.split()
            best[target] = min(best.get(target, len(STATUS)), STATUS.index(status))
    assert dict(line.split() for line in lines) == {t: STATUS[i] for t, i in best.items()}


def test_list_impls_agrees_with_targets(kcrypt, impls):
    lines = run(kcrypt, ["--list-targets", "sm4"]).stdout.decode().splitlines()
    listed = dict(line.split() for line in lines)
    assert ("reference", "scalar", "native") in impls
    for strategy, target, status in impls:
        assert status in STATUS and target in listed
    # A target's status is the best of its implementations'.
    for target, status in listed.items():
        best = min(STATUS.index(s) for _, t, s in impls if t == target)
        assert STATUS[best] == status, target


def test_disabled_target_is_not_native(kcrypt, impls):
    """The KC_DISABLE_TARGETS hook makes a target count as absent from the CPU."""
    simd = sorted({t for _, t, s in impls if s == "native" and t != "scalar"})
    if not simd:
        pytest.skip("no native SIMD target on this machine")
    target = simd[0]
    proc = run(kcrypt, ["--list-targets", "sm4"], env_extra={"KC_DISABLE_TARGETS": target})
    listed = dict(line.split() for line in proc.stdout.decode().splitlines())
    has_emulated = any(t == target and s == "emulated" for _, t, s in impls)
    assert listed[target] == ("emulated" if has_emulated else "unavailable")
    assert listed["scalar"] == "native"


def test_help(kcrypt):
    proc = run(kcrypt, ["--help"])
    assert proc.returncode == 0 and b"usage:" in proc.stdout


def run_into(exe, args, stdout, data=b""):
    """Runs kcrypt with its stdout on /dev/full ("full") or closed ("closed")."""
    if stdout == "full":
        with open("/dev/full", "wb") as full:
            return subprocess.run([str(exe), *args], input=data, stdout=full, stderr=subprocess.PIPE,
                                  timeout=60)
    return subprocess.run(["bash", "-c", 'exec "$0" "$@" >&-', str(exe), *args], input=data,
                          stderr=subprocess.PIPE, timeout=60)


WRITE_ERRORS = {"full": "No space left on device", "closed": "Bad file descriptor"}


@pytest.mark.parametrize("stdout", list(WRITE_ERRORS))
@pytest.mark.parametrize("args,what", [
    (["--list-targets"], "the list of targets"),
    (["--list-targets", "zuc256"], "the list of targets"),
    (["--list-impls"], "the list of implementations"),
    (["--list-impls", "sm4"], "the list of implementations"),
    (["--help"], "the help text"),
    (["sm4", "-h"], "the help text"),
])
def test_listing_and_help_report_write_errors(kcrypt, args, what, stdout):
    """The listings and --help, like the cipher's output, fail with exit status 1
    and say on stderr what could not be written and why."""
    proc = run_into(kcrypt, args, stdout)
    assert proc.returncode == 1, (args, stdout, proc.stderr)
    assert proc.stderr.decode() == f"kcrypt: error: writing {what}: {WRITE_ERRORS[stdout]}\n"


@pytest.mark.parametrize("stdout", list(WRITE_ERRORS))
@pytest.mark.parametrize("args", [["sm4", "ctr", "-e", "-k", KEY, "-i", IV],
                                  ["zuc128", "mac", "-k", KEY, "-i", IV]])
def test_cipher_output_reports_write_errors(kcrypt, args, stdout):
    proc = run_into(kcrypt, args, stdout, bytes(100))
    assert proc.returncode == 1, (args, stdout, proc.stderr)
    assert proc.stderr.decode() == f"kcrypt: error: writing stdout: {WRITE_ERRORS[stdout]}\n"


def test_closed_stdin_and_stdout(kcrypt):
    """With stdin and stdout closed, the next descriptor kcrypt opens takes their
    numbers: kcrypt must still say that stdin cannot be read, and end."""
    proc = subprocess.run(["bash", "-c", 'exec "$0" "$@" <&- >&-', str(kcrypt), "sm4", "ctr", "-e",
                           "-k", KEY, "-i", IV], stderr=subprocess.PIPE, timeout=60)
    assert proc.returncode == 1
    assert proc.stderr.decode() == "kcrypt: error: reading stdin: Bad file descriptor\n"


# --------------------------------------------------------------------------
# Correctness
# --------------------------------------------------------------------------

def test_python_model_matches_openssl():
    """The fallback oracle agrees with OpenSSL where both exist."""
    if not OPENSSL_SM4:
        pytest.skip("this openssl has no SM4; the Python model is the oracle")
    for mode in MODES:
        key, iv, data = random_case(7, mode, 80)
        for enc in (True, False):
            assert py_crypt(mode, enc, key, iv, data) == openssl_crypt(mode, enc, key, iv, data)


@pytest.mark.parametrize("mode,length", [
    *[(m, n) for m in ("ecb", "cbc") for n in (0, 16, 48, 256, 4144)],
    *[("ctr", n) for n in (0, 1, 15, 16, 17, 255, 1000, 4099)],
])
def test_round_trip_default_impl(kcrypt, mode, length):
    key, iv, data = random_case(length * 3 + MODES.index(mode), mode, length)
    ct = crypt(kcrypt, mode, True, key, iv, data)
    assert ct == oracle(mode, True, key, iv, data)
    assert crypt(kcrypt, mode, False, key, iv, ct) == data
    # Decrypting arbitrary data also matches the oracle.
    assert crypt(kcrypt, mode, False, key, iv, data) == oracle(mode, False, key, iv, data)


def test_every_impl_against_oracle(kcrypt, impls):
    """Each implementation this machine runs, selected with -s/-t (and --emulated)."""
    cases = [("ecb", 272), ("cbc", 528), ("ctr", 1001)]
    expected = {}
    for mode, length in cases:
        key, iv, data = random_case(1000 + length, mode, length)
        expected[mode] = (key, iv, data, oracle(mode, True, key, iv, data),
                          oracle(mode, False, key, iv, data))
    for strategy, target, status in runnable(impls):
        flags = impl_flags(strategy, target, status)
        for mode, (key, iv, data, ct, dec) in expected.items():
            assert crypt(kcrypt, mode, True, key, iv, data, flags) == ct, (flags, mode)
            assert crypt(kcrypt, mode, False, key, iv, data, flags) == dec, (flags, mode)


@pytest.mark.parametrize("iv", [
    "ff" * 16,                 # wraps around to zero
    "00" * 8 + "ff" * 8,       # carry from the low 64 bits into the high 64
    "00" * 12 + "ff" * 4,      # carry across a 32-bit word
    "12" * 15 + "f0",          # low byte overflows after 16 blocks
])
def test_ctr_counter_carry(kcrypt, impls, iv):
    """CTR counts the whole block as one big-endian 128-bit integer."""
    key, _, data = random_case(99, "ctr", 100 * 16 + 3)
    want = py_crypt("ctr", True, key, iv, data)
    if OPENSSL_SM4:
        assert want == openssl_crypt("ctr", True, key, iv, data)
    for strategy, target, status in runnable(impls):
        got = crypt(kcrypt, "ctr", True, key, iv, data, impl_flags(strategy, target, status))
        assert got == want, (strategy, target, status)


def test_large_input(kcrypt):
    key, iv, data = random_case(5, "ctr", (1 << 20) + 5)
    assert crypt(kcrypt, "ctr", True, key, iv, data) == oracle("ctr", True, key, iv, data)


def test_official_vectors(kcrypt, impls):
    """tests/vectors/sm4.json through the CLI, with the default implementation
    and with every runnable one.  The 1,000,000-fold ECB vector would take a
    million processes here; build/verify runs it on every implementation."""
    vectors = load_vectors()
    assert vectors
    selections = [[]] + [impl_flags(*i) for i in runnable(impls)]
    checked = 0
    for mode, v in vectors:
        if v.get("iterations", 1) != 1:
            continue
        pt, ct = bytes.fromhex(v["plaintext"]), bytes.fromhex(v["ciphertext"])
        iv = v.get("iv")
        for flags in selections:
            assert crypt(kcrypt, mode, True, v["key"], iv, pt, flags) == ct, (v["source"], flags)
            assert crypt(kcrypt, mode, False, v["key"], iv, ct, flags) == pt, (v["source"], flags)
            checked += 1
    assert checked >= 3 * len(selections)


# --------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------

BLOCK = bytes(range(16))

ERROR_CASES = {
    # name: (arguments, stdin)
    "no arguments": ([], b""),
    "missing mode": (["sm4"], BLOCK),
    "missing direction": (["sm4", "ecb", "-k", KEY], BLOCK),
    "both directions": (["sm4", "ecb", "-e", "-d", "-k", KEY], BLOCK),
    "missing key": (["sm4", "ecb", "-e"], BLOCK),
    "option without value": (["sm4", "ecb", "-e", "-k"], BLOCK),
    "repeated option": (["sm4", "ecb", "-e", "-k", KEY, "-k", KEY], BLOCK),
    "unknown option": (["sm4", "ecb", "-e", "-k", KEY, "--frobnicate"], BLOCK),
    "unknown short option": (["sm4", "ecb", "-e", "-k", KEY, "-x"], BLOCK),
    "extra argument": (["sm4", "ecb", "-e", "-k", KEY, "extra"], BLOCK),
    "unknown cipher": (["aes", "ecb", "-e", "-k", KEY], BLOCK),
    "unknown mode": (["sm4", "ocb", "-e", "-k", KEY], BLOCK),
    "unknown target": (["sm4", "ecb", "-e", "-k", KEY, "-t", "pentium"], BLOCK),
    "unknown strategy": (["sm4", "ecb", "-e", "-k", KEY, "-s", "bitslice"], BLOCK),
    "no such strategy on target": (["sm4", "ecb", "-e", "-k", KEY, "-s", "reference",
                                    "-t", "avx2_gfni"], BLOCK),
    "emulated without target": (["sm4", "ecb", "-e", "-k", KEY, "--emulated"], BLOCK),
    "no emulated scalar": (["sm4", "ecb", "-e", "-k", KEY, "-t", "scalar", "--emulated"], BLOCK),
    "key odd hex": (["sm4", "ecb", "-e", "-k", KEY + "0"], BLOCK),
    "key non-hex": (["sm4", "ecb", "-e", "-k", "g" + KEY[1:]], BLOCK),
    "key with 0x": (["sm4", "ecb", "-e", "-k", "0x" + KEY[2:]], BLOCK),
    "key 15 bytes": (["sm4", "ecb", "-e", "-k", KEY[:30]], BLOCK),
    "key 17 bytes": (["sm4", "ecb", "-e", "-k", KEY + "00"], BLOCK),
    "empty key": (["sm4", "ecb", "-e", "-k", ""], BLOCK),
    "ecb with iv": (["sm4", "ecb", "-e", "-k", KEY, "-i", IV], BLOCK),
    "cbc without iv": (["sm4", "cbc", "-e", "-k", KEY], BLOCK),
    "ctr without iv": (["sm4", "ctr", "-d", "-k", KEY], BLOCK),
    "iv 15 bytes": (["sm4", "cbc", "-e", "-k", KEY, "-i", IV[:30]], BLOCK),
    "iv 17 bytes": (["sm4", "ctr", "-e", "-k", KEY, "-i", IV + "00"], BLOCK),
    "iv odd hex": (["sm4", "ctr", "-e", "-k", KEY, "-i", IV[:31]], BLOCK),
    "iv non-hex": (["sm4", "cbc", "-e", "-k", KEY, "-i", IV[:31] + "z"], BLOCK),
    "ecb partial block": (["sm4", "ecb", "-e", "-k", KEY], bytes(15)),
    "ecb block and a byte": (["sm4", "ecb", "-d", "-k", KEY], bytes(17)),
    "cbc partial block": (["sm4", "cbc", "-e", "-k", KEY, "-i", IV], bytes(33)),
    "list unknown cipher": (["--list-targets", "aes"], b""),
}


def assert_clean_error(proc, what):
    assert proc.returncode != 0, f"{what}: exit status 0"
    assert proc.stdout == b"", f"{what}: wrote to stdout: {proc.stdout[:64]!r}"
    message = proc.stderr.decode()
    assert "error" in message and message.strip(), f"{what}: stderr {message!r}"


@pytest.mark.parametrize("name", list(ERROR_CASES))
def test_error_cases(kcrypt, name):
    args, data = ERROR_CASES[name]
    assert_clean_error(run(kcrypt, args, data), name)


def test_error_target_not_native_via_hook(kcrypt, impls):
    """A target the CPU cannot run is refused; simulated with KC_DISABLE_TARGETS."""
    simd = sorted({t for _, t, s in impls if s == "native" and t != "scalar"})
    if not simd:
        pytest.skip("no native SIMD target on this machine to disable")
    for target in simd:
        proc = run(kcrypt, ["sm4", "ecb", "-e", "-k", KEY, "-t", target], BLOCK,
                   env_extra={"KC_DISABLE_TARGETS": target})
        assert_clean_error(proc, f"-t {target} disabled")
        assert "natively" in proc.stderr.decode()


def test_error_target_not_native_for_real(kcrypt, impls):
    """Targets this CPU really lacks (none on a machine that has them all)."""
    lines = run(kcrypt, ["--list-targets", "sm4"]).stdout.decode().splitlines()
    for target, status in (line.split() for line in lines):
        if status != "native":
            proc = run(kcrypt, ["sm4", "ctr", "-e", "-k", KEY, "-i", IV, "-t", target], BLOCK)
            assert_clean_error(proc, f"-t {target} ({status})")


def test_emulated_runs_when_native_is_disabled(kcrypt, impls):
    """--emulated runs the SIMDe build even where the native target is refused."""
    emulated = [(s, t) for s, t, st in impls if st == "emulated"]
    if not emulated:
        pytest.skip("no emulated build linked")
    strategy, target = emulated[0]
    key, iv, data = random_case(3, "ctr", 333)
    got = crypt(kcrypt, "ctr", True, key, iv, data, ["-s", strategy, "-t", target, "--emulated"],
                env_extra={"KC_DISABLE_TARGETS": target})
    assert got == oracle("ctr", True, key, iv, data)


# --------------------------------------------------------------------------
# ZUC
# --------------------------------------------------------------------------

ZKEY = {"zuc128": "00112233445566778899aabbccddeeff",
        "zuc256": "00112233445566778899aabbccddeeff" * 2}
ZIV = {"zuc128": "0f1e2d3c4b5a69788796a5b4c3d2e1f0",
       "zuc256": "0f1e2d3c4b5a69788796a5b4c3d2e1f00f" + "3f2a15000102031c"}  # 25 bytes


def zuc(exe, args, data=b"", env_extra=None):
    """kcrypt output for a zuc command; fails the test on a non-zero exit."""
    proc = run(exe, args, data, env_extra)
    assert proc.returncode == 0, f"kcrypt {' '.join(args)}: {proc.stderr.decode()}"
    assert proc.stderr == b"", proc.stderr.decode()
    return proc.stdout


def zuc_args(cipher, mode, key, iv, extra=()):
    return [cipher, mode, "-k", key, "-i", iv, *extra]


@pytest.fixture(scope="session")
def zuc_impls(kcrypt):
    """Every ZUC implementation as (strategy, target, status), from --list-impls zuc128
    (zuc256 lists the same kernels)."""
    rows = {}
    for cipher in ("zuc128", "zuc256"):
        proc = run(kcrypt, ["--list-impls", cipher])
        assert proc.returncode == 0, proc.stderr.decode()
        lines = [line.split() for line in proc.stdout.decode().splitlines() if not line.startswith("dispatch ")]
        assert lines and all(len(r) == 4 and r[0] == cipher for r in lines), lines
        rows[cipher] = [(s, t, st) for _, s, t, st in lines]
    assert rows["zuc128"] == rows["zuc256"]
    assert ("reference", "scalar", "native") in rows["zuc128"]
    return rows["zuc128"]


def zuc_selections(zuc_impls):
    """The default choice and every implementation this machine runs."""
    return [[]] + [impl_flags(*i) for i in runnable(zuc_impls)]


def load_zuc_vectors():
    folder = Path(os.environ.get("KC_VECTORS_DIR", REPO / "tests" / "vectors"))
    path = folder / "zuc.json"
    if not path.is_file():
        pytest.fail(f"{path} not found: restore tests/vectors or set KC_VECTORS_DIR")
    return json.loads(path.read_text())


def zuc_vector_ivs(v):
    """The IV forms a vector gives (ZUC-128: iv; ZUC-256: iv25 and iv23 if present)."""
    return [v[k] for k in ("iv", "iv25", "iv23") if k in v]


def test_zuc_keystream_vectors(kcrypt, zuc_impls):
    """Keystream vectors as `enc` of zeros, every IV form, on every implementation."""
    doc = load_zuc_vectors()
    checked = 0
    for cipher in ("zuc128", "zuc256"):
        for v in doc[f"{cipher}_keystream"]:
            want = bytes.fromhex("".join(v["keystream"]))
            for iv in zuc_vector_ivs(v):
                for flags in zuc_selections(zuc_impls):
                    args = zuc_args(cipher, "enc", v["key"], iv, flags)
                    got = zuc(kcrypt, args, bytes(len(want)))
                    assert got == want, (v["source"], iv, flags)
                    checked += 1
    assert checked >= 5 * len(zuc_selections(zuc_impls))


def test_zuc_nea6_vectors(kcrypt, zuc_impls):
    """3GPP's ZUC-NEA6 vectors through `zuc_nea6 enc` (the 7-bit one with
    --bits) on every implementation, and a 25-byte IV refused."""
    vectors = load_zuc_vectors()["nea6_encrypt"]
    for v in vectors:
        pt, want = bytes.fromhex(v["plaintext"]), bytes.fromhex(v["ciphertext"])
        for flags in zuc_selections(zuc_impls):
            extra = ["--bits", str(v["bits"]), *flags] if v["bits"] % 8 else flags
            assert zuc(kcrypt, zuc_args("zuc_nea6", "enc", v["key"], v["iv"], extra), pt) == want, (v["source"], flags)
    v = vectors[0]
    proc = run(kcrypt, zuc_args("zuc_nea6", "enc", v["key"], v["iv"] + "00" * 9))
    assert proc.returncode != 0 and b"32 hex digits" in proc.stderr


def test_zuc_nea6_mac_is_nia6(kcrypt):
    """3GPP's NIA6 vectors through `zuc_nea6 mac --tag BITS` (every tag length they
    have), and its refusals: a tag that is not whole bytes in 32..128, --mac-method,
    --bits that is not whole bytes."""
    vectors = load_zuc_vectors()["nia6_mac"]
    for v in vectors:
        tag_bits = 4 * len(v["tag"])
        got = zuc(kcrypt, zuc_args("zuc_nea6", "mac", v["key"], v["iv"], ["--tag", str(tag_bits)]),
                  bytes.fromhex(v["message"]))
        assert got == (v["tag"] + "\n").encode(), v["source"]
    v = vectors[0]
    for extra, why in ((["--tag", "36"], b"steps of 8"), (["--tag", "136"], b"steps of 8"),
                       (["--mac-method", "clmul"], b"has one"), (["--bits", "9"], b"whole bytes")):
        proc = run(kcrypt, zuc_args("zuc_nea6", "mac", v["key"], v["iv"], extra), b"\0\0")
        assert proc.returncode != 0 and why in proc.stderr and proc.stdout == b"", extra


def test_zuc_mac_vectors(kcrypt, zuc_impls):
    """MAC vectors with --bits and every tag given, both MAC methods, every implementation."""
    doc = load_zuc_vectors()
    checked = 0
    for cipher in ("zuc128", "zuc256"):
        for v in doc[f"{cipher}_mac"]:
            msg = bytes.fromhex(v["message"])
            for tag in (32, 64, 128):
                if f"tag{tag}" not in v:
                    continue
                for flags in zuc_selections(zuc_impls):
                    for method in ("clmul", "compare"):
                        extra = ["--bits", str(v["bits"]), "--tag", str(tag),
                                 "--mac-method", method, *flags]
                        iv = v.get("iv", v.get("iv25"))
                        got = zuc(kcrypt, zuc_args(cipher, "mac", v["key"], iv, extra), msg)
                        want = (v[f"tag{tag}"] + "\n").encode()
                        assert got == want, (v["source"], tag, flags, method)
                        checked += 1
    assert checked >= 2 * 8 * len(zuc_selections(zuc_impls))


@pytest.mark.parametrize("cipher", ["zuc128", "zuc256"])
@pytest.mark.parametrize("length,bits", [(0, None), (1, None), (37, None), (300, None),
                                         (100, 793), (100, 1), (64, 0), (33, 257)])
def test_zuc_enc_against_python_model(kcrypt, cipher, length, bits):
    """enc equals the Python reference model, whole input or --bits N (ceil(N/8) bytes
    out, the unused low bits zero), and is its own inverse."""
    rng = random.Random(length * 131 + (bits or 0))
    key, data = ZKEY[cipher], rng.randbytes(length)
    n = 8 * length if bits is None else bits
    extra = [] if bits is None else ["--bits", str(bits)]
    variant = int(cipher[3:])
    want = zref.encrypt(variant, bytes.fromhex(key), bytes.fromhex(ZIV[cipher]), data, n)
    got = zuc(kcrypt, zuc_args(cipher, "enc", key, ZIV[cipher], extra), data)
    assert got == want and len(got) == (n + 7) // 8
    if n % 8:
        assert got[-1] & (0xFF >> (n % 8)) == 0
    if n % 8 == 0:  # its own inverse
        assert zuc(kcrypt, zuc_args(cipher, "enc", key, ZIV[cipher], extra), got) == data[:len(got)]


@pytest.mark.parametrize("cipher,tag", [("zuc128", 32), ("zuc256", 32), ("zuc256", 64),
                                        ("zuc256", 128)])
@pytest.mark.parametrize("length,bits", [(0, None), (5, None), (40, 317), (40, 1), (41, 0)])
def test_zuc_mac_against_python_model(kcrypt, cipher, tag, length, bits):
    rng = random.Random(length * 17 + tag + (bits or 0))
    data = rng.randbytes(length)
    n = 8 * length if bits is None else bits
    extra = ["--tag", str(tag)] + ([] if bits is None else ["--bits", str(bits)])
    want = zref.mac(int(cipher[3:]), bytes.fromhex(ZKEY[cipher]), bytes.fromhex(ZIV[cipher]),
                    data, n, tag)
    got = zuc(kcrypt, zuc_args(cipher, "mac", ZKEY[cipher], ZIV[cipher], extra), data)
    assert got == (want.hex() + "\n").encode()


def test_zuc256_iv23_equals_iv25(kcrypt):
    """A 23-byte IV gives what its 25-byte expansion gives (23 x ff = 17 x ff, 8 x 3f)."""
    data = bytes(range(200))
    a = zuc(kcrypt, zuc_args("zuc256", "enc", ZKEY["zuc256"], "ff" * 23), data)
    b = zuc(kcrypt, zuc_args("zuc256", "enc", ZKEY["zuc256"], "ff" * 17 + "3f" * 8), data)
    assert a == b and a != data
    for tag in ("32", "64", "128"):
        a = zuc(kcrypt, zuc_args("zuc256", "mac", ZKEY["zuc256"], "ff" * 23, ["--tag", tag]), data)
        b = zuc(kcrypt, zuc_args("zuc256", "mac", ZKEY["zuc256"], "ff" * 17 + "3f" * 8,
                                 ["--tag", tag]), data)
        assert a == b and len(a) == int(tag) // 4 + 1


def test_zuc_every_impl_agrees(kcrypt, zuc_impls):
    """enc and both MAC methods on every runnable implementation, against the model."""
    data = random.Random(9).randbytes(150)
    want_enc = zref.encrypt(256, bytes.fromhex(ZKEY["zuc256"]), bytes.fromhex(ZIV["zuc256"]), data,
                            1195)
    want_mac = zref.mac(256, bytes.fromhex(ZKEY["zuc256"]), bytes.fromhex(ZIV["zuc256"]), data,
                        1195, 64).hex()
    for flags in zuc_selections(zuc_impls):
        got = zuc(kcrypt, zuc_args("zuc256", "enc", ZKEY["zuc256"], ZIV["zuc256"],
                                   ["--bits", "1195", *flags]), data)
        assert got == want_enc, flags
        for method in ("clmul", "compare"):
            got = zuc(kcrypt, zuc_args("zuc256", "mac", ZKEY["zuc256"], ZIV["zuc256"],
                                       ["--bits", "1195", "--tag", "64", "--mac-method", method,
                                        *flags]), data)
            assert got == (want_mac + "\n").encode(), (flags, method)


K16, K32 = ZKEY["zuc128"], ZKEY["zuc256"]
I16, I25 = ZIV["zuc128"], ZIV["zuc256"]
DATA = bytes(range(32))

ZUC_ERROR_CASES = {
    "zuc missing mode": (["zuc128"], DATA),
    "zuc unknown mode": (["zuc128", "ecb", "-k", K16, "-i", I16], DATA),
    "zuc with -e": (["zuc128", "enc", "-e", "-k", K16, "-i", I16], DATA),
    "zuc with -d": (["zuc256", "mac", "-d", "-k", K32, "-i", I25], DATA),
    "zuc missing key": (["zuc128", "enc", "-i", I16], DATA),
    "zuc missing iv": (["zuc128", "enc", "-k", K16], DATA),
    "zuc key odd hex": (["zuc128", "enc", "-k", K16 + "0", "-i", I16], DATA),
    "zuc key non-hex": (["zuc256", "enc", "-k", "x" + K32[1:], "-i", I25], DATA),
    "zuc128 key 15 bytes": (["zuc128", "enc", "-k", K16[:30], "-i", I16], DATA),
    "zuc128 key 32 bytes": (["zuc128", "enc", "-k", K32, "-i", I16], DATA),
    "zuc256 key 16 bytes": (["zuc256", "enc", "-k", K16, "-i", I25], DATA),
    "zuc128 iv 15 bytes": (["zuc128", "enc", "-k", K16, "-i", I16[:30]], DATA),
    "zuc128 iv 25 bytes": (["zuc128", "mac", "-k", K16, "-i", I25], DATA),
    "zuc256 iv 24 bytes": (["zuc256", "enc", "-k", K32, "-i", I25[:48]], DATA),
    "zuc256 iv 16 bytes": (["zuc256", "enc", "-k", K32, "-i", I16], DATA),
    "zuc256 iv non-hex": (["zuc256", "enc", "-k", K32, "-i", I25[:49] + "g"], DATA),
    "zuc256 iv top bit": (["zuc256", "enc", "-k", K32, "-i", I25[:34] + "80" + I25[36:]], DATA),
    "zuc256 iv second bit": (["zuc256", "mac", "-k", K32, "-i", I25[:48] + "40"], DATA),
    "zuc bits beyond input": (["zuc128", "mac", "-k", K16, "-i", I16, "--bits", "257"], DATA),
    "zuc enc bits beyond input": (["zuc256", "enc", "-k", K32, "-i", I25, "--bits", "9"], b"a"),
    "zuc bits not a number": (["zuc128", "mac", "-k", K16, "-i", I16, "--bits", "12x"], DATA),
    "zuc bits negative": (["zuc128", "mac", "-k", K16, "-i", I16, "--bits", "-1"], DATA),
    "zuc tag 48": (["zuc256", "mac", "-k", K32, "-i", I25, "--tag", "48"], DATA),
    "zuc tag 0": (["zuc256", "mac", "-k", K32, "-i", I25, "--tag", "0"], DATA),
    "zuc tag word": (["zuc256", "mac", "-k", K32, "-i", I25, "--tag", "big"], DATA),
    "zuc128 tag 64": (["zuc128", "mac", "-k", K16, "-i", I16, "--tag", "64"], DATA),
    "zuc tag with enc": (["zuc256", "enc", "-k", K32, "-i", I25, "--tag", "32"], DATA),
    "zuc method with enc": (["zuc128", "enc", "-k", K16, "-i", I16, "--mac-method", "clmul"], DATA),
    "zuc unknown method": (["zuc128", "mac", "-k", K16, "-i", I16, "--mac-method", "fast"], DATA),
    "zuc unknown target": (["zuc128", "enc", "-k", K16, "-i", I16, "-t", "pentium"], DATA),
    "zuc unknown strategy": (["zuc128", "enc", "-k", K16, "-i", I16, "-s", "byteslice"], DATA),
    "zuc no emulated scalar": (["zuc256", "enc", "-k", K32, "-i", I25, "-t", "scalar",
                                "--emulated"], DATA),
    "sm4 with --tag": (["sm4", "ctr", "-e", "-k", KEY, "-i", IV, "--tag", "32"], DATA),
    "sm4 with --bits": (["sm4", "ctr", "-e", "-k", KEY, "-i", IV, "--bits", "8"], DATA),
}


@pytest.mark.parametrize("name", list(ZUC_ERROR_CASES))
def test_zuc_error_cases(kcrypt, name):
    args, data = ZUC_ERROR_CASES[name]
    assert_clean_error(run(kcrypt, args, data), name)


def test_zuc_error_messages_name_the_problem(kcrypt):
    msg = lambda name: run(kcrypt, *ZUC_ERROR_CASES[name]).stderr.decode()  # noqa: E731
    assert "257" in msg("zuc bits beyond input") and "256 bits" in msg("zuc bits beyond input")
    assert "25 or 23 bytes" in msg("zuc256 iv 24 bytes")
    assert "top bit" in msg("zuc256 iv top bit") or "IV17" in msg("zuc256 iv top bit")
    assert "only the 32-bit tag" in msg("zuc128 tag 64")
    assert "16 bytes" in msg("zuc128 key 15 bytes")


@pytest.mark.parametrize("case,text", [
    ("zuc128 iv 15 bytes", "zuc128 IV must be 16 bytes (32 hex digits), got 15 bytes"),
    ("zuc256 iv 24 bytes", "zuc256 IV must be 25 or 23 bytes (50 or 46 hex digits), got 24 bytes"),
    ("zuc256 iv non-hex", "bad zuc256 IV hex: "),
    ("zuc128 key 15 bytes", "zuc128 key must be 16 bytes (32 hex digits), got 15 bytes"),
    ("zuc256 key 16 bytes", "zuc256 key must be 32 bytes (64 hex digits), got 16 bytes"),
    ("zuc key non-hex", "bad zuc256 key hex: "),
    ("zuc missing key", "missing key (-k KEYHEX, 32 hex digits for zuc128)"),
])
def test_zuc_key_and_iv_messages_name_the_cipher(kcrypt, case, text):
    """As SM4's and uBlock's do ("sm4 key must be 16 bytes ...")."""
    message = run(kcrypt, *ZUC_ERROR_CASES[case]).stderr.decode()
    assert message.startswith(f"kcrypt: error: {text}"), message


@pytest.mark.parametrize("bits", [2**64 - 1, 2**64 - 7])
@pytest.mark.parametrize("mode", [["enc"], ["mac"], ["mac", "--mac-method", "compare"]])
def test_zuc_bits_near_size_max(kcrypt, mode, bits):
    """--bits whose byte count (bits + 7) / 8 once wrapped to 0: kcrypt read
    nothing and called 3 bytes of input "0 bytes = 0 bits"."""
    proc = run(kcrypt, zuc_args("zuc128", mode[0], K16, I16, ["--bits", str(bits), *mode[1:]]), b"abc")
    assert_clean_error(proc, f"--bits {bits}")
    message = proc.stderr.decode()
    assert message == f"kcrypt: error: --bits {bits} is larger than the input (3 bytes = 24 bits)\n", message


def test_zuc_target_not_native_via_hook(kcrypt, zuc_impls):
    simd = sorted({t for _, t, s in zuc_impls if s == "native" and t != "scalar"})
    if not simd:
        pytest.skip("no native SIMD target on this machine to disable")
    for target in simd:
        proc = run(kcrypt, zuc_args("zuc256", "enc", K32, I25, ["-t", target]), DATA,
                   env_extra={"KC_DISABLE_TARGETS": target})
        assert_clean_error(proc, f"-t {target} disabled")
        assert "natively" in proc.stderr.decode()
        emulated = any(t == target and s == "emulated" for _, t, s in zuc_impls)
        if emulated:  # --emulated still runs the SIMDe build
            args = zuc_args("zuc256", "enc", K32, I25, ["-t", target, "--emulated"])
            got = zuc(kcrypt, args, DATA, env_extra={"KC_DISABLE_TARGETS": target})
            assert got == zref.encrypt(256, bytes.fromhex(K32), bytes.fromhex(I25), DATA, 256)


# --------------------------------------------------------------------------
# Streaming: stdin goes through in 1 MiB pieces, output is written as it goes
# --------------------------------------------------------------------------

MiB = 1 << 20
CHUNK = MiB  # kcrypt's piece (KC_CHUNK_BYTES)
UK16, UK32 = "000102030405060708090a0b0c0d0e0f", "00112233445566778899aabbccddeeff" * 2
UI16, UI32 = "f0e0d0c0b0a090807060504030201000", "0f" * 32

# id: (kcrypt arguments, one-shot helper arguments (None: SM4, whose oracle is
# openssl / the Python model), block bytes (0: any length; ECB/CBC: whole blocks))
STREAM_CASES = {
    "sm4-ctr": (["sm4", "ctr", "-e", "-k", KEY, "-i", IV], None, 0),
    "sm4-ecb-enc": (["sm4", "ecb", "-e", "-k", KEY], None, 16),
    "sm4-cbc-enc": (["sm4", "cbc", "-e", "-k", KEY, "-i", IV], None, 16),
    "sm4-cbc-dec": (["sm4", "cbc", "-d", "-k", KEY, "-i", IV], None, 16),
    "ublock128_128-ctr": (["ublock128_128", "ctr", "-e", "-k", UK16, "-i", UI16],
                          ["ublock128_128", "ctr", "e", UK16, UI16], 0),
    "ublock128_128-ecb-dec": (["ublock128_128", "ecb", "-d", "-k", UK16],
                              ["ublock128_128", "ecb", "d", UK16, "-"], 16),
    "ublock128_256-cbc-enc": (["ublock128_256", "cbc", "-e", "-k", UK32, "-i", UI16],
                              ["ublock128_256", "cbc", "e", UK32, UI16], 16),
    "ublock256_256-cbc-dec": (["ublock256_256", "cbc", "-d", "-k", UK32, "-i", UI32],
                              ["ublock256_256", "cbc", "d", UK32, UI32], 32),
    "ublock256_256-ctr": (["ublock256_256", "ctr", "-d", "-k", UK32, "-i", UI32],
                          ["ublock256_256", "ctr", "d", UK32, UI32], 0),
    "zuc128-enc": (["zuc128", "enc", "-k", ZKEY["zuc128"], "-i", ZIV["zuc128"]],
                   ["zuc128", "enc", "-", ZKEY["zuc128"], ZIV["zuc128"]], 0),
    "zuc256-enc": (["zuc256", "enc", "-k", ZKEY["zuc256"], "-i", ZIV["zuc256"]],
                   ["zuc256", "enc", "-", ZKEY["zuc256"], ZIV["zuc256"]], 0),
    "zuc128-mac": (["zuc128", "mac", "-k", ZKEY["zuc128"], "-i", ZIV["zuc128"]],
                   ["zuc128", "mac", "32", ZKEY["zuc128"], ZIV["zuc128"]], 0),
    "zuc256-mac128": (["zuc256", "mac", "--tag", "128", "-k", ZKEY["zuc256"], "-i", ZIV["zuc256"]],
                      ["zuc256", "mac", "128", ZKEY["zuc256"], ZIV["zuc256"]], 0),
}


@pytest.fixture(scope="session")
def oneshot(harness_build, tmp_path_factory):
    """harness/stream_check.py's helper: each cipher's one-shot library call on all
    of stdin (built against the harness build's libkcrypt.a)."""
    sys.path.insert(0, str(REPO / "harness"))
    import stream_check
    generated = Path(os.environ.get("KC_GENERATED", REPO / "generated")).resolve()
    return stream_check.build_oneshot(harness_build, tmp_path_factory.mktemp("oneshot"), generated)


def expected(oneshot, case, data):
    """What kcrypt must write for STREAM_CASES[case] on data."""
    args, helper, _ = STREAM_CASES[case]
    if helper is None:  # SM4: openssl (or the Python model)
        mode, enc = args[1], args[2] == "-e"
        return oracle(mode, enc, KEY, IV if mode != "ecb" else None, data)
    proc = subprocess.run([str(oneshot), *helper], input=data, capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()
    return proc.stdout


def chunk_sizes(block):
    """Lengths around the piece size: either side of one and three pieces."""
    if block == 0:
        return [CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 7]
    return [CHUNK - block, CHUNK, CHUNK + block, 3 * CHUNK + 3 * block]


def run_from_file(exe, args, path, offset=0, stdout=subprocess.PIPE):
    """kcrypt with stdin the regular file `path`, read from `offset` on."""
    with open(path, "rb") as fin:
        fin.seek(offset)
        proc = subprocess.run([str(exe), *args], stdin=fin, stdout=stdout, stderr=subprocess.PIPE,
                              timeout=120)
        return proc, fin.tell()


@pytest.mark.parametrize("case", ["sm4-ctr", "ublock128_128-ctr", "ublock256_256-ctr"])
def test_ctr_pieces_of_a_regular_file_apart(kcrypt, oneshot, tmp_path, case):
    """CTR from a regular file runs its pieces on two threads (each read with
    pread, the counter advanced to the piece's offset, written in order):
    the output equals the whole-input oracle around the piece boundaries, for
    an empty file, and from a file whose offset is not 0 (what was read before
    kcrypt is not its input; the offset is left at the end)."""
    args = STREAM_CASES[case][0]
    rng = random.Random(case)
    for length in [0, 1, 17] + chunk_sizes(0):
        data = rng.randbytes(length)
        path = tmp_path / "in.bin"
        path.write_bytes(data)
        proc, _ = run_from_file(kcrypt, args, path)
        assert proc.returncode == 0 and proc.stderr == b"", (length, proc.stderr.decode())
        assert proc.stdout == expected(oneshot, case, data), length
    data = rng.randbytes(2 * CHUNK + 5)
    path.write_bytes(data)
    proc, left_at = run_from_file(kcrypt, args, path, offset=1000)
    assert proc.returncode == 0 and proc.stdout == expected(oneshot, case, data[1000:])
    assert left_at == len(data)


def test_ctr_pieces_apart_report_write_errors(kcrypt, tmp_path):
    """A write that fails on the pieces' path: exit status 1, the reason,
    nothing more written."""
    path = tmp_path / "in.bin"
    path.write_bytes(bytes(3 * CHUNK + 1))
    with open("/dev/full", "wb") as full:
        proc, _ = run_from_file(kcrypt, STREAM_CASES["sm4-ctr"][0], path, stdout=full)
    assert proc.returncode == 1
    assert proc.stderr.decode() == "kcrypt: error: writing stdout: No space left on device\n"


@pytest.mark.parametrize("case", list(STREAM_CASES))
def test_stream_across_pieces(kcrypt, oneshot, case):
    """Inputs either side of the 1 MiB piece equal the whole-input oracle."""
    args, _, block = STREAM_CASES[case]
    for n in chunk_sizes(block):
        data = random.Random(n).randbytes(n)
        proc = run(kcrypt, args, data)
        assert proc.returncode == 0 and proc.stderr == b"", (n, proc.stderr.decode())
        assert proc.stdout == expected(oneshot, case, data), (case, n)


@pytest.mark.parametrize("case", list(STREAM_CASES))
def test_stream_empty_input(kcrypt, oneshot, case):
    """0 bytes: no output (a MAC: the tag of the empty message)."""
    args = STREAM_CASES[case][0]
    proc = run(kcrypt, args, b"")
    assert proc.returncode == 0 and proc.stderr == b""
    want = expected(oneshot, case, b"")
    assert proc.stdout == want
    assert (want == b"") == (args[1] != "mac")


def feed_slowly(exe, args, data, sizes, pause_every=64):
    """Runs kcrypt with `data` written to its stdin in pieces whose lengths come from
    sizes() (a short pause every few writes, so reads see the pieces apart);
    returns (status, stdout, stderr)."""
    proc = subprocess.Popen([str(exe), *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    out = []
    reader = threading.Thread(target=lambda: out.append(proc.stdout.read()))
    reader.start()
    fd, pos, writes = proc.stdin.fileno(), 0, 0
    while pos < len(data):
        pos += os.write(fd, data[pos:pos + sizes()])
        writes += 1
        if writes % pause_every == 0:
            time.sleep(0.001)
    proc.stdin.close()
    reader.join(timeout=120)
    err = proc.stderr.read()
    return proc.wait(timeout=120), out[0], err


@pytest.mark.parametrize("case", ["sm4-ctr", "sm4-cbc-dec", "ublock256_256-cbc-dec",
                                  "ublock128_128-ctr", "zuc128-enc", "zuc256-mac128"])
def test_stream_few_bytes_per_write(kcrypt, oneshot, case):
    """A pipe that delivers 1-7 bytes at a time gives the same output."""
    args, _, block = STREAM_CASES[case]
    rng = random.Random(case)
    data = rng.randbytes(4096 + 3 * 32 + (0 if block else 5))
    status, out, err = feed_slowly(kcrypt, args, data, lambda: rng.randint(1, 7))
    assert status == 0 and err == b"", err.decode()
    assert out == expected(oneshot, case, data)


@pytest.mark.parametrize("case", ["sm4-cbc-enc", "ublock256_256-cbc-dec", "zuc128-mac",
                                  "ublock128_128-ctr"])
def test_stream_uneven_writes_across_pieces(kcrypt, oneshot, case):
    """Writes of odd lengths across several pieces: whole blocks in all still work,
    wherever the pipe splits them."""
    args, _, block = STREAM_CASES[case]
    rng = random.Random(case + "uneven")
    data = rng.randbytes(2 * CHUNK + 3 * 32 + (0 if block else 5))
    status, out, err = feed_slowly(kcrypt, args, data,
                                   lambda: rng.choice([1, 3, 5, 7, 999, 65537, 100003]), 8)
    assert status == 0 and err == b"", err.decode()
    assert out == expected(oneshot, case, data)


@pytest.mark.parametrize("case,length,written", [
    ("sm4-ecb-enc", CHUNK + 7, CHUNK),
    ("sm4-cbc-dec", 3 * CHUNK + 15, 3 * CHUNK),
    ("ublock256_256-cbc-dec", 2 * CHUNK + 16, 2 * CHUNK),
    ("ublock128_128-ecb-dec", CHUNK + 1, CHUNK),
])
def test_stream_partial_block_after_pieces(kcrypt, oneshot, case, length, written):
    """ECB/CBC input that ends in a partial block, found with the last piece: the
    pieces before it are out, the message says how many bytes, exit status 2."""
    args, _, block = STREAM_CASES[case]
    data = random.Random(length).randbytes(length)
    proc = run(kcrypt, args, data)
    assert proc.returncode == 2
    assert proc.stdout == expected(oneshot, case, data[:written])
    message = proc.stderr.decode()
    assert message.startswith("kcrypt: error: "), message
    assert f"input is {length} bytes" in message and f"{block}-byte" in message, message
    assert f"{written} bytes were already written" in message, message


def test_stream_partial_block_in_one_piece_writes_nothing(kcrypt):
    proc = run(kcrypt, STREAM_CASES["sm4-cbc-enc"][0], bytes(CHUNK - 1))
    assert proc.returncode == 2 and proc.stdout == b""
    assert "already written" not in proc.stderr.decode()


@pytest.mark.parametrize("cipher", ["zuc128", "zuc256"])
def test_stream_zuc_bits_across_pieces(kcrypt, oneshot, cipher):
    """--bits N over several pieces: the first N bits, the rest of stdin unread."""
    data = random.Random(cipher).randbytes(3 * CHUNK)
    for bits in (8 * CHUNK, 8 * CHUNK + 5, 8 * (2 * CHUNK + 11) + 3):
        for mode, tag in (("enc", "-"), ("mac", "32")):
            got = zuc(kcrypt, zuc_args(cipher, mode, ZKEY[cipher], ZIV[cipher], ["--bits", str(bits)]),
                      data)
            want = subprocess.run([str(oneshot), cipher, mode, tag, ZKEY[cipher], ZIV[cipher],
                                   str(bits)], input=data, capture_output=True, check=True).stdout
            assert got == want, (cipher, mode, bits)


def test_stream_zuc_bits_beyond_input_after_pieces(kcrypt):
    data = bytes(CHUNK + 10)
    bits = 8 * (CHUNK + 10) + 1
    proc = run(kcrypt, zuc_args("zuc128", "enc", K16, I16, ["--bits", str(bits)]), data)
    assert proc.returncode == 2 and len(proc.stdout) == CHUNK
    message = proc.stderr.decode()
    assert f"--bits {bits} is larger than the input ({CHUNK + 10} bytes" in message, message
    assert f"{CHUNK} bytes were already written" in message, message


@pytest.mark.parametrize("method", ["clmul", "compare"])
def test_stream_mac_method_reads_whole_input(kcrypt, oneshot, method):
    """--mac-method takes the one-shot path (all of stdin in memory): same tag."""
    data = random.Random(method).randbytes(2 * CHUNK + 9)
    for cipher, tag in (("zuc128", "32"), ("zuc256", "64")):
        got = zuc(kcrypt, zuc_args(cipher, "mac", ZKEY[cipher], ZIV[cipher],
                                   ["--tag", tag, "--mac-method", method]), data)
        want = subprocess.run([str(oneshot), cipher, "mac", tag, ZKEY[cipher], ZIV[cipher]],
                              input=data, capture_output=True, check=True).stdout
        assert got == want, (cipher, method)


@pytest.mark.parametrize("length", [10, 3 * CHUNK])
def test_stream_full_disk(kcrypt, length):
    """Writing to /dev/full: exit status 1 and a message naming the error."""
    with open("/dev/full", "wb") as full:
        proc = subprocess.run([str(kcrypt), *STREAM_CASES["sm4-ctr"][0]], input=bytes(length),
                              stdout=full, stderr=subprocess.PIPE, timeout=60)
    assert proc.returncode == 1
    message = proc.stderr.decode()
    assert "writing stdout" in message and "No space left on device" in message, message


def test_write_error_while_stdin_waits(kcrypt):
    """The next piece is read on a second thread: when writing fails while that
    thread waits in read() on a pipe whose writer stays open and silent,
    kcrypt still ends at once (exit 1) instead of waiting for more input."""
    status, message = write_error_while_the_reader_waits(kcrypt)
    assert status == 1
    assert "No space left on device" in message


def write_error_while_the_reader_waits(kcrypt):
    """kcrypt sm4 ctr writing to /dev/full, fed one whole piece and a few
    bytes of the next through a pipe that stays open: (exit status, stderr)."""
    with open("/dev/full", "wb") as full:
        proc = subprocess.Popen([str(kcrypt), *STREAM_CASES["sm4-ctr"][0]], stdin=subprocess.PIPE,
                                stdout=full, stderr=subprocess.PIPE)
        try:
            proc.stdin.write(bytes(CHUNK + 5))  # one whole piece, then the reader waits for more
            proc.stdin.flush()
        except BrokenPipeError:
            pass  # kcrypt may fail on its first write and end before taking it all
        try:
            status = proc.wait(timeout=30)
        finally:
            proc.stdin.close()
            if proc.poll() is None:
                proc.kill()
    return status, proc.stderr.read().decode()


@pytest.fixture(scope="session")
def asan_kcrypt(harness_build, tmp_path_factory):
    """kcrypt's own sources built with AddressSanitizer by harness/c/Makefile,
    linked with the harness build's libraries (symbolic links in lib/)."""
    build = tmp_path_factory.mktemp("asan")
    (build / "lib").mkdir()
    for archive in (harness_build / "lib").glob("*.a"):
        (build / "lib" / archive.name).symlink_to(archive)
    cmd = ["make", "-s", "-C", str(REPO / "harness" / "c"), f"BUILD={build}",
           "CFLAGS=-O1 -g -fsanitize=address -fno-omit-frame-pointer -Wall -Wextra -std=c11", str(build / "kcrypt")]
    if os.environ.get("KC_GENERATED"):
        cmd.append(f"GENERATED={Path(os.environ['KC_GENERATED']).resolve()}")
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return build / "kcrypt"


def test_read_ahead_stops_cleanly_under_asan(asan_kcrypt):
    """The read-ahead thread is stopped without pthread_cancel, which
    AddressSanitizer misreports at the thread's exit (a sigaltstack
    "stack-buffer-underflow"): a write error while the reader waits in read()
    on a silent pipe, a reader that closes early, and a plain run all end
    with kcrypt's own status and no report."""
    args = STREAM_CASES["sm4-ctr"][0]
    status, message = write_error_while_the_reader_waits(asan_kcrypt)
    assert status == 1 and message == ("kcrypt: error: writing stdout: No space left on device\n"), message
    first = subprocess.run(["bash", "-c", f"{shlex.join([str(asan_kcrypt), *args])} < /dev/zero | head -c 10"],
                           capture_output=True, timeout=60)
    assert first.stdout == oracle("ctr", True, KEY, IV, bytes(10))
    assert "AddressSanitizer" not in first.stderr.decode(), first.stderr.decode()
    data = random.Random(6).randbytes(2 * CHUNK + 7)
    plain = run(asan_kcrypt, args, data)
    assert plain.returncode == 0 and plain.stderr == b"", plain.stderr.decode()
    assert plain.stdout == oracle("ctr", True, KEY, IV, data)


def test_ctr_pieces_apart_under_asan(asan_kcrypt, tmp_path):
    """The two threads of CTR's pieces from a regular file, under
    AddressSanitizer: a whole run, and a reader that takes 10 bytes and goes
    (the writer's EPIPE ends both threads with exit status 1)."""
    args = STREAM_CASES["sm4-ctr"][0]
    data = random.Random(7).randbytes(3 * CHUNK + 11)
    path = tmp_path / "in.bin"
    path.write_bytes(data)
    proc, _ = run_from_file(asan_kcrypt, args, path)
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr.decode()
    assert proc.stdout == oracle("ctr", True, KEY, IV, data)
    early = subprocess.run(["bash", "-c", f"{shlex.join([str(asan_kcrypt), *args])} < {shlex.quote(str(path))} "
                            "| head -c 10; exit ${PIPESTATUS[0]}"], capture_output=True, timeout=60)
    assert early.stdout == oracle("ctr", True, KEY, IV, data[:10])
    assert early.returncode == 1 and "Broken pipe" in early.stderr.decode(), early.stderr.decode()
    assert "AddressSanitizer" not in early.stderr.decode()


def test_stream_reader_closes_early(kcrypt, tmp_path):
    """A reader that takes 10 bytes and goes (head -c 10): kcrypt ends with exit
    status 1 and says the pipe broke, instead of hanging or dying silently."""
    src = tmp_path / "in.bin"
    src.write_bytes(bytes(16 * CHUNK))
    with open(src, "rb") as fin:
        proc = subprocess.Popen([str(kcrypt), *STREAM_CASES["zuc128-enc"][0]], stdin=fin,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        first = proc.stdout.read(10)
        proc.stdout.close()
        status = proc.wait(timeout=60)
    assert len(first) == 10
    assert status == 1
    message = proc.stderr.read().decode()
    assert "writing stdout" in message and "Broken pipe" in message, message
    # The same through the shell, as the issue puts it.
    command = shlex.join([str(kcrypt), *STREAM_CASES["sm4-ctr"][0]])
    sh = subprocess.run(["bash", "-c", f"{command} < {shlex.quote(str(src))}"
                         " | head -c 10 >/dev/null; echo ${PIPESTATUS[0]}"],
                        capture_output=True, text=True, timeout=60)
    assert sh.stdout.strip() == "1", sh


def test_stream_read_error(kcrypt, tmp_path):
    """stdin that cannot be read (a folder): exit status 1, the error named."""
    folder = os.open(tmp_path, os.O_RDONLY)
    try:
        proc = subprocess.run([str(kcrypt), *STREAM_CASES["sm4-ctr"][0]], stdin=folder,
                              capture_output=True, timeout=60)
    finally:
        os.close(folder)
    assert proc.returncode == 1 and proc.stdout == b""
    assert "reading stdin" in proc.stderr.decode()


@pytest.mark.parametrize("case", ["sm4-ctr", "sm4-cbc-dec", "zuc128-mac", "ublock128_128-ctr"])
def test_stream_memory_stays_flat(kcrypt, case, tmp_path):
    """96 MiB of input through a pipe: kcrypt's largest resident size, as
    /usr/bin/time -v reports it, is within 8 MiB of its size on 1 MiB (the
    whole-input version needed twice the input; the program's own pages,
    more of them under the sanitizers, are in both).  (Not os.wait4 on a
    child of Python: a forked child's high-water mark starts at its parent's size.)"""
    small, large = (peak_rss_kib([str(kcrypt), *STREAM_CASES[case][0]], n, tmp_path)[0] for n in (MiB, 96 * MiB))
    assert large - small < 8 * 1024, f"max RSS {large} KiB on 96 MiB, {small} KiB on 1 MiB"


def peak_rss_kib(command, nbytes, tmp_path, before="", after="> /dev/null", env=None):
    """(The largest resident size in KiB, /usr/bin/time -v, the pipeline's
    stdout) of `command` reading nbytes of zeros through a pipe, after
    `before` (a pipeline stage with its bar, if any), its output to `after`."""
    if not Path("/usr/bin/time").exists():
        pytest.fail("/usr/bin/time is needed (apt-get install time)")
    report = tmp_path / "time.txt"
    measured = shlex.join(["/usr/bin/time", "-v", "-o", str(report), *command])
    proc = subprocess.run(["bash", "-o", "pipefail", "-c", f"head -c {nbytes} /dev/zero | {before}{measured} {after}"],
                          capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    return int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", report.read_text())[1]), proc.stdout
