"""`gen explore`: a choice space the generator enumerates, each choice costed
on every kernel of its cipher, the choices ranked and those that cost the
same grouped with the reason.

Spaces (SPACES; each a named parameter of gen/choices.py):
  * sm4.decomposition: the 2040 decompositions A2*inv(A1*x ^ c1) ^ c2 of
    SM4's S-box over AES's field (gen/kernels/sm4_constants.py);
  * zuc.s1_isomorphism: the 8 field isomorphisms K that carry S1 into AES's
    field (gen/kernels/zuc_constants.py), each kernel with the forms its
    file takes (gen/emit/zuc_kernel_files.py).

Depth `static`, per (choice, kernel): the kernel's main lowered program
(SM4: the batch; ZUC: the keystream block)
  * its operations per call by kind (gen/ir/opcodes.KINDS), a loop's body
    counted once per iteration;
  * its constant bytes (the distinct constants' data);
  * its register pressure: the stores and reloads of spills per call when
    its assembly twin's register file allocates it (gen/backends/regalloc.py);
  * its shape: a digest of the program with its data left out (constants,
    a GFNI matrix immediate: semantics.data_attrs).  Choices of one shape
    are one instruction sequence but for constants, so they cost the same
    at every depth.
Each shape is allocated once.  The work runs on every core (a process per
core, by choice), and every result is cached under build/explore/, keyed by
a digest of the generator's sources: a second run reads it back.
"""

import hashlib
import json
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .backends import SIMD_TARGETS, kernels
from .backends.regalloc import MachineLoop, Reload, Spill, allocate
from .emit import sm4_files, zuc_kernel_files
from .ir import Loop, Op
from .ir.opcodes import KINDS
from .ir.semantics import data_attrs, op_kind
from .kernels import zuc_lanes
from .kernels.sm4_constants import decompositions
from .kernels.zuc_constants import isomorphisms

ROOT = Path(__file__).resolve().parents[1]


# ---- a program's static cost ---------------------------------------------------------

def _walk_counted(stmts, times=1):
    """(op, how many times a call runs it) of every op in `stmts`."""
    for s in stmts:
        if isinstance(s, Loop):
            yield from _walk_counted(s.body, times * s.count)
        elif isinstance(s, Op):
            yield s, times


def shape(program):
    """A digest of `program` without its data: one per instruction sequence."""
    lines = []

    def walk(stmts):
        for s in stmts:
            if isinstance(s, Loop):
                lines.append(f"loop {s.var} {s.count} {{")
                walk(s.body)
                lines.append("}")
            elif isinstance(s, Op):
                hidden = data_attrs(s.opcode)
                attrs = sorted((k, repr(v)) for k, v in s.attrs.items() if k not in hidden)
                result = f"{s.result.bits}:{s.result.name} = " if s.result is not None else ""
                lines.append(f"{result}{s.opcode}({', '.join(a.name for a in s.args)}) {attrs}")
            else:
                lines.append(repr(s))
    walk(program.body)
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]


def counts(program):
    """Operations per call by kind, and the constants' bytes."""
    by_kind = dict.fromkeys(KINDS, 0)
    constants = {}
    for op, times in _walk_counted(program.body):
        by_kind[op_kind(op.opcode)] += times
        if op.opcode == "const":
            constants[op.result.name] = len(op.attrs["data"])
    return by_kind, sum(constants.values())


def pressure(program, target):
    """(spill stores, reloads) per call when `target`'s assembly twin allocates `program`."""
    allocation = allocate(program, target.assembler.register_file(target), invariant=("rk",))
    stores = reloads = 0

    def walk(steps, times):
        nonlocal stores, reloads
        for step in steps:
            if isinstance(step, MachineLoop):
                walk(step.body, times * step.count)
            elif isinstance(step, Spill):
                stores += times
            elif isinstance(step, Reload):
                reloads += times
    walk(allocation.steps, 1)
    return [stores, reloads]


