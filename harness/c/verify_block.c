/*
 * verify's tests of every block cipher (SM4, uBlock); see verify.h.
 */
#include "verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VB_SYSTEMATIC_LEN 256 /* CTR: every byte length up to this one */

/* The library calls on variant c. */
static int set_key(const vb_cipher *c, void *ks, const uint8_t *key) {
  return c->d->block->set_key(ks, c->v->id, key);
}
#define CRYPT(c, ...) ((c)->d->block->crypt(__VA_ARGS__))

/* The variant of vector v, or NULL. */
static const kc_variant *variant_of(const kc_desc *d, const vb_vector *v) {
  for (size_t k = 0; k < d->n_variants; k++)
    if (strcmp(d->variants[k].name, v->variant) == 0) return &d->variants[k];
  return NULL;
}

/* 0 if v's sizes fit the description, else -1 with what it says of them in why. */
static int misfit(const kc_desc *d, const vb_vector *v, char *why, size_t size) {
  const kc_variant *var = variant_of(d, v);
  if (!var) return kc_error(why, size, "%s has no variant %s", d->name, v->variant);
  size_t kb = var->key_bytes, bb = var->block_bytes;
  if (v->key_len != kb)
    return kc_error(why, size, "the key is %zu bytes, %s's are %zu", v->key_len, v->variant, kb);
  if (v->iv_len != (v->mode == KC_MODE_ECB ? 0 : bb))
    return kc_error(why, size, "the IV is %zu bytes, %s's block %zu", v->iv_len, v->variant, bb);
  if (v->mode != KC_MODE_CTR && v->len % bb)
    return kc_error(why, size, "%zu bytes are not whole %zu-byte blocks", v->len, bb);
  return 0;
}

/* d's compiled vectors, each checked against d's variants (NULL after a
 * message if one does not fit) and by the hooks' vector_check into
 * `checks`. */
static const kc_vectors *load_vectors(const kc_desc *d, verify_section *checks) {
  const kc_vectors *l = kc_vectors_find(d->name);
  char why[160];
  int fit = 1;
  for (size_t i = 0; l && i < l->n; i++)
    if (misfit(d, &l->block[i], why, sizeof why)) {
      fprintf(stderr, "verify: error: %s: %s: %s\n", l->path, l->block[i].label, why);
      fit = 0;
    }
  if (!fit) return NULL;
  for (size_t i = 0; l && d->verify->vector_check && i < l->n; i++)
    d->verify->vector_check(&l->block[i], checks);
  if (l) fprintf(stderr, "verify: %zu %s vectors from %s\n", l->n, d->name, l->path);
  return l;
}

/* v on impl in both directions, in place (decrypting N times undoes
 * encrypting N times), counted into s->vectors; an iterated vector only if
 * `iterate`. */
static void check_vector(const vb_cipher *c, const void *impl, const vb_vector *v, int iterate,
                         verify_section *s) {
  if (v->iterations > 1 && !iterate) return;
  void *ks = kc_block_new_key(c->d);
  int rc_key = set_key(c, ks, v->key);
  uint8_t *buf = malloc(v->len + 1);
  for (int enc = 1; enc >= 0; enc--) {
    const uint8_t *from = enc ? v->pt : v->ct, *to = enc ? v->ct : v->pt;
    memcpy(buf, from, v->len);
    int rc = rc_key;
    for (long i = 0; i < v->iterations && rc == 0; i++)
      rc = CRYPT(c, impl, v->mode, enc, ks, v->iv, buf, buf, v->len);
    long at = verify_first_diff(buf, to, v->len);
    if (rc != 0)
      verify_failure(s, "%s %s: %s returned %d", v->label, kc_direction_name(enc),
                     rc_key ? "set_key" : "crypt", rc);
    else if (at >= 0)
      verify_failure(s, "%s %s: wrong output from byte %ld (got %02x, want %02x)", v->label,
                     kc_direction_name(enc), at, buf[at], to[at]);
    else
      s->vectors++;
  }
  free(buf);
  kc_block_free_key(c->d, ks);
}

typedef struct vb_case {
  kc_block_mode mode;
  int encrypt;
  size_t len;
  size_t in_off, out_off; /* misalignment of input and output, 0..15 */
  int in_place;           /* output written over the input */
  uint8_t key[KC_BLOCK_MAX_BYTES];
  uint8_t iv[KC_BLOCK_MAX_BYTES];
  uint8_t *data; /* max_len bytes */
} vb_case;

