/*
 * verify's ZUC tests (see verify.c for the command line and the output):
 * every registered implementation against the scalar reference and Intel
 * ipsec-mb; docs/verification.md ("ZUC") lists them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipsecmb.h"
#include "verify.h"
#include "zuc.h"
#include "zuc_lanes.h"

#define MAX_STREAM_BYTES 4096               /* longest random stream */
#define MAX_STREAMS (3 * ZUC_LANES_MAX + 1) /* most streams in one random call */
#define SYSTEMATIC_BITS 1024                /* every bit length up to this one */
#define KERNEL_STATES 4                     /* random lane states per kernel check */
/* A kernel check's steps on a random state: NEA6's extra initialisation
 * rounds, the initialisation, keystream blocks, then single rounds. */
static const zuc_step KERNEL_STEPS[] = {ZUC_INIT_MORE, ZUC_INIT, ZUC_BLOCK, ZUC_XOR, ZUC_BLOCK,
                                        ZUC_WORD,      ZUC_WORD, ZUC_WORD,  ZUC_WORD, ZUC_WORD};

static const unsigned TAGS[KC_ZUC_TAGS] = {32, 64, 128};

/* The MAC methods this CPU runs (pick_methods names the others in a NOTE). */
static zuc_mac_method METHODS[ZUC_N_METHODS];
static size_t n_methods;

static kc_imb *imb; /* NULL when ipsec-mb cannot run here */

static void pick_methods(void) {
  n_methods = 0;
  for (int m = 0; m < ZUC_N_METHODS; m++) {
    if (zuc_mac_method_supported((zuc_mac_method)m))
      METHODS[n_methods++] = (zuc_mac_method)m;
    else
      printf("NOTE: MAC method %s not run: this CPU lacks its instructions\n",
             zuc_method_name((zuc_mac_method)m));
  }
}

/* 23-byte IV -> 25 bytes, test-side (the library does this itself): IV0..IV16,
 * then the eight 6-bit fields IV17..IV24, packed most significant first in
 * the last six bytes. */
static void expand_iv23(const uint8_t iv23[23], uint8_t iv25[25]) {
  memcpy(iv25, iv23, 17);
  uint64_t acc = 0;
  for (int i = 0; i < 6; i++) acc = acc << 8 | iv23[17 + i];
  for (int i = 0; i < 8; i++) iv25[17 + i] = (uint8_t)(acc >> (42 - 6 * i) & 0x3F);
}

/* zuc.json, compiled in (vectors.h): one entry per vector and IV form. */
static const kc_vectors *file;

/* Every op verify runs: enc and every MAC of each IV form (ZUC-NEA6: enc). */
static zuc_op shapes[4 * (1 + KC_ZUC_TAGS * ZUC_N_METHODS)];
static size_t n_shapes;

static void make_shapes(void) {
  static const struct {
    zuc_variant v;
    size_t iv_len;
  } forms[] = {{ZUC_128, 16}, {ZUC_256, 25}, {ZUC_256, 23}, {ZUC_NEA6, 16}};
  n_shapes = 0;
  for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
    shapes[n_shapes++] = (zuc_op){forms[f].v, forms[f].iv_len, 0, 0, ZUC_MAC_CLMUL};
    for (size_t t = 0; t < KC_ZUC_TAGS && forms[f].v != ZUC_NEA6; t++)
      for (size_t m = 0; m < n_methods && (forms[f].v == ZUC_256 || TAGS[t] == 32); m++)
        shapes[n_shapes++] = (zuc_op){forms[f].v, forms[f].iv_len, 1, TAGS[t], METHODS[m]};
  }
}

/* One call's streams (in: data; want: the reference's output), where their
 * buffers sit, and ipsec-mb's output. */
typedef struct call {
  zuc_op op;
  int in_place; /* encryption writes over the input */
  zuc_streams s;
  size_t in_off[MAX_STREAMS], out_off[MAX_STREAMS];
  uint8_t data[MAX_STREAMS][MAX_STREAM_BYTES + 1];
  uint8_t want_ref[MAX_STREAMS][MAX_STREAM_BYTES + 16], want_imb[MAX_STREAMS][MAX_STREAM_BYTES + 16];
  uint8_t *imb_out[MAX_STREAMS];
  int imb_has[MAX_STREAMS];
} call;

