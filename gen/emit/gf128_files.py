"""The GF(2^128) programs of generated/: GHASH's aggregated step and XTS's
tweaks inside every kernel file of a 128-bit block cipher (at the kernel's
width and batch, beside its rounds, for the GCM and XTS modes of
templates/kc_gf128_modes.h.j2), and the key-side programs (GHASH's table of
powers of H, CMAC's subkeys) in one file per architecture, kc_gf128_<target>.c,
for the narrowest target with a carry-less multiply (every CPU that runs a
kernel with GCM runs it)."""

import inspect

from ..backends import SIMD_TARGETS
from ..ir.stitch import stitch
from ..kernels import gf128_double, ghash
from ..specs import gf128
from .bodies import DOWNSTREAM, KernelBodies
from .build_files import SourceFile, kernel_sources
from .key_schedules import baseline_targets, listed
from . import registry
from .render import provenance, render, target_facts

SOURCES = ["gen/specs/gf128.py", "gen/kernels/ghash.py", "gen/kernels/gf128_double.py"]
BLOCK_BYTES = gf128.BLOCK_BYTES
# The room a cipher's public header gives the mode layer's GCM and CMAC states
# (kc_gf128_modes.h kc_gcm, kc_cmac; each core asserts they fit).
STATE_BYTES = {"gcm_state_bytes": 640, "cmac_state_bytes": 80}
# XTS's tweak programs: a batch from T itself ("tweak") or from the register the
# batch before carried ("register"), per tweak rule.
TWEAK_STARTS = ("tweak", "register")


def xts_function(convention, start):
    return f"xts_{convention.name}_{start}"


def kernel_programs(target, batch_blocks):
    """{function name: lowered program} of the GF(2^128) functions a kernel of
    `batch_blocks` blocks on `target` carries: GHASH's step of ghash.BLOCKS
    blocks at the target's width, and per XTS rule the tweaks of one batch."""
    per_register = target.bits // (8 * BLOCK_BYTES)
    if batch_blocks % per_register:
        raise ValueError(f"{target.name}: a batch of {batch_blocks} blocks is no whole number of registers")
    out = {"ghash_step": target.lower(ghash.update_program(target.bits))}
    for convention in gf128.XTS_CONVENTIONS:
        for start in TWEAK_STARTS:
            out[xts_function(convention, start)] = target.lower(
                gf128_double.tweak_program(target.bits, batch_blocks // per_register, convention, start))
    return out


# Where GCM's stitched form keeps GHASH's y: in the counter form's group
# buffer `in`, past the group (kc_gf128.h kc_run_gcm_batches).
GCM_Y_OFFSET = 64


def gcm_program(ctr_form, target):
    """GCM's stitched form of a kernel (gen/ir/stitch.py): its CTR counter form
    (params rk, in, out, src) with GHASH over one batch of `hashed` beside it,
    in steps of ghash.BLOCKS blocks (fewer for a smaller batch) chained in
    registers; GHASH's y at GCM_Y_OFFSET in `in`, in phi's byte order (the
    mode layer reverses it once per call, not each batch twice), its table a
    parameter.  The batch it hashes is the one it decrypts, or (encryption)
    the one the call before encrypted."""
    batch = ctr_form.info["batch_blocks"]
    blocks = min(ghash.BLOCKS, batch)
    side = ghash.update_program(target.bits, blocks, batch // blocks, y_order="phi")
    return target.lower(stitch(ctr_form, side, f"{ctr_form.name}_gcm",
                               {"msg": "hashed", "y": ("in", GCM_Y_OFFSET)}))


def key_targets():
    """The targets of the key-side file, per architecture the narrowest with a
    carry-less multiply and the fewest CPU features, then its assembly twin."""
    return baseline_targets([t for t in SIMD_TARGETS.values() if "clmul" not in t.lacks])


# The key-side files beside SM4's kernels, strategy "gf128" (gen/cli.py).
KEY_FILES, KEY_FILES_C = listed(key_targets(), "gf128")


def key_file(target):
    """{path: text} of kc_gf128_<target>.c (and its twin's .S): GHASH's powers
    H^n .. H^1 in the step's key form, CMAC's K1, K2 from L = E_K(0), and
    POLYVAL's table, step and one-block step (ZUC-NIA6's hash)."""
    prefix = f"kc_gf128_{target.name}"
    bodies = KernelBodies(target, prefix)
    powers = bodies(target.lower(ghash.key_program()), "ghash_powers")
    subkeys = bodies(target.lower(gf128_double.cmac_subkeys_program(8 * BLOCK_BYTES)), "cmac_subkeys")
    polyval = {"polyval_powers": bodies(target.lower(ghash.key_program(polyval=True)), "polyval_powers"),
               "polyval_step": bodies(target.lower(ghash.update_program(BLOCK_BYTES * 8, polyval=True)),
                                      "polyval_step"),
               "polyval_block": bodies(target.lower(ghash.update_program(BLOCK_BYTES * 8, blocks=1, polyval=True)),
                                       "polyval_block")}
    origin = provenance(SOURCES + [target.source])
    text = render("kc_gf128_key.c.j2", provenance=origin, target=target, prefix=prefix,
                  module_doc=inspect.getdoc(ghash).splitlines()[:1], ghash_blocks=ghash.BLOCKS,
                  powers=powers, subkeys=subkeys, **polyval, **target_facts(target))
    return {f"src/{prefix}.c": text, **bodies.assembly(origin, DOWNSTREAM)}


def sources():
    """The portable selection (kc_gf128.c) and each key-side file with its
    target's flags (SourceFile list, in the sources of the cipher whose modes
    use them); nothing emulated: the key side runs natively, see kc_gf128.h."""
    native = [SourceFile("kc_gf128", "")]
    return native + [f for t in key_targets() for f in kernel_sources(f"kc_gf128_{t.name}", t)]


def files(widest_bits):
    """{path: text}: kc_gf128.h (sized by `widest_bits`, the widest kernel
    register: XTS's carried register), kc_gf128.c, the modes over them
    (kc_gf128_modes.h) and the key-side files."""
    origin = provenance(SOURCES + ["templates/kc_gf128.h.j2", "templates/kc_gf128.c.j2"])
    out = {"src/kc_gf128.h": render("kc_gf128.h.j2", provenance=origin, ghash_blocks=ghash.BLOCKS,
                                    gcm_y_offset=GCM_Y_OFFSET,
                                    block_bytes=BLOCK_BYTES, carry_bytes=widest_bits // 8),
           "src/kc_gf128.c": render("kc_gf128.c.j2", provenance=origin,
                                    sections=registry.sections([(t.name, t) for t in key_targets()]))}
    out["src/kc_gf128_modes.h"] = render("kc_gf128_modes.h.j2",
                                         provenance=provenance(["templates/kc_gf128_modes.h.j2"]))
    for target in key_targets():
        out.update(key_file(target))
    return out
