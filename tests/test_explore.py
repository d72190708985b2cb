"""`gen explore` (gen/explore.py) and the checked-in choices (gen/choices.py):
a program's static cost and shape, the ranking and its groups, the cache,
and the choices file read, overridden and rewritten."""

import json
import multiprocessing
import shutil

import pytest

from gen import choices, cli, explore
from gen.backends import SIMD_TARGETS
from gen.ir import Builder


def sm4_program(index, target="avx2_gfni", strategy="wordslice"):
    return explore.SPACES["sm4"].program(index, strategy, SIMD_TARGETS[target])


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


def cost(ops, spills=(0, 0), shape="s", constant_bytes=16):
    return {"shape": shape, "ops": {**dict.fromkeys(("memory", "constant", "shuffle", "alu", "gfni", "cipher"), 0),
                                    **ops}, "constant_bytes": constant_bytes, "spills": list(spills)}


def test_ranking_groups_equal_costs_cheapest_first_and_says_why():
    costs = {0: {"k": cost({"alu": 10}, shape="a")}, 1: {"k": cost({"alu": 9}, shape="b")},
             2: {"k": cost({"alu": 10}, shape="c")}, 3: {"k": cost({"alu": 9}, shape="b")}}
    groups = explore.rank(costs)["k"]
    assert [g.choices for g in groups] == [[1, 3], [0, 2]]
    assert "constants alone" in groups[0].reason and "2 instruction sequences" in groups[1].reason
    assert explore.best_choice(costs) == (1, [1, 3])
    assert explore.best_choice(costs, current=3) == (3, [1, 3])


def test_spills_break_ties_between_equal_operation_counts():
    costs = {0: {"k": cost({"alu": 9}, spills=(4, 4))}, 1: {"k": cost({"alu": 9}, spills=(1, 2))}}
    assert explore.best_choice(costs)[0] == 1


def test_static_costs_come_from_the_cache_the_second_time(tmp_path, monkeypatch):
    space = explore.SPACES["zuc"]
    first = explore.static_costs(space, ["neon_aes"], jobs=2, cache_dir=tmp_path, progress=None)
    assert sorted(first) == list(range(8))
    assert set(first[0]) == {"lanesx2_neon_aes", "lanes_neon_aes"}
    assert len({c["lanes_neon_aes"]["shape"] for c in first.values()}) == 1

    def no_pool(*args, **kwargs):
        raise AssertionError("recomputed what the cache holds")
    monkeypatch.setattr(multiprocessing, "Pool", no_pool)
    assert explore.static_costs(space, ["neon_aes"], cache_dir=tmp_path, progress=None) == first


def test_explore_prints_the_ranking_and_apply_rewrites_the_choices(tmp_path, monkeypatch, capsys):
    path = tmp_path / "choices.toml"
    path.write_text(choices.PATH.read_text())
    monkeypatch.setattr(choices, "PATH", path)
    monkeypatch.setattr(cli.explore, "ROOT", tmp_path)          # its cache goes under tmp_path/build
    monkeypatch.setattr(cli, "ROOT", tmp_path)
    png, js = tmp_path / "spread.png", tmp_path / "costs.json"
    assert cli.main(["explore", "zuc", "--target", "avx2_gfni", "--top", "2", "--png", str(png),
                     "--json", str(js)]) == 0
    out = capsys.readouterr().out
    assert "| lanes_avx2_gfni | 1 | all 8 |" in out and "constants alone" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(json.loads(js.read_text())["costs"]["7"]) == ["lanes_avx2_gfni"]
    assert cli.main(["explore", "zuc", "--apply"]) == 0
    written = choices.load(path)
    assert written.values == choices.load(choices.PATH).values
    assert "gen explore zuc --depth static" in written.rankings["zuc.s1_isomorphism"]
    assert "all 8 choices cost the same on 8 of 8 kernels" in written.rankings["zuc.s1_isomorphism"]


def test_explore_needs_a_known_cipher_and_target(capsys):
    assert cli.main(["explore"]) == 2
    assert "which cipher" in capsys.readouterr().err
    assert cli.main(["explore", "zuc", "--target", "avx2"]) == 2
    assert "zuc has no kernel on avx2" in capsys.readouterr().err


def test_the_choices_file_round_trips():
    loaded = choices.load()
    assert choices.load.__defaults__[0] == choices.PATH
    assert choices.dump(loaded) == choices.PATH.read_text()


@pytest.mark.parametrize("text, message", [
    ("[sm4.decomposition]\nvalue = 0\n", r"no \[zuc.s1_isomorphism\] value"),
    ("[sm4.decomposition]\nvalue = { avx2 = 1 }\n[zuc.s1_isomorphism]\nvalue = { avx2 = 0 }\n", "takes one value")])
def test_a_broken_choices_file_is_a_clear_error(tmp_path, text, message):
    path = tmp_path / "choices.toml"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        choices.load(path)


@pytest.mark.skipif(shutil.which("llvm-mca-19") is None and shutil.which("llvm-mca") is None,
                    reason="llvm-mca not installed (make deps)")
def test_depth_model_runs_llvm_mca_once_per_shape(tmp_path):
    space = explore.SPACES["zuc"]
    costs = explore.static_costs(space, ["neon_aes"], cache_dir=tmp_path, progress=None)
    modelled = explore.modelled_costs(space, costs, choices.load(), cache_dir=tmp_path, progress=None)
    assert set(modelled) == {"lanes_neon_aes", "lanesx2_neon_aes"}
    for kernel, shapes in modelled.items():
        assert len(shapes) == 1                                  # 8 choices, one shape: modelled once
        (per_cpu,) = shapes.values()
        assert set(per_cpu) == set(explore.MODEL_CPUS["aarch64"])
        assert all(0 < v < 20 for v in per_cpu.values())
    ranking = explore.rank(explore.with_model(costs, modelled))
    assert "neoverse-v1" in explore.table(ranking, 1, 8)
