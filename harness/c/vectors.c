/*
 * Finding a cipher's compiled vectors, and the repository's files; see vectors.h.
 */
#define _XOPEN_SOURCE 700 /* realpath, readlink under -std=c11 */

#include "vectors.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

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

const kc_vectors *kc_vectors_find(const char *cipher) {
  for (size_t i = 0; i < KC_N_VECTOR_FILES; i++)
    if (strcmp(KC_VECTOR_FILES[i].cipher, cipher) == 0) return &KC_VECTOR_FILES[i];
  fprintf(stderr, "verify: error: no %s.json among the vector files compiled in (%s)\n", cipher,
          KC_N_VECTOR_FILES ? KC_VECTOR_FILES[0].path : "none");
  return NULL;
}
