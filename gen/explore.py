"""`gen explore`: each parameter of gen/choices.py (PARAMETERS), every
value it takes costed on every kernel it reaches, the values ranked and
those that cost the same grouped with the reason.

A parameter's values come from the generator: SM4's 2040 S-box
decompositions (gen/kernels/sm4_constants.py), ZUC's 8 field isomorphisms
for S1 (gen/kernels/zuc_constants.py), and the tuning of each kernel:
interleaved groups, rounds per loop iteration, ZUC's rolled block and LFSR
in memory, GCC's scheduling before allocation and the assembly twin's
pressure schedule.  A value is costed with every other choice at
gen/choices.toml's (or --choose's) value.

Depth `static`, per (value, kernel): the kernel's main lowered program
(SM4: the batch; ZUC: the keystream block; uBlock: the 128/128 encryption)
  * its operations per call by kind (gen/ir/opcodes.KINDS), a loop's body
    counted once per iteration;
  * its constant bytes (the distinct constants' data);
  * its register pressure: the stores and reloads of spills per call when
    its assembly twin's register file allocates it (gen/backends/regalloc.py);
  * its shape: a digest of the program with its data left out (constants,
    a GFNI matrix immediate: semantics.data_attrs) and of the choices that
    change its code without changing the program (scheduling).  Values of
    one shape are one instruction sequence but for constants, so they cost
    the same at every depth.
Depth `model` adds llvm-mca's cycles per byte once per shape; depth
`measure` (gen/explore_measure.py) times the cheapest values of each kernel
the machine runs with `bench`.
Each shape is allocated once.  The work runs on every core (a process per
core, by choice), and every result is cached under build/explore/, keyed by
a digest of the generator's sources and of the other choices: a second run
reads it back.
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

from . import backends
from .backends import SIMD_TARGETS, cpu_models, kernels
from .backends.arch import ARCHES
from .backends.regalloc import MachineLoop, Reload, Spill, allocate
from .backends.schedule import for_pressure
from .backends.target import NoLowering
from .choices import PARAMETERS
from .emit import sm4_files, ublock_files, zuc_kernel_files
from .ir import Comment, Loop, Op
from .ir.keystream import CTR_GROUP_BLOCKS, xor_into_loads
from .ir.opcodes import KINDS
from .ir.semantics import data_attrs, op_kind
from .kernels import ublock_nibbleslice, ublock_register, zuc_lanes
from .specs import ublock

ROOT = Path(__file__).resolve().parents[1]


# ---- a program's static cost ---------------------------------------------------------

def _walk_counted(stmts, times=1):
    """(op, how many times a call runs it) of every op in `stmts`."""
    for s in stmts:
        if isinstance(s, Loop):
            yield from _walk_counted(s.body, times * s.count)
        elif isinstance(s, Op):
            yield s, times


def shape(program, code_choices=()):
    """A digest of `program` without its data, and of `code_choices` (those
    that change the machine code of one program): one per instruction sequence."""
    lines = [repr(sorted(code_choices))]

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
            elif not isinstance(s, Comment):        # (a comment is no instruction)
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


def pressure(program, target, schedule=False):
    """(spill stores, reloads) per call when `target`'s assembly twin allocates
    `program` (scheduled for low pressure first where `schedule`)."""
    invariant = ("rk",)
    allocation = allocate(for_pressure(program, invariant) if schedule else program,
                          target.assembler.register_file(target), invariant=invariant)
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


# ---- each cipher's main program ---------------------------------------------------

def _sm4_program(strategy, target, chosen):
    """The batch program; no value for a batch past CTR's counter group (the
    kernel file's counter form could not be built: keystream.counter_blocks)."""
    module = sm4_files.STRATEGIES[strategy]
    program = target.lower(module.program(target.bits, **sm4_files.program_options(strategy, target, chosen)))
    if program.info["batch_blocks"] > CTR_GROUP_BLOCKS:
        raise NoLowering(f"a batch of {program.info['batch_blocks']} blocks: the counter form builds at most "
                         f"{CTR_GROUP_BLOCKS} (gen/ir/keystream.py)")
    return program


def _sm4_multi_program(strategy, target, chosen):
    """The multi-key form's CBC step; no value past a pass's streams."""
    try:
        abstract = sm4_files.multi_key_program(strategy, target, chosen)
    except ValueError as error:
        raise NoLowering(str(error)) from None
    if abstract is None:
        raise NoLowering(f"{strategy} has no multi-key form")
    return target.lower(xor_into_loads(abstract))


