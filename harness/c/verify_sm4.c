/*
 * verify's SM4 tests: known answers and differential tests of every SM4
 * implementation (see verify.c for the command line and the output).
 *
 * For every registered implementation (native kernels this CPU runs, and the
 * SIMDe-emulated builds that sm4_register_emulated() adds):
 *
 *  1. Official vectors from tests/vectors/sm4.json (ECB including the
 *     1,000,000-fold iteration, CBC, CTR), encrypting and decrypting, in place.
 *     Where to find that file is described in vectors.h ($KC_VECTORS_DIR, or
 *     <repo>/tests/vectors found upwards from the executable or the
 *     current directory).
 *  2. Differential cases against the `reference` implementation and against
 *     OpenSSL's EVP SM4 (padding off), as verify_block.h describes: every
 *     length 0..256 (whole blocks for ECB/CBC), random lengths up to 4096,
 *     misaligned and in-place buffers, IVs just below a carry out of the low
 *     8/32/64/96/128 counter bits, guard bytes, and the kernel's crypt_blocks
 *     entry point.
 *
 * Two shared sections run once: "key schedule" (round keys of the vectors
 * that list them; decryption keys are the encryption keys reversed) and
 * "api" (the oracle itself on the vectors, the convenience wrappers, lookup
 * functions, and the length errors of every implementation).
 *
 * Random differential cases: 3000, or 200 with --quick (every vector and
 * every systematic case still runs).
 *
 * Built with KC_NO_PEERS (harness/c/Makefile's PEERS=0: the AArch64 build),
 * OpenSSL is not linked: the differential cases compare with the reference
 * only, and a NOTE line says so.
 */
#ifndef KC_NO_PEERS
#include <openssl/evp.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "sm4.h"
#include "vectors.h"
#include "verify.h"
#include "verify_block.h"

#define RANDOM_CASES_FULL 3000
#define RANDOM_CASES_QUICK 200
#define MAX_LEN 4096 /* longest differential input */

/* ------------------------------------------------------------------ */
/* OpenSSL oracle                                                       */
/* ------------------------------------------------------------------ */

static int have_openssl_sm4; /* set in verify_sm4: 0 if this OpenSSL was built without SM4 */

/* Runs OpenSSL's SM4 in `mode`, padding off.  Returns 0 or -1 (always -1
 * in a build without peers). */
static int openssl_sm4(kc_block_mode mode, int encrypt, const uint8_t *key, const uint8_t *iv,
                       const uint8_t *in, uint8_t *out, size_t len) {
#ifdef KC_NO_PEERS
  (void)mode, (void)encrypt, (void)key, (void)iv, (void)in, (void)out, (void)len;
  return -1;
#else
  const EVP_CIPHER *cipher = mode == KC_MODE_ECB   ? EVP_sm4_ecb()
                             : mode == KC_MODE_CBC ? EVP_sm4_cbc()
                                                   : EVP_sm4_ctr();
  EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
  int ok = 0, n1 = 0, n2 = 0;
  if (ctx && cipher &&
      EVP_CipherInit_ex(ctx, cipher, NULL, key, mode == KC_MODE_ECB ? NULL : iv, encrypt) == 1 &&
      EVP_CIPHER_CTX_set_padding(ctx, 0) == 1 &&
      EVP_CipherUpdate(ctx, out, &n1, in, (int)len) == 1 &&
      EVP_CipherFinal_ex(ctx, out + n1, &n2) == 1 && (size_t)(n1 + n2) == len)
    ok = 1;
  EVP_CIPHER_CTX_free(ctx);
  return ok ? 0 : -1;
#endif
}

/* ------------------------------------------------------------------ */
/* SM4 as the block-cipher tests see it                                 */
/* ------------------------------------------------------------------ */

static int sm4_vb_set_key(const vb_cipher *c, void *ks, const uint8_t *key) {
  (void)c;
  sm4_set_key(ks, key);
  return 0;
}

