/*
 * A cipher as every harness program sees it: one description (kc_desc) per cipher, listed
 * once in ciphers.c; the programs are loops over that table (the layers: docs/design.md).  A
 * new block cipher needs its description and its vectors (tests/vectors/<cipher>.json,
 * compiled in: vectors.h); what a tool cannot do from these alone is a hook in the tool's
 * part of the description.
 */
#ifndef KC_HARNESS_CIPHER_H
#define KC_HARNESS_CIPHER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common.h"
#include "kc_dispatch.h"
#include "vectors.h"

/* ------------------------------------------------------------------ */
/* Implementations                                                      */
/* ------------------------------------------------------------------ */

/* The fields of an implementation that choosing, listing and looping need,
 * whatever the cipher; `impl` is the cipher's own struct (sm4_impl, ...). */
typedef struct kc_impl_view {
  const char *name; /* "<strategy>_<target>" */
  const char *strategy;
  const char *target;
  int emulated; /* 1: the SIMDe build */
  int (*cpu_supported)(void);
  const void *impl;
} kc_impl_view;

#define KC_MAX_IMPLS 256

/* A cipher's implementations in the library's registration order (native,
 * then emulated: the SIMDe builds are registered first). */
typedef struct kc_view_list {
  kc_impl_view v[KC_MAX_IMPLS];
  size_t n;
} kc_view_list;

/* The SIMDe builds are linked on x86-64 hosts only (KC_NO_EMULATED
 * elsewhere). */
#ifdef KC_NO_EMULATED
#define KC_REGISTER_EMULATED(cipher) ((void)0)
#else
#define KC_REGISTER_EMULATED(cipher) cipher##_register_emulated()
#endif

/* The lookups every cipher library spells alike (<p>_impls, <p>_impl_find,
 * <p>_impl_best, <p>_register_emulated): its description's `views`, `find`
 * and `best`, written once for all of them. */
