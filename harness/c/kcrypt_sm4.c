/*
 * kcrypt's SM4: ECB, CBC and CTR, one piece of stdin at a time.  ECB keeps no
 * state between pieces, so each goes through the one-shot sm4_crypt; CBC and
 * CTR carry their chaining value or counter through the library's
 * incremental calls (sm4_cbc_*, sm4_ctr_*).  The command line is checked by
 * the block-cipher helpers of kcrypt.c.
 */
#include <string.h>

#include "kcrypt.h"
#include "sm4.h"

/* What sm4_prepare decided, and the mode's state, for sm4_update. */
static kc_block_job job;
static sm4_key key;
static sm4_cbc_state cbc;
static sm4_ctr_state ctr;

static const void *sm4_best(void) { return sm4_impl_best(); }

static sm4_direction direction(void) { return job.encrypt ? SM4_ENCRYPT : SM4_DECRYPT; }

static int sm4_prepare(const kc_args *a, char *err, size_t err_size) {
  if (kc_block_prepare(&kc_cipher_sm4, a, SM4_KEY_BYTES, SM4_BLOCK_BYTES, &job, err, err_size))
    return -1;
  sm4_set_key(&key, job.key);
  memset(job.key, 0, sizeof job.key);
  const sm4_impl *impl = job.impl;
  int rc = SM4_OK;
  const char *call = "";
  if (job.mode == KC_MODE_CBC) {
    call = "sm4_cbc_init";
    rc = sm4_cbc_init(&cbc, impl, direction(), &key, job.iv);
  } else if (job.mode == KC_MODE_CTR) {
    call = "sm4_ctr_init";
    rc = sm4_ctr_init(&ctr, impl, &key, job.iv);
  }
  size_t unused;
  return kc_block_finish(rc, call, impl->name, 0, &unused, err, err_size);
}

/* One piece through the mode; the mode's final call after the last. */
static int sm4_update(const uint8_t *in, size_t len, int last, uint8_t *out, size_t *out_len,
                      char *err, size_t err_size) {
  if (kc_block_piece(&kc_cipher_sm4, &job, len, last, err, err_size) != 0) return -1;
  const sm4_impl *impl = job.impl;
  int rc;
  const char *call;
  switch (job.mode) {
  case KC_MODE_ECB:
    call = "sm4_crypt";
    rc = sm4_crypt(impl, SM4_MODE_ECB, direction(), &key, job.iv, in, out, len);
    break;
  case KC_MODE_CBC:
    call = "sm4_cbc_update";
    rc = sm4_cbc_update(&cbc, in, out, len);
    if (rc == SM4_OK && last) {
      call = "sm4_cbc_final";
      rc = sm4_cbc_final(&cbc);
    }
    break;
  default:
    call = "sm4_ctr_update";
    rc = sm4_ctr_update(&ctr, in, out, len);
    if (rc == SM4_OK && last) {
      call = "sm4_ctr_final";
      rc = sm4_ctr_final(&ctr);
    }
    break;
  }
  return kc_block_finish(rc, call, impl->name, len, out_len, err, err_size);
}

/* The key schedule and whatever mode state is left (reset on a state that
 * was never initialised, or already finished, only wipes it). */
static void sm4_wipe(void) {
  sm4_cbc_reset(&cbc);
  sm4_ctr_reset(&ctr);
  memset(&key, 0, sizeof key);
  memset(&job, 0, sizeof job);
}

const kc_cipher kc_cipher_sm4 = {"sm4",       "ecb|cbc|ctr", 1,          kc_views_sm4, sm4_best,
                                 sm4_prepare, NULL,          sm4_update, sm4_wipe};
