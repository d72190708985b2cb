/*
 * ctcheck's phases of SM4's GCM, CCM, XTS, CMAC and CBC-MAC on one kernel
 * (ct_hooks.extra; the technique: ctcheck.c).  Secret: the key bytes before
 * sm4_set_key, the message or ciphertext, the AAD, the tag decryption is
 * given, XTS's tweak.  Public: the lengths, GCM's IV and CCM's nonce (the
 * mode layer takes them as public: kc_gf128_modes.h), and whether a tag
 * verified.  The expected outputs come from gf128_ref.c on defined copies.
 * GCM and XTS run on kernels with GF(2^128) functions only (not the
 * reference, the positive control).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm4_modes.h"

enum {
  GCM_ENC,
  GCM_DEC,
  GCM_FORGED,
  CCM_ENC,
  CCM_DEC,
  CCM_FORGED,
  XTS_IEEE,
  XTS_IEEE_DEC,
  XTS_GB,
  XTS_GB_DEC,
  CMAC,
  CBC_MAC,
  N_PHASES
};
static const char *const NAMES[N_PHASES] = {
    "gcm-enc",      "gcm-dec",      "gcm-dec-forged", "ccm-enc",    "ccm-dec", "ccm-dec-forged",
    "xts-ieee-enc", "xts-ieee-dec", "xts-gb-enc",     "xts-gb-dec", "cmac",    "cbc-mac"};
#define AAD_LEN 20
#define NONCE_LEN 12

/* One phase's inputs and the reference's answer. */
typedef struct ct_case {
  uint8_t key[32], iv[16], aad[AAD_LEN], tag[16], want_tag[16];
  uint8_t *in, *want;
  size_t len;
  int want_rc;
} ct_case;

/* The library call of phase p (the keys k1, k2 set from x->key). */
static int call(int p, const sm4_impl *impl, const sm4_key *k1, const sm4_key *k2, const ct_case *x,
                uint8_t *out, uint8_t *tag) {
  const int gb = p == XTS_GB || p == XTS_GB_DEC, enc = p == XTS_IEEE || p == XTS_GB;
  switch (p) {
    case GCM_ENC:
      return sm4_gcm_encrypt(impl, k1, x->iv, NONCE_LEN, x->aad, AAD_LEN, x->in, out, x->len, tag,
                             16);
    case GCM_DEC:
    case GCM_FORGED:
      return sm4_gcm_decrypt(impl, k1, x->iv, NONCE_LEN, x->aad, AAD_LEN, x->in, out, x->len,
                             x->tag, 16);
    case CCM_ENC:
      return sm4_ccm_encrypt(impl, k1, x->iv, NONCE_LEN, x->aad, AAD_LEN, x->in, out, x->len, tag,
                             16);
    case CCM_DEC:
    case CCM_FORGED:
      return sm4_ccm_decrypt(impl, k1, x->iv, NONCE_LEN, x->aad, AAD_LEN, x->in, out, x->len,
                             x->tag, 16);
    case CMAC:
      return sm4_cmac(impl, k1, x->in, x->len, tag, 16);
    case CBC_MAC:
      return sm4_cbc_mac(impl, k1, x->in, x->len, tag);
    default:
      return sm4_xts_crypt(impl, enc ? SM4_ENCRYPT : SM4_DECRYPT, gb ? SM4_XTS_GB : SM4_XTS_IEEE,
                           k1, k2, x->iv, x->in, out, x->len);
  }
}

