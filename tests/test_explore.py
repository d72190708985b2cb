"""`gen explore` (gen/explore.py) and the checked-in choices (gen/choices.py):
a program's static cost and shape, the ranking and its groups, the cache,
and the choices file read, overridden and rewritten."""

import dataclasses
import json
import multiprocessing
import re
import shutil
import sys

import pytest

from gen import choices, cli, explore
from gen.backends import SIMD_TARGETS, arch, cpu_models
from gen.ir import Builder


def sm4_program(index, target="avx2_gfni", strategy="wordslice"):
    return explore.PROGRAMS["sm4", "batch"](strategy, SIMD_TARGETS[target], choices.load().with_choice(f"sm4.decomposition={index}"))


def test_two_decompositions_are_one_shape_with_other_constants():
    a, b = sm4_program(0), sm4_program(415)
    assert explore.shape(a) == explore.shape(b)
    data = lambda p: [op.attrs.get("data") or op.attrs.get("imm") for op in p.walk() if hasattr(op, "opcode")]
    assert data(a) != data(b)


def test_another_instruction_is_another_shape():
    def program(second):
        b = Builder("p", 128, ("in", "out"))
        x = b.load("in", 0)
        b.store("out", 0, second(b, x, b.load("in", 16)))
        return b.finish()
    assert explore.shape(program(lambda b, x, y: b.xor(x, y))) != explore.shape(program(lambda b, x, y: b.and_(x, y)))


def test_a_comment_is_no_part_of_the_shape():
    def program(comment):
        b = Builder("p", 128, ("in", "out"))
        b.comment(comment)
        b.store("out", 0, b.load("in", 0))
        return b.finish()
    assert explore.shape(program("one")) == explore.shape(program("another"))


def test_counts_multiply_a_loop_body_by_its_iterations():
    b = Builder("p", 128, ("in", "out"))
    s = b.var("s")
    b.assign(s, b.load("in", 0))
    with b.loop("r", 3):
        b.assign(s, b.xor(b.add(s, b.const(bytes(16), "c", "zero"), lane=32), s))
    b.store("out", 0, s)
    by_kind, constant_bytes = explore.counts(SIMD_TARGETS["avx2"].lower(b.finish()))
    assert by_kind["alu"] == 6 and by_kind["memory"] == 2   # (the constant is made once, before the loop)
    assert constant_bytes == 16


def cost(ops, spills=(0, 0), shape="s", constant_bytes=16, nbytes=1024):
    return {"shape": shape, "bytes": nbytes, "ops": {**dict.fromkeys(("memory", "constant", "shuffle", "alu", "gfni", "cipher"), 0),
                                    **ops}, "constant_bytes": constant_bytes, "spills": list(spills)}


def test_ranking_groups_equal_costs_cheapest_first_and_says_why():
    costs = {0: {"k": cost({"alu": 10}, shape="a")}, 1: {"k": cost({"alu": 9}, shape="b")},
             2: {"k": cost({"alu": 10}, shape="c")}, 3: {"k": cost({"alu": 9}, shape="b")}}
    groups = explore.rank(costs)["k"]
    assert [g.values for g in groups] == [[1, 3], [0, 2]]
    assert "constants alone" in groups[0].reason and "2 instruction sequences" in groups[1].reason
    assert explore.best_value(costs) == (1, [1, 3])
    assert explore.best_value(costs, current=3) == (3, [1, 3])


def test_spills_break_ties_between_equal_operation_counts():
    costs = {0: {"k": cost({"alu": 9}, spills=(4, 4))}, 1: {"k": cost({"alu": 9}, spills=(1, 2))}}
    assert explore.best_value(costs)[0] == 1


def test_static_costs_come_from_the_cache_the_second_time(tmp_path, monkeypatch):
    param = choices.PARAMETERS["zuc.s1_isomorphism"]
    first = explore.static_costs(param, choices.load(), ["neon_aes"], jobs=2, cache_dir=tmp_path, progress=None)
    assert sorted(first) == list(range(8))
    assert set(first[0]) == {"lanesx2_neon_aes", "lanes_neon_aes"}
    assert len({c["lanes_neon_aes"]["shape"] for c in first.values()}) == 1

    def no_pool(*args, **kwargs):
        raise AssertionError("recomputed what the cache holds")
    monkeypatch.setattr(multiprocessing, "Pool", no_pool)
    assert explore.static_costs(param, choices.load(), ["neon_aes"], cache_dir=tmp_path, progress=None) == first


