/*
 * verify's ZUC tests (see verify.c for the command line and the output):
 * ZUC-128 and ZUC-256 keystream, encryption and MACs on every registered
 * implementation, against two oracles: the scalar `reference` (bit lengths,
 * everything) and Intel ipsec-mb 1.3's job API (whole-byte EEA3 lengths of
 * 1..8188 bytes, EIA3 lengths of 1..65504 bits: its limits).
 *
 * Section "zuc api", run once:
 *   - the vectors of tests/vectors/zuc.json through the one-stream API
 *     (zuc_init + zuc_keystream, zuc_encrypt of zeros, zuc_mac with every tag
 *     given); ZUC-256 with the IV in each form the vector gives and, where it
 *     gives only the 25-byte form, also packed here into 23 bytes; ipsec-mb
 *     reproduces them too (so its use below is sound);
 *   - the one-stream API against the reference on random inputs and bit
 *     lengths, zuc_keystream in uneven pieces, 23-byte IVs against their
 *     25-byte expansion, impl NULL meaning the best kernel;
 *   - impl NULL on 1..MAX_STREAMS streams (the library's kernel per batch,
 *     which may change at every lane count), against both oracles;
 *   - lookups, lane counts and every documented error code.
 *
 * Per implementation (native kernels this CPU runs, SIMDe builds):
 *   1. the vectors through the many-streams API: every lane carries the
 *      vector (keystream lanes of different lengths), MACs with every tag
 *      length and every MAC method this CPU runs (pick_methods);
 *   2. the raw kernel: init_rounds, then keystream_block and keystream_xor
 *      (into random messages) in turn, then single rounds (keystream_word),
 *      on random lane states, against the reference kernel lane by lane
 *      (state and output);
 *   3. differential calls against both oracles: systematic ones (every bit
 *      length 0..SYSTEMATIC_BITS for each variant, operation, IV form, tag
 *      length and MAC method, one length per lane) and random ones (1000,
 *      100 with --quick: any of those, 1..MAX_STREAMS streams of different
 *      random bit lengths, misaligned buffers, in-place encryption).  Each
 *      also checks the guards around every buffer, that inputs are
 *      unchanged, and that the unused low bits of a last partial byte are 0.
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
#define KERNEL_BLOCKS 3                     /* keystream blocks per kernel check */
#define KERNEL_WORDS 5                      /* then single rounds (keystream_word) */
#define KEY_MAX 32
#define IV_MAX 25
#define MAX_VECTORS 64

static const unsigned TAGS[] = {32, 64, 128};
#define N_TAGS 3

/* The MAC methods: ZUC_MAC_CLMUL (the widest this CPU has), the compare
 * method, then each carry-less width on its own; pick_methods keeps those
 * this CPU runs and names the others in a NOTE. */
static const zuc_mac_method ALL_METHODS[] = {ZUC_MAC_CLMUL, ZUC_MAC_COMPARE, ZUC_MAC_CLMUL128,
                                             ZUC_MAC_CLMUL256, ZUC_MAC_CLMUL512};
#define N_ALL_METHODS (sizeof ALL_METHODS / sizeof ALL_METHODS[0])
static zuc_mac_method METHODS[N_ALL_METHODS];
static size_t n_methods;

static kc_imb *imb; /* NULL when ipsec-mb cannot run here */

static void pick_methods(void) {
  n_methods = 0;
  for (size_t m = 0; m < N_ALL_METHODS; m++) {
    if (zuc_mac_method_supported(ALL_METHODS[m]))
      METHODS[n_methods++] = ALL_METHODS[m];
    else
      printf("NOTE: MAC method %s not run: this CPU lacks its instructions\n",
             zuc_method_name(ALL_METHODS[m]));
  }
}

/* ------------------------------------------------------------------ */
/* ZUC-256 IV forms (test-side: the library does this itself)           */
/* ------------------------------------------------------------------ */

/* 23-byte IV -> 25 bytes: IV0..IV16, then the eight 6-bit fields IV17..IV24,
 * packed most significant first in the last six bytes. */
