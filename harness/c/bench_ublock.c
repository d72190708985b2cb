/*
 * bench's uBlock part: uBlock-128/128, 128/256 and 256/256 on every native
 * kernel of the generated library, both strategies side by side (register:
 * the paper's method; nibbleslice), on every target this CPU runs.
 *
 * Cells, per kernel and variant (cipher "ublock128_128", ...):
 *   ecb-enc, ecb-dec, cbc-dec, ctr  one key, one message per call, through
 *            ublock_crypt (the mode driver);
 *   cbc-enc  the paper's headline style: 4 streams with 4 keys and 4 IVs per
 *            call, encrypted side by side through ublock_crypt_multi (the
 *            kernel's multi-key entry), streams 4; only kernels that have a
 *            multi-key entry (single-key CBC encryption is serial: one block
 *            per kernel pass, not what the kernels are for).
 *   block-loop the paper's own measurement (section 3.1): one block
 *            encrypted --loops times (1,000,000; --quick 100,000) per timed
 *            call, with one key, and with four keys (one block each, CBC,
 *            through the multi-key entry) where the kernel has that entry.
 *            For the register kernels on every native target (the paper's
 *            method) and for the kernel dispatch picks (ublock_impl_best;
 *            for a batch kernel one block is a padded batch: that is what
 *            one block costs it).  See loop_call.
 * Message sizes as SM4's (64 B .. 1 MiB; --quick 256 B, 4 KiB, 64 KiB), per
 * stream.  Key expansion is not timed (set up once, as an application
 * would).  Before timing, each cell's output (several batches plus a block;
 * CTR a partial block more) is compared with the scalar reference.  No
 * established library has uBlock: the paper's figures are reference lines in
 * the report (harness/report.py), not measurements.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "common.h"
#include "ublock.h"

#define STREAMS 4 /* multi-key CBC encryption: the paper's four keys */

/* Fixed IVs of the streams (values do not matter). */
static const uint8_t IVS[STREAMS][UBLOCK_MAX_BLOCK_BYTES] = {
    {0xf0, 0xe1, 0xd2, 0xc3, 0xb4, 0xa5, 0x96, 0x87, 0x78, 0x69, 0x5a, 0x4b, 0x3c, 0x2d, 0xff, 0xf0},
    {0x01}, {0x02}, {0x03}};

/* Shared by every cell: keys per variant, the streams' buffers. */
static ublock_key *keys; /* [variant][stream] */
static uint8_t *in_bufs[STREAMS], *out_bufs[STREAMS], *want_bufs[STREAMS];

typedef struct {
  const ublock_impl *impl;
  ublock_variant variant;
  const kc_block_op *op;
  unsigned streams; /* 1: ublock_crypt; STREAMS: ublock_crypt_multi */
} cell_ctx;

static ublock_direction dir_of(const kc_block_op *op) {
  return op->encrypt ? UBLOCK_ENCRYPT : UBLOCK_DECRYPT;
}

static const ublock_key *key_of(ublock_variant v, unsigned stream) {
  return &keys[(size_t)v * STREAMS + stream];
}

/* One call of `impl` on `len` bytes per stream into `outs`. */
static int crypt_streams(const cell_ctx *c, const ublock_impl *impl, size_t len,
                         uint8_t *const outs[]) {
  const kc_block_op *op = c->op;
  if (c->streams == 1)
    return ublock_crypt(impl, (ublock_mode)op->mode, dir_of(op), key_of(c->variant, 0), IVS[0],
                        in_bufs[0], outs[0], len);
  const ublock_key *k[STREAMS];
  const uint8_t *ivs[STREAMS], *in[STREAMS];
  for (unsigned j = 0; j < c->streams; j++) {
    k[j] = key_of(c->variant, j);
    ivs[j] = IVS[j];
    in[j] = in_bufs[j];
  }
  return ublock_crypt_multi(impl, (ublock_mode)op->mode, dir_of(op), c->streams, k, ivs, in, outs,
                            len);
}

