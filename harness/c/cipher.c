/*
 * What every description shares: its implementations as kc_impl_view rows
 * and the block ciphers' key buffers; see cipher.h.
 */
#include "cipher.h"

#include <stdlib.h>
#include <string.h>

const kc_impl_view *kc_view_find(const kc_view_list *l, const char *name, int emulated) {
  for (size_t i = 0; i < l->n; i++)
    if (!!l->v[i].emulated == !!emulated && strcmp(l->v[i].name, name) == 0) return &l->v[i];
  return NULL;
}

int kc_view_named(const kc_view_list *l, const char *name) {
  return kc_view_find(l, name, 0) || kc_view_find(l, name, 1);
}

kc_avail kc_view_runs(const kc_impl_view *v) {
  if (v->cpu_supported && !v->cpu_supported()) return KC_UNAVAILABLE;
  return v->emulated ? KC_EMULATED : KC_NATIVE;
}

kc_avail kc_view_avail(const kc_impl_view *v) {
  kc_avail a = kc_view_runs(v);
  return a == KC_NATIVE && kc_target_disabled(v->target) ? KC_UNAVAILABLE : a;
}

const kc_impl_view *kc_view_of(const kc_view_list *l, const void *impl) {
  for (size_t i = 0; impl && i < l->n; i++)
    if (l->v[i].impl == impl) return &l->v[i];
  return NULL;
}

void kc_view_print_names(FILE *f, const kc_view_list *l) {
  for (size_t i = 0; i < l->n; i++)
    fprintf(f, " %s%s", l->v[i].name, l->v[i].emulated ? "(emulated)" : "");
}

const void *kc_desc_reference(const kc_desc *d) { return d->find("reference", "scalar", 0); }

unsigned kc_block_largest_batch(const kc_desc *d, const kc_view_list *impls, int variant) {
  unsigned most = 1;
  for (size_t i = 0; i < impls->n; i++) {
    unsigned b = d->block->batch(impls->v[i].impl, variant);
    if (b > most) most = b;
  }
  return most;
}

void *kc_block_new_key(const kc_desc *d) {
  void *ks = kc_alloc_aligned(d->block->key_size, 64);
  if (!ks) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  memset(ks, 0, d->block->key_size);
  return ks;
}

void kc_block_free_key(const kc_desc *d, void *ks) {
  d->block->wipe_key(ks);
  kc_free_aligned(ks);
}