static void expand_iv23(const uint8_t iv23[23], uint8_t iv25[25]) {
  memcpy(iv25, iv23, 17);
  uint64_t acc = 0;
  for (int i = 0; i < 6; i++) acc = acc << 8 | iv23[17 + i];
  for (int i = 0; i < 8; i++) iv25[17 + i] = (uint8_t)(acc >> (42 - 6 * i) & 0x3F);
}

/* ------------------------------------------------------------------ */
/* Vectors                                                              */
/* ------------------------------------------------------------------ */

/* zuc.json, compiled in (vectors.h): one entry per vector and IV form. */
static const zuc_vector *vectors;
static size_t n_vectors;

static void load_vectors(const kc_desc *d) {
  vectors = d->vectors->zuc;
  n_vectors = d->vectors->n;
  fprintf(stderr, "verify: %zu ZUC vectors (IV forms counted apart) from %s\n", n_vectors,
          d->vectors->path);
}

/* ------------------------------------------------------------------ */
/* One differential call                                                */
/* ------------------------------------------------------------------ */

/* What a call does: encryption, or a MAC with a tag length and method; on
 * which variant and IV form. */
typedef struct shape {
  zuc_variant variant;
  size_t iv_len;
  int mac;
  unsigned tag_bits;
  zuc_mac_method method;
} shape;

/* enc and every MAC of each IV form. */
static shape shapes[3 * (1 + N_TAGS * N_ALL_METHODS)];
static size_t n_shapes;

static void make_shapes(void) {
  static const struct {
    zuc_variant v;
    size_t iv_len;
  } forms[] = {{ZUC_128, 16}, {ZUC_256, 25}, {ZUC_256, 23}};
  n_shapes = 0;
  for (size_t f = 0; f < 3; f++) {
    shapes[n_shapes++] = (shape){forms[f].v, forms[f].iv_len, 0, 0, ZUC_MAC_CLMUL};
    for (size_t t = 0; t < N_TAGS; t++)
      for (size_t m = 0; m < n_methods && (forms[f].v == ZUC_256 || TAGS[t] == 32); m++)
        shapes[n_shapes++] = (shape){forms[f].v, forms[f].iv_len, 1, TAGS[t], METHODS[m]};
  }
}

static void shape_text(const shape *sh, char *buf, size_t size) {
  if (sh->mac)
    snprintf(buf, size, "zuc%d mac%u/%s iv%zu", (int)sh->variant, sh->tag_bits,
             zuc_method_name(sh->method), sh->iv_len);
  else
    snprintf(buf, size, "zuc%d enc iv%zu", (int)sh->variant, sh->iv_len);
}

/* One call's n streams, where their buffers sit, and the oracles' outputs. */
typedef struct call {
  shape sh;
  size_t n;
  int in_place; /* encryption writes over the input */
  uint8_t keys[MAX_STREAMS][KEY_MAX], ivs[MAX_STREAMS][IV_MAX];
  size_t bits[MAX_STREAMS], in_off[MAX_STREAMS], out_off[MAX_STREAMS];
  uint8_t data[MAX_STREAMS][MAX_STREAM_BYTES + 1];
  uint8_t want_ref[MAX_STREAMS][MAX_STREAM_BYTES + 16], want_imb[MAX_STREAMS][MAX_STREAM_BYTES + 16];
  int imb_has[MAX_STREAMS];
} call;

/* The library's call (ours or the reference's; NULL: its choice). */
static int run_lib(const zuc_impl *impl, const call *c, const uint8_t *const in[],
                   uint8_t *const out[]) {
  const uint8_t *keys[MAX_STREAMS], *ivs[MAX_STREAMS];
  for (size_t i = 0; i < c->n; i++) keys[i] = c->keys[i], ivs[i] = c->ivs[i];
  return zuc_lanes_call(impl, c->sh.mac, c->sh.method, c->sh.variant, c->n, keys, ivs, c->sh.iv_len,
                        in, out, c->bits, c->sh.tag_bits);
}

/* ipsec-mb on the streams it accepts (see ipsecmb.h); imb_has[i] says
 * which.  Returns 0, or -1 with its message in err. */