def with_values(monkeypatch, name, values, **changes):
    """PARAMETERS[name] with `values` alone (and `changes`), for the test (the pool's workers fork after it)."""
    param = dataclasses.replace(choices.PARAMETERS[name], values=lambda: values, **changes)
    monkeypatch.setitem(choices.PARAMETERS, name, param)
    return param


def test_a_probed_class_is_costed_as_its_first_value_after_both_ends_lowered_alike(tmp_path, monkeypatch):
    param = with_values(monkeypatch, "sm4.decomposition", (0, 1, 415, 2039))
    costs = explore.static_costs(param, choices.load(), ["neon_aes"], jobs=2, cache_dir=tmp_path, progress=None)
    assert [g.inferred for g in explore.rank(costs)["byteslice_neon_aes"]] == [2]
    for value in param.values():
        _, full = explore._cost_value((param.name, value, choices.load(), ("neon_aes",)))
        for kernel, cost in costs[value].items():
            assert cost.pop("costed_as", None) == (0 if value in (1, 415) else None)
            assert cost == full[kernel]          # the inference holds for these values


def test_a_probed_class_whose_ends_differ_is_lowered_in_full(tmp_path, monkeypatch):
    param = with_values(monkeypatch, "sm4.groups", (1, 2, 4), probe=("sm4.rounds_per_iteration=4",))
    real = explore.shape
    # A probe that cannot tell the values apart: one class, whose ends then cost differently.
    monkeypatch.setattr(explore, "shape", lambda program, code_choices=(): real(program, code_choices)
                        if code_choices else "the same")
    costs = explore.static_costs(param, choices.load(), ["neon_aes"], jobs=2, cache_dir=tmp_path, progress=None)
    assert not any("costed_as" in c for per in costs.values() for c in per.values())
    assert len({costs[v]["wordslice_neon_aes"]["shape"] for v in (1, 2, 4)}) == 3


def test_explore_prints_the_ranking_and_apply_rewrites_the_choices(tmp_path, monkeypatch, capsys):
    path = tmp_path / "choices.toml"
    path.write_text(choices.PATH.read_text())
    monkeypatch.setattr(choices, "PATH", path)
    monkeypatch.setattr(cli.explore, "ROOT", tmp_path)          # its cache goes under tmp_path/build
    monkeypatch.setattr(cli, "ROOT", tmp_path)
    png, js = tmp_path / "spread.png", tmp_path / "costs.json"
    assert cli.main(["explore", "zuc", "--param", "s1_isomorphism", "--target", "avx2_gfni", "--top", "2",
                     "--png", str(png), "--json", str(js)]) == 0
    out = capsys.readouterr().out
    assert "| lanes_avx2_gfni | 1 | all 8 | 512 |" in out and "constants alone" in out
    assert re.search(r"\| lanes_avx2_gfni \| 8 \| all 8 \(\d+\.\d ops/B\) \| all 8 \(\d+\.\d ops/B\) \| #0 \| yes \|", out)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(json.loads(js.read_text())["zuc.s1_isomorphism"]["costs"]["7"]) == ["lanes_avx2_gfni"]
    assert cli.main(["explore", "zuc", "--param", "s1_isomorphism", "--apply"]) == 0
    written = choices.load(path)
    assert written.values == choices.load(choices.PATH).values
    assert "gen explore zuc --param s1_isomorphism --depth static" in written.rankings["zuc.s1_isomorphism"]
    assert "all 8 values cost the same on 8 of 8 kernels" in written.rankings["zuc.s1_isomorphism"]


