/*
 * The generated C runtime (kc_cpu, the cores' modes, key schedules and MAC
 * folds) driven through the public headers alone, for tests/test_aarch64_runtime.py.
 * It is built twice, for x86-64 and for AArch64 (run under qemu-aarch64), and
 * prints what it computes: the test compares the output with the published
 * vectors and the two architectures' outputs with each other.
 *
 *   runtime_check features                        name and 0/1 per kc_cpu feature
 *   runtime_check sm4 ecb|cbc|ctr KEY IV IN       SM4 (reference kernel), output hex
 *   runtime_check zuc-keystream 128|256 KEY IV N  N keystream words, one stream and EEA3 agreeing
 *   runtime_check zuc-mac 128|256 METHOD KEY IV MSG BITS TAG_BITS
 *                                                 the tag hex, or "no-impl"
 *   runtime_check zuc-mac-sweep                   tags of pseudo-random messages by every method
 *   runtime_check ublock VARIANT KEY PLAINTEXT    uBlock ECB (reference kernel), output hex
 *   runtime_check key-forms                       digests of uBlock's expanded keys (every form)
 *   runtime_check modes                           digests of CBC and CTR output, SM4 and uBlock
 *
 * Arguments are hex strings; "-" is an empty one.  Exit status 1 on any
 * error or failed self-check (a round trip, two APIs that must agree).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kc_cpu.h"
#include "sm4.h"
#include "ublock.h"
#include "zuc.h"

#define MAX_BYTES 4096

static void fail(const char *what)
{
    fprintf(stderr, "runtime_check: %s\n", what);
    exit(1);
}

static size_t from_hex(const char *hex, uint8_t *out, size_t cap)
{
    if (strcmp(hex, "-") == 0)
        return 0;
    const size_t len = strlen(hex);
    if (len % 2 || len / 2 > cap)
        fail("bad hex argument");
    for (size_t i = 0; i < len / 2; i++) {
        unsigned byte;
        if (sscanf(hex + 2 * i, "%2x", &byte) != 1)
            fail("bad hex argument");
        out[i] = (uint8_t)byte;
    }
    return len / 2;
}

static void print_hex(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        printf("%02x", p[i]);
    printf("\n");
}

/* FNV-1a, 64 bits: a digest to compare outputs across architectures. */
static uint64_t digest(uint64_t h, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * UINT64_C(0x100000001b3);
    return h;
}
#define DIGEST_START UINT64_C(0xcbf29ce484222325)

/* xorshift64: the same pseudo-random bytes on every architecture. */
static uint64_t rng_state = UINT64_C(0x9e3779b97f4a7c15);
static void random_bytes(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
        p[i] = (uint8_t)(rng_state >> 24);
    }
}

static int features(void)
{
    for (unsigned i = 0; i < KC_CPU_FEATURE_COUNT; i++)
        printf("%s %d\n", kc_cpu_feature_name(1u << i), kc_cpu_has(1u << i));
    return 0;
}

/* ---- SM4 ---------------------------------------------------------------------- */

static const sm4_impl *sm4_reference(void)
{
    const sm4_impl *impl = sm4_impl_find("reference", "scalar", 0);
    if (!impl)
        fail("no SM4 reference kernel");
    return impl;
}

static sm4_mode sm4_mode_of(const char *name)
{
    if (strcmp(name, "ecb") == 0)
        return SM4_MODE_ECB;
    if (strcmp(name, "cbc") == 0)
        return SM4_MODE_CBC;
    if (strcmp(name, "ctr") == 0)
        return SM4_MODE_CTR;
    fail("unknown mode");
    return SM4_MODE_ECB;
}

static int sm4(char **arg)
{
    uint8_t key_bytes[SM4_KEY_BYTES], iv[SM4_BLOCK_BYTES] = {0}, in[MAX_BYTES], out[MAX_BYTES], back[MAX_BYTES];
    const sm4_mode mode = sm4_mode_of(arg[0]);
    if (from_hex(arg[1], key_bytes, sizeof key_bytes) != SM4_KEY_BYTES)
        fail("SM4 key length");
    from_hex(arg[2], iv, sizeof iv);
    const size_t len = from_hex(arg[3], in, sizeof in);
    sm4_key key;
    sm4_set_key(&key, key_bytes);
    if (sm4_crypt(sm4_reference(), mode, SM4_ENCRYPT, &key, iv, in, out, len) != SM4_OK ||
        sm4_crypt(sm4_reference(), mode, SM4_DECRYPT, &key, iv, out, back, len) != SM4_OK)
        fail("sm4_crypt");
    if (memcmp(back, in, len) != 0)
        fail("SM4 decryption does not give the plaintext back");
    print_hex(out, len);
    return 0;
}

