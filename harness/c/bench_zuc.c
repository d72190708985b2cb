/*
 * bench's ZUC part: ZUC-128 and ZUC-256 on every native kernel of the
 * generated library, beside Intel ipsec-mb's multi-buffer job API; the
 * modes and the checks before timing are in docs/cli.md ("bench").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "common.h"
#include "ipsecmb.h"
#include "zuc.h"
#include "zuc_lanes.h"

/* The modes as recorded and as given to --mode; the keystream mode times the
 * raw kernel, the others a zuc_op. */
static const struct {
  const char *name;
  int keystream, mac;
  unsigned tag_bits;
} MODES[] = {{"keystream", 1, 0, 0}, {"enc", 0, 0, 0}, {"mac32", 0, 1, 32}, {"mac64", 0, 1, 64},
             {"mac128", 0, 1, 128}};
#define N_MODES (sizeof MODES / sizeof MODES[0])

static const size_t DEFAULT_SIZES[] = {1500, 4096};

/* --sizes, else the defaults (also with --quick). */
static const size_t *sizes_of(const bench_select *sel, size_t *n) {
  return bench_sizes(sel, DEFAULT_SIZES, sizeof DEFAULT_SIZES / sizeof DEFAULT_SIZES[0], NULL, 0, n);
}

/* Length of the pre-timing check: stream i gets CHECK_BYTES - i bytes (ours:
 * 8 * CHECK_BYTES - 3i bits), so the streams of one call differ. */
#define CHECK_BYTES 1040

_Static_assert(BENCH_MAX_STREAMS <= ZUC_SET_MAX, "a zuc_streams holds --streams streams");
static zuc_streams streams; /* out: the call timed (tags too); want: the reference's */

/* n streams of random keys, IVs and `bytes` of random message each. */
static void make_streams(unsigned n, size_t bytes) {
  zuc_streams_init(&streams);
  streams.n = n;
  kc_rng rng;
  kc_rng_seed(&rng, 20240612);
  for (unsigned i = 0; i < n; i++) {
    zuc_random_key_iv(&rng, streams.key[i], 32, streams.iv[i], 25);
    streams.in[i] = bench_random_buffer(bytes, kc_rng_next(&rng));
    streams.out[i] = bench_random_buffer(bytes, 1);
    streams.want[i] = bench_random_buffer(bytes, 2);
  }
}

/* The streams' buffers (bench_own's release; p unused). */
static void free_streams(void *p) {
  (void)p;
  for (size_t i = 0; i < streams.n; i++) {
    kc_free_aligned((void *)streams.in[i]);
    kc_free_aligned(streams.out[i]);
    kc_free_aligned(streams.want[i]);
  }
  streams.n = 0;
}

typedef struct {
  const char *mode;
  int keystream;        /* the keystream mode, else op */
  zuc_op op;            /* op.method: ours */
  const zuc_impl *impl; /* ours */
  kc_imb *imb;          /* ipsec-mb */
  uint32_t *states;     /* keystream: `groups` lane states */
  size_t groups;
  uint8_t *ks;                     /* keystream: one block of every lane */
  uint8_t *ks_rows[ZUC_LANES_MAX]; /* lane j's block: ks + 64 j */
} zuc_ctx;

/* One call of c's subject (ours or ipsec-mb) on the streams as they are. */
static int run_subject(const zuc_ctx *c) {
  char err[256];
  if (!c->imb) return zuc_streams_run(c->impl, &c->op, &streams, streams.out);
  int rc = zuc_streams_imb(c->imb, &c->op, &streams, streams.out, NULL, err, sizeof err);
  if (rc != 0) fprintf(stderr, "bench: %s\n", err);
  return rc;
}

/* The timed call: enc or mac of msg_bytes per stream. */
static int streams_call(void *p, size_t msg_bytes) {
  for (size_t i = 0; i < streams.n; i++) streams.bits[i] = 8 * msg_bytes;
  return run_subject(p);
}

static int keystream_call(void *p, size_t msg_bytes) {
  zuc_ctx *c = p;
  size_t blocks = (msg_bytes + 63) / 64, words = (size_t)ZUC_STATE_WORDS * c->impl->lanes;
  for (size_t g = 0; g < c->groups; g++)
    for (size_t b = 0; b < blocks; b++) c->impl->keystream_block(c->states + g * words, c->ks_rows);
  return 0;
}

static void close_ctx(void *p) {
  zuc_ctx *c = p;
  kc_free_aligned(c->states);
  kc_free_aligned(c->ks);
  free(c);
}

