/*
 * kcrypt's ZUC-128 and ZUC-256: `enc` (XOR with the keystream, EEA3 style,
 * so it also decrypts) and `mac` (the tag in hex, EIA3 style), streamed one
 * piece of stdin at a time through the library's incremental calls
 * (zuc_eea_*, zuc_mac_*) on the kernel named by -t/-s/--emulated; --bits and
 * --mac-method as docs/cli.md says.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kcrypt.h"
#include "zuc.h"
#include "zuc_lanes.h"

/* What zuc_prepare decided, and the stream's state, for zuc_update. */
static struct {
  zuc_variant variant;
  int mac; /* 1: mac, 0: enc */
  uint8_t key[32], iv[25]; /* the longest: ZUC-256's key and 25-byte IV */
  size_t iv_len;
  unsigned tag_bits;     /* mac */
  int one_shot;          /* mac with --mac-method: zuc_mac_lanes on the whole input */
  zuc_mac_method method; /* one_shot */
  int bits_given;
  uint64_t bits;
  const zuc_impl *impl;
  uint64_t seen;           /* input bytes before the current piece */
  zuc_eea_state eea;       /* enc */
  zuc_mac_state mac_state; /* mac, streaming */
  kc_gathered whole;       /* one_shot: the input so far */
} job;

/* The IV: 16 bytes for ZUC-128 and ZUC-NEA6, 25 or 23 for ZUC-256.  Returns 0 or -1. */
static int read_iv(const char *name, const char *hex, char *err, size_t err_size) {
  if (!hex)
    return kc_error(err, err_size, "%s needs an IV (-i IVHEX, %s)", name,
                    job.variant != ZUC_256 ? "32 hex digits" : "50 or 46 hex digits");
  char what[64];
  snprintf(what, sizeof what, "%s IV", name);
  if (job.variant != ZUC_256) {
    job.iv_len = 16;
    return kc_hex_decode_exact(hex, job.iv, job.iv_len, what, err, err_size);
  }
  uint8_t *buf;
  char inner[128];
  if (kc_hex_decode(hex, &buf, &job.iv_len, inner, sizeof inner) != 0)
    return kc_error(err, err_size, "bad %s hex: %s", what, inner);
  int ok = job.iv_len == 25 || job.iv_len == 23;
  if (ok) memcpy(job.iv, buf, job.iv_len);
  free(buf);
  return ok ? 0
            : kc_error(err, err_size,
                       "%s must be 25 or 23 bytes (50 or 46 hex digits), got %zu byte%s", what,
                       job.iv_len, job.iv_len == 1 ? "" : "s");
}

/* --tag for mac: 32 (default), 64 or 128; ZUC-128 has only 32; ZUC-NEA6's
 * NIA6 any whole number of bytes from 4 to 16. */
static int read_tag(const char *name, const char *text, char *err, size_t err_size) {
  uint64_t tag = 32;
  if (job.variant == ZUC_NEA6) {
    if (text && (kc_parse_count(text, &tag) != 0 || tag % 8 || tag < 32 || tag > 128))
      return kc_error(err, err_size, "%s mac (NIA6): --tag must be 32 to 128 bits in steps of 8, got '%s'",
                      name, text);
    job.tag_bits = (unsigned)tag;
    return 0;
  }
  if (text && (kc_parse_count(text, &tag) != 0 || (tag != 32 && tag != 64 && tag != 128)))
    return kc_error(err, err_size, "--tag must be 32, 64 or 128 (bits), got '%s'", text);
  job.tag_bits = (unsigned)tag;
  if (job.variant == ZUC_128 && tag != 32)
    return kc_error(err, err_size, "%s has only the 32-bit tag (128-EIA3); --tag %u is for zuc256",
                    name, job.tag_bits);
  return 0;
}

/* --mac-method, if given: the one-shot path with that method. */
static int read_method(const char *text, char *err, size_t err_size) {
  job.one_shot = text != NULL;
  for (int m = 0; text && m < ZUC_CHOSEN_METHODS; m++)
    if (strcmp(text, zuc_method_name(job.method = (zuc_mac_method)m)) == 0) return 0;
  return text ? kc_error(err, err_size, "unknown --mac-method '%s' (known: clmul, compare)", text)
              : 0;
}

