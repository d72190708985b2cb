/*
 * fuzz_zuc: ZUC-128 and ZUC-256 encryption (EEA) and MACs (every tag length
 * and MAC method), one-shot, incremental and many streams at once, on every
 * kernel this CPU runs, against the oracle of zuc_oracle.h (the core's scalar
 * rounds, the MACs bit by bit).
 *
 * Each input picks a variant and IV form (16; 25 or 23 bytes), key and IV
 * (sometimes a 25-byte IV with a bit above IV17..IV24's six set: then every
 * call must refuse it with ZUC_ERR_IV_VALUE), a kernel (any native one,
 * assembly twins and the reference included, SIMDe builds when linked, or
 * NULL) and a length in bits, then one of:
 *   - EEA: zuc_encrypt, zuc_encrypt_lanes with that kernel, and zuc_eea_*
 *     over random whole-byte pieces and a last piece in bits (a refused
 *     piece with a NULL buffer on the way, which must leave the stream as it
 *     was), in place or not; after final or reset the state is zero and
 *     refused;
 *   - MAC: zuc_mac, zuc_mac_lanes with every method (one this CPU lacks must
 *     give ZUC_ERR_NO_IMPL), zuc_mac_* in pieces; a tag length the variant
 *     has not is ZUC_ERR_TAG_LENGTH;
 *   - many streams: zuc_encrypt_lanes and zuc_mac_lanes on up to 40 streams
 *     (across batches and kernels' lane counts) of their own keys, IVs and
 *     lengths (NULL buffers for empty ones), each against the oracle;
 *   - the kernel's entry points (init_rounds, keystream_block,
 *     keystream_xor) on random lane states, lane by lane against the
 *     reference kernel, each lane's row on its own guarded buffer.
 */
#include "fuzz_util.h"
#include "zuc.h"
#include "zuc_oracle.h"

#define MAX_BYTES 6000 /* past the batch's keystream refill (1 KiB per lane) */
#define MAX_STREAMS 40

FZ_IMPLS(zuc)
static const zuc_impl *ref;

static void setup(void)
{
    if (ref)
        return;
    collect_impls();
    ref = zuc_impl_find("reference", "scalar", 0);
    if (!ref)
        abort();
}

typedef struct {
    zuc_variant variant;
    uint8_t key[32], iv[25];
    size_t key_len, iv_len;
    int iv_bad; /* a 25-byte IV with a bit above the six of IV17..IV24 */
} params;

static void read_params(fz_reader *r, params *p, int form)
{
    static const size_t iv_lens[3] = {16, 25, 23};
    form %= 3;
    p->variant = form == 0 ? ZUC_128 : ZUC_256;
    p->key_len = form == 0 ? 16 : 32;
    p->iv_len = iv_lens[form];
    fz_data(r, p->key, p->key_len);
    fz_data(r, p->iv, p->iv_len);
    p->iv_bad = 0;
    if (p->iv_len == 25) {
        for (int i = 17; i < 25; i++)
            p->iv[i] &= 0x3f;
        if (fz_u8(r) % 16 == 0) {
            p->iv[17 + fz_below(r, 8)] |= (uint8_t)(0x40 << fz_below(r, 2));
            p->iv_bad = 1;
        }
    }
}

/* The bits of a message of up to max_bytes: often whole bytes, often not. */
static size_t read_bits(fz_reader *r, size_t max_bytes)
{
    const size_t bytes = fz_length(r, max_bytes, 64);
    const size_t cut = fz_u8(r) % 3 == 0 ? 0 : fz_below(r, 8);
    return bytes * 8 >= cut ? bytes * 8 - cut : 0;
}

/* ------------------------------------------------------------------ */
/* Encryption                                                           */
/* ------------------------------------------------------------------ */

