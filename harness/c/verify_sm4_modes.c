/*
 * verify's tests of SM4's GCM, CCM, XTS, CMAC and CBC-MAC (sm4_modes.h), on
 * every implementation: the published mode vectors (tests/vectors/sm4.json),
 * the argument errors, and differential cases against gf128_ref.c.  GCM and
 * XTS need a kernel with GF(2^128) functions: the scalar reference must
 * answer SM4_ERR_NO_IMPL there.
 */
#ifndef KC_NO_PEERS
#include <gcrypt.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm4_modes.h"

#define MAX_LEN 4096
#define MAX_AAD 0xff00 /* CCM's AAD encodings meet at 2^16 - 2^8 */
#define MAX_IV 64
#define CANARY 0xCC

static const size_t GCM_TAGS[] = {4, 8, 12, 13, 14, 15, 16};
static const uint32_t WRAP_BACKOFFS[] = {0, 1, 2, 7, 31, 63}; /* blocks before inc32 wraps */
#define N_WRAPS (sizeof WRAP_BACKOFFS / sizeof WRAP_BACKOFFS[0])

static const char *const MODE_NAMES[] = {"gcm", "ccm", "xts", "cmac", "cbc_mac"};

/* One case: the mode, its lengths, where its buffers sit, its inputs. */
typedef struct mcase {
  kc_vector_mode mode;
  int gb; /* XTS: GB/T 17964-2021's tweak rule, else IEEE's */
  size_t iv_len, aad_len, len, tag_len, in_off, out_off;
  int in_place;
  uint8_t key[32], iv[MAX_IV], aad[MAX_AAD], data[MAX_LEN];
  sm4_key k1, k2; /* key[0..16), key[16..32) (XTS: data and tweak keys) */
  kc_rng rng;     /* pieces and tampering */
  char what[200];
} mcase;

static gref_cipher ref_of(const sm4_key *k) { return (gref_cipher){sm4_ref_block, k}; }

static int has_gf(const void *impl) { return ((const sm4_impl *)impl)->ghash != NULL; }

/* GCM or CCM (x->mode), one call. */
static int aead(const void *impl, const mcase *x, int enc, const uint8_t *aad, const uint8_t *in,
                uint8_t *out, uint8_t *tag) {
  const sm4_key *k = &x->k1;
  if (x->mode == KC_VMODE_CCM)
    return enc ? sm4_ccm_encrypt(impl, k, x->iv, x->iv_len, aad, x->aad_len, in, out, x->len, tag,
                                 x->tag_len)
               : sm4_ccm_decrypt(impl, k, x->iv, x->iv_len, aad, x->aad_len, in, out, x->len, tag,
                                 x->tag_len);
  return enc ? sm4_gcm_encrypt(impl, k, x->iv, x->iv_len, aad, x->aad_len, in, out, x->len, tag,
                               x->tag_len)
             : sm4_gcm_decrypt(impl, k, x->iv, x->iv_len, aad, x->aad_len, in, out, x->len, tag,
                               x->tag_len);
}

/* 1 (after a failure) unless all n bytes at p are v. */
static int not_all(const uint8_t *p, uint8_t v, size_t n, const char *what, const char *where,
                   verify_section *s) {
  for (size_t i = 0; i < n; i++)
    if (p[i] != v) {
      verify_failure(s, "%s: %s: byte %zu is %02x, want %02x", what, where, i, p[i], v);
      return 1;
    }
  return 0;
}

#define EXPECT_RC(rc, want, call) \
  ((rc) == (want)                 \
       ? 0                        \
       : (verify_failure(s, "%s: %s returned %d, want %d", x->what, call, rc, want), 1))

/* A piece of a stream: often short, sometimes across batches; 0 now and then. */
static size_t piece(kc_rng *r, size_t left) {
  size_t n = (size_t)kc_rng_below(r, kc_rng_below(r, 2) ? 17 : 700);
  return n < left ? n : left;
}

/* GCM through the streaming calls in random pieces, both ways; the
 * decryption verifies the tag, or a tampered one (rejected). */
