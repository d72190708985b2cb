/*
 * verify's uBlock tests: uBlock-128/128, 128/256 and 256/256 on every
 * registered implementation (native kernels this CPU runs, and the
 * SIMDe-emulated builds that ublock_register_emulated() adds), against the
 * scalar reference (`reference_scalar`, table lookups, not constant-time:
 * the oracle).  See verify.c for the command line and the output.
 *
 * Shared section "ublock api", run once:
 *   - variant names and sizes, unknown variants refused;
 *   - lookups (ublock_impl_best, ublock_impl_find, names);
 *   - the convenience wrappers and impl NULL against the reference, per
 *     variant;
 *   - ublock_set_keys (n = 1..9 keys, two per register) against
 *     ublock_set_key: the same round keys, and the same ECB results on every
 *     runnable implementation;
 *   - error codes: ECB/CBC on partial blocks (every runnable implementation,
 *     every variant), unknown variants, multi-key calls mixing variants or
 *     naming an implementation with no multi-key entry.
 *
 * Per implementation and variant:
 *   1. every vector of tests/vectors/ublock.json of that variant, in both
 *      directions, in place, the iterations included (ECB: the output
 *      encrypted again with the same key, `iterations` times in all, so the
 *      1,000,000-fold ones run on every kernel, emulated ones included, but
 *      see --iterated in verify.c); a
 *      NOTE line names the serial kernel (ublock_impl_serial) and the time
 *      its vectors took;
 *   2. the block-cipher differential cases of verify_block.h against the
 *      reference: ECB and CBC at every whole number of blocks up to twice the
 *      largest batch of any kernel plus one, CTR at every length 0..256 and
 *      across counter carries up to the wrap-around of the block's full
 *      width, then random modes and lengths; misaligned and in-place
 *      buffers, guard bytes, the kernel's crypt_blocks entry;
 *   3. multi-key (where the kernel has a multi-key entry): ublock_crypt_multi
 *      with n = 1..9 streams, each with its own random key, IV, misaligned
 *      buffers (some in place), for ECB and CBC in both directions and CTR,
 *      against ublock_crypt of the reference stream by stream.
 *
 * Random differential cases per implementation and variant: 1000, or 100
 * with --quick (every vector and every systematic case still runs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "ublock.h"
#include "vectors.h"
#include "verify.h"
#include "verify_block.h"

#define RANDOM_CASES_FULL 1000
#define RANDOM_CASES_QUICK 100
#define MIN_MAX_LEN 4096   /* random cases: at least this long */
#define MAX_STREAMS 9      /* multi-key: n = 1..MAX_STREAMS streams */
#define MULTI_EXTRA 3      /* multi-key: up to 2 batches + this many blocks */

static ublock_direction dir_of(int encrypt) { return encrypt ? UBLOCK_ENCRYPT : UBLOCK_DECRYPT; }

/* ------------------------------------------------------------------ */
/* uBlock as the block-cipher tests see it                              */
/* ------------------------------------------------------------------ */

static int ub_set_key(const vb_cipher *c, void *ks, const uint8_t *key) {
  return ublock_set_key(ks, (ublock_variant)c->variant, key);
}

static int ub_crypt(const vb_cipher *c, const void *impl, kc_block_mode mode, int encrypt,
                    const void *ks, const uint8_t *iv, const uint8_t *in, uint8_t *out, size_t len) {
  (void)c;
  return ublock_crypt(impl, (ublock_mode)mode, dir_of(encrypt), ks, iv, in, out, len);
}

static void ub_crypt_blocks(const vb_cipher *c, const void *impl, int encrypt, const void *ks,
                            const uint8_t *in, uint8_t *out, size_t nblocks) {
  (void)c;
  ((const ublock_impl *)impl)->crypt_blocks(ks, dir_of(encrypt), in, out, nblocks);
}

/* The largest batch of any implementation for variant v. */
static size_t largest_batch(const kc_view_list *impls, ublock_variant v) {
  size_t most = 1;
  for (size_t i = 0; i < impls->n; i++) {
    const ublock_impl *m = impls->v[i].impl;
    if (m->batch_blocks[v] > most) most = m->batch_blocks[v];
  }
  return most;
}

/* The three variants, sized so that the systematic cases cross two whole
 * batches of every kernel. */
