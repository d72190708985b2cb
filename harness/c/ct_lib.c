/*
 * ctcheck's library: the plan, the phases' bookkeeping, and the check of
 * every block cipher; see ctcheck.h and ctcheck.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctcheck.h"
#include "kc_targets.h"

/* Memcheck's client requests, or nothing where valgrind's header is missing
 * (a cross build: ctcheck itself runs on x86-64 hosts only). */
#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define KC_HAVE_MEMCHECK 1
#endif
#endif
#ifndef KC_HAVE_MEMCHECK
#define VALGRIND_COUNT_ERRORS 0
#define RUNNING_ON_VALGRIND 0
#define VALGRIND_MAKE_MEM_UNDEFINED(p, len) ((void)(p), (void)(len))
#define VALGRIND_MAKE_MEM_DEFINED(p, len) ((void)(p), (void)(len))
#define VALGRIND_SET_VBITS(p, vbits, len) ((void)(p), (void)(vbits), (void)(len))
#endif

/* How valgrind 3.19 runs a target's kernel (the plan's HOW; docs/verification.md,
 * "Constant time"), and whether it cannot at all (the SIMDe build is checked
 * instead): the target manifest's verdicts (generated/include/kc_targets.h, from
 * gen/backends/cpu_features.py). */
static const char *how(const char *target, int emulated) {
  const kc_target_info *t = kc_target_find(target);
  return emulated                                ? "simde"
         : t && t->valgrind == KC_VALGRIND_SPLIT ? "native-split-vaes"
                                                 : "native";
}

static int needs_simde(const char *target) {
  const kc_target_info *t = kc_target_find(target);
  return t != NULL && !t->valgrind_ok;
}

void ct_plan_line(const char *cipher, const char *name, int emulated, const char *how,
                  int leak_expected) {
  printf("%s_%s %d %s %s\n", cipher, name, emulated, how, leak_expected ? "leak" : "clean");
}

int ct_always_supported(void) { return 1; }

unsigned long ct_errors_so_far(void) { return (unsigned long)VALGRIND_COUNT_ERRORS; }

void ct_secret(const void *p, size_t len) { VALGRIND_MAKE_MEM_UNDEFINED(p, len); }

void ct_public(const void *p, size_t len) { VALGRIND_MAKE_MEM_DEFINED(p, len); }

void ct_set_vbits(const void *p, const uint8_t *vbits, size_t len) {
  VALGRIND_SET_VBITS(p, vbits, len);
}

int ct_running(void) { return RUNNING_ON_VALGRIND; }

void ct_plan_impls(const kc_desc *d) {
  const char *cipher = d->name;
  kc_view_list list, *l = &list;
  d->views(l);
  for (size_t i = 0; i < l->n; i++) {
    const kc_impl_view *v = &l->v[i];
    if (v->emulated != needs_simde(v->target)) {
      /* A native GFNI/AVX-512 kernel: covered by its emulated twin, if any. */
      if (!v->emulated && !kc_view_find(l, v->name, 1)) ct_plan_line(cipher, v->name, 0, "none", 0);
      continue;
    }
    ct_plan_line(cipher, v->name, v->emulated, how(v->target, v->emulated),
                 strcmp(v->strategy, "reference") == 0);
  }
}

int ct_open_unit(const kc_desc *d, const char *name, int emulated, kc_impl_view *out) {
  kc_view_list l;
  d->views(&l);
  const kc_impl_view *v = kc_view_find(&l, name, emulated);
  if (!v) {
    fprintf(stderr, "ctcheck: no %s %s kernel named %s\n", emulated ? "emulated" : "native",
            d->name, name);
    return -1;
  }
  *out = *v;
  printf("ctcheck: %s %s (%s, checked %s)%s\n", d->name, v->name,
         v->emulated ? "SIMDe build" : "native build", how(v->target, v->emulated),
         RUNNING_ON_VALGRIND ? "" : " -- NOT under valgrind: no check");
  return 0;
}

int ct_phase_done(const char *label, unsigned long before, const char *detail, int ok,
                  unsigned long *leaks) {
  unsigned long n = ct_errors_so_far() - before;
  *leaks += n;
  printf("  %-15s %4lu memcheck error(s)%s%s, output %s\n", label, n, detail ? ", " : "",
         detail ? detail : "", ok ? "matches the reference" : "WRONG");
  return !ok;
}