static int gcm_stream(const void *impl, mcase *x, const uint8_t *want, const uint8_t *wtag,
                      uint8_t *buf, verify_section *s) {
  int failed = 0;
  for (int enc = 1; enc >= 0; enc--) {
    sm4_gcm_state st;
    int rc = sm4_gcm_init(&st, impl, enc ? SM4_ENCRYPT : SM4_DECRYPT, &x->k1, x->iv, x->iv_len);
    for (size_t at = 0, n; rc == SM4_OK && at < x->aad_len; at += n)
      n = piece(&x->rng, x->aad_len - at), rc = sm4_gcm_aad(&st, x->aad + at, n);
    memcpy(buf, enc ? x->data : want, x->len);
    for (size_t at = 0, n; rc == SM4_OK && at < x->len; at += n)
      n = piece(&x->rng, x->len - at), rc = sm4_gcm_update(&st, buf + at, buf + at, n);
    uint8_t tag[16];
    memcpy(tag, wtag, 16);
    int bad = !enc && kc_rng_below(&x->rng, 2);
    tag[0] ^= (uint8_t)bad;
    if (rc == SM4_OK)
      rc = enc ? sm4_gcm_final(&st, tag, x->tag_len) : sm4_gcm_verify(&st, tag, x->tag_len);
    failed += EXPECT_RC(rc, bad ? SM4_ERR_AUTH : SM4_OK,
                        enc ? "streaming GCM encryption" : "streaming GCM decryption");
    if (rc == SM4_OK || bad) {
      failed += verify_differs(buf, enc ? want : x->data, x->len, "the reference (streaming)",
                               x->what, s);
      if (enc)
        failed +=
            verify_differs(tag, wtag, x->tag_len, "the reference's tag (streaming)", x->what, s);
    }
    failed +=
        not_all((const uint8_t *)&st, 0, sizeof st, x->what, "the state after final/verify", s);
  }
  return failed;
}

/* GCM or CCM: both directions against the reference, one call on guarded
 * buffers, then a tampered ciphertext, AAD or tag (rejected: GCM writes
 * nothing, CCM wipes what it wrote); GCM's streaming calls too. */
static int check_aead(const void *impl, mcase *x, verify_section *s) {
  static uint8_t want[MAX_LEN], bad[MAX_LEN], bad_aad[MAX_AAD];
  uint8_t wtag[16], tag[17];
  const gref_cipher ref = ref_of(&x->k1);
  const int gcm = x->mode == KC_VMODE_GCM, failed_before = (int)s->failures;
  if (gcm)
    gref_gcm(&ref, 1, x->iv, x->iv_len, x->aad, x->aad_len, x->data, want, x->len, wtag);
  else
    gref_ccm(&ref, 1, x->iv, x->iv_len, x->aad, x->aad_len, x->data, want, x->len, x->tag_len,
             wtag);
  verify_bufs b;
  for (int enc = 1; enc >= 0; enc--) {
    verify_bufs_place(&b, enc ? x->data : want, x->len, x->len, x->in_off, x->out_off, x->in_place);
    memset(tag, CANARY, sizeof tag);
    if (!enc) memcpy(tag, wtag, x->tag_len);
    int rc = aead(impl, x, enc, x->aad, b.in.ptr, b.dst, tag);
    if (!EXPECT_RC(rc, SM4_OK, enc ? "encrypt" : "decrypt")) {
      verify_differs(b.dst, enc ? want : x->data, x->len, "the reference", x->what, s);
      verify_differs(tag, wtag, x->tag_len, "the reference's tag", x->what, s);
      not_all(tag + x->tag_len, CANARY, 1, x->what, "past the tag", s);
    }
    verify_bufs_check(&b, enc ? "encrypt" : "decrypt", x->what, s);
    verify_bufs_free(&b);
  }
  /* Tampering: one bit of the ciphertext, the AAD or the tag. */
  memcpy(bad, want, x->len);
  memcpy(bad_aad, x->aad, x->aad_len);
  memcpy(tag, wtag, x->tag_len);
  int where = (int)kc_rng_below(&x->rng, 3);
  where = where == 0 && x->len ? 0 : where == 1 && x->aad_len ? 1 : 2;
  uint8_t *p = where == 0 ? bad : where == 1 ? bad_aad : tag;
  size_t n = where == 0 ? x->len : where == 1 ? x->aad_len : x->tag_len;
  p[kc_rng_below(&x->rng, n)] ^= (uint8_t)(1u << kc_rng_below(&x->rng, 8));
  verify_bufs_place(&b, bad, x->len, x->len, x->in_off, x->out_off, x->in_place);
  int rc = aead(impl, x, 0, bad_aad, b.in.ptr, b.dst, tag);
  static const char *const tampered[] = {"tampered ciphertext", "tampered AAD", "tampered tag"};
  if (!EXPECT_RC(rc, SM4_ERR_AUTH, tampered[where])) {
    if (!gcm)
      not_all(b.dst, 0, x->len, x->what, "CCM's output after SM4_ERR_AUTH (not wiped)", s);
    else if (x->in_place)
      verify_differs(b.dst, bad, x->len, "the input (GCM wrote in place before the tag verified)",
                     x->what, s);
    else
      not_all(b.dst, CANARY, x->len, x->what, "GCM's output after SM4_ERR_AUTH (written)", s);
  }
  verify_bufs_check(&b, "decrypt (tampered)", x->what, s);
  verify_bufs_free(&b);
  if (gcm) gcm_stream(impl, x, want, wtag, bad, s);
  return (int)s->failures != failed_before;
}

