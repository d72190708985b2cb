/*
 * The cores' argument checks at the edges, for tests/test_core_limits.py:
 * lengths near SIZE_MAX (bit counts whose byte count would wrap, byte counts
 * no buffer can have) and enum arguments out of range, through the public
 * headers alone.  Each of these once crashed, read past a buffer or ran the
 * wrong kernel; a separate process per case, so a crash fails one case only.
 *
 *   core_limits CASE    prints "<status> <untouched>": what the call
 *                       returned, and 1 if it wrote nothing to its output
 *
 * The statuses are printed as numbers, not compared with the headers'
 * names, so that the program builds against the headers before and after
 * a code is added.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm4.h"
#include "ublock.h"
#include "zuc.h"

#define SENTINEL 0xa5
#define BUF_BYTES 256

static uint8_t in[BUF_BYTES], out[BUF_BYTES], iv[32], key_bytes[32];

/* The case's status, and whether `out` still holds the sentinel everywhere. */
static int report(int status)
{
    int untouched = 1;
    for (size_t i = 0; i < sizeof out; i++)
        untouched &= out[i] == SENTINEL;
    printf("%d %d\n", status, untouched);
    return 0;
}

/* ---- ZUC ----------------------------------------------------------------------- */

static int zuc_encrypt_size_max(void)
{
    return report(zuc_encrypt(ZUC_128, key_bytes, 16, iv, 16, in, out, SIZE_MAX));
}

static int zuc_encrypt_null_size_max(void)
{
    return report(zuc_encrypt(ZUC_256, key_bytes, 32, iv, 25, NULL, NULL, SIZE_MAX - 3));
}

static int zuc_encrypt_above_ptrdiff_max(void)
{
    return report(zuc_encrypt(ZUC_128, key_bytes, 16, iv, 16, in, out, (size_t)PTRDIFF_MAX + 1));
}

static int zuc_encrypt_lanes_size_max(void)
{
    const uint8_t *keys[2] = {key_bytes, key_bytes}, *ivs[2] = {iv, iv}, *ins[2] = {in, in};
    uint8_t *outs[2] = {out, out + 128};
    const size_t bits[2] = {64, SIZE_MAX};
    return report(zuc_encrypt_lanes(NULL, ZUC_128, 2, keys, ivs, 16, ins, outs, bits));
}

/* eea_final with `bits` and buffers `src`, `dst`; then the state still
 * finishes a message: the refused call left it as it was. */
static int zuc_eea_final_refused(const uint8_t *src, uint8_t *dst, size_t bits)
{
    zuc_eea_state st;
    if (zuc_eea_init(&st, NULL, ZUC_128, key_bytes, 16, iv, 16) != ZUC_OK)
        return 1;
    const int status = zuc_eea_final(&st, src, dst, bits);
    if (zuc_eea_final(&st, in, in, 8) != ZUC_OK)
        return 1;
    return report(status);
}

static int zuc_eea_final_null_size_max(void)
{
    return zuc_eea_final_refused(NULL, NULL, SIZE_MAX - 1);
}

static int zuc_eea_final_size_max(void)
{
    return zuc_eea_final_refused(in, out, SIZE_MAX);
}

static int zuc_eea_update_size_max(void)
{
    zuc_eea_state st;
    if (zuc_eea_init(&st, NULL, ZUC_256, key_bytes, 32, iv, 23) != ZUC_OK)
        return 1;
    const int status = zuc_eea_update(&st, in, out, SIZE_MAX);
    zuc_eea_reset(&st);
    return report(status);
}

/* 2^32 bits of a NULL message: one bit past the MAC's limit. */
static int zuc_mac_null_over_limit(void)
{
    return report(zuc_mac(ZUC_128, key_bytes, 16, iv, 16, NULL, (size_t)1 << 32, 32, out));
}

static int zuc_mac_lanes_null_over_limit(void)
{
    const uint8_t *keys[1] = {key_bytes}, *ivs[1] = {iv}, *msgs[1] = {NULL};
    uint8_t *tags[1] = {out};
    const size_t bits[1] = {(size_t)1 << 32};
    return report(zuc_mac_lanes(NULL, ZUC_MAC_COMPARE, ZUC_256, 1, keys, ivs, 25, msgs, bits, 64, tags));
}

static int zuc_mac_update_null_over_limit(void)
{
    zuc_mac_state st;
    if (zuc_mac_init(&st, NULL, ZUC_128, key_bytes, 16, iv, 16, 32) != ZUC_OK)
        return 1;
    const int status = zuc_mac_update(&st, NULL, ((size_t)1 << 29) + 1);
    zuc_mac_reset(&st);
    return report(status);
}

