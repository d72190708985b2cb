/*
 * bench: throughput of every native kernel of the generated library, side by
 * side with the established libraries, in one run.
 *
 * Each description's bench_hooks adds its cells (cipher.h):
 *   block ciphers (bench_lib.c): every kernel in ecb-enc, ecb-dec, cbc-enc,
 *   cbc-dec, ctr, one key and one message per call; SM4 beside OpenSSL's
 *   EVP SM4 and libgcrypt's (cipher_sm4.c); uBlock's cbc-enc as the paper
 *   measures it, 4 streams with 4 keys per call through the multi-key entry,
 *   and the paper's own one-block loop (mode block-loop, --loops times;
 *   cipher_ublock.c); no peer library has uBlock, the paper's figures are
 *   reference lines in the report.
 *   ZUC-128 / ZUC-256 (bench_zuc.c): our kernels and Intel ipsec-mb's
 *   multi-buffer job API, modes keystream (ours only), enc, mac32, mac64,
 *   mac128 (ZUC-256); --streams messages per call (default 16, ZUC_LANES_MAX),
 *   so all lanes of every kernel are busy.
 *
 * For each cell (subject x mode) x message size, the time of one call is
 * measured and reported as Gbit/s and as cycles per byte, both counted over
 * all the messages of the call: Gbit/s = streams x bytes x 8 / seconds.
 *
 *   Timing.  A call is repeated enough times that one repetition lasts at
 *   least --time-ms (adaptive: the count is calibrated by doubling, which
 *   also warms caches and branch predictors); the best of --reps repetitions
 *   is kept.  The repetitions are interleaved: all measurements are timed
 *   once, then all again, and so on, so a burst of load from another process
 *   cannot spoil every repetition of one measurement.  Clock:
 *   clock_gettime(CLOCK_MONOTONIC).  A one-block-loop cell (the uBlock
 *   paper's method) is not calibrated: one call is one of the paper's tests
 *   (the block encrypted `loops` times), timed once per repetition; its record keeps the best and the mean (the
 *   paper averages its tests).
 *
 *   --quick (what `make test` runs): the same cells, every kernel and every
 *   peer, at fewer sizes (SM4, uBlock: 256 B, 4 KiB, 64 KiB; ZUC its usual
 *   1500 B and 4 KiB), one repetition of >= 5 ms, and 100,000 loops for the
 *   one-block measurement; the JSON, markdown and plot are written as in the
 *   full run.
 *
 *   Cycles.  rdtsc ticks at a fixed rate that is not the core clock here, and
 *   there are no hardware counters, so the core clock is estimated once at
 *   start by timing chains of dependent register-to-register integer adds
 *   (one cycle each on every x86 and Arm core of interest; see add_chain for
 *   why not adds of an immediate) in thread CPU time, best of 10.  cpb = seconds * GHz * 1e9 / bytes,
 *   bytes = streams x message bytes (x loops for the one-block loop).  The
 *   estimate is repeated at the end and both are printed, so a clock that
 *   drifted during the run is visible.
 *
 *   Honesty.  Emulated (SIMDe) kernels are never timed.  Before timing, each
 *   cell's output is compared with our scalar reference kernel; a mismatch
 *   is reported, marked in the records (verified false) and makes the exit
 *   status non-zero.
 *
 * Output: progress on stderr; with --json FILE, a JSON list of records
 * (fields documented at write_json) and the report: `harness/report.py`
 * renders FILE.md (markdown tables per cipher: headline ratios, every size,
 * llvm-mca modelled figures when mca.json lies next to FILE) and FILE.png,
 * and prints the markdown on stdout (without --json, the same markdown is
 * printed from a temporary file).  Without Python, or with --no-report, a
 * plain markdown table of all records is printed (and written to FILE.md) by
 * this program.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* realpath */

#include "bench.h"

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "zuc.h"


/* ------------------------------------------------------------------ */
/* Clock                                                                */
/* ------------------------------------------------------------------ */

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Number of dependent adds per pass of the chain below. */
#define ADD_CHAIN 64

