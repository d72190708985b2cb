/*
 * bench: SM4's GF(2^128) modes (GCM encryption and decryption, XTS both
 * ways, CMAC) on every kernel that has them, and libgcrypt's as their peer.
 * Each cell does what an application does per message: GCM one-shot with a
 * 12-byte IV, no AAD and a 16-byte tag (decryption of a valid ciphertext,
 * whose tag verifies); XTS one data unit of the message's length with IEEE
 * 1619's tweak; CMAC's whole tag.  A cell is verified when its output (and
 * tag) equals libgcrypt's, made independently; without peers (KC_NO_PEERS)
 * it is not.
 */
#ifndef KC_NO_PEERS
#include <gcrypt.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_sm4_modes.h"
#include "sm4.h"

enum { GCM_ENC, GCM_DEC, XTS_ENC, XTS_DEC, CMAC, N_OPS };
static const char *const OP_NAMES[N_OPS] = {"gcm-enc", "gcm-dec", "xts-enc", "xts-dec", "cmac"};
#define TAG_BYTES 16
#define IV_BYTES 12

/* The check's length: two of the widest batches, a block and 7 bytes. */
#define CHECK_LEN ((2 * 64 + 1) * SM4_BLOCK_BYTES + 7)

/* What every cell of one io shares: the ciphertext of the longest message
 * and each size's tag (a decryption must verify; the last entry is the
 * check's), the tweak key, and each op's output on the check's length by
 * libgcrypt and by our default kernel, which the cells are checked against. */
typedef struct {
  const bench_block_io *io;
  sm4_key tweak_key;
  uint8_t *ciphertext;
  uint8_t (*tags)[TAG_BYTES];
  uint8_t want[2][N_OPS][CHECK_LEN + TAG_BYTES];
  int have[2][N_OPS];
} modes_io;

typedef struct {
  const modes_io *m;
  const sm4_impl *impl; /* ours; NULL for the peer */
  int op;
  uint8_t tag[TAG_BYTES];
#ifndef KC_NO_PEERS
  gcry_cipher_hd_t gcry;
  gcry_mac_hd_t mac;
#endif
} modes_cell;

static size_t size_index(const bench_block_io *io, size_t len) {
  for (size_t i = 0; i < io->n_sizes; i++)
    if (io->sizes[i] == len) return i;
  return io->n_sizes; /* the check's length */
}

static int ours(void *ctx, size_t len) {
  modes_cell *c = ctx;
  const bench_block_io *io = c->m->io;
  switch (c->op) {
  case GCM_ENC:
    return sm4_gcm_encrypt(c->impl, io->ks, io->iv, IV_BYTES, NULL, 0, io->in, io->out, len, c->tag, TAG_BYTES);
  case GCM_DEC:
    return sm4_gcm_decrypt(c->impl, io->ks, io->iv, IV_BYTES, NULL, 0, c->m->ciphertext, io->out, len,
                           c->m->tags[size_index(io, len)], TAG_BYTES);
  case XTS_ENC:
  case XTS_DEC:
    return sm4_xts_crypt(c->impl, c->op == XTS_ENC ? SM4_ENCRYPT : SM4_DECRYPT, SM4_XTS_IEEE, io->ks,
                         &c->m->tweak_key, io->iv, io->in, io->out, len);
  default:
    return sm4_cmac(c->impl, io->ks, io->in, len, c->tag, TAG_BYTES);
  }
}

#ifndef KC_NO_PEERS
static int peer(void *ctx, size_t len) {
  modes_cell *c = ctx;
  const bench_block_io *io = c->m->io;
  if (c->op == CMAC) {
    size_t n = TAG_BYTES;
    return gcry_mac_reset(c->mac) || gcry_mac_write(c->mac, io->in, len) || gcry_mac_read(c->mac, c->tag, &n)
               ? -1 : 0;
  }
  if (gcry_cipher_setiv(c->gcry, io->iv, c->op <= GCM_DEC ? IV_BYTES : SM4_BLOCK_BYTES)) return -1;
  switch (c->op) {
  case GCM_ENC:
    return gcry_cipher_encrypt(c->gcry, io->out, len, io->in, len) ||
                   gcry_cipher_gettag(c->gcry, c->tag, TAG_BYTES)
               ? -1 : 0;
  case GCM_DEC:
    return gcry_cipher_decrypt(c->gcry, io->out, len, c->m->ciphertext, len) ||
                   gcry_cipher_checktag(c->gcry, c->m->tags[size_index(io, len)], TAG_BYTES)
               ? -1 : 0;
  case XTS_ENC:
    return gcry_cipher_encrypt(c->gcry, io->out, len, io->in, len) ? -1 : 0;
  default:
    return gcry_cipher_decrypt(c->gcry, io->out, len, io->in, len) ? -1 : 0;
  }
}