static int zuc_mac_final_null_over_limit(void)
{
    zuc_mac_state st;
    if (zuc_mac_init(&st, NULL, ZUC_128, key_bytes, 16, iv, 16, 32) != ZUC_OK)
        return 1;
    const int status = zuc_mac_final(&st, NULL, (size_t)1 << 32, out);
    zuc_mac_reset(&st);
    return report(status);
}

/* ---- SM4 ----------------------------------------------------------------------- */

static sm4_key sm4k;

static int sm4_ecb_bad_direction(void)
{
    return report(sm4_crypt(NULL, SM4_MODE_ECB, (sm4_direction)2, &sm4k, NULL, in, out, 64));
}

static int sm4_cbc_bad_direction(void)
{
    return report(sm4_crypt(NULL, SM4_MODE_CBC, (sm4_direction)-1, &sm4k, iv, in, out, 64));
}

static int sm4_ctr_bad_direction(void)
{
    return report(sm4_crypt(NULL, SM4_MODE_CTR, (sm4_direction)2, &sm4k, iv, in, out, 64));
}

static int sm4_bad_mode(void)
{
    return report(sm4_crypt(NULL, (sm4_mode)3, SM4_ENCRYPT, &sm4k, iv, in, out, 64));
}

/* A refused init leaves the state refused: the update after it is SM4_ERR_STATE. */
static int sm4_cbc_init_bad_direction(void)
{
    sm4_cbc_state st;
    const int status = sm4_cbc_init(&st, NULL, (sm4_direction)2, &sm4k, iv);
    if (sm4_cbc_update(&st, in, out, 16) != SM4_ERR_STATE)
        return 1;
    return report(status);
}

static int sm4_ecb_size_max(void)
{
    return report(sm4_ecb_encrypt(&sm4k, in, out, SIZE_MAX - 15));
}

static int sm4_ctr_size_max(void)
{
    return report(sm4_ctr_crypt(&sm4k, iv, in, out, SIZE_MAX));
}

static int sm4_ctr_update_size_max(void)
{
    sm4_ctr_state st;
    if (sm4_ctr_init(&st, NULL, &sm4k, iv) != SM4_OK)
        return 1;
    const int status = sm4_ctr_update(&st, in, out, SIZE_MAX);
    sm4_ctr_reset(&st);
    return report(status);
}

static int sm4_cbc_update_size_max(void)
{
    sm4_cbc_state st;
    if (sm4_cbc_init(&st, NULL, SM4_DECRYPT, &sm4k, iv) != SM4_OK)
        return 1;
    const int status = sm4_cbc_update(&st, in, out, SIZE_MAX - 15);
    sm4_cbc_reset(&st);
    return report(status);
}

/* ---- uBlock --------------------------------------------------------------------- */

static ublock_key *ubk;

static int ublock_ecb_bad_direction(void)
{
    return report(ublock_crypt(NULL, UBLOCK_MODE_ECB, (ublock_direction)2, ubk, NULL, in, out, 64));
}

static int ublock_cbc_bad_direction(void)
{
    return report(ublock_crypt(NULL, UBLOCK_MODE_CBC, (ublock_direction)-1, ubk, iv, in, out, 64));
}

static int ublock_bad_mode(void)
{
    return report(ublock_crypt(NULL, (ublock_mode)3, UBLOCK_ENCRYPT, ubk, iv, in, out, 64));
}

static int ublock_multi_bad_direction(void)
{
    const ublock_key *keys[1] = {ubk};
    const uint8_t *ivs[1] = {iv}, *ins[1] = {in};
    uint8_t *outs[1] = {out};
    return report(ublock_crypt_multi(NULL, UBLOCK_MODE_ECB, (ublock_direction)2, 1, keys, ivs, ins, outs, 64));
}

static int ublock_multi_bad_mode(void)
{
    const ublock_key *keys[1] = {ubk};
    const uint8_t *ivs[1] = {iv}, *ins[1] = {in};
    uint8_t *outs[1] = {out};
    return report(ublock_crypt_multi(NULL, (ublock_mode)7, UBLOCK_ENCRYPT, 1, keys, ivs, ins, outs, 64));
}

/* A kernel's multi-key entry with no stream at all reads no key (it once
 * read keys[0]): NULL arrays, on every kernel that has the entry. */
