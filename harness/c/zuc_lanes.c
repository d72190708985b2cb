/* The ZUC hooks' shared helpers; see zuc_lanes.h. */
#include "zuc_lanes.h"

#include <stdio.h>
#include <string.h>

const char *zuc_method_name(zuc_mac_method m) {
  static const char *const names[ZUC_N_METHODS] = {"clmul", "compare", "clmul128", "clmul256",
                                                   "clmul512"};
  return (unsigned)m < ZUC_N_METHODS ? names[m] : "?";
}

const char *zuc_variant_name(zuc_variant v) {
  return v == ZUC_128 ? "zuc128" : v == ZUC_256 ? "zuc256" : v == ZUC_NEA6 ? "zuc_nea6" : "zuc?";
}

void zuc_op_text(const zuc_op *op, char *buf, size_t size) {
  if (op->mac)
    snprintf(buf, size, "%s mac%u/%s iv%zu", zuc_variant_name(op->variant), op->tag_bits,
             zuc_method_name(op->method), op->iv_len);
  else
    snprintf(buf, size, "%s enc iv%zu", zuc_variant_name(op->variant), op->iv_len);
}

void zuc_streams_init(zuc_streams *s) {
  for (size_t i = 0; i < ZUC_SET_MAX; i++) s->keys[i] = s->key[i], s->ivs[i] = s->iv[i];
}

int zuc_streams_run(const zuc_impl *impl, const zuc_op *op, const zuc_streams *s,
                    uint8_t *const *out) {
  return op->mac ? zuc_mac_lanes(impl, op->method, op->variant, s->n, s->keys, s->ivs, op->iv_len,
                                 s->in, s->bits, op->tag_bits, out)
                 : zuc_encrypt_lanes(impl, op->variant, s->n, s->keys, s->ivs, op->iv_len, s->in,
                                     out, s->bits);
}

int zuc_streams_one(const zuc_op *op, const zuc_streams *s, uint8_t *const *out) {
  int rc = ZUC_OK;
  for (size_t i = 0, kl = zuc_key_len(op->variant); i < s->n && rc == ZUC_OK; i++)
    rc = op->mac ? zuc_mac(op->variant, s->keys[i], kl, s->ivs[i], op->iv_len, s->in[i], s->bits[i],
                           op->tag_bits, out[i])
                 : zuc_encrypt(op->variant, s->keys[i], kl, s->ivs[i], op->iv_len, s->in[i], out[i],
                               s->bits[i]);
  return rc;
}

int zuc_streams_imb(kc_imb *imb, const zuc_op *op, const zuc_streams *s, uint8_t *const *out,
                    int *taken, char *err, size_t err_size) {
  const uint8_t *keys[ZUC_SET_MAX], *ivs[ZUC_SET_MAX], *in[ZUC_SET_MAX];
  uint8_t *to[ZUC_SET_MAX];
  size_t lens[ZUC_SET_MAX], m = 0, kl = zuc_key_len(op->variant);
  for (size_t i = 0; i < s->n; i++) {
    size_t b = s->bits[i];
    int take = imb && b > 0 && zuc_imb_has(op) &&
               (op->mac ? b <= KC_IMB_ZUC_MAX_BITS : b % 8 == 0 && b / 8 <= KC_IMB_ZUC_MAX_BYTES);
    if (taken) taken[i] = take;
    if (!take) continue;
    keys[m] = s->keys[i], ivs[m] = s->ivs[i], in[m] = s->in[i], to[m] = out[i];
    lens[m++] = op->mac ? b : b / 8; /* EIA3 takes bits, EEA3 bytes */
  }
  if (m == 0) return 0;
  return op->mac
             ? kc_imb_zuc_mac(imb, m, keys, kl, ivs, op->iv_len, in, lens, op->tag_bits, to, err,
                              err_size)
             : kc_imb_zuc_encrypt(imb, m, keys, kl, ivs, op->iv_len, in, to, lens, err, err_size);
}

long zuc_streams_differ(const zuc_op *op, const zuc_streams *s) {
  for (size_t i = 0; i < s->n; i++)
    if (memcmp(s->out[i], s->want[i], zuc_out_bytes(op, s->bits[i])) != 0) return (long)i;
  return -1;
}

void zuc_random_states(kc_rng *r, uint32_t *states, size_t groups, unsigned lanes) {
  for (size_t i = 0; i < groups * ZUC_STATE_WORDS * lanes; i++) {
    uint32_t x = (uint32_t)kc_rng_next(r);
    states[i] = i / lanes % ZUC_STATE_WORDS < 16 ? (x & 0x7FFFFFFF ? x & 0x7FFFFFFF : 1) : x;
  }
}

void zuc_ref_load(zuc_ref_lanes *m, const zuc_impl *ref, const uint32_t *state, unsigned lanes) {
  unsigned rl = ref->lanes;
  m->ref = ref;
  m->lanes = lanes;
  for (unsigned j = 0; j < lanes; j++)
    for (int w = 0; w < ZUC_STATE_WORDS; w++)
      for (unsigned q = 0; q < rl; q++) m->state[j][w * rl + q] = state[w * lanes + j];
}

void zuc_ref_step(zuc_ref_lanes *m, zuc_step step, const uint8_t *const msg[]) {
  uint8_t ks[ZUC_LANES_MAX][64], *rows[ZUC_LANES_MAX];
  uint32_t word[ZUC_LANES_MAX];
  kc_rows(ks[0], 64, m->ref->lanes, rows);
  for (unsigned j = 0; j < m->lanes; j++) {
    switch (step) {
      case ZUC_INIT: m->ref->init_rounds(m->state[j]); break;
      case ZUC_INIT_MORE: m->ref->init_more_rounds(m->state[j]); break;
      case ZUC_WORD: m->ref->keystream_word(m->state[j], word), m->word[j] = word[0]; break;
      default:
        m->ref->keystream_block(m->state[j], rows);
        for (int i = 0; i < 64; i++) m->block[j][i] = ks[0][i] ^ (step == ZUC_XOR ? msg[j][i] : 0);
    }
  }
}

long zuc_ref_differs(const zuc_ref_lanes *m, const uint32_t *state) {
  for (unsigned j = 0; j < m->lanes; j++)
    for (int w = 0; w < ZUC_STATE_WORDS; w++)
      if (state[w * m->lanes + j] != m->state[j][w * m->ref->lanes])
        return (long)j * ZUC_STATE_WORDS + w;
  return -1;
}
