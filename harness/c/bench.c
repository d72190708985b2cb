/*
 * bench: throughput of every native kernel of the generated library, side by side with the
 * established libraries, in one run.  Each description's bench_hooks adds its cells (bench.h);
 * this file times them, estimates the core clock, and writes the records and the report.
 * What it measures and how, its options and its JSON records: docs/cli.md ("bench").
 */
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "vectors.h"
#include "zuc.h"

/* ---- Clock ---- */

/* Seconds on `clock`: CLOCK_MONOTONIC for the measurements; CLOCK_THREAD_CPUTIME_ID for the
 * clock estimate, which unlike the wall clock does not run while the thread waits for a core,
 * so a chain that another process preempts still counts only its own cycles. */
static double seconds(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One dependent integer add of a register: each needs the previous result, so a chain runs at
 * one add per cycle whatever the core's width.  A register, not an immediate, which Golden Cove
 * cores fold (docs/performance/README.md, "The clock estimate on Intel"). */
#if defined(__x86_64__)
#define DEPENDENT_ADD "addq %1, %0"
#elif defined(__aarch64__)
#define DEPENDENT_ADD "add %0, %0, %1"
#endif
/* Adds per pass of the chain. */
#define ADD_CHAIN 64

#ifdef DEPENDENT_ADD
/* Seconds of thread CPU time for passes x ADD_CHAIN dependent adds. */
static double time_chain(uint64_t passes) {
  uint64_t x = 0, one = 1;
  double t0 = seconds(CLOCK_THREAD_CPUTIME_ID);
  for (uint64_t i = 0; i < passes; i++)
    __asm__ volatile(".rept 64\n\t" DEPENDENT_ADD "\n\t.endr" : "+r"(x) : "r"(one));
  return seconds(CLOCK_THREAD_CPUTIME_ID) - t0;
}
#endif

/*
 * Estimated core clock in GHz (0 if unknown): there are no hardware counters on these machines,
 * and the time-stamp counter ticks at a fixed rate that is not the core clock.  The best rate of
 * 10 chains of about 10 ms each, estimated at the start and again at the end (a clock that
 * drifted during the run shows).  Short chains, many of them, so that some run undisturbed on a
 * loaded machine (with 5 of 50 ms on the wall clock, a start under load once estimated 1.35 GHz
 * against 2.7 at the end).
 */
static double estimate_ghz(void) {
  double best = 0.0;
#ifdef DEPENDENT_ADD
  uint64_t passes = 1 << 12;
  while (time_chain(passes) < 0.01) passes *= 2;
  for (int rep = 0; rep < 10; rep++)
    best = fmax(best, (double)passes * ADD_CHAIN / time_chain(passes) / 1e9);
#endif
  return best;
}

/* Rate of the time-stamp counter in GHz (0 where there is none), for information only. */
#if defined(__x86_64__)
#include <x86intrin.h>
static double tsc_ghz(void) {
  double t0 = seconds(CLOCK_MONOTONIC), t;
  uint64_t c0 = __rdtsc();
  while ((t = seconds(CLOCK_MONOTONIC) - t0) < 0.02) {
  }
  return (double)(__rdtsc() - c0) / t / 1e9;
}
#else
static double tsc_ghz(void) { return 0.0; }
#endif

/* ---- Measurement ---- */

typedef struct {
  double target_s; /* minimum length of one repetition */
  int reps;        /* repetitions; the best is kept */
} timing;

/* Seconds for `iters` calls, or -1 on an error. */
static double time_calls(const bench_cell *c, size_t len, uint64_t iters) {
  double t0 = seconds(CLOCK_MONOTONIC);
  for (uint64_t i = 0; i < iters; i++)
    if (c->call(c->ctx, len) != 0) return -1.0;
  return seconds(CLOCK_MONOTONIC) - t0;
}

/*
 * Calls per repetition for `len` bytes: doubled until a run lasts a quarter of the target,
 * then scaled up to the target.  This also warms caches and predictors.  Returns 0 on an error.
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

/* ---- Results ---- */

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

/* Writes `, "key": value` (or `"key": ` first, when sep is ""): a JSON string literal (the
 * names here need no escaping beyond quotes and backslashes), or null for NULL. */
static void json_str(FILE *f, const char *sep, const char *key, const char *s) {
  fprintf(f, "%s\"%s\": ", sep, key);
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

/* Writes `, "key": v`, or null where v is 0 (cycles per byte when the clock is unknown). */
static void json_num(FILE *f, const char *key, double v) {
  fprintf(f, v > 0 ? ", \"%s\": %.6g" : ", \"%s\": null", key, v);
}

/* The JSON file (its fields: docs/cli.md, "bench"). */
static int write_json(const char *path, const record *recs, size_t n, const timing *tm,
                      double ghz, const char *cpu) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fputs("[\n", f);
  for (size_t i = 0; i < n; i++) {
    const record *r = &recs[i];
    const bench_cell *c = r->cell;
    const char *names[][2] = {{"cipher", c->cipher},     {"impl", c->impl},
                              {"name", c->name},         {"strategy", c->strategy},
                              {"target", c->target},     {"mode", c->mode},
                              {"mac_method", c->mac_method}, {"arch", c->arch}};
    fputs("  {", f);
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
      json_str(f, k ? ", " : "", names[k][0], names[k][1]);
    fprintf(f, ", \"msg_bytes\": %zu, \"streams\": %u, \"lanes\": %u, \"gbps\": %.6g",
            r->msg_bytes, c->streams, c->lanes, r->gbps);
    json_num(f, "cpb", r->cpb);
    fprintf(f,
            ", \"seconds\": %.6e, \"iters\": %llu, \"reps\": %d, \"verified\": %s, "
            "\"emulated\": false, \"modelled\": false, \"clock_ghz\": %.4f, "
            "\"clock_method\": \"dependent chain of register integer adds\"",
            r->seconds, (unsigned long long)r->iters, tm->reps, c->verified ? "true" : "false",
            ghz);
    json_str(f, ", ", "cpu", cpu);
    fprintf(f, ", \"loops\": %llu", (unsigned long long)c->loops);
    if (c->loops) {
      json_str(f, ", ", "role", c->role);
      fprintf(f, ", \"tests\": %d, \"gbps_mean\": %.6g", r->timed, r->gbps_mean);
      json_num(f, "cpb_mean", r->cpb_mean);
    }
    fputs(i + 1 < n ? "},\n" : "}\n", f);
  }
  fputs("]\n", f);
  return fclose(f) == 0 ? 0 : -1;
}

/* Plain markdown table of every record: the report where harness/report.py does not run, so
 * the run still ends with a table. */
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

/* ---- The report ---- */

/* Runs `python3 harness/report.py JSON [--md MD] [--png PNG] [--mca MCA]` (the script found
 * with kc_repo_file), which prints the markdown on stdout.  Returns 0, or -1 saying why not. */
static int run_report(const char *argv0, const char *json, const char *md, const char *png,
                      const char *mca) {
  char script[PATH_MAX];
  if (kc_repo_file(argv0, "harness/report.py", script, sizeof script) != 0) {
    fprintf(stderr, "bench: harness/report.py not found; printing a plain table\n");
    return -1;
  }
  const char *argv[10] = {"python3", script, json};
  const char *options[][2] = {{"--md", md}, {"--png", png}, {"--mca", mca}};
  int a = 3, status = -1;
  for (int i = 0; i < 3; i++) {
    if (!options[i][1]) continue;
    argv[a++] = options[i][0];
    argv[a++] = options[i][1];
  }
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    execvp("python3", (char *const *)argv);
    _exit(127);
  }
  if (pid >= 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
      WEXITSTATUS(status) == 0)
    return 0;
  fprintf(stderr, "bench: %s failed (status %d); printing a plain table\n", script,
          pid >= 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return -1;
}

/* path with its extension (if any) replaced by ext (".md", ".png"), into buf. */
static void with_extension(const char *path, const char *ext, char *buf, size_t size) {
  const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
  size_t n = dot && (!slash || dot > slash) ? (size_t)(dot - path) : strlen(path);
  snprintf(buf, size, "%.*s%s", (int)n, path, ext);
}

/*
 * Writes the JSON to json_path (--json) and the report beside it (FILE.md, FILE.png); without
 * --json, the report's markdown from a temporary file in a fresh folder (so that no stray
 * mca.json is picked up beside it).  Where the report does not run (--no-report, no script,
 * no Python), a plain table instead, on stdout and in FILE.md.  Returns 0, or -1 if the JSON
 * cannot be written.
 */
static int write_report(const char *argv0, const char *json_path, const char *mca_path,
                        int no_report, const record *recs, size_t n, const timing *tm,
                        double ghz, const char *cpu) {
  char dir[] = "/tmp/kc_bench_XXXXXX", tmp[sizeof dir + 16], md[PATH_MAX], png[PATH_MAX];
  int done = 0;
  if (json_path) {
    if (write_json(json_path, recs, n, tm, ghz, cpu) != 0) {
      fprintf(stderr, "bench: cannot write %s: %s\n", json_path, strerror(errno));
      return -1;
    }
    fprintf(stderr, "bench: wrote %s\n", json_path);
    with_extension(json_path, ".md", md, sizeof md);
    with_extension(json_path, ".png", png, sizeof png);
    done = !no_report && run_report(argv0, json_path, md, png, mca_path) == 0;
  } else if (!no_report && mkdtemp(dir)) {
    snprintf(tmp, sizeof tmp, "%s/bench.json", dir);
    done = write_json(tmp, recs, n, tm, ghz, cpu) == 0 &&
           run_report(argv0, tmp, NULL, NULL, mca_path) == 0;
    unlink(tmp);
    rmdir(dir);
  }
  if (done) return 0;
  write_plain_table(stdout, recs, n, ghz);
  FILE *f = json_path ? fopen(md, "w") : NULL;
  if (f) {
    write_plain_table(f, recs, n, ghz);
    fclose(f);
  }
  return 0;
}

/* ---- Command line ---- */

#define MAX_SIZES 32
/* ZUC streams per call: the most lanes of any kernel, a multiple of all of them. */
#define DEFAULT_STREAMS ZUC_LANES_MAX
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
        "                   4 keys, 4 streams per call); SM4 also gcm-enc,gcm-dec,xts-enc,\n"
        "                   xts-dec,cmac (12-byte IV, 16-byte tag, one XTS unit per\n"
        "                   message), cbc-enc-x16 (16 streams per call, each its own\n"
        "                   key and IV); uBlock also block-loop (the paper's\n"
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
  while (*end == 'i' || *end == 'B') end++;
  return *end ? 0 : (size_t)v;
}