static int sm4_vb_crypt(const vb_cipher *c, const void *impl, kc_block_mode mode, int encrypt,
                        const void *ks, const uint8_t *iv, const uint8_t *in, uint8_t *out,
                        size_t len) {
  (void)c;
  return sm4_crypt(impl, (sm4_mode)mode, encrypt ? SM4_ENCRYPT : SM4_DECRYPT, ks, iv, in, out,
                   len);
}

static void sm4_vb_crypt_blocks(const vb_cipher *c, const void *impl, int encrypt, const void *ks,
                                const uint8_t *in, uint8_t *out, size_t nblocks) {
  (void)c;
  ((const sm4_impl *)impl)->crypt_blocks(ks, encrypt ? SM4_ENCRYPT : SM4_DECRYPT, in, out, nblocks);
}

static int sm4_vb_oracle(const vb_cipher *c, kc_block_mode mode, int encrypt, const uint8_t *key,
                         const uint8_t *iv, const uint8_t *in, uint8_t *out, size_t len) {
  (void)c;
  return openssl_sm4(mode, encrypt, key, iv, in, out, len);
}

static vb_cipher SM4 = {
    .name = "sm4",
    .block_bytes = SM4_BLOCK_BYTES,
    .key_bytes = SM4_KEY_BYTES,
    .systematic_blocks = VB_SYSTEMATIC_LEN / SM4_BLOCK_BYTES,
    .max_len = MAX_LEN,
    .key_size = sizeof(sm4_key),
    .set_key = sm4_vb_set_key,
    .crypt = sm4_vb_crypt,
    .crypt_blocks = sm4_vb_crypt_blocks,
    .oracle_name = "OpenSSL",
};

/* ------------------------------------------------------------------ */
/* Vectors                                                              */
/* ------------------------------------------------------------------ */

/* The first and last round keys some vectors give. */
typedef struct sm4_round_keys {
  int given; /* round_keys_first_last given */
  uint32_t first, last;
} sm4_round_keys;

static vb_vectors vectors;
static sm4_round_keys *round_keys; /* one per vector */

/* round_keys_first_last: two big-endian words.  Returns 0 or -1. */
static int load_round_keys(const kc_json *o, const vb_vector *v, sm4_round_keys *rk, char *err,
                           size_t err_size) {
  const kc_json *words = kc_json_get(o, "round_keys_first_last");
  if (!words) return 0;
  uint8_t w[2][4];
  char inner[128];
  if (words->type != KC_JSON_ARRAY || words->count != 2 ||
      words->items[0].type != KC_JSON_STRING || words->items[1].type != KC_JSON_STRING ||
      kc_hex_decode_exact(words->items[0].string, w[0], 4, "round key", inner, sizeof inner) ||
      kc_hex_decode_exact(words->items[1].string, w[1], 4, "round key", inner, sizeof inner)) {
    snprintf(err, err_size, "%s: 'round_keys_first_last' must be two 8-digit hex strings",
             v->label);
    return -1;
  }
  rk->given = 1;
  rk->first = (uint32_t)w[0][0] << 24 | w[0][1] << 16 | w[0][2] << 8 | w[0][3];
  rk->last = (uint32_t)w[1][0] << 24 | w[1][1] << 16 | w[1][2] << 8 | w[1][3];
  return 0;
}

/* Reads one vector object; returns 0 or -1 with a message. */
static int load_vector(const kc_json *o, kc_block_mode mode, size_t index, vb_vector *v,
                       sm4_round_keys *rk, char *err, size_t err_size) {
  char label[160];
  const char *source = kc_json_get_string(o, "source");
  if (source)
    snprintf(label, sizeof label, "%s vector #%zu (%.60s)", kc_block_mode_name(mode), index + 1,
             source);
  else
    snprintf(label, sizeof label, "%s vector #%zu", kc_block_mode_name(mode), index + 1);
  if (vb_load_vector(&SM4, o, mode, label, v, err, err_size) != 0) return -1;
  return load_round_keys(o, v, rk, err, err_size);
}