static call *new_call(void) {
  call *c = calloc(1, sizeof *c);
  verify_need(c != NULL);
  zuc_streams_init(&c->s);
  for (size_t i = 0; i < MAX_STREAMS; i++) /* out: check_call places it */
    c->s.want[i] = c->want_ref[i], c->s.out[i] = c->imb_out[i] = c->want_imb[i];
  return c;
}

/* One call of `impl` on c, every stream checked against the oracles, and
 * the buffers.  Returns the number of failed checks. */
static int check_call(const zuc_impl *impl, const zuc_impl *ref, call *c, const char *what,
                      verify_section *sec) {
  zuc_streams *s = &c->s;
  int rc = zuc_streams_run(ref, &c->op, s, s->want);
  if (rc != ZUC_OK) {
    verify_failure(sec, "%s: reference returned %s", what, zuc_strerror(rc));
    return 1;
  }
  int failed = 0;
  char err[256];
  if (zuc_streams_imb(imb, &c->op, s, c->imb_out, c->imb_has, err, sizeof err) != 0) {
    verify_failure(sec, "%s: %s", what, err);
    failed++;
    memset(c->imb_has, 0, sizeof c->imb_has);
  }

  verify_bufs bufs[MAX_STREAMS];
  for (size_t i = 0; i < s->n; i++) {
    verify_bufs_place(&bufs[i], c->data[i], zuc_bytes_of(s->bits[i]),
                      zuc_out_bytes(&c->op, s->bits[i]), c->in_off[i], c->out_off[i], c->in_place);
    s->in[i] = bufs[i].in.ptr;
    s->out[i] = bufs[i].dst;
  }
  rc = zuc_streams_run(impl, &c->op, s, s->out);
  if (rc != ZUC_OK) {
    verify_failure(sec, "%s: returned %s", what, zuc_strerror(rc));
    failed++;
  }
  for (size_t i = 0; i < s->n; i++) {
    size_t bits = s->bits[i], len = zuc_out_bytes(&c->op, bits);
    char stream[240];
    snprintf(stream, sizeof stream, "%s: stream %zu (%zu bits)", what, i, bits);
    if (rc == ZUC_OK) {
      failed += verify_differs(s->out[i], s->want[i], len, "the reference", stream, sec);
      if (c->imb_has[i])
        failed += verify_differs(s->out[i], c->want_imb[i], len, "ipsec-mb", stream, sec);
      if (!c->op.mac && bits % 8 && (s->out[i][len - 1] & (0xFF >> (bits % 8)))) {
        verify_failure(sec, "%s: unused low bits of the last byte are not zero (%02x)", stream,
                       s->out[i][len - 1]);
        failed++;
      }
    }
    failed += verify_bufs_check(&bufs[i], "the call", stream, sec);
    verify_bufs_free(&bufs[i]);
  }
  return failed;
}

/* Systematic calls per shape for a kernel of `lanes` lanes. */
static size_t systematic_calls(unsigned lanes) { return (SYSTEMATIC_BITS + 1 + lanes - 1) / lanes; }

/*
 * Builds case `index` for a kernel of `lanes` lanes into c.  The first
 * n_shapes * systematic_calls(lanes) cases are systematic: `lanes` streams
 * with consecutive bit lengths; the rest are random, of `n` streams (0: a
 * random number).  The same index and seed always give the same case.
 */