/*
 * Runs `passes` x ADD_CHAIN dependent integer adds on one register.  Each
 * add needs the previous result, so the chain runs at one add per cycle
 * whatever the core's width; the loop counter and branch run beside it.
 * The addend is a register, not an immediate: Intel's Golden Cove cores
 * (Sapphire Rapids, Alder Lake P-cores) fold chains of adds of small
 * immediates in the renamer and ran `addq $1` chains at 4-6 adds per cycle
 * here (an estimate of 12-17 GHz), while register adds, like imul/3, gave
 * the real clock.  Returns 0 where no such chain is written for this
 * architecture.
 */
static int add_chain(uint64_t passes) {
  uint64_t x = 0, one = 1;
  for (uint64_t i = 0; i < passes; i++) {
#if defined(__x86_64__) || defined(__i386__)
    __asm__ volatile(".rept 64\n\taddq %1, %0\n\t.endr" : "+r"(x) : "r"(one));
#elif defined(__aarch64__)
    __asm__ volatile(".rept 64\n\tadd %0, %0, %1\n\t.endr" : "+r"(x) : "r"(one));
#else
    (void)x, (void)one;
    return 0;
#endif
  }
  return 1;
}

/* Seconds of this thread's CPU time: unlike the wall clock it does not run
 * while the thread waits for a core, so a chain that another process
 * preempts (this machine is shared) still counts only its own cycles. */
