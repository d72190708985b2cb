"""The llvm-mca machinery that harness/mca_model.py (our kernels) and
harness/linux_peers.py (the Linux kernel's AArch64 SM4) share: what differs
between the instruction sets read, cutting a function's assembly into its
loop body and the rest, running llvm-mca on a CPU model, parsing its report,
the AArch64 operation-count bound, and cycles per batch from a cut
(model_cycles).  mca_model.py's docstring describes the model."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass

import target_manifest

ITERATIONS = 100


# --------------------------------------------------------------------------
# Architectures
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class Arch:
    """What differs between the instruction sets the model reads: the
    compiler, llvm-mca's triple, the assembler's comment and the branches
    that close a loop.  (Each architecture's CPU models, and the features
    each is given, are the backend's: generated/targets.json.)"""
    name: str
    cc: str
    triple: str
    comment: str       # starts a comment to the end of the line
    jump: re.Pattern   # a branch to a local label; the label is group "target"


X86 = Arch("x86_64", "gcc", "x86_64-unknown-linux-gnu", "#",
           re.compile(r"^\s*(?:j[a-z]+|loop\w*)\s+(?P<target>\.L\w+)\s*$"))

# b / b.<cond> (GCC writes bne, binutils b.ne), cbz/cbnz <reg>, tbz/tbnz
# <reg>, #<bit>: each to a local label.  Not bl (a call).
AARCH64_JUMP = re.compile(r"^\s*(?:b|b\.?(?:eq|ne|cs|hs|cc|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le)"
                          r"|cbn?z|tbn?z)\s+(?:[^,]+,\s*)*(?P<target>\.L\w+)\s*$")

AARCH64 = Arch("aarch64", "aarch64-linux-gnu-gcc", "aarch64", "//", AARCH64_JUMP)
ARCHES = {arch.name: arch for arch in (X86, AARCH64)}

# FP/ASIMD issue pipes of each core, for the operation-count bound (see the
# module docstring): the Software Optimization Guides' V0-V1 (N1, N2) and
# V0-V3 (V1); llvm-19's models name the same units (N1UnitV0..1,
# N2UnitV0..1, V1UnitV0..3), which tests/test_mca_model.py checks.
VECTOR_PIPES = {"neoverse-n1": 2, "neoverse-n2": 2, "neoverse-v1": 4}


# --------------------------------------------------------------------------
# Cutting the assembly
# --------------------------------------------------------------------------

FUNC_LABEL = re.compile(r"^([A-Za-z_][\w.$]*):")
LOCAL_LABEL = re.compile(r"^(\.L\w+):")
# The kernels' markers: "#" on x86, and on AArch64 "//" (its comment) or "#"
# (a line comment there too).
BEGIN = re.compile(r"(?:#|//)\s*LLVM-MCA-BEGIN\s*(\S*)")
END = re.compile(r"(?:#|//)\s*LLVM-MCA-END")


def is_instruction(line):
    """An instruction line: indented, not a directive or a comment."""
    s = line.strip()
    return bool(s) and line[:1] in " \t" and not s.startswith((".", "#", "//"))


def clean(lines, arch=X86):
    """Instructions and local labels only (what llvm-mca needs), comments
    cut off (AArch64's "#" starts an immediate, not a comment)."""
    out = []
    for line in lines:
        if LOCAL_LABEL.match(line):
            out.append(line.strip())
        elif is_instruction(line):
            insn = line.strip().split(arch.comment)[0].rstrip()
            if arch.name == "aarch64":
                insn = aarch64_for_llvm(insn)
            if insn.split()[0] not in ("ret", "retq"):  # llvm-mca ignores control flow anyway
                out.append("\t" + insn)
    return out


BYTE_MOVI = re.compile(r"^(movi\s+v\d+\.(?:8|16)b,\s*)(0x[0-9a-fA-F]+|-?\d+)$")


def aarch64_for_llvm(insn):
    """GCC's AArch64 text where LLVM's assembler reads it otherwise: GCC
    writes a byte MOVI of a value with bit 7 set as the sign-extended 64-bit
    number (`movi v2.16b, 0xfffffffffffffff0`), which GNU as takes and
    LLVM refuses; the byte is the low 8 bits."""
    m = BYTE_MOVI.match(insn)
    if m:
        value = int(m.group(2), 0)
        if not 0 <= value <= 255:
            return f"{m.group(1)}{value & 0xff:#x}"
    return insn


def functions(asm):
    """name -> list of lines of each function (from its label to .size /
    .cfi_endproc), in order."""
    funcs, name, body = {}, None, []
    for line in asm.splitlines():
        m = FUNC_LABEL.match(line)
        if m and not line.startswith(".L"):
            name, body = m.group(1), []
            funcs[name] = body
            continue
        if name is None:
            continue
        if line.strip().startswith((".cfi_endproc", ".size")):
            name = None
            continue
        body.append(line)
    return funcs


def marked_span(func_lines):
    """(first BEGIN, last END, number of regions) of the LLVM-MCA regions in
    a function, or None.  A loop the compiler unrolled completely repeats
    its marked body once per iteration, hence the first-to-last span."""
    begins = [i for i, line in enumerate(func_lines) if BEGIN.search(line)]
    ends = [i for i, line in enumerate(func_lines) if END.search(line)]
    if not begins or not ends or ends[-1] < begins[0]:
        return None
    return begins[0], ends[-1], len(begins)


def loops(lines, arch=X86):
    """Every loop of a function: (label index, backward branch index)."""
    labels, found = {}, []
    for i, line in enumerate(lines):
        m = LOCAL_LABEL.match(line)
        if m:
            labels[m.group(1)] = i
            continue
        j = arch.jump.match(line)
        if j and j.group("target") in labels:
            found.append((labels[j.group("target")], i))
    return found


def biggest_loop(cands):
    """The loop of most lines among (label index, branch index) pairs, or None."""
    return max(cands, key=lambda l: l[1] - l[0], default=None)


def cut_kernel(asm, function=None, arch=X86):
    """Finds the batch function and splits it into the code run once per
    iteration of the round loop (`body`) and the rest.

    The kernels mark the *inside* of their round loop (KC_MCA_BEGIN/END at
    the top and bottom of the loop body); markers around the whole loop are
    understood too.  Cases, in order:
      1. a loop inside the marked span: that loop is the body (markers
         around the loop);
      2. a loop enclosing the marked span: that loop, label to backward
         branch, is the body (markers inside the loop; counter update and
         branch included);
      3. no loop: the compiler unrolled it completely, the span holds every
         round, and it runs once per batch;
      4. no markers: the largest loop of the function named *_batch (or
         of `function`), or the whole function where it has no loop (every
         round unrolled).

    function: look only at the function of that name (or a clone of it,
    name.isra.0 and the like) rather than the first one with markers.
    arch: the instruction set (X86 or AARCH64): its branches and comments.

    Returns a dict: function, body and rest (instruction lines), loop (True
    when the body runs rounds/rounds_per_iteration times per batch), marked
    (True if markers were found), regions (how many marked regions).
    """
    funcs = functions(asm)
    if function is not None:
        funcs = {n: l for n, l in funcs.items() if n == function or n.startswith(function + ".")}
        if not funcs:
            raise ValueError(f"no function {function} in the assembly")
    chosen = None
    for name, lines in funcs.items():
        span = marked_span(lines)
        if span:
            chosen = (name, lines, span)
            break
    if chosen is None:
        # The named function itself, else the first *_batch one.
        batch = [n for n in funcs if function is not None or re.search(r"_batch(\.\w+)*$", n)]
        if not batch:
            raise ValueError("no LLVM-MCA markers and no *_batch function in the assembly")
        name = batch[0]
        chosen = (name, funcs[name], None)
    name, lines, span = chosen
    all_loops = loops(lines, arch)
    biggest = biggest_loop
    if span:
        lo, hi, nregions = span
        inner = biggest([l for l in all_loops if lo <= l[0] and l[1] <= hi])
        outer = biggest([l for l in all_loops if l[0] <= lo and hi <= l[1]])
        loop = inner or outer
        body_range = (loop[0], loop[1] + 1) if loop else (lo, hi + 1)
    else:
        nregions = 0
        loop = biggest(all_loops)
        # No loop at all: the compiler unrolled every round (a kernel whose
        # one pass is all its rounds, like SM4's rounds4): the whole function.
        body_range = (loop[0], loop[1] + 1) if loop else (0, len(lines))
    body = clean(lines[body_range[0]:body_range[1]], arch)
    rest = clean(lines[:body_range[0]] + lines[body_range[1]:], arch)
    # Labels the rest no longer defines are harmless to llvm-mca.
    return {"function": name, "body": body, "rest": rest, "loop": bool(loop),
            "marked": span is not None, "regions": nregions}


# --------------------------------------------------------------------------
# llvm-mca
# --------------------------------------------------------------------------

def find_llvm_mca():
    """The newest llvm-mca installed: llvm-19's has real models of znver3/4 and
    of the Neoverse cores, bookworm's default (14) does not."""
    for exe in ("llvm-mca-19", "llvm-mca-18", "llvm-mca-17", "llvm-mca-16", "llvm-mca-15",
                "llvm-mca-14", "llvm-mca"):
        path = shutil.which(exe)
        if path:
            return path
    return None


def mca_input(regions):
    """Assembly text with each (name, lines) pair as one llvm-mca code region.
    The markers are "#" comments for every triple: llvm-19 finds regions in
    "#" comments on AArch64 too, and ignores "//" ones."""
    out = []
    for name, lines in regions:
        out.append(f"# LLVM-MCA-BEGIN {name}")
        out.extend(lines)
        out.append(f"# LLVM-MCA-END {name}")
    return "\n".join(out) + "\n"


def mca_command(mca, cpu, path, iterations=ITERATIONS, arch=X86):
    """llvm-mca's command line.  The CPU model gets the features the core has
    beyond LLVM's definition of it (the backend's -mattr, from
    generated/targets.json: the Neoverse cores' Cryptographic Extension);
    on AArch64 the resource pressure is kept: the operation-count bound
    reads the vector pipes from it."""
    cmd = [mca, f"-mtriple={arch.triple}", f"-mcpu={cpu}", f"-iterations={iterations}",
           "-instruction-info=false"]
    mattr = target_manifest.load().mattr(cpu)
    if mattr:
        cmd.append(f"-mattr={mattr}")
    if arch.name == "x86_64":
        cmd.append("-resource-pressure=false")
    return cmd + [path]


def refusal(stderr, cpu):
    """llvm-mca's refusal in a line: the features the CPU model lacks
    ("neoverse-n1 lacks sm4: not modelled") when its assembler names them,
    else the start of its message."""
    lacking = sorted(set(re.findall(r"instruction requires: ([\w. ]+?)\s*$", stderr, re.M)))
    if lacking:
        return f"{cpu} lacks {', '.join(lacking)}: not modelled"
    return " ".join(stderr.split())[:300]


def run_mca(asm_text, cpu, iterations=ITERATIONS, mca=None, arch=X86):
    """llvm-mca's report for asm_text on cpu; raises RuntimeError with its
    message when it refuses (e.g. an instruction the CPU model lacks)."""
    mca = mca or find_llvm_mca()
    if not mca:
        raise RuntimeError("llvm-mca not found")
    with tempfile.NamedTemporaryFile("w", suffix=".s", delete=False) as f:
        f.write(asm_text)
        path = f.name
    try:
        res = subprocess.run(mca_command(mca, cpu, path, iterations, arch),
                             capture_output=True, text=True)
    finally:
        os.unlink(path)
    if res.returncode != 0:
        raise RuntimeError(refusal(res.stderr, cpu) or f"llvm-mca exited with {res.returncode}")
    return res.stdout


def mca_version(mca=None):
    """'llvm-mca-19 19.1.7' (the program and its LLVM version), or None."""
    mca = mca or find_llvm_mca()
    if not mca:
        return None
    res = subprocess.run([mca, "--version"], capture_output=True, text=True)
    m = re.search(r"LLVM version (\S+)", res.stdout)
    return f"{os.path.basename(mca)} {m.group(1)}" if m else os.path.basename(mca)


SUMMARY_FIELDS = {
    "Iterations": ("iterations", int),
    "Instructions": ("instructions", int),
    "Total Cycles": ("total_cycles", int),
    "Total uOps": ("total_uops", int),
    "Dispatch Width": ("dispatch_width", int),
    "uOps Per Cycle": ("uops_per_cycle", float),
    "IPC": ("ipc", float),
    "Block RThroughput": ("block_rthroughput", float),
}


def parse_mca(text):
    """The summary of each code region in an llvm-mca report.

    Returns a list of dicts (in order) with name (None for an unnamed single
    region), iterations, instructions, total_cycles, total_uops,
    dispatch_width, uops_per_cycle, ipc, block_rthroughput, and
    cycles_per_iteration = total_cycles / iterations; where the report has
    its resource pressure, also pressure: {unit name: cycles per iteration}
    (e.g. {"N1UnitV0": 10.0, ...}).
    """
    regions, cur, units, want_pressure = [], None, {}, False
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"^\[\d+\] Code Region(?: - (.*))?$", line.strip())
        if m:
            cur = {"name": (m.group(1) or "").strip() or None}
            regions.append(cur)
            units = {}
            continue
        m = re.match(r"^\[([\d.]+)\]\s+-\s+(\S+)\s*$", line.strip())
        if m:  # "Resources:" list: [index] - unit name
            units[m.group(1)] = m.group(2)
            continue
        if line.strip() == "Resource pressure per iteration:":
            want_pressure = True
            continue
        if want_pressure and line.strip().startswith("[") and i + 1 < len(lines):
            want_pressure = False
            ids = re.findall(r"\[([\d.]+)\]", line)
            values = lines[i + 1].split()
            if cur is not None and len(values) == len(ids):
                cur["pressure"] = {units.get(k, k): 0.0 if v == "-" else float(v)
                                   for k, v in zip(ids, values)}
            continue
        m = re.match(r"^([A-Za-z][A-Za-z ]*?):\s+([\d.]+)\s*$", line.strip())
        if m and m.group(1) in SUMMARY_FIELDS:
            if cur is None:  # a report without region headers
                cur = {"name": None}
                regions.append(cur)
            key, conv = SUMMARY_FIELDS[m.group(1)]
            if key not in cur:  # the first summary block of the region
                cur[key] = conv(m.group(2))
    for r in regions:
        if r.get("iterations") and "total_cycles" in r:
            r["cycles_per_iteration"] = r["total_cycles"] / r["iterations"]
    return regions


