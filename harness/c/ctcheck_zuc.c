/*
 * ctcheck's ZUC part (see ctcheck.c for the technique).
 *
 * Secrets: keys, IVs, and messages (plaintext and MAC input).  Public: the
 * lengths, the tag length, the MAC method, and the top two bits of
 * IV17..IV24 in a 25-byte ZUC-256 IV (they must be zero; the library checks
 * that, so they are marked defined bit by bit with VALGRIND_SET_VBITS while
 * the 6 bits beside them stay secret).
 *
 * For one kernel, with undefined inputs:
 *   kernel     its init_rounds, a keystream_block call, a keystream_xor
 *              call into secret messages and a keystream_word call, on a
 *              secret lane state;
 *   enc-*      zuc_encrypt_lanes on lanes + 1 streams (one whole batch and a
 *              batch with one stream, so dummy lanes run too) of different
 *              bit lengths: ZUC-128, ZUC-256 with 25- and 23-byte IVs;
 *   mac-*      zuc_mac_lanes likewise, every tag length and both methods.
 * Unit zuc_one_stream checks the one-stream API (zuc_init, zuc_keystream
 * with a partial block, zuc_encrypt, zuc_mac) on whatever kernel it
 * dispatches to under valgrind.  Every output is compared with the
 * reference, computed beforehand on the same, still defined, inputs.  The
 * table-based `reference` kernel is the positive control.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "ctcheck.h"
#include "zuc.h"
#include "zuc_lanes.h"

#define MAX_STREAMS (ZUC_LANES_MAX + 1)
#define MAX_BYTES 256

static void plan(const kc_desc *d) { ct_plan_line(d->name, "one_stream", 0, "native", 0); }

/* ------------------------------------------------------------------ */
/* Secret inputs                                                        */
/* ------------------------------------------------------------------ */

/* Marks an IV secret; see the top of this file for a 25-byte one. */
static void secret_iv(uint8_t *iv, size_t len) {
  ct_secret(iv, len);
  if (len == 25) {
    uint8_t vbits[8]; /* a 1 bit is undefined */
    memset(vbits, 0x3F, sizeof vbits);
    ct_set_vbits(iv + 17, vbits, sizeof vbits);
  }
}

/* n streams: keys, IVs (valid for any form), messages, and their secret
 * copies, which are what the kernel under test reads. */
typedef struct {
  size_t n;
  uint8_t keys[MAX_STREAMS][32], ivs[MAX_STREAMS][25], msgs[MAX_STREAMS][MAX_BYTES];
  uint8_t s_keys[MAX_STREAMS][32], s_ivs[MAX_STREAMS][25], s_msgs[MAX_STREAMS][MAX_BYTES];
  size_t bits[MAX_STREAMS];
  uint8_t want[MAX_STREAMS][MAX_BYTES], got[MAX_STREAMS][MAX_BYTES];
} streams;

static void make_streams(streams *s, size_t n) {
  kc_rng rng;
  kc_rng_seed(&rng, 0x2C0C7);
  s->n = n;
  for (size_t i = 0; i < n; i++) {
    zuc_random_key_iv(&rng, s->keys[i], 32, s->ivs[i], 25);
    kc_rng_bytes(&rng, s->msgs[i], MAX_BYTES);
    s->bits[i] = 8 * (40 + 13 * (i % 16)) - i % 8; /* different lengths, some not whole bytes */
  }
}

/* Fresh secret copies of the inputs. */
static void make_secret(streams *s, size_t iv_len) {
  memcpy(s->s_keys, s->keys, sizeof s->keys);
  memcpy(s->s_ivs, s->ivs, sizeof s->ivs);
  memcpy(s->s_msgs, s->msgs, sizeof s->msgs);
  for (size_t i = 0; i < s->n; i++) {
    ct_secret(s->s_keys[i], sizeof s->s_keys[i]);
    secret_iv(s->s_ivs[i], iv_len);
    ct_secret(s->s_msgs[i], sizeof s->s_msgs[i]);
  }
}

/* ------------------------------------------------------------------ */
/* Phases                                                               */
/* ------------------------------------------------------------------ */

typedef struct {
  const char *label;
  int mac;
  zuc_variant variant;
  size_t iv_len;
  unsigned tag_bits;
  zuc_mac_method method;
} phase;