/* Copies the next item of a comma-separated list (at *p) into word and steps past it.
 * Returns 0 at the end of the list. */
static int next_item(const char **p, char word[64]) {
  size_t len = strcspn(*p, ",");
  if (!**p) return 0;
  snprintf(word, 64, "%.*s", (int)(len < 63 ? len : 63), *p);
  *p += len + ((*p)[len] == ',');
  return 1;
}

/* Checks each item of a comma-separated list against the union of the
 * ciphers' lists (what: "mode" or "cipher").  Returns 0 or -1. */
static int check_known(const char *list, int modes, const char *what) {
  char word[64];
  while (next_item(&list, word)) {
    int known = 0;
    for (size_t c = 0; c < KC_N_CIPHERS; c++) {
      const kc_desc *d = KC_CIPHERS[c];
      known |= modes && kc_in_list(d->bench->modes, word);
      for (size_t k = 0; !modes && k < d->n_variants; k++)
        known |= strcmp(d->variants[k].name, word) == 0;
    }
    if (!known) {
      fprintf(stderr, "bench: unknown %s '%s'\n", what, word);
      return -1;
    }
  }
  return 0;
}

/* --sizes LIST into the bench_select at dest (its sizes point to a static
 * array).  Returns 0, or -1 with the reason in err. */
