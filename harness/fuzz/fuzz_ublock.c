/*
 * fuzz_ublock: uBlock's modes in all three variants (128/128, 128/256,
 * 256/256), one-shot, incremental and many keys at once, on every kernel this
 * CPU runs, against the scalar reference.
 *
 * Each input picks a variant, a key, an IV (sometimes a few blocks before the
 * counter wraps), a mode, a direction, a kernel (any native one, assembly
 * twins and the reference included, SIMDe builds when linked, or NULL) and a
 * length, then checks against the oracle (the reference kernel one block at
 * a time, CBC chaining and the big-endian CTR counter written out here):
 *   - ublock_crypt and the one-shot wrappers;
 *   - ublock_ctr_* / ublock_cbc_* over random pieces, in place or not, with
 *     refused partial-block CBC pieces, and every call after final or reset
 *     refused with UBLOCK_ERR_STATE and nothing written;
 *   - the kernel's entry points: crypt_blocks, encrypt_blocks_xor and ctr_xor
 *     (whole batches up to 256 blocks from V and V + 256; another count is
 *     UBLOCK_ERR_LENGTH with nothing written);
 *   - many keys: ublock_set_keys equals ublock_set_key key by key, and
 *     ublock_crypt_multi (and the kernel's crypt_blocks_multi) equals each
 *     stream on its own; no stream at all (n = 0) reads nothing
 *     [check ublock-multi-empty];
 *   - a key of no known variant is refused (UBLOCK_ERR_VARIANT), and so is
 *     ublock_set_key with one; out-of-range ublock_direction and ublock_mode
 *     values are refused with nothing written [checks ublock-bad-direction,
 *     ublock-bad-mode, ublock-bad-variant]; with a library that defines
 *     UBLOCK_ERR_ARGUMENT, the code must be that one, CTR's direction too;
 *   - with a library that defines UBLOCK_MAX_LENGTH: a length past it is
 *     UBLOCK_ERR_LENGTH before the input is read (a PROT_NONE page), from
 *     ublock_crypt, ublock_crypt_multi and the updates, whose stream then
 *     goes on as if the call had not been made [check ublock-huge-length].
 */
#include <limits.h>

#include "fuzz_util.h"
#include "ublock.h"

#define MAX_LEN 24000 /* past the mode layer's chunk (8 KiB) several times */
#define MAX_STREAMS 9

FZ_IMPLS(ublock)
static const ublock_impl *ref;

static void setup(void)
{
    if (ref)
        return;
    collect_impls();
    ref = ublock_impl_find("reference", "scalar", 0);
    if (!ref)
        abort();
}

static const char *const mode_names[] = {"ECB", "CBC", "CTR"};

/* ------------------------------------------------------------------ */
/* The oracle                                                           */
/* ------------------------------------------------------------------ */

static void block(const ublock_key *key, int encrypt, const uint8_t *in, uint8_t *out)
{
    ref->crypt_blocks(key, encrypt ? UBLOCK_ENCRYPT : UBLOCK_DECRYPT, in, out, 1);
}

static void add_be(uint8_t *counter, size_t bb, unsigned v)
{
    for (size_t i = bb; i-- > 0 && v;) {
        v += counter[i];
        counter[i] = (uint8_t)v;
        v >>= 8;
    }
}

static void oracle(const ublock_key *key, ublock_mode mode, int encrypt, const uint8_t *iv, const uint8_t *in,
                   uint8_t *out, size_t len)
{
    const size_t bb = ublock_block_bytes(key->variant);
    uint8_t chain[32], x[32];
    memcpy(chain, iv, bb);
    for (size_t at = 0; at < len; at += bb) {
        const size_t n = len - at < bb ? len - at : bb;
        switch (mode) {
        case UBLOCK_MODE_ECB:
            block(key, encrypt, in + at, out + at);
            break;
        case UBLOCK_MODE_CBC:
            if (encrypt) {
                for (size_t i = 0; i < bb; i++)
                    x[i] = in[at + i] ^ chain[i];
                block(key, 1, x, out + at);
                memcpy(chain, out + at, bb);
            } else {
                block(key, 0, in + at, x);
                for (size_t i = 0; i < bb; i++)
                    out[at + i] = x[i] ^ chain[i];
                memcpy(chain, in + at, bb);
            }
            break;
        case UBLOCK_MODE_CTR:
            block(key, 1, chain, x);
            for (size_t i = 0; i < n; i++)
                out[at + i] = in[at + i] ^ x[i];
            add_be(chain, bb, 1);
            break;
        }
    }
}