static const phase PHASES[] = {
    {"enc-128", 0, ZUC_128, 16, 0, ZUC_MAC_CLMUL},
    {"enc-256", 0, ZUC_256, 25, 0, ZUC_MAC_CLMUL},
    {"enc-256/iv23", 0, ZUC_256, 23, 0, ZUC_MAC_CLMUL},
    {"mac-128 clmul", 1, ZUC_128, 16, 32, ZUC_MAC_CLMUL},
    {"mac-128 compare", 1, ZUC_128, 16, 32, ZUC_MAC_COMPARE},
    {"mac32 clmul", 1, ZUC_256, 25, 32, ZUC_MAC_CLMUL},
    {"mac64 clmul", 1, ZUC_256, 23, 64, ZUC_MAC_CLMUL},
    {"mac128 clmul", 1, ZUC_256, 25, 128, ZUC_MAC_CLMUL},
    {"mac32 compare", 1, ZUC_256, 23, 32, ZUC_MAC_COMPARE},
    {"mac64 compare", 1, ZUC_256, 25, 64, ZUC_MAC_COMPARE},
    {"mac128 compare", 1, ZUC_256, 25, 128, ZUC_MAC_COMPARE},
};

/* Runs a phase's operation on `impl` with the given inputs. */
static int run_phase(const zuc_impl *impl, const phase *p, const streams *s, int secret,
                     uint8_t (*out)[MAX_BYTES]) {
  const uint8_t *keys[MAX_STREAMS], *ivs[MAX_STREAMS], *msgs[MAX_STREAMS];
  uint8_t *outs[MAX_STREAMS];
  for (size_t i = 0; i < s->n; i++) {
    keys[i] = secret ? s->s_keys[i] : s->keys[i];
    ivs[i] = secret ? s->s_ivs[i] : s->ivs[i];
    msgs[i] = secret ? s->s_msgs[i] : s->msgs[i];
    outs[i] = out[i];
  }
  return zuc_lanes_call(impl, p->mac, p->method, p->variant, s->n, keys, ivs, p->iv_len, msgs,
                        outs, s->bits, p->tag_bits);
}

/* The raw kernel on a secret lane state, against the reference kernel run
 * lane by lane on defined copies.  Returns 1 on a wrong output. */
static int kernel_phase(const zuc_impl *impl, const zuc_impl *ref, unsigned long *leaks) {
  unsigned lanes = impl->lanes, rl = ref->lanes;
  static uint32_t state[ZUC_STATE_WORDS * ZUC_LANES_MAX], r_state[ZUC_STATE_WORDS * ZUC_LANES_MAX];
  static uint8_t ks[2][ZUC_LANES_MAX][64], want[2][ZUC_LANES_MAX][64], r_ks[ZUC_LANES_MAX][64];
  static uint8_t msg[ZUC_LANES_MAX][64];
  uint32_t got_word[ZUC_LANES_MAX], want_word[ZUC_LANES_MAX];
  uint8_t *rows[2][ZUC_LANES_MAX], *r_rows[ZUC_LANES_MAX];
  const uint8_t *src[ZUC_LANES_MAX];
  kc_rows(ks[0][0], 64, lanes, rows[0]);
  kc_rows(ks[1][0], 64, lanes, rows[1]);
  kc_rows(r_ks[0], 64, rl, r_rows);
  kc_rng rng;
  kc_rng_seed(&rng, 0x5eC2e7);
  zuc_random_states(&rng, state, 1, lanes);
  for (unsigned j = 0; j < lanes; j++) {
    zuc_lane_to_ref(state, lanes, j, r_state, rl);
    ref->init_rounds(r_state);
    for (int b = 0; b < 2; b++) {
      ref->keystream_block(r_state, r_rows);
      memcpy(want[b][j], r_ks[0], 64);
    }
    uint32_t word[ZUC_LANES_MAX];
    ref->keystream_word(r_state, word);
    want_word[j] = word[0];
  }
  kc_rng_bytes(&rng, msg[0], sizeof msg);
  for (unsigned j = 0; j < lanes; j++) {
    src[j] = msg[j];
    for (int i = 0; i < 64; i++) want[1][j][i] ^= msg[j][i];
  }
  ct_secret(state, sizeof state);
  ct_secret(msg, sizeof msg);
  unsigned long before = ct_errors_so_far();
  impl->init_rounds(state);
  impl->keystream_block(state, rows[0]);
  impl->keystream_xor(state, rows[1], src);
  impl->keystream_word(state, got_word);
  ct_public(ks, sizeof ks);
  ct_public(got_word, sizeof got_word);
  int ok = 1;
  for (unsigned j = 0; j < lanes; j++) ok &= got_word[j] == want_word[j];
  for (int b = 0; b < 2; b++)
    for (unsigned j = 0; j < lanes; j++) ok &= memcmp(ks[b][j], want[b][j], 64) == 0;
  return ct_phase_done("kernel", before, NULL, ok, leaks);
}

