"""Every command line that README.md and docs/cli.md show, run as written (issue 42).

The commands are found, not listed: every line of a shell block (```sh, ```bash,
```shell, ```console: there only the `$ ` lines, the lines after one being its
output) and every inline code span that starts with a program (`make ...`,
`gen ...`, `build/kcrypt ...`, `python3 ...`, ...).  A block in another language
or none must be one this file knows is no command (the pipeline diagram); C blocks
are compiled instead (test_readme_c_snippets_compile_and_run).  So a command added
to either document is run here, or this test fails until it is placed:

* run as written (most): in a fresh folder that mirrors the repository root (a
  link to each top-level entry, so harness/, generated/, the Makefile and .venv
  are the repository's; build/ is a folder of this test's own holding links to
  the harness build's programs, so what a command writes under build/ lands
  there, away from the stages of `make test` that run beside pytest), in the shell the README sets up (`. .venv/bin/activate`
  first, as the README offers), with the input a command redirects from (`< in`)
  written there first.  Commands of the generator (`.venv/bin/gen`, `gen`) run on a
  copy of gen/, templates/ and generated/ (PYTHONPATH points `gen` at it), so that
  they write the copy's generated/, not the checkout's; `$PWD/NAME` outputs are kept
  in build/doc-commands/NAME so that a second run is an incremental build;
* with placeholders (KEYHEX, FILE, N, ...), [optional parts] or a|b alternatives:
  the concrete lines in INSTANCES, each checked to be an instance of what the doc
  shows (placeholder values of the right form), all of them together using every
  optional part and every alternative;
* long (minutes to an hour: full verify, full bench, valgrind, qemu, explore):
  in LONG, each with the CI stage that runs it (asserted against the Makefile's
  `test` recipe and .ci/run) or, where CI runs only a shorter form, that form.
  They run here only with KC_DOC_LONG=1 (test_long_doc_command_runs, which exists
  only then);
* `make all` and `make test` are CI (.ci/run runs `make test`; it runs this file):
  CI_ONLY, with `all`'s stages each mapped to the line of `test` that runs it;
* inline spans that name a program but are not a command (`kcrypt CIPHER MODE`, an
  option named in a sentence): NOT_COMMANDS, each with its reason.

Where a doc shows output (a comment such as `# prints the tag in hex`, or a
console block's lines), EXPECT checks its shape.  Registry entries that the docs no
longer show fail too, so the tables stay the docs' own.

Runtime: about 2 minutes on a 2-core machine shared with other jobs, with
build/doc-commands/ warm; about a minute more cold (the library built natively and
for AArch64).  The long group: see LONG.  Needs the harness build
(conftest.harness_build) and, for the AArch64 line, aarch64-linux-gnu-gcc (`make deps`).
"""

import json
import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = ("README.md", "docs/cli.md")
LONG_ENABLED = os.environ.get("KC_DOC_LONG") == "1"
PERSISTENT = REPO / "build" / "doc-commands"  # $PWD/NAME outputs, kept between runs

SHELL_LANGS = {"sh", "bash", "shell", "console"}
# Fenced blocks that are not commands: language -> why, or (for untagged blocks)
# a line of the block -> what it is.
NOT_COMMAND_LANGS = {"c": "C: compiled by test_readme_c_snippets_compile_and_run"}
NOT_COMMAND_BLOCKS = {"gen/specs ──► gen/linalg": "README's pipeline diagram"}

# The first word of an inline span that makes it a command (with at least one
# argument); a lone program name (`kcrypt`, `gen`) is the program's name.  Paths
# of the harness programs (build/verify) are commands alone.
PROGRAMS = {"make", "gen", "kcrypt", "verify", "bench", "ctcheck", "python", "python3", "pytest", "openssl",
            "qemu-aarch64", "cmake", "gcc", "cc", "git", "sudo", "apt-get", ".", "source", "valgrind",
            "llvm-mca", "objtool", "bash", "sh"}
PROGRAM_PATH = re.compile(r"^(?:\./|build/|\.venv/bin/)[\w+-]+$")  # build/verify, not build/bench.md


# --------------------------------------------------------------------------
# Extraction
# --------------------------------------------------------------------------

@dataclass
class DocCommand:
    doc: str
    line: int
    text: str                   # the command line as written (comment removed)
    comment: str = ""           # its trailing `# ...` comment, the doc's word on what it does
    where: str = "block"        # "block" or "inline"
    output: list = field(default_factory=list)  # a console block's lines after it

    def __str__(self):
        return f"{self.doc}:{self.line}: {self.text}"


FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>```+|~~~+)\s*(?P<info>[^\s`]*)[^\n]*$")
COMMENT = re.compile(r"(?:^|\s)#(?:\s|$)")


def fenced_blocks(text):
    """(language, [(line number, line)], start line) of every fenced block."""
    blocks, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, start, body = m["fence"], i + 1, []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append((i + 1, lines[i]))
            i += 1
        blocks.append((m["info"].lower(), body, start))
        i += 1
    return blocks


def prose(text):
    """The text with every fenced block blanked (line numbers kept)."""
    out, lines, inside = [], text.split("\n"), None
    for line in lines:
        m = FENCE.match(line)
        if inside is None and m:
            inside = m["fence"]
            out.append("")
        elif inside is not None:
            if line.strip().startswith(inside):
                inside = None
            out.append("")
        else:
            out.append(line)
    return "\n".join(out)


def split_comment(line):
    m = COMMENT.search(line)
    if not m:
        return line.strip(), ""
    return line[:m.start()].strip(), line[m.end():].strip()


