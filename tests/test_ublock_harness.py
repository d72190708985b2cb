"""The uBlock parts of the C harness, end to end: `kcrypt ublock128_128 |
ublock128_256 | ublock256_256` (round trips against the Python reference model
gen.kernels.ublock_reference on every implementation, the official vectors, counter
wrap-around across the block's full width, and every error path), `verify --cipher
ublock`, `bench` (the uBlock records, and the report's uBlock sections) and the
constant-time check of every uBlock kernel under valgrind.

Built once per session by conftest.py's harness_build (`make -C harness/c`;
KC_BUILD_DIR, default <repo>/build; KC_GENERATED redirects generated/).
The implementations are taken from `kcrypt --list-impls`, never a fixed list.
"""

import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
if str(REPO / "harness") not in sys.path:
    sys.path.insert(0, str(REPO / "harness"))

from gen.kernels import ublock_reference as uref  # noqa: E402

import report  # noqa: E402

# name: (block bits, key bits)
VARIANTS = {"ublock128_128": (128, 128), "ublock128_256": (128, 256),
            "ublock256_256": (256, 256)}
MODES = ("ecb", "cbc", "ctr")


# --------------------------------------------------------------------------
# Building and running
# --------------------------------------------------------------------------

def run(args, data=b"", env_extra=None, timeout=600):
    env = dict(os.environ)
    env.pop("KC_DISABLE_TARGETS", None)
    if env_extra:
        env.update(env_extra)
    return subprocess.run([str(a) for a in args], input=data, capture_output=True, env=env,
                          timeout=timeout)


def kcrypt(harness_build, args, data=b"", env_extra=None):
    """kcrypt's output; fails the test on a non-zero exit or any stderr."""
    proc = run([harness_build / "kcrypt", *args], data, env_extra)
    assert proc.returncode == 0, f"kcrypt {' '.join(map(str, args))}: {proc.stderr.decode()}"
    assert proc.stderr == b"", proc.stderr.decode()
    return proc.stdout


def crypt_args(variant, mode, encrypt, key, iv, extra=()):
    args = [variant, mode, "-e" if encrypt else "-d", "-k", key]
    if iv is not None:
        args += ["-i", iv]
    return [*args, *extra]


@pytest.fixture(scope="session")
def impls(harness_build):
    """Every uBlock implementation as (strategy, target, status); the three
    variants list the same ones."""
    rows = {}
    for variant in VARIANTS:
        proc = run([harness_build / "kcrypt", "--list-impls", variant])
        assert proc.returncode == 0, proc.stderr.decode()
        lines = [line.split() for line in proc.stdout.decode().splitlines() if not line.startswith("dispatch ")]
        assert lines and all(len(r) == 4 and r[0] == variant for r in lines), lines
        rows[variant] = [(s, t, st) for _, s, t, st in lines]
    first = rows["ublock128_128"]
    assert all(r == first for r in rows.values())
    assert ("reference", "scalar", "native") in first
    return first


def selections(impls):
    """The default choice, then kcrypt flags for every implementation this
    machine runs (natively, or its SIMDe build with --emulated)."""
    out = [[]]
    for strategy, target, status in impls:
        if status != "unavailable":
            out.append(["-s", strategy, "-t", target] + (["--emulated"] if status == "emulated"
                                                         else []))
    return out


# --------------------------------------------------------------------------
# The Python model
# --------------------------------------------------------------------------

def model(variant, mode, encrypt, key_hex, iv_hex, data):
    block, key_bits = VARIANTS[variant]
    key = bytes.fromhex(key_hex)
    if mode == "ecb":
        return uref.ecb(block, key_bits, key, data, encrypt)
    if mode == "cbc":
        return uref.cbc(block, key_bits, key, bytes.fromhex(iv_hex), data, encrypt)
    return uref.ctr(block, key_bits, key, bytes.fromhex(iv_hex), data)