static void make_case(uint64_t seed, size_t index, unsigned lanes, size_t n, call *c) {
  kc_rng r;
  kc_rng_seed(&r, seed * 0x9E3779B97F4A7C15ull + index + 0x2C0C);
  size_t per_shape = systematic_calls(lanes), first_bits = 0;
  int systematic = index < n_shapes * per_shape;
  if (systematic) {
    c->op = shapes[index / per_shape];
    first_bits = (index % per_shape) * lanes;
    c->s.n = lanes;
  } else {
    c->op = shapes[kc_rng_below(&r, n_shapes)];
    c->s.n = n ? n : 1 + (size_t)kc_rng_below(&r, MAX_STREAMS);
  }
  c->in_place = !c->op.mac && kc_rng_below(&r, 4) == 0;
  for (size_t i = 0; i < c->s.n; i++) {
    zuc_random_key_iv(&r, c->s.key[i], zuc_key_len(c->op.variant), c->s.iv[i], c->op.iv_len);
    size_t b;
    if (systematic) {
      b = first_bits + i < SYSTEMATIC_BITS ? first_bits + i : SYSTEMATIC_BITS;
    } else {
      /* Half whole bytes (ipsec-mb compares too), some tiny, some empty. */
      uint64_t kind = kc_rng_below(&r, 16);
      b = kind == 0   ? 0
          : kind < 3  ? (size_t)kc_rng_below(&r, 64)
          : kind < 10 ? 8 * (1 + (size_t)kc_rng_below(&r, MAX_STREAM_BYTES))
                      : (size_t)kc_rng_below(&r, 8 * MAX_STREAM_BYTES + 1);
    }
    c->s.bits[i] = b;
    c->s.in[i] = c->data[i];
    kc_rng_bytes(&r, c->data[i], zuc_bytes_of(b));
    c->in_off[i] = (size_t)kc_rng_below(&r, 16);
    c->out_off[i] = (size_t)kc_rng_below(&r, 16);
  }
}

/* Builds case `index` and checks one call of `impl` (NULL: the library's
 * choice) on it; counts it in sec->cases if it passes. */
static void run_case(const zuc_impl *impl, const zuc_impl *ref, uint64_t seed, size_t index,
                     unsigned lanes, size_t n, call *c, verify_section *sec) {
  make_case(seed, index, lanes, n, c);
  char sh[64], what[200];
  zuc_op_text(&c->op, sh, sizeof sh);
  snprintf(what, sizeof what, "%scase %zu: %s, %zu streams%s", impl ? "" : "impl NULL, ", index, sh,
           c->s.n, c->in_place ? ", in place" : "");
  if (check_call(impl, ref, c, what, sec) == 0) sec->cases++;
}

/* Vector v's case t (-1: its keystream or its encryption, else its tag
 * TAGS[t]) by `method` in s's first n streams: in, bits and want as the
 * vector gives them, lane i of a keystream shorter by i % 32 bits if
 * `stagger` (so that lanes of one call end at different points; a last
 * partial byte's unused bits are 0). */
static zuc_op vector_case(const zuc_vector *v, int t, zuc_mac_method method, zuc_streams *s,
                          size_t n, int stagger) {
  static const uint8_t zeros[512];
  zuc_op op = {v->variant, v->iv_len, t >= 0, t < 0 ? 0 : TAGS[t], method};
  s->n = n;
  const int keystream = t < 0 && v->keystream;
  for (size_t i = 0; i < n; i++) {
    size_t bits = s->bits[i] = keystream ? 8 * v->ks_bytes - (stagger ? i % 32 : 0) : v->bits;
    memcpy(s->key[i], v->key, zuc_key_len(v->variant));
    memcpy(s->iv[i], v->iv, v->iv_len);
    s->in[i] = keystream ? zeros : v->msg;
    memcpy(s->want[i], keystream ? v->keystream : t < 0 ? v->ct : v->tag[t], zuc_out_bytes(&op, bits));
    if (t < 0 && bits % 8) s->want[i][bits / 8] &= (uint8_t)(0xFF00 >> (bits % 8));
  }
  return op;
}

/* 1 if vector v has case t (see vector_case). */
static int has_case(const zuc_vector *v, int t) {
  return t < 0 ? v->keystream != NULL || v->ct != NULL : v->has_tag[t];
}

/* The vectors through the many-streams API, one copy per lane, keystream
 * lanes staggered, MACs with every method this CPU runs. */