/* enc / mac of `c` (ours or ipsec-mb) on streams of different lengths
 * against the reference.  1 if every stream matches. */
static int check_streams(zuc_ctx *c, const zuc_impl *ref) {
  for (size_t i = 0; i < streams.n; i++)
    streams.bits[i] = c->imb ? 8 * (CHECK_BYTES - i % CHECK_BYTES) : 8 * CHECK_BYTES - 3 * i;
  return zuc_streams_run(ref, &c->op, &streams, streams.want) == ZUC_OK && run_subject(c) == 0 &&
         zuc_streams_differ(&c->op, &streams) < 0;
}

/* Sets up the keystream cell's lane states (random, then the
 * initialisation rounds) and checks its first block, lane by lane, against
 * the reference kernel run on copies.  1 if it matches. */
static int setup_keystream(zuc_ctx *c, const zuc_impl *ref) {
  unsigned lanes = c->impl->lanes;
  c->groups = (streams.n + lanes - 1) / lanes;
  size_t words = (size_t)ZUC_STATE_WORDS * lanes;
  /* Cache-line aligned, as zuc_batch holds them in the library: a kernel
   * loads and stores each state word of its lanes as one vector. */
  c->states = kc_alloc_aligned(c->groups * words * sizeof *c->states, 64);
  c->ks = kc_alloc_aligned(64 * (size_t)lanes, 64);
  if (!c->states || !c->ks) return 0;
  kc_rng rng;
  kc_rng_seed(&rng, 20240613);
  zuc_random_states(&rng, c->states, c->groups, lanes);
  kc_rows(c->ks, 64, lanes, c->ks_rows);
  for (size_t g = 0; g < c->groups; g++) c->impl->init_rounds(c->states + g * words);
  static zuc_ref_lanes m; /* group 0, checked */
  zuc_ref_load(&m, ref, c->states, lanes);
  c->impl->keystream_block(c->states, c->ks_rows);
  zuc_ref_step(&m, ZUC_BLOCK, NULL);
  return memcmp(c->ks, m.block, 64 * (size_t)lanes) == 0;
}

/* Adds the cell `cell` (its subject's fields set) of context c; returns 1
 * if its check failed. */
static int add(bench_set *set, const bench_select *sel, zuc_ctx *c, const zuc_impl *ref,
               bench_cell cell) {
  int ok = c->keystream ? setup_keystream(c, ref) : check_streams(c, ref);
  cell.cipher = zuc_variant_name(c->op.variant);
  cell.mac_method = c->op.mac && !c->imb ? zuc_method_name(c->op.method) : NULL;
  if (!ok)
    fprintf(stderr, "bench: WARNING: %s %s %s%s%s output differs from reference_scalar\n",
            cell.cipher, cell.name, c->mode, cell.mac_method ? " " : "",
            cell.mac_method ? cell.mac_method : "");
  cell.mode = c->mode;
  cell.streams = c->keystream ? (unsigned)(c->groups * c->impl->lanes) : (unsigned)streams.n;
  cell.verified = ok;
  cell.sizes = sizes_of(sel, &cell.n_sizes);
  cell.max_bytes = c->imb ? KC_IMB_ZUC_MAX_BYTES : 0;
  cell.call = c->keystream ? keystream_call : streams_call;
  cell.ctx = c;
  cell.close = close_ctx;
  *bench_add(set) = cell;
  return !ok;
}

/* Mode `mi` on variant v, with a MAC's method for ours. */
static zuc_ctx *new_ctx(zuc_variant v, size_t mi, zuc_mac_method method) {
  zuc_ctx *c = calloc(1, sizeof *c);
  if (!c) {
    fprintf(stderr, "bench: out of memory\n");
    exit(1);
  }
  c->mode = MODES[mi].name;
  c->keystream = MODES[mi].keystream;
  c->op = (zuc_op){v, v == ZUC_256 ? 25 : 16, MODES[mi].mac, MODES[mi].tag_bits, method};
  return c;
}

/* The ipsec-mb managers: as init_mb_mgr_auto chooses, and AVX2 forced
 * unless that is what auto chose. */
typedef struct {
  kc_imb *imb;
  char name[32];
  char target[96];
} imb_subject;

static void close_imb(void *m) { kc_imb_close(m); }