# --------------------------------------------------------------------------
# The operation-count bound (AArch64)
# --------------------------------------------------------------------------

VECTOR_REGISTER = re.compile(r"\b(?:[vz]\d+\.|[bhsdqvz]\d+\b)")
VECTOR_UNIT = re.compile(r"UnitV\d+$")


def is_vector_op(line):
    """An AArch64 instruction that works on the FP/ASIMD registers (ASIMD,
    crypto, moves between them and the general registers: all issue to the
    vector pipes).  Loads and stores are not counted: they issue to the
    load/store pipes (their store data also takes a vector pipe on these
    cores, which the busiest-pipe bound sees)."""
    parts = line.split(None, 1)
    if len(parts) < 2 or line.rstrip().endswith(":"):
        return False
    mnemonic, operands = parts
    if mnemonic.startswith(("ld", "st", "prfm")):
        return False
    return bool(VECTOR_REGISTER.search(operands))


def vector_ops(lines):
    return sum(1 for line in lines if is_vector_op(line))


def vector_pipes(cpu, region=None):
    """The core's FP/ASIMD pipes: the table VECTOR_PIPES, or for a CPU not in
    it the vector units of its llvm-mca model (*UnitV<n>)."""
    if cpu in VECTOR_PIPES:
        return VECTOR_PIPES[cpu]
    units = [u for u in (region or {}).get("pressure", {}) if VECTOR_UNIT.search(u)]
    return len(units) or None


