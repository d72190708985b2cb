/*
 * ctcheck's library (ct_lib.c): the plan, ctcheck's part of a description
 * (ct_hooks), the helpers the checks share, and the check of every block
 * cipher.  The technique: docs/verification.md; the verdicts: ctcheck.mk.
 */
#ifndef KC_CTCHECK_H
#define KC_CTCHECK_H

#include "cipher.h"

/* Prints one plan line: "<cipher>_<name> EMULATED HOW EXPECT", EXPECT "leak"
 * for a positive control, else "clean". */
void ct_plan_line(const char *cipher, const char *name, int emulated, const char *how,
                  int leak_expected);

/* Under valgrind, CPUID reports what valgrind emulates, so a kernel built
 * for split VAES (or SIMDe) may look unsupported; the check runs it
 * regardless (an implementation's copy with this as its cpu_supported). */
int ct_always_supported(void);

/* Errors memcheck has reported so far (0 when not under valgrind). */
unsigned long ct_errors_so_far(void);

/* Memcheck's client requests: secret (undefined) and public (defined)
 * bytes; no-ops where valgrind's header is missing (cross builds). */
void ct_secret(const void *p, size_t len);
void ct_public(const void *p, size_t len);
/* Sets memcheck's validity bits of len bytes (a 1 bit: undefined). */
void ct_set_vbits(const void *p, const uint8_t *vbits, size_t len);
int ct_running(void);

/* Plan lines for every implementation of a cipher (registration order):
 * the native kernels valgrind executes and the emulated builds of the
 * targets it does not; a native GFNI/AVX-512 kernel without an emulated twin
 * gets HOW "none".  The `reference` strategy is the positive control. */
void ct_plan_impls(const kc_desc *d);

/* Finds the kernel a unit names among a cipher's implementations (the
 * emulated builds registered: ctcheck is linked with them) and prints the
 * unit's first line ("ctcheck: <cipher> <name> (native build, checked
 * native)", and whether valgrind is running).  Returns 0 and fills *out, or
 * -1 after a message on stderr. */
int ct_open_unit(const kc_desc *d, const char *name, int emulated, kc_impl_view *out);

/* Ends a phase begun when ct_errors_so_far() was `before`: prints
 * "  LABEL  N memcheck error(s)[, DETAIL], output matches the reference" (or
 * WRONG when !ok), adds N to *leaks.  Returns 1 if the output was wrong. */
int ct_phase_done(const char *label, unsigned long before, const char *detail, int ok,
                  unsigned long *leaks);

/* Prints the unit's last line; returns its exit status (0, or 3 if wrong). */
int ct_unit_done(const char *cipher, const char *name, unsigned long leaks, int wrong);

typedef struct ct_hooks {
  /* Checks the kernel `name` (without the cipher prefix): 0 when the
   * outputs were right, 3 on a wrong output, 2 on an unknown kernel.
   * ct_block_check for a block cipher. */
  int (*check)(const kc_desc *d, const char *name, int emulated);
  /* More plan lines (units of its own), or NULL. */
  void (*plan)(const kc_desc *d);
  /* Block ciphers, optional: more phases of one variant after the modes
   * (uBlock: its key sets, multi-key streams).  Returns 1 on a wrong output. */
  int (*extra)(const void *impl, const void *ref, const kc_variant *v, unsigned long *leaks);
} ct_hooks;

/* A block cipher's kernel, per variant, with undefined (secret) inputs: the
 * key set-up on a secret key, then each mode (ECB and CBC in both
 * directions, CTR) through the mode driver, on one whole batch of the
 * kernel and three blocks (the tail path), CTR a partial block more, serial
 * CBC encryption three blocks; then the hooks' phases. */
int ct_block_check(const kc_desc *d, const char *name, int emulated);

#endif /* KC_CTCHECK_H */
