#!/usr/bin/env python3
"""Modelled cycles per byte of generated SM4, ZUC and uBlock kernels, from llvm-mca.

A target this CPU may not run natively (or one whose speed on another core is
of interest) gets a *static* estimate: the kernel's C file is compiled to
assembly, the batch function is cut into its round loop and the rest (loads,
transposition in and out, stores), llvm-mca simulates each part on a chosen
CPU model, and

    cycles per batch = loop cycles per iteration x iterations per batch
                       + cycles of the rest of the batch function
    cycles per byte  = cycles per batch / bytes per batch

Where the numbers come from:
  * bytes and rounds: the generated C defines <PREFIX>_BATCH_BLOCKS and
    <PREFIX>_ROUNDS_PER_ITERATION (e.g. SM4_BYTESLICE_AVX512_GFNI_...), and
    SM4_ROUNDS comes from sm4.h; iterations per batch = rounds / rounds per
    iteration.
  * the loop: compiled with -DKC_MCA_MARKERS the kernel marks the body of its
    round loop with "# LLVM-MCA-BEGIN" / "# LLVM-MCA-END" comments.  The
    backward branch enclosing the marks (or inside them, for marks placed
    around the loop) delimits one iteration, counter update and branch
    included (GCC does not unroll partially at -O3 without -funroll-loops).
    If there is no such branch, the compiler unrolled the loop completely and
    the marked span holds every round (one "iteration" per batch).  Without
    markers, the largest backward-branch loop of the function whose name
    ends in "_batch" is taken.
  * the rest: the enclosing function minus the loop body, modelled as
    straight-line code (its transposition dominates).
  * cycles of a snippet: llvm-mca's "Total Cycles" / "Iterations" (which
    includes the latency chains carried from one iteration to the next),
    with -iterations=100.  "Block RThroughput" (the resource bound) is
    recorded beside it.

ZUC kernels (names lanes_<target> and lanesx2_<target>, source
generated/src/zuc_<name>.c) are modelled the same way: ZUC_<NAME>_LANES gives
the lanes per call, and zuc_<name>_keystream_block makes 64 keystream bytes
per lane in 16 rounds, so

    cycles per byte  = cycles per call / (64 x lanes)

The call takes one of two shapes, both modelled: *unrolled*, the marks
enclose the whole body, straight-line code for the 16 rounds (the
function's few instructions outside the marks counted as the "rest"); or
*rolled*, a `for` loop of one round per iteration whose body opens with its
own mark, inside the marks of the whole body: the loop body is modelled and
counted as many times as the `for` says, the rest (state in and out, the
ring's set-up) once.  Each record says which shape was modelled ("shape":
"unrolled" or "rolled", and "rounds" loop iterations per call).
ZUC-128 and ZUC-256 share this kernel; its record is filed under cipher
"zuc256", mode "keystream".

uBlock kernels (names <strategy>_<target> with strategy register or
nibbleslice, source generated/src/ublock_<strategy>_<target>.c) hold every
variant and both directions; each variant's encryption function
ublock_<name>_<variant>_encrypt (one batch) is modelled as the SM4 kernels
are: its marked round loop runs as many times as the `for` loop around the
marks says (the rounds, read from the C), the rest of the function once, and
bytes per batch = batch_blocks[variant] (from the impl's `.batch_blocks`) x
the block size.  One record per variant, cipher "ublock128_128" etc., mode
"kernel".

Usage:
    python3 harness/mca_model.py [--json build/mca.json] [--cpu icelake-server]
        [--cpu znver3] [IMPL ...]          (default: byteslice_avx512_gfni
                                            byteslice_avx2_gfni; e.g. also
                                            lanes_avx512_gfni, nibbleslice_avx512)

Output: a markdown table on stdout and, with --json, a list of records
{cipher, impl: "ours", name, strategy, target, mode: "kernel" (ZUC:
"keystream"), msg_bytes, lanes, modelled: true, cpu_model, cpb,
cycles_per_batch, batch_bytes, ...}
that harness/report.py appends to the benchmark report, labelled
"modelled (llvm-mca <cpu>)".  A CPU model that lacks an instruction the
kernel uses (znver3 has no GFNI or AVX-512; asked of the compiler's
-march tables) yields a record with an "error" and no cpb.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_IMPLS = ("byteslice_avx512_gfni", "byteslice_avx2_gfni")
DEFAULT_CPUS = ("icelake-server", "znver3")
ITERATIONS = 100

# Compiler flags of each target, used when generated/Makefile does not say.
TARGET_FLAGS = {
    "scalar": [],
    "ssse3_aesni": ["-mssse3", "-msse4.1", "-maes", "-mpclmul"],
    "avx2_aesni": ["-mavx2", "-maes", "-mpclmul"],
    "avx2_vaes": ["-mavx2", "-maes", "-mpclmul", "-mvaes", "-mvpclmulqdq"],
    "avx2_gfni": ["-mavx2", "-maes", "-mgfni"],
    "avx512_gfni": ["-mavx512f", "-mavx512bw", "-mavx512vl", "-mavx512dq", "-mgfni"],
    "ssse3": ["-mssse3"],
    "avx2": ["-mavx2"],
    "avx512": ["-mavx512f", "-mavx512bw"],
}

# uBlock: the strategies, and the variants in ublock_variant order with their
# block sizes in bytes.
UBLOCK_STRATEGIES = ("register", "nibbleslice")
ZUC_STRATEGIES = ("lanes", "lanesx2")
UBLOCK_VARIANTS = (("ublock128_128", 16), ("ublock128_256", 16), ("ublock256_256", 32))


# --------------------------------------------------------------------------
# Reading the generated C and its build
# --------------------------------------------------------------------------

def split_impl(name):
    """'byteslice_avx512_gfni' -> ('byteslice', 'avx512_gfni')."""
    strategy, _, target = name.partition("_")
    if not target:
        raise ValueError(f"implementation name {name!r} is not <strategy>_<target>")
    return strategy, target


ZUC_BLOCK_BYTES = 64  # keystream bytes per lane per keystream_block call


def is_zuc(name):
    """ZUC kernels are named lanes_<target> or lanesx2_<target>."""
    return name.partition("_")[0] in ZUC_STRATEGIES


def is_ublock(name):
    """uBlock kernels are named register_<target> or nibbleslice_<target>."""
    return name.partition("_")[0] in UBLOCK_STRATEGIES


def source_stem(name):
    """'byteslice_avx2_gfni' -> 'sm4_byteslice_avx2_gfni', 'lanes_avx2_vaes' ->
    'zuc_lanes_avx2_vaes', 'nibbleslice_avx2' -> 'ublock_nibbleslice_avx2':
    the generated C file's and object's name."""
    prefix = "zuc_" if is_zuc(name) else "ublock_" if is_ublock(name) else "sm4_"
    return prefix + name


def define(macro, text):
    m = re.search(r"^\s*#\s*define\s+" + re.escape(macro) + r"\s+\(?\s*(\d+)", text, re.M)
    return int(m.group(1)) if m else None


ZUC_ROUNDS_PER_BLOCK = ZUC_BLOCK_BYTES // 4  # one 32-bit keystream word per round


def zuc_kernel_params(c_text, name):
    """Lanes per call read from the generated ZUC C (ZUC_LANES_<TARGET>_LANES)
    and the shape of its keystream_block: a dict with lanes, batch_bytes (64
    per lane), rounds (iterations of its marked round loop, 16 when rolled,
    1 when the 16 rounds are straight-line code or the text has no such
    function), rounds_per_iteration and shape ("rolled" or "unrolled").
    zuc_jobs checks the shape against the compiled function's."""
    macro = "ZUC_" + name.upper() + "_LANES"
    lanes = define(macro, c_text)
    if lanes is None:
        raise ValueError(f"{macro} not found in the C file")
    function = f"zuc_{name}_keystream_block"
    loop = marked_loop_count(function_text(c_text, function) or "")
    if ZUC_ROUNDS_PER_BLOCK % loop:
        raise ValueError(f"{function}: a round loop of {loop} iterations does not divide "
                         f"{ZUC_ROUNDS_PER_BLOCK} rounds")
    return {"lanes": lanes, "batch_bytes": ZUC_BLOCK_BYTES * lanes, "rounds": loop,
            "rounds_per_iteration": 1, "shape": "rolled" if loop > 1 else "unrolled"}