static int check_xts(const void *impl, mcase *x, verify_section *s) {
  static uint8_t want[MAX_LEN];
  const gref_cipher data = ref_of(&x->k1), tweak = ref_of(&x->k2);
  const int failed_before = (int)s->failures;
  gref_xts(&data, &tweak, 1, x->gb, x->iv, x->data, want, x->len);
  for (int enc = 1; enc >= 0; enc--) {
    verify_bufs b;
    verify_bufs_place(&b, enc ? x->data : want, x->len, x->len, x->in_off, x->out_off, x->in_place);
    int rc = sm4_xts_crypt(impl, enc ? SM4_ENCRYPT : SM4_DECRYPT, x->gb ? SM4_XTS_GB : SM4_XTS_IEEE,
                           &x->k1, &x->k2, x->iv, b.in.ptr, b.dst, x->len);
    if (!EXPECT_RC(rc, SM4_OK, enc ? "encrypt" : "decrypt"))
      verify_differs(b.dst, enc ? want : x->data, x->len, "the reference", x->what, s);
    verify_bufs_check(&b, enc ? "encrypt" : "decrypt", x->what, s);
    verify_bufs_free(&b);
  }
  return (int)s->failures != failed_before;
}

/* CMAC one call (x->tag_len bytes) and streamed in pieces; CBC-MAC. */
static int check_mac(const void *impl, mcase *x, verify_section *s) {
  uint8_t want[16], tag[17];
  const gref_cipher ref = ref_of(&x->k1);
  const int cmac = x->mode == KC_VMODE_CMAC, failed_before = (int)s->failures;
  (cmac ? gref_cmac : gref_cbc_mac)(&ref, x->data, x->len, want);
  verify_bufs b;
  verify_bufs_place(&b, x->data, x->len, 0, x->in_off, 0, 0);
  memset(tag, CANARY, sizeof tag);
  int rc = cmac ? sm4_cmac(impl, &x->k1, b.in.ptr, x->len, tag, x->tag_len)
                : sm4_cbc_mac(impl, &x->k1, b.in.ptr, x->len, tag);
  size_t n = cmac ? x->tag_len : 16;
  if (!EXPECT_RC(rc, SM4_OK, MODE_NAMES[x->mode])) {
    verify_differs(tag, want, n, "the reference", x->what, s);
    not_all(tag + n, CANARY, 1, x->what, "past the tag", s);
  }
  verify_bufs_check(&b, MODE_NAMES[x->mode], x->what, s);
  verify_bufs_free(&b);
  if (cmac) {
    sm4_cmac_state st;
    rc = sm4_cmac_init(&st, impl, &x->k1);
    for (size_t at = 0, k; rc == SM4_OK && at < x->len; at += k)
      k = piece(&x->rng, x->len - at), rc = sm4_cmac_update(&st, x->data + at, k);
    if (rc == SM4_OK) rc = sm4_cmac_final(&st, tag, 16);
    if (!EXPECT_RC(rc, SM4_OK, "streaming CMAC"))
      verify_differs(tag, want, 16, "the reference (streaming)", x->what, s);
  }
  return (int)s->failures != failed_before;
}

/* A 16-byte IV whose J0 (a GHASH of it) ends `backoff` below 2^32 - 1, so
 * that inc32 wraps around inside the message: J0 = (IV H + L) H solved for IV. */
static void wrap_iv(mcase *x, uint32_t backoff) {
  const gref_cipher ref = ref_of(&x->k1);
  uint8_t h[16] = {0}, hinv[16], j0[16], l[16] = {0}, got[16];
  sm4_ref_block(&x->k1, 1, h, h);
  gref_inverse(h, hinv);
  kc_rng_bytes(&x->rng, j0, 12);
  for (int i = 0; i < 4; i++) j0[12 + i] = (uint8_t)((UINT32_MAX - backoff) >> (24 - 8 * i));
  l[15] = 128; /* len(IV) in bits */
  gref_mul(j0, hinv, x->iv);
  for (int i = 0; i < 16; i++) x->iv[i] ^= l[i];
  gref_mul(x->iv, hinv, x->iv);
  gref_gcm_j0(&ref, x->iv, 16, got);
  if (memcmp(got, j0, 16) != 0) {
    fprintf(stderr,
            "verify: error: the GCM reference's J0 of a solved IV is not the J0 solved for\n");
    exit(2);
  }
}

