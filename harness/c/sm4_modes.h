/*
 * The checks of SM4's GCM, CCM, XTS, CMAC and CBC-MAC (verify_sm4_modes.c,
 * ctcheck_sm4_modes.c), hooked into SM4's description (cipher_sm4.c), and
 * the reference they compare with: gf128_ref.c over the scalar reference
 * kernel's block.
 */
#ifndef KC_SM4_MODES_H
#define KC_SM4_MODES_H

#include "ctcheck.h"
#include "gf128_ref.h"
#include "sm4.h"
#include "verify.h"

/* The scalar reference kernel's block on an sm4_key: gf128_ref's cipher. */
static inline void sm4_ref_block(const void *key, int encrypt, const uint8_t in[16],
                                 uint8_t out[16]) {
  sm4_reference_scalar_impl.crypt_blocks(key, encrypt ? SM4_ENCRYPT : SM4_DECRYPT, in, out, 1);
}

/* verify's "api" hook: the reference on the published mode vectors. */
void sm4_modes_api(const vb_cipher *variants, const kc_view_list *impls, uint64_t seed,
                   verify_section *s);
/* verify's per-implementation hook: the mode vectors, the argument errors,
 * and the differential cases against the reference. */
void sm4_modes_impl(const vb_cipher *c, const void *impl, const verify_run *r, verify_section *s);
/* ctcheck's phases of the modes on one kernel (ct_hooks.extra). */
int sm4_modes_ct(const void *impl, const void *ref, const kc_variant *v, unsigned long *leaks);

#endif /* KC_SM4_MODES_H */
