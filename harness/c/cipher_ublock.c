/*
 * uBlock as the harness sees it: its three variants, the library's block-cipher calls for every
 * tool, and what only uBlock has, the multi-key streams: what verify and ctcheck check of them
 * is in docs/verification.md ("uBlock"), what bench times in docs/cli.md ("bench").
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cipher.h"
#include "ctcheck.h"
#include "kcrypt.h"
#include "ublock.h"
#include "verify.h"

_Static_assert(UBLOCK_MODE_ECB == (int)KC_MODE_ECB && UBLOCK_MODE_CBC == (int)KC_MODE_CBC &&
                   UBLOCK_MODE_CTR == (int)KC_MODE_CTR,
               "ublock_mode and kc_block_mode differ");

static ublock_direction dir(int encrypt) { return encrypt ? UBLOCK_ENCRYPT : UBLOCK_DECRYPT; }

KC_LIBRARY_LOOKUPS(ublock)
/* The kernel uBlock runs serial work on: the same for every variant, the
 * batches of each strategy scaling alike. */
static const void *serial(void) {
  const ublock_impl *s = ublock_impl_serial(UBLOCK_128_128);
  return s ? s : ublock_impl_best();
}
static const void *dispatch(int role, int variant, kc_dispatch_why *why) {
  return ublock_impl_dispatch((kc_dispatch_role)role, (ublock_variant)variant, why);
}

/* ------------------------------------------------------------------ */
/* The library                                                          */
/* ------------------------------------------------------------------ */

static int set_key(void *ks, int variant, const uint8_t *key) {
  return ublock_set_key(ks, (ublock_variant)variant, key);
}

static void wipe_key(void *ks) { ublock_wipe_key(ks); }

static unsigned batch(const void *impl, int variant) {
  unsigned b = ((const ublock_impl *)impl)->batch_blocks[variant];
  return b ? b : 1;
}

KC_BLOCK_LIBRARY_CALLS(ublock)

static const kc_block_api BLOCK = {KC_BLOCK_API_CALLS(ublock), .err_length = UBLOCK_ERR_LENGTH};

#define MAX_STREAMS 9 /* verify: n = 1..MAX_STREAMS streams */

/* n streams of one ublock_crypt_multi call: keys, IVs, inputs, outputs. */
typedef struct multi {
  size_t n;
  const ublock_key *keys[MAX_STREAMS];
  const uint8_t *ivs[MAX_STREAMS], *in[MAX_STREAMS];
  uint8_t *out[MAX_STREAMS];
} multi;

/* What a multi's streams are keyed with: random key bytes (raw: pointers to
 * them, for ublock_set_keys), their schedules by ublock_set_key, random IVs. */
typedef struct multi_keys {
  ublock_key ks[MAX_STREAMS];
  uint8_t key[MAX_STREAMS][KC_BLOCK_MAX_BYTES], iv[MAX_STREAMS][KC_BLOCK_MAX_BYTES];
  const uint8_t *raw[MAX_STREAMS];
} multi_keys;

/* Draws n streams' keys and IVs of variant v into k and points m's keys and
 * IVs at them (inputs and outputs are the caller's).  Returns 0, or a
 * ublock_set_key error. */
static int multi_draw(multi *m, multi_keys *k, size_t n, ublock_variant v, kc_rng *rng) {
  int rc = UBLOCK_OK;
  m->n = n;
  for (size_t j = 0; j < n; j++) {
    kc_rng_bytes(rng, k->key[j], sizeof k->key[j]);
    kc_rng_bytes(rng, k->iv[j], sizeof k->iv[j]);
    rc |= ublock_set_key(&k->ks[j], v, k->key[j]);
    k->raw[j] = k->key[j];
    m->keys[j] = &k->ks[j];
    m->ivs[j] = k->iv[j];
  }
  return rc;
}

static multi_keys *new_multi_keys(void) {
  multi_keys *k = calloc(1, sizeof *k);
  if (!k) exit(2);
  return k;
}

