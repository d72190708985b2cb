/*
 * Helpers shared by the harness programs; see common.h for the contracts.
 */
#define _POSIX_C_SOURCE 200809L /* posix_memalign, strtok_r under -std=c11 */

#include "common.h"

#include "kc_cpu.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Hex                                                                  */
/* ------------------------------------------------------------------ */

/* Value of one hex digit, or -1. */
static int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* snprintf into err only when the caller gave room for a message. */
#define SET_ERR(...)                                \
  do {                                              \
    if (err && err_size) snprintf(err, err_size, __VA_ARGS__); \
  } while (0)

int kc_hex_decode(const char *hex, uint8_t **out, size_t *out_len, char *err, size_t err_size) {
  size_t digits = strlen(hex);
  /* Check every character first so the message names the first bad one. */
  for (size_t i = 0; i < digits; i++) {
    if (hex_digit(hex[i]) < 0) {
      unsigned char c = (unsigned char)hex[i];
      if (c >= 0x20 && c < 0x7f)
        SET_ERR("invalid hex character '%c' at position %zu", c, i);
      else
        SET_ERR("invalid hex character (byte 0x%02x) at position %zu", c, i);
      return -1;
    }
  }
  if (digits % 2 != 0) {
    SET_ERR("odd number of hex digits (%zu)", digits);
    return -1;
  }
  uint8_t *buf = malloc(digits / 2 + 1); /* +1: never malloc(0) */
  if (!buf) {
    SET_ERR("out of memory");
    return -1;
  }
  for (size_t i = 0; i < digits / 2; i++)
    buf[i] = (uint8_t)(hex_digit(hex[2 * i]) << 4 | hex_digit(hex[2 * i + 1]));
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
    SET_ERR("bad %s hex: %s", what, inner);
    return -1;
  }
  if (got != len) {
    SET_ERR("%s must be %zu bytes (%zu hex digits), got %zu byte%s", what, len, 2 * len, got,
            got == 1 ? "" : "s");
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

/* ------------------------------------------------------------------ */
/* Reading a whole file                                                 */
/* ------------------------------------------------------------------ */

/* All of f into a malloc'ed buffer with room for a NUL after the data. */
static int read_all(FILE *f, uint8_t **buf, size_t *len) {
  size_t cap = 1 << 16, used = 0;
  uint8_t *data = malloc(cap + 1); /* +1: room for the NUL kc_read_file adds */
  if (!data) return -1;
  for (;;) {
    if (used == cap) {
      if (cap > ((size_t)-1) / 4) { /* absurd size: refuse rather than overflow */
        free(data);
        errno = ENOMEM;
        return -1;
      }
      uint8_t *bigger = realloc(data, 2 * cap + 1);
      if (!bigger) {
        free(data);
        return -1;
      }
      data = bigger;
      cap *= 2;
    }
    size_t n = fread(data + used, 1, cap - used, f);
    used += n;
    if (n == 0) {
      if (ferror(f)) {
        int saved = errno ? errno : EIO;
        free(data);
        errno = saved;
        return -1;
      }
      break; /* end of file */
    }
  }
  data[used] = 0;
  *buf = data;
  *len = used;
  return 0;
}

int kc_read_file(const char *path, uint8_t **buf, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  int rc = read_all(f, buf, len);
  int saved = errno;
  fclose(f);
  errno = saved;
  return rc;
}

/* ------------------------------------------------------------------ */
/* Buffers                                                              */
/* ------------------------------------------------------------------ */

void *kc_alloc_aligned(size_t size, size_t align) {
  void *p = NULL;
  if (posix_memalign(&p, align, size ? size : 1) != 0) return NULL;
  return p;
}

void kc_free_aligned(void *p) { free(p); }

/* Guard pattern: depends on the position so a shifted copy is also caught. */
static uint8_t guard_byte(size_t i) { return (uint8_t)(0xA5 ^ (i * 29)); }

int kc_buf_alloc(kc_buf *b, size_t len, size_t offset) {
  /* Layout: [front guard, rounded up to the alignment][offset pad][len][back guard] */
  size_t front = KC_GUARD_BYTES; /* a multiple of KC_BUF_ALIGN */
  size_t total = front + offset + len + KC_GUARD_BYTES;
  b->base = kc_alloc_aligned(total, KC_BUF_ALIGN);
  if (!b->base) return -1;
  b->ptr = b->base + front + offset;
  b->len = len;
  b->offset = offset;
  /* Fill everything outside [ptr, ptr+len) with the guard pattern. */
  for (size_t i = 0; i < front + offset; i++) b->base[i] = guard_byte(i);
  for (size_t i = front + offset + len; i < total; i++) b->base[i] = guard_byte(i);
  memset(b->ptr, 0, len);
  return 0;
}

int kc_buf_guards_ok(const kc_buf *b) {
  size_t front = KC_GUARD_BYTES;
  size_t total = front + b->offset + b->len + KC_GUARD_BYTES;
  for (size_t i = 0; i < front + b->offset; i++)
    if (b->base[i] != guard_byte(i)) return 0;
  for (size_t i = front + b->offset + b->len; i < total; i++)
    if (b->base[i] != guard_byte(i)) return 0;
  return 1;
}

void kc_buf_free(kc_buf *b) {
  kc_free_aligned(b->base);
  b->base = b->ptr = NULL;
  b->len = 0;
}

/* ------------------------------------------------------------------ */
/* PRNG                                                                 */
/* ------------------------------------------------------------------ */

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

/* ------------------------------------------------------------------ */
/* Block-cipher modes                                                   */
/* ------------------------------------------------------------------ */

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

/* ------------------------------------------------------------------ */
/* Where an implementation runs                                        */
/* ------------------------------------------------------------------ */

const char *kc_avail_name(kc_avail a) {
  switch (a) {
    case KC_NATIVE: return "native";
    case KC_EMULATED: return "emulated";
    default: return "unavailable";
  }
}

kc_avail kc_impl_avail(int emulated, int (*cpu_supported)(void)) {
  if (cpu_supported && !cpu_supported()) return KC_UNAVAILABLE;
  return emulated ? KC_EMULATED : KC_NATIVE;
}

int kc_target_disabled(const char *target) {
  const char *list = getenv("KC_DISABLE_TARGETS");
  if (!list || !*list) return 0;
  size_t n = strlen(target);
  const char *p = list;
  while (*p) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len == n && strncmp(p, target, n) == 0) return 1;
    if (!end) break;
    p = end + 1;
  }
  return 0;
}

void kc_cpu_model(char *buf, size_t size) {
  snprintf(buf, size, "unknown");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "model name", 10) == 0) {
      char *colon = strchr(line, ':');
      if (colon) {
        colon++;
        while (*colon == ' ' || *colon == '\t') colon++;
        colon[strcspn(colon, "\n")] = '\0';
        snprintf(buf, size, "%s", colon);
      }
      break;
    }
  }
  fclose(f);
}

void kc_cpu_feature_list(char *buf, size_t size) {
  buf[0] = '\0';
  const unsigned have = kc_cpu_features();
  size_t used = 0;
  for (unsigned i = 0; i < KC_CPU_FEATURE_COUNT; i++) {
    if (!(have & 1u << i)) continue;
    int n = snprintf(buf + used, size - used, "%s%s", used ? " " : "", kc_cpu_feature_name(1u << i));
    if (n < 0 || (size_t)n >= size - used) break;
    used += (size_t)n;
  }
}