/* ---- ZUC ---------------------------------------------------------------------- */

/* The reference kernel under every ZUC call: what is checked is the core's
 * batching, MAC folds and modes, whatever SIMD kernels the build has. */
static const zuc_impl *zuc_reference(void)
{
    const zuc_impl *impl = zuc_impl_find("reference", "scalar", 0);
    if (!impl)
        fail("no ZUC reference kernel");
    return impl;
}

static zuc_variant zuc_variant_of(const char *bits)
{
    return strcmp(bits, "256") == 0 ? ZUC_256 : ZUC_128;
}

static zuc_mac_method zuc_method_of(const char *name)
{
    static const char *const names[] = {"clmul", "compare", "clmul128", "clmul256", "clmul512"};
    for (unsigned m = 0; m < sizeof names / sizeof names[0]; m++)
        if (strcmp(name, names[m]) == 0)
            return (zuc_mac_method)m;
    fail("unknown MAC method");
    return ZUC_MAC_CLMUL;
}

/* The keystream by zuc_init/zuc_keystream, and as the EEA3 encryption of zeros (of one stream among three). */
static int zuc_keystream_words(char **arg)
{
    uint8_t key[32], iv[25], zeros[MAX_BYTES] = {0}, encrypted[MAX_BYTES], words_be[MAX_BYTES];
    uint32_t words[MAX_BYTES / 4];
    const zuc_variant variant = zuc_variant_of(arg[0]);
    const size_t key_len = from_hex(arg[1], key, sizeof key), iv_len = from_hex(arg[2], iv, sizeof iv);
    const size_t n = strtoul(arg[3], NULL, 10);
    if (n == 0 || n > MAX_BYTES / 4)
        fail("word count");
    zuc_state st;
    if (zuc_init(&st, variant, key, key_len, iv, iv_len, 0) != ZUC_OK)
        fail("zuc_init");
    zuc_keystream(&st, words, n);
    const uint8_t *keys[] = {key, key, key}, *ivs[] = {iv, iv, iv}, *in[] = {zeros, zeros, zeros};
    uint8_t other[2][MAX_BYTES], *out[] = {other[0], encrypted, other[1]};
    const size_t bits[] = {8, 32 * n, 0};
    if (key_len != (variant == ZUC_256 ? 32 : 16))
        fail("ZUC key length");
    if (zuc_encrypt_lanes(zuc_reference(), variant, 3, keys, ivs, iv_len, in, out, bits) != ZUC_OK)
        fail("zuc_encrypt_lanes");
    for (size_t i = 0; i < n; i++)
        for (int b = 0; b < 4; b++)
            words_be[4 * i + b] = (uint8_t)(words[i] >> (24 - 8 * b));
    if (memcmp(words_be, encrypted, 4 * n) != 0)
        fail("zuc_encrypt of zeros is not the keystream");
    print_hex(words_be, 4 * n);
    return 0;
}

/* One tag by zuc_mac_lanes (one stream); ZUC_ERR_NO_IMPL as "no-impl". */
static int mac_of(zuc_mac_method method, zuc_variant variant, const uint8_t *key, const uint8_t *iv,
                  size_t iv_len, const uint8_t *msg, size_t bits, unsigned tag_bits, uint8_t *tag)
{
    const uint8_t *keys[] = {key}, *ivs[] = {iv}, *msgs[] = {msg};
    const size_t lens[] = {bits};
    uint8_t *tags[] = {tag};
    return zuc_mac_lanes(zuc_reference(), method, variant, 1, keys, ivs, iv_len, msgs, lens, tag_bits, tags);
}

static int zuc_mac_one(char **arg)
{
    uint8_t key[32], iv[25], msg[MAX_BYTES], tag[16];
    const zuc_variant variant = zuc_variant_of(arg[0]);
    const zuc_mac_method method = zuc_method_of(arg[1]);
    from_hex(arg[2], key, sizeof key);
    const size_t iv_len = from_hex(arg[3], iv, sizeof iv);
    from_hex(arg[4], msg, sizeof msg);
    const size_t bits = strtoul(arg[5], NULL, 10);
    const unsigned tag_bits = (unsigned)strtoul(arg[6], NULL, 10);
    const int status = mac_of(method, variant, key, iv, iv_len, msg, bits, tag_bits, tag);
    if (status == ZUC_ERR_NO_IMPL && !zuc_mac_method_supported(method)) {
        printf("no-impl\n");
        return 0;
    }
    if (status != ZUC_OK)
        fail(zuc_strerror(status));
    print_hex(tag, tag_bits / 8);
    return 0;
}