def block_commands(doc, lang, body):
    """The command lines of one shell block (in a console block the `$ ` lines;
    the lines after one are its output).  A trailing backslash continues a line."""
    commands, pending, first = [], "", None
    for number, raw in body:
        line = raw.rstrip()
        if not pending:
            if lang == "console" and not line.startswith("$ "):
                if commands and line.strip():
                    commands[-1].output.append(line)
                continue
            if lang == "console":
                line = line[2:]
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            first = number
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        text, comment = split_comment(pending + line)
        pending = ""
        commands.append(DocCommand(doc, first, " ".join(text.split()), comment))
    return commands


INLINE = re.compile(r"(?<!`)`([^`]+)`(?!`)")


def is_command_span(span):
    words = span.split()
    if not words:
        return False
    if words[0] in PROGRAMS:
        return len(words) > 1
    return bool(PROGRAM_PATH.match(words[0]))


def inline_commands(doc, text):
    """Inline code spans (they may wrap a line) that start with a program."""
    found, body = [], prose(text)
    for m in INLINE.finditer(body):
        span = " ".join(m.group(1).split())
        if is_command_span(span):
            found.append(DocCommand(doc, body.count("\n", 0, m.start()) + 1, span, where="inline"))
    return found


def extract(docs=DOCS):
    """(commands, C blocks, problems): every command line of the docs in order,
    the C blocks as (doc, line, text), and the blocks this file cannot place."""
    commands, c_blocks, problems = [], [], []
    for doc in docs:
        text = (REPO / doc).read_text()
        for lang, body, start in fenced_blocks(text):
            if lang in SHELL_LANGS:
                commands += block_commands(doc, lang, body)
            elif lang == "c":
                c_blocks.append((doc, start, "\n".join(line for _, line in body)))
            elif lang in NOT_COMMAND_LANGS:
                continue
            elif not lang and any(key in line for _, line in body for key in NOT_COMMAND_BLOCKS):
                continue
            else:
                problems.append(f"{doc}:{start}: a ```{lang} block this test does not know: if it holds "
                                f"commands, tag it ```sh; if not, add it to NOT_COMMAND_BLOCKS/NOT_COMMAND_LANGS")
        commands += inline_commands(doc, text)
    return commands, c_blocks, problems


# --------------------------------------------------------------------------
# Templates: placeholders, [optional parts], a|b alternatives
# --------------------------------------------------------------------------

# What each placeholder the docs use stands for, as a pattern its value must match.
PLACEHOLDERS = {
    "KEYHEX": r"(?:[0-9a-f]{32}|[0-9a-f]{64})",          # 16 or 32 bytes, per cipher
    "IVHEX": r"(?:[0-9a-f]{32}|[0-9a-f]{46}|[0-9a-f]{50}|[0-9a-f]{64})",
    "IV25OR23HEX": r"(?:[0-9a-f]{50}|[0-9a-f]{46})",
    "IV16HEX": r"[0-9a-f]{32}",
    "IV32HEX": r"[0-9a-f]{64}",
    "AADHEX": r"(?:[0-9a-f]{2})*",                      # any number of bytes
    "KEY32HEX": r"[0-9a-f]{64}",
    "N": r"[0-9]+",
    "NAME": r"[a-z0-9_]+",
    "FILE": r"[\w./-]+",
    "CIPHER": r"[a-z0-9_]+",
}
PLACEHOLDER = re.compile(r"^[A-Z][A-Z0-9_]*$")
ALTERNATIVES = re.compile(r"^[\w.-]+(?:\|[\w.-]+)+$")


def template_tokens(text):
    """Whitespace-separated tokens, a [bracketed part] being one token."""
    return re.findall(r"\[[^\]]*\]|\S+", text)


def is_template(text):
    return any(t.startswith("[") or PLACEHOLDER.match(t) or ALTERNATIVES.match(t) for t in template_tokens(text))


def template_regex(text):
    """(compiled regex, optional parts, alternatives, unknown placeholders) of a
    documented command with placeholders: groups o<N> (optional parts) and a<N>
    (alternatives) tell which parts an instance used."""
    optionals, alternatives, unknown = [], [], []

    def token_re(tok):
        if PLACEHOLDER.match(tok):
            if tok not in PLACEHOLDERS:
                unknown.append(tok)
                return r"\S+"
            return PLACEHOLDERS[tok]
        if ALTERNATIVES.match(tok):
            name = f"a{len(alternatives)}"
            alternatives.append((name, tok.split("|")))
            return f"(?P<{name}>" + "|".join(map(re.escape, tok.split("|"))) + ")"
        return re.escape(tok)

    pattern = ""
    for tok in template_tokens(text):
        if tok.startswith("["):
            name = f"o{len(optionals)}"
            optionals.append((name, tok))
            inner = r"\s+".join(token_re(t) for t in template_tokens(tok[1:-1]))
            pattern += f"(?P<{name}>" + (r"\s+" if pattern else "") + inner + ")?"
        else:
            pattern += (r"\s+" if pattern else "") + token_re(tok)
    return re.compile("^" + pattern + "$"), optionals, alternatives, unknown


# --------------------------------------------------------------------------
# The tables
# --------------------------------------------------------------------------

SM4_KEY = "0123456789abcdeffedcba9876543210"
IV16 = "000102030405060708090a0b0c0d0e0f"
KEY32 = "00112233445566778899aabbccddeeff" + "ffeeddccbbaa99887766554433221100"
IV25 = "".join(f"{b:02x}" for b in range(25))   # IV17..IV24 below 64: the 6-bit form
IV23 = "".join(f"{b:02x}" for b in range(23))
IV32 = "".join(f"{b:02x}" for b in range(32))