/* libgcrypt set up for c's op: GCM and CMAC with io's key, XTS with io's
 * key then the tweak key (io's IV as a key, as ours).  0 or -1. */
static int peer_open(modes_cell *c) {
  const bench_block_io *io = c->m->io;
  if (c->op == CMAC)
    return gcry_mac_open(&c->mac, GCRY_MAC_CMAC_SM4, 0, NULL) || gcry_mac_setkey(c->mac, io->key, SM4_KEY_BYTES)
               ? -1 : 0;
  uint8_t keys[2 * SM4_KEY_BYTES];
  memcpy(keys, io->key, SM4_KEY_BYTES);
  memcpy(keys + SM4_KEY_BYTES, io->iv, SM4_KEY_BYTES);
  int xts = c->op == XTS_ENC || c->op == XTS_DEC;
  int bad = gcry_cipher_open(&c->gcry, GCRY_CIPHER_SM4, xts ? GCRY_CIPHER_MODE_XTS : GCRY_CIPHER_MODE_GCM, 0) ||
            gcry_cipher_setkey(c->gcry, keys, xts ? sizeof keys : SM4_KEY_BYTES);
  memset(keys, 0, sizeof keys);
  return bad ? -1 : 0;
}
#endif

static void cell_close(void *ctx) {
#ifndef KC_NO_PEERS
  modes_cell *c = ctx;
  if (c->gcry) gcry_cipher_close(c->gcry);
  if (c->mac) gcry_mac_close(c->mac);
#endif
  free(ctx);
}

/* c's output on the check's length into out (the message, then the tag). */
static int check_output(modes_cell *c, int (*call)(void *, size_t), uint8_t *out) {
  if (call(c, CHECK_LEN) != 0) return -1;
  memcpy(out, c->m->io->out, CHECK_LEN);
  memcpy(out + CHECK_LEN, c->tag, TAG_BYTES);
  return 0;
}

static void modes_io_free(void *p) {
  modes_io *m = p;
  free(m->ciphertext);
  free(m->tags);
  memset(m, 0, sizeof *m);
  free(m);
}

/* The shared inputs of io (made by our default kernel), and the outputs the
 * cells are checked against. */
static modes_io *modes_io_new(bench_set *set, const bench_block_io *io) {
  modes_io *m = bench_need(calloc(1, sizeof *m));
  size_t longest = bench_max_size(io->sizes, io->n_sizes, CHECK_LEN);
  m->io = io;
  m->ciphertext = bench_need(malloc(longest));
  m->tags = bench_need(calloc(io->n_sizes + 1, TAG_BYTES));
  sm4_set_key(&m->tweak_key, io->iv);
  /* one IV: every shorter message's ciphertext is the longest one's start */
  sm4_gcm_encrypt(NULL, io->ks, io->iv, IV_BYTES, NULL, 0, io->in, m->ciphertext, longest, m->tags[0], TAG_BYTES);
  for (size_t i = 0; i <= io->n_sizes; i++)
    sm4_gcm_encrypt(NULL, io->ks, io->iv, IV_BYTES, NULL, 0, io->in, m->ciphertext,
                    i < io->n_sizes ? io->sizes[i] : CHECK_LEN, m->tags[i], TAG_BYTES);
  bench_own(set, m, modes_io_free);
  for (int op = 0; op < N_OPS; op++) {
    modes_cell c = {.m = m, .impl = sm4_impl_best(), .op = op};
    m->have[0][op] = c.impl && check_output(&c, ours, m->want[0][op]) == 0;
#ifndef KC_NO_PEERS
    modes_cell p = {.m = m, .op = op};
    m->have[1][op] = peer_open(&p) == 0 && check_output(&p, peer, m->want[1][op]) == 0;
    if (p.gcry) gcry_cipher_close(p.gcry);
    if (p.mac) gcry_mac_close(p.mac);
#endif
  }
  return m;
}

