/*
 * ctcheck's ZUC part (see ctcheck.c for the technique): each kernel's phases
 * and the one-stream unit, their secrets and what is public, are listed in
 * docs/verification.md ("Constant time").  The `reference` kernel is the
 * positive control.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "ctcheck.h"
#include "zuc.h"
#include "zuc_lanes.h"

#define MAX_BYTES 256

static void plan(const kc_desc *d) { ct_plan_line(d->name, "one_stream", 0, "native", 0); }

/* n streams of keys, IVs (valid for any form) and messages, made afresh
 * (the same each time) before each phase: the reference runs on them
 * defined, then make_secret() marks them secret for the call checked. */
#define MAX_STREAMS (ZUC_LANES_MAX + 1)
static struct {
  zuc_streams s; /* in: msg, out: got, want: want */
  uint8_t msg[MAX_STREAMS][MAX_BYTES], want[MAX_STREAMS][MAX_BYTES], got[MAX_STREAMS][MAX_BYTES];
} ct;

static void make_streams(size_t n) {
  zuc_streams *s = &ct.s;
  zuc_streams_init(s);
  kc_rng rng;
  kc_rng_seed(&rng, 0x2C0C7);
  s->n = n;
  for (size_t i = 0; i < n; i++) {
    zuc_random_key_iv(&rng, s->key[i], 32, s->iv[i], 25);
    kc_rng_bytes(&rng, ct.msg[i], MAX_BYTES);
    s->bits[i] = 8 * (40 + 13 * (i % 16)) - i % 8; /* different lengths, some not whole bytes */
    s->in[i] = ct.msg[i], s->out[i] = ct.got[i], s->want[i] = ct.want[i];
  }
}

/* A 25-byte IV's top bits of IV17..IV24 stay public (docs/verification.md). */
static void make_secret(size_t iv_len) {
  uint8_t vbits[8]; /* a 1 bit is undefined */
  memset(vbits, 0x3F, sizeof vbits);
  for (size_t i = 0; i < ct.s.n; i++) {
    ct_secret(ct.s.key[i], 32);
    ct_secret(ct.s.iv[i], iv_len);
    if (iv_len == 25) ct_set_vbits(ct.s.iv[i] + 17, vbits, sizeof vbits);
    ct_secret(ct.msg[i], MAX_BYTES);
  }
}

static const struct {
  const char *label;
  zuc_op op;
} PHASES[] = {
    {"enc-128", {ZUC_128, 16, 0, 0, ZUC_MAC_CLMUL}},
    {"enc-256", {ZUC_256, 25, 0, 0, ZUC_MAC_CLMUL}},
    {"enc-256/iv23", {ZUC_256, 23, 0, 0, ZUC_MAC_CLMUL}},
    {"enc-nea6", {ZUC_NEA6, 16, 0, 0, ZUC_MAC_CLMUL}},
    {"mac-128 clmul", {ZUC_128, 16, 1, 32, ZUC_MAC_CLMUL}},
    {"mac-128 compare", {ZUC_128, 16, 1, 32, ZUC_MAC_COMPARE}},
    {"mac32 clmul", {ZUC_256, 25, 1, 32, ZUC_MAC_CLMUL}},
    {"mac64 clmul", {ZUC_256, 23, 1, 64, ZUC_MAC_CLMUL}},
    {"mac128 clmul", {ZUC_256, 25, 1, 128, ZUC_MAC_CLMUL}},
    {"mac32 compare", {ZUC_256, 23, 1, 32, ZUC_MAC_COMPARE}},
    {"mac64 compare", {ZUC_256, 25, 1, 64, ZUC_MAC_COMPARE}},
    {"mac128 compare", {ZUC_256, 25, 1, 128, ZUC_MAC_COMPARE}},
};
#define N_PHASES (sizeof PHASES / sizeof PHASES[0])

/* The raw kernel on a secret lane state, against the reference kernel run
 * lane by lane afterwards on defined copies.  Returns 1 on a wrong output. */
