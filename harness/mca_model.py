#!/usr/bin/env python3
"""Modelled cycles per byte of generated SM4, ZUC and uBlock kernels, from llvm-mca,
on x86 and AArch64 CPU models, and of the Linux kernel's AArch64 SM4 as peers.

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

What a kernel's target is comes from generated/targets.json (the target
manifest gen writes from gen/backends, read through harness/target_manifest.py):
its architecture, its compiler flags (those generated/Makefile compiles it
with) and the CPU models of its architecture.

AArch64 kernels (every kernel whose target the manifest places on aarch64)
go the same way with these changes:
  * compiled by aarch64-linux-gnu-gcc -S -O3 with the target's flags (each
    AArch64 target's -march names its own extensions and no more: GCC uses
    what -march allows on its own, e.g. with +sha3 it fuses two EORs into an
    EOR3, which llvm-mca's N1 model refuses);
  * their markers are "// LLVM-MCA-BEGIN" (AArch64's comment) or "#";
    loops close with b, b.<cond> / b<cond>, cbz/cbnz or tbz/tbnz to a local
    label; "#" starts an immediate there, not a comment;
  * modelled with llvm-mca -mtriple=aarch64 on neoverse-n1, neoverse-n2 and
    neoverse-v1 (--arm-cpu), each given the Cryptographic Extension the
    core implements (-mattr: N1 AES/SHA-2 only, N2 and V1 also SHA-3 and
    SM4; the backend's CPU_MODELS, gen/backends/aarch64).  llvm-mca's assembler refuses an instruction
    the core lacks, and the record says "neoverse-n1 lacks sm4: not
    modelled";
  * beside the modelled c/B, the operation-count bound:

        vector ops per byte = FP/ASIMD/crypto instructions per batch (loop
                              body x iterations + rest; loads and stores
                              not counted) / bytes per batch
        bound c/B           = vector ops per byte / vector pipes

    with the cores' FP/ASIMD issue pipes: N1 2 (V0, V1), N2 2 (V0, V1),
    V1 4 (V0-V3, 128-bit ASIMD each).  Sources: the Arm Neoverse N1, N2 and
    V1 Software Optimization Guides' pipeline tables, as LLVM's scheduling
    models restate them (llvm/lib/Target/AArch64/AArch64SchedNeoverseN1.td,
    ...N2.td, ...V1.td: "def V1UnitV0 ... V1UnitV3: FP/ASIMD 0-3", in
    llvm-mca's "Resources" list as N1UnitV0-1, N2UnitV0-1, V1UnitV0-3).
    Every such instruction issues to one pipe for at least one cycle, so
    no schedule beats the bound; modelled / bound says how far a kernel is
    from it.  Also recorded: the busiest-pipe bound, llvm-mca's resource
    pressure on the most loaded vector pipe per byte (higher where some
    instructions can use only some pipes: SM4E and EOR3 run on V0 alone in
    llvm-19's N2 and V1 models).

SM4 CTR (mode "ctr", one more record per SM4 kernel and CPU model): the
kernel's counter form sm4_<name>_batch_ctr, which builds its batch's counter
blocks in registers from V, V + 256 and the batch's first block, encrypts
them and XORs the message into its stores (gen/ir/keystream.py), cut and
modelled as the ECB batch above; the Linux sm4_ce_ctr_enc below also makes
its counters inside its pass.

SM4 GCM (mode "gcm-enc"): the kernel's stitched form sm4_<name>_batch_gcm,
the counter form and GHASH of one batch of blocks (GHASH's chained steps with
PMULL or PCLMULQDQ) in one body (gen/ir/stitch.py), modelled per byte as CTR
is.  GCC inlines it into the loop of sm4_<name>_gcm_xor (it has one caller),
so where the first compile has no such function the file is compiled again
with -fno-inline-functions-called-once -fno-inline-functions (NOT_INLINED;
the record says so in compiler_extra_flags), and a form that then calls a
helper is refused.  GHASH's value passes from batch to batch through memory,
which llvm-mca does not see as a dependency.

SM4 XTS (mode "xts-enc"): the whitened form sm4_<name>_batch_xts (E(in ^ T)
^ T) plus sm4_<name>_xts_ieee_register, the batch's tweaks, which the mode
layer computes once per batch (kc_gf128_modes.h): its straight-line code is
added to the code run once per batch.

The machinery both share (cutting, running llvm-mca, the bound, cycles per
batch) is harness/mca_core.py.

The Linux kernel's SM4 (harness/linux_peers.py, --linux-peers): the 8-block
loops of Linux 6.1's arch/arm64/crypto/sm4-neon-core.S (TBL/TBX S-box:
sm4_neon_crypt_blk8, sm4_neon_ctr_enc_blk8) and sm4-ce-core.S (SM4E:
sm4_ce_crypt, sm4_ce_ctr_enc), unpacked at run time from
/usr/src/linux-source-6.1.tar.xz (never copied into the project), assembled
with small stub headers, disassembled, cut at their loops and modelled by
model_cycles like ours: cycles per 8-block pass (inner round loop x its
count + the rest of the pass), 128 bytes per pass, the same bounds.

Usage:
    python3 harness/mca_model.py [--json build/mca.json] [--cpu icelake-server]
        [--cpu znver3] [--arm-cpu neoverse-n1 ...] [--linux-peers]
        [--work build/linux-peers] [--all] [IMPL ...]
                                           (IMPL: a kernel, <strategy>_<target>,
                                            e.g. byteslice_avx512_gfni,
                                            lanes_avx2_vaes, nibbleslice_avx512,
                                            byteslice_neon_aes; --all, the
                                            default without IMPLs and
                                            --linux-peers: every C kernel of
                                            generated/targets.json)
    --cpu applies to x86 kernels, --arm-cpu to AArch64 kernels and the Linux
    peers; by default each architecture's CPU models in generated/targets.json
    (x86: znver3, znver4, icelake-server; AArch64: neoverse-n1, neoverse-n2,
    neoverse-v1).

Output: a markdown table ("Modelled (llvm-mca-19 <version>), not measured")
on stdout and, with --json, a list of records
{cipher, impl: "ours" (the peers: "linux"), name, strategy, target, mode:
"kernel", "ctr", "gcm-enc" or "xts-enc" (ZUC: "keystream"; peers: "ecb-enc"
or "ctr"), msg_bytes, lanes,
modelled: true, arch, mca, cpu_model, cpb, cycles_per_batch, batch_bytes,
... and on AArch64 vector_ops_per_byte, vector_pipes, bound_cpb,
pipe_bound_cpb, cpb_over_bound}
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
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import linux_peers  # noqa: E402
import target_manifest  # noqa: E402
from mca_core import (AARCH64, ARCHES, ITERATIONS, X86, clean, cut_kernel, find_llvm_mca,  # noqa: E402
                      functions, loops, mca_version, model_cycles)

REPO = target_manifest.REPO


def arch_of_target(target, generated_dir=None):
    """The architecture (mca_core's X86 or AARCH64) of a target, as
    generated/targets.json gives it."""
    return ARCHES[target_manifest.load(generated_dir).arch_of(target)]


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


def target_flags(target, generated_dir):
    """The target's compiler flags (generated/targets.json: the backend's, as
    generated/Makefile compiles its kernels)."""
    return target_manifest.load(generated_dir).cflags(target)


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




def zuc_jobs(name, c_text, asm, arch=X86):
    """The ZUC kernel's one modelled function: [(cut, params, record base)]."""
    strategy, target = split_impl(name)
    params = zuc_kernel_params(c_text, name)
    cut = cut_kernel(asm, function=f"zuc_{name}_keystream_block", arch=arch)
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


