"""Depth `measure` of gen explore: the cheapest values of each kernel that
this machine runs, each built into its own `bench` and timed side by side.

One build tree under build/explore/measure/ (a copy of generated/ and the
harness built from it without peers and SIMDe, PEERS=0 EMULATED=0): per
value, the kernel's files are written into the copy, make rebuilds that
kernel alone and relinks, and the bench is kept as bench-<n>.  The benches
then run in turns (round robin, `rounds` times, best kept), so that a drift
of the clock over the run touches every value alike.  What is timed, per
cipher (BENCH_CASES): SM4 CTR on 64 KiB, ZUC-128 keystream of 16 streams of
4 KiB, uBlock-128/128 CTR on 64 KiB, or for a parameter of another form
its FORM_CASES entry; for an assembly-only choice the assembly twin
(<kernel>_asm).  A parameter of the batch is timed at bulk work: a block
cipher's serial work (CBC encryption, one block per call) runs on each kernel
file's one-block form, which only sm4.one_block_layer shapes, timed at that
work (SERIAL_CASES, also what `gen dispatch` times the serial slot on)."""

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# cipher -> (bench --cipher, --mode, further bench options)
BENCH_CASES = {"sm4": ("sm4", "ctr", ("--sizes", "64K")), "zuc": ("zuc128", "keystream", ("--sizes", "4K")),
               "ublock": ("ublock128_128", "ctr", ("--sizes", "64K"))}
# The serial slot of gen dispatch (dispatch_measure): CBC encryption under
# one key, one block per call, SM4 on 64 KiB, and uBlock-128/128 by bench's
# block-loop (one block encrypted 20,000 times under one key: what one block
# costs a kernel).
SERIAL_CASES = {"sm4": ("sm4", "cbc-enc", ("--sizes", "64K")),
                "ublock": ("ublock128_128", "block-loop", ("--loops", "20000"))}
# What a parameter of another form than the batch is timed on ((cipher, form):
# gen/choices.py Parameter.form): the multi-key form by bench's 16 streams
# of 4 KiB each, CBC encryption; the one-block form at the serial job.
FORM_CASES = {("sm4", "multi"): ("sm4", "cbc-enc-x16", ("--sizes", "4K")),
              ("sm4", "one_block"): SERIAL_CASES["sm4"]}


def cpu_name():
    """This machine's CPU, as /proc/cpuinfo names it (every measured figure names it)."""
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown CPU"


class Bench:
    """The build tree of the measurements."""

    def __init__(self, work=None):
        self.work = Path(work or ROOT / "build" / "explore" / "measure")
        self.generated = self.work / "generated"
        self.build = self.work / "build"
        if self.generated.exists():
            shutil.rmtree(self.generated)
        shutil.copytree(ROOT / "generated", self.generated)

    def make(self):
        """Build (or bring up to date) the harness from the copy; the bench's path."""
        done = subprocess.run(["make", "-s", "-C", str(ROOT / "harness" / "c"), f"BUILD={self.build}",
                               f"GENERATED={self.generated}", "PEERS=0", "EMULATED=0", "all"],
                              capture_output=True, text=True)
        if done.returncode:
            raise RuntimeError(f"explore --depth measure: the build failed:\n{done.stderr[-3000:]}")
        return self.build / "bench"

    def native(self):
        """The implementations this CPU runs natively ({bench cipher name: {impl name}})."""
        listed = subprocess.run([str(self.build / "kcrypt"), "--list-impls"], capture_output=True, text=True,
                                check=True).stdout
        out = {}
        for line in listed.splitlines():
            if line.startswith("dispatch "):   # dispatch's defaults and this CPU's key
                continue
            cipher, strategy, target, how = line.split()[:4]
            if how == "native":
                out.setdefault(cipher, set()).add(f"{strategy}_{target}")
        return out

    def variant(self, files, label):
        """A bench built with `files` ({path under generated/: text}) in place,
        kept as bench-<label>.  Only the files that differ are written (and
        restored), so that make rebuilds what the value changes and not every
        unit that includes an unchanged shared header."""
        saved = {path: (self.generated / path).read_text() for path in files if (self.generated / path).exists()}
        changed = {path: text for path, text in files.items() if saved.get(path) != text}
        saved = {path: text for path, text in saved.items() if path in changed}
        try:
            for path, text in changed.items():
                (self.generated / path).write_text(text)
            kept = self.work / f"bench-{label}"
            shutil.copy2(self.make(), kept)
            return kept
        finally:
            for path, text in saved.items():
                (self.generated / path).write_text(text)

    def time(self, benches, case, impl, rounds=5):
        """{label: the best record of `impl` over `rounds` turns} ("gbps",
        "cpb"; "mode"), timed on `case` (a BENCH_CASES or SERIAL_CASES entry).
        Of the records of `impl` the one with the fewest streams is kept
        (bench's block-loop adds a multi-key record)."""
        name, mode, options = case
        best = {}
        out = self.work / "bench.json"
        for _ in range(rounds):
            for label, bench in benches.items():
                subprocess.run([str(bench), "--cipher", name, "--impl", impl, "--mode", mode, *options,
                                "--reps", "2", "--time-ms", "20", "--no-report", "--json", str(out)],
                               capture_output=True, text=True, check=True)
                record = min((r for r in json.loads(out.read_text()) if r["name"] == impl),
                             key=lambda r: r["streams"])
                if label not in best or record["gbps"] > best[label]["gbps"]:
                    best[label] = {"gbps": round(record["gbps"], 3), "cpb": round(record["cpb"], 3),
                                   "clock_ghz": record["clock_ghz"], "cpu": record["cpu"], "mode": mode}
        return best


