"""The SM4 part of generated/: public header, core (key set-up, modes,
dispatch), reference, one file per strategy x target, one key-schedule file
per architecture (and its assembly twin), SIMDe bundle (the build files come
from build_files, over all ciphers' sources())."""

import inspect

from ..backends import SIMD_TARGETS, implementations
from ..ir.keystream import CTR_GROUP_BLOCKS, counter_blocks, whiten, xor_into_loads, xor_into_stores
from ..kernels import sm4_byteslice, sm4_key_schedule, sm4_rounds4, sm4_wordslice
from ..kernels.sm4_constants import decomposition, decomposition_index, decompositions
from ..specs import sm4
from ..choices import PARAMETERS
from . import gf128_files, registry
from .bodies import DOWNSTREAM, KernelBodies
from .build_files import CipherSources, EmulatedUnit, SourceFile, kernel_sources
from .key_schedules import baseline_targets, listed
from .render import hex_rows, provenance, render, target_facts, tuning_lines

STRATEGIES = {"byteslice": sm4_byteslice, "wordslice": sm4_wordslice, "rounds4": sm4_rounds4}
# (strategy, target name) in dispatch order (gen/backends: each architecture's list).
KERNELS = implementations("sm4")
SPEC_SOURCES = ["gen/specs/sm4.py", "gen/specs/aes.py"]


def impl_names():
    return [f"{s}_{t}" for s, t in KERNELS]


def emulable_impls():
    return [f"{s}_{t}" for s, t in KERNELS if SIMD_TARGETS[t].emulable]


def key_schedule_targets():
    """Where the key schedule is emitted: per architecture of SM4's kernels the
    target that needs the least of all (key_schedules.baseline_targets: ssse3
    on x86, neon on AArch64, below every SM4 kernel's AES or SM4 instructions,
    so that the reference's key set-up runs on any CPU of the architecture),
    then that target's assembly twin."""
    arches = {SIMD_TARGETS[t].arch for _, t in KERNELS}
    return baseline_targets([t for t in SIMD_TARGETS.values() if t.arch in arches])


# The key schedule's files (key_schedules.listed): every one, and the C ones.
KEY_SCHEDULE_FILES, KEY_SCHEDULES = listed(key_schedule_targets())


def sources():
    """What the build compiles: each kernel with its target's flags, the SIMDe
    unit with the emulable kernels, and the GF(2^128) key side SM4's modes use
    (gf128_files.sources; ZUC's NIA6 lists it too, the build compiles it once)."""
    native = [SourceFile("sm4_core", ""), SourceFile("sm4_reference_scalar", "")]
    native += [f for s, t in KERNELS for f in kernel_sources(f"sm4_{s}_{t}", SIMD_TARGETS[t])]
    native += [f for t in key_schedule_targets() for f in kernel_sources(f"sm4_key_schedule_{t.name}", t)]
    native += gf128_files.sources()
    return CipherSources(tuple(native), EmulatedUnit("sm4_emulated", tuple(f"sm4_{i}.c" for i in emulable_impls())))


def program_options(strategy, target, choices):
    """The keyword arguments of the strategy's program() under `choices`."""
    options = {"groups": choices.of("sm4.groups", strategy, target),
               "decomposition_index": choices.get("sm4.decomposition")}
    if strategy in PARAMETERS["sm4.rounds_per_iteration"].strategies:
        options["rounds_per_iteration"] = choices.of("sm4.rounds_per_iteration", strategy, target)
    if strategy in PARAMETERS["sm4.basis_blocks"].strategies:
        options["basis_blocks"] = choices.of("sm4.basis_blocks", strategy, target)
    return options


def one_block_program(strategy, target, choices):
    """The kernel's one-block form (abstract): one SM4 block in 128-bit
    registers, for serial chains and single blocks.  The rounds4 strategy's
    own program at one block; every other strategy's is the word-sliced one
    (sm4_wordslice.one_block_program), on the round keys as words: a sliced
    or byte-sliced layout gains nothing with one block."""
    if strategy == "rounds4":
        return sm4_rounds4.program(sm4_wordslice.ONE_BLOCK_BITS, groups=1)
    return sm4_wordslice.one_block_program(choices.get("sm4.decomposition"),
                                           layer=choices.of("sm4.one_block_layer", strategy, target))