/* Counter widths (bits) whose carry the CTR cases cross, up to the block's
 * width, and how many blocks before the carry each case starts. */
static const size_t CARRY_WIDTHS[] = {8, 32, 64, 96, 128, 192, 256};
#define N_CARRY_WIDTHS_MAX (sizeof CARRY_WIDTHS / sizeof CARRY_WIDTHS[0])
static const int CARRY_BACKOFFS[] = {0, 1, 7, 31, 63};
#define N_CARRY_BACKOFFS (sizeof CARRY_BACKOFFS / sizeof CARRY_BACKOFFS[0])

static size_t carry_widths(const vb_cipher *c) {
  size_t n = 0;
  while (n < N_CARRY_WIDTHS_MAX && CARRY_WIDTHS[n] <= 8 * c->v->block_bytes) n++;
  return n;
}

/* Long enough to cross every carry above. */
static size_t wrap_len(const vb_cipher *c) { return 64 * c->v->block_bytes + 7; }

/* Sets the low `bits` of the big-endian counter to all ones, then subtracts
 * `backoff` (< 256) so the carry happens `backoff` blocks in. */
static void carry_iv(const vb_cipher *c, uint8_t *iv, size_t bits, int backoff) {
  size_t b = c->v->block_bytes;
  for (size_t i = 0; i < bits / 8; i++) iv[b - 1 - i] = 0xff;
  iv[b - 1] = (uint8_t)(0xff - backoff);
}

/* Shapes of the systematic cases, each in both directions. */
static size_t block_lens(const vb_cipher *c) { return c->systematic_blocks + 1; }

static size_t systematic_cases(const vb_cipher *c) {
  return 2 * (2 * block_lens(c) + (VB_SYSTEMATIC_LEN + 1) + carry_widths(c) * N_CARRY_BACKOFFS);
}

/* The shape of systematic case k (index / 2): mode, length, carry IV.
 * Returns 1 if it set a carry IV, -1 if k is past the systematic ones. */
static int systematic_shape(const vb_cipher *c, size_t k, vb_case *x) {
  size_t n_carry = carry_widths(c) * N_CARRY_BACKOFFS;
  if (k < block_lens(c)) {
    x->mode = KC_MODE_ECB;
    x->len = k * c->v->block_bytes;
  } else if ((k -= block_lens(c)) < block_lens(c)) {
    x->mode = KC_MODE_CBC;
    x->len = k * c->v->block_bytes;
  } else if ((k -= block_lens(c)) < VB_SYSTEMATIC_LEN + 1) {
    x->mode = KC_MODE_CTR;
    x->len = k;
  } else if ((k -= VB_SYSTEMATIC_LEN + 1) < n_carry) {
    x->mode = KC_MODE_CTR;
    x->len = wrap_len(c);
    carry_iv(c, x->iv, CARRY_WIDTHS[k / N_CARRY_BACKOFFS], CARRY_BACKOFFS[k % N_CARRY_BACKOFFS]);
    return 1;
  } else {
    return -1;
  }
  return 0;
}

/* Builds case number `index` of the sequence for `seed`. */
static void make_case(const vb_cipher *c, uint64_t seed, size_t index, vb_case *x) {
  kc_rng r;
  kc_rng_seed(&r, seed * 0x9E3779B97F4A7C15ull + index);
  kc_rng_bytes(&r, x->key, c->v->key_bytes);
  kc_rng_bytes(&r, x->iv, c->v->block_bytes);
  x->in_off = (size_t)kc_rng_below(&r, 16);
  x->out_off = (size_t)kc_rng_below(&r, 16);
  x->in_place = kc_rng_below(&r, 4) == 0;
  x->encrypt = index % 2 == 0;

  int shape = systematic_shape(c, index / 2, x);
  if (shape < 0) {
    /* Random: any mode, a length above the systematic range. */
    x->mode = (kc_block_mode)kc_rng_below(&r, KC_N_BLOCK_MODES);
    x->len = VB_SYSTEMATIC_LEN + 1 + (size_t)kc_rng_below(&r, c->max_len - VB_SYSTEMATIC_LEN);
    if (x->mode != KC_MODE_CTR) x->len -= x->len % c->v->block_bytes;
  }
  /* A third of the other cases get an IV just below a carry. */
  if (shape != 1 && kc_rng_below(&r, 3) == 0)
    carry_iv(c, x->iv, CARRY_WIDTHS[kc_rng_below(&r, carry_widths(c))],
             (int)kc_rng_below(&r, 64));
  kc_rng_bytes(&r, x->data, x->len);
}