static vb_cipher VARIANTS[UBLOCK_VARIANT_COUNT];

static void describe_variants(const kc_view_list *impls) {
  for (int v = 0; v < UBLOCK_VARIANT_COUNT; v++) {
    vb_cipher *c = &VARIANTS[v];
    size_t bb = ublock_block_bytes((ublock_variant)v), batch = largest_batch(impls, v);
    size_t blocks = 2 * batch + 1;
    if (blocks < VB_SYSTEMATIC_LEN / bb) blocks = VB_SYSTEMATIC_LEN / bb;
    size_t max_len = (blocks + 1) * bb > MIN_MAX_LEN ? (blocks + 1) * bb : MIN_MAX_LEN;
    *c = (vb_cipher){.name = ublock_variant_name((ublock_variant)v),
                     .variant = v,
                     .block_bytes = bb,
                     .key_bytes = ublock_key_bytes((ublock_variant)v),
                     .systematic_blocks = blocks,
                     .max_len = max_len,
                     .key_size = sizeof(ublock_key),
                     .set_key = ub_set_key,
                     .crypt = ub_crypt,
                     .crypt_blocks = ub_crypt_blocks};
  }
}

/* ------------------------------------------------------------------ */
/* Vectors                                                              */
/* ------------------------------------------------------------------ */

static vb_vectors vectors;

/* "128/256" -> UBLOCK_128_256.  Returns 0 or -1. */
static int variant_of(const char *text, ublock_variant *v) {
  char name[32];
  snprintf(name, sizeof name, "ublock%s", text);
  char *slash = strchr(name, '/');
  if (!slash) return -1;
  *slash = '_';
  return ublock_variant_from_name(name, v) == UBLOCK_OK ? 0 : -1;
}

/* Reads vector number `index`; returns 0 or -1 with a message. */
static int load_vector(const kc_json *o, size_t index, vb_vector *v, char *err, size_t err_size) {
  const char *variant = kc_json_get_string(o, "variant");
  ublock_variant uv;
  if (!variant || variant_of(variant, &uv) != 0) {
    snprintf(err, err_size, "vector #%zu: 'variant' must be 128/128, 128/256 or 256/256",
             index + 1);
    return -1;
  }
  kc_block_mode mode = KC_MODE_ECB;
  const char *mode_text = kc_json_get_string(o, "mode");
  if (mode_text && kc_block_mode_parse(mode_text, &mode) != 0) {
    snprintf(err, err_size, "vector #%zu: unknown mode '%s'", index + 1, mode_text);
    return -1;
  }
  const kc_json *it = kc_json_get(o, "iterations");
  const char *source = kc_json_get_string(o, "source");
  char label[160];
  snprintf(label, sizeof label, "%s %s vector #%zu%s%.60s%s, %lld iteration(s)",
           ublock_variant_name(uv), kc_block_mode_name(mode), index + 1,
           source ? " (" : "", source ? source : "", source ? ")" : "",
           it && it->type == KC_JSON_INT ? (long long)it->integer : 1LL);
  if (vb_load_vector(&VARIANTS[uv], o, mode, label, v, err, err_size) != 0) return -1;
  v->variant = uv;
  return 0;
}

/* Loads every vector of ublock.json.  Returns 0 or -1. */
static int load_vectors(const char *argv0) {
  char path[4200], err[512];
  kc_json *root = verify_load_vectors(argv0, "ublock.json", path, sizeof path);
  if (!root) return -1;
  const kc_json *arr = kc_json_get(root, "vectors");
  if (!arr || arr->type != KC_JSON_ARRAY || arr->count == 0) {
    fprintf(stderr, "verify: error: %s: 'vectors' is missing or not a non-empty list\n", path);
    kc_json_free(root);
    return -1;
  }
  vb_vectors_alloc(&vectors, arr->count);
  for (size_t i = 0; i < arr->count; i++) {
    if (load_vector(&arr->items[i], i, &vectors.v[vectors.n], err, sizeof err) != 0) {
      fprintf(stderr, "verify: error: %s: %s\n", path, err);
      kc_json_free(root);
      return -1;
    }
    vectors.n++;
  }
  kc_json_free(root);
  fprintf(stderr, "verify: %zu uBlock vectors from %s\n", vectors.n, path);
  return 0;
}

