/*
 * Locating the repository's vectors and a small JSON reader; see vectors.h.
 */
#define _XOPEN_SOURCE 700 /* realpath, readlink under -std=c11 */

#include "vectors.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* ------------------------------------------------------------------ */
/* Locating the vectors                                                 */
/* ------------------------------------------------------------------ */

static int file_exists(const char *dir, const char *file) {
  char path[PATH_MAX];
  if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, file) >= sizeof path) return 0;
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  fclose(f);
  return 1;
}

/* Walks from `start` (an absolute directory) up to "/", looking for
 * <ancestor>/tests/vectors/<file>.  Returns 0 and fills buf when found. */
static int search_upwards(const char *start, const char *file, char *buf, size_t size) {
  char dir[PATH_MAX];
  snprintf(dir, sizeof dir, "%s", start);
  for (;;) {
    char candidate[PATH_MAX];
    if ((size_t)snprintf(candidate, sizeof candidate, "%s/tests/vectors",
                         strcmp(dir, "/") == 0 ? "" : dir) < sizeof candidate &&
        file_exists(candidate, file)) {
      snprintf(buf, size, "%s", candidate);
      return 0;
    }
    char *slash = strrchr(dir, '/');
    if (!slash || strcmp(dir, "/") == 0) return -1;
    if (slash == dir)
      dir[1] = '\0'; /* parent is the root */
    else
      *slash = '\0';
  }
}

int kc_vectors_dir(const char *argv0, const char *file, char *buf, size_t size, char *err,
                   size_t err_size) {
  /* 1. Explicit override. */
  const char *env = getenv("KC_VECTORS_DIR");
  if (env && *env) {
    if (file_exists(env, file)) {
      snprintf(buf, size, "%s", env);
      return 0;
    }
    snprintf(err, err_size, "KC_VECTORS_DIR=%s has no %s", env, file);
    return -1;
  }

  /* 2. Upwards from the executable's directory. */
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = '\0';
  } else if (!argv0 || !realpath(argv0, exe)) {
    exe[0] = '\0';
  }
  char *slash = strrchr(exe, '/');
  if (slash && slash != exe) {
    *slash = '\0';
    if (search_upwards(exe, file, buf, size) == 0) return 0;
  }

  /* 3. Upwards from the current directory. */
  char cwd[PATH_MAX];
  if (getcwd(cwd, sizeof cwd) && search_upwards(cwd, file, buf, size) == 0) return 0;

  snprintf(err, err_size,
           "cannot find tests/vectors/%s above %s or above the current directory; "
           "run from a checkout of the repository or set KC_VECTORS_DIR",
           file, exe[0] ? exe : "(unknown executable)");
  return -1;
}

/* ------------------------------------------------------------------ */
/* JSON                                                                 */
/* ------------------------------------------------------------------ */

/* Parser state: the text and a position; the first error stops everything. */
typedef struct parser {
  const char *text;
  size_t len, pos;
  int depth;
  char *err;
  size_t err_size;
  int failed;
} parser;

#define MAX_DEPTH 64

/* Records an error at the current position (line and column, 1-based). */
static void perror_at(parser *p, const char *what) {
  if (p->failed) return;
  p->failed = 1;
  size_t line = 1, col = 1;
  for (size_t i = 0; i < p->pos && i < p->len; i++) {
    if (p->text[i] == '\n') {
      line++;
      col = 1;
    } else {
      col++;
    }
  }
  snprintf(p->err, p->err_size, "line %zu, column %zu: %s", line, col, what);
}

static void skip_space(parser *p) {
  while (p->pos < p->len) {
    char c = p->text[p->pos];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
    p->pos++;
  }
}

static int peek(parser *p) { return p->pos < p->len ? (unsigned char)p->text[p->pos] : -1; }

/* Consumes `word` (true/false/null) if it is next. */
static int take_word(parser *p, const char *word) {
  size_t n = strlen(word);
  if (p->len - p->pos >= n && memcmp(p->text + p->pos, word, n) == 0) {
    p->pos += n;
    return 1;
  }
  return 0;
}

/* Appends one byte to a growing string. */
typedef struct strbuf {
  char *data;
  size_t len, cap;
} strbuf;

static int sb_put(strbuf *s, char c) {
  if (s->len + 1 >= s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 32;
    char *bigger = realloc(s->data, cap);
    if (!bigger) return -1;
    s->data = bigger;
    s->cap = cap;
  }
  s->data[s->len++] = c;
  s->data[s->len] = '\0';
  return 0;
}

