#!/usr/bin/env python3
"""What one round of the nibble-sliced uBlock-128/128 kernel costs on this
CPU, hand-scheduled, and what it would cost with its memory traffic taken
away: the floor under the uBlock issue's 128/128 CTR target.

Usage::

    python3 harness/ublock_round_floor.py [--cc gcc] [--repeat 3]

(x86-64 with AVX2; `make round-floor` at the top runs it.)

The round of gen/kernels/ublock_nibbleslice.py for 128-bit blocks on AVX2
(32 blocks, one 256-bit register per nibble position, 32 positions) is, for
each of its two word pairs: 16 broadcast loads of the folded S-box tables,
16 byte shuffles reading the state from memory, the linear layer's 48 XORs
in place on the 16 registers that hold the S-box outputs (all sixteen of the
machine's: the next word pair cannot start in registers), and 16 stores of
the outputs to the slots PL and PR send them to.  This script writes that
round in GNU assembly from the spec (the XORs are the reference's own
`linear_layer` run on register names, the stores follow the reference's
`permute_bytes`), and variants of it:

    round         the round as above: 32 table loads, 32 shuffles with their
                  state loads, 96 XORs, 32 stores
    no_stores     the round without its 32 stores (the state loads stay)
    in_registers  no state traffic at all, as if the 32 state registers fit
                  in the 16 there are (they do not; a floor, not a kernel):
                  each shuffle indexes its own table register, so it waits
                  for nothing but its table load
    no_xors       the round's memory operations and shuffles, no XORs

Each variant is a function that runs two rounds per iteration (the state
moves between two buffers); it is timed at 4 and at 36 iterations, the
difference divided by the 64 rounds between them, the minimum over many
alternating calls through a volatile pointer.  Core cycles are TSC ticks
divided by the TSC ticks per core cycle, which the same program measures
with a chain of dependent register additions (one per core cycle); the core clock is
the TSC rate (against CLOCK_MONOTONIC) over that ratio.

Beside them, the generated CTR kernel itself (the counter form of
generated/src/ublock_nibbleslice_avx2.c, one batch of 32 blocks per call,
which runs 15 rounds: the first is once per group), compiled as the library
compiles it, twice: as it is, and with its round loop run 0 times, which
leaves the work outside the rounds (the first round from the group's pair
tables, the transposition out, the message XOR).  The
difference over 15 is GCC's round.

And the same CTR kernel as its assembly twin (gen/backends/x86/asm.py, our
own register allocation), with its round loop of 15 rounds and of one: the
difference over 14 is our round.

The last lines add the two: the kernel's work outside the rounds plus 15
rounds at the `in_registers` floor, the best case for CTR in this layout,
against the cycles per byte that the issue's 21.6 Gbit/s needs at the
measured clock, and the round that would need: its cycle budget with the
work outside the rounds as it is.
"""

from __future__ import annotations

import argparse
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "harness"))

from gen.kernels.ublock_nibbleslice import (NIBBLE_BITS, NIBBLE_VALUES, WORD_NIBBLES,  # noqa: E402
                                            permute_halves, word_pairs as kernel_word_pairs)
from gen.kernels.ublock_reference import linear_layer  # noqa: E402
from gen.specs import ublock  # noqa: E402
import target_manifest  # noqa: E402
from report import paper_kernel, ublock_required_gbps  # noqa: E402

