/*
 * ctcheck: constant-time check of one SM4 kernel, by the ctgrind technique.
 *
 * Run under valgrind's memcheck (see ctcheck.mk).  The secret inputs (key
 * bytes, IV, plaintext) are declared *undefined* with memcheck's client
 * requests.  Memcheck then tracks everything computed from them, and reports
 *   - "Conditional jump or move depends on uninitialised value(s)": a branch
 *     or conditional move decided by a secret, and
 *   - "Use of uninitialised value of size N": a memory address computed from
 *     a secret (a table lookup, the cache-timing leak),
 * which are exactly the two ways a kernel can leak through timing.  Arithmetic
 * on secrets (xor, shuffles, AES rounds, GF(2) affine maps) stays silent.
 *
 * The program runs, with undefined inputs: the key set-up (sm4_set_key), then
 * each mode (ECB and CBC in both directions, CTR) through the library's mode
 * driver sm4_crypt.  Message lengths are small (one whole batch of the
 * kernel plus three blocks, and for CTR a further partial block; three blocks
 * for the serial CBC encryption) so that the batch path, the tail path and
 * the partial-block path all run, while valgrind's ~50x slow-down stays
 * cheap.  Each phase prints how many new
 * memcheck errors it caused (VALGRIND_COUNT_ERRORS), so a leak is attributed
 * to a phase.  Outputs are marked defined (VALGRIND_MAKE_MEM_DEFINED) before
 * they are compared with the scalar reference, computed beforehand on the
 * same, still defined, inputs.
 *
 * Exit status: 0 when the outputs are right (valgrind's --error-exitcode
 * turns any memcheck error into 1); 3 on a wrong output; 2 on a usage error
 * or an unknown kernel.  Whether a leak was expected (the table-based
 * `reference` strategy is the positive control: it must be detected) is
 * decided by ctcheck.mk from `ctcheck --plan`.
 *
 * Two positive controls prove the check can see a leak: the table-based
 * `reference` kernel, and SIMDe's portable (table) GFNI inversion
 * (--simde-control), for the kernels checked through SIMDe.
 *
 * Usage:
 *   ctcheck --plan          one line per check: NAME EMULATED HOW EXPECT
 *   ctcheck NAME            check the native kernel NAME ("byteslice_avx2_aesni")
 *   ctcheck --emulated NAME check the SIMDe-built kernel NAME
 *   ctcheck --simde-control run the SIMDe positive control
 */
#define _POSIX_C_SOURCE 200809L

#ifdef KC_CT_SIMDE_AUDIT
/*
 * Compile-time audit of the SIMDe build (ctcheck.mk compiles this file with
 * -fsyntax-only -DKC_CT_SIMDE_AUDIT and the flags generated/Makefile gives
 * the emulated kernels).  Under valgrind, the GFNI and AVX-512 kernels run as
 * SIMDe code, so the check is only as good as the paths SIMDe takes; these
 * are the ones read in SIMDe 0.7 (simde/x86/gfni.h and the avx512 folder) for the
 * intrinsics the kernels use:
 *   - gf2p8affine / gf2p8affineinv, 256-bit: with AVX2 native, a bit-matrix
 *     product of 8 steps of movemask (on the public matrix), pshufb, xor and
 *     blendv (selected by the secret byte's top bit): no branch, no table;
 *     the inverse is a scan of all 16 rows of a 256-byte table with pshufb
 *     and blendv (every row read, whatever the data).  Without SSE4.1 the
 *     inverse is a plain table lookup indexed by the secret byte.
 *   - 512-bit operations (xor, shuffle_epi8, unpack, rol, gf2p8*): split into
 *     two 256-bit native AVX2 operations when the natural vector size is at
 *     most 256 bits; otherwise some fall back to per-byte C loops, and
 *     shuffle_epi8's loop indexes memory with the (secret) shuffle control.
 * So the build must have AVX2, SSE4.1 and SSSE3 native, must NOT have GFNI
 * or AVX-512 native (valgrind would meet them), and a natural vector size of
 * 256.  Any table path left over is still caught dynamically: memcheck flags
 * it exactly as it flags the reference kernel.
 */
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
#include "sm4.h"

/* ------------------------------------------------------------------ */
/* The plan: which kernels are checked, and how                        */
/* ------------------------------------------------------------------ */

