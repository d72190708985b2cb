/*
 * Files of the repository that the harness reads, and a small JSON reader for the vector
 * files (tests/vectors/<cipher>.json, each naming its sources: tests/vectors/README.md):
 * objects, arrays, strings, integers, true/false/null.  No dependencies.
 */
#ifndef KC_HARNESS_VECTORS_H
#define KC_HARNESS_VECTORS_H

#include <stddef.h>
#include <stdint.h>

/* Finds <A>/<rel> (e.g. "harness/report.py") for A the folder of the running executable or
 * one above it (build/verify -> <repo>/build -> <repo>), so that it works from any current
 * directory, else the current directory or one above it.  argv0 is the program's argv[0]
 * (used when /proc/self/exe is not readable).  Fills buf with the path; returns 0 or -1. */
int kc_repo_file(const char *argv0, const char *rel, char *buf, size_t size);

/* The folder holding vector file `file` (e.g. "sm4.json"): $KC_VECTORS_DIR if set (and then
 * nowhere else), else where kc_repo_file finds tests/vectors/<file>.  Writes the folder to
 * buf and returns 0, or returns -1 with a message in err. */
int kc_vectors_dir(const char *argv0, const char *file, char *buf, size_t size, char *err,
                   size_t err_size);

typedef enum {
  KC_JSON_NULL,
  KC_JSON_BOOL,
  KC_JSON_INT,
  KC_JSON_STRING,
  KC_JSON_ARRAY,
  KC_JSON_OBJECT
} kc_json_type;

/* One JSON value.  Arrays and objects keep their items in order. */
typedef struct kc_json {
  kc_json_type type;
  int64_t integer;        /* KC_JSON_INT, and KC_JSON_BOOL (0 or 1) */
  char *string;           /* KC_JSON_STRING: NUL-terminated, UTF-8 */
  size_t count;           /* KC_JSON_ARRAY / KC_JSON_OBJECT: number of items */
  struct kc_json *items;  /* the items */
  char *key;              /* an object's member: its name */
} kc_json;

/* Parses `len` bytes of text.  Returns a tree to free with kc_json_free, or
 * NULL with a message like "line 3, column 7: expected ':'" in err. */
kc_json *kc_json_parse(const char *text, size_t len, char *err, size_t err_size);

/* Reads and parses a file; errors name the file. */
kc_json *kc_json_load(const char *path, char *err, size_t err_size);

/* Frees a tree that kc_json_parse or kc_json_load returned. */
void kc_json_free(kc_json *v);

/* Member `key` of an object, or NULL (also when v is not an object). */
const kc_json *kc_json_get(const kc_json *v, const char *key);

/* Member `key` as a string, or NULL if absent or not a string. */
const char *kc_json_get_string(const kc_json *v, const char *key);

/* Member `key`, a hex string, decoded into a malloc'ed buffer.  Returns 0, or
 * -1 with a message naming the key ("missing string 'iv'", "bad hex in
 * 'key': ..."). */
int kc_json_get_hex(const kc_json *v, const char *key, uint8_t **out, size_t *len, char *err,
                    size_t err_size);

/* Member `key`, a hex string of exactly `len` bytes, into out.  Returns 0,
 * or -1 with a message naming the key. */
int kc_json_get_hex_exact(const kc_json *v, const char *key, uint8_t *out, size_t len, char *err,
                          size_t err_size);

#endif /* KC_HARNESS_VECTORS_H */
