/*
 * What the ZUC hooks of verify, bench, ctcheck and kcrypt share, written
 * once (zuc_lanes.c): sizes, valid random keys and IVs, the MAC methods'
 * names, what one call does (zuc_op), n streams and that call on them (ours,
 * the reference's, ipsec-mb's), random kernel lane states, and the reference
 * kernel run on each lane of a kernel's state.
 */
#ifndef KC_HARNESS_ZUC_LANES_H
#define KC_HARNESS_ZUC_LANES_H

#include "common.h"
#include "ipsecmb.h"
#include "zuc.h"

static inline size_t zuc_key_len(zuc_variant v) { return v == ZUC_128 ? 16 : 32; }
/* The bytes that hold `bits` bits, without (bits + 7)'s wrap near SIZE_MAX. */
static inline size_t zuc_bytes_of(size_t bits) { return bits / 8 + (bits % 8 != 0); }
/* A keystream word from its big-endian bytes. */
static inline uint32_t zuc_be32(const uint8_t *b) {
  return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* Random key and IV; a 25-byte IV's IV17..IV24 get their top two bits clear. */
static inline void zuc_random_key_iv(kc_rng *r, uint8_t *key, size_t key_len, uint8_t *iv, size_t iv_len) {
  kc_rng_bytes(r, key, key_len);
  kc_rng_bytes(r, iv, iv_len);
  for (size_t j = 17; iv_len == 25 && j < 25; j++) iv[j] &= 0x3F;
}

/* The MAC methods are zuc_mac_method's values 0..ZUC_N_METHODS-1; the first
 * ZUC_CHOSEN_METHODS (clmul: the widest fold this CPU has; compare) are the
 * ones a caller chooses between, the others force one carry-less width. */
#define ZUC_N_METHODS 5
#define ZUC_CHOSEN_METHODS 2
/* A method's name in verify's lines, bench's records and kcrypt's --mac-method. */
const char *zuc_method_name(zuc_mac_method m);

/* What one call does: encryption, or a MAC with a tag length and method; on
 * which variant and IV form. */
typedef struct zuc_op {
  zuc_variant variant;
  size_t iv_len;
  int mac;
  unsigned tag_bits;     /* mac */
  zuc_mac_method method; /* mac */
} zuc_op;

/* "zuc128", "zuc256", "zuc_nea6": the variant's name in the harness (kcrypt's, bench's). */
const char *zuc_variant_name(zuc_variant v);
/* "zuc128 enc iv16", "zuc256 mac64/compare iv23". */
void zuc_op_text(const zuc_op *op, char *buf, size_t size);

/* 1 if ipsec-mb (Debian's 1.3) runs op: it has no ZUC-NEA6, and would read
 * NEA6's 16-byte IV with a 32-byte key as another ZUC-256. */
static inline int zuc_imb_has(const zuc_op *op) { return op->variant != ZUC_NEA6; }

/* What op writes for one stream of `bits` bits: its tag, or its bytes. */
static inline size_t zuc_out_bytes(const zuc_op *op, size_t bits) {
  return op->mac ? op->tag_bits / 8 : zuc_bytes_of(bits);
}

#define ZUC_SET_MAX 256 /* the most streams of one call (bench's --streams) */

/* n streams as the many-streams calls take them: keys[i] and ivs[i] point
 * at key[i] and iv[i] once zuc_streams_init ran (so: not to be copied); in,
 * out (the call under test) and want (the oracle) at the caller's buffers. */
typedef struct zuc_streams {
  size_t n;
  uint8_t key[ZUC_SET_MAX][32], iv[ZUC_SET_MAX][25];
  size_t bits[ZUC_SET_MAX];
  const uint8_t *keys[ZUC_SET_MAX], *ivs[ZUC_SET_MAX], *in[ZUC_SET_MAX];
  uint8_t *out[ZUC_SET_MAX], *want[ZUC_SET_MAX];
} zuc_streams;

void zuc_streams_init(zuc_streams *s);

/* op on s's streams into out (s->out or s->want) by `impl` (NULL: the
 * library's choice per batch): zuc_mac_lanes or zuc_encrypt_lanes. */
int zuc_streams_run(const zuc_impl *impl, const zuc_op *op, const zuc_streams *s,
                    uint8_t *const *out);

/* op on each of s's streams through the one-stream API (zuc_mac or
 * zuc_encrypt: the best kernel); the first failure's code, or ZUC_OK. */
int zuc_streams_one(const zuc_op *op, const zuc_streams *s, uint8_t *const *out);

/* op by ipsec-mb (NULL: none) on the streams it takes (1 bit or more,
 * within its limits, whole bytes for EEA3; see ipsecmb.h) into out;
 * taken[i], unless NULL, says which.  Returns 0, or -1 with its message. */
int zuc_streams_imb(kc_imb *imb, const zuc_op *op, const zuc_streams *s, uint8_t *const *out,
                    int *taken, char *err, size_t err_size);

/* The first stream whose out differs from its want (zuc_out_bytes of it), or -1. */
long zuc_streams_differ(const zuc_op *op, const zuc_streams *s);

/* `groups` random states of a `lanes`-lane kernel, one after another: any
 * R1/R2 will do; each LFSR cell is in GF(2^31 - 1)* (31 bits, not 0). */
void zuc_random_states(kc_rng *r, uint32_t *states, size_t groups, unsigned lanes);

/* A kernel's steps: init_rounds, keystream_block, keystream_xor (into a
 * message per lane), keystream_word, init_more_rounds. */
typedef enum { ZUC_INIT, ZUC_BLOCK, ZUC_XOR, ZUC_WORD, ZUC_INIT_MORE } zuc_step;

/* The reference kernel run on each lane of a `lanes`-lane kernel state:
 * state[j] holds lane j in every lane of the reference's own width. */
typedef struct zuc_ref_lanes {
  const zuc_impl *ref;
  unsigned lanes;
  uint32_t state[ZUC_LANES_MAX][ZUC_STATE_WORDS * ZUC_LANES_MAX];
  uint8_t block[ZUC_LANES_MAX][64]; /* a block step's output, lane by lane */
  uint32_t word[ZUC_LANES_MAX];     /* ZUC_WORD's */
} zuc_ref_lanes;

/* Copies each lane of `state` (both kernels' lanes in 1..ZUC_LANES_MAX). */
void zuc_ref_load(zuc_ref_lanes *m, const zuc_impl *ref, const uint32_t *state, unsigned lanes);
/* One step on every lane; ZUC_XOR XORs msg[j] into lane j's block. */
void zuc_ref_step(zuc_ref_lanes *m, zuc_step step, const uint8_t *const msg[]);
/* The first lane j and word w where a kernel's `state` differs from the
 * reference's, as j * ZUC_STATE_WORDS + w, or -1. */
long zuc_ref_differs(const zuc_ref_lanes *m, const uint32_t *state);

#endif /* KC_HARNESS_ZUC_LANES_H */
