/*
 * fuzz_kcrypt: kcrypt's command line and input handling.  harness/c/kcrypt.c
 * is compiled as it is, with -Dmain=kcrypt_main and kcrypt_hook.h (its
 * stderr becomes a stream read back here, its stdout a stream on another
 * memfd), and linked with the rest of the kcrypt program; each input
 * becomes an argv and a stdin (a memfd on fd 0), and kcrypt_main runs
 * in-process.
 *
 * Two kinds of argv:
 *   - raw (about one input in eight): up to 12 arguments cut from the input;
 *     checked: exit status 0, 1 or 2, a message on stderr exactly when it is
 *     not 0, nothing on stdout after a status 2 for an input shorter than
 *     one 1 MiB piece (the documented "nothing written");
 *   - built from a model (the rest): cipher, mode, direction, key, IV, -t/-s
 *     of a kernel this CPU runs (--emulated for a SIMDe build), ZUC's --tag,
 *     --mac-method and --bits, in any order, each now and then wrong
 *     (unknown names, bad hex, wrong lengths, a 25-byte IV with a top bit
 *     set, options given twice or for the wrong cipher, --bits past
 *     SIZE_MAX).  The model predicts the outcome: a wrong command line
 *     exits 2 with nothing read from stdin and nothing written; a right one
 *     exits 0 with exactly what the library's reference kernels give (the
 *     tag in hex for a MAC), or 2 for ECB/CBC input that is not whole blocks
 *     or --bits N past the input; and kcrypt reads exactly ceil(N/8) bytes of
 *     stdin for --bits N, or all of it when that is more than there is
 *     [check kcrypt-bits: --bits 18446744073709551615 must not wrap].
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create */
#endif
#include <fcntl.h>
#include <sys/stat.h>

#include "fuzz_util.h"
#include "sm4.h"
#include "ublock.h"
#include "zuc.h"

#define CHUNK ((size_t)1 << 20) /* kcrypt's piece (KC_CHUNK_BYTES) */

int kcrypt_main(int argc, char **argv);
FILE *kc_fuzz_stderr, *kc_fuzz_stdout; /* kcrypt's stderr and stdout (kcrypt_hook.h) */
static int stdout_closed;

/* kcrypt's fclose: closing its stdout closes the duplicate it was given. */
int kc_fuzz_fclose(FILE *f)
{
    if (f == kc_fuzz_stdout) {
        if (stdout_closed)
            abort(); /* closed twice: a real program would be in trouble too */
        stdout_closed = 1;
    }
    return fclose(f);
}

static int fd_in, fd_out, saved_in, saved_out;
static const sm4_impl *sm4_ref;
static const ublock_impl *ublock_ref;
static const zuc_impl *zuc_ref;

static void setup(void)
{
    if (sm4_ref)
        return;
    fd_in = memfd_create("kcrypt-stdin", 0);
    fd_out = memfd_create("kcrypt-stdout", 0);
    const int fd_err = memfd_create("kcrypt-stderr", 0);
    saved_in = dup(0);
    saved_out = dup(1);
    kc_fuzz_stderr = fd_err < 0 ? NULL : fdopen(fd_err, "w+");
    if (fd_in < 0 || fd_out < 0 || saved_in < 0 || saved_out < 0 || !kc_fuzz_stderr)
        abort();
    unsetenv("KC_DISABLE_TARGETS");
#ifdef FZ_EMULATED
    sm4_register_emulated();
    ublock_register_emulated();
    zuc_register_emulated();
#endif
    sm4_ref = sm4_impl_find("reference", "scalar", 0);
    ublock_ref = ublock_impl_find("reference", "scalar", 0);
    zuc_ref = zuc_impl_find("reference", "scalar", 0);
    if (!sm4_ref || !ublock_ref || !zuc_ref)
        abort();
}

typedef struct {
    int status;
    uint8_t *out;
    size_t out_len;
    char err[2048];
    off_t consumed; /* stdin's offset afterwards: how much kcrypt read */
} kc_result;

