#!/usr/bin/env python3
"""Benchmark report: markdown tables and a PNG from the records `bench` writes.

Usage::

    python3 harness/report.py build/bench.json [--md build/bench.md]
                              [--png build/bench.png] [--mca build/mca.json]

`build/bench --json FILE` runs this itself (FILE.md, FILE.png) and the
markdown is printed on stdout.  Records from `harness/mca_model.py` (llvm-mca
static model, ``"modelled": true``) are appended as a separate, clearly
labelled section; they are read from ``--mca`` or, by default, from
``mca.json`` next to the bench JSON when that file exists.

Records (one per subject x mode x message size) carry at least: cipher,
impl ("ours", "openssl", "libgcrypt"), name (kernel name for ours), strategy,
target, mode, msg_bytes, lanes, gbps, cpb.  The module has no third-party
dependency except matplotlib, which is needed only for the PNG.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import OrderedDict

MODES = ("ecb-enc", "ecb-dec", "cbc-enc", "cbc-dec", "ctr")
PEERS = ("openssl", "libgcrypt")
HEADLINE_BYTES = 65536


# --------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------

def load_records(path):
    """The list of records in a JSON file (a list, or {"records": [...]})."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    if isinstance(data, dict):
        data = data.get("records", [])
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a JSON list of records")
    return data


def default_mca_path(bench_json):
    """mca.json in the folder of the bench JSON, if it exists, else None."""
    path = os.path.join(os.path.dirname(os.path.abspath(bench_json)), "mca.json")
    return path if os.path.exists(path) else None


def subject_label(rec):
    """How a subject is named in tables and legends: our kernel's name, or
    the peer library."""
    if rec.get("impl") == "ours":
        return rec.get("name") or f"{rec.get('strategy')}_{rec.get('target')}"
    return rec.get("impl", "?")


def measured(records):
    """The timed records (modelled ones left out)."""
    return [r for r in records if not r.get("modelled")]


def modelled(records):
    return [r for r in records if r.get("modelled")]


# --------------------------------------------------------------------------
# Formatting helpers
# --------------------------------------------------------------------------

def fmt_size(n):
    """64 -> '64 B', 4096 -> '4 KiB', 1048576 -> '1 MiB'."""
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f"{n >> 20} MiB"
    if n >= 1 << 10 and n % (1 << 10) == 0:
        return f"{n >> 10} KiB"
    return f"{n} B"


def fmt_num(x, digits=2):
    return "–" if x is None else f"{x:.{digits}f}"


def fmt_ratio(x):
    return "–" if x is None else f"{x:.2f}×"


def md_table(header, rows, align=None):
    """A markdown table; align is a string of 'l'/'r' per column."""
    align = align or "l" * len(header)
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join("---:" if a == "r" else "---" for a in align) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


# --------------------------------------------------------------------------
# Analysis
# --------------------------------------------------------------------------

def sizes_of(records):
    return sorted({r["msg_bytes"] for r in records})


def modes_of(records):
    present = {r["mode"] for r in records}
    return [m for m in MODES if m in present] + sorted(present - set(MODES))


def headline_size(records):
    """64 KiB if measured, else the largest measured size."""
    sizes = sizes_of(records)
    if not sizes:
        return None
    return HEADLINE_BYTES if HEADLINE_BYTES in sizes else sizes[-1]


def headline_rows(records, size=None):
    """Per mode at one size: our fastest kernel, the peers, and the ratios.

    Returns a list of dicts with mode, best (the record of our fastest
    verified kernel other than the scalar reference, or None), openssl, libgcrypt (records or None),
    vs_openssl and vs_libgcrypt (throughput ratios ours/peer or None).
    """
    records = measured(records)
    size = size or headline_size(records)
    rows = []
    for mode in modes_of(records):
        at = [r for r in records if r["mode"] == mode and r["msg_bytes"] == size]
        ours = [r for r in at if r.get("impl") == "ours" and r.get("verified", True)]
        # The scalar reference is a table-based oracle, not constant-time: it
        # stands for "ours" only when nothing else was measured.
        ours = [r for r in ours if r.get("strategy") != "reference"] or ours
        best = max(ours, key=lambda r: r["gbps"], default=None)
        peers = {p: max((r for r in at if r.get("impl") == p), key=lambda r: r["gbps"], default=None)
                 for p in PEERS}
        row = {"mode": mode, "size": size, "best": best, **peers}
        for p in PEERS:
            ok = best is not None and peers[p] is not None and peers[p]["gbps"] > 0
            row["vs_" + p] = best["gbps"] / peers[p]["gbps"] if ok else None
        rows.append(row)
    return rows


