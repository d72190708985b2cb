/*
 * Helpers shared by the harness programs; see common.h for the contracts.
 */
#define _POSIX_C_SOURCE 200809L /* posix_memalign under -std=c11 */

#include "common.h"

#include "kc_cpu.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int kc_error(char *err, size_t err_size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, err_size, fmt, ap);
  va_end(ap);
  return -1;
}

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
    return c >= 0x20 && c < 0x7f
               ? kc_error(err, err_size, "invalid hex character '%c' at position %zu", c, i)
               : kc_error(err, err_size, "invalid hex character (byte 0x%02x) at position %zu", c,
                          i);
  }
  if (digits % 2 != 0) return kc_error(err, err_size, "odd number of hex digits (%zu)", digits);
  uint8_t *buf = malloc(digits / 2 + 1); /* +1: never malloc(0) */
  if (!buf) return kc_error(err, err_size, "out of memory");
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
  if (kc_hex_decode(hex, &buf, &got, inner, sizeof inner) != 0)
    return kc_error(err, err_size, "bad %s hex: %s", what, inner);
  if (got == len) memcpy(out, buf, len);
  free(buf);
  return got == len
             ? 0
             : kc_error(err, err_size, "%s must be %zu bytes (%zu hex digits), got %zu byte%s",
                        what, len, 2 * len, got, got == 1 ? "" : "s");
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

int kc_target_disabled(const char *target) {
  const char *list = getenv("KC_DISABLE_TARGETS");
  return list && kc_in_list(list, target);
}

int kc_in_list(const char *list, const char *word) {
  size_t n = strlen(word);
  for (const char *p = list; *p;) {
    size_t len = strcspn(p, ",");
    if (len == n && strncmp(p, word, n) == 0) return 1;
    p += len + (p[len] == ',');
  }
  return 0;
}

/* ---- Command lines ---- */

int kc_parse_count(const char *s, uint64_t *out) {
  uint64_t v = 0;
  for (const char *p = s; *p; p++) {
    unsigned d = (unsigned)(*p - '0');
    if (d > 9 || v > (UINT64_MAX - d) / 10) return -1;
    v = v * 10 + d;
  }
  *out = v;
  return *s ? 0 : -1;
}

/* How a message names o: its short form if it has one. */
static const char *opt_label(const kc_opt *o) { return o->alias ? o->alias : o->name; }

/* Stores `value`, the argument of o (NULL for an option that takes none). */
static int opt_store(const kc_opt *o, const kc_opt *opts, size_t n, const char *value, char *err,
                     size_t size) {
  uint64_t count;
  switch (o->kind) {
    case KC_OPT_FLAG:
    case KC_OPT_STOP: *(int *)o->dest = 1; return 0;
    case KC_OPT_SET:
      for (size_t j = 0; j < n; j++)
        if (opts[j].kind == KC_OPT_SET && opts[j].dest == o->dest &&
            opts[j].value == *(int *)o->dest && opts[j].value != o->value)
          return kc_error(err, size, "give only one of %s and %s", opt_label(&opts[j]),
                          opt_label(o));
      *(int *)o->dest = o->value;
      return 0;
    case KC_OPT_STRING: *(const char **)o->dest = value; return 0;
    case KC_OPT_COUNT:
      if (kc_parse_count(value, &count) != 0)
        return kc_error(err, size, "%s needs a number", o->name);
      if (count < o->min || (o->max && count > o->max))
        return o->max ? kc_error(err, size, "%s must be %" PRIu64 "..%" PRIu64, o->name, o->min,
                                 o->max)
                      : kc_error(err, size, "%s must be at least %" PRIu64, o->name, o->min);
      *(uint64_t *)o->dest = count;
      return 0;
    case KC_OPT_WORD: {
      char list[256] = "";
      size_t used = 0;
      for (int i = 0; o->words[i]; i++) {
        if (strcmp(value, o->words[i]) == 0) {
          *(int *)o->dest = i;
          return 0;
        }
        const char *sep = i == 0 ? "" : o->words[i + 1] ? ", " : " or ";
        if (used < sizeof list)
          used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", sep, o->words[i]);
      }
      return kc_error(err, size, "%s must be %s", o->name, list);
    }
    default: return o->parse(value, o->dest, err, size);
  }
}

int kc_opts_parse(int argc, char **argv, const kc_opt *opts, size_t n, char *err, size_t err_size) {
  size_t next = 0; /* the next positional entry to fill, if it is one */
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (arg[0] != '-' || arg[1] == '\0') { /* a positional argument */
      while (next < n && opts[next].name) next++;
      if (next == n) return kc_error(err, err_size, "unexpected argument '%s'", arg);
      *(const char **)opts[next++].dest = arg;
      continue;
    }
    const kc_opt *o = opts;
    while (o < opts + n &&
           !(o->name && (strcmp(arg, o->name) == 0 || (o->alias && strcmp(arg, o->alias) == 0))))
      o++;
    if (o == opts + n) return kc_error(err, err_size, "unknown option '%s'", arg);
    const char *value = NULL;
    if (o->kind <= KC_OPT_CALL) {
      if (i + 1 == argc) return kc_error(err, err_size, "option %s needs a value", arg);
      value = argv[++i];
    }
    if (o->once && *(const char **)o->dest)
      return kc_error(err, err_size, "option %s given twice", arg);
    if (o->seen) *o->seen = 1;
    if (opt_store(o, opts, n, value, err, err_size) != 0) return -1;
    if (o->kind == KC_OPT_STOP) return 0;
  }
  return 0;
}

void kc_cpu_describe(char *model, char *features, size_t size) {
  char line[512], name[512];
  FILE *f = fopen("/proc/cpuinfo", "r");
  snprintf(model, size, "unknown");
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "model name : %511[^\n]", name) == 1) {
      snprintf(model, size, "%s", name);
      break;
    }
  if (f) fclose(f);
  const unsigned have = kc_cpu_features();
  size_t used = 0;
  features[0] = '\0';
  for (unsigned i = 0; i < KC_CPU_FEATURE_COUNT; i++) {
    if (!(have & 1u << i)) continue;
    const char *feature = kc_cpu_feature_name(1u << i);
    int n = snprintf(features + used, size - used, "%s%s", used ? " " : "", feature);
    if (n < 0 || (size_t)n >= size - used) break;
    used += (size_t)n;
  }
}
