/*
 * kcrypt's uBlock: ublock128_128, ublock128_256 and ublock256_256 in ECB,
 * CBC and CTR through the library's mode driver.  The command line is checked
 * by the block-cipher helpers of kcrypt.c, with the variant's key and block
 * sizes (CTR: the IV is one big-endian integer of the block's width).
 */
#include <string.h>

#include "kcrypt.h"
#include "ublock.h"

/* What ublock_prepare decided, for ublock_run. */
static const kc_cipher *cipher;
static kc_block_job job;
static ublock_key key;

static const void *ublock_best(void) { return ublock_impl_best(); }

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
  return 0;
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

static int ublock_run(const uint8_t *in, size_t len, uint8_t **out, size_t *out_len, char *err,
                      size_t err_size) {
  if (kc_block_output(cipher, &job, len, out, err, err_size) != 0) return -1;
  const ublock_impl *impl = job.impl;
  int rc = ublock_crypt(impl, (ublock_mode)job.mode, job.encrypt ? UBLOCK_ENCRYPT : UBLOCK_DECRYPT,
                        &key, job.iv, in, *out, len);
  ublock_wipe_key(&key);
  return kc_block_finish(rc, "ublock_crypt", impl->name, out, len, out_len, err, err_size);
}

#define UBLOCK_CIPHER(variant, prepare) \
  {#variant, "ecb|cbc|ctr", 1, kc_views_ublock, ublock_best, prepare, ublock_run}

const kc_cipher kc_cipher_ublock128_128 = UBLOCK_CIPHER(ublock128_128, prepare_128_128);
const kc_cipher kc_cipher_ublock128_256 = UBLOCK_CIPHER(ublock128_256, prepare_128_256);
const kc_cipher kc_cipher_ublock256_256 = UBLOCK_CIPHER(ublock256_256, prepare_256_256);