static int parse_sizes(const char *list, void *dest, char *err, size_t err_size) {
  static size_t sizes[MAX_SIZES];
  bench_select *sel = dest;
  char word[64];
  sel->sizes = sizes;
  sel->n_sizes = 0;
  while (next_item(&list, word))
    if (sel->n_sizes == MAX_SIZES || !(sizes[sel->n_sizes++] = parse_size(word)))
      return kc_error(err, err_size, "bad size '%s'", word);
  return sel->n_sizes ? 0 : kc_error(err, err_size, "--sizes lists no size");
}

/* ---- Main ---- */

/* Calibrates every (cell, size) of the set, then times them all tm->reps times over, keeping
 * each one's best; fills in the figures (cpb from the clock estimate ghz).  A measurement
 * whose calls fail has no figure and is left out, counted in *problems.  Returns the records. */
static record *measure(const bench_set *set, const timing *tm, double ghz, size_t *n_recs,
                       int *problems) {
  size_t n = 0, max = 0;
  for (size_t i = 0; i < set->n; i++) max += set->cells[i].n_sizes;
  record *recs = calloc(max + 1, sizeof *recs);
  if (!recs) exit(1);
  double t_start = seconds(CLOCK_MONOTONIC);
  fprintf(stderr, "bench: calibrating %zu measurements\n", max);
  for (size_t i = 0; i < set->n; i++) {
    const bench_cell *c = &set->cells[i];
    for (size_t zi = 0; zi < c->n_sizes; zi++) {
      size_t len = c->sizes[zi];
      if (c->max_bytes && len > c->max_bytes)
        fprintf(stderr, "bench: %s %s %s %zu B: above its limit of %zu bytes, skipped\n",
                c->cipher, c->name, c->mode, len, c->max_bytes);
      else
        recs[n++] = (record){.cell = c, .msg_bytes = len, .seconds = DBL_MAX,
                             .iters = calibrate(c, len, tm)};
    }
  }
  for (int rep = 0; rep < tm->reps; rep++) {
    for (size_t i = 0; i < n; i++) {
      record *rec = &recs[i];
      double t = rec->iters ? time_calls(rec->cell, rec->msg_bytes, rec->iters) : -1;
      if (t < 0) continue;
      double per_call = t / (double)rec->iters;
      rec->seconds = fmin(rec->seconds, per_call);
      rec->seconds_sum += per_call;
      rec->timed++;
    }
    fprintf(stderr, "bench: pass %d/%d done (%.1f s)\n", rep + 1, tm->reps,
            seconds(CLOCK_MONOTONIC) - t_start);
  }
  *n_recs = 0;
  for (size_t i = 0; i < n; i++) {
    record *rec = &recs[*n_recs];
    const bench_cell *c = recs[i].cell;
    *rec = recs[i];
    if (!rec->timed) {
      fprintf(stderr, "bench: %s %s %s %zu B: call failed\n", c->cipher, c->name, c->mode,
              rec->msg_bytes);
      ++*problems;
      continue;
    }
    ++*n_recs;
    /* Bytes one call processes: every message of every stream, every loop. */
    double bytes = (double)rec->msg_bytes * c->streams * (double)(c->loops ? c->loops : 1);
    double mean = rec->seconds_sum / rec->timed;
    rec->gbps = bytes * 8.0 / rec->seconds / 1e9;
    rec->cpb = rec->seconds * ghz * 1e9 / bytes;
    rec->gbps_mean = bytes * 8.0 / mean / 1e9;
    rec->cpb_mean = mean * ghz * 1e9 / bytes;
    fprintf(stderr, "  %-6s %-24s %-10s %-7s %8zu B x%-3u %9.3f Gbit/s %8.2f cycles/byte",
            c->cipher, c->name, c->mode, c->mac_method ? c->mac_method : "", rec->msg_bytes,
            c->streams, rec->gbps, rec->cpb);
    if (c->loops)
      fprintf(stderr, "  (one block x %llu loops, %s)", (unsigned long long)c->loops, c->role);
    fputc('\n', stderr);
  }
  fprintf(stderr, "bench: %zu measurements in %.1f s; core clock estimate at end %.3f GHz "
          "(start %.3f)\n", *n_recs, seconds(CLOCK_MONOTONIC) - t_start, estimate_ghz(), ghz);
  return recs;
}

