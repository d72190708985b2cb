/*
 * bench's library: the set of cells, the command line's selection, and the
 * cells of every block cipher; see bench.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

void *bench_need(void *p) {
  if (p) return p;
  fprintf(stderr, "bench: out of memory\n");
  exit(1);
}

bench_cell *bench_add(bench_set *set) {
  if (set->n == set->cap) {
    set->cap = set->cap ? 2 * set->cap : 64;
    set->cells = bench_need(realloc(set->cells, set->cap * sizeof *set->cells));
  }
  bench_cell *c = &set->cells[set->n++];
  memset(c, 0, sizeof *c);
  return c;
}

void bench_own(bench_set *set, void *p, void (*release)(void *p)) {
  if (set->n_owned == BENCH_MAX_OWNED) {
    fprintf(stderr, "bench: more than %d shared set-ups\n", BENCH_MAX_OWNED);
    exit(1);
  }
  set->owned[set->n_owned].p = p;
  set->owned[set->n_owned++].release = release;
}

void bench_set_free(bench_set *set) {
  for (size_t i = 0; i < set->n; i++)
    if (set->cells[i].close) set->cells[i].close(set->cells[i].ctx);
  while (set->n_owned) {
    set->n_owned--;
    set->owned[set->n_owned].release(set->owned[set->n_owned].p);
  }
  free(set->cells);
  *set = (bench_set){0};
}

int bench_wants_cipher(const bench_select *sel, const char *cipher) {
  return !sel->cipher_filter || kc_in_list(sel->cipher_filter, cipher);
}

int bench_wants_mode(const bench_select *sel, const char *mode) {
  return !sel->mode_filter || kc_in_list(sel->mode_filter, mode);
}

int bench_wants_subject(const bench_select *sel, const char *impl, const char *name,
                        const char *strategy, const char *target) {
  const char *f = sel->impl_filter;
  return !f || kc_in_list(f, name) || kc_in_list(f, impl) ||
         (strategy && kc_in_list(f, strategy)) || (target && kc_in_list(f, target));
}

const size_t *bench_sizes(const bench_select *sel, const size_t *defaults, size_t n_defaults,
                          const size_t *quick, size_t n_quick, size_t *n) {
  *n = sel->sizes ? sel->n_sizes : sel->quick && quick ? n_quick : n_defaults;
  return sel->sizes ? sel->sizes : sel->quick && quick ? quick : defaults;
}

size_t bench_max_size(const size_t *sizes, size_t n, size_t least) {
  size_t most = least;
  for (size_t i = 0; i < n; i++)
    if (sizes[i] > most) most = sizes[i];
  return most;
}

int bench_timeable(const kc_impl_view *v) {
  if (v->emulated) return 0;
  if (kc_view_avail(v) != KC_NATIVE) {
    fprintf(stderr, "bench: skipping %s (this CPU cannot run it natively)\n", v->name);
    return 0;
  }
  return 1;
}

uint8_t *bench_random_buffer(size_t len, uint64_t seed) {
  uint8_t *buf = bench_need(kc_alloc_aligned(len, 64));
  kc_rng rng;
  kc_rng_seed(&rng, seed);
  kc_rng_bytes(&rng, buf, len);
  return buf;
}

int bench_block_add(bench_set *set, const bench_block_io *io, const kc_block_op *op, size_t len,
                    const bench_cell *cell) {
  int ok = io->d->block->crypt(io->ref, op->mode, op->encrypt, io->ks, io->iv, io->in, io->want,
                               len) == 0 &&
           cell->call(cell->ctx, len) == 0 && memcmp(io->out, io->want, len) == 0;
  if (!ok)
    fprintf(stderr, "bench: WARNING: %s %s %s output differs from reference_scalar\n",
            io->v->name, cell->name, op->name);
  bench_cell *c = bench_add(set);
  *c = *cell;
  c->cipher = io->v->name;
  c->mode = op->name;
  c->verified = ok;
  c->sizes = io->sizes;
  c->n_sizes = io->n_sizes;
  return !ok;
}

/* One of our kernels in one mode, one key and one message per call. */
typedef struct {
  const bench_block_io *io;
  const void *impl;
  const kc_block_op *op;
} single;

static int single_call(void *ctx, size_t len) {
  const single *c = ctx;
  const bench_block_io *io = c->io;
  return io->d->block->crypt(c->impl, c->op->mode, c->op->encrypt, io->ks, io->iv, io->in, io->out,
                             len);
}

