"""The ZUC lanes kernels in generated/: one C file per target, with the S0
form and the S1 field isomorphism chosen by their cost on that target."""

import inspect
from dataclasses import dataclass

from ..backends import SIMD_TARGETS
from ..backends.x86_c import function_body
from ..ir import Op
from ..kernels import zuc_lanes
from ..kernels.zuc_constants import isomorphisms
from .render import provenance, render

# Dispatch order, fastest first.
TARGET_ORDER = ("avx512_gfni", "avx2_gfni", "avx2_vaes", "avx2_aesni", "ssse3_aesni")
IMPLS = [f"lanes_{t}" for t in TARGET_ORDER]
EMULABLE = [f"lanes_{t}" for t in TARGET_ORDER if SIMD_TARGETS[t].emulable]
NATIVE_FLAGS = {f"zuc_lanes_{t}": " ".join(SIMD_TARGETS[t].cflags) for t in TARGET_ORDER}
S0_FORMS = ("folded", "rotate")
SOURCES = ["gen/specs/zuc.py", "gen/kernels/zuc_lanes.py", "gen/kernels/zuc_constants.py"]


@dataclass(frozen=True)
class Choice:
    s0_form: str
    isomorphism: int
    costs: dict  # (s0_form, isomorphism) -> instructions per round


def round_cost(target, s0_form, isomorphism):
    """Instructions of one lowered work-mode round (constants excluded)."""
    program = target.lower(zuc_lanes.round_program(target.bits, s0_form, isomorphism))
    return sum(1 for s in program.walk() if isinstance(s, Op) and s.opcode not in ("const", "load", "store"))


def choose(target):
    """The cheapest (S0 form, isomorphism) on `target`; ties go to the folded
    S0 and the lowest isomorphism index."""
    costs = {(form, k): round_cost(target, form, k) for form in S0_FORMS for k in range(len(isomorphisms()))}
    best = min(costs, key=lambda key: (costs[key], S0_FORMS.index(key[0]), key[1]))
    return Choice(best[0], best[1], costs)


def _choice_lines(choice):
    costs = choice.costs
    by_form = {form: min(c for (f, _), c in costs.items() if f == form) for form in S0_FORMS}
    iso_costs = sorted({c for (f, _), c in costs.items() if f == choice.s0_form})
    tied = [k for (f, k), c in sorted(costs.items()) if f == choice.s0_form and c == costs[(choice.s0_form, choice.isomorphism)]]
    lines = [f"S0: {choice.s0_form} ({by_form['folded']} instructions folded: the rotation by 5 folded into the",
             f"    third table; {by_form['rotate']} with the rotation as its own step).",
             f"S1: field isomorphism #{choice.isomorphism} of {len(isomorphisms())} from GF(2^8)/0x18B to GF(2^8)/0x11B"]
    if len(iso_costs) == 1:
        lines.append(f"    (all {len(isomorphisms())} cost {iso_costs[0]} instructions here; ties go to the lowest index).")
    else:
        lines.append(f"    (costs from {iso_costs[0]} to {iso_costs[-1]}; cheapest: {', '.join(map(str, tied))}).")
    return lines


def kernel_file(target):
    choice = choose(target)
    groups = target.groups("lanes")
    options = dict(groups=groups, s0_form=choice.s0_form, isomorphism=choice.isomorphism)
    init = target.lower(zuc_lanes.init_program(target.bits, **options))
    keystream = target.lower(zuc_lanes.keystream_program(target.bits, **options))
    prefix = f"zuc_lanes_{target.name}"
    passes = "; ".join(", ".join(rule.__name__ for rule in rules) for rules in target.passes)
    text = render("zuc_kernel.c.j2", provenance=provenance(SOURCES + [f"gen/backends/{target.name}.py"]),
                  target=target, strategy_doc=inspect.getdoc(zuc_lanes).splitlines(), prefix=prefix,
                  lanes=keystream.info["lanes"], groups=groups, choice_lines=_choice_lines(choice), passes=passes,
                  init_body=function_body(init), keystream_body=function_body(keystream),
                  cpu_check=" && ".join(f'__builtin_cpu_supports("{f}")' for f in target.cpu_features))
    return f"src/{prefix}.c", text


def kernel_files():
    return dict(kernel_file(SIMD_TARGETS[name]) for name in TARGET_ORDER)
