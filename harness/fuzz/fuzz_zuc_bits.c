/*
 * fuzz_zuc_bits: ZUC's lengths in bits, at the edges: bit counts that are
 * not whole bytes, huge counts near SIZE_MAX, the MAC's 2^32 - 1 bit limit,
 * NULL buffers, and parameters out of range.  Every refusal must be an error
 * code the header documents (zuc_strerror knows it), must write nothing and,
 * for a state, leave the stream as it was: the same stream is finished
 * afterwards and compared with the oracle (zuc_oracle.h).
 *
 *   zuc-encrypt-huge    zuc_encrypt, zuc_encrypt_lanes with a bit count
 *                       whose byte count (bits + 7) / 8 wraps around
 *                       (SIZE_MAX - 6 .. SIZE_MAX): refused, nothing written
 *   zuc-eea-final-null  zuc_eea_final(st, NULL, NULL, bits > 0), any bits up
 *                       to SIZE_MAX: ZUC_ERR_ARGUMENT, the state as it was
 *   zuc-eea-final-huge  zuc_eea_final with buffers and a wrapping bit count:
 *                       refused, nothing written, the state as it was
 *   zuc-eea-null        zuc_eea_update with a NULL buffer and bytes > 0:
 *                       ZUC_ERR_ARGUMENT
 *   zuc-mac-huge        zuc_mac and zuc_mac_lanes past ZUC_MAC_MAX_BITS (up
 *                       to SIZE_MAX): ZUC_ERR_MESSAGE_LENGTH without reading
 *                       the message (it lies in a PROT_NONE page), no tag
 *   zuc-mac-limit       zuc_mac_update / zuc_mac_final at and past the limit
 *                       left after the bytes already taken: just past it
 *                       ZUC_ERR_MESSAGE_LENGTH (message unread), at it a NULL
 *                       message is ZUC_ERR_ARGUMENT; a NULL tag too
 *   zuc-bits            pieces with final bit counts 0..64 against the oracle
 *
 * With a library that defines ZUC_MAX_LENGTH (the longest piece), the
 * huge-length checks cover every count past it, not only the wrapping ones,
 * and want its documented order: encryption refuses a NULL buffer with
 * ZUC_ERR_ARGUMENT first, then the length with ZUC_ERR_MESSAGE_LENGTH (the
 * buffer in a PROT_NONE page, so it must not be read); a MAC refuses the
 * length first, ZUC_ERR_MESSAGE_LENGTH whatever msg is; zuc_eea_update too
 * (zuc-eea-huge).
 *   zuc-params          variants, key and IV lengths, tag lengths and NULL
 *                       pointers out of range: the documented code, always
 */
#include <limits.h>

#include "fuzz_util.h"
#include "zuc.h"
#include "zuc_oracle.h"

FZ_IMPLS(zuc)
static const uint8_t *noaccess; /* a PROT_NONE page: reading it faults */

static void setup(void)
{
    if (noaccess)
        return;
    collect_impls();
    void *page = mmap(NULL, fz_page(), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED)
        abort();
    noaccess = page;
}

/* A documented error code: negative, and one zuc_strerror names. */
__attribute__((unused)) static int documented_error(int rc)
{
    return rc < 0 && strcmp(zuc_strerror(rc), "unknown status") != 0;
}

typedef struct {
    zuc_variant variant;
    uint8_t key[32], iv[25];
    size_t key_len, iv_len;
} params;

static void read_params(fz_reader *r, params *p)
{
    static const size_t iv_lens[3] = {16, 25, 23};
    const int form = fz_u8(r) % 3;
    p->variant = form == 0 ? ZUC_128 : ZUC_256;
    p->key_len = form == 0 ? 16 : 32;
    p->iv_len = iv_lens[form];
    fz_data(r, p->key, p->key_len);
    fz_data(r, p->iv, p->iv_len);
    if (p->iv_len == 25)
        for (int i = 17; i < 25; i++)
            p->iv[i] &= 0x3f;
}