static int run_imb(call *c, char *err, size_t err_size) {
  const uint8_t *keys[MAX_STREAMS], *ivs[MAX_STREAMS], *in[MAX_STREAMS];
  uint8_t *out[MAX_STREAMS];
  size_t lens[MAX_STREAMS], m = 0;
  for (size_t i = 0; i < c->n; i++) {
    size_t b = c->bits[i];
    c->imb_has[i] = imb && b > 0 &&
                    (c->sh.mac ? b <= KC_IMB_ZUC_MAX_BITS : b % 8 == 0 && b / 8 <= KC_IMB_ZUC_MAX_BYTES);
    if (!c->imb_has[i]) continue;
    keys[m] = c->keys[i];
    ivs[m] = c->ivs[i];
    in[m] = c->data[i];
    out[m] = c->want_imb[i];
    lens[m++] = c->sh.mac ? b : b / 8;
  }
  return m == 0 ? 0
                : zuc_imb_call(imb, c->sh.mac, c->sh.variant, m, keys, ivs, c->sh.iv_len, in, out, lens,
                               c->sh.tag_bits, err, err_size);
}

/* One call of `impl` on c, every stream checked against the oracles, and
 * the buffers.  Returns the number of failed checks. */
static int check_call(const zuc_impl *impl, const zuc_impl *ref, call *c, const char *what,
                      verify_section *sec) {
  const uint8_t *in[MAX_STREAMS];
  uint8_t *out[MAX_STREAMS];
  for (size_t i = 0; i < c->n; i++) in[i] = c->data[i], out[i] = c->want_ref[i];
  int rc = run_lib(ref, c, in, out);
  if (rc != ZUC_OK) {
    verify_failure(sec, "%s: reference returned %s", what, zuc_strerror(rc));
    return 1;
  }
  int failed = 0;
  char err[256];
  if (run_imb(c, err, sizeof err) != 0) {
    verify_failure(sec, "%s: %s", what, err);
    failed++;
    memset(c->imb_has, 0, sizeof c->imb_has);
  }

  verify_bufs bufs[MAX_STREAMS];
  size_t tag_bytes = c->sh.mac ? c->sh.tag_bits / 8 : 0;
  for (size_t i = 0; i < c->n; i++) {
    size_t len = zuc_bytes_of(c->bits[i]);
    verify_bufs_place(&bufs[i], c->data[i], len, tag_bytes ? tag_bytes : len, c->in_off[i],
                      c->out_off[i], c->in_place && !tag_bytes);
    in[i] = bufs[i].in.ptr;
    out[i] = bufs[i].dst;
  }
  rc = run_lib(impl, c, in, out);
  if (rc != ZUC_OK) {
    verify_failure(sec, "%s: returned %s", what, zuc_strerror(rc));
    failed++;
  }
  for (size_t i = 0; i < c->n; i++) {
    size_t bits = c->bits[i], len = tag_bytes ? tag_bytes : zuc_bytes_of(bits);
    char stream[240];
    snprintf(stream, sizeof stream, "%s: stream %zu (%zu bits)", what, i, bits);
    if (rc == ZUC_OK) {
      failed += verify_differs(out[i], c->want_ref[i], len, "the reference", stream, sec);
      if (c->imb_has[i]) failed += verify_differs(out[i], c->want_imb[i], len, "ipsec-mb", stream, sec);
      if (!tag_bytes && bits % 8 && (out[i][len - 1] & (0xFF >> (bits % 8)))) {
        verify_failure(sec, "%s: unused low bits of the last byte are not zero (%02x)", stream,
                       out[i][len - 1]);
        failed++;
      }
    }
    failed += verify_bufs_check(&bufs[i], "the call", stream, sec);
    verify_bufs_free(&bufs[i]);
  }
  return failed;
}