def ublock_jobs(name, c_text, asm, arch=X86):
    """Each uBlock variant's encryption function: [(cut, params, base)]."""
    strategy, target = split_impl(name)
    jobs = []
    for index in range(len(UBLOCK_VARIANTS)):
        params = ublock_kernel_params(c_text, name, index)
        cut = cut_kernel(asm, function=params["function"], arch=arch)
        base = {
            "cipher": params["variant"], "impl": "ours", "name": name, "strategy": strategy,
            "target": target, "mode": "kernel", "msg_bytes": params["batch_bytes"],
            "lanes": params["batch_blocks"],
        }
        jobs.append((cut, params, base))
    return jobs


# The SM4 kernels' other batch forms, modelled beside the ECB batch where the
# kernel has them: (record mode, function suffix, what the record's note says).
SM4_FORMS = (
    ("ctr", "_batch_ctr",
     "CTR: {function}, the batch that builds its {blocks} counter blocks in registers and XORs "
     "the message into its stores (gen/ir/keystream.py)"),
    ("gcm-enc", "_batch_gcm",
     "GCM: {function}, the counter form stitched with GHASH of a batch of {blocks} blocks in one "
     "body (gen/ir/stitch.py); the same body serves decryption. GHASH's value goes from one "
     "batch to the next through memory, a dependency llvm-mca does not model (-noalias)"),
    ("xts-enc", "_batch_xts",
     "XTS: {function}, the batch whitened by its tweaks before and after (gen/ir/keystream.py "
     "whiten), plus the batch's {blocks} tweaks ({tweaks}, straight-line, once per batch)"),
)
XTS_TWEAKS = "_xts_ieee_register"  # the IEEE 1619 tweaks of a batch after the first


