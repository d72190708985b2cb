"""The mode layer (generated/src/kc_modes.h): its counter blocks, the AVX2
path for 128- and 256-bit blocks against the scalar one, across the carries
out of every limb and out of the whole counter; and CTR in pieces, which must
equal one call and take the same fast kernel entries."""

import pytest

from conftest import run_generated_c

COMPARE = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kc_modes.h"
#define BYTES (LIMBS * 8)
int main(void)
{
    static uint8_t simd[300 * BYTES], scalar[300 * BYTES];
    int mismatches = 0, carries = 0, top_carries = 0;
    srand(1);
    for (int t = 0; t < 20000; t++) {
        uint8_t iv[BYTES];
        for (int i = 0; i < BYTES; i++)
            iv[i] = (uint8_t)rand();
        if (t % 3 == 0)
            memset(iv + BYTES - 8, 0xff, (size_t)(8 - t % 5)); /* the low limb a few blocks from its carry */
        if (t % 5 == 0)
            memset(iv + 8, 0xff, BYTES - 16);                  /* the middle limbs all ones (if any) */
        if (t % 7 == 0)
            memset(iv, 0xff, BYTES);                           /* the whole counter wraps around */
        const size_t n = (size_t)(rand() % 300);
        kc_counter a, b;
        kc_counter_load(&a, iv, BYTES);
        b = a;
        const uint64_t low_limb_1 = a.limb[1], top = a.limb[LIMBS - 1];
        kc_counter_blocks_avx2(&a, simd, n, LIMBS);
        kc_counter_blocks_of(&b, scalar, n, LIMBS);
        carries += b.limb[1] != low_limb_1; /* the low limb carried within these n blocks */
        top_carries += b.limb[LIMBS - 1] != top;
        mismatches += memcmp(simd, scalar, BYTES * n) != 0 || memcmp(a.limb, b.limb, sizeof a.limb) != 0;
    }
    printf("%d %d %d\n", mismatches, carries, top_carries);
    return 0;
}
"""


@pytest.mark.parametrize("limbs", [2, 4])
def test_avx2_counter_blocks_match_the_scalar_ones(tmp_path, limbs):
    out = run_generated_c(tmp_path, f"#define LIMBS {limbs}\n" + COMPARE)
    mismatches, carries, top_carries = map(int, out.split())
    assert mismatches == 0
    assert carries > 3000     # a sixth of the cases carry out of the low limb
    assert top_carries > 500  # and the carry reaches the top limb: through every middle limb when there are four


STREAM = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kc_modes.h"
#define BB 16
#define BATCH 8
/* A toy block cipher, E(x) = x ^ K, with every optional entry of
 * kc_block_cipher, counting the blocks that go through each. */
static const uint8_t K[BB] = {0x5c, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
static size_t crypt_blocks, xor_blocks, ctr_blocks;
static void toy_crypt(const void *b, int enc, const uint8_t *in, uint8_t *out, size_t n)
{
    (void)b, (void)enc;
    crypt_blocks += n;
    for (size_t i = 0; i < n * BB; i++) out[i] = in[i] ^ K[i % BB];
}
static void toy_encrypt_xor(const void *b, const uint8_t *in, const uint8_t *src, uint8_t *out, size_t n)
{
    (void)b;
    xor_blocks += n;
    for (size_t i = 0; i < n * BB; i++) out[i] = in[i] ^ K[i % BB] ^ src[i];
}
static void toy_ctr_xor(const void *b, const uint8_t *counters, const uint8_t *src, uint8_t *out, size_t n)
{
    (void)b;
    if (n % BATCH || n > KC_CTR_GROUP_BLOCKS) abort();
    ctr_blocks += n;
    uint8_t blocks[KC_CTR_GROUP_BLOCKS * BB];
    kc_counter v;
    kc_counter_load(&v, counters, BB);
    kc_counter_blocks_of(&v, blocks, n, 2);
    for (size_t i = 0; i < n * BB; i++) out[i] = blocks[i] ^ K[i % BB] ^ src[i];
}
int main(void)
{
    static uint8_t scratch[(4 * BATCH + 1) * BB], msg[40000], one[40000], pieces[40000];
    const kc_block_cipher c = {toy_crypt, NULL, BB, scratch, 4 * BATCH, toy_encrypt_xor, NULL, toy_ctr_xor, BATCH};
    uint8_t iv[BB];
    int mismatches = 0;
    size_t worst_crypt = 0, worst_xor = 0, fast = 0, total = 0;
    srand(3);
    for (int t = 0; t < 300; t++) {
        const size_t len = (size_t)(rand() % 40000);
        for (size_t i = 0; i < len; i++) msg[i] = (uint8_t)rand();
        for (int i = 0; i < BB; i++) iv[i] = t % 4 ? (uint8_t)rand() : 0xff;
        kc_ctr_crypt(&c, iv, msg, one, len);
        uint8_t counter[BB], keystream[BB];
        size_t used, npieces = 0;
        const kc_ctr_stream s = {counter, keystream, &used};
        kc_ctr_start(&s, iv, BB);
        crypt_blocks = xor_blocks = ctr_blocks = 0;
        for (size_t at = 0; at < len; npieces++) {
            size_t piece = (size_t)(rand() % 3 == 0 ? rand() % 40 : rand() % 9000);
            if (piece > len - at) piece = len - at;
            kc_ctr_update(&c, &s, msg + at, pieces + at, piece);
            at += piece;
        }
        mismatches += memcmp(one, pieces, len) != 0;
        /* per piece at most one block begun (through crypt) and less than a batch through encrypt_xor */
        if (crypt_blocks > npieces) worst_crypt = crypt_blocks - npieces > worst_crypt ? crypt_blocks - npieces : worst_crypt;
        if (xor_blocks > npieces * (BATCH - 1)) worst_xor++;
        fast += ctr_blocks, total += len / BB;
    }
    printf("%d %zu %zu %zu %zu\n", mismatches, worst_crypt, worst_xor, fast, total);
    return 0;
}
"""


def test_ctr_in_pieces_takes_the_fast_paths(tmp_path):
    """A message in random pieces through kc_ctr_update equals kc_ctr_crypt
    over the whole of it (a toy cipher E(x) = x ^ K with every kernel entry),
    and the whole blocks inside the pieces go through ctr_xor: per piece at
    most one block through crypt (the block it ends inside) and less than a
    batch through encrypt_xor."""
    mismatches, worst_crypt, worst_xor, fast, total = map(int, run_generated_c(tmp_path, STREAM).split())
    assert mismatches == 0
    assert worst_crypt == 0 and worst_xor == 0
    assert fast > 0.9 * total
