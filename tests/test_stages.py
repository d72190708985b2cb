"""harness/stages.py, the runner of `make test`'s stages: groups in order,
a failing stage fails the run and stops later groups, logs and the table."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def stages(tmp_path, *words):
    proc = subprocess.run([sys.executable, str(ROOT / "harness" / "stages.py"), "--logs", str(tmp_path / "logs"),
                           "--table", str(tmp_path / "t.md"), "--jobs", "2", *words],
                          capture_output=True, text=True, timeout=60)
    return proc.returncode, proc.stdout


def test_every_stage_runs_and_the_table_lists_them(tmp_path):
    rc, out = stages(tmp_path, "a=echo one", "b=echo two", "--then", "c=echo three")
    assert rc == 0, out
    assert (tmp_path / "logs" / "b.log").read_text() == "two\n"
    table = (tmp_path / "t.md").read_text().splitlines()
    assert [row.split("|")[1].strip() for row in table[2:]] == ["a", "b", "c", "all"]
    assert all("| passed |" in row for row in table[2:5])


def test_a_failure_fails_the_run_shows_its_log_and_stops_later_groups(tmp_path):
    rc, out = stages(tmp_path, "ok=true", "bad=echo broken; exit 3", "--then", "later=touch ran")
    assert rc == 1
    assert "[bad] FAILED (3)" in out and "  | broken" in out
    assert "FAILED: bad; not run: later" in out
    assert not (tmp_path / "ran").exists() and not (Path.cwd() / "ran").exists()


def test_stages_of_a_group_run_side_by_side(tmp_path):
    """Two stages that each wait for the other's file only finish when both run at once."""
    a, b = tmp_path / "a", tmp_path / "b"
    rc, out = stages(tmp_path, f"x=touch {a}; for i in $(seq 100); do [ -e {b} ] && exit 0; sleep 0.1; done; exit 1",
                     f"y=touch {b}; for i in $(seq 100); do [ -e {a} ] && exit 0; sleep 0.1; done; exit 1")
    assert rc == 0, out


def test_a_word_without_a_command_is_refused(tmp_path):
    rc, out = stages(tmp_path, "nocommand")
    assert rc != 0
