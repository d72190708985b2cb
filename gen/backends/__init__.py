"""Backends: one package per architecture, holding its targets (feature set,
legalization passes), its private ops and its C emitter forms.  The neutral
machinery they share: target.py, passes.py, rules.py, arch.py, cpu_features.py.

Ciphers that need an inversion (SM4, ZUC) list the targets they run on
themselves: the vector-ISA-only targets (no AES instructions, no GFNI) lower none."""

from . import aarch64, x86

BACKENDS = (x86, aarch64)
# Every target by name: each backend's, and the assembly twin (<name>_asm,
# Target.asm_twin) of each target whose backend writes assembly.
SIMD_TARGETS = {t.name: t for backend in BACKENDS for target in backend.TARGETS
                for t in (target, *((target.asm_twin(),) if target.assembler else ()))}


# The portable reference every cipher has: strategy "reference" on target
# "scalar", last in dispatch, built for every architecture.
REFERENCE = ("reference", "scalar")


def kernels(cipher):
    """A cipher's kernels as (strategy, target name): every architecture's, each
    in its dispatch order (a build registers its own architecture's alone).
    Each is one lowered program per function: what the IR checks cover."""
    return tuple(kernel for backend in BACKENDS for kernel in backend.KERNELS[cipher])


def implementations(cipher):
    """Every implementation the library builds, as (strategy, target name): per
    architecture its kernels in dispatch order, then their assembly twins where
    the backend writes assembly (after the C kernels: dispatch keeps choosing
    those; a caller names a twin to run it)."""
    out = []
    for backend in BACKENDS:
        mine = backend.KERNELS[cipher]
        out += mine
        out += [(strategy, SIMD_TARGETS[name].asm_twin().name) for strategy, name in mine
                if SIMD_TARGETS[name].assembler is not None]
    return tuple(out)


def cpu_models(arch):
    """The llvm-mca CPU models of an architecture's kernels (its backend's
    CPU_MODELS: cpu_model.py)."""
    return next(backend.CPU_MODELS for backend in BACKENDS if backend.TARGETS[0].arch == arch)


def dispatched_on(strategy, name):
    """The CPU models that dispatch runs the kernel (strategy, target name)
    on: those on which it is the first kernel of its strategy, in dispatch
    order, that the core can run; every model of its architecture where it is
    that on none (a kernel for cores no model stands for).  An assembly twin
    is modelled as its C twin (mca_model reads the C kernel).
    byteslice_neon_aes: N1 alone (N2 and V1 run byteslice_neon_sha3);
    byteslice_avx2_vaes: Zen 3.  These models rank the kernel's choices
    (gen explore)."""
    mine = SIMD_TARGETS[name]
    order = [SIMD_TARGETS[t] for backend in BACKENDS for kernels_ in backend.KERNELS.values()
             for s, t in kernels_ if s == strategy]
    models = cpu_models(mine.arch)
    ranked = [m.name for m in models if next((t for t in order if m.runs(t)), None) is SIMD_TARGETS[mine.base_name]]
    return ranked or [m.name for m in models]


def preference():
    """Every target (the assembly twins too) in one order of preference
    across ciphers, per architecture: the C targets in the order they first
    appear in the ciphers' dispatch lists (KERNELS, ciphers in their listed
    order), then their assembly twins in the same order.  Within one cipher
    and strategy this is dispatch order wherever the cipher's own lists agree
    (uBlock's nibbleslice prefers avx2 to avx512, its register method the
    reverse: its first-listed strategy decides)."""
    out = []
    for backend in BACKENDS:
        names = list(dict.fromkeys(t for kernels_ in backend.KERNELS.values() for _, t in kernels_))
        names += [t.name for t in backend.TARGETS if t.name not in names]  # a target no kernel uses yet
        out += [SIMD_TARGETS[n] for n in names]
        out += [SIMD_TARGETS[SIMD_TARGETS[n].asm_twin().name] for n in names if SIMD_TARGETS[n].assembler is not None]
    return tuple(out)


def target(name):
    try:
        return SIMD_TARGETS[name]
    except KeyError:
        raise ValueError(f"unknown target {name!r}; known: {', '.join(SIMD_TARGETS)}") from None
