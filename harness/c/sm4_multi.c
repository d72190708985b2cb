/*
 * SM4 on many streams at once (sm4_crypt_multi): what verify, bench and
 * ctcheck check of it.  CBC encryption runs through a kernel's multi-key
 * form, 16 streams side by side; every stream is compared with the scalar
 * reference's sm4_crypt on the same key, IV and message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm4_multi.h"

#define MAX_STREAMS 40 /* verify: up to two passes of 16 and a part */
#define MAX_BLOCKS 6

/* n streams: their keys, IVs and buffers, each stream's key drawn apart. */
typedef struct {
  size_t n;
  sm4_key keys[MAX_STREAMS];
  const sm4_key *key_of[MAX_STREAMS];
  uint8_t raw[MAX_STREAMS][SM4_KEY_BYTES], iv[MAX_STREAMS][SM4_BLOCK_BYTES];
  const uint8_t *ivs[MAX_STREAMS], *in[MAX_STREAMS];
  uint8_t *out[MAX_STREAMS];
} streams;

static void draw(streams *m, size_t n, kc_rng *rng) {
  m->n = n;
  kc_rng_bytes(rng, m->raw[0], sizeof m->raw);
  kc_rng_bytes(rng, m->iv[0], sizeof m->iv);
  for (size_t j = 0; j < n; j++) {
    sm4_set_key(&m->keys[j], m->raw[j]);
    m->key_of[j] = &m->keys[j];
    m->ivs[j] = m->iv[j];
  }
}

static int crypt_multi(const sm4_impl *impl, const kc_block_op *op, const streams *m, size_t len) {
  return sm4_crypt_multi(impl, (sm4_mode)op->mode, op->encrypt ? SM4_ENCRYPT : SM4_DECRYPT, m->n, m->key_of,
                         m->ivs, m->in, m->out, len);
}

int sm4_multi_check(const sm4_impl *impl, uint64_t seed, verify_section *sec) {
  if (!impl->cbc_encrypt_multi) return 0;
  static const size_t COUNTS[] = {1, 2, 15, 16, 17, 33};
  static streams m;
  kc_rng rng;
  kc_rng_seed(&rng, seed ^ 0x3C1u);
  int failed = 0;
  for (size_t c = 0; c < sizeof COUNTS / sizeof COUNTS[0]; c++)
    for (size_t o = 0; o < KC_N_BLOCK_OPS; o++) {
      const kc_block_op *op = &KC_BLOCK_OPS[o];
      const size_t n = COUNTS[c];
      const size_t len = (size_t)kc_rng_below(&rng, MAX_BLOCKS + 1) * SM4_BLOCK_BYTES +
                         (op->mode == KC_MODE_CTR ? (size_t)kc_rng_below(&rng, SM4_BLOCK_BYTES) : 0);
      draw(&m, n, &rng);
      uint8_t data[MAX_STREAMS][MAX_BLOCKS * SM4_BLOCK_BYTES + SM4_BLOCK_BYTES];
      uint8_t want[MAX_STREAMS][sizeof data[0]];
      verify_bufs bufs[MAX_STREAMS];
      char what[160];
      snprintf(what, sizeof what, "sm4_crypt_multi %s, %zu stream(s) of %zu bytes", op->name, n, len);
      for (size_t j = 0; j < n; j++) {
        kc_rng_bytes(&rng, data[j], len);
        verify_bufs_place(&bufs[j], data[j], len, len, kc_rng_below(&rng, 16), kc_rng_below(&rng, 16),
                          kc_rng_below(&rng, 4) == 0);
        m.in[j] = bufs[j].in.ptr;
        m.out[j] = bufs[j].dst;
        sm4_crypt(&sm4_reference_scalar_impl, (sm4_mode)op->mode, op->encrypt ? SM4_ENCRYPT : SM4_DECRYPT,
                  m.key_of[j], m.ivs[j], data[j], want[j], len);
      }
      int rc = crypt_multi(impl, op, &m, len), wrong = rc != SM4_OK;
      if (wrong) verify_failure(sec, "%s: returned %d", what, rc);
      for (size_t j = 0; j < n; j++) {
        char stream[200];
        snprintf(stream, sizeof stream, "%s, stream %zu", what, j);
        if (rc == SM4_OK) wrong += verify_differs(m.out[j], want[j], len, "the reference", stream, sec);
        wrong += verify_bufs_check(&bufs[j], "sm4_crypt_multi", stream, sec);
        verify_bufs_free(&bufs[j]);
      }
      if (wrong == 0) sec->cases++;
      failed += wrong != 0;
    }
  return failed;
}