def test_apply_writes_each_kernels_best_value_and_its_ranking(tmp_path, monkeypatch, capsys):
    """A parameter keyed by kernel: each kernel takes its own best (statically,
    an unrolled ZUC block: fewer operations) with a ranking line of its own."""
    path = tmp_path / "choices.toml"
    path.write_text(choices.PATH.read_text())
    monkeypatch.setattr(choices, "PATH", path)
    monkeypatch.setattr(cli.explore, "ROOT", tmp_path)
    monkeypatch.setattr(cli, "ROOT", tmp_path)
    assert cli.main(["explore", "zuc", "--param", "block_form", "--apply"]) == 0
    assert "best: lanes_avx512_gfni " in capsys.readouterr().out
    written = choices.load(path)
    assert "rolled" not in set(written.values["zuc.block_form"].values())
    assert set(written.rankings["zuc.block_form"]) == set(written.values["zuc.block_form"])
    assert "rolled: " in written.rankings["zuc.block_form"]["lanes_avx2_vaes"]
    assert choices.dump(written) == path.read_text()
    # With --target: that target's kernels alone; the others keep the value and
    # line they had (in the checked-in file, which gen explore reads).
    checked_in = choices.load()
    assert cli.main(["explore", "zuc", "--param", "block_form", "--target", "neon_aes", "--apply"]) == 0
    written = choices.load(path)
    for kernel in ("lanes_avx2_vaes", "lanes_avx512_gfni"):
        assert written.rankings["zuc.block_form"][kernel] == checked_in.rankings["zuc.block_form"][kernel]
        assert written.values["zuc.block_form"][kernel] == checked_in.values["zuc.block_form"][kernel]
    assert "--depth static" in written.rankings["zuc.block_form"]["lanes_neon_aes"]
    assert cli.main(["explore", "zuc", "--param", "s0_form", "--target", "neon_aes", "--apply"]) == 2
    assert "zuc.s0_form take one value for every kernel or target" in capsys.readouterr().err


def test_explore_needs_a_known_cipher_and_target(capsys):
    assert cli.main(["explore"]) == 2
    assert "which cipher" in capsys.readouterr().err
    assert cli.main(["explore", "zuc", "--target", "avx2"]) == 2
    assert "zuc has no kernel on avx2" in capsys.readouterr().err
    assert cli.main(["explore", "zuc", "--param", "groups"]) == 2
    assert "zuc has no parameter groups; its parameters: s1_isomorphism, s0_form," in capsys.readouterr().err


def test_the_choices_file_round_trips():
    loaded = choices.load()
    assert choices.load.__defaults__[0] == choices.PATH
    assert choices.dump(loaded) == choices.PATH.read_text()


@pytest.mark.parametrize("text, message", [
    ("[sm4.decomposition]\nvalue = 0\n", r"no \[zuc.s1_isomorphism\] value"),
    ("[sm4.decomposition]\nvalue = { avx2 = 1 }\n[zuc.s1_isomorphism]\nvalue = { avx2 = 0 }\n", "takes one value"),
    (re.sub(r"(\[sm4\.groups\.value\]\n(?:.*\n)*?)byteslice_avx2_vaes = \d+\n", r"\1", choices.PATH.read_text()),
     "sm4.groups has no value for byteslice_avx2_vaes")])
def test_a_broken_choices_file_is_a_clear_error(tmp_path, text, message):
    path = tmp_path / "choices.toml"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        choices.load(path)


@pytest.mark.skipif(shutil.which("llvm-mca-19") is None and shutil.which("llvm-mca") is None,
                    reason="llvm-mca not installed (make deps)")
def test_depth_model_runs_llvm_mca_once_per_shape(tmp_path):
    param, chosen = choices.PARAMETERS["zuc.s1_isomorphism"], choices.load()
    costs = explore.static_costs(param, chosen, ["neon_aes"], cache_dir=tmp_path, progress=None)
    modelled = explore.modelled_costs(param, costs, chosen, cache_dir=tmp_path, progress=None)
    assert set(modelled) == {"lanes_neon_aes", "lanesx2_neon_aes"}
    for kernel, shapes in modelled.items():
        assert len(shapes) == 1                                  # 8 choices, one shape: modelled once
        (per_cpu,) = shapes.values()
        assert set(per_cpu) == set(explore.MODEL_CPUS["aarch64"])
        assert all(0 < v < 20 for v in per_cpu.values())
    ranking = explore.rank(explore.with_model(costs, modelled))
    assert "neoverse-v1" in explore.table(param, ranking, 1)


