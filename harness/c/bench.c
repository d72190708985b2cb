/*
 * bench: throughput of every native SM4 kernel of the generated library, side
 * by side with OpenSSL's EVP SM4 and libgcrypt's SM4, in one run.
 *
 * For each subject (one of our native kernels, "openssl", "libgcrypt") x mode
 * (ecb-enc, ecb-dec, cbc-enc, cbc-dec, ctr) x message size, the time of one
 * call on a message of that size is measured and reported as Gbit/s and as
 * cycles per byte.
 *
 *   Timing.  A call is repeated enough times that one repetition lasts at
 *   least --time-ms (adaptive: the count is calibrated by doubling, which
 *   also warms caches and branch predictors); the best of --reps repetitions
 *   is kept.  The repetitions are interleaved: all measurements are timed
 *   once, then all again, and so on, so a burst of load from another process
 *   cannot spoil every repetition of one measurement.  Clock:
 *   clock_gettime(CLOCK_MONOTONIC).
 *
 *   Cycles.  rdtsc ticks at a fixed rate that is not the core clock here, and
 *   there are no hardware counters, so the core clock is estimated once at
 *   start by timing a chain of dependent integer adds (one cycle each on
 *   every x86 and Arm core of interest).  cpb = seconds * GHz * 1e9 / bytes.
 *   The estimate is repeated at the end and both are printed, so a clock that
 *   drifted during the run is visible.
 *
 *   Honesty.  Emulated (SIMDe) kernels are never timed.  Before timing, each
 *   subject's output for every mode is compared with the scalar reference
 *   kernel; a mismatch is reported and makes the exit status non-zero.
 *
 * Output: progress on stderr; with --json FILE, a JSON list of records
 * (fields documented at write_json) and the report: `harness/report.py`
 * renders FILE.md (markdown tables: headline ratios at 64 KiB, every size,
 * llvm-mca modelled figures when mca.json lies next to FILE) and FILE.png,
 * and prints the markdown on stdout (without --json, the same markdown is
 * printed from a temporary file).  Without Python, or with --no-report, a
 * plain markdown table of all records is printed (and written to FILE.md) by
 * this program.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* realpath */

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

#include <gcrypt.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "common.h"
#include "sm4.h"

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
 * Returns 0 where no such chain is written for this architecture.
 */
static int add_chain(uint64_t passes) {
  uint64_t x = 0;
  for (uint64_t i = 0; i < passes; i++) {
#if defined(__x86_64__) || defined(__i386__)
    __asm__ volatile(".rept 64\n\taddq $1, %0\n\t.endr" : "+r"(x));
#elif defined(__aarch64__)
    __asm__ volatile(".rept 64\n\tadd %0, %0, #1\n\t.endr" : "+r"(x));
#else
    (void)x;
    return 0;
#endif
  }
  return 1;
}

/*
 * Estimated core clock in GHz: the best (highest) rate of several timed
 * chains of about 50 ms each.  0 if unknown.
 */