/* 0 if the library's call `call` on job.impl returned ZUC_OK, else -1 with the reason. */
static int lib_rc(int rc, const char *call, char *err, size_t err_size) {
  return rc == ZUC_OK ? 0
                      : kc_error(err, err_size, "%s with %s failed: %s", call, job.impl->name,
                                 zuc_strerror(rc));
}

/* The variant is v->id; its name names it in messages. */
static int zuc_prepare(const kc_desc *d, const kc_variant *v, const kc_args *a, char *err,
                       size_t err_size) {
  const char *name = v->name;
  job.variant = (zuc_variant)v->id;
  job.mac = strcmp(a->mode, "mac") == 0;
  if (!job.mac && strcmp(a->mode, "enc") != 0)
    return kc_error(err, err_size, "unknown %s mode '%s' (known: enc, mac)", name, a->mode);
  char who[64];
  snprintf(who, sizeof who, "%s %s", name, a->mode);
  if (kc_refuse_options(a, "--tag,--bits,--mac-method", who, err, err_size) != 0) return -1;
  if (!job.mac && (a->tag || a->mac_method))
    return kc_error(err, err_size, "--tag and --mac-method are for %s mac, not enc", name);

  size_t key_len = v->key_bytes;
  if (kc_read_key(v, a, job.key, err, err_size) != 0) return -1;
  if (read_iv(name, a->iv_hex, err, err_size) != 0) return -1;
  job.tag_bits = 0;
  if (job.mac && (read_tag(name, a->tag, err, err_size) != 0 ||
                  read_method(a->mac_method, err, err_size) != 0))
    return -1;

  job.bits_given = a->bits != NULL;
  if (a->bits && kc_parse_count(a->bits, &job.bits) != 0)
    return kc_error(err, err_size, "--bits needs a non-negative decimal number, got '%s'", a->bits);
  /* NIA6: one call on the whole message, whole bytes, one method. */
  if (job.variant == ZUC_NEA6 && job.mac) {
    if (job.one_shot)
      return kc_error(err, err_size, "--mac-method is for zuc128/zuc256 mac; %s mac (NIA6) has one", name);
    if (job.bits_given && job.bits % 8)
      return kc_error(err, err_size, "%s mac (NIA6) takes whole bytes: --bits %" PRIu64 " is not a multiple of 8",
                      name, job.bits);
    job.one_shot = 1;
  }

  /* The library judges what is left (e.g. a 25-byte IV with a top bit set
   * in IV17..IV24), before any input is read. */
  zuc_state probe;
  int rc = zuc_init(&probe, job.variant, job.key, key_len, job.iv, job.iv_len,
                    job.variant == ZUC_NEA6 ? 0 : job.tag_bits);
  memset(&probe, 0, sizeof probe);
  if (rc != ZUC_OK) return kc_error(err, err_size, "%s: %s", name, zuc_strerror(rc));

  job.impl = kc_select_impl(d, name, a, err, err_size);
  if (!job.impl) return -1;
  if (job.one_shot) return 0;
  rc = job.mac ? zuc_mac_init(&job.mac_state, job.impl, job.variant, job.key, key_len, job.iv,
                              job.iv_len, job.tag_bits)
               : zuc_eea_init(&job.eea, job.impl, job.variant, job.key, key_len, job.iv, job.iv_len);
  return lib_rc(rc, job.mac ? "zuc_mac_init" : "zuc_eea_init", err, err_size);
}

/* --bits N: the first ceil(N/8) bytes of stdin are all that is needed. */
static uint64_t zuc_input_limit(void) { return job.bits_given ? zuc_bytes_of(job.bits) : UINT64_MAX; }

/* The bits of the last piece (len bytes) to use: all of them, or what is
 * left of --bits N, which the input must have.  Returns 0 or -1. */