static int cell_call(void *ctx, size_t len) {
  const cell_ctx *c = ctx;
  return crypt_streams(c, c->impl, len, out_bufs);
}

/* The kernel against the reference on `len` bytes per stream: 1 if equal. */
static int agrees(const cell_ctx *c, const ublock_impl *ref, size_t len) {
  if (crypt_streams(c, ref, len, want_bufs) != UBLOCK_OK ||
      crypt_streams(c, c->impl, len, out_bufs) != UBLOCK_OK)
    return 0;
  for (unsigned j = 0; j < c->streams; j++)
    if (memcmp(out_bufs[j], want_bufs[j], len) != 0) return 0;
  return 1;
}

/* Bytes of the pre-timing check: two batches and a block (CTR: and 7 bytes). */
static size_t check_len(const ublock_impl *impl, ublock_variant v, const kc_block_op *op) {
  size_t bb = ublock_block_bytes(v), batch = impl->batch_blocks[v] ? impl->batch_blocks[v] : 1;
  return (2 * batch + 1) * bb + (op->mode == KC_MODE_CTR ? 7 : 0);
}

/* The longest check of any kernel. */
static size_t longest_check(const kc_view_list *impls) {
  size_t most = 0;
  for (size_t i = 0; i < impls->n; i++)
    for (int v = 0; v < UBLOCK_VARIANT_COUNT; v++) {
      size_t n = check_len(impls->v[i].impl, (ublock_variant)v, &KC_BLOCK_OPS[KC_N_BLOCK_OPS - 1]);
      if (n > most) most = n;
    }
  return most;
}

/* Keys (random, fixed) and buffers for every cell.  Returns 0 or -1. */
static int set_up(size_t buf_len) {
  keys = kc_alloc_aligned(UBLOCK_VARIANT_COUNT * STREAMS * sizeof *keys, 64);
  if (!keys) return -1;
  uint8_t *raw = bench_random_buffer(UBLOCK_MAX_KEY_BYTES * STREAMS, 20240613);
  for (int v = 0; v < UBLOCK_VARIANT_COUNT; v++)
    for (unsigned j = 0; j < STREAMS; j++)
      if (ublock_set_key(&keys[v * STREAMS + j], (ublock_variant)v,
                         raw + j * UBLOCK_MAX_KEY_BYTES) != UBLOCK_OK)
        return -1;
  kc_free_aligned(raw);
  for (unsigned j = 0; j < STREAMS; j++) {
    in_bufs[j] = bench_random_buffer(buf_len, 20240614 + j);
    out_bufs[j] = bench_random_buffer(buf_len, 1);
    want_bufs[j] = bench_random_buffer(buf_len, 2);
  }
  return 0;
}

/* Which calls a kernel is timed in: the single-key modes, and CBC
 * encryption with STREAMS keys where it has a multi-key entry.  0: none. */
static unsigned streams_for(const ublock_impl *impl, const kc_block_op *op) {
  if (op->mode == KC_MODE_CBC && op->encrypt) return impl->crypt_blocks_multi ? STREAMS : 0;
  return 1;
}

/* Adds one cell after checking it; returns 1 if the check failed. */
static int add(bench_set *set, const ublock_impl *impl, const ublock_impl *ref, ublock_variant v,
               const kc_block_op *op, const size_t *sizes, size_t n_sizes) {
  cell_ctx *c = malloc(sizeof *c);
  if (!c) exit(1);
  *c = (cell_ctx){impl, v, op, streams_for(impl, op)};
  int ok = agrees(c, ref, check_len(impl, v, op));
  if (!ok)
    fprintf(stderr, "bench: WARNING: %s %s %s output differs from reference_scalar\n",
            ublock_variant_name(v), impl->name, op->name);
  bench_cell *cell = bench_add(set);
  *cell = (bench_cell){.cipher = ublock_variant_name(v),
                       .impl = "ours",
                       .name = impl->name,
                       .strategy = impl->strategy,
                       .target = impl->target,
                       .mode = op->name,
                       .lanes = impl->batch_blocks[v],
                       .streams = c->streams,
                       .verified = ok,
                       .sizes = sizes,
                       .n_sizes = n_sizes,
                       .call = cell_call,
                       .ctx = c,
                       .close = free};
  return !ok;
}

