"""The ZUC lanes kernels in generated/: one C file per kernel (a target with
one group of lanes per register, strategy `lanes`, or two interleaved groups,
`lanesx2`), with the forms of zuc_lanes.FORMS (S0, the modular addition, the
rotation by 16, the byte exchange) and the S1 field isomorphism chosen by their
cost (instructions per lowered block or round) on that target."""

import functools
import inspect
import itertools
from dataclasses import dataclass

from ..backends import SIMD_TARGETS, cpu_features, implementations
from ..ir import Op
from ..ir.keystream import xor_into_stores
from ..kernels import zuc_lanes
from ..kernels.zuc_constants import isomorphisms
from .bodies import DOWNSTREAM, KernelBodies
from .render import provenance, render, tuning_lines

# (strategy, target name) in dispatch order (gen/backends: each architecture's
# list, and the measured choices of single kernels).
KERNELS = implementations("zuc")
# Groups of lanes interleaved per strategy: two hide the FSM's chain of
# dependent rounds, but every call then advances twice the lanes.
GROUPS = {"lanes": 1, "lanesx2": 2}
TARGET_ORDER = tuple(dict.fromkeys(target for _, target in KERNELS if SIMD_TARGETS[target].form == "c"))
IMPLS = [f"{strategy}_{target}" for strategy, target in KERNELS]
EMULABLE = [f"{strategy}_{target}" for strategy, target in KERNELS if SIMD_TARGETS[target].emulable]


def registry_kernels():
    """(impl name, target) of every kernel, in dispatch order."""
    return [(f"{strategy}_{target}", SIMD_TARGETS[target]) for strategy, target in KERNELS]


SOURCES = ["gen/specs/zuc.py", "gen/kernels/zuc_lanes.py", "gen/kernels/zuc_constants.py"]


@dataclass(frozen=True)
class Choice:
    forms: dict               # zuc_lanes.FORMS name -> the option taken
    isomorphism: int
    stage_costs: tuple        # per stage of STAGES: {options -> instructions per 16-round block; None: n/a}
    isomorphism_costs: tuple  # instructions per round with the chosen forms, per isomorphism

    def options(self):
        return dict(self.forms, isomorphism=self.isomorphism)


# The forms are chosen in stages, each a full search over its own choices with
# the others at the options already chosen (or, before their stage, their
# first options): the stages touch different instructions of the round (the
# S-boxes and the LFSR; L1/L2 and the S-box regrouping), so their costs add.
STAGES = (("s0_form", "add_form"), ("rot16_form", "swap_form"))


def instruction_count(target, program):
    """Instructions of a lowered program (constants, loads and stores excluded),
    or None when the target lacks an instruction the program needs."""
    try:
        lowered = target.lower(program)
    except ValueError:
        return None
    return sum(1 for s in lowered.walk() if isinstance(s, Op) and s.opcode not in ("const", "load", "store"))


def block_cost(target, isomorphism=0, **forms):
    """One 16-round keystream block of one group: values shared between rounds
    (a cell's doubled value, its halves) are counted once, as in the kernel."""
    return instruction_count(target, zuc_lanes.keystream_program(target.bits, 1, isomorphism, **forms))


def round_cost(target, isomorphism, **forms):
    """One work-mode round: enough to compare isomorphisms, which only change S1."""
    return instruction_count(target, zuc_lanes.round_program(target.bits, isomorphism, **forms))


@functools.lru_cache(maxsize=None)
def choose(target, isomorphism=None):
    """The cheapest forms on `target`, stage by stage, then the isomorphism
    `isomorphism` (gen/choices.toml's), or else the cheapest with them; ties go
    to the earlier-listed options and the lowest index.  The costs of every
    isomorphism are kept for the kernel's header."""
    forms = {name: options[0] for name, options in zuc_lanes.FORMS.items()}
    stage_costs = []
    for names in STAGES:
        combos = list(itertools.product(*(zuc_lanes.FORMS[name] for name in names)))
        costs = {combo: block_cost(target, **{**forms, **dict(zip(names, combo))}) for combo in combos}
        forms.update(zip(names, min((c for c in combos if costs[c] is not None), key=costs.get)))
        stage_costs.append(costs)
    iso_costs = tuple(round_cost(target, k, **forms) for k in range(len(isomorphisms())))
    chosen = iso_costs.index(min(iso_costs)) if isomorphism is None else isomorphism
    return Choice(forms, chosen, tuple(stage_costs), iso_costs)