static int last_bits(size_t len, size_t *bits, char *err, size_t err_size) {
  uint64_t total = job.seen + len;
  if (job.bits_given && zuc_bytes_of(job.bits) > total)
    return kc_error(err, err_size,
                    "--bits %" PRIu64 " is larger than the input (%" PRIu64 " bytes = %" PRIu64
                    " bits)",
                    job.bits, total, 8 * total);
  /* With --bits, the limit ended the input within this piece. */
  *bits = job.bits_given ? job.bits - 8 * job.seen : 8 * len;
  return 0;
}

/* The tag as hex and a newline, kcrypt's mac output. */
static size_t tag_line(const uint8_t *tag, uint8_t *out) {
  char hex[2 * 16 + 1];
  size_t n = job.tag_bits / 8;
  kc_hex_encode(tag, n, hex);
  memcpy(out, hex, 2 * n);
  out[2 * n] = '\n';
  return 2 * n + 1;
}

/* mac with --mac-method, and NIA6: keeps the piece; after the last, one call
 * of zuc_mac_lanes with one stream over all of it (NIA6: of zuc_nia6). */
static int one_shot_mac(const uint8_t *in, size_t len, int last, uint8_t *out, size_t *out_len,
                        char *err, size_t err_size) {
  if (kc_gather(&job.whole, in, len, "--mac-method's whole input", err, err_size) != 0) return -1;
  *out_len = 0;
  if (!last) return 0;

  size_t bits; /* job.seen stays 0 on this path: the whole input is one piece */
  if (last_bits(job.whole.len, &bits, err, err_size) != 0) return -1;
  uint8_t tag[16];
  if (job.variant == ZUC_NEA6) {
    int rc = zuc_nia6(job.key, 32, job.iv, job.iv_len, job.whole.data, bits / 8, job.tag_bits / 8, tag);
    if (lib_rc(rc, "zuc_nia6", err, err_size) != 0) return -1;
    *out_len = tag_line(tag, out);
    return 0;
  }
  const uint8_t *keys[1] = {job.key}, *ivs[1] = {job.iv}, *msgs[1] = {job.whole.data};
  uint8_t *tags[1] = {tag};
  int rc = zuc_mac_lanes(job.impl, job.method, job.variant, 1, keys, ivs, job.iv_len, msgs, &bits,
                         job.tag_bits, tags);
  if (lib_rc(rc, "zuc_mac_lanes", err, err_size) != 0) return -1;
  *out_len = tag_line(tag, out);
  return 0;
}

/* One piece: whole bytes through update; the last (in bits) through final. */
static int zuc_update(const uint8_t *in, size_t len, int last, uint8_t *out, size_t *out_len,
                      char *err, size_t err_size) {
  if (job.one_shot) return one_shot_mac(in, len, last, out, out_len, err, err_size);
  size_t bits = 0;
  if (last && last_bits(len, &bits, err, err_size) != 0) return -1;
  int rc;
  const char *call;
  uint8_t tag[16];
  *out_len = 0;
  if (job.mac) {
    call = last ? "zuc_mac_final" : "zuc_mac_update";
    rc = last ? zuc_mac_final(&job.mac_state, in, bits, tag)
              : zuc_mac_update(&job.mac_state, in, len);
    if (rc == ZUC_OK && last) *out_len = tag_line(tag, out);
  } else {
    call = last ? "zuc_eea_final" : "zuc_eea_update";
    rc = last ? zuc_eea_final(&job.eea, in, out, bits) : zuc_eea_update(&job.eea, in, out, len);
    *out_len = last ? zuc_bytes_of(bits) : len;
  }
  if (lib_rc(rc, call, err, err_size) != 0) return -1;
  job.seen += len;
  return 0;
}

/* The key, the stream states and --mac-method's gathered input. */
static void zuc_wipe(void) {
  zuc_eea_reset(&job.eea);
  zuc_mac_reset(&job.mac_state);
  kc_gather_wipe(&job.whole);
  memset(&job, 0, sizeof job);
}

const kc_cli kc_zuc_cli = {"enc|mac", 0, zuc_prepare, zuc_input_limit, zuc_update, zuc_wipe,
                           NULL, NULL, NULL};