# The concrete lines run for each documented command with placeholders, optional
# parts or alternatives (keyed by the command as the docs write it).  An instance
# marked long=True runs in the long group (it must be in LONG too).
INSTANCES = {
    "build/kcrypt sm4 cbc -d -k KEYHEX -i IVHEX -t avx2_vaes -s byteslice < in > out": [
        f"build/kcrypt sm4 cbc -d -k {SM4_KEY} -i {IV16} -t avx2_vaes -s byteslice < in > out"],
    "build/kcrypt sm4 gcm -e -k KEYHEX -i IVHEX -a AADHEX < in > out": [
        f"build/kcrypt sm4 gcm -e -k {SM4_KEY} -i {IV16} -a {IV32} < in > out"],
    "build/kcrypt sm4 cmac -k KEYHEX < in": [f"build/kcrypt sm4 cmac -k {SM4_KEY} < in"],
    "build/kcrypt zuc256 enc -k KEYHEX -i IV25OR23HEX [-t avx2_vaes] < in > out": [
        f"build/kcrypt zuc256 enc -k {KEY32} -i {IV25} -t avx2_vaes < in > out",
        f"build/kcrypt zuc256 enc -k {KEY32} -i {IV23} < in > out"],
    "build/kcrypt zuc_nea6 enc -k KEYHEX -i IV16HEX < in > out": [
        f"build/kcrypt zuc_nea6 enc -k {KEY32} -i {IV16} < in > out"],
    "build/kcrypt zuc_nea6 mac -k KEYHEX -i IV16HEX --tag 128 < in": [
        f"build/kcrypt zuc_nea6 mac -k {KEY32} -i {IV16} --tag 128 < in"],
    "build/kcrypt zuc256 mac -k KEYHEX -i IVHEX --tag 64 [--bits N] < in": [
        f"build/kcrypt zuc256 mac -k {KEY32} -i {IV25} --tag 64 < in",
        f"build/kcrypt zuc256 mac -k {KEY32} -i {IV23} --tag 64 --bits 1001 < in"],
    "build/kcrypt ublock128_128 ctr -e -k 0123456789abcdeffedcba9876543210 -i IV16HEX < in > out": [
        f"build/kcrypt ublock128_128 ctr -e -k 0123456789abcdeffedcba9876543210 -i {IV16} < in > out"],
    "build/kcrypt ublock256_256 cbc -d -k KEY32HEX -i IV32HEX -t avx2 -s register < in > out": [
        f"build/kcrypt ublock256_256 cbc -d -k {KEY32} -i {IV32} -t avx2 -s register < in > out"],
    "build/kcrypt sm4 ctr -e -k KEYHEX -i IVHEX -t avx2_gfni_asm -s byteslice < in > out": [
        f"build/kcrypt sm4 ctr -e -k {SM4_KEY} -i {IV16} -t avx2_gfni_asm -s byteslice < in > out"],
    # Without --quick and without options verify takes minutes (the emulated
    # kernels, the 1,000,000-fold iterations): `build/verify` is LONG, CI's stage.
    "build/verify [--quick] [--impl NAME] [--cipher sm4|zuc|ublock]": [
        "build/verify --quick --impl byteslice_avx2_gfni_asm --cipher sm4",
        "build/verify --quick --impl lanes_avx2_gfni --cipher zuc",
        "build/verify --quick --impl register_avx2 --cipher ublock",
        ("build/verify", "long")],
    # FILE = build/bench.json: where `make bench` writes it, and what `make report` reads.
    "build/bench [--quick] --json FILE": [
        "build/bench --quick --json build/bench.json",
        ("build/bench --json build/bench.json", "long")],
    "build/bench --json FILE": [("build/bench --json build/bench.json", "long")],
    "gen explore sm4|zuc|ublock": [("gen explore sm4", "long"), ("gen explore zuc", "long"),
                                   ("gen explore ublock", "long")],
    "gen explore sm4|zuc|ublock --depth measure": [
        ("gen explore sm4 --depth measure", "long"), ("gen explore zuc --depth measure", "long"),
        ("gen explore ublock --depth measure", "long")],
}

