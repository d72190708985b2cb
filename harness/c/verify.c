/*
 * verify: known-answer and differential tests of every SM4, ZUC and uBlock
 * implementation.
 *
 *   verify [--quick] [--impl NAME] [--cipher sm4|zuc|ublock] [--seed N] [--random N]
 *          [--iterated all|native|serial]
 *
 * The tests of each cipher are described where they are written:
 * verify_sm4.c (official vectors, differential cases against the reference
 * and OpenSSL), verify_zuc.c (official vectors through the one-stream and
 * many-streams APIs, the raw kernels, differential cases against the
 * reference and Intel ipsec-mb) and verify_ublock.c (official vectors of
 * all three variants including the 1,000,000-fold iterations, differential
 * cases against the reference, multi-key streams, the key schedules); the
 * block-cipher tests SM4 and uBlock share are in verify_block.c.  Every registered implementation is tested:
 * the native kernels this CPU runs and the SIMDe-emulated builds.
 *
 * Where the vectors are found is described in vectors.h ($KC_VECTORS_DIR, or
 * <repo>/tests/vectors found upwards from the executable or the current
 * directory).
 *
 * Output: one line per shared section and per implementation,
 *   PASS <name> (native|emulated): N vectors, M differential cases
 * where N counts vector checks and M the differential cases that passed
 * every check (FAIL lines add the number of failed checks and the first few
 * details), SKIP for an implementation that can run neither natively nor
 * emulated, and a final line "P passed, F failed" counting those PASS and
 * FAIL lines.  ZUC lines name their implementation "zuc <name>", uBlock
 * lines "ublock <name>".  Progress
 * goes to stderr.  Exit status: 0 all passed, 1 a check failed, 2 the tests
 * could not run (bad option, vectors missing or malformed).
 *
 * --quick: fewer random differential cases (every vector and every
 * systematic case still runs).  --impl NAME: test only implementations named
 * NAME (both its native and its emulated build; of any cipher).  --cipher:
 * only that cipher's tests.  --seed N: another random sequence (default 1).
 * --random N: exactly N random cases per implementation.  --iterated: which
 * implementations run the iterated vectors (the 1,000,000-fold SM4 and uBlock
 * ones), the others running the same vectors un-iterated: all (the default),
 * native (not the SIMDe builds, where they would time SIMDe: `make test`'s
 * verify stage), serial (only the kernel the library runs serial work on,
 * <cipher>_impl_serial: `make verify-aarch64` under qemu, where they had been
 * most of the time).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "verify.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "vectors.h"

/* ------------------------------------------------------------------ */
/* Bookkeeping                                                          */
/* ------------------------------------------------------------------ */

/* Final counts over all sections. */
static size_t units_passed, units_failed;

void verify_failure(verify_section *s, const char *fmt, ...) {
  if (s->failures < VERIFY_MAX_DETAILS) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->details[s->failures], sizeof s->details[0], fmt, ap);
    va_end(ap);
  }
  s->failures++;
}

void verify_report(const char *label, const verify_section *s, int is_impl) {
  const char *verdict = s->failures ? "FAIL" : "PASS";
  if (is_impl)
    printf("%s %s: %zu vectors, %zu differential cases", verdict, label, s->vectors, s->cases);
  else
    printf("%s %s: %zu checks", verdict, label, s->checks + s->vectors + s->cases);
  if (s->failures) printf(", %zu failed checks", s->failures);
  printf("\n");
  for (size_t i = 0; i < s->failures && i < VERIFY_MAX_DETAILS; i++)
    printf("    %s\n", s->details[i]);
  if (s->failures > VERIFY_MAX_DETAILS)
    printf("    ... and %zu more\n", s->failures - VERIFY_MAX_DETAILS);
  fflush(stdout);
  if (s->failures)
    units_failed++;
  else
    units_passed++;
}

