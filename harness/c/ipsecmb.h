/*
 * Intel ipsec-mb's ZUC (128-EEA3/EIA3 and ZUC-256) through its multi-buffer
 * job API: the second oracle of `verify` and the peer of `bench`.
 *
 * One call submits n jobs (one per stream: its own key, IV, buffers and
 * length) and flushes the manager, so every stream is finished on return;
 * that is how an application keeps ipsec-mb's lanes busy.  The manager is
 * allocated with alloc_mb_mgr(0) and set up either by init_mb_mgr_auto (the
 * fastest code ipsec-mb finds for this CPU) or with one architecture forced.
 *
 * What ipsec-mb 1.3 accepts (checked by experiment, see verify): keys of 16
 * or 32 bytes; IVs of 16 bytes (ZUC-128), 25 or 23 bytes (ZUC-256; a 23-byte
 * MAC IV goes in the job's _iv23 field); ZUC-256 tags of 4, 8 or 16 bytes;
 * EEA3 lengths of 1..KC_IMB_ZUC_MAX_BYTES bytes (whole bytes only) and EIA3
 * lengths of 1..KC_IMB_ZUC_MAX_BITS bits.  The header of ipsec-mb is kept
 * out of this one so callers need not include it.
 *
 * Built with KC_NO_PEERS (harness/c/Makefile's PEERS=0, the AArch64 build)
 * ipsec-mb is not linked and kc_imb_open always fails, saying so in err.
 */
#ifndef KC_HARNESS_IPSECMB_H
#define KC_HARNESS_IPSECMB_H

#include <stddef.h>
#include <stdint.h>

/* ipsec-mb 1.3's limits on one ZUC job (ZUC_MAX_BITLEN = 65504 bits). */
#define KC_IMB_ZUC_MAX_BITS 65504
#define KC_IMB_ZUC_MAX_BYTES (KC_IMB_ZUC_MAX_BITS / 8)

/* How the manager picks its code. */
typedef enum {
  KC_IMB_AUTO, /* init_mb_mgr_auto: what ipsec-mb considers fastest here */
  KC_IMB_AVX2  /* init_mb_mgr_avx2: the AVX2 code, for comparison */
} kc_imb_init;

typedef struct kc_imb kc_imb;

/* A manager, or NULL with a message in err. */
kc_imb *kc_imb_open(kc_imb_init how, char *err, size_t err_size);
void kc_imb_close(kc_imb *m);

/* The architecture the manager runs: "sse", "avx", "avx2", "avx512", ... */
const char *kc_imb_arch(const kc_imb *m);
/* The library's version string, e.g. "1.3.0". */
const char *kc_imb_version(void);

/*
 * EEA3: out[i] = in[i] XOR keystream, bytes[i] bytes, for n streams.
 * key_len 16 (ZUC-128) or 32 (ZUC-256); iv_len 16, 25 or 23 accordingly.
 * Returns 0, or -1 with ipsec-mb's reason in err.
 */
int kc_imb_zuc_encrypt(kc_imb *m, size_t n, const uint8_t *const keys[], size_t key_len,
                       const uint8_t *const ivs[], size_t iv_len, const uint8_t *const in[],
                       uint8_t *const out[], const size_t bytes[], char *err, size_t err_size);

/*
 * EIA3: the tag of the first bits[i] bits of msgs[i] for n streams, written
 * big-endian, tag_bits / 8 bytes.  ZUC-128 (key_len 16): tag_bits 32;
 * ZUC-256: 32, 64 or 128.  Returns 0, or -1 with the reason in err.
 */
int kc_imb_zuc_mac(kc_imb *m, size_t n, const uint8_t *const keys[], size_t key_len,
                   const uint8_t *const ivs[], size_t iv_len, const uint8_t *const msgs[],
                   const size_t bits[], unsigned tag_bits, uint8_t *const tags[], char *err,
                   size_t err_size);

#endif /* KC_HARNESS_IPSECMB_H */