static int kernel_phase(const zuc_impl *impl, const zuc_impl *ref, unsigned long *leaks) {
  unsigned lanes = impl->lanes;
  static zuc_ref_lanes m;
  static uint32_t state[ZUC_STATE_WORDS * ZUC_LANES_MAX];
  static uint8_t ks[ZUC_WORD][ZUC_LANES_MAX][64], msg[ZUC_LANES_MAX][64]; /* ks[step] */
  uint32_t word[ZUC_LANES_MAX];
  uint8_t *rows[ZUC_WORD][ZUC_LANES_MAX];
  const uint8_t *src[ZUC_LANES_MAX];
  for (int st = ZUC_BLOCK; st <= ZUC_XOR; st++) kc_rows(ks[st][0], 64, lanes, rows[st]);
  kc_rng rng;
  kc_rng_seed(&rng, 0x5eC2e7);
  zuc_random_states(&rng, state, 1, lanes);
  kc_rng_bytes(&rng, msg[0], sizeof msg);
  for (unsigned j = 0; j < lanes; j++) src[j] = msg[j];
  zuc_ref_load(&m, ref, state, lanes);
  ct_secret(state, sizeof state);
  ct_secret(msg, sizeof msg);
  unsigned long before = ct_errors_so_far();
  impl->init_rounds(state);
  impl->keystream_block(state, rows[ZUC_BLOCK]);
  impl->keystream_xor(state, rows[ZUC_XOR], src);
  impl->keystream_word(state, word);
  ct_public(ks, sizeof ks);
  ct_public(word, sizeof word);
  ct_public(msg, sizeof msg);
  int ok = 1;
  for (int st = ZUC_INIT; st <= ZUC_WORD; st++) {
    zuc_ref_step(&m, (zuc_step)st, src);
    for (unsigned j = 0; j < lanes; j++)
      ok &= st == ZUC_WORD   ? word[j] == m.word[j]
            : st != ZUC_INIT ? memcmp(ks[st][j], m.block[j], 64) == 0
                             : 1;
  }
  return ct_phase_done("kernel", before, NULL, ok, leaks);
}

/* One phase: op p by `impl` on the streams (NULL: through the one-stream
 * API), its inputs secret, against the reference on them while defined.
 * Returns 1 on a wrong output. */
static int op_phase(const zuc_impl *impl, const zuc_impl *ref, const zuc_op *p, const char *label,
                    unsigned long *leaks) {
  zuc_streams *s = &ct.s;
  make_streams(s->n);
  int rc_ref = zuc_streams_run(ref, p, s, s->want);
  make_secret(p->iv_len);
  unsigned long before = ct_errors_so_far();
  int rc = impl ? zuc_streams_run(impl, p, s, s->out) : zuc_streams_one(p, s, s->out);
  ct_public(ct.got, sizeof ct.got);
  ct_public(&rc, sizeof rc);
  int ok = rc == ZUC_OK && rc_ref == ZUC_OK && zuc_streams_differ(p, s) < 0;
  return ct_phase_done(label, before, NULL, ok, leaks);
}

/* ZUC-NIA6 (zuc_nia6: NEA6's keystream, POLYVAL on the key side's programs)
 * on `bytes` message bytes with key, IV and message secret, against the same
 * call made on them defined first.  Returns 1 on a wrong output. */
static int nia6_phase(size_t bytes, const char *label, unsigned long *leaks) {
  zuc_streams *s = &ct.s;
  make_streams(1);
  uint8_t want[16], got[16];
  int rc_want = zuc_nia6(s->key[0], 32, s->iv[0], 16, ct.msg[0], bytes, sizeof want, want);
  make_secret(16);
  unsigned long before = ct_errors_so_far();
  int rc = zuc_nia6(s->key[0], 32, s->iv[0], 16, ct.msg[0], bytes, sizeof got, got);
  ct_public(got, sizeof got);
  ct_public(&rc, sizeof rc);
  return ct_phase_done(label, before, NULL, rc == ZUC_OK && rc_want == ZUC_OK && !memcmp(got, want, 16),
                       leaks);
}