static void read_iv(fz_reader *r, uint8_t *iv, size_t bb)
{
    fz_data(r, iv, bb);
    switch (fz_u8(r) % 6) {
    case 0: /* the low 64 bits a few blocks before their carry */
        memset(iv + bb - 8, 0xff, 8);
        iv[bb - 1] -= fz_u8(r) % 8;
        break;
    case 1: /* the whole counter a few blocks before wrapping */
        memset(iv, 0xff, bb);
        iv[bb - 1] -= fz_u8(r) % 8;
        break;
    case 2: /* the low byte a batch before its carry */
        iv[bb - 1] = (uint8_t)(0x100 - fz_u8(r) % 64);
        break;
    }
}

static void check_buffers(const fz_buf *a, const fz_buf *b)
{
    FZ_CHECK("ublock-bounds", fz_canary_intact(a) && (b == NULL || fz_canary_intact(b)),
             "bytes around a buffer were written");
}

/* ------------------------------------------------------------------ */
/* One-shot                                                             */
/* ------------------------------------------------------------------ */

static int wrapper(ublock_mode mode, int encrypt, const ublock_key *key, const uint8_t *iv, const uint8_t *in,
                   uint8_t *out, size_t len)
{
    switch (mode) {
    case UBLOCK_MODE_ECB:
        return encrypt ? ublock_ecb_encrypt(key, in, out, len) : ublock_ecb_decrypt(key, in, out, len);
    case UBLOCK_MODE_CBC:
        return encrypt ? ublock_cbc_encrypt(key, iv, in, out, len) : ublock_cbc_decrypt(key, iv, in, out, len);
    default:
        return ublock_ctr_crypt(key, iv, in, out, len);
    }
}

static void one_shot(fz_reader *r, const ublock_impl *impl, ublock_mode mode, int encrypt, const ublock_key *key,
                     const uint8_t *iv, const uint8_t *msg, const uint8_t *want, size_t len)
{
    fz_buf bi, bo;
    uint8_t *in = fz_alloc_from(r, &bi, len);
    const int in_place = fz_bool(r);
    uint8_t *out = in_place ? in : fz_alloc_from(r, &bo, len);
    memcpy(in, msg, len);
    const int use_wrapper = impl == NULL && fz_bool(r);
    const int rc = use_wrapper ? wrapper(mode, encrypt, key, iv, in, out, len)
                               : ublock_crypt(impl, mode, encrypt ? UBLOCK_ENCRYPT : UBLOCK_DECRYPT, key, iv, in,
                                              out, len);
    FZ_CHECK("ublock-one-shot", rc == UBLOCK_OK, "%s returned %d", use_wrapper ? "wrapper" : "ublock_crypt", rc);
    FZ_SAME("ublock-one-shot", out, want, len, "one-shot output against the reference");
    if (!in_place)
        FZ_SAME("ublock-one-shot", in, msg, len, "the input was written");
    check_buffers(&bi, in_place ? NULL : &bo);
    fz_free(&bi);
    if (!in_place)
        fz_free(&bo);
}

static void partial_block(fz_reader *r, const ublock_impl *impl, ublock_mode mode, int encrypt,
                          const ublock_key *key, const uint8_t *iv, const uint8_t *msg, size_t len)
{
    const size_t bb = ublock_block_bytes(key->variant);
    if (mode == UBLOCK_MODE_CTR || len % bb == 0)
        return;
    fz_buf bo;
    uint8_t *out = fz_alloc_from(r, &bo, len);
    memset(out, FZ_CANARY, len);
    const int rc = ublock_crypt(impl, mode, encrypt ? UBLOCK_ENCRYPT : UBLOCK_DECRYPT, key, iv, msg, out, len);
    FZ_CHECK("ublock-length", rc == UBLOCK_ERR_LENGTH, "ublock_crypt on %zu bytes returned %d", len, rc);
    for (size_t i = 0; i < len; i++)
        FZ_CHECK("ublock-length", out[i] == FZ_CANARY, "refused call wrote byte %zu", i);
    fz_free(&bo);
}

