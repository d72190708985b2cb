"""The target manifest (generated/targets.json, generated/include/kc_targets.h):
written once from gen/backends, read by every tool that needs a target's facts
(harness/mca_model.py, gen/explore.py, harness/report.py, the C harness
through kc_targets.h), and no list of target names left anywhere else."""

import argparse
import ast
import json
import re
import subprocess
import sys

import pytest

from gen import explore
from gen.backends import REFERENCE, SIMD_TARGETS, cpu_models, implementations, x86
from gen.backends.x86.target import target as x86_target
from gen.emit import target_files

from conftest import ROOT

sys.path.insert(0, str(ROOT / "harness"))
import mca_model  # noqa: E402
import report  # noqa: E402
import target_manifest  # noqa: E402

GENERATED = ROOT / "generated"


def manifest_json(generated=GENERATED):
    return json.loads((generated / "targets.json").read_text())


def test_the_manifest_is_the_backends():
    data = manifest_json()
    entries = {t["name"]: t for t in data["targets"]}
    assert set(entries) == set(SIMD_TARGETS) | {REFERENCE[1]}
    for name, target in SIMD_TARGETS.items():
        entry = entries[name]
        assert entry["arch"] == target.arch.name and entry["bits"] == target.bits
        assert entry["cflags"] == list(target.cflags) and entry["cpu_features"] == list(target.cpu_features)
        assert entry["form"] == target.form and entry["twin_of"] == target.twin_of
        assert entry["mca_cpus"] == [m.name for m in cpu_models(target.arch)
                                     if set(target.cpu_features) <= m.features]
    for cipher in target_files.CIPHERS:
        listed = [(k["strategy"], k["target"]) for arch in data["kernels"][cipher].values() for k in arch
                  if k["strategy"] != REFERENCE[0]]
        assert listed == list(implementations(cipher))
        for arch in data["kernels"][cipher].values():
            assert arch[-1]["kernel"] == "reference_scalar"   # every registry ends in the reference
    models = {m["name"]: (a["name"], set(m["features"]), m["mattr"]) for a in data["architectures"]
              for m in a["cpu_models"]}
    assert models["neoverse-n1"] == ("aarch64", {"asimd", "arm_aes", "arm_pmull"}, "+aes,+sha2")
    assert models["znver3"] == ("x86_64", {"ssse3", "aes", "avx2", "vaes", "pclmul", "vpclmulqdq"}, "")


def test_valgrind_verdicts_are_those_the_constant_time_check_uses():
    """Valgrind 3.19 runs SSSE3, AVX2, AES-NI and PCLMULQDQ, not GFNI or
    AVX-512, and 256-bit VAES and VPCLMULQDQ only split in two (harness/c/ctcheck.h)."""
    verdict = {t["name"]: t["valgrind"] for t in manifest_json()["targets"]}
    assert {n: verdict[n] for n in ("avx512_gfni", "avx2_gfni", "avx512")} == dict.fromkeys(
        ("avx512_gfni", "avx2_gfni", "avx512"), "emulated")
    assert verdict["avx2_vaes"] == verdict["avx2_vaes_asm"] == "split"
    assert all(verdict[n] == "native" for n in ("ssse3_aesni", "avx2_aesni", "ssse3", "avx2", "avx2_asm", "scalar"))
    assert verdict["avx512_gfni_asm"] == "none"   # no SIMDe build of an assembly twin


def compile_and_run(tmp_path, include, body):
    """A C program that includes kc_targets.h from `include`, built with
    warnings as errors; its output."""
    src = tmp_path / "probe.c"
    src.write_text('#include <stdio.h>\n#include "kc_targets.h"\nint main(void)\n{\n' + body + "    return 0;\n}\n")
    exe = tmp_path / "probe"
    subprocess.run(["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic", f"-I{include}", str(src),
                    "-o", str(exe)], check=True)
    return subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout


DUMP = """    for (size_t i = 0; i < KC_TARGET_COUNT; i++) {
        const kc_target_info *t = &kc_targets()[i];
        printf("%s %s %s %d %d %zu\\n", t->name, t->arch[0] ? t->arch : "-", t->twin_of[0] ? t->twin_of : "-",
               (int)t->valgrind, t->valgrind_ok, kc_target_rank(t->name));
    }
    printf("%d %zu\\n", kc_target_find("avx1024") == NULL, kc_target_rank("avx1024"));
"""
VALGRIND_ENUM = ("native", "split", "emulated", "none")


def expected_dump(data):
    lines = [f'{t["name"]} {t["arch"] or "-"} {t["twin_of"] or "-"} {VALGRIND_ENUM.index(t["valgrind"])} '
             f'{int(t["valgrind"] in ("native", "split"))} {i}' for i, t in enumerate(data["targets"])]
    return "\n".join(lines + [f"1 {len(data['targets'])}"]) + "\n"