def _sm4_one_block_program(strategy, target, chosen):
    """The one-block form's CBC step, on the kernel's target."""
    if strategy not in PARAMETERS["sm4.one_block_layer"].strategies:
        raise NoLowering(f"{strategy}'s one-block form is its own program at one block")
    return target.lower(xor_into_loads(sm4_files.one_block_program(strategy, target, chosen)))


def _zuc_program(strategy, target, chosen):
    """The keystream block, with the forms the kernel's file takes on `target`."""
    return target.lower(zuc_lanes.keystream_program(
        target.bits, zuc_kernel_files.GROUPS[strategy], **zuc_kernel_files.keystream_forms(strategy, target, chosen),
        **zuc_kernel_files.lane_options(strategy, target, chosen)))


def _ublock_program(strategy, target, chosen):
    """uBlock-128/128's encryption."""
    rounds = ublock.VARIANTS[128, 128]
    if strategy == "register":
        return target.lower(ublock_register.program(target.bits, 128, rounds, "encrypt",
                                                    chosen.of("ublock.groups", strategy, target)))
    return target.lower(ublock_nibbleslice.program(target.bits, 128, rounds, "encrypt"))


# (cipher, form: gen/choices.py Parameter.form) -> (strategy, target, Choices) -> the
# lowered program of that form of the kernel.
PROGRAMS = {("sm4", "batch"): _sm4_program, ("sm4", "multi"): _sm4_multi_program,
            ("sm4", "one_block"): _sm4_one_block_program,
            ("zuc", "batch"): _zuc_program, ("ublock", "batch"): _ublock_program}
CIPHERS = tuple(dict.fromkeys(cipher for cipher, _ in PROGRAMS))
_KERNEL_FILES = {"sm4": sm4_files.kernel_file, "zuc": zuc_kernel_files.kernel_file,
                 "ublock": ublock_files.kernel_file}
_SHARED_FILES = {"sm4": sm4_files.shared_files, "zuc": lambda chosen: {}, "ublock": ublock_files.shared_files}


def kernel_files(cipher, strategy, target, chosen):
    """{path under generated/: text} of a C kernel and its assembly twin (which
    takes its choices), or of an assembly twin alone (a parameter with
    `twins`), under `chosen`, and of the shared headers that size the mode
    layer's buffers (a choice may change the batch)."""
    twins = (target, target.asm_twin()) if target.assembler is not None and target.form == "c" else (target,)
    files = {}
    for t in twins:
        files.update(_KERNEL_FILES[cipher](strategy, t, chosen))
    return {**files, **_SHARED_FILES[cipher](chosen)}
# Choices that change a kernel's machine code but not its lowered program.
CODE_CHOICES = ("schedule_before_ra", "asm_pressure_schedule")


def call_bytes(cipher, program):
    """The bytes one call of the kernel's main program processes (what its
    operations are divided by: values that change the batch compare per byte)."""
    if cipher == "zuc":
        return program.info["lanes"] * 64           # 16 keystream words per lane
    return program.info["batch_blocks"] * program.info.get("block_bits", 128) // 8


def parameters(cipher):
    """The cipher's parameters (gen/choices.py), in the file's order."""
    return [p for p in PARAMETERS.values() if p.cipher == cipher]


def reached(param):
    """(strategy, target name) of the kernels a value of `param` is costed on:
    the C kernels, and the assembly twins where the parameter has values of
    their own (`twins`)."""
    if param.keyed == "kernel":
        return list(param.keyed_kernels())
    return [(s, t) for s, t in kernels(param.cipher)
            if SIMD_TARGETS[t].form == "c" and (not param.strategies or s in param.strategies)]


# ---- running it ----------------------------------------------------------------------

# What a cached cost means: bumped whenever this module changes what it
# measures (its own source is not part of source_digest, so that changes to
# the ranking or the table keep the cache).
COST_VERSION = 2
# Sources that do not change what a choice costs.
_NOT_COSTS = ("gen/explore.py", "gen/explore_measure.py", "gen/cli.py", "gen/choices.py")


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


def cache_path(kind, param, chosen, cache_dir=None):
    """Where `kind` ("static", "model") costs of `param` are cached: keyed by
    the generator's sources and the values of the cipher's other parameters."""
    others = {name: value for name, value in chosen.values.items()
              if name != param.name and PARAMETERS[name].cipher == param.cipher}
    digest = hashlib.sha256(json.dumps(others, sort_keys=True).encode()).hexdigest()[:8]
    return Path(cache_dir or ROOT / "build" / "explore") / f"{param.name}-{kind}-{source_digest()}-{digest}.json"


