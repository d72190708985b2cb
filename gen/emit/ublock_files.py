"""The uBlock part of generated/: public header, core (key forms, modes,
dispatch), scalar reference, one kernel file per strategy x target holding
every variant and both directions, one key-schedule file per architecture
(and its assembly twin), SIMDe bundle."""

import inspect

from ..backends import SIMD_TARGETS, implementations
from ..choices import PARAMETERS
from ..ir.keystream import counter_blocks, xor_into_stores
from ..kernels import ublock_key_schedule, ublock_nibbleslice, ublock_register
from ..linalg.shuffle import inverse_permutation
from ..specs import ublock
from . import registry
from .bodies import KernelBodies
from .build_files import CipherSources, EmulatedUnit, SourceFile, kernel_sources
from .key_schedules import baseline_targets, listed
from .render import provenance, render, target_facts, tuning_lines

STRATEGIES = {"nibbleslice": ublock_nibbleslice, "register": ublock_register}
# Strategies whose encryption kernel comes in a CTR counter form of its own (program(..., counters=True),
# fed by counter_pairs_program); the others' is gen/ir/keystream.py's counter_blocks.
COUNTER_FORMS = {"nibbleslice"}
# (strategy, target name) in dispatch order (gen/backends: each architecture's list).
KERNELS = implementations("ublock")
KEY_GETTERS = {"folded_sboxes": "ublock_folded", "register_image": "ublock_image"}
DIRECTIONS = ("encrypt", "decrypt")
SPEC_SOURCES = ["gen/specs/ublock.py"]