static void run(int argc, char **argv, const uint8_t *in, size_t in_len, kc_result *res)
{
    if (ftruncate(fd_in, 0) != 0 || ftruncate(fd_out, 0) != 0)
        abort();
    for (size_t at = 0; at < in_len;) {
        const ssize_t n = pwrite(fd_in, in + at, in_len - at, (off_t)at);
        if (n <= 0)
            abort();
        at += (size_t)n;
    }
    lseek(fd_in, 0, SEEK_SET);
    lseek(fd_out, 0, SEEK_SET);
    rewind(kc_fuzz_stderr);
    if (ftruncate(fileno(kc_fuzz_stderr), 0) != 0)
        abort();
    fflush(stdout);
    dup2(fd_in, 0);
    dup2(fd_out, 1);
    kc_fuzz_stdout = fdopen(dup(1), "w");
    if (!kc_fuzz_stdout)
        abort();
    stdout_closed = 0;
    res->status = kcrypt_main(argc, argv);
    if (!stdout_closed)
        fclose(kc_fuzz_stdout);
    res->consumed = lseek(0, 0, SEEK_CUR);
    dup2(saved_in, 0);
    dup2(saved_out, 1);
    fflush(kc_fuzz_stderr);
    const size_t err_len = (size_t)ftell(kc_fuzz_stderr);
    rewind(kc_fuzz_stderr);
    const size_t got = fread(res->err, 1, sizeof res->err - 1, kc_fuzz_stderr);
    res->err[got < err_len ? got : err_len] = '\0';
    res->out_len = (size_t)lseek(fd_out, 0, SEEK_END);
    res->out = malloc(res->out_len + 1);
    for (size_t at = 0; at < res->out_len;) {
        const ssize_t n = pread(fd_out, res->out + at, res->out_len - at, (off_t)at);
        if (n <= 0)
            abort();
        at += (size_t)n;
    }
}

/* ------------------------------------------------------------------ */
/* Building argv                                                        */
/* ------------------------------------------------------------------ */

typedef struct {
    char *items[24][2]; /* each an argument or an option with its value */
    int n_items;
    char store[4096];
    size_t used;
} argv_builder;

static char *keep(argv_builder *b, const char *s)
{
    const size_t n = strlen(s) + 1;
    if (b->used + n > sizeof b->store)
        return (char *)"";
    char *p = b->store + b->used;
    memcpy(p, s, n);
    b->used += n;
    return p;
}

static void item(argv_builder *b, const char *a, const char *v)
{
    if (b->n_items >= 24)
        return;
    b->items[b->n_items][0] = keep(b, a);
    b->items[b->n_items][1] = v ? keep(b, v) : NULL;
    b->n_items++;
}

static void hex(const uint8_t *p, size_t n, int upper, char *out)
{
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    for (size_t i = 0; i < n; i++)
        out[2 * i] = digits[p[i] >> 4], out[2 * i + 1] = digits[p[i] & 15];
    out[2 * n] = '\0';
}

/* A hex argument of n bytes, sometimes spoilt (*valid cleared). */
static void hex_arg(fz_reader *r, argv_builder *b, const char *opt, const uint8_t *p, size_t n, int *valid)
{
    char text[160];
    hex(p, n, fz_u8(r) % 8 == 0, text);
    if (fz_u8(r) % 32 == 0) {
        *valid = 0;
        switch (fz_u8(r) % 5) {
        case 0: /* one digit short */
            text[2 * n - 1] = '\0';
            break;
        case 1: /* a byte short */
            text[2 * n - 2] = '\0';
            break;
        case 2: /* a byte too many */
            strcat(text, "00");
            break;
        case 3: /* not a hex digit */
            text[fz_below(r, 2 * n)] = "g -x:\xff"[fz_below(r, 6)];
            break;
        default:
            text[0] = '\0';
            break;
        }
    }
    item(b, opt, text);
}

typedef struct {
    int predict;  /* 1: the model knows the outcome */
    int valid;    /* the command line is right */
    int cipher;   /* 0 sm4, 1 zuc128, 2 zuc256, 3..5 ublock variants */
    int mode;     /* block: 0 ecb, 1 cbc, 2 ctr; zuc: 0 enc, 1 mac */
    int encrypt;
    uint8_t key[32], iv[32];
    size_t key_len, iv_len;
    const void *impl; /* NULL: the default kernel */
    int bits_given;
    unsigned __int128 bits; /* --bits N (past SIZE_MAX: refused) */
    unsigned tag;
    int method; /* -1 none, else zuc_mac_method */
} model;

static const char *const ciphers[] = {"sm4", "zuc128", "zuc256", "ublock128_128", "ublock128_256", "ublock256_256"};
static const char *const block_modes[] = {"ecb", "cbc", "ctr"};

static int is_block(int c)
{
    return c == 0 || c >= 3;
}

static ublock_variant variant_of(int c)
{
    return (ublock_variant)(c - 3);
}

