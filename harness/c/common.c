/*
 * Helpers shared by the harness programs; see common.h for the contracts.
 */
#define _POSIX_C_SOURCE 200809L /* posix_memalign under -std=c11 */

#include "common.h"

#include "kc_cpu.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- Hex ---- */

int kc_hex_digit(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* (snprintf writes nothing when err_size is 0, so err may then be NULL.) */
int kc_hex_decode(const char *hex, uint8_t **out, size_t *out_len, char *err, size_t err_size) {
  size_t digits = strlen(hex);
  /* Check every character first so the message names the first bad one. */
  for (size_t i = 0; i < digits; i++) {
    unsigned char c = (unsigned char)hex[i];
    if (kc_hex_digit(c) >= 0) continue;
    if (c >= 0x20 && c < 0x7f)
      snprintf(err, err_size, "invalid hex character '%c' at position %zu", c, i);
    else
      snprintf(err, err_size, "invalid hex character (byte 0x%02x) at position %zu", c, i);
    return -1;
  }
  if (digits % 2 != 0) {
    snprintf(err, err_size, "odd number of hex digits (%zu)", digits);
    return -1;
  }
  uint8_t *buf = malloc(digits / 2 + 1); /* +1: never malloc(0) */
  if (!buf) {
    snprintf(err, err_size, "out of memory");
    return -1;
  }
  for (size_t i = 0; i < digits / 2; i++)
    buf[i] = (uint8_t)(kc_hex_digit(hex[2 * i]) << 4 | kc_hex_digit(hex[2 * i + 1]));
  *out = buf;
  *out_len = digits / 2;
  return 0;
}

int kc_hex_decode_exact(const char *hex, uint8_t *out, size_t len, const char *what, char *err,
                        size_t err_size) {
  uint8_t *buf;
  size_t got;
  char inner[128];
  if (kc_hex_decode(hex, &buf, &got, inner, sizeof inner) != 0) {
    snprintf(err, err_size, "bad %s hex: %s", what, inner);
    return -1;
  }
  if (got != len) {
    snprintf(err, err_size, "%s must be %zu bytes (%zu hex digits), got %zu byte%s", what, len,
             2 * len, got, got == 1 ? "" : "s");
    free(buf);
    return -1;
  }
  memcpy(out, buf, len);
  free(buf);
  return 0;
}

void kc_hex_encode(const uint8_t *in, size_t len, char *out) {
  static const char digits[] = "0123456789abcdef";
  for (size_t i = 0; i < len; i++) {
    out[2 * i] = digits[in[i] >> 4];
    out[2 * i + 1] = digits[in[i] & 15];
  }
  out[2 * len] = '\0';
}

/* ---- Reading a whole file ---- */

int kc_read_file(const char *path, uint8_t **buf, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  size_t cap = 1 << 16, used = 0;
  uint8_t *data = NULL;
  int error = 0;
  for (;;) {
    uint8_t *bigger = cap <= SIZE_MAX / 4 ? realloc(data, cap + 1) : NULL; /* +1: the NUL */
    if (!bigger) {
      error = ENOMEM;
      break;
    }
    data = bigger;
    used += fread(data + used, 1, cap - used, f);
    if (used < cap) { /* the end of the file, or an error */
      error = !ferror(f) ? 0 : errno ? errno : EIO;
      break;
    }
    cap *= 2;
  }
  fclose(f);
  if (error) {
    free(data);
    errno = error;
    return -1;
  }
  data[used] = 0;
  *buf = data;
  *len = used;
  return 0;
}

/* ---- Buffers ---- */

void *kc_alloc_aligned(size_t size, size_t align) {
  void *p = NULL;
  if (posix_memalign(&p, align, size ? size : 1) != 0) return NULL;
  return p;
}

void kc_free_aligned(void *p) { free(p); }

/* Guard pattern: depends on the position so a shifted copy is also caught. */
static uint8_t guard_byte(size_t i) { return (uint8_t)(0xA5 ^ (i * 29)); }

/* Writes (fill) or checks the guard pattern on every byte of the allocation outside
 * [ptr, ptr + len): [front guard][offset pad][len][back guard].  1 if it holds. */
static int guards(const kc_buf *b, int fill) {
  size_t start = KC_GUARD_BYTES + b->offset, end = start + b->len;
  size_t ranges[2][2] = {{0, start}, {end, end + KC_GUARD_BYTES}};
  int ok = 1;
  for (int r = 0; r < 2; r++)
    for (size_t i = ranges[r][0]; i < ranges[r][1]; i++) {
      if (fill) b->base[i] = guard_byte(i);
      ok &= b->base[i] == guard_byte(i);
    }
  return ok;
}

int kc_buf_alloc(kc_buf *b, size_t len, size_t offset) {
  /* The front guard is a multiple of KC_BUF_ALIGN, so ptr sits `offset` past a boundary. */
  b->base = kc_alloc_aligned(KC_GUARD_BYTES + offset + len + KC_GUARD_BYTES, KC_BUF_ALIGN);
  if (!b->base) return -1;
  b->ptr = b->base + KC_GUARD_BYTES + offset;
  b->len = len;
  b->offset = offset;
  guards(b, 1);
  memset(b->ptr, 0, len);
  return 0;
}

int kc_buf_guards_ok(const kc_buf *b) { return guards(b, 0); }

void kc_buf_free(kc_buf *b) {
  kc_free_aligned(b->base);
  b->base = b->ptr = NULL;
  b->len = 0;
}

/* ---- PRNG ---- */

/* splitmix64: turns any 64-bit seed into well-mixed state words. */
static uint64_t splitmix64(uint64_t *x) {
  uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

void kc_rng_seed(kc_rng *r, uint64_t seed) {
  for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&seed);
}

static uint64_t rotl64(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/* xoshiro256** (Blackman and Vigna). */
uint64_t kc_rng_next(kc_rng *r) {
  uint64_t *s = r->s;
  uint64_t result = rotl64(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl64(s[3], 45);
  return result;
}

uint64_t kc_rng_below(kc_rng *r, uint64_t bound) {
  /* Reject the top partial range so every value is equally likely. */
  uint64_t limit = -bound % bound; /* == 2^64 mod bound */
  for (;;) {
    uint64_t x = kc_rng_next(r);
    if (x >= limit) return x % bound;
  }
}

void kc_rows(uint8_t *base, size_t row_bytes, unsigned n, uint8_t *rows[]) {
  for (unsigned i = 0; i < n; i++) rows[i] = base + i * row_bytes;
}

void kc_rng_bytes(kc_rng *r, uint8_t *out, size_t len) {
  while (len) {
    uint64_t x = kc_rng_next(r);
    size_t n = len < 8 ? len : 8;
    for (size_t i = 0; i < n; i++) out[i] = (uint8_t)(x >> (8 * i));
    out += n;
    len -= n;
  }
}

/* ---- Block-cipher modes ---- */

static const char *const MODE_NAMES[KC_N_BLOCK_MODES] = {"ecb", "cbc", "ctr"};

const char *kc_block_mode_name(kc_block_mode m) {
  return (unsigned)m < KC_N_BLOCK_MODES ? MODE_NAMES[m] : "?";
}

int kc_block_mode_parse(const char *name, kc_block_mode *m) {
  for (int i = 0; i < KC_N_BLOCK_MODES; i++)
    if (strcmp(name, MODE_NAMES[i]) == 0) {
      *m = (kc_block_mode)i;
      return 0;
    }
  return -1;
}

const char *kc_direction_name(int encrypt) { return encrypt ? "encrypt" : "decrypt"; }

const kc_block_op KC_BLOCK_OPS[KC_N_BLOCK_OPS] = {
    {"ecb-enc", KC_MODE_ECB, 1}, {"ecb-dec", KC_MODE_ECB, 0}, {"cbc-enc", KC_MODE_CBC, 1},
    {"cbc-dec", KC_MODE_CBC, 0}, {"ctr", KC_MODE_CTR, 1},
};

/* ---- Where an implementation runs ---- */

const char *kc_avail_name(kc_avail a) {
  static const char *const names[] = {"native", "emulated", "unavailable"};
  return names[a < KC_UNAVAILABLE ? a : KC_UNAVAILABLE];
}

kc_avail kc_impl_avail(int emulated, int (*cpu_supported)(void)) {
  if (cpu_supported && !cpu_supported()) return KC_UNAVAILABLE;
  return emulated ? KC_EMULATED : KC_NATIVE;
}

int kc_target_disabled(const char *target) {
  size_t n = strlen(target);
  for (const char *p = getenv("KC_DISABLE_TARGETS"); p && *p;) {
    size_t len = strcspn(p, ",");
    if (len == n && strncmp(p, target, n) == 0) return 1;
    p += len + (p[len] == ',');
  }
  return 0;
}

void kc_cpu_model(char *buf, size_t size) {
  char line[512], name[512];
  FILE *f = fopen("/proc/cpuinfo", "r");
  snprintf(buf, size, "unknown");
  while (f && fgets(line, sizeof line, f)) {
    if (sscanf(line, "model name : %511[^\n]", name) == 1) {
      snprintf(buf, size, "%s", name);
      break;
    }
  }
  if (f) fclose(f);
}

void kc_cpu_feature_list(char *buf, size_t size) {
  buf[0] = '\0';
  const unsigned have = kc_cpu_features();
  size_t used = 0;
  for (unsigned i = 0; i < KC_CPU_FEATURE_COUNT; i++) {
    if (!(have & 1u << i)) continue;
    const char *name = kc_cpu_feature_name(1u << i);
    int n = snprintf(buf + used, size - used, "%s%s", used ? " " : "", name);
    if (n < 0 || (size_t)n >= size - used) break;
    used += (size_t)n;
  }
}