static void eea(fz_reader *r, const params *p, const zuc_impl *impl, const uint8_t *msg, size_t bits)
{
    const size_t bytes = (bits + 7) / 8;
    uint8_t *want = malloc(bytes + 1);
    fz_buf bi, bo;
    int rc;
    if (p->iv_bad) {
        uint8_t out[8];
        rc = zuc_encrypt(p->variant, p->key, p->key_len, p->iv, p->iv_len, msg, out, bits < 64 ? bits : 64);
        FZ_CHECK("zuc-iv", rc == ZUC_ERR_IV_VALUE, "zuc_encrypt with a bad IV returned %d", rc);
        zuc_eea_state st;
        rc = zuc_eea_init(&st, impl, p->variant, p->key, p->key_len, p->iv, p->iv_len);
        FZ_CHECK("zuc-iv", rc == ZUC_ERR_IV_VALUE, "zuc_eea_init with a bad IV returned %d", rc);
        rc = zuc_eea_update(&st, msg, out, 1);
        FZ_CHECK("zuc-iv", rc == ZUC_ERR_STATE, "update after a refused init returned %d", rc);
        free(want);
        return;
    }
    rc = zo_encrypt(p->variant, p->key, p->key_len, p->iv, p->iv_len, msg, want, bits);
    FZ_CHECK("zuc-oracle", rc == ZUC_OK, "the oracle's zuc_init returned %d", rc);

    /* One-shot, and the lanes call with the chosen kernel (one stream). */
    for (int pass = 0; pass < 2; pass++) {
        uint8_t *in = fz_alloc_from(r, &bi, bytes);
        memcpy(in, msg, bytes);
        const int in_place = fz_bool(r);
        uint8_t *out = in_place ? in : fz_alloc_from(r, &bo, bytes);
        if (pass == 0) {
            rc = zuc_encrypt(p->variant, p->key, p->key_len, p->iv, p->iv_len, in, out, bits);
        } else {
            const uint8_t *keys[1] = {p->key}, *ivs[1] = {p->iv}, *ins[1] = {in};
            uint8_t *outs[1] = {out};
            rc = zuc_encrypt_lanes(impl, p->variant, 1, keys, ivs, p->iv_len, ins, outs, &bits);
        }
        FZ_CHECK("zuc-eea", rc == ZUC_OK, "%s returned %d", pass ? "zuc_encrypt_lanes" : "zuc_encrypt", rc);
        FZ_SAME("zuc-eea", out, want, bytes, pass ? "zuc_encrypt_lanes against the oracle" : "zuc_encrypt against the oracle");
        if (!in_place)
            FZ_SAME("zuc-eea", in, msg, bytes, "the input was written");
        FZ_CHECK("zuc-bounds", fz_canary_intact(&bi) && (in_place || fz_canary_intact(&bo)), "bytes around a buffer were written");
        fz_free(&bi);
        if (!in_place)
            fz_free(&bo);
    }

    /* In pieces: whole bytes through update, the rest (in bits) through final. */
    uint8_t *in = fz_alloc_from(r, &bi, bytes);
    memcpy(in, msg, bytes);
    const int in_place = fz_bool(r);
    uint8_t *out = in_place ? in : fz_alloc_from(r, &bo, bytes);
    zuc_eea_state *st = malloc(sizeof *st);
    memset(st, fz_u8(r), sizeof *st);
    rc = zuc_eea_init(st, impl, p->variant, p->key, p->key_len, p->iv, p->iv_len);
    FZ_CHECK("zuc-eea-incremental", rc == ZUC_OK, "zuc_eea_init returned %d", rc);
    const size_t updated = fz_below(r, bits / 8 + 1); /* bytes through update; the final gets the rest */
    size_t done = 0;
    int pieces = 0;
    while (done < updated) {
        if (fz_u8(r) % 16 == 0) { /* a refused piece: NULL where data is needed */
            rc = zuc_eea_update(st, NULL, out + done, 1 + fz_below(r, 100));
            FZ_CHECK("zuc-eea-incremental", rc == ZUC_ERR_ARGUMENT, "update with in NULL returned %d", rc);
        }
        size_t n = fz_piece(r, updated - done, 1);
        if ((n == 0 && r->front >= r->back) || ++pieces > 4000)
            n = updated - done;
        rc = zuc_eea_update(st, n ? in + done : NULL, n ? out + done : NULL, n);
        FZ_CHECK("zuc-eea-incremental", rc == ZUC_OK, "update(%zu) at %zu returned %d", n, done, rc);
        done += n;
    }
    const size_t final_bits = bits - 8 * done;
    rc = zuc_eea_final(st, final_bits ? in + done : NULL, final_bits ? out + done : NULL, final_bits);
    FZ_CHECK("zuc-eea-incremental", rc == ZUC_OK, "final(%zu bits) returned %d", final_bits, rc);
    FZ_SAME("zuc-eea-incremental", out, want, bytes, "zuc_eea_* against the oracle");
    for (size_t i = 0; i < sizeof *st; i++)
        FZ_CHECK("zuc-eea-incremental", ((const uint8_t *)st)[i] == 0, "state byte %zu not wiped by final", i);
    if (bytes) {
        const uint8_t before = out[0];
        rc = zuc_eea_update(st, in, out, 1);
        FZ_CHECK("zuc-eea-incremental", rc == ZUC_ERR_STATE && out[0] == before, "update after final returned %d", rc);
        rc = zuc_eea_final(st, in, out, 8);
        FZ_CHECK("zuc-eea-incremental", rc == ZUC_ERR_STATE && out[0] == before, "final after final returned %d", rc);
    }
    FZ_CHECK("zuc-bounds", fz_canary_intact(&bi) && (in_place || fz_canary_intact(&bo)), "bytes around a buffer were written");
    free(st);
    fz_free(&bi);
    if (!in_place)
        fz_free(&bo);
    free(want);
}

