/*
 * verify's SM4 tests: known answers and differential tests of every SM4
 * implementation (see verify.c for the command line and the output).
 *
 * For every registered implementation (native kernels this CPU runs, and the
 * SIMDe-emulated builds that sm4_register_emulated() adds):
 *
 *  1. Official vectors from shared/vectors/sm4.json (ECB including the
 *     1,000,000-fold iteration, CBC, CTR), encrypting and decrypting, in place.
 *     Where to find that file is described in vectors.h ($KC_VECTORS_DIR, or
 *     <repo>/../shared/vectors found upwards from the executable or the
 *     current directory).
 *  2. Differential cases against the `reference` implementation and against
 *     OpenSSL's EVP SM4 (padding off): every length 0..256 (whole blocks for
 *     ECB/CBC), random lengths up to 4096, random misalignments 0..15 of input
 *     and output, in-place operation, random keys and IVs including IVs just
 *     below a carry out of the low 8/32/64/96/128 counter bits.  Each case
 *     also checks the guard bytes around the output (no write past either
 *     end) and that a separate input buffer is left unchanged; ECB cases also
 *     call the kernel's crypt_blocks entry point directly.
 *
 * Two shared sections run once: "key schedule" (round keys of the vectors
 * that list them; decryption keys are the encryption keys reversed) and
 * "api" (the oracle itself on the vectors, the convenience wrappers, lookup
 * functions, and the length errors of every implementation).
 *
 * Random differential cases: 3000, or 200 with --quick (every vector and
 * every systematic case still runs).
 */
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "sm4.h"
#include "vectors.h"
#include "verify.h"

#define RANDOM_CASES_FULL 3000
#define RANDOM_CASES_QUICK 200
#define MAX_LEN 4096       /* longest differential input */
#define SYSTEMATIC_LEN 256 /* every length up to this one is tested */

static const char *mode_name(sm4_mode m) {
  return m == SM4_MODE_ECB ? "ecb" : m == SM4_MODE_CBC ? "cbc" : "ctr";
}
static const char *dir_name(sm4_direction d) { return d == SM4_ENCRYPT ? "encrypt" : "decrypt"; }

/* ------------------------------------------------------------------ */
/* Vectors                                                              */
/* ------------------------------------------------------------------ */

typedef struct sm4_vector {
  char label[128]; /* "ecb vector #2 (source)", for messages */
  sm4_mode mode;
  uint8_t key[SM4_KEY_BYTES];
  uint8_t iv[SM4_BLOCK_BYTES];
  uint8_t *pt, *ct;
  size_t len;
  long iterations;    /* ECB: encrypt this many times (1 if not given) */
  int has_round_keys; /* round_keys_first_last given */
  uint32_t rk_first, rk_last;
} sm4_vector;

static sm4_vector *vectors;
static size_t n_vectors;