def op_bound(cut, iters, batch_bytes, cpu, body, rest):
    """The operation-count bound of a batch on cpu:

        vector ops per byte = (vector ops of the loop body x iterations
                               + those of the rest) / bytes per batch
        bound c/B           = vector ops per byte / the core's vector pipes

    (every vector op issues to one of the pipes, one per pipe per cycle),
    and the busiest-pipe bound: per vector unit, llvm-mca's pressure of the
    body x iterations + the rest's, the largest over bytes per batch (where
    an instruction can only use some pipes, e.g. SM4E V0 alone in llvm-19's
    N2 and V1 models, this one is the higher)."""
    ops = vector_ops(cut["body"]) * iters + vector_ops(cut["rest"])
    pipes = vector_pipes(cpu, body)
    out = {"vector_ops_per_batch": ops, "vector_ops_per_byte": ops / batch_bytes,
           "vector_pipes": pipes, "bound_cpb": ops / batch_bytes / pipes if pipes else None,
           "pipe_bound_cpb": None}
    body_p, rest_p = body.get("pressure", {}), (rest or {}).get("pressure", {})
    units = [u for u in body_p if VECTOR_UNIT.search(u)]
    if units:
        per_batch = {u: body_p[u] * iters + rest_p.get(u, 0.0) for u in units}
        out["vector_pressure_per_batch"] = per_batch
        out["pipe_bound_cpb"] = max(per_batch.values()) / batch_bytes
    return out


