/*
 * kcrypt's SM4: ECB, CBC and CTR through the library's mode driver.
 */
#include <stdlib.h>
#include <string.h>

#include "kcrypt.h"
#include "sm4.h"

/* What sm4_prepare decided, for sm4_run. */
static struct {
  sm4_mode mode;
  sm4_direction dir;
  sm4_key key;
  uint8_t iv[SM4_BLOCK_BYTES];
  const sm4_impl *impl;
} job;

static void sm4_init(void) { sm4_register_emulated(); }

static size_t sm4_views(kc_impl_view *out, size_t max) {
  size_t n;
  const sm4_impl *const *all = sm4_impls(&n);
  if (n > max) n = max;
  for (size_t i = 0; i < n; i++)
    out[i] = (kc_impl_view){all[i]->name,     all[i]->strategy,      all[i]->target,
                            all[i]->emulated, all[i]->cpu_supported, all[i]};
  return n;
}

static const void *sm4_best(void) { return sm4_impl_best(); }

static int sm4_prepare(const kc_args *a, char *err, size_t err_size) {
  if (a->tag || a->bits || a->mac_method) {
    snprintf(err, err_size, "sm4 takes no --tag, --bits or --mac-method (those are for zuc)");
    return -1;
  }
  /* Mode and whether it takes an IV. */
  int needs_iv;
  if (strcmp(a->mode, "ecb") == 0) {
    job.mode = SM4_MODE_ECB;
    needs_iv = 0;
  } else if (strcmp(a->mode, "cbc") == 0) {
    job.mode = SM4_MODE_CBC;
    needs_iv = 1;
  } else if (strcmp(a->mode, "ctr") == 0) {
    job.mode = SM4_MODE_CTR;
    needs_iv = 1;
  } else {
    snprintf(err, err_size, "unknown sm4 mode '%s' (known: ecb, cbc, ctr)", a->mode);
    return -1;
  }
  job.dir = a->direction ? SM4_ENCRYPT : SM4_DECRYPT;

  /* Key. */
  uint8_t key[SM4_KEY_BYTES];
  if (!a->key_hex) {
    snprintf(err, err_size, "missing key (-k KEYHEX, %d hex digits)", 2 * SM4_KEY_BYTES);
    return -1;
  }
  if (kc_hex_decode_exact(a->key_hex, key, SM4_KEY_BYTES, "key", err, err_size) != 0) return -1;

  /* IV: required for CBC and CTR, refused for ECB. */
  memset(job.iv, 0, sizeof job.iv);
  if (needs_iv && !a->iv_hex) {
    snprintf(err, err_size, "sm4 %s needs an IV (-i IVHEX, %d hex digits)", a->mode,
             2 * SM4_BLOCK_BYTES);
    return -1;
  }
  if (!needs_iv && a->iv_hex) {
    snprintf(err, err_size, "sm4 ecb takes no IV (remove -i)");
    return -1;
  }
  if (needs_iv &&
      kc_hex_decode_exact(a->iv_hex, job.iv, SM4_BLOCK_BYTES, "IV", err, err_size) != 0)
    return -1;

  /* Implementation. */
  job.impl = kc_select_impl(&kc_cipher_sm4, a, err, err_size);
  if (!job.impl) return -1;

  sm4_set_key(&job.key, key);
  memset(key, 0, sizeof key);
  return 0;
}

static int sm4_run(const uint8_t *in, size_t len, uint8_t **out, size_t *out_len, char *err,
                   size_t err_size) {
  if (job.mode != SM4_MODE_CTR && len % SM4_BLOCK_BYTES != 0) {
    snprintf(err, err_size,
             "input is %zu bytes, not a multiple of the %d-byte block "
             "(ecb and cbc do no padding)",
             len, SM4_BLOCK_BYTES);
    return -1;
  }
  uint8_t *buf = malloc(len ? len : 1);
  if (!buf) {
    snprintf(err, err_size, "out of memory (%zu bytes)", len);
    return -1;
  }
  int rc = sm4_crypt(job.impl, job.mode, job.dir, &job.key, job.iv, in, buf, len);
  if (rc != SM4_OK) {
    snprintf(err, err_size, "sm4_crypt with %s failed (code %d)", job.impl->name, rc);
    free(buf);
    return -1;
  }
  *out = buf;
  *out_len = len;
  return 0;
}

const kc_cipher kc_cipher_sm4 = {"sm4",     "ecb|cbc|ctr", 1,           sm4_init,
                                 sm4_views, sm4_best,      sm4_prepare, sm4_run};