/* ------------------------------------------------------------------ */
/* Incremental                                                          */
/* ------------------------------------------------------------------ */

static int update(ublock_mode mode, ublock_ctr_state *ctr, ublock_cbc_state *cbc, const uint8_t *in, uint8_t *out,
                  size_t n)
{
    return mode == UBLOCK_MODE_CTR ? ublock_ctr_update(ctr, in, out, n) : ublock_cbc_update(cbc, in, out, n);
}

static void incremental(fz_reader *r, const ublock_impl *impl, ublock_mode mode, int encrypt,
                        const ublock_key *key, const uint8_t *iv, const uint8_t *msg, const uint8_t *want,
                        size_t len)
{
    if (mode == UBLOCK_MODE_ECB)
        return;
    const size_t bb = ublock_block_bytes(key->variant);
    fz_buf bi, bo;
    uint8_t *in = fz_alloc_from(r, &bi, len);
    const int in_place = fz_bool(r);
    uint8_t *out = in_place ? in : fz_alloc_from(r, &bo, len);
    memcpy(in, msg, len);
    if (!in_place)
        memset(out, FZ_CANARY, len);
    ublock_ctr_state *ctr = malloc(sizeof *ctr);
    ublock_cbc_state *cbc = malloc(sizeof *cbc);
    memset(ctr, fz_u8(r), sizeof *ctr);
    memset(cbc, fz_u8(r), sizeof *cbc);
    int rc = mode == UBLOCK_MODE_CTR ? ublock_ctr_init(ctr, impl, key, iv)
                                     : ublock_cbc_init(cbc, impl, encrypt ? UBLOCK_ENCRYPT : UBLOCK_DECRYPT, key, iv);
    FZ_CHECK("ublock-incremental", rc == UBLOCK_OK, "init returned %d", rc);
    const size_t unit = mode == UBLOCK_MODE_CTR ? 1 : bb;
    size_t done = 0;
    int pieces = 0;
    while (done < len || pieces == 0) {
        if (mode == UBLOCK_MODE_CBC && fz_u8(r) % 8 == 0 && len - done > 0) {
            const size_t bad = len - done < bb ? len - done : 1 + fz_below(r, len - done - 1);
            if (bad % bb) {
                uint8_t before[64];
                const size_t look = len - done < sizeof before ? len - done : sizeof before;
                memcpy(before, out + done, look);
                rc = ublock_cbc_update(cbc, in + done, out + done, bad);
                FZ_CHECK("ublock-incremental", rc == UBLOCK_ERR_LENGTH, "cbc_update(%zu) returned %d", bad, rc);
                FZ_SAME("ublock-incremental", out + done, before, look, "a refused piece wrote");
            }
        }
#ifdef UBLOCK_MAX_LENGTH
        if (fz_u8(r) % 16 == 0 && FZ_WANTED("ublock-huge-length")) {
            const size_t huge = fz_past(r, UBLOCK_MAX_LENGTH) / unit * unit;
            rc = update(mode, ctr, cbc, fz_noaccess(), out, huge);
            FZ_CHECK("ublock-huge-length", rc == UBLOCK_ERR_LENGTH, "update(%zu) returned %d", huge, rc);
        }
#endif
        size_t n = fz_piece(r, len - done, unit);
        if (n == 0 && r->front >= r->back)
            n = len - done;
        rc = update(mode, ctr, cbc, in + done, out + done, n);
        FZ_CHECK("ublock-incremental", rc == UBLOCK_OK, "update(%zu) at %zu returned %d", n, done, rc);
        done += n;
        if (++pieces > 4000)
            break;
    }
    FZ_SAME("ublock-incremental", out, want, done, "incremental output against the reference");
    const int reset = fz_u8(r) % 4 == 0;
    if (reset)
        mode == UBLOCK_MODE_CTR ? ublock_ctr_reset(ctr) : ublock_cbc_reset(cbc);
    else
        FZ_CHECK("ublock-incremental",
                 (mode == UBLOCK_MODE_CTR ? ublock_ctr_final(ctr) : ublock_cbc_final(cbc)) == UBLOCK_OK,
                 "final failed");
    const uint8_t *st = mode == UBLOCK_MODE_CTR ? (const uint8_t *)ctr : (const uint8_t *)cbc;
    const size_t st_size = mode == UBLOCK_MODE_CTR ? sizeof *ctr : sizeof *cbc;
    for (size_t i = 0; i < st_size; i++)
        FZ_CHECK("ublock-incremental", st[i] == 0, "state byte %zu not wiped", i);
    if (len >= bb) {
        uint8_t before[32];
        memcpy(before, out, bb);
        rc = update(mode, ctr, cbc, in, out, bb);
        FZ_CHECK("ublock-incremental", rc == UBLOCK_ERR_STATE, "update after final returned %d", rc);
        FZ_SAME("ublock-incremental", out, before, bb, "update after final wrote");
    }
    rc = mode == UBLOCK_MODE_CTR ? ublock_ctr_final(ctr) : ublock_cbc_final(cbc);
    FZ_CHECK("ublock-incremental", rc == UBLOCK_ERR_STATE, "final after final returned %d", rc);
    check_buffers(&bi, in_place ? NULL : &bo);
    free(ctr);
    free(cbc);
    fz_free(&bi);
    if (!in_place)
        fz_free(&bo);
}

