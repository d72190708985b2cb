/*
 * kcrypt's inside: what a cipher supplies to the command-line tool, and the
 * implementation choice every cipher shares.
 *
 * kcrypt.c parses the command line into a kc_args, finds the cipher in its
 * table (kc_ciphers) and calls the cipher's prepare (check everything before
 * stdin is read) and run (process the whole input).  Each cipher lives in its
 * own file (kcrypt_sm4.c, kcrypt_zuc.c, kcrypt_ublock.c) and lists its
 * implementations as kc_impl_view rows (impls.h), so choosing one from
 * -t/-s/--emulated, and the --list-targets / --list-impls output, are written
 * once here, as is what the block ciphers' command lines share (kc_block_*).
 */
#ifndef KC_KCRYPT_H
#define KC_KCRYPT_H

#include <stddef.h>
#include <stdint.h>

#include "common.h"
#include "impls.h"

/* What the command line asked for, before any cipher looks at it. */
typedef struct kc_args {
  const char *cipher;     /* first positional argument */
  const char *mode;       /* second positional argument */
  int direction;          /* -1: not given, 0: decrypt (-d), 1: encrypt (-e) */
  const char *key_hex;    /* -k */
  const char *iv_hex;     /* -i, NULL if not given */
  const char *target;     /* -t, NULL if not given */
  const char *strategy;   /* -s, NULL if not given */
  const char *tag;        /* --tag, NULL if not given */
  const char *bits;       /* --bits, NULL if not given */
  const char *mac_method; /* --mac-method, NULL if not given */
  int emulated;           /* --emulated */
} kc_args;

/* A cipher the tool knows.  Functions report errors through err. */
typedef struct kc_cipher {
  const char *name;
  const char *modes;   /* for the usage text, e.g. "ecb|cbc|ctr" */
  int needs_direction; /* 1: -e or -d is required; 0: refused */
  /* Every implementation, in the library's registration order (native,
   * then emulated), the emulated builds registered first. */
  kc_views_fn views;
  /* The library's own choice for this CPU (its dispatch), or NULL. */
  const void *(*best)(void);
  /* Checks everything on the command line before stdin is read.  Returns 0
   * or -1. */
  int (*prepare)(const kc_args *args, char *err, size_t err_size);
  /* Processes the whole input into a malloc'ed *out.  Returns 0 or -1. */
  int (*run)(const uint8_t *in, size_t len, uint8_t **out, size_t *out_len, char *err,
             size_t err_size);
} kc_cipher;

/* The implementation -t/-s/--emulated asks for (the fastest one this CPU
 * runs natively when none is named), or NULL with the reason in err.
 * Returns the cipher's own impl pointer (kc_impl_view.impl). */
const void *kc_select_impl(const kc_cipher *c, const kc_args *a, char *err, size_t err_size);

/* Where this implementation runs here, honouring KC_DISABLE_TARGETS. */
kc_avail kc_view_avail(const kc_impl_view *v);

/* Parses a non-negative decimal number (no sign, no spaces).  Returns 0 or
 * -1. */
int kc_parse_decimal(const char *s, size_t *out);

/* ------------------------------------------------------------------ */
/* Block ciphers (SM4, uBlock): what their prepare and run share        */
/* ------------------------------------------------------------------ */

/* What a block cipher's command line decided. */
typedef struct kc_block_job {
  kc_block_mode mode;
  int encrypt;
  size_t key_bytes, block_bytes;
  uint8_t key[KC_BLOCK_MAX_BYTES]; /* the cipher takes it into its key schedule, then wipes it */
  uint8_t iv[KC_BLOCK_MAX_BYTES];  /* CBC, CTR; zeros for ECB */
  const void *impl;                /* from kc_select_impl */
} kc_block_job;

/* Checks a block cipher's command line and fills job: no ZUC options; the
 * mode (ecb, cbc, ctr); a key of key_bytes; an IV of block_bytes for CBC and
 * CTR, none for ECB; the implementation (-t/-s/--emulated).  Returns 0 or -1
 * with the reason in err. */
int kc_block_prepare(const kc_cipher *c, const kc_args *a, size_t key_bytes, size_t block_bytes,
                     kc_block_job *job, char *err, size_t err_size);

/* Checks the input length (ECB and CBC take whole blocks: no padding) and
 * allocates the output (len bytes).  Returns 0 or -1. */
int kc_block_output(const kc_cipher *c, const kc_block_job *job, size_t len, uint8_t **out,
                    char *err, size_t err_size);

/* After the cipher's mode driver returned `rc` (0: done) on *out: on
 * success sets *out_len = len; otherwise frees *out and reports "<driver>
 * with <impl name> failed (code rc)".  Returns 0 or -1. */
int kc_block_finish(int rc, const char *driver, const char *impl_name, uint8_t **out, size_t len,
                    size_t *out_len, char *err, size_t err_size);

/* The ciphers (kcrypt_sm4.c, kcrypt_zuc.c, kcrypt_ublock.c). */
extern const kc_cipher kc_cipher_sm4, kc_cipher_zuc128, kc_cipher_zuc256;
extern const kc_cipher kc_cipher_ublock128_128, kc_cipher_ublock128_256, kc_cipher_ublock256_256;

#endif /* KC_KCRYPT_H */