def with_tweaks(cut, asm, function, arch):
    """The XTS cut with the batch's tweak function added to the code run once
    per batch: the mode layer calls it once per batch before _batch_xts.  It
    must be straight-line (no loop) to be counted once."""
    tweaks = cut_kernel(asm, function=function, arch=arch)
    if tweaks["loop"]:
        raise ValueError(f"{function} has a loop: not modelled as straight-line code")
    return dict(cut, rest=cut["rest"] + tweaks["rest"] + tweaks["body"])


# GCC inlines a form called from one place only (GCM's stitched form, through
# kc_run_gcm_batches, into the loop of _gcm_xor); compiled again with these
# flags it stays a function of its own, the body the loop runs per batch.
NOT_INLINED = ("-fno-inline-functions-called-once", "-fno-inline-functions")


def out_of_line(asm, function, recompile):
    """The assembly that holds `function` out of line: asm, or where the
    compiler inlined it there, recompile(NOT_INLINED)'s.  A function that
    calls another (a helper left out of line) is refused: llvm-mca would not
    count the callee."""
    if any(n == function or n.startswith(function + ".") for n in functions(asm)):
        return asm
    asm = recompile(list(NOT_INLINED))
    lines = next((l for n, l in functions(asm).items()
                  if n == function or n.startswith(function + ".")), [])
    if any(re.match(r"\s+(call|bl)\s", l) for l in lines):
        raise ValueError(f"{function} compiled out of line calls another function: not modelled")
    return asm


def sm4_jobs(name, c_text, asm, generated_dir, arch=X86, recompile=None):
    """The SM4 kernel's batch function (mode "kernel") and, where the kernel
    has them, its counter form (mode "ctr"), GCM's stitched form ("gcm-enc")
    and XTS's whitened form with its tweaks ("xts-enc"): [(cut, params, base)].
    recompile(extra_flags): the kernel's assembly compiled with more flags
    (out_of_line)."""
    strategy, target = split_impl(name)
    sm4_h = os.path.join(generated_dir, "include", "sm4.h")
    sm4_h_text = open(sm4_h, encoding="utf-8").read() if os.path.exists(sm4_h) else None
    params = kernel_params(c_text, name, sm4_h_text)
    base = {
        "cipher": "sm4", "impl": "ours", "name": name, "strategy": strategy,
        "target": target, "mode": "kernel", "msg_bytes": params["batch_blocks"] * 16,
        "lanes": params["batch_blocks"],
    }
    jobs = [(cut_kernel(asm, arch=arch), params, base)]
    for mode, suffix, note in SM4_FORMS:
        function = f"sm4_{name}{suffix}"
        if function_text(c_text, function) is None:
            continue
        form_asm = out_of_line(asm, function, recompile)
        cut = cut_kernel(form_asm, function=function, arch=arch)
        tweaks = f"sm4_{name}{XTS_TWEAKS}"
        if mode == "xts-enc":
            cut = with_tweaks(cut, asm, tweaks, arch)
        text = note.format(function=function, blocks=params["batch_blocks"], tweaks=tweaks)
        extra = {} if form_asm is asm else {"compiler_extra_flags": " ".join(NOT_INLINED)}
        jobs.append((cut, params, dict(base, mode=mode, note=text, **extra)))
    return jobs


