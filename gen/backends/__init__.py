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


def target(name):
    try:
        return SIMD_TARGETS[name]
    except KeyError:
        raise ValueError(f"unknown target {name!r}; known: {', '.join(SIMD_TARGETS)}") from None
