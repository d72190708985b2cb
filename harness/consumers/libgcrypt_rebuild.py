#!/usr/bin/env python3
"""Debian 12's libgcrypt 1.10.1 built twice, as it is and with our generated
assembly as a further SM4 bulk path; libgcrypt's own `make check` on ours, and
its `bench-slope` for SM4 on both builds in one run (docs/consumers.md).

  python3 harness/consumers/libgcrypt_rebuild.py [--work build/libgcrypt-rebuild]
      [--src DIR] [--jobs N] [--no-check] [--md FILE]

The source is Debian's own source package (libgcrypt20 1.10.1-3+deb12u1, its
patches applied), fetched by apt-get from Debian's archive through a source
list of this script's own (nothing in /etc is changed), or a tree given with
--src.  Into the second copy go:
  cipher/kcrypt-sm4-wordslice-avx2-{vaes,aesni}.S  generated/asm/libgcrypt/x86_64/
      sm4_wordslice_avx2_{vaes,aesni}.S as they are, assembled by an #include
      at the end of cipher/sm4-aesni-avx2-amd64.S (no autotools run needed);
  cipher/sm4-kcrypt.c  harness/consumers/libgcrypt/sm4-kcrypt.c, included by
      cipher/sm4.c after its context, and three calls in sm4.c's CTR, CBC
      decryption and CFB decryption bulk functions that run their whole
      64-block batches through it first.
Every edit is an exact text insertion checked to apply once: a source that
differs stops the script with the line it could not find."""

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
ASM = REPO / "generated" / "asm" / "libgcrypt" / "x86_64"
KERNELS = ("vaes", "aesni")
DEBIAN_SOURCE = "libgcrypt20=1.10.1-3+deb12u1"
DEBIAN_ARCHIVE = "deb-src http://deb.debian.org/debian bookworm main"

# (bulk function's kernel call, its chain argument, its round keys): where the batch path goes
BULK = (("_gcry_sm4_aesni_avx2_ctr_enc(ctx", "kcrypt_ctr_enc", "ctx->rkey_enc", "ctr"),
        ("_gcry_sm4_aesni_avx2_cbc_dec(ctx", "kcrypt_cbc_dec", "ctx->rkey_dec", "iv"),
        ("_gcry_sm4_aesni_avx2_cfb_dec(ctx", "kcrypt_cfb_dec", "ctx->rkey_enc", "iv"))


def log(msg):
    print(f"libgcrypt-rebuild: {msg}", flush=True)