/* A bit count the library must refuse: past ZUC_MAX_LENGTH where it has
 * one, else one whose byte count wraps (SIZE_MAX - 6 .. SIZE_MAX). */
static size_t wrapping_bits(fz_reader *r)
{
#ifdef ZUC_MAX_LENGTH
    if (fz_bool(r))
        return fz_past(r, ZUC_MAX_LENGTH);
#endif
    return SIZE_MAX - fz_below(r, 7);
}

/* What a refused encryption must return: with ZUC_MAX_LENGTH, exactly
 * ZUC_ERR_ARGUMENT for a NULL buffer and ZUC_ERR_MESSAGE_LENGTH otherwise;
 * else any documented code. */
static int encryption_refused(int rc, int null_buffer)
{
#ifdef ZUC_MAX_LENGTH
    return rc == (null_buffer ? ZUC_ERR_ARGUMENT : ZUC_ERR_MESSAGE_LENGTH);
#else
    (void)null_buffer;
    return documented_error(rc);
#endif
}

/* Any count past ZUC_MAC_MAX_BITS: just past it, near 2^32, 2^61, SIZE_MAX. */
static size_t past_mac_limit(fz_reader *r)
{
    switch (fz_u8(r) % 6) {
    case 0:
        return (size_t)ZUC_MAC_MAX_BITS + 1 + fz_below(r, 16);
    case 1:
        return ((size_t)1 << 32) + fz_uint(r, 2);
    case 2:
        return (SIZE_MAX >> 3) + fz_below(r, 16) - 8;
    case 3:
        return SIZE_MAX - fz_below(r, 16);
    case 4:
        return (size_t)ZUC_MAC_MAX_BITS + 1 + (size_t)fz_uint(r, 8) % (SIZE_MAX - ZUC_MAC_MAX_BITS);
    default:
        return (size_t)1 << (33 + fz_below(r, 31));
    }
}

static void canary(uint8_t *p, size_t n)
{
    memset(p, FZ_CANARY, n);
}

static int untouched(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != FZ_CANARY)
            return 0;
    return 1;
}

/* ------------------------------------------------------------------ */

static void encrypt_huge(fz_reader *r, const params *p, const zuc_impl *impl)
{
    const size_t bits = wrapping_bits(r);
    uint8_t *out = malloc(64);
    const uint8_t *in = noaccess; /* a refused call must not read it */
    canary(out, 64);
    const int null_buffers = fz_u8(r) % 4 == 0;
    FZ_CONTEXT("zuc-%d zuc_encrypt, %zu bits%s", p->variant, bits, null_buffers ? ", NULL buffers" : "");
    if (!FZ_WANTED("zuc-encrypt-huge")) {
        free(out);
        return;
    }
    int rc = zuc_encrypt(p->variant, p->key, p->key_len, p->iv, p->iv_len, null_buffers ? NULL : in,
                         null_buffers ? NULL : out, bits);
    FZ_CHECK("zuc-encrypt-huge", encryption_refused(rc, null_buffers), "zuc_encrypt returned %d", rc);
    FZ_CHECK("zuc-encrypt-huge", untouched(out, 64), "refused zuc_encrypt wrote");
    /* Many streams, one of them huge: the whole call refused. */
    const size_t n = 1 + fz_below(r, 20), bad = fz_below(r, n);
    const uint8_t **keys = malloc(n * sizeof *keys), **ivs = malloc(n * sizeof *ivs), **ins = malloc(n * sizeof *ins);
    uint8_t **outs = malloc(n * sizeof *outs), *outbuf = malloc(64 * n), msg[64];
    size_t *lens = malloc(n * sizeof *lens);
    canary(outbuf, 64 * n);
    fz_data(r, msg, sizeof msg);
    for (size_t j = 0; j < n; j++) {
        keys[j] = p->key, ivs[j] = p->iv, ins[j] = j == bad ? in : msg, outs[j] = outbuf + 64 * j;
        lens[j] = j == bad ? bits : fz_below(r, 64 * 8 + 1);
    }
    FZ_CONTEXT("zuc-%d zuc_encrypt_lanes on %s, %zu streams, stream %zu of %zu bits", p->variant,
               impl ? impl->name : "NULL", n, bad, bits);
    rc = zuc_encrypt_lanes(impl, p->variant, n, keys, ivs, p->iv_len, ins, outs, lens);
    FZ_CHECK("zuc-encrypt-huge", encryption_refused(rc, 0), "zuc_encrypt_lanes returned %d", rc);
    FZ_CHECK("zuc-encrypt-huge", untouched(outbuf, 64 * n), "refused zuc_encrypt_lanes wrote");
    free(keys), free(ivs), free(ins), free(outs), free(outbuf), free(lens), free(out);
}

