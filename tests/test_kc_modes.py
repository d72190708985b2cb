"""The mode layer's counter blocks (generated/src/kc_modes.h): the AVX2 path
for 128-bit blocks against the scalar one, across the carries out of the low
limb and out of the whole counter."""

from conftest import run_generated_c

COMPARE = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kc_modes.h"
int main(void)
{
    static uint8_t simd[300 * 16], scalar[300 * 16];
    int mismatches = 0, carries = 0;
    srand(1);
    for (int t = 0; t < 20000; t++) {
        uint8_t iv[16];
        for (int i = 0; i < 16; i++)
            iv[i] = (uint8_t)rand();
        if (t % 3 == 0)
            memset(iv + 8, 0xff, (size_t)(8 - t % 5)); /* the low limb a few blocks from its carry */
        if (t % 7 == 0)
            memset(iv, 0xff, 16);                      /* the whole counter wraps around */
        const size_t n = (size_t)(rand() % 300);
        kc_counter a, b;
        kc_counter_load(&a, iv, 16);
        b = a;
        const uint64_t high = a.limb[1];
        kc_counter_blocks128_avx2(&a, simd, n);
        kc_counter_blocks_of(&b, scalar, n, 2);
        carries += b.limb[1] != high; /* the low limb carried within these n blocks */
        mismatches += memcmp(simd, scalar, 16 * n) != 0 || memcmp(a.limb, b.limb, sizeof a.limb) != 0;
    }
    printf("%d %d\n", mismatches, carries);
    return 0;
}
"""


def test_avx2_counter_blocks_match_the_scalar_ones(tmp_path):
    mismatches, carries = map(int, run_generated_c(tmp_path, COMPARE).split())
    assert mismatches == 0
    assert carries > 3000  # a sixth of the cases carry into the high limb
