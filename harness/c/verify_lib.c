/*
 * verify's library: sections, their lines and the final count, the loop over
 * implementations, the lookups; see verify.h.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "verify.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

size_t verify_passed, verify_failed;

void verify_failure(verify_section *s, const char *fmt, ...) {
  if (s->failures < VERIFY_MAX_DETAILS) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->details[s->failures], sizeof s->details[0], fmt, ap);
    va_end(ap);
  }
  s->failures++;
}

void verify_report(const char *label, const verify_section *s, int is_impl) {
  const char *verdict = s->failures ? "FAIL" : "PASS";
  if (is_impl)
    printf("%s %s: %zu vectors, %zu differential cases", verdict, label, s->vectors, s->cases);
  else
    printf("%s %s: %zu checks", verdict, label, s->checks + s->vectors + s->cases);
  if (s->failures) printf(", %zu failed checks", s->failures);
  printf("\n");
  for (size_t i = 0; i < s->failures && i < VERIFY_MAX_DETAILS; i++)
    printf("    %s\n", s->details[i]);
  if (s->failures > VERIFY_MAX_DETAILS)
    printf("    ... and %zu more\n", s->failures - VERIFY_MAX_DETAILS);
  fflush(stdout);
  if (s->failures)
    verify_failed++;
  else
    verify_passed++;
}

void verify_need(int allocated) {
  if (allocated) return;
  fprintf(stderr, "verify: out of memory\n");
  exit(2);
}

long verify_first_diff(const uint8_t *a, const uint8_t *b, size_t len) {
  for (size_t i = 0; i < len; i++)
    if (a[i] != b[i]) return (long)i;
  return -1;
}

void verify_bufs_place(verify_bufs *b, const uint8_t *data, size_t len, size_t out_len,
                       size_t in_off, size_t out_off, int in_place) {
  *b = (verify_bufs){.data = data, .len = len, .out_len = out_len, .in_place = in_place};
  verify_need(kc_buf_alloc(&b->in, len, in_off) == 0 && kc_buf_alloc(&b->out, out_len, out_off) == 0);
  b->dst = in_place ? b->in.ptr : b->out.ptr;
  verify_bufs_fill(b);
}

void verify_bufs_fill(verify_bufs *b) {
  memcpy(b->in.ptr, b->data, b->len);
  memset(b->out.ptr, 0xCC, b->out_len);
}

int verify_bufs_check(const verify_bufs *b, const char *who, const char *what, verify_section *s) {
  int outside = !kc_buf_guards_ok(&b->in) || !kc_buf_guards_ok(&b->out);
  int modified = !b->in_place && verify_first_diff(b->in.ptr, b->data, b->len) >= 0;
  if (outside) verify_failure(s, "%s: %s wrote outside its buffers", what, who);
  if (modified) verify_failure(s, "%s: %s modified its input", what, who);
  return outside + modified;
}

void verify_bufs_free(verify_bufs *b) {
  kc_buf_free(&b->in);
  kc_buf_free(&b->out);
}

int verify_differs(const uint8_t *got, const uint8_t *want, size_t len, const char *whom,
                   const char *what, verify_section *s) {
  long at = verify_first_diff(got, want, len);
  if (at < 0) return 0;
  verify_failure(s, "%s: differs from %s at byte %ld (got %02x, want %02x)", what, whom, at, got[at],
                 want[at]);
  return 1;
}

double verify_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* 1 if something other than the reference runs natively. */
static int simd_runs_natively(const kc_view_list *l) {
  for (size_t i = 0; i < l->n; i++)
    if (strcmp(l->v[i].strategy, "reference") != 0 && kc_view_runs(&l->v[i]) == KC_NATIVE)
      return 1;
  return 0;
}