/* Reads one vector object; returns 0 or -1 with a message. */
static int load_vector(const kc_json *o, sm4_mode mode, size_t index, sm4_vector *v, char *err,
                       size_t err_size) {
  memset(v, 0, sizeof *v);
  v->mode = mode;
  v->iterations = 1;
  snprintf(v->label, sizeof v->label, "%s vector #%zu", mode_name(mode), index + 1);
  char inner[256];
  uint8_t *key = NULL, *iv = NULL;
  size_t key_len, iv_len, ct_len;
  if (kc_json_get_hex(o, "key", &key, &key_len, inner, sizeof inner) != 0 ||
      kc_json_get_hex(o, "plaintext", &v->pt, &v->len, inner, sizeof inner) != 0 ||
      kc_json_get_hex(o, "ciphertext", &v->ct, &ct_len, inner, sizeof inner) != 0)
    goto bad;
  if (key_len != SM4_KEY_BYTES) {
    snprintf(inner, sizeof inner, "key is %zu bytes, expected %d", key_len, SM4_KEY_BYTES);
    goto bad;
  }
  memcpy(v->key, key, SM4_KEY_BYTES);
  if (ct_len != v->len) {
    snprintf(inner, sizeof inner, "plaintext and ciphertext lengths differ");
    goto bad;
  }
  if (mode != SM4_MODE_CTR && v->len % SM4_BLOCK_BYTES) {
    snprintf(inner, sizeof inner, "length %zu is not whole blocks", v->len);
    goto bad;
  }
  if (mode != SM4_MODE_ECB) {
    if (kc_json_get_hex(o, "iv", &iv, &iv_len, inner, sizeof inner) != 0) goto bad;
    if (iv_len != SM4_BLOCK_BYTES) {
      snprintf(inner, sizeof inner, "iv is %zu bytes, expected %d", iv_len, SM4_BLOCK_BYTES);
      goto bad;
    }
    memcpy(v->iv, iv, SM4_BLOCK_BYTES);
  }
  const kc_json *it = kc_json_get(o, "iterations");
  if (it) {
    if (it->type != KC_JSON_INT || it->integer < 1) {
      snprintf(inner, sizeof inner, "'iterations' must be a positive integer");
      goto bad;
    }
    v->iterations = (long)it->integer;
  }
  const kc_json *rk = kc_json_get(o, "round_keys_first_last");
  if (rk) {
    uint8_t w[2][4];
    if (rk->type != KC_JSON_ARRAY || rk->count != 2 || rk->items[0].type != KC_JSON_STRING ||
        rk->items[1].type != KC_JSON_STRING ||
        kc_hex_decode_exact(rk->items[0].string, w[0], 4, "round key", inner, sizeof inner) ||
        kc_hex_decode_exact(rk->items[1].string, w[1], 4, "round key", inner, sizeof inner)) {
      snprintf(inner, sizeof inner, "'round_keys_first_last' must be two 8-digit hex strings");
      goto bad;
    }
    v->has_round_keys = 1;
    v->rk_first = (uint32_t)w[0][0] << 24 | w[0][1] << 16 | w[0][2] << 8 | w[0][3];
    v->rk_last = (uint32_t)w[1][0] << 24 | w[1][1] << 16 | w[1][2] << 8 | w[1][3];
  }
  const char *source = kc_json_get_string(o, "source");
  if (source)
    snprintf(v->label, sizeof v->label, "%s vector #%zu (%.60s)", mode_name(mode), index + 1,
             source);
  free(key);
  free(iv);
  return 0;
bad:
  snprintf(err, err_size, "%s vector #%zu: %s", mode_name(mode), index + 1, inner);
  free(key);
  free(iv);
  return -1;
}

/* Loads every vector of sm4.json into `vectors`.  Returns 0 or -1. */
static int load_vectors(const char *argv0) {
  char dir[4096], err[512], path[4200];
  if (kc_vectors_dir(argv0, "sm4.json", dir, sizeof dir, err, sizeof err) != 0) {
    fprintf(stderr, "verify: error: %s\n", err);
    return -1;
  }
  snprintf(path, sizeof path, "%s/sm4.json", dir);
  kc_json *root = kc_json_load(path, err, sizeof err);
  if (!root) {
    fprintf(stderr, "verify: error: %s\n", err);
    return -1;
  }
  static const struct {
    const char *key;
    sm4_mode mode;
  } groups[] = {{"ecb", SM4_MODE_ECB}, {"cbc", SM4_MODE_CBC}, {"ctr", SM4_MODE_CTR}};
  size_t total = 0;
  for (size_t g = 0; g < 3; g++) {
    const kc_json *arr = kc_json_get(root, groups[g].key);
    if (arr && arr->type == KC_JSON_ARRAY) total += arr->count;
  }
  vectors = calloc(total ? total : 1, sizeof *vectors);
  for (size_t g = 0; g < 3; g++) {
    const kc_json *arr = kc_json_get(root, groups[g].key);
    if (!arr) continue;
    if (arr->type != KC_JSON_ARRAY) {
      fprintf(stderr, "verify: error: %s: '%s' is not an array\n", path, groups[g].key);
      kc_json_free(root);
      return -1;
    }
    for (size_t i = 0; i < arr->count; i++) {
      if (load_vector(&arr->items[i], groups[g].mode, i, &vectors[n_vectors], err, sizeof err)) {
        fprintf(stderr, "verify: error: %s: %s\n", path, err);
        kc_json_free(root);
        return -1;
      }
      n_vectors++;
    }
  }
  kc_json_free(root);
  if (n_vectors == 0) {
    fprintf(stderr, "verify: error: %s holds no vectors\n", path);
    return -1;
  }
  fprintf(stderr, "verify: %zu vectors from %s\n", n_vectors, path);
  return 0;
}