/* An EEA stream: some bytes, refused calls in between, the rest; the output
 * against the oracle (a refused call that changed the state shows there). */
static void eea_refusals(fz_reader *r, const params *p, const zuc_impl *impl)
{
    const size_t bytes = fz_below(r, 300), head = fz_below(r, bytes + 1);
    const size_t final_bits = 8 * (bytes - head) - (bytes > head ? fz_below(r, 8) : 0);
    const size_t total_bits = 8 * head + final_bits, total = (total_bits + 7) / 8;
    uint8_t *msg = malloc(bytes + 1), *want = malloc(bytes + 1), *out = malloc(bytes + 1);
    fz_data(r, msg, bytes);
    zo_encrypt(p->variant, p->key, p->key_len, p->iv, p->iv_len, msg, want, total_bits);
    zuc_eea_state *st = malloc(sizeof *st);
    int rc = zuc_eea_init(st, impl, p->variant, p->key, p->key_len, p->iv, p->iv_len);
    FZ_CHECK("zuc-eea", rc == ZUC_OK, "init returned %d", rc);
    rc = zuc_eea_update(st, msg, out, head);
    FZ_CHECK("zuc-eea", rc == ZUC_OK, "update returned %d", rc);
    const unsigned what = fz_u8(r) % 4;
    size_t bad_bits = 0;
    uint8_t small[16];
    canary(small, sizeof small);
    switch (what) {
    case 0: /* final with NULL buffers and bits > 0: ZUC_ERR_ARGUMENT */
        bad_bits = fz_bool(r) ? SIZE_MAX - fz_below(r, 16) : 1 + fz_uint(r, 4);
        FZ_CONTEXT("zuc-%d zuc_eea_final(NULL, NULL, %zu bits) after %zu bytes", p->variant, bad_bits, head);
        if (FZ_WANTED("zuc-eea-final-null")) {
            rc = zuc_eea_final(st, NULL, NULL, bad_bits);
            FZ_CHECK("zuc-eea-final-null", rc == ZUC_ERR_ARGUMENT, "zuc_eea_final returned %d", rc);
        }
        break;
    case 1: /* final with buffers and a wrapping bit count */
        bad_bits = wrapping_bits(r);
        FZ_CONTEXT("zuc-%d zuc_eea_final(buffers, %zu bits) after %zu bytes", p->variant, bad_bits, head);
        if (FZ_WANTED("zuc-eea-final-huge")) {
            rc = zuc_eea_final(st, noaccess, small, bad_bits);
            FZ_CHECK("zuc-eea-final-huge", encryption_refused(rc, 0), "zuc_eea_final returned %d", rc);
            FZ_CHECK("zuc-eea-final-huge", untouched(small, sizeof small), "refused zuc_eea_final wrote");
        }
        break;
#ifdef ZUC_MAX_LENGTH
    case 2: /* update with buffers and a count past ZUC_MAX_LENGTH */
        bad_bits = fz_past(r, ZUC_MAX_LENGTH);
        FZ_CONTEXT("zuc-%d zuc_eea_update(buffers, %zu bytes) after %zu bytes", p->variant, bad_bits, head);
        if (FZ_WANTED("zuc-eea-huge")) {
            rc = zuc_eea_update(st, noaccess, small, bad_bits);
            FZ_CHECK("zuc-eea-huge", rc == ZUC_ERR_MESSAGE_LENGTH, "zuc_eea_update returned %d", rc);
            FZ_CHECK("zuc-eea-huge", untouched(small, sizeof small), "refused zuc_eea_update wrote");
        }
        break;
#endif
    default: /* update with a NULL buffer */
        bad_bits = 1 + (fz_bool(r) ? fz_uint(r, 2) : SIZE_MAX - fz_below(r, 16) - 1);
        FZ_CONTEXT("zuc-%d zuc_eea_update with a NULL buffer, %zu bytes", p->variant, bad_bits);
        rc = zuc_eea_update(st, what == 3 ? NULL : msg, what == 3 ? small : NULL, bad_bits);
        FZ_CHECK("zuc-eea-null", rc == ZUC_ERR_ARGUMENT, "zuc_eea_update returned %d", rc);
        FZ_CHECK("zuc-eea-null", untouched(small, sizeof small), "refused zuc_eea_update wrote");
        break;
    }
    /* The stream goes on as if nothing had happened. */
    FZ_CONTEXT("zuc-%d EEA: %zu bytes, a refused call (kind %u), then %zu bits", p->variant, head, what, final_bits);
    rc = zuc_eea_final(st, final_bits ? msg + head : NULL, final_bits ? out + head : NULL, final_bits);
    FZ_CHECK("zuc-eea", rc == ZUC_OK, "final returned %d", rc);
    FZ_SAME("zuc-eea", out, want, total, "the stream after a refused call against the oracle");
    free(st), free(msg), free(want), free(out);
}