/* Appends code point cp (< 0x10000) as UTF-8 (one to three bytes, in order). */
static int sb_put_utf8(strbuf *s, unsigned cp) {
  char bytes[3];
  int n;
  if (cp < 0x80) {
    bytes[0] = (char)cp;
    n = 1;
  } else if (cp < 0x800) {
    bytes[0] = (char)(0xC0 | cp >> 6);
    bytes[1] = (char)(0x80 | (cp & 0x3F));
    n = 2;
  } else {
    bytes[0] = (char)(0xE0 | cp >> 12);
    bytes[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    bytes[2] = (char)(0x80 | (cp & 0x3F));
    n = 3;
  }
  for (int i = 0; i < n; i++)
    if (sb_put(s, bytes[i]) != 0) return -1;
  return 0;
}

/* Parses a string literal (the opening quote is next); returns malloc'ed text. */
static char *parse_string(parser *p) {
  strbuf s = {malloc(32), 0, 32}; /* non-NULL even for "" */
  if (!s.data) goto oom;
  s.data[0] = '\0';
  p->pos++; /* opening quote */
  for (;;) {
    int c = peek(p);
    if (c < 0) {
      perror_at(p, "unterminated string");
      goto fail;
    }
    p->pos++;
    if (c == '"') return s.data;
    if (c < 0x20) {
      p->pos--;
      perror_at(p, "control character in string");
      goto fail;
    }
    if (c != '\\') {
      if (sb_put(&s, (char)c) != 0) goto oom;
      continue;
    }
    int e = peek(p);
    p->pos++;
    char plain = 0;
    switch (e) {
      case '"': plain = '"'; break;
      case '\\': plain = '\\'; break;
      case '/': plain = '/'; break;
      case 'b': plain = '\b'; break;
      case 'f': plain = '\f'; break;
      case 'n': plain = '\n'; break;
      case 'r': plain = '\r'; break;
      case 't': plain = '\t'; break;
      case 'u': {
        unsigned cp = 0;
        for (int i = 0; i < 4; i++) {
          int h = peek(p);
          int v = (h >= '0' && h <= '9')   ? h - '0'
                  : (h >= 'a' && h <= 'f') ? h - 'a' + 10
                  : (h >= 'A' && h <= 'F') ? h - 'A' + 10
                                           : -1;
          if (v < 0) {
            perror_at(p, "bad \\u escape");
            goto fail;
          }
          cp = cp << 4 | (unsigned)v;
          p->pos++;
        }
        if (sb_put_utf8(&s, cp) != 0) goto oom; /* surrogates kept as-is: not needed here */
        continue;
      }
      default:
        p->pos--;
        perror_at(p, "bad escape in string");
        goto fail;
    }
    if (sb_put(&s, plain) != 0) goto oom;
  }
oom:
  perror_at(p, "out of memory");
fail:
  free(s.data);
  return NULL;
}

static int parse_value(parser *p, kc_json *out);

/* Grows an array/object's item list by one; returns the new item or NULL. */
static kc_json *add_item(parser *p, kc_json *v, size_t *cap) {
  if (v->count == *cap) {
    size_t ncap = *cap ? 2 * *cap : 4;
    kc_json *items = realloc(v->items, ncap * sizeof *items);
    if (!items) {
      perror_at(p, "out of memory");
      return NULL;
    }
    v->items = items;
    if (v->type == KC_JSON_OBJECT) {
      char **keys = realloc(v->keys, ncap * sizeof *keys);
      if (!keys) {
        perror_at(p, "out of memory");
        return NULL;
      }
      v->keys = keys;
    }
    *cap = ncap;
  }
  kc_json *item = &v->items[v->count];
  memset(item, 0, sizeof *item);
  return item;
}

/* Parses [ ... ] or { ... } (the opening bracket is next). */
static int parse_container(parser *p, kc_json *v, int is_object) {
  v->type = is_object ? KC_JSON_OBJECT : KC_JSON_ARRAY;
  char close = is_object ? '}' : ']';
  size_t cap = 0;
  if (++p->depth > MAX_DEPTH) {
    perror_at(p, "nesting too deep");
    return -1;
  }
  p->pos++; /* opening bracket */
  skip_space(p);
  if (peek(p) == close) {
    p->pos++;
    p->depth--;
    return 0;
  }
  for (;;) {
    skip_space(p);
    char *key = NULL;
    if (is_object) {
      if (peek(p) != '"') {
        perror_at(p, "expected a member name in quotes");
        return -1;
      }
      key = parse_string(p);
      if (!key) return -1;
      skip_space(p);
      if (peek(p) != ':') {
        free(key);
        perror_at(p, "expected ':'");
        return -1;
      }
      p->pos++;
    }
    kc_json *item = add_item(p, v, &cap);
    if (!item) {
      free(key);
      return -1;
    }
    if (is_object) v->keys[v->count] = key;
    v->count++; /* counted now so kc_json_free releases a half-parsed item */
    if (parse_value(p, item) != 0) return -1;
    skip_space(p);
    int c = peek(p);
    if (c == ',') {
      p->pos++;
      continue;
    }
    if (c == close) {
      p->pos++;
      p->depth--;
      return 0;
    }
    perror_at(p, is_object ? "expected ',' or '}'" : "expected ',' or ']'");
    return -1;
  }
}

/* Parses an integer: optional '-', digits; fractions and exponents refused. */
static int parse_int(parser *p, kc_json *v) {
  v->type = KC_JSON_INT;
  int negative = 0;
  if (peek(p) == '-') {
    negative = 1;
    p->pos++;
  }
  if (peek(p) < '0' || peek(p) > '9') {
    perror_at(p, "expected a digit");
    return -1;
  }
  uint64_t mag = 0;
  while (peek(p) >= '0' && peek(p) <= '9') {
    unsigned d = (unsigned)(peek(p) - '0');
    if (mag > (UINT64_C(9223372036854775807) - d) / 10) {
      perror_at(p, "integer too large");
      return -1;
    }
    mag = mag * 10 + d;
    p->pos++;
  }
  if (peek(p) == '.' || peek(p) == 'e' || peek(p) == 'E') {
    perror_at(p, "only integers are supported");
    return -1;
  }
  v->integer = negative ? -(int64_t)mag : (int64_t)mag;
  return 0;
}

static int parse_value(parser *p, kc_json *v) {
  skip_space(p);
  int c = peek(p);
  switch (c) {
    case '{': return parse_container(p, v, 1);
    case '[': return parse_container(p, v, 0);
    case '"':
      v->type = KC_JSON_STRING;
      v->string = parse_string(p);
      return v->string ? 0 : -1;
    case -1: perror_at(p, "unexpected end of input"); return -1;
    default: break;
  }
  if (c == '-' || (c >= '0' && c <= '9')) return parse_int(p, v);
  if (take_word(p, "true")) {
    v->type = KC_JSON_BOOL;
    v->integer = 1;
    return 0;
  }
  if (take_word(p, "false")) {
    v->type = KC_JSON_BOOL;
    return 0;
  }
  if (take_word(p, "null")) {
    v->type = KC_JSON_NULL;
    return 0;
  }
  perror_at(p, "unexpected character");
  return -1;
}

/* Frees what a value owns (not the value itself). */
static void free_contents(kc_json *v) {
  free(v->string);
  for (size_t i = 0; i < v->count; i++) {
    free_contents(&v->items[i]);
    if (v->keys) free(v->keys[i]);
  }
  free(v->items);
  free(v->keys);
}

void kc_json_free(kc_json *v) {
  if (!v) return;
  free_contents(v);
  free(v);
}

kc_json *kc_json_parse(const char *text, size_t len, char *err, size_t err_size) {
  parser p = {text, len, 0, 0, err, err_size, 0};
  kc_json *root = calloc(1, sizeof *root);
  if (!root) {
    snprintf(err, err_size, "out of memory");
    return NULL;
  }
  if (parse_value(&p, root) == 0) {
    skip_space(&p);
    if (p.pos == p.len) return root;
    perror_at(&p, "trailing characters after the value");
  }
  kc_json_free(root);
  return NULL;
}

kc_json *kc_json_load(const char *path, char *err, size_t err_size) {
  uint8_t *text;
  size_t len;
  if (kc_read_file(path, &text, &len) != 0) {
    snprintf(err, err_size, "%s: %s", path, strerror(errno));
    return NULL;
  }
  char inner[256];
  kc_json *v = kc_json_parse((const char *)text, len, inner, sizeof inner);
  free(text);
  if (!v) snprintf(err, err_size, "%s: %s", path, inner);
  return v;
}

const kc_json *kc_json_get(const kc_json *v, const char *key) {
  if (!v || v->type != KC_JSON_OBJECT) return NULL;
  for (size_t i = 0; i < v->count; i++)
    if (strcmp(v->keys[i], key) == 0) return &v->items[i];
  return NULL;
}

const char *kc_json_get_string(const kc_json *v, const char *key) {
  const kc_json *m = kc_json_get(v, key);
  return m && m->type == KC_JSON_STRING ? m->string : NULL;
}

int kc_json_get_hex(const kc_json *v, const char *key, uint8_t **out, size_t *len, char *err,
                    size_t err_size) {
  const char *s = kc_json_get_string(v, key);
  if (!s) {
    snprintf(err, err_size, "missing string '%s'", key);
    return -1;
  }
  char inner[128];
  if (kc_hex_decode(s, out, len, inner, sizeof inner) != 0) {
    snprintf(err, err_size, "bad hex in '%s': %s", key, inner);
    return -1;
  }
  return 0;
}

int kc_json_get_hex_exact(const kc_json *v, const char *key, uint8_t *out, size_t len, char *err,
                          size_t err_size) {
  const char *hex = kc_json_get_string(v, key);
  if (!hex) {
    snprintf(err, err_size, "missing string '%s'", key);
    return -1;
  }
  return kc_hex_decode_exact(hex, out, len, key, err, err_size);
}