/* Describes a case for failure messages. */
static void case_text(const vb_cipher *c, const vb_case *x, size_t index, char *buf, size_t size) {
  char key[2 * KC_BLOCK_MAX_BYTES + 1], iv[2 * KC_BLOCK_MAX_BYTES + 1];
  kc_hex_encode(x->key, c->v->key_bytes, key);
  kc_hex_encode(x->iv, c->v->block_bytes, iv);
  snprintf(buf, size, "%s case %zu: %s %s len=%zu in_off=%zu out_off=%zu%s key=%s iv=%s", c->v->name,
           index, kc_block_mode_name(x->mode), kc_direction_name(x->encrypt), x->len, x->in_off,
           x->out_off, x->in_place ? " in-place" : "", key, iv);
}

/* Expected outputs of a case, computed once per case. */
typedef struct expected {
  uint8_t *ref, *oracle; /* max_len bytes each */
} expected;

/* Runs one case on impl; returns the number of failed checks (0 = pass). */
static int run_case(const vb_cipher *c, const void *impl, const void *ref, void *ks,
                    const vb_case *x, size_t index, expected *e, verify_section *s) {
  char what[400];
  int failed = 0;
  case_text(c, x, index, what, sizeof what);
  int rc = set_key(c, ks, x->key);
  if (rc == 0) rc = CRYPT(c, ref, x->mode, x->encrypt, ks, x->iv, x->data, e->ref, x->len);
  if (rc != 0) {
    verify_failure(s, "%s: set_key or the reference returned %d", what, rc);
    return 1;
  }
  int oracle = c->oracle &&
               c->d->block->oracle(x->mode, x->encrypt, x->key, x->iv, x->data, e->oracle, x->len) == 0;
  if (c->oracle && !oracle) {
    verify_failure(s, "%s: %s failed", what, c->d->block->oracle_name);
    failed++;
  }

  /* The implementation under test, on misaligned guarded buffers. */
  verify_bufs b;
  verify_bufs_place(&b, x->data, x->len, x->len, x->in_off, x->out_off, x->in_place);
  rc = CRYPT(c, impl, x->mode, x->encrypt, ks, x->iv, b.in.ptr, b.dst, x->len);
  if (rc != 0) {
    verify_failure(s, "%s: crypt returned %d", what, rc);
    failed++;
  } else {
    failed += verify_differs(b.dst, e->ref, x->len, "the reference", what, s);
    if (oracle) failed += verify_differs(b.dst, e->oracle, x->len, c->d->block->oracle_name, what, s);
  }
  failed += verify_bufs_check(&b, "crypt", what, s);

  /* ECB: the kernel entry point itself, on the same buffers. */
  if (x->mode == KC_MODE_ECB) {
    verify_bufs_fill(&b);
    c->d->block->crypt_blocks(impl, x->encrypt, ks, b.in.ptr, b.dst, x->len / c->v->block_bytes);
    failed += verify_differs(b.dst, e->ref, x->len, "the reference (crypt_blocks)", what, s);
    failed += verify_bufs_check(&b, "crypt_blocks", what, s);
  }
  verify_bufs_free(&b);
  return failed;
}

static void run_cases(const vb_cipher *c, const void *impl, const void *ref, size_t n_cases,
                  uint64_t seed, verify_section *s) {
  vb_case x;
  expected e;
  void *ks = kc_block_new_key(c->d);
  x.data = malloc(c->max_len);
  e.ref = malloc(c->max_len);
  e.oracle = malloc(c->max_len);
  verify_need(x.data && e.ref && e.oracle);
  for (size_t i = 0; i < n_cases; i++) {
    make_case(c, seed, i, &x);
    if (run_case(c, impl, ref, ks, &x, i, &e, s) == 0) s->cases++;
    verify_tick(i, n_cases, 256);
  }
  free(x.data);
  free(e.ref);
  free(e.oracle);
  kc_block_free_key(c->d, ks);
}

