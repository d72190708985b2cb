"""The ZUC parts of the C harness beyond kcrypt: `verify` (its options and output
shape; the verdicts themselves are `make verify`'s business), `bench` (the ZUC
records it writes, with ipsec-mb beside ours), and the constant-time check's plan.

Built once per session by conftest.py's harness_build (`make -C harness/c`;
KC_BUILD_DIR, default <repo>/build; KC_GENERATED redirects generated/).
"""

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
HARNESS = REPO / "harness" / "c"


def run(args, timeout=300):
    env = dict(os.environ)
    env.pop("KC_DISABLE_TARGETS", None)
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=timeout,
                          env=env)


# --------------------------------------------------------------------------
# verify
# --------------------------------------------------------------------------

def test_verify_zuc_output_shape(harness_build):
    """One kernel, a few random cases: a shared section, the kernel's line, and a
    final count that counts exactly the PASS and FAIL lines."""
    proc = run([harness_build / "verify", "--cipher", "zuc", "--impl", "lanes_avx2_aesni", "--random",
                "3", "--seed", "7"])
    assert proc.returncode in (0, 1), proc.stderr
    lines = proc.stdout.splitlines()
    verdicts = [l for l in lines if re.match(r"(PASS|FAIL) ", l)]
    assert any(re.match(r"(PASS|FAIL) zuc api: \d+ checks", l) for l in verdicts), lines
    assert any(re.match(r"(PASS|FAIL) zuc lanes_avx2_aesni \(native\): \d+ vectors, \d+ "
                        r"differential cases", l) for l in verdicts), lines
    assert not any("byteslice" in l for l in lines), "--cipher zuc ran SM4"
    passed = sum(l.startswith("PASS") for l in verdicts)
    assert lines[-1] == f"{passed} passed, {len(verdicts) - passed} failed"
    assert (proc.returncode == 0) == (passed == len(verdicts))


def test_verify_names_the_ipsec_mb_oracle(harness_build):
    proc = run([harness_build / "verify", "--cipher", "zuc", "--impl", "reference_scalar", "--random", "1"])
    assert re.search(r"NOTE: ZUC oracle Intel ipsec-mb [\d.]+, job API, arch \w+", proc.stdout) or \
        "compare with the reference only" in proc.stdout


@pytest.mark.parametrize("args", [["--impl", "no_such_kernel"], ["--cipher", "aes"],
                                  ["--cipher", "zuc", "--impl", "byteslice_avx2_aesni"],
                                  ["--random"], ["--frobnicate"], ["--seed", "1x"],
                                  ["--random", "-1"], ["--iterated", "some"], ["extra"]])
def test_verify_bad_options(harness_build, args):
    proc = run([harness_build / "verify", *args])
    assert proc.returncode == 2 and "error" in proc.stderr and "passed" not in proc.stdout


# --------------------------------------------------------------------------
# bench
# --------------------------------------------------------------------------

def bench_json(harness_build, tmp_path, *args):
    out = tmp_path / "bench.json"
    proc = run([harness_build / "bench", "--sizes", "1500", "--time-ms", "1", "--reps", "1", "--no-report",
                "--json", out, *args])
    return proc, json.loads(out.read_text())


def test_bench_zuc_records(harness_build, tmp_path):
    proc, recs = bench_json(harness_build, tmp_path, "--cipher", "zuc128",
                            "--impl", "lanes_avx2_aesni,ipsec-mb")
    assert proc.returncode == 0, proc.stderr  # ZUC-128 agrees with the reference everywhere
    assert recs and {r["cipher"] for r in recs} == {"zuc128"}
    ours = [r for r in recs if r["impl"] == "ours"]
    peers = [r for r in recs if r["impl"] == "ipsec-mb"]
    assert {r["mode"] for r in ours} == {"keystream", "enc", "mac32"}
    assert {r["mode"] for r in peers} == {"enc", "mac32"}  # no keystream-only job
    for r in ours:
        assert r["name"] == "lanes_avx2_aesni" and r["lanes"] == 8 and r["arch"] is None
        if r["mode"] != "mac32":
            assert r["mac_method"] is None
        assert r["streams"] == 16  # ZUC_LANES_MAX: every lane of every kernel busy
    assert sorted(r["mac_method"] for r in ours if r["mode"] == "mac32") == ["clmul", "compare"]
    for r in peers:
        assert r["name"] == f"ipsec-mb_{r['arch']}" and r["mac_method"] is None
        assert "ipsec-mb" in r["target"] and r["streams"] == 16
    assert any("init_mb_mgr_auto" in r["target"] for r in peers)
    for r in recs:
        assert r["verified"] is True and r["msg_bytes"] == 1500 and r["gbps"] > 0
        # Gbit/s and c/B count every message of the call.
        assert r["gbps"] == pytest.approx(16 * 1500 * 8 / r["seconds"] / 1e9, rel=1e-3)
        assert r["cpb"] == pytest.approx(r["seconds"] * r["clock_ghz"] * 1e9 / (16 * 1500),
                                         rel=1e-3)


