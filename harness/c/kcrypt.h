/*
 * kcrypt's library (kcrypt_lib.c): what a description gives kcrypt (kc_cli: kcrypt.c calls
 * its prepare, streams stdin through its update, calls its wipe), the choice of an
 * implementation from -t/-s/--emulated, and the CLI of every block cipher (kc_block_cli).
 */
#ifndef KC_KCRYPT_H
#define KC_KCRYPT_H

#include <stddef.h>
#include <stdint.h>

#include "common.h"
#include "cipher.h"

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
  const char *aad_hex;    /* -a, NULL if not given */
  const char *aad_file;   /* --aad-file, NULL if not given */
  const char *tag_bytes;  /* --tag-bytes, NULL if not given */
  const char *tweak_rule; /* --tweak-rule, NULL if not given */
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

/* in -> out (may be the same) for `len` bytes that lie `offset` bytes into
 * the stream, as a cipher whose output depends on that offset alone (CTR)
 * gives them; 0, or -1 with the reason in err.  Called from two threads at
 * once (parallel_pieces.h): it keeps no state between calls. */
typedef int (*kc_crypt_at_fn)(uint64_t offset, const uint8_t *in, uint8_t *out, size_t len,
                              char *err, size_t err_size);

/* kcrypt's part of a description: how one of its variants takes the
 * command line and stdin.  Functions report errors through err.  Block
 * ciphers use kc_block_cli. */
typedef struct kc_cli {
  const char *modes;   /* for the usage text, e.g. "ecb|cbc|ctr" */
  int needs_direction; /* 1: -e or -d is required; 0: refused */
  /* Checks everything on the command line before stdin is read and sets up
   * what update needs (key schedule, mode state).  Returns 0 or -1. */
  int (*prepare)(const kc_desc *d, const kc_variant *v, const kc_args *args, char *err,
                 size_t err_size);
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
   * input); called once at the end, whatever happened. */
  void (*wipe)(void);
  /* Output held back until the whole input was seen (an authenticated
   * mode's plaintext, a mode that needs the input's length first), or NULL:
   * called after the last piece's output is written, it writes the next
   * *out_len bytes (at most KC_CHUNK_BYTES) at out, and returns 1 while more
   * may follow, 0 with the last of it, or -1 with the reason in err. */
  int (*drain)(uint8_t *out, size_t *out_len, char *err, size_t err_size);
  /* The modes that take no -e/-d although needs_direction is 1 (MACs),
   * comma-separated, or NULL. */
  const char *undirected_modes;
  /* After prepare: the job's cipher as a function of each piece's offset
   * alone (CTR: parallel_pieces.h), or NULL where a piece depends on the
   * pieces before it (and for a cipher without such a mode: the field NULL). */
  kc_crypt_at_fn (*crypt_at)(void);
} kc_cli;

/* ECB, CBC and CTR of any block cipher through its kc_block_api: ECB keeps
 * no state between pieces (the one-shot mode driver), CBC and CTR carry
 * theirs through the incremental calls. */
extern const kc_cli kc_block_cli;

/* SM4: kc_block_cli's ecb, cbc and ctr, and gcm, ccm, xts, cmac and cbc-mac
 * (kcrypt_sm4_modes.c). */
extern const kc_cli kc_sm4_cli;

/* The implementation of d that -t/-s/--emulated asks for (the fastest one
 * this CPU runs natively when none is named), or NULL with the reason in
 * err, naming the variant `name`.  Returns the cipher's own impl pointer. */
const void *kc_select_impl(const kc_desc *d, const char *name, const kc_args *a, char *err,
                           size_t err_size);

/* Writes all len bytes to fd, however many each write takes, counting them
 * into *written as they go.  Returns 0, or -1 with errno set (EPIPE for a
 * reader that went away, where SIGPIPE is ignored). */
int kc_write_full(int fd, const uint8_t *buf, size_t len, uint64_t *written);

/* Refuses, naming it and the modes that take it, any option that only some
 * modes take (--tag, --bits, --mac-method, -a, --aad-file, --tag-bytes,
 * --tweak-rule) given to `who` ("sm4 xts") but not in the comma-separated
 * `taken` (NULL: none).  Returns 0 or -1. */
int kc_refuse_options(const kc_args *a, const char *taken, const char *who, char *err,
                      size_t err_size);

/* The whole input gathered in memory, for a mode that needs its length
 * before it starts (a one-shot library call). */
typedef struct kc_gathered {
  uint8_t *data;
  size_t len, cap;
} kc_gathered;

/* Appends len bytes to g; `what` names the buffer in an out-of-memory
 * message.  Returns 0 or -1. */
int kc_gather(kc_gathered *g, const uint8_t *in, size_t len, const char *what, char *err,
              size_t err_size);
/* Wipes and frees g's buffer. */
void kc_gather_wipe(kc_gathered *g);

/* -k: the variant's key, exactly key_bytes into key.  Returns 0 or -1. */
int kc_read_key(const kc_variant *v, const kc_args *a, uint8_t *key, char *err, size_t err_size);

#endif /* KC_KCRYPT_H */