def value_key(value):
    """A value as the key of a JSON object ("2", "true")."""
    return json.dumps(value)


def _cost_value(args):
    """Worker: the static cost of one value of a parameter on every kernel it
    reaches (shapes allocated once per process: `_SEEN` keeps their pressure)."""
    name, value, chosen, wanted = args
    param = PARAMETERS[name]
    chosen = chosen.with_choice(param.assignment(value))
    out = {}
    for strategy, target_name in reached(param):
        if wanted and target_name not in wanted:
            continue
        target = SIMD_TARGETS[target_name]
        try:
            program = PROGRAMS[param.cipher, param.form](strategy, target, chosen)
        except NoLowering as error:     # the target lacks an instruction the value needs
            out[f"{strategy}_{target_name}"] = {"invalid": str(error)}
            continue
        reason = target.assembler.unsupported(program) if target.assembler is not None else None
        if reason:          # the kernel's assembly twin cannot be written: not a value for it
            out[f"{strategy}_{target_name}"] = {"invalid": reason}
            continue
        code = [(n, v) for n, v in chosen.of_kernel(param.cipher, strategy, target).items()
                if n.split(".")[1] in CODE_CHOICES]
        digest = shape(program, code)
        by_kind, constant_bytes = counts(program)
        if digest not in _SEEN:
            _SEEN[digest] = pressure(program, target, chosen.of(f"{param.cipher}.asm_pressure_schedule", strategy,
                                                                target)) if target.assembler is not None else None
        out[f"{strategy}_{target_name}"] = {"shape": digest, "bytes": call_bytes(param.cipher, program),
                                            "ops": by_kind, "constant_bytes": constant_bytes, "spills": _SEEN[digest]}
    return value, out


_SEEN = {}


def _probe_shapes(args):
    """Worker: {kernel: shape} of one value's programs under the parameter's
    probe choices (small programs: one group, few rounds)."""
    name, value, probe, wanted = args
    param = PARAMETERS[name]
    probe = probe.with_choice(param.assignment(value))

    def digest(strategy, target):
        try:
            return shape(PROGRAMS[param.cipher, param.form](strategy, target, probe))
        except NoLowering as error:         # (a class of its own, found invalid in full)
            return f"no lowering: {error}"
    return value, {f"{s}_{t}": digest(s, SIMD_TARGETS[t]) for s, t in reached(param) if not wanted or t in wanted}