BLOCK_BITS = 128
NIBBLES = BLOCK_BITS // NIBBLE_BITS           # nibble positions = state registers
HALF = NIBBLES // 2                           # positions of X0 (and of X1)
WORD = WORD_NIBBLES
REGISTER_BYTES = 32                           # one ymm register: 32 blocks
TABLE_BYTES = NIBBLE_VALUES                   # one folded S-box table
STEP_BYTES = NIBBLES * TABLE_BYTES            # a round's tables
BATCH_BYTES = REGISTER_BYTES * BLOCK_BITS // 8
VARIANTS = ("round", "no_stores", "in_registers", "no_xors")
ITERATIONS = (4, 36)                          # two rounds each
# The kernel whose floor this is: nibbleslice on the uBlock paper's
# instruction set, AVX2 (report.paper_kernel: the target in generated/targets.json).
KERNEL = paper_kernel("nibbleslice")
KERNEL_TARGET = KERNEL.split("_", 1)[1]
KERNEL_SOURCE = ROOT / "generated" / "src" / f"ublock_{KERNEL}.c"
CTR_KERNEL = f"ublock_{KERNEL}_ublock128_128_ctr_xor"
GROUP_BUFFER_BYTES = 4096                     # more than the counter form reads
TARGET_GBPS = ublock_required_gbps("ublock128_128")
CTR_ROUNDS = ublock.VARIANTS[128, 128] - 1    # the counter form's loop


class _RecordingRegister:
    """A ymm register standing where the reference has a nibble: `^` records
    one in-place vpxor (the reference always XORs into its left operand and
    never reads the old value again)."""

    def __init__(self, number, lines):
        self.number, self.lines = number, lines

    def __xor__(self, other):
        self.lines.append(f"vpxor %ymm{other.number}, %ymm{self.number}, %ymm{self.number}")
        return self


def word_pairs():
    """The state positions of each word pair, as the kernel groups them: X0's
    word w, then X1's word w."""
    return [list(word) + [HALF + i for i in word] for word in kernel_word_pairs(HALF)]


def next_positions():
    """Where PL and PR send each output of the linear layer: y index -> state position."""
    return {source: position for position, source in enumerate(permute_halves(BLOCK_BITS, list(range(NIBBLES))))}


def round_lines(variant, source, destination, table_base):
    """One round: the word pairs one after the other, `source` and
    `destination` the state buffers' address registers."""
    lines = []
    moved = next_positions()
    for positions in word_pairs():
        for register, position in enumerate(positions):
            lines.append(f"vbroadcasti128 {table_base + TABLE_BYTES * position}(%rdi), %ymm{register}")
            index = f"%ymm{register}" if variant == "in_registers" else f"{REGISTER_BYTES * position}({source})"
            lines.append(f"vpshufb {index}, %ymm{register}, %ymm{register}")
        xors = []
        registers = [_RecordingRegister(r, xors) for r in range(len(positions))]
        y0, y1 = linear_layer(registers[:WORD], registers[WORD:])
        if [r.number for r in y0 + y1] != list(range(len(positions))):
            raise AssertionError("the linear layer did not end in its input registers")
        if variant != "no_xors":
            lines += xors
        if variant not in ("no_stores", "in_registers"):
            lines += [f"vmovdqa %ymm{register}, {REGISTER_BYTES * moved[position]}({destination})"
                      for register, position in enumerate(positions)]
    return lines


def function_text(variant):
    """mix_<variant>(tables = rdi, a = rsi, b = rdx, iterations = rcx): two
    rounds per iteration, a -> b -> a, the tables advancing a round each."""
    body = (round_lines(variant, "%rsi", "%rdx", 0) + round_lines(variant, "%rdx", "%rsi", STEP_BYTES)
            + [f"addq ${2 * STEP_BYTES}, %rdi", "decq %rcx", "jnz 1b", "vzeroupper", "ret"])
    name = f"mix_{variant}"
    return "\n".join([f".globl {name}", f".type {name},@function", ".p2align 5", f"{name}:", "1:"]
                     + [f"\t{line}" for line in body])


def assembly():
    """Every variant, and add_chain(n): n x 8 dependent additions (8n core cycles).

    The addend is a register: Golden Cove cores (Sapphire Rapids) fold chains
    of adds of an immediate in the renamer and run `addq $1` chains at 4-6
    per cycle, which made the clock estimate 4-6 times too high there."""
    chain = "\n".join([".globl add_chain", ".type add_chain,@function", ".p2align 5", "add_chain:",
                       "\txorl %eax, %eax", "\tmovl $1, %edx", "1:"] + ["\taddq %rdx, %rax"] * 8
                      + ["\tdecq %rdi", "\tjnz 1b", "\tret"])
    return "\n\n".join([".text"] + [function_text(v) for v in VARIANTS] + [chain,
                       '.section .note.GNU-stack,"",@progbits']) + "\n"