static void check_vectors_lanes(const zuc_impl *impl, call *c, verify_section *sec) {
  const unsigned lanes = impl->lanes;
  if (lanes == 0 || lanes > ZUC_LANES_MAX) return; /* check_kernel fails it */
  zuc_streams *s = &c->s;
  for (size_t vi = 0; vi < file->n; vi++)
    for (int t = -1; t < KC_ZUC_TAGS; t++)
      for (size_t m = 0; has_case(&file->zuc[vi], t) && m < (t < 0 ? 1 : n_methods); m++) {
        zuc_op op = vector_case(&file->zuc[vi], t, METHODS[m], s, lanes, 1);
        int rc = zuc_streams_run(impl, &op, s, s->out);
        long bad = rc == ZUC_OK ? zuc_streams_differ(&op, s) : 0;
        char text[64];
        zuc_op_text(&op, text, sizeof text);
        if (bad < 0)
          sec->vectors += t < 0 ? lanes : 1;
        else
          verify_failure(sec, "%s: %s, lane %ld of %u (%zu bits): differs from the vector (rc %d)",
                         file->zuc[vi].label, text, bad, lanes, s->bits[bad], rc);
      }
}

/* The raw kernel against the reference kernel, lane by lane, on random
 * lane states (any 31-bit cells and 32-bit R1/R2 will do for a kernel):
 * KERNEL_STEPS (keystream_xor into random messages), each lane's output
 * and state. */
static void check_kernel(const zuc_impl *impl, const zuc_impl *ref, uint64_t seed,
                         verify_section *sec) {
  static const char *const steps[] = {"init_rounds", "keystream_block", "keystream_xor",
                                      "keystream_word", "init_more_rounds"};
  unsigned lanes = impl->lanes, rl = ref->lanes;
  if (lanes == 0 || lanes > ZUC_LANES_MAX || rl == 0 || rl > ZUC_LANES_MAX) {
    verify_failure(sec, "kernel: %u lanes (reference %u): outside 1..%d", lanes, rl, ZUC_LANES_MAX);
    return;
  }
  static zuc_ref_lanes m;
  uint32_t state[ZUC_STATE_WORDS * ZUC_LANES_MAX], word[ZUC_LANES_MAX];
  uint8_t ks[ZUC_LANES_MAX][64], msg[ZUC_LANES_MAX][64];
  uint8_t *rows[ZUC_LANES_MAX];
  const uint8_t *src[ZUC_LANES_MAX];
  kc_rows(ks[0], 64, lanes, rows);
  for (unsigned j = 0; j < lanes; j++) src[j] = msg[j];
  kc_rng r;
  kc_rng_seed(&r, seed ^ 0x6B65726E656CULL);
  for (int k = 0; k < KERNEL_STATES; k++) {
    zuc_random_states(&r, state, 1, lanes);
    zuc_ref_load(&m, ref, state, lanes);
    int failed = 0;
    for (size_t n = 0; n < sizeof KERNEL_STEPS / sizeof KERNEL_STEPS[0] && !failed; n++) {
      const zuc_step step = KERNEL_STEPS[n];
      if (step == ZUC_INIT_MORE) impl->init_more_rounds(state);
      if (step == ZUC_INIT) impl->init_rounds(state);
      if (step == ZUC_BLOCK) impl->keystream_block(state, rows);
      if (step == ZUC_XOR)
        kc_rng_bytes(&r, msg[0], sizeof msg), impl->keystream_xor(state, rows, src);
      if (step == ZUC_WORD) impl->keystream_word(state, word);
      zuc_ref_step(&m, step, src);
      for (unsigned j = 0; j < lanes && !failed; j++) {
        if ((step == ZUC_BLOCK || step == ZUC_XOR) && (failed = memcmp(ks[j], m.block[j], 64) != 0))
          verify_failure(sec, "kernel state %d, %s (step %zu), lane %u: output differs at byte %ld",
                         k, steps[step], n, j, verify_first_diff(ks[j], m.block[j], 64));
        if (step == ZUC_WORD && (failed = word[j] != m.word[j]))
          verify_failure(sec, "kernel state %d, %s (step %zu): lane %u gave %08x, want %08x", k,
                         steps[step], n, j, word[j], m.word[j]);
      }
      long d = zuc_ref_differs(&m, state);
      unsigned j = (unsigned)(d / ZUC_STATE_WORDS);
      int w = (int)(d % ZUC_STATE_WORDS);
      if (!failed && (failed = d >= 0))
        verify_failure(sec,
                       "kernel state %d, after %s (step %zu): lane %u word %d is %08x, want %08x", k,
                       steps[step], n, j, w, state[w * lanes + j], m.state[j][w * rl]);
    }
    if (!failed) sec->cases++;
  }
}

