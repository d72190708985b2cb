"""Registry entries grouped by architecture: each core's registry lists the
kernels of the architecture it is compiled for (templates/kc_registry.j2)."""

from ..backends.arch import ARCHES


def sections(kernels):
    """[(Arch, [impl name, ...])] from [(impl name, Target)] in preference
    order, keeping that order within each architecture."""
    out = []
    for arch in ARCHES:
        names = [name for name, target in kernels if target.arch == arch]
        if names:
            out.append((arch, names))
    return out