void verify_skip(const char *label, const char *reason) {
  printf("SKIP %s (unavailable): %s\n", label, reason);
}

long verify_first_diff(const uint8_t *a, const uint8_t *b, size_t len) {
  for (size_t i = 0; i < len; i++)
    if (a[i] != b[i]) return (long)i;
  return -1;
}

double verify_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

uint64_t verify_random_cases(const verify_options *o, uint64_t full, uint64_t quick) {
  return o->random_given ? o->n_random : o->quick ? quick : full;
}

kc_json *verify_load_vectors(const char *argv0, const char *file, char *path, size_t path_size) {
  char dir[4096], err[512];
  if (kc_vectors_dir(argv0, file, dir, sizeof dir, err, sizeof err) != 0) {
    fprintf(stderr, "verify: error: %s\n", err);
    return NULL;
  }
  snprintf(path, path_size, "%s/%s", dir, file);
  kc_json *root = kc_json_load(path, err, sizeof err);
  if (!root) fprintf(stderr, "verify: error: %s\n", err);
  return root;
}

/* The row of l describing impl, or NULL. */
static const kc_impl_view *view_of(const kc_view_list *l, const void *impl) {
  for (size_t i = 0; impl && i < l->n; i++)
    if (l->v[i].impl == impl) return &l->v[i];
  return NULL;
}

/* 1 if something other than the reference runs natively. */
static int simd_runs_natively(const kc_view_list *l) {
  for (size_t i = 0; i < l->n; i++)
    if (strcmp(l->v[i].strategy, "reference") != 0 && kc_view_runs(&l->v[i]) == KC_NATIVE)
      return 1;
  return 0;
}

void verify_check_lookups(const char *cipher, const kc_view_list *l, verify_find_fn find,
                          const void *best, verify_section *s) {
  const kc_impl_view *b = view_of(l, best);
  VERIFY_CHECK(s,
               b && kc_view_runs(b) == KC_NATIVE &&
                   (strcmp(b->strategy, "reference") != 0 || !simd_runs_natively(l)),
               "%s_impl_best() returned %s", cipher, b ? b->name : "NULL");
  const kc_impl_view *ref = view_of(l, find("reference", "scalar", 0));
  VERIFY_CHECK(s, ref && strcmp(ref->name, "reference_scalar") == 0 &&
                      !find(NULL, "no_such_target", 0),
               "%s_impl_find gives wrong answers for reference_scalar / an unknown target", cipher);
  for (size_t i = 0; i < l->n; i++) {
    const kc_impl_view *m = &l->v[i];
    char name[128];
    snprintf(name, sizeof name, "%s_%s", m->strategy, m->target);
    VERIFY_CHECK(s, strcmp(name, m->name) == 0, "%s impl '%s' has strategy '%s' and target '%s'",
                 cipher, m->name, m->strategy, m->target);
    VERIFY_CHECK(s, find(m->strategy, m->target, m->emulated) == m->impl,
                 "%s_impl_find(\"%s\", \"%s\", %d) does not return %s", cipher, m->strategy,
                 m->target, m->emulated, m->name);
  }
}

void verify_step(const verify_progress *p, const char *fmt, ...) {
  fprintf(stderr, "verify: [%zu/%zu] %s: ", p->position, p->total, p->label);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
}

void verify_tick(size_t i, size_t n, size_t every) {
  static int tty = -1;
  if (tty < 0) tty = isatty(STDERR_FILENO);
  if (!tty || (i % every != 0 && i + 1 != n)) return;
  fprintf(stderr, "\r  %zu/%zu%s", i + 1, n, i + 1 == n ? "\n" : "");
}

/* 1 if the --impl filter lets v through. */
static int selected(const verify_options *o, const kc_impl_view *v) {
  return !o->only || strcmp(v->name, o->only) == 0;
}