/*
 * Valgrind 3.19 executes SSSE3, AVX2, 128-bit AES-NI and PCLMULQDQ, but not
 * GFNI, AVX-512, or the 256-bit VAES/VPCLMULQDQ forms.  So:
 *   - targets using GFNI or AVX-512 are checked in their SIMDe build, compiled
 *     with AVX2 and SSSE3 native: SIMDe lowers gf2p8affine(inv)qb to pshufb
 *     nibble lookups and xors, and 512-bit operations to pairs of 256-bit ones
 *     (branch-free and table-free: see ctcheck.mk for the header audit);
 *   - avx2_vaes is checked natively, in a library built with
 *     -DKC_VALGRIND_SPLIT_VAES, where each 256-bit VAESENCLAST is issued as
 *     two 128-bit AESENCLAST on the two halves (the same data flow);
 *   - everything else is checked natively as built.
 */
typedef enum { HOW_NATIVE, HOW_SPLIT_VAES, HOW_SIMDE } check_how;

static const char *how_name(check_how h) {
  switch (h) {
    case HOW_SPLIT_VAES: return "native-split-vaes";
    case HOW_SIMDE: return "simde";
    default: return "native";
  }
}

static int target_needs_simde(const char *target) {
  return strstr(target, "gfni") != NULL || strstr(target, "avx512") != NULL;
}

static check_how how_for(const sm4_impl *im) {
  if (im->emulated) return HOW_SIMDE;
  if (strstr(im->target, "vaes") != NULL) return HOW_SPLIT_VAES;
  return HOW_NATIVE;
}

/* The positive control: a kernel known to look up tables with secret
 * indices, which the check must flag. */
static int leak_expected(const sm4_impl *im) { return strcmp(im->strategy, "reference") == 0; }

/*
 * Prints the plan: every native kernel whose target valgrind executes, and
 * every emulated kernel whose target it does not.  A GFNI/AVX-512 target with
 * no emulated build is listed with HOW "none" so the summary can say so.
 */
