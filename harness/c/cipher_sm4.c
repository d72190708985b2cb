/*
 * SM4 as the harness sees it: the library's block-cipher calls for every
 * tool, OpenSSL's EVP SM4 as verify's second oracle, the round keys some
 * vectors list (verify's "key schedule" section: first and last round key,
 * decryption keys the encryption ones reversed), and OpenSSL's and
 * libgcrypt's SM4 as bench's peers.  Built with KC_NO_PEERS (PEERS=0: the
 * AArch64 build) there are neither oracle nor peers.
 */
#ifndef KC_NO_PEERS
#include <gcrypt.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#endif
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_sm4_modes.h"
#include "cipher.h"
#include "ctcheck.h"
#include "kcrypt.h"
#include "sm4.h"
#include "sm4_modes.h"
#include "sm4_multi.h"
#include "verify.h"

_Static_assert(SM4_MODE_ECB == (int)KC_MODE_ECB && SM4_MODE_CBC == (int)KC_MODE_CBC &&
                   SM4_MODE_CTR == (int)KC_MODE_CTR,
               "sm4_mode and kc_block_mode differ");

static sm4_direction dir(int encrypt) { return encrypt ? SM4_ENCRYPT : SM4_DECRYPT; }

KC_LIBRARY_LOOKUPS(sm4)
static const void *serial(void) { return sm4_impl_serial() ? sm4_impl_serial() : sm4_impl_best(); }
static const void *dispatch(int role, int variant, kc_dispatch_why *why) {
  (void)variant;
  return sm4_impl_dispatch((kc_dispatch_role)role, why);
}

/* ------------------------------------------------------------------ */
/* The library                                                          */
/* ------------------------------------------------------------------ */

static int set_key(void *ks, int variant, const uint8_t *key) {
  (void)variant;
  return sm4_set_key(ks, key);
}

static void wipe_key(void *ks) { memset(ks, 0, sizeof(sm4_key)); }

static unsigned batch(const void *impl, int variant) {
  (void)variant;
  unsigned b = ((const sm4_impl *)impl)->batch_blocks;
  return b ? b : 1;
}

KC_BLOCK_LIBRARY_CALLS(sm4)

#ifndef KC_NO_PEERS
/* OpenSSL's EVP SM4 cipher of `mode`. */
static const EVP_CIPHER *evp_sm4(kc_block_mode mode) {
  return mode == KC_MODE_ECB ? EVP_sm4_ecb() : mode == KC_MODE_CBC ? EVP_sm4_cbc() : EVP_sm4_ctr();
}
#endif

/* OpenSSL's SM4 in `mode`, padding off: 0, or -1 (always, without peers or
 * where this OpenSSL has no SM4). */
static int openssl_sm4(kc_block_mode mode, int encrypt, const uint8_t *key, const uint8_t *iv,
                       const uint8_t *in, uint8_t *out, size_t len) {
#ifdef KC_NO_PEERS
  (void)mode, (void)encrypt, (void)key, (void)iv, (void)in, (void)out, (void)len;
  return -1;
#else
  const EVP_CIPHER *cipher = evp_sm4(mode);
  EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
  int ok = 0, n1 = 0, n2 = 0;
  if (ctx && cipher &&
      EVP_CipherInit_ex(ctx, cipher, NULL, key, mode == KC_MODE_ECB ? NULL : iv, encrypt) == 1 &&
      EVP_CIPHER_CTX_set_padding(ctx, 0) == 1 &&
      EVP_CipherUpdate(ctx, out, &n1, in, (int)len) == 1 &&
      EVP_CipherFinal_ex(ctx, out + n1, &n2) == 1 && (size_t)(n1 + n2) == len)
    ok = 1;
  EVP_CIPHER_CTX_free(ctx);
  return ok ? 0 : -1;
#endif
}

static const kc_block_api BLOCK = {KC_BLOCK_API_CALLS(sm4), .err_length = SM4_ERR_LENGTH,
                                   .oracle = openssl_sm4, .oracle_name = "OpenSSL"};

/* ------------------------------------------------------------------ */
/* verify: the round keys of the vectors that list them                 */
/* ------------------------------------------------------------------ */

/* The first and last encryption round keys, where the vector gives them
 * (round_keys_first_last); the decryption keys are always the encryption
 * ones reversed. */
