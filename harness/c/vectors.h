/*
 * The vector files (tests/vectors/<cipher>.json, each naming its sources: tests/vectors/README.md)
 * as the harness has them: compiled in, one kc_vectors table per file, by harness/vectors_c.py
 * (run by the Makefile, which checks every vector as it converts it; a block cipher's sizes are
 * checked against its description by verify); and the repository's other files the programs
 * find at run time.
 */
#ifndef KC_HARNESS_VECTORS_H
#define KC_HARNESS_VECTORS_H

#include <stddef.h>
#include <stdint.h>

#include "common.h"
#include "zuc.h"

/* Finds <A>/<rel> (e.g. "harness/report.py") for A the folder of the running executable or
 * one above it (build/verify -> <repo>/build -> <repo>), so that it works from any current
 * directory, else the current directory or one above it.  argv0 is the program's argv[0]
 * (used when /proc/self/exe is not readable).  Fills buf with the path; returns 0 or -1. */
int kc_repo_file(const char *argv0, const char *rel, char *buf, size_t size);

/* A block cipher's known answer: `iterations` times over, the output fed back as input
 * (ECB: encrypt the result again with the same key). */
typedef struct vb_vector {
  const char *label; /* "sm4 ecb vector #2 (source), 1 iteration(s)" */
  kc_block_mode mode;
  uint8_t key[KC_BLOCK_MAX_BYTES], iv[KC_BLOCK_MAX_BYTES];
  size_t key_len, iv_len; /* iv_len 0: ECB */
  const uint8_t *pt, *ct;
  size_t len;
  long iterations;
  const char *variant;    /* its variant's name (kc_variant.name) */
  int has_round_keys;     /* 1: the file gives round_keys_first_last, */
  uint32_t round_keys[2]; /* the first and last encryption round keys */
} vb_vector;

#define KC_ZUC_TAGS 3 /* tag32, tag64, tag128 */

/* A ZUC vector in one IV form (a ZUC-256 vector's 23-byte form is an entry of its own). */
typedef struct zuc_vector {
  const char *label; /* "zuc256_mac #1 (source)", " iv23" ... for the 23-byte form */
  zuc_variant variant;
  uint8_t key[32], iv[25];
  size_t iv_len;
  const uint8_t *keystream; /* keystream vectors: the words' bytes, big-endian */
  size_t ks_bytes;
  const uint8_t *msg; /* MAC and encryption vectors */
  const uint8_t *ct;  /* encryption vectors: msg encrypted, `bits` bits */
  uint8_t nia6_tag[16]; /* NIA6 vectors (ZUC-NEA6's MAC, zuc_nia6): the tag, ... */
  size_t nia6_tag_bytes; /* ... this many bytes (0: not one) */
  size_t bits;
  int has_tag[KC_ZUC_TAGS];
  uint8_t tag[KC_ZUC_TAGS][16];
} zuc_vector;

/* The modes on a 128-bit block a block cipher's file may list ("gcm", "ccm", "xts", "cmac",
 * "cbc_mac"), and XTS's two tweak rules, in harness/vectors_c.py's MODE_LISTS and XTS_RULES order. */
typedef enum kc_vector_mode { KC_VMODE_GCM, KC_VMODE_CCM, KC_VMODE_XTS, KC_VMODE_CMAC, KC_VMODE_CBC_MAC } kc_vector_mode;
typedef enum kc_xts_rule { KC_XTS_IEEE, KC_XTS_GB } kc_xts_rule; /* IEEE Std 1619, GB/T 17964-2021 */

/* A known answer of one of those modes; the converter checked the lengths the standards allow
 * (GCM: IV not empty, tag 4-16; CCM: nonce 7-13, tag even 4-16; XTS: tweak 16, data unit at
 * least 16, key K1 || K2; CMAC: tag 1-16; CBC-MAC: zero IV, whole blocks, tag 1-16). */
typedef struct kc_mode_vector {
  const char *label; /* "sm4 gcm vector #1 (source)" */
  kc_vector_mode mode;
  const char *variant; /* its variant's name (kc_variant.name) */
  const uint8_t *key;
  size_t key_len; /* XTS: both keys */
  const uint8_t *iv;
  size_t iv_len; /* GCM's IV, CCM's nonce, XTS's tweak; 0 for the MACs */
  const uint8_t *aad;
  size_t aad_len; /* GCM and CCM */
  const uint8_t *in, *out;
  size_t len; /* in: plaintext (the MACs: the message), out: ciphertext (none for the MACs) */
  const uint8_t *tag;
  size_t tag_len;         /* GCM, CCM and the MACs */
  kc_xts_rule tweak_rule; /* XTS */
  int invalid;            /* GCM, CCM: 1 when the tag is wrong and decryption must reject it */
} kc_mode_vector;

/* One vector file, compiled: its cipher, the path it was compiled from and its n vectors, in
 * the file's order (a block cipher's lists: "vectors", else "ecb", "cbc", "ctr"), then its
 * n_modes vectors of the modes above, in kc_vector_mode's order of lists. */
typedef struct kc_vectors {
  const char *cipher; /* kc_desc.name: the file is <cipher>.json */
  const char *path;
  const vb_vector *block; /* a block cipher's, else NULL */
  const zuc_vector *zuc;  /* ZUC's, else NULL */
  size_t n;
  const kc_mode_vector *modes; /* a block cipher's mode vectors, else NULL */
  size_t n_modes;
} kc_vectors;

/* Every file's table, in the build folder's vector_tables.c. */
extern const kc_vectors KC_VECTOR_FILES[];
extern const size_t KC_N_VECTOR_FILES;

/* The table of `cipher`'s file, or NULL (after a message naming what was compiled in). */
const kc_vectors *kc_vectors_find(const char *cipher);

#endif /* KC_HARNESS_VECTORS_H */