def model_impl(name, cpus, generated_dir, cc=None):
    """Records (one per CPU model, and for uBlock per variant) for one kernel
    (SM4 <strategy>_<target>, ZUC lanes_<target>, uBlock register_<target> or
    nibbleslice_<target>).  The target's architecture (generated/targets.json)
    says the instruction set: AArch64 targets are compiled by the AArch64
    cross compiler (cc, default aarch64-linux-gnu-gcc) and modelled on
    AArch64 CPU models, x86 ones by cc (default gcc) on x86 ones; cpus
    should be of that instruction set."""
    _, target = split_impl(name)
    arch = arch_of_target(target, generated_dir)
    cc = cc or arch.cc
    src = os.path.join(generated_dir, "src", source_stem(name) + ".c")
    with open(src, encoding="utf-8") as f:
        c_text = f.read()
    flags = target_flags(target, generated_dir)
    includes = [os.path.join(generated_dir, "include"), os.path.join(generated_dir, "src")]
    asm = compile_to_asm(src, flags, includes, cc)
    if is_zuc(name):
        jobs = zuc_jobs(name, c_text, asm, arch)
    elif is_ublock(name):
        jobs = ublock_jobs(name, c_text, asm, arch)
    else:
        jobs = sm4_jobs(name, c_text, asm, generated_dir, arch,
                        lambda extra: compile_to_asm(src, flags + extra, includes, cc))
    records = []
    for cut, params, base in jobs:
        base.update({
            "modelled": True, "emulated": False, "arch": arch.name,
            "rounds_per_iteration": params["rounds_per_iteration"],
            "loop_kept": cut["loop"], "markers": cut["marked"],
            "marked_regions": cut["regions"], "function": cut["function"],
            "compiler": f"{cc} -O3 {' '.join(flags)}", "mca_iterations": ITERATIONS,
        })
        for cpu in cpus:
            records.append(model_on_cpu(base, cut, params, cpu, flags, cc, arch))
    return records


def model_on_cpu(base, cut, params, cpu, flags, cc, arch=X86):
    """One record: the model on `cpu`, or an error where the CPU model lacks
    the kernel's instructions or llvm-mca refuses.  x86: the compiler says
    which -m features the CPU lacks (llvm-mca would accept the
    instructions); AArch64: llvm-mca's assembler refuses them itself."""
    rec = dict(base, cpu_model=cpu, cpb=None, gbps=None)
    missing = features_missing(cpu, flags, cc) if arch.name == "x86_64" else []
    if missing:
        rec["error"] = f"{cpu} lacks {' '.join(m[2:] for m in missing)}: not modelled"
        return rec
    try:
        rec.update(model_cycles(cut, params, cpu, arch=arch))
    except RuntimeError as e:
        rec["error"] = str(e)
    return rec


def label(rec):
    """A record's kernel as the table names it (uBlock: with its variant; our
    SM4 CTR records: with "ctr", the Linux peers' names say their mode)."""
    cipher = rec.get("cipher", "")
    if cipher.startswith("ublock"):
        return f"{rec['name']} {cipher}"
    if rec.get("impl") == "ours" and rec.get("mode") in ("ctr", "gcm-enc", "xts-enc"):
        return f"{rec['name']} {rec['mode']}"
    return rec["name"]


def fmt(x, digits=2):
    return "–" if x is None else f"{x:.{digits}f}"


