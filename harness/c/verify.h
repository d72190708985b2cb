/*
 * verify's inside: the bookkeeping every cipher's tests share (sections with
 * PASS/FAIL lines and the final count, the loop over implementations), and
 * the entry point of each cipher's tests (verify_sm4.c, verify_zuc.c,
 * verify_ublock.c).  verify.c holds main and the options.
 */
#ifndef KC_VERIFY_H
#define KC_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "impls.h"

#define VERIFY_MAX_DETAILS 5 /* failure details printed per section */

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

/* Counts a passed check in sec->checks, or records the failure. */
#define VERIFY_CHECK(sec, cond, ...)      \
  do {                                    \
    if (cond)                             \
      (sec)->checks++;                    \
    else                                  \
      verify_failure((sec), __VA_ARGS__); \
  } while (0)

/* "SKIP LABEL: reason", not counted. */
void verify_skip(const char *label, const char *reason);

/* Index of the first differing byte, or -1 if equal. */
long verify_first_diff(const uint8_t *a, const uint8_t *b, size_t len);

double verify_now(void);

/* Which implementations run the iterated vectors (the 1,000,000-fold SM4 and
 * uBlock ones), which are serial work: every one; the native builds (not the
 * SIMDe ones, which run them un-iterated); or only the kernel the library
 * runs serial work on (<cipher>_impl_serial). */
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

/* Random differential cases: --random N, else `quick` or `full`. */
uint64_t verify_random_cases(const verify_options *o, uint64_t full, uint64_t quick);

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

/* A library's lookup: <cipher>_impl_find(strategy, target, emulated). */
typedef const void *(*verify_find_fn)(const char *strategy, const char *target, int emulated);

/* What the tests of every implementation of a cipher share. */
typedef struct verify_run {
  const void *ref;  /* the cipher's reference_scalar */
  size_t n_random;  /* random differential cases per implementation */
  uint64_t seed;
  verify_iterated iterated; /* --iterated */
  const void *serial;        /* <cipher>_impl_serial(), else _best() */
} verify_run;

/* Starts a cipher's tests: its implementations into impls (the emulated
 * builds registered), and run (the reference, found with find; the random
 * cases: --random, else `quick` with --quick, else `full`; the seed; which
 * implementations run the iterated vectors, `serial` being the library's
 * kernel for serial work, or its best when it has none).
 * Returns 0, or -1 after "verify: error: no <cipher> reference_scalar ...". */
int verify_start(const char *cipher, kc_views_fn views, verify_find_fn find, const void *serial,
                 const verify_options *o, uint64_t full, uint64_t quick, kc_view_list *impls,
                 verify_run *run);

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

/* Finds and parses the vector file `file` (e.g. "sm4.json", see vectors.h),
 * writing its path to path.  Returns the tree (kc_json_free it), or NULL
 * after printing "verify: error: ..." to stderr. */
struct kc_json *verify_load_vectors(const char *argv0, const char *file, char *path,
                                    size_t path_size);

/* The lookups every library offers, over its implementations l: `best`
 * runs natively (and is not the reference when anything else does);
 * find("reference", "scalar", 0) finds the reference and an unknown target
 * nothing; every implementation is named <strategy>_<target> and is what
 * find(strategy, target, emulated) returns.  Messages name the cipher. */
void verify_check_lookups(const char *cipher, const kc_view_list *l, verify_find_fn find,
                          const void *best, verify_section *s);

/* Runs the cipher's tests.  Returns 0 when they ran (pass or fail is in the
 * counts), 2 when they could not (vectors missing or malformed). */
int verify_sm4(const verify_options *o);
int verify_zuc(const verify_options *o);
int verify_ublock(const verify_options *o);

#endif /* KC_VERIFY_H */