/* Every vector of variant v on impl. */
static void check_vectors(const void *impl, ublock_variant v, int iterate, verify_section *s) {
  for (size_t i = 0; i < vectors.n; i++)
    if (vectors.v[i].variant == (int)v)
      vb_check_vector(&VARIANTS[v], impl, &vectors.v[i], iterate, s);
}

/* ------------------------------------------------------------------ */
/* Multi-key streams                                                    */
/* ------------------------------------------------------------------ */

/* n streams of one call: keys, IVs, inputs on guarded misaligned buffers. */
typedef struct streams {
  size_t n, len;
  ublock_key keys[MAX_STREAMS];
  uint8_t ivs[MAX_STREAMS][KC_BLOCK_MAX_BYTES];
  uint8_t *data[MAX_STREAMS], *want[MAX_STREAMS];
  kc_buf in[MAX_STREAMS], out[MAX_STREAMS];
  int in_place[MAX_STREAMS];
} streams;

/* Random keys, IVs, data and buffer placement for n streams of len bytes. */
static void make_streams(ublock_variant v, kc_rng *r, size_t n, size_t len, streams *s) {
  s->n = n;
  s->len = len;
  for (size_t j = 0; j < n; j++) {
    uint8_t key[KC_BLOCK_MAX_BYTES];
    kc_rng_bytes(r, key, ublock_key_bytes(v));
    ublock_set_key(&s->keys[j], v, key);
    kc_rng_bytes(r, s->ivs[j], ublock_block_bytes(v));
    s->data[j] = malloc(len + 1);
    s->want[j] = malloc(len + 1);
    s->in_place[j] = kc_rng_below(r, 4) == 0;
    if (!s->data[j] || !s->want[j] || kc_buf_alloc(&s->in[j], len, kc_rng_below(r, 16)) != 0 ||
        (!s->in_place[j] && kc_buf_alloc(&s->out[j], len, kc_rng_below(r, 16)) != 0)) {
      fprintf(stderr, "verify: out of memory\n");
      exit(2);
    }
    kc_rng_bytes(r, s->data[j], len);
    memcpy(s->in[j].ptr, s->data[j], len);
  }
}

static void free_streams(streams *s) {
  for (size_t j = 0; j < s->n; j++) {
    free(s->data[j]);
    free(s->want[j]);
    kc_buf_free(&s->in[j]);
    if (!s->in_place[j]) kc_buf_free(&s->out[j]);
  }
}

static kc_buf *dst_of(streams *s, size_t j) { return s->in_place[j] ? &s->in[j] : &s->out[j]; }

/* One ublock_crypt_multi call with n streams of `op` against the
 * reference, stream by stream.  Returns the failed checks. */
static int check_multi_call(const ublock_impl *impl, const ublock_impl *ref, const kc_block_op *op,
                            streams *s, const char *what, verify_section *sec) {
  const ublock_key *keys[MAX_STREAMS];
  const uint8_t *ivs[MAX_STREAMS], *in[MAX_STREAMS];
  uint8_t *out[MAX_STREAMS];
  for (size_t j = 0; j < s->n; j++) {
    keys[j] = &s->keys[j];
    ivs[j] = s->ivs[j];
    in[j] = s->in[j].ptr;
    out[j] = dst_of(s, j)->ptr;
    ublock_crypt(ref, (ublock_mode)op->mode, dir_of(op->encrypt), keys[j], ivs[j], s->data[j],
                 s->want[j], s->len);
  }
  int failed = 0;
  int rc = ublock_crypt_multi(impl, (ublock_mode)op->mode, dir_of(op->encrypt), s->n, keys, ivs,
                              in, out, s->len);
  if (rc != UBLOCK_OK) {
    verify_failure(sec, "%s: ublock_crypt_multi returned %d", what, rc);
    return 1;
  }
  for (size_t j = 0; j < s->n; j++) {
    long at = verify_first_diff(out[j], s->want[j], s->len);
    if (at >= 0) {
      verify_failure(sec, "%s: stream %zu differs from the reference at byte %ld", what, j, at);
      failed++;
    }
    if (!kc_buf_guards_ok(dst_of(s, j)) || (!s->in_place[j] && !kc_buf_guards_ok(&s->in[j]))) {
      verify_failure(sec, "%s: stream %zu written outside its buffers", what, j);
      failed++;
    }
    if (!s->in_place[j] && verify_first_diff(s->in[j].ptr, s->data[j], s->len) >= 0) {
      verify_failure(sec, "%s: stream %zu input modified", what, j);
      failed++;
    }
  }
  return failed;
}

