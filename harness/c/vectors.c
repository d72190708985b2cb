/*
 * Locating the repository's files and a small JSON reader; see vectors.h.
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

/* ---- Locating files ---- */

/* Looks for <A>/<rel> for A = `start` (an absolute folder, "" for the root) and each folder
 * above it; fills buf with the path found. */
static int search_upwards(const char *start, const char *rel, char *buf, size_t size) {
  char dir[PATH_MAX];
  snprintf(dir, sizeof dir, "%s", strcmp(start, "/") == 0 ? "" : start); /* no "//" below */
  for (;;) {
    if ((size_t)snprintf(buf, size, "%s/%s", dir, rel) < size && access(buf, R_OK) == 0)
      return 0;
    char *slash = strrchr(dir, '/');
    if (!slash) return -1;
    *slash = '\0'; /* "/a/b" -> "/a" -> "" (the root) */
  }
}

int kc_repo_file(const char *argv0, const char *rel, char *buf, size_t size) {
  char dir[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
  if (n > 0)
    dir[n] = '\0';
  else if (!argv0 || !realpath(argv0, dir))
    dir[0] = '\0';
  char *slash = strrchr(dir, '/');
  if (slash) {
    *slash = '\0'; /* the executable's folder */
    if (search_upwards(dir, rel, buf, size) == 0) return 0;
  }
  return getcwd(dir, sizeof dir) ? search_upwards(dir, rel, buf, size) : -1;
}

int kc_vectors_dir(const char *argv0, const char *file, char *buf, size_t size, char *err,
                   size_t err_size) {
  const char *env = getenv("KC_VECTORS_DIR");
  if (env && *env) { /* and nowhere else: loading then names the file it lacks */
    snprintf(buf, size, "%s", env);
    return 0;
  }
  char rel[PATH_MAX];
  snprintf(rel, sizeof rel, "tests/vectors/%s", file);
  if (kc_repo_file(argv0, rel, buf, size) == 0) {
    buf[strlen(buf) - strlen(file) - 1] = '\0'; /* the folder */
    return 0;
  }
  snprintf(err, err_size,
           "cannot find %s above this program's folder or the current directory; "
           "run from a checkout of the repository or set KC_VECTORS_DIR",
           rel);
  return -1;
}

/* ---- JSON ---- */

/* Nesting deeper than this is refused: recursion on hostile input stays bounded. */
#define MAX_DEPTH 64

/* The text is read where the caller has it; strings are decoded into `strings`, a copy of
 * it that the tree owns, each at its literal's place: decoding never lengthens a literal,
 * so a string and its NUL fit there, and the tree needs one allocation for all its text. */
typedef struct parser {
  const char *text;
  size_t len, pos;
  char *strings;
  int depth;
  char *err;
  size_t err_size;
} parser;

/* Writes "line L, column C: what" for the current position (1-based) and returns -1. Each
 * failure is reported once, where it is found; the callers only pass the -1 on. */
static int fail(parser *p, const char *what) {
  size_t line = 1, col = 1;
  for (size_t i = 0; i < p->pos; i++) {
    col = p->text[i] == '\n' ? 1 : col + 1;
    line += p->text[i] == '\n';
  }
  snprintf(p->err, p->err_size, "line %zu, column %zu: %s", line, col, what);
  return -1;
}

/* The character at pos, or -1 at the end. */
static int at(const parser *p) { return p->pos < p->len ? (unsigned char)p->text[p->pos] : -1; }

/* The next character after white space, which stays consumed, or -1 at the end. */
static int next(parser *p) {
  while (at(p) == ' ' || at(p) == '\t' || at(p) == '\n' || at(p) == '\r') p->pos++;
  return at(p);
}

/* Decodes \uXXXX (pos at the 'u') to UTF-8 at s + *n: one to three bytes, fewer than the
 * escape's six.  Surrogates are kept as they are: the vector files hold no text outside
 * the BMP.  Leaves pos at the last digit. */
static int put_unicode(parser *p, char *s, size_t *n) {
  unsigned cp = 0;
  for (int i = 0; i < 4; i++) {
    p->pos++;
    int d = kc_hex_digit(at(p));
    if (d < 0) return fail(p, "bad \\u escape");
    cp = cp << 4 | (unsigned)d;
  }
  int tail = cp < 0x80 ? 0 : cp < 0x800 ? 1 : 2; /* continuation bytes */
  s[(*n)++] = (char)(tail == 0 ? cp : (tail == 1 ? 0xC0 : 0xE0) | cp >> (6 * tail));
  for (int k = tail - 1; k >= 0; k--) s[(*n)++] = (char)(0x80 | (cp >> (6 * k) & 0x3F));
  return 0;
}

/* Parses a string literal (pos at the opening quote); *out points into p->strings. */
static int parse_string(parser *p, char **out) {
  static const char escapes[] = "\"\\/bfnrt", meanings[] = "\"\\/\b\f\n\r\t";
  char *s = p->strings + p->pos + 1;
  size_t n = 0;
  for (p->pos++;; p->pos++) {
    int c = at(p);
    const char *e = NULL;
    if (c < 0x20) return fail(p, c < 0 ? "unterminated string" : "control character in string");
    if (c == '"') {
      p->pos++;
      s[n] = '\0';
      *out = s;
      return 0;
    }
    if (c != '\\') {
      s[n++] = (char)c;
      continue;
    }
    p->pos++;
    c = at(p);
    if (c == 'u') {
      if (put_unicode(p, s, &n) != 0) return -1;
    } else if (c > 0 && (e = strchr(escapes, c))) {
      s[n++] = meanings[e - escapes];
    } else {
      return fail(p, "bad escape in string");
    }
  }
}

static int parse_value(parser *p, kc_json *v);

/* Parses [ ... ] or { ... } (pos at the opening bracket).  Each item is counted before it is
 * parsed, so that kc_json_free releases a half-parsed one. */
static int parse_container(parser *p, kc_json *v, int is_object) {
  const char close = is_object ? '}' : ']';
  v->type = is_object ? KC_JSON_OBJECT : KC_JSON_ARRAY;
  if (++p->depth > MAX_DEPTH) return fail(p, "nesting too deep");
  p->pos++;
  if (next(p) == close) {
    p->pos++;
    p->depth--;
    return 0;
  }
  for (;;) {
    if ((v->count & (v->count - 1)) == 0) { /* 0, 1, 2, 4, ...: room for twice the count */
      kc_json *items = realloc(v->items, (v->count ? 2 * v->count : 1) * sizeof *items);
      if (!items) return fail(p, "out of memory");
      v->items = items;
    }
    kc_json *item = memset(&v->items[v->count++], 0, sizeof *item);
    if (is_object) {
      if (next(p) != '"') return fail(p, "expected a member name in quotes");
      if (parse_string(p, &item->key) != 0) return -1;
      if (next(p) != ':') return fail(p, "expected ':'");
      p->pos++;
    }
    if (parse_value(p, item) != 0) return -1;
    int c = next(p);
    if (c != ',' && c != close)
      return fail(p, is_object ? "expected ',' or '}'" : "expected ',' or ']'");
    p->pos++;
    if (c == close) {
      p->depth--;
      return 0;
    }
  }
}

/* Parses an integer: optional '-', digits; fractions and exponents refused. */
static int parse_int(parser *p, kc_json *v) {
  int negative = at(p) == '-';
  uint64_t mag = 0;
  p->pos += negative;
  if (at(p) < '0' || at(p) > '9') return fail(p, "expected a digit");
  for (int c; (c = at(p)) >= '0' && c <= '9'; p->pos++) {
    if (mag > (UINT64_C(9223372036854775807) - (unsigned)(c - '0')) / 10)
      return fail(p, "integer too large");
    mag = mag * 10 + (unsigned)(c - '0');
  }
  if (at(p) == '.' || at(p) == 'e' || at(p) == 'E') return fail(p, "only integers are supported");
  v->type = KC_JSON_INT;
  v->integer = negative ? -(int64_t)mag : (int64_t)mag;
  return 0;
}

/* 1 (and consumed) if `word` is next. */
static int take(parser *p, const char *word) {
  size_t n = strlen(word);
  if (p->len - p->pos < n || memcmp(p->text + p->pos, word, n) != 0) return 0;
  p->pos += n;
  return 1;
}

static int parse_value(parser *p, kc_json *v) {
  int c = next(p);
  if (c == '{' || c == '[') return parse_container(p, v, c == '{');
  if (c == '"') {
    v->type = KC_JSON_STRING;
    return parse_string(p, &v->string);
  }
  if (c == '-' || (c >= '0' && c <= '9')) return parse_int(p, v);
  if (c < 0) return fail(p, "unexpected end of input");
  v->type = KC_JSON_BOOL;
  if (take(p, "true")) {
    v->integer = 1;
    return 0;
  }
  if (take(p, "false")) return 0;
  v->type = KC_JSON_NULL;
  return take(p, "null") ? 0 : fail(p, "unexpected character");
}

/* Frees the item lists under v (the strings live in the root's block). */
static void free_items(kc_json *v) {
  for (size_t i = 0; i < v->count; i++) free_items(&v->items[i]);
  free(v->items);
}

void kc_json_free(kc_json *v) {
  if (!v) return;
  free_items(v);
  free(v);
}

kc_json *kc_json_parse(const char *text, size_t len, char *err, size_t err_size) {
  /* The root, followed by the copy that holds the decoded strings. */
  kc_json *root = calloc(1, sizeof *root + len + 1);
  if (!root) {
    snprintf(err, err_size, "out of memory");
    return NULL;
  }
  parser p = {text, len, 0, (char *)(root + 1), 0, err, err_size};
  int rc = parse_value(&p, root);
  if (rc == 0 && next(&p) >= 0) rc = fail(&p, "trailing characters after the value");
  if (rc == 0) return root;
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
    if (strcmp(v->items[i].key, key) == 0) return &v->items[i];
  return NULL;
}

const char *kc_json_get_string(const kc_json *v, const char *key) {
  const kc_json *m = kc_json_get(v, key);
  return m && m->type == KC_JSON_STRING ? m->string : NULL;
}

/* Member `key` as a string, or NULL with "missing string 'key'" in err. */
static const char *need_string(const kc_json *v, const char *key, char *err, size_t err_size) {
  const char *s = kc_json_get_string(v, key);
  if (!s) snprintf(err, err_size, "missing string '%s'", key);
  return s;
}

int kc_json_get_hex(const kc_json *v, const char *key, uint8_t **out, size_t *len, char *err,
                    size_t err_size) {
  const char *s = need_string(v, key, err, err_size);
  char inner[128];
  if (!s) return -1;
  if (kc_hex_decode(s, out, len, inner, sizeof inner) == 0) return 0;
  snprintf(err, err_size, "bad hex in '%s': %s", key, inner);
  return -1;
}

int kc_json_get_hex_exact(const kc_json *v, const char *key, uint8_t *out, size_t len, char *err,
                          size_t err_size) {
  const char *s = need_string(v, key, err, err_size);
  return s ? kc_hex_decode_exact(s, out, len, key, err, err_size) : -1;
}