/* Runs vector v on impl in both directions, in place; the ECB iteration
 * count applies to both (decrypting N times undoes encrypting N times). */
static void check_vector(const sm4_impl *impl, const sm4_vector *v, verify_section *s) {
  sm4_key key;
  sm4_set_key(&key, v->key);
  uint8_t *buf = malloc(v->len + 1);
  for (int enc = 1; enc >= 0; enc--) {
    sm4_direction dir = enc ? SM4_ENCRYPT : SM4_DECRYPT;
    const uint8_t *from = enc ? v->pt : v->ct, *to = enc ? v->ct : v->pt;
    memcpy(buf, from, v->len);
    int rc = SM4_OK;
    for (long i = 0; i < v->iterations && rc == SM4_OK; i++)
      rc = sm4_crypt(impl, v->mode, dir, &key, v->iv, buf, buf, v->len);
    long at = verify_first_diff(buf, to, v->len);
    if (rc != SM4_OK)
      verify_failure(s, "%s %s: sm4_crypt returned %d", v->label, dir_name(dir), rc);
    else if (at >= 0)
      verify_failure(s, "%s %s: wrong output from byte %ld (got %02x, want %02x)", v->label,
                     dir_name(dir), at, buf[at], to[at]);
    else
      s->vectors++;
  }
  free(buf);
}

/* ------------------------------------------------------------------ */
/* OpenSSL oracle                                                       */
/* ------------------------------------------------------------------ */

static int have_openssl_sm4; /* set in main: 0 if this OpenSSL was built without SM4 */

/* Runs OpenSSL's SM4 in `mode`, padding off.  Returns 0 or -1. */
static int openssl_sm4(sm4_mode mode, sm4_direction dir, const uint8_t *key, const uint8_t *iv,
                       const uint8_t *in, uint8_t *out, size_t len) {
  const EVP_CIPHER *cipher = mode == SM4_MODE_ECB   ? EVP_sm4_ecb()
                             : mode == SM4_MODE_CBC ? EVP_sm4_cbc()
                                                    : EVP_sm4_ctr();
  EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
  int ok = 0, n1 = 0, n2 = 0;
  if (ctx && cipher &&
      EVP_CipherInit_ex(ctx, cipher, NULL, key, mode == SM4_MODE_ECB ? NULL : iv,
                        dir == SM4_ENCRYPT) == 1 &&
      EVP_CIPHER_CTX_set_padding(ctx, 0) == 1 &&
      EVP_CipherUpdate(ctx, out, &n1, in, (int)len) == 1 &&
      EVP_CipherFinal_ex(ctx, out + n1, &n2) == 1 && (size_t)(n1 + n2) == len)
    ok = 1;
  EVP_CIPHER_CTX_free(ctx);
  return ok ? 0 : -1;
}

/* ------------------------------------------------------------------ */
/* Differential cases                                                   */
/* ------------------------------------------------------------------ */

typedef struct diff_case {
  sm4_mode mode;
  sm4_direction dir;
  size_t len;
  size_t in_off, out_off; /* misalignment of input and output, 0..15 */
  int in_place;           /* output written over the input */
  uint8_t key[SM4_KEY_BYTES];
  uint8_t iv[SM4_BLOCK_BYTES];
  uint8_t data[MAX_LEN];
} diff_case;

/* IV patterns whose low bits are all ones, so the counter carries out of the
 * low 8, 32, 64, 96 or all 128 bits within a few blocks. */
