#!/usr/bin/env python3
"""Streaming kcrypt: the issue's acceptance checks, as one report.

Usage::

    python3 harness/stream_check.py --build DIR [--size 4G] [--zuc-size 300M]
                                    [--perf-size 256M] [--reps 3] [--json FILE]
                                    [--bench PATH] [--work DIR] [--generated DIR]

DIR is a harness build folder (`make -C harness/c BUILD=DIR`): DIR/kcrypt,
DIR/bench and DIR/lib/libkcrypt.a.  Three checks:

1. ``head -c SIZE /dev/zero | kcrypt sm4 ctr -e -k K -i IV | sha256sum``
   equals the same through ``openssl enc -sm4-ctr``, and kcrypt's maximum
   resident size (``/usr/bin/time -v``) stays under 64 MiB.
2. ZUC-128 enc of a random file of ZUC_SIZE bytes: kcrypt's streamed output
   equals the one-shot library call (zuc_encrypt on the whole file, through
   a small C helper built here against DIR/lib/libkcrypt.a), max RSS under
   64 MiB.
3. Throughput, all in this run: kcrypt on a PERF_SIZE file to /dev/null
   (best of REPS) against bench's 64 KiB figure for the kernel kcrypt runs
   (the library's default choice, which the helper reports), for SM4 CTR,
   uBlock-128/128 CTR and ZUC-128 enc.  ZUC: kcrypt drives one stream, so
   bench's figure is its one-stream (--streams 1) one; kcrypt's cycles per
   byte use bench's clock estimate; ipsec-mb's one-job figure is added when
   bench reports one (its jobs stop short of 64 KiB: the largest size bench
   ran it at).

A markdown report goes to stdout (the CPU named from /proc/cpuinfo); with
--json, the same figures go to FILE and the report beside it (FILE.md).
The exit status is 0 when checks 1 and 2 pass, 1 otherwise (the throughput
table is a measurement, not a pass/fail check).  Standard library only; the
files it makes live in a temporary folder (--work to keep them elsewhere).
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RSS_LIMIT_MIB = 64
SM4_KEY, SM4_IV = "0123456789abcdeffedcba9876543210", "00112233445566778899aabbccddeeff"
ZUC_KEY, ZUC_IV = "00112233445566778899aabbccddeeff", "0f1e2d3c4b5a69788796a5b4c3d2e1f0"
UB_KEY, UB_IV = "000102030405060708090a0b0c0d0e0f", "f0e0d0c0b0a090807060504030201000"
BENCH_BYTES = 65536

# The one-shot reference: each cipher's whole-buffer library call (impl NULL:
# the library's own choice) on all of stdin, or the kernels that choice
# names.  Usage:
#   oneshot --best
#   oneshot sm4|ublock128_128|ublock128_256|ublock256_256 ecb|cbc|ctr e|d KEYHEX IVHEX|-
#   oneshot zuc128|zuc256 enc - KEYHEX IVHEX [BITS]
#   oneshot zuc128|zuc256 mac TAGBITS KEYHEX IVHEX [BITS]
ONESHOT_C = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm4.h"
#include "ublock.h"
#include "zuc.h"

static void die(const char *what) {
  fprintf(stderr, "oneshot: %s\n", what);
  exit(2);
}

static size_t unhex(const char *h, uint8_t *out, size_t cap) {
  size_t n = strlen(h) / 2;
  if (strlen(h) % 2 || n > cap) die("bad hex");
  for (size_t i = 0; i < n; i++) {
    unsigned v;
    if (sscanf(h + 2 * i, "%2x", &v) != 1) die("bad hex");
    out[i] = (uint8_t)v;
  }
  return n;
}

static uint8_t *slurp(size_t *len) {
  size_t cap = 1 << 20, n = 0, got;
  uint8_t *buf = malloc(cap);
  while (buf && (got = fread(buf + n, 1, cap - n, stdin)) > 0)
    if ((n += got) == cap) {
      uint8_t *bigger = realloc(buf, cap *= 2);
      if (!bigger) free(buf);
      buf = bigger;
    }
  if (!buf || ferror(stdin)) die("reading stdin");
  *len = n;
  return buf;
}

static void emit(const uint8_t *p, size_t n) {
  if (fwrite(p, 1, n, stdout) != n || fflush(stdout) != 0) die("writing stdout");
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--best") == 0) {
    printf("sm4 %s\nublock %s\nzuc %s\n", sm4_impl_best()->name, ublock_impl_best()->name,
           zuc_impl_best()->name);
    return 0;
  }
  if (argc < 6) die("usage: see harness/stream_check.py");
  const char *cipher = argv[1], *mode = argv[2], *arg = argv[3];
  uint8_t key[32], iv[32] = {0};
  size_t key_len = unhex(argv[4], key, sizeof key), iv_len = 0, len;
  if (strcmp(argv[5], "-") != 0) iv_len = unhex(argv[5], iv, sizeof iv);
  uint8_t *in = slurp(&len), *out = malloc(len + 1);
  if (!out) die("out of memory");
  int rc, modes = strcmp(mode, "ecb") == 0 ? 0 : strcmp(mode, "cbc") == 0 ? 1 : 2;
  int encrypt = strcmp(arg, "e") == 0;
  if (strcmp(cipher, "sm4") == 0) {
    sm4_key k;
    sm4_set_key(&k, key);
    rc = sm4_crypt(NULL, (sm4_mode)modes, encrypt ? SM4_ENCRYPT : SM4_DECRYPT, &k, iv, in, out, len);
    emit(out, len);
  } else if (strncmp(cipher, "ublock", 6) == 0) {
    ublock_variant v;
    static ublock_key k;
    if (ublock_variant_from_name(cipher, &v) != UBLOCK_OK || ublock_set_key(&k, v, key) != UBLOCK_OK)
      die("ublock key");
    rc = ublock_crypt(NULL, (ublock_mode)modes, encrypt ? UBLOCK_ENCRYPT : UBLOCK_DECRYPT, &k, iv,
                      in, out, len);
    emit(out, len);
  } else {
    zuc_variant v = strcmp(cipher, "zuc128") == 0 ? ZUC_128 : ZUC_256;
    size_t bits = argc > 6 ? strtoull(argv[6], NULL, 10) : 8 * len;
    if (bits > 8 * len) die("--bits beyond the input");
    if (strcmp(mode, "mac") == 0) {
      uint8_t tag[16];
      unsigned tag_bits = (unsigned)atoi(arg);
      rc = zuc_mac(v, key, key_len, iv, iv_len, in, bits, tag_bits, tag);
      for (unsigned i = 0; i < tag_bits / 8; i++) printf("%02x", tag[i]);
      printf("\n");
    } else {
      rc = zuc_encrypt(v, key, key_len, iv, iv_len, in, out, bits);
      emit(out, (bits + 7) / 8);
    }
  }
  free(in);
  free(out);
  if (rc != 0) die("the library call failed");
  return 0;
}
"""


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------

