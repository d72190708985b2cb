/*
 * The modes' reference (gf128_ref.h), each function after its standard's
 * own description, on byte strings and one block call at a time.
 */
#include "gf128_ref.h"

#include <string.h>

#define B 16

static uint64_t load_be64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v = v << 8 | p[i];
  return v;
}

static void store_be(uint8_t *p, size_t n, uint64_t v) {
  for (size_t i = 0; i < n; i++) p[n - 1 - i] = i < 8 ? (uint8_t)(v >> (8 * i)) : 0;
}

static void xor16(uint8_t *z, const uint8_t *x, const uint8_t *y) {
  for (int i = 0; i < B; i++) z[i] = x[i] ^ y[i];
}

/* SP 800-38D Algorithm 1: bit i of X is bit 7 - i % 8 of byte i / 8 (the
 * leftmost bit is x^0); V is shifted right along the string, R = 11100001 || 0^120
 * folded in when its rightmost bit falls off.  V is held as two big-endian halves. */
void gref_mul(const uint8_t x[16], const uint8_t y[16], uint8_t z[16]) {
  uint64_t vh = load_be64(y), vl = load_be64(y + 8), zh = 0, zl = 0;
  for (int i = 0; i < 128; i++) {
    if (x[i / 8] >> (7 - i % 8) & 1) zh ^= vh, zl ^= vl;
    uint64_t lsb = vl & 1;
    vl = vl >> 1 | vh << 63;
    vh = vh >> 1 ^ (lsb ? UINT64_C(0xE1) << 56 : 0);
  }
  store_be(z, 8, zh);
  store_be(z + 8, 8, zl);
}

void gref_inverse(const uint8_t x[16], uint8_t z[16]) {
  uint8_t r[B] = {0x80};          /* the field's 1: x^0, the leftmost bit */
  for (int i = 0; i < 127; i++) { /* 2^128 - 2: 127 ones, then a zero */
    gref_mul(r, r, r);
    gref_mul(r, x, r);
  }
  gref_mul(r, r, z);
}

/* Y <- (Y ^ X_i) * H over data zero-padded to whole blocks (GHASH, 6.4). */
static void ghash(const uint8_t h[16], uint8_t y[16], const uint8_t *data, size_t len) {
  for (size_t i = 0; i < len; i += B) {
    uint8_t x[B] = {0};
    memcpy(x, data + i, len - i < B ? len - i : B);
    xor16(y, y, x);
    gref_mul(y, h, y);
  }
}

static void ghash_lengths(const uint8_t h[16], uint8_t y[16], uint64_t a_bytes, uint64_t c_bytes) {
  uint8_t l[B];
  store_be(l, 8, a_bytes * 8);
  store_be(l + 8, 8, c_bytes * 8);
  ghash(h, y, l, B);
}

static void hash_key(const gref_cipher *c, uint8_t h[16]) {
  memset(h, 0, B);
  c->block(c->key, 1, h, h);
}

void gref_gcm_j0(const gref_cipher *c, const uint8_t *iv, size_t iv_len, uint8_t j0[16]) {
  memset(j0, 0, B);
  if (iv_len == 12) {
    memcpy(j0, iv, 12);
    j0[15] = 1;
    return;
  }
  uint8_t h[B];
  hash_key(c, h);
  ghash(h, j0, iv, iv_len);
  ghash_lengths(h, j0, 0, iv_len);
}

/* inc32 (6.2): the rightmost 32 bits count modulo 2^32. */
static void inc32(uint8_t cb[16]) {
  for (int i = 15; i >= 12 && ++cb[i] == 0; i--) {
  }
}

