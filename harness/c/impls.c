/*
 * Every cipher's implementations as kc_impl_view rows; see impls.h.
 */
#include "impls.h"

#include <stdio.h>
#include <string.h>

#include "sm4.h"
#include "ublock.h"
#include "zuc.h"

/* The block ciphers' own mode enums have kc_block_mode's values, so the
 * harness passes (sm4_mode)m and (ublock_mode)m. */
_Static_assert(SM4_MODE_ECB == (int)KC_MODE_ECB && SM4_MODE_CBC == (int)KC_MODE_CBC &&
                   SM4_MODE_CTR == (int)KC_MODE_CTR,
               "sm4_mode and kc_block_mode differ");
_Static_assert(UBLOCK_MODE_ECB == (int)KC_MODE_ECB && UBLOCK_MODE_CBC == (int)KC_MODE_CBC &&
                   UBLOCK_MODE_CTR == (int)KC_MODE_CTR,
               "ublock_mode and kc_block_mode differ");

/* The SIMDe builds of the x86 kernels (libkcrypt_emulated.a) are linked on
 * x86-64 hosts only; elsewhere the Makefile defines KC_NO_EMULATED and the
 * lists hold the native implementations alone. */
#ifdef KC_NO_EMULATED
#define REGISTER_EMULATED(cipher) ((void)0)
#else
#define REGISTER_EMULATED(cipher) cipher##_register_emulated()
#endif

/* Copies the shared fields of `n` implementation pointers `all`, of any
 * cipher's impl type (every one has name, strategy, target, emulated and
 * cpu_supported), into the list. */
#define FILL_VIEWS(list, all, n)                                                          \
  do {                                                                                    \
    (list)->n = (n) < KC_MAX_IMPLS ? (n) : KC_MAX_IMPLS;                                  \
    for (size_t i_ = 0; i_ < (list)->n; i_++)                                             \
      (list)->v[i_] = (kc_impl_view){(all)[i_]->name,     (all)[i_]->strategy,            \
                                     (all)[i_]->target,   (all)[i_]->emulated,            \
                                     (all)[i_]->cpu_supported, (all)[i_]};                \
  } while (0)

void kc_views_sm4(kc_view_list *out) {
  REGISTER_EMULATED(sm4);
  size_t n;
  const sm4_impl *const *all = sm4_impls(&n);
  FILL_VIEWS(out, all, n);
}

void kc_views_zuc(kc_view_list *out) {
  REGISTER_EMULATED(zuc);
  size_t n;
  const zuc_impl *const *all = zuc_impls(&n);
  FILL_VIEWS(out, all, n);
}

void kc_views_ublock(kc_view_list *out) {
  REGISTER_EMULATED(ublock);
  size_t n;
  const ublock_impl *const *all = ublock_impls(&n);
  FILL_VIEWS(out, all, n);
}

const kc_impl_view *kc_view_find(const kc_view_list *l, const char *name, int emulated) {
  for (size_t i = 0; i < l->n; i++)
    if (!!l->v[i].emulated == !!emulated && strcmp(l->v[i].name, name) == 0) return &l->v[i];
  return NULL;
}

int kc_view_named(const kc_view_list *l, const char *name) {
  return kc_view_find(l, name, 0) || kc_view_find(l, name, 1);
}

kc_avail kc_view_runs(const kc_impl_view *v) { return kc_impl_avail(v->emulated, v->cpu_supported); }

void kc_view_print_names(FILE *f, const kc_view_list *l) {
  for (size_t i = 0; i < l->n; i++)
    fprintf(f, " %s%s", l->v[i].name, l->v[i].emulated ? "(emulated)" : "");
}