# The most streams a pass of the multi-key form takes: ipsec-mb's 16 lanes
# (AES-CBC on AVX-512), one 512-bit word-sliced group.  How many a kernel's
# pass takes is sm4.multi_groups (gen/choices.toml).
MULTI_STREAMS = 16


def multi_key_program(strategy, target, choices):
    """The kernel's multi-key form (abstract), sm4.multi_groups groups of
    blocks each under its own round keys (at most MULTI_STREAMS), for CBC
    encryption of many streams side by side: the word-sliced program with
    per-block keys (a byte-sliced key form is per batch) and L's flat form (a
    pass is one chain of rounds per stream, so its time is the chain's), None
    for rounds4 (its instruction's keys would each be loaded per block: not
    built).  ValueError for more streams than MULTI_STREAMS."""
    if strategy == "rounds4":
        return None
    groups = choices.of("sm4.multi_groups", strategy, target)
    streams = 4 * groups * target.bits // 128
    if streams > MULTI_STREAMS:
        raise ValueError(f"{strategy}_{target.name}: {groups} groups of the multi-key form are {streams} streams, "
                         f"more than a pass holds ({MULTI_STREAMS})")
    return sm4_wordslice.program(target.bits, groups=groups, decomposition_index=choices.get("sm4.decomposition"),
                                 keys_per_block=True, layer="flat")


def kernel_file(strategy, target, choices):
    """The kernel's C file (and its assembly files) under `choices` (gen/choices.py)."""
    module = STRATEGIES[strategy]
    index = choices.get("sm4.decomposition")
    abstract = module.program(target.bits, **program_options(strategy, target, choices))
    program, fused = target.lower(abstract), target.lower(xor_into_stores(abstract))
    ctr_abstract = xor_into_stores(counter_blocks(abstract, sm4.BLOCK_BYTES))
    counter_form = target.lower(ctr_abstract)
    gcm_form = gf128_files.gcm_program(ctr_abstract, target)
    dec = decomposition(index)
    prefix = f"sm4_{strategy}_{target.name}"
    doc = inspect.getdoc(module).splitlines()
    key_expr = "(const uint8_t *)key->rk_sliced[dir]" if program.info["key_form"] == "sliced" else \
        "(const uint8_t *)key->rk[dir]"
    bodies = KernelBodies(target, prefix, choices.of("sm4.asm_pressure_schedule", strategy, target))
    gf128 = {name: bodies(gf_program, name)
             for name, gf_program in gf128_files.kernel_programs(target, program.info["batch_blocks"]).items()}
    one_block_source = [] if strategy in ("wordslice", "rounds4") else ["gen/kernels/sm4_wordslice.py"]
    origin = provenance(SPEC_SOURCES + [f"gen/kernels/sm4_{strategy}.py"] + one_block_source + gf128_files.SOURCES
                        + [target.source])
    text = render("sm4_kernel.c.j2",
                  provenance=origin,
                  strategy=strategy, target=target, strategy_doc=doc, prefix=prefix,
                  schedule=choices.of("sm4.schedule_before_ra", strategy, target),
                  batch_blocks=program.info["batch_blocks"],
                  rounds_per_iteration=program.info["rounds_per_iteration"],
                  decomposition_index=decomposition_index(dec), decomposition_count=len(decompositions()),
                  dec=dec if program.info.get("sbox") != "instruction" else None,
                  body=bodies(program, "batch"), body_xor=bodies(fused, "batch_xor"),
                  body_ctr=bodies(counter_form, "batch_ctr"), body_xts=bodies(target.lower(whiten(abstract)), "batch_xts"),
                  gf128=gf128, body_gcm=bodies(gcm_form, "batch_gcm"),
                  body_one_block=bodies(target.lower(xor_into_loads(one_block_program(strategy, target, choices))), "one_block"),
                  multi=multi_form(multi_key_program(strategy, target, choices), target, bodies),
                  ghash_step_blocks=gcm_form.info["stitched_blocks"],
                  xts_rules=[(c.name, [(start, gf128_files.xts_function(c, start)) for start in gf128_files.TWEAK_STARTS])
                             for c in gf128_files.gf128.XTS_CONVENTIONS],
                  key_expr=key_expr, ctr_group_blocks=CTR_GROUP_BLOCKS, **target_facts(target),
                  tuning=tuning_lines(choices, "sm4", strategy, target))
    return {f"src/{prefix}.c": text, **bodies.assembly(origin, DOWNSTREAM)}