# The long commands: (CI stage that runs it, the line of CI's recipe that does,
# or for a command CI runs in a shorter form: that form and the line).  `recipe`
# is "Makefile:TARGET" or ".ci/run"; each line must be there.
LONG = {
    "build/verify": ("make test runs it as a stage", "Makefile:test", "$(BUILD)/verify"),
    ".venv/bin/gen check": ("make test's first stage, gen-check, runs it", "Makefile:test", '"gen-check=gen check"'),
    "build/bench --cipher sm4": ("SM4's full bench, every mode and kernel with its peers (about 3 minutes); make "
                                 "test's bench-report stage runs the same modes in bench's --quick form",
                                 "Makefile:test", "$(MAKE) bench BENCH_FLAGS=--quick"),
    "make ctcheck": ("make test's ctcheck stage runs it (valgrind over every kernel, minutes), checking its "
                     "summary: tests/test_ctcheck.py", "Makefile:test", "tests/test_ctcheck.py"),
    "make verify-aarch64": ("make test runs it as a stage (qemu, about 14 minutes)", "Makefile:test",
                            "$(MAKE) verify-aarch64"),
    "make linux-asm-check": ("make test runs it as a stage (Linux modules; prepares a 1.5 GB arm64 tree)",
                             "Makefile:test", "$(MAKE) linux-asm-check"),
    "make linux-boot-check": ("make test runs it as a stage (the module built, Debian's kernel booted under "
                              "QEMU)", "Makefile:test", "$(MAKE) linux-boot-check"),
    "make model": ("make test runs it as a stage (llvm-mca, about 75 s)", "Makefile:test", "$(MAKE) model"),
    "make abi-check": ("make test runs it as a stage", "Makefile:test", "$(MAKE) abi-check"),
    "make fuzz": ("each fuzz target 300 s (25 minutes); make test's fuzz-quick stage runs each briefly",
                  "Makefile:test", "$(MAKE) fuzz-quick"),
    "make bench": ("CI runs its short form, `make bench BENCH_FLAGS=--quick` (run here as "
                   "build/bench --quick --json build/bench.json)", "Makefile:test",
                   "$(MAKE) bench BENCH_FLAGS=--quick"),
    "build/bench --no-report --json build/bench.json": (
        "the recipe of `make bench`; CI runs it with --quick", "Makefile:bench",
        "$(BUILD)/bench $(BENCH_FLAGS) --no-report --json $(BUILD)/bench.json"),
    "build/bench --json build/bench.json": (
        "the full bench (minutes); CI runs its --quick form, which this test runs", "Makefile:test",
        "$(MAKE) bench BENCH_FLAGS=--quick"),
    "build/bench --mode block-loop": (
        "1,000,000 one-block loops per kernel (about 7 minutes); CI's `bench --quick` runs every mode, "
        "block-loop at 100,000 loops", "Makefile:test", "$(MAKE) bench BENCH_FLAGS=--quick"),
    "python3 harness/stream_check.py --build build": (
        "4 GiB through kcrypt and openssl (about 2 minutes); CI's pytest runs it on tiny sizes "
        "(tests/test_stream_check.py)", "Makefile:test", "python3 -m pytest -q"),
    ".venv/bin/gen explore zuc --depth measure": (
        "not in CI (tens of minutes: about 7 on the tuning parameters, 20 for the S1 isomorphism "
        "uncached); CI's pytest runs the measure wiring on stand-ins (tests/test_explore.py)",
        "Makefile:test", "python3 -m pytest -q"),
    "make libgcrypt-check": ("not in CI (about 15 minutes: Debian's libgcrypt 1.10.1 built twice, its make "
                             "check and bench-slope); CI's pytest runs the glue and the assembly it adds "
                             "against the library (tests/test_libgcrypt_glue.py)", "Makefile:test",
                             "python3 -m pytest -q"),
    "gen explore sm4": ("not in CI (about 20 minutes uncached); CI's pytest runs explore on stand-ins "
                        "(tests/test_explore.py)", "Makefile:test", "python3 -m pytest -q"),
    "gen explore zuc": ("not in CI; CI's pytest runs explore on stand-ins (tests/test_explore.py)",
                        "Makefile:test", "python3 -m pytest -q"),
    "gen explore ublock": ("not in CI; CI's pytest runs explore on stand-ins (tests/test_explore.py)",
                           "Makefile:test", "python3 -m pytest -q"),
    "gen explore sm4 --depth measure": ("not in CI (the better part of an hour); CI's pytest runs the "
                                        "measure wiring on stand-ins (tests/test_explore.py)",
                                        "Makefile:test", "python3 -m pytest -q"),
    "gen explore zuc --depth measure": ("not in CI (tens of minutes); CI's pytest runs the measure "
                                        "wiring on stand-ins (tests/test_explore.py)",
                                        "Makefile:test", "python3 -m pytest -q"),
    "gen explore ublock --depth measure": ("not in CI (tens of minutes); CI's pytest runs the measure "
                                           "wiring on stand-ins (tests/test_explore.py)",
                                           "Makefile:test", "python3 -m pytest -q"),
}

# Never run from here: CI itself (it runs this file).  `make all` is make test's
# stages with the full bench and `gen` instead of `gen check`: ALL_STAGES maps
# each prerequisite of `all` to the line of `test` that runs it.
CI_ONLY = {
    "make test": ("CI: .ci/run runs it", ".ci/run", "make test"),
    "make all": ("its stages, each run by make test (ALL_STAGES)", ".ci/run", "make test"),
}
ALL_STAGES = {
    "deps": "test: deps",
    "generate": "gen check",
    "build": "$(MAKE) build",
    "verify": "$(BUILD)/verify",
    "model": "$(MAKE) model",
    "bench": "$(MAKE) bench BENCH_FLAGS=--quick",
    "report": "$(MAKE) report",
}

# Inline spans that start with a program but are no command line: why, and the
# command here that runs what they name.
NOT_COMMANDS = {
    "kcrypt CIPHER MODE": ("the synopsis of the kcrypt lines above it", None),
    "bench --quick": ("names bench's short form in a sentence", "build/bench --quick --json build/bench.json"),
    "bench --impl": ("names an option in a sentence", None),
    "kcrypt sm4 ctr": ("what stream_check pipes 4 GiB through, named in a sentence",
                       "python3 harness/stream_check.py --build build"),
    "openssl enc -sm4-ctr": ("what stream_check compares kcrypt with, named in a sentence",
                             "python3 harness/stream_check.py --build build"),
    "gen explore": ("the subcommand named in a sentence", "gen explore zuc"),
    "objtool --stackval --retpoline --rethunk --sls": ("the options linux-asm-check gives objtool",
                                                        "make linux-asm-check"),
    "qemu-aarch64 -cpu max": ("the emulator verify-aarch64 runs, named in a sentence", "make verify-aarch64"),
    "kcrypt --list-impls": ("what verify-aarch64 runs under qemu, named in a sentence", "make verify-aarch64"),
}

# Checks of the output a doc shows: command (as run) -> function(workspace, proc).
INPUT_BYTES = 4096  # `< in`: a multiple of every block size, 32 KiB bits for the MACs


def out_is_input_sized(ws, proc):
    assert (ws / "out").stat().st_size == INPUT_BYTES


def out_is_input_and_tag(ws, proc):  # "# the ciphertext, then the 16-byte tag"
    assert (ws / "out").stat().st_size == INPUT_BYTES + 16


def hex_tag(bits):
    def check(ws, proc):
        assert re.fullmatch(rf"[0-9a-f]{{{bits // 4}}}\n", proc.stdout), proc.stdout
    return check