def random_case(seed, variant, mode, length):
    block, key_bits = VARIANTS[variant]
    rng = random.Random(seed)
    key = rng.randbytes(key_bits // 8).hex()
    iv = rng.randbytes(block // 8).hex() if mode != "ecb" else None
    return key, iv, rng.randbytes(length)


def load_vectors():
    path = Path(os.environ.get("KC_VECTORS_DIR", REPO / "tests" / "vectors")) / "ublock.json"
    if not path.is_file():
        pytest.fail(f"{path} not found: restore tests/vectors or set KC_VECTORS_DIR")
    return json.loads(path.read_text())["vectors"]


def variant_of(vector):
    return "ublock" + vector["variant"].replace("/", "_")


# --------------------------------------------------------------------------
# kcrypt: correctness
# --------------------------------------------------------------------------

def test_python_model_reproduces_the_vectors():
    """The oracle of these tests is itself right (single iterations)."""
    for v in load_vectors():
        if v.get("iterations", 1) == 1:
            out = model(variant_of(v), "ecb", True, v["key"], None, bytes.fromhex(v["plaintext"]))
            assert out.hex() == v["ciphertext"]


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("mode,blocks,extra", [
    ("ecb", 0, 0), ("ecb", 1, 0), ("ecb", 67, 0), ("cbc", 1, 0), ("cbc", 40, 0),
    ("ctr", 0, 0), ("ctr", 0, 1), ("ctr", 1, 5), ("ctr", 70, 3),
])
def test_round_trip_default_impl(harness_build, variant, mode, blocks, extra):
    block_bytes = VARIANTS[variant][0] // 8
    length = blocks * block_bytes + extra
    key, iv, data = random_case(length * 7 + MODES.index(mode), variant, mode, length)
    ct = kcrypt(harness_build, crypt_args(variant, mode, True, key, iv), data)
    assert ct == model(variant, mode, True, key, iv, data)
    assert kcrypt(harness_build, crypt_args(variant, mode, False, key, iv), ct) == data
    # Decrypting arbitrary input also matches the model.
    assert kcrypt(harness_build, crypt_args(variant, mode, False, key, iv), data) == \
        model(variant, mode, False, key, iv, data)


def test_every_impl_against_the_model(harness_build, impls):
    """Each implementation, selected with -s/-t (and --emulated), every variant
    and mode, both directions, lengths over several batches with a tail."""
    for variant in VARIANTS:
        block_bytes = VARIANTS[variant][0] // 8
        for mode in MODES:
            length = 150 * block_bytes + (11 if mode == "ctr" else 0)
            key, iv, data = random_case(hash((variant, mode)) & 0xFFFF, variant, mode, length)
            want = {enc: model(variant, mode, enc, key, iv, data) for enc in (True, False)}
            for flags in selections(impls):
                for enc in (True, False):
                    got = kcrypt(harness_build, crypt_args(variant, mode, enc, key, iv, flags), data)
                    assert got == want[enc], (variant, mode, enc, flags)


def test_official_vectors_on_every_impl(harness_build, impls):
    """tests/vectors/ublock.json through the CLI (the iterated ones would take
    a process per iteration here: build/verify runs those on every kernel)."""
    checked = 0
    for v in load_vectors():
        if v.get("iterations", 1) != 1:
            continue
        pt, ct = bytes.fromhex(v["plaintext"]), bytes.fromhex(v["ciphertext"])
        for flags in selections(impls):
            args = crypt_args(variant_of(v), "ecb", True, v["key"], None, flags)
            assert kcrypt(harness_build, args, pt) == ct, (v, flags)
            args = crypt_args(variant_of(v), "ecb", False, v["key"], None, flags)
            assert kcrypt(harness_build, args, ct) == pt, (v, flags)
            checked += 1
    assert checked >= 3 * len(selections(impls))


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("pattern", ["wrap", "low64", "low32", "byte"])
def test_ctr_counter_carries_across_the_whole_block(harness_build, impls, variant, pattern):
    """CTR counts the whole block (128 or 256 bits) as one big-endian integer:
    all ones wraps to zero; carries out of the low 32/64 bits and a byte."""
    block_bytes = VARIANTS[variant][0] // 8
    iv = {"wrap": "ff" * block_bytes,
          "low64": "00" * (block_bytes - 8) + "ff" * 7 + "fd",
          "low32": "12" * (block_bytes - 4) + "ff" * 3 + "f0",
          "byte": "34" * (block_bytes - 1) + "f8"}[pattern]
    key, _, data = random_case(5, variant, "ctr", 40 * block_bytes + 9)
    want = model(variant, "ctr", True, key, iv, data)
    for flags in selections(impls):
        assert kcrypt(harness_build, crypt_args(variant, "ctr", True, key, iv, flags), data) == want, flags


def test_large_input(harness_build):
    key, iv, data = random_case(9, "ublock256_256", "ctr", (1 << 16) + 5)
    got = kcrypt(harness_build, crypt_args("ublock256_256", "ctr", True, key, iv), data)
    assert got == model("ublock256_256", "ctr", True, key, iv, data)


def test_listing_and_help(harness_build, impls):
    text = run([harness_build / "kcrypt", "--help"]).stdout.decode()
    for variant in VARIANTS:
        assert f"  {variant} ecb|cbc|ctr" in text
    targets = dict(l.split() for l in run([harness_build / "kcrypt", "--list-targets", "ublock256_256"])
                   .stdout.decode().splitlines())
    assert targets["scalar"] == "native"
    for _, target, status in impls:
        assert target in targets
    strategies = {s for s, _, _ in impls}
    assert "reference" in strategies and strategies - {"reference"}, strategies


# --------------------------------------------------------------------------
# kcrypt: errors
# --------------------------------------------------------------------------

K16, K32 = "0123456789abcdeffedcba9876543210", "00112233445566778899aabbccddeeff" * 2
I16, I32 = "000102030405060708090a0b0c0d0e0f", "f0" * 32
B16, B32 = bytes(range(16)), bytes(range(32))

ERROR_CASES = {
    # name: (arguments, stdin, a piece of the message)
    "missing direction": (["ublock128_128", "ecb", "-k", K16], B16, "-e"),
    "both directions": (["ublock128_128", "ecb", "-e", "-d", "-k", K16], B16, "only one"),
    "missing key": (["ublock128_256", "ecb", "-e"], B16, "64 hex digits"),
    "unknown mode": (["ublock128_128", "xts", "-e", "-k", K16], B16, "unknown ublock128_128 mode"),
    "key odd hex": (["ublock128_128", "ecb", "-e", "-k", K16 + "0"], B16, "odd number"),
    "key non-hex": (["ublock128_128", "ecb", "-e", "-k", "g" + K16[1:]], B16, "'g'"),
    "key 32 bytes for 128/128": (["ublock128_128", "ecb", "-e", "-k", K32], B16,
                                 "16 bytes (32 hex digits), got 32"),
    "key 16 bytes for 128/256": (["ublock128_256", "ecb", "-e", "-k", K16], B16,
                                 "32 bytes (64 hex digits), got 16"),
    "key 16 bytes for 256/256": (["ublock256_256", "ecb", "-e", "-k", K16], B32,
                                 "32 bytes (64 hex digits), got 16"),
    "key 31 bytes": (["ublock256_256", "ecb", "-e", "-k", K32[:62]], B32, "got 31 bytes"),
    "empty key": (["ublock128_128", "ecb", "-e", "-k", ""], B16, "got 0 bytes"),
    "ecb with iv": (["ublock128_128", "ecb", "-e", "-k", K16, "-i", I16], B16, "takes no IV"),
    "cbc without iv": (["ublock128_256", "cbc", "-e", "-k", K32], B16, "needs an IV"),
    "ctr without iv": (["ublock256_256", "ctr", "-d", "-k", K32], B32, "64 hex digits"),
    "iv 32 bytes for 128-bit block": (["ublock128_128", "cbc", "-e", "-k", K16, "-i", I32], B16,
                                      "16 bytes (32 hex digits), got 32"),
    "iv 16 bytes for 256-bit block": (["ublock256_256", "ctr", "-e", "-k", K32, "-i", I16], B32,
                                      "32 bytes (64 hex digits), got 16"),
    "iv non-hex": (["ublock128_128", "ctr", "-e", "-k", K16, "-i", I16[:31] + "z"], B16, "'z'"),
    "ecb partial block": (["ublock128_128", "ecb", "-e", "-k", K16], bytes(15), "multiple"),
    "ecb 16 bytes on a 32-byte block": (["ublock256_256", "ecb", "-d", "-k", K32], B16,
                                        "32-byte ublock256_256 block"),
    "cbc block and a byte": (["ublock128_256", "cbc", "-e", "-k", K32, "-i", I16], bytes(17),
                             "17 bytes"),
    "cbc 48 bytes on a 32-byte block": (["ublock256_256", "cbc", "-d", "-k", K32, "-i", I32],
                                        bytes(48), "48 bytes"),
    "unknown target": (["ublock128_128", "ecb", "-e", "-k", K16, "-t", "pentium"], B16,
                       "unknown ublock128_128 target 'pentium'"),
    "sm4 target": (["ublock128_128", "ecb", "-e", "-k", K16, "-t", "avx2_gfni"], B16,
                   "unknown ublock128_128 target"),
    "unknown strategy": (["ublock128_128", "ecb", "-e", "-k", K16, "-s", "byteslice"], B16,
                         "unknown ublock128_128 strategy"),
    "no reference on avx2": (["ublock128_128", "ecb", "-e", "-k", K16, "-s", "reference",
                              "-t", "avx2"], B16, "no ublock128_128 implementation"),
    "emulated without target": (["ublock128_128", "ecb", "-e", "-k", K16, "--emulated"], B16,
                                "needs a target"),
    "no emulated scalar": (["ublock128_128", "ecb", "-e", "-k", K16, "-t", "scalar",
                            "--emulated"], B16, "no emulated"),
    "zuc option": (["ublock128_128", "ctr", "-e", "-k", K16, "-i", I16, "--tag", "32"], B16,
                   "takes no --tag"),
    "variant unknown": (["ublock64_128", "ecb", "-e", "-k", K16], B16, "unknown cipher"),
}


@pytest.mark.parametrize("name", list(ERROR_CASES))
def test_error_cases(harness_build, name):
    args, data, piece = ERROR_CASES[name]
    proc = run([harness_build / "kcrypt", *args], data)
    assert proc.returncode == 2, f"{name}: exit status {proc.returncode}"
    assert proc.stdout == b"", f"{name}: wrote to stdout"
    message = proc.stderr.decode()
    assert message.startswith("kcrypt: error: "), message
    assert piece in message, f"{name}: {message!r} lacks {piece!r}"


def test_error_target_not_native_via_hook(harness_build, impls):
    """A target the CPU cannot run is refused (simulated with
    KC_DISABLE_TARGETS); --emulated still runs its SIMDe build."""
    simd = sorted({t for _, t, s in impls if s == "native" and t != "scalar"})
    if not simd:
        pytest.skip("no native SIMD target on this machine to disable")
    key, iv, data = random_case(3, "ublock128_256", "ctr", 333)
    want = model("ublock128_256", "ctr", True, key, iv, data)
    for target in simd:
        hook = {"KC_DISABLE_TARGETS": target}
        proc = run([harness_build / "kcrypt", *crypt_args("ublock128_256", "ctr", True, key, iv,
                                                   ["-t", target])], data, hook)
        assert proc.returncode == 2 and proc.stdout == b""
        assert "natively" in proc.stderr.decode()
        for strategy in sorted({s for s, t, st in impls if t == target and st == "emulated"}):
            flags = ["-s", strategy, "-t", target, "--emulated"]
            got = kcrypt(harness_build, crypt_args("ublock128_256", "ctr", True, key, iv, flags), data,
                         hook)
            assert got == want, flags


# --------------------------------------------------------------------------
# verify
# --------------------------------------------------------------------------

@pytest.fixture(scope="session")
def verify_run(harness_build):
    """One `verify --cipher ublock --quick --iterated serial` run: (exit status,
    stdout).  The 1,000,000-fold vectors run on the serial kernel only: `make
    test`'s verify stage runs them on every kernel."""
    proc = run([harness_build / "verify", "--cipher", "ublock", "--quick", "--iterated", "serial"],
               timeout=1800)
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


VECTORS = json.loads((REPO / "tests" / "vectors" / "ublock.json").read_text())["vectors"]


def test_verify_ublock_passes_on_every_impl(verify_run, impls):
    rc, out, err = verify_run
    serial = re.search(r"on the serial kernel (\S+) \(ublock_impl_serial\)", out).group(1)
    lines = out.splitlines()
    assert rc == 0, out + err[-3000:]
    assert re.match(r"PASS ublock api: \d+ checks", lines[1]), lines
    for strategy, target, status in impls:
        if status == "unavailable":
            continue
        pattern = rf"PASS ublock {strategy}_{target} \({status}\): (\d+) vectors, (\d+) differential"
        m = next((re.match(pattern, l) for l in lines if re.match(pattern, l)), None)
        assert m, f"no PASS line for {strategy}_{target} ({status})"
        # Every vector, both directions, on the serial kernel; the others
        # leave out the iterated ones (--iterated serial).
        iterated = f"{strategy}_{target}" == serial and status == "native"
        want = len(VECTORS) if iterated else sum(v.get("iterations", 1) == 1 for v in VECTORS)
        assert int(m.group(1)) == 2 * want and int(m.group(2)) > 3000
    verdicts = [l for l in lines if re.match(r"(PASS|FAIL) ", l)]
    assert lines[-1] == f"{len(verdicts)} passed, 0 failed"
    assert "sm4" not in out.lower() and "zuc" not in out.lower()


def test_verify_iterated_native_leaves_them_out_of_simde_builds(harness_build):
    """--iterated native (make test's verify stage): the native build of a
    kernel runs every vector, its SIMDe build the un-iterated ones."""
    proc = run([harness_build / "verify", "--cipher", "ublock", "--impl", "register_avx512",
                "--random", "0", "--iterated", "native"])
    out = proc.stdout.decode()
    assert proc.returncode == 0, out
    rows = re.findall(r"PASS ublock register_avx512 \((native|emulated)\): (\d+) vectors", out)
    assert rows, out
    every, once = len(VECTORS), sum(v.get("iterations", 1) == 1 for v in VECTORS)
    for status, n in rows:
        assert int(n) == 2 * (every if status == "native" else once), (status, n)


def test_verify_names_the_serial_kernel(verify_run, harness_build):
    _, out, _ = verify_run
    notes = [l for l in out.splitlines() if l.startswith("NOTE: ublock")]
    assert len(notes) == 3, notes
    for variant, note in zip(VARIANTS, notes):
        assert note.startswith(f"NOTE: {variant} vectors, the 1,000,000-fold iterations included, "
                               "on the serial kernel ")


def test_verify_fails_on_a_wrong_vector(harness_build, tmp_path):
    """A verify built with a wrong ciphertext in its vectors fails (exit 1), naming it.
    The vectors are compiled in (harness/vectors_c.py): harness/c's Makefile links this
    second verify from the harness build's objects and a table of tmp_path's files."""
    folder = Path(os.environ.get("KC_VECTORS_DIR", REPO / "tests" / "vectors"))
    for name in ("sm4.json", "zuc.json"):
        (tmp_path / name).write_text((folder / name).read_text())
    doc = json.loads((folder / "ublock.json").read_text())
    doc["vectors"] = [v for v in doc["vectors"] if v.get("iterations", 1) == 1]
    ct = bytearray.fromhex(doc["vectors"][0]["ciphertext"])
    ct[3] ^= 1
    doc["vectors"][0]["ciphertext"] = ct.hex()
    (tmp_path / "ublock.json").write_text(json.dumps(doc))
    make = subprocess.run(["make", "-s", "-C", str(REPO / "harness" / "c"), f"BUILD={harness_build}",
                           f"VECTORS_DIR={tmp_path}", f"VECTORS_BUILD={tmp_path}", f"{tmp_path}/verify",
                           *[f"GENERATED={Path(g).resolve()}" for g in [os.environ.get("KC_GENERATED")] if g]],
                          capture_output=True, text=True, timeout=120)
    assert make.returncode == 0, make.stdout[-3000:] + make.stderr[-3000:]
    proc = run([tmp_path / "verify", "--cipher", "ublock", "--impl", "reference_scalar", "--random", "0"])
    assert f"verify: 3 ublock vectors from {tmp_path}/ublock.json" in proc.stderr.decode()
    out = proc.stdout.decode()
    assert proc.returncode == 1, out
    assert re.search(r"FAIL ublock reference_scalar \(native\): 4 vectors", out), out
    assert "ublock128_128 ecb vector #1" in out and "wrong output from byte 3" in out


@pytest.mark.parametrize("args", [["--cipher", "ublock", "--impl", "byteslice_avx2_gfni"],
                                  ["--cipher", "ublock128"]])
def test_verify_bad_options(harness_build, args):
    proc = run([harness_build / "verify", *args])
    assert proc.returncode == 2 and "error" in proc.stderr.decode()
    assert "passed" not in proc.stdout.decode()


# --------------------------------------------------------------------------
# bench
# --------------------------------------------------------------------------

BENCH_LOOPS = 2000  # the one-block loop's encryptions per test, kept short here


@pytest.fixture(scope="session")
def bench_records(harness_build, tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "bench.json"
    proc = run([harness_build / "bench", "--cipher", "ublock128_128,ublock256_256", "--sizes", "256,4K",
                "--time-ms", "1", "--reps", "1", "--loops", str(BENCH_LOOPS), "--no-report", "--json", out])
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    return json.loads(out.read_text())


def test_bench_records(bench_records, impls):
    recs = [r for r in bench_records if not r["loops"]]  # the buffer records
    assert {r["cipher"] for r in recs} == {"ublock128_128", "ublock256_256"}
    native = {f"{s}_{t}" for s, t, st in impls if st == "native"}
    assert {r["name"] for r in recs} == native  # both strategies, every native target
    for r in recs:
        assert r["impl"] == "ours" and r["verified"] is True and r["emulated"] is False
        assert r["name"] == f"{r['strategy']}_{r['target']}" and r["lanes"] >= 1
        assert r["msg_bytes"] in (256, 4096) and r["gbps"] > 0
        n = r["streams"]
        assert r["gbps"] == pytest.approx(n * r["msg_bytes"] * 8 / r["seconds"] / 1e9, rel=1e-3)
        assert r["cpb"] == pytest.approx(r["seconds"] * r["clock_ghz"] * 1e9 /
                                         (n * r["msg_bytes"]), rel=1e-3)
    for name in native:
        modes = {(r["mode"], r["streams"]) for r in recs if r["name"] == name}
        single = {("ecb-enc", 1), ("ecb-dec", 1), ("cbc-dec", 1), ("ctr", 1)}
        assert single <= modes, (name, modes)
        # CBC encryption is timed as the paper does it: 4 keys, 4 streams, where
        # the kernel has a multi-key entry (register; the reference).
        assert modes - single <= {("cbc-enc", 4)}
        if name.startswith("register_"):
            assert ("cbc-enc", 4) in modes, name
        if name.startswith("nibbleslice_"):
            assert ("cbc-enc", 4) not in modes, name


def test_bench_one_block_loops(bench_records, impls, harness_build):
    """The paper's own measurement (mode block-loop): one block encrypted
    --loops times per call, for every native register kernel (the paper's
    method; one key and four keys) and for the kernel dispatch picks for bulk
    work (kcrypt --list-impls: "dispatch ublock128_128 bulk KERNEL ...")."""
    loops = [r for r in bench_records if r["loops"]]
    native = [f"{s}_{t}" for s, t, st in impls if st == "native"]
    registers = {n for n in native if n.startswith("register_")}
    listed = run([harness_build / "kcrypt", "--list-impls", "ublock128_128"]).stdout.decode().splitlines()
    best = next(line.split()[3] for line in listed if line.startswith("dispatch ublock128_128 bulk "))
    assert registers
    for cipher, block in (("ublock128_128", 16), ("ublock256_256", 32)):
        mine = [r for r in loops if r["cipher"] == cipher]
        got = {(r["name"], r["streams"]): r for r in mine}
        assert len(got) == len(mine)  # one record per kernel and key count
        want = {(n, k) for n in registers for k in (1, 4)} | {(best, 1)}
        assert set(got) == want
        for (name, streams), r in got.items():
            assert r["mode"] == "block-loop" and r["loops"] == BENCH_LOOPS and r["iters"] == 1
            assert r["msg_bytes"] == block and r["verified"] is True and r["tests"] == 1
            roles = r["role"].split("+")
            assert ("paper-method" in roles) == name.startswith("register_"), r
            assert ("fastest" in roles) == (name == best), r
            # Gbit/s count every encryption of the loop, of every key.
            total = streams * block * BENCH_LOOPS
            assert r["gbps"] == pytest.approx(total * 8 / r["seconds"] / 1e9, rel=1e-3)
            assert r["gbps_mean"] == pytest.approx(r["gbps"], rel=1e-3)  # one test
            assert r["cpb"] == pytest.approx(r["seconds"] * r["clock_ghz"] * 1e9 / total, rel=1e-3)


def test_report_has_the_ublock_sections(bench_records, tmp_path):
    md = report.render_markdown(bench_records)
    heads = [l for l in md.splitlines() if l.startswith("## ")]
    assert heads == ["## uBlock-128/128 throughput", "## uBlock-256/256 throughput",
                     f"## uBlock, the paper's method: one block, {BENCH_LOOPS:,} times (fewer than "
                     "the paper's 1,000,000: a quick run)",
                     "## uBlock: the issue's targets (one run)"]
    assert "### Strategies side by side at 4 KiB" in md
    assert ("| paper: one key (reference line) | AVX2, the paper's code | one block, 1,000,000 "
            "times, mean of 10 | 7.205 | 4.11 | – | – |") in md
    assert ("| paper: four keys, CBC (reference line) | AVX2, the paper's code | one block per key, "
            "4 keys, CBC, 1,000,000 times, mean of 10 | 2.813 | 10.52 | – | – |") in md
    # Like for like: the one-block loops; the buffer figures say they are not.
    assert "| ours: the paper's method, one key | `register_avx2` | one block" in md
    assert "| yes: the paper's measurement |" in md
    assert "| no: a 4 KiB buffer, not one block |" in md
    # Buffer tables hold no one-block loops.
    assert "block-loop" not in md
    assert "AMD Ryzen 9 5900X" in md and "c/B = seconds x clock / (streams x bytes)" in md
    targets = md.split("## uBlock: the issue's targets")[1]
    assert "≥ 21.61 Gbit/s" in targets and "≥ 9.55 Gbit/s" in targets and "≥ 4.00×" in targets
    rows = [l for l in targets.splitlines() if l.startswith("| uBlock-")]
    assert rows and all(l.rstrip().endswith(("| met |", "| NOT met |", "| – |")) for l in rows)


def test_report_ratios_on_synthetic_records():
    """The targets table computes its ratios from the records it is given."""
    def rec(cipher, name, mode, gbps, streams=1):
        strategy, target = name.split("_", 1)
        return {"cipher": cipher, "impl": "ours", "name": name, "strategy": strategy,
                "target": target, "mode": mode, "msg_bytes": 65536, "streams": streams,
                "lanes": 32, "gbps": gbps, "cpb": 1.0, "verified": True}
    recs = [rec("ublock128_128", "nibbleslice_avx2", "ctr", 43.23),
            rec("ublock128_128", "register_avx2", "ctr", 8.0),
            rec("ublock128_128", "register_avx2", "cbc-enc", 6.34, streams=4),
            rec("ublock256_256", "nibbleslice_avx2", "ctr", 9.0)]
    md = report.render_markdown(recs)
    assert "| uBlock-128/128 CTR, `nibbleslice_avx2` | 64 KiB | 43.23 Gbit/s | ≥ 21.61 Gbit/s | " \
           "2.00× | met |" in md
    assert "| uBlock-128/128 CTR, `nibbleslice_avx2` / `register_avx2` | 64 KiB | 5.40× | " \
           "≥ 4.00× | 1.35× | met |" in md
    assert "| uBlock-256/256 CTR, `nibbleslice_avx2` | 64 KiB | 9.00 Gbit/s | ≥ 9.55 Gbit/s | " \
           "0.94× | NOT met |" in md
    assert "| ours: the paper's method, four keys | `register_avx2` | cbc-enc, 4 keys, 64 KiB " \
           "messages | 6.340 | 1.00 | 1.00× | no: a 64 KiB buffer, not one block |" in md
    assert "| avx2 | ctr | 8.00 | 1.00 | 43.23 | 1.00 | 5.40× |" in md