def _pooled(worker, name, values, extra, jobs, label, progress):
    """{value: worker((name, value, *extra))}, on `jobs` processes, with a progress bar."""
    out, start = {}, time.monotonic()
    if not values:
        return out
    with multiprocessing.Pool(min(jobs or os.cpu_count(), len(values))) as pool:
        for value, result in pool.imap_unordered(worker, [(name, v, *extra) for v in values],
                                                 chunksize=max(1, len(values) // 200)):
            out[value] = result
            _bar(progress, len(out), len(values), start, label)
    return out


def _probed_costs(param, chosen, values, wanted, jobs, progress):
    """{value: {kernel: cost}} of a large space by classes.  Every value's
    programs are lowered under the parameter's probe choices (small: one
    group, four rounds); per kernel, the values whose probe programs have
    one shape are a class, whose first and last values are lowered in full.
    Where those two cost alike, every other value of the class is costed as
    the first ("costed_as"): the full program repeats the probe's round with
    the same constants, and every rule is local to an op and its operands.
    Where they differ, every value of the class is lowered in full."""
    probe = chosen
    for assignment in param.probe:
        probe = probe.with_choice(assignment)
    classes = {}
    shapes = _pooled(_probe_shapes, param.name, values, (probe, wanted), jobs,
                     f"{param.name} (probe: {', '.join(param.probe)})", progress)
    for value in values:
        for kernel, digest in shapes[value].items():
            classes.setdefault((kernel, digest), []).append(value)
    full = {}

    def lower_in_full(todo):
        full.update(_pooled(_cost_value, param.name, sorted(set(todo) - set(full)), (chosen, wanted), jobs,
                            f"{param.name} (in full)", progress))
    lower_in_full(v for members in classes.values() for v in (members[0], members[-1]))
    lower_in_full(v for (kernel, _), members in classes.items()
                  if full[members[0]][kernel] != full[members[-1]][kernel] for v in members)
    out = {v: {} for v in values}
    for (kernel, _), members in classes.items():
        for v in members:
            out[v][kernel] = full[v][kernel] if v in full else {**full[members[0]][kernel], "costed_as": members[0]}
    return out


def static_costs(param, chosen, targets=(), jobs=None, cache_dir=None, progress=sys.stderr):
    """{value: {kernel: cost}} for every value of `param` on the kernels it
    reaches (those of `targets` alone where given), the other parameters at
    `chosen`'s values; from the cache where it holds them, the rest computed
    on `jobs` processes (default: every core), by classes for a parameter
    with probe choices (_probed_costs)."""
    path = cache_path("static", param, chosen, cache_dir)
    cached = json.loads(path.read_text()) if path.exists() else {}
    values = list(param.values())
    wanted = tuple(targets)
    kernels_ = [f"{s}_{t}" for s, t in reached(param) if not wanted or t in wanted]
    todo = [v for v in values if not all(k in cached.get(value_key(v), {}) for k in kernels_)]
    results = {v: cached.get(value_key(v), {}) for v in values}
    if todo:
        computed = _probed_costs(param, chosen, todo, wanted, jobs, progress) if param.probe else \
            _pooled(_cost_value, param.name, todo, (chosen, wanted), jobs, param.name, progress)
        for value, costs in computed.items():
            results[value] = {**results[value], **costs}
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({value_key(v): c for v, c in results.items()}))
    return {v: {k: results[v][k] for k in kernels_} for v in values}


def kernel_target(kernel):
    """The target name of a kernel named <strategy>_<target>."""
    return kernel.split("_", 1)[1]


def _bar(stream, done, total, start, label, width=30, unit="values"):
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

# Each architecture's llvm-mca CPU models, with the features of the core each
# models (gen/backends: each package's CPU_MODELS).
MODEL_CPUS = {arch.name: {m.name: m.features for m in cpu_models(arch)} for arch in ARCHES}
# The records of harness/mca_model.py that model a kernel's main function.
MODELLED_MODES = ("kernel", "keystream")


def modelled_costs(param, costs, chosen, cache_dir=None, progress=sys.stderr):
    """{kernel: {shape: {cpu: modelled cycles per byte, or None}}}: per kernel,
    each distinct shape's file written with its first value into a copy of
    generated/ and modelled by harness/mca_model.py (llvm-mca 19; it reads the
    C kernel, so an assembly-only choice models as its C twin, and an assembly
    twin's own values are not modelled) on its
    architecture's CPU models (MODEL_CPUS).  A shape is one instruction
    sequence, so every value of it models the same.  Cached like the static costs."""
    path = cache_path("model", param, chosen, cache_dir)
    cached = json.loads(path.read_text()) if path.exists() else {}
    todo = {}
    for value, per_kernel in costs.items():
        for kernel, cost in per_kernel.items():
            if SIMD_TARGETS[kernel_target(kernel)].form != "c":
                continue    # harness/mca_model.py reads C kernels: a twin is ranked by its measurement
            if "invalid" not in cost and cost["shape"] not in cached.get(kernel, {}):
                todo.setdefault((kernel, cost["shape"]), value)
    start = time.monotonic()
    if todo:
        with tempfile.TemporaryDirectory() as work:
            generated = Path(work) / "generated"
            shutil.copytree(ROOT / "generated", generated)
            for done, ((kernel, digest), value) in enumerate(sorted(todo.items()), 1):
                strategy, name = kernel.split("_", 1)
                target = SIMD_TARGETS[name]
                files = kernel_files(param.cipher, strategy, target,
                                     chosen.with_choice(param.assignment(value, param.key(strategy, target))))
                for rel, text in files.items():
                    (generated / rel).parent.mkdir(parents=True, exist_ok=True)
                    (generated / rel).write_text(text)
                cached.setdefault(kernel, {})[digest] = _model(generated, Path(work) / "mca.json", kernel, target)
                _bar(progress, done, len(todo), start, f"{param.name} (llvm-mca on each shape)", unit="shapes")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(cached, indent=1))
    return cached


def _model(generated, out, kernel, target):
    """{cpu: modelled cycles per byte of the kernel's main function, or None}."""
    cpus = MODEL_CPUS[target.arch.name]
    flag = "--arm-cpu" if target.arch.name == "aarch64" else "--cpu"
    out.unlink(missing_ok=True)
    subprocess.run([sys.executable, str(ROOT / "harness" / "mca_model.py"), "--generated", str(generated),
                    "--json", str(out), *(x for cpu in cpus for x in (flag, cpu)), kernel],
                   capture_output=True, text=True)
    records = json.loads(out.read_text()) if out.exists() else []
    per_cpu = {cpu: None for cpu in cpus}
    for rec in records:
        if rec.get("mode") in MODELLED_MODES and rec.get("cpb") is not None and per_cpu.get(rec["cpu_model"]) is None:
            per_cpu[rec["cpu_model"]] = round(rec["cpb"], 3)
    return per_cpu