/* ------------------------------------------------------------------ */
/* The paper's method: one block, encrypted over and over               */
/* ------------------------------------------------------------------ */

#define LOOP_MODE "block-loop"

typedef struct {
  cell_ctx base;  /* kernel, variant, and the op: ECB (one key) or CBC (four keys) encryption */
  uint64_t loops; /* encryptions per call */
  size_t block;   /* the one size the cell is timed at: one block */
} loop_ctx;

/*
 * One of the paper's tests: the block encrypted `loops` times.  The paper
 * (section 3.1) encrypts a "short message" of one 128- or 256-bit block
 * 1,000,000 times in a loop per test, and explains (3.2, item 2) that "the
 * data used in every round is the same and its storage location does not
 * change": so each encryption here takes the SAME input block (in_bufs) and
 * writes the same output block; outputs do not feed the next input, and
 * successive encryptions may overlap in the core as they would in the
 * paper's loop.  The kernel is called through its entry point
 * (crypt_blocks, or crypt_blocks_multi for the four keys), as the paper
 * calls its encryption function, without the mode driver.  The paper
 * averages 10 tests; bench times one per repetition and reports the mean and
 * the best.
 */
static int loop_call(void *ctx, size_t len) {
  (void)len; /* always one block */
  const loop_ctx *c = ctx;
  const ublock_impl *impl = c->base.impl;
  if (c->base.streams == 1) {
    const ublock_key *key = key_of(c->base.variant, 0);
    for (uint64_t i = 0; i < c->loops; i++)
      impl->crypt_blocks(key, UBLOCK_ENCRYPT, in_bufs[0], out_bufs[0], 1);
    return 0;
  }
  const ublock_key *k[STREAMS];
  const uint8_t *ivs[STREAMS], *in[STREAMS];
  for (unsigned j = 0; j < STREAMS; j++) {
    k[j] = key_of(c->base.variant, j);
    ivs[j] = IVS[j];
    in[j] = in_bufs[j];
  }
  for (uint64_t i = 0; i < c->loops; i++)
    impl->crypt_blocks_multi(k, STREAMS, UBLOCK_ENCRYPT, ivs, in, out_bufs, 1);
  return 0;
}

/* The op a loop cell runs, for the reference check: ECB encryption with one
 * key, CBC encryption (one block per key) with four. */
static const kc_block_op *loop_op(unsigned streams) {
  for (size_t o = 0; o < KC_N_BLOCK_OPS; o++)
    if (KC_BLOCK_OPS[o].encrypt && KC_BLOCK_OPS[o].mode == (streams == 1 ? KC_MODE_ECB : KC_MODE_CBC))
      return &KC_BLOCK_OPS[o];
  return NULL;
}

/* Adds one block-loop cell after checking its one block against the
 * reference; returns 1 if the check failed. */
static int add_loop(bench_set *set, const ublock_impl *impl, const ublock_impl *ref,
                    ublock_variant v, unsigned streams, const char *role, uint64_t loops) {
  loop_ctx *c = malloc(sizeof *c);
  if (!c) exit(1);
  *c = (loop_ctx){{impl, v, loop_op(streams), streams}, loops, ublock_block_bytes(v)};
  int ok = agrees(&c->base, ref, c->block);
  if (!ok)
    fprintf(stderr, "bench: WARNING: %s %s %s (%u keys) output differs from reference_scalar\n",
            ublock_variant_name(v), impl->name, LOOP_MODE, streams);
  bench_cell *cell = bench_add(set);
  *cell = (bench_cell){.cipher = ublock_variant_name(v),
                       .impl = "ours",
                       .name = impl->name,
                       .strategy = impl->strategy,
                       .target = impl->target,
                       .mode = LOOP_MODE,
                       .lanes = impl->batch_blocks[v],
                       .streams = streams,
                       .verified = ok,
                       .sizes = &c->block,
                       .n_sizes = 1,
                       .loops = loops,
                       .role = role,
                       .call = loop_call,
                       .ctx = c,
                       .close = free};
  return !ok;
}