/* ------------------------------------------------------------------ */
/* The kernel's entry points                                            */
/* ------------------------------------------------------------------ */

static void entry_points(fz_reader *r, const ublock_impl *impl, int encrypt, const ublock_key *key,
                         const uint8_t *iv, const uint8_t *msg, size_t len)
{
    if (impl == NULL)
        return;
    const ublock_variant v = key->variant;
    const size_t bb = ublock_block_bytes(v), nblocks = len / bb, bytes = nblocks * bb;
    uint8_t *blocks = malloc(bytes + 1), *want = malloc(bytes + 1);
    fz_data(r, blocks, bytes);
    for (size_t i = 0; i < nblocks; i++)
        block(key, encrypt, blocks + bb * i, want + bb * i);
    fz_buf bi, bo, bs;
    uint8_t *in = fz_alloc_from(r, &bi, bytes);
    memcpy(in, blocks, bytes);
    const int in_place = fz_bool(r);
    uint8_t *out = in_place ? in : fz_alloc_from(r, &bo, bytes);
    impl->crypt_blocks(key, encrypt ? UBLOCK_ENCRYPT : UBLOCK_DECRYPT, in, out, nblocks);
    FZ_SAME("ublock-kernel", out, want, bytes, "crypt_blocks against the reference");
    check_buffers(&bi, in_place ? NULL : &bo);
    if (!in_place)
        fz_free(&bo);

    if (impl->encrypt_blocks_xor) {
        for (size_t i = 0; i < nblocks; i++)
            block(key, 1, blocks + bb * i, want + bb * i);
        for (size_t i = 0; i < bytes; i++)
            want[i] ^= msg[i];
        memcpy(in, blocks, bytes);
        uint8_t *src = fz_alloc_from(r, &bs, bytes);
        memcpy(src, msg, bytes);
        const int src_is_out = fz_bool(r);
        out = src_is_out ? src : fz_alloc_from(r, &bo, bytes);
        impl->encrypt_blocks_xor(key, in, src, out, nblocks);
        FZ_SAME("ublock-kernel", out, want, bytes, "encrypt_blocks_xor against the reference");
        FZ_SAME("ublock-kernel", in, blocks, bytes, "encrypt_blocks_xor wrote its input");
        check_buffers(&bs, src_is_out ? NULL : &bo);
        if (!src_is_out)
            fz_free(&bo);
        fz_free(&bs);
    }
    fz_free(&bi);

    if (impl->ctr_xor) {
        /* Whole batches from V (the IV), at most 256 blocks; sometimes a count that is not. */
        const size_t batch = impl->batch_blocks[v];
        size_t n = batch * fz_below(r, 256 / batch + 1);
        const int bad = fz_u8(r) % 8 == 0;
        if (bad)
            n = batch > 1 && fz_bool(r) ? n + 1 + fz_below(r, batch - 1) : 256 + batch * (1 + fz_below(r, 4));
        const size_t nb = n * bb;
        uint8_t counters[64], ctr[32], ks[32];
        memcpy(counters, iv, bb);
        memcpy(counters + bb, iv, bb);
        add_be(counters + bb, bb, 256);
        uint8_t *src = malloc(nb + 1), *expect = malloc(nb + 1);
        fz_data(r, src, nb);
        memcpy(ctr, iv, bb);
        for (size_t j = 0; j < n; j++, add_be(ctr, bb, 1)) {
            block(key, 1, ctr, ks);
            for (size_t i = 0; i < bb; i++)
                expect[j * bb + i] = src[j * bb + i] ^ ks[i];
        }
        uint8_t *o = fz_alloc_from(r, &bo, nb);
        memset(o, FZ_CANARY, nb);
        const int rc = impl->ctr_xor(key, counters, src, o, n);
        if (bad) {
            FZ_CHECK("ublock-kernel", rc == UBLOCK_ERR_LENGTH, "ctr_xor(%zu blocks, batch %zu) returned %d", n,
                     batch, rc);
            for (size_t i = 0; i < nb; i++)
                FZ_CHECK("ublock-kernel", o[i] == FZ_CANARY, "refused ctr_xor wrote byte %zu", i);
        } else {
            FZ_CHECK("ublock-kernel", rc == UBLOCK_OK, "ctr_xor(%zu blocks) returned %d", n, rc);
            FZ_SAME("ublock-kernel", o, expect, nb, "ctr_xor against the reference");
        }
        check_buffers(&bo, NULL);
        fz_free(&bo);
        free(src);
        free(expect);
    }
    free(blocks);
    free(want);
}