void sm4_multi_api(verify_section *s) {
  static streams m;
  kc_rng rng;
  kc_rng_seed(&rng, 0x3C2);
  draw(&m, 2, &rng);
  uint8_t buf[2][32] = {{0}};
  m.in[0] = m.out[0] = buf[0];
  m.in[1] = m.out[1] = buf[1];
  int rc = sm4_crypt_multi(NULL, (sm4_mode)7, SM4_ENCRYPT, 2, m.key_of, m.ivs, m.in, m.out, 32);
  VERIFY_CHECK(s, rc == SM4_ERR_ARGUMENT, "sm4_crypt_multi with mode 7 returned %d, want SM4_ERR_ARGUMENT", rc);
  rc = sm4_crypt_multi(NULL, SM4_MODE_CBC, (sm4_direction)5, 2, m.key_of, m.ivs, m.in, m.out, 32);
  VERIFY_CHECK(s, rc == SM4_ERR_ARGUMENT, "sm4_crypt_multi with direction 5 returned %d, want SM4_ERR_ARGUMENT",
               rc);
  rc = sm4_crypt_multi(&sm4_reference_scalar_impl, SM4_MODE_CBC, SM4_ENCRYPT, 2, m.key_of, m.ivs, m.in, m.out, 32);
  VERIFY_CHECK(s, rc == SM4_ERR_NO_IMPL,
               "sm4_crypt_multi CBC encryption on the reference (no multi-key form) returned %d, want "
               "SM4_ERR_NO_IMPL",
               rc);
  VERIFY_CHECK(s, buf[0][0] == 0 && buf[1][31] == 0, "a refused sm4_crypt_multi wrote its output");
  if (sm4_crypt_multi(NULL, SM4_MODE_CBC, SM4_ENCRYPT, 0, NULL, NULL, NULL, NULL, 32) != SM4_OK)
    verify_failure(s, "sm4_crypt_multi on no streams did not return SM4_OK");
  rc = sm4_crypt_multi(NULL, SM4_MODE_CBC, SM4_ENCRYPT, 2, m.key_of, m.ivs, m.in, m.out, 31);
  VERIFY_CHECK(s, rc == SM4_ERR_LENGTH || rc == SM4_ERR_NO_IMPL,
               "sm4_crypt_multi CBC encryption of 31 bytes returned %d, want SM4_ERR_LENGTH", rc);
  VERIFY_CHECK(s, buf[0][0] == 0 && buf[1][31] == 0, "a refused sm4_crypt_multi wrote its output");
}

/* ---- bench -------------------------------------------------------------------- */

#define BENCH_STREAMS 16 /* the 16 streams, one pass of the multi-key form */

typedef struct {
  const sm4_impl *impl;
  streams m;
} cell_ctx;

static void close_ctx(void *p) {
  cell_ctx *c = p;
  for (size_t j = 0; j < c->m.n; j++) {
    kc_free_aligned((void *)c->m.in[j]);
    kc_free_aligned(c->m.out[j]);
  }
  free(c);
}

static int multi_call(void *p, size_t len) {
  const cell_ctx *c = p;
  return sm4_crypt_multi(c->impl, SM4_MODE_CBC, SM4_ENCRYPT, c->m.n, c->m.key_of, c->m.ivs, c->m.in, c->m.out,
                         len);
}