def test_a_kernel_is_ranked_on_the_cpu_models_dispatch_runs_it_on():
    """byteslice_neon_aes runs on N1 alone (N2 and V1 have SHA-3: byteslice_neon_sha3
    comes first), so N1's figures rank it, whatever N2 and V1 say."""
    assert explore.dispatched_on("byteslice_neon_aes") == ["neoverse-n1"]
    assert explore.dispatched_on("byteslice_neon_sha3") == ["neoverse-n2", "neoverse-v1"]
    assert explore.dispatched_on("byteslice_avx2_vaes") == ["znver3"]
    assert explore.dispatched_on("byteslice_avx512_gfni") == ["znver4", "icelake-server"]
    assert explore.dispatched_on("byteslice_avx2_aesni") == list(explore.MODEL_CPUS["x86_64"])   # first on none
    modelled = {"byteslice_neon_aes": {"one": {"neoverse-n1": 5.2, "neoverse-n2": 5.2, "neoverse-v1": 4.2},
                                       "two": {"neoverse-n1": 5.4, "neoverse-n2": 5.3, "neoverse-v1": 3.5}}}
    costs = explore.with_model({1: {"byteslice_neon_aes": cost({"alu": 9}, shape="one")},
                                2: {"byteslice_neon_aes": cost({"alu": 9}, shape="two")}}, modelled)
    assert explore.modelled_mean(costs[2]["byteslice_neon_aes"]) == 5.4
    assert explore.best_value(costs) == (1, [1])      # the mean over all three would pick 2
    param = choices.PARAMETERS["sm4.groups"]
    assert "neoverse-n1 5.40 (neoverse-n2 5.30, neoverse-v1 3.50)" in explore.table(param, explore.rank(costs), 2)


def test_the_cpu_models_features_are_those_the_model_gives_each_core():
    """explore.MODEL_CPUS says what each CPU model's core has (the backends'
    CPU_MODELS); harness/mca_model.py models x86 cores as GCC's -march knows
    them and gives each Neoverse core the backend's -mattr: the two must
    agree, or a kernel is ranked on the wrong cores."""
    sys.path.insert(0, str(explore.ROOT / "harness"))
    import mca_model
    x86 = {t.name: t for t in SIMD_TARGETS.values() if t.arch.name == "x86_64" and t.form == "c"}
    for cpu, features in explore.MODEL_CPUS["x86_64"].items():
        for target in x86.values():
            missing = mca_model.features_missing(cpu, [f"-m{f}" for f in target.cpu_features])
            assert (set(target.cpu_features) <= features) == (not missing), (cpu, target.name, missing)
    mattr = {"arm_aes": "+aes", "arm_pmull": "+aes", "arm_sha3": "+sha3", "arm_sm4": "+sm4"}  # LLVM's +aes has PMULL
    for cpu, features in explore.MODEL_CPUS["aarch64"].items():
        given = {m.name: m.mattr for m in cpu_models(arch.AARCH64)}[cpu].split(",")
        assert {f for f in mattr if mattr[f] in given} == features - {"asimd"}, cpu


def test_spearman_ranks_with_ties():
    assert explore.spearman([(1, 10), (2, 20), (3, 35)]) == pytest.approx(1.0)
    assert explore.spearman([(1, 3), (2, 2), (3, 1)]) == pytest.approx(-1.0)
    assert explore.spearman([(1, 1), (1, 2), (2, 3), (3, 3)]) == pytest.approx(8 / 9)   # scipy.stats.spearmanr
    assert explore.spearman([(1, 1), (2, 1), (3, 1)]) is None and explore.spearman([(1, 2)]) is None


def test_measured_cost_ranks_first_and_untimed_values_last():
    timed = lambda cpb: {"cpb": cpb, "gbps": 8 / cpb}
    costs = {1: {"k": {**cost({"alu": 5}), "measured": timed(2.0)}},
             2: {"k": {**cost({"alu": 9}), "measured": timed(1.5)}},
             4: {"k": {**cost({"alu": 1}), "measured": None}}}
    assert [g.values for g in explore.rank(costs)["k"]] == [[2], [1], [4]]
    assert explore.best_value(costs) == (2, [2])