/* ublock_crypt_multi with 1..MAX_STREAMS streams in every mode, lengths up
 * to two batches and a few blocks (CTR: any byte length). */
static void check_multi(const ublock_impl *impl, const ublock_impl *ref, ublock_variant v,
                        uint64_t seed, verify_section *sec) {
  size_t bb = ublock_block_bytes(v), batch = impl->batch_blocks[v] ? impl->batch_blocks[v] : 1;
  kc_rng r;
  kc_rng_seed(&r, seed * 0xD1B54A32D192ED03ull + (uint64_t)v);
  streams *s = calloc(1, sizeof *s);
  if (!s) exit(2);
  for (size_t n = 1; n <= MAX_STREAMS; n++) {
    for (size_t o = 0; o < KC_N_BLOCK_OPS; o++) {
      const kc_block_op *op = &KC_BLOCK_OPS[o];
      size_t blocks = (size_t)kc_rng_below(&r, 2 * batch + MULTI_EXTRA + 1);
      size_t len = blocks * bb + (op->mode == KC_MODE_CTR ? (size_t)kc_rng_below(&r, bb) : 0);
      make_streams(v, &r, n, len, s);
      char what[160];
      snprintf(what, sizeof what, "%s multi-key %s, %zu stream(s) of %zu bytes",
               ublock_variant_name(v), op->name, n, len);
      if (check_multi_call(impl, ref, op, s, what, sec) == 0) sec->cases++;
      free_streams(s);
    }
  }
  free(s);
}

/* ------------------------------------------------------------------ */
/* The shared section                                                   */
/* ------------------------------------------------------------------ */

/* Names, sizes, and unknown variants refused. */
static void api_variants(verify_section *s) {
  static const size_t sizes[UBLOCK_VARIANT_COUNT][2] = {{16, 16}, {16, 32}, {32, 32}};
  for (int v = 0; v < UBLOCK_VARIANT_COUNT; v++) {
    const char *name = ublock_variant_name((ublock_variant)v);
    ublock_variant back;
    VERIFY_CHECK(s,
                 name && ublock_variant_from_name(name, &back) == UBLOCK_OK && (int)back == v &&
                     ublock_block_bytes((ublock_variant)v) == sizes[v][0] &&
                     ublock_key_bytes((ublock_variant)v) == sizes[v][1],
                 "variant %d: name %s or sizes %zu/%zu wrong", v, name ? name : "NULL",
                 ublock_block_bytes((ublock_variant)v), ublock_key_bytes((ublock_variant)v));
  }
  ublock_variant bad = (ublock_variant)UBLOCK_VARIANT_COUNT, out;
  uint8_t key[32] = {0};
  ublock_key k;
  VERIFY_CHECK(s,
               !ublock_variant_name(bad) && ublock_block_bytes(bad) == 0 &&
                   ublock_key_bytes(bad) == 0 &&
                   ublock_variant_from_name("ublock64_128", &out) == UBLOCK_ERR_VARIANT &&
                   ublock_set_key(&k, bad, key) == UBLOCK_ERR_VARIANT,
               "an unknown variant is not refused everywhere");
}

/* ublock_set_keys against ublock_set_key: round keys, and ECB results on
 * every runnable implementation. */
