/*
 * Every cipher's implementations as rows that the harness programs share:
 * kcrypt chooses and lists them, verify and ctcheck loop over them, bench
 * takes its subjects from them.  A row holds the fields that choosing,
 * listing and looping need, whatever the cipher, and points back to the
 * cipher's own description (sm4_impl, zuc_impl, ublock_impl).
 */
#ifndef KC_HARNESS_IMPLS_H
#define KC_HARNESS_IMPLS_H

#include <stddef.h>

#include "common.h"

typedef struct kc_impl_view {
  const char *name;     /* "<strategy>_<target>" */
  const char *strategy;
  const char *target;
  int emulated;         /* 1: the SIMDe build */
  int (*cpu_supported)(void);
  const void *impl;     /* the cipher's own struct */
} kc_impl_view;

#define KC_MAX_IMPLS 256

/* A cipher's implementations in the library's registration order (native,
 * then emulated). */
typedef struct kc_view_list {
  kc_impl_view v[KC_MAX_IMPLS];
  size_t n;
} kc_view_list;

/* Fills a list with one cipher's implementations, the SIMDe-emulated builds
 * registered first (so they are included). */
typedef void (*kc_views_fn)(kc_view_list *out);
void kc_views_sm4(kc_view_list *out);
void kc_views_zuc(kc_view_list *out);
void kc_views_ublock(kc_view_list *out);

/* The implementation named `name` with this emulated flag, or NULL. */
const kc_impl_view *kc_view_find(const kc_view_list *l, const char *name, int emulated);

/* 1 if some implementation (native or emulated) is named `name`. */
int kc_view_named(const kc_view_list *l, const char *name);

/* Where `v` runs on this CPU, from its own fields (see kc_impl_avail). */
kc_avail kc_view_runs(const kc_impl_view *v);

/* Appends " NAME" (" NAME(emulated)" for a SIMDe build) per implementation
 * to f, e.g. after "no implementation named ...; there are:". */
void kc_view_print_names(FILE *f, const kc_view_list *l);

#endif /* KC_HARNESS_IMPLS_H */