def markdown(records, title=None):
    """The records as a markdown table (under `title` when given).  The
    last three columns are AArch64's operation-count bounds (mca_core.op_bound) and
    how far the modelled c/B is from the first; "–" elsewhere."""
    lines = [f"### {title}", ""] if title else []
    lines += ["| kernel | source | c/B (modelled) | cycles / batch | bytes / batch | loop: "
              "cycles / iteration x iterations | rest cycles | bound c/B (vector ops / pipes) | "
              "busiest vector pipe c/B | modelled / bound |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in records:
        source = f"modelled (llvm-mca {r['cpu_model']})"
        if r.get("cpb") is None:
            lines.append(f"| `{label(r)}` | {source} | – | – | {r['msg_bytes']} | "
                         f"{r.get('error', 'failed')} | – | – | – | – |")
            continue
        lines.append(f"| `{label(r)}` | {source} | {r['cpb']:.2f} | {r['cycles_per_batch']:.1f} | "
                     f"{r['batch_bytes']} | {r['loop_cycles_per_iteration']:.1f} x "
                     f"{r['iterations_per_batch']} | {r['rest_cycles']:.1f} | "
                     f"{fmt(r.get('bound_cpb'))} | {fmt(r.get('pipe_bound_cpb'))} | "
                     f"{fmt(r.get('cpb_over_bound'))} |")
    return "\n".join(lines) + "\n"


def cpus_for(name, args):
    """The CPU models a kernel is modelled on: --cpu for x86 targets,
    --arm-cpu for AArch64 ones, by default every CPU model of its
    architecture (generated/targets.json)."""
    arch = arch_of_target(split_impl(name)[1], args.generated).name
    given = args.arm_cpu if arch == "aarch64" else args.cpu
    return given or target_manifest.load(args.generated).models_of(arch)


def every_kernel(generated_dir):
    """Every C kernel of every cipher and architecture, in dispatch order
    (generated/targets.json; an assembly twin's C file holds no kernel loop,
    and the reference none this model reads)."""
    manifest = target_manifest.load(generated_dir)
    return [k["kernel"] for cipher in manifest.data["kernels"] for arch in (a.name for a in ARCHES.values())
            for k in manifest.kernels(cipher, arch)
            if k["target"] in manifest.targets and manifest.targets[k["target"]]["form"] == "c"
            and manifest.targets[k["target"]]["arch"] is not None]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("impls", nargs="*",
                    help="kernel names (<strategy>_<target>, as generated/targets.json lists each "
                         "cipher's); default: every kernel (--all), or none with --linux-peers")
    ap.add_argument("--all", action="store_true", help="every C kernel generated/targets.json lists")
    ap.add_argument("--cpu", action="append",
                    help="llvm-mca -mcpu for x86 kernels (default: the x86 CPU models of generated/targets.json)")
    ap.add_argument("--arm-cpu", action="append",
                    help="llvm-mca -mcpu for AArch64 kernels and the Linux peers "
                         "(default: the AArch64 CPU models of generated/targets.json)")
    ap.add_argument("--linux-peers", action="store_true",
                    help="also model the Linux kernel's SM4 AArch64 loops (harness/linux_peers.py)")
    ap.add_argument("--linux-source", default=None,
                    help="the kernel source tarball (default /usr/src/linux-source-6.1.tar.xz)")
    ap.add_argument("--work", help="where the peers are unpacked and assembled "
                                   "(default build/linux-peers)")
    ap.add_argument("--json", help="write the records here")
    ap.add_argument("--generated", default=target_manifest.GENERATED)
    ap.add_argument("--cc", default=os.environ.get("CC", "gcc"), help="compiler of x86 kernels")
    ap.add_argument("--arm-cc", default=AARCH64.cc, help="compiler of AArch64 kernels and peers")
    args = ap.parse_args(argv)
    if not find_llvm_mca():
        print("mca_model: llvm-mca not found; nothing modelled", file=sys.stderr)
        return 1
    impls = list(args.impls)
    if args.all or not (impls or args.linux_peers):
        impls += every_kernel(args.generated)
    records, failed = [], 0
    for name in impls:
        try:
            arm = arch_of_target(split_impl(name)[1], args.generated).name == "aarch64"
            recs = model_impl(name, cpus_for(name, args), args.generated,
                              args.arm_cc if arm else args.cc)
        except (OSError, ValueError, RuntimeError) as e:
            print(f"mca_model: {name}: {e}", file=sys.stderr)
            failed += 1
            continue
        records.extend(recs)
    if args.linux_peers:
        try:
            records.extend(linux_peers.peer_records(
                args.arm_cpu or target_manifest.load(args.generated).models_of(AARCH64.name),
                args.linux_source or linux_peers.LINUX_TARBALL, args.work, args.arm_cc))
        except (OSError, ValueError, RuntimeError) as e:
            print(f"mca_model: Linux peers: {e}", file=sys.stderr)
            failed += 1
    version = mca_version()
    for r in records:
        r["mca"] = version
        if r.get("error"):
            print(f"mca_model: {label(r)} on {r['cpu_model']}: {r['error']}", file=sys.stderr)
    sys.stdout.write(markdown(records, f"Modelled ({version}), not measured"))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(records, f, indent=1)
            f.write("\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
