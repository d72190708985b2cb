/*
 * fuzz_sm4: SM4's modes, one-shot and incremental, on every kernel this CPU
 * runs, against the scalar reference.
 *
 * Each input picks a key, an IV (sometimes a few blocks before the 128-bit
 * counter wraps), a mode (ECB, CBC, CTR), a direction, a kernel (any native
 * one, assembly twins and the reference included, SIMDe builds too when
 * linked, or NULL: the library's choice) and a message length, then checks:
 *   - sm4_crypt with that kernel, and the one-shot wrappers (sm4_ecb_*, ...),
 *     equal the oracle: the reference kernel one block at a time, with CBC
 *     chaining and the CTR counter written out here;
 *   - the incremental calls (sm4_ctr_*, sm4_cbc_*) over random pieces
 *     (empty ones, single bytes, across the mode layer's 8 KiB chunks), in place or
 *     not, equal it too; a CBC piece of partial blocks is refused with
 *     SM4_ERR_LENGTH and nothing written, and the stream goes on; after
 *     final or reset every call returns SM4_ERR_STATE and writes nothing;
 *   - the kernel's entry points crypt_blocks and crypt_blocks_xor;
 *   - ECB/CBC lengths that are not whole blocks give SM4_ERR_LENGTH;
 *   - out-of-range sm4_direction and sm4_mode values are refused (an error
 *     code, nothing written) by sm4_crypt and sm4_cbc_init
 *     [checks sm4-bad-direction, sm4-bad-mode]; with a library that defines
 *     SM4_ERR_ARGUMENT, the code must be that one, and CTR's direction is
 *     checked too;
 *   - with a library that defines SM4_MAX_LENGTH: a length past it is
 *     SM4_ERR_LENGTH before the input is read (it lies in a PROT_NONE page),
 *     nothing written, from sm4_crypt and from the updates, whose stream
 *     then goes on as if the call had not been made [check sm4-huge-length].
 * Buffers are misaligned, at the end of a page before a guard page, or on
 * the heap under ASan (fuzz_util.h).
 */
#include <limits.h>

#include "fuzz_util.h"
#include "sm4.h"

#define MAX_LEN 20000 /* past the mode layer's chunk (8 KiB) twice */

FZ_IMPLS(sm4)
static const sm4_impl *ref;

static void setup(void)
{
    if (ref)
        return;
    collect_impls();
    ref = sm4_impl_find("reference", "scalar", 0);
    if (!ref)
        abort();
}

/* ------------------------------------------------------------------ */
/* The oracle: the reference kernel one block at a time                 */
/* ------------------------------------------------------------------ */

static void block(const sm4_key *key, int encrypt, const uint8_t *in, uint8_t *out)
{
    ref->crypt_blocks(key, encrypt ? SM4_ENCRYPT : SM4_DECRYPT, in, out, 1);
}

static void increment(uint8_t counter[16])
{
    for (int i = 15; i >= 0 && ++counter[i] == 0; i--)
        ;
}

static void oracle(const sm4_key *key, sm4_mode mode, int encrypt, const uint8_t iv[16], const uint8_t *in,
                   uint8_t *out, size_t len)
{
    uint8_t chain[16], x[16];
    memcpy(chain, iv, 16);
    for (size_t at = 0; at < len; at += 16) {
        const size_t n = len - at < 16 ? len - at : 16;
        switch (mode) {
        case SM4_MODE_ECB:
            block(key, encrypt, in + at, out + at);
            break;
        case SM4_MODE_CBC:
            if (encrypt) {
                for (int i = 0; i < 16; i++)
                    x[i] = in[at + i] ^ chain[i];
                block(key, 1, x, out + at);
                memcpy(chain, out + at, 16);
            } else {
                block(key, 0, in + at, x);
                for (int i = 0; i < 16; i++)
                    out[at + i] = x[i] ^ chain[i];
                memcpy(chain, in + at, 16);
            }
            break;
        case SM4_MODE_CTR:
            block(key, 1, chain, x);
            for (size_t i = 0; i < n; i++)
                out[at + i] = in[at + i] ^ x[i];
            increment(chain);
            break;
        }
    }
}