static void check_round_keys(const vb_vector *v, verify_section *s) {
  sm4_key key;
  sm4_set_key(&key, v->key);
  const uint32_t *enc = key.rk[SM4_ENCRYPT], *dec = key.rk[SM4_DECRYPT];
  for (int i = 0; v->has_round_keys && i < 2; i++)
    VERIFY_CHECK(s, enc[i ? SM4_ROUNDS - 1 : 0] == v->round_keys[i],
                 "%s: rk[SM4_ENCRYPT][%d] = %08x, want %08x", v->label, i ? SM4_ROUNDS - 1 : 0,
                 enc[i ? SM4_ROUNDS - 1 : 0], v->round_keys[i]);
  int reversed = 1;
  for (int r = 0; r < SM4_ROUNDS; r++)
    if (dec[r] != enc[SM4_ROUNDS - 1 - r]) reversed = 0;
  VERIFY_CHECK(s, reversed, "%s: decryption round keys are not the encryption ones reversed",
               v->label);
}

/* The library-wide checks beyond the block modes: the GF(2^128) modes' and the many-stream calls'. */
static void api(const vb_cipher *variants, const kc_view_list *impls, uint64_t seed, verify_section *s) {
  sm4_modes_api(variants, impls, seed, s);
  sm4_multi_api(s);
}

/* Each kernel's GF(2^128) modes and many-stream calls. */
static void impl_extra(const vb_cipher *c, const void *impl, const verify_run *r, verify_section *s) {
  sm4_modes_impl(c, impl, r, s);
  sm4_multi_check(impl, r->seed, s);
}

static const verify_hooks VERIFY = {
    .run = verify_block,
    .random_full = 3000,
    .random_quick = 200,
    .vector_section = "key schedule",
    .vector_check = check_round_keys,
    .api = api,
    .impl_extra = impl_extra,
};

/* ------------------------------------------------------------------ */
/* bench: OpenSSL and libgcrypt                                         */
/* ------------------------------------------------------------------ */

#ifndef KC_NO_PEERS

/* One peer set up for one mode, reusing its context or handle across calls,
 * as an application would. */
typedef struct {
  const bench_block_io *io;
  const kc_block_op *op;
  EVP_CIPHER_CTX *evp;   /* OpenSSL */
  gcry_cipher_hd_t gcry; /* libgcrypt */
} peer;

static int openssl_call(void *ctx, size_t len) {
  /* The reused context carries the CBC chaining value and CTR counter from
   * call to call; only the first call's output is checked. */
  peer *p = ctx;
  int outl = 0;
  int ok = EVP_CipherUpdate(p->evp, p->io->out, &outl, p->io->in, (int)len);
  return ok && (size_t)outl == len ? 0 : -1;
}

static int gcrypt_call(void *ctx, size_t len) {
  /* The same IV / counter at every call, like our sm4_crypt. */
  peer *p = ctx;
  kc_block_mode m = p->op->mode;
  gcry_error_t e = m == KC_MODE_CTR   ? gcry_cipher_setctr(p->gcry, p->io->iv, 16)
                   : m == KC_MODE_CBC ? gcry_cipher_setiv(p->gcry, p->io->iv, 16)
                                      : 0;
  if (!e)
    e = p->op->encrypt ? gcry_cipher_encrypt(p->gcry, p->io->out, len, p->io->in, len)
                       : gcry_cipher_decrypt(p->gcry, p->io->out, len, p->io->in, len);
  return e ? -1 : 0;
}

static void peer_close(void *ctx) {
  peer *p = ctx;
  if (p->evp) EVP_CIPHER_CTX_free(p->evp);
  if (p->gcry) gcry_cipher_close(p->gcry);
  free(p);
}

/* Sets up peer `which` (0 OpenSSL, 1 libgcrypt) for op.  Returns 0 or -1. */
static int peer_open(peer *p, int which) {
  kc_block_mode m = p->op->mode;
  if (which == 0) {
    const EVP_CIPHER *c = evp_sm4(m);
    p->evp = EVP_CIPHER_CTX_new();
    return p->evp && c && EVP_CipherInit_ex(p->evp, c, NULL, p->io->key, p->io->iv,
                                            p->op->encrypt) == 1 &&
                   EVP_CIPHER_CTX_set_padding(p->evp, 0) == 1
               ? 0
               : -1;
  }
  int gm = m == KC_MODE_ECB   ? GCRY_CIPHER_MODE_ECB
           : m == KC_MODE_CBC ? GCRY_CIPHER_MODE_CBC
                              : GCRY_CIPHER_MODE_CTR;
  return gcry_cipher_open(&p->gcry, GCRY_CIPHER_SM4, gm, 0) == 0 &&
                 gcry_cipher_setkey(p->gcry, p->io->key, SM4_KEY_BYTES) == 0
             ? 0
             : -1;
}