void gref_gcm(const gref_cipher *c, int encrypt, const uint8_t *iv, size_t iv_len,
              const uint8_t *aad, size_t aad_len, const uint8_t *in, uint8_t *out, size_t len,
              uint8_t tag[16]) {
  uint8_t h[B], j0[B], cb[B], ks[B], s[B] = {0};
  hash_key(c, h);
  gref_gcm_j0(c, iv, iv_len, j0);
  memcpy(cb, j0, B);
  for (size_t i = 0; i < len; i++) { /* GCTR from inc32(J0) */
    if (i % B == 0) inc32(cb), c->block(c->key, 1, cb, ks);
    out[i] = in[i] ^ ks[i % B];
  }
  ghash(h, s, aad, aad_len);
  ghash(h, s, encrypt ? out : in, len);
  ghash_lengths(h, s, aad_len, len);
  c->block(c->key, 1, j0, ks);
  xor16(tag, s, ks);
}

/* CBC-MAC over a stream of bytes, whole blocks at a time (CCM's formatting). */
typedef struct mac_stream {
  const gref_cipher *c;
  uint8_t y[B], buf[B];
  size_t fill;
} mac_stream;

static void mac_absorb(mac_stream *m, const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    m->buf[m->fill++] = p[i];
    if (m->fill == B) {
      xor16(m->y, m->y, m->buf);
      m->c->block(m->c->key, 1, m->y, m->y);
      m->fill = 0;
    }
  }
}

static void mac_pad(mac_stream *m) {
  static const uint8_t zeros[B];
  if (m->fill) mac_absorb(m, zeros, B - m->fill);
}

/* Ctr_i = [q - 1] || N || [i]_q (SP 800-38C A.3). */
static void ccm_counter(uint8_t a[16], const uint8_t *nonce, size_t n, size_t i) {
  a[0] = (uint8_t)(14 - n);
  memcpy(a + 1, nonce, n);
  store_be(a + 1 + n, 15 - n, i);
}

void gref_ccm(const gref_cipher *c, int encrypt, const uint8_t *nonce, size_t nonce_len,
              const uint8_t *aad, size_t aad_len, const uint8_t *in, uint8_t *out, size_t len,
              size_t tag_len, uint8_t tag[16]) {
  const size_t q = 15 - nonce_len;
  uint8_t a[B], s[B];
  for (size_t i = 0; i < len; i++) {
    if (i % B == 0) ccm_counter(a, nonce, nonce_len, i / B + 1), c->block(c->key, 1, a, s);
    out[i] = in[i] ^ s[i % B];
  }
  /* B0 (A.2.1), then a's encoding and the AAD (A.2.2), then the payload (A.2.3). */
  uint8_t b0[B], enc[10];
  b0[0] = (uint8_t)((aad_len ? 64 : 0) + 8 * ((tag_len - 2) / 2) + (q - 1));
  memcpy(b0 + 1, nonce, nonce_len);
  store_be(b0 + 1 + nonce_len, q, len);
  mac_stream m = {c, {0}, {0}, 0};
  mac_absorb(&m, b0, B);
  if (aad_len) {
    size_t n = 2;
    if (aad_len < 65536 - 256) {
      store_be(enc, 2, aad_len);
    } else if ((uint64_t)aad_len < (UINT64_C(1) << 32)) {
      enc[0] = 0xff, enc[1] = 0xfe, store_be(enc + 2, 4, aad_len), n = 6;
    } else {
      enc[0] = 0xff, enc[1] = 0xff, store_be(enc + 2, 8, aad_len), n = 10;
    }
    mac_absorb(&m, enc, n);
    mac_absorb(&m, aad, aad_len);
    mac_pad(&m);
  }
  mac_absorb(&m, encrypt ? in : out, len);
  mac_pad(&m);
  ccm_counter(a, nonce, nonce_len, 0);
  c->block(c->key, 1, a, s);
  for (size_t i = 0; i < tag_len; i++) tag[i] = m.y[i] ^ s[i];
}

/* Multiplication by alpha in IEEE Std 1619's layout (5.2): the block a
 * little-endian 128-bit number shifted left, x^128 folding 0x87 into byte 0. */
static void ieee_times_alpha(uint8_t t[16]) {
  uint64_t lo = 0, hi = 0;
  for (int i = 7; i >= 0; i--) lo = lo << 8 | t[i], hi = hi << 8 | t[8 + i];
  uint64_t carry = hi >> 63;
  hi = hi << 1 | lo >> 63;
  lo = lo << 1 ^ (carry ? 0x87 : 0);
  for (int i = 0; i < 8; i++) t[i] = (uint8_t)(lo >> (8 * i)), t[8 + i] = (uint8_t)(hi >> (8 * i));
}

