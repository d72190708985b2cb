#!/usr/bin/env python3
"""The ABI check of the assembly kernels: every entry point of every
assembly twin (generated/src/*_asm.S) of one architecture called through a
trampoline (harness/abi/<arch>_trampoline.S) that fills the callee-saved
registers with random values first, and fails if any of them is not
restored:
  * x86-64 (System V): rbx, rbp, r12-r15; also fails if the direction flag
    is set on return, or if the upper YMM state (XINUSE bit 2, or bit 6 for
    ZMM0-15's upper halves) is left dirty;
  * AArch64 (AAPCS64): x19-x29 and d8-d15 (v8-v15's low halves); also fails
    if SP moved.  Built statically with the cross compiler and run under
    qemu-user here (`make verify-aarch64`).

The entry points come from the generator itself (each kernel file's
functions as gen/emit/bodies.py names them, with their programs'
parameters), so a new kernel or target is checked without a list here.
Entry points whose target this CPU lacks are reported as skipped.

Usage: python3 harness/abi_check.py [--arch x86_64|aarch64] [--lib build/lib/libkcrypt.a]
       [--work build/abi] [--cc CC] [--run "qemu-aarch64 ... -cpu max"]
       [--extra FILE.S]   (tests: a further assembly file whose global
                           functions `abi_extra_<n>_<nargs>` are checked too)
"""

import argparse
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, REPO)

from gen.backends import SIMD_TARGETS, cpu_features  # noqa: E402
from gen.backends.arch import AARCH64, X86_64  # noqa: E402
from gen.cli import emitted_files, emitted_functions, kernel_emitters  # noqa: E402
from gen import choices  # noqa: E402

BUFFER_BYTES = 256 * 1024
TRIALS = 3


def entry_points(arch):
    """(symbol, argument count, bitmask of pointer-array arguments, C feature
    check) of every assembly kernel function of `arch`, in generated/'s order."""
    found = []
    for cipher in kernel_emitters(choices.load()):
        for strategy, name in emitted_files(cipher):
            target = SIMD_TARGETS[name]
            if target.form != "asm" or target.arch != arch:
                continue
            check = cpu_features.cpu_check(target.cpu_features, target.arch)
            kernel = emitted_functions(cipher, strategy, target, choices.load())[0][0]
            for symbol, program in kernel.functions:
                rows = {s.attrs["param"] for s in program.walk() if hasattr(s, "attrs") and "row" in s.attrs}
                mask = sum(1 << i for i, p in enumerate(program.params) if p in rows)
                found.append((symbol, len(program.params), mask, check))
    return found


def extra_entry_points(path):
    """abi_extra_<n>_<nargs> functions of a test's own assembly file."""
    names = re.findall(r"^\s*\.globl\s+(abi_extra_\w+_(\d+))\s*$", open(path).read(), re.M)
    return [(name, int(nargs), 0, "1") for name, nargs in names]


@dataclass(frozen=True)
class Abi:
    """One architecture's side of the check: its trampoline (harness/abi/),
    the callee-saved registers it fills, and the further rules it checks."""

    arch: object
    trampoline: str
    call: str                # the trampoline's symbol
    arguments: int           # argument registers it loads
    saved: tuple             # callee-saved registers, in the order it fills them
    after: int               # words it writes back
    prelude: str = ""        # C before main
    setup: str = ""          # C at the start of main
    fill: str = ""           # C after the registers' values are chosen (fill[])
    checks: str = ""         # C after the call (after[], bad)


ABIS = {
    "x86_64": Abi(
        X86_64, "x86_64_trampoline.S", "kc_abi_call_x86_64", 6, ("rbx", "rbp", "r12", "r13", "r14", "r15"), 8,
        prelude="""#include <cpuid.h>

/* XINUSE is readable (XGETBV with ECX = 1) and VZEROUPPER exists. */
static int xinuse_readable(void)
{
    unsigned a, b, c, d;
    if (!__builtin_cpu_supports("avx") || !__get_cpuid_count(13, 1, &a, &b, &c, &d)) return 0;
    return (a >> 2) & 1;
}
""",
        setup="""    const int xinuse = xinuse_readable();
    if (!xinuse) printf("abi-check: XINUSE is not readable on this CPU: the upper YMM state is not checked\\n");
""",
        fill="            fill[6] = (uint64_t)xinuse;\n",
        checks="""            if (after[6] >> 10 & 1) { printf("FAIL %s: returns with the direction flag set\\n", x->name); bad = 1; }
            if (after[7] & 0x44) {
                printf("FAIL %s: returns with upper YMM/ZMM state dirty (XINUSE 0x%llx): no VZEROUPPER\\n",
                       x->name, (unsigned long long)after[7]);
                bad = 1;
            }
"""),
    "aarch64": Abi(
        AARCH64, "aarch64_trampoline.S", "kc_abi_call_aarch64", 8,
        tuple(f"x{i}" for i in range(19, 30)) + tuple(f"d{i}" for i in range(8, 16)), 20,
        checks="""            if (after[19] != 0) {
                printf("FAIL %s: returns with SP moved by %lld bytes\\n", x->name, (long long)after[19]);
                bad = 1;
            }
"""),
}


