/*
 * ctcheck: constant-time check of one kernel of any cipher of ciphers.c, under valgrind's
 * memcheck: what runs on secrets is each description's ct_hooks.  The method, its limits and
 * the positive controls are docs/verification.md's "Constant time"; the command line and exit
 * statuses docs/cli.md's "make ctcheck"; ctcheck.mk runs it once per kernel.
 */
#define _POSIX_C_SOURCE 200809L

#ifdef KC_CT_SIMDE_AUDIT
/* Compile-time audit of the SIMDe build's flags (ctcheck.mk): that SIMDe takes its
 * branch-free, table-free paths.  Why these: docs/verification.md, "Constant time". */
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/x86/avx512.h>
#include <simde/x86/gfni.h>
#if !defined(SIMDE_X86_AVX2_NATIVE) || !defined(SIMDE_X86_SSE4_1_NATIVE) || \
    !defined(SIMDE_X86_SSSE3_NATIVE)
#error "SIMDe build without native AVX2/SSE4.1/SSSE3: its GFNI emulation would use tables"
#endif
#if defined(SIMDE_X86_GFNI_NATIVE) || defined(SIMDE_X86_AVX512F_NATIVE) || \
    defined(SIMDE_X86_AVX512BW_NATIVE)
#error "SIMDe build with native GFNI/AVX-512: valgrind 3.19 cannot execute it"
#endif
#if !SIMDE_NATURAL_VECTOR_SIZE_LE(256)
#error "SIMDe natural vector size above 256 bits: 512-bit ops would not split into AVX2 halves"
#endif
#endif /* KC_CT_SIMDE_AUDIT */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <valgrind/memcheck.h>

/* For the SIMDe positive control only (see simde_control): this file is
 * compiled without -mavx2, so SIMDe takes its portable C paths here. */
#include <simde/x86/gfni.h>

#include "common.h"
#include "ctcheck.h"

static int print_plan(void) {
  for (size_t c = 0; c < KC_N_CIPHERS; c++) {
    ct_plan_impls(KC_CIPHERS[c]);
    if (KC_CIPHERS[c]->ct->plan) KC_CIPHERS[c]->ct->plan(KC_CIPHERS[c]);
  }
  /* The second positive control, for the SIMDe route (see simde_control). */
  printf("simde_portable_gfni 0 control leak\n");
  return 0;
}

/*
 * Positive control of the SIMDe route: SIMDe's gf2p8affineinv on secret
 * bytes, built the way this file is built (no -mavx2: SIMDe's portable C,
 * whose inversion is a 256-byte table indexed by the secret byte).  Memcheck
 * must flag it.  The kernels' SIMDe build (AVX2 native) must not be flagged;
 * together the two show that a check of SIMDe code sees which path SIMDe
 * took, instruction by instruction.
 */
static int simde_control(void) {
  uint8_t buf[32];
  kc_rng rng;
  kc_rng_seed(&rng, 1);
  kc_rng_bytes(&rng, buf, sizeof buf);
  VALGRIND_MAKE_MEM_UNDEFINED(buf, sizeof buf);
  simde__m256i x = simde_mm256_loadu_si256((const void *)buf);
  /* The AES S-box's affine map; any matrix would do. */
  simde__m256i a = simde_mm256_set1_epi64x(INT64_C(0xF1E3C78F1F3E7CF8));
  x = simde_mm256_gf2p8affineinv_epi64_epi8(x, a, 0x63);
  simde_mm256_storeu_si256((void *)buf, x);
  VALGRIND_MAKE_MEM_DEFINED(buf, sizeof buf);
  printf("ctcheck: simde_portable_gfni (SIMDe portable C, positive control): %lu memcheck "
         "error(s); S(0x%02x...) computed\n",
         (unsigned long)VALGRIND_COUNT_ERRORS, buf[0]);
  return 0;
}

/* ------------------------------------------------------------------ */
/* Main                                                                 */
/* ------------------------------------------------------------------ */

int main(int argc, char **argv) {
  int emulated = 0, plan = 0, control = 0;
  const char *unit = NULL;
  const kc_opt opts[] = {
      {"--plan", NULL, KC_OPT_STOP, .dest = &plan},
      {"--simde-control", NULL, KC_OPT_STOP, .dest = &control},
      {"--emulated", NULL, KC_OPT_FLAG, .dest = &emulated},
      {.dest = &unit},
  };
  char err[256];
  if (kc_opts_parse(argc, argv, opts, sizeof opts / sizeof opts[0], err, sizeof err) != 0) {
    fprintf(stderr, "ctcheck: %s\n", err);
    return 2;
  }
  if (plan) return print_plan();
  if (control) return simde_control();
  /* A unit is "<cipher>_<kernel>". */
  for (size_t c = 0; unit && c < KC_N_CIPHERS; c++) {
    const kc_desc *d = KC_CIPHERS[c];
    size_t n = strlen(d->name);
    if (strncmp(unit, d->name, n) == 0 && unit[n] == '_') return d->ct->check(d, unit + n + 1, emulated);
  }
  fprintf(stderr, "usage: ctcheck --plan | ctcheck [--emulated] <cipher>_<kernel>\n");
  return 2;
}
