/*
 * Intel ipsec-mb's ZUC through the job API; see ipsecmb.h.
 */
#include "ipsecmb.h"

#include <stdio.h>
#include <stdlib.h>

#ifdef KC_NO_PEERS

/* A build without peers (harness/c/Makefile's PEERS=0, e.g. AArch64, where
 * ipsec-mb has no ZUC): no manager ever opens, so verify and bench take the
 * path they take where ipsec-mb cannot run; the rest is never reached. */
struct kc_imb {
  int unused;
};

#define NOT_LINKED "ipsec-mb is not linked into this build (PEERS=0)"

kc_imb *kc_imb_open(kc_imb_init how, char *err, size_t err_size) {
  (void)how;
  snprintf(err, err_size, NOT_LINKED);
  return NULL;
}

void kc_imb_close(kc_imb *m) { (void)m; }

const char *kc_imb_arch(const kc_imb *m) {
  (void)m;
  return "none";
}

const char *kc_imb_version(void) { return "none"; }

int kc_imb_zuc_encrypt(kc_imb *m, size_t n, const uint8_t *const keys[], size_t key_len,
                       const uint8_t *const ivs[], size_t iv_len, const uint8_t *const in[],
                       uint8_t *const out[], const size_t bytes[], char *err, size_t err_size) {
  (void)m, (void)n, (void)keys, (void)key_len, (void)ivs, (void)iv_len, (void)in, (void)out,
      (void)bytes;
  snprintf(err, err_size, NOT_LINKED);
  return -1;
}

int kc_imb_zuc_mac(kc_imb *m, size_t n, const uint8_t *const keys[], size_t key_len,
                   const uint8_t *const ivs[], size_t iv_len, const uint8_t *const msgs[],
                   const size_t bits[], unsigned tag_bits, uint8_t *const tags[], char *err,
                   size_t err_size) {
  (void)m, (void)n, (void)keys, (void)key_len, (void)ivs, (void)iv_len, (void)msgs, (void)bits,
      (void)tag_bits, (void)tags;
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
  if (how == KC_IMB_AVX2) {
    if (!(m->mgr->features & IMB_FEATURE_AVX2)) {
      snprintf(err, err_size, "ipsec-mb: this CPU has no AVX2");
      kc_imb_close(m);
      return NULL;
    }
    init_mb_mgr_avx2(m->mgr);
  } else {
    init_mb_mgr_auto(m->mgr, NULL);
  }
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
  switch ((IMB_ARCH)m->mgr->used_arch) {
    case IMB_ARCH_NOAESNI:
      return "noaesni";
    case IMB_ARCH_SSE:
      return "sse";
    case IMB_ARCH_AVX:
      return "avx";
    case IMB_ARCH_AVX2:
      return "avx2";
    case IMB_ARCH_AVX512:
      return "avx512";
    default:
      return "unknown";
  }
}

const char *kc_imb_version(void) { return imb_get_version_str(); }

/* Reads back every job still in the manager after n submissions; each must
 * have completed.  `done` counts the jobs already returned by submit.
 * Returns 0 or -1 with a message. */
static int finish(IMB_MGR *mgr, size_t n, size_t done, int failed, char *err, size_t err_size) {
  IMB_JOB *job;
  while ((job = IMB_FLUSH_JOB(mgr)) != NULL) {
    failed |= job->status != IMB_STATUS_COMPLETED;
    done++;
  }
  if (failed) {
    snprintf(err, err_size, "ipsec-mb rejected a job: %s", imb_get_strerror(imb_get_errno(mgr)));
    return -1;
  }
  if (done != n) {
    snprintf(err, err_size, "ipsec-mb returned %zu of %zu jobs", done, n);
    return -1;
  }
  return 0;
}

/* Submits the job just filled in and collects the ones that completed. */
static void submit(IMB_MGR *mgr, size_t *done, int *failed) {
  IMB_JOB *job = IMB_SUBMIT_JOB(mgr);
  while (job) {
    *failed |= job->status != IMB_STATUS_COMPLETED;
    ++*done;
    job = IMB_GET_COMPLETED_JOB(mgr);
  }
}

int kc_imb_zuc_encrypt(kc_imb *m, size_t n, const uint8_t *const keys[], size_t key_len,
                       const uint8_t *const ivs[], size_t iv_len, const uint8_t *const in[],
                       uint8_t *const out[], const size_t bytes[], char *err, size_t err_size) {
  size_t done = 0;
  int failed = 0;
  for (size_t i = 0; i < n; i++) {
    IMB_JOB *job = IMB_GET_NEXT_JOB(m->mgr);
    /* Every field the job reads is set: the slot may hold an older job. */
    job->chain_order = IMB_ORDER_CIPHER_HASH;
    job->cipher_direction = IMB_DIR_ENCRYPT;
    job->cipher_mode = IMB_CIPHER_ZUC_EEA3;
    job->hash_alg = IMB_AUTH_NULL;
    job->enc_keys = keys[i];
    job->key_len_in_bytes = key_len;
    job->iv = ivs[i];
    job->iv_len_in_bytes = iv_len;
    job->src = in[i];
    job->dst = out[i];
    job->cipher_start_src_offset_in_bytes = 0;
    job->msg_len_to_cipher_in_bytes = bytes[i];
    submit(m->mgr, &done, &failed);
  }
  return finish(m->mgr, n, done, failed, err, err_size);
}

int kc_imb_zuc_mac(kc_imb *m, size_t n, const uint8_t *const keys[], size_t key_len,
                   const uint8_t *const ivs[], size_t iv_len, const uint8_t *const msgs[],
                   const size_t bits[], unsigned tag_bits, uint8_t *const tags[], char *err,
                   size_t err_size) {
  size_t done = 0;
  int failed = 0;
  for (size_t i = 0; i < n; i++) {
    IMB_JOB *job = IMB_GET_NEXT_JOB(m->mgr);
    job->chain_order = IMB_ORDER_CIPHER_HASH;
    job->cipher_direction = IMB_DIR_ENCRYPT;
    job->cipher_mode = IMB_CIPHER_NULL;
    job->hash_alg = key_len == 16 ? IMB_AUTH_ZUC_EIA3_BITLEN : IMB_AUTH_ZUC256_EIA3_BITLEN;
    job->u.ZUC_EIA3._key = keys[i];
    /* ZUC-256's 23-byte IV has a field of its own; _iv must then be NULL. */
    int short_iv = key_len == 32 && iv_len == 23;
    job->u.ZUC_EIA3._iv = short_iv ? NULL : ivs[i];
    job->u.ZUC_EIA3._iv23 = short_iv ? ivs[i] : NULL;
    job->src = msgs[i];
    job->hash_start_src_offset_in_bytes = 0;
    job->msg_len_to_hash_in_bits = bits[i];
    job->auth_tag_output = tags[i];
    job->auth_tag_output_len_in_bytes = tag_bits / 8;
    submit(m->mgr, &done, &failed);
  }
  return finish(m->mgr, n, done, failed, err, err_size);
}

#endif /* KC_NO_PEERS */