static size_t block_bytes(int c)
{
    return c == 0 ? 16 : ublock_block_bytes(variant_of(c));
}

/* -t/-s of a kernel of the cipher this CPU runs (native, or emulated when
 * linked); its pointer into m->impl. */
static void pick_kernel(fz_reader *r, argv_builder *b, model *m)
{
    const char *names[3] = {0};
    int emulated = 0;
    size_t n;
    if (m->cipher == 0) {
        const sm4_impl *const *all = sm4_impls(&n);
        const sm4_impl *k = all[fz_below(r, n)];
        if (!k->cpu_supported())
            return;
        names[0] = k->strategy, names[1] = k->target, emulated = k->emulated, m->impl = k;
    } else if (is_block(m->cipher)) {
        const ublock_impl *const *all = ublock_impls(&n);
        const ublock_impl *k = all[fz_below(r, n)];
        if (!k->cpu_supported())
            return;
        names[0] = k->strategy, names[1] = k->target, emulated = k->emulated, m->impl = k;
    } else {
        const zuc_impl *const *all = zuc_impls(&n);
        const zuc_impl *k = all[fz_below(r, n)];
        if (!k->cpu_supported())
            return;
        names[0] = k->strategy, names[1] = k->target, emulated = k->emulated, m->impl = k;
    }
    const int which = fz_u8(r) % 8;
    if (which == 0) { /* -t alone: which strategy kcrypt takes is its own business */
        item(b, fz_bool(r) ? "-t" : "--target", names[1]);
        m->predict = 0;
    } else if (which == 1) {
        item(b, "-s", names[0]);
        m->predict = 0;
    } else {
        item(b, fz_bool(r) ? "-s" : "--strategy", names[0]);
        item(b, fz_bool(r) ? "-t" : "--target", names[1]);
    }
    if (emulated)
        item(b, "--emulated", NULL);
}

