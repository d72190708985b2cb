/*
 * Intel ipsec-mb's ZUC through the job API; see ipsecmb.h.
 */
#include "ipsecmb.h"

#include <stdio.h>
#include <stdlib.h>

#ifdef KC_NO_PEERS

/* A build without peers (see ipsecmb.h): no manager ever opens, so verify and
 * bench take the path they take where ipsec-mb cannot run. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

#define NOT_LINKED "ipsec-mb is not linked into this build (PEERS=0)"

kc_imb *kc_imb_open(kc_imb_init how, char *err, size_t err_size) {
  snprintf(err, err_size, NOT_LINKED);
  return NULL;
}

void kc_imb_close(kc_imb *m) {}

const char *kc_imb_arch(const kc_imb *m) { return "none"; }

const char *kc_imb_version(void) { return "none"; }

static int zuc_jobs(kc_imb *m, size_t n, const uint8_t *const keys[], size_t key_len,
                    const uint8_t *const ivs[], size_t iv_len, const uint8_t *const in[],
                    uint8_t *const out[], const size_t lens[], unsigned tag_bits, char *err,
                    size_t err_size) {
  snprintf(err, err_size, NOT_LINKED);
  return -1;
}

#else /* ipsec-mb linked */

#include <intel-ipsec-mb.h>

struct kc_imb {
  IMB_MGR *mgr;
};

kc_imb *kc_imb_open(kc_imb_init how, char *err, size_t err_size) {
  kc_imb *m = calloc(1, sizeof *m);
  if (!m || !(m->mgr = alloc_mb_mgr(0))) {
    snprintf(err, err_size, "ipsec-mb: alloc_mb_mgr failed");
    free(m);
    return NULL;
  }
  if (how == KC_IMB_AVX2 && !(m->mgr->features & IMB_FEATURE_AVX2)) {
    snprintf(err, err_size, "ipsec-mb: this CPU has no AVX2");
    kc_imb_close(m);
    return NULL;
  }
  if (how == KC_IMB_AVX2)
    init_mb_mgr_avx2(m->mgr);
  else
    init_mb_mgr_auto(m->mgr, NULL);
  int e = imb_get_errno(m->mgr);
  if (e != 0) {
    snprintf(err, err_size, "ipsec-mb: initialising the manager: %s", imb_get_strerror(e));
    kc_imb_close(m);
    return NULL;
  }
  return m;
}

void kc_imb_close(kc_imb *m) {
  if (!m) return;
  if (m->mgr) free_mb_mgr(m->mgr);
  free(m);
}

const char *kc_imb_arch(const kc_imb *m) {
  static const char *const names[] = {[IMB_ARCH_NOAESNI] = "noaesni", [IMB_ARCH_SSE] = "sse",
                                      [IMB_ARCH_AVX] = "avx",         [IMB_ARCH_AVX2] = "avx2",
                                      [IMB_ARCH_AVX512] = "avx512"};
  unsigned a = (unsigned)m->mgr->used_arch;
  return a < sizeof names / sizeof names[0] && names[a] ? names[a] : "unknown";
}

const char *kc_imb_version(void) { return imb_get_version_str(); }

/*
 * Submits n ZUC jobs, EEA3 (tag_bits 0: out[i] = in[i] XOR keystream, lens[i] bytes) or EIA3
 * (the tag of lens[i] bits of in[i] into out[i]), flushes the manager and checks that every
 * job came back completed.  Returns 0 or -1 with a message.
 */
static int zuc_jobs(kc_imb *m, size_t n, const uint8_t *const keys[], size_t key_len,
                    const uint8_t *const ivs[], size_t iv_len, const uint8_t *const in[],
                    uint8_t *const out[], const size_t lens[], unsigned tag_bits, char *err,
                    size_t err_size) {
  size_t done = 0;
  int failed = 0;
  IMB_JOB *job;
  for (size_t i = 0; i < n; i++) {
    job = IMB_GET_NEXT_JOB(m->mgr);
    /* Every field the job reads is set: the slot may hold an older job. */
    job->chain_order = IMB_ORDER_CIPHER_HASH;
    job->cipher_direction = IMB_DIR_ENCRYPT;
    job->src = in[i];
    if (!tag_bits) {
      job->cipher_mode = IMB_CIPHER_ZUC_EEA3;
      job->hash_alg = IMB_AUTH_NULL;
      job->enc_keys = keys[i];
      job->key_len_in_bytes = key_len;
      job->iv = ivs[i];
      job->iv_len_in_bytes = iv_len;
      job->dst = out[i];
      job->cipher_start_src_offset_in_bytes = 0;
      job->msg_len_to_cipher_in_bytes = lens[i];
    } else {
      /* ZUC-256's 23-byte IV has a field of its own; _iv must then be NULL. */
      int short_iv = key_len == 32 && iv_len == 23;
      job->cipher_mode = IMB_CIPHER_NULL;
      job->hash_alg = key_len == 16 ? IMB_AUTH_ZUC_EIA3_BITLEN : IMB_AUTH_ZUC256_EIA3_BITLEN;
      job->u.ZUC_EIA3._key = keys[i];
      job->u.ZUC_EIA3._iv = short_iv ? NULL : ivs[i];
      job->u.ZUC_EIA3._iv23 = short_iv ? ivs[i] : NULL;
      job->hash_start_src_offset_in_bytes = 0;
      job->msg_len_to_hash_in_bits = lens[i];
      job->auth_tag_output = out[i];
      job->auth_tag_output_len_in_bytes = tag_bits / 8;
    }
    /* Submitting may hand back older jobs that completed. */
    for (job = IMB_SUBMIT_JOB(m->mgr); job; job = IMB_GET_COMPLETED_JOB(m->mgr), done++)
      failed |= job->status != IMB_STATUS_COMPLETED;
  }
  for (; (job = IMB_FLUSH_JOB(m->mgr)) != NULL; done++)
    failed |= job->status != IMB_STATUS_COMPLETED;
  if (failed)
    snprintf(err, err_size, "ipsec-mb rejected a job: %s",
             imb_get_strerror(imb_get_errno(m->mgr)));
  else if (done != n)
    snprintf(err, err_size, "ipsec-mb returned %zu of %zu jobs", done, n);
  return failed || done != n ? -1 : 0;
}

#endif /* KC_NO_PEERS */

int kc_imb_zuc_encrypt(kc_imb *m, size_t n, const uint8_t *const keys[], size_t key_len,
                       const uint8_t *const ivs[], size_t iv_len, const uint8_t *const in[],
                       uint8_t *const out[], const size_t bytes[], char *err, size_t err_size) {
  return zuc_jobs(m, n, keys, key_len, ivs, iv_len, in, out, bytes, 0, err, err_size);
}

int kc_imb_zuc_mac(kc_imb *m, size_t n, const uint8_t *const keys[], size_t key_len,
                   const uint8_t *const ivs[], size_t iv_len, const uint8_t *const msgs[],
                   const size_t bits[], unsigned tag_bits, uint8_t *const tags[], char *err,
                   size_t err_size) {
  return zuc_jobs(m, n, keys, key_len, ivs, iv_len, msgs, tags, bits, tag_bits, err, err_size);
}
