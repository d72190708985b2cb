/*
 * ctcheck's inside: how a kernel is run under valgrind (the plan's HOW), and
 * each cipher's part (ctcheck_sm4.c, ctcheck_zuc.c, ctcheck_ublock.c), with
 * the helpers they share.  See ctcheck.c for the technique and ctcheck.mk for
 * the verdicts.
 */
#ifndef KC_CTCHECK_H
#define KC_CTCHECK_H

#include "impls.h"

/*
 * Valgrind 3.19 executes SSSE3, AVX2, 128-bit AES-NI and PCLMULQDQ, but not
 * GFNI, AVX-512, or the 256-bit VAES/VPCLMULQDQ forms.  So:
 *   - targets using GFNI or AVX-512 are checked in their SIMDe build, compiled
 *     with AVX2 and SSSE3 native: SIMDe lowers gf2p8affine(inv)qb to pshufb
 *     nibble lookups and xors, and 512-bit operations to pairs of 256-bit ones
 *     (branch-free and table-free: see ctcheck.mk for the header audit);
 *   - avx2_vaes is checked natively, in a library built with
 *     -DKC_VALGRIND_SPLIT_VAES, where each 256-bit VAESENCLAST is issued as
 *     two 128-bit AESENCLAST on the two halves (the same data flow);
 *   - everything else is checked natively as built.
 */
typedef enum { HOW_NATIVE, HOW_SPLIT_VAES, HOW_SIMDE } check_how;

const char *ct_how_name(check_how h);
/* 1 if valgrind cannot execute this target's native code. */
int ct_target_needs_simde(const char *target);
check_how ct_how_for(const char *target, int emulated);

/* Prints one plan line per check: UNIT EMULATED HOW EXPECT, where UNIT is
 * "<cipher>_<kernel name>" (e.g. zuc_lanes_avx2_aesni) and EXPECT "leak"
 * for a positive control, else "clean".  Every native kernel whose target
 * valgrind executes, every emulated kernel whose target it does not; a
 * GFNI/AVX-512 kernel with no emulated build gets HOW "none". */
void ct_plan_line(const char *cipher, const char *name, int emulated, const char *how,
                  int leak_expected);

/* Under valgrind, CPUID reports what valgrind emulates, so a kernel built
 * for split VAES (or SIMDe) may look unsupported; the check runs it
 * regardless. */
int ct_always_supported(void);

/* Errors memcheck has reported so far (0 when not under valgrind). */
unsigned long ct_errors_so_far(void);

/* Plan lines for every implementation of a cipher (registration order):
 * the native kernels valgrind executes and the emulated builds of the
 * targets it does not; a native GFNI/AVX-512 kernel without an emulated twin
 * gets HOW "none".  The `reference` strategy is the positive control. */
void ct_plan_impls(const char *cipher, kc_views_fn views);

/* Finds the kernel a unit names among a cipher's implementations (the
 * emulated builds registered: ctcheck is linked with them) and prints the
 * unit's first line ("ctcheck: <cipher> <name> (native build, checked
 * native)", and whether valgrind is running).  Returns 0 and fills *out, or
 * -1 after a message on stderr. */
int ct_open_unit(const char *cipher, kc_views_fn views, const char *name, int emulated,
                 kc_impl_view *out);

/* Ends a phase begun when ct_errors_so_far() was `before`: prints
 * "  LABEL  N memcheck error(s)[, DETAIL], output matches the reference" (or
 * WRONG when !ok), adds N to *leaks.  Returns 1 if the output was wrong. */
int ct_phase_done(const char *label, unsigned long before, const char *detail, int ok,
                  unsigned long *leaks);

/* Prints the unit's last line; returns its exit status (0, or 3 if wrong). */
int ct_unit_done(const char *cipher, const char *name, unsigned long leaks, int wrong);

/* Each cipher: its plan lines, and the check of one kernel (its name
 * without the cipher prefix).  A check returns 0 when the outputs were
 * right, 3 on a wrong output, 2 on an unknown kernel. */
void ct_plan_sm4(void);
void ct_plan_zuc(void);
void ct_plan_ublock(void);
int ct_check_sm4(const char *name, int emulated);
int ct_check_zuc(const char *name, int emulated);
int ct_check_ublock(const char *name, int emulated);

#endif /* KC_CTCHECK_H */