def target_status_lines(ws, proc):  # "# target native|emulated|unavailable"
    lines = proc.stdout.splitlines()
    assert lines and all(re.fullmatch(r"[a-z0-9_]+ (native|emulated|unavailable)", l) for l in lines), lines


def impl_status_lines(ws, proc):
    lines = [l for l in proc.stdout.splitlines() if not l.startswith("dispatch ")]  # defaults: test_dispatch.py
    assert lines and all(re.fullmatch(r"(sm4|zuc128|zuc256|zuc_nea6|ublock\d+_\d+) [a-z0-9]+ [a-z0-9_]+ (native|emulated|unavailable)", l)
                         for l in lines), lines
    assert any(re.fullmatch(r"dispatch sm4 bulk \w+ (record|feature-order).*", l) for l in proc.stdout.splitlines())
    assert any(re.fullmatch(r"sm4 byteslice \w+_asm \w+", l) for l in lines), "no assembly twin listed"


def verify_passed(ws, proc):  # "official vectors + differential tests"
    assert re.search(r"^\d+ passed, 0 failed$", proc.stdout, re.M), proc.stdout[-2000:]
    assert "vectors" in proc.stdout and "differential" in proc.stdout


def bench_report(ws, proc):  # "Gbit/s, cycles/byte, markdown table and PNG beside FILE"
    json_file = ws / "build" / "bench.json"
    md, png = json_file.with_suffix(".md"), json_file.with_suffix(".png")
    for f in (json_file, md, png):
        assert f.is_file() and f.stat().st_mtime >= proc.started, f"{f} not written"
    table = md.read_text()
    assert re.search(r"^\|.*Gbit/s.*\| .*c/B", table, re.M) and "Cycles per byte" in table, table[:1000]
    records = json.loads(json_file.read_text())
    records = records.get("records", records) if isinstance(records, dict) else records
    assert records and {"gbps", "cpb"} <= set(records[0]), str(records)[:500]


def library(path, machine):
    def check(ws, proc):
        lib = ws / path
        assert lib.is_file(), f"{path} not written"
        members = subprocess.run(["ar", "t", str(lib)], capture_output=True, text=True, check=True).stdout.split()
        assert any(m.startswith("sm4_") for m in members) and any(m.startswith("zuc_") for m in members)
        head = subprocess.run(["readelf", "-h", str(lib)], capture_output=True, text=True).stdout
        assert f"Machine:                           {machine}" in head, head[:500]
    return check


def gen_wrote(ws, proc):  # "regenerate generated/"
    assert re.search(r"^gen: \d+ files in generated/", proc.stdout, re.M), proc.stdout


def gen_up_to_date(ws, proc):  # "exit 1 if generated/ differs": here it does not
    assert re.search(r"^gen check: \d+ files up to date", proc.stdout, re.M), proc.stdout


def gen_choice_differs(ws, proc):  # another choice, other files: and then `gen check` says so, exit 1
    m = re.search(r"^gen: \d+ files in generated/, (\d+) rewritten", proc.stdout, re.M)
    assert m and int(m[1]) > 0, proc.stdout
    again = subprocess.run(["bash", "-c", ". .venv/bin/activate && .venv/bin/gen check"], cwd=ws,
                           env=proc.env, capture_output=True, text=True)
    assert again.returncode == 1 and "generated/src/" in again.stderr, again.stderr[-2000:]


def help_text(ws, proc):
    assert proc.stdout.startswith("usage: bench"), proc.stdout[:200]


def round_floor(ws, proc):  # "hand-scheduled floor vs the generated kernel"
    assert "floor" in proc.stdout and "generated CTR kernel" in proc.stdout


def report_written(ws, proc):
    for name in ("bench.md", "bench.png"):
        f = ws / "build" / name
        assert f.is_file() and f.stat().st_mtime >= proc.started, f"build/{name} not written"


EXPECT = {
    "build/kcrypt sm4 ctr -e -k 0123456789abcdeffedcba9876543210 -i 000102030405060708090a0b0c0d0e0f < in > out":
        out_is_input_sized,
    "build/kcrypt --list-targets sm4": target_status_lines,
    "build/kcrypt --list-impls": impl_status_lines,
    f"build/kcrypt sm4 gcm -e -k {SM4_KEY} -i {IV16} -a {IV32} < in > out": out_is_input_and_tag,
    f"build/kcrypt sm4 cmac -k {SM4_KEY} < in": hex_tag(128),
    f"build/kcrypt zuc256 mac -k {KEY32} -i {IV25} --tag 64 < in": hex_tag(64),
    f"build/kcrypt zuc256 mac -k {KEY32} -i {IV23} --tag 64 --bits 1001 < in": hex_tag(64),
    f"build/kcrypt zuc_nea6 mac -k {KEY32} -i {IV16} --tag 128 < in": hex_tag(128),
    "build/bench --quick --json build/bench.json": bench_report,
    "build/bench --help": help_text,
    "make -C generated BUILD=$PWD/out": library("out/libkcrypt.a", "Advanced Micro Devices X86-64"),
    "make -C generated BUILD=$PWD/out-arm CC=aarch64-linux-gnu-gcc": library("out-arm/libkcrypt.a", "AArch64"),
    ".venv/bin/gen": gen_wrote,
    ".venv/bin/gen check": gen_up_to_date,
    ".venv/bin/gen --choose sm4.decomposition=415": gen_choice_differs,
    "make round-floor": round_floor,
    "make report": report_written,
    "build/verify": verify_passed,
}
for template, instances in INSTANCES.items():
    for inst in instances:
        inst = inst[0] if isinstance(inst, tuple) else inst
        if inst.startswith("build/verify"):
            EXPECT.setdefault(inst, verify_passed)
        elif inst.startswith("build/kcrypt") and inst.endswith("> out"):
            EXPECT.setdefault(inst, out_is_input_sized)