static void read_iv(fz_reader *r, uint8_t iv[16])
{
    fz_data(r, iv, 16);
    switch (fz_u8(r) % 6) {
    case 0: /* the low 64 bits a few blocks before their carry */
        memset(iv + 8, 0xff, 8);
        iv[15] -= fz_u8(r) % 8;
        break;
    case 1: /* the whole counter a few blocks before wrapping */
        memset(iv, 0xff, 16);
        iv[15] -= fz_u8(r) % 8;
        break;
    case 2: /* the low byte a batch before a carry */
        iv[15] = (uint8_t)(0x100 - fz_u8(r) % 64);
        break;
    }
}

/* ------------------------------------------------------------------ */
/* One-shot calls                                                       */
/* ------------------------------------------------------------------ */

static int wrapper(sm4_mode mode, int encrypt, const sm4_key *key, const uint8_t *iv, const uint8_t *in,
                   uint8_t *out, size_t len)
{
    switch (mode) {
    case SM4_MODE_ECB:
        return encrypt ? sm4_ecb_encrypt(key, in, out, len) : sm4_ecb_decrypt(key, in, out, len);
    case SM4_MODE_CBC:
        return encrypt ? sm4_cbc_encrypt(key, iv, in, out, len) : sm4_cbc_decrypt(key, iv, in, out, len);
    default:
        return sm4_ctr_crypt(key, iv, in, out, len);
    }
}

static void one_shot(fz_reader *r, const sm4_impl *impl, sm4_mode mode, int encrypt, const sm4_key *key,
                     const uint8_t *iv, const uint8_t *msg, const uint8_t *want, size_t len)
{
    fz_buf bi, bo;
    uint8_t *in = fz_alloc_from(r, &bi, len);
    const int in_place = fz_bool(r);
    uint8_t *out = in_place ? in : fz_alloc_from(r, &bo, len);
    memcpy(in, msg, len);
    const int use_wrapper = impl == NULL && fz_bool(r);
    const int rc = use_wrapper ? wrapper(mode, encrypt, key, iv, in, out, len)
                               : sm4_crypt(impl, mode, encrypt ? SM4_ENCRYPT : SM4_DECRYPT, key, iv, in, out, len);
    FZ_CHECK("sm4-one-shot", rc == SM4_OK, "%s returned %d", use_wrapper ? "wrapper" : "sm4_crypt", rc);
    FZ_SAME("sm4-one-shot", out, want, len, "one-shot output against the reference");
    if (!in_place)
        FZ_SAME("sm4-one-shot", in, msg, len, "the input was written");
    FZ_CHECK("sm4-bounds", fz_canary_intact(&bi) && (in_place || fz_canary_intact(&bo)),
             "bytes around a buffer were written");
    fz_free(&bi);
    if (!in_place)
        fz_free(&bo);
}

/* ECB and CBC refuse a length that is not whole blocks and write nothing. */
static void partial_block(fz_reader *r, const sm4_impl *impl, sm4_mode mode, int encrypt, const sm4_key *key,
                          const uint8_t *iv, const uint8_t *msg, size_t len)
{
    if (mode == SM4_MODE_CTR || len % 16 == 0)
        return;
    fz_buf bo;
    uint8_t *out = fz_alloc_from(r, &bo, len);
    memset(out, FZ_CANARY, len);
    const int rc = sm4_crypt(impl, mode, encrypt ? SM4_ENCRYPT : SM4_DECRYPT, key, iv, msg, out, len);
    FZ_CHECK("sm4-length", rc == SM4_ERR_LENGTH, "sm4_crypt on %zu bytes returned %d", len, rc);
    for (size_t i = 0; i < len; i++)
        FZ_CHECK("sm4-length", out[i] == FZ_CANARY, "refused call wrote byte %zu", i);
    fz_free(&bo);
}

/* ------------------------------------------------------------------ */
/* Incremental calls                                                    */
/* ------------------------------------------------------------------ */

