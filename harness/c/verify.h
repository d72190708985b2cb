/*
 * verify's inside: the bookkeeping every cipher's tests share (sections with
 * PASS/FAIL lines and the final count), and the entry point of each cipher's
 * tests (verify_sm4.c, verify_zuc.c).  verify.c holds main and the options.
 */
#ifndef KC_VERIFY_H
#define KC_VERIFY_H

#include <stddef.h>
#include <stdint.h>

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

/* "SKIP LABEL: reason", not counted. */
void verify_skip(const char *label, const char *reason);

/* Index of the first differing byte, or -1 if equal. */
long verify_first_diff(const uint8_t *a, const uint8_t *b, size_t len);

double verify_now(void);

/* The command line, as every cipher's tests read it. */
typedef struct verify_options {
  const char *argv0;
  const char *only; /* --impl NAME, or NULL */
  uint64_t seed;    /* --seed */
  int quick;        /* --quick */
  int random_given; /* --random N given */
  uint64_t n_random;
} verify_options;

/* Random differential cases: --random N, else `quick` or `full`. */
uint64_t verify_random_cases(const verify_options *o, uint64_t full, uint64_t quick);

/* Names of the implementations (e.g. for --impl NAME): 1 if `name` is one
 * of this cipher's. */
int verify_sm4_has_impl(const char *name);
int verify_zuc_has_impl(const char *name);
/* Appends " NAME" (and "(emulated)") for every implementation to stderr. */
void verify_sm4_list_impls(void);
void verify_zuc_list_impls(void);

/* Runs the cipher's tests.  Returns 0 when they ran (pass or fail is in the
 * counts), 2 when they could not (vectors missing or malformed). */
int verify_sm4(const verify_options *o);
int verify_zuc(const verify_options *o);

#endif /* KC_VERIFY_H */