static void reverse_bits_of_bytes(uint8_t t[16]) {
  for (int i = 0; i < B; i++) {
    uint8_t r = 0;
    for (int k = 0; k < 8; k++) r |= (uint8_t)((t[i] >> k & 1) << (7 - k));
    t[i] = r;
  }
}

/* GB/T 17964-2021's rule: the same field, the bits of each byte the other way. */
static void times_alpha(uint8_t t[16], int gb) {
  if (gb) reverse_bits_of_bytes(t);
  ieee_times_alpha(t);
  if (gb) reverse_bits_of_bytes(t);
}

/* XTS-AES-blockEnc / -blockDec (5.3.1, 5.4.1) with the tweak value T. */
static void xts_block(const gref_cipher *c, int encrypt, const uint8_t t[16], const uint8_t *in,
                      uint8_t *out) {
  uint8_t x[B];
  xor16(x, in, t);
  c->block(c->key, encrypt, x, x);
  xor16(out, x, t);
}

void gref_xts(const gref_cipher *data, const gref_cipher *tweak_cipher, int encrypt, int gb,
              const uint8_t tweak[16], const uint8_t *in, uint8_t *out, size_t len) {
  const size_t m = len / B, b = len % B;
  uint8_t t[B], next[B], x[B], y[B];
  tweak_cipher->block(tweak_cipher->key, 1, tweak, t);
  for (size_t j = 0; j < m - (b ? 1 : 0); j++, times_alpha(t, gb))
    xts_block(data, encrypt, t, in + j * B, out + j * B);
  if (!b) return;
  /* Ciphertext stealing (5.3.2, 5.4.2): the last whole block with T_(m-1)
   * (encryption) or T_m (decryption), then the stolen one with the other. */
  const uint8_t *last = in + (m - 1) * B;
  memcpy(next, t, B);
  times_alpha(next, gb);
  xts_block(data, encrypt, encrypt ? t : next, last, x);
  memcpy(y, last + B, b);
  memcpy(y + b, x + b, B - b);
  memcpy(out + m * B, x, b);
  xts_block(data, encrypt, encrypt ? next : t, y, out + (m - 1) * B);
}

/* dbl (SP 800-38B 6.1): the block a big-endian string shifted left, R_128 = 0x87 folded into its
 * end. */
static void cmac_dbl(const uint8_t in[16], uint8_t out[16]) {
  const int msb = in[0] >> 7;
  for (int i = 0; i < B; i++) out[i] = (uint8_t)(in[i] << 1 | (i < B - 1 ? in[i + 1] >> 7 : 0));
  if (msb) out[B - 1] ^= 0x87;
}

void gref_cmac(const gref_cipher *c, const uint8_t *msg, size_t len, uint8_t tag[16]) {
  uint8_t k1[B], k2[B], last[B] = {0};
  hash_key(c, k1);
  cmac_dbl(k1, k1);
  cmac_dbl(k1, k2);
  const size_t n = len ? (len + B - 1) / B : 1;
  const size_t tail = len - (n - 1) * B; /* bytes of M_n */
  if (tail) memcpy(last, msg + (n - 1) * B, tail);
  if (tail == B) {
    xor16(last, last, k1);
  } else {
    last[tail] = 0x80;
    xor16(last, last, k2);
  }
  gref_cbc_mac(c, msg, (n - 1) * B, tag);
  xor16(tag, tag, last);
  c->block(c->key, 1, tag, tag);
}

void gref_cbc_mac(const gref_cipher *c, const uint8_t *msg, size_t len, uint8_t mac[16]) {
  memset(mac, 0, B);
  for (size_t i = 0; i + B <= len; i += B) {
    xor16(mac, mac, msg + i);
    c->block(c->key, 1, mac, mac);
  }
}