static double thread_seconds(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return now_seconds();
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Seconds of thread CPU time for add_chain(passes). */
static double time_chain(uint64_t passes) {
  double t0 = thread_seconds();
  add_chain(passes);
  return thread_seconds() - t0;
}

/*
 * Estimated core clock in GHz: the best (highest) rate of 10 chains of about
 * 10 ms each, timed in thread CPU time.  Short chains, many of them, so that
 * some run undisturbed on a loaded machine (with 5 of 50 ms on the wall
 * clock, a start under load once estimated 1.35 GHz against 2.7 at the end).
 * 0 if unknown.
 */
static double estimate_ghz(void) {
  if (!add_chain(1)) return 0.0;
  /* Size the chain: grow until it lasts about 10 ms. */
  uint64_t passes = 1 << 12;
  while (time_chain(passes) < 0.01) passes *= 2;
  double best = 0.0;
  for (int rep = 0; rep < 10; rep++) {
    double ghz = (double)passes * ADD_CHAIN / time_chain(passes) / 1e9;
    if (ghz > best) best = ghz;
  }
  return best;
}

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
/* Rate of the time-stamp counter in GHz, for information only. */
static double tsc_ghz(void) {
  double t0 = now_seconds();
  uint64_t c0 = __rdtsc();
  while (now_seconds() - t0 < 0.02) {
  }
  uint64_t c1 = __rdtsc();
  return (double)(c1 - c0) / (now_seconds() - t0) / 1e9;
}
#else
static double tsc_ghz(void) { return 0.0; }
#endif

/* ------------------------------------------------------------------ */
/* Measurement                                                          */
/* ------------------------------------------------------------------ */

typedef struct {
  double target_s; /* minimum length of one repetition */
  int reps;        /* repetitions; the best is kept */
} timing;

/* Seconds for `iters` calls, or -1 on an error. */
static double time_calls(const bench_cell *c, size_t len, uint64_t iters) {
  double t0 = now_seconds();
  for (uint64_t i = 0; i < iters; i++)
    if (c->call(c->ctx, len) != 0) return -1.0;
  return now_seconds() - t0;
}

/*
 * Calls per repetition for `len` bytes: doubled until a run lasts a quarter
 * of the target, then scaled up to the target.  This also warms caches and
 * predictors.  Returns 0 on an error.
 */
static uint64_t calibrate(const bench_cell *c, size_t len, const timing *tm) {
  /* A one-block-loop cell: one call is one test (of 100,000 to 1,000,000
   * encryptions), timed as it is; not warmed up, since a cold start spreads
   * over that many encryptions (and the four-key loops take seconds). */
  if (c->loops) return 1;
  uint64_t iters = 1;
  double t;
  for (;;) {
    t = time_calls(c, len, iters);
    if (t < 0) return 0;
    if (t >= tm->target_s / 4 || iters >= (UINT64_C(1) << 40)) break;
    iters *= 2;
  }
  if (t < tm->target_s) iters = (uint64_t)ceil((double)iters * tm->target_s / (t > 0 ? t : 1e-9));
  return iters;
}

/* ------------------------------------------------------------------ */
/* Results                                                              */
/* ------------------------------------------------------------------ */

typedef struct {
  const bench_cell *cell;
  size_t msg_bytes;
  double seconds; /* best seconds per call */
  double gbps;
  double cpb; /* 0 when the clock is unknown */
  uint64_t iters;
  double seconds_sum; /* the repetitions' seconds per call, added up */
  int timed;          /* repetitions timed */
  double gbps_mean;   /* from the mean seconds (one-block loops: the paper's statistic) */
  double cpb_mean;
} record;

/* Bytes one call processes: every message of every stream, every loop. */
static double bytes_per_call(const record *r) {
  const bench_cell *c = r->cell;
  return (double)r->msg_bytes * c->streams * (double)(c->loops ? c->loops : 1);
}

/* Writes a JSON string literal (the names here need no escaping beyond
 * this), or null for NULL. */
static void json_str(FILE *f, const char *s) {
  if (!s) {
    fputs("null", f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') fputc('\\', f);
    if ((unsigned char)*s >= 0x20) fputc(*s, f);
  }
  fputc('"', f);
}

/*
 * The JSON file: a list of records, one per cell x size, with
 *   cipher "sm4" | "zuc128" | "zuc256" | "ublock128_128" | "ublock128_256" |
 *   "ublock256_256"; impl "ours" | "openssl" |
 *   "libgcrypt" | "ipsec-mb"; name (our kernel's name, e.g.
 *   "lanes_avx512_gfni", or the peer's name); strategy; target (for peers:
 *   the API and the library version); mode (SM4, uBlock: ecb-enc ... ctr; ZUC:
 *   keystream, enc, mac32, mac64, mac128); mac_method ("clmul" | "compare"
 *   for our ZUC MACs, else null); arch (what a peer choosing its code at run
 *   time chose, e.g. ipsec-mb's "avx512"; else null); msg_bytes (bytes per
 *   message); streams (messages per call); lanes; gbps and cpb (over all
 *   messages of a call; cpb null if the clock is unknown); seconds (best per
 *   call); iters (calls per repetition); reps; verified; emulated false;
 *   modelled false; clock_ghz and clock_method (the estimate cpb is based
 *   on); cpu; loops (0, or for the uBlock paper's one-block method, mode
 *   "block-loop": encryptions of the one block per call, which gbps and cpb
 *   count; those records also carry role ("paper-method": a register
 *   kernel; "fastest": the kernel ublock_impl_best picks; or both joined by
 *   '+'), tests (timed calls) and gbps_mean and cpb_mean (from the mean
 *   seconds of the tests, the paper's statistic)).
 */
static int write_json(const char *path, const record *recs, size_t n, const timing *tm,
                      double ghz, const char *cpu) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fputs("[\n", f);
  for (size_t i = 0; i < n; i++) {
    const record *r = &recs[i];
    const bench_cell *c = r->cell;
    fputs("  {\"cipher\": ", f);
    json_str(f, c->cipher);
    fputs(", \"impl\": ", f);
    json_str(f, c->impl);
    fputs(", \"name\": ", f);
    json_str(f, c->name);
    fputs(", \"strategy\": ", f);
    json_str(f, c->strategy);
    fputs(", \"target\": ", f);
    json_str(f, c->target);
    fputs(", \"mode\": ", f);
    json_str(f, c->mode);
    fputs(", \"mac_method\": ", f);
    json_str(f, c->mac_method);
    fputs(", \"arch\": ", f);
    json_str(f, c->arch);
    fprintf(f, ", \"msg_bytes\": %zu, \"streams\": %u, \"lanes\": %u, \"gbps\": %.6g, ",
            r->msg_bytes, c->streams, c->lanes, r->gbps);
    if (r->cpb > 0)
      fprintf(f, "\"cpb\": %.6g, ", r->cpb);
    else
      fputs("\"cpb\": null, ", f);
    fprintf(f,
            "\"seconds\": %.6e, \"iters\": %llu, \"reps\": %d, \"verified\": %s, "
            "\"emulated\": false, \"modelled\": false, \"clock_ghz\": %.4f, "
            "\"clock_method\": \"dependent chain of register integer adds\", \"cpu\": ",
            r->seconds, (unsigned long long)r->iters, tm->reps, c->verified ? "true" : "false",
            ghz);
    json_str(f, cpu);
    fprintf(f, ", \"loops\": %llu", (unsigned long long)c->loops);
    if (c->loops) {
      fputs(", \"role\": ", f);
      json_str(f, c->role);
      fprintf(f, ", \"tests\": %d, \"gbps_mean\": %.6g, ", r->timed, r->gbps_mean);
      if (r->cpb_mean > 0)
        fprintf(f, "\"cpb_mean\": %.6g", r->cpb_mean);
      else
        fputs("\"cpb_mean\": null", f);
    }
    fputs(i + 1 < n ? "},\n" : "}\n", f);
  }
  fputs("]\n", f);
  return fclose(f) == 0 ? 0 : -1;
}

/* Plain markdown table of every record: used when the Python report is not
 * available, so the run still ends with a table. */
static void write_plain_table(FILE *f, const record *recs, size_t n, double ghz) {
  fprintf(f, "## Throughput (core clock estimate %.2f GHz)\n\n", ghz);
  fputs("| cipher | impl | kernel | mac method | mode | bytes | streams | loops | Gbit/s | "
        "cycles/byte |\n",
        f);
  fputs("|---|---|---|---|---|---:|---:|---:|---:|---:|\n", f);
  for (size_t i = 0; i < n; i++) {
    const bench_cell *c = recs[i].cell;
    fprintf(f, "| %s | %s | %s | %s | %s | %zu | %u | %llu | %.2f | %.2f |\n", c->cipher,
            c->impl, c->name, c->mac_method ? c->mac_method : "", c->mode, recs[i].msg_bytes,
            c->streams, (unsigned long long)(c->loops ? c->loops : 1), recs[i].gbps, recs[i].cpb);
  }
}

/* ------------------------------------------------------------------ */
/* The report script                                                    */
/* ------------------------------------------------------------------ */

/* 1 if path names a regular file. */
static int is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/*
 * Finds harness/report.py: $KC_REPORT_PY, the path compiled in with
 * -DKC_REPORT_PY="...", ./harness/report.py (the top-level make runs from
 * the repository root), or ../harness/report.py beside this executable's
 * folder (build/bench).  Returns 0 and fills buf, or -1.
 */
static int find_report_script(char *buf, size_t size) {
  const char *env = getenv("KC_REPORT_PY");
  if (env && *env) {
    snprintf(buf, size, "%s", env);
    return is_file(buf) ? 0 : -1;
  }
#ifdef KC_REPORT_PY
  snprintf(buf, size, "%s", KC_REPORT_PY);
  if (is_file(buf)) return 0;
#endif
  snprintf(buf, size, "harness/report.py");
  if (is_file(buf)) return 0;
  char exe[PATH_MAX - 32]; /* leaves room for the suffix below */
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash) {
      *slash = '\0';
      snprintf(buf, size, "%s/../harness/report.py", exe);
      if (is_file(buf)) return 0;
    }
  }
  return -1;
}