static const int carry_widths[] = {8, 32, 64, 96, 128};
#define N_CARRY_WIDTHS 5
static const int carry_backoffs[] = {0, 1, 7, 31, 63};
#define N_CARRY_BACKOFFS 5
#define WRAP_LEN (64 * SM4_BLOCK_BYTES + 7) /* long enough to cross every carry above */

/* Sets the low `bits` of the 128-bit big-endian counter to all ones, then
 * subtracts `backoff` (< 256) so the carry happens `backoff` blocks in. */
static void carry_iv(uint8_t iv[SM4_BLOCK_BYTES], int bits, int backoff) {
  for (int i = 0; i < bits / 8; i++) iv[SM4_BLOCK_BYTES - 1 - i] = 0xff;
  iv[SM4_BLOCK_BYTES - 1] = (uint8_t)(0xff - backoff);
}

/* Number of systematic cases: ECB and CBC at every whole-block length up to
 * SYSTEMATIC_LEN, CTR at every length up to it, CTR across counter carries;
 * each in both directions. */
#define N_BLOCK_LENS (SYSTEMATIC_LEN / SM4_BLOCK_BYTES + 1)
#define N_SYSTEMATIC \
  (2 * (2 * N_BLOCK_LENS + (SYSTEMATIC_LEN + 1) + N_CARRY_WIDTHS * N_CARRY_BACKOFFS))

/* Builds case number `index` of the sequence for `seed`; the same index and
 * seed always give the same case, whichever implementation runs it. */
static void make_case(uint64_t seed, size_t index, diff_case *c) {
  kc_rng r;
  kc_rng_seed(&r, seed * 0x9E3779B97F4A7C15ull + index);
  kc_rng_bytes(&r, c->key, sizeof c->key);
  kc_rng_bytes(&r, c->iv, sizeof c->iv);
  c->in_off = (size_t)kc_rng_below(&r, 16);
  c->out_off = (size_t)kc_rng_below(&r, 16);
  c->in_place = kc_rng_below(&r, 4) == 0;
  c->dir = index % 2 ? SM4_DECRYPT : SM4_ENCRYPT;

  size_t k = index / 2; /* both directions of each shape are adjacent */
  int random_iv_edge = 1;
  if (k < N_BLOCK_LENS) {
    c->mode = SM4_MODE_ECB;
    c->len = k * SM4_BLOCK_BYTES;
  } else if ((k -= N_BLOCK_LENS) < N_BLOCK_LENS) {
    c->mode = SM4_MODE_CBC;
    c->len = k * SM4_BLOCK_BYTES;
  } else if ((k -= N_BLOCK_LENS) < SYSTEMATIC_LEN + 1) {
    c->mode = SM4_MODE_CTR;
    c->len = k;
  } else if ((k -= SYSTEMATIC_LEN + 1) < N_CARRY_WIDTHS * N_CARRY_BACKOFFS) {
    c->mode = SM4_MODE_CTR;
    c->len = WRAP_LEN;
    carry_iv(c->iv, carry_widths[k / N_CARRY_BACKOFFS], carry_backoffs[k % N_CARRY_BACKOFFS]);
    random_iv_edge = 0;
  } else {
    /* Random: any mode, a length above the systematic range. */
    c->mode = (sm4_mode)kc_rng_below(&r, 3);
    c->len = SYSTEMATIC_LEN + 1 + (size_t)kc_rng_below(&r, MAX_LEN - SYSTEMATIC_LEN);
    if (c->mode != SM4_MODE_CTR) c->len -= c->len % SM4_BLOCK_BYTES;
  }
  /* A third of the other cases get an IV just below a carry. */
  if (random_iv_edge && kc_rng_below(&r, 3) == 0)
    carry_iv(c->iv, carry_widths[kc_rng_below(&r, N_CARRY_WIDTHS)], (int)kc_rng_below(&r, 64));
  kc_rng_bytes(&r, c->data, c->len);
}