# ---- spaces --------------------------------------------------------------------------

def _sm4_program(choice, strategy, target):
    module = sm4_files.STRATEGIES[strategy]
    return target.lower(module.program(target.bits, groups=target.groups(strategy), decomposition_index=choice))


def _zuc_program(choice, strategy, target):
    """The keystream block, with the forms the kernel's file takes on `target`."""
    return target.lower(zuc_lanes.keystream_program(
        target.bits, target.groups(strategy), isomorphism=choice,
        **zuc_kernel_files.keystream_forms(strategy, target), **zuc_kernel_files.choose(target).forms))


@dataclass(frozen=True)
class Space:
    name: str            # the parameter (gen/choices.py)
    cipher: str
    what: str            # one line: what a choice is
    values: Callable     # () -> the choices, enumerated by the generator
    program: Callable    # (choice, strategy, target) -> the kernel's main lowered program
    files: Callable      # (strategy, target, Choices) -> {path under generated/: text} of the kernel

    def size(self):
        return len(self.values())

    def kernels(self):
        """(strategy, target name) of the cipher's C kernels: what a choice is costed on."""
        return kernels(self.cipher)

    def assignment(self, choice, target):
        """gen --choose's spelling of `choice` for `target`'s kernels."""
        from .choices import PER_TARGET
        return f"{self.name}.{target.name}={choice}" if PER_TARGET[self.name] else f"{self.name}={choice}"


SPACES = {
    "sm4": Space("sm4.decomposition", "sm4", "an S-box decomposition A2*inv(A1*x ^ c1) ^ c2 over AES's field",
                 lambda: range(len(decompositions())), _sm4_program,
                 lambda strategy, target, chosen: sm4_files.kernel_file(strategy, target, chosen)[0]),
    "zuc": Space("zuc.s1_isomorphism", "zuc", "a field isomorphism K carrying S1 into AES's field",
                 lambda: range(len(isomorphisms())), _zuc_program, zuc_kernel_files.kernel_file),
}


# ---- running it ----------------------------------------------------------------------

# What a cached cost means: bumped whenever this module changes what it
# measures (its own source is not part of source_digest, so that changes to
# the ranking or the table keep the cache).
COST_VERSION = 1
# Sources that do not change what a choice costs.
_NOT_COSTS = ("gen/explore.py", "gen/cli.py", "gen/choices.py")


def source_digest():
    """A digest of the generator's sources (those that make the programs): a
    cached cost is valid while it holds."""
    h = hashlib.sha256(f"cost {COST_VERSION}".encode())
    for path in sorted((ROOT / "gen").rglob("*.py")):
        name = str(path.relative_to(ROOT))
        if name not in _NOT_COSTS:
            h.update(name.encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:16]


def _cost_choice(args):
    """Worker: every kernel's static cost under one choice (shapes allocated
    once per process: `_SEEN` keeps their pressure)."""
    space_key, choice, wanted = args
    space = SPACES[space_key]
    out = {}
    for strategy, name in space.kernels():
        if wanted and name not in wanted:
            continue
        target = SIMD_TARGETS[name]
        program = space.program(choice, strategy, target)
        digest = shape(program)
        by_kind, constant_bytes = counts(program)
        if digest not in _SEEN:
            _SEEN[digest] = pressure(program, target) if target.assembler is not None else None
        out[f"{strategy}_{name}"] = {"shape": digest, "ops": by_kind, "constant_bytes": constant_bytes,
                                     "spills": _SEEN[digest]}
    return choice, out


_SEEN = {}


