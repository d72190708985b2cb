"""harness/stream_check.py, the streaming-kcrypt acceptance report, on tiny sizes:
it must run end to end (both checks passing, bench's figures found) and print its
tables, so that the full-size run keeps working.  Uses the harness build
(KC_BUILD_DIR, see conftest.harness_build)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "harness"))

import stream_check  # noqa: E402


def test_parse_size():
    assert stream_check.parse_size("4G") == 4 << 30
    assert stream_check.parse_size("300M") == 300 << 20
    assert stream_check.parse_size("7") == 7
    with pytest.raises(Exception):
        stream_check.parse_size("4 GB")


def test_stream_check_runs_small(harness_build, tmp_path):
    out = tmp_path / "stream.json"
    cmd = [sys.executable, str(REPO / "harness" / "stream_check.py"), "--build", str(harness_build),
           "--size", "3M", "--zuc-size", "2M", "--perf-size", "1M", "--reps", "1",
           "--json", str(out), "--work", str(tmp_path)]
    env = dict(os.environ)
    if os.environ.get("KC_GENERATED"):
        cmd += ["--generated", os.environ["KC_GENERATED"]]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    text = proc.stdout
    assert "| check | result | detail |" in text
    assert text.count("| PASS |") == 2, text
    assert "CPU: " in text and "model name" in text
    rows = [line for line in text.splitlines()
            if line.startswith(("| SM4 CTR", "| uBlock-128/128 CTR", "| ZUC-128 enc"))]
    assert len(rows) == 3, text
    doc = json.loads(out.read_text())
    assert Path(str(out) + ".md").read_text() == text
    assert [c["ok"] for c in doc["checks"]] == [True, True]
    assert doc["checks"][0]["sha256_kcrypt"] == doc["checks"][0]["sha256_openssl"]
    assert all(c["max_rss_kib"] < 64 * 1024 for c in doc["checks"])
    for row in doc["throughput"]["rows"]:
        assert row["kcrypt_gbps"] > 0 and row["bench_gbps"] and row["ratio"] > 0, row