/* Describes a case for failure messages. */
static void case_text(const diff_case *c, size_t index, char *buf, size_t size) {
  char key[33], iv[33];
  kc_hex_encode(c->key, 16, key);
  kc_hex_encode(c->iv, 16, iv);
  snprintf(buf, size, "case %zu: %s %s len=%zu in_off=%zu out_off=%zu%s key=%s iv=%s", index,
           mode_name(c->mode), dir_name(c->dir), c->len, c->in_off, c->out_off,
           c->in_place ? " in-place" : "", key, iv);
}

/* Runs one case on impl; returns the number of failed checks (0 = pass). */
static int run_case(const sm4_impl *impl, const sm4_impl *ref, const diff_case *c, size_t index,
                    verify_section *s) {
  static uint8_t want_ossl[MAX_LEN], want_ref[MAX_LEN];
  char what[300];
  int failed = 0;
  sm4_key key;
  sm4_set_key(&key, c->key);

  /* The two oracles. */
  int have_ossl = have_openssl_sm4 &&
                  openssl_sm4(c->mode, c->dir, c->key, c->iv, c->data, want_ossl, c->len) == 0;
  if (have_openssl_sm4 && !have_ossl) {
    case_text(c, index, what, sizeof what);
    verify_failure(s, "%s: OpenSSL failed", what);
    failed++;
  }
  int rc_ref = sm4_crypt(ref, c->mode, c->dir, &key, c->iv, c->data, want_ref, c->len);

  /* The implementation under test, on misaligned guarded buffers. */
  kc_buf in, out;
  if (kc_buf_alloc(&in, c->len, c->in_off) != 0 ||
      (!c->in_place && kc_buf_alloc(&out, c->len, c->out_off) != 0)) {
    fprintf(stderr, "verify: out of memory\n");
    exit(2);
  }
  memcpy(in.ptr, c->data, c->len);
  kc_buf *dst = c->in_place ? &in : &out;
  if (!c->in_place) memset(out.ptr, 0xCC, c->len);
  int rc = sm4_crypt(impl, c->mode, c->dir, &key, c->iv, in.ptr, dst->ptr, c->len);

  case_text(c, index, what, sizeof what);
  long at;
  if (rc != SM4_OK) {
    verify_failure(s, "%s: sm4_crypt returned %d", what, rc);
    failed++;
  } else {
    if (have_ossl && (at = verify_first_diff(dst->ptr, want_ossl, c->len)) >= 0) {
      verify_failure(s, "%s: differs from OpenSSL at byte %ld (got %02x, want %02x)", what, at,
                     dst->ptr[at], want_ossl[at]);
      failed++;
    }
    if (rc_ref != SM4_OK) {
      verify_failure(s, "%s: reference sm4_crypt returned %d", what, rc_ref);
      failed++;
    } else if ((at = verify_first_diff(dst->ptr, want_ref, c->len)) >= 0) {
      verify_failure(s, "%s: differs from reference at byte %ld (got %02x, want %02x)", what, at,
                     dst->ptr[at], want_ref[at]);
      failed++;
    }
  }
  if (!kc_buf_guards_ok(dst)) {
    verify_failure(s, "%s: wrote outside the output buffer", what);
    failed++;
  }
  if (!c->in_place) {
    if (!kc_buf_guards_ok(&in)) {
      verify_failure(s, "%s: wrote around the input buffer", what);
      failed++;
    }
    if (verify_first_diff(in.ptr, c->data, c->len) >= 0) {
      verify_failure(s, "%s: modified its input", what);
      failed++;
    }
  }

  /* ECB: the kernel entry point itself, on the same buffers. */
  if (c->mode == SM4_MODE_ECB && rc_ref == SM4_OK) {
    memcpy(in.ptr, c->data, c->len);
    if (!c->in_place) memset(out.ptr, 0xCC, c->len);
    impl->crypt_blocks(&key, c->dir, in.ptr, dst->ptr, c->len / SM4_BLOCK_BYTES);
    if ((at = verify_first_diff(dst->ptr, want_ref, c->len)) >= 0) {
      verify_failure(s, "%s: crypt_blocks differs from reference at byte %ld", what, at);
      failed++;
    }
    if (!kc_buf_guards_ok(dst)) {
      verify_failure(s, "%s: crypt_blocks wrote outside the output buffer", what);
      failed++;
    }
  }

  kc_buf_free(&in);
  if (!c->in_place) kc_buf_free(&out);
  return failed;
}