static void mac_huge(fz_reader *r, const params *p, const zuc_impl *impl)
{
    const unsigned tag_bits = p->variant == ZUC_128 ? 32 : 32u << fz_below(r, 3);
    const size_t bits = past_mac_limit(r);
    const int null_msg = fz_u8(r) % 4 == 0;
    uint8_t tag[16];
    canary(tag, sizeof tag);
    FZ_CONTEXT("zuc-%d zuc_mac, tag %u, %zu bits, msg %s", p->variant, tag_bits, bits, null_msg ? "NULL" : "unreadable");
    if (!FZ_WANTED("zuc-mac-huge"))
        return;
    int rc = zuc_mac(p->variant, p->key, p->key_len, p->iv, p->iv_len, null_msg ? NULL : noaccess, bits, tag_bits, tag);
#ifdef ZUC_MAX_LENGTH /* the length first, whatever msg is */
    FZ_CHECK("zuc-mac-huge", rc == ZUC_ERR_MESSAGE_LENGTH, "zuc_mac returned %d", rc);
#else /* NULL and more bits than allowed: either complaint is documented */
    FZ_CHECK("zuc-mac-huge", rc == ZUC_ERR_MESSAGE_LENGTH || (null_msg && rc == ZUC_ERR_ARGUMENT), "zuc_mac returned %d",
             rc);
#endif
    FZ_CHECK("zuc-mac-huge", untouched(tag, sizeof tag), "refused zuc_mac wrote its tag");
    const size_t n = 1 + fz_below(r, 20), bad = fz_below(r, n);
    const uint8_t **keys = malloc(n * sizeof *keys), **ivs = malloc(n * sizeof *ivs), **msgs = malloc(n * sizeof *msgs);
    uint8_t **tags = malloc(n * sizeof *tags), *tagbuf = malloc(16 * n), msg[64];
    size_t *lens = malloc(n * sizeof *lens);
    fz_data(r, msg, sizeof msg);
    canary(tagbuf, 16 * n);
    for (size_t j = 0; j < n; j++) {
        keys[j] = p->key, ivs[j] = p->iv, tags[j] = tagbuf + 16 * j;
        msgs[j] = j == bad ? noaccess : msg;
        lens[j] = j == bad ? bits : fz_below(r, 64 * 8 + 1);
    }
    const zuc_mac_method method = (zuc_mac_method)fz_below(r, 5);
    FZ_CONTEXT("zuc-%d zuc_mac_lanes on %s, method %d, %zu streams, stream %zu of %zu bits", p->variant,
               impl ? impl->name : "NULL", method, n, bad, bits);
    rc = zuc_mac_lanes(impl, method, p->variant, n, keys, ivs, p->iv_len, msgs, lens, tag_bits, tags);
    if (zuc_mac_method_supported(method))
        FZ_CHECK("zuc-mac-huge", rc == ZUC_ERR_MESSAGE_LENGTH, "zuc_mac_lanes returned %d", rc);
    else
        FZ_CHECK("zuc-mac-huge", rc == ZUC_ERR_MESSAGE_LENGTH || rc == ZUC_ERR_NO_IMPL, "zuc_mac_lanes returned %d", rc);
    FZ_CHECK("zuc-mac-huge", untouched(tagbuf, 16 * n), "refused zuc_mac_lanes wrote a tag");
    free(keys), free(ivs), free(msgs), free(tags), free(tagbuf), free(lens);
}