DRIVER = r"""
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

typedef void mix_fn(const uint8_t *tables, uint8_t *a, uint8_t *b, long iterations);
mix_fn %(declarations)s;
long add_chain(long n);
typedef void kernel_fn(const uint8_t *rk, const uint8_t *in, uint8_t *out, const uint8_t *src, long batches);
kernel_fn kernel_full, kernel_empty, kernel_asm_full, kernel_asm_one;
static mix_fn *const mixes[] = { %(functions)s };
static const char *const names[] = { %(names)s };

static _Alignas(64) uint8_t tables[%(tables)d], a[%(state)d], b[%(state)d];
static _Alignas(64) uint8_t group[%(group)d], message[%(batch)d], out[%(batch)d];

/* Core cycles per call of f at iterations[1] minus iterations[0], per iteration. */
#define TIME_PER_ITERATION(result, call)                                              \
  do {                                                                                 \
    double best_[2] = {1e30, 1e30};                                                    \
    for (int rep_ = 0; rep_ < 3000; rep_++)                                            \
      for (int k_ = 0; k_ < 2; k_++) {                                                 \
        long n_ = iterations[k_];                                                      \
        uint64_t t0_ = __rdtsc(); call; uint64_t t1_ = __rdtsc();                      \
        if ((double)(t1_ - t0_) < best_[k_]) best_[k_] = (double)(t1_ - t0_);          \
      }                                                                                \
    (result) = (best_[1] - best_[0]) / (iterations[1] - iterations[0]) / ticks_per_cycle; \
  } while (0)

static double now_ns(void) {
  struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(void) {
  for (unsigned i = 0; i < sizeof tables; i++) tables[i] = (uint8_t)((i * 7 + 3) & 15);
  for (unsigned i = 0; i < sizeof a; i++) a[i] = (uint8_t)(i & 15);
  long (*volatile chain)(long) = add_chain;
  double ticks_per_cycle = 1e30;
  for (int rep = 0; rep < 200; rep++) {
    uint64_t t0 = __rdtsc(); chain(100000); uint64_t t1 = __rdtsc();
    double r = (double)(t1 - t0) / (8.0 * 100000); if (r < ticks_per_cycle) ticks_per_cycle = r;
  }
  double n0 = now_ns(); uint64_t c0 = __rdtsc(); chain(20000000); uint64_t c1 = __rdtsc(); double n1 = now_ns();
  double tsc_ghz = (double)(c1 - c0) / (n1 - n0);
  printf("ticks_per_cycle %%.4f\ncore_ghz %%.3f\n", ticks_per_cycle, tsc_ghz / ticks_per_cycle);
  const long iterations[2] = { %(iterations)s };
  for (unsigned v = 0; v < sizeof mixes / sizeof *mixes; v++) {
    mix_fn *volatile f = mixes[v];
    double per_iteration;
    TIME_PER_ITERATION(per_iteration, f(tables, a, b, n_));
    printf("%%s %%.2f\n", names[v], per_iteration / 2);  /* two rounds an iteration */
  }
  kernel_fn *volatile full = kernel_full, *volatile empty = kernel_empty;
  double batch, outside;
  TIME_PER_ITERATION(batch, full(tables, group, out, message, n_));
  TIME_PER_ITERATION(outside, empty(tables, group, out, message, n_));
  printf("kernel_batch %%.2f\nkernel_outside %%.2f\n", batch, outside);
  kernel_fn *volatile asm_full = kernel_asm_full, *volatile asm_one = kernel_asm_one;
  double asm_batch, asm_one_round;
  TIME_PER_ITERATION(asm_batch, asm_full(tables, group, out, message, n_));
  TIME_PER_ITERATION(asm_one_round, asm_one(tables, group, out, message, n_));
  printf("asm_batch %%.2f\nasm_one_round %%.2f\n", asm_batch, asm_one_round);
  return 0;
}
"""