def multi_form(program, target, bodies):
    """The template's view of the multi-key form: its CBC step (src the
    streams' chaining values) and which stream's key each round-key word is."""
    if program is None:
        return None
    return dict(body=bodies(target.lower(xor_into_loads(program)), "batch_multi"),
                streams=program.info["batch_blocks"], key_order=program.info["key_order"])


def key_schedule_file(target, choices):
    """{path: text} of the key-schedule file of `target` (a key_schedule_targets()
    one) under `choices` (the S-box decomposition sets the sliced round keys'
    domain), and for an assembly twin its .S in the library's dialect and the
    downstream ones."""
    prefix = f"sm4_key_schedule_{target.name}"
    bodies = KernelBodies(target, prefix)
    index = choices.get("sm4.decomposition")
    body = bodies(target.lower(sm4_key_schedule.program(index)), "expand")
    origin = provenance(SPEC_SOURCES + ["gen/kernels/sm4_key_schedule.py", target.source])
    places = sm4_key_schedule.layout()
    text = render("sm4_key_schedule.c.j2", provenance=origin, target=target, prefix=prefix,
                  module_doc=inspect.getdoc(sm4_key_schedule).splitlines(), body=body,
                  decomposition_index=decomposition_index(decomposition(index)),
                  layout=[dict(form=form, direction=direction.upper(), offset=offset)
                          for (form, direction), offset in places.items()],
                  key_bytes=sm4_key_schedule.key_bytes(),
                  **target_facts(target))
    return {f"src/{prefix}.c": text, **bodies.assembly(origin, DOWNSTREAM)}


def shared_files(choices):
    """The files every kernel's choices size: sm4_internal.h, whose largest
    batch sizes the mode layer's buffers."""
    batches = [STRATEGIES[s].program(SIMD_TARGETS[t].bits, **program_options(s, SIMD_TARGETS[t], choices))
               .info["batch_blocks"] for s, t in KERNELS]
    return {"src/sm4_internal.h": render("sm4_internal.h.j2", provenance=provenance(SPEC_SOURCES + ["templates/"]),
                                         max_batch_bytes=max(batches) * sm4.BLOCK_BYTES,
                                         multi_streams=MULTI_STREAMS)}


def files(choices):
    """{path relative to generated/: contents}."""
    out = {}
    for strategy, name in KERNELS:
        out.update(kernel_file(strategy, SIMD_TARGETS[name], choices))
    for target in key_schedule_targets():
        out.update(key_schedule_file(target, choices))
    c_prov = provenance(SPEC_SOURCES + ["templates/"])
    impls = impl_names()
    out["include/sm4.h"] = render("sm4.h.j2", provenance=c_prov, impls=impls + ["reference_scalar"],
                                  **gf128_files.STATE_BYTES)
    out.update(shared_files(choices))
    out["src/sm4_core.c"] = render(
        "sm4_core.c.j2", provenance=c_prov, ck_rows=hex_rows(sm4_key_schedule.ck_table(), 16),
        registry=registry.sections([(f"{s}_{t}", SIMD_TARGETS[t]) for s, t in KERNELS]),
        key_schedules=registry.sections([(t.name, t) for t in key_schedule_targets()]))
    out["src/sm4_reference_scalar.c"] = render("sm4_reference_scalar.c.j2", provenance=c_prov,
                                               sbox_rows=hex_rows(sm4.SBOX), l_rotations=sm4.L_ROTATIONS)
    out["src/sm4_emulated.c"] = render("sm4_emulated.c.j2", provenance=c_prov, impls=emulable_impls(),
                                       targets=list(dict.fromkeys(t for _, t in KERNELS if SIMD_TARGETS[t].emulable)))
    return out