static int print_plan(void) {
  size_t n;
  const sm4_impl *const *impls = sm4_impls(&n);
  for (size_t i = 0; i < n; i++) {
    const sm4_impl *im = impls[i];
    int simde_target = target_needs_simde(im->target);
    if (im->emulated != simde_target) {
      /* A native GFNI/AVX-512 kernel: covered by its emulated twin, if any. */
      if (!im->emulated && !sm4_impl_find(im->strategy, im->target, 1))
        printf("%s 0 none clean\n", im->name);
      continue;
    }
    printf("%s %d %s %s\n", im->name, im->emulated, how_name(how_for(im)),
           leak_expected(im) ? "leak" : "clean");
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
/* The check                                                           */
/* ------------------------------------------------------------------ */

typedef struct {
  const char *name;
  sm4_mode mode;
  sm4_direction dir;
} ct_mode;

static const ct_mode MODES[] = {
    {"ecb-enc", SM4_MODE_ECB, SM4_ENCRYPT}, {"ecb-dec", SM4_MODE_ECB, SM4_DECRYPT},
    {"cbc-enc", SM4_MODE_CBC, SM4_ENCRYPT}, {"cbc-dec", SM4_MODE_CBC, SM4_DECRYPT},
    {"ctr", SM4_MODE_CTR, SM4_ENCRYPT},
};

/* Under valgrind, CPUID reports what valgrind emulates, so a kernel built for
 * split VAES (or SIMDe) may look unsupported; the check runs it regardless. */
static int always_supported(void) { return 1; }

/* Errors memcheck has reported so far (0 when not under valgrind). */
static unsigned long errors_so_far(void) { return (unsigned long)VALGRIND_COUNT_ERRORS; }

static const sm4_impl *find_by_name(const char *name, int emulated) {
  size_t n;
  const sm4_impl *const *impls = sm4_impls(&n);
  for (size_t i = 0; i < n; i++)
    if (impls[i]->emulated == emulated && strcmp(impls[i]->name, name) == 0) return impls[i];
  return NULL;
}

int main(int argc, char **argv) {
  /* Every harness program may see the emulated kernels; ctcheck is linked
   * with the emulated library. */
  sm4_register_emulated();

  int emulated = 0;
  const char *name = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--plan")) return print_plan();
    if (!strcmp(argv[i], "--simde-control")) return simde_control();
    if (!strcmp(argv[i], "--emulated")) emulated = 1;
    else if (argv[i][0] == '-') {
      fprintf(stderr, "ctcheck: unknown option %s\n", argv[i]);
      return 2;
    } else name = argv[i];
  }
  if (!name) {
    fprintf(stderr, "usage: ctcheck --plan | ctcheck [--emulated] NAME\n");
    return 2;
  }
  const sm4_impl *found = find_by_name(name, emulated);
  const sm4_impl *ref = sm4_impl_find("reference", "scalar", 0);
  if (!found || !ref) {
    fprintf(stderr, "ctcheck: no %s kernel named %s (or no reference_scalar)\n",
            emulated ? "emulated" : "native", name);
    return 2;
  }
  sm4_impl impl = *found;
  impl.cpu_supported = always_supported;

  printf("ctcheck: %s (%s, checked %s)%s\n", impl.name, emulated ? "SIMDe build" : "native build",
         how_name(how_for(found)), RUNNING_ON_VALGRIND ? "" : " -- NOT under valgrind: no check");

  /* Secret inputs, random but fixed; the expected outputs are computed with
   * the reference kernel while everything is still defined. */
  size_t batch = impl.batch_blocks ? impl.batch_blocks : 1;
  size_t blocks = batch + 3; /* one whole batch, then a partial one (the tail path) */
  size_t len_blocks = blocks * SM4_BLOCK_BYTES, len_ctr = len_blocks + 7;
  /* CBC encryption is serial: one kernel pass per block, whatever the batch,
   * so three blocks show the chaining at a fraction of valgrind's time. */
  size_t len_cbc_enc = 3 * SM4_BLOCK_BYTES;
  uint8_t key_bytes[SM4_KEY_BYTES], iv_bytes[SM4_BLOCK_BYTES];
  uint8_t *msg = malloc(len_ctr), *in = malloc(len_ctr), *out = malloc(len_ctr);
  uint8_t *expect = malloc(len_ctr);
  uint8_t iv[SM4_BLOCK_BYTES];
  if (!msg || !in || !out || !expect) return 2;
  kc_rng rng;
  kc_rng_seed(&rng, 0x5eC2e7);
  kc_rng_bytes(&rng, key_bytes, sizeof key_bytes);
  kc_rng_bytes(&rng, iv_bytes, sizeof iv_bytes);
  kc_rng_bytes(&rng, msg, len_ctr);
  sm4_key ref_key;
  sm4_set_key(&ref_key, key_bytes);

  unsigned long before = errors_so_far(), leaks = 0;
  int wrong = 0;

  /* Key set-up on an undefined (secret) key. */
  uint8_t secret_key[SM4_KEY_BYTES];
  memcpy(secret_key, key_bytes, sizeof secret_key);
  VALGRIND_MAKE_MEM_UNDEFINED(secret_key, sizeof secret_key);
  sm4_key key;
  sm4_set_key(&key, secret_key);
  unsigned long now = errors_so_far();
  printf("  %-8s %4lu memcheck error(s)\n", "set_key", now - before);
  leaks += now - before;

  for (size_t m = 0; m < sizeof MODES / sizeof MODES[0]; m++) {
    const ct_mode *cm = &MODES[m];
    size_t len = cm->mode == SM4_MODE_CTR                                ? len_ctr
                 : cm->mode == SM4_MODE_CBC && cm->dir == SM4_ENCRYPT ? len_cbc_enc
                                                                      : len_blocks;
    int rc_ref = sm4_crypt(ref, cm->mode, cm->dir, &ref_key, iv_bytes, msg, expect, len);

    /* Fresh secret copies of the message and the IV. */
    memcpy(in, msg, len);
    memcpy(iv, iv_bytes, sizeof iv);
    VALGRIND_MAKE_MEM_UNDEFINED(in, len);
    VALGRIND_MAKE_MEM_UNDEFINED(iv, sizeof iv);
    before = errors_so_far();
    int rc = sm4_crypt(&impl, cm->mode, cm->dir, &key, iv, in, out, len);
    now = errors_so_far();
    leaks += now - before;
    /* Declassify the outputs before looking at them. */
    VALGRIND_MAKE_MEM_DEFINED(out, len);
    VALGRIND_MAKE_MEM_DEFINED(&rc, sizeof rc);
    int ok = rc == SM4_OK && rc_ref == SM4_OK && memcmp(out, expect, len) == 0;
    wrong |= !ok;
    printf("  %-8s %4lu memcheck error(s), %zu bytes, output %s\n", cm->name, now - before, len,
           ok ? "matches the reference" : "WRONG");
  }
  printf("ctcheck: %s: %lu memcheck error(s) in total%s\n", impl.name, leaks,
         wrong ? "; WRONG OUTPUT" : "");
  free(msg);
  free(in);
  free(out);
  free(expect);
  return wrong ? 3 : 0;
}