static void incremental(fz_reader *r, const sm4_impl *impl, sm4_mode mode, int encrypt, const sm4_key *key,
                        const uint8_t *iv, const uint8_t *msg, const uint8_t *want, size_t len)
{
    if (mode == SM4_MODE_ECB)
        return;
    fz_buf bi, bo;
    uint8_t *in = fz_alloc_from(r, &bi, len);
    const int in_place = fz_bool(r);
    uint8_t *out = in_place ? in : fz_alloc_from(r, &bo, len);
    memcpy(in, msg, len);
    if (!in_place)
        memset(out, FZ_CANARY, len);
    /* The state on the heap at its exact size: ASan sees past its end. */
    sm4_ctr_state *ctr = malloc(sizeof *ctr);
    sm4_cbc_state *cbc = malloc(sizeof *cbc);
    memset(ctr, fz_u8(r), sizeof *ctr); /* whatever was there before: init overwrites it */
    memset(cbc, fz_u8(r), sizeof *cbc);
    int rc = mode == SM4_MODE_CTR ? sm4_ctr_init(ctr, impl, key, iv)
                                  : sm4_cbc_init(cbc, impl, encrypt ? SM4_ENCRYPT : SM4_DECRYPT, key, iv);
    FZ_CHECK("sm4-incremental", rc == SM4_OK, "init returned %d", rc);
    const size_t unit = mode == SM4_MODE_CTR ? 1 : 16;
    size_t done = 0;
    int pieces = 0;
    while (done < len || pieces == 0) {
        if (mode == SM4_MODE_CBC && fz_u8(r) % 8 == 0 && len - done > 0) {
            /* A piece of partial blocks: refused, nothing written, the state unchanged. */
            const size_t bad = len - done < 16 ? len - done : 1 + fz_below(r, len - done - 1);
            if (bad % 16) {
                uint8_t before[64];
                const size_t look = len - done < sizeof before ? len - done : sizeof before;
                memcpy(before, out + done, look);
                rc = sm4_cbc_update(cbc, in + done, out + done, bad);
                FZ_CHECK("sm4-incremental", rc == SM4_ERR_LENGTH, "cbc_update(%zu) returned %d", bad, rc);
                FZ_SAME("sm4-incremental", out + done, before, look, "a refused piece wrote");
            }
        }
#ifdef SM4_MAX_LENGTH
        if (fz_u8(r) % 16 == 0 && FZ_WANTED("sm4-huge-length")) {
            const size_t huge = fz_past(r, SM4_MAX_LENGTH) / unit * unit;
            rc = mode == SM4_MODE_CTR ? sm4_ctr_update(ctr, fz_noaccess(), out, huge)
                                      : sm4_cbc_update(cbc, fz_noaccess(), out, huge);
            FZ_CHECK("sm4-huge-length", rc == SM4_ERR_LENGTH, "update(%zu) returned %d", huge, rc);
        }
#endif
        const size_t n = fz_piece(r, len - done, unit);
        rc = mode == SM4_MODE_CTR ? sm4_ctr_update(ctr, in + done, out + done, n)
                                  : sm4_cbc_update(cbc, in + done, out + done, n);
        FZ_CHECK("sm4-incremental", rc == SM4_OK, "update(%zu) at %zu returned %d", n, done, rc);
        done += n;
        if (++pieces > 4000) /* pieces of 0: the input ran out of decisions */
            break;
        if (n == 0 && r->front >= r->back && done < len) {
            rc = mode == SM4_MODE_CTR ? sm4_ctr_update(ctr, in + done, out + done, len - done)
                                      : sm4_cbc_update(cbc, in + done, out + done, len - done);
            FZ_CHECK("sm4-incremental", rc == SM4_OK, "update(rest) returned %d", rc);
            done = len;
        }
    }
    FZ_SAME("sm4-incremental", out, want, done, "incremental output against the reference");
    const int reset = fz_u8(r) % 4 == 0;
    if (mode == SM4_MODE_CTR) {
        if (reset)
            sm4_ctr_reset(ctr);
        else
            FZ_CHECK("sm4-incremental", sm4_ctr_final(ctr) == SM4_OK, "ctr_final failed");
    } else {
        if (reset)
            sm4_cbc_reset(cbc);
        else
            FZ_CHECK("sm4-incremental", sm4_cbc_final(cbc) == SM4_OK, "cbc_final failed");
    }
    /* Finished: refused, nothing written, and the state is all zero. */
    const uint8_t *st = mode == SM4_MODE_CTR ? (const uint8_t *)ctr : (const uint8_t *)cbc;
    const size_t st_size = mode == SM4_MODE_CTR ? sizeof *ctr : sizeof *cbc;
    for (size_t i = 0; i < st_size; i++)
        FZ_CHECK("sm4-incremental", st[i] == 0, "state byte %zu not wiped", i);
    if (len >= 16) {
        uint8_t before[16];
        memcpy(before, out, 16);
        rc = mode == SM4_MODE_CTR ? sm4_ctr_update(ctr, in, out, 16) : sm4_cbc_update(cbc, in, out, 16);
        FZ_CHECK("sm4-incremental", rc == SM4_ERR_STATE, "update after final returned %d", rc);
        FZ_SAME("sm4-incremental", out, before, 16, "update after final wrote");
    }
    rc = mode == SM4_MODE_CTR ? sm4_ctr_final(ctr) : sm4_cbc_final(cbc);
    FZ_CHECK("sm4-incremental", rc == SM4_ERR_STATE, "final after final returned %d", rc);
    FZ_CHECK("sm4-bounds", fz_canary_intact(&bi) && (in_place || fz_canary_intact(&bo)),
             "bytes around a buffer were written");
    free(ctr);
    free(cbc);
    fz_free(&bi);
    if (!in_place)
        fz_free(&bo);
}