static int check_one_stream(const zuc_impl *ref) {
  const zuc_impl *best = zuc_impl_best();
  printf(
      "ctcheck: zuc one-stream API (zuc_init, zuc_keystream, zuc_encrypt, zuc_mac, zuc_nia6) on the "
      "kernels it dispatches to here (best: %s)%s\n",
      best ? best->name : "none", ct_running() ? "" : " -- NOT under valgrind: no check");
  zuc_streams *s = &ct.s;
  make_streams(1);
  unsigned long leaks = 0;
  int wrong = 0;
  for (size_t pi = 0; pi < N_PHASES; pi++) {
    const zuc_op *p = &PHASES[pi].op;
    char label[40];
    snprintf(label, sizeof label, "%s %s", p->mac ? "zuc_mac" : "zuc_encrypt", PHASES[pi].label);
    wrong |= op_phase(NULL, ref, p, label, &leaks);
    if (p->mac) continue;

    /* zuc_init + zuc_keystream: one whole block and 5 words more (single
     * rounds on the kernel), against encryption of zeros by the reference. */
    static const uint8_t zeros[4 * 21];
    const uint8_t *in[1] = {zeros};
    uint8_t ks[4 * 21], *out[1] = {ks};
    size_t ks_bits = 8 * sizeof ks;
    make_streams(s->n);
    int rc_ref =
        zuc_encrypt_lanes(ref, p->variant, 1, s->keys, s->ivs, p->iv_len, in, out, &ks_bits);
    make_secret(p->iv_len);
    zuc_state st;
    uint32_t words[21];
    unsigned long before = ct_errors_so_far();
    int rc = zuc_init(&st, p->variant, s->key[0], zuc_key_len(p->variant), s->iv[0], p->iv_len, 0);
    zuc_keystream(&st, words, 21);
    ct_public(words, sizeof words);
    ct_public(&rc, sizeof rc);
    int ok = rc == ZUC_OK && rc_ref == ZUC_OK;
    for (int i = 0; i < 21; i++) ok &= words[i] == zuc_be32(ks + 4 * i);
    snprintf(label, sizeof label, "zuc_keystream %s", PHASES[pi].label + 4);
    wrong |= ct_phase_done(label, before, NULL, ok, &leaks);
  }
  wrong |= nia6_phase(MAX_BYTES, "zuc_nia6 one step", &leaks);         /* 16 blocks: a POLYVAL step */
  wrong |= nia6_phase(MAX_BYTES - 5, "zuc_nia6 blocks", &leaks);       /* single blocks, a padded last one */
  return ct_unit_done("zuc", "one_stream", leaks, wrong);
}

static int check(const kc_desc *d, const char *name, int emulated) {
  const zuc_impl *ref = zuc_impl_find("reference", "scalar", 0);
  if (!ref) {
    fprintf(stderr, "ctcheck: no zuc reference_scalar\n");
    return 2;
  }
  if (!emulated && strcmp(name, "one_stream") == 0) return check_one_stream(ref);
  kc_impl_view found;
  if (ct_open_unit(d, name, emulated, &found) != 0) return 2;
  zuc_impl impl = *(const zuc_impl *)found.impl;
  impl.cpu_supported = ct_always_supported;

  unsigned long leaks = 0;
  int wrong = kernel_phase(&impl, ref, &leaks);
  make_streams(impl.lanes + 1 <= MAX_STREAMS ? impl.lanes + 1 : MAX_STREAMS);
  for (size_t pi = 0; pi < N_PHASES; pi++)
    wrong |= op_phase(&impl, ref, &PHASES[pi].op, PHASES[pi].label, &leaks);
  return ct_unit_done("zuc", impl.name, leaks, wrong);
}

const ct_hooks kc_zuc_ct = {.check = check, .plan = plan};
