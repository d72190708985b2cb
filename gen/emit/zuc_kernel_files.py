"""The ZUC lanes kernels in generated/: one C file per kernel (a target with
one group of lanes per register, strategy `lanes`, or two interleaved groups,
`lanesx2`), with the forms of zuc_lanes.FORMS (S0, the modular addition, the
rotation by 16, the byte exchange) and the S1 field isomorphism that
gen/choices.toml gives its target (`gen explore zuc` ranks them)."""

import inspect

from ..backends import SIMD_TARGETS, implementations
from ..ir.keystream import xor_into_stores
from ..kernels import zuc_lanes, zuc_mac
from .bodies import DOWNSTREAM, KernelBodies
from .render import provenance, render, target_facts, tuning_lines

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


SOURCES = ["gen/specs/zuc.py", "gen/kernels/zuc_lanes.py", "gen/kernels/zuc_constants.py", "gen/kernels/zuc_mac.py"]


def lane_options(strategy, target, choices):
    """The round's forms (zuc_lanes.FORMS) and S1's isomorphism on `target`
    (gen/choices.py zuc.<form>, zuc.s1_isomorphism)."""
    options = {name: choices.of(f"zuc.{name}", strategy, target) for name in zuc_lanes.FORMS}
    return dict(options, isomorphism=choices.of("zuc.s1_isomorphism", strategy, target))


def keystream_forms(strategy, target, choices):
    """The form of a kernel's keystream functions (gen/choices.py zuc.block_form)."""
    form = choices.of("zuc.block_form", strategy, target)
    return {"lfsr_in_memory": form == "lfsr_in_memory", "rolled": form == "rolled"}


def lowered_programs(target, strategy, choices):
    """The kernel's functions, lowered for `target`: the initialisation
    rounds (NEA6's 16 more, then the 32 every variant runs), a keystream
    block, the block XORed into the lanes' messages (the encryption's one pass), one round's keystream word (the one-stream
    keystream's last n mod 16 words), and the MACs' carry-less folds at the
    target's width (zuc_mac: mac_fold for 32- and 64-bit tags, mac_fold_wide
    for 128-bit ones)."""
    groups = GROUPS[strategy]
    options = lane_options(strategy, target, choices)
    keystream = zuc_lanes.keystream_program(target.bits, groups, **keystream_forms(strategy, target, choices),
                                            **options)
    return {"init_more": target.lower(zuc_lanes.init_more_program(target.bits, groups, **options)),
            "init": target.lower(zuc_lanes.init_program(target.bits, groups, **options)),
            "keystream": target.lower(keystream),
            "keystream_xor": target.lower(xor_into_stores(keystream)),
            "keystream_word": target.lower(zuc_lanes.word_program(target.bits, groups, **options)),
            "mac_fold": target.lower(zuc_mac.fold_program(target.bits, 64)),
            "mac_fold_wide": target.lower(zuc_mac.fold_program(target.bits, 128))}


def kernel_file(strategy, target, choices):
    """The kernel's C file (and its assembly files) under `choices` (gen/choices.py)."""
    groups = GROUPS[strategy]
    programs = lowered_programs(target, strategy, choices)
    prefix = f"zuc_{strategy}_{target.name}"
    bodies = KernelBodies(target, prefix, choices.of("zuc.asm_pressure_schedule", strategy, target))
    origin = provenance(SOURCES + [target.source])
    text = render("zuc_kernel.c.j2", provenance=origin,
                  target=target, strategy_doc=inspect.getdoc(zuc_lanes).splitlines(), prefix=prefix,
                  strategy=strategy, lanes=programs["keystream"].info["lanes"], groups=groups,
                  fold_chunks=zuc_mac.FOLD_CHUNKS, **target_facts(target),
                  bodies={name: bodies(program, name) for name, program in programs.items()},
                  schedule=choices.of("zuc.schedule_before_ra", strategy, target),
                  tuning=tuning_lines(choices, "zuc", strategy, target), **keystream_forms(strategy, target, choices))
    return {f"src/{prefix}.c": text, **bodies.assembly(origin, DOWNSTREAM)}


def kernel_files(choices):
    return {path: text for strategy, name in KERNELS
            for path, text in kernel_file(strategy, SIMD_TARGETS[name], choices).items()}