/* ------------------------------------------------------------------ */
/* Sections                                                             */
/* ------------------------------------------------------------------ */

/* Round keys of the vectors that list them; decryption keys reversed. */
static void check_key_schedule(void) {
  verify_section s = {0};
  for (size_t i = 0; i < n_vectors; i++) {
    const sm4_vector *v = &vectors[i];
    sm4_key key;
    sm4_set_key(&key, v->key);
    const uint32_t *enc = key.rk[SM4_ENCRYPT], *dec = key.rk[SM4_DECRYPT];
    if (v->has_round_keys) {
      if (enc[0] != v->rk_first)
        verify_failure(&s, "%s: rk[SM4_ENCRYPT][0] = %08x, want %08x", v->label, enc[0],
                       v->rk_first);
      else
        s.checks++;
      if (enc[SM4_ROUNDS - 1] != v->rk_last)
        verify_failure(&s, "%s: rk[SM4_ENCRYPT][31] = %08x, want %08x", v->label,
                       enc[SM4_ROUNDS - 1], v->rk_last);
      else
        s.checks++;
    }
    int reversed = 1;
    for (int r = 0; r < SM4_ROUNDS; r++)
      if (dec[r] != enc[SM4_ROUNDS - 1 - r]) reversed = 0;
    if (!reversed)
      verify_failure(&s, "%s: decryption round keys are not the encryption ones reversed",
                     v->label);
    else
      s.checks++;
  }
  verify_report("key schedule", &s, 0);
}