static int crypt_multi(const ublock_impl *impl, const kc_block_op *op, const multi *m,
                       size_t len) {
  return ublock_crypt_multi(impl, (ublock_mode)op->mode, dir(op->encrypt), m->n, m->keys, m->ivs,
                            m->in, m->out, len);
}

#define MULTI_EXTRA 3 /* multi-key: up to 2 batches + this many blocks */

/* ublock_crypt_multi with 1..MAX_STREAMS streams in every mode, lengths up
 * to two batches and a few blocks (CTR: any byte length), each stream its
 * own random key, IV and guarded misaligned buffers (a quarter in place),
 * against ublock_crypt of the reference stream by stream. */
static void check_multi(const vb_cipher *c, const void *impl_v, const verify_run *r,
                        verify_section *sec) {
  const ublock_impl *impl = impl_v;
  if (!impl->crypt_blocks_multi) return;
  ublock_variant v = (ublock_variant)c->v->id;
  size_t bb = c->v->block_bytes, most = batch(impl, v);
  kc_rng rng;
  kc_rng_seed(&rng, r->seed * 0xD1B54A32D192ED03ull + (uint64_t)v);
  multi_keys *keys = new_multi_keys();
  for (size_t n = 1; n <= MAX_STREAMS; n++) {
    for (size_t o = 0; o < KC_N_BLOCK_OPS; o++) {
      const kc_block_op *op = &KC_BLOCK_OPS[o];
      size_t len = (size_t)kc_rng_below(&rng, 2 * most + MULTI_EXTRA + 1) * bb +
                   (op->mode == KC_MODE_CTR ? (size_t)kc_rng_below(&rng, bb) : 0);
      multi m;
      multi_draw(&m, keys, n, v, &rng);
      uint8_t *data[MAX_STREAMS], *want[MAX_STREAMS];
      verify_bufs bufs[MAX_STREAMS];
      char what[160];
      snprintf(what, sizeof what, "%s multi-key %s, %zu stream(s) of %zu bytes", c->v->name,
               op->name, n, len);
      for (size_t j = 0; j < n; j++) {
        verify_need((data[j] = malloc(2 * len + 2)) != NULL);
        want[j] = data[j] + len + 1;
        kc_rng_bytes(&rng, data[j], len);
        size_t in_off = kc_rng_below(&rng, 16), out_off = kc_rng_below(&rng, 16);
        verify_bufs_place(&bufs[j], data[j], len, len, in_off, out_off, kc_rng_below(&rng, 4) == 0);
        m.in[j] = bufs[j].in.ptr;
        m.out[j] = bufs[j].dst;
        ublock_crypt(r->ref, (ublock_mode)op->mode, dir(op->encrypt), m.keys[j], m.ivs[j], data[j],
                     want[j], len);
      }
      int rc = crypt_multi(impl, op, &m, len), failed = rc != UBLOCK_OK;
      if (failed) verify_failure(sec, "%s: ublock_crypt_multi returned %d", what, rc);
      for (size_t j = 0; j < n; j++) {
        char stream[200];
        snprintf(stream, sizeof stream, "%s, stream %zu", what, j);
        if (rc == UBLOCK_OK) failed += verify_differs(m.out[j], want[j], len, "the reference", stream, sec);
        failed += verify_bufs_check(&bufs[j], "ublock_crypt_multi", stream, sec);
        free(data[j]);
        verify_bufs_free(&bufs[j]);
      }
      if (failed == 0) sec->cases++;
    }
  }
  free(keys);
}

