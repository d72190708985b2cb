"""The target manifest, generated/targets.json, as the Python harness reads
it: every target gen knows (gen/backends) with its architecture, compiler
flags, CPU features, valgrind verdict and llvm-mca CPU models, the CPU
models of each architecture, and each cipher's kernels in dispatch order.
The harness takes every fact of a target from here and spells no target's
name or features itself."""

from __future__ import annotations

import json
import os
from functools import lru_cache

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GENERATED = os.path.join(REPO, "generated")


class Manifest:
    def __init__(self, data):
        self.data = data
        self.targets = {t["name"]: t for t in data["targets"]}
        self.cpu_models = {m["name"]: dict(m, arch=a["name"]) for a in data["architectures"]
                           for m in a["cpu_models"]}

    def target(self, name):
        """A target's entry; ValueError for a name gen does not know."""
        try:
            return self.targets[name]
        except KeyError:
            raise ValueError(f"unknown target {name!r} (not in generated/targets.json; known: "
                             f"{', '.join(self.targets)})") from None

    def arch_of(self, target):
        """'x86_64' or 'aarch64': the architecture of a target."""
        return self.target(target)["arch"]

    def cflags(self, target):
        return list(self.target(target)["cflags"])

    def models_of(self, arch):
        """The names of an architecture's llvm-mca CPU models, in the backend's order."""
        return [name for name, m in self.cpu_models.items() if m["arch"] == arch]

    def mattr(self, cpu):
        """llvm-mca's -mattr for a CPU model ("" where none is given or the model is not listed)."""
        return self.cpu_models.get(cpu, {}).get("mattr", "")

    def kernels(self, cipher, arch):
        """A cipher's kernels on an architecture in dispatch order: its kernels,
        their assembly twins, the reference (each a dict: kernel, strategy,
        target, ranked_on)."""
        return self.data["kernels"][cipher][arch]

    def kernel_targets(self, cipher, form="c"):
        """The targets of a cipher's kernels of one form ("c", or "asm" for the
        assembly twins), every architecture's, each once, in dispatch order;
        the reference's left out."""
        return list(dict.fromkeys(k["target"] for kernels in self.data["kernels"][cipher].values()
                                  for k in kernels if k["target"] in self.targets
                                  and self.targets[k["target"]]["form"] == form
                                  and self.targets[k["target"]]["arch"] is not None))


@lru_cache(maxsize=None)
def _load(path, stamp):
    """The manifest at path, as of stamp (its modification time and size: a
    rewritten file is read again)."""
    with open(path, encoding="utf-8") as f:
        return Manifest(json.load(f))


def load(generated_dir=None):
    """The manifest of a generated/ folder (default: GENERATED, this checkout's)."""
    path = os.path.join(generated_dir or GENERATED, "targets.json")
    if not os.path.exists(path):
        raise OSError(f"{path} not found: run `gen`")
    st = os.stat(path)
    return _load(os.path.abspath(path), (st.st_mtime_ns, st.st_size))