static void build(fz_reader *r, argv_builder *b, model *m, size_t len, char **mode_text, char **cipher_text)
{
    static const char *const bogus_ciphers[] = {"sm5", "", "zuc", "SM4", "ublock128_64", "-", "aes"};
    /* no mode of any cipher (SM4's gcm, ccm, xts, cmac and cbc-mac are modes since issue 44) */
    static const char *const bogus_modes[] = {"ofb", "", "enc", "mac", "ecb", "CTR", "-"};
    memset(m, 0, sizeof *m);
    m->predict = 1, m->valid = 1, m->method = -1;
    m->cipher = fz_below(r, 6);
    *cipher_text = (char *)ciphers[m->cipher];
    if (fz_u8(r) % 32 == 0) {
        *cipher_text = (char *)bogus_ciphers[fz_below(r, 7)];
        m->valid = 0;
    }
    const int block = is_block(m->cipher);
    m->mode = fz_below(r, block ? 3 : 2);
    *mode_text = (char *)(block ? block_modes[m->mode] : m->mode ? "mac" : "enc");
    if (fz_u8(r) % 32 == 0) {
        const char *bogus = bogus_modes[fz_below(r, 7)];
        /* a mode of the other kind of cipher is wrong; one of its own is not bogus */
        const int own = block ? !strcmp(bogus, "ecb") || !strcmp(bogus, "cbc") || !strcmp(bogus, "ctr")
                              : !strcmp(bogus, "enc") || !strcmp(bogus, "mac");
        if (!own) {
            *mode_text = (char *)bogus;
            m->valid = 0;
        }
    }
    if (fz_u8(r) % 64 == 0) {
        *mode_text = NULL; /* missing */
        m->valid = 0;
    }

    /* Direction. */
    m->encrypt = fz_bool(r);
    const char *dir = m->encrypt ? (fz_bool(r) ? "-e" : "--encrypt") : (fz_bool(r) ? "-d" : "--decrypt");
    const unsigned dir_case = fz_u8(r) % 32;
    if (block) {
        if (dir_case == 0) {
            m->valid = 0; /* none */
        } else {
            item(b, dir, NULL);
            if (dir_case == 1) { /* the other one too */
                item(b, m->encrypt ? "-d" : "-e", NULL);
                m->valid = 0;
            } else if (dir_case == 2) { /* the same one twice: fine */
                item(b, m->encrypt ? "--encrypt" : "--decrypt", NULL);
            }
        }
    } else if (dir_case == 0) {
        item(b, dir, NULL);
        m->valid = 0;
    }

    /* Key and IV. */
    m->key_len = m->cipher == 0 || m->cipher == 1 || m->cipher == 3 ? 16 : 32;
    fz_data(r, m->key, m->key_len);
    if (fz_u8(r) % 64 == 0)
        m->valid = 0; /* missing */
    else
        hex_arg(r, b, fz_bool(r) ? "-k" : "--key", m->key, m->key_len, &m->valid);
    if (block) {
        m->iv_len = block_bytes(m->cipher);
        fz_data(r, m->iv, m->iv_len);
        const int wants_iv = m->mode != 0;
        const int give = fz_u8(r) % 32 == 0 ? !wants_iv : wants_iv;
        if (give != wants_iv)
            m->valid = 0;
        if (give)
            hex_arg(r, b, fz_bool(r) ? "-i" : "--iv", m->iv, m->iv_len, &m->valid);
        else
            memset(m->iv, 0, sizeof m->iv);
    } else {
        m->iv_len = m->cipher == 1 ? 16 : fz_bool(r) ? 25 : 23;
        fz_data(r, m->iv, m->iv_len);
        if (m->iv_len == 25) {
            for (int i = 17; i < 25; i++)
                m->iv[i] &= 0x3f;
            if (fz_u8(r) % 16 == 0) {
                m->iv[17 + fz_below(r, 8)] |= 0x80;
                m->valid = 0; /* ZUC_ERR_IV_VALUE, from the library before stdin is read */
            }
        }
        if (fz_u8(r) % 64 == 0)
            m->valid = 0;
        else
            hex_arg(r, b, fz_bool(r) ? "-i" : "--iv", m->iv, m->iv_len, &m->valid);
    }

    /* ZUC's options (wrong for the block ciphers, --tag and --mac-method wrong for enc). */
    const int zuc_mac = !block && m->mode == 1;
    m->tag = 32;
    if (fz_u8(r) % (zuc_mac ? 2 : 48) == 0) {
        static const char *const tags[] = {"32", "64", "128", "48", "0", "032", "-32", "4294967328"};
        const unsigned wide = fz_u8(r) % 8 == 0;
        const unsigned t = fz_u8(r) % (wide ? 8 : 3);
        item(b, "--tag", tags[t]);
        m->tag = t == 1 ? 64 : t == 2 ? 128 : 32; /* "032" is 32 */
        if (!zuc_mac || t == 3 || t == 4 || t == 6 || t == 7 || (m->cipher == 1 && m->tag != 32))
            m->valid = 0;
    }
    if (fz_u8(r) % (zuc_mac ? 3 : 48) == 0) {
        static const char *const methods[] = {"clmul", "compare", "CLMUL", "clmul128", ""};
        const unsigned wide = fz_u8(r) % 8 == 0;
        const unsigned t = fz_u8(r) % (wide ? 5 : 2);
        item(b, "--mac-method", methods[t]);
        m->method = t == 0 ? ZUC_MAC_CLMUL : ZUC_MAC_COMPARE;
        if (!zuc_mac || t >= 2)
            m->valid = 0;
    }
    if (fz_u8(r) % (block ? 48 : 3) == 0) {
        static const char *const edges[] = {
            "18446744073709551615", "18446744073709551614", "18446744073709551609", "18446744073709551608",
            "18446744073709551616", "99999999999999999999999", "4294967295", "4294967296", "2305843009213693952",
            "0", "00", "+8", "-1", "8 ", "", "0x10"};
        char text[64];
        const unsigned c = fz_u8(r);
        if (c % 4 == 0) {
            const unsigned e = fz_below(r, 16);
            snprintf(text, sizeof text, "%s", edges[e]);
            if (e >= 11) /* not a plain decimal */
                m->valid = 0;
        } else {
            snprintf(text, sizeof text, "%zu", fz_below(r, 8 * len + 24));
        }
        item(b, "--bits", text);
        m->bits_given = 1;
        m->bits = 0;
        for (const char *p = text; *p >= '0' && *p <= '9'; p++)
            m->bits = m->bits * 10 + (unsigned)(*p - '0');
        if (block || m->bits > SIZE_MAX)
            m->valid = 0;
    }

    /* A kernel, sometimes. */
    const unsigned k = fz_u8(r) % 16;
    if (k < 3) {
        pick_kernel(r, b, m);
    } else if (k == 3) {
        static const char *const bogus[] = {"avx1024", "", "scalar_asm", "neon", "avx2_gfni_asm_asm"};
        item(b, fz_bool(r) ? "-t" : "-s", bogus[fz_below(r, 5)]);
        m->predict = 0; /* "neon" is a strategy nowhere but a target in the registry: kcrypt judges */
    } else if (k == 4 && fz_u8(r) % 4 == 0) {
        item(b, "--emulated", NULL); /* without -t: refused */
        m->valid = 0;
    }

    /* Now and then something wrong on top. */
    switch (fz_u8(r) % 64) {
    case 0:
        item(b, "--frobnicate", NULL);
        m->valid = 0;
        break;
    case 1: /* the key twice */
        item(b, "-k", "00");
        m->valid = 0;
        break;
    case 2: /* an option without its value (the last argument) */
        m->valid = 0;
        m->predict = 0; /* whether it lands last decides */
        item(b, "-i", NULL);
        break;
    case 3:
        item(b, "extra", NULL);
        m->valid = 0;
        break;
    case 4:
        item(b, fz_bool(r) ? "--help" : "-h", NULL);
        m->predict = 0;
        break;
    }
}