/* The MAC in pieces of 5 bytes (always the widest fold the CPU has). */
static void mac_in_pieces(zuc_variant variant, const uint8_t *key, size_t key_len, const uint8_t *iv,
                          size_t iv_len, const uint8_t *msg, size_t bits, unsigned tag_bits, uint8_t *tag)
{
    zuc_mac_state st;
    size_t done = 0;
    if (zuc_mac_init(&st, zuc_reference(), variant, key, key_len, iv, iv_len, tag_bits) != ZUC_OK)
        fail("zuc_mac_init");
    for (; done + 5 < bits / 8; done += 5)
        if (zuc_mac_update(&st, msg + done, 5) != ZUC_OK)
            fail("zuc_mac_update");
    if (zuc_mac_final(&st, msg + done, bits - 8 * done, tag) != ZUC_OK)
        fail("zuc_mac_final");
}

/* Tags of pseudo-random keys, IVs and messages of lengths around each chunk
 * and pair-of-chunks edge, by every method this CPU runs and in pieces: one
 * line "variant tag_bits bits method tag" each. */
static int zuc_mac_sweep(void)
{
    static const size_t lengths[] = {0, 1, 31, 32, 33, 63, 64, 65, 127, 128, 129, 191, 192, 193,
                                     255, 256, 257, 400, 511, 512, 513, 1000, 4000, 8191, 8192, 8193};
    static const char *const names[] = {"clmul", "compare", "clmul128", "clmul256", "clmul512"};
    static const struct { zuc_variant variant; unsigned tag_bits; size_t key_len, iv_len; } kinds[] = {
        {ZUC_128, 32, 16, 16}, {ZUC_256, 32, 32, 23}, {ZUC_256, 64, 32, 23}, {ZUC_256, 128, 32, 23}};
    uint8_t key[32], iv[25], msg[MAX_BYTES], tag[16];
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++) {
            const size_t bits = lengths[l];
            random_bytes(key, sizeof key), random_bytes(iv, sizeof iv), random_bytes(msg, (bits + 7) / 8);
            for (unsigned m = 0; m < sizeof names / sizeof names[0]; m++) {
                const int status = mac_of((zuc_mac_method)m, kinds[k].variant, key, iv, kinds[k].iv_len, msg, bits,
                                          kinds[k].tag_bits, tag);
                if (status == ZUC_ERR_NO_IMPL)
                    continue;
                if (status != ZUC_OK)
                    fail(zuc_strerror(status));
                printf("%d %u %zu %s ", kinds[k].variant == ZUC_256 ? 256 : 128, kinds[k].tag_bits, bits, names[m]);
                print_hex(tag, kinds[k].tag_bits / 8);
            }
            mac_in_pieces(kinds[k].variant, key, kinds[k].key_len, iv, kinds[k].iv_len, msg, bits,
                          kinds[k].tag_bits, tag);
            printf("%d %u %zu pieces ", kinds[k].variant == ZUC_256 ? 256 : 128, kinds[k].tag_bits, bits);
            print_hex(tag, kinds[k].tag_bits / 8);
        }
    return 0;
}

/* ---- uBlock ------------------------------------------------------------------- */

static const ublock_impl *ublock_reference(void)
{
    const ublock_impl *impl = ublock_impl_find("reference", "scalar", 0);
    if (!impl)
        fail("no uBlock reference kernel");
    return impl;
}

static void set_key(ublock_key *key, ublock_variant v, const uint8_t *bytes)
{
    if (ublock_set_key(key, v, bytes) != UBLOCK_OK)
        fail("ublock_set_key");
}

/* ECB through the reference kernel; the key expanded alone and as either key
 * of a pair (low and high nibbles of the key register) must be the same. */
static int ublock_one(char **arg)
{
    uint8_t key_bytes[32], other[32] = {0}, in[MAX_BYTES], out[MAX_BYTES], back[MAX_BYTES];
    ublock_variant v;
    if (ublock_variant_from_name(arg[0], &v) != UBLOCK_OK)
        fail("unknown uBlock variant");
    if (from_hex(arg[1], key_bytes, sizeof key_bytes) != ublock_key_bytes(v))
        fail("uBlock key length");
    const size_t len = from_hex(arg[2], in, sizeof in);
    static ublock_key key, pair[2];
    set_key(&key, v, key_bytes);
    for (int half = 0; half < 2; half++) {
        const uint8_t *bytes[2] = {half ? other : key_bytes, half ? key_bytes : other};
        if (ublock_set_keys(pair, v, bytes, 2) != UBLOCK_OK)
            fail("ublock_set_keys");
        if (memcmp(&pair[half], &key, sizeof key) != 0)
            fail("a key expanded in a pair differs from the same key alone");
    }
    if (ublock_crypt(ublock_reference(), UBLOCK_MODE_ECB, UBLOCK_ENCRYPT, &key, NULL, in, out, len) != UBLOCK_OK ||
        ublock_crypt(ublock_reference(), UBLOCK_MODE_ECB, UBLOCK_DECRYPT, &key, NULL, out, back, len) != UBLOCK_OK)
        fail("ublock_crypt");
    if (memcmp(back, in, len) != 0)
        fail("uBlock decryption does not give the plaintext back");
    print_hex(out, len);
    return 0;
}

