/*
 * kcrypt's ZUC-128 and ZUC-256: `enc` (XOR with the keystream, EEA3 style,
 * so it also decrypts) and `mac` (the tag in hex, EIA3 style), each through
 * the library's many-streams entry point with one stream, so that the kernel
 * named by -t/-s/--emulated is the one that runs.
 */
#include <stdlib.h>
#include <string.h>

#include "kcrypt.h"
#include "zuc.h"

/* The longest IV (ZUC-256's 25-byte form) and key. */
#define IV_MAX 25
#define KEY_MAX 32

/* What zuc_prepare decided, for zuc_run. */
static struct {
  zuc_variant variant;
  int mac; /* 1: mac, 0: enc */
  uint8_t key[KEY_MAX];
  uint8_t iv[IV_MAX];
  size_t iv_len;
  unsigned tag_bits;     /* mac */
  zuc_mac_method method; /* mac */
  int bits_given;
  size_t bits;
  const zuc_impl *impl;
} job;

static const void *zuc_best(void) { return zuc_impl_best(); }

/* The IV: 16 bytes for ZUC-128, 25 or 23 for ZUC-256.  Returns 0 or -1. */
static int read_iv(const char *name, const char *hex, char *err, size_t err_size) {
  if (!hex) {
    snprintf(err, err_size, "%s needs an IV (-i IVHEX, %s)", name,
             job.variant == ZUC_128 ? "32 hex digits" : "50 or 46 hex digits");
    return -1;
  }
  if (job.variant == ZUC_128) {
    job.iv_len = 16;
    return kc_hex_decode_exact(hex, job.iv, job.iv_len, "IV", err, err_size);
  }
  uint8_t *buf;
  char inner[128];
  if (kc_hex_decode(hex, &buf, &job.iv_len, inner, sizeof inner) != 0) {
    snprintf(err, err_size, "bad IV hex: %s", inner);
    return -1;
  }
  int ok = job.iv_len == 25 || job.iv_len == 23;
  if (ok)
    memcpy(job.iv, buf, job.iv_len);
  else
    snprintf(err, err_size, "%s IV must be 25 or 23 bytes (50 or 46 hex digits), got %zu byte%s",
             name, job.iv_len, job.iv_len == 1 ? "" : "s");
  free(buf);
  return ok ? 0 : -1;
}

/* --tag for mac: 32 (default), 64 or 128; ZUC-128 has only 32. */
static int read_tag(const char *name, const char *text, char *err, size_t err_size) {
  size_t tag = 32;
  if (text && (kc_parse_decimal(text, &tag) != 0 || (tag != 32 && tag != 64 && tag != 128))) {
    snprintf(err, err_size, "--tag must be 32, 64 or 128 (bits), got '%s'", text);
    return -1;
  }
  if (job.variant == ZUC_128 && tag != 32) {
    snprintf(err, err_size, "%s has only the 32-bit tag (128-EIA3); --tag %zu is for zuc256", name,
             tag);
    return -1;
  }
  job.tag_bits = (unsigned)tag;
  return 0;
}

static int read_method(const char *text, char *err, size_t err_size) {
  if (!text || strcmp(text, "clmul") == 0) {
    job.method = ZUC_MAC_CLMUL;
  } else if (strcmp(text, "compare") == 0) {
    job.method = ZUC_MAC_COMPARE;
  } else {
    snprintf(err, err_size, "unknown --mac-method '%s' (known: clmul, compare)", text);
    return -1;
  }
  return 0;
}

