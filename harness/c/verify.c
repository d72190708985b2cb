/*
 * verify: known-answer and differential tests of every SM4, ZUC and uBlock
 * implementation, native and SIMDe-emulated.  Its options are usage() below, its
 * output and exit statuses docs/cli.md's "verify", what it covers
 * docs/verification.md.  Each cipher's tests are its description's (cipher.h): every
 * block cipher's verify_block.c with its hooks, ZUC's verify_zuc.c.
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

/* Which ciphers run: cipher `only_cipher` (-1: all), and with --impl only
 * those that have an implementation of that name.  Returns how many; when
 * none, says so on stderr, listing the implementations there are. */
static size_t choose_ciphers(int only_cipher, const char *only, int run[]) {
  size_t n = 0;
  kc_view_list l;
  for (size_t c = 0; c < KC_N_CIPHERS; c++) {
    KC_CIPHERS[c]->views(&l);
    run[c] = (only_cipher < 0 || (size_t)only_cipher == c) && (!only || kc_view_named(&l, only));
    n += (size_t)run[c];
  }
  if (n) return n;
  fprintf(stderr, "verify: error: no implementation named '%s'; there are:", only);
  for (size_t c = 0; c < KC_N_CIPHERS; c++)
    if (only_cipher < 0 || (size_t)only_cipher == c) {
      KC_CIPHERS[c]->views(&l);
      kc_view_print_names(stderr, &l);
    }
  fprintf(stderr, "\n");
  return 0;
}

int main(int argc, char **argv) {
  verify_options o = {argv[0], NULL, 1, 0, 0, 0, VERIFY_ITERATED_ALL};
  static const char *const iterated[] = {"all", "native", "serial", NULL};
  const char *names[KC_MAX_CIPHERS + 1] = {0};
  for (size_t c = 0; c < KC_N_CIPHERS && c < KC_MAX_CIPHERS; c++) names[c] = KC_CIPHERS[c]->name;
  int cipher = -1, which = VERIFY_ITERATED_ALL, help = 0;
  const kc_opt opts[] = {
      {"--quick", NULL, KC_OPT_FLAG, .dest = &o.quick},
      {"--impl", .dest = &o.only},
      {"--cipher", NULL, KC_OPT_WORD, &cipher, .words = names},
      {"--seed", NULL, KC_OPT_COUNT, .dest = &o.seed},
      {"--random", NULL, KC_OPT_COUNT, &o.n_random, .seen = &o.random_given},
      {"--iterated", NULL, KC_OPT_WORD, &which, .words = iterated},
      {"--help", "-h", KC_OPT_STOP, .dest = &help},
  };
  char err[256];
  if (kc_opts_parse(argc, argv, opts, sizeof opts / sizeof opts[0], err, sizeof err) != 0 || help) {
    if (!help) fprintf(stderr, "verify: error: %s\n", err);
    usage(help ? stdout : stderr); /* --help, or after the error */
    return help ? 0 : 2;
  }
  o.iterated = (verify_iterated)which;
  int run[KC_MAX_CIPHERS];
  if (choose_ciphers(cipher, o.only, run) == 0) return 2;
  char cpu[256], feats[256];
  kc_cpu_describe(cpu, feats, sizeof cpu);
  printf("CPU: %s [%s]\n", cpu, feats);

  for (size_t c = 0; c < KC_N_CIPHERS; c++)
    if (run[c] && KC_CIPHERS[c]->verify->run(KC_CIPHERS[c], &o) != 0) return 2;

  printf("%zu passed, %zu failed\n", verify_passed, verify_failed);
  return verify_failed ? 1 : 0;
}
