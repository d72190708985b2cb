"""The ZUC lanes kernels in generated/: one C file per target, with the forms
of zuc_lanes.FORMS (S0, the modular addition, the rotation by 16, the byte
exchange) and the S1 field isomorphism chosen by their cost (instructions per
lowered block or round) on that target."""

import inspect
import itertools
from dataclasses import dataclass

from ..backends import SIMD_TARGETS, cpu_features
from ..backends.x86_c import function_body
from ..ir import Op
from ..ir.keystream import xor_into_stores
from ..kernels import zuc_lanes
from ..kernels.zuc_constants import isomorphisms
from .render import provenance, render

# Dispatch order, fastest first.
TARGET_ORDER = ("avx512_gfni", "avx2_gfni", "avx2_vaes", "avx2_aesni", "ssse3_aesni")
IMPLS = [f"lanes_{t}" for t in TARGET_ORDER]
EMULABLE = [f"lanes_{t}" for t in TARGET_ORDER if SIMD_TARGETS[t].emulable]
NATIVE_FLAGS = {f"zuc_lanes_{t}": " ".join(SIMD_TARGETS[t].cflags) for t in TARGET_ORDER}
SOURCES = ["gen/specs/zuc.py", "gen/kernels/zuc_lanes.py", "gen/kernels/zuc_constants.py"]


@dataclass(frozen=True)
class Choice:
    forms: dict               # zuc_lanes.FORMS name -> the option taken
    isomorphism: int
    form_costs: dict          # options in FORMS order -> instructions per 16-round block; None: not available
    isomorphism_costs: tuple  # instructions per round with the chosen forms, per isomorphism

    def options(self):
        return dict(self.forms, isomorphism=self.isomorphism)


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


def choose(target):
    """The cheapest combination of forms on `target`, then the cheapest
    isomorphism with them; ties go to the earlier-listed options and the lowest index."""
    names = list(zuc_lanes.FORMS)
    combos = list(itertools.product(*zuc_lanes.FORMS.values()))
    form_costs = {combo: block_cost(target, **dict(zip(names, combo))) for combo in combos}
    forms = dict(zip(names, min((c for c in combos if form_costs[c] is not None), key=form_costs.get)))
    iso_costs = tuple(round_cost(target, k, **forms) for k in range(len(isomorphisms())))
    return Choice(forms, iso_costs.index(min(iso_costs)), form_costs, iso_costs)


FORM_LINES = ("S0 with the rotation by 5 folded into its third table / as its own step;",
              "additions mod 2^31 - 1 by unsigned minimum / by folding bit 31;",
              "L1's and L2's inputs rotated by 16 as a select of W1 and W2 / by a rotation;",
              "the S-box layer's exchanges of odd bytes by two selects / an XOR delta swap")


def _choice_lines(choice):
    def cost(combo):
        value = choice.form_costs[combo]
        return "n/a (an instruction this ISA lacks)" if value is None else str(value)
    lines = list(FORM_LINES) + ["(instructions per 16-round block of one group):"]
    def described(s0, add, rot, swap):
        return f"{s0} S0, {add} addition, rotation by 16 by {rot}, exchange by {swap}"
    width = max(len(described(*combo)) for combo in choice.form_costs) + 1
    lines += [f"  {described(*combo) + ':':<{width}} {cost(combo)}" for combo in choice.form_costs]
    lines.append(f"chosen: {described(*choice.forms.values())}.")
    iso = choice.isomorphism_costs
    lines.append(f"S1: field isomorphism #{choice.isomorphism} of {len(iso)} from GF(2^8)/0x18B to GF(2^8)/0x11B")
    if len(set(iso)) == 1:
        lines.append(f"  (all {len(iso)} cost {iso[0]} instructions here; ties go to the lowest index).")
    else:
        lines.append(f"  (costs {', '.join(map(str, iso))} for #0..#{len(iso) - 1}).")
    return lines


def lowered_programs(target, choice):
    """The kernel's three functions, lowered for `target`: the initialisation
    rounds, a keystream block, and the block XORed into the lanes' messages
    (the encryption's one pass)."""
    groups = target.groups("lanes")
    keystream = zuc_lanes.keystream_program(target.bits, groups, **choice.options())
    return {"init": target.lower(zuc_lanes.init_program(target.bits, groups, **choice.options())),
            "keystream": target.lower(keystream),
            "keystream_xor": target.lower(xor_into_stores(keystream))}


def kernel_file(target):
    choice = choose(target)
    groups = target.groups("lanes")
    programs = lowered_programs(target, choice)
    prefix = f"zuc_lanes_{target.name}"
    passes = "; ".join(", ".join(rule.__name__ for rule in rules) for rules in target.passes)
    text = render("zuc_kernel.c.j2", provenance=provenance(SOURCES + [f"gen/backends/{target.name}.py"]),
                  target=target, strategy_doc=inspect.getdoc(zuc_lanes).splitlines(), prefix=prefix,
                  lanes=programs["keystream"].info["lanes"], groups=groups, choice_lines=_choice_lines(choice),
                  passes=passes, bodies={name: function_body(program) for name, program in programs.items()},
                  cpu_check=cpu_features.cpu_check(target.cpu_features),
                  schedule=target.schedules_before_ra("lanes"))
    return f"src/{prefix}.c", text


def kernel_files():
    return dict(kernel_file(SIMD_TARGETS[name]) for name in TARGET_ORDER)