# --------------------------------------------------------------------------
# The model
# --------------------------------------------------------------------------

def model_cycles(cut, params, cpu, mca_runner=None, arch=X86):
    """Cycles per batch on cpu from a cut kernel (see cut_kernel); on AArch64
    also the operation-count bound (op_bound) and the modelled c/B over it.
    mca_runner(text, cpu) gives llvm-mca's report (default: run_mca for
    arch)."""
    runner = mca_runner or (lambda text, c: run_mca(text, c, arch=arch))
    iters = params["rounds"] // params["rounds_per_iteration"] if cut["loop"] else 1
    regions = [("loop_body", cut["body"])]
    if cut["rest"]:
        regions.append(("rest", cut["rest"]))
    report = parse_mca(runner(mca_input(regions), cpu))
    by_name = {r["name"]: r for r in report}
    body, rest = by_name.get("loop_body"), by_name.get("rest")
    if body is None or "cycles_per_iteration" not in body:
        raise RuntimeError("llvm-mca gave no summary for the loop body")
    rest_cycles = rest["cycles_per_iteration"] if rest else 0.0
    cycles = body["cycles_per_iteration"] * iters + rest_cycles
    batch_bytes = params.get("batch_bytes") or params["batch_blocks"] * 16
    out = {
        "cycles_per_batch": cycles,
        "batch_bytes": batch_bytes,
        "cpb": cycles / batch_bytes,
        "loop_cycles_per_iteration": body["cycles_per_iteration"],
        "loop_block_rthroughput": body.get("block_rthroughput"),
        "loop_instructions": len([l for l in cut["body"] if not l.endswith(":")]),
        "iterations_per_batch": iters,
        "rest_cycles": rest_cycles,
        "rest_block_rthroughput": rest.get("block_rthroughput") if rest else None,
    }
    if arch.name == "aarch64":
        out.update(op_bound(cut, iters, batch_bytes, cpu, body, rest))
        if out["bound_cpb"]:
            out["cpb_over_bound"] = out["cpb"] / out["bound_cpb"]
    return out
