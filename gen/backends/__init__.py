"""Backends: one package per architecture, holding its targets (feature set,
legalization passes), its private ops and its C emitter forms.  The neutral
machinery they share: target.py, passes.py, rules.py, arch.py, cpu_features.py.

Ciphers that need an inversion (SM4, ZUC) list the targets they run on
themselves: the vector-ISA-only targets (no AES instructions, no GFNI) lower none."""

from . import aarch64, x86

BACKENDS = (x86, aarch64)
SIMD_TARGETS = {t.name: t for backend in BACKENDS for t in backend.TARGETS}


def kernels(cipher):
    """A cipher's kernels as (strategy, target name): every architecture's, each
    in its dispatch order (a build registers its own architecture's alone)."""
    return tuple(kernel for backend in BACKENDS for kernel in backend.KERNELS[cipher])


def tuned(choice):
    """The kernels, as (strategy, target name), that take the measured `choice`."""
    return set().union(*(backend.TUNING.get(choice, set()) for backend in BACKENDS))


def target(name):
    try:
        return SIMD_TARGETS[name]
    except KeyError:
        raise ValueError(f"unknown target {name!r}; known: {', '.join(SIMD_TARGETS)}") from None
