"""The Linux kernel module of generated/linux/<arch>/ (docs/consumers.md):
the glue that registers SM4's Linux-dialect assembly (generated/asm/linux/)
with the kernel's crypto API, and its Kbuild.  Which kernels it carries, their
batch sizes and CPU checks come from the same programs and targets as the
assembly itself; the glue's C is templates/linux_sm4_glue.c.j2."""

from ..backends import SIMD_TARGETS
from ..backends.x86 import linux as x86_linux
from ..kernels import sm4_key_schedule
from ..specs import sm4
from .render import hex_rows, provenance, render
from .sm4_files import KERNELS, STRATEGIES, key_schedule_targets, program_options

# The strategy the glue runs: its kernels take the plain round keys, which
# the key schedule writes first (sm4_key.rk), and have a one-block form.
STRATEGY = "wordslice"
# The glue's buffers (a batch of counters, a batch of ciphertext and its
# chain) live on the kernel stack: no kernel with a larger batch is taken.
MAX_BATCH_BLOCKS = 64


def x86_kernels(choices):
    """The word-sliced assembly twins on x86-64, in dispatch order, as the
    template takes them."""
    out = []
    for strategy, name in KERNELS:
        target = SIMD_TARGETS[name]
        if strategy != STRATEGY or target.form != "asm" or target.arch.name != "x86_64":
            continue
        batch = STRATEGIES[strategy].program(target.bits, **program_options(strategy, target, choices)) \
            .info["batch_blocks"]
        if batch > MAX_BATCH_BLOCKS:
            raise ValueError(f"{strategy}_{name}: a batch of {batch} blocks is more than the Linux glue's "
                             f"stack buffers hold ({MAX_BATCH_BLOCKS})")
        features, xfeatures = x86_linux.cpu_check(target)
        out.append({"name": f"{strategy}_{name.removesuffix('_asm')}", "batch": batch, "features": features,
                    "xfeatures": xfeatures})
    return out


def files(choices):
    kernels = x86_kernels(choices)
    schedule = next(t for t in key_schedule_targets() if t.arch.name == "x86_64" and t.form == "asm")
    ks_features, ks_xfeatures = x86_linux.cpu_check(schedule)
    sources = ["gen/emit/linux_files.py", "gen/backends/x86/linux.py", "gen/specs/sm4.py",
               "templates/linux_sm4_glue.c.j2"]
    glue = render("linux_sm4_glue.c.j2", provenance=provenance(sources), kernels=kernels,
                  max_batch=max(k["batch"] for k in kernels), block_bytes=sm4.BLOCK_BYTES,
                  key_schedule=schedule.name.removesuffix("_asm"), ks_features=ks_features,
                  ks_xfeatures=ks_xfeatures, ck_rows=hex_rows(sm4_key_schedule.ck_table(), 16))
    objects = ["kcrypt_sm4_glue.o", f"sm4_key_schedule_{schedule.name.removesuffix('_asm')}.o"]
    objects += [f"sm4_{k['name']}.o" for k in kernels]
    kbuild = render("linux_Kbuild.j2", provenance=provenance(sources, comment="make"), objects=objects)
    return {"linux/x86_64/kcrypt_sm4_glue.c": glue, "linux/x86_64/Kbuild": kbuild}
