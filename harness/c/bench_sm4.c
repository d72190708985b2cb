/*
 * bench's SM4 part: every native SM4 kernel of the generated library, side
 * by side with OpenSSL's EVP SM4 and libgcrypt's SM4, in the modes ecb-enc,
 * ecb-dec, cbc-enc, cbc-dec and ctr; one message per call.  Built with
 * KC_NO_PEERS (harness/c/Makefile's PEERS=0, the AArch64 build) the peers are
 * left out and only our kernels are timed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef KC_NO_PEERS
#include <gcrypt.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#endif

#include "bench.h"
#include "common.h"
#include "sm4.h"

/* Fixed inputs: the key and IV of every measurement (values do not matter). */
static const uint8_t KEY[16] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
                                0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10};
static const uint8_t IV[16] = {0xf0, 0xe1, 0xd2, 0xc3, 0xb4, 0xa5, 0x96, 0x87,
                               0x78, 0x69, 0x5a, 0x4b, 0x3c, 0x2d, 0xff, 0xf0};

/* What is being measured: one of our kernels or a peer library. */
typedef enum { SUBJ_OURS, SUBJ_OPENSSL, SUBJ_GCRYPT } subject_kind;

typedef struct {
  subject_kind kind;
  const char *impl;     /* "ours", "openssl", "libgcrypt" */
  const char *name;     /* kernel name, or the peer's name */
  const char *strategy; /* our strategy; for peers the API used */
  const char *target;   /* our target; for peers the library version */
  unsigned lanes;       /* blocks processed in parallel (1 for peers) */
  const sm4_impl *ours; /* SUBJ_OURS only */
} subject;

/*
 * The state of one subject set up for one mode: what a timed call needs.
 * Peers reuse one context or handle across calls, as an application would.
 */
typedef struct {
  const subject *subj;
  const kc_block_op *mode;
#ifndef KC_NO_PEERS
  EVP_CIPHER_CTX *evp;   /* openssl */
  gcry_cipher_hd_t gcry; /* libgcrypt */
#endif
} runner;

static sm4_direction dir_of(const kc_block_op *m) { return m->encrypt ? SM4_ENCRYPT : SM4_DECRYPT; }

/* Shared by every cell: the key schedule and the message buffers. */
static sm4_key key;
static uint8_t *in_buf, *out_buf;

/* ------------------------------------------------------------------ */
/* Peers: OpenSSL and libgcrypt                                         */
/* ------------------------------------------------------------------ */

#ifndef KC_NO_PEERS

/* Sets up r (its subject a peer) for r->mode.  Returns 0 or -1. */
static int peer_open(runner *r) {
  const kc_block_op *m = r->mode;
  if (r->subj->kind == SUBJ_OPENSSL) {
    const EVP_CIPHER *c = m->mode == KC_MODE_ECB   ? EVP_sm4_ecb()
                          : m->mode == KC_MODE_CBC ? EVP_sm4_cbc()
                                                   : EVP_sm4_ctr();
    r->evp = EVP_CIPHER_CTX_new();
    if (!r->evp || !c) return -1;
    int ok = m->encrypt ? EVP_EncryptInit_ex(r->evp, c, NULL, KEY, IV)
                        : EVP_DecryptInit_ex(r->evp, c, NULL, KEY, IV);
    if (!ok) return -1;
    EVP_CIPHER_CTX_set_padding(r->evp, 0); /* whole blocks in, whole blocks out */
  } else {
    int gm = m->mode == KC_MODE_ECB   ? GCRY_CIPHER_MODE_ECB
             : m->mode == KC_MODE_CBC ? GCRY_CIPHER_MODE_CBC
                                      : GCRY_CIPHER_MODE_CTR;
    if (gcry_cipher_open(&r->gcry, GCRY_CIPHER_SM4, gm, 0)) return -1;
    if (gcry_cipher_setkey(r->gcry, KEY, sizeof KEY)) return -1;
  }
  return 0;
}

