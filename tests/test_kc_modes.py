"""The mode layer (generated/src/kc_modes.h): its counter blocks in memory
(portable C, natively and cross-built and run under qemu-aarch64) for 128-
and 256-bit blocks against Python's integers, across the carries out of
every limb and out of the whole counter; and CTR in pieces, which must equal
one call and take the same fast kernel entries.  The kernels' counter forms
(gen/ir/keystream.py) are tested in test_ir_keystream.py and through the
cores in test_sm4_c_core.py and test_ublock_c_core.py."""

import shutil
import subprocess

import pytest

from conftest import ROOT, run_generated_c

CROSS_CC = "aarch64-linux-gnu-gcc"
QEMU = ["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu", "-cpu", "max"]

def run_aarch64_c(folder, program):
    """`program` (C text on generated/'s headers) cross-built strictly for
    AArch64 with kc_cpu.c and run under qemu-aarch64: its standard output."""
    for tool in (CROSS_CC, QEMU[0]):
        assert shutil.which(tool), f"{tool} is not installed (make deps installs it)"
    (folder / "main.c").write_text(program)
    exe = folder / "main"
    generated = ROOT / "generated"
    subprocess.run([CROSS_CC, "-static", "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror",
                    f"-I{generated / 'include'}", f"-I{generated / 'src'}", str(folder / "main.c"),
                    str(generated / "src" / "kc_cpu.c"), "-o", str(exe)], check=True, capture_output=True, text=True)
    return subprocess.run([*QEMU, str(exe)], check=True, capture_output=True, text=True).stdout


# Counters (as integers) where the carries happen within a few blocks, and
# the block counts tried from each: every count from none to nine, and 31.
EDGE_COUNTS = list(range(0, 10)) + [31]


def edge_counters(bits):
    top = 1 << bits
    return [0, 1, 0x0123456789abcdef0011223344556677 % top, (1 << 64) - 3, (1 << 64) - 1,
            (1 << 128) - 2 if bits > 128 else top - 5, top - 1, top - 2,
            ((1 << (bits - 64)) - 1) << 64 | ((1 << 64) - 4)]  # every limb above the low one all ones


DISPATCH = r"""
#include <stdio.h>
#include "kc_modes.h"
static const uint8_t ivs[][BYTES] = {@IVS@};
static const size_t counts[] = {@COUNTS@};
int main(void)
{
    static uint8_t blocks[64 * BYTES];
    for (size_t v = 0; v < sizeof ivs / sizeof ivs[0]; v++)
        for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
            kc_counter ctr;
            uint8_t next[BYTES];
            kc_counter_load(&ctr, ivs[v], BYTES);
            kc_counter_blocks(&ctr, blocks, counts[k]);
            kc_counter_store(ctr.limb, next, ctr.limbs);
            for (size_t i = 0; i < counts[k] * BYTES; i++) printf("%02x", blocks[i]);
            printf(" ");
            for (size_t i = 0; i < BYTES; i++) printf("%02x", next[i]);
            printf("\n");
        }
    return 0;
}
"""


@pytest.mark.parametrize("machine", ["native", "aarch64"])
@pytest.mark.parametrize("limbs", [2, 4])
def test_counter_blocks_are_the_big_endian_sums(tmp_path, limbs, machine):
    """kc_counter_blocks (the counter blocks of the batches too small for a
    kernel's counter form, portable C), natively and on AArch64 (qemu): block
    j is the IV plus j modulo 2^(block bits), big-endian, and the counter
    after the call is the IV plus the count, as Python's integers say."""
    nbytes, bits = 8 * limbs, 64 * limbs
    ivs = edge_counters(bits)
    c_ivs = ", ".join("{" + ", ".join(str(b) for b in v.to_bytes(nbytes, "big")) + "}" for v in ivs)
    program = (f"#define BYTES {nbytes}\n"
               + DISPATCH.replace("@IVS@", c_ivs).replace("@COUNTS@", ", ".join(map(str, EDGE_COUNTS))))
    run = run_aarch64_c if machine == "aarch64" else run_generated_c
    lines = run(tmp_path, program).splitlines()
    expected = []
    for v in ivs:
        for n in EDGE_COUNTS:
            blocks = b"".join(((v + j) % (1 << bits)).to_bytes(nbytes, "big") for j in range(n))
            expected.append(f"{blocks.hex()} {((v + n) % (1 << bits)).to_bytes(nbytes, 'big').hex()}")
    assert lines == expected


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
    const kc_block_cipher c = {toy_crypt, NULL, BB, scratch, 4 * BATCH, toy_encrypt_xor, NULL, toy_ctr_xor, BATCH, NULL};
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