def test_measure_times_the_top_values_of_each_native_kernel(monkeypatch, tmp_path):
    """The wiring of depth measure, its builds and bench runs stood in for:
    the `top` cheapest groups of each kernel the CPU runs are timed, in turns."""
    from gen import explore_measure
    param = choices.PARAMETERS["sm4.groups"]
    costs = {g: {"byteslice_avx2_gfni": cost({"alu": 100 + g}, shape=f"s{g}"), "byteslice_neon_aes": cost({"alu": 1})}
             for g in param.values()}
    costs[8]["byteslice_avx2_gfni"] = costs[2]["byteslice_avx2_gfni"]     # one shape: timed once, for both
    costs[4]["byteslice_avx2_gfni"] = {**costs[1]["byteslice_avx2_gfni"], "shape": "s4"}   # its group, another shape
    costs[1]["wordslice_avx2_gfni"] = {"invalid": "an instruction the target lacks"}
    costs[2]["wordslice_avx2_gfni"] = costs[4]["wordslice_avx2_gfni"] = costs[8]["wordslice_avx2_gfni"] = cost({"alu": 1})
    built = []
    monkeypatch.setattr(explore_measure.Bench, "__init__", lambda self, work: None)
    monkeypatch.setattr(explore_measure.Bench, "make", lambda self: tmp_path / "bench")
    monkeypatch.setattr(explore_measure.Bench, "native", lambda self: {"sm4": {"byteslice_avx2_gfni", "wordslice_avx2_gfni"}})
    monkeypatch.setattr(explore_measure.Bench, "variant", lambda self, files, label: built.append(files) or label)
    monkeypatch.setattr(explore_measure.Bench, "time", lambda self, benches, cipher, impl:
                        {value: {"gbps": 10.0 + label, "cpb": 1.0 / (1 + label)} for value, label in benches.items()})
    files = lambda value, strategy, target: {f"src/{strategy}_{target.name}.c": str(value)}
    out = explore_measure.measure(param, costs, explore.rank(costs), files, top=2, progress=None)
    assert built == [{"src/byteslice_avx2_gfni.c": "1"}, {"src/byteslice_avx2_gfni.c": "4"},
                     {"src/wordslice_avx2_gfni.c": "2"}]
    assert out[1]["wordslice_avx2_gfni"] == {"invalid": "an instruction the target lacks"}   # never timed
    assert [out[g]["byteslice_avx2_gfni"]["measured"] for g in param.values()] == \
        [{"gbps": 10.0, "cpb": 1.0}, None, {"gbps": 11.0, "cpb": 0.5}, None]
    assert "measured" not in out[1]["byteslice_neon_aes"]
    assert explore.best_per_key(param, out, choices.load())["byteslice_avx2_gfni"] == (4, [4])
    out = explore_measure.measure(param, costs, explore.rank(costs), files, top=3, progress=None)
    assert out[8]["byteslice_avx2_gfni"]["measured"] == out[2]["byteslice_avx2_gfni"]["measured"] is not None


def test_every_kernel_is_timed_at_bulk_work(monkeypatch, tmp_path):
    """Serial work runs on the one-block forms, which no parameter shapes: so
    the kernel with the smallest batch too is timed on CTR (BENCH_CASES), its
    records in the modelled-against-measured correlation."""
    from gen import explore_measure
    param = choices.PARAMETERS["sm4.groups"]
    kernels_ = ("wordslice_avx2_gfni", "wordslice_ssse3_aesni")
    costs = {g: {k: {**cost({"alu": 100 + g}, shape=f"s{g}"), "model": {"znver4": 1.0 + g}} for k in kernels_}
             for g in param.values()}
    cases = {}
    monkeypatch.setattr(explore_measure.Bench, "__init__", lambda self, work: None)
    monkeypatch.setattr(explore_measure.Bench, "make", lambda self: tmp_path / "bench")
    monkeypatch.setattr(explore_measure.Bench, "native", lambda self: {"sm4": {*kernels_, "reference_scalar"}})
    monkeypatch.setattr(explore_measure.Bench, "variant", lambda self, files, label: label)
    monkeypatch.setattr(explore_measure.Bench, "time", lambda self, benches, case, impl: cases.setdefault(impl, case)
                        and {value: {"gbps": 10.0 - label, "cpb": 1.0, "mode": case[1]} for value, label in benches.items()})
    out = explore_measure.measure(param, costs, explore.rank(costs), lambda v, s, t: {}, top=4, progress=None)
    assert cases == {k: explore_measure.BENCH_CASES["sm4"] for k in kernels_}
    ranking = explore.rank(out)
    assert "serial" not in explore.table(param, ranking, 4)
    assert set(explore.correlations(ranking)) == {"avx2_gfni", "ssse3_aesni"}