# A command that needs another's output first (run before it if this session has not).
NEEDS = {"make report": "build/bench --quick --json build/bench.json"}


# --------------------------------------------------------------------------
# Planning: every command found -> what this test does with it
# --------------------------------------------------------------------------

@dataclass
class Plan:
    runs: dict          # command line run -> [DocCommand it comes from]
    long: dict          # the same for the long group
    ci_only: dict       # command -> [DocCommand]
    not_commands: dict  # span -> [DocCommand]
    problems: list
    found: list
    c_blocks: list


def plan():
    found, c_blocks, problems = extract()
    runs, long, ci_only, not_commands = {}, {}, {}, {}
    for cmd in found:
        text = cmd.text
        if text in NOT_COMMANDS:
            not_commands.setdefault(text, []).append(cmd)
        elif text in CI_ONLY:
            ci_only.setdefault(text, []).append(cmd)
        elif is_template(text):
            if text not in INSTANCES:
                problems.append(f"{cmd}: has placeholders, [optional parts] or a|b alternatives: add the "
                                f"lines to run to INSTANCES")
                continue
            for inst in INSTANCES[text]:
                line, kind = inst if isinstance(inst, tuple) else (inst, "run")
                (long if kind == "long" else runs).setdefault(line, []).append(cmd)
        elif text in LONG:
            long.setdefault(text, []).append(cmd)
        else:
            runs.setdefault(text, []).append(cmd)
    return Plan(runs, long, ci_only, not_commands, problems, found, c_blocks)


PLAN = plan()


# --------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------

def is_gen_command(line):
    return line.split()[0] in (".venv/bin/gen", "gen")


# What the docs' commands read from the harness build: its programs and the
# folders of its objects.
BUILD_INPUTS = ("kcrypt", "verify", "bench", "ctcheck", "lib", "harness", "aarch64")


def build_view():
    """build/ as the docs' commands see it, a folder of this test's own
    (build/doc-commands/build): links to the harness build's BUILD_INPUTS, so
    that what a command writes under build/ (bench.json, bench.md, abi/, ...)
    lands here, where no other stage of `make test`, running beside pytest,
    writes or reads it."""
    view = PERSISTENT / "build"
    view.mkdir(parents=True, exist_ok=True)
    for name in BUILD_INPUTS:
        if (REPO / "build" / name).exists() and not (view / name).is_symlink():
            (view / name).symlink_to(REPO / "build" / name)
    return view


def workspace(tmp_path, line):
    """A folder that stands for the repository root: a link to each top-level
    entry (build/ to build_view()); for the generator's commands, real copies
    of gen/, templates/ and generated/ (which `gen` writes); `$PWD/NAME` a link
    into build/doc-commands/."""
    ws = tmp_path / "repo"
    ws.mkdir()
    copies = {"gen", "templates", "generated"} if is_gen_command(line) else set()
    for entry in REPO.iterdir():
        if entry.name == ".git" or (ws / entry.name).exists():
            continue
        if entry.name == "build":
            (ws / "build").symlink_to(build_view())
        elif entry.name in copies:
            shutil.copytree(entry, ws / entry.name, symlinks=True,
                            ignore=shutil.ignore_patterns("__pycache__"))
        else:
            (ws / entry.name).symlink_to(entry)
    for name in re.findall(r"\$PWD/([\w.-]+)", line):
        (PERSISTENT / name).mkdir(parents=True, exist_ok=True)
        if not (ws / name).exists():
            (ws / name).symlink_to(PERSISTENT / name)
    for name in re.findall(r"<\s*([\w.-]+)", line):  # the input the doc redirects from
        if not (ws / name).exists():
            (ws / name).write_bytes(bytes((i * 37 + 11) % 256 for i in range(INPUT_BYTES)))
    return ws


def environment(ws, line):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KC_DISABLE", "PYTEST"))}
    if is_gen_command(line):
        env["PYTHONPATH"] = str(ws)  # `gen` from the copy: its ROOT (and so its output) is ws
    return env


def kcrypt_target_unavailable(ws, line):
    """For a kcrypt line naming -t TARGET: TARGET's status on this CPU if it is
    not native (the docs' examples name avx2_vaes, which some CPUs lack)."""
    words = line.split()
    if not words[0].endswith("kcrypt") or "-t" not in words:
        return None
    target, cipher = words[words.index("-t") + 1], words[1]
    listing = subprocess.run([str(REPO / "build" / "kcrypt"), "--list-targets", cipher], capture_output=True,
                             text=True).stdout
    status = dict(l.split() for l in listing.splitlines() if len(l.split()) == 2)
    return None if status.get(target) == "native" else status.get(target, "not listed")


DONE = {}  # command line -> seconds, for NEEDS


def run_line(line, tmp_path, timeout):
    ws = workspace(tmp_path, line)
    unavailable = kcrypt_target_unavailable(ws, line)
    if unavailable:
        pytest.skip(f"{line}: target {unavailable} on this CPU")
    env = environment(ws, line)
    start, started = time.monotonic(), time.time() - 1
    # The README's shell: the virtual environment activated, then the line as written.
    proc = subprocess.run(["bash", "-c", f"set -o pipefail\n. .venv/bin/activate\n{line}"], cwd=ws, env=env,
                          capture_output=True, text=True, errors="replace", timeout=timeout)
    proc.env, proc.started = env, started
    DONE[line] = time.monotonic() - start
    shown = "\n".join(f"  {c}" for c in (PLAN.runs.get(line) or PLAN.long.get(line) or []))
    assert proc.returncode == 0, (f"exit {proc.returncode}: {line}\nshown at:\n{shown}\n--- stdout\n"
                                  f"{proc.stdout[-3000:]}\n--- stderr\n{proc.stderr[-3000:]}")
    if line in EXPECT:
        EXPECT[line](ws, proc)
    for cmd in PLAN.runs.get(line, []) + PLAN.long.get(line, []):
        if cmd.output:  # a console block's output: each line, `...` anywhere
            got = proc.stdout.splitlines()
            for want in cmd.output:
                pattern = ".*".join(map(re.escape, want.strip().split("...")))
                assert any(re.fullmatch(pattern, g.strip()) for g in got), f"{cmd}: no line like {want!r}"
    return proc