/* Loads every vector of sm4.json into `vectors`.  Returns 0 or -1. */
static int load_vectors(const char *argv0) {
  char path[4200], err[512];
  kc_json *root = verify_load_vectors(argv0, "sm4.json", path, sizeof path);
  if (!root) return -1;
  size_t total = 0;
  for (int m = 0; m < KC_N_BLOCK_MODES; m++) {
    const kc_json *arr = kc_json_get(root, kc_block_mode_name((kc_block_mode)m));
    if (arr && arr->type == KC_JSON_ARRAY) total += arr->count;
  }
  vb_vectors_alloc(&vectors, total);
  round_keys = calloc(total ? total : 1, sizeof *round_keys);
  for (int m = 0; m < KC_N_BLOCK_MODES; m++) {
    const char *group = kc_block_mode_name((kc_block_mode)m);
    const kc_json *arr = kc_json_get(root, group);
    if (!arr) continue;
    if (arr->type != KC_JSON_ARRAY) {
      fprintf(stderr, "verify: error: %s: '%s' is not an array\n", path, group);
      kc_json_free(root);
      return -1;
    }
    for (size_t i = 0; i < arr->count; i++) {
      if (load_vector(&arr->items[i], (kc_block_mode)m, i, &vectors.v[vectors.n],
                      &round_keys[vectors.n], err, sizeof err)) {
        fprintf(stderr, "verify: error: %s: %s\n", path, err);
        kc_json_free(root);
        return -1;
      }
      vectors.n++;
    }
  }
  kc_json_free(root);
  if (vectors.n == 0) {
    fprintf(stderr, "verify: error: %s holds no vectors\n", path);
    return -1;
  }
  fprintf(stderr, "verify: %zu vectors from %s\n", vectors.n, path);
  return 0;
}

static void free_vectors(void) {
  vb_vectors_free(&vectors);
  free(round_keys);
  round_keys = NULL;
}

/* ------------------------------------------------------------------ */
/* Sections                                                             */
/* ------------------------------------------------------------------ */

/* Round keys of the vectors that list them; decryption keys reversed. */
static void check_key_schedule(void) {
  verify_section s = {0};
  for (size_t i = 0; i < vectors.n; i++) {
    const vb_vector *v = &vectors.v[i];
    const sm4_round_keys *rk = &round_keys[i];
    sm4_key key;
    sm4_set_key(&key, v->key);
    const uint32_t *enc = key.rk[SM4_ENCRYPT], *dec = key.rk[SM4_DECRYPT];
    if (rk->given) {
      VERIFY_CHECK(&s, enc[0] == rk->first, "%s: rk[SM4_ENCRYPT][0] = %08x, want %08x", v->label,
                   enc[0], rk->first);
      VERIFY_CHECK(&s, enc[SM4_ROUNDS - 1] == rk->last,
                   "%s: rk[SM4_ENCRYPT][31] = %08x, want %08x", v->label, enc[SM4_ROUNDS - 1],
                   rk->last);
    }
    int reversed = 1;
    for (int r = 0; r < SM4_ROUNDS; r++)
      if (dec[r] != enc[SM4_ROUNDS - 1 - r]) reversed = 0;
    VERIFY_CHECK(&s, reversed, "%s: decryption round keys are not the encryption ones reversed",
                 v->label);
  }
  verify_report("key schedule", &s, 0);
}

/* The convenience wrapper number `op` (KC_BLOCK_OPS order). */
static int call_wrapper(const vb_cipher *c, size_t op, const void *ks, const uint8_t *iv,
                        const uint8_t *in, uint8_t *out, size_t len) {
  (void)c;
  switch (op) {
    case 0: return sm4_ecb_encrypt(ks, in, out, len);
    case 1: return sm4_ecb_decrypt(ks, in, out, len);
    case 2: return sm4_cbc_encrypt(ks, iv, in, out, len);
    case 3: return sm4_cbc_decrypt(ks, iv, in, out, len);
    default: return sm4_ctr_crypt(ks, iv, in, out, len);
  }
}