/* Per variant, a digest of every form of three pseudo-random keys expanded
 * together (a pair and one alone): round keys, register images, folded tables. */
static int key_forms(void)
{
    static ublock_key keys[3];
    for (unsigned v = 0; v < UBLOCK_VARIANT_COUNT; v++) {
        uint8_t bytes[3][32];
        const uint8_t *ptrs[3] = {bytes[0], bytes[1], bytes[2]};
        random_bytes(&bytes[0][0], sizeof bytes);
        if (ublock_set_keys(keys, (ublock_variant)v, ptrs, 3) != UBLOCK_OK)
            fail("ublock_set_keys");
        for (int k = 0; k < 3; k++) {
            uint64_t h = digest(DIGEST_START, &keys[k].rk[0][0], sizeof keys[k].rk);
            h = digest(h, &keys[k].image[0][0][0], sizeof keys[k].image);
            h = digest(h, &keys[k].folded[0][0], sizeof keys[k].folded);
            printf("%s key %d %016llx\n", ublock_variant_name((ublock_variant)v), k, (unsigned long long)h);
        }
    }
    return 0;
}

/* Digests of CBC and CTR (one-shot, and CTR from a counter about to carry
 * through 64 bits) of pseudo-random data at a few lengths, both ciphers. */
static int modes(void)
{
    static const size_t blocks[] = {1, 3, 17, 64, 200};
    static uint8_t in[MAX_BYTES], out[MAX_BYTES];
    uint8_t key_bytes[32], iv[32];
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
        sm4_key sk;
        random_bytes(key_bytes, sizeof key_bytes), random_bytes(iv, sizeof iv), random_bytes(in, sizeof in);
        memset(iv + 8, 0xff, 8); /* the low 64 bits a few blocks from wrapping */
        iv[15] = 0xfd;
        sm4_set_key(&sk, key_bytes);
        const size_t len = 16 * blocks[b];
        for (int mode = SM4_MODE_CBC; mode <= SM4_MODE_CTR; mode++) {
            const size_t n = mode == SM4_MODE_CTR ? len - 5 : len; /* CTR: a partial block too */
            if (sm4_crypt(sm4_reference(), (sm4_mode)mode, SM4_ENCRYPT, &sk, iv, in, out, n) != SM4_OK)
                fail("sm4_crypt");
            printf("sm4 %d %zu %016llx\n", mode, n, (unsigned long long)digest(DIGEST_START, out, n));
        }
        for (unsigned v = 0; v < UBLOCK_VARIANT_COUNT; v++) {
            static ublock_key uk;
            const size_t bb = ublock_block_bytes((ublock_variant)v), ulen = bb * blocks[b];
            memset(iv + bb - 8, 0xff, 8);
            set_key(&uk, (ublock_variant)v, key_bytes);
            for (int mode = UBLOCK_MODE_CBC; mode <= UBLOCK_MODE_CTR; mode++) {
                const size_t n = mode == UBLOCK_MODE_CTR ? ulen - 5 : ulen;
                if (ublock_crypt(ublock_reference(), (ublock_mode)mode, UBLOCK_ENCRYPT, &uk, iv, in, out, n) !=
                    UBLOCK_OK)
                    fail("ublock_crypt");
                printf("ublock %s %d %zu %016llx\n", ublock_variant_name((ublock_variant)v), mode, n,
                       (unsigned long long)digest(DIGEST_START, out, n));
            }
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    static const struct { const char *name; int args; int (*run)(char **arg); } commands[] = {
        {"sm4", 4, sm4}, {"zuc-keystream", 4, zuc_keystream_words}, {"zuc-mac", 7, zuc_mac_one},
        {"ublock", 3, ublock_one}};
    if (argc == 2 && strcmp(argv[1], "features") == 0)
        return features();
    if (argc == 2 && strcmp(argv[1], "zuc-mac-sweep") == 0)
        return zuc_mac_sweep();
    if (argc == 2 && strcmp(argv[1], "key-forms") == 0)
        return key_forms();
    if (argc == 2 && strcmp(argv[1], "modes") == 0)
        return modes();
    for (size_t c = 0; c < sizeof commands / sizeof commands[0]; c++)
        if (argc == 2 + commands[c].args && strcmp(argv[1], commands[c].name) == 0)
            return commands[c].run(argv + 2);
    fail("usage: see the comment at the top of tests/c/runtime_check.c");
    return 1;
}