def line_id(line):
    return re.sub(r"[0-9a-f]{24,}", "HEX", line)[:90]


# --------------------------------------------------------------------------
# The tests
# --------------------------------------------------------------------------

def test_every_command_in_the_docs_is_placed():
    """Every command found is run, long (with its CI stage), CI-only or not a
    command; every table entry is still in the docs; templates' instances are
    instances and use every optional part and alternative."""
    problems = list(PLAN.problems)
    assert len(PLAN.found) > 20, f"only {len(PLAN.found)} commands found: is the extraction broken?"
    texts = {c.text for c in PLAN.found}
    for table, name in ((INSTANCES, "INSTANCES"), (CI_ONLY, "CI_ONLY"), (NOT_COMMANDS, "NOT_COMMANDS")):
        problems += [f"{name}[{k!r}]: no longer in the docs" for k in table if k not in texts]
    problems += [f"LONG[{k!r}]: in no doc and no INSTANCES entry" for k in LONG if k not in PLAN.long]
    problems += [f"{line}: long, but not in LONG (its CI stage)" for line in PLAN.long if line not in LONG]
    problems += [f"EXPECT[{k!r}]: runs nowhere" for k in EXPECT if k not in PLAN.runs and k not in PLAN.long]
    for span, (why, covered) in NOT_COMMANDS.items():
        if covered and covered not in PLAN.runs and covered not in PLAN.long:
            problems.append(f"NOT_COMMANDS[{span!r}] says {covered!r} runs it, which runs nowhere")
    for template, instances in INSTANCES.items():
        regex, optionals, alternatives, unknown = template_regex(template)
        problems += [f"{template}: placeholder {p} not in PLACEHOLDERS" for p in unknown]
        used_opt, used_alt = set(), set()
        for inst in instances:
            line = inst[0] if isinstance(inst, tuple) else inst
            m = regex.match(line)
            if not m:
                problems.append(f"INSTANCES: {line!r} is not an instance of {template!r}")
                continue
            used_opt |= {name for name, _ in optionals if m[name] is not None}
            used_alt |= {(name, m[name]) for name, _ in alternatives if m[name] is not None}
        problems += [f"{template}: no instance uses {part}" for name, part in optionals if name not in used_opt]
        problems += [f"{template}: no instance uses the alternative {alt}" for name, alts in alternatives
                     for alt in alts if (name, alt) not in used_alt]
    assert not problems, "\n".join(problems)


def recipe(where):
    """The lines of a Makefile target's recipe ("Makefile:test", its rule line
    first) or of .ci/run."""
    if where == ".ci/run":
        return [l.strip() for l in (REPO / ".ci" / "run").read_text().splitlines()]
    target = where.split(":", 1)[1]
    lines = (REPO / "Makefile").read_text().splitlines()
    start = next(i for i, l in enumerate(lines) if re.match(rf"^{re.escape(target)}:", l))
    body = [lines[start].strip()]
    for l in lines[start + 1:]:
        if not l.startswith("\t"):
            break
        body.append(l.strip())
    return body


def test_long_and_ci_only_commands_map_to_the_ci_stages_that_run_them():
    """The table: each command not run by default is run by the CI stage it
    names (or, where CI runs a shorter form, that form is in CI's recipe); CI is
    `make test` (.ci/run), and `make all`'s stages are each a line of it."""
    assert "make test" in recipe(".ci/run"), ".ci/run does not run make test"
    problems = []
    for command, (why, where, line) in {**LONG, **CI_ONLY}.items():
        if not any(line in l for l in recipe(where)):
            problems.append(f"{command}: said to be run by {where} ({line!r}: {why}), which has no such line")
        problems += [f"{command}: cites {test}, which is not there" for test in re.findall(r"tests/\w+\.py", why)
                     if not (REPO / test).is_file()]
    all_rule = next(l for l in (REPO / "Makefile").read_text().splitlines() if l.startswith("all:"))
    stages = all_rule.split(":", 1)[1].split()
    if set(stages) != set(ALL_STAGES):
        problems.append(f"make all's stages are {stages}; ALL_STAGES maps {sorted(ALL_STAGES)}")
    test_recipe = recipe("Makefile:test")
    problems += [f"make all's stage {s}: make test has no line {l!r}" for s, l in ALL_STAGES.items()
                 if not any(l in r for r in test_recipe)]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("line", list(PLAN.runs), ids=line_id)
def test_doc_command_runs(line, harness_build, tmp_path):
    if line in NEEDS and NEEDS[line] not in DONE:
        (tmp_path / "needs").mkdir()
        run_line(NEEDS[line], tmp_path / "needs", timeout=600)
    run_line(line, tmp_path, timeout=600)


# The long group exists only with KC_DOC_LONG=1 (minutes to an hour each): without
# it, each long command is accounted for by the stage LONG maps it to (checked by
# test_long_and_ci_only_commands_map_to_the_ci_stages_that_run_them), not a skip.
if LONG_ENABLED:
    @pytest.mark.parametrize("line", list(PLAN.long), ids=line_id)
    def test_long_doc_command_runs(line, harness_build, tmp_path):
        run_line(line, tmp_path, timeout=4 * 3600)


