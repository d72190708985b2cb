"""`gen`: deterministic output, the drift check, errors."""

import shutil
import subprocess
import sys

import pytest

from gen import choices, cli
from gen.backends import SIMD_TARGETS, kernels

from conftest import ROOT


@pytest.fixture(scope="module")
def products():
    """One generation with the default options, shared (each takes about 9 s)."""
    return cli.produce(choices.load())


@pytest.fixture
def produce_once(monkeypatch, products):
    """cli.produce remembered per set of choices within a test, the module's
    default rendering among them: these tests check what the CLI does with a
    rendering (check, generate, --choose), and each takes about 30 s
    (test_generation_is_deterministic renders afresh)."""
    rendered = {repr(choices.load().values): products}
    render = cli.produce

    def produce(chosen):
        key = repr(chosen.values)
        if key not in rendered:
            rendered[key] = render(chosen)
        return rendered[key]

    monkeypatch.setattr(cli, "produce", produce)


def test_checked_in_generated_is_up_to_date(produce_once):
    assert cli.main(["check"]) == 0


def test_generation_is_deterministic(products):
    assert cli.produce(choices.load()) == products


def test_check_detects_edits_and_stale_files(tmp_path, produce_once):
    shutil.copytree(ROOT / "generated", tmp_path / "generated")
    assert cli.main(["check", "--root", str(tmp_path)]) == 0
    reference = tmp_path / "generated" / "src" / "sm4_reference_scalar.c"
    reference.write_text(reference.read_text().replace("0xd6", "0xd7", 1))  # the S-box's first entry
    assert cli.main(["check", "--root", str(tmp_path)]) == 1
    assert cli.main(["generate", "--root", str(tmp_path)]) == 0
    assert cli.main(["check", "--root", str(tmp_path)]) == 0
    (tmp_path / "generated" / "src" / "leftover.c").write_text("")
    assert cli.main(["check", "--root", str(tmp_path)]) == 1


def test_other_decomposition_changes_constants(tmp_path, produce_once):
    shutil.copytree(ROOT / "generated", tmp_path / "generated")
    assert cli.main(["generate", "--root", str(tmp_path), "--sm4-decomposition", "415"]) == 0
    text = (tmp_path / "generated" / "src" / "sm4_byteslice_avx2_gfni.c").read_text()
    assert "solution #415 of 2040" in text
    # The key schedule writes the byte-sliced round keys in the same domain.
    assert "decomposition\n * #415" in (tmp_path / "generated" / "src" / "sm4_key_schedule_ssse3.c").read_text()
    assert cli.main(["check", "--root", str(tmp_path)]) == 1


def test_choose_is_the_same_as_the_old_flag_and_reaches_one_target(tmp_path, produce_once):
    shutil.copytree(ROOT / "generated", tmp_path / "generated")
    assert cli.main(["generate", "--root", str(tmp_path), "--choose", "sm4.decomposition=415",
                     "--choose", "zuc.s1_isomorphism.avx2_gfni=3"]) == 0
    assert "solution #415 of 2040" in (tmp_path / "generated/src/sm4_byteslice_avx2_gfni.c").read_text()
    assert "zuc.s1_isomorphism = 3," in (tmp_path / "generated/src/zuc_lanes_avx2_gfni.c").read_text()
    assert "zuc.s1_isomorphism = 0," in (tmp_path / "generated/src/zuc_lanes_avx2_vaes.c").read_text()
    assert cli.main(["check", "--root", str(tmp_path), "--sm4-decomposition", "415",
                     "--choose", "zuc.s1_isomorphism.avx2_gfni=3"]) == 0


def test_a_tuning_choice_reaches_its_kernel_alone(tmp_path, produce_once):
    shutil.copytree(ROOT / "generated", tmp_path / "generated")
    assert cli.main(["generate", "--root", str(tmp_path), "--choose", "sm4.groups.byteslice_avx2_gfni=1",
                     "--choose", "zuc.block_form.lanes_avx2_gfni=rolled"]) == 0
    chosen = (tmp_path / "generated/src/sm4_byteslice_avx2_gfni.c").read_text()
    assert "sm4.groups = 1," in chosen and "encrypts (or, with the decryption round keys,\n * decrypts) 32 blocks" in chosen
    other = choices.load().get("sm4.groups", "byteslice_avx2_vaes")           # another kernel keeps its own
    assert f"sm4.groups = {other}," in (tmp_path / "generated/src/sm4_byteslice_avx2_vaes.c").read_text()
    assert "zuc.block_form = rolled," in (tmp_path / "generated/src/zuc_lanes_avx2_gfni.c").read_text()
    assert cli.main(["check", "--root", str(tmp_path)]) == 1