int ct_unit_done(const char *cipher, const char *name, unsigned long leaks, int wrong) {
  printf("ctcheck: %s %s: %lu memcheck error(s) in total%s\n", cipher, name, leaks,
         wrong ? "; WRONG OUTPUT" : "");
  return wrong ? 3 : 0;
}

/* Every phase of one variant.  Returns 1 on a wrong output. */
static int check_variant(const kc_desc *d, const void *impl, const void *ref, const kc_variant *v,
                         unsigned long *leaks) {
  const kc_block_api *b = d->block;
  size_t bb = v->block_bytes, len_blocks = (b->batch(impl, v->id) + 3) * bb;
  size_t len_ctr = len_blocks + 7, len_cbc_enc = 3 * bb;
  if (d->n_variants > 1) printf(" %s:\n", v->name);
  /* Secret inputs, random but fixed; the expected outputs are computed with
   * the reference kernel while everything is still defined. */
  uint8_t key[KC_BLOCK_MAX_BYTES], iv_bytes[KC_BLOCK_MAX_BYTES], iv[KC_BLOCK_MAX_BYTES];
  uint8_t *msg = malloc(len_ctr), *in = malloc(len_ctr), *out = malloc(len_ctr);
  uint8_t *expect = malloc(len_ctr);
  void *ref_key = kc_block_new_key(d), *secret_key = kc_block_new_key(d);
  if (!msg || !in || !out || !expect) exit(2);
  kc_rng rng;
  kc_rng_seed(&rng, 0x5eC2e7 + (uint64_t)v->id);
  kc_rng_bytes(&rng, key, sizeof key);
  kc_rng_bytes(&rng, iv_bytes, sizeof iv_bytes);
  kc_rng_bytes(&rng, msg, len_ctr);
  int rc = b->set_key(ref_key, v->id, key);

  /* Key set-up on an undefined (secret) key. */
  ct_secret(key, sizeof key);
  unsigned long before = ct_errors_so_far();
  rc |= b->set_key(secret_key, v->id, key);
  ct_public(&rc, sizeof rc);
  int wrong = ct_phase_done("set_key", before, NULL, rc == 0, leaks);

  for (size_t m = 0; m < KC_N_BLOCK_OPS; m++) {
    const kc_block_op *op = &KC_BLOCK_OPS[m];
    size_t len = op->mode == KC_MODE_CTR                  ? len_ctr
                 : op->mode == KC_MODE_CBC && op->encrypt ? len_cbc_enc
                                                          : len_blocks;
    int rc_ref = b->crypt(ref, op->mode, op->encrypt, ref_key, iv_bytes, msg, expect, len);
    /* Fresh secret copies of the message and the IV. */
    memcpy(in, msg, len);
    memcpy(iv, iv_bytes, sizeof iv);
    ct_secret(in, len);
    ct_secret(iv, sizeof iv);
    before = ct_errors_so_far();
    rc = b->crypt(impl, op->mode, op->encrypt, secret_key, iv, in, out, len);
    /* Declassify the outputs before looking at them. */
    ct_public(out, len);
    ct_public(&rc, sizeof rc);
    char detail[32];
    snprintf(detail, sizeof detail, "%zu bytes", len);
    wrong |= ct_phase_done(op->name, before, detail,
                           rc == 0 && rc_ref == 0 && memcmp(out, expect, len) == 0, leaks);
  }
  if (d->ct->extra) wrong |= d->ct->extra(impl, ref, v, leaks);
  free(msg);
  free(in);
  free(out);
  free(expect);
  kc_block_free_key(d, ref_key);
  kc_block_free_key(d, secret_key);
  return wrong;
}

int ct_block_check(const kc_desc *d, const char *name, int emulated) {
  kc_impl_view found;
  const void *ref = kc_desc_reference(d);
  if (ct_open_unit(d, name, emulated, &found) != 0 || !ref) return 2;
  void *impl = d->block->copy_impl(found.impl, ct_always_supported);
  if (!impl) return 2;
  unsigned long leaks = 0;
  int wrong = 0;
  for (size_t k = 0; k < d->n_variants; k++)
    wrong |= check_variant(d, impl, ref, &d->variants[k], &leaks);
  free(impl);
  return ct_unit_done(d->name, found.name, leaks, wrong);
}