# --------------------------------------------------------------------------
# The README's C snippets
# --------------------------------------------------------------------------

# What a snippet of each cipher may use without declaring it: the names the README
# leaves to the reader, set to something a call may be given.
C_PRELUDE = {
    "sm4": """
    static uint8_t key_bytes[16] = {1}, iv[16] = {2}, in[8192], out[8192];
    size_t len = 4096;
    static sm4_key key;
    sm4_set_key(&key, key_bytes);
    static uint8_t aad[64] = {3}, tag[16];
    size_t aad_len = 20, n = 2;
    const sm4_key *key_ptrs[2] = {&key, &key};
    const uint8_t *ivs[2] = {iv, iv}, *ins[2] = {in, in + 4096};
    uint8_t *outs[2] = {out, out + 4096};
    (void)iv; (void)in; (void)out; (void)len; (void)aad; (void)aad_len; (void)tag; (void)n; (void)key_ptrs;
    (void)ivs; (void)ins; (void)outs;""",
    "zuc": """
    static uint8_t key[32] = {1}, iv[25] = {2}, in[8192], out[8192], msg[8192], tag[16];
    size_t bits = 8000, n = 2;
    const uint8_t *keys[2] = {key, key}, *ivs[2] = {iv, iv}, *ins[2] = {in, in};
    uint8_t *outs[2] = {out, out + 4096};
    size_t bit_lengths[2] = {8000, 4000};
    (void)bits; (void)n; (void)keys; (void)ivs; (void)ins; (void)outs; (void)bit_lengths; (void)msg; (void)tag;""",
    "ublock": """
    static uint8_t key_bytes[32] = {1}, iv[32] = {2}, in[8192], out[8192];
    size_t len = 4096, n = 2;
    static ublock_key key;
    ublock_set_key(&key, UBLOCK_128_128, key_bytes);
    const ublock_key *key_ptrs[2] = {&key, &key};
    const uint8_t *ivs[2] = {iv, iv}, *ins[2] = {in, in + 4096};
    uint8_t *outs[2] = {out, out + 4096};
    (void)len; (void)n; (void)key_ptrs; (void)ivs; (void)ins; (void)outs;""",
}


def test_readme_c_snippets_compile_and_run(harness_build, tmp_path):
    """Each ```c block of the docs, in a function of its own after the prelude of
    its cipher (the first sm4_/zuc_/ublock_ name in it), compiled with -Werror
    against generated/include, linked with libkcrypt.a and run."""
    blocks = PLAN.c_blocks
    assert blocks, "no ```c block found"
    includes, functions, calls = {"#include <stdint.h>", "#include <stddef.h>"}, [], []
    for number, (doc, line, text) in enumerate(blocks):
        cipher = re.search(r"\b(sm4|zuc|ublock)_", text)
        assert cipher, f"{doc}:{line}: a C block that names no sm4_/zuc_/ublock_ call"
        body = [l for l in text.splitlines() if not l.startswith("#include")]
        includes |= {l.strip() for l in text.splitlines() if l.startswith("#include")}
        includes.add(f'#include "{cipher[1]}.h"')
        functions.append(f"/* {doc}:{line} */\nstatic void snippet_{number}(void) {{{C_PRELUDE[cipher[1]]}\n"
                         f"    {{\n#line {line + 1} \"{doc}\"\n" + "\n".join(body) + "\n    }\n}\n")
        calls.append(f"    snippet_{number}();")
    program = "\n".join(sorted(includes)) + "\n\n" + "\n".join(functions) + \
        "\nint main(void) {\n" + "\n".join(calls) + "\n    return 0;\n}\n"
    (tmp_path / "snippets.c").write_text(program)
    exe = tmp_path / "snippets"
    cc = subprocess.run(["gcc", "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", "-Wno-unused-variable",
                         "-Wno-unused-but-set-variable", f"-I{REPO / 'generated' / 'include'}",
                         str(tmp_path / "snippets.c"), str(harness_build / "lib" / "libkcrypt.a"), "-o", str(exe)],
                        capture_output=True, text=True)
    assert cc.returncode == 0, f"the docs' C snippets do not compile:\n{cc.stderr[-4000:]}\n--- program\n{program}"
    ran = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, f"the docs' C snippets exit {ran.returncode}: {ran.stderr[-2000:]}"


# --------------------------------------------------------------------------
# The extraction itself
# --------------------------------------------------------------------------

def test_extraction_reads_blocks_console_output_continuations_and_inline_spans(tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text("Intro `make thing` and `kcrypt` alone and `build/bench.md`, `build/verify`.\n"
                   "Wrapped `make\nverify-aarch64` here.\n\n"
                   "```sh\nmake a   # does a\n# a comment line\nbuild/x --long \\\n  --more FILE\n```\n\n"
                   "```console\n$ build/kcrypt --list-targets sm4\navx2 native\n...\n$ true\n```\n\n"
                   "```\nno command\n```\n")
    found, c_blocks, problems = extract((str(doc),))
    texts = [c.text for c in found]
    assert texts == ["make a", "build/x --long --more FILE", "build/kcrypt --list-targets sm4", "true",
                     "make thing", "build/verify", "make verify-aarch64"]
    assert found[0].comment == "does a" and found[2].output == ["avx2 native", "..."]
    assert len(problems) == 1 and "``` block" in problems[0]
    regex, optionals, alternatives, unknown = template_regex("build/verify [--quick] [--cipher sm4|zuc] --x FILE")
    m = regex.match("build/verify --cipher zuc --x out.json")
    assert m and m["o0"] is None and m["a0"] == "zuc" and not unknown
    assert not regex.match("build/verify --cipher aes --x out.json")
