#!/usr/bin/env python3
"""Benchmark report: markdown tables and a PNG from the records `bench` writes.

Usage::

    python3 harness/report.py build/bench.json [--md build/bench.md]
                              [--png build/bench.png] [--mca build/mca.json]

`build/bench --json FILE` runs this itself (FILE.md, FILE.png) and the
markdown is printed on stdout.  Records from `harness/mca_model.py` (llvm-mca
static model, ``"modelled": true``) are added as a separate, clearly
labelled table at the end of their cipher's section (the ZUC keystream
kernel, shared by ZUC-128 and ZUC-256, is filed under zuc256); they are read from ``--mca`` or, by default, from
``mca.json`` next to the bench JSON when that file exists.

Records (one per subject x mode x message size) carry at least: cipher,
impl ("ours", or a peer: "openssl", "libgcrypt", "ipsec-mb"), name (kernel
name for ours), strategy, target, mode, msg_bytes, lanes, gbps, cpb; ZUC
records also streams (messages per call: Gbit/s and c/B count all of them)
and mac_method (our MACs: "clmul" or "compare").  Each cipher gets its own
section (SM4, ZUC-128, ZUC-256, uBlock-128/128, 128/256, 256/256), compared
with its own peers at its own headline size.  uBlock has no peer library: its
sections set the two strategies side by side per target and mode, and the
paper's figures (AMD Ryzen 9 5900X) as reference lines beside ours, each row
saying whether it is measured as the paper measured (one block encrypted
1,000,000 times: bench's ``block-loop`` records, which carry ``loops``) or is
a buffer figure; a section gathers those one-block figures for every
variant, and a last section checks the issue's targets (3x the paper, 4x the
register strategy) on the records of the one run.  The module has no
third-party dependency except matplotlib, which is needed only for the PNG.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections import OrderedDict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import target_manifest  # noqa: E402

MODES = ("ecb-enc", "ecb-dec", "cbc-enc", "cbc-dec", "ctr",
         "keystream", "enc", "mac32", "mac64", "mac128")


class CipherInfo:
    """How a cipher's section is titled and compared: its peers (in table
    order, with their names in headers), the message size of its headline
    (the workloads its peers are built for), the mode its plot follows over
    message sizes, what its many-stream calls are ({streams}: their number),
    and what its modelled figures model."""

    def __init__(self, title, peers, headline_bytes, line_mode="ctr", streams_note="",
                 model_note=""):
        self.title = title
        self.peers = peers  # ((impl, display name), ...)
        self.headline_bytes = headline_bytes
        self.line_mode = line_mode
        self.streams_note = streams_note
        self.model_note = model_note


ZUC_STREAMS = (" Every call processes {streams} messages of the given size (one per stream, each "
               "with its own key and IV), so every lane is busy; Gbit/s and c/B count the bytes "
               "of all of them (c/B = seconds x clock / (streams x bytes)). enc and mac include "
               "key loading and initialisation; keystream is the kernel alone on initialised "
               "states. Our MACs are listed per method (clmul, compare).")
ZUC_MODEL = ("Static throughput model of one keystream_block call (16 rounds, 64 bytes per lane) "
             "from `harness/mca_model.py`; not a measurement. ZUC-128 and ZUC-256 share this "
             "kernel.")
SM4_MODEL = ("Static throughput model of the kernel's round loop (plus transposition where "
             "modelled), from `harness/mca_model.py`; not a measurement.")
UBLOCK_STREAMS = (" cbc-enc is the paper's multi-key measurement: every call encrypts {streams} "
                  "messages of the given size side by side, one per stream with its own key and "
                  "IV, through the kernel's multi-key entry; Gbit/s and c/B count the bytes of "
                  "all of them (c/B = seconds x clock / (streams x bytes)). The other modes run "
                  "one key and one message per call; key expansion is not timed.")
UBLOCK_MODEL = ("Static throughput model of one kernel pass (one batch of blocks, encryption) "
                "from `harness/mca_model.py`; not a measurement.")

CIPHERS = {
    "sm4": CipherInfo("SM4", (("openssl", "OpenSSL"), ("libgcrypt", "libgcrypt")), 65536,
                      model_note=SM4_MODEL),
    "zuc128": CipherInfo("ZUC-128", (("ipsec-mb", "ipsec-mb"),), 4096, "enc", ZUC_STREAMS,
                         ZUC_MODEL),
    "zuc256": CipherInfo("ZUC-256", (("ipsec-mb", "ipsec-mb"),), 4096, "enc", ZUC_STREAMS,
                         ZUC_MODEL),
    "ublock128_128": CipherInfo("uBlock-128/128", (), 65536, "ctr", UBLOCK_STREAMS, UBLOCK_MODEL),
    "ublock128_256": CipherInfo("uBlock-128/256", (), 65536, "ctr", UBLOCK_STREAMS, UBLOCK_MODEL),
    "ublock256_256": CipherInfo("uBlock-256/256", (), 65536, "ctr", UBLOCK_STREAMS, UBLOCK_MODEL),
}

# The uBlock paper's figures (Gao et al., "Fast software implementation of the block
# cipher uBlock", J. National Univ. of Defense Technology 46(6), 2024: section 3.2 and the
# conclusion), in Mbit/s: one key, and four keys (CBC), short messages, AVX2.
# Reference lines only: not measured here.  A "short message" is one block
# (128 or 256 bits) encrypted 1,000,000 times in a loop per test (section
# 3.1), the mean of 10 tests: bench's block-loop records measure the same.
UBLOCK_PAPER = {"ublock128_128": (7205, 6340), "ublock128_256": (4099, 3422),
                "ublock256_256": (3182, 2813)}
UBLOCK_PAPER_CPU = "AMD Ryzen 9 5900X (Zen 3) @ 3.7 GHz"
UBLOCK_PAPER_GHZ = 3.7  # the paper's stated clock, for its figures in c/B
UBLOCK_PAPER_LOOPS = 1_000_000  # encryptions of the one block per test (section 3.1)
LOOP_MODE = "block-loop"
UBLOCK_PAPER_FACTOR = 3  # the issue: nibbleslice CTR at least 3x the paper's single-key figure
# The paper's method (our register strategy) and its instruction set: AVX2
# and nothing more (gen/backends/cpu_features.py's names).
UBLOCK_PAPER_STRATEGY = "register"
UBLOCK_PAPER_FEATURES = ("avx2",)


def paper_kernel(strategy=UBLOCK_PAPER_STRATEGY):
    """Our uBlock kernel of `strategy` on the paper's instruction set: on the
    target (generated/targets.json) that needs the paper's features alone
    (register_<that target>: the paper's method, like for like)."""
    manifest = target_manifest.load()
    (target,) = [t for t in manifest.kernel_targets("ublock")
                 if tuple(manifest.target(t)["cpu_features"]) == UBLOCK_PAPER_FEATURES]
    return f"{strategy}_{target}"


def ublock_required_gbps(cipher):
    """The issue's CTR target for one uBlock variant, in Gbit/s."""
    return UBLOCK_PAPER_FACTOR * UBLOCK_PAPER[cipher][0] / 1000
PEERS = tuple(dict.fromkeys(p for info in CIPHERS.values() for p, _ in info.peers))
HEADLINE_BYTES = CIPHERS["sm4"].headline_bytes


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
    """How a subject is named in tables and legends: our kernel's name (with
    the MAC method where there is one), or the peer: the library, or for
    ipsec-mb and the Linux kernel its name, which says the code it ran (e.g.
    ipsec-mb_avx512, linux sm4_ce_ctr_enc)."""
    if rec.get("impl") == "ours":
        name = rec.get("name") or f"{rec.get('strategy')}_{rec.get('target')}"
        return f"{name} ({rec['mac_method']})" if rec.get("mac_method") else name
    if rec.get("impl") in ("ipsec-mb", "linux"):
        return rec.get("name") or rec["impl"]
    return rec.get("impl", "?")


def cipher_of(rec):
    """The record's cipher (SM4 when the record predates the field)."""
    return rec.get("cipher") or "sm4"


def cipher_info(cipher):
    return CIPHERS.get(cipher) or CipherInfo(cipher.upper(), (), HEADLINE_BYTES)


def ciphers_of(records):
    """The ciphers present, known ones in table order."""
    present = {cipher_of(r) for r in records}
    return [c for c in CIPHERS if c in present] + sorted(present - set(CIPHERS))


def of_cipher(records, cipher):
    return [r for r in records if cipher_of(r) == cipher]


def measured(records):
    """The timed buffer records: modelled ones and the uBlock paper's
    one-block loops (which have their own tables) left out."""
    return [r for r in records if not r.get("modelled") and not r.get("loops")]


def one_block_loops(records):
    """The timed one-block-loop records (the uBlock paper's method)."""
    return [r for r in records if not r.get("modelled") and r.get("loops")]


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
    """The cipher's headline size (SM4: 64 KiB, ZUC: 4 KiB) if measured,
    else the largest measured size."""
    sizes = sizes_of(records)
    if not sizes:
        return None
    wanted = cipher_info(cipher_of(records[0])).headline_bytes
    return wanted if wanted in sizes else sizes[-1]


def peer_names(records):
    """The peers of the records' cipher, as impl names."""
    return [p for p, _ in cipher_info(cipher_of(records[0])).peers] if records else []


def headline_rows(records, size=None):
    """Per mode at one size (records of one cipher): our fastest kernel, the
    peers, and the ratios.

    Returns a list of dicts with mode, best (the record of our fastest
    verified kernel other than the scalar reference, or None), one entry per
    peer of the cipher (e.g. openssl, libgcrypt; ipsec-mb: the record of its
    fastest run, or None) and vs_<peer> (throughput ratio ours/peer or
    None).
    """
    records = measured(records)
    size = size or headline_size(records)
    peers = peer_names(records)
    rows = []
    for mode in modes_of(records):
        at = [r for r in records if r["mode"] == mode and r["msg_bytes"] == size]
        ours = [r for r in at if r.get("impl") == "ours" and r.get("verified", True)]
        # The scalar reference is a table-based oracle, not constant-time: it
        # stands for "ours" only when nothing else was measured.
        ours = [r for r in ours if r.get("strategy") != "reference"] or ours
        best = max(ours, key=lambda r: r["gbps"], default=None)
        found = {p: max((r for r in at if r.get("impl") == p), key=lambda r: r["gbps"],
                        default=None)
                 for p in peers}
        row = {"mode": mode, "size": size, "best": best, **found}
        for p in peers:
            ok = best is not None and found[p] is not None and found[p]["gbps"] > 0
            row["vs_" + p] = best["gbps"] / found[p]["gbps"] if ok else None
        rows.append(row)
    return rows


def subjects_of(records):
    """Subject labels in a stable order: our kernels (by name), then peers."""
    ours = sorted({subject_label(r) for r in records if r.get("impl") == "ours"})
    peers = [p for p in PEERS if any(r.get("impl") == p for r in records)]
    peers = [label for p in peers
             for label in sorted({subject_label(r) for r in records if r.get("impl") == p})]
    others = sorted({subject_label(r) for r in records} - set(ours) - set(peers))
    return ours + peers + others


def lookup(records):
    """(label, mode, size) -> record."""
    return {(subject_label(r), r["mode"], r["msg_bytes"]): r for r in records}


# --------------------------------------------------------------------------
# Markdown
# --------------------------------------------------------------------------

def fmt_lanes(rec):
    """Lanes of a record ('–' when unknown or not given)."""
    lanes = rec.get("lanes") if rec else None
    return lanes if lanes else "–"


def peer_runs(records, peer):
    """The peer's distinct runs (subject labels) among the records."""
    return sorted({subject_label(r) for r in records if r.get("impl") == peer})


def render_headline(records):
    """The headline table of one cipher's records.  A peer measured in more
    than one way (ipsec-mb with its own choice of code and with AVX2
    forced) gets a column naming the run compared with: its fastest."""
    rows = headline_rows(records)
    if not rows:
        return "No measurements."
    size = rows[0]["size"]
    peers = cipher_info(cipher_of(records[0])).peers
    named = {p for p, _ in peers if len(peer_runs(measured(records), p)) > 1}
    body = []
    for row in rows:
        b = row["best"]
        cells = [row["mode"], f"`{subject_label(b)}`" if b else "–", fmt_lanes(b),
                 fmt_num(b and b["gbps"]), fmt_num(b and b.get("cpb"))]
        for p, _ in peers:
            rec = row[p]
            if p in named:
                cells.append(f"`{subject_label(rec)}`" if rec else "–")
            cells += [fmt_num(rec and rec["gbps"]), fmt_num(rec and rec.get("cpb"))]
        cells += [fmt_ratio(row["vs_" + p]) for p, _ in peers]
        body.append(cells)
    header, align = ["mode", "our best kernel", "lanes", "ours Gbit/s", "ours c/B"], "lllrr"
    for p, shown in peers:
        if p in named:
            header.append(f"{shown} run")
            align += "l"
        header += [f"{shown} Gbit/s", f"{shown} c/B"]
        align += "rr"
    header += [f"ours / {shown}" for _, shown in peers]
    align += "r" * len(peers)
    streams = {r.get("streams", 1) for r in records}
    many = f", {streams.pop()} per call" if len(streams) == 1 and 1 not in streams else ""
    against = "vs the peers" if peers else "per mode (no peer library has this cipher)"
    return (f"### Headline: {fmt_size(size)} messages{many}, our fastest kernel {against}\n\n"
            + md_table(header, body, align))


def render_mode_tables(records):
    """One table per mode (records of one cipher): Gbit/s per subject and
    size, and c/B at the headline size."""
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
            rows.append([f"{label}{flag}", some.get("impl", "?"), fmt_lanes(some), *cells,
                         fmt_num(h and h.get("cpb"))])
        header = ["subject", "impl", "lanes", *[fmt_size(z) for z in sizes],
                  f"c/B @ {fmt_size(hsize)}"]
        cipher = cipher_of(records[0])
        title = "" if cipher == "sm4" else f"{cipher_info(cipher).title} "
        parts.append(f"### {title}{mode}: Gbit/s by message size\n\n"
                     + md_table(header, rows, "lllr" + "r" * len(sizes)))
    return "\n\n".join(parts)


def compared_mode(rec):
    """The measured mode a modelled record is set beside: SM4 kernels (mode
    "kernel") with ECB encryption, others (ZUC "keystream") with their own."""
    mode = rec.get("mode")
    return "ecb-enc" if mode in (None, "kernel") else mode


def render_modelled(records, bench_records=(), cipher=None):
    """The llvm-mca figures of one cipher, labelled as modelled, beside the
    measured c/B of the same kernel (SM4: ECB encryption; ZUC: keystream; at
    the headline size) when there is one."""
    recs = modelled(records)
    if not recs:
        return ""
    bench = lookup(measured(bench_records))
    hsize = headline_size(measured(bench_records)) if bench_records else None
    modes = sorted({compared_mode(r) for r in recs})
    rows = []
    for r in sorted(recs, key=lambda r: (subject_label(r), r.get("cpu_model", ""))):
        label = subject_label(r)
        meas = bench.get((label, compared_mode(r), hsize)) if hsize else None
        # A CPU model that lacks the kernel's instructions gives no figure: say why.
        cpb = fmt_num(r.get("cpb")) if r.get("cpb") is not None else r.get("error", "–")
        rows.append([
            f"`{label}`",
            compared_mode(r),
            f"modelled (llvm-mca {r.get('cpu_model', '?')})",
            cpb,
            fmt_num(r.get("bound_cpb")),
            fmt_num(r.get("cpb_over_bound")),
            fmt_num(r.get("cycles_per_batch"), 1),
            r.get("batch_bytes", r.get("msg_bytes", "–")),
            fmt_num(meas and meas.get("cpb")),
        ])
    header = ["kernel", "mode", "source", "c/B (modelled)", "bound c/B (vector ops / pipes)", "modelled / bound",
              "cycles / batch", "bytes / batch",
              f"c/B measured here ({', '.join(modes)}, {fmt_size(hsize) if hsize else '–'})"]
    if cipher in (None, "sm4"):
        title = "### Modelled figures (not measured)"
    else:
        title = f"### {cipher_info(cipher).title} modelled figures (not measured)"
    note = cipher_info(cipher or "sm4").model_note
    return title + "\n\n" + note + "\n\n" + md_table(header, rows, "lll" + "r" * 6)


def render_intro(records):
    """What a cipher section's figures are."""
    r0 = records[0]
    text = (f"CPU: {r0.get('cpu', 'unknown')}. Cycles per byte use a core clock of "
            f"{fmt_num(r0.get('clock_ghz'))} GHz estimated by timing a "
            f"{r0.get('clock_method', 'dependent chain of integer adds')}. "
            "Each figure is the best of several timed repetitions; emulated kernels are "
            "never timed.")
    streams = sorted({r.get("streams", 1) for r in records} - {1})
    if streams:
        note = cipher_info(cipher_of(r0)).streams_note
        text += note.format(streams=", ".join(map(str, streams)))
    arches = sorted({f"`{subject_label(r)}` ({r.get('target', '')})" for r in records
                     if r.get("impl") == "ipsec-mb"})
    if arches:
        text += " ipsec-mb runs: " + "; ".join(arches) + "."
    if any(not r.get("verified", True) for r in records):
        text += (" Rows marked (output MISMATCH) differ from our scalar reference; our own "
                 "such kernels are left out of the headline.")
    return text


# --------------------------------------------------------------------------
# uBlock: strategies side by side, the paper's figures, the targets
# --------------------------------------------------------------------------

def ublock_targets():
    """The targets of uBlock's C kernels (generated/targets.json), per
    architecture narrowest vectors first."""
    manifest = target_manifest.load()
    arches = [a["name"] for a in manifest.data["architectures"]]
    return sorted(manifest.kernel_targets("ublock"),
                  key=lambda t: (arches.index(manifest.arch_of(t)), manifest.target(t)["bits"]))


UBLOCK_MODES = ("ctr", "ecb-enc", "ecb-dec", "cbc-dec", "cbc-enc")


def is_ublock(cipher):
    return cipher.startswith("ublock")


def find_measured(records, name, mode, size):
    """Our verified record of kernel `name` in `mode` at `size`, or None."""
    return next((r for r in measured(records)
                 if r.get("impl") == "ours" and r.get("name") == name and r["mode"] == mode
                 and r["msg_bytes"] == size and r.get("verified", True)), None)


def ratio(a, b):
    """a / b of two records' (or numbers') Gbit/s, or None."""
    a = a["gbps"] if isinstance(a, dict) else a
    b = b["gbps"] if isinstance(b, dict) else b
    return a / b if a is not None and b else None


def render_ublock_strategies(records):
    """register (the paper's method) and nibbleslice on each target and mode,
    at the headline size, of one uBlock variant's records."""
    size = headline_size(measured(records))
    rows = []
    for target in ublock_targets():
        for mode in UBLOCK_MODES:
            reg = find_measured(records, f"register_{target}", mode, size)
            nib = find_measured(records, f"nibbleslice_{target}", mode, size)
            if reg or nib:
                streams = (reg or nib).get("streams", 1)
                rows.append([target, mode + (f" ({streams} keys)" if streams > 1 else ""),
                             fmt_num(reg and reg["gbps"]), fmt_num(reg and reg.get("cpb")),
                             fmt_num(nib and nib["gbps"]), fmt_num(nib and nib.get("cpb")),
                             fmt_ratio(ratio(nib, reg) if reg and nib else None)])
    if not rows:
        return ""
    header = ["target", "mode", "register Gbit/s", "register c/B", "nibbleslice Gbit/s",
              "nibbleslice c/B", "nibbleslice / register"]
    return (f"### Strategies side by side at {fmt_size(size)}\n\n"
            + md_table(header, rows, "llrrrrr"))


ASM_SUFFIX = "_asm"


def asm_twins(records):
    """Per assembly kernel measured (name ending in _asm) with its C twin in
    the same run: {(cipher, C kernel name): [(cell, C record, asm record)]},
    a cell being (mode, message bytes, streams, MAC method)."""
    def cell(r):
        return (r["mode"], r["msg_bytes"], r.get("streams", 1), r.get("mac_method"))

    ours = [r for r in measured(records) if r.get("impl") == "ours" and r.get("verified", True) and r.get("gbps")]
    c_records = {(cipher_of(r), r.get("name"), cell(r)): r for r in ours}
    pairs = {}
    for r in ours:
        name = r.get("name") or ""
        if name.endswith(ASM_SUFFIX):
            twin = c_records.get((cipher_of(r), name[:-len(ASM_SUFFIX)], cell(r)))
            if twin:
                pairs.setdefault((cipher_of(r), twin["name"]), []).append((cell(r), twin, r))
    return pairs


def geometric_mean(values):
    values = list(values)
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def render_asm_twins(records):
    """Each kernel's assembly twin against its C intrinsics, measured in this
    run: asm/C per kernel as the geometric mean over every cell both ran
    (modes and sizes), the slowest cell beside it, and over all kernels."""
    pairs = asm_twins(records)
    if not pairs:
        return ""
    rows, per_kernel = [], []
    for (cipher, name), cells in sorted(pairs.items()):
        ratios = [a["gbps"] / c["gbps"] for _, c, a in cells]
        kernel = geometric_mean(ratios)
        per_kernel.append(kernel)
        worst_cell, worst_c, worst_a = min(cells, key=lambda t: t[2]["gbps"] / t[1]["gbps"])
        rows.append([cipher, name, len(cells), fmt_ratio(kernel),
                     f"{fmt_ratio(worst_a['gbps'] / worst_c['gbps'])} ({worst_cell[0]}, {fmt_size(worst_cell[1])})"])
    overall = geometric_mean(per_kernel)
    slowest = min(per_kernel)
    header = ["cipher", "kernel", "cells", "asm / C (geometric mean)", "slowest cell"]
    return ("### Assembly twins against their C kernels (measured in this run)\n\n"
            "asm / C above 1 means the assembly (registers allocated by gen/backends/regalloc.py) "
            "is the faster.\n\n" + md_table(header, rows, "llrrl")
            + f"\n\nOver {len(per_kernel)} kernels: geometric mean {fmt_ratio(overall)}, "
              f"slowest kernel {fmt_ratio(slowest)}.")


def best_ours(records, mode, size):
    """Our fastest verified kernel other than the reference in mode at size."""
    cands = [r for r in measured(records) if r.get("impl") == "ours" and r["mode"] == mode
             and r["msg_bytes"] == size and r.get("verified", True)
             and r.get("strategy") != "reference"]
    return max(cands, key=lambda r: r["gbps"], default=None)


# --------------------------------------------------------------------------
# uBlock: the paper's own measurement (one block, 1,000,000 times)
# --------------------------------------------------------------------------

UBLOCK_ROLES = ("paper-method", "fastest")


def paper_gbps(cipher, streams):
    """The paper's figure for a variant with one key or (streams 4) four."""
    single, four = UBLOCK_PAPER[cipher]
    return (single if streams == 1 else four) / 1000


def paper_cpb(gbps):
    """c/B of a paper figure at the paper's stated clock."""
    return UBLOCK_PAPER_GHZ * 8 / gbps


def loop_gbps(rec):
    """A one-block loop's Gbit/s as the paper states its figures: from the
    mean of the tests (gbps_mean); the best where no mean was recorded."""
    return rec.get("gbps_mean") or rec["gbps"]


def loop_cpb(rec):
    return rec.get("cpb_mean") or rec.get("cpb")


def roles_of(rec):
    """The roles of a one-block-loop record: "paper-method", "fastest"."""
    return (rec.get("role") or "").split("+")


def find_loop(loops, cipher, streams, name=None, role=None):
    """The verified one-block loop of `cipher` with `streams` keys, of kernel
    `name` or of the kernel with `role`; None if there is none."""
    return next((r for r in loops
                 if cipher_of(r) == cipher and r.get("streams", 1) == streams
                 and r.get("verified", True)
                 and (name is None or r.get("name") == name)
                 and (role is None or role in roles_of(r))), None)


def loops_phrase(loops):
    """'1,000,000 times', or for a run with other counts, the counts and the
    paper's (the quick form runs 100,000)."""
    counts = sorted({r["loops"] for r in loops})
    if counts == [UBLOCK_PAPER_LOOPS]:
        return f"{UBLOCK_PAPER_LOOPS:,} times"
    shown = " / ".join(f"{n:,}" for n in counts)
    return f"{shown} times (fewer than the paper's {UBLOCK_PAPER_LOOPS:,}: a quick run)"


def loop_method(rec):
    """How a one-block loop was measured, for the tables."""
    what = ("one block" if rec.get("streams", 1) == 1
            else f"one block per key, {rec['streams']} keys, CBC")
    lanes = rec.get("lanes") or 1
    if lanes > rec.get("streams", 1):
        what += f" (a padded batch of {lanes})"
    return f"{what}, {rec['loops']:,} times, mean of {rec.get('tests', rec.get('reps', 1))}"


def render_ublock_paper(records, cipher, loops=()):
    """The paper's figures as reference lines, with ours beside them: the
    one-block loops (measured as the paper measured: like for like) and the
    buffer figures at the headline size (not the paper's measurement)."""
    if cipher not in UBLOCK_PAPER:
        return ""
    single, four = paper_gbps(cipher, 1), paper_gbps(cipher, 4)
    size = headline_size(measured(records))
    loops = [r for r in one_block_loops(loops) if cipher_of(r) == cipher]
    paper_how = f"one block, {UBLOCK_PAPER_LOOPS:,} times, mean of 10"
    rows = [
        ["paper: one key (reference line)", "AVX2, the paper's code", paper_how,
         fmt_num(single, 3), fmt_num(paper_cpb(single)), "–", "–"],
        ["paper: four keys, CBC (reference line)", "AVX2, the paper's code",
         "one block per key, 4 keys, CBC, " + paper_how.split(", ", 1)[1],
         fmt_num(four, 3), fmt_num(paper_cpb(four)), "–", "–"],
    ]
    like = "yes: the paper's measurement"
    method = paper_kernel()
    for what, streams, name, role in (("the paper's method, one key", 1, method, None),
                                      ("the paper's method, four keys", 4, method, None),
                                      ("fastest kernel, one key", 1, None, "fastest")):
        rec = find_loop(loops, cipher, streams, name, role)
        if rec:
            rows.append([f"ours: {what}", f"`{subject_label(rec)}`", loop_method(rec),
                         fmt_num(loop_gbps(rec), 3), fmt_num(loop_cpb(rec)),
                         fmt_ratio(loop_gbps(rec) / paper_gbps(cipher, streams)), like])
    reg_ctr = find_measured(records, method, "ctr", size)
    reg_cbc = find_measured(records, method, "cbc-enc", size)
    best = best_ours(records, "ctr", size)
    buffer = f"no: a {fmt_size(size)} buffer, not one block" if size else "no: a buffer"
    for what, rec, how, paper in (
            ("the paper's method, one key", reg_ctr, "ctr", single),
            ("the paper's method, four keys", reg_cbc, "cbc-enc, 4 keys", four),
            ("fastest kernel, one key", best, "ctr", single)):
        if rec is None and what.startswith("fastest"):
            continue
        rows.append([f"ours: {what}", f"`{subject_label(rec)}`" if rec else f"`{method}`",
                     f"{how}, {fmt_size(size)} messages" if size else how,
                     fmt_num(rec and rec["gbps"], 3), fmt_num(rec and rec.get("cpb")),
                     fmt_ratio(ratio(rec, paper) if rec else None), buffer])
    header = ["line", "kernel", "measured as", "Gbit/s", "c/B", "vs the paper", "like for like?"]
    return (f"### The paper's figures ({UBLOCK_PAPER_CPU}; not measured here) and ours\n\n"
            f"The paper times \"short messages\": one block encrypted {UBLOCK_PAPER_LOOPS:,} times "
            "in a loop per test (section 3.1), the mean of 10 tests, with one key and with four "
            "keys (CBC). Rows marked \"yes\" are measured the same way here (bench's one-block "
            "loop): they are the like-for-like comparison. The buffer rows (CTR and four-key "
            f"CBC over {fmt_size(size) if size else 'whole'} messages) measure something else "
            "(many blocks per call) and are not comparable with the paper's figures. The "
            f"paper's c/B are at its stated {UBLOCK_PAPER_GHZ} GHz.\n\n"
            + md_table(header, rows, "lllrrrl"))


def loop_order(rec):
    """Table order of one-block loops: variant, keys, the paper's method
    (by target, widest first), then the fastest kernel."""
    variant = list(UBLOCK_PAPER).index(cipher_of(rec)) if cipher_of(rec) in UBLOCK_PAPER else 99
    widest_first = ublock_targets()[::-1]
    target = widest_first.index(rec["target"]) if rec.get("target") in widest_first else 9
    return (variant, rec.get("streams", 1), "paper-method" not in roles_of(rec), target,
            rec.get("name", ""))


def render_ublock_one_block(records):
    """The uBlock paper's own measurement for every variant: one block
    encrypted `loops` times, by the register kernels (the paper's method) on
    each target and by the kernel dispatch picks, with the ratio to the
    paper's figure.  Empty when the run has no one-block loops."""
    loops = [r for r in one_block_loops(records) if cipher_of(r) in UBLOCK_PAPER]
    if not loops:
        return ""
    rows = []
    for r in sorted(loops, key=loop_order):
        paper = paper_gbps(cipher_of(r), r.get("streams", 1))
        flag = "" if r.get("verified", True) else " (output MISMATCH)"
        rows.append([cipher_info(cipher_of(r)).title,
                     "1" if r.get("streams", 1) == 1 else f"{r['streams']} (CBC)",
                     f"`{subject_label(r)}`{flag}", ", ".join(roles_of(r)), fmt_lanes(r),
                     fmt_num(loop_gbps(r), 3), fmt_num(loop_cpb(r)), fmt_num(r["gbps"], 3),
                     fmt_num(paper, 3), fmt_ratio(loop_gbps(r) / paper)])
    header = ["variant", "keys", "kernel", "role", "lanes", "Gbit/s", "c/B", "best test Gbit/s",
              "paper Gbit/s", "ours / paper"]
    r0 = loops[0]
    tests = sorted({r.get("tests", r.get("reps", 1)) for r in loops})
    return (f"## uBlock, the paper's method: one block, {loops_phrase(loops)}\n\n"
            "Measured as the paper measured its headline figures (section 3.1): one block "
            "(128 or 256 bits) encrypted in a loop per test, the same input block each time "
            "(the paper: \"the data used in every round is the same\"), through the kernel's "
            "entry point; four keys: one block per key, CBC, through the multi-key entry. "
            "Gbit/s and c/B are from the mean of "
            f"{' / '.join(map(str, tests))} test(s) (the paper averages 10); best test: the "
            "fastest one. paper-method: the register kernels (the paper's technique) on each "
            "native target; fastest: the kernel dispatch picks (ublock_impl_best), which "
            "computes its whole batch (lanes) for the one block. This is the like-for-like "
            f"comparison with the paper's figures ({UBLOCK_PAPER_CPU}, not measured here); "
            f"CPU here: {r0.get('cpu', 'unknown')}, c/B at an estimated "
            f"{fmt_num(r0.get('clock_ghz'))} GHz.\n\n"
            + md_table(header, rows, "llllrrrrrr"))


def target_row(what, size, got, need, unit):
    """One row of the targets table: measured, required, ratio, verdict."""
    r = got / need if got is not None else None
    verdict = "–" if r is None else ("met" if r >= 1 else "NOT met")
    fmt = fmt_ratio if unit == "x" else (lambda x: "–" if x is None else f"{x:.2f} Gbit/s")
    return [what, fmt_size(size), fmt(got), f"≥ {fmt(need)}", fmt_ratio(r), verdict]


def render_ublock_targets(records):
    """The issue's "Done when", measured in this one run: nibbleslice on the
    paper's instruction set (nibbleslice_avx2) uBlock-128/128 CTR at least 3x
    the paper (21.6 Gbit/s) and at least 4x the paper's method there
    (register_avx2); uBlock-256/256 at least 3x the paper's 3,182 Mbit/s."""
    nibbleslice, register = paper_kernel("nibbleslice"), paper_kernel()
    p128 = ublock_required_gbps("ublock128_128")
    p256 = ublock_required_gbps("ublock256_256")
    u128 = of_cipher(records, "ublock128_128")
    u256 = of_cipher(records, "ublock256_256")
    rows = []
    for size in sorted({4096, CIPHERS["ublock128_128"].headline_bytes}):
        nib = find_measured(u128, nibbleslice, "ctr", size)
        reg = find_measured(u128, register, "ctr", size)
        if nib or reg:
            rows.append(target_row(f"uBlock-128/128 CTR, `{nibbleslice}`", size,
                                   nib and nib["gbps"], p128, "Gbit/s"))
            rows.append(target_row(f"uBlock-128/128 CTR, `{nibbleslice}` / `{register}`",
                                   size, ratio(nib, reg) if nib and reg else None, 4.0, "x"))
        for name in (nibbleslice, None):
            rec = find_measured(u256, name, "ctr", size) if name else best_ours(u256, "ctr", size)
            if rec:
                label = f"`{name}`" if name else f"fastest: `{subject_label(rec)}`"
                rows.append(target_row(f"uBlock-256/256 CTR, {label}", size, rec["gbps"], p256,
                                       "Gbit/s"))
    if not rows:
        return ""
    header = ["target", "size", "measured", "required", "ratio", "verdict"]
    return ("## uBlock: the issue's targets (one run)\n\n"
            f"Required: {UBLOCK_PAPER_FACTOR}× the paper's {UBLOCK_PAPER['ublock128_128'][0]:,} Mbit/s (uBlock-128/128) "
            f"and {UBLOCK_PAPER['ublock256_256'][0]:,} Mbit/s (uBlock-256/256), measured on "
            f"{UBLOCK_PAPER_CPU}; nibbleslice at least 4× register on AVX2. All figures here are "
            "from this one run, and are CTR buffer figures (as the issue states its targets), "
            "not the paper's one-block measurement.\n\n" + md_table(header, rows, "llrrrl"))


def render_markdown(records, mca_records=()):
    """The whole report as one markdown string: a section per cipher."""
    meas = measured(records)
    everything = modelled(list(mca_records) + list(records))
    # AArch64's records (no hardware here: modelled alone) get a section of their own.
    model = [r for r in everything if r.get("arch") != "aarch64"]
    aarch64 = [r for r in everything if r.get("arch") == "aarch64"]
    parts = []
    sections = ciphers_of(meas) or ([] if one_block_loops(records) else ["sm4"])
    for cipher in sections:
        mine = of_cipher(meas, cipher)
        parts.append(f"## {cipher_info(cipher).title} throughput")
        if mine:
            parts.append(render_intro(mine))
        parts.append(render_headline(mine))
        if is_ublock(cipher) and mine:
            parts.append(render_ublock_strategies(mine))
            parts.append(render_ublock_paper(mine, cipher, of_cipher(records, cipher)))
        parts.append(render_mode_tables(mine))
        parts.append(render_modelled(of_cipher(model, cipher), mine, cipher))
    parts.append(render_ublock_one_block(records))
    parts.append(render_ublock_targets(meas))
    parts.append(render_asm_twins(meas))
    # Modelled kernels of a cipher with no measurements: their own sections.
    for cipher in ciphers_of(model):
        if cipher not in sections:
            parts.append(render_modelled(of_cipher(model, cipher), (), cipher))
    if aarch64:
        parts.append("## AArch64, modelled (llvm-mca on Neoverse cores; no AArch64 hardware measured)")
        parts.extend(render_modelled(of_cipher(aarch64, cipher), (), cipher) for cipher in ciphers_of(aarch64))
    return "\n\n".join(p for p in parts if p) + "\n"


# --------------------------------------------------------------------------
# Plot
# --------------------------------------------------------------------------

def plot(records, png_path):
    """One row of two panels per cipher: Gbit/s vs message size (log x) of
    one mode (SM4: CTR; ZUC: enc), one line per subject; grouped bars of
    Gbit/s at the headline size per mode."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    meas = measured(records)
    ciphers = ciphers_of(meas) or ["sm4"]
    fig, axes = plt.subplots(len(ciphers), 2, figsize=(15, 6 * len(ciphers)), squeeze=False)
    for (ax1, ax2), cipher in zip(axes, ciphers):
        plot_cipher(of_cipher(meas, cipher), cipher, ax1, ax2, plt)
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)
    plt.close(fig)


def plot_cipher(records, cipher, ax1, ax2, plt):
    """The two panels of one cipher (see plot)."""
    title = cipher_info(cipher).title
    table = lookup(records)
    sizes, labels = sizes_of(records), subjects_of(records)
    hsize = headline_size(records) if records else None
    modes = modes_of(records)
    line_mode = cipher_info(cipher).line_mode
    # Peers in dark greys and dashed, our kernels from a qualitative palette.
    cmap = plt.get_cmap("tab20")
    peer_labels = [label for label in labels
                   if any(subject_label(r) == label and r.get("impl") != "ours" for r in records)]
    ours = [label for label in labels if label not in peer_labels]
    colour = {label: cmap(i % 20) for i, label in enumerate(ours)}
    greys = ("black", "dimgrey", "grey", "darkgrey")
    colour.update({label: greys[i % len(greys)] for i, label in enumerate(peer_labels)})

    for label in labels:
        pts = [(z, table[(label, line_mode, z)]["gbps"]) for z in sizes
               if (label, line_mode, z) in table]
        if pts:
            peer = label in peer_labels
            ax1.plot(*zip(*pts), marker="o", color=colour[label], label=label,
                     linestyle="--" if peer else "-", linewidth=2.5 if peer else 1.5)
    ax1.set_xscale("log", base=2)
    ax1.set_xticks(sizes, [fmt_size(z) for z in sizes], rotation=30)
    ax1.set_xlabel("message size")
    ax1.set_ylabel("Gbit/s")
    ax1.set_title(f"{title} {line_mode} throughput")
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
    ax2.set_title(f"{title} throughput at {fmt_size(hsize) if hsize else '?'} by mode")
    ax2.grid(True, axis="y", alpha=0.3)
    ax2.legend(fontsize=7)


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