static void check_impl(const kc_impl_view *v, const verify_progress *p, verify_section *sec,
                       const verify_run *r) {
  const zuc_impl *impl = v->impl;
  call *c = new_call();
  verify_step(p, "vectors, kernel");
  check_vectors_lanes(impl, c, sec);
  check_kernel(impl, r->ref, r->seed, sec);
  unsigned lanes = impl->lanes ? impl->lanes : 1;
  size_t n_cases = n_shapes * systematic_calls(lanes) + r->n_random;
  verify_step(p, "%zu differential calls", n_cases);
  for (size_t i = 0; i < n_cases; i++) {
    run_case(impl, r->ref, r->seed, i, lanes, 0, c, sec);
    verify_tick(i, n_cases, 64);
  }
  free(c);
}

/* The vectors through the one-stream API, and through ipsec-mb. */
static void api_vectors(verify_section *sec) {
  call *c = new_call();
  zuc_streams *s = &c->s;
  for (size_t vi = 0; vi < file->n; vi++) {
    const zuc_vector *v = &file->zuc[vi];
    if (v->keystream) {
      zuc_state st;
      uint32_t words[64];
      size_t n = v->ks_bytes / 4;
      int rc = zuc_init(&st, v->variant, v->key, zuc_key_len(v->variant), v->iv, v->iv_len, 0);
      int ok = rc == ZUC_OK;
      if (ok) zuc_keystream(&st, words, n);
      for (size_t i = 0; ok && i < n; i++) ok = words[i] == zuc_be32(v->keystream + 4 * i);
      VERIFY_COUNT(sec, vectors, ok, "%s: zuc_init + zuc_keystream wrong (rc %d)", v->label, rc);
    }
    if (v->nia6_tag_bytes) {
      uint8_t tag[16];
      int rc = zuc_nia6(v->key, 32, v->iv, v->iv_len, v->msg, v->bits / 8, v->nia6_tag_bytes, tag);
      VERIFY_COUNT(sec, vectors, rc == ZUC_OK && memcmp(tag, v->nia6_tag, v->nia6_tag_bytes) == 0,
                   "%s: zuc_nia6 differs from the vector (rc %d)", v->label, rc);
    }
    for (int t = -1; t < KC_ZUC_TAGS; t++) {
      if (!has_case(v, t)) continue;
      zuc_op op = vector_case(v, t, ZUC_MAC_CLMUL, s, 1, 0);
      char text[64], err[256];
      zuc_op_text(&op, text, sizeof text);
      int rc = zuc_streams_one(&op, s, s->out), taken;
      VERIFY_COUNT(sec, vectors, rc == ZUC_OK && zuc_streams_differ(&op, s) < 0,
                   "%s: %s, one-stream API: differs from the vector (rc %d)", v->label, text, rc);
      if (!imb || !zuc_imb_has(&op)) continue;
      rc = zuc_streams_imb(imb, &op, s, s->out, &taken, err, sizeof err);
      VERIFY_CHECK(sec, rc == 0 && taken && zuc_streams_differ(&op, s) < 0,
                   "%s: %s, ipsec-mb: differs from the vector (%s)", v->label, text,
                   rc ? err : "ran");
    }
  }
  free(c);
}

/* zuc_keystream in uneven pieces equals zuc_encrypt of zeros. */
static int keystream_in_pieces(const zuc_op *op, const uint8_t *key, const uint8_t *iv) {
  static const uint8_t zeros[256];
  static const size_t pieces[] = {1, 3, 16, 17, 2, 25};
  uint32_t words[64];
  uint8_t ks[256];
  zuc_state st;
  size_t kl = zuc_key_len(op->variant), at = 0;
  int ok = zuc_init(&st, op->variant, key, kl, iv, op->iv_len, 0) == ZUC_OK;
  for (size_t q = 0; ok && q < sizeof pieces / sizeof pieces[0]; q++) {
    zuc_keystream(&st, words + at, pieces[q]);
    at += pieces[q];
  }
  ok &= zuc_encrypt(op->variant, key, kl, iv, op->iv_len, zeros, ks, 8 * 4 * at) == ZUC_OK;
  for (size_t i = 0; ok && i < at; i++) ok = words[i] == zuc_be32(ks + 4 * i);
  return ok;
}

