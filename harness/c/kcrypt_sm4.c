/*
 * kcrypt's SM4: ECB, CBC and CTR through the library's mode driver.  The
 * command line is checked by the block-cipher helpers of kcrypt.c.
 */
#include <string.h>

#include "kcrypt.h"
#include "sm4.h"

/* What sm4_prepare decided, for sm4_run. */
static kc_block_job job;
static sm4_key key;

static const void *sm4_best(void) { return sm4_impl_best(); }

static int sm4_prepare(const kc_args *a, char *err, size_t err_size) {
  if (kc_block_prepare(&kc_cipher_sm4, a, SM4_KEY_BYTES, SM4_BLOCK_BYTES, &job, err, err_size))
    return -1;
  sm4_set_key(&key, job.key);
  memset(job.key, 0, sizeof job.key);
  return 0;
}

static int sm4_run(const uint8_t *in, size_t len, uint8_t **out, size_t *out_len, char *err,
                   size_t err_size) {
  if (kc_block_output(&kc_cipher_sm4, &job, len, out, err, err_size) != 0) return -1;
  const sm4_impl *impl = job.impl;
  int rc = sm4_crypt(impl, (sm4_mode)job.mode, job.encrypt ? SM4_ENCRYPT : SM4_DECRYPT, &key,
                     job.iv, in, *out, len);
  return kc_block_finish(rc, "sm4_crypt", impl->name, out, len, out_len, err, err_size);
}

const kc_cipher kc_cipher_sm4 = {"sm4",    "ecb|cbc|ctr", 1,          kc_views_sm4,
                                 sm4_best, sm4_prepare,   sm4_run};