static const char *const WRAPPER_NAMES[KC_N_BLOCK_OPS] = {
    "sm4_ecb_encrypt", "sm4_ecb_decrypt", "sm4_cbc_encrypt", "sm4_cbc_decrypt", "sm4_ctr_crypt"};

static const void *find_impl(const char *strategy, const char *target, int emulated) {
  return sm4_impl_find(strategy, target, emulated);
}

/* The oracle on the vectors, the wrappers, the lookups, the length errors. */
static void check_api(const kc_view_list *impls, const sm4_impl *ref) {
  verify_section s = {0};
  uint8_t out[4096];

  /* OpenSSL reproduces the official vectors (one iteration of each). */
  for (size_t i = 0; have_openssl_sm4 && i < vectors.n; i++) {
    const vb_vector *v = &vectors.v[i];
    if (v->iterations != 1 || v->len > sizeof out) continue;
    VERIFY_CHECK(&s,
                 openssl_sm4(v->mode, 1, v->key, v->iv, v->pt, out, v->len) == 0 &&
                     verify_first_diff(out, v->ct, v->len) < 0,
                 "OpenSSL disagrees with %s", v->label);
  }

  verify_check_lookups("sm4", impls, find_impl, sm4_impl_best(), &s);
  vb_check_wrappers(&SM4, ref, call_wrapper, WRAPPER_NAMES, &s);

  /* Every runnable implementation refuses partial blocks in ECB and CBC. */
  for (size_t i = 0; i < impls->n; i++) {
    const kc_impl_view *m = &impls->v[i];
    if (kc_view_runs(m) == KC_UNAVAILABLE) continue;
    char label[160];
    snprintf(label, sizeof label, "%s%s", m->name, m->emulated ? " (emulated)" : "");
    vb_check_length_errors(&SM4, m->impl, label, SM4_ERR_LENGTH, &s);
  }
  verify_report("api", &s, 0);
}

/* Vectors and differential cases for one implementation. */
static void check_impl(const kc_impl_view *v, const verify_progress *p, verify_section *s,
                       const verify_run *r) {
  size_t n_cases = vb_systematic_cases(&SM4) + r->n_random;
  verify_step(p, "vectors");
  for (size_t i = 0; i < vectors.n; i++)
    vb_check_vector(&SM4, v->impl, &vectors.v[i], verify_iterates(r, v), s);
  verify_step(p, "%zu differential cases", n_cases);
  vb_run_cases(&SM4, v->impl, r->ref, n_cases, r->seed, s);
}

/* ------------------------------------------------------------------ */
/* Entry point                                                          */
/* ------------------------------------------------------------------ */

int verify_sm4(const verify_options *o) {
  kc_view_list impls;
  verify_run r;
  if (verify_start("sm4", kc_views_sm4, find_impl,
                   sm4_impl_serial() ? sm4_impl_serial() : sm4_impl_best(), o, RANDOM_CASES_FULL, RANDOM_CASES_QUICK,
                   &impls, &r) != 0 ||
      load_vectors(o->argv0) != 0)
    return 2;

  /* Does this OpenSSL have SM4?  (Distributions may build it without.) */
  uint8_t k[16] = {0}, b[16] = {0}, out[16];
  have_openssl_sm4 = openssl_sm4(KC_MODE_ECB, 1, k, NULL, b, out, 16) == 0;
  SM4.oracle = have_openssl_sm4 ? sm4_vb_oracle : NULL;
#ifdef KC_NO_PEERS
  printf("NOTE: built without peers (PEERS=0); SM4 differential cases compare with the "
         "reference only\n");
#else
  if (!have_openssl_sm4)
    printf("NOTE: this OpenSSL has no SM4; differential cases compare with the reference only\n");
#endif

  check_key_schedule();
  check_api(&impls, r.ref);
  verify_each_impl(&impls, o, "", check_impl, &r);
  free_vectors();
  return 0;
}