def function_text(c_text, function):
    """The C text of `function`, from its signature to the next top-level
    closing brace, or None."""
    m = re.search(r"^[^\n;]*\b" + re.escape(function) + r"\s*\(", c_text, re.M)
    if not m:
        return None
    end = c_text.find("\n}\n", m.start())
    return c_text[m.start():end if end >= 0 else len(c_text)]


MARKED_LOOP = re.compile(r"for\s*\([^;]*=\s*0\s*;\s*\w+\s*<\s*(\d+)\s*;[^)]*\)\s*\{\s*KC_MCA_BEGIN")


def marked_loop_count(func_text):
    """Iterations of the first `for` loop whose body opens with a KC_MCA_BEGIN
    mark (`for (... r = 0; r < N; ...) { KC_MCA_BEGIN(...)`), or 1 when no
    mark opens a loop (straight-line code)."""
    m = MARKED_LOOP.search(func_text)
    return int(m.group(1)) if m else 1


def ublock_kernel_params(c_text, name, variant_index):
    """A uBlock kernel's batch for one variant (the impl's `.batch_blocks =
    { ... }`, in ublock_variant order) and its round loop (the `for` bound
    around the marks of ublock_<name>_<variant>_encrypt): a dict with
    batch_blocks, batch_bytes, rounds (loop iterations per batch) and
    rounds_per_iteration = 1."""
    variant, block_bytes = UBLOCK_VARIANTS[variant_index]
    m = re.search(r"\.batch_blocks\s*=\s*\{([^}]*)\}", c_text)
    if not m:
        raise ValueError(f"no .batch_blocks in the C file of {name}")
    batches = [int(x) for x in m.group(1).split(",") if x.strip()]
    function = f"ublock_{name}_{variant}_encrypt"
    body = function_text(c_text, function)
    if body is None:
        raise ValueError(f"no function {function} in the C file")
    batch = batches[variant_index]
    return {"batch_blocks": batch, "batch_bytes": batch * block_bytes,
            "rounds": marked_loop_count(body), "rounds_per_iteration": 1,
            "function": function, "variant": variant}