void verify_check_lookups(const kc_desc *d, const kc_view_list *l, verify_section *s) {
  const char *cipher = d->name;
  const kc_impl_view *b = kc_view_of(l, d->best());
  VERIFY_CHECK(s,
               b && kc_view_runs(b) == KC_NATIVE &&
                   (strcmp(b->strategy, "reference") != 0 || !simd_runs_natively(l)),
               "%s_impl_best() returned %s", cipher, b ? b->name : "NULL");
  const kc_impl_view *ref = kc_view_of(l, kc_desc_reference(d));
  VERIFY_CHECK(s, ref && strcmp(ref->name, "reference_scalar") == 0 &&
                      !d->find(NULL, "no_such_target", 0),
               "%s_impl_find gives wrong answers for reference_scalar / an unknown target", cipher);
  for (size_t i = 0; i < l->n; i++) {
    const kc_impl_view *m = &l->v[i];
    char name[128];
    snprintf(name, sizeof name, "%s_%s", m->strategy, m->target);
    VERIFY_CHECK(s, strcmp(name, m->name) == 0, "%s impl '%s' has strategy '%s' and target '%s'",
                 cipher, m->name, m->strategy, m->target);
    VERIFY_CHECK(s, d->find(m->strategy, m->target, m->emulated) == m->impl,
                 "%s_impl_find(\"%s\", \"%s\", %d) does not return %s", cipher, m->strategy,
                 m->target, m->emulated, m->name);
  }
}

void verify_step(const verify_progress *p, const char *fmt, ...) {
  fprintf(stderr, "verify: [%zu/%zu] %s: ", p->position, p->total, p->label);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
}

void verify_tick(size_t i, size_t n, size_t every) {
  static int tty = -1;
  if (tty < 0) tty = isatty(STDERR_FILENO);
  if (!tty || (i % every != 0 && i + 1 != n)) return;
  fprintf(stderr, "\r  %zu/%zu%s", i + 1, n, i + 1 == n ? "\n" : "");
}

/* 1 if the --impl filter lets v through. */
static int selected(const verify_options *o, const kc_impl_view *v) {
  return !o->only || strcmp(v->name, o->only) == 0;
}

int verify_start(const kc_desc *d, const verify_options *o, kc_view_list *impls, verify_run *run) {
  d->views(impls);
  uint64_t n_random = o->random_given ? o->n_random
                      : o->quick      ? d->verify->random_quick
                                      : d->verify->random_full;
  *run = (verify_run){d, kc_desc_reference(d), (size_t)n_random, o->seed, o->iterated, d->serial()};
  if (run->ref) return 0;
  fprintf(stderr, "verify: error: no %s reference_scalar implementation\n", d->name);
  return -1;
}

void verify_each_impl(const kc_view_list *l, const verify_options *o, const char *prefix,
                      verify_impl_fn check, const verify_run *run) {
  verify_progress p = {NULL, 0, 0};
  for (size_t i = 0; i < l->n; i++)
    if (selected(o, &l->v[i]) && kc_view_runs(&l->v[i]) != KC_UNAVAILABLE) p.total++;
  for (size_t i = 0; i < l->n; i++) {
    const kc_impl_view *v = &l->v[i];
    if (!selected(o, v)) continue;
    kc_avail avail = kc_view_runs(v);
    char label[200];
    if (avail == KC_UNAVAILABLE) {
      snprintf(label, sizeof label, "%s%s", prefix, v->name);
      printf("SKIP %s (unavailable): %s\n", label,
             v->emulated ? "this CPU lacks the host ISA its SIMDe build is compiled for"
                         : "this CPU cannot run it natively");
      continue;
    }
    snprintf(label, sizeof label, "%s%s (%s)", prefix, v->name, kc_avail_name(avail));
    p.label = label;
    p.position++;
    verify_section s = {0};
    double t0 = verify_now();
    check(v, &p, &s, run);
    verify_step(&p, "done in %.1f s", verify_now() - t0);
    verify_report(label, &s, 1);
  }
}

int verify_iterates(const verify_run *run, const kc_impl_view *v) {
  switch (run->iterated) {
    case VERIFY_ITERATED_NATIVE: return !v->emulated;
    case VERIFY_ITERATED_SERIAL: return v->impl == run->serial;
    default: return 1;
  }
}

