/*
 * verify's tests of block ciphers in ECB, CBC and CTR, written once for
 * every block cipher and every block size (SM4, the three uBlock variants):
 * known-answer vectors (iterated ones included) and differential cases of an
 * implementation against the scalar reference (and a second oracle where the
 * cipher has one, e.g. OpenSSL for SM4).
 *
 * A cipher describes itself as a vb_cipher: its sizes, and adapters from
 * these tests to its library (key schedule, mode driver, kernel entry).
 *
 * Differential cases, numbered and generated from a seed, so the same index
 * and seed give the same case whichever implementation runs it; both
 * directions of each shape are adjacent.  Systematic ones first:
 *   - ECB and CBC at every whole number of blocks 0..systematic_blocks;
 *   - CTR at every byte length 0..VB_SYSTEMATIC_LEN;
 *   - CTR across counter carries: the IV's low 8, 32, 64, 96, 128 (and, for
 *     wider blocks, 192 and 256) bits all ones, less 0, 1, 7, 31 or 63, over
 *     64 blocks and 7 bytes, so the carry (up to the wrap-around of the whole
 *     block) happens inside the message;
 * then random ones: any mode, a length above VB_SYSTEMATIC_LEN up to max_len
 * (whole blocks for ECB/CBC, any for CTR).  Every case has a random key and
 * IV (a third of them just below a carry), random misalignments 0..15 of
 * input and output, and a quarter run in place (in == out).  Each case
 * checks the output against the reference (and the oracle), the guard bytes
 * around the output (no write past either end), that a separate input is
 * left unchanged, and for ECB also the kernel entry point itself.
 */
#ifndef KC_VERIFY_BLOCK_H
#define KC_VERIFY_BLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "common.h"
#include "vectors.h"
#include "verify.h"

#define VB_SYSTEMATIC_LEN 256 /* CTR: every byte length up to this one */

typedef struct vb_cipher vb_cipher;

/* One block cipher (one variant) as these tests see it. */
struct vb_cipher {
  const char *name; /* for messages: "sm4", "ublock256_256" */
  int variant;      /* for the cipher's adapters */
  size_t block_bytes, key_bytes;
  size_t systematic_blocks; /* ECB and CBC at every whole-block count up to this */
  size_t max_len;           /* longest random case (bytes) */
  size_t key_size;          /* bytes of the cipher's key schedule struct */
  /* Key schedule into ks (key_size bytes).  Returns 0 or the library's code. */
  int (*set_key)(const vb_cipher *c, void *ks, const uint8_t *key);
  /* The library's mode driver on `impl`.  Returns 0 or the library's code. */
  int (*crypt)(const vb_cipher *c, const void *impl, kc_block_mode mode, int encrypt,
               const void *ks, const uint8_t *iv, const uint8_t *in, uint8_t *out, size_t len);
  /* The kernel's own entry point, ECB on whole blocks. */
  void (*crypt_blocks)(const vb_cipher *c, const void *impl, int encrypt, const void *ks,
                       const uint8_t *in, uint8_t *out, size_t nblocks);
  /* A second oracle on raw key bytes (returns 0, or -1 when it failed), or
   * NULL when there is none. */
  int (*oracle)(const vb_cipher *c, kc_block_mode mode, int encrypt, const uint8_t *key,
                const uint8_t *iv, const uint8_t *in, uint8_t *out, size_t len);
  const char *oracle_name; /* "OpenSSL" */
};

/* A known answer: `iterations` times over, the output fed back as input
 * (ECB: encrypt the result again with the same key). */
typedef struct vb_vector {
  char label[160]; /* "ecb vector #2 (source)", for messages */
  kc_block_mode mode;
  uint8_t key[KC_BLOCK_MAX_BYTES];
  uint8_t iv[KC_BLOCK_MAX_BYTES];
  uint8_t *pt, *ct;
  size_t len;
  long iterations;
  int variant; /* the cipher's variant it is for (uBlock); else 0 */
} vb_vector;

/* A cipher's vectors. */
typedef struct vb_vectors {
  vb_vector *v;
  size_t n;
} vb_vectors;

/* Room for `count` vectors, none yet (exits on out of memory). */
void vb_vectors_alloc(vb_vectors *l, size_t count);
/* Frees the vectors and the list. */
void vb_vectors_free(vb_vectors *l);

/* Reads key, plaintext, ciphertext, iv (CBC, CTR) and iterations (default 1)
 * of one vector object into v, with the cipher's sizes; `label` names it.
 * Returns 0, or -1 with a message naming what is wrong. */
int vb_load_vector(const vb_cipher *c, const kc_json *o, kc_block_mode mode,
                   const char *label, vb_vector *v, char *err, size_t err_size);
void vb_free_vector(vb_vector *v);

/* Runs v on impl in both directions, in place (decrypting N times undoes
 * encrypting N times), counting into s->vectors or recording failures. */
void vb_check_vector(const vb_cipher *c, const void *impl, const vb_vector *v, int iterate,
                     verify_section *s);

/* Number of systematic differential cases of the cipher. */
size_t vb_systematic_cases(const vb_cipher *c);

/* Runs differential cases 0..n_cases-1 of `seed` on impl against ref,
 * counting passed cases into s->cases; progress on a terminal. */
void vb_run_cases(const vb_cipher *c, const void *impl, const void *ref, size_t n_cases,
                  uint64_t seed, verify_section *s);

/* ECB and CBC on lengths that are not whole blocks (1, b-1, b+1, 2b-1,
 * 2b+1, 999 bytes) must return want_rc on impl; `label` names it. */
void vb_check_length_errors(const vb_cipher *c, const void *impl, const char *label, int want_rc,
                            verify_section *s);

/* The library's one-call wrappers (ecb encrypt/decrypt, cbc encrypt/decrypt,
 * ctr, in KC_BLOCK_OPS order) against the reference on 1000 random bytes
 * (whole blocks but CTR); call(op, ks, iv, in, out, len) runs wrapper `op`
 * (an index into KC_BLOCK_OPS), names[op] names it. */
typedef int (*vb_wrapper_fn)(const vb_cipher *c, size_t op, const void *ks, const uint8_t *iv,
                             const uint8_t *in, uint8_t *out, size_t len);
void vb_check_wrappers(const vb_cipher *c, const void *ref, vb_wrapper_fn call,
                       const char *const names[KC_N_BLOCK_OPS], verify_section *s);

#endif /* KC_VERIFY_BLOCK_H */