/* OpenSSL's EVP SM4 and libgcrypt's SM4 in every selected mode. */
static int add_peers(bench_set *set, const bench_select *sel, const bench_block_io *io) {
  if (!gcry_check_version(GCRYPT_VERSION)) {
    fprintf(stderr, "bench: libgcrypt version mismatch\n");
    return 1;
  }
  gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
  gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
  static char targets[2][64];
  snprintf(targets[0], sizeof targets[0], "EVP %s", OpenSSL_version(OPENSSL_VERSION));
  snprintf(targets[1], sizeof targets[1], "gcry_cipher %s", gcry_check_version(NULL));
  static const char *const names[2] = {"openssl", "libgcrypt"}, *const apis[2] = {"evp",
                                                                                    "gcry_cipher"};
  int problems = 0;
  for (int which = 0; which < 2; which++) {
    if (!bench_wants_subject(sel, names[which], names[which], NULL, NULL)) continue;
    for (size_t o = 0; o < KC_N_BLOCK_OPS; o++) {
      const kc_block_op *op = &KC_BLOCK_OPS[o];
      if (!bench_wants_mode(sel, op->name)) continue;
      peer *p = calloc(1, sizeof *p);
      if (!p) exit(1);
      *p = (peer){io, op, NULL, NULL};
      if (peer_open(p, which) != 0) {
        fprintf(stderr, "bench: sm4 %s %s: set-up failed, skipped\n", names[which], op->name);
        peer_close(p);
        problems++;
        continue;
      }
      bench_cell cell = {.impl = names[which], .name = names[which], .strategy = apis[which],
                         .target = targets[which], .lanes = 1, .streams = 1,
                         .call = which ? gcrypt_call : openssl_call, .ctx = p,
                         .close = peer_close};
      problems += bench_block_add(set, io, op, 1024 + 16, &cell);
    }
  }
  return problems + sm4_modes_add_peers(set, sel, io);
}

#define PEERS add_peers
#else
#define PEERS NULL
#endif /* KC_NO_PEERS */

/* A kernel's cells beyond the block modes: the GF(2^128) modes', and 16 streams of CBC encryption. */
static int add_kernel(bench_set *set, const bench_select *sel, const bench_block_io *io, const kc_impl_view *v) {
  return sm4_modes_add_kernel(set, sel, io, v) + sm4_multi_add_kernel(set, sel, io, v);
}

static const bench_hooks BENCH = {.modes = KC_BLOCK_OP_NAMES "," SM4_MODES_OP_NAMES "," SM4_MULTI_MODE,
                                  .add_cells = bench_block_cells,
                                  .add_kernel = add_kernel,
                                  .add_peers = PEERS};

/* ------------------------------------------------------------------ */
/* The description                                                      */
/* ------------------------------------------------------------------ */

static const kc_variant VARIANTS[] = {{"sm4", 0, SM4_KEY_BYTES, SM4_BLOCK_BYTES}};

/* ctcheck's phases beyond the block modes: the GF(2^128) modes', the many-stream CBC's. */
static int ct_extra(const void *impl, const void *ref, const kc_variant *v, unsigned long *leaks) {
  return sm4_modes_ct(impl, ref, v, leaks) | sm4_multi_ct(impl, leaks);
}

static const ct_hooks CT = {.check = ct_block_check, .extra = ct_extra};

const kc_desc kc_sm4 = {
    .name = "sm4",
    .label = "",
    .variants = VARIANTS,
    .n_variants = 1,
    .views = views,
    .find = find,
    .best = best,
    .serial = serial,
    .dispatch = dispatch,
    .block = &BLOCK,
    .cli = &kc_sm4_cli,
    .verify = &VERIFY,
    .bench = &BENCH,
    .ct = &CT,
};