static void peer_close(runner *r) {
  if (r->evp) EVP_CIPHER_CTX_free(r->evp);
  if (r->gcry) gcry_cipher_close(r->gcry);
}

/* One peer call on `len` bytes of the shared buffers.  Returns 0 on success. */
static int peer_call(runner *r, size_t len) {
  const kc_block_op *m = r->mode;
  if (r->subj->kind == SUBJ_OPENSSL) {
    /* The reused context carries the CBC chaining value and CTR counter
     * from call to call; only the first call's output is checked. */
    int outl = 0;
    int ok = m->encrypt ? EVP_EncryptUpdate(r->evp, out_buf, &outl, in_buf, (int)len)
                        : EVP_DecryptUpdate(r->evp, out_buf, &outl, in_buf, (int)len);
    return ok && (size_t)outl == len ? 0 : -1;
  }
  /* libgcrypt: same IV / counter at every call, like our sm4_crypt. */
  gcry_error_t e = m->mode == KC_MODE_CTR   ? gcry_cipher_setctr(r->gcry, IV, 16)
                   : m->mode == KC_MODE_CBC ? gcry_cipher_setiv(r->gcry, IV, 16)
                                            : 0;
  if (e) return -1;
  e = m->encrypt ? gcry_cipher_encrypt(r->gcry, out_buf, len, in_buf, len)
                 : gcry_cipher_decrypt(r->gcry, out_buf, len, in_buf, len);
  return e ? -1 : 0;
}

/* Appends the peers to list (room for N_PEERS more); returns the new length. */
#define N_PEERS 2
static size_t add_peers(subject *list, size_t n) {
  static char openssl_target[64], gcrypt_target[64];
  snprintf(openssl_target, sizeof openssl_target, "EVP %s", OpenSSL_version(OPENSSL_VERSION));
  snprintf(gcrypt_target, sizeof gcrypt_target, "gcry_cipher %s", gcry_check_version(NULL));
  list[n++] = (subject){SUBJ_OPENSSL, "openssl", "openssl", "evp", openssl_target, 1, NULL};
  list[n++] = (subject){SUBJ_GCRYPT, "libgcrypt", "libgcrypt", "gcry_cipher", gcrypt_target, 1,
                        NULL};
  return n;
}

/* libgcrypt's start-up, before any of its calls.  Returns 0 or -1. */
static int start_peers(void) {
  if (!gcry_check_version(GCRYPT_VERSION)) {
    fprintf(stderr, "bench: libgcrypt version mismatch\n");
    return -1;
  }
  gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
  gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
  return 0;
}

#else /* KC_NO_PEERS: no subject is a peer, so the peer calls are never made */

#define N_PEERS 0
static int peer_open(runner *r) {
  (void)r;
  return -1;
}
static void peer_close(runner *r) { (void)r; }
static int peer_call(runner *r, size_t len) {
  (void)r, (void)len;
  return -1;
}
static size_t add_peers(subject *list, size_t n) {
  (void)list;
  return n;
}
static int start_peers(void) { return 0; }

#endif /* KC_NO_PEERS */

/* ------------------------------------------------------------------ */
/* Subjects and cells                                                   */
/* ------------------------------------------------------------------ */

static int runner_open(runner *r, const subject *s, const kc_block_op *m) {
  memset(r, 0, sizeof *r);
  r->subj = s;
  r->mode = m;
  return s->kind == SUBJ_OURS ? 0 : peer_open(r);
}

static void runner_close(void *ctx) {
  runner *r = ctx;
  peer_close(r);
  free(r);
}

/* One call on `len` bytes of the shared buffers.  Returns 0 on success. */
static int runner_call(void *ctx, size_t len) {
  runner *r = ctx;
  const kc_block_op *m = r->mode;
  if (r->subj->kind != SUBJ_OURS) return peer_call(r, len);
  return sm4_crypt(r->subj->ours, (sm4_mode)m->mode, dir_of(m), &key, IV, in_buf, out_buf, len);
}