def test_a_variant_writes_only_the_files_it_changes_and_puts_them_back(monkeypatch, tmp_path):
    """An unchanged shared header keeps its time stamp: make then rebuilds the
    one kernel a value changes, not every unit that includes the header."""
    from gen import explore_measure
    bench = explore_measure.Bench.__new__(explore_measure.Bench)
    bench.work, bench.generated = tmp_path, tmp_path / "generated"
    (bench.generated / "src").mkdir(parents=True)
    kernel, header = bench.generated / "src/k.c", bench.generated / "src/shared.h"
    kernel.write_text("old kernel")
    header.write_text("header")
    before = header.stat().st_mtime_ns
    seen = {}

    def make():
        seen.update(kernel=kernel.read_text(), header_mtime=header.stat().st_mtime_ns)
        (tmp_path / "bench").write_text("bench")
        return tmp_path / "bench"
    bench.make = make
    kept = bench.variant({"src/k.c": "new kernel", "src/shared.h": "header"}, 0)
    assert kept.read_text() == "bench" and seen == {"kernel": "new kernel", "header_mtime": before}
    assert kernel.read_text() == "old kernel" and header.stat().st_mtime_ns == before


def test_a_measured_difference_within_the_noise_keeps_the_current_value():
    timed = lambda cpb: {**cost({"alu": 5}), "measured": {"cpb": cpb, "gbps": 8 / cpb}}
    costs = {False: {"k": timed(1.00)}, True: {"k": timed(1.02)}}
    assert explore.best_value(costs, current=True) == (True, [False, True])
    assert explore.best_value(costs, current=False)[0] is False
    costs[True]["k"] = timed(1.10)                               # beyond explore.MEASURE_NOISE
    assert explore.best_value(costs, current=True) == (False, [False])


def test_costs_written_by_one_run_are_ranked_and_applied_by_another(tmp_path, monkeypatch, capsys):
    """--json, then --costs: measure on one machine, rank (and --apply) anywhere."""
    path = tmp_path / "choices.toml"
    path.write_text(choices.PATH.read_text())
    monkeypatch.setattr(choices, "PATH", path)
    monkeypatch.setattr(cli, "ROOT", tmp_path)
    kernels_ = [f"{s}_{t}" for s, t in explore.reached(choices.PARAMETERS["ublock.groups"])]
    timed = lambda gbps: {**cost({"alu": 5}), "measured": {"cpb": 8 / gbps, "gbps": gbps}}
    saved = {"ublock.groups": {"depth": "measure", "machine": "Some CPU",
                               "costs": {str(g): {k: timed(10.0 * g if k == "register_avx2" else 10.0) for k in kernels_}
                                         for g in (1, 2, 4)}}}
    (tmp_path / "costs.json").write_text(json.dumps(saved))
    assert cli.main(["explore", "ublock", "--costs", str(tmp_path / "costs.json"), "--apply"]) == 0
    out = capsys.readouterr().out
    assert "| register_avx2 | 3 | 4 (40.00 Gbit/s measured) | 1 (10.00 Gbit/s measured) |" in out
    written = choices.load(path)
    assert written.values["ublock.groups"]["register_avx2"] == 4
    assert written.values["ublock.groups"]["register_ssse3"] == choices.load().values["ublock.groups"]["register_ssse3"]
    assert "--depth measure" in written.rankings["ublock.groups"]["register_avx2"]
    assert "Some CPU" in written.rankings["ublock.groups"]["register_avx2"]


def test_values_that_change_the_batch_compare_per_byte():
    """Two groups do 1.9 times the operations of one on twice the blocks: cheaper per byte."""
    costs = {1: {"k": cost({"alu": 100}, nbytes=512)}, 2: {"k": cost({"alu": 190}, nbytes=1024)}}
    assert explore.best_value(costs)[0] == 2
    assert [g.values for g in explore.rank(costs)["k"]] == [[2], [1]]