/* Runs `python3 report.py JSON --md MD [--png PNG] [--mca MCA]`; the script
 * prints the markdown on stdout.  Returns its exit status, or -1. */
static int run_report(const char *script, const char *json, const char *md, const char *png,
                      const char *mca) {
  const char *argv[12];
  int a = 0;
  argv[a++] = "python3";
  argv[a++] = script;
  argv[a++] = json;
  if (md) {
    argv[a++] = "--md";
    argv[a++] = md;
  }
  if (png) {
    argv[a++] = "--png";
    argv[a++] = png;
  }
  if (mca) {
    argv[a++] = "--mca";
    argv[a++] = mca;
  }
  argv[a] = NULL;
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    execvp("python3", (char *const *)argv);
    _exit(127);
  }
  int status;
  if (waitpid(pid, &status, 0) < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* FILE with its extension (if any) replaced by ext (".md", ".png"). */
static char *with_extension(const char *path, const char *ext) {
  size_t n = strlen(path);
  const char *dot = strrchr(path, '.');
  const char *slash = strrchr(path, '/');
  if (dot && (!slash || dot > slash)) n = (size_t)(dot - path);
  char *out = malloc(n + strlen(ext) + 1);
  if (!out) return NULL;
  memcpy(out, path, n);
  strcpy(out + n, ext);
  return out;
}

/* Writes the JSON and the report (or the plain table).  Returns 0 or -1. */
static int write_report(const char *json_path, const char *mca_path, int no_report,
                        const record *recs, size_t n_recs, const timing *tm, double ghz,
                        const char *cpu) {
  int report_done = 0;
  if (json_path) {
    if (write_json(json_path, recs, n_recs, tm, ghz, cpu) != 0) {
      fprintf(stderr, "bench: cannot write %s: %s\n", json_path, strerror(errno));
      return -1;
    }
    fprintf(stderr, "bench: wrote %s\n", json_path);
    char *md = with_extension(json_path, ".md"), *png = with_extension(json_path, ".png");
    char script[PATH_MAX];
    if (!no_report && find_report_script(script, sizeof script) == 0) {
      int rc = run_report(script, json_path, md, png, mca_path);
      if (rc == 0)
        report_done = 1;
      else
        fprintf(stderr, "bench: %s failed (status %d); printing a plain table\n", script, rc);
    } else if (!no_report) {
      fprintf(stderr, "bench: harness/report.py not found; printing a plain table\n");
    }
    if (!report_done) {
      FILE *f = fopen(md, "w");
      if (f) {
        write_plain_table(f, recs, n_recs, ghz);
        fclose(f);
      }
    }
    free(md);
    free(png);
  } else if (!no_report) {
    /* No --json: the report still renders the table, from a temporary file
     * in a fresh folder (so no stray mca.json is picked up beside it). */
    char dir[] = "/tmp/kc_bench_XXXXXX", tmp[sizeof dir + 16], script[PATH_MAX];
    if (mkdtemp(dir)) {
      snprintf(tmp, sizeof tmp, "%s/bench.json", dir);
      if (write_json(tmp, recs, n_recs, tm, ghz, cpu) == 0 &&
          find_report_script(script, sizeof script) == 0)
        report_done = run_report(script, tmp, NULL, NULL, mca_path) == 0;
      unlink(tmp);
      rmdir(dir);
    }
  }
  if (!report_done) write_plain_table(stdout, recs, n_recs, ghz);
  return 0;
}

/* ------------------------------------------------------------------ */
/* Command line                                                         */
/* ------------------------------------------------------------------ */

#define MAX_SIZES 32
/* ZUC streams per call: the most lanes of any kernel, a multiple of all of them. */
#define DEFAULT_STREAMS ZUC_LANES_MAX
#define MAX_STREAMS 256
/* The uBlock paper's one-block test (section 3.1): 1,000,000 encryptions;
 * --quick runs fewer, and the report says so. */
#define PAPER_LOOPS 1000000
#define QUICK_LOOPS 100000

static void usage(FILE *f) {
  fputs("usage: bench [options]\n"
        "  --json FILE      write the records to FILE, the report to FILE.md and FILE.png\n"
        "  --quick          every cell, fewer sizes (SM4, uBlock: 256,4K,64K), one\n"
        "                   repetition of 5 ms, 100,000 one-block loops (make test)\n"
        "  --sizes LIST     message sizes for every cipher, e.g. 64,1K,64K,1M\n"
        "                   (default SM4, uBlock: 64 B..1 MiB; ZUC: 1500,4K)\n"
        "  --cipher LIST    sm4,zuc128,zuc256,ublock128_128,ublock128_256,ublock256_256\n"
        "                   (default: all)\n"
        "  --impl LIST      subjects: kernel names (<strategy>_<target>, as --list shows\n"
        "                   them), strategies, targets, 'ours', 'openssl', 'libgcrypt',\n"
        "                   'ipsec-mb'\n"
        "  --mode LIST      SM4, uBlock: ecb-enc,ecb-dec,cbc-enc,cbc-dec,ctr (uBlock cbc-enc:\n"
        "                   4 keys, 4 streams per call); uBlock also block-loop (the paper's\n"
        "                   method: one block encrypted --loops times); ZUC: keystream,enc,\n"
        "                   mac32,mac64,mac128\n"
        "  --loops N        uBlock block-loop: encryptions per test (default 1000000, as the\n"
        "                   paper; --quick 100000)\n"
        "  --streams N      ZUC: messages per call (default 16: every lane busy)\n"
        "  --time-ms MS     minimum length of one repetition (default 20)\n"
        "  --reps N         repetitions, best kept (default 4)\n"
        "  --mca FILE       llvm-mca records to add to the report (default: mca.json\n"
        "                   next to the --json file, if present)\n"
        "  --no-report      do not run harness/report.py (print a plain table)\n"
        "  --list           list the cells (subject x mode) and exit: cipher, kernel or\n"
        "                   peer, impl, mode, mac method, xstreams, target\n",
        f);
}

/* Parses "64", "4K", "1M" (KiB/MiB).  Returns 0 on error. */
static size_t parse_size(const char *s) {
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  if (end == s) return 0;
  if (*end == 'k' || *end == 'K') v <<= 10, end++;
  else if (*end == 'm' || *end == 'M') v <<= 20, end++;
  if (*end == 'i' || *end == 'B') {
    while (*end == 'i' || *end == 'B') end++;
  }
  return *end ? 0 : (size_t)v;
}

/* Checks each item of a comma-separated list against the union of the
 * ciphers' lists (what: "mode" or "cipher").  Returns 0 or -1. */
static int check_known(const char *list, int modes, const char *what) {
  for (const char *p = list; *p;) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    char word[64];
    snprintf(word, sizeof word, "%.*s", (int)(len < 63 ? len : 63), p);
    int known = 0;
    for (size_t c = 0; c < KC_N_CIPHERS; c++) {
      const kc_desc *d = KC_CIPHERS[c];
      known |= modes && bench_in_list(d->bench->modes, word);
      for (size_t k = 0; !modes && k < d->n_variants; k++)
        known |= strcmp(d->variants[k].name, word) == 0;
    }
    if (!known) {
      fprintf(stderr, "bench: unknown %s '%s'\n", what, word);
      return -1;
    }
    if (!end) break;
    p = end + 1;
  }
  return 0;
}

