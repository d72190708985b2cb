/*
 * An independent reference of the modes of a 128-bit block cipher that use
 * GF(2^128): GCM (NIST SP 800-38D, any IV length), CCM (SP 800-38C), XTS
 * (IEEE Std 1619 and GB/T 17964-2021 tweak rules, ciphertext stealing), CMAC
 * (SP 800-38B) and CBC-MAC, written from the standards over a cipher's plain
 * block function.  Its field arithmetic is SP 800-38D's Algorithm 1, bit by
 * bit: it shares nothing with the library's GF(2^128) programs, which verify
 * and ctcheck test against it.  Not constant time; test use only.
 */
#ifndef KC_GF128_REF_H
#define KC_GF128_REF_H

#include <stddef.h>
#include <stdint.h>

/* A block cipher bound to its key: one 16-byte block, encrypt 1 or 0. */
typedef struct gref_cipher {
  void (*block)(const void *key, int encrypt, const uint8_t in[16], uint8_t out[16]);
  const void *key;
} gref_cipher;

/* z = x * y in GCM's field (SP 800-38D 6.3, Algorithm 1); z may alias. */
void gref_mul(const uint8_t x[16], const uint8_t y[16], uint8_t z[16]);
/* z = x^-1 (x nonzero): x^(2^128 - 2). */
void gref_inverse(const uint8_t x[16], uint8_t z[16]);

/* GCM's pre-counter block J0 for an IV of iv_len >= 1 bytes (7.1 step 2). */
void gref_gcm_j0(const gref_cipher *c, const uint8_t *iv, size_t iv_len, uint8_t j0[16]);
/* GCM-AE (encrypt 1) or the decryption's GCTR and tag (encrypt 0): out gets
 * len bytes, tag the full 16-byte tag over the ciphertext (in for decryption). */
void gref_gcm(const gref_cipher *c, int encrypt, const uint8_t *iv, size_t iv_len,
              const uint8_t *aad, size_t aad_len, const uint8_t *in, uint8_t *out, size_t len,
              uint8_t tag[16]);

/* CCM with a nonce of 7-13 bytes and a tag of tag_len bytes (even, 4-16):
 * out gets len bytes, tag the tag_len-byte tag over the plaintext (in for
 * encryption, out for decryption). */
void gref_ccm(const gref_cipher *c, int encrypt, const uint8_t *nonce, size_t nonce_len,
              const uint8_t *aad, size_t aad_len, const uint8_t *in, uint8_t *out, size_t len,
              size_t tag_len, uint8_t tag[16]);

/* One XTS data unit of len >= 16 bytes; gb 0: IEEE Std 1619's tweak rule, 1: GB/T 17964-2021's. */
void gref_xts(const gref_cipher *data, const gref_cipher *tweak_cipher, int encrypt, int gb,
              const uint8_t tweak[16], const uint8_t *in, uint8_t *out, size_t len);

/* CMAC's full tag; CBC-MAC's last chaining value over whole blocks. */
void gref_cmac(const gref_cipher *c, const uint8_t *msg, size_t len, uint8_t tag[16]);
void gref_cbc_mac(const gref_cipher *c, const uint8_t *msg, size_t len, uint8_t mac[16]);

#endif /* KC_GF128_REF_H */