#define KC_LIBRARY_LOOKUPS(p)                                                                   \
  static void views(kc_view_list *out) {                                                        \
    KC_REGISTER_EMULATED(p);                                                                    \
    size_t n;                                                                                   \
    const p##_impl *const *all = p##_impls(&n);                                                 \
    out->n = n < KC_MAX_IMPLS ? n : KC_MAX_IMPLS;                                               \
    for (size_t i = 0; i < out->n; i++)                                                         \
      out->v[i] = (kc_impl_view){all[i]->name,     all[i]->strategy,          all[i]->target,   \
                                 all[i]->emulated, all[i]->cpu_supported,     all[i]};          \
  }                                                                                             \
  static const void *find(const char *strategy, const char *target, int emulated) {             \
    return p##_impl_find(strategy, target, emulated);                                           \
  }                                                                                             \
  static const void *best(void) { return p##_impl_best(); }

/* The implementation named `name` with this emulated flag, or NULL. */
const kc_impl_view *kc_view_find(const kc_view_list *l, const char *name, int emulated);
/* 1 if some implementation (native or emulated) is named `name`. */
int kc_view_named(const kc_view_list *l, const char *name);
/* Where `v` runs on this CPU, from its own fields: its cpu_supported probe
 * (NULL: supported) says for an emulated (SIMDe) build whether this CPU has
 * what the emulation itself is compiled for (e.g. AVX2).  kc_view_avail also
 * honours the test hook KC_DISABLE_TARGETS (kc_target_disabled). */
kc_avail kc_view_runs(const kc_impl_view *v);
kc_avail kc_view_avail(const kc_impl_view *v);
/* The row describing impl, or NULL. */
const kc_impl_view *kc_view_of(const kc_view_list *l, const void *impl);
/* Appends " NAME" (" NAME(emulated)") per implementation to f. */
void kc_view_print_names(FILE *f, const kc_view_list *l);

/* ------------------------------------------------------------------ */
/* The description                                                      */
/* ------------------------------------------------------------------ */

/* One variant: its name where kcrypt and bench name ciphers, the library's
 * value for it, and its sizes (block_bytes 0: a stream cipher). */
typedef struct kc_variant {
  const char *name; /* "sm4", "ublock128_256", "zuc256" */
  int id;
  size_t key_bytes, block_bytes;
} kc_variant;

/* A block cipher's library, as every tool drives it.  Key schedules and
 * mode states are opaque buffers of key_size and state_size bytes; modes
 * and directions are kc_block_mode and 1 (encrypt) / 0 (decrypt). */
typedef struct kc_block_api {
  const char *prefix; /* the library's prefix, naming its calls in messages: "sm4" */
  size_t key_size, state_size;
  int err_length; /* the code for an ECB/CBC length that is not whole blocks */
  int (*set_key)(void *ks, int variant, const uint8_t *key);
  void (*wipe_key)(void *ks);
  /* The mode driver; impl NULL: the library's choice. */
  int (*crypt)(const void *impl, kc_block_mode mode, int encrypt, const void *ks,
               const uint8_t *iv, const uint8_t *in, uint8_t *out, size_t len);
  /* The kernel's own entry point, ECB on whole blocks. */
  void (*crypt_blocks)(const void *impl, int encrypt, const void *ks, const uint8_t *in,
                       uint8_t *out, size_t nblocks);
  /* Blocks one kernel pass processes for this variant. */
  unsigned (*batch)(const void *impl, int variant);
  /* The one-call wrapper number op (KC_BLOCK_OPS order) on the best kernel. */
  int (*wrapper)(size_t op, const void *ks, const uint8_t *iv, const uint8_t *in, uint8_t *out,
                 size_t len);
  /* The incremental CBC and CTR calls (kcrypt): init into st, update,
   * final, and reset (wipes st, whatever state it is in). */
  int (*init)(void *st, kc_block_mode mode, const void *impl, int encrypt, const void *ks,
              const uint8_t *iv);
  int (*update)(void *st, kc_block_mode mode, const uint8_t *in, uint8_t *out, size_t len);
  int (*final)(void *st, kc_block_mode mode);
  void (*reset)(void *st, kc_block_mode mode);
  /* A second oracle on raw key bytes (0, or -1 when it failed or is
   * missing), or NULL. */
  int (*oracle)(kc_block_mode mode, int encrypt, const uint8_t *key, const uint8_t *iv,
                const uint8_t *in, uint8_t *out, size_t len);
  const char *oracle_name;
  /* A malloc'ed copy of impl whose cpu_supported is `supported` (ctcheck
   * runs kernels valgrind's CPUID hides). */
  void *(*copy_impl)(const void *impl, int (*supported)(void));
} kc_block_api;

/* The tools' parts of a description, defined by each tool's header. */
struct kc_cli;
struct verify_hooks;
struct bench_hooks;
struct ct_hooks;

typedef struct kc_desc {
  const char *name;   /* "sm4": verify --cipher, ctcheck's units "<name>_<kernel>" */
  const char *label;  /* verify's prefix of its lines: "", "zuc ", "ublock " */
  const kc_variant *variants;
  size_t n_variants;
  /* Every implementation (the SIMDe builds registered first). */
  void (*views)(kc_view_list *out);
  /* The library's lookups: <cipher>_impl_find, _best, and the kernel it
   * runs serial work on (_serial, else _best). */
  const void *(*find)(const char *strategy, const char *target, int emulated);
  const void *(*best)(void);
  const void *(*serial)(void);
  /* The library's default kernel of a role (a kc_dispatch_role) for a
   * variant, why saying where it came from: <cipher>_impl_dispatch. */
  const void *(*dispatch)(int role, int variant, kc_dispatch_why *why);
  const kc_block_api *block; /* NULL: not a block cipher */
  const struct kc_cli *cli;
  const struct verify_hooks *verify;
  const struct bench_hooks *bench;
  const struct ct_hooks *ct;
} kc_desc;

/* Every cipher, in the order the tools run them (ciphers.c); at most
 * KC_MAX_CIPHERS. */
extern const kc_desc *const KC_CIPHERS[];
extern const size_t KC_N_CIPHERS;
#define KC_MAX_CIPHERS 8

/* The reference implementation (reference_scalar), or NULL. */
const void *kc_desc_reference(const kc_desc *d);

/* Largest batch of any implementation for variant `variant` (1 at least). */
unsigned kc_block_largest_batch(const kc_desc *d, const kc_view_list *impls, int variant);

/* Block cipher helpers: a key schedule buffer (exits on out of memory), set
 * from `key`; and its wipe and release. */
void *kc_block_new_key(const kc_desc *d);
void kc_block_free_key(const kc_desc *d, void *ks);

/* The library calls every block cipher spells alike, <p>_crypt,
 * <p>_ecb_encrypt ... <p>_ctr_reset and its kernels' crypt_blocks (its
 * public header; `dir` is the cipher's own encrypt-flag to direction
 * mapping): what a kc_block_api points at but set_key, wipe_key and batch,
 * written once for all of them.  KC_BLOCK_API_CALLS(p) are its fields. */
#define KC_BLOCK_API_CALLS(p)                                                                       \
  .prefix = #p, .key_size = sizeof(p##_key), .state_size = sizeof(state), .set_key = set_key,       \
  .wipe_key = wipe_key, .crypt = block_crypt, .crypt_blocks = crypt_blocks, .batch = batch,         \
  .wrapper = wrapper, .init = init, .update = update, .final = final, .reset = reset,               \
  .copy_impl = copy_impl
#define KC_BLOCK_LIBRARY_CALLS(p)                                                                   \
  static int block_crypt(const void *impl, kc_block_mode mode, int encrypt, const void *ks,         \
                         const uint8_t *iv, const uint8_t *in, uint8_t *out, size_t len) {          \
    return p##_crypt(impl, (p##_mode)mode, dir(encrypt), ks, iv, in, out, len);                     \
  }                                                                                                 \
  static void crypt_blocks(const void *impl, int encrypt, const void *ks, const uint8_t *in,        \
                           uint8_t *out, size_t nblocks) {                                          \
    ((const p##_impl *)impl)->crypt_blocks(ks, dir(encrypt), in, out, nblocks);                     \
  }                                                                                                 \
  static void *copy_impl(const void *impl, int (*supported)(void)) {                                \
    p##_impl *copy = malloc(sizeof *copy);                                                          \
    if (copy) *copy = *(const p##_impl *)impl, copy->cpu_supported = supported;                     \
    return copy;                                                                                    \
  }                                                                                                 \
  static int wrapper(size_t op, const void *ks, const uint8_t *iv, const uint8_t *in, uint8_t *out, \
                     size_t len) {                                                                  \
    switch (op) {                                                                                   \
      case 0: return p##_ecb_encrypt(ks, in, out, len);                                             \
      case 1: return p##_ecb_decrypt(ks, in, out, len);                                             \
      case 2: return p##_cbc_encrypt(ks, iv, in, out, len);                                         \
      case 3: return p##_cbc_decrypt(ks, iv, in, out, len);                                         \
      default: return p##_ctr_crypt(ks, iv, in, out, len);                                          \
    }                                                                                               \
  }                                                                                                 \
  typedef union {                                                                                   \
    p##_cbc_state cbc;                                                                              \
    p##_ctr_state ctr;                                                                              \
  } state;                                                                                          \
  static int init(void *st, kc_block_mode mode, const void *impl, int encrypt, const void *ks,      \
                  const uint8_t *iv) {                                                              \
    return mode == KC_MODE_CBC ? p##_cbc_init(&((state *)st)->cbc, impl, dir(encrypt), ks, iv)      \
                               : p##_ctr_init(&((state *)st)->ctr, impl, ks, iv);                   \
  }                                                                                                 \
  static int update(void *st, kc_block_mode mode, const uint8_t *in, uint8_t *out, size_t len) {    \
    return mode == KC_MODE_CBC ? p##_cbc_update(&((state *)st)->cbc, in, out, len)                  \
                               : p##_ctr_update(&((state *)st)->ctr, in, out, len);                 \
  }                                                                                                 \
  static int final(void *st, kc_block_mode mode) {                                                  \
    return mode == KC_MODE_CBC ? p##_cbc_final(&((state *)st)->cbc)                                 \
                               : p##_ctr_final(&((state *)st)->ctr);                                \
  }                                                                                                 \
  static void reset(void *st, kc_block_mode mode) {                                                 \
    mode == KC_MODE_CBC ? p##_cbc_reset(&((state *)st)->cbc) : p##_ctr_reset(&((state *)st)->ctr);  \
  }

#endif /* KC_HARNESS_CIPHER_H */