static void check_length_errors(const vb_cipher *c, const void *impl, const char *label, int want_rc,
                            verify_section *s) {
  size_t b = c->v->block_bytes;
  const size_t bad_lens[] = {1, b - 1, b + 1, 2 * b - 1, 2 * b + 1, 999};
  uint8_t in[1000] = {0}, out[1000], iv[KC_BLOCK_MAX_BYTES] = {0}, key[KC_BLOCK_MAX_BYTES] = {0};
  void *ks = kc_block_new_key(c->d);
  set_key(c, ks, key);
  for (size_t j = 0; j < sizeof bad_lens / sizeof bad_lens[0]; j++) {
    for (int mode = KC_MODE_ECB; mode <= KC_MODE_CBC; mode++) {
      int rc = CRYPT(c, impl, (kc_block_mode)mode, 1, ks, iv, in, out, bad_lens[j]);
      VERIFY_CHECK(s, rc == want_rc, "%s %s %s on %zu bytes returned %d, want %d (length error)",
                   c->v->name, label, kc_block_mode_name((kc_block_mode)mode), bad_lens[j], rc,
                   want_rc);
    }
  }
  kc_block_free_key(c->d, ks);
}

static void check_wrappers(const vb_cipher *c, const void *ref, verify_section *s) {
  static const char *const names[KC_N_BLOCK_OPS] = {"ecb_encrypt", "ecb_decrypt", "cbc_encrypt",
                                                    "cbc_decrypt", "ctr_crypt"};
  kc_rng r;
  kc_rng_seed(&r, 42);
  uint8_t kb[KC_BLOCK_MAX_BYTES], iv[KC_BLOCK_MAX_BYTES], in[1000], want[1000], out[1000];
  kc_rng_bytes(&r, kb, c->v->key_bytes);
  kc_rng_bytes(&r, iv, c->v->block_bytes);
  kc_rng_bytes(&r, in, sizeof in);
  void *ks = kc_block_new_key(c->d);
  set_key(c, ks, kb);
  size_t whole = sizeof in - sizeof in % c->v->block_bytes, ctr_len = sizeof in - 1;
  for (size_t op = 0; op < KC_N_BLOCK_OPS; op++) {
    const kc_block_op *o = &KC_BLOCK_OPS[op];
    size_t len = o->mode == KC_MODE_CTR ? ctr_len : whole;
    CRYPT(c, ref, o->mode, o->encrypt, ks, iv, in, want, len);
    int rc = c->d->block->wrapper(op, ks, iv, in, out, len);
    VERIFY_CHECK(s, rc == 0 && verify_first_diff(out, want, len) < 0,
                 "%s %s_%s differs from the reference (rc %d)", c->v->name, c->d->block->prefix,
                 names[op], rc);
  }
  /* impl NULL means the best implementation; `want` still holds CTR. */
  VERIFY_CHECK(s,
               CRYPT(c, NULL, KC_MODE_CTR, 1, ks, iv, in, out, ctr_len) == 0 &&
                   verify_first_diff(out, want, ctr_len) < 0,
               "%s crypt(NULL, ...) differs from the reference", c->v->name);
  kc_block_free_key(c->d, ks);
}

#define MIN_MAX_LEN 4096 /* random cases: at least this long */

/* Every variant sized for its kernels: the systematic cases cross two
 * whole batches of the widest one. */
static vb_cipher *describe(const kc_desc *d, const kc_view_list *impls, int oracle) {
  vb_cipher *vc = calloc(d->n_variants, sizeof *vc);
  if (!vc) exit(2);
  for (size_t i = 0; i < d->n_variants; i++) {
    const kc_variant *v = &d->variants[i];
    size_t bb = v->block_bytes, blocks = 2 * kc_block_largest_batch(d, impls, v->id) + 1;
    if (blocks < VB_SYSTEMATIC_LEN / bb) blocks = VB_SYSTEMATIC_LEN / bb;
    size_t max_len = (blocks + 1) * bb > MIN_MAX_LEN ? (blocks + 1) * bb : MIN_MAX_LEN;
    vc[i] = (vb_cipher){d, v, blocks, max_len, oracle};
  }
  return vc;
}

/* Does the oracle run here?  A NOTE when it does not. */
static int probe_oracle(const kc_desc *d) {
  uint8_t zeros[KC_BLOCK_MAX_BYTES] = {0}, out[KC_BLOCK_MAX_BYTES];
  if (!d->block->oracle) return 0;
  if (d->block->oracle(KC_MODE_ECB, 1, zeros, NULL, zeros, out, d->variants[0].block_bytes) == 0)
    return 1;
  printf("NOTE: no %s %s here (built without peers, PEERS=0, or without the cipher); %s "
         "differential cases compare with the reference only\n",
         d->block->oracle_name, d->name, d->name);
  return 0;
}