/* ------------------------------------------------------------------ */
/* MACs                                                                 */
/* ------------------------------------------------------------------ */

static unsigned read_tag_bits(fz_reader *r, zuc_variant variant, int *bad)
{
    static const unsigned tags[] = {32, 64, 128};
    static const unsigned wrong[] = {0, 1, 16, 33, 96, 127, 256, 0xffffffffu, 64, 128};
    *bad = fz_u8(r) % 16 == 0;
    if (*bad) /* ZUC-128 has only 32: its 64 and 128 are wrong too */
        return wrong[fz_below(r, variant == ZUC_128 ? 10 : 8)];
    return variant == ZUC_128 ? 32 : tags[fz_below(r, 3)];
}

static void mac(fz_reader *r, const params *p, const zuc_impl *impl, const uint8_t *msg, size_t bits)
{
    int bad_tag;
    const unsigned tag_bits = read_tag_bits(r, p->variant, &bad_tag);
    const size_t tag_bytes = tag_bits / 8 < 16 ? tag_bits / 8 : 16;
    uint8_t want[16], tag[16];
    int rc;
    FZ_CONTEXT("zuc-%d MAC, iv %zu bytes%s, tag %u, impl %s, %zu bits", p->variant, p->iv_len,
               p->iv_bad ? " (bad)" : "", tag_bits, impl_name(impl), bits);
    if (bad_tag || p->iv_bad) {
        const int expect = bad_tag ? ZUC_ERR_TAG_LENGTH : ZUC_ERR_IV_VALUE;
        memset(tag, FZ_CANARY, sizeof tag);
        rc = zuc_mac(p->variant, p->key, p->key_len, p->iv, p->iv_len, msg, bits, tag_bits, tag);
        FZ_CHECK("zuc-mac-args", rc == expect, "zuc_mac returned %d, want %d", rc, expect);
        zuc_mac_state st;
        rc = zuc_mac_init(&st, impl, p->variant, p->key, p->key_len, p->iv, p->iv_len, tag_bits);
        FZ_CHECK("zuc-mac-args", rc == expect, "zuc_mac_init returned %d, want %d", rc, expect);
        rc = zuc_mac_final(&st, msg, bits < 64 ? bits : 64, tag);
        FZ_CHECK("zuc-mac-args", rc == ZUC_ERR_STATE, "final after a refused init returned %d", rc);
        for (size_t i = 0; i < sizeof tag; i++)
            FZ_CHECK("zuc-mac-args", tag[i] == FZ_CANARY, "a refused call wrote tag byte %zu", i);
        return;
    }
    rc = zo_mac(p->variant, p->key, p->key_len, p->iv, p->iv_len, msg, bits, tag_bits, want);
    FZ_CHECK("zuc-oracle", rc == ZUC_OK, "the oracle returned %d", rc);

    fz_buf bm;
    const size_t bytes = (bits + 7) / 8;
    uint8_t *m = fz_alloc_from(r, &bm, bytes);
    memcpy(m, msg, bytes);
    rc = zuc_mac(p->variant, p->key, p->key_len, p->iv, p->iv_len, m, bits, tag_bits, tag);
    FZ_CHECK("zuc-mac", rc == ZUC_OK, "zuc_mac returned %d", rc);
    FZ_SAME("zuc-mac", tag, want, tag_bytes, "zuc_mac against the oracle");

    const zuc_mac_method method = (zuc_mac_method)fz_below(r, 5);
    const uint8_t *keys[1] = {p->key}, *ivs[1] = {p->iv}, *msgs[1] = {m};
    uint8_t *tags[1] = {tag};
    memset(tag, 0, sizeof tag);
    rc = zuc_mac_lanes(impl, method, p->variant, 1, keys, ivs, p->iv_len, msgs, &bits, tag_bits, tags);
    if (zuc_mac_method_supported(method)) {
        FZ_CHECK("zuc-mac", rc == ZUC_OK, "zuc_mac_lanes(method %d) returned %d", method, rc);
        FZ_SAME("zuc-mac", tag, want, tag_bytes, "zuc_mac_lanes against the oracle");
    } else {
        FZ_CHECK("zuc-mac", rc == ZUC_ERR_NO_IMPL, "zuc_mac_lanes(method %d, not supported) returned %d", method, rc);
    }

    /* In pieces. */
    zuc_mac_state *st = malloc(sizeof *st);
    memset(st, fz_u8(r), sizeof *st);
    rc = zuc_mac_init(st, impl, p->variant, p->key, p->key_len, p->iv, p->iv_len, tag_bits);
    FZ_CHECK("zuc-mac-incremental", rc == ZUC_OK, "zuc_mac_init returned %d", rc);
    const size_t updated = fz_below(r, bits / 8 + 1);
    size_t done = 0;
    int pieces = 0;
    while (done < updated) {
        if (fz_u8(r) % 16 == 0) {
            rc = zuc_mac_update(st, NULL, 1 + fz_below(r, 100));
            FZ_CHECK("zuc-mac-incremental", rc == ZUC_ERR_ARGUMENT, "update with msg NULL returned %d", rc);
        }
        size_t n = fz_piece(r, updated - done, 1);
        if ((n == 0 && r->front >= r->back) || ++pieces > 4000)
            n = updated - done;
        rc = zuc_mac_update(st, n ? m + done : NULL, n);
        FZ_CHECK("zuc-mac-incremental", rc == ZUC_OK, "update(%zu) at %zu returned %d", n, done, rc);
        done += n;
    }
    const size_t final_bits = bits - 8 * done;
    memset(tag, 0, sizeof tag);
    rc = zuc_mac_final(st, final_bits ? m + done : NULL, final_bits, tag);
    FZ_CHECK("zuc-mac-incremental", rc == ZUC_OK, "final(%zu bits) returned %d", final_bits, rc);
    FZ_SAME("zuc-mac-incremental", tag, want, tag_bytes, "zuc_mac_* against the oracle");
    for (size_t i = 0; i < sizeof *st; i++)
        FZ_CHECK("zuc-mac-incremental", ((const uint8_t *)st)[i] == 0, "state byte %zu not wiped by final", i);
    rc = zuc_mac_update(st, m, bytes);
    FZ_CHECK("zuc-mac-incremental", rc == ZUC_ERR_STATE, "update after final returned %d", rc);
    FZ_CHECK("zuc-bounds", fz_canary_intact(&bm), "bytes around a buffer were written");
    free(st);
    fz_free(&bm);
}