/* A MAC stream with refused pieces at the limit, then finished and compared. */
static void mac_limit(fz_reader *r, const params *p, const zuc_impl *impl)
{
    const unsigned tag_bits = p->variant == ZUC_128 ? 32 : 32u << fz_below(r, 3);
    const size_t bytes = fz_below(r, 300), head = fz_below(r, bytes + 1);
    const size_t final_bits = 8 * (bytes - head) - (bytes > head ? fz_below(r, 8) : 0);
    uint8_t *msg = malloc(bytes + 1), want[16], tag[16];
    fz_data(r, msg, bytes);
    zo_mac(p->variant, p->key, p->key_len, p->iv, p->iv_len, msg, 8 * head + final_bits, tag_bits, want);
    zuc_mac_state *st = malloc(sizeof *st);
    int rc = zuc_mac_init(st, impl, p->variant, p->key, p->key_len, p->iv, p->iv_len, tag_bits);
    FZ_CHECK("zuc-mac-limit", rc == ZUC_OK, "init returned %d", rc);
    rc = zuc_mac_update(st, msg, head);
    FZ_CHECK("zuc-mac-limit", rc == ZUC_OK, "update returned %d", rc);
    const uint64_t left = ZUC_MAC_MAX_BITS - 8 * (uint64_t)head; /* bits the state still takes */
    FZ_CONTEXT("zuc-%d MAC, tag %u, %zu bytes taken (%llu bits left)", p->variant, tag_bits, head,
               (unsigned long long)left);
    const unsigned tries = 1 + fz_u8(r) % 4;
    for (unsigned t = 0; t < tries; t++) {
        canary(tag, sizeof tag);
        switch (fz_u8(r) % 6) {
        case 0: /* update: one byte too many for what is left, the message unread */
            rc = zuc_mac_update(st, noaccess, (size_t)(left / 8 + 1 + fz_below(r, 4)));
            FZ_CHECK("zuc-mac-limit", rc == ZUC_ERR_MESSAGE_LENGTH, "update just past the limit returned %d", rc);
            break;
        case 1: /* update: as much as is left, but NULL */
            rc = zuc_mac_update(st, NULL, (size_t)(left / 8));
            FZ_CHECK("zuc-mac-limit", rc == ZUC_ERR_ARGUMENT, "update(NULL, %llu) at the limit returned %d",
                     (unsigned long long)(left / 8), rc);
            break;
        case 2: /* update: a huge count */
            rc = zuc_mac_update(st, noaccess, SIZE_MAX - fz_below(r, 16));
            FZ_CHECK("zuc-mac-limit", rc == ZUC_ERR_MESSAGE_LENGTH, "update(SIZE_MAX - k) returned %d", rc);
            break;
        case 3: /* final: one bit too many, the message unread */
            rc = zuc_mac_final(st, noaccess, (size_t)left + 1 + fz_below(r, 4), tag);
            FZ_CHECK("zuc-mac-limit", rc == ZUC_ERR_MESSAGE_LENGTH, "final just past the limit returned %d", rc);
            break;
        case 4: /* final: exactly what is left, but NULL; or a huge count */
            if (fz_bool(r)) {
                rc = zuc_mac_final(st, NULL, (size_t)left, tag);
                FZ_CHECK("zuc-mac-limit", rc == ZUC_ERR_ARGUMENT, "final(NULL) at the limit returned %d", rc);
            } else {
                rc = zuc_mac_final(st, noaccess, past_mac_limit(r), tag);
                FZ_CHECK("zuc-mac-limit", rc == ZUC_ERR_MESSAGE_LENGTH, "final past the limit returned %d", rc);
            }
            break;
        default: /* final without a tag */
            rc = zuc_mac_final(st, msg + head, final_bits, NULL);
            FZ_CHECK("zuc-mac-limit", rc == ZUC_ERR_ARGUMENT, "final with tag NULL returned %d", rc);
            break;
        }
        FZ_CHECK("zuc-mac-limit", untouched(tag, sizeof tag), "a refused call wrote the tag");
    }
    memset(tag, 0, sizeof tag);
    rc = zuc_mac_final(st, final_bits ? msg + head : NULL, final_bits, tag);
    FZ_CHECK("zuc-mac-limit", rc == ZUC_OK, "final returned %d", rc);
    FZ_SAME("zuc-mac-limit", tag, want, tag_bits / 8, "the tag after refused calls against the oracle");
    free(st), free(msg);
}

