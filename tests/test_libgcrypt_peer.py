"""harness/peers/build_libgcrypt.sh and with_libgcrypt.sh where no network
and no source tree are at hand (as in CI): the build script must fail with a
message that says where it looked and what to fetch, refuse a libgcrypt
older than 1.11 (Debian 12 already has 1.10), and a libgcrypt that needs a
newer libgpg-error than the system's when no libgpg-error source is given;
the runner must refuse to run without the library rather than fall back to
Debian's silently.  (The build itself, from real trees, is a manual step:
docs/verification.md.)"""

import os
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BUILD = REPO / "harness" / "peers" / "build_libgcrypt.sh"
WITH = REPO / "harness" / "peers" / "with_libgcrypt.sh"


def run(cmd, tmp_path, **env):
    full = dict(os.environ, OUT=str(tmp_path / "out"), **env)
    for name in ("LIBGCRYPT_SRC", "LIBGPG_ERROR_SRC", "LIBGCRYPT_PREFIX"):
        if name not in env:
            full.pop(name, None)
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, env=full,
                          timeout=60)


def fake_tree(path, minor, need_gpgerr):
    """A directory whose configure.ac says libgcrypt 1.<minor>.0 needing
    libgpg-error need_gpgerr (what the script reads before building)."""
    path.mkdir()
    (path / "configure.ac").write_text(
        "m4_define([mym4_major], [1])\n"
        f"m4_define([mym4_minor], [{minor}])\n"
        "m4_define([mym4_micro], [0])\n"
        f"NEED_GPG_ERROR_VERSION={need_gpgerr}\n")
    return path


def test_missing_source_says_where_it_looked_and_what_to_fetch(tmp_path):
    missing = tmp_path / "nowhere"
    res = run([BUILD, missing], tmp_path)
    assert res.returncode == 1
    assert f"no libgcrypt source at {missing}" in res.stderr
    assert "LIBGCRYPT_SRC" in res.stderr and "build/peers/src/libgcrypt" in res.stderr
    assert "git clone -b libgcrypt-" in res.stderr and "libgpg-error" in res.stderr
    # The environment variable is read the same way.
    res = run([BUILD], tmp_path, LIBGCRYPT_SRC=str(missing))
    assert res.returncode == 1 and f"no libgcrypt source at {missing}" in res.stderr
    assert not (tmp_path / "out").exists()


def test_a_libgcrypt_older_than_1_11_is_refused(tmp_path):
    tree = fake_tree(tmp_path / "libgcrypt", 10, "1.27")
    res = run([BUILD, tree], tmp_path)
    assert res.returncode == 1
    assert "is libgcrypt 1.10.0: 1.11 or newer is needed" in res.stderr


def test_a_libgpg_error_too_new_for_the_system_needs_its_source(tmp_path):
    """libgcrypt 1.12 needs libgpg-error 1.56, newer than any system here has
    (Debian 12: 1.46): without its source the script stops before building."""
    tree = fake_tree(tmp_path / "libgcrypt", 12, "99.0")
    res = run([BUILD, tree, tmp_path / "no-gpg-error"], tmp_path)
    assert res.returncode == 1
    assert "libgcrypt 1.12.0 needs 99.0: no libgpg-error source at" in res.stderr
    assert "LIBGPG_ERROR_SRC" in res.stderr


def test_runner_refuses_without_the_built_library(tmp_path):
    res = run([WITH, "true"], tmp_path, LIBGCRYPT_PREFIX=str(tmp_path / "none"))
    assert res.returncode == 1
    assert f"no {tmp_path / 'none'}/lib/libgcrypt.so.20" in res.stderr


def test_runner_points_the_dynamic_linker_at_the_prefix(tmp_path):
    lib = tmp_path / "prefix" / "lib"
    lib.mkdir(parents=True)
    (lib / "libgcrypt.so.20").write_bytes(b"")
    res = run([WITH, "sh", "-c", "echo $LD_LIBRARY_PATH"], tmp_path,
              LIBGCRYPT_PREFIX=str(tmp_path / "prefix"), LD_LIBRARY_PATH="/elsewhere")
    assert res.returncode == 0
    assert res.stdout.strip() == f"{lib}:/elsewhere"