/* argv from the builder: positional CIPHER and MODE in this order, the
 * options in any order around them. */
static int assemble(fz_reader *r, argv_builder *b, char *cipher, char *mode, char **argv)
{
    /* Shuffle the option items. */
    for (int i = b->n_items - 1; i > 0; i--) {
        const int j = (int)fz_below(r, (size_t)i + 1);
        char *t0 = b->items[i][0], *t1 = b->items[i][1];
        b->items[i][0] = b->items[j][0], b->items[i][1] = b->items[j][1];
        b->items[j][0] = t0, b->items[j][1] = t1;
    }
    /* Mostly CIPHER MODE first, as the documentation writes it. */
    const int moved = fz_u8(r) % 4 == 0;
    const int at_cipher = moved ? (int)fz_below(r, (size_t)b->n_items + 1) : 0;
    const int at_mode = moved ? at_cipher + (int)fz_below(r, (size_t)(b->n_items - at_cipher) + 1) : 0;
    int argc = 0;
    argv[argc++] = (char *)"kcrypt";
    for (int i = 0; i <= b->n_items; i++) {
        if (i == at_cipher && cipher)
            argv[argc++] = cipher;
        if (i == at_mode && mode)
            argv[argc++] = mode;
        if (i == b->n_items)
            break;
        argv[argc++] = b->items[i][0];
        if (b->items[i][1])
            argv[argc++] = b->items[i][1];
    }
    argv[argc] = NULL;
    return argc;
}

/* ------------------------------------------------------------------ */
/* What kcrypt must write                                               */
/* ------------------------------------------------------------------ */

/* The expected stdout for a right command line on in[0..len), or -1 when
 * kcrypt must refuse the input (exit 2). */