static int ublock_multi_kernel_no_streams(void)
{
    size_t n;
    const ublock_impl *const *impls = ublock_impls(&n);
    for (size_t i = 0; i < n; i++)
        if (impls[i]->crypt_blocks_multi && impls[i]->cpu_supported())
            impls[i]->crypt_blocks_multi(NULL, 0, UBLOCK_ENCRYPT, NULL, NULL, NULL, 1);
    return report(0);
}

static int ublock_cbc_init_bad_direction(void)
{
    ublock_cbc_state st;
    const int status = ublock_cbc_init(&st, NULL, (ublock_direction)2, ubk, iv);
    if (ublock_cbc_update(&st, in, out, 16) != UBLOCK_ERR_STATE)
        return 1;
    return report(status);
}

static int ublock_ecb_size_max(void)
{
    return report(ublock_ecb_decrypt(ubk, in, out, SIZE_MAX - 15));
}

static int ublock_ctr_size_max(void)
{
    return report(ublock_ctr_crypt(ubk, iv, in, out, SIZE_MAX));
}

static int ublock_multi_ctr_size_max(void)
{
    const ublock_key *keys[1] = {ubk};
    const uint8_t *ivs[1] = {iv}, *ins[1] = {in};
    uint8_t *outs[1] = {out};
    return report(ublock_crypt_multi(NULL, UBLOCK_MODE_CTR, UBLOCK_ENCRYPT, 1, keys, ivs, ins, outs, SIZE_MAX));
}

static int ublock_ctr_update_size_max(void)
{
    ublock_ctr_state st;
    if (ublock_ctr_init(&st, NULL, ubk, iv) != UBLOCK_OK)
        return 1;
    const int status = ublock_ctr_update(&st, in, out, SIZE_MAX);
    ublock_ctr_reset(&st);
    return report(status);
}

static int ublock_cbc_update_size_max(void)
{
    ublock_cbc_state st;
    if (ublock_cbc_init(&st, NULL, UBLOCK_ENCRYPT, ubk, iv) != UBLOCK_OK)
        return 1;
    const int status = ublock_cbc_update(&st, in, out, SIZE_MAX - 15);
    ublock_cbc_reset(&st);
    return report(status);
}

static const struct {
    const char *name;
    int (*run)(void);
} cases[] = {
#define CASE(name) {#name, name}
    CASE(zuc_encrypt_size_max),
    CASE(zuc_encrypt_null_size_max),
    CASE(zuc_encrypt_above_ptrdiff_max),
    CASE(zuc_encrypt_lanes_size_max),
    CASE(zuc_eea_final_null_size_max),
    CASE(zuc_eea_final_size_max),
    CASE(zuc_eea_update_size_max),
    CASE(zuc_mac_null_over_limit),
    CASE(zuc_mac_lanes_null_over_limit),
    CASE(zuc_mac_update_null_over_limit),
    CASE(zuc_mac_final_null_over_limit),
    CASE(sm4_ecb_bad_direction),
    CASE(sm4_cbc_bad_direction),
    CASE(sm4_ctr_bad_direction),
    CASE(sm4_bad_mode),
    CASE(sm4_cbc_init_bad_direction),
    CASE(sm4_ecb_size_max),
    CASE(sm4_ctr_size_max),
    CASE(sm4_ctr_update_size_max),
    CASE(sm4_cbc_update_size_max),
    CASE(ublock_ecb_bad_direction),
    CASE(ublock_cbc_bad_direction),
    CASE(ublock_bad_mode),
    CASE(ublock_multi_bad_direction),
    CASE(ublock_multi_bad_mode),
    CASE(ublock_multi_kernel_no_streams),
    CASE(ublock_cbc_init_bad_direction),
    CASE(ublock_ecb_size_max),
    CASE(ublock_ctr_size_max),
    CASE(ublock_multi_ctr_size_max),
    CASE(ublock_ctr_update_size_max),
    CASE(ublock_cbc_update_size_max),
#undef CASE
};

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    memset(out, SENTINEL, sizeof out);
    sm4_set_key(&sm4k, key_bytes);
    ubk = malloc(sizeof *ubk); /* large: every strategy's key form */
    if (ubk == NULL || ublock_set_key(ubk, UBLOCK_128_128, key_bytes) != UBLOCK_OK)
        return 1;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (strcmp(argv[1], cases[i].name) == 0)
            return cases[i].run();
    fprintf(stderr, "core_limits: unknown case '%s'\n", argv[1]);
    return 2;
}