def kernel_params(c_text, name, sm4_h_text=None):
    """Batch size and loop shape read from the generated C: a dict with
    batch_blocks, rounds_per_iteration, rounds."""
    prefix = "SM4_" + name.upper()
    batch = define(prefix + "_BATCH_BLOCKS", c_text)
    per_iter = define(prefix + "_ROUNDS_PER_ITERATION", c_text)
    rounds = define("SM4_ROUNDS", sm4_h_text or "") or define("SM4_ROUNDS", c_text) or 32
    if batch is None or per_iter is None:
        raise ValueError(f"{prefix}_BATCH_BLOCKS / _ROUNDS_PER_ITERATION not found in the C file")
    return {"batch_blocks": batch, "rounds_per_iteration": per_iter, "rounds": rounds}


def makefile_flags(makefile_text, name, target):
    """The kernel's flags as generated/Makefile compiles it: a target-specific
    assignment `$(BUILD)/sm4_<name>.o: TARGET_FLAGS = ...` (ZUC:
    zuc_lanes_<target>.o), or a variable
    FLAGS_<target> / CFLAGS_<target> / <target>_FLAGS.  None if absent."""
    patterns = (rf"\b{re.escape(source_stem(name))}\.o\s*:\s*TARGET_FLAGS\s*:?=\s*(.*)$",
                rf"^\s*(?:C?FLAGS|TARGET_FLAGS)_{re.escape(target)}\s*:?=\s*(.*)$",
                rf"^\s*{re.escape(target)}_C?FLAGS\s*:?=\s*(.*)$")
    for pattern in patterns:
        m = re.search(pattern, makefile_text, re.M)
        if m:
            return m.group(1).split()
    return None


def target_flags(name, target, generated_dir):
    path = os.path.join(generated_dir, "Makefile")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            flags = makefile_flags(f.read(), name, target)
        if flags is not None:
            return flags
    if target not in TARGET_FLAGS:
        raise ValueError(f"no compiler flags known for target {target!r}")
    return TARGET_FLAGS[target]


def features_missing(cpu, flags, cc="gcc"):
    """The -m<feature> flags of a kernel that the CPU model lacks, asked of
    the compiler (`cc -march=<cpu> -Q --help=target`).  llvm-mca would give
    such instructions made-up default costs (for znver3's missing GFNI: one
    cycle), so a kernel that needs them is not modelled on that CPU.  An
    empty list when the compiler does not know the CPU."""
    res = subprocess.run([cc, f"-march={cpu}", "-Q", "--help=target"], capture_output=True,
                         text=True)
    if res.returncode != 0:
        return []
    state = {}
    for line in res.stdout.splitlines():
        m = re.match(r"^\s+(-m[\w.-]+)\s+\[(enabled|disabled)\]", line)
        if m:
            state[m.group(1)] = m.group(2) == "enabled"
    return [f for f in flags if f.startswith("-m") and state.get(f) is False]