# ---- ranking -------------------------------------------------------------------------

def dispatched_on(kernel):
    """The CPU models (MODEL_CPUS) that dispatch runs `kernel` on
    (gen/backends.dispatched_on)."""
    return backends.dispatched_on(*kernel.split("_", 1))


def with_model(costs, modelled):
    """The costs, each with the modelled cycles per byte of its shape ("model":
    {cpu: c/B}) and the models that rank it (`ranked_on`); an assembly twin,
    which llvm-mca is not run on (modelled_costs), keeps its static cost."""
    return ranked_on_dispatch({v: {k: cost if "invalid" in cost or k not in modelled
                                   else {**cost, "model": modelled[k][cost["shape"]]}
                                   for k, cost in per.items()} for v, per in costs.items()})


def ranked_on_dispatch(costs):
    """The costs, each modelled one with `ranked_on`: the CPU models whose mean
    ranks it, those that dispatch runs its kernel on (dispatched_on)."""
    return {v: {k: {**cost, "ranked_on": dispatched_on(k)} if "model" in cost else cost for k, cost in per.items()}
            for v, per in costs.items()}


def ranked_cpus(cost):
    """The CPU models of the cost's figures that rank it (`ranked_on`; every
    model where the cost does not say)."""
    return [cpu for cpu in cost.get("model", {}) if cpu in cost.get("ranked_on", cost["model"])]


def modelled_mean(cost):
    """The mean modelled cycles per byte over the CPU models that rank it, or None."""
    modelled = [cost["model"][cpu] for cpu in ranked_cpus(cost) if cost["model"][cpu] is not None]
    return sum(modelled) / len(modelled) if modelled else None


def comparable(cost):
    """Whether the cost was measured (at what the model models, a loop of batches)."""
    return bool(cost.get("measured"))


def ns_per_byte(cost):
    """The measured time per byte.  (Not bench's cycles per byte: each value's
    bench estimates the clock anew, and those estimates differ by more than
    the values do.)"""
    return 8 / cost["measured"]["gbps"]


def cost_key(cost):
    """What ranks values on one kernel, cheapest first: the measured time
    per byte (depth measure; a value not timed on a kernel that was ranks
    after those that were), the modelled cycles per byte (their mean over
    the CPU models; depth model), operations (every kind alike) and spill
    traffic per byte processed (a value may change the batch), constant bytes."""
    measured = ns_per_byte(cost) if cost.get("measured") else (float("inf") if "measured" in cost else 0)
    spills = sum(cost["spills"]) if cost["spills"] else 0
    return (measured, modelled_mean(cost) or 0, sum(cost["ops"].values()) / cost["bytes"], spills / cost["bytes"],
            cost["constant_bytes"])


@dataclass
class Group:
    """Values that cost the same on one kernel."""

    values: list
    cost: dict
    shapes: int          # distinct instruction sequences among them
    inferred: int = 0    # values costed as another value (_probed_costs), not lowered in full

    @property
    def reason(self):
        why = ("one instruction sequence: the programs differ in their constants alone" if self.shapes == 1 else
               f"{self.shapes} instruction sequences with the same counts")
        if self.inferred:
            why += f" ({self.inferred} of them costed as a value whose probe program lowers alike)"
        return why


def rank(costs):
    """Per kernel, its groups of equal cost, cheapest first: {kernel: [Group]}."""
    kernels_ = list(dict.fromkeys(k for per in costs.values() for k in per))
    out = {}
    for kernel in kernels_:
        groups = {}
        for value, per in costs.items():
            cost = per[kernel]
            if "invalid" in cost:
                continue
            key = json.dumps([cost["bytes"], cost["ops"], cost["constant_bytes"], cost["spills"], cost.get("model"),
                              cost.get("measured")], sort_keys=True)
            groups.setdefault(key, []).append((value, cost))
        ranked = [Group(sorted(v for v, _ in members), members[0][1], len({m["shape"] for _, m in members}),
                        sum("costed_as" in m for _, m in members)) for members in groups.values()]
        if ranked:          # (none where every value is invalid for the kernel under the other choices)
            out[kernel] = sorted(ranked, key=lambda g: (cost_key(g.cost), g.values[0]))
    return out


