/*
 * What the ZUC hooks of verify, bench, ctcheck and kcrypt share, written
 * once: sizes, valid random keys and IVs, the one call that is EEA3 or a MAC
 * (ours and ipsec-mb's), random kernel lane states, and one lane of those
 * copied into every lane of the reference kernel's state.
 */
#ifndef KC_HARNESS_ZUC_LANES_H
#define KC_HARNESS_ZUC_LANES_H

#include "common.h"
#include "ipsecmb.h"
#include "zuc.h"

static inline size_t zuc_key_len(zuc_variant v) { return v == ZUC_128 ? 16 : 32; }
/* The bytes that hold `bits` bits, without (bits + 7)'s wrap near SIZE_MAX. */
static inline size_t zuc_bytes_of(size_t bits) { return bits / 8 + (bits % 8 != 0); }
/* A keystream word from its big-endian bytes. */
static inline uint32_t zuc_be32(const uint8_t *b) {
  return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* Random key and IV; a 25-byte IV's IV17..IV24 get their top two bits clear. */
static inline void zuc_random_key_iv(kc_rng *r, uint8_t *key, size_t key_len, uint8_t *iv, size_t iv_len) {
  kc_rng_bytes(r, key, key_len);
  kc_rng_bytes(r, iv, iv_len);
  for (size_t j = 17; iv_len == 25 && j < 25; j++) iv[j] &= 0x3F;
}

/* A MAC method's name in verify's lines and bench's records. */
static inline const char *zuc_method_name(zuc_mac_method m) {
  switch (m) {
    case ZUC_MAC_CLMUL: return "clmul";
    case ZUC_MAC_COMPARE: return "compare";
    case ZUC_MAC_CLMUL128: return "clmul128";
    case ZUC_MAC_CLMUL256: return "clmul256";
    case ZUC_MAC_CLMUL512: return "clmul512";
  }
  return "?";
}

/* zuc_mac_lanes if mac (method, tag_bits), else zuc_encrypt_lanes. */
static inline int zuc_lanes_call(const zuc_impl *impl, int mac, zuc_mac_method method, zuc_variant v,
                                 size_t n, const uint8_t *const *keys, const uint8_t *const *ivs,
                                 size_t iv_len, const uint8_t *const *in, uint8_t *const *out,
                                 const size_t *bits, unsigned tag_bits) {
  return mac ? zuc_mac_lanes(impl, method, v, n, keys, ivs, iv_len, in, bits, tag_bits, out)
             : zuc_encrypt_lanes(impl, v, n, keys, ivs, iv_len, in, out, bits);
}

/* ipsec-mb's EIA3 if mac (lens in bits), else its EEA3 (lens in bytes). */
static inline int zuc_imb_call(kc_imb *imb, int mac, zuc_variant v, size_t n, const uint8_t *const *keys,
                               const uint8_t *const *ivs, size_t iv_len, const uint8_t *const *in,
                               uint8_t *const *out, const size_t *lens, unsigned tag_bits, char *err,
                               size_t err_size) {
  size_t kl = zuc_key_len(v);
  return mac ? kc_imb_zuc_mac(imb, n, keys, kl, ivs, iv_len, in, lens, tag_bits, out, err, err_size)
             : kc_imb_zuc_encrypt(imb, n, keys, kl, ivs, iv_len, in, out, lens, err, err_size);
}

/* `groups` random states of a `lanes`-lane kernel, one after another: any
 * R1/R2 will do; each LFSR cell is in GF(2^31 - 1)* (31 bits, not 0). */
static inline void zuc_random_states(kc_rng *r, uint32_t *states, size_t groups, unsigned lanes) {
  for (size_t i = 0; i < groups * ZUC_STATE_WORDS * lanes; i++) {
    uint32_t x = (uint32_t)kc_rng_next(r);
    states[i] = i / lanes % ZUC_STATE_WORDS < 16 ? (x & 0x7FFFFFFF ? x & 0x7FFFFFFF : 1) : x;
  }
}

/* Lane j of `state` (`lanes` lanes) into every lane of `ref_state` (`rl`
 * lanes), so the reference kernel computes that lane whatever its width. */
static inline void zuc_lane_to_ref(const uint32_t *state, unsigned lanes, unsigned j, uint32_t *ref_state,
                                   unsigned rl) {
  for (int w = 0; w < ZUC_STATE_WORDS; w++)
    for (unsigned q = 0; q < rl; q++) ref_state[w * rl + q] = state[w * lanes + j];
}

#endif /* KC_HARNESS_ZUC_LANES_H */
