/*
 * verify: known-answer and differential tests of every SM4, ZUC and uBlock
 * implementation, native and SIMDe-emulated.  Its options are usage()
 * below and docs/cli.md's "verify"; what it covers is docs/verification.md.
 * Each cipher's tests are its description's (cipher.h): every block
 * cipher's verify_block.c with its hooks, ZUC's verify_zuc.c.
 *
 * Output: a line per shared section and per implementation, "PASS|FAIL
 * <label>: N vectors, M differential cases" (M: the cases that passed
 * every check; a FAIL adds the failed checks and the first details), SKIP
 * for one that runs neither natively nor emulated, then "P passed, F
 * failed" counting those lines; progress on stderr.  Exit status: 0 all
 * passed, 1 a check failed, 2 the tests could not run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verify.h"


/* ------------------------------------------------------------------ */
/* Main                                                                 */
/* ------------------------------------------------------------------ */

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
          "Vectors: compiled in from <repo>/tests/vectors (stderr names the files);\n"
          "make -C harness/c VECTORS_DIR=/abs/folder builds verify with others.\n");
}

/* Index of the cipher named `name`, or -1. */
static int cipher_index(const char *name) {
  for (size_t c = 0; c < KC_N_CIPHERS; c++)
    if (strcmp(KC_CIPHERS[c]->name, name) == 0) return (int)c;
  return -1;
}

/* Which ciphers run: `cipher` (NULL: all), and with --impl only those that
 * have an implementation of that name.  Returns how many. */
static size_t choose_ciphers(const char *cipher, const char *only, int run[]) {
  size_t n = 0;
  for (size_t c = 0; c < KC_N_CIPHERS; c++) {
    run[c] = !cipher || strcmp(cipher, KC_CIPHERS[c]->name) == 0;
    if (run[c] && only) {
      kc_view_list l;
      KC_CIPHERS[c]->views(&l);
      run[c] = kc_view_named(&l, only);
    }
    n += (size_t)run[c];
  }
  return n;
}

/* "no implementation named X; there are: ..." on stderr. */
static void no_such_impl(const char *cipher, const char *only) {
  fprintf(stderr, "verify: error: no implementation named '%s'; there are:", only);
  for (size_t c = 0; c < KC_N_CIPHERS; c++) {
    if (cipher && strcmp(cipher, KC_CIPHERS[c]->name) != 0) continue;
    kc_view_list l;
    KC_CIPHERS[c]->views(&l);
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
  int run[8];
  if (choose_ciphers(cipher, o.only, run) == 0) {
    no_such_impl(cipher, o.only);
    return 2;
  }

  char cpu[256], feats[256];
  kc_cpu_model(cpu, sizeof cpu);
  kc_cpu_feature_list(feats, sizeof feats);
  printf("CPU: %s [%s]\n", cpu, feats);

  for (size_t c = 0; c < KC_N_CIPHERS; c++)
    if (run[c] && KC_CIPHERS[c]->verify->run(KC_CIPHERS[c], &o) != 0) return 2;

  printf("%zu passed, %zu failed\n", verify_passed, verify_failed);
  return verify_failed ? 1 : 0;
}