/* What block_io allocated: the buffers, the key schedule (wiped), io. */
static void free_block_io(void *p) {
  bench_block_io *io = p;
  kc_free_aligned(io->in);
  kc_free_aligned(io->out);
  kc_free_aligned(io->want);
  kc_block_free_key(io->d, (void *)io->ks);
  free(io);
}

/* io for variant k: random key and IV, buffers of buf_len bytes. */
static bench_block_io *block_io(const kc_desc *d, size_t k, const void *ref, const size_t *sizes,
                                size_t n_sizes, size_t buf_len) {
  bench_block_io *io = bench_need(calloc(1, sizeof *io));
  *io = (bench_block_io){.d = d, .v = &d->variants[k], .ref = ref, .ks = kc_block_new_key(d),
                         .sizes = sizes, .n_sizes = n_sizes};
  kc_rng rng;
  kc_rng_seed(&rng, 20240611 + k);
  kc_rng_bytes(&rng, io->key, sizeof io->key);
  kc_rng_bytes(&rng, io->iv, sizeof io->iv);
  io->in = bench_random_buffer(buf_len, 20240614 + k);
  io->out = bench_random_buffer(buf_len, 1);
  io->want = bench_random_buffer(buf_len, 2);
  return io;
}

int bench_block_cells(const kc_desc *d, bench_set *set, const bench_select *sel) {
  const void *ref = kc_desc_reference(d);
  if (!ref) {
    fprintf(stderr, "bench: no reference_scalar %s kernel to check against\n", d->name);
    return 1;
  }
  kc_view_list impls;
  d->views(&impls);
  static const size_t defaults[] = {64, 256, 1024, 4096, 16384, 65536, 1048576};
  static const size_t quick[] = {256, 4096, 65536};
  size_t n_sizes;
  const size_t *sizes = bench_sizes(sel, defaults, sizeof defaults / sizeof defaults[0], quick,
                                    sizeof quick / sizeof quick[0], &n_sizes);
  int problems = 0, timed[KC_MAX_IMPLS], any = 0;
  for (size_t k = 0; k < d->n_variants; k++) any |= bench_wants_cipher(sel, d->variants[k].name);
  for (size_t i = 0; any && i < impls.n; i++) timed[i] = bench_timeable(&impls.v[i]);
  for (size_t k = 0; k < d->n_variants; k++) {
    const kc_variant *v = &d->variants[k];
    if (!bench_wants_cipher(sel, v->name)) continue;
    bench_block_io *io = block_io(d, k, ref, sizes, n_sizes, bench_max_size(sizes, n_sizes, 1 << 16));
    bench_own(set, io, free_block_io);
    if (d->block->set_key((void *)io->ks, v->id, io->key) != 0) {
      fprintf(stderr, "bench: %s key schedule failed\n", v->name);
      return problems + 1;
    }
    for (size_t i = 0; i < impls.n; i++) {
      const kc_impl_view *m = &impls.v[i];
      if (!timed[i] || !bench_wants_subject(sel, "ours", m->name, m->strategy, m->target))
        continue;
      unsigned batch = d->block->batch(m->impl, v->id);
      for (size_t o = 0; o < KC_N_BLOCK_OPS; o++) {
        const kc_block_op *op = &KC_BLOCK_OPS[o];
        if (!bench_wants_mode(sel, op->name) ||
            (d->bench->not_single && strcmp(op->name, d->bench->not_single) == 0))
          continue;
        single *ctx = bench_need(malloc(sizeof *ctx));
        *ctx = (single){io, m->impl, op};
        bench_cell cell = {.impl = "ours", .name = m->name, .strategy = m->strategy,
                           .target = m->target, .lanes = batch, .streams = 1,
                           .call = single_call, .ctx = ctx, .close = free};
        /* Two batches and a block (CTR: and 7 bytes). */
        size_t len = (2 * batch + 1) * v->block_bytes + (op->mode == KC_MODE_CTR ? 7 : 0);
        problems += bench_block_add(set, io, op, len, &cell);
      }
      if (d->bench->add_kernel) problems += d->bench->add_kernel(set, sel, io, m);
    }
    if (d->bench->add_peers) problems += d->bench->add_peers(set, sel, io);
  }
  return problems;
}