def _one_per_shape(groups, costs, kernel, top):
    """The first value of each of the kernel's `top` cheapest shapes, in rank
    order (a group of equal static cost may hold several instruction sequences)."""
    seen = {}
    for group in groups:
        for value in group.values:
            seen.setdefault(costs[value][kernel]["shape"], value)
            if len(seen) == top:
                return list(seen.values())
    return list(seen.values())


def measure(param, costs, ranking, files, top=5, progress=sys.stderr, work=None):
    """`costs` with "measured" added on every kernel this machine runs
    natively: the record of each of the kernel's `top` cheapest shapes,
    timed on its first value and shared by every value of that shape (one
    instruction sequence); None for the others, which were not timed.
    `files(value, strategy, target)` gives the kernel's files under that value."""
    from .backends import SIMD_TARGETS
    bench = Bench(work)
    start = time.monotonic()
    bench.make()
    native = bench.native().get(BENCH_CASES[param.cipher][0], set())
    asm_only = param.name.endswith(".asm_pressure_schedule")
    out = {v: dict(per) for v, per in costs.items()}
    todo = [(kernel, groups) for kernel, groups in ranking.items()
            if (f"{kernel}_asm" if asm_only else kernel) in native]
    for number, (kernel, groups) in enumerate(todo, 1):
        strategy, target_name = kernel.split("_", 1)
        target = SIMD_TARGETS[target_name]
        impl = f"{kernel}_asm" if asm_only else kernel
        timed = _one_per_shape(groups, costs, kernel, top)
        benches = {}
        for value in timed:
            if progress:
                progress.write(f"\rgen explore: {param.name} measure {kernel} ({number}/{len(todo)}): building "
                               f"{value!r}{' ' * 20}")
                progress.flush()
            benches[json.dumps(value)] = bench.variant(files(value, strategy, target), len(benches))
        if progress:
            progress.write(f"\rgen explore: {param.name} measure {kernel} ({number}/{len(todo)}): timing "
                           f"{len(benches)} values, {time.monotonic() - start:.0f} s so far{' ' * 20}")
            progress.flush()
        records = bench.time(benches, FORM_CASES.get((param.cipher, param.form), BENCH_CASES[param.cipher]), impl)
        by_shape = {costs[value][kernel]["shape"]: records[json.dumps(value)] for value in timed}
        for value in costs:
            if "invalid" not in costs[value][kernel]:       # (no value for this kernel: nothing to time)
                out[value][kernel] = {**costs[value][kernel], "measured": by_shape.get(costs[value][kernel]["shape"])}
    if progress:
        progress.write(f"\rgen explore: {param.name} measured {len(todo)} kernels in "
                       f"{time.monotonic() - start:.0f} s{' ' * 40}\n")
    return out