static double estimate_ghz(void) {
  if (!add_chain(1)) return 0.0;
  /* Size the chain: grow until it lasts about 50 ms. */
  uint64_t passes = 1 << 14;
  for (;;) {
    double t0 = now_seconds();
    add_chain(passes);
    double t = now_seconds() - t0;
    if (t > 0.05) break;
    passes *= 2;
  }
  double best = 0.0;
  for (int rep = 0; rep < 5; rep++) {
    double t0 = now_seconds();
    add_chain(passes);
    double t = now_seconds() - t0;
    double ghz = (double)passes * ADD_CHAIN / t / 1e9;
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
/* Modes and subjects                                                   */
/* ------------------------------------------------------------------ */

typedef struct {
  const char *name; /* as printed and as given to --mode */
  sm4_mode mode;
  sm4_direction dir;
} bench_mode;

static const bench_mode MODES[] = {
    {"ecb-enc", SM4_MODE_ECB, SM4_ENCRYPT}, {"ecb-dec", SM4_MODE_ECB, SM4_DECRYPT},
    {"cbc-enc", SM4_MODE_CBC, SM4_ENCRYPT}, {"cbc-dec", SM4_MODE_CBC, SM4_DECRYPT},
    {"ctr", SM4_MODE_CTR, SM4_ENCRYPT},
};
#define N_MODES (sizeof MODES / sizeof MODES[0])

/* Fixed inputs: the key and IV of every measurement (values do not matter). */
static const uint8_t KEY[16] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
                                0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10};
static const uint8_t IV[16] = {0xf0, 0xe1, 0xd2, 0xc3, 0xb4, 0xa5, 0x96, 0x87,
                               0x78, 0x69, 0x5a, 0x4b, 0x3c, 0x2d, 0xff, 0xf0};

/* What is being measured: one of our kernels or a peer library. */
typedef enum { SUBJ_OURS, SUBJ_OPENSSL, SUBJ_GCRYPT } subject_kind;

typedef struct {
  subject_kind kind;
  const char *impl;     /* "ours", "openssl", "libgcrypt" */
  const char *name;     /* kernel name, or the peer's name */
  const char *strategy; /* our strategy; for peers the API used */
  const char *target;   /* our target; for peers the library version */
  unsigned lanes;       /* blocks processed in parallel (1 for peers) */
  const sm4_impl *ours; /* SUBJ_OURS only */
} subject;

/*
 * The state of one subject set up for one mode: what a timed call needs.
 * Peers reuse one context or handle across calls, as an application would.
 */
typedef struct {
  const subject *subj;
  const bench_mode *mode;
  const sm4_key *key;          /* ours */
  EVP_CIPHER_CTX *evp;         /* openssl */
  gcry_cipher_hd_t gcry;       /* libgcrypt */
} runner;

static int runner_open(runner *r, const subject *s, const bench_mode *m, const sm4_key *key) {
  memset(r, 0, sizeof *r);
  r->subj = s;
  r->mode = m;
  r->key = key;
  if (s->kind == SUBJ_OPENSSL) {
    const EVP_CIPHER *c = m->mode == SM4_MODE_ECB   ? EVP_sm4_ecb()
                          : m->mode == SM4_MODE_CBC ? EVP_sm4_cbc()
                                                    : EVP_sm4_ctr();
    r->evp = EVP_CIPHER_CTX_new();
    if (!r->evp || !c) return -1;
    int ok = m->dir == SM4_ENCRYPT ? EVP_EncryptInit_ex(r->evp, c, NULL, KEY, IV)
                                   : EVP_DecryptInit_ex(r->evp, c, NULL, KEY, IV);
    if (!ok) return -1;
    EVP_CIPHER_CTX_set_padding(r->evp, 0); /* whole blocks in, whole blocks out */
  } else if (s->kind == SUBJ_GCRYPT) {
    int gm = m->mode == SM4_MODE_ECB   ? GCRY_CIPHER_MODE_ECB
             : m->mode == SM4_MODE_CBC ? GCRY_CIPHER_MODE_CBC
                                       : GCRY_CIPHER_MODE_CTR;
    if (gcry_cipher_open(&r->gcry, GCRY_CIPHER_SM4, gm, 0)) return -1;
    if (gcry_cipher_setkey(r->gcry, KEY, sizeof KEY)) return -1;
  }
  return 0;
}

static void runner_close(runner *r) {
  if (r->evp) EVP_CIPHER_CTX_free(r->evp);
  if (r->gcry) gcry_cipher_close(r->gcry);
  r->evp = NULL;
  r->gcry = NULL;
}

/* One call on `len` bytes.  Returns 0 on success. */
static int runner_call(runner *r, const uint8_t *in, uint8_t *out, size_t len) {
  const bench_mode *m = r->mode;
  switch (r->subj->kind) {
    case SUBJ_OURS:
      return sm4_crypt(r->subj->ours, m->mode, m->dir, r->key, IV, in, out, len);
    case SUBJ_OPENSSL: {
      /* The reused context carries the CBC chaining value and CTR counter
       * from call to call; only the first call's output is checked. */
      int outl = 0;
      int ok = m->dir == SM4_ENCRYPT ? EVP_EncryptUpdate(r->evp, out, &outl, in, (int)len)
                                     : EVP_DecryptUpdate(r->evp, out, &outl, in, (int)len);
      return ok && (size_t)outl == len ? 0 : -1;
    }
    case SUBJ_GCRYPT: {
      /* Same IV / counter at every call, like our sm4_crypt. */
      gcry_error_t e = m->mode == SM4_MODE_CTR   ? gcry_cipher_setctr(r->gcry, IV, 16)
                       : m->mode == SM4_MODE_CBC ? gcry_cipher_setiv(r->gcry, IV, 16)
                                                 : 0;
      if (e) return -1;
      e = m->dir == SM4_ENCRYPT ? gcry_cipher_encrypt(r->gcry, out, len, in, len)
                                : gcry_cipher_decrypt(r->gcry, out, len, in, len);
      return e ? -1 : 0;
    }
  }
  return -1;
}

/* ------------------------------------------------------------------ */
/* Measurement                                                          */
/* ------------------------------------------------------------------ */

typedef struct {
  double target_s; /* minimum length of one repetition */
  int reps;        /* repetitions; the best is kept */
} timing;

/* Seconds for `iters` calls, or -1 on an error. */
static double time_calls(runner *r, const uint8_t *in, uint8_t *out, size_t len, uint64_t iters) {
  double t0 = now_seconds();
  for (uint64_t i = 0; i < iters; i++)
    if (runner_call(r, in, out, len) != 0) return -1.0;
  return now_seconds() - t0;
}

/*
 * Calls per repetition for `len` bytes: doubled until a run lasts a quarter
 * of the target, then scaled up to the target.  This also warms caches and
 * predictors.  Returns 0 on an error.
 */
static uint64_t calibrate(runner *r, const uint8_t *in, uint8_t *out, size_t len, const timing *tm) {
  uint64_t iters = 1;
  double t;
  for (;;) {
    t = time_calls(r, in, out, len, iters);
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
  const subject *subj;
  const char *mode;
  size_t msg_bytes;
  double seconds; /* best seconds per call */
  double gbps;
  double cpb; /* 0 when the clock is unknown */
  uint64_t iters;
  int verified; /* output matched the scalar reference before timing */
} record;

/* Writes a JSON string literal (the names here need no escaping beyond this). */
static void json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') fputc('\\', f);
    if ((unsigned char)*s >= 0x20) fputc(*s, f);
  }
  fputc('"', f);
}