static void set(mcase *x, kc_vector_mode mode, int gb, size_t iv_len, size_t aad_len, size_t len,
                size_t tag_len) {
  x->mode = mode, x->gb = gb, x->iv_len = iv_len, x->aad_len = aad_len, x->len = len,
  x->tag_len = tag_len;
}

/* The systematic shapes (short, every IV, nonce and tag length, the
 * counter wraps, CCM's AAD encodings), then random ones up to MAX_LEN.
 * Returns 1 for a wrap case (its IV is solved once the key is set). */
#define N_SYSTEMATIC (64 + N_WRAPS + 49 + 2 + 66 + 65 + 5)
static int shape(size_t k, mcase *x, kc_rng *r) {
  if (k < 64) {
    set(x, KC_VMODE_GCM, 0, k + 1, (k * 13) % 41, (k * 37) % 97, GCM_TAGS[k % 7]);
  } else if ((k -= 64) < N_WRAPS) {
    set(x, KC_VMODE_GCM, 0, 16, 20, 70 * 16 + 5, 16);
    return 1;
  } else if ((k -= N_WRAPS) < 49) {
    set(x, KC_VMODE_CCM, 0, 7 + k / 7, (k * 11) % 37, (k * 29) % 83, 4 + 2 * (k % 7));
  } else if ((k -= 49) < 2) {
    set(x, KC_VMODE_CCM, 0, 13 - k, MAX_AAD - 1 + k, 33, 16);
  } else if ((k -= 2) < 66) {
    set(x, KC_VMODE_XTS, (int)(k % 2), 16, 0, 16 + k / 2, 0);
  } else if ((k -= 66) < 65) {
    set(x, KC_VMODE_CMAC, 0, 0, 0, k, 1 + k % 16);
  } else if ((k -= 65) < 5) {
    set(x, KC_VMODE_CBC_MAC, 0, 0, 0, 16 * (k + 1), 16);
  } else {
    kc_vector_mode m = (kc_vector_mode)kc_rng_below(r, 5);
    size_t len = (size_t)kc_rng_below(r, MAX_LEN + 1),
           aad_len = (size_t)kc_rng_below(r, MAX_LEN + 1);
    set(x, m, (int)kc_rng_below(r, 2), 16, aad_len, len, 16);
    if (m == KC_VMODE_GCM) x->iv_len = kc_rng_below(r, 2) ? 12 : 1 + kc_rng_below(r, MAX_IV);
    if (m == KC_VMODE_GCM) x->tag_len = GCM_TAGS[kc_rng_below(r, 7)];
    if (m == KC_VMODE_CCM)
      x->iv_len = 7 + kc_rng_below(r, 7), x->tag_len = 4 + 2 * kc_rng_below(r, 7);
    if (m == KC_VMODE_XTS) x->len = len < 16 ? 16 : len;
    if (m == KC_VMODE_CMAC) x->tag_len = 1 + kc_rng_below(r, 16);
    if (m == KC_VMODE_CBC_MAC) x->len = len < 16 ? 16 : len - len % 16;
  }
  return 0;
}

static void make_case(mcase *x, uint64_t seed, size_t index) {
  kc_rng *r = &x->rng;
  kc_rng_seed(r, seed * 0x9E3779B97F4A7C15ull + index);
  int wrap = shape(index, x, r);
  x->in_off = (size_t)kc_rng_below(r, 16);
  x->out_off = (size_t)kc_rng_below(r, 16);
  x->in_place = kc_rng_below(r, 4) == 0;
  kc_rng_bytes(r, x->key, sizeof x->key);
  kc_rng_bytes(r, x->iv, x->iv_len);
  kc_rng_bytes(r, x->aad, x->aad_len);
  kc_rng_bytes(r, x->data, x->len);
  sm4_set_key(&x->k1, x->key);
  sm4_set_key(&x->k2, x->key + 16);
  if (wrap) wrap_iv(x, WRAP_BACKOFFS[index - 64]);
  char key[65];
  kc_hex_encode(x->key, 32, key);
  snprintf(
      x->what, sizeof x->what,
      "%s case %zu (seed %llu): iv %zu aad %zu len %zu tag %zu%s in_off %zu out_off %zu%s key %s",
      MODE_NAMES[x->mode], index, (unsigned long long)seed, x->iv_len, x->aad_len, x->len,
      x->tag_len, x->mode == KC_VMODE_XTS ? (x->gb ? " gb" : " ieee") : "", x->in_off, x->out_off,
      x->in_place ? " in place" : "", key);
}