/* Final pieces of 0..64 bits after whole-byte pieces, EEA and MAC. */
static void short_bits(fz_reader *r, const params *p, const zuc_impl *impl)
{
    const size_t head = fz_below(r, 200), final_bits = fz_below(r, 65), total = 8 * head + final_bits;
    const size_t bytes = (total + 7) / 8;
    uint8_t *msg = malloc(bytes + 1), *want = malloc(bytes + 1), *out = malloc(bytes + 1), tag[16], want_tag[16];
    fz_data(r, msg, bytes);
    const unsigned tag_bits = p->variant == ZUC_128 ? 32 : 32u << fz_below(r, 3);
    FZ_CONTEXT("zuc-%d, %zu bytes then %zu bits, tag %u, impl %s", p->variant, head, final_bits, tag_bits,
               impl ? impl->name : "NULL");
    zo_encrypt(p->variant, p->key, p->key_len, p->iv, p->iv_len, msg, want, total);
    zo_mac(p->variant, p->key, p->key_len, p->iv, p->iv_len, msg, total, tag_bits, want_tag);
    zuc_eea_state eea;
    zuc_mac_state mac;
    FZ_CHECK("zuc-bits", zuc_eea_init(&eea, impl, p->variant, p->key, p->key_len, p->iv, p->iv_len) == ZUC_OK, "eea init");
    FZ_CHECK("zuc-bits", zuc_mac_init(&mac, impl, p->variant, p->key, p->key_len, p->iv, p->iv_len, tag_bits) == ZUC_OK,
             "mac init");
    FZ_CHECK("zuc-bits", zuc_eea_update(&eea, msg, out, head) == ZUC_OK, "eea update");
    FZ_CHECK("zuc-bits", zuc_mac_update(&mac, msg, head) == ZUC_OK, "mac update");
    FZ_CHECK("zuc-bits", zuc_eea_final(&eea, msg + head, out + head, final_bits) == ZUC_OK, "eea final");
    FZ_CHECK("zuc-bits", zuc_mac_final(&mac, msg + head, final_bits, tag) == ZUC_OK, "mac final");
    FZ_SAME("zuc-bits", out, want, bytes, "EEA in pieces against the oracle");
    FZ_SAME("zuc-bits", tag, want_tag, tag_bits / 8, "MAC in pieces against the oracle");
    /* The one-shot calls on the same bit count. */
    FZ_CHECK("zuc-bits", zuc_encrypt(p->variant, p->key, p->key_len, p->iv, p->iv_len, msg, out, total) == ZUC_OK,
             "zuc_encrypt");
    FZ_SAME("zuc-bits", out, want, bytes, "zuc_encrypt against the oracle");
    FZ_CHECK("zuc-bits", zuc_mac(p->variant, p->key, p->key_len, p->iv, p->iv_len, msg, total, tag_bits, tag) == ZUC_OK,
             "zuc_mac");
    FZ_SAME("zuc-bits", tag, want_tag, tag_bits / 8, "zuc_mac against the oracle");
    free(msg), free(want), free(out);
}

