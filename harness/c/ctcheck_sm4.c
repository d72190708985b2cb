/*
 * ctcheck's SM4 part (see ctcheck.c): with undefined (secret) inputs, the
 * key set-up (sm4_set_key), then each mode (ECB and CBC in both directions,
 * CTR) through the library's mode driver sm4_crypt.  Message lengths: one
 * whole batch of the kernel plus three blocks, and for CTR a further partial
 * block; three blocks for the serial CBC encryption.  The table-based
 * `reference` kernel is the positive control.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <valgrind/memcheck.h>

#include "common.h"
#include "ctcheck.h"
#include "sm4.h"

void ct_plan_sm4(void) {
  sm4_register_emulated();
  size_t n;
  const sm4_impl *const *impls = sm4_impls(&n);
  for (size_t i = 0; i < n; i++) {
    const sm4_impl *im = impls[i];
    int simde_target = ct_target_needs_simde(im->target);
    if (im->emulated != simde_target) {
      /* A native GFNI/AVX-512 kernel: covered by its emulated twin, if any. */
      if (!im->emulated && !sm4_impl_find(im->strategy, im->target, 1))
        ct_plan_line("sm4", im->name, 0, "none", 0);
      continue;
    }
    ct_plan_line("sm4", im->name, im->emulated, ct_how_name(ct_how_for(im->target, im->emulated)),
                 strcmp(im->strategy, "reference") == 0);
  }
}

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

static const sm4_impl *find_by_name(const char *name, int emulated) {
  size_t n;
  const sm4_impl *const *impls = sm4_impls(&n);
  for (size_t i = 0; i < n; i++)
    if (impls[i]->emulated == emulated && strcmp(impls[i]->name, name) == 0) return impls[i];
  return NULL;
}

int ct_check_sm4(const char *name, int emulated) {
  /* ctcheck is linked with the emulated library. */
  sm4_register_emulated();
  const sm4_impl *found = find_by_name(name, emulated);
  const sm4_impl *ref = sm4_impl_find("reference", "scalar", 0);
  if (!found || !ref) {
    fprintf(stderr, "ctcheck: no %s kernel named %s (or no reference_scalar)\n",
            emulated ? "emulated" : "native", name);
    return 2;
  }
  sm4_impl impl = *found;
  impl.cpu_supported = ct_always_supported;

  printf("ctcheck: %s (%s, checked %s)%s\n", impl.name, emulated ? "SIMDe build" : "native build",
         ct_how_name(ct_how_for(found->target, found->emulated)),
         RUNNING_ON_VALGRIND ? "" : " -- NOT under valgrind: no check");

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

  unsigned long before = ct_errors_so_far(), leaks = 0;
  int wrong = 0;

  /* Key set-up on an undefined (secret) key. */
  uint8_t secret_key[SM4_KEY_BYTES];
  memcpy(secret_key, key_bytes, sizeof secret_key);
  VALGRIND_MAKE_MEM_UNDEFINED(secret_key, sizeof secret_key);
  sm4_key key;
  sm4_set_key(&key, secret_key);
  unsigned long now = ct_errors_so_far();
  printf("  %-8s %4lu memcheck error(s)\n", "set_key", now - before);
  leaks += now - before;

  for (size_t m = 0; m < sizeof MODES / sizeof MODES[0]; m++) {
    const ct_mode *cm = &MODES[m];
    size_t len = cm->mode == SM4_MODE_CTR                             ? len_ctr
                 : cm->mode == SM4_MODE_CBC && cm->dir == SM4_ENCRYPT ? len_cbc_enc
                                                                      : len_blocks;
    int rc_ref = sm4_crypt(ref, cm->mode, cm->dir, &ref_key, iv_bytes, msg, expect, len);

    /* Fresh secret copies of the message and the IV. */
    memcpy(in, msg, len);
    memcpy(iv, iv_bytes, sizeof iv);
    VALGRIND_MAKE_MEM_UNDEFINED(in, len);
    VALGRIND_MAKE_MEM_UNDEFINED(iv, sizeof iv);
    before = ct_errors_so_far();
    int rc = sm4_crypt(&impl, cm->mode, cm->dir, &key, iv, in, out, len);
    now = ct_errors_so_far();
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
