"""The mode layer's counter blocks (generated/src/kc_modes.h): the AVX2 path
for 128- and 256-bit blocks against the scalar one, across the carries out of
every limb and out of the whole counter."""

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
