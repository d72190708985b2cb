/*
 * verify's library (verify_lib.c): the bookkeeping every cipher's tests
 * share (sections with PASS/FAIL lines and the final count, the loop over
 * implementations), verify's part of a description (verify_hooks), and the
 * tests of every block cipher (verify_block.c).  verify.c holds main and the
 * options and runs each description's tests.
 */
#ifndef KC_VERIFY_H
#define KC_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "cipher.h"
#include "vectors.h"

#define VERIFY_MAX_DETAILS 5 /* failure details printed per section */

/* PASS and FAIL lines so far (verify_report), for the final line. */
extern size_t verify_passed, verify_failed;

/* One section: an implementation, or a shared group of checks. */
typedef struct verify_section {
  size_t vectors;  /* vector checks passed */
  size_t cases;    /* differential cases passed */
  size_t checks;   /* other checks passed */
  size_t failures; /* checks that failed */
  char details[VERIFY_MAX_DETAILS][400];
} verify_section;

/* Records a failure with a printf-style description. */
__attribute__((format(printf, 2, 3))) void verify_failure(verify_section *s, const char *fmt, ...);

/* Prints a section's line and counts it towards the final line:
 *   implementation: "PASS|FAIL LABEL: N vectors, M differential cases"
 *   shared section: "PASS|FAIL LABEL: N checks"
 * with ", K failed checks" and the first failure details on a FAIL. */
void verify_report(const char *label, const verify_section *s, int is_impl);

/* Counts a pass in sec->field (vectors, cases, checks), or records the failure. */
#define VERIFY_COUNT(sec, field, cond, ...) \
  do {                                      \
    if (cond)                               \
      (sec)->field++;                       \
    else                                    \
      verify_failure((sec), __VA_ARGS__);   \
  } while (0)

/* Counts a passed check in sec->checks, or records the failure. */
#define VERIFY_CHECK(sec, cond, ...) VERIFY_COUNT(sec, checks, cond, __VA_ARGS__)

/* Exits (status 2, "verify: out of memory") unless an allocation succeeded. */
void verify_need(int allocated);

/* Index of the first differing byte, or -1 if equal. */
long verify_first_diff(const uint8_t *a, const uint8_t *b, size_t len);

double verify_now(void);

/* One stream of a call under test: its input copied into a guarded buffer
 * `in_off` bytes past an alignment, its output going to another at
 * `out_off` (or over the input when in place), poisoned with 0xCC. */
typedef struct verify_bufs {
  kc_buf in, out;
  uint8_t *dst;        /* where the output goes */
  const uint8_t *data; /* the input as made */
  size_t len, out_len;
  int in_place;
} verify_bufs;

/* Allocates (exits on out of memory) and fills; verify_bufs_fill again
 * before a second call on the same buffers. */
void verify_bufs_place(verify_bufs *b, const uint8_t *data, size_t len, size_t out_len,
                       size_t in_off, size_t out_off, int in_place);
void verify_bufs_fill(verify_bufs *b);
/* The guards of both buffers, and the input unchanged unless in place;
 * failures name `who` (the call).  Returns the number of failures. */
int verify_bufs_check(const verify_bufs *b, const char *who, const char *what, verify_section *s);
void verify_bufs_free(verify_bufs *b);

/* 0 if got equals want, else 1 after a failure "WHAT: differs from WHOM at
 * byte N (got .., want ..)". */
int verify_differs(const uint8_t *got, const uint8_t *want, size_t len, const char *whom,
                   const char *what, verify_section *s);

/* Which implementations run the iterated vectors (--iterated; docs/cli.md):
 * every one, the native builds, or <cipher>_impl_serial's. */
typedef enum { VERIFY_ITERATED_ALL, VERIFY_ITERATED_NATIVE, VERIFY_ITERATED_SERIAL } verify_iterated;

/* The command line, as every cipher's tests read it. */
typedef struct verify_options {
  const char *argv0;
  const char *only; /* --impl NAME, or NULL */
  uint64_t seed;    /* --seed */
  int quick;        /* --quick */
  int random_given; /* --random N given */
  uint64_t n_random;
  verify_iterated iterated; /* --iterated */
} verify_options;