def test_kc_targets_h_is_the_manifest_in_c(tmp_path):
    out = compile_and_run(tmp_path, GENERATED / "include", DUMP)
    assert out == expected_dump(manifest_json())


@pytest.fixture
def made_up_target(monkeypatch):
    """A target added to the x86 backend the way a new one is (a module's
    TARGET in TARGETS, a kernel in KERNELS): AVX-512 with GFNI but no VBMI,
    emulable, whose uBlock nibbleslice kernel is made the first in dispatch."""
    base = SIMD_TARGETS["avx512"]
    made = x86_target(name="avx512_madeup", bits=512, cflags=("-mavx512f", "-mavx512bw", "-mgfni"),
                      cpu_features=("avx512f", "avx512bw", "gfni"), passes=base.passes, emulable=True,
                      description="made up for tests/test_target_manifest.py")
    monkeypatch.setattr(x86, "TARGETS", x86.TARGETS + (made,))
    monkeypatch.setattr(x86, "KERNELS", {**x86.KERNELS,
                                         "ublock": (("nibbleslice", made.name),) + x86.KERNELS["ublock"]})
    monkeypatch.setitem(SIMD_TARGETS, made.name, made)
    monkeypatch.setitem(SIMD_TARGETS, made.asm_twin().name, made.asm_twin())
    return made


def test_a_made_up_target_reaches_every_tool(made_up_target, tmp_path, monkeypatch):
    generated = tmp_path / "generated"
    for path, text in target_files.files().items():       # what `gen` writes
        (generated / path).parent.mkdir(parents=True, exist_ok=True)
        (generated / path).write_text(text)
    name, kernel = made_up_target.name, f"nibbleslice_{made_up_target.name}"

    data = manifest_json(generated)
    entry = next(t for t in data["targets"] if t["name"] == name)
    assert entry["arch"] == "x86_64" and entry["valgrind"] == "emulated"
    assert entry["mca_cpus"] == ["znver4", "icelake-server"]             # Zen 3 has no AVX-512
    assert data["kernels"]["ublock"]["x86_64"][0]["kernel"] == kernel
    assert any(t["name"] == f"{name}_asm" and t["valgrind"] == "none" for t in data["targets"])

    # The llvm-mca model: its architecture, flags, CPU models, and --all.
    assert mca_model.arch_of_target(name, str(generated)) is mca_model.X86
    assert mca_model.target_flags(name, str(generated)) == ["-mavx512f", "-mavx512bw", "-mgfni"]
    args = argparse.Namespace(cpu=None, arm_cpu=None, generated=str(generated))
    assert mca_model.cpus_for(kernel, args) == ["znver3", "znver4", "icelake-server"]
    assert kernel in mca_model.every_kernel(str(generated))
    assert f"{kernel}_asm" not in mca_model.every_kernel(str(generated))

    # gen explore ranks it on the models dispatch would run it on, and the
    # kernel it now comes before on those loses them.
    assert explore.dispatched_on(kernel) == ["znver4", "icelake-server"]
    assert explore.dispatched_on("nibbleslice_avx2") == ["znver3"]

    # The report's uBlock tables.
    monkeypatch.setattr(target_manifest, "GENERATED", str(generated))
    assert name in report.ublock_targets()

    # The C harness, through kc_targets.h.
    out = compile_and_run(tmp_path, generated / "include", DUMP)
    assert out == expected_dump(data)
    assert f"{name} x86_64 - 2 0 " in out


def python_strings(path):
    """The string constants of a Python file that are not docstrings (a
    bare string statement is a comment)."""
    tree = ast.parse(path.read_text())
    comments = {id(node.value) for node in ast.walk(tree)
                if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)}
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in comments]


def names_in(words, names):
    """Words that are a target's name, or a kernel's or file's that ends in one."""
    return [w for w in words if w in names or any(w.endswith("_" + n) or w.startswith(n + "_") for n in names)]


# The exception, "avx2" as what else it names: the report gives the uBlock
# paper's instruction set as CPU features (a feature's name, which a target
# shares).  ipsec-mb's glue (harness/c/ipsecmb.c) names the peer's own
# architectures ("avx2", "avx512"), not ours.
ALLOWED = {("report.py", "avx2")}
PEER_GLUE = {"ipsecmb.c", "ipsecmb.h"}
PEER_CALLS = ("init_mb_mgr_",)  # ipsec-mb's manager set-ups, named in bench's records