/* The oracle on the vectors, the wrappers, the lookups, the length errors. */
static void check_api(const sm4_impl *const *impls, size_t n_impls, const sm4_impl *ref) {
  verify_section s = {0};
  uint8_t out[4096];

  /* OpenSSL reproduces the official vectors (one iteration of each). */
  if (have_openssl_sm4) {
    for (size_t i = 0; i < n_vectors; i++) {
      const sm4_vector *v = &vectors[i];
      if (v->iterations != 1 || v->len > sizeof out) continue;
      if (openssl_sm4(v->mode, SM4_ENCRYPT, v->key, v->iv, v->pt, out, v->len) != 0 ||
          verify_first_diff(out, v->ct, v->len) >= 0)
        verify_failure(&s, "OpenSSL disagrees with %s", v->label);
      else
        s.checks++;
    }
  }

  /* Lookups. */
  const sm4_impl *best = sm4_impl_best();
  if (!best || kc_impl_avail(best->emulated, best->cpu_supported) != KC_NATIVE)
    verify_failure(&s, "sm4_impl_best() returned %s", best ? best->name : "NULL");
  else
    s.checks++;
  if (sm4_impl_find("reference", "scalar", 0) != ref || sm4_impl_find(NULL, "no_such_target", 0))
    verify_failure(&s,
                   "sm4_impl_find gives wrong answers for reference_scalar / an unknown target");
  else
    s.checks++;
  for (size_t i = 0; i < n_impls; i++) {
    const sm4_impl *m = impls[i];
    char name[128];
    snprintf(name, sizeof name, "%s_%s", m->strategy, m->target);
    if (strcmp(name, m->name) != 0)
      verify_failure(&s, "impl '%s' has strategy '%s' and target '%s'", m->name, m->strategy,
                     m->target);
    else
      s.checks++;
    if (!m->emulated) {
      if (sm4_impl_find(m->strategy, m->target, 0) != m)
        verify_failure(&s, "sm4_impl_find(\"%s\", \"%s\", 0) does not return %s", m->strategy,
                       m->target, m->name);
      else
        s.checks++;
    }
  }

  /* Convenience wrappers against the reference, 1000 bytes (CTR: 999). */
  kc_rng r;
  kc_rng_seed(&r, 42);
  uint8_t kb[16], iv[16], in[1000], want[1000];
  kc_rng_bytes(&r, kb, 16);
  kc_rng_bytes(&r, iv, 16);
  kc_rng_bytes(&r, in, sizeof in);
  sm4_key key;
  sm4_set_key(&key, kb);
  struct {
    const char *name;
    sm4_mode mode;
    sm4_direction dir;
    size_t len;
  } wrappers[] = {
      {"sm4_ecb_encrypt", SM4_MODE_ECB, SM4_ENCRYPT, 992},
      {"sm4_ecb_decrypt", SM4_MODE_ECB, SM4_DECRYPT, 992},
      {"sm4_cbc_encrypt", SM4_MODE_CBC, SM4_ENCRYPT, 992},
      {"sm4_cbc_decrypt", SM4_MODE_CBC, SM4_DECRYPT, 992},
      {"sm4_ctr_crypt", SM4_MODE_CTR, SM4_ENCRYPT, 999},
  };
  for (size_t w = 0; w < sizeof wrappers / sizeof wrappers[0]; w++) {
    size_t len = wrappers[w].len;
    int rc;
    sm4_crypt(ref, wrappers[w].mode, wrappers[w].dir, &key, iv, in, want, len);
    switch (w) {
      case 0:
        rc = sm4_ecb_encrypt(&key, in, out, len);
        break;
      case 1:
        rc = sm4_ecb_decrypt(&key, in, out, len);
        break;
      case 2:
        rc = sm4_cbc_encrypt(&key, iv, in, out, len);
        break;
      case 3:
        rc = sm4_cbc_decrypt(&key, iv, in, out, len);
        break;
      default:
        rc = sm4_ctr_crypt(&key, iv, in, out, len);
        break;
    }
    if (rc != SM4_OK || verify_first_diff(out, want, len) >= 0)
      verify_failure(&s, "%s differs from the reference (rc %d)", wrappers[w].name, rc);
    else
      s.checks++;
  }
  /* impl NULL means the best implementation. */
  if (sm4_crypt(NULL, SM4_MODE_CTR, SM4_ENCRYPT, &key, iv, in, out, 999) != SM4_OK ||
      verify_first_diff(out, want, 999) >= 0)
    verify_failure(&s, "sm4_crypt(NULL, ...) differs from the reference");
  else
    s.checks++;

  /* Every runnable implementation refuses partial blocks in ECB and CBC. */
  static const size_t bad_lens[] = {1, 15, 17, 31, 33, 999};
  for (size_t i = 0; i < n_impls; i++) {
    const sm4_impl *m = impls[i];
    if (kc_impl_avail(m->emulated, m->cpu_supported) == KC_UNAVAILABLE) continue;
    for (size_t j = 0; j < sizeof bad_lens / sizeof bad_lens[0]; j++) {
      for (int mode = SM4_MODE_ECB; mode <= SM4_MODE_CBC; mode++) {
        int rc = sm4_crypt(m, (sm4_mode)mode, SM4_ENCRYPT, &key, iv, in, out, bad_lens[j]);
        if (rc != SM4_ERR_LENGTH)
          verify_failure(&s, "%s%s %s on %zu bytes returned %d, want SM4_ERR_LENGTH", m->name,
                         m->emulated ? " (emulated)" : "", mode_name((sm4_mode)mode), bad_lens[j],
                         rc);
        else
          s.checks++;
      }
    }
  }
  verify_report("api", &s, 0);
}