/* ------------------------------------------------------------------ */
/* Many keys                                                            */
/* ------------------------------------------------------------------ */

static void multi(fz_reader *r, const ublock_impl *impl, ublock_variant v, ublock_mode mode, int encrypt)
{
    const size_t n = fz_below(r, MAX_STREAMS + 1), bb = ublock_block_bytes(v), kb = ublock_key_bytes(v);
    size_t len = fz_length(r, 3000, bb);
    if (mode != UBLOCK_MODE_CTR)
        len = len / bb * bb;
    FZ_CONTEXT("%s multi %s %s, impl %s, %zu streams of %zu bytes", ublock_variant_name(v), mode_names[mode],
               encrypt ? "encrypt" : "decrypt", impl_name(impl), n, len);
    ublock_key *keys = malloc(sizeof *keys * (n ? n : 1)), *one = malloc(sizeof *one);
    uint8_t raw[MAX_STREAMS][32], ivs_raw[MAX_STREAMS][32];
    const uint8_t *key_bytes[MAX_STREAMS], *ivs[MAX_STREAMS], *ins[MAX_STREAMS];
    const ublock_key *key_ptrs[MAX_STREAMS];
    uint8_t *outs[MAX_STREAMS], *msgs[MAX_STREAMS], *want = malloc(len + 1);
    fz_buf bufs[MAX_STREAMS];
    for (size_t j = 0; j < n; j++) {
        fz_data(r, raw[j], kb);
        read_iv(r, ivs_raw[j], bb);
        key_bytes[j] = raw[j], ivs[j] = ivs_raw[j], key_ptrs[j] = &keys[j];
    }
    int rc = ublock_set_keys(keys, v, key_bytes, n);
    FZ_CHECK("ublock-multi", rc == UBLOCK_OK, "ublock_set_keys returned %d", rc);
    for (size_t j = 0; j < n; j++) {
        rc = ublock_set_key(one, v, raw[j]);
        FZ_CHECK("ublock-multi", rc == UBLOCK_OK, "ublock_set_key returned %d", rc);
        FZ_CHECK("ublock-multi", keys[j].variant == one->variant && keys[j].rounds == one->rounds,
                 "key %zu: variant or rounds differ", j);
        FZ_SAME("ublock-multi", (const uint8_t *)keys[j].rk, (const uint8_t *)one->rk, sizeof one->rk,
                "ublock_set_keys' round keys against ublock_set_key's");
        FZ_SAME("ublock-multi", (const uint8_t *)keys[j].image, (const uint8_t *)one->image, sizeof one->image,
                "ublock_set_keys' register images against ublock_set_key's");
        FZ_SAME("ublock-multi", (const uint8_t *)keys[j].folded, (const uint8_t *)one->folded, sizeof one->folded,
                "ublock_set_keys' folded tables against ublock_set_key's");
    }
    const int in_place = fz_bool(r);
    for (size_t j = 0; j < n; j++) {
        msgs[j] = malloc(len + 1);
        fz_data(r, msgs[j], len);
        outs[j] = fz_alloc_from(r, &bufs[j], len);
        if (in_place)
            memcpy(outs[j], msgs[j], len);
        ins[j] = in_place ? outs[j] : msgs[j];
    }
    const int use_kernel = impl && impl->crypt_blocks_multi && mode != UBLOCK_MODE_CTR && fz_bool(r) &&
                           (n > 0 || FZ_WANTED("ublock-multi-empty"));
    const ublock_direction dir = encrypt ? UBLOCK_ENCRYPT : UBLOCK_DECRYPT;
    for (size_t j = n; j < MAX_STREAMS; j++) /* past the n streams: nothing to read */
        key_ptrs[j] = NULL, ivs[j] = NULL, ins[j] = NULL, outs[j] = NULL;
    if (use_kernel) {
        /* The kernel's entry itself: ECB, or CBC encryption (CBC decryption is not its job). */
        const int chained = mode == UBLOCK_MODE_CBC && encrypt;
        impl->crypt_blocks_multi(key_ptrs, n, dir, chained ? ivs : NULL, ins, outs, len / bb);
        rc = UBLOCK_OK;
        mode = chained ? UBLOCK_MODE_CBC : UBLOCK_MODE_ECB;
    } else {
        rc = ublock_crypt_multi(impl, mode, dir, n, key_ptrs, ivs, ins, outs, len);
    }
    if (n > 0 && impl != NULL && impl->crypt_blocks_multi == NULL) {
        FZ_CHECK("ublock-multi", rc == UBLOCK_ERR_NO_IMPL, "ublock_crypt_multi on %s (no multi-key entry) returned %d",
                 impl->name, rc);
    } else {
        FZ_CHECK("ublock-multi", rc == UBLOCK_OK, "ublock_crypt_multi returned %d", rc);
        for (size_t j = 0; j < n; j++) {
            oracle(&keys[j], mode, encrypt, ivs[j], msgs[j], want, len);
            FZ_SAME("ublock-multi", outs[j], want, len, "a stream of ublock_crypt_multi against the reference");
        }
    }
    for (size_t j = 0; j < n; j++) {
        check_buffers(&bufs[j], NULL);
        fz_free(&bufs[j]);
        free(msgs[j]);
    }
    free(keys);
    free(one);
    free(want);
}

