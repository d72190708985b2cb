/*
 * verify: known-answer and differential tests of every SM4 and ZUC
 * implementation.
 *
 *   verify [--quick] [--impl NAME] [--cipher sm4|zuc] [--seed N] [--random N]
 *
 * The tests of each cipher are described where they are written:
 * verify_sm4.c (official vectors, differential cases against the reference
 * and OpenSSL) and verify_zuc.c (official vectors through the one-stream and
 * many-streams APIs, the raw kernels, differential cases against the
 * reference and Intel ipsec-mb).  Every registered implementation is tested:
 * the native kernels this CPU runs and the SIMDe-emulated builds.
 *
 * Where the vectors are found is described in vectors.h ($KC_VECTORS_DIR, or
 * <repo>/../shared/vectors found upwards from the executable or the current
 * directory).
 *
 * Output: one line per shared section and per implementation,
 *   PASS <name> (native|emulated): N vectors, M differential cases
 * where N counts vector checks and M the differential cases that passed
 * every check (FAIL lines add the number of failed checks and the first few
 * details), SKIP for an implementation that can run neither natively nor
 * emulated, and a final line "P passed, F failed" counting those PASS and
 * FAIL lines.  ZUC lines name their implementation "zuc <name>".  Progress
 * goes to stderr.  Exit status: 0 all passed, 1 a check failed, 2 the tests
 * could not run (bad option, vectors missing or malformed).
 *
 * --quick: fewer random differential cases (every vector and every
 * systematic case still runs).  --impl NAME: test only implementations named
 * NAME (both its native and its emulated build; of either cipher).  --cipher:
 * only that cipher's tests.  --seed N: another random sequence (default 1).
 * --random N: exactly N random cases per implementation.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "verify.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"

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

/* ------------------------------------------------------------------ */
/* Main                                                                 */
/* ------------------------------------------------------------------ */

static void usage(FILE *f) {
  fprintf(f,
          "usage: verify [--quick] [--impl NAME] [--cipher sm4|zuc] [--seed N] [--random N]\n"
          "  --quick         fewer random differential cases\n"
          "  --impl NAME     test only implementations named NAME (native and emulated)\n"
          "  --cipher NAME   test only sm4 or only zuc\n"
          "  --seed N        seed of the random cases (default 1)\n"
          "  --random N      exactly N random cases per implementation\n"
          "Vectors: $KC_VECTORS_DIR, else shared/vectors found upwards from the\n"
          "executable or the current directory (<repo>/../shared/vectors).\n");
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
  verify_options o = {argv[0], NULL, 1, 0, 0, 0};
  const char *cipher = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--quick") == 0) {
      o.quick = 1;
    } else if (strcmp(a, "--impl") == 0 && i + 1 < argc) {
      o.only = argv[++i];
    } else if (strcmp(a, "--cipher") == 0 && i + 1 < argc) {
      cipher = argv[++i];
      if (strcmp(cipher, "sm4") != 0 && strcmp(cipher, "zuc") != 0) {
        fprintf(stderr, "verify: error: --cipher must be sm4 or zuc\n");
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
    } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      usage(stdout);
      return 0;
    } else {
      fprintf(stderr, "verify: error: unknown or incomplete option '%s'\n", a);
      usage(stderr);
      return 2;
    }
  }
  int run_sm4 = !cipher || strcmp(cipher, "sm4") == 0;
  int run_zuc = !cipher || strcmp(cipher, "zuc") == 0;
  if (o.only) {
    /* Only the ciphers that have an implementation of that name. */
    run_sm4 = run_sm4 && verify_sm4_has_impl(o.only);
    run_zuc = run_zuc && verify_zuc_has_impl(o.only);
    if (!run_sm4 && !run_zuc) {
      fprintf(stderr, "verify: error: no implementation named '%s'; there are:", o.only);
      if (!cipher || strcmp(cipher, "sm4") == 0) verify_sm4_list_impls();
      if (!cipher || strcmp(cipher, "zuc") == 0) verify_zuc_list_impls();
      fprintf(stderr, "\n");
      return 2;
    }
  }

  char cpu[256], feats[256];
  kc_cpu_model(cpu, sizeof cpu);
  kc_cpu_features(feats, sizeof feats);
  printf("CPU: %s [%s]\n", cpu, feats);

  if (run_sm4 && verify_sm4(&o) != 0) return 2;
  if (run_zuc && verify_zuc(&o) != 0) return 2;

  printf("%zu passed, %zu failed\n", units_passed, units_failed);
  return units_failed ? 1 : 0;
}