def subjects_of(records):
    """Subject labels in a stable order: our kernels (by name), then peers."""
    ours = sorted({subject_label(r) for r in records if r.get("impl") == "ours"})
    peers = [p for p in PEERS if any(r.get("impl") == p for r in records)]
    others = sorted({subject_label(r) for r in records} - set(ours) - set(peers))
    return ours + peers + others


def lookup(records):
    """(label, mode, size) -> record."""
    return {(subject_label(r), r["mode"], r["msg_bytes"]): r for r in records}


# --------------------------------------------------------------------------
# Markdown
# --------------------------------------------------------------------------

def render_headline(records):
    rows = headline_rows(records)
    if not rows:
        return "No measurements."
    size = rows[0]["size"]
    body = []
    for row in rows:
        b, o, g = row["best"], row["openssl"], row["libgcrypt"]
        body.append([
            row["mode"],
            f"`{subject_label(b)}`" if b else "–",
            b.get("lanes", "–") if b else "–",
            fmt_num(b and b["gbps"]), fmt_num(b and b.get("cpb")),
            fmt_num(o and o["gbps"]), fmt_num(o and o.get("cpb")),
            fmt_num(g and g["gbps"]), fmt_num(g and g.get("cpb")),
            fmt_ratio(row["vs_openssl"]), fmt_ratio(row["vs_libgcrypt"]),
        ])
    header = ["mode", "our best kernel", "lanes", "ours Gbit/s", "ours c/B",
              "OpenSSL Gbit/s", "OpenSSL c/B", "libgcrypt Gbit/s", "libgcrypt c/B",
              "ours / OpenSSL", "ours / libgcrypt"]
    return (f"### Headline: {fmt_size(size)} messages, our fastest kernel vs the peers\n\n"
            + md_table(header, body, "lllrrrrrrrr"))


def render_mode_tables(records):
    """One table per mode: Gbit/s per subject and size, and c/B at 64 KiB."""
    records = measured(records)
    sizes, table = sizes_of(records), lookup(records)
    hsize = headline_size(records)
    parts = []
    for mode in modes_of(records):
        labels = [s for s in subjects_of(records)
                  if any((s, mode, z) in table for z in sizes)]
        rows = []
        for label in labels:
            some = next(table[(label, mode, z)] for z in sizes if (label, mode, z) in table)
            cells = [fmt_num(table[(label, mode, z)]["gbps"]) if (label, mode, z) in table else "–"
                     for z in sizes]
            h = table.get((label, mode, hsize))
            flag = "" if some.get("verified", True) else " (output MISMATCH)"
            rows.append([f"{label}{flag}", some.get("impl", "?"), some.get("lanes", "–"), *cells,
                         fmt_num(h and h.get("cpb"))])
        header = ["subject", "impl", "lanes", *[fmt_size(z) for z in sizes],
                  f"c/B @ {fmt_size(hsize)}"]
        parts.append(f"### {mode}: Gbit/s by message size\n\n"
                     + md_table(header, rows, "lllr" + "r" * len(sizes)))
    return "\n\n".join(parts)


def render_modelled(records, bench_records=()):
    """The llvm-mca figures, labelled as modelled, beside the measured c/B of
    the same kernel (ECB encryption at the headline size) when there is one."""
    recs = modelled(records)
    if not recs:
        return ""
    bench = lookup(measured(bench_records))
    hsize = headline_size(measured(bench_records)) if bench_records else None
    rows = []
    for r in sorted(recs, key=lambda r: (subject_label(r), r.get("cpu_model", ""))):
        label = subject_label(r)
        meas = bench.get((label, "ecb-enc", hsize)) if hsize else None
        # A CPU model that lacks the kernel's instructions gives no figure: say why.
        cpb = fmt_num(r.get("cpb")) if r.get("cpb") is not None else r.get("error", "–")
        rows.append([
            f"`{label}`",
            f"modelled (llvm-mca {r.get('cpu_model', '?')})",
            cpb,
            fmt_num(r.get("cycles_per_batch"), 1),
            r.get("batch_bytes", r.get("msg_bytes", "–")),
            fmt_num(meas and meas.get("cpb")),
        ])
    header = ["kernel", "source", "c/B (modelled)", "cycles / batch", "bytes / batch",
              f"c/B measured here (ecb-enc, {fmt_size(hsize) if hsize else '–'})"]
    note = ("Static throughput model of the kernel's round loop (plus transposition where "
            "modelled), from `harness/mca_model.py`; not a measurement.")
    return ("### Modelled figures (not measured)\n\n" + note + "\n\n"
            + md_table(header, rows, "llrrrr"))