int main(int argc, char **argv) {
  const char *json_path = NULL, *mca_path = NULL, *time_ms = NULL;
  int no_report = 0, list_only = 0, help = 0;
  uint64_t reps = 0, loops = 0, streams = DEFAULT_STREAMS;
  bench_select sel = {0};
  const kc_opt opts[] = {
      {"--json", .dest = &json_path},
      {"--quick", NULL, KC_OPT_FLAG, .dest = &sel.quick},
      {"--impl", .dest = &sel.impl_filter},
      {"--mode", .dest = &sel.mode_filter},
      {"--cipher", .dest = &sel.cipher_filter},
      {"--mca", .dest = &mca_path},
      {"--time-ms", .dest = &time_ms},
      {"--reps", NULL, KC_OPT_COUNT, &reps, .max = INT_MAX},
      {"--loops", NULL, KC_OPT_COUNT, &loops, .min = 1},
      {"--streams", NULL, KC_OPT_COUNT, &streams, .min = 1, .max = BENCH_MAX_STREAMS},
      {"--no-report", NULL, KC_OPT_FLAG, .dest = &no_report},
      {"--list", NULL, KC_OPT_FLAG, .dest = &list_only},
      {"--sizes", NULL, KC_OPT_CALL, &sel, .parse = parse_sizes},
      {"--help", "-h", KC_OPT_STOP, .dest = &help},
  };
  char err[256];
  if (kc_opts_parse(argc, argv, opts, sizeof opts / sizeof opts[0], err, sizeof err) != 0 || help) {
    if (!help) fprintf(stderr, "bench: %s\n", err);
    usage(help ? stdout : stderr); /* --help, or after the error */
    return help ? 0 : 2;
  }
  /* The quick form (make test): one repetition, fewer loops. */
  timing tm = sel.quick ? (timing){0.005, 1} : (timing){0.020, 4};
  if (time_ms && atof(time_ms) > 0) tm.target_s = atof(time_ms) / 1e3;
  if (reps > 0) tm.reps = (int)reps;
  sel.streams = (unsigned)streams;
  sel.loops = loops ? loops : sel.quick ? QUICK_LOOPS : PAPER_LOOPS;
  if ((sel.mode_filter && check_known(sel.mode_filter, 1, "mode") != 0) ||
      (sel.cipher_filter && check_known(sel.cipher_filter, 0, "cipher") != 0))
    return 2;

  char cpu[256], feats[256];
  kc_cpu_describe(cpu, feats, sizeof cpu);
  double ghz = list_only ? 0.0 : estimate_ghz();
  if (!list_only) {
    fprintf(stderr,
            "bench: CPU %s [%s]\n"
            "bench: core clock estimate %.3f GHz (method: best of 10 chains of %d dependent "
            "register integer adds x N, 1 cycle each, in thread CPU time; TSC rate %.3f GHz, "
            "not used)\n"
            "bench: each measurement: best of %d repetitions of >= %.0f ms, interleaved with "
            "the others\n"
            "bench: uBlock block-loop (the paper's method): one block encrypted %llu times per "
            "test%s\n",
            cpu, feats, ghz, ADD_CHAIN, tsc_ghz(), tm.reps, tm.target_s * 1e3,
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
    bench_set_free(&set);
    return 0;
  }

  size_t n_recs;
  record *recs = measure(&set, &tm, ghz, &n_recs, &problems);
  int written = write_report(argv[0], json_path, mca_path, no_report, recs, n_recs, &tm, ghz, cpu);
  if (problems) fprintf(stderr, "bench: %d problem(s): output mismatches or errors\n", problems);
  bench_set_free(&set);
  free(recs);
  return written != 0 || problems ? 1 : 0;
}