/* Vectors and differential cases for one implementation. */
static void check_impl(const sm4_impl *impl, const sm4_impl *ref, size_t n_cases, uint64_t seed,
                       size_t position, size_t n_tested) {
  verify_section s = {0};
  kc_avail avail = kc_impl_avail(impl->emulated, impl->cpu_supported);
  char label[160];
  snprintf(label, sizeof label, "%s (%s)", impl->name, kc_avail_name(avail));
  int tty = isatty(STDERR_FILENO);
  double t0 = verify_now();

  fprintf(stderr, "verify: [%zu/%zu] %s: vectors\n", position, n_tested, label);
  for (size_t i = 0; i < n_vectors; i++) check_vector(impl, &vectors[i], &s);

  fprintf(stderr, "verify: [%zu/%zu] %s: %zu differential cases\n", position, n_tested, label,
          n_cases);
  diff_case *c = malloc(sizeof *c);
  for (size_t i = 0; i < n_cases; i++) {
    make_case(seed, i, c);
    if (run_case(impl, ref, c, i, &s) == 0) s.cases++;
    if (tty && (i % 256 == 0 || i + 1 == n_cases)) fprintf(stderr, "\r  %zu/%zu", i + 1, n_cases);
  }
  free(c);
  if (tty) fprintf(stderr, "\n");
  fprintf(stderr, "verify: [%zu/%zu] %s: done in %.1f s\n", position, n_tested, label,
          verify_now() - t0);
  verify_report(label, &s, 1);
}

/* ------------------------------------------------------------------ */
/* Entry points                                                         */
/* ------------------------------------------------------------------ */

int verify_sm4_has_impl(const char *name) {
  sm4_register_emulated();
  size_t n;
  const sm4_impl *const *impls = sm4_impls(&n);
  for (size_t i = 0; i < n; i++)
    if (strcmp(impls[i]->name, name) == 0) return 1;
  return 0;
}

void verify_sm4_list_impls(void) {
  size_t n;
  const sm4_impl *const *impls = sm4_impls(&n);
  for (size_t i = 0; i < n; i++)
    fprintf(stderr, " %s%s", impls[i]->name, impls[i]->emulated ? "(emulated)" : "");
}

int verify_sm4(const verify_options *o) {
  sm4_register_emulated();
  size_t n_impls;
  const sm4_impl *const *impls = sm4_impls(&n_impls);
  const sm4_impl *ref = sm4_impl_find("reference", "scalar", 0);
  if (!ref) {
    fprintf(stderr, "verify: error: no reference_scalar implementation\n");
    return 2;
  }
  if (load_vectors(o->argv0) != 0) return 2;

  /* Does this OpenSSL have SM4?  (Distributions may build it without.) */
  {
    uint8_t k[16] = {0}, b[16] = {0}, out[16];
    have_openssl_sm4 = openssl_sm4(SM4_MODE_ECB, SM4_ENCRYPT, k, NULL, b, out, 16) == 0;
    if (!have_openssl_sm4)
      printf("NOTE: this OpenSSL has no SM4; differential cases compare with the reference only\n");
  }

  size_t n_cases =
      N_SYSTEMATIC + (size_t)verify_random_cases(o, RANDOM_CASES_FULL, RANDOM_CASES_QUICK);
  check_key_schedule();
  check_api(impls, n_impls, ref);

  /* Which implementations run, in registration order. */
  size_t n_tested = 0;
  for (size_t i = 0; i < n_impls; i++)
    if ((!o->only || strcmp(impls[i]->name, o->only) == 0) &&
        kc_impl_avail(impls[i]->emulated, impls[i]->cpu_supported) != KC_UNAVAILABLE)
      n_tested++;
  size_t position = 0;
  for (size_t i = 0; i < n_impls; i++) {
    const sm4_impl *m = impls[i];
    if (o->only && strcmp(m->name, o->only) != 0) continue;
    if (kc_impl_avail(m->emulated, m->cpu_supported) == KC_UNAVAILABLE) {
      verify_skip(m->name, m->emulated
                               ? "this CPU lacks the host ISA its SIMDe build is compiled for"
                               : "this CPU cannot run it natively");
      continue;
    }
    check_impl(m, ref, n_cases, o->seed, ++position, n_tested);
  }

  for (size_t i = 0; i < n_vectors; i++) {
    free(vectors[i].pt);
    free(vectors[i].ct);
  }
  free(vectors);
  vectors = NULL;
  n_vectors = 0;
  return 0;
}