def driver_text():
    return DRIVER % {
        "declarations": ", ".join(f"mix_{v}" for v in VARIANTS),
        "functions": ", ".join(f"mix_{v}" for v in VARIANTS),
        "names": ", ".join(f'"{v}"' for v in VARIANTS),
        "tables": STEP_BYTES * 2 * max(ITERATIONS),
        "state": NIBBLES * REGISTER_BYTES,
        "iterations": ", ".join(map(str, ITERATIONS)),
        "group": GROUP_BUFFER_BYTES,
        "batch": BATCH_BYTES,
    }


def kernel_source(form):
    """The generated AVX2 file with its 128/128 CTR kernel kept out of line and
    called n times by kernel_<form>; form "empty" runs its round loop 0 times."""
    text = KERNEL_SOURCE.read_text()
    head = f"static void {CTR_KERNEL}("
    start = text.index(head)
    loop = f"for (size_t r = 0; r < {CTR_ROUNDS}; r++)"
    at = text.index(loop, start)
    if "\nstatic " in text[start + len(head):at]:
        raise ValueError(f"{CTR_KERNEL} has no loop of {CTR_ROUNDS} rounds in {KERNEL_SOURCE}")
    if form == "empty":
        text = text[:at] + loop.replace(f"< {CTR_ROUNDS}", "< 0") + text[at + len(loop):]
    text = text[:start] + "__attribute__((noinline)) " + text[start:]
    return text + (f"\nvoid kernel_{form}(const uint8_t *rk, const uint8_t *in, uint8_t *out, const uint8_t *src, "
                   f"long batches)\n{{\n    for (long i = 0; i < batches; i++)\n        {CTR_KERNEL}(rk, in, out, src);\n}}\n")


def asm_kernel_source():
    """The same CTR kernel as the library's assembly twin writes it (x86/asm.py,
    registers allocated by gen/backends/regalloc.py), twice: with its round
    loop of CTR_ROUNDS and of one round (the loop runs at least once), each
    called n times by kernel_asm_<form>; returns (assembly, C wrappers)."""
    from gen import choices
    from gen.backends import SIMD_TARGETS
    from gen.backends.assembly import assembly_file
    from gen.cli import emitted_programs
    from gen import choices
    from gen.ir import Loop, Program

    target = SIMD_TARGETS[KERNEL_TARGET].asm_twin()
    programs = emitted_programs("ublock", "nibbleslice", target, choices.load())
    program = next(p for p in programs if p.name == "ublock128_r16_nibbleslice256_ctr_xor")

    def with_rounds(count):
        body = [Loop(s.var, count, s.body) if isinstance(s, Loop) and s.count == CTR_ROUNDS else s
                for s in program.body]
        if body == program.body:
            raise ValueError(f"{program.name} has no loop of {CTR_ROUNDS} rounds")
        return Program(program.name, program.bits, program.params, program.state, body, program.info,
                       program.scratch)

    text = assembly_file("/* round floor: the CTR kernel's assembly twin */",
                         [("ctr_asm_full", with_rounds(CTR_ROUNDS)), ("ctr_asm_one", with_rounds(1))],
                         target, "round_floor",
                         schedule=choices.load().of("ublock.asm_pressure_schedule", "nibbleslice", target))
    wrappers = "#include <stdint.h>\n" + "".join(
        f"void ctr_asm_{form}(const uint8_t *, const uint8_t *, uint8_t *, const uint8_t *);\n"
        f"void kernel_asm_{form}(const uint8_t *rk, const uint8_t *in, uint8_t *out, const uint8_t *src, long n)\n"
        f"{{\n    for (long i = 0; i < n; i++)\n        ctr_asm_{form}(rk, in, out, src);\n}}\n"
        for form in ("full", "one"))
    return text, wrappers