def test_a_value_the_assembly_twin_cannot_write_is_no_value_for_its_kernel():
    """A rolled ZUC block keeps a ring in a scratch array, which the AArch64
    emitter does not write: on the NEON kernels it is invalid, never chosen."""
    param, chosen = choices.PARAMETERS["zuc.block_form"], choices.load()
    costs = explore.static_costs(param, chosen, ["neon_aes"], progress=None)
    assert "scratch arrays" in costs["rolled"]["lanes_neon_aes"]["invalid"]
    assert "invalid" not in costs["unrolled"]["lanes_neon_aes"]
    assert all("rolled" not in g.values for g in explore.rank(costs)["lanes_neon_aes"])
    assert explore.best_per_key(param, costs, chosen)["lanes_neon_aes"][0] != "rolled"


def test_a_form_the_target_has_no_instruction_for_is_no_value_for_it(tmp_path):
    """S0 as one 256-byte table needs AVX-512's VPERMI2B: on AVX2 it is invalid."""
    param, chosen = choices.PARAMETERS["zuc.s0_form"], choices.load()
    costs = explore.static_costs(param, chosen, ["avx2_gfni", "avx512_gfni"], cache_dir=tmp_path, progress=None)
    assert "sbox8" in costs["table"]["lanes_avx2_gfni"]["invalid"]
    assert "invalid" not in costs["table"]["lanes_avx512_gfni"]
    best = explore.best_per_key(param, costs, chosen)
    assert best["avx2_gfni"][0] != "table" and "table" not in best["avx2_gfni"][1]


def test_assembly_twins_have_values_of_their_own_where_the_parameter_says():
    """sm4.groups keys every twin apart (ranked, choosable and emitted on its
    own), sm4.basis_blocks keeps one value per C kernel for both twins."""
    loaded = choices.load()
    groups, basis = choices.PARAMETERS["sm4.groups"], choices.PARAMETERS["sm4.basis_blocks"]
    assert "wordslice_avx512_gfni_asm" in groups.keys() and "wordslice_avx512_gfni" in groups.keys()
    assert not any(k.endswith("_asm") for k in basis.keys())
    assert ("wordslice", "avx512_gfni_asm") in explore.reached(groups)
    asm, c = SIMD_TARGETS["avx512_gfni_asm"], SIMD_TARGETS["avx512_gfni"]
    assert groups.key("wordslice", asm) == "wordslice_avx512_gfni_asm"
    assert basis.key("byteslice", asm) == "byteslice_avx512_gfni"
    other = 2 if loaded.of("sm4.groups", "wordslice", asm) != 2 else 4
    mine = loaded.with_choice(f"sm4.groups.wordslice_avx512_gfni_asm={other}")
    assert mine.of("sm4.groups", "wordslice", asm) == other
    assert mine.of("sm4.groups", "wordslice", c) == loaded.of("sm4.groups", "wordslice", c)
    batch = lambda chosen, t: explore.PROGRAMS["sm4", "batch"]("wordslice", t, chosen).info["batch_blocks"]
    assert batch(mine, asm) == 16 * other and batch(mine, c) == batch(loaded, c)


def test_a_twin_is_ranked_by_its_own_measurement_alone():
    """With no measurement of the twin (a machine that cannot run it) it keeps
    its value: its static cost is no ranking."""
    param = choices.PARAMETERS["sm4.groups"]
    chosen = choices.load()
    twin = "wordslice_neon_aes_asm"
    costs = {g: {twin: cost({"alu": 100 - g}, shape=f"s{g}")} for g in param.values()}
    assert twin not in explore.best_per_key(param, costs, chosen)
    timed = {g: {twin: {**costs[g][twin], "measured": {"gbps": float(g), "cpb": 1.0}}} for g in param.values()}
    assert explore.best_per_key(param, timed, chosen)[twin][0] == 8


