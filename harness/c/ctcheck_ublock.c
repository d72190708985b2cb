/*
 * ctcheck's uBlock part (see ctcheck.c for the technique): for one kernel,
 * with undefined (secret) inputs, per variant (128/128, 128/256, 256/256):
 *   set_key    ublock_set_key on a secret key (the vectorized schedule and
 *              the key forms of every strategy);
 *   set_keys   ublock_set_keys on three secret keys (two per register);
 *   ecb-enc, ecb-dec, cbc-dec, ctr  through ublock_crypt: one whole batch
 *              of the kernel and three blocks (the tail path), CTR a
 *              partial block more; secret message and IV;
 *   cbc-enc    three blocks (serial: one kernel pass per block);
 *   multi      where the kernel has a multi-key entry: ublock_crypt_multi,
 *              CBC encryption of three streams of three blocks with secret
 *              keys (from set_keys), IVs and messages.
 * Secrets: key bytes before the key schedule, IVs, messages.  Public: the
 * variant, lengths, the number of streams.  Every output is compared with
 * the reference, computed beforehand on the same, still defined, inputs.
 * The table-based `reference` kernel (documented as not constant-time) is
 * the positive control: it must be flagged.  The AVX-512 kernels are checked
 * in their SIMDe build, like SM4's and ZUC's (valgrind 3.19 cannot run
 * AVX-512; see ctcheck.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <valgrind/memcheck.h>

#include "common.h"
#include "ctcheck.h"
#include "ublock.h"

#define STREAMS 3    /* multi-key streams, and keys given to set_keys */
#define CBC_BLOCKS 3 /* serial CBC encryption: blocks per stream */

void ct_plan_ublock(void) {
  ct_plan_impls("ublock", kc_views_ublock);
}

static ublock_direction dir_of(const kc_block_op *op) {
  return op->encrypt ? UBLOCK_ENCRYPT : UBLOCK_DECRYPT;
}

/* The inputs of one variant: defined originals and their secret copies. */
typedef struct inputs {
  ublock_variant v;
  size_t len; /* of each message buffer */
  uint8_t key[STREAMS][UBLOCK_MAX_KEY_BYTES], iv[STREAMS][UBLOCK_MAX_BLOCK_BYTES];
  uint8_t *msg[STREAMS], *secret[STREAMS], *out[STREAMS], *want[STREAMS];
  uint8_t s_iv[STREAMS][UBLOCK_MAX_BLOCK_BYTES];
  ublock_key *ref_keys;    /* [STREAMS], from defined key bytes */
  ublock_key *secret_keys; /* [STREAMS], from secret key bytes */
} inputs;

static void make_inputs(inputs *in, ublock_variant v, size_t len) {
  in->v = v;
  in->len = len;
  kc_rng rng;
  kc_rng_seed(&rng, 0x5eC2e7 + (uint64_t)v);
  in->ref_keys = calloc(STREAMS, sizeof(ublock_key));
  in->secret_keys = calloc(STREAMS, sizeof(ublock_key));
  if (!in->ref_keys || !in->secret_keys) exit(2);
  for (int j = 0; j < STREAMS; j++) {
    kc_rng_bytes(&rng, in->key[j], sizeof in->key[j]);
    kc_rng_bytes(&rng, in->iv[j], sizeof in->iv[j]);
    in->msg[j] = malloc(len);
    in->secret[j] = malloc(len);
    in->out[j] = malloc(len);
    in->want[j] = malloc(len);
    if (!in->msg[j] || !in->secret[j] || !in->out[j] || !in->want[j]) exit(2);
    kc_rng_bytes(&rng, in->msg[j], len);
    ublock_set_key(&in->ref_keys[j], v, in->key[j]);
  }
}

static void free_inputs(inputs *in) {
  for (int j = 0; j < STREAMS; j++) {
    free(in->msg[j]);
    free(in->secret[j]);
    free(in->out[j]);
    free(in->want[j]);
  }
  free(in->ref_keys);
  free(in->secret_keys);
}