static void api_set_keys(const kc_view_list *impls, uint64_t seed, verify_section *s) {
  kc_rng r;
  kc_rng_seed(&r, seed + 77);
  ublock_key *multi = calloc(MAX_STREAMS, sizeof *multi), *single = calloc(1, sizeof *single);
  if (!multi || !single) exit(2);
  uint8_t kb[MAX_STREAMS][KC_BLOCK_MAX_BYTES], in[4 * KC_BLOCK_MAX_BYTES], a[sizeof in],
      b[sizeof in];
  const uint8_t *ptrs[MAX_STREAMS];
  kc_rng_bytes(&r, in, sizeof in);
  for (int v = 0; v < UBLOCK_VARIANT_COUNT; v++) {
    size_t bb = ublock_block_bytes((ublock_variant)v);
    for (size_t n = 1; n <= MAX_STREAMS; n++) {
      for (size_t j = 0; j < n; j++) {
        kc_rng_bytes(&r, kb[j], sizeof kb[j]);
        ptrs[j] = kb[j];
      }
      int rc = ublock_set_keys(multi, (ublock_variant)v, ptrs, n);
      VERIFY_CHECK(s, rc == UBLOCK_OK, "%s ublock_set_keys(n=%zu) returned %d",
                   VARIANTS[v].name, n, rc);
      for (size_t j = 0; rc == UBLOCK_OK && j < n; j++) {
        ublock_set_key(single, (ublock_variant)v, kb[j]);
        VERIFY_CHECK(s,
                     multi[j].variant == single->variant && multi[j].rounds == single->rounds &&
                         memcmp(multi[j].rk, single->rk, (single->rounds + 1) * sizeof single->rk[0]) == 0,
                     "%s ublock_set_keys(n=%zu) key %zu: round keys differ from ublock_set_key",
                     VARIANTS[v].name, n, j);
        for (size_t i = 0; i < impls->n; i++) {
          const ublock_impl *m = impls->v[i].impl;
          if (kc_view_runs(&impls->v[i]) == KC_UNAVAILABLE) continue;
          for (int enc = 0; enc < 2; enc++) {
            m->crypt_blocks(&multi[j], dir_of(enc), in, a, sizeof in / bb);
            m->crypt_blocks(single, dir_of(enc), in, b, sizeof in / bb);
            VERIFY_CHECK(s, memcmp(a, b, sizeof in) == 0,
                         "%s %s%s: a key from ublock_set_keys(n=%zu) #%zu %ss differently",
                         VARIANTS[v].name, m->name, m->emulated ? " (emulated)" : "", n, j,
                         kc_direction_name(enc));
          }
        }
      }
    }
  }
  free(multi);
  free(single);
}

/* Multi-key calls that must fail. */
static void api_multi_errors(const kc_view_list *impls, verify_section *s) {
  ublock_key *k = calloc(2, sizeof *k);
  if (!k) exit(2);
  uint8_t key[32] = {1}, iv[32] = {0}, buf[2][32] = {{0}};
  ublock_set_key(&k[0], UBLOCK_128_128, key);
  ublock_set_key(&k[1], UBLOCK_256_256, key);
  const ublock_key *keys[2] = {&k[0], &k[1]};
  const uint8_t *ivs[2] = {iv, iv}, *in[2] = {buf[0], buf[1]};
  uint8_t *out[2] = {buf[0], buf[1]};
  int rc = ublock_crypt_multi(NULL, UBLOCK_MODE_ECB, UBLOCK_ENCRYPT, 2, keys, ivs, in, out, 32);
  VERIFY_CHECK(s, rc == UBLOCK_ERR_VARIANT,
               "ublock_crypt_multi mixing variants returned %d, want UBLOCK_ERR_VARIANT", rc);
  for (size_t i = 0; i < impls->n; i++) {
    const ublock_impl *m = impls->v[i].impl;
    if (m->crypt_blocks_multi || kc_view_runs(&impls->v[i]) == KC_UNAVAILABLE) continue;
    rc = ublock_crypt_multi(m, UBLOCK_MODE_CBC, UBLOCK_ENCRYPT, 1, keys, ivs, in, out, 16);
    VERIFY_CHECK(s, rc == UBLOCK_ERR_NO_IMPL,
                 "%s has no multi-key entry, yet ublock_crypt_multi returned %d", m->name, rc);
  }
  free(k);
}

static int call_wrapper(const vb_cipher *c, size_t op, const void *ks, const uint8_t *iv,
                        const uint8_t *in, uint8_t *out, size_t len) {
  (void)c;
  switch (op) {
    case 0: return ublock_ecb_encrypt(ks, in, out, len);
    case 1: return ublock_ecb_decrypt(ks, in, out, len);
    case 2: return ublock_cbc_encrypt(ks, iv, in, out, len);
    case 3: return ublock_cbc_decrypt(ks, iv, in, out, len);
    default: return ublock_ctr_crypt(ks, iv, in, out, len);
  }
}