# Measured costs this close to the fastest count as a tie with it: the
# run-to-run spread of one bench cell here (docs/assembly.md: 5-7% on SM4's
# byte-sliced AVX2 kernels, 1-3% on most).  A measured tie keeps the current value.
MEASURE_NOISE = 0.03


def best_value(costs, current=None):
    """The value whose measured, then modelled cycles per byte, then
    operations, spill traffic and constant bytes, summed over kernels as a
    fraction of each kernel's cheapest, are least; `current` where it is
    among those (measured: within MEASURE_NOISE of the fastest), else the
    first; and all that tie."""
    costs = {v: per for v, per in costs.items() if not any("invalid" in c for c in per.values())}
    kernels_ = list(dict.fromkeys(k for per in costs.values() for k in per))
    parts = len(cost_key(next(iter(costs.values()))[kernels_[0]]))
    floor = {k: [min(cost_key(per[k])[i] for per in costs.values()) or 1 for i in range(parts)] for k in kernels_}
    score = {v: tuple(sum(cost_key(per[k])[i] / floor[k][i] for k in kernels_) for i in range(parts))
             for v, per in costs.items()}
    least = min(score.values())
    if least[0] and least[0] != float("inf"):        # measured
        best = [v for v, s in score.items() if s[0] <= least[0] * (1 + MEASURE_NOISE)]
        fastest = min(best, key=score.__getitem__)
    else:
        best = [v for v, s in score.items() if s == least]
        fastest = best[0]
    return (current if current in best else fastest), best


def best_per_key(param, costs, chosen):
    """{key: (best value, the values that tie with it)}: one key for a
    parameter with one value, else each target's or kernel's own best over
    its kernels.  An assembly twin is ranked by its own measurement alone
    (llvm-mca is not run on it): where none was taken, it has no best."""
    current = chosen.values[param.name]
    if param.keyed == "one":
        return {None: best_value(costs, current)}
    out = {}
    for key in current:
        mine = {v: {k: c for k, c in per.items() if _key_of(param, k) == key} for v, per in costs.items()}
        twin = param.keyed == "kernel" and SIMD_TARGETS[kernel_target(key)].form != "c"
        if twin and not any(c.get("measured") for per in mine.values() for c in per.values()):
            continue
        if any(mine.values()):
            out[key] = best_value(mine, current[key])
    return out


def _key_of(param, kernel):
    return kernel_target(kernel) if param.keyed == "target" else kernel


def numbered(param):
    """Whether the parameter's values are numbers of solutions (#415), not quantities."""
    values = param.values()
    return not isinstance(values[0], bool) and tuple(values) == tuple(range(len(values))) and len(values) > 4


def spell(param, value):
    """A value as the tables and rankings write it: #415, 2, true, rolled."""
    if numbered(param):
        return f"#{value}"
    return value if isinstance(value, str) else value_key(value)


def summary(param, ranking, best, depth, machine=""):
    """gen/choices.toml's ranking of `param`: one line, or one per kernel for a
    parameter keyed by kernel.  `best` is best_per_key's."""
    stamp = f"gen explore {param.cipher} --param {param.name.split('.')[1]} --depth {depth}, " \
            f"{time.strftime('%Y-%m-%d')}{f', {machine}' if machine else ''}"
    if param.keyed == "kernel":
        return {kernel: f"{stamp}: {_kernel_line(param, groups, best[kernel])}"
                for kernel, groups in ranking.items() if kernel in best}
    size = len(param.values())
    alike = [k for k, groups in ranking.items() if len(groups) == 1]
    one_shape = [k for k in alike if ranking[k][0].shapes == 1]
    found = (f"all {size} values cost the same on {len(alike)} of {len(ranking)} kernels"
             + (f" ({len(one_shape)} of them one instruction sequence, differing in constants alone)"
                if one_shape else ""))
    inferred = sum(g.inferred for groups in ranking.values() for g in groups)
    if inferred:
        found += (f" ({inferred} of {size * len(ranking)} kernel programs costed as a value whose program under "
                  f"{', '.join(param.probe)} lowers alike)")
    spread = [f"{k}: {len(g)} costs" for k, g in ranking.items() if len(g) > 1]
    chosen = "; ".join(f"{'best' if key is None else key} {spell(param, value)}"
                       + (f" (tied with {len(tied) - 1} more: the first, or the one kept)" if len(tied) > 1 else "")
                       for key, (value, tied) in best.items())
    return f"{stamp}: {found}" + (f"; where they differ: {', '.join(spread)}" if spread else "") + f"; {chosen}"