def build(directory, cc, shared=False):
    """Assemble the variants (as a shared object for tests, or with the
    kernel's two forms and the timing driver); returns the path of what was built."""
    directory = pathlib.Path(directory)
    (directory / "mixes.S").write_text(assembly())
    if shared:
        out = directory / "mixes.so"
        subprocess.run([cc, "-shared", "-o", out, directory / "mixes.S"], check=True)
        return out
    objects = []
    for form in ("full", "empty"):
        source, obj = directory / f"kernel_{form}.c", directory / f"kernel_{form}.o"
        source.write_text(kernel_source(form))
        subprocess.run([cc, "-O3", *target_manifest.load().cflags(KERNEL_TARGET), "-std=c11",
                        f"-I{ROOT / 'generated' / 'include'}",
                        f"-I{ROOT / 'generated' / 'src'}", "-ffunction-sections", "-fdata-sections", "-c", source, "-o", obj],
                       check=True)
        # Both copies define the library's globals: keep only the wrapper global
        # (and drop, at link time, the functions that call into the rest of the library).
        subprocess.run(["objcopy", f"--keep-global-symbol=kernel_{form}", obj], check=True)
        objects.append(obj)
    asm_text, wrappers = asm_kernel_source()
    (directory / "kernel_asm.S").write_text(asm_text)
    (directory / "kernel_asm.c").write_text(wrappers)
    (directory / "driver.c").write_text(driver_text())
    out = directory / "round_floor"
    subprocess.run([cc, "-O2", "-Wl,--gc-sections", "-o", out, directory / "driver.c", directory / "mixes.S",
                    directory / "kernel_asm.S", directory / "kernel_asm.c", *objects], check=True)
    return out


def measure(program):
    results = {}
    for line in subprocess.run([program], check=True, capture_output=True, text=True).stdout.splitlines():
        key, value = line.split()
        results[key] = float(value)
    return results


def report(runs):
    """The table (each figure the minimum over the runs) and the CTR floor."""
    best = {key: min(run[key] for run in runs) for key in runs[0]}
    ghz = max(run["core_ghz"] for run in runs)
    print(f"uBlock-128/128, nibbleslice on AVX2: one round of {REGISTER_BYTES} blocks, hand-scheduled "
          f"(core cycles; {best['ticks_per_cycle']:.3f} TSC ticks per core cycle, core at {ghz:.2f} GHz)")
    print(f"{'variant':<14}{'cycles/round':>13}")
    for variant in VARIANTS:
        print(f"{variant:<14}{best[variant]:>13.1f}")
    rounds = (best["kernel_batch"] - best["kernel_outside"]) / CTR_ROUNDS
    print(f"generated CTR kernel, one batch: {best['kernel_batch']:.0f} cycles = "
          f"{best['kernel_batch'] / BATCH_BYTES:.2f} c/B; outside the rounds {best['kernel_outside']:.0f}; "
          f"GCC's round {rounds:.1f}")
    asm_round = (best["asm_batch"] - best["asm_one_round"]) / (CTR_ROUNDS - 1)
    print(f"the same kernel in assembly (our register allocation), one batch: {best['asm_batch']:.0f} cycles = "
          f"{best['asm_batch'] / BATCH_BYTES:.2f} c/B; its round {asm_round:.1f} (GCC's {rounds:.1f})")
    floor = (best["kernel_outside"] + CTR_ROUNDS * best["in_registers"]) / BATCH_BYTES
    need = 8 * ghz / TARGET_GBPS  # core cycles per byte
    budget = (need * BATCH_BYTES - best["kernel_outside"]) / CTR_ROUNDS
    print(f"CTR floor of this layout: outside the rounds + {CTR_ROUNDS} x in_registers = {floor:.2f} c/B = "
          f"{8 * ghz / floor:.1f} Gbit/s; {TARGET_GBPS:.1f} Gbit/s needs {need:.2f} c/B at {ghz:.2f} GHz, "
          f"i.e. rounds of at most {budget:.1f} cycles beside the kernel's work outside them")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cc", default="gcc")
    parser.add_argument("--repeat", type=int, default=3, help="whole runs; each figure is their minimum")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as directory:
        program = build(directory, args.cc)
        report([measure(program) for _ in range(args.repeat)])


if __name__ == "__main__":
    main()