/*
 * The JSON file: a list of records, one per subject x mode x size, with
 *   cipher "sm4"; impl "ours" | "openssl" | "libgcrypt"; name (kernel name,
 *   e.g. "byteslice_avx2_gfni", or the peer's name); strategy; target (for
 *   peers: the API and the library version); mode; msg_bytes; lanes;
 *   gbps; cpb (null if the clock is unknown); seconds (best per call);
 *   iters (calls per repetition); reps; verified; emulated false; modelled
 *   false; clock_ghz and clock_method (the estimate cpb is based on); cpu.
 */
static int write_json(const char *path, const record *recs, size_t n, const timing *tm,
                      double ghz, const char *cpu) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fputs("[\n", f);
  for (size_t i = 0; i < n; i++) {
    const record *r = &recs[i];
    fputs("  {\"cipher\": \"sm4\", \"impl\": ", f);
    json_str(f, r->subj->impl);
    fputs(", \"name\": ", f);
    json_str(f, r->subj->name);
    fputs(", \"strategy\": ", f);
    json_str(f, r->subj->strategy);
    fputs(", \"target\": ", f);
    json_str(f, r->subj->target);
    fputs(", \"mode\": ", f);
    json_str(f, r->mode);
    fprintf(f, ", \"msg_bytes\": %zu, \"lanes\": %u, \"gbps\": %.4f, ", r->msg_bytes,
            r->subj->lanes, r->gbps);
    if (r->cpb > 0)
      fprintf(f, "\"cpb\": %.4f, ", r->cpb);
    else
      fputs("\"cpb\": null, ", f);
    fprintf(f,
            "\"seconds\": %.6e, \"iters\": %llu, \"reps\": %d, \"verified\": %s, "
            "\"emulated\": false, \"modelled\": false, \"clock_ghz\": %.4f, "
            "\"clock_method\": \"dependent chain of integer adds\", \"cpu\": ",
            r->seconds, (unsigned long long)r->iters, tm->reps, r->verified ? "true" : "false",
            ghz);
    json_str(f, cpu);
    fputs(i + 1 < n ? "},\n" : "}\n", f);
  }
  fputs("]\n", f);
  return fclose(f) == 0 ? 0 : -1;
}

