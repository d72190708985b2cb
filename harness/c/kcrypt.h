/*
 * kcrypt's inside: what a cipher supplies to the command-line tool, and the
 * implementation choice every cipher shares.
 *
 * kcrypt.c parses the command line into a kc_args, finds the cipher in its
 * table (kc_ciphers) and calls the cipher's prepare (check everything before
 * stdin is read) and run (process the whole input).  Each cipher lives in its
 * own file (kcrypt_sm4.c, kcrypt_zuc.c) and describes its implementations as
 * kc_impl_view rows, so choosing one from -t/-s/--emulated, and the
 * --list-targets / --list-impls output, are written once here.
 */
#ifndef KC_KCRYPT_H
#define KC_KCRYPT_H

#include <stddef.h>
#include <stdint.h>

#include "common.h"

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

/* The fields of one implementation that choosing and listing need, whatever
 * the cipher; `impl` points to the cipher's own description of it. */
typedef struct kc_impl_view {
  const char *name;
  const char *strategy;
  const char *target;
  int emulated;
  int (*cpu_supported)(void);
  const void *impl;
} kc_impl_view;

#define KC_MAX_IMPLS 256

/* A cipher the tool knows.  Functions report errors through err. */
typedef struct kc_cipher {
  const char *name;
  const char *modes;   /* for the usage text, e.g. "ecb|cbc|ctr" */
  int needs_direction; /* 1: -e or -d is required; 0: refused */
  /* Called once before anything else (e.g. to register emulated kernels). */
  void (*init)(void);
  /* Every implementation, in the library's registration order (native,
   * then emulated); returns their number (at most max). */
  size_t (*views)(kc_impl_view *out, size_t max);
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

/* The ciphers (kcrypt_sm4.c, kcrypt_zuc.c). */
extern const kc_cipher kc_cipher_sm4, kc_cipher_zuc128, kc_cipher_zuc256;

#endif /* KC_KCRYPT_H */
