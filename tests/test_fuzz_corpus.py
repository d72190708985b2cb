"""The fuzz targets' seed corpus (harness/fuzz/corpus/) is what
harness/fuzz/make_corpus.py writes, byte for byte, and stays small; the
raw-argument seeds of fuzz_kcrypt decode, as fuzz_kcrypt.c reads them, to the
command lines they were made from.  (The targets themselves run in `make
fuzz-quick`; docs/verification.md, "Sanitizers and fuzzing".)"""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FUZZ = ROOT / "harness" / "fuzz"
TARGETS = ["fuzz_sm4", "fuzz_ublock", "fuzz_zuc", "fuzz_zuc_bits", "fuzz_kcrypt"]


def test_corpus_is_what_the_script_writes(tmp_path):
    subprocess.run([sys.executable, str(FUZZ / "make_corpus.py"), "--out", str(tmp_path)], check=True,
                   capture_output=True, text=True)
    for target in TARGETS:
        made = {p.name: p.read_bytes() for p in (tmp_path / target).iterdir()}
        kept = {p.name: p.read_bytes() for p in (FUZZ / "corpus" / target).iterdir()}
        assert made == kept, f"{target}: run harness/fuzz/make_corpus.py and commit its output"


def test_corpus_is_small():
    for target in TARGETS:
        files = list((FUZZ / "corpus" / target).iterdir())
        assert 10 <= len(files) <= 40, (target, len(files))
        assert all(f.stat().st_size <= 1024 for f in files), target


def decode_raw(data):
    """fuzz_kcrypt's raw encoding back to (argv, stdin): kind, the length
    bytes, the argument count and the arguments from the front, stdin from
    the back (see kcrypt_raw in make_corpus.py)."""
    assert data[0] % 8 == 7 and data[1] % 40 != 0 and data[2] % 8 == 0
    stdin_len, n = data[3] % 70, data[4] % 13
    at, args = 5, []
    for _ in range(n):
        length = data[at] % 96
        args.append(data[at + 1:at + 1 + length].decode())
        at += 1 + length
    stdin = bytes(reversed(data[at:]))
    assert len(stdin) == stdin_len
    return args, stdin


def test_raw_kcrypt_seeds_spell_command_lines():
    raw = {p.name: p.read_bytes() for p in (FUZZ / "corpus" / "fuzz_kcrypt").iterdir() if p.name.startswith("raw-")}
    assert len(raw) >= 10
    args, stdin = decode_raw(raw["raw-sm4-ctr"])
    assert args[:3] == ["sm4", "ctr", "-e"] and stdin.startswith(b"The quick brown fox")
    args, _ = decode_raw(raw["raw-zuc128-bits-max"])
    assert args[-2:] == ["--bits", "18446744073709551615"]
    for name, data in raw.items():
        decode_raw(data)