/* Fresh secret copies of the messages and IVs. */
static void make_secret(inputs *in) {
  for (int j = 0; j < STREAMS; j++) {
    memcpy(in->secret[j], in->msg[j], in->len);
    memcpy(in->s_iv[j], in->iv[j], sizeof in->s_iv[j]);
    VALGRIND_MAKE_MEM_UNDEFINED(in->secret[j], in->len);
    VALGRIND_MAKE_MEM_UNDEFINED(in->s_iv[j], sizeof in->s_iv[j]);
  }
}

/* 1 if the first n outputs match the expected ones over len bytes (the
 * outputs declassified first). */
static int outputs_match(inputs *in, size_t n, size_t len) {
  int ok = 1;
  for (size_t j = 0; j < n; j++) {
    VALGRIND_MAKE_MEM_DEFINED(in->out[j], len);
    ok &= memcmp(in->out[j], in->want[j], len) == 0;
  }
  return ok;
}

/* The key schedules on secret key bytes: one key, then STREAMS at once
 * (which the later phases use).  Returns 1 on a wrong schedule. */
static int key_phases(inputs *in, unsigned long *leaks) {
  uint8_t secret[STREAMS][UBLOCK_MAX_KEY_BYTES];
  const uint8_t *ptrs[STREAMS];
  memcpy(secret, in->key, sizeof secret);
  VALGRIND_MAKE_MEM_UNDEFINED(secret, sizeof secret);
  for (int j = 0; j < STREAMS; j++) ptrs[j] = secret[j];
  ublock_key *one = calloc(1, sizeof *one);
  if (!one) exit(2);
  size_t rk_bytes = (in->ref_keys[0].rounds + 1) * sizeof one->rk[0];

  unsigned long before = ct_errors_so_far();
  int rc = ublock_set_key(one, in->v, secret[0]);
  VALGRIND_MAKE_MEM_DEFINED(one, sizeof *one);
  VALGRIND_MAKE_MEM_DEFINED(&rc, sizeof rc);
  int wrong = ct_phase_done("set_key", before, NULL,
                            rc == UBLOCK_OK && memcmp(one->rk, in->ref_keys[0].rk, rk_bytes) == 0,
                            leaks);
  free(one);

  before = ct_errors_so_far();
  rc = ublock_set_keys(in->secret_keys, in->v, ptrs, STREAMS);
  /* Check the round keys on a declassified copy: the kernels still get
   * secret keys. */
  ublock_key *copy = malloc(STREAMS * sizeof *copy);
  if (!copy) exit(2);
  memcpy(copy, in->secret_keys, STREAMS * sizeof *copy);
  VALGRIND_MAKE_MEM_DEFINED(copy, STREAMS * sizeof *copy);
  VALGRIND_MAKE_MEM_DEFINED(&rc, sizeof rc);
  int ok = rc == UBLOCK_OK;
  for (int j = 0; j < STREAMS; j++) ok &= memcmp(copy[j].rk, in->ref_keys[j].rk, rk_bytes) == 0;
  free(copy);
  return wrong | ct_phase_done("set_keys", before, "3 keys", ok, leaks);
}

/* One mode through ublock_crypt on len bytes of stream 0. */
static int mode_phase(const ublock_impl *impl, const ublock_impl *ref, const kc_block_op *op,
                      inputs *in, size_t len, unsigned long *leaks) {
  int rc_ref = ublock_crypt(ref, (ublock_mode)op->mode, dir_of(op), &in->ref_keys[0], in->iv[0],
                            in->msg[0], in->want[0], len);
  make_secret(in);
  unsigned long before = ct_errors_so_far();
  int rc = ublock_crypt(impl, (ublock_mode)op->mode, dir_of(op), &in->secret_keys[0], in->s_iv[0],
                        in->secret[0], in->out[0], len);
  VALGRIND_MAKE_MEM_DEFINED(&rc, sizeof rc);
  char detail[32];
  snprintf(detail, sizeof detail, "%zu bytes", len);
  return ct_phase_done(op->name, before, detail,
                       rc == UBLOCK_OK && rc_ref == UBLOCK_OK && outputs_match(in, 1, len), leaks);
}