def test_a_batch_past_the_counter_group_is_no_value():
    """byteslice at 512 bits with 8 groups is 512 blocks a pass: its file's CTR
    counter form cannot be built (one group of 256 counters), so explore
    costs the value as invalid rather than failing on the build."""
    from gen.backends.target import NoLowering
    from gen.ir.keystream import counter_blocks
    from gen.kernels import sm4_byteslice
    chosen = choices.load().with_choice("sm4.groups.byteslice_avx512_gfni=8")
    with pytest.raises(NoLowering, match="at most 256"):
        explore.PROGRAMS["sm4", "batch"]("byteslice", SIMD_TARGETS["avx512_gfni"], chosen)
    with pytest.raises(ValueError, match="one group of 256"):
        counter_blocks(sm4_byteslice.program(512, groups=8), 16)


def test_the_multi_key_forms_groups_are_costed_and_timed_on_that_form(monkeypatch, tmp_path):
    """sm4.multi_groups shapes the multi-key form, not the batch: explore
    costs that form's program (more streams than a pass holds is no value,
    and rounds4 has no form) and times bench's 16 streams (FORM_CASES)."""
    from gen import explore_measure
    from gen.backends.target import NoLowering
    param = choices.PARAMETERS["sm4.multi_groups"]
    assert param.form == "multi" and "wordslice_ssse3_aesni_asm" in param.keys()
    multi = lambda groups, target: explore.PROGRAMS["sm4", "multi"](
        "wordslice", SIMD_TARGETS[target], choices.load().with_choice(f"sm4.multi_groups={groups}"))
    assert [multi(g, "ssse3_aesni").info["batch_blocks"] for g in (1, 2, 4)] == [4, 8, 16]
    assert explore.shape(multi(2, "ssse3_aesni")) != explore.shape(multi(4, "ssse3_aesni"))
    assert multi(1, "avx512_gfni").info["batch_blocks"] == 16
    with pytest.raises(NoLowering, match="more than a pass holds"):
        multi(2, "avx512_gfni")
    with pytest.raises(NoLowering, match="no multi-key form"):
        explore.PROGRAMS["sm4", "multi"]("rounds4", SIMD_TARGETS["neon_sm4"], choices.load())
    cases = []
    monkeypatch.setattr(explore_measure.Bench, "__init__", lambda self, work: None)
    monkeypatch.setattr(explore_measure.Bench, "make", lambda self: tmp_path / "bench")
    monkeypatch.setattr(explore_measure.Bench, "native", lambda self: {"sm4": {"wordslice_ssse3_aesni"}})
    monkeypatch.setattr(explore_measure.Bench, "variant", lambda self, files, label: label)
    monkeypatch.setattr(explore_measure.Bench, "time", lambda self, benches, case, impl: cases.append(case)
                        or {value: {"gbps": 1.0 + label, "cpb": 1.0} for value, label in benches.items()})
    costs = {g: {"wordslice_ssse3_aesni": cost({"alu": 10}, shape=f"s{g}")} for g in param.values()}
    explore_measure.measure(param, costs, explore.rank(costs), lambda v, s, t: {}, top=3, progress=None)
    assert cases == [explore_measure.FORM_CASES["sm4", "multi"]] and cases[0][1] == "cbc-enc-x16"


def test_the_one_block_forms_layer_is_costed_on_that_form_and_timed_at_serial_work():
    """sm4.one_block_layer shapes the one-block form (128 bits, one block on
    the kernel's target), which gen explore times at the serial job; rounds4's
    one-block form is its own program, no value of it."""
    from gen import explore_measure
    from gen.backends.target import NoLowering
    param = choices.PARAMETERS["sm4.one_block_layer"]
    assert param.form == "one_block" and "wordslice_avx512_gfni_asm" in param.keys()
    one = lambda layer, strategy="byteslice": explore.PROGRAMS["sm4", "one_block"](
        strategy, SIMD_TARGETS["avx512_gfni"], choices.load().with_choice(f"sm4.one_block_layer={layer}"))
    flat, plan = one("flat"), one("plan")
    assert (flat.bits, flat.info["batch_blocks"]) == (128, 1)
    assert explore.shape(flat) != explore.shape(plan) and explore.shape(one("flat", "wordslice")) == explore.shape(flat)
    with pytest.raises(NoLowering, match="its own program"):
        explore.PROGRAMS["sm4", "one_block"]("rounds4", SIMD_TARGETS["neon_sm4"], choices.load())
    assert explore_measure.FORM_CASES["sm4", "one_block"] == explore_measure.SERIAL_CASES["sm4"]
