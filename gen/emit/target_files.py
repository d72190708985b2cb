"""The target manifest: every target gen knows, written once from
gen/backends, for the tools that are not the generator.  targets.json holds
each target's architecture, compiler flags, CPU features, valgrind verdict
and llvm-mca CPU models, and each cipher's kernels in dispatch order (the
Python harness reads it: harness/targets.py); include/kc_targets.h the part
the C harness needs (names, architecture, valgrind verdict, in one order of
preference), so that no tool spells a target's name or features."""

import json

from ..backends import BACKENDS, REFERENCE, SIMD_TARGETS, cpu_features, cpu_models, dispatched_on, \
    implementations, preference
from ..backends.arch import ARCHES
from .render import PROVENANCE, provenance, render

SOURCES = ["gen/backends/", "gen/emit/target_files.py", "templates/kc_targets.h.j2"]
# The ciphers in the order their kernels are listed (each backend's KERNELS).
CIPHERS = tuple(BACKENDS[0].KERNELS)
# kc_targets.h's valgrind verdicts (Target.valgrind), as C enumerators.
VALGRIND_ENUM = {"native": "KC_VALGRIND_NATIVE", "split": "KC_VALGRIND_SPLIT",
                 "emulated": "KC_VALGRIND_EMULATED", "none": "KC_VALGRIND_NONE"}


def ordered_features(names):
    """Feature names in cpu_features.py's order (the bit order of kc_cpu.h)."""
    return [f.name for f in cpu_features.FEATURES if f.name in names]


def target_entry(target):
    return {"name": target.name, "arch": target.arch.name, "form": target.form, "twin_of": target.twin_of,
            "bits": target.bits, "cflags": list(target.cflags), "cpu_features": list(target.cpu_features),
            "emulable": target.emulable, "valgrind": target.valgrind,
            "mca_cpus": [m.name for m in cpu_models(target.arch) if m.runs(target)],
            "source": target.source, "description": target.description}


# The portable reference, built for every architecture (arch null).
REFERENCE_ENTRY = {"name": REFERENCE[1], "arch": None, "form": "c", "twin_of": "", "bits": 0, "cflags": [],
                   "cpu_features": [], "emulable": False, "valgrind": "native", "mca_cpus": [],
                   "source": "", "description": "the portable scalar reference of every cipher"}


def cipher_kernels(cipher):
    """{architecture: [kernel]} of one cipher in dispatch order (what its
    registry lists on that architecture: the kernels, their assembly twins,
    the reference), each with the CPU models that rank it."""
    out = {arch.name: [] for arch in ARCHES}
    for strategy, name in implementations(cipher):
        out[SIMD_TARGETS[name].arch.name].append({"kernel": f"{strategy}_{name}", "strategy": strategy,
                                                  "target": name, "ranked_on": dispatched_on(strategy, name)})
    for kernels in out.values():
        kernels.append({"kernel": "_".join(REFERENCE), "strategy": REFERENCE[0], "target": REFERENCE[1],
                        "ranked_on": []})
    return out


def manifest():
    """targets.json's content: targets in preference order (backends.preference),
    the reference last."""
    return {
        "provenance": PROVENANCE.format(sources=", ".join(SOURCES)).replace("\n", " "),
        "architectures": [{"name": arch.name, "c_condition": arch.c_condition,
                           "cmake_processor": arch.cmake_processor,
                           "cpu_models": [{"name": m.name, "features": ordered_features(m.features),
                                           "mattr": m.mattr} for m in cpu_models(arch)]}
                          for arch in ARCHES],
        "targets": [target_entry(t) for t in preference()] + [REFERENCE_ENTRY],
        "kernels": {cipher: cipher_kernels(cipher) for cipher in CIPHERS},
    }


def files():
    """{path relative to generated/: contents}: targets.json and include/kc_targets.h."""
    data = manifest()
    rows = [(f'"{t["name"]}"', f'"{t["arch"] or ""}"', f'"{t["twin_of"]}"', VALGRIND_ENUM[t["valgrind"]],
             int(t["valgrind"] in ("native", "split"))) for t in data["targets"]]
    widths = [max(len(str(row[i])) for row in rows) + 1 for i in range(4)]
    lines = ["{" + " ".join(f"{str(v) + ',':<{w}}" for v, w in zip(row[:4], widths)) + f" {row[4]}}}," for row in rows]
    return {
        "targets.json": json.dumps(data, indent=1) + "\n",
        "include/kc_targets.h": render("kc_targets.h.j2", provenance=provenance(SOURCES), rows=lines),
    }
