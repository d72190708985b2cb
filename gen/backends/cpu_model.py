"""The llvm-mca CPU models an architecture's kernels are modelled on
(harness/mca_model.py) and ranked on (gen explore's depth model): each with
the CPU features (cpu_features.py's names) of the core it stands for, so
that a kernel is modelled only where the core could run it and ranked only
where dispatch would pick it (backends.dispatched_on).  Each backend package
lists its own in CPU_MODELS."""

from dataclasses import dataclass


@dataclass(frozen=True)
class CpuModel:
    name: str          # llvm-mca's -mcpu (and, on x86, GCC's -march)
    features: frozenset
    mattr: str = ""    # llvm-mca's -mattr: what the core implements beyond what LLVM's CPU definition switches on

    def runs(self, target):
        """Whether the core has every feature the target needs."""
        return set(target.cpu_features) <= self.features