/* Names and sizes of the variants, unknown variants refused. */
static void api_variants(const vb_cipher *vc, verify_section *s) {
  for (int v = 0; v < UBLOCK_VARIANT_COUNT; v++) {
    const char *name = ublock_variant_name((ublock_variant)v);
    size_t bb = ublock_block_bytes((ublock_variant)v), kb = ublock_key_bytes((ublock_variant)v);
    ublock_variant back;
    VERIFY_CHECK(s,
                 name && strcmp(name, vc[v].v->name) == 0 &&
                     ublock_variant_from_name(name, &back) == UBLOCK_OK && (int)back == v &&
                     bb == vc[v].v->block_bytes && kb == vc[v].v->key_bytes,
                 "variant %d: name %s or sizes %zu/%zu wrong", v, name ? name : "NULL", bb, kb);
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
  multi_keys *single = new_multi_keys(), *set = new_multi_keys();
  ublock_key *keys = set->ks;
  uint8_t in[4 * KC_BLOCK_MAX_BYTES], a[sizeof in], b[sizeof in];
  kc_rng_bytes(&r, in, sizeof in);
  for (int v = 0; v < UBLOCK_VARIANT_COUNT; v++) {
    const char *vname = ublock_variant_name((ublock_variant)v);
    size_t bb = ublock_block_bytes((ublock_variant)v);
    for (size_t n = 1; n <= MAX_STREAMS; n++) {
      multi m;
      multi_draw(&m, single, n, (ublock_variant)v, &r);
      int rc = ublock_set_keys(keys, (ublock_variant)v, single->raw, n);
      VERIFY_CHECK(s, rc == UBLOCK_OK, "%s ublock_set_keys(n=%zu) returned %d", vname, n, rc);
      for (size_t j = 0; rc == UBLOCK_OK && j < n; j++) {
        const ublock_key *one = &single->ks[j];
        VERIFY_CHECK(s,
                     keys[j].variant == one->variant && keys[j].rounds == one->rounds &&
                         memcmp(keys[j].rk, one->rk, (one->rounds + 1) * sizeof one->rk[0]) == 0,
                     "%s ublock_set_keys(n=%zu) key %zu: round keys differ from ublock_set_key",
                     vname, n, j);
        for (size_t i = 0; i < impls->n; i++) {
          const ublock_impl *m = impls->v[i].impl;
          if (kc_view_runs(&impls->v[i]) == KC_UNAVAILABLE) continue;
          for (int enc = 0; enc < 2; enc++) {
            m->crypt_blocks(&keys[j], dir(enc), in, a, sizeof in / bb);
            m->crypt_blocks(one, dir(enc), in, b, sizeof in / bb);
            VERIFY_CHECK(s, memcmp(a, b, sizeof in) == 0,
                         "%s %s%s: a key from ublock_set_keys(n=%zu) #%zu %ss differently", vname,
                         m->name, m->emulated ? " (emulated)" : "", n, j, kc_direction_name(enc));
          }
        }
      }
    }
  }
  free(set);
  free(single);
}

/* Multi-key calls that must fail. */
static void api_multi_errors(const kc_view_list *impls, verify_section *s) {
  multi_keys *k = new_multi_keys();
  uint8_t key[32] = {1}, iv[32] = {0}, buf[2][32] = {{0}};
  ublock_set_key(&k->ks[0], UBLOCK_128_128, key);
  ublock_set_key(&k->ks[1], UBLOCK_256_256, key);
  multi m = {2, {&k->ks[0], &k->ks[1]}, {iv, iv}, {buf[0], buf[1]}, {buf[0], buf[1]}};
  int rc = crypt_multi(NULL, &KC_BLOCK_OPS[0], &m, 32);
  VERIFY_CHECK(s, rc == UBLOCK_ERR_VARIANT,
               "ublock_crypt_multi mixing variants returned %d, want UBLOCK_ERR_VARIANT", rc);
  m.n = 1;
  for (size_t i = 0; i < impls->n; i++) {
    const ublock_impl *impl = impls->v[i].impl;
    if (impl->crypt_blocks_multi || kc_view_runs(&impls->v[i]) == KC_UNAVAILABLE) continue;
    rc = crypt_multi(impl, &KC_BLOCK_OPS[2], &m, 16);
    VERIFY_CHECK(s, rc == UBLOCK_ERR_NO_IMPL,
                 "%s has no multi-key entry, yet ublock_crypt_multi returned %d", impl->name, rc);
  }
  free(k);
}

static void api(const vb_cipher *vc, const kc_view_list *impls, uint64_t seed, verify_section *s) {
  api_variants(vc, s);
  api_set_keys(impls, seed, s);
  api_multi_errors(impls, s);
}

static const verify_hooks VERIFY = {
    .run = verify_block,
    .random_full = 1000,
    .random_quick = 100,
    .api = api,
    .impl_extra = check_multi,
};

#define STREAMS 4 /* multi-key CBC encryption: the paper's four keys */
#define LOOP_MODE "block-loop"

/* One kernel's cell on `streams` streams of io's variant: keys, IVs and
 * buffers of their own (stream 0 has io's buffers). */
typedef struct {
  const bench_block_io *io;
  const ublock_impl *impl;
  unsigned streams;
  uint64_t loops; /* block-loop: encryptions of the one block per call */
  size_t block;   /* block-loop: the one size it is timed at */
  multi_keys k;
  multi m;
} cell_ctx;

static void close_ctx(void *p) {
  cell_ctx *c = p;
  for (unsigned j = 1; j < c->streams; j++) {
    kc_free_aligned((void *)c->m.in[j]);
    kc_free_aligned(c->m.out[j]);
  }
  free(c);
}

static cell_ctx *new_ctx(const bench_block_io *io, const ublock_impl *impl, unsigned streams,
                         size_t buf_len) {
  cell_ctx *c = bench_need(malloc(sizeof *c));
  *c = (cell_ctx){.io = io, .impl = impl, .streams = streams};
  kc_rng rng;
  kc_rng_seed(&rng, 20240613);
  if (multi_draw(&c->m, &c->k, streams, (ublock_variant)io->v->id, &rng) != UBLOCK_OK) exit(1);
  for (unsigned j = 0; j < streams; j++) {
    c->m.in[j] = j ? bench_random_buffer(buf_len, 20240614 + j) : io->in;
    c->m.out[j] = j ? bench_random_buffer(buf_len, 1) : io->out;
  }
  return c;
}

static int multi_call(void *p, size_t len) {
  const cell_ctx *c = p;
  return crypt_multi(c->impl, &KC_BLOCK_OPS[2], &c->m, len);
}

/*
 * One of the paper's tests: the block encrypted `loops` times.  The paper
 * (section 3.1) encrypts a "short message" of one 128- or 256-bit block
 * 1,000,000 times in a loop per test, and explains (3.2, item 2) that "the
 * data used in every round is the same and its storage location does not
 * change": so each encryption here takes the SAME input block and writes
 * the same output block; outputs do not feed the next input, and successive
 * encryptions may overlap in the core as they would in the paper's loop.
 * The kernel is called through its entry point (crypt_blocks, or
 * crypt_blocks_multi for the four keys), as the paper calls its encryption
 * function, without the mode driver.  The paper averages 10 tests; bench
 * times one per repetition and reports the mean and the best.
 */
static int loop_call(void *p, size_t len) {
  (void)len; /* always one block */
  const cell_ctx *c = p;
  if (c->streams == 1)
    for (uint64_t i = 0; i < c->loops; i++)
      c->impl->crypt_blocks(c->m.keys[0], UBLOCK_ENCRYPT, c->m.in[0], c->m.out[0], 1);
  else
    for (uint64_t i = 0; i < c->loops; i++)
      c->impl->crypt_blocks_multi(c->m.keys, STREAMS, UBLOCK_ENCRYPT, c->m.ivs, c->m.in,
                                  c->m.out, 1);
  return 0;
}

/* The cell after checking its streams against the reference doing the same
 * (ECB encryption with one key, CBC encryption with four) on len bytes
 * each.  Returns 1 if the check failed. */
static int add_cell(bench_set *set, cell_ctx *c, size_t len, bench_cell *cell) {
  const kc_block_op *op = &KC_BLOCK_OPS[c->streams == 1 ? 0 : 2];
  multi want = c->m;
  int ok = 1;
  for (unsigned j = 0; j < c->streams; j++) want.out[j] = bench_random_buffer(len, 2);
  if (c->streams == 1)
    ok = block_crypt(c->io->ref, KC_MODE_ECB, 1, c->m.keys[0], NULL, c->m.in[0], want.out[0],
                     len) == UBLOCK_OK &&
         block_crypt(c->impl, KC_MODE_ECB, 1, c->m.keys[0], NULL, c->m.in[0], c->m.out[0], len) ==
             UBLOCK_OK;
  else
    ok = crypt_multi(c->io->ref, op, &want, len) == UBLOCK_OK &&
         crypt_multi(c->impl, op, &c->m, len) == UBLOCK_OK;
  for (unsigned j = 0; j < c->streams; j++) {
    ok &= memcmp(c->m.out[j], want.out[j], len) == 0;
    kc_free_aligned(want.out[j]);
  }
  if (!ok)
    fprintf(stderr, "bench: WARNING: %s %s %s (%u keys) output differs from reference_scalar\n",
            c->io->v->name, c->impl->name, cell->mode, c->streams);
  cell->cipher = c->io->v->name;
  cell->impl = "ours";
  cell->name = c->impl->name;
  cell->strategy = c->impl->strategy;
  cell->target = c->impl->target;
  cell->lanes = c->impl->batch_blocks[c->io->v->id];
  cell->streams = c->streams;
  cell->verified = ok;
  cell->ctx = c;
  cell->close = close_ctx;
  *bench_add(set) = *cell;
  return !ok;
}

/* A kernel's multi-key CBC encryption (where it has the entry) and, for
 * the register kernels (the paper's method) and the one dispatch picks, its
 * one-block loops with one key and with four. */
static int add_kernel(bench_set *set, const bench_select *sel, const bench_block_io *io,
                      const kc_impl_view *v) {
  const ublock_impl *impl = v->impl;
  size_t buf_len = bench_max_size(io->sizes, io->n_sizes, 1 << 16);
  int problems = 0;
  if (impl->crypt_blocks_multi && bench_wants_mode(sel, "cbc-enc")) {
    cell_ctx *c = new_ctx(io, impl, STREAMS, buf_len);
    bench_cell cell = {.mode = "cbc-enc", .sizes = io->sizes, .n_sizes = io->n_sizes,
                       .call = multi_call};
    problems += add_cell(set, c, (2 * batch(impl, io->v->id) + 1) * io->v->block_bytes, &cell);
  }
  int paper = strcmp(impl->strategy, "register") == 0, fastest = impl == ublock_impl_best();
  if ((!paper && !fastest) || !bench_wants_mode(sel, LOOP_MODE)) return problems;
  const char *role = paper && fastest ? "paper-method+fastest" : paper ? "paper-method" : "fastest";
  for (unsigned streams = 1; streams <= STREAMS; streams += STREAMS - 1) {
    if (streams > 1 && !impl->crypt_blocks_multi) break;
    cell_ctx *c = new_ctx(io, impl, streams, buf_len);
    c->loops = sel->loops;
    c->block = io->v->block_bytes;
    bench_cell cell = {.mode = LOOP_MODE, .sizes = &c->block, .n_sizes = 1, .loops = sel->loops,
                       .role = role, .call = loop_call};
    problems += add_cell(set, c, c->block, &cell);
  }
  return problems;
}

static const bench_hooks BENCH = {.modes = KC_BLOCK_OP_NAMES "," LOOP_MODE,
                                  .add_cells = bench_block_cells,
                                  .not_single = "cbc-enc",
                                  .add_kernel = add_kernel};


#define CT_STREAMS 3 /* multi-key streams, and keys given to set_keys */

/* ublock_set_keys on three secret keys, then (where the kernel has the
 * entry) CBC encryption of three streams of three blocks with them, secret
 * IVs and messages. */
static int ct_extra(const void *impl_v, const void *ref, const kc_variant *var,
                    unsigned long *leaks) {
  const ublock_impl *impl = impl_v;
  ublock_variant v = (ublock_variant)var->id;
  size_t len = 3 * var->block_bytes;
  uint8_t msg[CT_STREAMS][3 * KC_BLOCK_MAX_BYTES], out[CT_STREAMS][3 * KC_BLOCK_MAX_BYTES];
  uint8_t want[CT_STREAMS][3 * KC_BLOCK_MAX_BYTES];
  multi_keys *k = new_multi_keys();
  ublock_key *keys = calloc(2 * CT_STREAMS, sizeof *keys), *copy = keys + CT_STREAMS;
  if (!keys) exit(2);
  kc_rng rng;
  kc_rng_seed(&rng, 0x5eC2e7 + (uint64_t)v);
  multi r, m;
  multi_draw(&r, k, CT_STREAMS, v, &rng);
  kc_rng_bytes(&rng, msg[0], sizeof msg);
  m = r;
  for (int j = 0; j < CT_STREAMS; j++) {
    r.in[j] = m.in[j] = msg[j], r.out[j] = want[j], m.out[j] = out[j];
    m.keys[j] = &keys[j];
  }
  int rc_ref = crypt_multi(ref, &KC_BLOCK_OPS[2], &r, len);
  ct_secret(k->key, sizeof k->key);
  unsigned long before = ct_errors_so_far();
  int rc = ublock_set_keys(keys, v, k->raw, CT_STREAMS);
  /* The round keys checked on a declassified copy: the kernel still gets
   * secret keys. */
  memcpy(copy, keys, CT_STREAMS * sizeof *copy);
  ct_public(copy, CT_STREAMS * sizeof *copy);
  ct_public(&rc, sizeof rc);
  int ok = rc == UBLOCK_OK;
  for (int j = 0; j < CT_STREAMS; j++)
    ok &= memcmp(copy[j].rk, k->ks[j].rk, (k->ks[j].rounds + 1) * sizeof copy->rk[0]) == 0;
  int wrong = ct_phase_done("set_keys", before, "3 keys", ok, leaks);
  if (impl->crypt_blocks_multi) {
    ct_secret(k->iv, sizeof k->iv);
    ct_secret(msg, sizeof msg);
    before = ct_errors_so_far();
    rc = crypt_multi(impl, &KC_BLOCK_OPS[2], &m, len);
    ct_public(out, sizeof out);
    ct_public(&rc, sizeof rc);
    ok = rc == UBLOCK_OK && rc_ref == UBLOCK_OK;
    for (int j = 0; j < CT_STREAMS; j++) ok &= memcmp(out[j], want[j], len) == 0;
    wrong |= ct_phase_done("multi cbc-enc", before, "3 streams x 3 blocks", ok, leaks);
  }
  free(k);
  free(keys);
  return wrong;
}

static const ct_hooks CT = {.check = ct_block_check, .extra = ct_extra};

/* ------------------------------------------------------------------ */
/* The description                                                      */
/* ------------------------------------------------------------------ */

static const kc_variant VARIANTS[] = {
    {"ublock128_128", UBLOCK_128_128, 16, 16},
    {"ublock128_256", UBLOCK_128_256, 32, 16},
    {"ublock256_256", UBLOCK_256_256, 32, 32},
};

const kc_desc kc_ublock = {
    .name = "ublock",
    .label = "ublock ",
    .variants = VARIANTS,
    .n_variants = UBLOCK_VARIANT_COUNT,
    .views = views,
    .find = find,
    .best = best,
    .serial = serial,
    .dispatch = dispatch,
    .block = &BLOCK,
    .cli = &kc_block_cli,
    .verify = &VERIFY,
    .bench = &BENCH,
    .ct = &CT,
};