def render_markdown(records, mca_records=()):
    """The whole report as one markdown string."""
    meas = measured(records)
    parts = ["## SM4 throughput"]
    if meas:
        r0 = meas[0]
        clock = r0.get("clock_ghz")
        parts.append(
            f"CPU: {r0.get('cpu', 'unknown')}. Cycles per byte use a core clock of "
            f"{fmt_num(clock)} GHz estimated by timing a "
            f"{r0.get('clock_method', 'dependent chain of integer adds')}. "
            "Each figure is the best of several timed repetitions; emulated kernels are "
            "never timed.")
    parts.append(render_headline(meas))
    parts.append(render_mode_tables(meas))
    model = render_modelled(list(mca_records) + modelled(records), meas)
    if model:
        parts.append(model)
    return "\n\n".join(p for p in parts if p) + "\n"


# --------------------------------------------------------------------------
# Plot
# --------------------------------------------------------------------------

def plot(records, png_path):
    """Two panels: CTR Gbit/s vs message size (log x), one line per subject;
    grouped bars of Gbit/s at 64 KiB per mode."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    records = measured(records)
    table = lookup(records)
    sizes, labels = sizes_of(records), subjects_of(records)
    hsize = headline_size(records)
    modes = modes_of(records)
    # Peers in fixed dark colours, our kernels from a qualitative palette.
    cmap = plt.get_cmap("tab20")
    ours = [label for label in labels if label not in PEERS]
    colour = {label: cmap(i % 20) for i, label in enumerate(ours)}
    colour.update({"openssl": "black", "libgcrypt": "dimgrey"})

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(15, 6))
    for label in labels:
        pts = [(z, table[(label, "ctr", z)]["gbps"]) for z in sizes if (label, "ctr", z) in table]
        if pts:
            peer = label in PEERS
            ax1.plot(*zip(*pts), marker="o", color=colour[label], label=label,
                     linestyle="--" if peer else "-", linewidth=2.5 if peer else 1.5)
    ax1.set_xscale("log", base=2)
    ax1.set_xticks(sizes, [fmt_size(z) for z in sizes], rotation=30)
    ax1.set_xlabel("message size")
    ax1.set_ylabel("Gbit/s")
    ax1.set_title("SM4-CTR throughput")
    ax1.grid(True, alpha=0.3)
    ax1.legend(fontsize=7)

    width = 0.8 / max(1, len(labels))
    for i, label in enumerate(labels):
        xs, ys = [], []
        for j, mode in enumerate(modes):
            if (label, mode, hsize) in table:
                xs.append(j + (i - (len(labels) - 1) / 2) * width)
                ys.append(table[(label, mode, hsize)]["gbps"])
        if xs:
            ax2.bar(xs, ys, width, color=colour[label], label=label)
    ax2.set_xticks(range(len(modes)), modes)
    ax2.set_ylabel("Gbit/s")
    ax2.set_title(f"SM4 throughput at {fmt_size(hsize) if hsize else '?'} by mode")
    ax2.grid(True, axis="y", alpha=0.3)
    ax2.legend(fontsize=7)

    fig.tight_layout()
    fig.savefig(png_path, dpi=110)
    plt.close(fig)


# --------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("json", nargs="+", help="bench JSON file(s)")
    ap.add_argument("--md", help="write the markdown here (also printed on stdout)")
    ap.add_argument("--png", help="write the plot here (needs matplotlib)")
    ap.add_argument("--mca", help="llvm-mca records (default: mca.json next to the first JSON)")
    ap.add_argument("--quiet", action="store_true", help="do not print the markdown")
    args = ap.parse_args(argv)

    records = [r for path in args.json for r in load_records(path)]
    mca_path = args.mca or default_mca_path(args.json[0])
    mca = load_records(mca_path) if mca_path and os.path.exists(mca_path) else []
    text = render_markdown(records, mca)
    if args.md:
        with open(args.md, "w", encoding="utf-8") as f:
            f.write(text)
    if not args.quiet:
        sys.stdout.write(text)
    if args.png:
        try:
            plot(records, args.png)
            print(f"report: wrote {args.png}", file=sys.stderr)
        except ImportError:
            print("report: matplotlib not installed, no PNG", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