/* Subjects: our native kernels (never emulated ones), then the peers.
 * Returns the array (static) and its length. */
static const subject *subjects(size_t *count) {
  static subject *list;
  static size_t n;
  *count = 0;
  if (list) {
    *count = n;
    return list;
  }
  kc_view_list impls;
  kc_views_sm4(&impls);
  list = calloc(impls.n + N_PEERS, sizeof *list);
  if (!list) return NULL;
  for (size_t i = 0; i < impls.n; i++) {
    const sm4_impl *im = impls.v[i].impl;
    if (!bench_timeable(&impls.v[i])) continue;
    list[n++] = (subject){SUBJ_OURS, "ours", im->name, im->strategy, im->target,
                          im->batch_blocks ? im->batch_blocks : 1, im};
  }
  n = add_peers(list, n);
  *count = n;
  return list;
}

static int add_cells(bench_set *set, const bench_select *sel) {
  if (!bench_wants_cipher(sel, "sm4")) return 0;
  if (start_peers() != 0) return 1;

  size_t n_sizes;
  const size_t *sizes = bench_block_sizes(sel, &n_sizes);

  /* The reference for the pre-timing check. */
  const sm4_impl *ref = sm4_impl_find("reference", "scalar", 0);
  if (!ref) {
    fprintf(stderr, "bench: no reference_scalar SM4 kernel to check against\n");
    return 1;
  }
  sm4_set_key(&key, KEY);

  /* Buffers: the largest message, 64-byte aligned, random contents. */
  size_t check_len = 1024 + 16; /* several batches of every kernel, plus one block */
  size_t buf_len = bench_max_size(sizes, n_sizes, check_len);
  in_buf = bench_random_buffer(buf_len, 20240611);
  out_buf = bench_random_buffer(buf_len, 1);
  uint8_t *expect = bench_random_buffer(buf_len, 2);

  size_t n_subj;
  const subject *subj = subjects(&n_subj);
  if (!subj) {
    fprintf(stderr, "bench: out of memory\n");
    return 1;
  }
  int problems = 0;
  for (size_t si = 0; si < n_subj; si++) {
    const subject *s = &subj[si];
    if (!bench_wants_subject(sel, s->impl, s->name, s->kind == SUBJ_OURS ? s->strategy : NULL,
                             s->kind == SUBJ_OURS ? s->target : NULL))
      continue;
    for (size_t mi = 0; mi < KC_N_BLOCK_OPS; mi++) {
      const kc_block_op *m = &KC_BLOCK_OPS[mi];
      if (!bench_wants_mode(sel, m->name)) continue;
      runner *r = malloc(sizeof *r);
      if (!r || runner_open(r, s, m) != 0) {
        fprintf(stderr, "bench: sm4 %s %s: set-up failed, skipped\n", s->name, m->name);
        if (r) runner_close(r);
        problems++;
        continue;
      }
      int ok = sm4_crypt(ref, (sm4_mode)m->mode, dir_of(m), &key, IV, in_buf, expect, check_len) ==
                   SM4_OK &&
               runner_call(r, check_len) == 0 && memcmp(out_buf, expect, check_len) == 0;
      if (!ok) {
        fprintf(stderr, "bench: WARNING: sm4 %s %s output differs from reference_scalar\n",
                s->name, m->name);
        problems++;
      }
      bench_cell *c = bench_add(set);
      *c = (bench_cell){.cipher = "sm4",
                        .impl = s->impl,
                        .name = s->name,
                        .strategy = s->strategy,
                        .target = s->target,
                        .mode = m->name,
                        .lanes = s->lanes,
                        .streams = 1,
                        .verified = ok,
                        .sizes = sizes,
                        .n_sizes = n_sizes,
                        .call = runner_call,
                        .ctx = r,
                        .close = runner_close};
    }
  }
  kc_free_aligned(expect);
  return problems;
}

const bench_cipher bench_sm4 = {"sm4", KC_BLOCK_OP_NAMES, add_cells};
