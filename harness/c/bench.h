/*
 * bench's library (bench_lib.c): what a description supplies to the
 * benchmark (bench_hooks), the helpers its hooks share, and the cells of
 * every block cipher; bench.c is the measurement engine.
 *
 * A cipher adds *cells*: one subject (one of our kernels, or a peer library)
 * doing one mode, set up, and its output checked against our scalar
 * reference before any timing.  bench.c then times every cell at every
 * message size the cell wants, interleaved, and writes the records.
 */
#ifndef KC_BENCH_H
#define KC_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "cipher.h"

/* The most messages one timed call may take (--streams). */
#define BENCH_MAX_STREAMS 256

/* One subject x mode, ready to be timed. */
typedef struct bench_cell {
  /* What the record says about it (see write_json in bench.c). */
  const char *cipher;     /* "sm4", "zuc128", "zuc256", "ublock128_128", ... */
  const char *impl;       /* "ours", or the peer: "openssl", "libgcrypt", "ipsec-mb" */
  const char *name;       /* our kernel's name, or the peer's name */
  const char *strategy;   /* our strategy; for peers the API used */
  const char *target;     /* our target; for peers the API and library version */
  const char *mode;       /* e.g. "ctr", "enc", "mac64" */
  const char *mac_method; /* ZUC MACs: "clmul" or "compare"; else NULL */
  const char *arch;       /* peers that choose their code at run time: what they chose */
  unsigned lanes;         /* blocks or streams one kernel pass processes */
  unsigned streams;       /* messages per timed call (1: one message) */
  int verified;           /* output matched our scalar reference before timing */
  const size_t *sizes;    /* message sizes to time (bytes per message) */
  size_t n_sizes;
  size_t max_bytes; /* longest message the subject accepts (0: no limit) */
  /* The uBlock paper's method (cipher_ublock.c): one call processes its
   * message `loops` times over in a loop, and is timed as it is, once per
   * repetition (no calibration); Gbit/s count all loops.  0: an ordinary
   * cell, whose call processes its message once. */
  uint64_t loops;
  const char *role; /* what the record stands for in the report, or NULL */
  /* One timed call on `streams` messages of msg_bytes bytes each; 0 on
   * success. */
  int (*call)(void *ctx, size_t msg_bytes);
  void *ctx;
  void (*close)(void *ctx); /* may be NULL */
} bench_cell;

#define BENCH_MAX_OWNED 16

/* The cells gathered so far, and what several of them share (a block
 * cipher's key schedule and buffers), released after every cell is closed. */
typedef struct bench_set {
  bench_cell *cells;
  size_t n, cap;
  struct {
    void *p;
    void (*release)(void *p);
  } owned[BENCH_MAX_OWNED];
  size_t n_owned;
} bench_set;

/* p, unless NULL: then exits after "bench: out of memory". */
void *bench_need(void *p);
/* A new, zeroed cell at the end of the set (exits on out of memory). */
bench_cell *bench_add(bench_set *set);
/* Hands p to the set, to be released by bench_set_free (exits when full). */
void bench_own(bench_set *set, void *p, void (*release)(void *p));
/* Closes every cell, then releases what the set owns. */
void bench_set_free(bench_set *set);

/* What the command line selected. */
typedef struct bench_select {
  const char *impl_filter;   /* --impl LIST or NULL */
  const char *mode_filter;   /* --mode LIST or NULL */
  const char *cipher_filter; /* --cipher LIST or NULL */
  const size_t *sizes;       /* --sizes, or NULL for each cipher's defaults */
  size_t n_sizes;
  int quick;        /* --quick: each cipher's quick sizes */
  unsigned streams; /* --streams: messages per call for many-stream subjects */
  uint64_t loops;   /* --loops: encryptions per test of the paper's one-block method */
} bench_select;

/* Filters (comma-separated lists, kc_in_list): a NULL filter selects
 * everything. */
int bench_wants_cipher(const bench_select *sel, const char *cipher);
int bench_wants_mode(const bench_select *sel, const char *mode);
/* A subject is selected by its name, its impl kind, or (ours) its strategy
 * or target. */
int bench_wants_subject(const bench_select *sel, const char *impl, const char *name,
                        const char *strategy, const char *target);

/* Message sizes: --sizes if given, else `quick` (with --quick, when not
 * NULL) or `defaults`; *n receives their number. */
const size_t *bench_sizes(const bench_select *sel, const size_t *defaults, size_t n_defaults,
                          const size_t *quick, size_t n_quick, size_t *n);

/* The largest of n sizes, at least `least`. */
size_t bench_max_size(const size_t *sizes, size_t n, size_t least);

/* 1 if our implementation v is timed: native code this CPU runs (emulated
 * builds are never timed; KC_DISABLE_TARGETS is honoured).  Says on stderr
 * why a native one is skipped. */
int bench_timeable(const kc_impl_view *v);

/* `len` bytes, 64-byte aligned, random from `seed` (exits on out of
 * memory); free with kc_free_aligned. */
uint8_t *bench_random_buffer(size_t len, uint64_t seed);

/* The inputs of a block cipher's cells for one variant (bench_block.c):
 * random key and IV, that key's schedule, buffers of the longest message,
 * the reference the cells are checked against, the sizes. */
typedef struct bench_block_io {
  const kc_desc *d;
  const kc_variant *v;
  const void *ref, *ks;
  uint8_t key[KC_BLOCK_MAX_BYTES], iv[KC_BLOCK_MAX_BYTES];
  uint8_t *in, *out, *want;
  const size_t *sizes;
  size_t n_sizes;
} bench_block_io;

/* Appends `cell` after checking one call of it on len bytes against the
 * reference doing `op` (on io's key, IV and input, into io->out): sets
 * verified, warns on a mismatch.  Returns 1 if the check failed. */
int bench_block_add(bench_set *set, const bench_block_io *io, const kc_block_op *op, size_t len,
                    const bench_cell *cell);

typedef struct bench_hooks {
  const char *modes; /* its modes, comma-separated, for --mode and the usage */
  /* Sets up and checks its cells.  Returns the number of problems (set-up
   * failures and outputs that differ from the reference), 0 if none. */
  int (*add_cells)(const kc_desc *d, bench_set *set, const bench_select *sel);
  /* Block ciphers (bench_block_cells), optional: an op not timed with one
   * key and one message per call (uBlock: "cbc-enc", serial); more cells of
   * one timeable kernel; and peers' cells, per variant. */
  const char *not_single;
  int (*add_kernel)(bench_set *set, const bench_select *sel, const bench_block_io *io,
                    const kc_impl_view *v);
  int (*add_peers)(bench_set *set, const bench_select *sel, const bench_block_io *io);
} bench_hooks;

/* The cells of a block cipher: every timeable kernel of every selected
 * variant in every mode (KC_BLOCK_OPS), then the hooks'. */
int bench_block_cells(const kc_desc *d, bench_set *set, const bench_select *sel);

#endif /* KC_BENCH_H */