/* The shared section: the oracle on the vectors, lookups, wrappers, length
 * errors of every runnable implementation, and the hooks' checks. */
static void check_api(const vb_cipher *vc, const kc_vectors *vectors, const kc_view_list *impls,
                      const void *ref, uint64_t seed) {
  const kc_desc *d = vc->d;
  verify_section s = {0};
  fprintf(stderr, "verify: %sapi\n", d->label);
  uint8_t out[4096];
  for (size_t i = 0; vc->oracle && i < vectors->n; i++) {
    const vb_vector *v = &vectors->block[i];
    if (v->iterations != 1 || v->len > sizeof out) continue;
    VERIFY_CHECK(&s,
                 d->block->oracle(v->mode, 1, v->key, v->iv, v->pt, out, v->len) == 0 &&
                     verify_first_diff(out, v->ct, v->len) < 0,
                 "%s disagrees with %s", d->block->oracle_name, v->label);
  }
  verify_check_lookups(d, impls, &s);
  for (size_t k = 0; k < d->n_variants; k++) {
    check_wrappers(&vc[k], ref, &s);
    for (size_t i = 0; i < impls->n; i++) {
      const kc_impl_view *m = &impls->v[i];
      if (kc_view_runs(m) == KC_UNAVAILABLE) continue;
      char label[160];
      snprintf(label, sizeof label, "%s%s", m->name, m->emulated ? " (emulated)" : "");
      check_length_errors(&vc[k], m->impl, label, d->block->err_length, &s);
    }
  }
  if (d->verify->api) d->verify->api(vc, impls, seed, &s);
  char label[64];
  snprintf(label, sizeof label, "%sapi", d->label);
  verify_report(label, &s, 0);
}

static const vb_cipher *run_variants; /* of the cipher under test */
static const kc_vectors *run_vectors;

/* Per variant: its vectors, its differential cases, the hooks' tests. */
static void check_impl(const kc_impl_view *view, const verify_progress *p, verify_section *s,
                       const verify_run *r) {
  const kc_desc *d = r->d;
  for (size_t k = 0; k < d->n_variants; k++) {
    const vb_cipher *c = &run_variants[k];
    size_t n_cases = systematic_cases(c) + r->n_random;
    verify_step(p, "%s: vectors, %zu differential cases", c->v->name, n_cases);
    double t0 = verify_now();
    for (size_t i = 0; i < run_vectors->n; i++)
      if (variant_of(d, &run_vectors->block[i]) == c->v)
        check_vector(c, view->impl, &run_vectors->block[i], verify_iterates(r, view), s);
    if (view->impl == r->serial)
      printf("NOTE: %s vectors, the 1,000,000-fold iterations included, on the serial kernel "
             "%s (%s_impl_serial): %.1f s (%s)\n",
             c->v->name, view->name, d->block->prefix, verify_now() - t0,
             r->iterated == VERIFY_ITERATED_ALL ? "every kernel runs them all"
             : r->iterated == VERIFY_ITERATED_NATIVE
                 ? "--iterated native: every native kernel runs them all"
                 : "--iterated serial: the other kernels run the un-iterated vectors");
    run_cases(c, view->impl, r->ref, n_cases, r->seed + k, s);
    if (d->verify->impl_extra) d->verify->impl_extra(c, view->impl, r, s);
  }
}

int verify_block(const kc_desc *d, const verify_options *o) {
  kc_view_list impls;
  verify_run r;
  verify_section checks = {0};
  if (verify_start(d, o, &impls, &r) != 0) return 2;
  const kc_vectors *vectors = load_vectors(d, &checks);
  if (!vectors) return 2;
  vb_cipher *vc = describe(d, &impls, 0);
  int oracle = probe_oracle(d);
  for (size_t k = 0; k < d->n_variants; k++) vc[k].oracle = oracle;
  if (d->verify->vector_section) {
    char label[64];
    snprintf(label, sizeof label, "%s%s", d->label, d->verify->vector_section);
    verify_report(label, &checks, 0);
  }
  check_api(vc, vectors, &impls, r.ref, o->seed);
  run_variants = vc;
  run_vectors = vectors;
  verify_each_impl(&impls, o, d->label, check_impl, &r);
  free(vc);
  return 0;
}