/* Phase p's inputs (decryption's from the reference's encryption) and answer. */
static void prepare(int p, ct_case *x, const uint8_t *msg, size_t len) {
  sm4_key k1, k2;
  sm4_set_key(&k1, x->key);
  sm4_set_key(&k2, x->key + 16);
  const gref_cipher c1 = {sm4_ref_block, &k1}, c2 = {sm4_ref_block, &k2};
  x->len = p == CBC_MAC ? len - len % 16 : len;
  x->want_rc = p == GCM_FORGED || p == CCM_FORGED ? SM4_ERR_AUTH : SM4_OK;
  memcpy(x->in, msg, x->len);
  memset(x->want_tag, 0, 16);
  if (p <= GCM_FORGED || (p >= CCM_ENC && p <= CCM_FORGED)) {
    const int gcm = p <= GCM_FORGED;
    if (gcm)
      gref_gcm(&c1, 1, x->iv, NONCE_LEN, x->aad, AAD_LEN, msg, x->want, len, x->want_tag);
    else
      gref_ccm(&c1, 1, x->iv, NONCE_LEN, x->aad, AAD_LEN, msg, x->want, len, 16, x->want_tag);
    if (p != GCM_ENC &&
        p != CCM_ENC) { /* decryption: of the ciphertext, with its tag (forged: one bit off) */
      memcpy(x->in, x->want, len);
      memcpy(x->tag, x->want_tag, 16);
      x->tag[15] ^= (uint8_t)(p == GCM_FORGED || p == CCM_FORGED);
      memcpy(x->want, msg, len);
      memset(x->want_tag, 0, 16);
      if (x->want_rc) memset(x->want, gcm ? 0xCC : 0, len); /* GCM writes nothing, CCM wipes */
    }
  } else if (p == CMAC || p == CBC_MAC) {
    (p == CMAC ? gref_cmac : gref_cbc_mac)(&c1, msg, x->len, x->want_tag);
  } else {
    const int gb = p == XTS_GB || p == XTS_GB_DEC;
    gref_xts(&c1, &c2, 1, gb, x->iv, msg, x->want, len);
    if (p == XTS_IEEE_DEC || p == XTS_GB_DEC)
      memcpy(x->in, x->want, len), memcpy(x->want, msg, len);
  }
}

int sm4_modes_ct(const void *impl_v, const void *ref, const kc_variant *v, unsigned long *leaks) {
  (void)ref, (void)v;
  const sm4_impl *impl = impl_v;
  const size_t len = ((impl->batch_blocks ? impl->batch_blocks : 1) + 3) * 16 + 7;
  uint8_t *msg = malloc(len), *out = malloc(len), tag[16];
  ct_case x = {.in = malloc(len), .want = malloc(len)};
  if (!msg || !out || !x.in || !x.want) exit(2);
  kc_rng rng;
  kc_rng_seed(&rng, 0x6C3);
  kc_rng_bytes(&rng, x.key, sizeof x.key);
  kc_rng_bytes(&rng, x.iv, sizeof x.iv);
  kc_rng_bytes(&rng, x.aad, sizeof x.aad);
  kc_rng_bytes(&rng, msg, len);
  int wrong = 0;
  for (int p = 0; p < N_PHASES; p++) {
    const int gf = p <= GCM_FORGED || (p >= XTS_IEEE && p <= XTS_GB_DEC);
    if (gf && impl->ghash == NULL) continue; /* SM4_ERR_NO_IMPL on the reference */
    prepare(p, &x, msg, len);
    sm4_key k1, k2;
    ct_secret(x.key, sizeof x.key);
    ct_secret(x.in, x.len);
    ct_secret(x.aad, sizeof x.aad);
    ct_secret(x.tag, sizeof x.tag);
    if (p >= XTS_IEEE && p <= XTS_GB_DEC) ct_secret(x.iv, sizeof x.iv);
    unsigned long before = ct_errors_so_far();
    int rc = sm4_set_key(&k1, x.key) | sm4_set_key(&k2, x.key + 16);
    memset(out, 0xCC, len);
    memset(tag, 0, sizeof tag);
    rc |= call(p, impl, &k1, &k2, &x, out, tag);
    ct_public(out, len);
    ct_public(tag, sizeof tag);
    ct_public(&rc, sizeof rc);
    ct_public(&x, sizeof x);
    char detail[48];
    snprintf(detail, sizeof detail, "%zu bytes%s", x.len, x.want_rc ? ", rejected" : "");
    const size_t out_len = p == CMAC || p == CBC_MAC ? 0 : x.len;
    wrong |= ct_phase_done(
        NAMES[p], before, detail,
        rc == x.want_rc && memcmp(out, x.want, out_len) == 0 && memcmp(tag, x.want_tag, 16) == 0,
        leaks);
  }
  free(msg), free(out), free(x.in), free(x.want);
  return wrong;
}
