/*
 * kcrypt's inside: what a cipher supplies to the command-line tool, and the
 * implementation choice every cipher shares.
 *
 * kcrypt.c parses the command line into a kc_args, finds the cipher in its
 * table (kc_ciphers) and calls the cipher's prepare (check everything before
 * stdin is read), then streams stdin through its update one piece of
 * KC_CHUNK_BYTES at a time (the next piece read ahead on a second thread),
 * writing each piece's output as it goes, and calls its wipe at the end.  Each cipher lives in its own file
 * (kcrypt_sm4.c, kcrypt_zuc.c, kcrypt_ublock.c) and lists its
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

/* stdin goes to a cipher in pieces of this many bytes: every piece is whole
 * except the last, whatever sizes the pipe delivers (kcrypt fills the piece
 * before handing it on).  A multiple of every block size (KC_BLOCK_MAX_BYTES),
 * so ECB and CBC pieces before the last are whole blocks. */
#define KC_CHUNK_BYTES ((size_t)1 << 20)

/* Room a cipher may write past the length of its last piece (a MAC's tag in
 * hex and a newline). */
#define KC_OUT_SLACK 64

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
  /* Checks everything on the command line before stdin is read and sets up
   * what update needs (key schedule, mode state).  Returns 0 or -1. */
  int (*prepare)(const kc_args *args, char *err, size_t err_size);
  /* The most bytes of stdin the cipher uses (zuc --bits); kcrypt reads no
   * further.  NULL: all of stdin. */
  uint64_t (*input_limit)(void);
  /* Processes the next piece of stdin: `len` bytes at `in`, KC_CHUNK_BYTES
   * of them unless `last` (the final piece: what is left, possibly nothing).
   * Writes *out_len bytes at out (room for len + KC_OUT_SLACK), which go to
   * stdout before the next piece is read.  Returns 0 or -1 with the reason in
   * err; it is not called again after a failure or after the last piece. */
  int (*update)(const uint8_t *in, size_t len, int last, uint8_t *out, size_t *out_len, char *err,
                size_t err_size);
  /* Wipes what prepare and update kept (key schedule, mode state, buffered
   * input); called once at the end, whatever happened.  NULL: nothing kept. */
  void (*wipe)(void);
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

/* What a block cipher's command line decided, and how far its input got. */
typedef struct kc_block_job {
  kc_block_mode mode;
  int encrypt;
  size_t key_bytes, block_bytes;
  uint8_t key[KC_BLOCK_MAX_BYTES]; /* the cipher takes it into its key schedule, then wipes it */
  uint8_t iv[KC_BLOCK_MAX_BYTES];  /* CBC, CTR; zeros for ECB */
  const void *impl;                /* from kc_select_impl */
  uint64_t seen;                   /* input bytes handed to kc_block_piece so far */
} kc_block_job;

/* Checks a block cipher's command line and fills job: no ZUC options; the
 * mode (ecb, cbc, ctr); a key of key_bytes; an IV of block_bytes for CBC and
 * CTR, none for ECB; the implementation (-t/-s/--emulated).  Returns 0 or -1
 * with the reason in err. */
int kc_block_prepare(const kc_cipher *c, const kc_args *a, size_t key_bytes, size_t block_bytes,
                     kc_block_job *job, char *err, size_t err_size);

/* Counts a piece of input into job->seen and, on the last piece, refuses an
 * ECB or CBC input that is not a whole number of blocks (no padding) before
 * anything of that piece is processed.  Returns 0 or -1. */
int kc_block_piece(const kc_cipher *c, kc_block_job *job, size_t len, int last, char *err,
                   size_t err_size);

/* After the library call `driver` returned `rc` (0: done) on a piece of len
 * bytes: on success sets *out_len = len; otherwise reports "<driver> with
 * <impl name> failed (code rc)".  Returns 0 or -1. */
int kc_block_finish(int rc, const char *driver, const char *impl_name, size_t len,
                    size_t *out_len, char *err, size_t err_size);

/* The ciphers (kcrypt_sm4.c, kcrypt_zuc.c, kcrypt_ublock.c). */
extern const kc_cipher kc_cipher_sm4, kc_cipher_zuc128, kc_cipher_zuc256;
extern const kc_cipher kc_cipher_ublock128_128, kc_cipher_ublock128_256, kc_cipher_ublock256_256;

#endif /* KC_KCRYPT_H */
