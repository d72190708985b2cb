"""`gen dispatch record` and `gen dispatch check`: each slot of
gen/dispatch.toml timed by bench on this machine, every native kernel side by
side, in turns (round robin over `rounds`, best kept) so that a drift of the
clock touches every kernel alike.

What a slot is timed on is what explore's measure depth times a kernel on
(gen/explore_measure.py): bulk on BENCH_CASES (SM4 and uBlock-128/128 CTR on
64 KiB, ZUC-128 keystream of 16 streams of 4 KiB), serial on SERIAL_CASES
(SM4 CBC encryption on 64 KiB, uBlock's one-block loop).

record: this CPU's record (its identity as kcrypt --list-impls prints it)
with the kernels fastest first, written into gen/dispatch.toml.
check: the benchmark of the "Done when" line: per slot, the kernel dispatch
picks by default against the fastest one measured, failing past `tolerance`."""

import datetime
import json
import subprocess
import tempfile
from pathlib import Path

from . import dispatch
from .explore_measure import BENCH_CASES, SERIAL_CASES, cpu_name

# slot -> (bench --cipher, --mode, further options), and the variant kcrypt lists it under
CASES = {"sm4.bulk": BENCH_CASES["sm4"], "sm4.serial": SERIAL_CASES["sm4"],
         "ublock.bulk": BENCH_CASES["ublock"], "ublock.serial": SERIAL_CASES["ublock"],
         "zuc.bulk": BENCH_CASES["zuc"]}


def listing(build, env=None):
    """kcrypt --list-impls of `build`: ({variant: {native kernel}},
    {(variant, role): (kernel, source)}, this CPU's key)."""
    out = subprocess.run([str(Path(build) / "kcrypt"), "--list-impls"], capture_output=True, text=True, check=True,
                         env=env).stdout
    native, defaults, key = {}, {}, None
    for line in out.splitlines():
        words = line.split()
        if words[:2] == ["dispatch", "cpu"]:
            key = words[2]
        elif words[0] == "dispatch":
            defaults[(words[1], words[2])] = (words[3], words[4])
        elif words[3] == "native" and words[1] != "reference":
            native.setdefault(words[0], set()).add(f"{words[1]}_{words[2]}")
    return native, defaults, key


def measure(build, rounds=3, progress=None):
    """{slot: {kernel: best Gbit/s}} for every native SIMD kernel of each slot."""
    native, _, _ = listing(build)
    best = {slot: {} for slot in CASES}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "bench.json"
        for turn in range(rounds):
            for slot, (variant, mode, options) in CASES.items():
                if progress:
                    progress(f"gen dispatch: round {turn + 1}/{rounds}: {slot} ({variant} {mode})")
                kernels = sorted(native.get(variant, ()))
                if not kernels:
                    continue
                subprocess.run([str(Path(build) / "bench"), "--cipher", variant, "--impl", ",".join(kernels),
                                "--mode", mode, *options, "--reps", "2", "--time-ms", "20", "--no-report",
                                "--json", str(out)], capture_output=True, text=True, check=True)
                records = [r for r in json.loads(out.read_text()) if r["name"] in kernels and r["mode"] == mode]
                for kernel in {r["name"] for r in records}:
                    r = min((r for r in records if r["name"] == kernel), key=lambda r: r["streams"])
                    best[slot][kernel] = max(best[slot].get(kernel, 0.0), round(r["gbps"], 3))
    return best


def record(key, figures, note):
    """The dispatch.Record of the CPU of `key` ("VENDOR/FAMILY/MODEL/FEATURES")
    from measured `figures`, kernels fastest first."""
    vendor, family, model, features = key.split("/", 3)
    order = {slot: tuple(sorted(f, key=lambda k: (-f[k], k))) for slot, f in figures.items() if f}
    gbps = {slot: {k: figures[slot][k] for k in kernels} for slot, kernels in order.items()}
    measured = f"gen dispatch record, {datetime.date.today().isoformat()}, Gbit/s best of bench runs in turns"
    return dispatch.Record(vendor, int(family), int(model), tuple(features.split(",")) if features else (),
                           cpu_name(), f"{measured}; {note}" if note else measured, order, gbps)


def check(build, figures, tolerance=0.03):
    """Rows (slot, variant, default kernel, its source, its Gbit/s, fastest
    kernel, its Gbit/s, ratio, ok) for each measured slot."""
    _, defaults, _ = listing(build)
    rows = []
    for slot, f in figures.items():
        if not f:
            continue
        variant, role = CASES[slot][0], slot.split(".")[1]
        kernel, source = defaults[(variant, role)]
        fastest = max(f, key=f.get)
        mine = f.get(kernel, 0.0)
        ratio = mine / f[fastest]
        rows.append((slot, variant, kernel, source, mine, fastest, f[fastest], ratio, ratio >= 1 - tolerance))
    return rows