static const char *const WRAPPER_NAMES[KC_N_BLOCK_OPS] = {
    "ublock_ecb_encrypt", "ublock_ecb_decrypt", "ublock_cbc_encrypt", "ublock_cbc_decrypt",
    "ublock_ctr_crypt"};

static const void *find_impl(const char *strategy, const char *target, int emulated) {
  return ublock_impl_find(strategy, target, emulated);
}

static void check_api(const kc_view_list *impls, const ublock_impl *ref, uint64_t seed) {
  verify_section s = {0};
  fprintf(stderr, "verify: ublock api\n");
  api_variants(&s);
  verify_check_lookups("ublock", impls, find_impl, ublock_impl_best(), &s);
  for (int v = 0; v < UBLOCK_VARIANT_COUNT; v++) {
    vb_check_wrappers(&VARIANTS[v], ref, call_wrapper, WRAPPER_NAMES, &s);
    for (size_t i = 0; i < impls->n; i++) {
      const kc_impl_view *m = &impls->v[i];
      if (kc_view_runs(m) == KC_UNAVAILABLE) continue;
      char label[160];
      snprintf(label, sizeof label, "%s%s", m->name, m->emulated ? " (emulated)" : "");
      vb_check_length_errors(&VARIANTS[v], m->impl, label, UBLOCK_ERR_LENGTH, &s);
    }
  }
  api_set_keys(impls, seed, &s);
  api_multi_errors(impls, &s);
  verify_report("ublock api", &s, 0);
}

/* ------------------------------------------------------------------ */
/* Per implementation                                                   */
/* ------------------------------------------------------------------ */

static void check_impl(const kc_impl_view *view, const verify_progress *p, verify_section *s,
                       const verify_run *r) {
  const ublock_impl *impl = view->impl;
  for (int v = 0; v < UBLOCK_VARIANT_COUNT; v++) {
    const vb_cipher *c = &VARIANTS[v];
    size_t n_cases = vb_systematic_cases(c) + r->n_random;
    verify_step(p, "%s: vectors, %zu differential cases%s", c->name, n_cases,
                impl->crypt_blocks_multi ? ", multi-key streams" : "");
    double t0 = verify_now();
    check_vectors(impl, (ublock_variant)v, verify_iterates(r, view), s);
    if (impl == r->serial)
      printf("NOTE: %s vectors, the 1,000,000-fold iterations included, on the serial kernel "
             "%s (ublock_impl_serial): %.1f s (%s)\n",
             c->name, impl->name, verify_now() - t0,
             r->iterated == VERIFY_ITERATED_ALL ? "every kernel runs them all"
             : r->iterated == VERIFY_ITERATED_NATIVE
                 ? "--iterated native: every native kernel runs them all"
                 : "--iterated serial: the other kernels run the un-iterated vectors");
    vb_run_cases(c, impl, r->ref, n_cases, r->seed + (uint64_t)v, s);
    if (impl->crypt_blocks_multi) check_multi(impl, r->ref, (ublock_variant)v, r->seed, s);
  }
}

/* ------------------------------------------------------------------ */
/* Entry point                                                          */
/* ------------------------------------------------------------------ */

/* The kernel of the iterated vectors with --iterated serial: the one uBlock
 * runs serial work on (the same kernel for every variant, the batches of
 * each strategy scaling alike), else the best. */
static const ublock_impl *serial_kernel(void) {
  const ublock_impl *serial = ublock_impl_serial(UBLOCK_128_128);
  return serial ? serial : ublock_impl_best();
}

int verify_ublock(const verify_options *o) {
  kc_view_list impls;
  verify_run r;
  if (verify_start("ublock", kc_views_ublock, find_impl, serial_kernel(), o, RANDOM_CASES_FULL,
                   RANDOM_CASES_QUICK, &impls, &r) != 0)
    return 2;
  describe_variants(&impls);
  if (load_vectors(o->argv0) != 0) return 2;
  check_api(&impls, r.ref, o->seed);
  verify_each_impl(&impls, o, "ublock ", check_impl, &r);
  vb_vectors_free(&vectors);
  return 0;
}