static long long expected(const model *m, const uint8_t *in, size_t len, uint8_t *out, uint64_t *reads)
{
    *reads = len;
    if (is_block(m->cipher)) {
        const size_t bb = block_bytes(m->cipher);
        if (m->mode != 2 && len % bb)
            return -1;
        int rc;
        if (m->cipher == 0) {
            sm4_key key;
            sm4_set_key(&key, m->key);
            rc = sm4_crypt(sm4_ref, (sm4_mode)m->mode, m->encrypt ? SM4_ENCRYPT : SM4_DECRYPT, &key, m->iv, in, out,
                           len);
        } else {
            ublock_key *key = malloc(sizeof *key);
            ublock_set_key(key, variant_of(m->cipher), m->key);
            rc = ublock_crypt(ublock_ref, (ublock_mode)m->mode, m->encrypt ? UBLOCK_ENCRYPT : UBLOCK_DECRYPT, key,
                              m->iv, in, out, len);
            free(key);
        }
        FZ_CHECK("kcrypt-oracle", rc == 0, "the reference returned %d", rc);
        return (long long)len;
    }
    size_t bits = 8 * len;
    if (m->bits_given) {
        const unsigned __int128 bytes = (m->bits + 7) / 8;
        if (bytes < len)
            *reads = (uint64_t)bytes; /* kcrypt reads no further */
        if (m->bits > (unsigned __int128)8 * len)
            return -1;
        bits = (size_t)m->bits;
    }
    const zuc_variant v = m->cipher == 1 ? ZUC_128 : ZUC_256;
    const uint8_t *keys[1] = {m->key}, *ivs[1] = {m->iv}, *ins[1] = {in};
    if (m->mode == 0) {
        uint8_t *outs[1] = {out};
        const int rc = zuc_encrypt_lanes(zuc_ref, v, 1, keys, ivs, m->iv_len, ins, outs, &bits);
        FZ_CHECK("kcrypt-oracle", rc == 0, "the reference returned %d", rc);
        return (long long)((bits + 7) / 8);
    }
    uint8_t tag[16], *tags[1] = {tag};
    const int rc = zuc_mac_lanes(zuc_ref, ZUC_MAC_CLMUL, v, 1, keys, ivs, m->iv_len, ins, &bits, m->tag, tags);
    FZ_CHECK("kcrypt-oracle", rc == 0, "the reference returned %d", rc);
    hex(tag, m->tag / 8, 0, (char *)out);
    out[m->tag / 4] = '\n';
    return m->tag / 4 + 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    fz_reader r = fz_reader_init(data, size);
    const unsigned kind = fz_u8(&r);
    char *argv[64];
    int argc;
    argv_builder *b = calloc(1, sizeof *b);
    model m;
    memset(&m, 0, sizeof m);
    size_t len = fz_u8(&r) % 40 == 0 ? CHUNK - 64 + fz_below(&r, 128) : fz_length(&r, 5000, 32);
    if (kind % 8 == 7) { /* raw arguments */
        const int n = fz_u8(&r) % 13;
        argc = 0;
        argv[argc++] = (char *)"kcrypt";
        for (int i = 0; i < n; i++) {
            char text[96]; /* a 32-byte key in hex fits */
            const size_t l = fz_below(&r, sizeof text);
            for (size_t j = 0; j < l; j++)
                text[j] = (char)fz_u8(&r);
            text[l] = '\0';
            argv[argc++] = keep(b, text);
        }
        argv[argc] = NULL;
        FZ_CONTEXT("kcrypt, raw arguments (%d), %zu bytes of input", n, len);
    } else {
        char *cipher, *mode;
        build(&r, b, &m, len, &mode, &cipher);
        argc = assemble(&r, b, cipher, mode, argv);
        char line[1024];
        size_t used = 0;
        for (int i = 1; i < argc && used < sizeof line - 64; i++)
            used += (size_t)snprintf(line + used, sizeof line - used, " '%s'", argv[i]);
        FZ_CONTEXT("kcrypt%s < %zu bytes (model: %s)", line, len,
                   !m.predict ? "no prediction" : m.valid ? "right" : "wrong command line");
    }
    uint8_t *in = malloc(len + 1), *want = malloc(len + 64);
    fz_data(&r, in, len);
    kc_result res;
    run(argc, argv, in, len, &res);

    FZ_CHECK("kcrypt-status", res.status == 0 || res.status == 1 || res.status == 2, "exit status %d", res.status);
    FZ_CHECK("kcrypt-status", (res.status != 0) == (strncmp(res.err, "kcrypt: error: ", 15) == 0),
             "exit status %d with stderr '%.300s'", res.status, res.err);
    if (res.status == 2 && len < CHUNK)
        FZ_CHECK("kcrypt-nothing-written", res.out_len == 0, "exit status 2 after writing %zu bytes", res.out_len);
    if (m.predict && !m.valid) {
        FZ_CHECK("kcrypt-usage", res.status == 2, "a wrong command line exited %d (stderr '%.300s')", res.status,
                 res.err);
        FZ_CHECK("kcrypt-usage", res.consumed == 0, "a wrong command line read %lld bytes of stdin",
                 (long long)res.consumed);
    } else if (m.predict) {
        uint64_t reads;
        const long long n = expected(&m, in, len, want, &reads);
        if (n < 0) {
            FZ_CHECK("kcrypt-input", res.status == 2, "refused input: exit status %d (stderr '%.300s')", res.status,
                     res.err);
        } else {
            FZ_CHECK("kcrypt-output", res.status == 0, "exit status %d (stderr '%.300s')", res.status, res.err);
            FZ_CHECK("kcrypt-output", res.out_len == (size_t)n, "wrote %zu bytes, want %lld", res.out_len, n);
            FZ_SAME("kcrypt-output", res.out, want, (size_t)n, "kcrypt's stdout against the reference");
        }
        /* How much of stdin was read: all of it, or ceil(N/8) bytes for --bits N. */
        if (res.status == 0 || m.bits_given)
            FZ_CHECK(m.bits_given ? "kcrypt-bits" : "kcrypt-input", (uint64_t)res.consumed == reads,
                     "read %lld bytes of stdin, want %llu", (long long)res.consumed, (unsigned long long)reads);
    }
    free(res.out);
    free(in);
    free(want);
    free(b);
    return 0;
}