def verdict(param, best, chosen):
    """One line: the best value of each key ranked, against gen/choices.toml's."""
    parts = []
    for key, (value, tied) in best.items():
        current = chosen.get(param.name, key)
        where = "" if key is None else f"{key} "
        ties = f" (tied with {len(tied) - 1} more)" if len(tied) > 1 else ""
        parts.append(f"{where}{spell(param, value)}{ties}"
                     + ("" if value == current else f" (gen/choices.toml has {spell(param, current)})"))
    return "best: " + "; ".join(parts)


def _kernel_line(param, groups, best):
    value, tied = best
    costs = ", ".join(f"{'/'.join(spell(param, v) for v in g.values)}: {_cost_text(g.cost)}" for g in groups)
    return f"{spell(param, value)}" + (f" (ties with {len(tied) - 1} more)" if len(tied) > 1 else "") + f"; {costs}"


def _cost_text(cost):
    """A group's cost in a few words: measured, else modelled, else static."""
    if cost.get("measured"):
        return f"{cost['measured']['gbps']:.2f} Gbit/s measured"
    if "measured" in cost:
        return "not timed"
    mean = modelled_mean(cost)
    if mean is not None:
        ranked = ranked_cpus(cost)
        return f"{mean:.2f} c/B modelled" + (f" ({', '.join(ranked)})" if len(ranked) < len(cost["model"]) else "")
    return f"{sum(cost['ops'].values()) / cost['bytes']:.1f} ops/B"


def report(param, ranking, chosen):
    """Per kernel: its best and worst value, measured and modelled where
    known, and whether gen/choices.toml's value was the best."""
    rows = [["kernel", "values", "best", "worst", "choices.toml", "is the best"], ["---"] * 6]
    for kernel, groups in ranking.items():
        key = {"one": None, "target": kernel_target(kernel), "kernel": kernel}[param.keyed]
        current = chosen.get(param.name, key)
        rows.append([kernel, str(sum(len(g.values) for g in groups)),
                     f"{_values(param, groups[0].values, len(param.values()))} ({_cost_text(groups[0].cost)})",
                     f"{_values(param, groups[-1].values, len(param.values()))} ({_cost_text(groups[-1].cost)})",
                     spell(param, current), "yes" if current in groups[0].values else "no"])
    return "\n".join("| " + " | ".join(row) + " |" for row in rows)


def table(param, ranking, top):
    """The ranked table: per kernel its cheapest `top` groups of values."""
    modelled = any("model" in g.cost for groups in ranking.values() for g in groups)
    measured = any("measured" in g.cost for groups in ranking.values() for g in groups)
    head = ["kernel", "rank", "values", "bytes/call", *KINDS, "const B", "spill st/ld",
            *(["modelled c/B"] if modelled else []),
            *(["measured"] if measured else []), "why they tie"]
    rows = [head, ["---"] * len(head)]
    total = len(param.values())
    for kernel, groups in ranking.items():
        for number, group in enumerate(groups[:top], 1):
            spills = "/".join(map(str, group.cost["spills"])) if group.cost["spills"] else "n/a"
            rows.append([kernel if number == 1 else "", str(number), _values(param, group.values, total),
                         str(group.cost["bytes"]), *(str(group.cost["ops"][k]) for k in KINDS), str(group.cost["constant_bytes"]), spills,
                         *([_modelled(group.cost)] if modelled else []),
                         *([_cost_text(group.cost) if "measured" in group.cost else ""] if measured else []),
                         group.reason if len(group.values) > 1 else ""])
        if len(groups) > top:
            rows.append(["", f"(+{len(groups) - top} more)"] + [""] * (len(head) - 2))
    return "\n".join("| " + " | ".join(row) + " |" for row in rows)


def _modelled(cost):
    """Modelled c/B per CPU model; those dispatch does not run the kernel on
    (which do not rank it) in brackets."""
    ranked = ranked_cpus(cost)
    text = lambda cpu, v: f"{cpu} {'n/a' if v is None else f'{v:.2f}'}"
    inside = [text(cpu, v) for cpu, v in cost.get("model", {}).items() if cpu in ranked]
    outside = [text(cpu, v) for cpu, v in cost.get("model", {}).items() if cpu not in ranked]
    return ", ".join(inside) + (f" ({', '.join(outside)})" if outside else "") or "n/a"