def parse_size(text: str) -> int:
    """'4G', '300M', '64K', '1000' -> bytes (powers of 1024)."""
    m = re.fullmatch(r"(\d+)([KMG]?)", text.strip().upper())
    if not m:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (e.g. 4G, 300M, 64K)")
    return int(m.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30}[m.group(2)]


def human(n: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} B"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def build_oneshot(build: Path, work: Path, generated: Path = REPO / "generated") -> Path:
    """The one-shot reference helper, compiled against DIR/lib/libkcrypt.a."""
    src, exe = work / "oneshot.c", work / "oneshot"
    src.write_text(ONESHOT_C)
    cmd = ["gcc", "-std=c11", "-O2", f"-I{generated / 'include'}", str(src),
           str(build / "lib" / "libkcrypt.a"), "-o", str(exe)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"stream_check: building the one-shot helper failed:\n"
                         f"$ {shlex.join(cmd)}\n{proc.stderr[-3000:]}")
    return exe


def best_kernels(oneshot: Path) -> dict:
    """{'sm4': kernel, 'ublock': kernel, 'zuc': kernel}: the library's choice."""
    out = subprocess.run([str(oneshot), "--best"], check=True, capture_output=True, text=True)
    return dict(line.split() for line in out.stdout.splitlines())


def random_file(path: Path, size: int) -> Path:
    with open(path, "wb") as f:
        left = size
        while left:
            n = min(left, 1 << 24)
            f.write(os.urandom(n))
            left -= n
    return path


def max_rss_kib(time_report: Path) -> int:
    """'Maximum resident set size (kbytes): N' from /usr/bin/time -v."""
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", time_report.read_text())
    if not m:
        raise SystemExit(f"stream_check: no maximum resident size in {time_report}")
    return int(m.group(1))