def run(cmd, cwd=None, logfile=None, env=None):
    """Runs cmd; its output to logfile if given.  Stops the script on failure."""
    t0 = time.time()
    out = open(logfile, "w") if logfile else None
    proc = subprocess.run(cmd, cwd=cwd, stdout=out or subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    if out:
        out.close()
    if proc.returncode != 0:
        tail = Path(logfile).read_text()[-4000:] if logfile else proc.stdout[-4000:]
        sys.exit(f"libgcrypt-rebuild: {' '.join(cmd)} failed in {cwd} ({time.time() - t0:.0f} s):\n{tail}")
    return proc.stdout if not out else ""


def fetch_debian_source(work):
    """Debian's libgcrypt20 source, unpacked with its patches: the tree's path."""
    tree = work / "debian-source" / "libgcrypt20-1.10.1"
    if (tree / "cipher" / "sm4.c").exists():
        return tree
    apt = work / "debian-source" / "apt"
    (apt / "lists" / "partial").mkdir(parents=True, exist_ok=True)
    (apt / "sources.list").write_text(DEBIAN_ARCHIVE + "\n")
    opts = [f"-o=Dir::Etc::SourceList={apt / 'sources.list'}", "-o=Dir::Etc::SourceParts=/nonexistent",
            f"-o=Dir::State::Lists={apt / 'lists'}", "-o=APT::Sandbox::User=root"]
    log("fetching Debian's source package (apt-get source, a source list of our own)")
    run(["apt-get", *opts, "update"], cwd=work)
    run(["apt-get", *opts, "source", "--download-only", DEBIAN_SOURCE], cwd=work / "debian-source")
    dsc = sorted((work / "debian-source").glob("libgcrypt20_*.dsc"))[-1]
    run(["dpkg-source", "-x", dsc.name, tree.name], cwd=work / "debian-source")
    return tree


def insert_once(text, anchor, addition, after=True, what=""):
    if text.count(anchor) != 1:
        sys.exit(f"libgcrypt-rebuild: {what}: expected once in the source, found {text.count(anchor)} times:\n{anchor}")
    at = text.index(anchor) + (len(anchor) if after else 0)
    return text[:at] + addition + text[at:]


def patch_tree(tree):
    """Our assembly and glue into a copy of libgcrypt's tree (see the docstring)."""
    cipher = tree / "cipher"
    for kernel in KERNELS:
        shutil.copy(ASM / f"sm4_wordslice_avx2_{kernel}.S", cipher / f"kcrypt-sm4-wordslice-avx2-{kernel}.S")
    shutil.copy(HERE / "libgcrypt" / "sm4-kcrypt.c", cipher / "sm4-kcrypt.c")
    avx2 = cipher / "sm4-aesni-avx2-amd64.S"
    avx2.write_text(avx2.read_text() + "\n/* kcrypt's generated kernels (harness/consumers/libgcrypt_rebuild.py);\n"
                    " * their dialect is libgcrypt 1.11's, whose asm-common-amd64.h names the read-only\n"
                    " * section (1.10's does not) */\n#ifndef SECTION_RODATA\n# define SECTION_RODATA .section .rodata\n"
                    "#endif\n" + "".join(f'#include "kcrypt-sm4-wordslice-avx2-{k}.S"\n' for k in KERNELS))
    sm4 = cipher / "sm4.c"
    text = sm4.read_text()
    text = insert_once(text, "  unsigned int use_aesni_avx2:1;\n", "  unsigned int use_kcrypt:2;\n", what="context")
    text = insert_once(text, "} SM4_context;\n", '\n#ifdef USE_AESNI_AVX2\n#include "sm4-kcrypt.c"\n#endif\n',
                       what="the glue's place")
    text = insert_once(text, "  ctx->use_aesni_avx2 = (hwf & HWF_INTEL_AESNI) && (hwf & HWF_INTEL_AVX2);\n",
                       "  ctx->use_kcrypt = ctx->use_aesni_avx2 ? kcrypt_select (hwf) : KCRYPT_NONE;\n",
                       what="setkey")
    for call, glue, rk, chain in BULK:
        start = text.index(call)
        head = text.rindex("  int burn_stack_depth = 0;\n", 0, start) + len("  int burn_stack_depth = 0;\n")
        block = (f"\n#ifdef USE_AESNI_AVX2\n  if (ctx->use_kcrypt)\n    {{\n"
                 f"      size_t done = {glue} (ctx->use_kcrypt, {rk}, outbuf, inbuf, {chain}, nblocks);\n"
                 f"      nblocks -= done;\n      outbuf += 16 * done;\n      inbuf += 16 * done;\n    }}\n#endif\n")
        text = text[:head] + block + text[head:]
    sm4.write_text(text)


def build(tree, jobs, logs, name):
    if not (tree / "config.status").exists():
        log(f"{name}: configure")
        run(["./configure", "--disable-doc", "--disable-static"], cwd=tree, logfile=logs / f"{name}-configure.log")
    log(f"{name}: make -j{jobs}")
    run(["make", f"-j{jobs}"], cwd=tree, logfile=logs / f"{name}-make.log")


BENCH_ROW = re.compile(r"^\s+(\S+)\s+(enc|dec|auth)\s+\|\s+([\d.]+) ns/B\s+([\d.]+) MiB/s\s+([\d.]+) c/B\s+([\d.]+)")


def bench_slope(tree):
    """{(mode, direction): (ns/B, MiB/s, c/B, MHz)} from tests/bench-slope's SM4 rows."""
    out = run(["tests/bench-slope", "--cpu-mhz", "auto", "cipher", "sm4"], cwd=tree)
    rows = {}
    for line in out.splitlines():
        m = BENCH_ROW.match(line)
        if m:
            rows[(m.group(1), m.group(2))] = tuple(float(m.group(i)) for i in (3, 4, 5, 6))
    if not rows:
        sys.exit(f"libgcrypt-rebuild: no SM4 rows in bench-slope's output:\n{out}")
    return rows, out


def cpu_name():
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown CPU"


def table(stock, ours):
    lines = [f"libgcrypt 1.10.1 (Debian 12's source) `tests/bench-slope --cpu-mhz auto cipher sm4`, "
             f"{cpu_name()}, {time.strftime('%Y-%m-%d')}; both builds in one run, stock then ours",
             "", "| mode | direction | stock c/B | stock MiB/s | ours c/B | ours MiB/s | ours / stock |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for key in stock:
        if key not in ours:
            continue
        s, o = stock[key], ours[key]
        lines.append(f"| {key[0]} | {key[1]} | {s[2]:.2f} | {s[1]:,.1f} | {o[2]:.2f} | {o[1]:,.1f} | "
                     f"{o[1] / s[1]:.2f}x |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", default=str(REPO / "build" / "libgcrypt-rebuild"))
    ap.add_argument("--src", help="a libgcrypt 1.10.1 tree instead of Debian's source package")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--no-check", action="store_true", help="skip libgcrypt's make check on our build")
    ap.add_argument("--md", help="the bench-slope table (default WORK/bench-slope.md)")
    args = ap.parse_args()
    work = Path(args.work).resolve()
    logs = work / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    source = Path(args.src).resolve() if args.src else fetch_debian_source(work)
    trees = {"stock": work / "stock", "kcrypt": work / "kcrypt"}
    for name, tree in trees.items():
        if not tree.exists():
            shutil.copytree(source, tree, symlinks=True)
            if name == "kcrypt":
                patch_tree(tree)
        build(tree, args.jobs, logs, name)
    symbols = run(["nm", "--defined-only", str(trees["kcrypt"] / "cipher" / ".libs" / "sm4-aesni-avx2-amd64.o")])
    missing = [k for k in KERNELS if f"_gcry_sm4_wordslice_avx2_{k}_batch_xor" not in symbols]
    if missing:
        sys.exit(f"libgcrypt-rebuild: our kernels ({', '.join(missing)}) are not in the kcrypt build's objects")
    if not args.no_check:
        log("kcrypt: make check (libgcrypt's own tests on our build)")
        run(["make", "check", f"-j{args.jobs}"], cwd=trees["kcrypt"], logfile=logs / "kcrypt-check.log")
        summary = [line for line in (logs / "kcrypt-check.log").read_text().splitlines()
                   if re.match(r"^(All \d+ tests passed|\(\d+ tests? (was|were) not run\))", line)]
        log("make check passed: " + " ".join(summary))
    log("bench-slope, stock then ours")
    stock, stock_out = bench_slope(trees["stock"])
    ours, ours_out = bench_slope(trees["kcrypt"])
    (logs / "bench-slope-stock.txt").write_text(stock_out)
    (logs / "bench-slope-kcrypt.txt").write_text(ours_out)
    text = table(stock, ours)
    print(text)
    Path(args.md or work / "bench-slope.md").write_text(text)


if __name__ == "__main__":
    main()