FORM_LINES = {"s0_form": "S0 with the rotation by 5 folded into its third table / as its own step / "
                         "as one 256-byte table",
              "add_form": "additions mod 2^31 - 1 by unsigned minimum, the last by signed maximum / by folding bit 31",
              "rot16_form": "L1's and L2's inputs rotated by 16 as a select of W1 and W2 / by a rotation",
              "swap_form": "the S-box layer's exchanges of odd bytes by two selects / an XOR delta swap"}
FORM_WORDS = {"s0_form": "{} S0", "add_form": "{} addition", "rot16_form": "rotation by 16 by {}",
              "swap_form": "exchange by {}"}


def _described(names, combo):
    return ", ".join(FORM_WORDS[name].format(option) for name, option in zip(names, combo))


def _choice_lines(choice):
    lines = [f"{FORM_LINES[name]};" for name in zuc_lanes.FORMS]
    lines.append("instructions per 16-round block of one group, stage by stage:")
    for names, costs in zip(STAGES, choice.stage_costs):
        others = [name for name in zuc_lanes.FORMS if name not in names]
        lines.append(f"  with {_described(others, [choice.forms[n] for n in others])}:")
        width = max(len(_described(names, combo)) for combo in costs) + 1
        for combo, cost in costs.items():
            shown = "n/a (an instruction this ISA lacks)" if cost is None else str(cost)
            lines.append(f"    {_described(names, combo) + ':':<{width}} {shown}")
    lines.append(f"chosen: {_described(list(choice.forms), list(choice.forms.values()))}.")
    iso = choice.isomorphism_costs
    lines.append(f"S1: field isomorphism #{choice.isomorphism} of {len(iso)} from GF(2^8)/0x18B to GF(2^8)/0x11B,")
    lines.append("  as gen/choices.toml says (zuc.s1_isomorphism; `gen explore zuc` ranks them)")
    if len(set(iso)) == 1:
        lines.append(f"  (all {len(iso)} cost {iso[0]} instructions per round here).")
    else:
        lines.append(f"  (costs {', '.join(map(str, iso))} for #0..#{len(iso) - 1}).")
    return lines


def keystream_forms(strategy, target, choices):
    """The form of a kernel's keystream functions (gen/choices.py zuc.block_form)."""
    form = choices.of("zuc.block_form", strategy, target)
    return {"lfsr_in_memory": form == "lfsr_in_memory", "rolled": form == "rolled"}


def lowered_programs(target, choice, strategy, choices):
    """The kernel's three functions, lowered for `target`: the initialisation
    rounds, a keystream block, and the block XORed into the lanes' messages
    (the encryption's one pass)."""
    groups = GROUPS[strategy]
    keystream = zuc_lanes.keystream_program(target.bits, groups, **keystream_forms(strategy, target, choices),
                                            **choice.options())
    return {"init": target.lower(zuc_lanes.init_program(target.bits, groups, **choice.options())),
            "keystream": target.lower(keystream),
            "keystream_xor": target.lower(xor_into_stores(keystream))}


def kernel_file(strategy, target, choices):
    """The kernel's C file (and its assembly files) under `choices` (gen/choices.py)."""
    choice = choose(target, choices.of("zuc.s1_isomorphism", strategy, target))
    groups = GROUPS[strategy]
    programs = lowered_programs(target, choice, strategy, choices)
    prefix = f"zuc_{strategy}_{target.name}"
    passes = "; ".join(", ".join(rule.__name__ for rule in rules) for rules in target.passes)
    bodies = KernelBodies(target, prefix, choices.of("zuc.asm_pressure_schedule", strategy, target))
    origin = provenance(SOURCES + [target.source])
    text = render("zuc_kernel.c.j2", provenance=origin,
                  target=target, strategy_doc=inspect.getdoc(zuc_lanes).splitlines(), prefix=prefix,
                  strategy=strategy, lanes=programs["keystream"].info["lanes"], groups=groups,
                  choice_lines=_choice_lines(choice), passes=passes,
                  bodies={name: bodies(program, name) for name, program in programs.items()},
                  cpu_check=cpu_features.cpu_check(target.cpu_features, target.arch),
                  schedule=choices.of("zuc.schedule_before_ra", strategy, target),
                  tuning=tuning_lines(choices, "zuc", strategy, target), **keystream_forms(strategy, target, choices))
    return {f"src/{prefix}.c": text, **bodies.assembly(origin, DOWNSTREAM)}


def kernel_files(choices):
    return {path: text for strategy, name in KERNELS
            for path, text in kernel_file(strategy, SIMD_TARGETS[name], choices).items()}
