"""The kernels' batch driver (generated/src/kc_batches.h), with a stand-in
kernel of 4 blocks per pass: every length from 0 to 3 batches and a bit,
in place and not, plain and XOR-fused, against the per-byte result; nothing
written past the output, the tail's padding zero, the tail buffer wiped, and
the fused pass used for every whole batch."""

from conftest import run_generated_c

DRIVE = r"""
#include <stdio.h>
#include <string.h>
#include "kc_batches.h"

#define BLOCK 16
#define BATCH (4 * BLOCK)
#define MAX (3 * BATCH + 3 * BLOCK)

static uint8_t last_pass[BATCH];  /* the input of the latest plain pass */
static int plain_passes, xor_passes;

static uint8_t f(const uint8_t *key, uint8_t x) { return (uint8_t)(x * 5 + key[0]); }

static void pass(const uint8_t *key, const uint8_t *in, uint8_t *out)
{
    memcpy(last_pass, in, BATCH);
    for (int i = 0; i < BATCH; i++)
        out[i] = f(key, in[i]);
    plain_passes++;
}

static void pass_xor(const uint8_t *key, const uint8_t *in, uint8_t *out, const uint8_t *src)
{
    for (int i = 0; i < BATCH; i++)
        out[i] = f(key, in[i]) ^ src[i];
    xor_passes++;
}

static int zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

int main(void)
{
    const uint8_t key[1] = { 0x3c };
    int failures = 0, cases = 0;
    for (size_t bytes = 0; bytes <= MAX; bytes += BLOCK)
        for (int fused = 0; fused < 2; fused++)
            for (int in_place = 0; in_place < 2; in_place++) {
                uint8_t in[MAX + 1], src[MAX], out[MAX + 1], tail[BATCH];
                for (size_t i = 0; i < sizeof in; i++)
                    in[i] = (uint8_t)(i * 7 + 1), src[i % MAX] = (uint8_t)(i * 13 + 5);
                memset(out, 0xee, sizeof out);
                memset(tail, 0xaa, sizeof tail);
                uint8_t *dst = in_place ? in : out;
                uint8_t expect[MAX];
                for (size_t i = 0; i < bytes; i++)
                    expect[i] = (uint8_t)(f(key, in[i]) ^ (fused ? src[i] : 0));
                const uint8_t beyond = dst[bytes];
                plain_passes = xor_passes = 0;
                memset(last_pass, 0xff, sizeof last_pass);
                if (fused)
                    kc_run_batches_xor(pass_xor, pass, key, BATCH, in, src, dst, bytes, tail);
                else
                    kc_run_batches(pass, key, BATCH, in, dst, bytes, tail);
                const size_t whole = bytes / BATCH, rest = bytes % BATCH;
                int ok = memcmp(dst, expect, bytes) == 0 && dst[bytes] == beyond;
                ok &= fused ? xor_passes == (int)whole && plain_passes == (rest != 0)
                            : plain_passes == (int)(whole + (rest != 0));
                if (rest)
                    ok &= zero(last_pass + rest, BATCH - rest) && zero(tail, BATCH);
                else
                    ok &= tail[0] == 0xaa; /* no tail, no pass through the buffer */
                failures += !ok;
                cases++;
            }
    printf("%d %d\n", failures, cases);
    return 0;
}
"""


def test_every_length_through_whole_batches_and_a_padded_wiped_tail(tmp_path):
    failures, cases = map(int, run_generated_c(tmp_path, DRIVE).split())
    assert cases == 4 * (3 * 4 + 3 + 1)
    assert failures == 0