/* ------------------------------------------------------------------ */
/* The one-stream API                                                   */
/* ------------------------------------------------------------------ */

static int check_one_stream(const zuc_impl *ref) {
  const zuc_impl *best = zuc_impl_best();
  printf(
      "ctcheck: zuc one-stream API (zuc_init, zuc_keystream, zuc_encrypt, zuc_mac) on the "
      "kernels it dispatches to here (best: %s)%s\n",
      best ? best->name : "none", ct_running() ? "" : " -- NOT under valgrind: no check");
  static streams s;
  make_streams(&s, 1);
  unsigned long leaks = 0;
  int wrong = 0;
  for (size_t pi = 0; pi < sizeof PHASES / sizeof PHASES[0]; pi++) {
    const phase *p = &PHASES[pi];
    size_t key_len = zuc_key_len(p->variant), bits = s.bits[0];
    int rc_ref = run_phase(ref, p, &s, 0, s.want);
    make_secret(&s, p->iv_len);
    unsigned long before = ct_errors_so_far();
    int rc = p->mac ? zuc_mac(p->variant, s.s_keys[0], key_len, s.s_ivs[0], p->iv_len, s.s_msgs[0],
                              bits, p->tag_bits, s.got[0])
                    : zuc_encrypt(p->variant, s.s_keys[0], key_len, s.s_ivs[0], p->iv_len,
                                  s.s_msgs[0], s.got[0], bits);
    ct_public(s.got, sizeof s.got);
    ct_public(&rc, sizeof rc);
    size_t len = p->mac ? p->tag_bits / 8 : zuc_bytes_of(bits);
    char label[40];
    snprintf(label, sizeof label, "%s %s", p->mac ? "zuc_mac" : "zuc_encrypt", p->label);
    wrong |= ct_phase_done(label, before, NULL,
                           rc == ZUC_OK && rc_ref == ZUC_OK && !memcmp(s.got[0], s.want[0], len),
                           &leaks);

    if (p->mac) continue;
    /* zuc_init + zuc_keystream: one whole block and 5 words more (single
     * rounds on the kernel), against encryption of zeros by the reference. */
    static const uint8_t zeros[4 * 21];
    const uint8_t *keys[1] = {s.keys[0]}, *ivs[1] = {s.ivs[0]}, *in[1] = {zeros};
    uint8_t ks[4 * 21], *out[1] = {ks};
    size_t ks_bits = 8 * sizeof ks;
    rc_ref = zuc_encrypt_lanes(ref, p->variant, 1, keys, ivs, p->iv_len, in, out, &ks_bits);
    make_secret(&s, p->iv_len);
    zuc_state st;
    uint32_t words[21];
    before = ct_errors_so_far();
    rc = zuc_init(&st, p->variant, s.s_keys[0], key_len, s.s_ivs[0], p->iv_len, 0);
    zuc_keystream(&st, words, 21);
    ct_public(words, sizeof words);
    ct_public(&rc, sizeof rc);
    int ok = rc == ZUC_OK && rc_ref == ZUC_OK;
    for (int i = 0; i < 21; i++) ok &= words[i] == zuc_be32(ks + 4 * i);
    snprintf(label, sizeof label, "zuc_keystream %s", p->label + 4);
    wrong |= ct_phase_done(label, before, NULL, ok, &leaks);
  }
  return ct_unit_done("zuc", "one_stream", leaks, wrong);
}

/* ------------------------------------------------------------------ */
/* One kernel                                                           */
/* ------------------------------------------------------------------ */

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
  static streams s;
  make_streams(&s, impl.lanes + 1 <= MAX_STREAMS ? impl.lanes + 1 : MAX_STREAMS);
  for (size_t pi = 0; pi < sizeof PHASES / sizeof PHASES[0]; pi++) {
    const phase *p = &PHASES[pi];
    int rc_ref = run_phase(ref, p, &s, 0, s.want);
    make_secret(&s, p->iv_len);
    unsigned long before = ct_errors_so_far();
    int rc = run_phase(&impl, p, &s, 1, s.got);
    ct_public(s.got, sizeof s.got);
    ct_public(&rc, sizeof rc);
    int ok = rc == ZUC_OK && rc_ref == ZUC_OK;
    for (size_t i = 0; i < s.n && ok; i++)
      ok = !memcmp(s.got[i], s.want[i], p->mac ? p->tag_bits / 8 : zuc_bytes_of(s.bits[i]));
    wrong |= ct_phase_done(p->label, before, NULL, ok, &leaks);
  }
  return ct_unit_done("zuc", impl.name, leaks, wrong);
}

const ct_hooks kc_zuc_ct = {.check = check, .plan = plan};