def variants():
    """Per variant: C names, sizes, rounds, in the order of the ublock_variant enum."""
    out = []
    for (n, k), rounds in ublock.VARIANTS.items():
        out.append(dict(name=f"ublock{n}_{k}", enum=f"UBLOCK_{n}_{k}", block_bits=n, key_bits=k, rounds=rounds,
                        block_bytes=n // 8, key_bytes=k // 8))
    return out


def impl_names():
    """Registry order, fastest first; the reference last."""
    return [f"{s}_{t}" for s, t in KERNELS] + ["reference_scalar"]


def emulable_impls():
    return [f"{s}_{t}" for s, t in KERNELS if SIMD_TARGETS[t].emulable]


def key_schedule_targets():
    """Where the key schedule is emitted: per architecture the target of its
    uBlock kernels that needs the least (key_schedules.baseline_targets:
    ssse3 on x86, neon on AArch64), then that target's assembly twin."""
    return baseline_targets([SIMD_TARGETS[t] for _, t in KERNELS])


# The key schedule's files (key_schedules.listed): every one, and the C ones.
KEY_SCHEDULE_FILES, KEY_SCHEDULES = listed(key_schedule_targets())


def sources():
    native = [SourceFile("ublock_core", ""), SourceFile("ublock_reference_scalar", "")]
    native += [f for s, t in KERNELS for f in kernel_sources(f"ublock_{s}_{t}", SIMD_TARGETS[t])]
    native += [f for t in key_schedule_targets() for f in kernel_sources(f"ublock_key_schedule_{t.name}", t)]
    return CipherSources(tuple(native), EmulatedUnit("ublock_emulated", tuple(f"ublock_{i}.c" for i in emulable_impls())),
                         max_block_bytes=max(v["block_bytes"] for v in variants()))


def _grouping(strategy, target, choices):
    """The register method interleaves groups of register pairs (more blocks
    per pass); nibble slicing has one state per batch."""
    return {"groups": choices.of("ublock.groups", strategy, target)} \
        if strategy in PARAMETERS["ublock.groups"].strategies else {}


def kernel_file(strategy, target, choices):
    """{path: text} of its C file and, for an assembly twin, its .S, under
    `choices` (gen/choices.py)."""
    module = STRATEGIES[strategy]
    prefix = f"ublock_{strategy}_{target.name}"
    rendered, key_form = [], None
    bodies = KernelBodies(target, prefix, choices.of("ublock.asm_pressure_schedule", strategy, target))
    grouping = _grouping(strategy, target, choices)
    for v in variants():
        directions = []
        for d in DIRECTIONS:
            abstract = module.program(target.bits, v["block_bits"], v["rounds"], d, **grouping)
            program = target.lower(abstract)
            key_form = program.info["key_form"]
            one_block = target.lower(ublock_register.one_block_program(v["block_bits"], v["rounds"], d))
            directions.append(dict(name=d, body=bodies(program, f"{v['name']}_{d}"),
                                   one_block=bodies(one_block, f"{v['name']}_{d}_one_block")))
            if d == "encrypt":
                encrypt, fused = abstract, target.lower(xor_into_stores(abstract))
        counter_form = {}
        if strategy not in COUNTER_FORMS:
            counter_form = dict(ctr_xor=bodies(target.lower(xor_into_stores(counter_blocks(encrypt, v["block_bytes"]))),
                                               f"{v['name']}_ctr_xor"))
        else:
            counter_form = dict(ctr_pairs=bodies(target.lower(
                                    module.counter_pairs_program(target.bits, v["block_bits"], v["rounds"])),
                                    f"{v['name']}_ctr_pairs"),
                                ctr_xor=bodies(target.lower(xor_into_stores(
                                    module.program(target.bits, v["block_bits"], v["rounds"], "encrypt",
                                                   counters=True))), f"{v['name']}_ctr_xor"))
        rendered.append(dict(v, directions=directions, encrypt_xor=bodies(fused, f"{v['name']}_encrypt_xor"),
                             batch=program.info["batch_blocks"], **counter_form))
    origin = provenance(SPEC_SOURCES + [f"gen/kernels/ublock_{strategy}.py", target.source])
    largest = max(v["batch"] * v["block_bytes"] for v in rendered)
    text = render("ublock_kernel.c.j2", max_batch_bytes=largest,
                  provenance=origin,
                  strategy=strategy, target=target, strategy_doc=inspect.getdoc(module).splitlines(), prefix=prefix,
                  schedule=choices.of("ublock.schedule_before_ra", strategy, target),
                  variants=rendered, key_form=key_form, key_getter=KEY_GETTERS[key_form],
                  multi=key_form == "register_image", counter_pairs=strategy in COUNTER_FORMS,
                  group_blocks=ublock_nibbleslice.GROUP_BLOCKS, **target_facts(target),
                  tuning=tuning_lines(choices, "ublock", strategy, target))
    return {f"src/{prefix}.c": text, **bodies.assembly(origin)}


def key_schedule_file(target):
    """{path: text} of the key-schedule file of `target` (a key_schedule_targets()
    one): every variant's expansion and every block size's fold steps, and for
    an assembly twin its .S."""
    prefix = f"ublock_key_schedule_{target.name}"
    bodies = KernelBodies(target, prefix)
    rendered, folds = [], {}
    for v in variants():
        expand = bodies(target.lower(ublock_key_schedule.expand_program(v["block_bits"], v["key_bits"])),
                        f"{v['name']}_expand")
        fold = {}
        for d in ublock_key_schedule.DIRECTIONS:
            name = f"ublock{v['block_bits']}_fold_{d}"
            if name not in folds:
                folds[name] = dict(name=name, block_bits=v["block_bits"], direction=d,
                                   body=bodies(target.lower(ublock_key_schedule.fold_program(v["block_bits"], d)),
                                               name))
            fold[d] = name
        rendered.append(dict(v, expand=expand, fold=fold))
    origin = provenance(SPEC_SOURCES + ["gen/kernels/ublock_key_schedule.py", target.source])
    text = render("ublock_key_schedule.c.j2", provenance=origin, target=target, prefix=prefix,
                  module_doc=inspect.getdoc(ublock_key_schedule).splitlines(), variants=rendered,
                  folds=list(folds.values()), **target_facts(target))
    return {f"src/{prefix}.c": text, **bodies.assembly(origin)}


def _key_schedule_constants(v):
    return dict(final_key_sources=[f"0x{m:016x}" for m in ublock_nibbleslice.final_key_sources(v["block_bits"])])


def _nibble_list(table):
    return ", ".join(f"0x{v:x}" for v in table)


def _permutation_rows(tables):
    """Rows padded to the widest (PL_128 and PR_128 use their first 8 entries)."""
    width = max(len(t) for t in tables)
    return [list(t) + [0] * (width - len(t)) for t in tables]


def shared_files(choices):
    """The files every kernel's choices size: ublock_internal.h (the largest
    batch sizes the mode layer's buffers, the largest CTR group its counter
    buffer)."""
    batch_bytes, group_bytes = [], []
    for strategy, name in KERNELS:
        target, module = SIMD_TARGETS[name], STRATEGIES[strategy]
        for v in variants():
            program = module.program(target.bits, v["block_bits"], v["rounds"], "encrypt",
                                     **_grouping(strategy, target, choices))
            batch_bytes.append(program.info["batch_blocks"] * v["block_bytes"])
            if strategy in COUNTER_FORMS:
                group_bytes.append(module.group_bytes(target.bits, v["block_bits"]))
    return {"src/ublock_internal.h": render(
        "ublock_internal.h.j2", provenance=provenance(SPEC_SOURCES + ["templates/"]), max_batch_bytes=max(batch_bytes),
        group_bytes=max(group_bytes), group_low_byte=ublock_nibbleslice.GROUP_LOW_BYTE,
        group_first_block=ublock_nibbleslice.GROUP_FIRST_BLOCK)}


def files(choices):
    """{path relative to generated/: contents} under `choices` (gen/choices.py)."""
    out = {}
    for strategy, name in KERNELS:
        out.update(kernel_file(strategy, SIMD_TARGETS[name], choices))
    for target in key_schedule_targets():
        out.update(key_schedule_file(target))
    vs = variants()
    c_prov = provenance(SPEC_SOURCES + ["templates/"])
    sizes = dict(max_block_bytes=max(v["block_bytes"] for v in vs), max_key_bytes=max(v["key_bytes"] for v in vs),
                 max_rounds=max(v["rounds"] for v in vs))
    out["include/ublock.h"] = render("ublock.h.j2", provenance=c_prov, variants=vs, impls=impl_names(), **sizes)
    out.update(shared_files(choices))
    rc_rows = [", ".join(f"0x{b:02x}" for b in row) for row in ublock_key_schedule.round_constant_rows()]
    out["src/ublock_core.c"] = render(
        "ublock_core.c.j2", provenance=c_prov,
        registry=registry.sections([(f"{s}_{t}", SIMD_TARGETS[t]) for s, t in KERNELS]), rc=rc_rows,
        key_schedules=registry.sections([(t.name, t) for t in key_schedule_targets()]),
        rc_row_bytes=ublock_key_schedule.ROUND_CONSTANT_ROW,
        variants=[dict(v, **_key_schedule_constants(v)) for v in vs])
    perms = [("pl", [ublock.PL[128], ublock.PL[256]]), ("pr", [ublock.PR[128], ublock.PR[256]]),
             ("pl_inverse", [inverse_permutation(ublock.PL[n]) for n in (128, 256)]),
             ("pr_inverse", [inverse_permutation(ublock.PR[n]) for n in (128, 256)])]
    out["src/ublock_reference_scalar.c"] = render(
        "ublock_reference_scalar.c.j2", provenance=c_prov, variants=vs, rotations=ublock.ROTATIONS,
        sbox=_nibble_list(ublock.SBOX), sbox_inverse=_nibble_list(ublock.inverse_sbox()),
        permutations=[(name, _permutation_rows(t)) for name, t in perms])
    out["src/ublock_emulated.c"] = render("ublock_emulated.c.j2", provenance=c_prov, impls=emulable_impls(),
                                          targets=sorted({t for _, t in KERNELS if SIMD_TARGETS[t].emulable}))
    return out