/* ------------------------------------------------------------------ */
/* Differential cases                                                   */
/* ------------------------------------------------------------------ */

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
    c->sh = shapes[index / per_shape];
    first_bits = (index % per_shape) * lanes;
    c->n = lanes;
  } else {
    c->sh = shapes[kc_rng_below(&r, n_shapes)];
    c->n = n ? n : 1 + (size_t)kc_rng_below(&r, MAX_STREAMS);
  }
  c->in_place = !c->sh.mac && kc_rng_below(&r, 4) == 0;
  for (size_t i = 0; i < c->n; i++) {
    zuc_random_key_iv(&r, c->keys[i], zuc_key_len(c->sh.variant), c->ivs[i], c->sh.iv_len);
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
    c->bits[i] = b;
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
  shape_text(&c->sh, sh, sizeof sh);
  snprintf(what, sizeof what, "%scase %zu: %s, %zu streams%s", impl ? "" : "impl NULL, ", index, sh,
           c->n, c->in_place ? ", in place" : "");
  if (check_call(impl, ref, c, what, sec) == 0) sec->cases++;
}

static call *new_call(void) {
  call *c = calloc(1, sizeof *c);
  verify_need(c != NULL);
  return c;
}

/* ------------------------------------------------------------------ */
/* Per implementation                                                   */
/* ------------------------------------------------------------------ */

/* The vectors through the many-streams API, one copy per lane. */
static void check_vectors_lanes(const zuc_impl *impl, verify_section *sec) {
  static const uint8_t zeros[512];
  static uint8_t buf[ZUC_LANES_MAX][512];
  const unsigned lanes = impl->lanes;
  if (lanes == 0 || lanes > ZUC_LANES_MAX) return; /* check_kernel fails it */
  const uint8_t *keys[ZUC_LANES_MAX], *ivs[ZUC_LANES_MAX], *in[ZUC_LANES_MAX];
  uint8_t *out[ZUC_LANES_MAX];
  size_t bits[ZUC_LANES_MAX];
  for (size_t vi = 0; vi < n_vectors; vi++) {
    const zuc_vector *v = &vectors[vi];
    for (unsigned i = 0; i < lanes; i++) keys[i] = v->key, ivs[i] = v->iv, out[i] = buf[i];
    if (v->keystream) {
      /* Lane i encrypts zeros of the keystream length less i bits (up to
       * 31), so lanes of one call end at different points. */
      for (unsigned i = 0; i < lanes; i++) bits[i] = 8 * v->ks_bytes - i % 32, in[i] = zeros;
      int rc = zuc_encrypt_lanes(impl, v->variant, lanes, keys, ivs, v->iv_len, in, out, bits);
      for (unsigned i = 0; i < lanes; i++) {
        size_t full = bits[i] / 8;
        uint8_t last_mask = (uint8_t)(0xFF00 >> (bits[i] % 8));
        if (rc == ZUC_OK && verify_first_diff(out[i], v->keystream, full) < 0 &&
            (bits[i] % 8 == 0 || out[i][full] == (v->keystream[full] & last_mask))) {
          sec->vectors++;
          continue;
        }
        verify_failure(sec, "%s: lane %u of %u (%zu bits): wrong keystream (rc %d)", v->label, i,
                       lanes, bits[i], rc);
        break;
      }
      continue;
    }
    for (size_t t = 0; t < N_TAGS; t++)
      for (size_t m = 0; v->has_tag[t] && m < n_methods; m++) {
        for (unsigned i = 0; i < lanes; i++) bits[i] = v->bits, in[i] = v->msg;
        int rc = zuc_mac_lanes(impl, METHODS[m], v->variant, lanes, keys, ivs, v->iv_len, in, bits,
                               TAGS[t], out);
        unsigned bad = 0;
        while (bad < lanes && rc == ZUC_OK && verify_first_diff(out[bad], v->tag[t], TAGS[t] / 8) < 0)
          bad++;
        if (bad == lanes) {
          sec->vectors++;
          continue;
        }
        char got[33] = "-";
        if (rc == ZUC_OK) kc_hex_encode(out[bad], TAGS[t] / 8, got);
        verify_failure(sec, "%s: tag%u/%s lane %u of %u: got %s (rc %d)", v->label, TAGS[t],
                       zuc_method_name(METHODS[m]), bad, lanes, got, rc);
      }
  }
}