def compile_to_asm(src, flags, include_dirs, cc="gcc"):
    """Assembly text of src compiled at -O3 with the markers on."""
    cmd = [cc, "-std=c11", "-O3", "-S", "-o", "-", "-DKC_MCA_MARKERS", *flags]
    for d in include_dirs:
        cmd += ["-I", d]
    cmd.append(src)
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{res.stderr}")
    return res.stdout


# --------------------------------------------------------------------------
# Cutting the assembly
# --------------------------------------------------------------------------

FUNC_LABEL = re.compile(r"^([A-Za-z_][\w.$]*):")
LOCAL_LABEL = re.compile(r"^(\.L\w+):")
JUMP = re.compile(r"^\s*(j[a-z]+|loop\w*)\s+(\.L\w+)\s*$")
BEGIN = re.compile(r"#\s*LLVM-MCA-BEGIN\s*(\S*)")
END = re.compile(r"#\s*LLVM-MCA-END")


def is_instruction(line):
    """An instruction line: indented, not a directive or a comment."""
    s = line.strip()
    return bool(s) and line[:1] in " \t" and not s.startswith((".", "#"))


def clean(lines):
    """Instructions and local labels only (what llvm-mca needs)."""
    out = []
    for line in lines:
        if LOCAL_LABEL.match(line):
            out.append(line.strip())
        elif is_instruction(line):
            insn = line.strip().split("#")[0].rstrip()
            if insn.split()[0] not in ("ret", "retq"):  # llvm-mca ignores control flow anyway
                out.append("\t" + insn)
    return out


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


def loops(lines):
    """Every loop of a function: (label index, backward jump index)."""
    labels, found = {}, []
    for i, line in enumerate(lines):
        m = LOCAL_LABEL.match(line)
        if m:
            labels[m.group(1)] = i
            continue
        j = JUMP.match(line)
        if j and j.group(2) in labels:
            found.append((labels[j.group(2)], i))
    return found


def cut_kernel(asm, function=None):
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
      4. no markers: the largest loop of the function named *_batch.

    function: look only at the function of that name (or a clone of it,
    name.isra.0 and the like) rather than the first one with markers.

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
        batch = [n for n in funcs if re.search(r"_batch(\.\w+)*$", n)]
        if not batch:
            raise ValueError("no LLVM-MCA markers and no *_batch function in the assembly")
        name = batch[0]
        chosen = (name, funcs[name], None)
    name, lines, span = chosen
    all_loops = loops(lines)

    def biggest(cands):
        return max(cands, key=lambda l: l[1] - l[0], default=None)

    if span:
        lo, hi, nregions = span
        inner = biggest([l for l in all_loops if lo <= l[0] and l[1] <= hi])
        outer = biggest([l for l in all_loops if l[0] <= lo and hi <= l[1]])
        loop = inner or outer
        body_range = (loop[0], loop[1] + 1) if loop else (lo, hi + 1)
    else:
        nregions = 0
        loop = biggest(all_loops)
        if not loop:
            raise ValueError(f"no markers and no loop in {name}")
        body_range = (loop[0], loop[1] + 1)
    body = clean(lines[body_range[0]:body_range[1]])
    rest = clean(lines[:body_range[0]] + lines[body_range[1]:])
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
    """Assembly text with each (name, lines) pair as one llvm-mca code region."""
    out = []
    for name, lines in regions:
        out.append(f"# LLVM-MCA-BEGIN {name}")
        out.extend(lines)
        out.append(f"# LLVM-MCA-END {name}")
    return "\n".join(out) + "\n"


