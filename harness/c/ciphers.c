/*
 * The ciphers of the harness, in the order every tool runs them: a new
 * cipher is a line here beside its description (cipher_<name>.c).
 */
#include "cipher.h"

extern const kc_desc kc_sm4, kc_zuc, kc_ublock;

const kc_desc *const KC_CIPHERS[] = {&kc_sm4, &kc_zuc, &kc_ublock};
const size_t KC_N_CIPHERS = sizeof KC_CIPHERS / sizeof KC_CIPHERS[0];
