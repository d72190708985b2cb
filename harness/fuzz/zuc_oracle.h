/*
 * The ZUC oracle of the fuzz targets: the keystream from zuc_init, then the
 * reference kernel's scalar rounds one word at a time (its keystream_word:
 * table S-boxes, none of the SIMD kernels' code), EEA as a XOR with it, and both MACs
 * computed bit by bit as the standards write them:
 *   128-EIA3:  T = XOR of the 32-bit windows z[i..i+31] for each message bit
 *              m_i = 1, then ^ z[L..L+31], then ^ keystream word
 *              ceil(L/32) + 1;
 *   ZUC-256 (2018), t = 32/64/128:  T = z[0..t-1] ^ XOR of z[t+i..2t+i-1]
 *              for each m_i = 1, then ^ z[t+L..2t+L-1].
 */
#ifndef KC_FUZZ_ZUC_ORACLE_H
#define KC_FUZZ_ZUC_ORACLE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zuc.h"

/* `bytes` keystream bytes (big-endian words) of (key, iv) with the
 * constants of tag_bits; returns ZUC_OK or zuc_init's error. */
static int zo_keystream(zuc_variant variant, const uint8_t *key, size_t key_len, const uint8_t *iv, size_t iv_len,
                        unsigned tag_bits, uint8_t *ks, size_t bytes)
{
    zuc_state st;
    const int rc = zuc_init(&st, variant, key, key_len, iv, iv_len, tag_bits);
    if (rc != ZUC_OK)
        return rc;
    const zuc_impl *ref = zuc_impl_find("reference", "scalar", 0);
    uint32_t state[ZUC_STATE_WORDS * ZUC_LANES_MAX], words[ZUC_LANES_MAX];
    for (unsigned j = 0; j < ref->lanes; j++) {
        for (unsigned i = 0; i < 16; i++)
            state[i * ref->lanes + j] = st.s[i];
        state[16 * ref->lanes + j] = st.r1;
        state[17 * ref->lanes + j] = st.r2;
    }
    for (size_t at = 0; at < bytes;) {
        ref->keystream_word(state, words);
        for (int b = 0; b < 4 && at < bytes; b++, at++)
            ks[at] = (uint8_t)(words[0] >> (24 - 8 * b));
    }
    return ZUC_OK;
}

/* EEA: out = in ^ keystream over `bits` bits, the unused low bits of a last
 * partial byte zero. */
static int zo_encrypt(zuc_variant variant, const uint8_t *key, size_t key_len, const uint8_t *iv, size_t iv_len,
                      const uint8_t *in, uint8_t *out, size_t bits)
{
    const size_t bytes = (bits + 7) / 8;
    uint8_t *ks = malloc(bytes + 1);
    const int rc = zo_keystream(variant, key, key_len, iv, iv_len, 0, ks, bytes);
    if (rc == ZUC_OK) {
        for (size_t i = 0; i < bytes; i++)
            out[i] = in[i] ^ ks[i];
        if (bits % 8)
            out[bits / 8] &= (uint8_t)(0xff << (8 - bits % 8));
    }
    free(ks);
    return rc;
}

static int zo_bit(const uint8_t *s, size_t i)
{
    return s[i / 8] >> (7 - i % 8) & 1;
}

/* The t-bit window of ks at bit `pos` into w (t/8 bytes, big-endian). */
static void zo_window(const uint8_t *ks, size_t pos, unsigned t, uint8_t *w)
{
    memset(w, 0, t / 8);
    for (unsigned j = 0; j < t; j++)
        if (zo_bit(ks, pos + j))
            w[j / 8] |= (uint8_t)(0x80 >> (j % 8));
}

static int zo_mac(zuc_variant variant, const uint8_t *key, size_t key_len, const uint8_t *iv, size_t iv_len,
                  const uint8_t *msg, size_t bits, unsigned tag_bits, uint8_t *tag)
{
    const unsigned t = variant == ZUC_128 ? 32 : tag_bits;
    const size_t off = variant == ZUC_128 ? 0 : t;
    /* ZUC-128 reads up to word ceil(L/32) + 1; ZUC-256 up to bit 2t + L. */
    const size_t bytes = variant == ZUC_128 ? 4 * ((bits + 31) / 32 + 2) : (2 * t + bits + 7) / 8 + 1;
    uint8_t *ks = calloc(bytes + 16, 1);
    const int rc = zo_keystream(variant, key, key_len, iv, iv_len, variant == ZUC_128 ? 0 : tag_bits, ks, bytes);
    if (rc == ZUC_OK) {
        uint8_t acc[16], w[16];
        if (variant == ZUC_128)
            memcpy(acc, ks + 4 * ((bits + 31) / 32 + 1), 4);
        else
            zo_window(ks, 0, t, acc);
        for (size_t i = 0; i <= bits; i++)
            if (i == bits || zo_bit(msg, i)) {
                zo_window(ks, off + i, t, w);
                for (unsigned b = 0; b < t / 8; b++)
                    acc[b] ^= w[b];
            }
        memcpy(tag, acc, t / 8);
    }
    free(ks);
    return rc;
}

#endif /* KC_FUZZ_ZUC_ORACLE_H */