def run_mca(asm_text, cpu, iterations=ITERATIONS, mca=None):
    """llvm-mca's report for asm_text on cpu; raises RuntimeError with its
    message when it refuses (e.g. an instruction the CPU model lacks)."""
    mca = mca or find_llvm_mca()
    if not mca:
        raise RuntimeError("llvm-mca not found")
    with tempfile.NamedTemporaryFile("w", suffix=".s", delete=False) as f:
        f.write(asm_text)
        path = f.name
    try:
        res = subprocess.run([mca, "-mtriple=x86_64-unknown-linux-gnu", f"-mcpu={cpu}",
                              f"-iterations={iterations}", "-instruction-info=false",
                              "-resource-pressure=false", path],
                             capture_output=True, text=True)
    finally:
        os.unlink(path)
    if res.returncode != 0:
        msg = " ".join(res.stderr.split())
        raise RuntimeError(msg[:300] or f"llvm-mca exited with {res.returncode}")
    return res.stdout


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
    cycles_per_iteration = total_cycles / iterations.
    """
    regions, cur = [], None
    for line in text.splitlines():
        m = re.match(r"^\[\d+\] Code Region(?: - (.*))?$", line.strip())
        if m:
            cur = {"name": (m.group(1) or "").strip() or None}
            regions.append(cur)
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
# The model
# --------------------------------------------------------------------------

def model_cycles(cut, params, cpu, mca_runner=run_mca):
    """Cycles per batch on cpu from a cut kernel (see cut_kernel)."""
    iters = params["rounds"] // params["rounds_per_iteration"] if cut["loop"] else 1
    regions = [("loop_body", cut["body"])]
    if cut["rest"]:
        regions.append(("rest", cut["rest"]))
    report = parse_mca(mca_runner(mca_input(regions), cpu))
    by_name = {r["name"]: r for r in report}
    body, rest = by_name.get("loop_body"), by_name.get("rest")
    if body is None or "cycles_per_iteration" not in body:
        raise RuntimeError("llvm-mca gave no summary for the loop body")
    rest_cycles = rest["cycles_per_iteration"] if rest else 0.0
    cycles = body["cycles_per_iteration"] * iters + rest_cycles
    batch_bytes = params.get("batch_bytes") or params["batch_blocks"] * 16
    return {
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


def zuc_jobs(name, c_text, asm):
    """The ZUC kernel's one modelled function: [(cut, params, record base)]."""
    strategy, target = split_impl(name)
    params = zuc_kernel_params(c_text, name)
    cut = cut_kernel(asm, function=f"zuc_{name}_keystream_block")
    rolled = params["shape"] == "rolled"
    if not cut["marked"] or cut["loop"] != rolled:
        raise ValueError(f"zuc_{name}_keystream_block: the C has a {params['shape']} block, the "
                         f"assembly {'a' if cut['loop'] else 'no'} loop (markers: {cut['marked']})")
    modelled = (f"the round loop ({params['rounds']} iterations) and the rest once" if rolled
                else "the 16 rounds as one straight-line block")
    base = {
        "cipher": "zuc256", "impl": "ours", "name": name, "strategy": strategy,
        "target": target, "mode": "keystream", "msg_bytes": params["batch_bytes"],
        "lanes": params["lanes"], "bytes_per_lane": ZUC_BLOCK_BYTES,
        "shape": params["shape"], "rounds": params["rounds"],
        "note": f"keystream_block kernel, the same for ZUC-128 and ZUC-256; modelled: {modelled}",
    }
    return [(cut, params, base)]


def ublock_jobs(name, c_text, asm):
    """Each uBlock variant's encryption function: [(cut, params, base)]."""
    strategy, target = split_impl(name)
    jobs = []
    for index in range(len(UBLOCK_VARIANTS)):
        params = ublock_kernel_params(c_text, name, index)
        cut = cut_kernel(asm, function=params["function"])
        base = {
            "cipher": params["variant"], "impl": "ours", "name": name, "strategy": strategy,
            "target": target, "mode": "kernel", "msg_bytes": params["batch_bytes"],
            "lanes": params["batch_blocks"],
        }
        jobs.append((cut, params, base))
    return jobs


def sm4_jobs(name, c_text, asm, generated_dir):
    """The SM4 kernel's batch function: [(cut, params, base)]."""
    strategy, target = split_impl(name)
    sm4_h = os.path.join(generated_dir, "include", "sm4.h")
    sm4_h_text = open(sm4_h, encoding="utf-8").read() if os.path.exists(sm4_h) else None
    params = kernel_params(c_text, name, sm4_h_text)
    base = {
        "cipher": "sm4", "impl": "ours", "name": name, "strategy": strategy,
        "target": target, "mode": "kernel", "msg_bytes": params["batch_blocks"] * 16,
        "lanes": params["batch_blocks"],
    }
    return [(cut_kernel(asm), params, base)]