def shell(cmd: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-o", "pipefail", "-c", cmd], capture_output=True, text=True)


# --------------------------------------------------------------------------
# The checks
# --------------------------------------------------------------------------

def check_sm4_zeros(build: Path, work: Path, size: int) -> dict:
    """Check 1: SIZE zeros through kcrypt and openssl SM4-CTR, sha256 of each."""
    report = work / "time-sm4.txt"
    kcrypt = (f"head -c {size} /dev/zero | /usr/bin/time -v -o {shlex.quote(str(report))} "
              f"{shlex.quote(str(build / 'kcrypt'))} sm4 ctr -e -k {SM4_KEY} -i {SM4_IV} | sha256sum")
    openssl = (f"head -c {size} /dev/zero | openssl enc -sm4-ctr -K {SM4_KEY} -iv {SM4_IV} "
               f"| sha256sum")
    ours, theirs = shell(kcrypt), shell(openssl)
    name = f"1. SM4-CTR of {human(size)} of zeros: kcrypt = openssl enc -sm4-ctr"
    if ours.returncode != 0 or theirs.returncode != 0:
        bad = ours if ours.returncode != 0 else theirs
        return {"name": name, "ok": False, "detail": f"pipeline failed: {bad.stderr.strip()[-300:]}"}
    rss = max_rss_kib(report)
    h_ours, h_theirs = ours.stdout.split()[0], theirs.stdout.split()[0]
    ok = h_ours == h_theirs and rss < RSS_LIMIT_MIB * 1024
    return {"name": name, "ok": ok, "bytes": size, "sha256_kcrypt": h_ours,
            "sha256_openssl": h_theirs, "max_rss_kib": rss,
            "detail": f"sha256 {h_ours[:16]}... {'=' if h_ours == h_theirs else '!='} "
                      f"{h_theirs[:16]}...; max RSS {rss / 1024:.1f} MiB (limit {RSS_LIMIT_MIB})"}


def check_zuc_file(build: Path, work: Path, oneshot: Path, size: int) -> dict:
    """Check 2: ZUC-128 enc of a random file, streamed against one-shot."""
    src = random_file(work / "zuc-in.bin", size)
    ours, theirs, report = work / "zuc-kcrypt.bin", work / "zuc-oneshot.bin", work / "time-zuc.txt"
    name = f"2. ZUC-128 enc of a {human(size)} file: kcrypt = one-shot zuc_encrypt"
    with open(src, "rb") as fin, open(ours, "wb") as fout:
        k = subprocess.run(["/usr/bin/time", "-v", "-o", str(report), str(build / "kcrypt"),
                            "zuc128", "enc", "-k", ZUC_KEY, "-i", ZUC_IV],
                           stdin=fin, stdout=fout, stderr=subprocess.PIPE, text=True)
    with open(src, "rb") as fin, open(theirs, "wb") as fout:
        o = subprocess.run([str(oneshot), "zuc128", "enc", "-", ZUC_KEY, ZUC_IV],
                           stdin=fin, stdout=fout, stderr=subprocess.PIPE, text=True)
    if k.returncode != 0 or o.returncode != 0:
        bad = k if k.returncode != 0 else o
        return {"name": name, "ok": False, "detail": f"failed: {bad.stderr.strip()[-300:]}"}
    same = filecmp.cmp(ours, theirs, shallow=False)
    rss = max_rss_kib(report)
    for f in (src, ours, theirs):
        f.unlink()
    return {"name": name, "ok": same and rss < RSS_LIMIT_MIB * 1024, "bytes": size,
            "equal": same, "max_rss_kib": rss,
            "detail": f"outputs {'equal' if same else 'DIFFER'}; max RSS {rss / 1024:.1f} MiB "
                      f"(limit {RSS_LIMIT_MIB})"}


def time_kcrypt(build: Path, args: list, src: Path, reps: int) -> float:
    """Best wall time of `kcrypt args < src > /dev/null` over reps runs."""
    best = float("inf")
    for _ in range(reps):
        with open(src, "rb") as fin, open(os.devnull, "wb") as fout:
            t0 = time.perf_counter()
            proc = subprocess.run([str(build / "kcrypt"), *args], stdin=fin, stdout=fout,
                                  stderr=subprocess.PIPE, text=True)
            t = time.perf_counter() - t0
        if proc.returncode != 0:
            raise SystemExit(f"stream_check: kcrypt {' '.join(args)} failed: {proc.stderr}")
        best = min(best, t)
    return best


def run_bench(bench: Path, work: Path, tag: str, args: list) -> list:
    """bench's records (its --json output) for one selection."""
    out = work / f"bench-{tag}.json"
    cmd = [str(bench), *args, "--no-report", "--json", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0 or not out.is_file():
        raise SystemExit(f"stream_check: {shlex.join(cmd)} failed:\n{proc.stderr[-2000:]}")
    return json.loads(out.read_text())


def pick(records: list, **want) -> dict | None:
    rows = [r for r in records if all(r.get(k) == v for k, v in want.items())]
    return max(rows, key=lambda r: r["msg_bytes"]) if rows else None


def throughput(build: Path, bench: Path, work: Path, kernels: dict, size: int, reps: int) -> dict:
    """Check 3: kcrypt over a file against bench's 64 KiB figure, same kernel."""
    src = random_file(work / "perf-in.bin", size)
    cases = [  # label, kcrypt args, bench cipher, mode, kernel, streams
        ("SM4 CTR", ["sm4", "ctr", "-e", "-k", SM4_KEY, "-i", SM4_IV], "sm4", "ctr",
         kernels["sm4"]),
        ("uBlock-128/128 CTR", ["ublock128_128", "ctr", "-e", "-k", UB_KEY, "-i", UB_IV],
         "ublock128_128", "ctr", kernels["ublock"]),
        ("ZUC-128 enc", ["zuc128", "enc", "-k", ZUC_KEY, "-i", ZUC_IV], "zuc128", "enc",
         kernels["zuc"]),
    ]
    seconds = {label: time_kcrypt(build, args, src, reps) for label, args, *_ in cases}
    src.unlink()
    block = run_bench(bench, work, "block",
                      ["--cipher", "sm4,ublock128_128", "--mode", "ctr", "--sizes", "64K",
                       "--impl", f"{kernels['sm4']},{kernels['ublock']}"])
    zuc = run_bench(bench, work, "zuc",
                    ["--cipher", "zuc128", "--mode", "enc", "--sizes", "64K", "--streams", "1",
                     "--impl", kernels["zuc"]])
    zuc16 = run_bench(bench, work, "zuc16",
                      ["--cipher", "zuc128", "--mode", "enc", "--sizes", "64K",
                       "--impl", kernels["zuc"]])
    imb = run_bench(bench, work, "ipsecmb",
                    ["--cipher", "zuc128", "--mode", "enc", "--streams", "1", "--impl", "ipsec-mb"])
    rows = []
    for label, _, cipher, mode, kernel in cases:
        rec = pick(block + zuc, cipher=cipher, mode=mode, name=kernel, msg_bytes=BENCH_BYTES)
        gbps = 8 * size / seconds[label] / 1e9
        row = {"label": label, "kernel": kernel, "kcrypt_gbps": round(gbps, 3),
               "kcrypt_seconds": round(seconds[label], 4),
               "bench_gbps": rec["gbps"] if rec else None,
               "ratio": round(gbps / rec["gbps"], 3) if rec and rec["gbps"] else None,
               "bench_streams": rec.get("streams") if rec else None}
        if cipher == "zuc128" and rec and rec.get("clock_ghz"):
            row["clock_ghz"] = rec["clock_ghz"]
            row["kcrypt_cpb"] = round(rec["clock_ghz"] * 1e9 * seconds[label] / size, 2)
            row["bench_cpb"] = rec.get("cpb")
        rows.append(row)
    r16 = pick(zuc16, cipher="zuc128", mode="enc", name=kernels["zuc"], msg_bytes=BENCH_BYTES)
    rimb = pick(imb, cipher="zuc128", mode="enc", impl="ipsec-mb")
    extra = {
        "zuc_bench_16_streams": ({"gbps": r16["gbps"], "cpb": r16["cpb"], "streams": r16["streams"]}
                                 if r16 else None),
        "ipsec_mb_one_job": ({"name": rimb["name"], "msg_bytes": rimb["msg_bytes"],
                              "gbps": rimb["gbps"], "cpb": rimb["cpb"]} if rimb else None),
    }
    return {"bytes": size, "reps": reps, "rows": rows, **extra}


# --------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------

def fmt(v, digits=2):
    return "n/a" if v is None else f"{v:.{digits}f}"


def markdown(result: dict) -> str:
    lines = ["## kcrypt streaming checks", "",
             f"CPU: {result['cpu']} (model name from /proc/cpuinfo); build: {result['build']}", "",
             "| check | result | detail |", "|---|---|---|"]
    for c in result["checks"]:
        lines.append(f"| {c['name']} | {'PASS' if c['ok'] else 'FAIL'} | {c['detail']} |")
    t = result.get("throughput")
    if t:
        lines += ["", f"### 3. Throughput: kcrypt on a {human(t['bytes'])} file to /dev/null "
                      f"(best of {t['reps']}) against bench at 64 KiB, same kernel, one run", "",
                  "| cipher, mode | kernel | kcrypt Gbit/s | bench Gbit/s (64 KiB) | kcrypt / bench "
                  "| kcrypt c/B | bench c/B |",
                  "|---|---|---:|---:|---:|---:|---:|"]
        for r in t["rows"]:
            streams = f", {r['bench_streams']} stream" if r["label"].startswith("ZUC") else ""
            lines.append(f"| {r['label']} | {r['kernel']}{streams} | {fmt(r['kcrypt_gbps'])} | "
                         f"{fmt(r['bench_gbps'])} | {fmt(r['ratio'])} | "
                         f"{fmt(r.get('kcrypt_cpb'))} | {fmt(r.get('bench_cpb'))} |")
        z16, imb = t["zuc_bench_16_streams"], t["ipsec_mb_one_job"]
        notes = []
        zrow = next((r for r in t["rows"] if r["label"].startswith("ZUC")), {})
        if zrow.get("clock_ghz"):
            notes.append(f"c/B at bench's clock estimate, {zrow['clock_ghz']:.2f} GHz.")
        if z16:
            notes.append(f"bench's ZUC-128 enc with {z16['streams']} streams per call (every "
                         f"lane busy): {fmt(z16['gbps'])} Gbit/s, {fmt(z16['cpb'])} c/B.")
        notes.append(f"ipsec-mb one job ({imb['name']}, {imb['msg_bytes']} B, its largest size "
                     f"here): {fmt(imb['gbps'])} Gbit/s, {fmt(imb['cpb'])} c/B." if imb else
                     "ipsec-mb: bench reported no one-job ZUC-128 figure.")
        lines += ["", *notes]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", required=True, type=Path, help="harness build folder")
    ap.add_argument("--size", type=parse_size, default=parse_size("4G"),
                    help="check 1: bytes of zeros (default 4G)")
    ap.add_argument("--zuc-size", type=parse_size, default=parse_size("300M"),
                    help="check 2: bytes of the ZUC file (default 300M)")
    ap.add_argument("--perf-size", type=parse_size, default=parse_size("256M"),
                    help="check 3: bytes of the throughput file (default 256M)")
    ap.add_argument("--reps", type=int, default=3, help="check 3: runs, best kept (default 3)")
    ap.add_argument("--bench", type=Path, help="the bench program (default: DIR/bench)")
    ap.add_argument("--json", type=Path, help="write the figures here, the report to FILE.md")
    ap.add_argument("--work", type=Path, help="folder for the files made (default: a temporary one)")
    ap.add_argument("--generated", type=Path, default=REPO / "generated",
                    help="generated/ whose headers the helper uses (default: the repo's)")
    args = ap.parse_args(argv)
    build = args.build.resolve()
    bench = (args.bench or build / "bench").resolve()
    for path in (build / "kcrypt", bench, build / "lib" / "libkcrypt.a"):
        if not path.is_file():
            ap.error(f"{path} missing: make -C harness/c BUILD={build}")
    for tool in ("/usr/bin/time", shutil.which("openssl"), shutil.which("sha256sum")):
        if not tool or not Path(tool).exists():
            ap.error("needs /usr/bin/time, openssl and sha256sum")

    with tempfile.TemporaryDirectory(prefix="stream_check.", dir=args.work) as tmp:
        work = Path(tmp)
        oneshot = build_oneshot(build, work, args.generated)
        kernels = best_kernels(oneshot)
        result = {"cpu": cpu_model(), "build": str(build), "kernels": kernels, "checks": [
            check_sm4_zeros(build, work, args.size),
            check_zuc_file(build, work, oneshot, args.zuc_size),
        ]}
        result["throughput"] = throughput(build, bench, work, kernels, args.perf_size, args.reps)
    text = markdown(result)
    sys.stdout.write(text)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
        Path(str(args.json) + ".md").write_text(text)
    return 0 if all(c["ok"] for c in result["checks"]) else 1


if __name__ == "__main__":
    sys.exit(main())
