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
  ct_plan_impls("sm4", kc_views_sm4);
}

static sm4_direction dir_of(const kc_block_op *op) {
  return op->encrypt ? SM4_ENCRYPT : SM4_DECRYPT;
}

int ct_check_sm4(const char *name, int emulated) {
  kc_impl_view found;
  const sm4_impl *ref = sm4_impl_find("reference", "scalar", 0);
  if (ct_open_unit("sm4", kc_views_sm4, name, emulated, &found) != 0 || !ref) return 2;
  sm4_impl impl = *(const sm4_impl *)found.impl;
  impl.cpu_supported = ct_always_supported;

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
  ct_phase_done("set_key", before, NULL, 1, &leaks);

  for (size_t m = 0; m < KC_N_BLOCK_OPS; m++) {
    const kc_block_op *op = &KC_BLOCK_OPS[m];
    size_t len = op->mode == KC_MODE_CTR                   ? len_ctr
                 : op->mode == KC_MODE_CBC && op->encrypt ? len_cbc_enc
                                                          : len_blocks;
    int rc_ref = sm4_crypt(ref, (sm4_mode)op->mode, dir_of(op), &ref_key, iv_bytes, msg, expect,
                           len);

    /* Fresh secret copies of the message and the IV. */
    memcpy(in, msg, len);
    memcpy(iv, iv_bytes, sizeof iv);
    VALGRIND_MAKE_MEM_UNDEFINED(in, len);
    VALGRIND_MAKE_MEM_UNDEFINED(iv, sizeof iv);
    before = ct_errors_so_far();
    int rc = sm4_crypt(&impl, (sm4_mode)op->mode, dir_of(op), &key, iv, in, out, len);
    /* Declassify the outputs before looking at them. */
    VALGRIND_MAKE_MEM_DEFINED(out, len);
    VALGRIND_MAKE_MEM_DEFINED(&rc, sizeof rc);
    char detail[32];
    snprintf(detail, sizeof detail, "%zu bytes", len);
    wrong |= ct_phase_done(op->name, before, detail,
                           rc == SM4_OK && rc_ref == SM4_OK && memcmp(out, expect, len) == 0,
                           &leaks);
  }
  free(msg);
  free(in);
  free(out);
  free(expect);
  return ct_unit_done("sm4", impl.name, leaks, wrong);
}