static size_t open_imb(imb_subject out[2]) {
  static const struct {
    kc_imb_init how;
    const char *call;
  } inits[] = {{KC_IMB_AUTO, "init_mb_mgr_auto"}, {KC_IMB_AVX2, "init_mb_mgr_avx2"}};
  size_t n = 0;
  for (size_t i = 0; i < 2; i++) {
    char err[256];
    kc_imb *m = kc_imb_open(inits[i].how, err, sizeof err);
    if (!m) {
      fprintf(stderr, "bench: %s\n", err);
      continue;
    }
    if (n > 0 && strcmp(kc_imb_arch(m), kc_imb_arch(out[0].imb)) == 0) {
      kc_imb_close(m); /* auto already runs this code */
      continue;
    }
    out[n].imb = m;
    snprintf(out[n].name, sizeof out[n].name, "ipsec-mb_%s", kc_imb_arch(m));
    snprintf(out[n].target, sizeof out[n].target, "job API %s, ipsec-mb %s", inits[i].call,
             kc_imb_version());
    n++;
  }
  return n;
}

static int add_cells(const kc_desc *d, bench_set *set, const bench_select *sel) {
  static const zuc_variant VARIANTS[] = {ZUC_128, ZUC_256, ZUC_NEA6};
  int wanted = 0;
  for (size_t vi = 0; vi < sizeof VARIANTS / sizeof VARIANTS[0]; vi++)
    wanted |= bench_wants_cipher(sel, zuc_variant_name(VARIANTS[vi]));
  if (!wanted) return 0;
  const zuc_impl *ref = zuc_impl_find("reference", "scalar", 0);
  if (!ref) {
    fprintf(stderr, "bench: no reference_scalar ZUC kernel to check against\n");
    return 1;
  }
  size_t n_sizes;
  const size_t *sizes = sizes_of(sel, &n_sizes);
  make_streams(sel->streams, bench_max_size(sizes, n_sizes, CHECK_BYTES));
  bench_own(set, NULL, free_streams);
  static imb_subject imbs[2];
  size_t n_imb = open_imb(imbs); /* cheap; the filter applies per run below */
  for (size_t j = 0; j < n_imb; j++) bench_own(set, imbs[j].imb, close_imb);
  kc_view_list impls;
  d->views(&impls);
  int timed[KC_MAX_IMPLS];
  for (size_t i = 0; i < impls.n; i++) timed[i] = bench_timeable(&impls.v[i]);
  int problems = 0;

  for (size_t vi = 0; vi < sizeof VARIANTS / sizeof VARIANTS[0]; vi++) {
    const zuc_variant v = VARIANTS[vi];
    if (!bench_wants_cipher(sel, zuc_variant_name(v))) continue;
    for (size_t mi = 0; mi < N_MODES; mi++) {
      /* ZUC-NEA6: encryption (its keystream blocks are ZUC-256's; its MAC, NIA6, is not zuc_mac's). */
      if (!bench_wants_mode(sel, MODES[mi].name) || (v == ZUC_128 && MODES[mi].tag_bits > 32) ||
          (v == ZUC_NEA6 && (MODES[mi].mac || MODES[mi].keystream)))
        continue;
      /* Ours: every native kernel, each MAC method. */
      for (size_t i = 0; i < impls.n; i++) {
        const zuc_impl *im = impls.v[i].impl;
        if (!timed[i] || !bench_wants_subject(sel, "ours", im->name, im->strategy, im->target))
          continue;
        for (int k = 0; k < (MODES[mi].mac ? ZUC_CHOSEN_METHODS : 1); k++) {
          zuc_ctx *c = new_ctx(v, mi, (zuc_mac_method)k);
          c->impl = im;
          problems += add(set, sel, c, ref,
                          (bench_cell){.impl = "ours", .name = im->name, .strategy = im->strategy,
                                       .target = im->target, .lanes = im->lanes});
        }
      }
      /* ipsec-mb: no keystream-only job, no NEA6 in Debian's. */
      for (size_t j = 0; j < n_imb && !MODES[mi].keystream && zuc_imb_has(&(zuc_op){.variant = v}); j++) {
        if (!bench_wants_subject(sel, "ipsec-mb", imbs[j].name, NULL, NULL)) continue;
        zuc_ctx *c = new_ctx(v, mi, ZUC_MAC_CLMUL);
        c->imb = imbs[j].imb;
        problems += add(set, sel, c, ref,
                        (bench_cell){.impl = "ipsec-mb", .name = imbs[j].name, .strategy = "job API",
                                     .target = imbs[j].target, .arch = kc_imb_arch(imbs[j].imb)});
      }
    }
  }
  return problems;
}

const bench_hooks kc_zuc_bench = {.modes = "keystream,enc,mac32,mac64,mac128", .add_cells = add_cells};
