"""The Linux kernel modules of generated/linux/<arch>/ (docs/consumers.md):
the glue that registers SM4's Linux-dialect assembly (generated/asm/linux/)
with the kernel's crypto API, and its Kbuild.  Which kernels a module
carries, their batch sizes and CPU checks come from the same programs and
targets as the assembly; how kernel code brackets SIMD use and tests CPU
features is each backend's (gen/backends/<arch>/linux.py); the glue's C is
templates/linux_sm4_glue.c.j2."""

from ..backends import SIMD_TARGETS
from ..backends.aarch64 import linux as aarch64_linux
from ..backends.x86 import linux as x86_linux
from ..kernels import ghash, sm4_key_schedule
from ..specs import sm4
from . import gf128_files
from .render import hex_rows, provenance, render
from .sm4_files import KERNELS, STRATEGIES, key_schedule_targets, program_options

BACKENDS = {"x86_64": x86_linux, "aarch64": aarch64_linux}
# The strategies the glue runs: their kernels take the plain round keys,
# which the key schedule writes first (sm4_key.rk), and have a one-block form.
STRATEGIES_TAKEN = ("rounds4", "wordslice")
# The glue's buffers (a batch of counters, a batch of ciphertext and the block
# it chains from) live on the kernel stack: no kernel with a larger batch is taken.
MAX_BATCH_BLOCKS = 64


def kernels(arch, choices):
    """The assembly twins of `arch` the glue carries, in dispatch order."""
    out = []
    for strategy, name in KERNELS:
        target = SIMD_TARGETS[name]
        if strategy not in STRATEGIES_TAKEN or target.form != "asm" or target.arch.name != arch:
            continue
        batch = STRATEGIES[strategy].program(target.bits, **program_options(strategy, target, choices)) \
            .info["batch_blocks"]
        if batch > MAX_BATCH_BLOCKS:
            raise ValueError(f"{strategy}_{name}: a batch of {batch} blocks is more than the Linux glue's "
                             f"stack buffers hold ({MAX_BATCH_BLOCKS})")
        out.append({"name": f"{strategy}_{name.removesuffix('_asm')}", "batch": batch,
                    "checks": BACKENDS[arch].cpu_check(target)})
    return out


def module_files(arch, choices):
    backend = BACKENDS[arch]
    carried = kernels(arch, choices)
    schedule = next(t for t in key_schedule_targets() if t.arch.name == arch and t.form == "asm")
    schedule_name = schedule.name.removesuffix("_asm")
    sources = ["gen/emit/linux_files.py", f"gen/backends/{'x86' if arch == 'x86_64' else arch}/linux.py",
               "gen/specs/sm4.py", "templates/linux_sm4_glue.c.j2"]
    gf128 = next(t for t in gf128_files.key_targets() if t.arch.name == arch and t.form == "asm")
    gf128_name = gf128.name.removesuffix("_asm")
    glue = render("linux_sm4_glue.c.j2", provenance=provenance(sources), arch=arch, glue=backend.GLUE,
                  kernels=carried, max_batch=max(k["batch"] for k in carried), block_bytes=sm4.BLOCK_BYTES,
                  key_schedule=schedule_name, gf128=gf128_name, ghash_blocks=ghash.BLOCKS,
                  ks_checks=list(dict.fromkeys(backend.cpu_check(schedule) + backend.cpu_check(gf128))), ck_rows=hex_rows(sm4_key_schedule.ck_table(), 16))
    objects = ["kcrypt_sm4_glue.o", f"sm4_key_schedule_{schedule_name}.o", f"kc_gf128_{gf128_name}.o"]
    objects += [f"sm4_{k['name']}.o" for k in carried]
    kbuild = render("linux_Kbuild.j2", provenance=provenance(sources, comment="make"), arch=arch, objects=objects)
    return {f"linux/{arch}/kcrypt_sm4_glue.c": glue, f"linux/{arch}/Kbuild": kbuild}


def files(choices):
    return {path: text for arch in BACKENDS for path, text in module_files(arch, choices).items()}
