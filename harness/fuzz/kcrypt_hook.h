/*
 * Force-included (-include) into harness/c/kcrypt.c for fuzz_kcrypt, with
 * -Dmain=kcrypt_main and -D_DEFAULT_SOURCE on the command line (the feature
 * macro kcrypt.c defines itself, needed before this <stdio.h>).  kcrypt's
 * main becomes a function the fuzz target calls once per input, and its
 * stdio streams become the target's:
 *   stderr  a stream the target reads back, so that libFuzzer's and the
 *           sanitizers' own stderr (fd 2) stays untouched;
 *   stdout  a fresh stream on a duplicate of fd 1 (the target's memfd) for
 *           each call, since kcrypt closes stdout when it is done with it
 *           (fclose, to report a failed write): closing it closes only the
 *           duplicate, and the target's next call gets a new one; printf is
 *           fprintf to it.
 * kcrypt.c itself is compiled as it is: no line of it changes, and what it
 * writes, to fd 1 directly and through stdout, lands in order on the same
 * file.
 */
#ifndef KC_FUZZ_KCRYPT_HOOK_H
#define KC_FUZZ_KCRYPT_HOOK_H
#include <stdio.h>
extern FILE *kc_fuzz_stderr, *kc_fuzz_stdout;
int kc_fuzz_fclose(FILE *f);
#undef stderr
#define stderr kc_fuzz_stderr
#undef stdout
#define stdout kc_fuzz_stdout
#define printf(...) fprintf(kc_fuzz_stdout, __VA_ARGS__)
#define fclose(f) kc_fuzz_fclose(f)
#endif