def model_impl(name, cpus, generated_dir, cc="gcc"):
    """Records (one per CPU model, and for uBlock per variant) for one kernel
    (SM4 <strategy>_<target>, ZUC lanes_<target>, uBlock register_<target> or
    nibbleslice_<target>)."""
    _, target = split_impl(name)
    src = os.path.join(generated_dir, "src", source_stem(name) + ".c")
    with open(src, encoding="utf-8") as f:
        c_text = f.read()
    flags = target_flags(name, target, generated_dir)
    asm = compile_to_asm(src, flags, [os.path.join(generated_dir, "include"),
                                      os.path.join(generated_dir, "src")], cc)
    if is_zuc(name):
        jobs = zuc_jobs(name, c_text, asm)
    elif is_ublock(name):
        jobs = ublock_jobs(name, c_text, asm)
    else:
        jobs = sm4_jobs(name, c_text, asm, generated_dir)
    records = []
    for cut, params, base in jobs:
        base.update({
            "modelled": True, "emulated": False,
            "rounds_per_iteration": params["rounds_per_iteration"],
            "loop_kept": cut["loop"], "markers": cut["marked"],
            "marked_regions": cut["regions"], "function": cut["function"],
            "compiler": f"{cc} -O3 {' '.join(flags)}", "mca_iterations": ITERATIONS,
        })
        for cpu in cpus:
            records.append(model_on_cpu(base, cut, params, cpu, flags, cc))
    return records


def model_on_cpu(base, cut, params, cpu, flags, cc):
    """One record: the model on `cpu`, or an error where the CPU model lacks
    the kernel's instructions or llvm-mca refuses."""
    rec = dict(base, cpu_model=cpu, cpb=None, gbps=None)
    missing = features_missing(cpu, flags, cc)
    if missing:
        rec["error"] = f"{cpu} lacks {' '.join(m[2:] for m in missing)}: not modelled"
        return rec
    try:
        rec.update(model_cycles(cut, params, cpu))
    except RuntimeError as e:
        rec["error"] = str(e)
    return rec


def label(rec):
    """A record's kernel as the table names it (uBlock: with its variant)."""
    cipher = rec.get("cipher", "")
    return f"{rec['name']} {cipher}" if cipher.startswith("ublock") else rec["name"]


def markdown(records):
    lines = ["| kernel | source | c/B (modelled) | cycles / batch | bytes / batch | loop: "
             "cycles / iteration x iterations | rest cycles |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for r in records:
        source = f"modelled (llvm-mca {r['cpu_model']})"
        if r.get("cpb") is None:
            lines.append(f"| `{label(r)}` | {source} | – | – | {r['msg_bytes']} | "
                         f"{r.get('error', 'failed')} | – |")
            continue
        lines.append(f"| `{label(r)}` | {source} | {r['cpb']:.2f} | {r['cycles_per_batch']:.1f} | "
                     f"{r['batch_bytes']} | {r['loop_cycles_per_iteration']:.1f} x "
                     f"{r['iterations_per_batch']} | {r['rest_cycles']:.1f} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("impls", nargs="*", default=list(DEFAULT_IMPLS),
                    help="kernel names, e.g. byteslice_avx512_gfni, lanes_avx512_gfni (ZUC), "
                         "nibbleslice_avx512 (uBlock)")
    ap.add_argument("--cpu", action="append", help=f"llvm-mca -mcpu (default: {DEFAULT_CPUS})")
    ap.add_argument("--json", help="write the records here")
    ap.add_argument("--generated", default=os.path.join(REPO, "generated"))
    ap.add_argument("--cc", default=os.environ.get("CC", "gcc"))
    args = ap.parse_args(argv)
    cpus = args.cpu or list(DEFAULT_CPUS)
    if not find_llvm_mca():
        print("mca_model: llvm-mca not found; nothing modelled", file=sys.stderr)
        return 1
    records, failed = [], 0
    for name in args.impls or DEFAULT_IMPLS:
        try:
            recs = model_impl(name, cpus, args.generated, args.cc)
        except (OSError, ValueError, RuntimeError) as e:
            print(f"mca_model: {name}: {e}", file=sys.stderr)
            failed += 1
            continue
        for r in recs:
            if r.get("error"):
                print(f"mca_model: {name} on {r['cpu_model']}: {r['error']}", file=sys.stderr)
        records.extend(recs)
    sys.stdout.write(markdown(records))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(records, f, indent=1)
            f.write("\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