/* Plain markdown table of every record: used when the Python report is not
 * available, so the run still ends with a table. */
static void write_plain_table(FILE *f, const record *recs, size_t n, double ghz) {
  fprintf(f, "## SM4 throughput (core clock estimate %.2f GHz)\n\n", ghz);
  fputs("| impl | kernel | mode | bytes | Gbit/s | cycles/byte |\n", f);
  fputs("|---|---|---|---:|---:|---:|\n", f);
  for (size_t i = 0; i < n; i++)
    fprintf(f, "| %s | %s | %s | %zu | %.2f | %.2f |\n", recs[i].subj->impl, recs[i].subj->name,
            recs[i].mode, recs[i].msg_bytes, recs[i].gbps, recs[i].cpb);
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

/* ------------------------------------------------------------------ */
/* Command line                                                         */
/* ------------------------------------------------------------------ */

static const size_t DEFAULT_SIZES[] = {64, 256, 1024, 4096, 16384, 65536, 1048576};
static const size_t QUICK_SIZES[] = {256, 4096, 65536};
#define MAX_SIZES 32

static void usage(FILE *f) {
  fputs("usage: bench [options]\n"
        "  --json FILE      write the records to FILE, the report to FILE.md and FILE.png\n"
        "  --quick          sizes 256,4K,64K and 5 ms x 3 repetitions per measurement\n"
        "  --sizes LIST     message sizes, e.g. 64,1K,64K,1M\n"
        "  --impl LIST      subjects: kernel names (byteslice_avx2_gfni), strategies,\n"
        "                   targets, 'ours', 'openssl', 'libgcrypt' (comma-separated)\n"
        "  --mode LIST      ecb-enc,ecb-dec,cbc-enc,cbc-dec,ctr\n"
        "  --time-ms MS     minimum length of one repetition (default 20)\n"
        "  --reps N         repetitions, best kept (default 4)\n"
        "  --mca FILE       llvm-mca records to add to the report (default: mca.json\n"
        "                   next to the --json file, if present)\n"
        "  --no-report      do not run harness/report.py (print a plain table)\n"
        "  --list           list the subjects and exit\n",
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

/* 1 if `word` is one of the comma-separated items of `list`. */
static int in_list(const char *list, const char *word) {
  size_t n = strlen(word);
  for (const char *p = list; *p;) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len == n && strncmp(p, word, n) == 0) return 1;
    if (!end) break;
    p = end + 1;
  }
  return 0;
}

static int subject_selected(const subject *s, const char *filter) {
  if (!filter) return 1;
  return in_list(filter, s->name) || in_list(filter, s->impl) ||
         (s->kind == SUBJ_OURS && (in_list(filter, s->strategy) || in_list(filter, s->target)));
}

/* ------------------------------------------------------------------ */
/* Main                                                                 */
/* ------------------------------------------------------------------ */

int main(int argc, char **argv) {
  const char *json_path = NULL, *impl_filter = NULL, *mode_filter = NULL, *mca_path = NULL;
  size_t sizes[MAX_SIZES], n_sizes = 0;
  int quick = 0, no_report = 0, list_only = 0, sizes_given = 0;
  timing tm = {0.020, 4};
  double time_ms = -1;
  int reps = -1;

  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int has_arg = i + 1 < argc;
    if (!strcmp(a, "--json") && has_arg) json_path = argv[++i];
    else if (!strcmp(a, "--quick")) quick = 1;
    else if (!strcmp(a, "--impl") && has_arg) impl_filter = argv[++i];
    else if (!strcmp(a, "--mode") && has_arg) mode_filter = argv[++i];
    else if (!strcmp(a, "--mca") && has_arg) mca_path = argv[++i];
    else if (!strcmp(a, "--time-ms") && has_arg) time_ms = atof(argv[++i]);
    else if (!strcmp(a, "--reps") && has_arg) reps = atoi(argv[++i]);
    else if (!strcmp(a, "--no-report")) no_report = 1;
    else if (!strcmp(a, "--list")) list_only = 1;
    else if (!strcmp(a, "--sizes") && has_arg) {
      sizes_given = 1;
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
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    } else {
      fprintf(stderr, "bench: unknown or incomplete option '%s'\n", a);
      usage(stderr);
      return 2;
    }
  }
  if (quick) tm = (timing){0.005, 3};
  if (time_ms > 0) tm.target_s = time_ms / 1e3;
  if (reps > 0) tm.reps = reps;
  if (!sizes_given) {
    const size_t *src = quick ? QUICK_SIZES : DEFAULT_SIZES;
    n_sizes = quick ? sizeof QUICK_SIZES / sizeof *src : sizeof DEFAULT_SIZES / sizeof *src;
    memcpy(sizes, src, n_sizes * sizeof *src);
  }
  if (mode_filter)
    for (const char *p = mode_filter; *p;) {
      /* Reject unknown mode names early. */
      const char *end = strchr(p, ',');
      size_t len = end ? (size_t)(end - p) : strlen(p);
      int known = 0;
      for (size_t m = 0; m < N_MODES; m++)
        known |= strlen(MODES[m].name) == len && !strncmp(MODES[m].name, p, len);
      if (!known) {
        fprintf(stderr, "bench: unknown mode '%.*s'\n", (int)len, p);
        return 2;
      }
      if (!end) break;
      p = end + 1;
    }

  /* Peers. */
  if (!gcry_check_version(GCRYPT_VERSION)) {
    fprintf(stderr, "bench: libgcrypt version mismatch\n");
    return 1;
  }
  gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
  gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
  char openssl_target[64], gcrypt_target[64];
  snprintf(openssl_target, sizeof openssl_target, "EVP %s", OpenSSL_version(OPENSSL_VERSION));
  snprintf(gcrypt_target, sizeof gcrypt_target, "gcry_cipher %s", gcry_check_version(NULL));

  /* Subjects: our native kernels (never emulated ones), then the peers. */
  size_t n_impls = 0;
  const sm4_impl *const *impls = sm4_impls(&n_impls);
  subject *subjects = calloc(n_impls + 2, sizeof *subjects);
  size_t n_subj = 0;
  for (size_t i = 0; i < n_impls; i++) {
    const sm4_impl *im = impls[i];
    if (im->emulated) continue; /* never time emulation */
    if (kc_impl_avail(im->emulated, im->cpu_supported) != KC_NATIVE ||
        kc_target_disabled(im->target)) {
      fprintf(stderr, "bench: skipping %s (this CPU cannot run it natively)\n", im->name);
      continue;
    }
    subjects[n_subj++] = (subject){SUBJ_OURS, "ours", im->name, im->strategy, im->target,
                                   im->batch_blocks ? im->batch_blocks : 1, im};
  }
  subjects[n_subj++] = (subject){SUBJ_OPENSSL, "openssl", "openssl", "evp", openssl_target, 1, NULL};
  subjects[n_subj++] = (subject){SUBJ_GCRYPT, "libgcrypt", "libgcrypt", "gcry_cipher", gcrypt_target, 1, NULL};

  if (list_only) {
    for (size_t i = 0; i < n_subj; i++)
      printf("%-28s %-10s %-10s %s\n", subjects[i].name, subjects[i].impl, subjects[i].strategy,
             subjects[i].target);
    return 0;
  }

  /* The reference for the pre-timing check. */
  const sm4_impl *ref = sm4_impl_find("reference", "scalar", 0);
  if (!ref) {
    fprintf(stderr, "bench: no reference_scalar kernel to check against\n");
    return 1;
  }
  sm4_key key;
  sm4_set_key(&key, KEY);

  /* Buffers: the largest message, 64-byte aligned, random contents. */
  size_t max_size = 0;
  for (size_t i = 0; i < n_sizes; i++)
    if (sizes[i] > max_size) max_size = sizes[i];
  size_t check_len = 1024 + 16; /* several batches of every kernel, plus one block */
  size_t buf_len = max_size > check_len ? max_size : check_len;
  uint8_t *in = kc_alloc_aligned(buf_len, 64), *out = kc_alloc_aligned(buf_len, 64);
  uint8_t *expect = kc_alloc_aligned(buf_len, 64);
  if (!in || !out || !expect) {
    fprintf(stderr, "bench: out of memory\n");
    return 1;
  }
  kc_rng rng;
  kc_rng_seed(&rng, 20240611);
  kc_rng_bytes(&rng, in, buf_len);

  char cpu[256], feats[256];
  kc_cpu_model(cpu, sizeof cpu);
  kc_cpu_features(feats, sizeof feats);
  double ghz = estimate_ghz();
  fprintf(stderr, "bench: CPU %s [%s]\n", cpu, feats);
  fprintf(stderr,
          "bench: core clock estimate %.3f GHz (method: best of 5 timed chains of %d dependent "
          "integer adds x N, 1 cycle each; TSC rate %.3f GHz, not used)\n",
          ghz, ADD_CHAIN, tsc_ghz());
  fprintf(stderr,
          "bench: each measurement: best of %d repetitions of >= %.0f ms, interleaved with the "
          "others\n",
          tm.reps, tm.target_s * 1e3);

  /*
   * The measurements are interleaved: every (subject, mode, size) is
   * calibrated once, then the whole set is timed `reps` times over, keeping
   * each one's best.  A disturbance from another process (this machine is
   * shared) then spoils one repetition of many measurements rather than all
   * repetitions of one.
   */
  size_t max_cells = n_subj * N_MODES;
  runner *runners = calloc(max_cells ? max_cells : 1, sizeof *runners);
  int *verified = calloc(max_cells ? max_cells : 1, sizeof *verified);
  record *recs = calloc(max_cells * n_sizes + 1, sizeof *recs);
  size_t *rec_cell = calloc(max_cells * n_sizes + 1, sizeof *rec_cell);
  size_t n_cells = 0, n_recs = 0;
  int mismatches = 0, errors = 0;
  double t_start = now_seconds();

  /* Open each (subject, mode) and check its output against the reference. */
  for (size_t si = 0; si < n_subj; si++) {
    const subject *s = &subjects[si];
    if (!subject_selected(s, impl_filter)) continue;
    for (size_t mi = 0; mi < N_MODES; mi++) {
      const bench_mode *m = &MODES[mi];
      if (mode_filter && !in_list(mode_filter, m->name)) continue;
      runner *r = &runners[n_cells];
      if (runner_open(r, s, m, &key) != 0) {
        fprintf(stderr, "bench: %s %s: set-up failed, skipped\n", s->name, m->name);
        runner_close(r);
        errors++;
        continue;
      }
      int ok = sm4_crypt(ref, m->mode, m->dir, &key, IV, in, expect, check_len) == SM4_OK &&
               runner_call(r, in, out, check_len) == 0 && memcmp(out, expect, check_len) == 0;
      if (!ok) {
        fprintf(stderr, "bench: WARNING: %s %s output differs from reference_scalar\n", s->name,
                m->name);
        mismatches++;
      }
      verified[n_cells++] = ok;
    }
  }

  /* Calibrate every measurement. */
  fprintf(stderr, "bench: calibrating %zu measurements\n", n_cells * n_sizes);
  for (size_t c = 0; c < n_cells; c++)
    for (size_t zi = 0; zi < n_sizes; zi++) {
      uint64_t iters = calibrate(&runners[c], in, out, sizes[zi], &tm);
      if (!iters) {
        fprintf(stderr, "bench: %s %s %zu B: call failed\n", runners[c].subj->name,
                runners[c].mode->name, sizes[zi]);
        errors++;
        continue;
      }
      record *rec = &recs[n_recs];
      rec_cell[n_recs++] = c;
      *rec = (record){runners[c].subj, runners[c].mode->name, sizes[zi], DBL_MAX, 0, 0, iters,
                      verified[c]};
    }

  /* Time them all, `reps` times over. */
  for (int rep = 0; rep < tm.reps; rep++) {
    for (size_t i = 0; i < n_recs; i++) {
      record *rec = &recs[i];
      double t = time_calls(&runners[rec_cell[i]], in, out, rec->msg_bytes, rec->iters);
      if (t >= 0 && t / (double)rec->iters < rec->seconds) rec->seconds = t / (double)rec->iters;
    }
    fprintf(stderr, "bench: pass %d/%d done (%.1f s)\n", rep + 1, tm.reps, now_seconds() - t_start);
  }
  for (size_t i = 0; i < n_recs; i++) {
    record *rec = &recs[i];
    rec->gbps = (double)rec->msg_bytes * 8.0 / rec->seconds / 1e9;
    rec->cpb = ghz > 0 ? rec->seconds * ghz * 1e9 / (double)rec->msg_bytes : 0.0;
    fprintf(stderr, "  %-24s %-8s %8zu B %9.3f Gbit/s %8.2f cycles/byte\n", rec->subj->name,
            rec->mode, rec->msg_bytes, rec->gbps, rec->cpb);
  }
  for (size_t c = 0; c < n_cells; c++) runner_close(&runners[c]);

  double ghz_end = estimate_ghz();
  fprintf(stderr,
          "bench: %zu measurements in %.1f s; core clock estimate at end %.3f GHz (start "
          "%.3f)\n",
          n_recs, now_seconds() - t_start, ghz_end, ghz);

  /* Report. */
  int report_done = 0;
  if (json_path) {
    if (write_json(json_path, recs, n_recs, &tm, ghz, cpu) != 0) {
      fprintf(stderr, "bench: cannot write %s: %s\n", json_path, strerror(errno));
      return 1;
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
      if (write_json(tmp, recs, n_recs, &tm, ghz, cpu) == 0 &&
          find_report_script(script, sizeof script) == 0)
        report_done = run_report(script, tmp, NULL, NULL, mca_path) == 0;
      unlink(tmp);
      rmdir(dir);
    }
  }
  if (!report_done) write_plain_table(stdout, recs, n_recs, ghz);

  if (mismatches || errors)
    fprintf(stderr, "bench: %d output mismatch(es), %d error(s)\n", mismatches, errors);
  kc_free_aligned(in);
  kc_free_aligned(out);
  kc_free_aligned(expect);
  free(recs);
  free(rec_cell);
  free(runners);
  free(verified);
  free(subjects);
  return mismatches || errors ? 1 : 0;
}