/* Where one implementation's tests are, for progress lines on stderr. */
typedef struct verify_progress {
  const char *label; /* "<prefix><name> (native|emulated)" */
  size_t position, total;
} verify_progress;

/* Prints "verify: [position/total] label: " and the message to stderr. */
__attribute__((format(printf, 2, 3))) void verify_step(const verify_progress *p, const char *fmt,
                                                       ...);

/* On a terminal, "\r  i+1/n" on stderr every `every` items and at the last
 * (then a newline); nothing otherwise. */
void verify_tick(size_t i, size_t n, size_t every);

/* What the tests of every implementation of a cipher share. */
typedef struct verify_run {
  const kc_desc *d;
  const void *ref;  /* the cipher's reference_scalar */
  size_t n_random;  /* random differential cases per implementation */
  uint64_t seed;
  verify_iterated iterated; /* --iterated */
  const void *serial;        /* <cipher>_impl_serial(), else _best() */
} verify_run;

/* Starts a cipher's tests: its implementations into impls (the emulated
 * builds registered), and run (the reference; the random cases: --random,
 * else the hooks' random_quick with --quick, else random_full; the seed;
 * which implementations run the iterated vectors, d->serial() being the
 * library's kernel for serial work).  Returns 0, or -1 after "verify:
 * error: no <cipher> reference_scalar ...". */
int verify_start(const kc_desc *d, const verify_options *o, kc_view_list *impls, verify_run *run);

/* 1 if implementation v runs the iterated vectors in this run. */
int verify_iterates(const verify_run *run, const kc_impl_view *v);

/* The tests of one implementation: fills s (reported by verify_each_impl). */
typedef void (*verify_impl_fn)(const kc_impl_view *v, const verify_progress *p, verify_section *s,
                               const verify_run *run);

/* Runs `check` on every implementation in l, in registration order (or only
 * those named o->only): a SKIP line for one this CPU can run neither natively
 * nor emulated, else its tests, timed, and its PASS/FAIL line, labelled
 * "<prefix><name> (native|emulated)". */
void verify_each_impl(const kc_view_list *l, const verify_options *o, const char *prefix,
                      verify_impl_fn check, const verify_run *run);

/* The lookups every library offers, over its implementations l: `best`
 * runs natively (and is not the reference when anything else does);
 * find("reference", "scalar", 0) finds the reference and an unknown target
 * nothing; every implementation is named <strategy>_<target> and is what
 * find(strategy, target, emulated) returns.  Messages name the cipher. */
void verify_check_lookups(const kc_desc *d, const kc_view_list *l, verify_section *s);

/* One variant of a block cipher as these tests see it: sized so that the
 * systematic cases cross two whole batches of every kernel. */
typedef struct vb_cipher {
  const kc_desc *d;
  const kc_variant *v;
  size_t systematic_blocks; /* ECB and CBC at every whole-block count up to this */
  size_t max_len;           /* longest random case (bytes) */
  int oracle;               /* 1: d->block->oracle runs here */
} vb_cipher;

typedef struct verify_hooks {
  /* All of the cipher's tests (verify_block for a block cipher).  Returns 0
   * when they ran (pass or fail is in the counts), 2 when they could not. */
  int (*run)(const kc_desc *d, const verify_options *o);
  uint64_t random_full, random_quick; /* random differential cases per implementation */
  /* Block ciphers, optional: a section of checks of each vector (vb_vector, vectors.h); */
  const char *vector_section;
  void (*vector_check)(const vb_vector *v, verify_section *s);
  /* more checks of the shared "api" section; */
  void (*api)(const vb_cipher *variants, const kc_view_list *impls, uint64_t seed,
              verify_section *s);
  /* more tests of one implementation on one variant, after its cases. */
  void (*impl_extra)(const vb_cipher *c, const void *impl, const verify_run *r, verify_section *s);
} verify_hooks;

/* Every test of a block cipher: vectors (kc_vectors_find), the hooks' vector
 * section, the "api" section (the oracle on the vectors, lookups,
 * wrappers, length errors of every implementation), then per
 * implementation and variant its vectors and differential cases. */
int verify_block(const kc_desc *d, const verify_options *o);

#endif /* KC_VERIFY_H */