/* The raw kernel against the reference kernel, lane by lane, on random
 * lane states (any 31-bit cells and 32-bit R1/R2 will do for a kernel).
 * The reference may itself run several lanes: each lane of the kernel
 * under test is compared with a reference state holding copies of it. */
static void check_kernel(const zuc_impl *impl, const zuc_impl *ref, uint64_t seed,
                         verify_section *sec) {
  unsigned lanes = impl->lanes, rl = ref->lanes;
  if (lanes == 0 || lanes > ZUC_LANES_MAX || rl == 0 || rl > ZUC_LANES_MAX) {
    verify_failure(sec, "kernel: %u lanes (reference %u): outside 1..%d", lanes, rl, ZUC_LANES_MAX);
    return;
  }
  uint32_t state[ZUC_STATE_WORDS * ZUC_LANES_MAX];
  uint32_t ref_state[ZUC_LANES_MAX][ZUC_STATE_WORDS * ZUC_LANES_MAX];
  uint8_t ks[ZUC_LANES_MAX][64], msg[ZUC_LANES_MAX][64], want[ZUC_LANES_MAX][64];
  uint8_t *rows[ZUC_LANES_MAX], *want_rows[ZUC_LANES_MAX];
  const uint8_t *src[ZUC_LANES_MAX];
  kc_rows(ks[0], 64, lanes, rows);
  kc_rows(want[0], 64, rl, want_rows);
  for (unsigned j = 0; j < lanes; j++) src[j] = msg[j];
  kc_rng r;
  kc_rng_seed(&r, seed ^ 0x6B65726E656CULL);
  for (int k = 0; k < KERNEL_STATES; k++) {
    zuc_random_states(&r, state, 1, lanes);
    for (unsigned j = 0; j < lanes; j++) zuc_lane_to_ref(state, lanes, j, ref_state[j], rl);
    int failed = 0;
    impl->init_rounds(state);
    for (unsigned j = 0; j < lanes; j++) ref->init_rounds(ref_state[j]);
    for (int b = 0; !failed; b++) {
      const char *after = b == 0 ? "init_rounds" : b % 2 ? "keystream_block" : "keystream_xor";
      for (unsigned j = 0; j < lanes && !failed; j++)
        for (int w = 0; w < ZUC_STATE_WORDS && !failed; w++)
          if ((failed = state[w * lanes + j] != ref_state[j][w * rl]))
            verify_failure(sec, "kernel state %d, after %s: lane %u word %d is %08x, want %08x", k,
                           after, j, w, state[w * lanes + j], ref_state[j][w * rl]);
      if (failed || b == KERNEL_BLOCKS) break;
      /* Even blocks: the keystream; odd ones: XORed into random messages. */
      const int fused = b % 2;
      if (fused) {
        kc_rng_bytes(&r, msg[0], sizeof msg);
        impl->keystream_xor(state, rows, src);
      } else {
        impl->keystream_block(state, rows);
      }
      for (unsigned j = 0; j < lanes && !failed; j++) {
        ref->keystream_block(ref_state[j], want_rows);
        for (int i = 0; fused && i < 64; i++) want[0][i] ^= msg[j][i];
        char what[96];
        snprintf(what, sizeof what, "kernel state %d, %s %d, lane %u", k,
                 fused ? "keystream_xor" : "keystream_block", b, j);
        failed = verify_differs(ks[j], want[0], 64, "the reference kernel", what, sec);
      }
    }
    /* Then single rounds, as zuc_keystream's last words run them. */
    for (int w = 0; w < KERNEL_WORDS && !failed; w++) {
      uint32_t got[ZUC_LANES_MAX], want_word[ZUC_LANES_MAX];
      impl->keystream_word(state, got);
      for (unsigned j = 0; j < lanes && !failed; j++) {
        ref->keystream_word(ref_state[j], want_word);
        if ((failed = got[j] != want_word[0]))
          verify_failure(sec, "kernel state %d, keystream_word %d: lane %u gave %08x, want %08x", k,
                         w, j, got[j], want_word[0]);
        for (int i = 0; i < ZUC_STATE_WORDS && !failed; i++)
          if ((failed = state[i * lanes + j] != ref_state[j][i * rl]))
            verify_failure(sec, "kernel state %d, after keystream_word %d: lane %u word %d differs",
                           k, w, j, i);
      }
    }
    if (!failed) sec->cases++;
  }
}