/* Parameters out of range: the documented code from every entry point. */
static void bad_params(fz_reader *r, const params *p, const zuc_impl *impl)
{
    static const int variants[] = {0, 1, 127, 129, 255, 257, -1, -128, -256, INT_MAX, INT_MIN, 512};
    const unsigned what = fz_u8(r) % 5;
    zuc_variant v = p->variant;
    size_t key_len = p->key_len, iv_len = p->iv_len;
    unsigned tag_bits = p->variant == ZUC_128 ? 32 : 64;
    int want;
    switch (what) {
    case 0:
        v = (zuc_variant)(fz_u8(r) < 200 ? variants[fz_below(r, 12)] : (int)(uint32_t)fz_uint(r, 4));
        if (v == ZUC_128 || v == ZUC_256)
            v = (zuc_variant)0;
        want = ZUC_ERR_VARIANT;
        break;
    case 1:
        key_len = fz_bool(r) ? fz_below(r, 64) : SIZE_MAX - fz_below(r, 4);
        if (key_len == p->key_len)
            key_len++;
        want = ZUC_ERR_KEY_LENGTH;
        break;
    case 2:
        iv_len = fz_bool(r) ? fz_below(r, 64) : SIZE_MAX - fz_below(r, 4);
        if (iv_len == p->iv_len || (p->variant == ZUC_256 && (iv_len == 23 || iv_len == 25)))
            iv_len = 24;
        want = ZUC_ERR_IV_LENGTH;
        break;
    case 3:
        tag_bits = (unsigned)fz_uint(r, 4);
        if (tag_bits == 32 || (p->variant == ZUC_256 && (tag_bits == 64 || tag_bits == 128)))
            tag_bits = 31;
        want = ZUC_ERR_TAG_LENGTH;
        break;
    default: /* NULL state, key or IV */
        want = ZUC_ERR_ARGUMENT;
        break;
    }
    FZ_CONTEXT("zuc bad parameters (kind %u): variant %d, key %zu, iv %zu, tag %u", what, (int)v, key_len, iv_len,
               tag_bits);
    uint8_t out[16], tag[16];
    canary(out, sizeof out), canary(tag, sizeof tag);
    int rc;
    if (what == 4) {
        rc = zuc_eea_init(NULL, impl, v, p->key, key_len, p->iv, iv_len);
        FZ_CHECK("zuc-params", rc == want, "zuc_eea_init(NULL state) returned %d", rc);
        rc = zuc_mac_init(NULL, impl, v, p->key, key_len, p->iv, iv_len, tag_bits);
        FZ_CHECK("zuc-params", rc == want, "zuc_mac_init(NULL state) returned %d", rc);
        zuc_eea_state eea;
        rc = zuc_eea_init(&eea, impl, v, fz_bool(r) ? NULL : p->key, key_len, NULL, iv_len);
        FZ_CHECK("zuc-params", rc == want, "zuc_eea_init(NULL key or IV) returned %d", rc);
        rc = zuc_eea_update(NULL, p->key, out, 1);
        FZ_CHECK("zuc-params", rc == want, "zuc_eea_update(NULL state) returned %d", rc);
        rc = zuc_mac_final(NULL, p->key, 8, tag);
        FZ_CHECK("zuc-params", rc == want, "zuc_mac_final(NULL state) returned %d", rc);
        rc = zuc_encrypt_lanes(impl, v, 1 + fz_below(r, 4), NULL, NULL, iv_len, NULL, NULL, NULL);
        FZ_CHECK("zuc-params", rc == want, "zuc_encrypt_lanes(NULL arrays) returned %d", rc);
        zuc_eea_reset(NULL);
        zuc_mac_reset(NULL);
        FZ_CHECK("zuc-params", untouched(out, sizeof out) && untouched(tag, sizeof tag), "a refused call wrote");
        return;
    }
    if (what != 3) {
        rc = zuc_encrypt(v, p->key, key_len, p->iv, iv_len, p->key, out, 64);
        FZ_CHECK("zuc-params", rc == want, "zuc_encrypt returned %d, want %d", rc, want);
        zuc_eea_state eea;
        rc = zuc_eea_init(&eea, impl, v, p->key, key_len, p->iv, iv_len);
        FZ_CHECK("zuc-params", rc == want, "zuc_eea_init returned %d, want %d", rc, want);
        rc = zuc_eea_final(&eea, p->key, out, 64);
        FZ_CHECK("zuc-params", rc == ZUC_ERR_STATE, "final after a refused init returned %d", rc);
        zuc_state st;
        rc = zuc_init(&st, v, p->key, key_len, p->iv, iv_len, 0);
        FZ_CHECK("zuc-params", rc == want, "zuc_init returned %d, want %d", rc, want);
    }
    rc = zuc_mac(v, p->key, key_len, p->iv, iv_len, p->key, 64, tag_bits, tag);
    FZ_CHECK("zuc-params", rc == want, "zuc_mac returned %d, want %d", rc, want);
    zuc_mac_state mac;
    rc = zuc_mac_init(&mac, impl, v, p->key, key_len, p->iv, iv_len, tag_bits);
    FZ_CHECK("zuc-params", rc == want, "zuc_mac_init returned %d, want %d", rc, want);
    rc = zuc_mac_update(&mac, p->key, 8);
    FZ_CHECK("zuc-params", rc == ZUC_ERR_STATE, "update after a refused init returned %d", rc);
    FZ_CHECK("zuc-params", untouched(out, sizeof out) && untouched(tag, sizeof tag), "a refused call wrote");
    const char *s = zuc_strerror((int)(int32_t)fz_uint(r, 4));
    FZ_CHECK("zuc-params", s != NULL, "zuc_strerror returned NULL");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    fz_reader r = fz_reader_init(data, size);
    const unsigned op = fz_u8(&r);
    const size_t choice = fz_below(&r, n_impls + 1);
    const zuc_impl *impl = choice < n_impls ? impls[choice] : NULL;
    params p;
    read_params(&r, &p);
    switch (op % 6) {
    case 0:
        encrypt_huge(&r, &p, impl);
        break;
    case 1:
        eea_refusals(&r, &p, impl);
        break;
    case 2:
        mac_huge(&r, &p, impl);
        break;
    case 3:
        mac_limit(&r, &p, impl);
        break;
    case 4:
        short_bits(&r, &p, impl);
        break;
    default:
        bad_params(&r, &p, impl);
        break;
    }
    return 0;
}