int verify_start(const char *cipher, kc_views_fn views, verify_find_fn find, const void *serial,
                 const verify_options *o, uint64_t full, uint64_t quick, kc_view_list *impls,
                 verify_run *run) {
  views(impls);
  *run = (verify_run){find("reference", "scalar", 0), (size_t)verify_random_cases(o, full, quick),
                      o->seed, o->iterated, serial};
  if (run->ref) return 0;
  fprintf(stderr, "verify: error: no %s reference_scalar implementation\n", cipher);
  return -1;
}

void verify_each_impl(const kc_view_list *l, const verify_options *o, const char *prefix,
                      verify_impl_fn check, const verify_run *run) {
  verify_progress p = {NULL, 0, 0};
  for (size_t i = 0; i < l->n; i++)
    if (selected(o, &l->v[i]) && kc_view_runs(&l->v[i]) != KC_UNAVAILABLE) p.total++;
  for (size_t i = 0; i < l->n; i++) {
    const kc_impl_view *v = &l->v[i];
    if (!selected(o, v)) continue;
    kc_avail avail = kc_view_runs(v);
    char label[200];
    if (avail == KC_UNAVAILABLE) {
      snprintf(label, sizeof label, "%s%s", prefix, v->name);
      verify_skip(label, v->emulated ? "this CPU lacks the host ISA its SIMDe build is compiled for"
                                     : "this CPU cannot run it natively");
      continue;
    }
    snprintf(label, sizeof label, "%s%s (%s)", prefix, v->name, kc_avail_name(avail));
    p.label = label;
    p.position++;
    verify_section s = {0};
    double t0 = verify_now();
    check(v, &p, &s, run);
    verify_step(&p, "done in %.1f s", verify_now() - t0);
    verify_report(label, &s, 1);
  }
}

int verify_iterates(const verify_run *run, const kc_impl_view *v) {
  switch (run->iterated) {
    case VERIFY_ITERATED_NATIVE: return !v->emulated;
    case VERIFY_ITERATED_SERIAL: return v->impl == run->serial;
    default: return 1;
  }
}

/* ------------------------------------------------------------------ */
/* Main                                                                 */
/* ------------------------------------------------------------------ */

/* The ciphers verify tests, in order. */
static const struct {
  const char *name;
  kc_views_fn views;
  int (*run)(const verify_options *o);
} CIPHERS[] = {
    {"sm4", kc_views_sm4, verify_sm4},
    {"zuc", kc_views_zuc, verify_zuc},
    {"ublock", kc_views_ublock, verify_ublock},
};
#define N_CIPHERS (sizeof CIPHERS / sizeof CIPHERS[0])

static void usage(FILE *f) {
  fprintf(f,
          "usage: verify [--quick] [--impl NAME] [--cipher sm4|zuc|ublock] [--seed N]\n"
          "              [--random N] [--iterated all|native|serial]\n"
          "  --quick         fewer random differential cases\n"
          "  --impl NAME     test only implementations named NAME (native and emulated)\n"
          "  --cipher NAME   test only sm4, only zuc or only ublock (all three variants)\n"
          "  --seed N        seed of the random cases (default 1)\n"
          "  --random N      exactly N random cases per implementation\n"
          "  --iterated W     which implementations run the iterated vectors\n"
          "                  (1,000,000-fold): all (default), native (not the SIMDe\n"
          "                  builds) or serial (<cipher>_impl_serial only); the\n"
          "                  others run the same vectors un-iterated\n"
          "Vectors: $KC_VECTORS_DIR, else tests/vectors found upwards from the\n"
          "executable or the current directory (<repo>/tests/vectors).\n");
}

/* Index of the cipher named `name`, or -1. */
static int cipher_index(const char *name) {
  for (size_t c = 0; c < N_CIPHERS; c++)
    if (strcmp(CIPHERS[c].name, name) == 0) return (int)c;
  return -1;
}

/* Which ciphers run: `cipher` (NULL: all), and with --impl only those that
 * have an implementation of that name.  Returns how many. */