static void check_impl(const kc_impl_view *v, const verify_progress *p, verify_section *sec,
                       const verify_run *r) {
  const zuc_impl *impl = v->impl;
  verify_step(p, "vectors, kernel");
  check_vectors_lanes(impl, sec);
  check_kernel(impl, r->ref, r->seed, sec);
  unsigned lanes = impl->lanes ? impl->lanes : 1;
  size_t n_cases = n_shapes * systematic_calls(lanes) + r->n_random;
  verify_step(p, "%zu differential calls", n_cases);
  call *c = new_call();
  for (size_t i = 0; i < n_cases; i++) {
    run_case(impl, r->ref, r->seed, i, lanes, 0, c, sec);
    verify_tick(i, n_cases, 64);
  }
  free(c);
}

/* ------------------------------------------------------------------ */
/* The shared section                                                   */
/* ------------------------------------------------------------------ */

/* The vectors through the one-stream API, and through ipsec-mb. */
static void api_vectors(verify_section *sec) {
  static const uint8_t zeros[256];
  for (size_t vi = 0; vi < n_vectors; vi++) {
    const zuc_vector *v = &vectors[vi];
    size_t kl = zuc_key_len(v->variant);
    const uint8_t *keys[1] = {v->key}, *ivs[1] = {v->iv}, *in[1] = {v->keystream ? zeros : v->msg};
    uint8_t got[256], *out[1] = {got};
    char err[256];
    if (v->keystream) {
      zuc_state st;
      uint32_t words[64];
      size_t n = v->ks_bytes / 4;
      int rc = zuc_init(&st, v->variant, v->key, kl, v->iv, v->iv_len, 0), ok = rc == ZUC_OK;
      if (ok) zuc_keystream(&st, words, n);
      for (size_t i = 0; ok && i < n; i++) ok = words[i] == zuc_be32(v->keystream + 4 * i);
      VERIFY_COUNT(sec, vectors, ok, "%s: zuc_init + zuc_keystream wrong (rc %d)", v->label, rc);
      rc = zuc_encrypt(v->variant, v->key, kl, v->iv, v->iv_len, zeros, got, 8 * v->ks_bytes);
      VERIFY_COUNT(sec, vectors, rc == ZUC_OK && verify_first_diff(got, v->keystream, v->ks_bytes) < 0,
                   "%s: zuc_encrypt of zeros is not the keystream (rc %d)", v->label, rc);
      if (!imb) continue;
      rc = kc_imb_zuc_encrypt(imb, 1, keys, kl, ivs, v->iv_len, in, out, &v->ks_bytes, err, sizeof err);
      VERIFY_CHECK(sec, rc == 0 && verify_first_diff(got, v->keystream, v->ks_bytes) < 0,
                   "%s: ipsec-mb EEA3 of zeros is not the keystream (%s)", v->label, rc ? err : "ran");
      continue;
    }
    for (size_t t = 0; t < N_TAGS; t++) {
      if (!v->has_tag[t]) continue;
      int rc = zuc_mac(v->variant, v->key, kl, v->iv, v->iv_len, v->msg, v->bits, TAGS[t], got);
      VERIFY_COUNT(sec, vectors, rc == ZUC_OK && verify_first_diff(got, v->tag[t], TAGS[t] / 8) < 0,
                   "%s: zuc_mac tag%u wrong (rc %d)", v->label, TAGS[t], rc);
      if (!imb) continue;
      rc = kc_imb_zuc_mac(imb, 1, keys, kl, ivs, v->iv_len, in, &v->bits, TAGS[t], out, err, sizeof err);
      VERIFY_CHECK(sec, rc == 0 && verify_first_diff(got, v->tag[t], TAGS[t] / 8) < 0,
                   "%s tag%u: ipsec-mb differs from the vector (%s)", v->label, TAGS[t], rc ? err : "ran");
    }
  }
}