/* ------------------------------------------------------------------ */
/* Many streams                                                         */
/* ------------------------------------------------------------------ */

static void lanes(fz_reader *r, int form, const zuc_impl *impl)
{
    const size_t n = fz_below(r, MAX_STREAMS + 1);
    const int do_mac = fz_bool(r);
    params ps[MAX_STREAMS];
    size_t bits[MAX_STREAMS];
    const uint8_t *keys[MAX_STREAMS], *ivs[MAX_STREAMS], *ins[MAX_STREAMS];
    uint8_t *outs[MAX_STREAMS], *msgs[MAX_STREAMS];
    fz_buf bufs[MAX_STREAMS];
    int bad_tag = 0;
    const zuc_variant variant = form % 3 == 0 ? ZUC_128 : ZUC_256;
    unsigned tag_bits = do_mac ? read_tag_bits(r, variant, &bad_tag) : 0;
    if (bad_tag)
        tag_bits = 32;
    const size_t iv_len = form % 3 == 0 ? 16 : form % 3 == 1 ? 25 : 23;
    const zuc_mac_method method = (zuc_mac_method)fz_below(r, 5);
    const int in_place = fz_bool(r);
    FZ_CONTEXT("zuc-%d lanes %s, %zu streams, impl %s, tag %u, method %d", variant, do_mac ? "MAC" : "EEA", n,
               impl_name(impl), tag_bits, method);
    for (size_t j = 0; j < n; j++) {
        read_params(r, &ps[j], form);
        if (ps[j].iv_bad) { /* one bad IV refuses the whole call; keep them good here */
            for (int i = 17; i < 25; i++)
                ps[j].iv[i] &= 0x3f;
            ps[j].iv_bad = 0;
        }
        bits[j] = read_bits(r, 1500);
        const size_t bytes = (bits[j] + 7) / 8;
        msgs[j] = malloc(bytes + 1);
        fz_data(r, msgs[j], bytes);
        keys[j] = ps[j].key, ivs[j] = ps[j].iv;
        if (bytes == 0 && fz_bool(r)) { /* an empty stream may have NULL buffers */
            outs[j] = NULL, ins[j] = NULL, bufs[j].mem = NULL;
            continue;
        }
        outs[j] = fz_alloc_from(r, &bufs[j], do_mac ? tag_bits / 8 : bytes);
        if (!do_mac && in_place)
            memcpy(outs[j], msgs[j], bytes);
        ins[j] = !do_mac && in_place ? outs[j] : msgs[j];
    }
    int rc;
    if (!do_mac) {
        rc = zuc_encrypt_lanes(impl, variant, n, keys, ivs, iv_len, ins, outs, bits);
        FZ_CHECK("zuc-lanes", rc == ZUC_OK || n == 0, "zuc_encrypt_lanes returned %d", rc);
    } else {
        for (size_t j = 0; j < n; j++)
            if (!outs[j]) /* a tag is always written */
                outs[j] = fz_alloc(&bufs[j], tag_bits / 8, FZ_HEAP, 0);
        rc = zuc_mac_lanes(impl, method, variant, n, keys, ivs, iv_len, ins, bits, tag_bits, outs);
        if (!zuc_mac_method_supported(method)) {
            FZ_CHECK("zuc-lanes", rc == ZUC_ERR_NO_IMPL || n == 0, "zuc_mac_lanes(method %d) returned %d", method, rc);
        } else {
            FZ_CHECK("zuc-lanes", rc == ZUC_OK || n == 0, "zuc_mac_lanes returned %d", rc);
        }
    }
    for (size_t j = 0; j < n; j++) {
        const size_t bytes = (bits[j] + 7) / 8;
        if (rc == ZUC_OK) {
            uint8_t want_tag[16];
            uint8_t *want = malloc(bytes + 1);
            if (do_mac) {
                zo_mac(variant, ps[j].key, ps[j].key_len, ps[j].iv, ps[j].iv_len, msgs[j], bits[j], tag_bits, want_tag);
                FZ_SAME("zuc-lanes", outs[j], want_tag, tag_bits / 8, "a stream's tag against the oracle");
            } else if (bytes) {
                zo_encrypt(variant, ps[j].key, ps[j].key_len, ps[j].iv, ps[j].iv_len, msgs[j], want, bits[j]);
                FZ_SAME("zuc-lanes", outs[j], want, bytes, "a stream's output against the oracle");
            }
            free(want);
        }
        if (bufs[j].mem) {
            FZ_CHECK("zuc-bounds", fz_canary_intact(&bufs[j]), "bytes around stream %zu's buffer were written", j);
            fz_free(&bufs[j]);
        }
        free(msgs[j]);
    }
}