static size_t choose_ciphers(const char *cipher, const char *only, int run[N_CIPHERS]) {
  size_t n = 0;
  for (size_t c = 0; c < N_CIPHERS; c++) {
    run[c] = !cipher || strcmp(cipher, CIPHERS[c].name) == 0;
    if (run[c] && only) {
      kc_view_list l;
      CIPHERS[c].views(&l);
      run[c] = kc_view_named(&l, only);
    }
    n += (size_t)run[c];
  }
  return n;
}

/* "no implementation named X; there are: ..." on stderr. */
static void no_such_impl(const char *cipher, const char *only) {
  fprintf(stderr, "verify: error: no implementation named '%s'; there are:", only);
  for (size_t c = 0; c < N_CIPHERS; c++) {
    if (cipher && strcmp(cipher, CIPHERS[c].name) != 0) continue;
    kc_view_list l;
    CIPHERS[c].views(&l);
    kc_view_print_names(stderr, &l);
  }
  fprintf(stderr, "\n");
}

/* Parses a non-negative decimal number; returns 0 or -1. */
static int parse_count(const char *s, uint64_t *out) {
  char *end;
  if (!*s || *s == '-') return -1;
  unsigned long long v = strtoull(s, &end, 10);
  if (*end) return -1;
  *out = v;
  return 0;
}

int main(int argc, char **argv) {
  verify_options o = {argv[0], NULL, 1, 0, 0, 0, VERIFY_ITERATED_ALL};
  const char *cipher = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--quick") == 0) {
      o.quick = 1;
    } else if (strcmp(a, "--impl") == 0 && i + 1 < argc) {
      o.only = argv[++i];
    } else if (strcmp(a, "--cipher") == 0 && i + 1 < argc) {
      cipher = argv[++i];
      if (cipher_index(cipher) < 0) {
        fprintf(stderr, "verify: error: --cipher must be sm4, zuc or ublock\n");
        return 2;
      }
    } else if (strcmp(a, "--seed") == 0 && i + 1 < argc) {
      if (parse_count(argv[++i], &o.seed) != 0) {
        fprintf(stderr, "verify: error: --seed needs a number\n");
        return 2;
      }
    } else if (strcmp(a, "--random") == 0 && i + 1 < argc) {
      if (parse_count(argv[++i], &o.n_random) != 0) {
        fprintf(stderr, "verify: error: --random needs a number\n");
        return 2;
      }
      o.random_given = 1;
    } else if (strcmp(a, "--iterated") == 0 && i + 1 < argc) {
      const char *which = argv[++i];
      if (strcmp(which, "all") == 0) {
        o.iterated = VERIFY_ITERATED_ALL;
      } else if (strcmp(which, "native") == 0) {
        o.iterated = VERIFY_ITERATED_NATIVE;
      } else if (strcmp(which, "serial") == 0) {
        o.iterated = VERIFY_ITERATED_SERIAL;
      } else {
        fprintf(stderr, "verify: error: --iterated must be all, native or serial\n");
        return 2;
      }
    } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      usage(stdout);
      return 0;
    } else {
      fprintf(stderr, "verify: error: unknown or incomplete option '%s'\n", a);
      usage(stderr);
      return 2;
    }
  }
  int run[N_CIPHERS];
  if (choose_ciphers(cipher, o.only, run) == 0) {
    no_such_impl(cipher, o.only);
    return 2;
  }

  char cpu[256], feats[256];
  kc_cpu_model(cpu, sizeof cpu);
  kc_cpu_feature_list(feats, sizeof feats);
  printf("CPU: %s [%s]\n", cpu, feats);

  for (size_t c = 0; c < N_CIPHERS; c++)
    if (run[c] && CIPHERS[c].run(&o) != 0) return 2;

  printf("%zu passed, %zu failed\n", units_passed, units_failed);
  return units_failed ? 1 : 0;
}