/* The one-stream API against the reference (many-streams API, one
 * stream), also through impl NULL (the best kernel). */
static void api_random(const zuc_impl *ref, uint64_t seed, size_t count, verify_section *sec) {
  call *c = new_call();
  zuc_streams *s = &c->s;
  s->n = 1;
  s->in[0] = c->data[0];
  kc_rng r;
  kc_rng_seed(&r, seed ^ 0xA91ULL);
  for (size_t k = 0; k < count; k++) {
    const zuc_op *op = &shapes[k % n_shapes];
    zuc_random_key_iv(&r, s->key[0], zuc_key_len(op->variant), s->iv[0], op->iv_len);
    size_t bits = s->bits[0] = (size_t)kc_rng_below(&r, 8 * 1024 + 1);
    kc_rng_bytes(&r, c->data[0], 1024);
    char text[64];
    zuc_op_text(op, text, sizeof text);
    int rc_ref = zuc_streams_run(ref, op, s, s->want);
    int rc = zuc_streams_one(op, s, s->out);
    VERIFY_CHECK(sec, rc == ZUC_OK && rc_ref == ZUC_OK && zuc_streams_differ(op, s) < 0,
                 "one-stream %s, %zu bits: differs from the reference (rc %d/%d)", text, bits, rc,
                 rc_ref);
    rc = zuc_streams_run(NULL, op, s, s->out);
    VERIFY_CHECK(sec, rc == ZUC_OK && zuc_streams_differ(op, s) < 0,
                 "impl NULL %s, %zu bits: differs from the reference (rc %d)", text, bits, rc);
    if (!op->mac)
      VERIFY_CHECK(sec, keystream_in_pieces(op, s->key[0], s->iv[0]),
                   "zuc_keystream in pieces differs from zuc_encrypt of zeros (%s)", text);
  }
  free(c);
}

/* impl NULL: the library picks a kernel per batch by the streams left (an
 * interleaved one only for more than one group's worth), so calls of the
 * stream counts around every lane count, against both oracles. */
static void api_library_choice(const zuc_impl *ref, uint64_t seed, verify_section *sec) {
  static const size_t counts[] = {1, 2, 3, 4, 5, 8, 9, 15, 16, 17, 31, 32, 33, 47, 48, MAX_STREAMS};
  _Static_assert(MAX_STREAMS > 48, "counts[] must fit MAX_STREAMS");
  call *c = new_call();
  for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
    for (size_t rep = 0; rep < 2; rep++) /* two random shapes per count, past the systematic cases */
      run_case(NULL, ref, seed ^ 0xC401CEULL, n_shapes * systematic_calls(1) + 2 * k + rep, 1,
               counts[k], c, sec);
  free(c);
}

/* 23-byte IVs load like their 25-byte expansion (every tag set). */
static void api_iv23(uint64_t seed, verify_section *sec) {
  kc_rng r;
  kc_rng_seed(&r, seed ^ 0x1523ULL);
  for (int k = 0; k < 32; k++) {
    uint8_t key[32], iv23[23], iv25[25];
    kc_rng_bytes(&r, key, sizeof key);
    kc_rng_bytes(&r, iv23, sizeof iv23);
    expand_iv23(iv23, iv25);
    unsigned tag = k % 4 == 0 ? 0 : TAGS[k % 4 - 1];
    zuc_state a, b;
    int rc_a = zuc_init(&a, ZUC_256, key, 32, iv23, 23, tag);
    int rc_b = zuc_init(&b, ZUC_256, key, 32, iv25, 25, tag);
    VERIFY_CHECK(sec, rc_a == ZUC_OK && rc_b == ZUC_OK && memcmp(&a, &b, sizeof a) == 0,
                 "zuc_init with a 23-byte IV differs from its 25-byte expansion (tag %u)", tag);
  }
}