/* CBC encryption of STREAMS streams at once through the multi-key entry. */
static int multi_phase(const ublock_impl *impl, const ublock_impl *ref, inputs *in,
                       unsigned long *leaks) {
  size_t len = CBC_BLOCKS * ublock_block_bytes(in->v);
  const ublock_key *keys[STREAMS], *ref_keys[STREAMS];
  const uint8_t *ivs[STREAMS], *ref_ivs[STREAMS], *msgs[STREAMS], *ref_msgs[STREAMS];
  uint8_t *outs[STREAMS];
  for (int j = 0; j < STREAMS; j++) {
    keys[j] = &in->secret_keys[j];
    ref_keys[j] = &in->ref_keys[j];
    ivs[j] = in->s_iv[j];
    ref_ivs[j] = in->iv[j];
    msgs[j] = in->secret[j];
    ref_msgs[j] = in->msg[j];
    outs[j] = in->out[j];
  }
  int rc_ref = ublock_crypt_multi(ref, UBLOCK_MODE_CBC, UBLOCK_ENCRYPT, STREAMS, ref_keys, ref_ivs,
                                  ref_msgs, in->want, len);
  make_secret(in);
  unsigned long before = ct_errors_so_far();
  int rc = ublock_crypt_multi(impl, UBLOCK_MODE_CBC, UBLOCK_ENCRYPT, STREAMS, keys, ivs, msgs,
                              outs, len);
  VALGRIND_MAKE_MEM_DEFINED(&rc, sizeof rc);
  return ct_phase_done("multi cbc-enc", before, "3 streams x 3 blocks",
                       rc == UBLOCK_OK && rc_ref == UBLOCK_OK && outputs_match(in, STREAMS, len),
                       leaks);
}

/* Every phase of one variant.  Returns 1 on a wrong output. */
static int check_variant(const ublock_impl *impl, const ublock_impl *ref, ublock_variant v,
                         unsigned long *leaks) {
  size_t bb = ublock_block_bytes(v), batch = impl->batch_blocks[v] ? impl->batch_blocks[v] : 1;
  size_t len_blocks = (batch + 3) * bb, len_ctr = len_blocks + 7, len_cbc_enc = CBC_BLOCKS * bb;
  printf(" %s:\n", ublock_variant_name(v));
  inputs in;
  make_inputs(&in, v, len_ctr);
  int wrong = key_phases(&in, leaks);
  for (size_t m = 0; m < KC_N_BLOCK_OPS; m++) {
    const kc_block_op *op = &KC_BLOCK_OPS[m];
    size_t len = op->mode == KC_MODE_CTR                   ? len_ctr
                 : op->mode == KC_MODE_CBC && op->encrypt ? len_cbc_enc
                                                          : len_blocks;
    wrong |= mode_phase(impl, ref, op, &in, len, leaks);
  }
  if (impl->crypt_blocks_multi) wrong |= multi_phase(impl, ref, &in, leaks);
  free_inputs(&in);
  return wrong;
}

int ct_check_ublock(const char *name, int emulated) {
  kc_impl_view found;
  const ublock_impl *ref = ublock_impl_find("reference", "scalar", 0);
  if (ct_open_unit("ublock", kc_views_ublock, name, emulated, &found) != 0 || !ref) return 2;
  ublock_impl impl = *(const ublock_impl *)found.impl;
  impl.cpu_supported = ct_always_supported;
  unsigned long leaks = 0;
  int wrong = 0;
  for (int v = 0; v < UBLOCK_VARIANT_COUNT; v++)
    wrong |= check_variant(&impl, ref, (ublock_variant)v, &leaks);
  return ct_unit_done("ublock", impl.name, leaks, wrong);
}