def c_strings(path):
    """(line, text) of each string literal in a C file, comments left out."""
    text = re.sub(r"/\*.*?\*/|//[^\n]*", lambda m: "\n" * m.group(0).count("\n"), path.read_text(), flags=re.S)
    return [(text.count("\n", 0, m.start()) + 1, m.group(1)) for m in re.finditer(r'"((?:[^"\\\n]|\\.)*)"', text)]


def test_no_list_of_target_names_outside_the_manifest():
    """harness/*.py, the C harness and the top-level Makefile take every
    target and kernel from generated/targets.json (the C harness through
    kc_targets.h and the library's registries): no target's name in their
    code (comments and docstrings may name them; tests/ are not looked at)."""
    names = {t["name"] for t in manifest_json()["targets"]} - {REFERENCE[1]}
    found = []
    for path in sorted((ROOT / "harness").glob("*.py")):
        for line, text in python_strings(path):
            words = re.split(r"[^A-Za-z0-9_.\-]+", text)
            found += [(path.name, line, w) for w in names_in(words, names) if (path.name, w) not in ALLOWED]
    for path in sorted((ROOT / "harness" / "c").glob("*.[ch]")):
        if path.name not in PEER_GLUE:
            found += [(path.name, line, w) for line, text in c_strings(path)
                      for w in names_in(re.split(r"[^A-Za-z0-9_.\-]+", text), names)
                      if not w.startswith(PEER_CALLS)]
    for number, line in enumerate((ROOT / "Makefile").read_text().splitlines(), 1):
        code = line.split("#", 1)[0]
        found += [("Makefile", number, w) for w in names_in(re.split(r"[^A-Za-z0-9_]+", code), names)]
    assert found == []


def test_the_grep_finds_a_name_where_there_is_one(tmp_path):
    c_file = tmp_path / "probe.c"
    c_file.write_text('/* "avx2" */ static const char *t = "avx2_vaes"; // "neon"\nputs("a \\" b");\n')
    assert c_strings(c_file) == [(1, "avx2_vaes"), (2, 'a \\" b')]
    names = {"avx2_vaes", "neon"}
    assert names_in("byteslice_avx2_vaes sm4_*_neon*.c -mavx2 sm4-neon-core.S".split(), names) == [
        "byteslice_avx2_vaes"]
    assert names_in(re.split(r"[^A-Za-z0-9_]+", "generated/src/sm4_*_neon*.c"), names) == ["_neon"]


def harness_imports():
    """{module: the harness modules it imports} for harness/*.py, imports
    inside functions included."""
    modules = {p.stem: p for p in (ROOT / "harness").glob("*.py")}
    graph = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text())
        imported = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                imported |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                imported.add(node.module.split(".")[0])
        graph[name] = imported & set(modules)
    return graph


def test_no_import_circle_in_the_python_harness():
    graph = harness_imports()
    assert "mca_core" in graph["linux_peers"] and "linux_peers" in graph["mca_model"]

    def reaches(start, goal, seen=()):
        return any(n == goal or (n not in seen and reaches(n, goal, seen + (n,))) for n in graph[start])

    assert [m for m in graph if reaches(m, m)] == []


def harness_c_calls(objdir):
    """{unit: the harness/c units whose symbols it uses} for every harness/c/*.c but the
    programs' mains, from the symbols of their objects in `objdir` (nm)."""
    mains = {"kcrypt", "verify", "bench", "ctcheck"}
    units = sorted(p.stem for p in (ROOT / "harness" / "c").glob("*.c") if p.stem not in mains)
    defined, used = {}, {}
    for unit in units:
        rows = [line.split() for line in subprocess.run(["nm", str(objdir / f"{unit}.o")], check=True,
                                                        capture_output=True, text=True).stdout.splitlines()]
        defined[unit] = {r[2] for r in rows if len(r) == 3 and r[1] in "TDRB"}
        used[unit] = {r[1] for r in rows if len(r) == 2 and r[0] == "U"}
    owner = {sym: unit for unit in units for sym in defined[unit]}
    return {unit: {owner[s] for s in used[unit] if s in owner} - {unit} for unit in units}


def test_no_call_circle_in_the_c_harness(harness_build):
    """No two harness/c units (or groups of them) use each other's symbols both ways: the
    descriptions use the tools' libraries, ciphers.c the descriptions, and the tools reach
    a cipher only through its description's pointers."""
    graph = harness_c_calls(harness_build / "harness")
    assert "verify_block" in graph["cipher_sm4"] and "cipher_sm4" in graph["ciphers"]

    def reaches(start, goal, seen=()):
        return any(n == goal or (n not in seen and reaches(n, goal, seen + (n,))) for n in graph[start])

    assert [u for u in graph if reaches(u, u)] == []