/* ------------------------------------------------------------------ */
/* Main                                                                 */
/* ------------------------------------------------------------------ */

int main(int argc, char **argv) {
  const char *json_path = NULL, *mca_path = NULL;
  size_t sizes[MAX_SIZES], n_sizes = 0;
  int no_report = 0, list_only = 0;
  bench_select sel = {0};
  sel.streams = DEFAULT_STREAMS;
  timing tm = {0.020, 4};
  double time_ms = -1;
  int reps = -1;
  long long loops = -1;

  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int has_arg = i + 1 < argc;
    if (!strcmp(a, "--json") && has_arg) json_path = argv[++i];
    else if (!strcmp(a, "--quick")) sel.quick = 1;
    else if (!strcmp(a, "--impl") && has_arg) sel.impl_filter = argv[++i];
    else if (!strcmp(a, "--mode") && has_arg) sel.mode_filter = argv[++i];
    else if (!strcmp(a, "--cipher") && has_arg) sel.cipher_filter = argv[++i];
    else if (!strcmp(a, "--mca") && has_arg) mca_path = argv[++i];
    else if (!strcmp(a, "--time-ms") && has_arg) time_ms = atof(argv[++i]);
    else if (!strcmp(a, "--reps") && has_arg) reps = atoi(argv[++i]);
    else if (!strcmp(a, "--loops") && has_arg) {
      loops = atoll(argv[++i]);
      if (loops < 1) {
        fprintf(stderr, "bench: --loops must be at least 1\n");
        return 2;
      }
    }
    else if (!strcmp(a, "--no-report")) no_report = 1;
    else if (!strcmp(a, "--list")) list_only = 1;
    else if (!strcmp(a, "--streams") && has_arg) {
      int v = atoi(argv[++i]);
      if (v < 1 || v > MAX_STREAMS) {
        fprintf(stderr, "bench: --streams must be 1..%d\n", MAX_STREAMS);
        return 2;
      }
      sel.streams = (unsigned)v;
    } else if (!strcmp(a, "--sizes") && has_arg) {
      char *copy = strdup(argv[++i]), *save = NULL;
      for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        size_t v = parse_size(tok);
        if (!v || n_sizes == MAX_SIZES) {
          fprintf(stderr, "bench: bad size '%s'\n", tok);
          return 2;
        }
        sizes[n_sizes++] = v;
      }
      free(copy);
      sel.sizes = sizes;
      sel.n_sizes = n_sizes;
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    } else {
      fprintf(stderr, "bench: unknown or incomplete option '%s'\n", a);
      usage(stderr);
      return 2;
    }
  }
  /* The quick form (make test): one repetition, fewer loops. */
  if (sel.quick) tm = (timing){0.005, 1};
  if (time_ms > 0) tm.target_s = time_ms / 1e3;
  if (reps > 0) tm.reps = reps;
  sel.loops = loops > 0 ? (uint64_t)loops : sel.quick ? QUICK_LOOPS : PAPER_LOOPS;
  if ((sel.mode_filter && check_known(sel.mode_filter, 1, "mode") != 0) ||
      (sel.cipher_filter && check_known(sel.cipher_filter, 0, "cipher") != 0))
    return 2;

  char cpu[256], feats[256];
  kc_cpu_model(cpu, sizeof cpu);
  kc_cpu_feature_list(feats, sizeof feats);
  double ghz = estimate_ghz();
  if (!list_only) {
    fprintf(stderr, "bench: CPU %s [%s]\n", cpu, feats);
    fprintf(stderr,
            "bench: core clock estimate %.3f GHz (method: best of 10 chains of %d dependent "
            "register integer adds x N, 1 cycle each, in thread CPU time; TSC rate %.3f GHz, "
            "not used)\n",
            ghz, ADD_CHAIN, tsc_ghz());
    fprintf(stderr,
            "bench: each measurement: best of %d repetitions of >= %.0f ms, interleaved with "
            "the others\n",
            tm.reps, tm.target_s * 1e3);
    fprintf(stderr,
            "bench: uBlock block-loop (the paper's method): one block encrypted %llu times per "
            "test%s\n",
            (unsigned long long)sel.loops,
            sel.loops == PAPER_LOOPS ? " (as the paper)" : " (the paper: 1,000,000)");
  }

  /* Every cipher sets up and checks its cells. */
  bench_set set = {0};
  int problems = 0;
  for (size_t c = 0; c < KC_N_CIPHERS; c++)
    problems += KC_CIPHERS[c]->bench->add_cells(KC_CIPHERS[c], &set, &sel);

  if (list_only) {
    for (size_t i = 0; i < set.n; i++) {
      const bench_cell *c = &set.cells[i];
      printf("%-7s %-24s %-9s %-10s %-8s x%-3u %s\n", c->cipher, c->name, c->impl, c->mode,
             c->mac_method ? c->mac_method : "-", c->streams, c->target);
    }
    return 0;
  }

  /*
   * The measurements are interleaved: every (cell, size) is calibrated
   * once, then the whole set is timed `reps` times over, keeping each one's
   * best.  A disturbance from another process (this machine is shared) then
   * spoils one repetition of many measurements rather than all repetitions
   * of one.
   */
  size_t max_recs = 0;
  for (size_t i = 0; i < set.n; i++) max_recs += set.cells[i].n_sizes;
  record *recs = calloc(max_recs + 1, sizeof *recs);
  size_t n_recs = 0;
  double t_start = now_seconds();
  fprintf(stderr, "bench: calibrating %zu measurements\n", max_recs);
  for (size_t i = 0; i < set.n; i++) {
    const bench_cell *c = &set.cells[i];
    for (size_t zi = 0; zi < c->n_sizes; zi++) {
      size_t len = c->sizes[zi];
      if (c->max_bytes && len > c->max_bytes) {
        fprintf(stderr, "bench: %s %s %s %zu B: above its limit of %zu bytes, skipped\n",
                c->cipher, c->name, c->mode, len, c->max_bytes);
        continue;
      }
      uint64_t iters = calibrate(c, len, &tm);
      if (!iters) {
        fprintf(stderr, "bench: %s %s %s %zu B: call failed\n", c->cipher, c->name, c->mode,
                len);
        problems++;
        continue;
      }
      recs[n_recs++] = (record){.cell = c, .msg_bytes = len, .seconds = DBL_MAX, .iters = iters};
    }
  }

  /* Time them all, `reps` times over. */
  for (int rep = 0; rep < tm.reps; rep++) {
    for (size_t i = 0; i < n_recs; i++) {
      record *rec = &recs[i];
      double t = time_calls(rec->cell, rec->msg_bytes, rec->iters);
      if (t < 0) continue;
      double per_call = t / (double)rec->iters;
      if (per_call < rec->seconds) rec->seconds = per_call;
      rec->seconds_sum += per_call;
      rec->timed++;
    }
    fprintf(stderr, "bench: pass %d/%d done (%.1f s)\n", rep + 1, tm.reps,
            now_seconds() - t_start);
  }
  /* A measurement whose every timed call failed has no figure: dropped. */
  size_t kept = 0;
  for (size_t i = 0; i < n_recs; i++) {
    if (recs[i].timed) {
      recs[kept++] = recs[i];
      continue;
    }
    fprintf(stderr, "bench: %s %s %s %zu B: call failed\n", recs[i].cell->cipher,
            recs[i].cell->name, recs[i].cell->mode, recs[i].msg_bytes);
    problems++;
  }
  n_recs = kept;
  for (size_t i = 0; i < n_recs; i++) {
    record *rec = &recs[i];
    double bytes = bytes_per_call(rec);
    double mean = rec->timed ? rec->seconds_sum / rec->timed : rec->seconds;
    rec->gbps = bytes * 8.0 / rec->seconds / 1e9;
    rec->cpb = ghz > 0 ? rec->seconds * ghz * 1e9 / bytes : 0.0;
    rec->gbps_mean = bytes * 8.0 / mean / 1e9;
    rec->cpb_mean = ghz > 0 ? mean * ghz * 1e9 / bytes : 0.0;
    fprintf(stderr, "  %-6s %-24s %-10s %-7s %8zu B x%-3u %9.3f Gbit/s %8.2f cycles/byte",
            rec->cell->cipher, rec->cell->name, rec->cell->mode,
            rec->cell->mac_method ? rec->cell->mac_method : "", rec->msg_bytes,
            rec->cell->streams, rec->gbps, rec->cpb);
    if (rec->cell->loops)
      fprintf(stderr, "  (one block x %llu loops, %s)", (unsigned long long)rec->cell->loops,
              rec->cell->role);
    fputc('\n', stderr);
  }

  double ghz_end = estimate_ghz();
  fprintf(stderr,
          "bench: %zu measurements in %.1f s; core clock estimate at end %.3f GHz (start "
          "%.3f)\n",
          n_recs, now_seconds() - t_start, ghz_end, ghz);

  if (write_report(json_path, mca_path, no_report, recs, n_recs, &tm, ghz, cpu) != 0) return 1;

  if (problems) fprintf(stderr, "bench: %d problem(s): output mismatches or errors\n", problems);
  for (size_t i = 0; i < set.n; i++)
    if (set.cells[i].close) set.cells[i].close(set.cells[i].ctx);
  free(set.cells);
  free(recs);
  return problems ? 1 : 0;
}