/* ------------------------------------------------------------------ */
/* The kernel's own entry points                                        */
/* ------------------------------------------------------------------ */

static void entry_points(fz_reader *r, const sm4_impl *impl, int encrypt, const sm4_key *key, const uint8_t *msg,
                         size_t len)
{
    if (impl == NULL)
        return;
    const size_t nblocks = len / 16, bytes = nblocks * 16;
    const sm4_direction dir = encrypt ? SM4_ENCRYPT : SM4_DECRYPT;
    uint8_t *blocks = malloc(bytes + 1), *want = malloc(bytes + 1);
    fz_data(r, blocks, bytes);
    for (size_t i = 0; i < nblocks; i++)
        block(key, encrypt, blocks + 16 * i, want + 16 * i);

    fz_buf bi, bo, bs;
    uint8_t *in = fz_alloc_from(r, &bi, bytes);
    memcpy(in, blocks, bytes);
    const int in_place = fz_bool(r);
    uint8_t *out = in_place ? in : fz_alloc_from(r, &bo, bytes);
    impl->crypt_blocks(key, dir, in, out, nblocks);
    FZ_SAME("sm4-kernel", out, want, bytes, "crypt_blocks against the reference");
    if (!in_place)
        fz_free(&bo);

    if (impl->crypt_blocks_xor) {
        memcpy(in, blocks, bytes);
        uint8_t *src = fz_alloc_from(r, &bs, bytes);
        memcpy(src, msg, bytes);
        const int src_is_out = fz_bool(r); /* src may equal out, in may not */
        out = src_is_out ? src : fz_alloc_from(r, &bo, bytes);
        for (size_t i = 0; i < bytes; i++)
            want[i] ^= msg[i];
        impl->crypt_blocks_xor(key, dir, in, src, out, nblocks);
        FZ_SAME("sm4-kernel", out, want, bytes, "crypt_blocks_xor against the reference");
        FZ_SAME("sm4-kernel", in, blocks, bytes, "crypt_blocks_xor wrote its input");
        FZ_CHECK("sm4-bounds", fz_canary_intact(&bs) && (src_is_out || fz_canary_intact(&bo)),
                 "bytes around a buffer were written");
        if (!src_is_out)
            fz_free(&bo);
        fz_free(&bs);
    }
    FZ_CHECK("sm4-bounds", fz_canary_intact(&bi), "bytes around a buffer were written");
    fz_free(&bi);
    free(blocks);
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

/* The code a refused enum must give: SM4_ERR_ARGUMENT where the library
 * has it, else any error. */
#ifdef SM4_ERR_ARGUMENT
#define ENUM_REFUSED(rc) ((rc) == SM4_ERR_ARGUMENT)
#define MODES_WITH_DIRECTION 3 /* CTR's direction is checked too */
#else
#define ENUM_REFUSED(rc) ((rc) < 0)
#define MODES_WITH_DIRECTION 2
#endif

static void bad_enums(fz_reader *r, const sm4_impl *impl, const sm4_key *key, const uint8_t *iv,
                      const uint8_t *msg)
{
    const size_t len = 16 * (1 + fz_below(r, 8));
    fz_buf bo;
    uint8_t *out = fz_alloc_from(r, &bo, len);
    memset(out, FZ_CANARY, len);
    const int dir = bad_enum(r, 0, 1), mode = bad_enum(r, 0, 2);
    const sm4_mode good_mode = (sm4_mode)fz_below(r, MODES_WITH_DIRECTION);
    FZ_CONTEXT("sm4 bad enums: impl %s, dir %d, mode %d, len %zu", impl_name(impl), dir, mode, len);
    int rc;
    if (FZ_WANTED("sm4-bad-direction")) {
        rc = sm4_crypt(impl, good_mode, (sm4_direction)dir, key, iv, msg, out, len);
        FZ_CHECK("sm4-bad-direction", ENUM_REFUSED(rc), "sm4_crypt(mode %d, direction %d) returned %d", good_mode,
                 dir, rc);
        for (size_t i = 0; i < len; i++)
            FZ_CHECK("sm4-bad-direction", out[i] == FZ_CANARY, "refused sm4_crypt wrote byte %zu", i);

        sm4_cbc_state st;
        rc = sm4_cbc_init(&st, impl, (sm4_direction)dir, key, iv);
        FZ_CHECK("sm4-bad-direction", ENUM_REFUSED(rc), "sm4_cbc_init(direction %d) returned %d", dir, rc);
        rc = sm4_cbc_update(&st, msg, out, len);
        FZ_CHECK("sm4-bad-direction", rc == SM4_ERR_STATE, "cbc_update after a refused init returned %d", rc);
        for (size_t i = 0; i < len; i++)
            FZ_CHECK("sm4-bad-direction", out[i] == FZ_CANARY, "cbc_update after a refused init wrote byte %zu", i);
        sm4_cbc_reset(&st);
    }
    if (FZ_WANTED("sm4-bad-mode")) {
        rc = sm4_crypt(impl, (sm4_mode)mode, fz_bool(r) ? SM4_ENCRYPT : SM4_DECRYPT, key, iv, msg, out, len);
        FZ_CHECK("sm4-bad-mode", ENUM_REFUSED(rc), "sm4_crypt(mode %d) returned %d", mode, rc);
        for (size_t i = 0; i < len; i++)
            FZ_CHECK("sm4-bad-mode", out[i] == FZ_CANARY, "refused sm4_crypt wrote byte %zu", i);
    }
#ifdef SM4_MAX_LENGTH
    if (FZ_WANTED("sm4-huge-length")) {
        /* A length past SM4_MAX_LENGTH: refused before the input is read. */
        const sm4_mode m = (sm4_mode)fz_below(r, 3);
        const size_t huge = fz_past(r, SM4_MAX_LENGTH) / 16 * 16;
        rc = sm4_crypt(impl, m, fz_bool(r) ? SM4_ENCRYPT : SM4_DECRYPT, key, iv, fz_noaccess(), out, huge);
        FZ_CHECK("sm4-huge-length", rc == SM4_ERR_LENGTH, "sm4_crypt(mode %d, %zu bytes) returned %d", m, huge, rc);
        for (size_t i = 0; i < len; i++)
            FZ_CHECK("sm4-huge-length", out[i] == FZ_CANARY, "refused sm4_crypt wrote byte %zu", i);
    }
#endif
    fz_free(&bo);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    fz_reader r = fz_reader_init(data, size);
    const unsigned op = fz_u8(&r), how = fz_u8(&r);
    uint8_t key_bytes[16], iv[16];
    fz_data(&r, key_bytes, 16);
    read_iv(&r, iv);
    sm4_key *key = malloc(sizeof *key); /* heap, exact size: ASan sees a read past it */
    sm4_set_key(key, key_bytes);
    const size_t choice = fz_below(&r, n_impls + 1);
    const sm4_impl *impl = choice < n_impls ? impls[choice] : NULL;
    uint8_t *msg = malloc(MAX_LEN + 32), *want = malloc(MAX_LEN + 32);
    fz_data(&r, msg, 32); /* the rest of the message once its length is known */

    if (op % 16 == 15) {
        bad_enums(&r, impl, key, iv, msg);
    } else {
        const sm4_mode mode = (sm4_mode)(how % 3);
        const int encrypt = (how >> 2) & 1;
        size_t len = fz_length(&r, MAX_LEN, 16);
        fz_data(&r, msg + 32, len > 32 ? len - 32 : 0);
        const size_t whole = mode == SM4_MODE_CTR ? len : len / 16 * 16;
        FZ_CONTEXT("sm4 %s %s, impl %s, len %zu", mode == SM4_MODE_ECB ? "ECB" : mode == SM4_MODE_CBC ? "CBC" : "CTR",
                   encrypt ? "encrypt" : "decrypt", impl_name(impl), whole);
        oracle(key, mode, encrypt, iv, msg, want, whole);
        one_shot(&r, impl, mode, encrypt, key, iv, msg, want, whole);
        incremental(&r, impl, mode, encrypt, key, iv, msg, want, whole);
        partial_block(&r, impl, mode, encrypt, key, iv, msg, len);
        entry_points(&r, impl, encrypt, key, msg, whole);
    }
    free(msg);
    free(want);
    free(key);
    return 0;
}