def static_costs(space, targets=(), jobs=None, cache_dir=None, progress=sys.stderr):
    """{choice: {kernel: cost}} for every choice of `space` on its kernels
    (those of `targets` alone where given), from the cache where it holds
    them, the rest computed on `jobs` processes (default: every core)."""
    cache_dir = Path(cache_dir or ROOT / "build" / "explore")
    cache_path = cache_dir / f"{space.name}-static-{source_digest()}.json"
    cached = json.loads(cache_path.read_text()) if cache_path.exists() else {}
    choices = list(space.values())
    wanted = tuple(targets)
    todo = [c for c in choices if not all(_covers(cached.get(str(c), {}), space, wanted))]
    results = {int(c): v for c, v in cached.items()}
    start, done = time.monotonic(), 0
    if todo:
        with multiprocessing.Pool(jobs or os.cpu_count()) as pool:
            for choice, costs in pool.imap_unordered(_cost_choice, [(space.cipher, c, wanted) for c in todo],
                                                     chunksize=max(1, len(todo) // 200)):
                results[choice] = {**results.get(choice, {}), **costs}
                done += 1
                _bar(progress, done, len(todo), start, space.name)
        cache_dir.mkdir(parents=True, exist_ok=True)
        cache_path.write_text(json.dumps({str(c): v for c, v in sorted(results.items())}))
    return {c: {k: v for k, v in results[c].items() if not wanted or kernel_target(k) in wanted}
            for c in choices}


def kernel_target(kernel):
    """The target name of a kernel named <strategy>_<target>."""
    return kernel.split("_", 1)[1]


def _covers(costs, space, wanted):
    for strategy, name in space.kernels():
        if not wanted or name in wanted:
            yield f"{strategy}_{name}" in costs


def _bar(stream, done, total, start, label, width=30, unit="choices"):
    if stream is None:
        return
    filled = width * done // total
    rate = done / max(time.monotonic() - start, 1e-9)
    left = (total - done) / rate if rate else 0
    end = "\n" if done == total else ""
    stream.write(f"\rgen explore: {label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total} {unit}, "
                 f"{left:.0f} s left{end}")
    stream.flush()


# ---- depth model: llvm-mca on each distinct shape --------------------------------------

MODEL_CPUS = {"x86_64": ("znver3", "znver4", "icelake-server"), "aarch64": ("neoverse-n1", "neoverse-n2", "neoverse-v1")}


def modelled_costs(space, costs, chosen, cache_dir=None, progress=sys.stderr):
    """{kernel: {shape: {cpu: modelled cycles per byte, or None}}}: per kernel,
    each distinct shape's file written with its lowest choice into a copy of
    generated/ and modelled by harness/mca_model.py (llvm-mca 19) on its
    architecture's CPU models (MODEL_CPUS).  A shape is one instruction
    sequence, so every choice of it models the same.  Cached like the static costs."""
    cache_dir = Path(cache_dir or ROOT / "build" / "explore")
    cache_path = cache_dir / f"{space.name}-model-{source_digest()}.json"
    cached = json.loads(cache_path.read_text()) if cache_path.exists() else {}
    todo = {}
    for choice in sorted(costs):
        for kernel, cost in costs[choice].items():
            if cost["shape"] not in cached.get(kernel, {}):
                todo.setdefault((kernel, cost["shape"]), choice)
    start = time.monotonic()
    if todo:
        with tempfile.TemporaryDirectory() as work:
            generated = Path(work) / "generated"
            shutil.copytree(ROOT / "generated", generated)
            for done, ((kernel, digest), choice) in enumerate(sorted(todo.items()), 1):
                strategy, name = kernel.split("_", 1)
                target = SIMD_TARGETS[name]
                files = space.files(strategy, target, chosen.with_choice(space.assignment(choice, target)))
                for path, text in files.items():
                    (generated / path).parent.mkdir(parents=True, exist_ok=True)
                    (generated / path).write_text(text)
                out = Path(work) / "mca.json"
                cpus = MODEL_CPUS[target.arch.name]
                flag = "--arm-cpu" if target.arch.name == "aarch64" else "--cpu"
                subprocess.run([sys.executable, str(ROOT / "harness" / "mca_model.py"), "--generated", str(generated),
                                "--json", str(out), *(x for cpu in cpus for x in (flag, cpu)), kernel],
                               capture_output=True, text=True)
                records = json.loads(out.read_text()) if out.exists() else []
                per_cpu = {cpu: None for cpu in cpus}
                for rec in records:
                    if rec.get("mode") in ("kernel", "keystream") and rec.get("cpb") is not None \
                            and per_cpu.get(rec["cpu_model"]) is None:
                        per_cpu[rec["cpu_model"]] = round(rec["cpb"], 3)
                cached.setdefault(kernel, {})[digest] = per_cpu
                _bar(progress, done, len(todo), start, f"{space.name} (llvm-mca on each shape)", unit="shapes")
        cache_dir.mkdir(parents=True, exist_ok=True)
        cache_path.write_text(json.dumps(cached, indent=1))
    return cached


# ---- ranking -------------------------------------------------------------------------

def with_model(costs, modelled):
    """The costs, each with the modelled cycles per byte of its shape ("model": {cpu: c/B})."""
    return {c: {k: {**cost, "model": modelled[k][cost["shape"]]} for k, cost in per.items()}
            for c, per in costs.items()}


def cost_key(cost):
    """What ranks choices on one kernel, cheapest first: the modelled cycles
    per byte (their mean over the CPU models; depth model), operations (every
    kind alike), spill traffic, constant bytes."""
    modelled = [v for v in cost.get("model", {}).values() if v is not None]
    spills = sum(cost["spills"]) if cost["spills"] else 0
    return (sum(modelled) / len(modelled) if modelled else 0), sum(cost["ops"].values()), spills, \
        cost["constant_bytes"]


@dataclass
class Group:
    """Choices that cost the same on one kernel."""

    choices: list
    cost: dict
    shapes: int          # distinct instruction sequences among them

    @property
    def reason(self):
        if self.shapes == 1:
            return "one instruction sequence: the programs differ in their constants alone"
        return f"{self.shapes} instruction sequences with the same counts"


def rank(costs):
    """Per kernel, its groups of equal cost, cheapest first: {kernel: [Group]}."""
    kernels_ = sorted({k for per in costs.values() for k in per})
    out = {}
    for kernel in kernels_:
        groups = {}
        for choice, per in costs.items():
            cost = per[kernel]
            key = json.dumps([cost["ops"], cost["constant_bytes"], cost["spills"], cost.get("model")], sort_keys=True)
            groups.setdefault(key, []).append((choice, cost))
        ranked = [Group(sorted(c for c, _ in members), members[0][1], len({m["shape"] for _, m in members}))
                  for members in groups.values()]
        out[kernel] = sorted(ranked, key=lambda g: (cost_key(g.cost), g.choices[0]))
    return out


def best_choice(costs, current=None):
    """The choice whose modelled cycles per byte (depth model), then
    operations, spill traffic and constant bytes, summed over kernels as a
    fraction of each kernel's cheapest, are least;
    `current` where it is among those, else the lowest; and all that tie."""
    kernels_ = sorted({k for per in costs.values() for k in per})
    floor = {k: [min(cost_key(per[k])[i] for per in costs.values()) or 1 for i in range(4)] for k in kernels_}
    score = {c: tuple(sum(cost_key(per[k])[i] / floor[k][i] for k in kernels_) for i in range(4))
             for c, per in costs.items()}
    least = min(score.values())
    best = sorted(c for c, s in score.items() if s == least)
    return (current if current in best else best[0]), best


def summary(space, ranking, best, tied, depth="static"):
    """One line for gen/choices.toml: what the ranking found."""
    kernels_ = len(ranking)
    alike = [k for k, groups in ranking.items() if len(groups) == 1]
    one_shape = [k for k in alike if ranking[k][0].shapes == 1]
    size = space.size()
    found = (f"all {size} choices cost the same on {len(alike)} of {kernels_} kernels"
             + (f" ({len(one_shape)} of them one instruction sequence, differing in constants alone)"
                if one_shape else ""))
    spread = [f"{k}: {len(g)} costs" for k, g in ranking.items() if len(g) > 1]
    return (f"gen explore {space.cipher} --depth {depth}, {time.strftime('%Y-%m-%d')}: {found}"
            + (f"; where they differ: {', '.join(spread)}" if spread else "")
            + f"; best #{best}" + (f", tied with {len(tied) - 1} more (the lowest, or the one kept)" if len(tied) > 1 else ""))


def table(ranking, top, total):
    """The ranked table: per kernel its cheapest `top` groups of choices."""
    modelled = any("model" in g.cost for groups in ranking.values() for g in groups)
    head = ["kernel", "rank", "choices", *KINDS, "const B", "spill st/ld",
            *(["modelled c/B"] if modelled else []), "why they tie"]
    rows = [head, ["---"] * len(head)]
    for kernel, groups in ranking.items():
        for number, group in enumerate(groups[:top], 1):
            spills = "/".join(map(str, group.cost["spills"])) if group.cost["spills"] else "n/a"
            rows.append([kernel if number == 1 else "", str(number), _choices(group.choices, total),
                         *(str(group.cost["ops"][k]) for k in KINDS), str(group.cost["constant_bytes"]), spills,
                         *([_modelled(group.cost.get("model", {}))] if modelled else []),
                         group.reason if len(group.choices) > 1 else ""])
        if len(groups) > top:
            rows.append(["", f"(+{len(groups) - top} more)"] + [""] * (len(head) - 2))
    return "\n".join("| " + " | ".join(row) + " |" for row in rows)


def _modelled(per_cpu):
    return ", ".join(f"{cpu} {'n/a' if v is None else f'{v:.2f}'}" for cpu, v in per_cpu.items()) or "n/a"


def _choices(choices, total):
    if len(choices) == total:
        return f"all {total}"
    if len(choices) == 1:
        return f"#{choices[0]}"
    if choices == list(range(choices[0], choices[-1] + 1)):
        return f"#{choices[0]}-#{choices[-1]}"
    return f"{len(choices)}: #{', #'.join(map(str, choices[:3]))}, ..."


def plot(ranking, path, title):
    """A PNG of the spread: per kernel, every group of choices at its
    operations per call relative to the kernel's cheapest (a dot sized by how
    many choices it holds), and where the depth is model, each group's
    modelled cycles per byte per CPU model."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    kernels_ = list(ranking)
    modelled = any("model" in g.cost for groups in ranking.values() for g in groups)
    fig, axes = plt.subplots(1, 2 if modelled else 1, figsize=(12 if modelled else 7, 0.35 * len(kernels_) + 1.5),
                             squeeze=False, sharey=True)
    spread = axes[0][0]
    for y, kernel in enumerate(kernels_):
        groups = ranking[kernel]
        floor = min(cost_key(g.cost)[1] for g in groups)
        for g in groups:
            spread.scatter(cost_key(g.cost)[1] / floor, y, s=20 + 200 * len(g.choices) ** 0.5 / 45, alpha=0.6,
                           color="tab:blue")
    spread.set_yticks(range(len(kernels_)), kernels_, fontsize=8)
    spread.set_xlabel("operations per call / the kernel's cheapest choice")
    spread.set_title("spread of the static cost (dot area: choices)", fontsize=9)
    if modelled:
        model = axes[0][1]
        cpus = sorted({cpu for groups in ranking.values() for g in groups for cpu in g.cost.get("model", {})})
        for index, cpu in enumerate(cpus):
            points = [(g.cost["model"][cpu], y) for y, kernel in enumerate(kernels_) for g in ranking[kernel]
                      if g.cost.get("model", {}).get(cpu) is not None]
            if points:
                model.scatter(*zip(*points), label=cpu, s=18, marker="os^D<>"[index % 6])
        model.set_xlabel("modelled cycles per byte (llvm-mca), every group")
        model.set_title("modelled, not measured", fontsize=9)
        model.legend(fontsize=7)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