def _values(param, values, total):
    if len(values) == total and total > 2:
        return f"all {total}"
    if not numbered(param):
        return ", ".join(spell(param, v) for v in values)
    if len(values) == 1:
        return f"#{values[0]}"
    if values == list(range(values[0], values[-1] + 1)):
        return f"#{values[0]}-#{values[-1]}"
    return f"{len(values)}: #{', #'.join(map(str, values[:3]))}, ..."


def plot(ranking, path, title):
    """A PNG: per kernel, every group of values at its operations per call
    relative to the kernel's cheapest (a dot sized by how many values it
    holds); where the depth is model, each group's modelled cycles per byte
    per CPU model; where it is measure, modelled against measured cycles per
    byte of every value timed, per target."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    kernels_ = list(ranking)
    modelled = any("model" in g.cost for groups in ranking.values() for g in groups)
    timed = [(kernel, g) for kernel, groups in ranking.items() for g in groups if comparable(g.cost)]
    panels = 1 + modelled + bool(timed)
    fig, axes = plt.subplots(1, panels, figsize=(6 * panels, 0.35 * len(kernels_) + 2.5), squeeze=False)
    spread = axes[0][0]
    for y, kernel in enumerate(kernels_):
        groups = ranking[kernel]
        floor = min(cost_key(g.cost)[2] for g in groups) or 1
        for g in groups:
            spread.scatter(cost_key(g.cost)[2] / floor, y, s=20 + 200 * len(g.values) ** 0.5 / 45, alpha=0.6,
                           color="tab:blue")
    spread.set_yticks(range(len(kernels_)), kernels_, fontsize=8)
    spread.set_xlabel("operations per byte / the kernel's cheapest value")
    spread.set_title("spread of the static cost (dot area: values)", fontsize=9)
    if modelled:
        model = axes[0][1]
        cpus = sorted({cpu for groups in ranking.values() for g in groups for cpu in g.cost.get("model", {})})
        for index, cpu in enumerate(cpus):
            points = [(g.cost["model"][cpu], y) for y, kernel in enumerate(kernels_) for g in ranking[kernel]
                      if g.cost.get("model", {}).get(cpu) is not None]
            if points:
                model.scatter(*zip(*points), label=cpu, s=18, marker="os^D<>"[index % 6])
        model.set_yticks(range(len(kernels_)), kernels_, fontsize=8)
        model.set_xlabel("modelled cycles per byte (llvm-mca), every group")
        model.set_title("modelled, not measured", fontsize=9)
        if model.get_legend_handles_labels()[0]:
            model.legend(fontsize=7)
    if timed:
        versus = axes[0][panels - 1]
        for index, target in enumerate(sorted({kernel_target(k) for k, _ in timed})):
            points = [(modelled_mean(g.cost), ns_per_byte(g.cost)) for k, g in timed
                      if kernel_target(k) == target and modelled_mean(g.cost) is not None]
            if points:
                versus.scatter(*zip(*points), label=target, s=18, marker="os^D<>v"[index % 7])
        versus.set_xlabel("modelled cycles per byte (mean over the CPU models)")
        versus.set_ylabel("measured ns per byte (this machine)")
        versus.set_title("modelled against measured, every value timed", fontsize=9)
        if versus.get_legend_handles_labels()[0]:
            versus.legend(fontsize=7)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def spearman(pairs):
    """Spearman's rank correlation of [(x, y)] (ties take their mean rank), or
    None for fewer than 3 pairs or a constant side."""
    if len(pairs) < 3:
        return None

    def ranks(values):
        order = sorted(range(len(values)), key=values.__getitem__)
        out = [0.0] * len(values)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
                j += 1
            for k in range(i, j + 1):
                out[order[k]] = (i + j) / 2
            i = j + 1
        return out

    rx, ry = ranks([x for x, _ in pairs]), ranks([y for _, y in pairs])
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx, syy = sum((a - mx) ** 2 for a in rx), sum((b - my) ** 2 for b in ry)
    return sxy / (sxx * syy) ** 0.5 if sxx and syy else None


def correlations(ranking):
    """{target: (Spearman's rho of modelled cycles against measured time per
    byte over every value timed on its kernels, how many)}."""
    per_target = {}
    for kernel, groups in ranking.items():
        for g in groups:
            if comparable(g.cost) and modelled_mean(g.cost) is not None:
                per_target.setdefault(kernel_target(kernel), []).append((modelled_mean(g.cost), ns_per_byte(g.cost)))
    return {target: (spearman(pairs), len(pairs)) for target, pairs in per_target.items()}