static int zuc_prepare(const char *name, const kc_args *a, char *err, size_t err_size) {
  if (strcmp(a->mode, "enc") == 0) {
    job.mac = 0;
  } else if (strcmp(a->mode, "mac") == 0) {
    job.mac = 1;
  } else {
    snprintf(err, err_size, "unknown %s mode '%s' (known: enc, mac)", name, a->mode);
    return -1;
  }
  if (!job.mac && (a->tag || a->mac_method)) {
    snprintf(err, err_size, "--tag and --mac-method are for %s mac, not enc", name);
    return -1;
  }

  size_t key_len = job.variant == ZUC_128 ? 16 : 32;
  if (!a->key_hex) {
    snprintf(err, err_size, "missing key (-k KEYHEX, %zu hex digits)", 2 * key_len);
    return -1;
  }
  if (kc_hex_decode_exact(a->key_hex, job.key, key_len, "key", err, err_size) != 0) return -1;
  if (read_iv(name, a->iv_hex, err, err_size) != 0) return -1;
  job.tag_bits = 0;
  if (job.mac && (read_tag(name, a->tag, err, err_size) != 0 ||
                  read_method(a->mac_method, err, err_size) != 0))
    return -1;

  job.bits_given = a->bits != NULL;
  if (a->bits && kc_parse_decimal(a->bits, &job.bits) != 0) {
    snprintf(err, err_size, "--bits needs a non-negative decimal number, got '%s'", a->bits);
    return -1;
  }

  /* The library judges what is left (e.g. a 25-byte IV with a top bit set
   * in IV17..IV24), before any input is read. */
  zuc_state probe;
  int rc = zuc_init(&probe, job.variant, job.key, key_len, job.iv, job.iv_len, job.tag_bits);
  memset(&probe, 0, sizeof probe);
  if (rc != ZUC_OK) {
    snprintf(err, err_size, "%s: %s", name, zuc_strerror(rc));
    return -1;
  }

  job.impl = kc_select_impl(job.variant == ZUC_128 ? &kc_cipher_zuc128 : &kc_cipher_zuc256, a, err,
                            err_size);
  return job.impl ? 0 : -1;
}

static int zuc128_prepare(const kc_args *a, char *err, size_t err_size) {
  job.variant = ZUC_128;
  return zuc_prepare("zuc128", a, err, err_size);
}

static int zuc256_prepare(const kc_args *a, char *err, size_t err_size) {
  job.variant = ZUC_256;
  return zuc_prepare("zuc256", a, err, err_size);
}

static int zuc_run(const uint8_t *in, size_t len, uint8_t **out, size_t *out_len, char *err,
                   size_t err_size) {
  size_t have = 8 * len, bits = job.bits_given ? job.bits : have;
  if (bits > have) {
    snprintf(err, err_size, "--bits %zu is larger than the input (%zu bytes = %zu bits)", bits, len,
             have);
    return -1;
  }
  /* enc: ceil(bits / 8) bytes; mac: the tag in hex and a newline. */
  size_t n = job.mac ? 2 * (job.tag_bits / 8) + 1 : (bits + 7) / 8;
  uint8_t *buf = malloc(n ? n : 1), tag[16];
  if (!buf) {
    snprintf(err, err_size, "out of memory (%zu bytes)", n);
    return -1;
  }
  const uint8_t *keys[1] = {job.key}, *ivs[1] = {job.iv}, *msgs[1] = {in};
  uint8_t *outs[1] = {job.mac ? tag : buf};
  int rc = job.mac ? zuc_mac_lanes(job.impl, job.method, job.variant, 1, keys, ivs, job.iv_len,
                                   msgs, &bits, job.tag_bits, outs)
                   : zuc_encrypt_lanes(job.impl, job.variant, 1, keys, ivs, job.iv_len, msgs, outs,
                                       &bits);
  if (rc != ZUC_OK) {
    snprintf(err, err_size, "%s with %s failed: %s",
             job.mac ? "zuc_mac_lanes" : "zuc_encrypt_lanes", job.impl->name, zuc_strerror(rc));
    free(buf);
    return -1;
  }
  if (job.mac) {
    char hex[2 * sizeof tag + 1];
    kc_hex_encode(tag, job.tag_bits / 8, hex);
    memcpy(buf, hex, n - 1);
    buf[n - 1] = '\n';
  }
  *out = buf;
  *out_len = n;
  return 0;
}

const kc_cipher kc_cipher_zuc128 = {"zuc128", "enc|mac",      0,      kc_views_zuc,
                                    zuc_best, zuc128_prepare, zuc_run};
const kc_cipher kc_cipher_zuc256 = {"zuc256", "enc|mac",      0,      kc_views_zuc,
                                    zuc_best, zuc256_prepare, zuc_run};