@pytest.mark.parametrize("args, message", [
    (["--sm4-decomposition", "99999"], "sm4.decomposition takes 0..2039"),
    (["--choose", "sm4.decomposition=x"], "sm4.decomposition takes 0..2039"),
    (["--choose", "sm4.groups.byteslice_avx2_gfni=3"], "sm4.groups takes 1, 2, 4, 8"),
    (["--choose", "zuc.block_form.lanes_avx2_gfni=1"], "zuc.block_form takes unrolled or lfsr_in_memory or rolled"),
    (["--choose", "sm4.schedule_before_ra=1"], "sm4.schedule_before_ra takes true or false"),
    (["--choose", "sm4.groups.lanes_avx2_gfni=2"], "has no kernel 'lanes_avx2_gfni'"),
    (["--choose", "sm4.matrix=1"], "no parameter 'sm4.matrix'"),
    (["--choose", "zuc.s1_isomorphism.avx9=1"], "has no target 'avx9'"),
    (["--choose", "zuc.s1_isomorphism=8"], "takes 0..7"),
    (["--choose", "zuc.s0_form.avx2_gfni=table"], "target avx2_gfni: no rule lowers ['sbox8']")])
def test_bad_choices_are_clear_errors(capsys, args, message):
    assert cli.main(["check", *args]) == 2
    assert message in capsys.readouterr().err


def test_generates_from_scratch_into_an_empty_tree(tmp_path, products):
    """(Its speed, under 10 s, is reported by `gen` itself and in docs/pipeline.md.)"""
    done = subprocess.run([sys.executable, "-m", "gen.cli", "generate", "--root", str(tmp_path)], check=True,
                          capture_output=True, text=True)
    assert f"{len(products)} files in generated/" in done.stdout
    assert cli.check(products, tmp_path) == []


def test_the_build_covers_both_ciphers(products):
    """libkcrypt.a gets every native source of SM4 and ZUC: the cores on every
    architecture, each kernel on its target's alone (an assembly twin's .S as
    stem.S.o beside its C file's stem.o); libkcrypt_emulated.a one SIMDe unit
    per cipher; the cores name no instruction set."""
    makefile = products["generated/Makefile"]
    lists = {line.split(" = ")[0]: line.split()[2:] for line in makefile.splitlines()
             if line.startswith(("PORTABLE_OBJECTS =", "KERNEL_OBJECTS_"))}
    sources = sorted(p for p in products if p.startswith("generated/src/") and p.endswith((".c", ".S"))
                     and not p.endswith("_emulated.c"))
    listed = [obj for objects in lists.values() for obj in objects]
    assert sorted(listed) == sorted(f"$(BUILD)/{p[len('generated/src/'):-2]}" + (".o" if p.endswith(".c") else ".S.o")
                                    for p in sources)
    assert "$(BUILD)/sm4_byteslice_avx2_gfni_asm.S.o" in lists["KERNEL_OBJECTS_x86_64"]
    assert {"$(BUILD)/sm4_core.o", "$(BUILD)/zuc_core.o", "$(BUILD)/kc_cpu.o"} <= set(lists["PORTABLE_OBJECTS"])
    assert "$(BUILD)/sm4_byteslice_avx2_gfni.o" in lists["KERNEL_OBJECTS_x86_64"]
    assert "NATIVE_OBJECTS = $(PORTABLE_OBJECTS) $(KERNEL_OBJECTS_$(ARCH))" in makefile
    assert "EMULATED_OBJECTS = $(BUILD)/sm4_emulated.o $(BUILD)/zuc_emulated.o" in makefile
    assert not any(line.startswith(("$(BUILD)/sm4_core.o:", "$(BUILD)/zuc_core.o:")) for line in makefile.splitlines())
    cmake = products["generated/CMakeLists.txt"]
    assert all(f"  src/{p[len('generated/src/'):]}" in cmake for p in sources)


def test_pre_allocation_scheduling_marks_exactly_the_kernels_their_targets_name():
    """KC_SCHEDULE_BEFORE_RA is a choice per kernel (gen/choices.toml): it must
    reach the kernels that take it and no other (it slows some kernels down)."""
    marked = {}
    for path in (ROOT / "generated" / "src").glob("*_*_*.c"):
        cipher, strategy, target = path.stem.split("_", 2)
        if cipher not in ("sm4", "zuc", "ublock"):   # kc_gf128_<target>.c: the modes' key side
            continue
        if target in SIMD_TARGETS and SIMD_TARGETS[target].form == "c":   # an _asm twin's C holds calls alone
            marked[strategy, target] = "\nKC_SCHEDULE_BEFORE_RA\nstatic void " in path.read_text()
    # Every kernel of every dispatch list has its file (x86: SM4 2 x 5, ZUC 6, uBlock 2 x 3).
    assert len(marked) == sum(len(kernels(cipher)) for cipher in ("sm4", "zuc", "ublock"))
    chosen = choices.load()
    expected = {(strategy, target): chosen.get(f"{cipher}.schedule_before_ra", f"{strategy}_{target}")
                for cipher in ("sm4", "zuc", "ublock") for strategy, target in kernels(cipher)}
    assert expected.keys() == marked.keys()
    assert marked == expected
    assert any(expected.values()) and not all(expected.values())