/* The role of a kernel in the one-block measurement, or NULL if it has
 * none: the register kernels are the paper's method, `best` is what
 * dispatch picks (ublock_impl_best). */
static const char *loop_role(const ublock_impl *im, const ublock_impl *best) {
  int paper = strcmp(im->strategy, "register") == 0, fastest = im == best;
  return paper && fastest ? "paper-method+fastest"
         : paper          ? "paper-method"
         : fastest        ? "fastest"
                          : NULL;
}

/* The one-block loops of one kernel: one key, and four keys where it has a
 * multi-key entry.  Returns the number of failed checks. */
static int add_loops(bench_set *set, const bench_select *sel, const ublock_impl *im,
                     const ublock_impl *ref, const ublock_impl *best) {
  const char *role = loop_role(im, best);
  if (!role || !bench_wants_mode(sel, LOOP_MODE)) return 0;
  int problems = 0;
  for (int v = 0; v < UBLOCK_VARIANT_COUNT; v++) {
    if (!bench_wants_cipher(sel, ublock_variant_name((ublock_variant)v))) continue;
    problems += add_loop(set, im, ref, (ublock_variant)v, 1, role, sel->loops);
    if (im->crypt_blocks_multi)
      problems += add_loop(set, im, ref, (ublock_variant)v, STREAMS, role, sel->loops);
  }
  return problems;
}

/* 1 if the command line selects any variant. */
static int wants_any_variant(const bench_select *sel) {
  for (int v = 0; v < UBLOCK_VARIANT_COUNT; v++)
    if (bench_wants_cipher(sel, ublock_variant_name((ublock_variant)v))) return 1;
  return 0;
}

static int add_cells(bench_set *set, const bench_select *sel) {
  if (!wants_any_variant(sel)) return 0;
  const ublock_impl *ref = ublock_impl_find("reference", "scalar", 0);
  if (!ref) {
    fprintf(stderr, "bench: no reference_scalar uBlock kernel to check against\n");
    return 1;
  }
  kc_view_list impls;
  kc_views_ublock(&impls);
  size_t n_sizes;
  const size_t *sizes = bench_block_sizes(sel, &n_sizes);
  if (set_up(bench_max_size(sizes, n_sizes, longest_check(&impls))) != 0) {
    fprintf(stderr, "bench: uBlock set-up failed (key schedule or out of memory)\n");
    return 1;
  }
  const ublock_impl *best = ublock_impl_best();
  int problems = 0;
  for (size_t i = 0; i < impls.n; i++) {
    const ublock_impl *im = impls.v[i].impl;
    if (!bench_timeable(&impls.v[i]) ||
        !bench_wants_subject(sel, "ours", im->name, im->strategy, im->target))
      continue;
    problems += add_loops(set, sel, im, ref, best);
    for (int v = 0; v < UBLOCK_VARIANT_COUNT; v++) {
      if (!bench_wants_cipher(sel, ublock_variant_name((ublock_variant)v))) continue;
      for (size_t o = 0; o < KC_N_BLOCK_OPS; o++) {
        const kc_block_op *op = &KC_BLOCK_OPS[o];
        if (!bench_wants_mode(sel, op->name) || !streams_for(im, op)) continue;
        problems += add(set, im, ref, (ublock_variant)v, op, sizes, n_sizes);
      }
    }
  }
  return problems;
}

const bench_cipher bench_ublock = {"ublock128_128,ublock128_256,ublock256_256",
                                   KC_BLOCK_OP_NAMES "," LOOP_MODE, add_cells};