/* zuc_keystream in uneven pieces equals zuc_encrypt of zeros. */
static int keystream_in_pieces(const shape *sh, const uint8_t *key, const uint8_t *iv) {
  static const uint8_t zeros[256];
  static const size_t pieces[] = {1, 3, 16, 17, 2, 25};
  uint32_t words[64];
  uint8_t ks[256];
  zuc_state st;
  size_t kl = zuc_key_len(sh->variant), at = 0;
  int ok = zuc_init(&st, sh->variant, key, kl, iv, sh->iv_len, 0) == ZUC_OK;
  for (size_t q = 0; ok && q < sizeof pieces / sizeof pieces[0]; q++) {
    zuc_keystream(&st, words + at, pieces[q]);
    at += pieces[q];
  }
  ok &= zuc_encrypt(sh->variant, key, kl, iv, sh->iv_len, zeros, ks, 8 * 4 * at) == ZUC_OK;
  for (size_t i = 0; ok && i < at; i++) ok = words[i] == zuc_be32(ks + 4 * i);
  return ok;
}

/* The one-stream API against the reference (many-streams API, one
 * stream), also through impl NULL (the best kernel). */
static void api_random(const zuc_impl *ref, uint64_t seed, size_t count, verify_section *sec) {
  static uint8_t msg[1024], got[1024], want[1024];
  kc_rng r;
  kc_rng_seed(&r, seed ^ 0xA91ULL);
  for (size_t k = 0; k < count; k++) {
    const shape *sh = &shapes[k % n_shapes];
    uint8_t key[KEY_MAX], iv[IV_MAX];
    size_t kl = zuc_key_len(sh->variant);
    zuc_random_key_iv(&r, key, kl, iv, sh->iv_len);
    size_t bits = (size_t)kc_rng_below(&r, 8 * sizeof msg + 1);
    kc_rng_bytes(&r, msg, sizeof msg);
    const uint8_t *keys[1] = {key}, *ivs[1] = {iv}, *in[1] = {msg};
    uint8_t *out[1] = {want};
    char text[64];
    shape_text(sh, text, sizeof text);
    int rc_ref = zuc_lanes_call(ref, sh->mac, sh->method, sh->variant, 1, keys, ivs, sh->iv_len, in,
                                out, &bits, sh->tag_bits);
    int rc = sh->mac ? zuc_mac(sh->variant, key, kl, iv, sh->iv_len, msg, bits, sh->tag_bits, got)
                     : zuc_encrypt(sh->variant, key, kl, iv, sh->iv_len, msg, got, bits);
    size_t len = sh->mac ? sh->tag_bits / 8 : zuc_bytes_of(bits);
    VERIFY_CHECK(sec, rc == ZUC_OK && rc_ref == ZUC_OK && verify_first_diff(got, want, len) < 0,
                 "one-stream %s, %zu bits: differs from the reference (rc %d/%d)", text, bits, rc,
                 rc_ref);
    out[0] = got;
    rc = zuc_lanes_call(NULL, sh->mac, sh->method, sh->variant, 1, keys, ivs, sh->iv_len, in, out,
                        &bits, sh->tag_bits);
    VERIFY_CHECK(sec, rc == ZUC_OK && verify_first_diff(got, want, len) < 0,
                 "impl NULL %s, %zu bits: differs from the reference (rc %d)", text, bits, rc);
    if (!sh->mac)
      VERIFY_CHECK(sec, keystream_in_pieces(sh, key, iv),
                   "zuc_keystream in pieces differs from zuc_encrypt of zeros (%s)", text);
  }
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

/* ------------------------------------------------------------------ */
/* Entry point                                                          */
/* ------------------------------------------------------------------ */

static int verify_zuc(const kc_desc *d, const verify_options *o) {
  kc_view_list impls;
  verify_run r;
  if (verify_start(d, o, &impls, &r) != 0) return 2;
  load_vectors(d);
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