int sm4_multi_add_kernel(bench_set *set, const bench_select *sel, const bench_block_io *io,
                         const kc_impl_view *v) {
  const sm4_impl *impl = v->impl;
  if (!impl->cbc_encrypt_multi || !bench_wants_mode(sel, SM4_MULTI_MODE)) return 0;
  const size_t most = bench_max_size(io->sizes, io->n_sizes, 1 << 16);
  cell_ctx *c = bench_need(calloc(1, sizeof *c));
  c->impl = impl;
  kc_rng rng;
  kc_rng_seed(&rng, 20261128);
  draw(&c->m, BENCH_STREAMS, &rng);
  for (size_t j = 0; j < BENCH_STREAMS; j++) {
    c->m.in[j] = bench_random_buffer(most, 20261129 + j);
    c->m.out[j] = bench_random_buffer(most, 1);
  }
  /* the check: every stream against the reference on a pass and a few blocks */
  const size_t len = 5 * SM4_BLOCK_BYTES;
  int ok = multi_call(c, len) == SM4_OK;
  for (size_t j = 0; j < BENCH_STREAMS; j++) {
    uint8_t want[5 * SM4_BLOCK_BYTES];
    ok &= sm4_crypt(&sm4_reference_scalar_impl, SM4_MODE_CBC, SM4_ENCRYPT, c->m.key_of[j], c->m.ivs[j],
                    c->m.in[j], want, len) == SM4_OK &&
          memcmp(want, c->m.out[j], len) == 0;
  }
  if (!ok)
    fprintf(stderr, "bench: WARNING: sm4 %s %s output differs from reference_scalar\n", impl->name,
            SM4_MULTI_MODE);
  bench_cell *cell = bench_add(set);
  *cell = (bench_cell){.cipher = "sm4", .impl = "ours", .name = v->name, .strategy = v->strategy,
                       .target = v->target, .mode = SM4_MULTI_MODE, .lanes = BENCH_STREAMS,
                       .streams = BENCH_STREAMS, .verified = ok, .sizes = io->sizes,
                       .n_sizes = io->n_sizes, .call = multi_call, .ctx = c, .close = close_ctx};
  return !ok;
}

/* ---- ctcheck ------------------------------------------------------------------ */

#define CT_STREAMS 3
#define CT_BLOCKS 3

int sm4_multi_ct(const sm4_impl *impl, unsigned long *leaks) {
  if (!impl->cbc_encrypt_multi) return 0;
  static streams m;
  kc_rng rng;
  kc_rng_seed(&rng, 0x3C3);
  uint8_t msg[CT_STREAMS][CT_BLOCKS * SM4_BLOCK_BYTES], out[CT_STREAMS][sizeof msg[0]],
      want[CT_STREAMS][sizeof msg[0]];
  kc_rng_bytes(&rng, msg[0], sizeof msg);
  kc_rng_bytes(&rng, m.raw[0], sizeof m.raw);
  kc_rng_bytes(&rng, m.iv[0], sizeof m.iv);
  m.n = CT_STREAMS;
  for (int j = 0; j < CT_STREAMS; j++) {
    sm4_set_key(&m.keys[j], m.raw[j]);
    sm4_crypt(&sm4_reference_scalar_impl, SM4_MODE_CBC, SM4_ENCRYPT, &m.keys[j], m.iv[j], msg[j], want[j],
              sizeof msg[0]);
    m.key_of[j] = &m.keys[j], m.ivs[j] = m.iv[j], m.in[j] = msg[j], m.out[j] = out[j];
  }
  ct_secret(m.keys, sizeof m.keys);
  ct_secret(m.iv, sizeof m.iv);
  ct_secret(msg, sizeof msg);
  unsigned long before = ct_errors_so_far();
  int rc = sm4_crypt_multi(impl, SM4_MODE_CBC, SM4_ENCRYPT, m.n, m.key_of, m.ivs, m.in, m.out, sizeof msg[0]);
  ct_public(out, sizeof out);
  ct_public(&rc, sizeof rc);
  return ct_phase_done("multi cbc-enc", before, "3 streams x 3 blocks",
                       rc == SM4_OK && memcmp(out, want, sizeof out) == 0, leaks);
}
