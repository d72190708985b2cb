/*
 * kcrypt's uBlock: ublock128_128, ublock128_256 and ublock256_256 in ECB,
 * CBC and CTR, one piece of stdin at a time.  ECB keeps no state between
 * pieces, so each goes through the one-shot ublock_crypt; CBC and CTR carry
 * their chaining value or counter through the library's incremental calls
 * (ublock_cbc_*, ublock_ctr_*).  The command line is checked by the
 * block-cipher helpers of kcrypt.c, with the variant's key and block sizes
 * (CTR: the IV is one big-endian integer of the block's width).
 */
#include <string.h>

#include "kcrypt.h"
#include "ublock.h"

/* What ublock_prepare decided, and the mode's state, for ublock_update. */
static const kc_cipher *cipher;
static kc_block_job job;
static ublock_key key;
static ublock_cbc_state cbc;
static ublock_ctr_state ctr;

static const void *ublock_best(void) { return ublock_impl_best(); }

static ublock_direction direction(void) { return job.encrypt ? UBLOCK_ENCRYPT : UBLOCK_DECRYPT; }

/* The variant is the cipher's name ("ublock128_256"). */
static int ublock_prepare(const kc_cipher *c, const kc_args *a, char *err, size_t err_size) {
  ublock_variant v;
  if (ublock_variant_from_name(c->name, &v) != UBLOCK_OK) {
    snprintf(err, err_size, "the library knows no uBlock variant '%s'", c->name);
    return -1;
  }
  cipher = c;
  if (kc_block_prepare(c, a, ublock_key_bytes(v), ublock_block_bytes(v), &job, err, err_size))
    return -1;
  int rc = ublock_set_key(&key, v, job.key);
  memset(job.key, 0, sizeof job.key);
  if (rc != UBLOCK_OK) {
    snprintf(err, err_size, "ublock_set_key for %s failed (code %d)", c->name, rc);
    return -1;
  }
  const ublock_impl *impl = job.impl;
  const char *call = "";
  if (job.mode == KC_MODE_CBC) {
    call = "ublock_cbc_init";
    rc = ublock_cbc_init(&cbc, impl, direction(), &key, job.iv);
  } else if (job.mode == KC_MODE_CTR) {
    call = "ublock_ctr_init";
    rc = ublock_ctr_init(&ctr, impl, &key, job.iv);
  }
  size_t unused;
  return kc_block_finish(rc, call, impl->name, 0, &unused, err, err_size);
}

static int prepare_128_128(const kc_args *a, char *err, size_t err_size) {
  return ublock_prepare(&kc_cipher_ublock128_128, a, err, err_size);
}
static int prepare_128_256(const kc_args *a, char *err, size_t err_size) {
  return ublock_prepare(&kc_cipher_ublock128_256, a, err, err_size);
}
static int prepare_256_256(const kc_args *a, char *err, size_t err_size) {
  return ublock_prepare(&kc_cipher_ublock256_256, a, err, err_size);
}

/* One piece through the mode; the mode's final call after the last. */
static int ublock_update(const uint8_t *in, size_t len, int last, uint8_t *out, size_t *out_len,
                         char *err, size_t err_size) {
  if (kc_block_piece(cipher, &job, len, last, err, err_size) != 0) return -1;
  const ublock_impl *impl = job.impl;
  int rc;
  const char *call;
  switch (job.mode) {
  case KC_MODE_ECB:
    call = "ublock_crypt";
    rc = ublock_crypt(impl, UBLOCK_MODE_ECB, direction(), &key, job.iv, in, out, len);
    break;
  case KC_MODE_CBC:
    call = "ublock_cbc_update";
    rc = ublock_cbc_update(&cbc, in, out, len);
    if (rc == UBLOCK_OK && last) {
      call = "ublock_cbc_final";
      rc = ublock_cbc_final(&cbc);
    }
    break;
  default:
    call = "ublock_ctr_update";
    rc = ublock_ctr_update(&ctr, in, out, len);
    if (rc == UBLOCK_OK && last) {
      call = "ublock_ctr_final";
      rc = ublock_ctr_final(&ctr);
    }
    break;
  }
  return kc_block_finish(rc, call, impl->name, len, out_len, err, err_size);
}

/* The expanded key and whatever mode state is left (reset on a state that
 * was never initialised, or already finished, only wipes it). */
static void ublock_wipe(void) {
  ublock_cbc_reset(&cbc);
  ublock_ctr_reset(&ctr);
  ublock_wipe_key(&key);
  memset(&job, 0, sizeof job);
}

#define UBLOCK_CIPHER(variant, prepare)                                                    \
  {#variant, "ecb|cbc|ctr", 1,   kc_views_ublock, ublock_best, prepare, NULL, ublock_update, \
   ublock_wipe}

const kc_cipher kc_cipher_ublock128_128 = UBLOCK_CIPHER(ublock128_128, prepare_128_128);
const kc_cipher kc_cipher_ublock128_256 = UBLOCK_CIPHER(ublock128_256, prepare_128_256);
const kc_cipher kc_cipher_ublock256_256 = UBLOCK_CIPHER(ublock256_256, prepare_256_256);