/* Returns 1 if the case failed. */
static int run_case(const void *impl, mcase *x, verify_section *s) {
  if (x->mode == KC_VMODE_CMAC || x->mode == KC_VMODE_CBC_MAC) return check_mac(impl, x, s);
  if (!has_gf(impl)) { /* GCM and XTS need GF(2^128) functions */
    static uint8_t out[MAX_LEN];
    uint8_t tag[16];
    int rc = x->mode == KC_VMODE_XTS   ? sm4_xts_crypt(impl, SM4_ENCRYPT, SM4_XTS_IEEE, &x->k1,
                                                       &x->k2, x->iv, x->data, out, 16)
             : x->mode == KC_VMODE_GCM ? aead(impl, x, 1, x->aad, x->data, out, tag)
                                       : -99;
    if (rc != -99) return EXPECT_RC(rc, SM4_ERR_NO_IMPL, "a kernel without GF(2^128) functions");
  }
  return x->mode == KC_VMODE_XTS ? check_xts(impl, x, s) : check_aead(impl, x, s);
}

/* The published vectors on impl (or on the reference, impl NULL), into s->vectors. */
static void check_vectors(const void *impl, verify_section *s) {
  const kc_vectors *l = kc_vectors_find("sm4");
  static uint8_t out[MAX_LEN];
  for (size_t i = 0; l && i < l->n_modes; i++) {
    const kc_mode_vector *v = &l->modes[i];
    if (v->len > MAX_LEN) continue;
    sm4_key k1, k2;
    sm4_set_key(&k1, v->key);
    sm4_set_key(&k2, v->key + (v->key_len == 32 ? 16 : 0));
    const gref_cipher ref = ref_of(&k1), ref2 = ref_of(&k2);
    const int gf = v->mode == KC_VMODE_GCM || v->mode == KC_VMODE_XTS;
    uint8_t tag[16];
    int rc = SM4_OK, ok = 1;
    if (impl && gf && !has_gf(impl)) {
      rc = v->mode == KC_VMODE_XTS
               ? sm4_xts_crypt(impl, SM4_ENCRYPT, SM4_XTS_IEEE, &k1, &k2, v->iv, v->in, out, 16)
               : sm4_gcm_encrypt(impl, &k1, v->iv, v->iv_len, v->aad, v->aad_len, v->in, out,
                                 v->len, tag, v->tag_len);
      VERIFY_COUNT(s, vectors, rc == SM4_ERR_NO_IMPL, "%s: returned %d, want SM4_ERR_NO_IMPL",
                   v->label, rc);
      continue;
    }
    for (int enc = 1; enc >= 0 && v->mode <= KC_VMODE_XTS; enc--) {
      const uint8_t *from = enc ? v->in : v->out, *to = enc ? v->out : v->in;
      memset(out, CANARY, v->len);
      memcpy(tag, v->tag, v->tag_len);
      if (v->mode == KC_VMODE_XTS) {
        if (impl)
          rc = sm4_xts_crypt(impl, enc ? SM4_ENCRYPT : SM4_DECRYPT,
                             v->tweak_rule == KC_XTS_GB ? SM4_XTS_GB : SM4_XTS_IEEE, &k1, &k2,
                             v->iv, from, out, v->len);
        else
          gref_xts(&ref, &ref2, enc, v->tweak_rule == KC_XTS_GB, v->iv, from, out, v->len);
      } else if (v->mode == KC_VMODE_GCM) {
        if (impl)
          rc = enc ? sm4_gcm_encrypt(impl, &k1, v->iv, v->iv_len, v->aad, v->aad_len, from, out,
                                     v->len, tag, v->tag_len)
                   : sm4_gcm_decrypt(impl, &k1, v->iv, v->iv_len, v->aad, v->aad_len, from, out,
                                     v->len, tag, v->tag_len);
        else
          gref_gcm(&ref, enc, v->iv, v->iv_len, v->aad, v->aad_len, from, out, v->len, tag);
      } else {
        if (impl)
          rc = enc ? sm4_ccm_encrypt(impl, &k1, v->iv, v->iv_len, v->aad, v->aad_len, from, out,
                                     v->len, tag, v->tag_len)
                   : sm4_ccm_decrypt(impl, &k1, v->iv, v->iv_len, v->aad, v->aad_len, from, out,
                                     v->len, tag, v->tag_len);
        else
          gref_ccm(&ref, enc, v->iv, v->iv_len, v->aad, v->aad_len, from, out, v->len, v->tag_len,
                   tag);
      }
      int tag_equal = memcmp(tag, v->tag, v->tag_len) == 0;
      if (v->invalid && !enc && impl) /* rejected; GCM wrote nothing, CCM wiped */
        ok &= rc == SM4_ERR_AUTH && verify_first_diff(out, out + 1, v->len ? v->len - 1 : 0) < 0 &&
              (v->len == 0 || out[0] == (v->mode == KC_VMODE_GCM ? CANARY : 0));
      else
        ok &= rc == SM4_OK && verify_first_diff(out, to, v->len) < 0 &&
              (v->mode == KC_VMODE_XTS || (enc || !impl ? tag_equal != v->invalid : 1));
    }
    if (v->mode == KC_VMODE_CMAC || v->mode == KC_VMODE_CBC_MAC) {
      if (v->mode == KC_VMODE_CMAC)
        impl ? (void)(rc = sm4_cmac(impl, &k1, v->in, v->len, tag, v->tag_len))
             : gref_cmac(&ref, v->in, v->len, tag);
      else
        impl ? (void)(rc = sm4_cbc_mac(impl, &k1, v->in, v->len, tag))
             : gref_cbc_mac(&ref, v->in, v->len, tag);
      ok = rc == SM4_OK && memcmp(tag, v->tag, v->tag_len) == 0;
    }
    VERIFY_COUNT(s, vectors, ok, "%s: %s (rc %d)", v->label,
                 impl ? "wrong answer" : "the reference disagrees", rc);
  }
}