/* ------------------------------------------------------------------ */
/* The kernel's own entry points                                        */
/* ------------------------------------------------------------------ */

/* Lane j of an interleaved state (word i of lane j at i * lanes + j). */
static void lane_get(const uint32_t *state, unsigned lanes, unsigned j, uint32_t *words)
{
    for (unsigned i = 0; i < ZUC_STATE_WORDS; i++)
        words[i] = state[i * lanes + j];
}

static void lane_put(uint32_t *state, unsigned lanes, unsigned j, const uint32_t *words)
{
    for (unsigned i = 0; i < ZUC_STATE_WORDS; i++)
        state[i * lanes + j] = words[i];
}

/* init_rounds, keystream_block and keystream_xor of a kernel on random lane
 * states (31-bit cells, none 0), each lane against the reference kernel on the same
 * state; the rows of each lane placed on their own (guarded) buffers. */
static void kernel_entries(fz_reader *r, const zuc_impl *impl)
{
    if (impl == NULL)
        impl = zuc_impl_best();
    const unsigned lanes = impl->lanes, rl = ref->lanes;
    const size_t state_bytes = (ZUC_STATE_WORDS * ZUC_LANES_MAX * 4 + 63) / 64 * 64;
    uint32_t *state = aligned_alloc(64, state_bytes), *rstate = aligned_alloc(64, state_bytes);
    uint32_t words[ZUC_LANES_MAX][ZUC_STATE_WORDS], got[ZUC_STATE_WORDS], want[ZUC_STATE_WORDS];
    for (unsigned j = 0; j < lanes; j++) {
        uint8_t raw[4 * ZUC_STATE_WORDS];
        fz_data(r, raw, sizeof raw);
        for (unsigned i = 0; i < ZUC_STATE_WORDS; i++) {
            words[j][i] = (uint32_t)raw[4 * i] << 24 | (uint32_t)raw[4 * i + 1] << 16 | (uint32_t)raw[4 * i + 2] << 8 |
                          raw[4 * i + 3];
            if (i < 16) { /* a cell is in 1 .. 2^31 - 1, as ZUC keeps it (0 never occurs) */
                words[j][i] &= 0x7fffffff;
                if (words[j][i] == 0)
                    words[j][i] = 0x7fffffff;
            }
        }
        lane_put(state, lanes, j, words[j]);
    }
    static const char *const ops[] = {"init_rounds", "keystream_block", "keystream_xor", "keystream_word"};
    const unsigned op = fz_u8(r) % 4;
    const int rows_op = op == 1 || op == 2; /* the ops that write rows */
    FZ_CONTEXT("zuc kernel %s (%u lanes): %s", impl->name, lanes, ops[op]);
    uint32_t word[ZUC_LANES_MAX], ref_word[ZUC_LANES_MAX];
    fz_buf bufs[ZUC_LANES_MAX], srcs[ZUC_LANES_MAX];
    uint8_t *out[ZUC_LANES_MAX];
    const uint8_t *src[ZUC_LANES_MAX];
    uint8_t msg[ZUC_LANES_MAX][64] = {{0}};
    const int in_place = fz_bool(r);
    for (unsigned j = 0; rows_op && j < lanes; j++) {
        out[j] = fz_alloc_from(r, &bufs[j], 64);
        fz_data(r, msg[j], 64);
        if (in_place) {
            memcpy(out[j], msg[j], 64);
            src[j] = out[j];
        } else {
            src[j] = fz_alloc_from(r, &srcs[j], 64);
            memcpy((uint8_t *)src[j], msg[j], 64);
        }
    }
    if (op == 0)
        impl->init_rounds(state);
    else if (op == 1)
        impl->keystream_block(state, out);
    else if (op == 2)
        impl->keystream_xor(state, out, src);
    else
        impl->keystream_word(state, word);
    for (unsigned j = 0; j < lanes; j++) {
        /* The reference on lane j's state, in every one of its lanes. */
        uint8_t rows[ZUC_LANES_MAX][64], *rout[ZUC_LANES_MAX];
        const uint8_t *rsrc[ZUC_LANES_MAX];
        for (unsigned k = 0; k < rl; k++) {
            lane_put(rstate, rl, k, words[j]);
            memcpy(rows[k], msg[j], 64);
            rout[k] = rows[k], rsrc[k] = rows[k];
        }
        if (op == 0)
            ref->init_rounds(rstate);
        else if (op == 1)
            ref->keystream_block(rstate, rout);
        else if (op == 2)
            ref->keystream_xor(rstate, rout, rsrc);
        else
            ref->keystream_word(rstate, ref_word);
        lane_get(state, lanes, j, got);
        lane_get(rstate, rl, 0, want);
        FZ_SAME("zuc-kernel", (const uint8_t *)got, (const uint8_t *)want, sizeof got, "a lane's state afterwards");
        if (op == 3)
            FZ_SAME("zuc-kernel", (const uint8_t *)&word[j], (const uint8_t *)&ref_word[0], 4,
                    "a lane's keystream word against the reference");
        if (rows_op) {
            FZ_SAME("zuc-kernel", out[j], rows[0], 64, "a lane's row against the reference");
            if (!in_place)
                FZ_SAME("zuc-kernel", src[j], msg[j], 64, "keystream_xor wrote its source");
            FZ_CHECK("zuc-bounds", fz_canary_intact(&bufs[j]) && (in_place || fz_canary_intact(&srcs[j])),
                     "bytes around lane %u's row were written", j);
        }
    }
    for (unsigned j = 0; rows_op && j < lanes; j++) {
        fz_free(&bufs[j]);
        if (!in_place)
            fz_free(&srcs[j]);
    }
    free(state);
    free(rstate);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    fz_reader r = fz_reader_init(data, size);
    const unsigned op = fz_u8(&r);
    const int form = fz_u8(&r) % 3;
    const size_t choice = fz_below(&r, n_impls + 1);
    const zuc_impl *impl = choice < n_impls ? impls[choice] : NULL;
    if (op % 8 == 7) {
        lanes(&r, form, impl);
        return 0;
    }
    if (op % 8 == 5) {
        kernel_entries(&r, impl);
        return 0;
    }
    params p;
    read_params(&r, &p, form);
    const size_t bits = read_bits(&r, MAX_BYTES);
    uint8_t *msg = malloc((bits + 7) / 8 + 1);
    fz_data(&r, msg, (bits + 7) / 8);
    FZ_CONTEXT("zuc-%d EEA, iv %zu bytes%s, impl %s, %zu bits", p.variant, p.iv_len, p.iv_bad ? " (bad)" : "",
               impl_name(impl), bits);
    if (op % 2 == 0)
        eea(&r, &p, impl, msg, bits);
    else
        mac(&r, &p, impl, msg, bits);
    free(msg);
    return 0;
}