/* 1 if two check outputs of op agree where op writes: the tag (CMAC), the
 * message (XTS, GCM decryption), or both (GCM encryption). */
static int same_output(int op, const uint8_t *a, const uint8_t *b) {
  size_t from = op == CMAC ? CHECK_LEN : 0, to = op == GCM_ENC || op == CMAC ? CHECK_LEN + TAG_BYTES : CHECK_LEN;
  return memcmp(a + from, b + from, to - from) == 0;
}

/* The cells of every selected op for our kernel `impl`, or for libgcrypt
 * (impl NULL), each checked against the other side's output. */
static int add(bench_set *set, const bench_select *sel, const modes_io *m, const sm4_impl *impl,
               const bench_cell *proto) {
  int problems = 0;
  for (int op = 0; op < N_OPS; op++) {
    if (!bench_wants_mode(sel, OP_NAMES[op])) continue;
    modes_cell *c = bench_need(calloc(1, sizeof *c));
    *c = (modes_cell){.m = m, .impl = impl, .op = op};
    int (*call)(void *, size_t) = ours;
#ifndef KC_NO_PEERS
    if (!impl) {
      call = peer;
      if (peer_open(c) != 0) {
        fprintf(stderr, "bench: sm4 libgcrypt %s: set-up failed, skipped\n", OP_NAMES[op]);
        cell_close(c);
        problems++;
        continue;
      }
    }
#endif
    const int against = impl ? 1 : 0; /* ours against libgcrypt, libgcrypt against ours */
    uint8_t got[CHECK_LEN + TAG_BYTES];
    int verified = m->have[against][op] && check_output(c, call, got) == 0 &&
                   same_output(op, got, m->want[against][op]);
    if (!verified) {
      fprintf(stderr, "bench: WARNING: sm4 %s %s: %s\n", proto->name, OP_NAMES[op],
              m->have[against][op] ? "output differs" : "nothing to check it against");
      problems += m->have[against][op];
    }
    bench_cell *cell = bench_add(set);
    *cell = *proto;
    cell->cipher = m->io->v->name;
    cell->mode = OP_NAMES[op];
    cell->verified = verified;
    cell->sizes = m->io->sizes;
    cell->n_sizes = m->io->n_sizes;
    cell->call = call;
    cell->ctx = c;
    cell->close = cell_close;
  }
  return problems;
}

/* The shared inputs of io, made at its first cell (bench runs one io per variant). */
static const modes_io *modes_of(bench_set *set, const bench_block_io *io) {
  static const bench_block_io *made_for;
  static const modes_io *m;
  if (made_for != io) m = modes_io_new(set, io), made_for = io;
  return m;
}

int sm4_modes_add_kernel(bench_set *set, const bench_select *sel, const bench_block_io *io,
                         const kc_impl_view *v) {
  const sm4_impl *impl = v->impl;
  if (!impl->ghash) return 0;
  const bench_cell proto = {.impl = "ours", .name = v->name, .strategy = v->strategy, .target = v->target,
                            .lanes = impl->batch_blocks, .streams = 1};
  return add(set, sel, modes_of(set, io), impl, &proto);
}

int sm4_modes_add_peers(bench_set *set, const bench_select *sel, const bench_block_io *io) {
#ifdef KC_NO_PEERS
  (void)set, (void)sel, (void)io;
  return 0;
#else
  if (!bench_wants_subject(sel, "libgcrypt", "libgcrypt", NULL, NULL)) return 0;
  static char target[64];
  snprintf(target, sizeof target, "gcry_cipher %s", gcry_check_version(NULL));
  const bench_cell proto = {.impl = "libgcrypt", .name = "libgcrypt", .strategy = "gcry_cipher",
                            .target = target, .lanes = 1, .streams = 1};
  return add(set, sel, modes_of(set, io), NULL, &proto);
#endif
}