def test_bench_zuc_streams_and_limits(harness_build, tmp_path):
    """--streams sets the messages per call (a keystream cell rounds up to whole
    lane groups); ipsec-mb is not asked for more than its 8188-byte limit."""
    out = tmp_path / "b.json"
    proc = run([harness_build / "bench", "--cipher", "zuc256", "--impl", "lanes_avx2_aesni,ipsec-mb",
                "--mode", "keystream,enc", "--streams", "5", "--sizes", "64,9000",
                "--time-ms", "1", "--reps", "1", "--no-report", "--json", out])
    recs = json.loads(out.read_text())
    ks = [r for r in recs if r["mode"] == "keystream"]
    enc = [r for r in recs if r["mode"] == "enc"]
    assert ks and all(r["streams"] == 8 for r in ks)
    assert enc and all(r["streams"] == 5 for r in enc)
    assert {r["msg_bytes"] for r in enc if r["impl"] == "ours"} == {64, 9000}
    assert {r["msg_bytes"] for r in enc if r["impl"] == "ipsec-mb"} == {64}
    assert "above its limit of 8188 bytes" in proc.stderr


@pytest.mark.parametrize("args", [["--mode", "ctr,mac256"], ["--cipher", "zuc512"],
                                  ["--streams", "0"], ["--streams", "257"], ["--streams", "8x"],
                                  ["--loops", "0"], ["--reps", "x"], ["--sizes", "1Q"],
                                  ["--json"], ["extra"]])
def test_bench_bad_options(harness_build, args):
    proc = run([harness_build / "bench", *args])
    assert proc.returncode == 2 and proc.stdout == ""


def test_bench_list_covers_zuc(harness_build):
    proc = run([harness_build / "bench", "--list", "--cipher", "zuc128,zuc256"])
    assert proc.returncode == 0, proc.stderr
    rows = [l.split() for l in proc.stdout.splitlines()]
    assert {r[0] for r in rows} == {"zuc128", "zuc256"}
    assert any(r[2] == "ipsec-mb" for r in rows)
    assert not any(r[0] == "zuc128" and r[3] in ("mac64", "mac128") for r in rows)


# --------------------------------------------------------------------------
# ctcheck's plan
# --------------------------------------------------------------------------

@pytest.fixture(scope="session")
def ctcheck(harness_build, tmp_path_factory):
    """ctcheck linked with the ordinary libraries: enough for --plan."""
    exe = tmp_path_factory.mktemp("ct") / "ctcheck"
    gen = Path(os.environ.get("KC_GENERATED", REPO / "generated")).resolve()
    # ctcheck.c and every description with what it uses: harness/c but the
    # other programs' mains, and the harness build's vector tables (as
    # ctcheck.mk builds it, without peers).
    srcs = [p for p in sorted(HARNESS.glob("*.c")) if p.name not in ("kcrypt.c", "verify.c", "bench.c")]
    srcs.append(harness_build / "harness" / "vector_tables.c")
    libs = [harness_build / "lib" / "libkcrypt_emulated.a", harness_build / "lib" / "libkcrypt.a"]
    proc = subprocess.run(["gcc", "-std=c11", "-O1", "-Wno-psabi", "-DKC_NO_PEERS", "-pthread",
                           f"-I{gen / 'include'}",
                           f"-I{HARNESS}", "-o", str(exe), *map(str, srcs), *map(str, libs)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip(f"cannot harness_build ctcheck here (valgrind or SIMDe headers?): {proc.stderr[-500:]}")
    return exe


def test_ctcheck_plan_covers_every_zuc_kernel(ctcheck, harness_build):
    plan = run([ctcheck, "--plan"]).stdout.splitlines()
    units = {l.split()[0]: l.split()[1:] for l in plan}
    listed = [l for l in run([harness_build / "kcrypt", "--list-impls", "zuc128"]).stdout.splitlines()
              if not l.startswith("dispatch ")]
    for _, strategy, target, _ in (l.split() for l in listed):
        unit = f"zuc_{strategy}_{target}"
        assert unit in units, unit
        emulated, how, expect = units[unit]
        assert expect == ("leak" if strategy == "reference" else "clean")
        if ("gfni" in target or "avx512" in target) and target.endswith("_asm"):
            assert (emulated, how) == ("0", "none")     # assembly has no SIMDe build
        elif "gfni" in target or "avx512" in target:
            assert (emulated, how) == ("1", "simde")
        elif "vaes" in target:
            assert how == "native-split-vaes"
    assert units["zuc_one_stream"] == ["0", "native", "clean"]
    assert units["sm4_reference_scalar"][2] == "leak"
    assert units["simde_portable_gfni"] == ["0", "control", "leak"]