/* Lookups, names, lane counts. */
static void api_lookups(const kc_desc *d, const kc_view_list *impls, verify_section *sec) {
  verify_check_lookups(d, impls, sec);
  for (size_t i = 0; i < impls->n; i++) {
    const zuc_impl *m = impls->v[i].impl;
    VERIFY_CHECK(sec, m->lanes >= 1 && m->lanes <= ZUC_LANES_MAX, "impl '%s' has %u lanes (max %d)",
                 m->name, m->lanes, ZUC_LANES_MAX);
  }
}

/* Every error code where the API documents it. */
static void api_errors(const kc_view_list *impls, verify_section *sec) {
  uint8_t key[32] = {1}, iv[25] = {2}, msg[16] = {3}, out[16], tag[16];
  zuc_state st;
  static const struct {
    const char *what;
    zuc_variant variant;
    size_t key_len, iv_len;
    uint8_t iv17; /* IV byte 17 */
    unsigned tag_bits;
    int want;
  } init_cases[] = {
      {"zuc128 key 15 bytes", ZUC_128, 15, 16, 0, 0, ZUC_ERR_KEY_LENGTH},
      {"zuc128 key 32 bytes", ZUC_128, 32, 16, 0, 0, ZUC_ERR_KEY_LENGTH},
      {"zuc256 key 16 bytes", ZUC_256, 16, 25, 0, 0, ZUC_ERR_KEY_LENGTH},
      {"zuc128 IV 25 bytes", ZUC_128, 16, 25, 0, 0, ZUC_ERR_IV_LENGTH},
      {"zuc256 IV 24 bytes", ZUC_256, 32, 24, 0, 0, ZUC_ERR_IV_LENGTH},
      {"zuc256 IV 16 bytes", ZUC_256, 32, 16, 0, 0, ZUC_ERR_IV_LENGTH},
      {"zuc256 IV17 top bit", ZUC_256, 32, 25, 0x80, 0, ZUC_ERR_IV_VALUE},
      {"zuc256 IV17 second bit", ZUC_256, 32, 25, 0x40, 0, ZUC_ERR_IV_VALUE},
      {"zuc256 tag 48", ZUC_256, 32, 25, 0, 48, ZUC_ERR_TAG_LENGTH},
      {"zuc128 tag 64", ZUC_128, 16, 16, 0, 64, ZUC_ERR_TAG_LENGTH},
      {"variant 192", (zuc_variant)192, 24, 16, 0, 0, ZUC_ERR_VARIANT},
      {"zuc_nea6 key 16 bytes", ZUC_NEA6, 16, 16, 0, 0, ZUC_ERR_KEY_LENGTH},
      {"zuc_nea6 IV 25 bytes", ZUC_NEA6, 32, 25, 0, 0, ZUC_ERR_IV_LENGTH},
      {"zuc_nea6 IV 23 bytes", ZUC_NEA6, 32, 23, 0, 0, ZUC_ERR_IV_LENGTH},
      {"zuc_nea6 tag 32", ZUC_NEA6, 32, 16, 0, 32, ZUC_ERR_TAG_LENGTH},
      {"zuc_nea6 (valid)", ZUC_NEA6, 32, 16, 0, 0, ZUC_OK},
      {"zuc256 IV17 = 3f (valid)", ZUC_256, 32, 25, 0x3F, 128, ZUC_OK},
  };
  for (size_t i = 0; i < sizeof init_cases / sizeof init_cases[0]; i++) {
    memset(iv, 0, sizeof iv);
    iv[17] = init_cases[i].iv17;
    int rc = zuc_init(&st, init_cases[i].variant, key, init_cases[i].key_len, iv,
                      init_cases[i].iv_len, init_cases[i].tag_bits);
    VERIFY_CHECK(sec, rc == init_cases[i].want, "zuc_init %s returned %d, want %d",
                 init_cases[i].what, rc, init_cases[i].want);
  }
  memset(iv, 0, sizeof iv);
  VERIFY_CHECK(sec, zuc_mac(ZUC_256, key, 32, iv, 25, msg, 8, 0, tag) == ZUC_ERR_TAG_LENGTH,
               "zuc_mac with tag 0 does not return ZUC_ERR_TAG_LENGTH");
  VERIFY_CHECK(sec, zuc_mac(ZUC_128, key, 16, iv, 16, msg, 8, 128, tag) == ZUC_ERR_TAG_LENGTH,
               "zuc_mac zuc128 tag 128 does not return ZUC_ERR_TAG_LENGTH");
  VERIFY_CHECK(sec, zuc_encrypt(ZUC_128, key, 16, iv, 16, NULL, out, 8) == ZUC_ERR_ARGUMENT,
               "zuc_encrypt with in NULL does not return ZUC_ERR_ARGUMENT");
  VERIFY_CHECK(sec, zuc_mac(ZUC_NEA6, key, 32, iv, 16, msg, 8, 32, tag) == ZUC_ERR_VARIANT,
               "zuc_mac on ZUC_NEA6 (whose MAC is NIA6) does not return ZUC_ERR_VARIANT");
  for (int i = 0; i < 7; i++)
    VERIFY_CHECK(sec, zuc_strerror(-i) && *zuc_strerror(-i), "zuc_strerror(%d) is empty", -i);

  /* The many-streams API on every runnable implementation. */
  const uint8_t *keys[1] = {key}, *ivs[1] = {iv}, *in[1] = {msg}, *null_keys[1] = {NULL};
  uint8_t *outs[1] = {out};
  size_t bits = 8;
  for (size_t i = 0; i < impls->n; i++) {
    const zuc_impl *m = impls->v[i].impl;
    if (kc_view_runs(&impls->v[i]) == KC_UNAVAILABLE) continue;
    int rc = zuc_encrypt_lanes(m, ZUC_256, 1, keys, ivs, 24, in, outs, &bits);
    VERIFY_CHECK(sec, rc == ZUC_ERR_IV_LENGTH, "%s: zuc_encrypt_lanes with iv_len 24 returned %d",
                 m->name, rc);
    rc = zuc_mac_lanes(m, ZUC_MAC_CLMUL, ZUC_256, 1, keys, ivs, 25, in, &bits, 16, outs);
    VERIFY_CHECK(sec, rc == ZUC_ERR_TAG_LENGTH, "%s: zuc_mac_lanes with tag 16 returned %d",
                 m->name, rc);
    rc = zuc_encrypt_lanes(m, ZUC_128, 1, null_keys, ivs, 16, in, outs, &bits);
    VERIFY_CHECK(sec, rc == ZUC_ERR_ARGUMENT, "%s: zuc_encrypt_lanes with a NULL key returned %d",
                 m->name, rc);
  }
}