/* ------------------------------------------------------------------ */
/* Values outside the enums                                             */
/* ------------------------------------------------------------------ */

static int bad_enum(fz_reader *r, int lo, int hi)
{
    static const int edges[] = {2, 3, -1, -2, 4, 255, 256, 0x10000, INT_MAX, INT_MIN};
    const unsigned c = fz_u8(r);
    int v = c < 200 ? edges[c % (sizeof edges / sizeof edges[0])] : (int)(uint32_t)fz_uint(r, 4);
    if (v >= lo && v <= hi)
        v = hi + 1;
    return v;
}

#ifdef UBLOCK_ERR_ARGUMENT
#define ENUM_REFUSED(rc) ((rc) == UBLOCK_ERR_ARGUMENT)
#define MODES_WITH_DIRECTION 3 /* CTR's direction is checked too */
#else
#define ENUM_REFUSED(rc) ((rc) < 0)
#define MODES_WITH_DIRECTION 2
#endif

static void refused(const char *check, const uint8_t *out, size_t len, const char *what)
{
    for (size_t i = 0; i < len; i++)
        FZ_CHECK(check, out[i] == FZ_CANARY, "%s wrote byte %zu", what, i);
}

static void bad_enums(fz_reader *r, const ublock_impl *impl, ublock_key *key, const uint8_t *iv,
                      const uint8_t *msg)
{
    const size_t bb = ublock_block_bytes(key->variant), len = bb * (1 + fz_below(r, 8));
    fz_buf bo;
    uint8_t *out = fz_alloc_from(r, &bo, len);
    memset(out, FZ_CANARY, len);
    const int dir = bad_enum(r, 0, 1), mode = bad_enum(r, 0, 2), variant = bad_enum(r, 0, 2);
    const ublock_mode good_mode = (ublock_mode)fz_below(r, MODES_WITH_DIRECTION);
    FZ_CONTEXT("ublock bad enums: impl %s, dir %d, mode %d, variant %d, len %zu", impl_name(impl), dir, mode,
               variant, len);
    int rc;
    if (FZ_WANTED("ublock-bad-direction")) {
        rc = ublock_crypt(impl, good_mode, (ublock_direction)dir, key, iv, msg, out, len);
        FZ_CHECK("ublock-bad-direction", ENUM_REFUSED(rc), "ublock_crypt(%s, direction %d) returned %d",
                 mode_names[good_mode], dir, rc);
        refused("ublock-bad-direction", out, len, "refused ublock_crypt");
        ublock_cbc_state st;
        rc = ublock_cbc_init(&st, impl, (ublock_direction)dir, key, iv);
        FZ_CHECK("ublock-bad-direction", ENUM_REFUSED(rc), "ublock_cbc_init(direction %d) returned %d", dir, rc);
        rc = ublock_cbc_update(&st, msg, out, len);
        FZ_CHECK("ublock-bad-direction", rc == UBLOCK_ERR_STATE, "cbc_update after a refused init returned %d", rc);
        refused("ublock-bad-direction", out, len, "cbc_update after a refused init");
        ublock_cbc_reset(&st);
        const ublock_key *keys[1] = {key};
        const uint8_t *ivs[1] = {iv}, *ins[1] = {msg};
        uint8_t *outs[1] = {out};
        rc = ublock_crypt_multi(NULL, good_mode, (ublock_direction)dir, 1, keys, ivs, ins, outs, len);
        FZ_CHECK("ublock-bad-direction", ENUM_REFUSED(rc), "ublock_crypt_multi(%s, direction %d) returned %d",
                 mode_names[good_mode], dir, rc);
        refused("ublock-bad-direction", out, len, "refused ublock_crypt_multi");
    }
    if (FZ_WANTED("ublock-bad-mode")) {
        rc = ublock_crypt(impl, (ublock_mode)mode, fz_bool(r) ? UBLOCK_ENCRYPT : UBLOCK_DECRYPT, key, iv, msg, out,
                          len);
        FZ_CHECK("ublock-bad-mode", ENUM_REFUSED(rc), "ublock_crypt(mode %d) returned %d", mode, rc);
        refused("ublock-bad-mode", out, len, "refused ublock_crypt");
    }
    if (FZ_WANTED("ublock-bad-variant")) {
        /* A key of no known variant: documented as UBLOCK_ERR_VARIANT. */
        const ublock_variant saved = key->variant;
        key->variant = (ublock_variant)variant;
        rc = ublock_crypt(impl, good_mode, UBLOCK_ENCRYPT, key, iv, msg, out, len);
        FZ_CHECK("ublock-bad-variant", rc == UBLOCK_ERR_VARIANT, "ublock_crypt on variant %d returned %d", variant, rc);
        refused("ublock-bad-variant", out, len, "refused ublock_crypt");
        ublock_ctr_state ctr;
        rc = ublock_ctr_init(&ctr, impl, key, iv);
        FZ_CHECK("ublock-bad-variant", rc == UBLOCK_ERR_VARIANT, "ublock_ctr_init on variant %d returned %d", variant,
                 rc);
        rc = ublock_ctr_update(&ctr, msg, out, len);
        FZ_CHECK("ublock-bad-variant", rc == UBLOCK_ERR_STATE, "ctr_update after a refused init returned %d", rc);
        refused("ublock-bad-variant", out, len, "ctr_update after a refused init");
        key->variant = saved;
        FZ_CHECK("ublock-bad-variant", ublock_block_bytes((ublock_variant)variant) == 0 &&
                                           ublock_key_bytes((ublock_variant)variant) == 0 &&
                                           ublock_variant_name((ublock_variant)variant) == NULL,
                 "sizes or name of variant %d not 0/NULL", variant);
        ublock_key *k2 = malloc(sizeof *k2);
        uint8_t raw[32] = {0};
        rc = ublock_set_key(k2, (ublock_variant)variant, raw);
        FZ_CHECK("ublock-bad-variant", rc == UBLOCK_ERR_VARIANT, "ublock_set_key(variant %d) returned %d", variant, rc);
        free(k2);
    }
#ifdef UBLOCK_MAX_LENGTH
    if (FZ_WANTED("ublock-huge-length")) {
        /* A length past UBLOCK_MAX_LENGTH: refused before the input is read. */
        const ublock_mode m = (ublock_mode)fz_below(r, 3);
        const ublock_direction d = fz_bool(r) ? UBLOCK_ENCRYPT : UBLOCK_DECRYPT;
        const size_t huge = fz_past(r, UBLOCK_MAX_LENGTH) / bb * bb;
        rc = ublock_crypt(impl, m, d, key, iv, fz_noaccess(), out, huge);
        FZ_CHECK("ublock-huge-length", rc == UBLOCK_ERR_LENGTH, "ublock_crypt(mode %d, %zu bytes) returned %d", m,
                 huge, rc);
        refused("ublock-huge-length", out, len, "refused ublock_crypt");
        const ublock_key *keys[2] = {key, key};
        const uint8_t *ivs[2] = {iv, iv}, *ins[2] = {fz_noaccess(), fz_noaccess()};
        uint8_t *outs[2] = {out, out};
        rc = ublock_crypt_multi(NULL, m, d, 2, keys, ivs, ins, outs, huge);
        FZ_CHECK("ublock-huge-length", rc == UBLOCK_ERR_LENGTH, "ublock_crypt_multi(mode %d, %zu bytes) returned %d",
                 m, huge, rc);
        refused("ublock-huge-length", out, len, "refused ublock_crypt_multi");
    }
#endif
    check_buffers(&bo, NULL);
    fz_free(&bo);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    fz_reader r = fz_reader_init(data, size);
    const unsigned op = fz_u8(&r), how = fz_u8(&r);
    const ublock_variant v = (ublock_variant)(fz_u8(&r) % 3);
    const size_t bb = ublock_block_bytes(v);
    uint8_t key_bytes[32], iv[32];
    fz_data(&r, key_bytes, ublock_key_bytes(v));
    read_iv(&r, iv, bb);
    ublock_key *key = malloc(sizeof *key);
    FZ_CHECK("ublock-key", ublock_set_key(key, v, key_bytes) == UBLOCK_OK, "ublock_set_key failed");
    const size_t choice = fz_below(&r, n_impls + 1);
    const ublock_impl *impl = choice < n_impls ? impls[choice] : NULL;
    const ublock_mode mode = (ublock_mode)(how % 3);
    const int encrypt = (how >> 2) & 1;
    uint8_t *msg = malloc(MAX_LEN + 64), *want = malloc(MAX_LEN + 64);
    fz_data(&r, msg, 64);

    if (op % 16 == 15) {
        bad_enums(&r, impl, key, iv, msg);
    } else if (op % 16 >= 12) {
        multi(&r, impl, v, mode, encrypt);
    } else {
        const size_t len = fz_length(&r, MAX_LEN, bb);
        fz_data(&r, msg + 64, len > 64 ? len - 64 : 0);
        const size_t whole = mode == UBLOCK_MODE_CTR ? len : len / bb * bb;
        FZ_CONTEXT("%s %s %s, impl %s, len %zu", ublock_variant_name(v), mode_names[mode],
                   encrypt ? "encrypt" : "decrypt", impl_name(impl), whole);
        oracle(key, mode, encrypt, iv, msg, want, whole);
        one_shot(&r, impl, mode, encrypt, key, iv, msg, want, whole);
        incremental(&r, impl, mode, encrypt, key, iv, msg, want, whole);
        partial_block(&r, impl, mode, encrypt, key, iv, msg, len);
        entry_points(&r, impl, encrypt, key, iv, msg, whole);
    }
    free(msg);
    free(want);
    free(key);
    return 0;
}