/* Argument errors return their codes and write nothing (on the reference,
 * XTS is SM4_ERR_NO_IMPL whatever its length). */
static void check_arguments(const void *impl, verify_section *s) {
  static uint8_t in[65536], out[65536 + 1];
  uint8_t iv[16] = {0}, tag[17];
  sm4_key k;
  sm4_set_key(&k, iv);
#define NOTHING_WRITTEN(call)                                                                  \
  do {                                                                                         \
    memset(out, CANARY, sizeof out), memset(tag, CANARY, sizeof tag);                          \
    int rc_ = (call);                                                                          \
    VERIFY_CHECK(s,                                                                            \
                 rc_ == want && verify_first_diff(out, out + 1, 64) < 0 && out[0] == CANARY && \
                     tag[0] == CANARY,                                                         \
                 #call " returned %d (want %d) or wrote", rc_, want);                          \
  } while (0)
  int want = SM4_ERR_ARGUMENT;
  static const size_t bad_gcm_tags[] = {0, 1, 3, 5, 7, 9, 11, 17},
                      bad_ccm_tags[] = {0, 2, 3, 5, 15, 17, 18};
  for (size_t i = 0; i < sizeof bad_gcm_tags / sizeof bad_gcm_tags[0]; i++) {
    NOTHING_WRITTEN(sm4_gcm_encrypt(impl, &k, iv, 12, in, 3, in, out, 33, tag, bad_gcm_tags[i]));
    NOTHING_WRITTEN(sm4_gcm_decrypt(impl, &k, iv, 12, in, 3, in, out, 33, tag, bad_gcm_tags[i]));
  }
  for (size_t i = 0; i < sizeof bad_ccm_tags / sizeof bad_ccm_tags[0]; i++) {
    NOTHING_WRITTEN(sm4_ccm_encrypt(impl, &k, iv, 12, in, 3, in, out, 33, tag, bad_ccm_tags[i]));
    NOTHING_WRITTEN(sm4_ccm_decrypt(impl, &k, iv, 12, in, 3, in, out, 33, tag, bad_ccm_tags[i]));
  }
  for (size_t n = 0; n < 16; n += n == 6 ? 8 : 6) { /* nonces of 0, 6, 14 bytes */
    NOTHING_WRITTEN(sm4_ccm_encrypt(impl, &k, iv, n, in, 3, in, out, 33, tag, 16));
    NOTHING_WRITTEN(sm4_ccm_decrypt(impl, &k, iv, n, in, 3, in, out, 33, tag, 16));
  }
  NOTHING_WRITTEN(sm4_xts_crypt(impl, SM4_ENCRYPT, (sm4_xts_rule)2, &k, &k, iv, in, out, 32));
  NOTHING_WRITTEN(sm4_xts_crypt(impl, (sm4_direction)2, SM4_XTS_GB, &k, &k, iv, in, out, 32));
  NOTHING_WRITTEN(sm4_cmac(impl, &k, in, 20, tag, 0));
  NOTHING_WRITTEN(sm4_cmac(impl, &k, in, 20, tag, 17));
  want = SM4_ERR_LENGTH; /* CCM with a 13-byte nonce takes below 2^16 bytes */
  NOTHING_WRITTEN(sm4_ccm_encrypt(impl, &k, iv, 13, in, 3, in, out, 65536, tag, 16));
  NOTHING_WRITTEN(sm4_ccm_decrypt(impl, &k, iv, 13, in, 3, in, out, 65536, tag, 16));
  NOTHING_WRITTEN(sm4_cbc_mac(impl, &k, in, 0, tag)); /* no block: no MAC */
  NOTHING_WRITTEN(sm4_cbc_mac(impl, &k, in, 15, tag));
  NOTHING_WRITTEN(sm4_cbc_mac(impl, &k, in, 33, tag));
  want = SM4_ERR_ARGUMENT; /* an empty IV, whatever the kernel */
  NOTHING_WRITTEN(sm4_gcm_encrypt(impl, &k, iv, 0, in, 3, in, out, 33, tag, 16));
  NOTHING_WRITTEN(sm4_gcm_decrypt(impl, &k, iv, 0, in, 3, in, out, 33, tag, 16));
  want = has_gf(impl) ? SM4_ERR_LENGTH : SM4_ERR_NO_IMPL;
  for (size_t n = 0; n < 16; n += 5)
    NOTHING_WRITTEN(sm4_xts_crypt(impl, SM4_ENCRYPT, SM4_XTS_IEEE, &k, &k, iv, in, out, n));
  /* The streaming states' rules. */
  sm4_gcm_state st;
  sm4_cmac_state cs = {0};
  want = SM4_ERR_ARGUMENT;
  NOTHING_WRITTEN(sm4_gcm_init(&st, impl, SM4_ENCRYPT, &k, iv, 0));
  NOTHING_WRITTEN(sm4_gcm_init(&st, impl, (sm4_direction)2, &k, iv, 12));
  if (!has_gf(impl)) return;
  want = SM4_OK;
  NOTHING_WRITTEN(sm4_gcm_init(&st, impl, SM4_ENCRYPT, &k, iv, 12) |
                  sm4_gcm_update(&st, in, in + 1000, 5));
  want = SM4_ERR_STATE;
  NOTHING_WRITTEN(sm4_gcm_aad(&st, in, 1));      /* AAD after the text */
  NOTHING_WRITTEN(sm4_gcm_verify(&st, tag, 16)); /* an encryption state */
  want = SM4_ERR_ARGUMENT;
  NOTHING_WRITTEN(sm4_gcm_final(&st, tag, 6)); /* stays live */
  want = SM4_OK;
  VERIFY_CHECK(s, sm4_gcm_final(&st, tag, 16) == SM4_OK,
               "sm4_gcm_final after a bad tag length failed");
  want = SM4_ERR_STATE;
  NOTHING_WRITTEN(sm4_gcm_update(&st, in, out, 5)); /* finished */
  NOTHING_WRITTEN(sm4_gcm_final(&st, tag, 16));
  NOTHING_WRITTEN(sm4_cmac_update(&cs, in, 5)); /* never initialised */
  want = SM4_OK;
  NOTHING_WRITTEN(sm4_cmac_init(&cs, impl, &k) | sm4_cmac_final(&cs, in + 1000, 16));
  want = SM4_ERR_STATE;
  NOTHING_WRITTEN(sm4_cmac_update(&cs, in, 5)); /* finished */
#undef NOTHING_WRITTEN
}

#ifndef KC_NO_PEERS
/* libgcrypt's SM4 in mode m (GCM, CCM, XTS IEEE; CMAC as a MAC) on x: out and the tag.
 * Returns 0, or -1 where it refuses. */
static int gcrypt_mode(const mcase *x, uint8_t *out, uint8_t tag[16]) {
  if (x->mode == KC_VMODE_CMAC) {
    gcry_mac_hd_t h;
    size_t n = 16;
    int e = gcry_mac_open(&h, GCRY_MAC_CMAC_SM4, 0, NULL) || gcry_mac_setkey(h, x->key, 16) ||
            gcry_mac_write(h, x->data, x->len) || gcry_mac_read(h, tag, &n);
    gcry_mac_close(h);
    return e ? -1 : 0;
  }
  static const int modes[] = {GCRY_CIPHER_MODE_GCM, GCRY_CIPHER_MODE_CCM, GCRY_CIPHER_MODE_XTS};
  const int xts = x->mode == KC_VMODE_XTS;
  uint64_t lengths[3] = {x->len, x->aad_len, x->tag_len};
  gcry_cipher_hd_t h;
  int e = gcry_cipher_open(&h, GCRY_CIPHER_SM4, modes[x->mode], 0) ||
          gcry_cipher_setkey(h, x->key, xts ? 32 : 16) || gcry_cipher_setiv(h, x->iv, x->iv_len) ||
          (x->mode == KC_VMODE_CCM &&
           gcry_cipher_ctl(h, GCRYCTL_SET_CCM_LENGTHS, lengths, sizeof lengths)) ||
          (!xts && gcry_cipher_authenticate(h, x->aad, x->aad_len)) ||
          gcry_cipher_encrypt(h, out, x->len, x->data, x->len) ||
          (!xts && gcry_cipher_gettag(h, tag, x->mode == KC_VMODE_CCM ? x->tag_len : 16));
  gcry_cipher_close(h);
  return e ? -1 : 0;
}

/* The C reference against libgcrypt (a peer: GCM with any IV length, CCM, XTS with the IEEE
 * rule, CMAC) on random cases, into s->cases. */
static void check_reference_with_gcrypt(uint64_t seed, verify_section *s) {
  static mcase x;
  static uint8_t want[MAX_LEN], got[MAX_LEN];
  gcry_check_version(NULL);
  for (size_t i = 0; i < 64; i++) {
    make_case(&x, seed, N_SYSTEMATIC + i);
    x.mode = (kc_vector_mode)(i % 4);
    x.len = x.mode == KC_VMODE_XTS && x.len < 16 ? 16 : x.len;
    x.gb = 0;
    x.iv_len = x.mode == KC_VMODE_GCM ? 1 + i % MAX_IV : x.mode == KC_VMODE_CCM ? 7 + i % 7 : 16;
    x.tag_len = x.mode == KC_VMODE_CCM ? 4 + 2 * (i % 7) : 16;
    uint8_t wtag[16] = {0}, tag[16] = {0};
    const gref_cipher c1 = ref_of(&x.k1), c2 = ref_of(&x.k2);
    if (x.mode == KC_VMODE_GCM)
      gref_gcm(&c1, 1, x.iv, x.iv_len, x.aad, x.aad_len, x.data, want, x.len, wtag);
    else if (x.mode == KC_VMODE_CCM)
      gref_ccm(&c1, 1, x.iv, x.iv_len, x.aad, x.aad_len, x.data, want, x.len, x.tag_len, wtag);
    else if (x.mode == KC_VMODE_XTS)
      gref_xts(&c1, &c2, 1, 0, x.iv, x.data, want, x.len);
    else
      gref_cmac(&c1, x.data, x.len, wtag);
    const size_t out_len = x.mode == KC_VMODE_CMAC ? 0 : x.len;
    VERIFY_COUNT(s, cases,
                 gcrypt_mode(&x, got, tag) == 0 && memcmp(got, want, out_len) == 0 &&
                     memcmp(tag, wtag, x.tag_len) == 0,
                 "libgcrypt disagrees with the modes' reference: %s", MODE_NAMES[x.mode]);
  }
}
#endif

void sm4_modes_api(const vb_cipher *variants, const kc_view_list *impls, uint64_t seed,
                   verify_section *s) {
  (void)variants, (void)impls, (void)seed;
  const kc_vectors *l = kc_vectors_find("sm4");
  size_t n_modes = l ? l->n_modes : 0, before = s->vectors;
  check_vectors(NULL, s);
  VERIFY_CHECK(s, n_modes > 0 && s->vectors - before == n_modes,
               "the modes' reference passed %zu of %zu mode vectors", s->vectors - before, n_modes);
#ifndef KC_NO_PEERS
  check_reference_with_gcrypt(seed, s);
#endif
}

void sm4_modes_impl(const vb_cipher *c, const void *impl, const verify_run *r, verify_section *s) {
  (void)c;
  static mcase x;
  uint64_t seed = r->seed;
  for (const char *p = ((const sm4_impl *)impl)->name; *p; p++)
    seed = (seed ^ (uint8_t)*p) * 0x100000001B3ull;
  check_vectors(impl, s);
  check_arguments(impl, s);
  size_t n = N_SYSTEMATIC + r->n_random / 8;
  for (size_t i = 0; i < n; i++) {
    make_case(&x, seed, i);
    if (run_case(impl, &x, s) == 0) s->cases++;
  }
}