def driver(entries, abi):
    decls = "\n".join(f"void {symbol}(void);" for symbol, *_ in entries)
    checks = list(dict.fromkeys(check for *_, check in entries))
    supported = "\n".join(f"static int supported_{i}(void) {{ return {check}; }}" for i, check in enumerate(checks))
    rows = ",\n".join(f'    {{"{symbol}", {symbol}, {nargs}, {mask}u, supported_{checks.index(check)}}}'
                      for symbol, nargs, mask, check in entries)
    n, saved = abi.arguments, len(abi.saved)
    names = ", ".join(f'"{r}"' for r in abi.saved)
    return f"""/* Generated by harness/abi_check.py: the ABI check's driver ({abi.arch.name}). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kc_cpu.h"
{abi.prelude}
void {abi.call}(void (*fn)(void), const uint64_t args[{n}], const uint64_t fill[], uint64_t after[{abi.after}]);
{decls}
{supported}

struct entry {{ const char *name; void (*fn)(void); int nargs; unsigned rows; int (*supported)(void); }};
static const struct entry entries[] = {{
{rows}
}};

static const char *const saved[{saved}] = {{{names}}};

static uint64_t next_random(uint64_t *s)
{{
    *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17;
    return *s;
}}

int main(void)
{{
{abi.setup}    uint8_t *buffers[{n}], *rows[{n}][32];
    for (int i = 0; i < {n}; i++) {{
        buffers[i] = aligned_alloc(64, {BUFFER_BYTES});
        for (int r = 0; r < 32; r++) rows[i][r] = aligned_alloc(64, {BUFFER_BYTES});
    }}
    uint64_t seed = 0x9e3779b97f4a7c15u;
    int checked = 0, failed = 0, skipped = 0;
    const int count = (int)(sizeof entries / sizeof entries[0]);
    for (int e = 0; e < count; e++) {{
        const struct entry *x = &entries[e];
        if (!x->supported()) {{ printf("SKIP %s: this CPU lacks its instructions\\n", x->name); skipped++; continue; }}
        int bad = 0;
        for (int trial = 0; trial < {TRIALS} && !bad; trial++) {{
            uint64_t args[{n}] = {{0}}, fill[{saved} + 1], after[{abi.after}];
            for (int i = 0; i < x->nargs; i++) {{
                for (size_t k = 0; k < {BUFFER_BYTES}; k += 8) {{
                    uint64_t v = next_random(&seed);
                    memcpy(buffers[i] + k, &v, 8);
                }}
                if (x->rows >> i & 1)
                    for (int r = 0; r < 32; r++) memcpy(buffers[i] + 8 * r, &rows[i][r], sizeof rows[i][r]);
                args[i] = (uint64_t)(uintptr_t)buffers[i];
            }}
            for (int i = 0; i < {saved}; i++) fill[i] = next_random(&seed);
{abi.fill}            {abi.call}(x->fn, args, fill, after);
            for (int i = 0; i < {saved}; i++)
                if (after[i] != fill[i]) {{
                    printf("FAIL %s: %s not restored (0x%016llx, was 0x%016llx)\\n", x->name, saved[i],
                           (unsigned long long)after[i], (unsigned long long)fill[i]);
                    bad = 1;
                }}
{abi.checks}        }}
        checked++;
        failed += bad;
        if (!bad) printf("PASS %s\\n", x->name);
    }}
    printf("abi-check: %d entry points: %d passed, %d failed, %d skipped (CPU lacks them)\\n", count,
           checked - failed, failed, skipped);
    return failed ? 1 : 0;
}}
"""


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", choices=ABIS, default="x86_64")
    ap.add_argument("--lib", default=os.path.join(REPO, "build", "lib", "libkcrypt.a"))
    ap.add_argument("--work", default=os.path.join(REPO, "build", "abi"))
    ap.add_argument("--extra", help="an assembly file with abi_extra_<n>_<nargs> functions to check too")
    ap.add_argument("--cc", default=os.environ.get("CC", "gcc"))
    ap.add_argument("--run", default="", help="the command that runs the check (qemu-user for AArch64 here)")
    args = ap.parse_args(argv)
    abi = ABIS[args.arch]
    entries = [] if args.extra else entry_points(abi.arch)
    if args.extra:
        entries += extra_entry_points(args.extra)
    os.makedirs(args.work, exist_ok=True)
    source = os.path.join(args.work, "abi_driver.c")
    with open(source, "w") as f:
        f.write(driver(entries, abi))
    exe = os.path.join(args.work, "abi_check")
    inputs = [source, os.path.join(HERE, "abi", abi.trampoline)]
    # The library holds the kernels and the CPU query; a test's extra file needs the query alone.
    inputs += [args.extra, os.path.join(REPO, "generated", "src", "kc_cpu.c")] if args.extra else [args.lib]
    static = ["-static"] if args.run else []     # under qemu-user: no dynamic loader to find
    subprocess.run([args.cc, "-O1", *static, "-I", os.path.join(REPO, "generated", "include"), *inputs, "-o", exe],
                   check=True)
    return subprocess.run([*shlex.split(args.run), exe]).returncode


if __name__ == "__main__":
    sys.exit(main())