static int verify_zuc(const kc_desc *d, const verify_options *o) {
  kc_view_list impls;
  verify_run r;
  if (verify_start(d, o, &impls, &r) != 0 || !(file = kc_vectors_find(d->name))) return 2;
  fprintf(stderr, "verify: %zu ZUC vectors (IV forms counted apart) from %s\n", file->n,
          file->path);
  pick_methods();
  make_shapes();
  char err[256];
  imb = kc_imb_open(KC_IMB_AUTO, err, sizeof err);
  if (imb)
    printf("NOTE: ZUC oracle Intel ipsec-mb %s, job API, arch %s (init_mb_mgr_auto)\n",
           kc_imb_version(), kc_imb_arch(imb));
  else
    printf("NOTE: %s; ZUC differential cases compare with the reference only\n", err);

  verify_section api = {0};
  fprintf(stderr, "verify: zuc api\n");
  api_vectors(&api);
  api_random(r.ref, o->seed, o->quick ? 2 * n_shapes : 20 * n_shapes, &api);
  api_iv23(o->seed, &api);
  api_library_choice(r.ref, o->seed, &api);
  api_lookups(d, &impls, &api);
  api_errors(&impls, &api);
  verify_report("zuc api", &api, 0);

  verify_each_impl(&impls, o, d->label, check_impl, &r);
  kc_imb_close(imb);
  imb = NULL;
  return 0;
}

const verify_hooks kc_zuc_verify = {.run = verify_zuc, .random_full = 1000, .random_quick = 100};
