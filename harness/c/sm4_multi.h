/*
 * SM4's many-stream calls (sm4_crypt_multi) in the harness (sm4_multi.c):
 * verify's checks, bench's cell, ctcheck's phase, hooked into SM4's
 * description (cipher_sm4.c, sm4_modes' hooks).
 */
#ifndef KC_SM4_MULTI_H
#define KC_SM4_MULTI_H

#include "bench.h"
#include "ctcheck.h"
#include "sm4.h"
#include "verify.h"

/* bench's mode: CBC encryption of 16 streams per call, each its own key and IV. */
#define SM4_MULTI_MODE "cbc-enc-x16"

/* sm4_crypt_multi on `impl` (where it has the multi-key form): 1 to 33
 * streams in every mode, lengths up to 6 blocks (CTR any), misaligned and
 * in-place buffers, each stream against the reference.  Returns the failed
 * cases' count. */
int sm4_multi_check(const sm4_impl *impl, uint64_t seed, verify_section *s);
/* sm4_crypt_multi's errors: bad mode or direction, a kernel without the
 * form, a partial block; no stream is a no-op. */
void sm4_multi_api(verify_section *s);
/* bench: the cbc-enc-x16 cell of a kernel with the multi-key form. */
int sm4_multi_add_kernel(bench_set *set, const bench_select *sel, const bench_block_io *io,
                         const kc_impl_view *v);
/* ctcheck: 3 streams x 3 blocks of CBC encryption, keys, IVs and messages secret. */
int sm4_multi_ct(const sm4_impl *impl, unsigned long *leaks);

#endif /* KC_SM4_MULTI_H */
