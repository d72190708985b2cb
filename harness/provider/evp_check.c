/*
 * The kcrypt OpenSSL provider through OpenSSL's own EVP API (libcrypto as
 * Debian ships it): what an application does with a cipher, each check
 * against OpenSSL's default provider where it has the algorithm, else
 * against the provider's own one-shot result and published vectors.
 *
 *   evp_check PROVIDER_DIR [--vectors evpciph_sm4.txt] [--seed N] [--cases N]
 *
 * Checks (each prints PASS or FAIL and a count; the exit status is 1 if any
 * failed):
 *   differential  SM4 ECB/CBC/CTR/OFB/CFB, both directions, padding on and
 *                 off: random keys, IVs and lengths, ours fed in pieces of
 *                 odd sizes, against the default provider in one call
 *   in-place      the same with out == in (whole-block pieces for ECB/CBC,
 *                 which refuse an in-place piece while a partial block waits)
 *   copy          EVP_CIPHER_CTX_copy mid-message: both copies finish alike
 *   reinit-iv     a new IV on a live context (key kept) restarts the message
 *   gcm           pieces against one call, IV lengths 1-64, every tag
 *                 length, tampered ciphertext, AAD and tag rejected
 *   ccm, xts      round trips, tampering, the tweak rules, misuse refused
 *   zuc, ublock   published keystream and pieces against one call
 *   errors        bad key length, bad padding, no key, a 5-byte GCM tag
 *   vectors       OpenSSL's evpciph_sm4.txt stanzas through the provider
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#define MAX_LEN 4096

static OSSL_LIB_CTX *LIB;
static int FAILURES;
static unsigned long long RNG = 1;

static unsigned rnd(void)
{
  RNG ^= RNG << 13;
  RNG ^= RNG >> 7;
  RNG ^= RNG << 17;
  return (unsigned)(RNG >> 11);
}

static void fill(unsigned char *p, size_t n)
{
  for (size_t i = 0; i < n; i++) p[i] = (unsigned char)rnd();
}

/* One check's tally: counts its cases, prints the first failure's story. */
typedef struct {
  const char *name;
  int cases, failed;
} tally;

static void fail(tally *t, const char *fmt, ...)
{
  if (t->failed++ == 0) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL %s: ", t->name);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    ERR_print_errors_fp(stderr);
  }
  ERR_clear_error();
}

static void report(tally *t)
{
  printf("%s %s: %d cases%s\n", t->failed ? "FAIL" : "PASS", t->name, t->cases,
         t->failed ? " (some failed)" : "");
  FAILURES += t->failed != 0;
}

static EVP_CIPHER *fetch(const char *name, const char *provider)
{
  char query[64];
  snprintf(query, sizeof query, "provider=%s", provider);
  EVP_CIPHER *c = EVP_CIPHER_fetch(LIB, name, query);
  if (c == NULL) {
    fprintf(stderr, "evp_check: %s not found in provider %s\n", name, provider);
    ERR_print_errors_fp(stderr);
    exit(2);
  }
  return c;
}

/* The whole message through ctx in pieces of random sizes up to `piece`
 * (0: one call), then final.  Returns the output length, or -1. */
static int run_pieces(EVP_CIPHER_CTX *ctx, const unsigned char *in, int len, unsigned char *out, int piece,
                      int whole_blocks)
{
  int done = 0, total = 0, n;
  int bs = EVP_CIPHER_CTX_get_block_size(ctx);
  while (done < len) {
    int step = piece ? (int)(rnd() % (unsigned)(piece + 1)) : len - done;
    if (whole_blocks) step = bs * (1 + step / bs);
    if (step > len - done) step = len - done;
    if (!EVP_CipherUpdate(ctx, out + total, &n, in + done, step)) return -1;
    done += step;
    total += n;
  }
  if (!EVP_CipherFinal_ex(ctx, out + total, &n)) return -1;
  return total + n;
}

static int crypt_once(EVP_CIPHER *c, int enc, int pad, const unsigned char *key, const unsigned char *iv,
                      const unsigned char *in, int len, unsigned char *out, int piece)
{
  EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
  int n = -1;
  if (EVP_CipherInit_ex2(ctx, c, key, iv, enc, NULL) && EVP_CIPHER_CTX_set_padding(ctx, pad))
    n = run_pieces(ctx, in, len, out, piece, 0);
  EVP_CIPHER_CTX_free(ctx);
  return n;
}

static const char *const BLOCKWISE[] = {"SM4-ECB", "SM4-CBC", "SM4-CTR", "SM4-OFB", "SM4-CFB"};

static void differential(int cases)
{
  tally t = {"differential (SM4 ECB/CBC/CTR/OFB/CFB against the default provider)", 0, 0};
  static unsigned char key[16], iv[16], msg[MAX_LEN], ct[MAX_LEN + 32], want[MAX_LEN + 32], got[MAX_LEN + 32];
  for (size_t m = 0; m < sizeof BLOCKWISE / sizeof *BLOCKWISE; m++) {
    EVP_CIPHER *ours = fetch(BLOCKWISE[m], "kcrypt"), *theirs = fetch(BLOCKWISE[m], "default");
    int block_mode = m < 2;
    for (int i = 0; i < cases; i++, t.cases++) {
      int pad = block_mode ? (int)(rnd() & 1) : 1;
      int len = (int)(rnd() % 700);
      if (block_mode && !pad) len -= len % 16;
      fill(key, 16);
      fill(iv, 16);
      fill(msg, (size_t)len);
      int piece = 1 + (int)(rnd() % 70);
      int nw = crypt_once(theirs, 1, pad, key, iv, msg, len, want, 0);
      int ng = crypt_once(ours, 1, pad, key, iv, msg, len, got, piece);
      if (nw < 0 || ng != nw || memcmp(got, want, (size_t)nw) != 0) {
        fail(&t, "%s encrypt, %d bytes, padding %d, pieces up to %d", BLOCKWISE[m], len, pad, piece);
        continue;
      }
      memcpy(ct, want, (size_t)nw);
      int nd = crypt_once(ours, 0, pad, key, iv, ct, nw, got, piece);
      if (nd != len || memcmp(got, msg, (size_t)len) != 0)
        fail(&t, "%s decrypt, %d bytes, padding %d, pieces up to %d", BLOCKWISE[m], len, pad, piece);
    }
    EVP_CIPHER_free(ours);
    EVP_CIPHER_free(theirs);
  }
  report(&t);
}

static void in_place(int cases)
{
  tally t = {"in-place (out == in, against the default provider)", 0, 0};
  static unsigned char key[16], iv[16], msg[MAX_LEN + 32], want[MAX_LEN + 32];
  for (size_t m = 0; m < sizeof BLOCKWISE / sizeof *BLOCKWISE; m++) {
    EVP_CIPHER *ours = fetch(BLOCKWISE[m], "kcrypt"), *theirs = fetch(BLOCKWISE[m], "default");
    int block_mode = m < 2;
    for (int i = 0; i < cases; i++, t.cases++) {
      int len = (int)(rnd() % 700);
      if (block_mode) len -= len % 16;
      fill(key, 16);
      fill(iv, 16);
      fill(msg, (size_t)len);
      int enc = (int)(rnd() & 1);
      int nw = crypt_once(theirs, enc, 0, key, iv, msg, len, want, 0);
      EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
      int ng = -1;
      if (EVP_CipherInit_ex2(ctx, ours, key, iv, enc, NULL) && EVP_CIPHER_CTX_set_padding(ctx, 0))
        ng = run_pieces(ctx, msg, len, msg, 1 + (int)(rnd() % 70), block_mode);
      EVP_CIPHER_CTX_free(ctx);
      if (nw < 0 || ng != nw || memcmp(msg, want, (size_t)nw) != 0)
        fail(&t, "%s %s in place, %d bytes", BLOCKWISE[m], enc ? "encrypt" : "decrypt", len);
    }
    EVP_CIPHER_free(ours);
    EVP_CIPHER_free(theirs);
  }
  /* A piece in place while a partial block waits is refused, not garbled. */
  EVP_CIPHER *cbc = fetch("SM4-CBC", "kcrypt");
  EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
  unsigned char buf[64] = {3};
  int n;
  t.cases++;
  if (!EVP_CipherInit_ex2(ctx, cbc, key, iv, 1, NULL) || !EVP_CipherUpdate(ctx, buf, &n, buf, 5) ||
      EVP_CipherUpdate(ctx, buf + n, &n, buf + 5, 40))
    fail(&t, "an in-place CBC piece behind a partial block was not refused");
  ERR_clear_error();
  EVP_CIPHER_CTX_free(ctx);
  EVP_CIPHER_free(cbc);
  report(&t);
}

/* The message in two halves, the context copied between them: the copy and
 * the original finish with the same bytes (and the same tag). */
static void copies(void)
{
  tally t = {"copy (EVP_CIPHER_CTX_copy mid-message)", 0, 0};
  const char *names[] = {"SM4-CBC", "SM4-CTR", "SM4-OFB", "SM4-CFB", "SM4-GCM", "ZUC-128", "UBLOCK-128-128-CTR",
                         "UBLOCK-256-256-CBC"};
  static unsigned char key[32], iv[32], msg[1024], a[1100], b[1100];
  for (size_t m = 0; m < sizeof names / sizeof *names; m++) {
    EVP_CIPHER *c = fetch(names[m], "kcrypt");
    for (int i = 0; i < 20; i++, t.cases++) {
      fill(key, sizeof key);
      fill(iv, sizeof iv);
      fill(msg, sizeof msg);
      int half = (int)(rnd() % 500), len = 512 + (int)(rnd() % 500), n1, n2, n3, n4;
      EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new(), *dup = EVP_CIPHER_CTX_new();
      int ok = EVP_CipherInit_ex2(ctx, c, key, iv, 1, NULL) && EVP_CipherUpdate(ctx, a, &n1, msg, half) &&
               EVP_CIPHER_CTX_copy(dup, ctx);
      memcpy(b, a, (size_t)n1);
      ok = ok && EVP_CipherUpdate(ctx, a + n1, &n2, msg + half, len - half) &&
           EVP_CipherFinal_ex(ctx, a + n1 + n2, &n3);
      EVP_CIPHER_CTX_free(ctx); /* the copy must not need the original */
      ok = ok && EVP_CipherUpdate(dup, b + n1, &n4, msg + half, len - half) && n4 == n2 &&
           EVP_CipherFinal_ex(dup, b + n1 + n2, &n4) && n4 == n3 && memcmp(a, b, (size_t)(n1 + n2 + n3)) == 0;
      if (ok && EVP_CIPHER_get_mode(c) == EVP_CIPH_GCM_MODE) {
        unsigned char tag_a[16];
        ok = EVP_CIPHER_CTX_ctrl(dup, EVP_CTRL_AEAD_GET_TAG, 16, tag_a) > 0;
      }
      EVP_CIPHER_CTX_free(dup);
      if (!ok) fail(&t, "%s copied after %d of %d bytes", names[m], half, len);
    }
    EVP_CIPHER_free(c);
  }
  report(&t);
}

/* A live context given a new IV (key kept) gives what a fresh one does. */
static void reinit_iv(void)
{
  tally t = {"reinit-iv (a new IV, the key kept)", 0, 0};
  static unsigned char key[16], iv1[16], iv2[16], msg[600], want[700], got[700];
  for (size_t m = 0; m < sizeof BLOCKWISE / sizeof *BLOCKWISE; m++) {
    EVP_CIPHER *ours = fetch(BLOCKWISE[m], "kcrypt"), *theirs = fetch(BLOCKWISE[m], "default");
    for (int i = 0; i < 20; i++, t.cases++) {
      fill(key, 16);
      fill(iv1, 16);
      fill(iv2, 16);
      int len = (int)(rnd() % 600), n;
      fill(msg, (size_t)len);
      int nw = crypt_once(theirs, 1, 1, key, iv2, msg, len, want, 0);
      EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
      int ok = EVP_CipherInit_ex2(ctx, ours, key, iv1, 1, NULL) && EVP_CipherUpdate(ctx, got, &n, msg, 37) &&
               EVP_CipherInit_ex2(ctx, NULL, NULL, iv2, 1, NULL);
      int ng = ok ? run_pieces(ctx, msg, len, got, 50, 0) : -1;
      EVP_CIPHER_CTX_free(ctx);
      if (ng != nw || memcmp(got, want, (size_t)nw) != 0) fail(&t, "%s, %d bytes", BLOCKWISE[m], len);
    }
    EVP_CIPHER_free(ours);
    EVP_CIPHER_free(theirs);
  }
  report(&t);
}

/* AEAD through EVP: the AAD and message in pieces (piece 0: one call each). */
static int aead_run(EVP_CIPHER *c, int enc, const unsigned char *key, const unsigned char *iv, size_t ivlen,
                    const unsigned char *aad, int aadlen, const unsigned char *in, int len, unsigned char *out,
                    unsigned char *tag, size_t taglen, int piece)
{
  EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
  OSSL_PARAM params[2] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &ivlen), OSSL_PARAM_END};
  int ok = EVP_CipherInit_ex2(ctx, c, NULL, NULL, enc, params) && EVP_CipherInit_ex2(ctx, NULL, key, iv, enc, NULL);
  int n, done = 0, total = 0;
  if (ok && !enc) ok = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, (int)taglen, tag) > 0;
  while (ok && done < aadlen) {
    int step = piece ? 1 + (int)(rnd() % (unsigned)piece) : aadlen;
    if (step > aadlen - done) step = aadlen - done;
    ok = EVP_CipherUpdate(ctx, NULL, &n, aad + done, step);
    done += step;
  }
  done = 0;
  while (ok && done < len) {
    int step = piece ? 1 + (int)(rnd() % (unsigned)piece) : len;
    if (step > len - done) step = len - done;
    ok = EVP_CipherUpdate(ctx, out + total, &n, in + done, step);
    done += step;
    total += n;
  }
  ok = ok && EVP_CipherFinal_ex(ctx, out + total, &n);
  if (ok && enc) ok = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, (int)taglen, tag) > 0;
  EVP_CIPHER_CTX_free(ctx);
  ERR_clear_error();
  return ok;
}

static void gcm(int cases)
{
  tally t = {"gcm (pieces against one call, every IV and tag length, tampering)", 0, 0};
  EVP_CIPHER *c = fetch("SM4-GCM", "kcrypt");
  static const size_t TAGS[] = {4, 8, 12, 13, 14, 15, 16};
  static unsigned char key[16], iv[64], aad[300], msg[1000], ct1[1000], ct2[1000], pt[1000], tag1[16], tag2[16];
  for (int i = 0; i < cases; i++, t.cases++) {
    fill(key, 16);
    size_t ivlen = 1 + rnd() % 64, taglen = TAGS[rnd() % 7];
    int aadlen = (int)(rnd() % 300), len = (int)(rnd() % 1000);
    fill(iv, ivlen);
    fill(aad, (size_t)aadlen);
    fill(msg, (size_t)len);
    if (!aead_run(c, 1, key, iv, ivlen, aad, aadlen, msg, len, ct1, tag1, 16, 0) ||
        !aead_run(c, 1, key, iv, ivlen, aad, aadlen, msg, len, ct2, tag2, taglen, 33) ||
        memcmp(ct1, ct2, (size_t)len) != 0 || memcmp(tag1, tag2, taglen) != 0) {
      fail(&t, "encryption in pieces, IV %zu, AAD %d, message %d, tag %zu", ivlen, aadlen, len, taglen);
      continue;
    }
    if (!aead_run(c, 0, key, iv, ivlen, aad, aadlen, ct1, len, pt, tag1, taglen, 29) ||
        memcmp(pt, msg, (size_t)len) != 0)
      fail(&t, "decryption, IV %zu, AAD %d, message %d, tag %zu", ivlen, aadlen, len, taglen);
    unsigned char *victim = len > 0 && rnd() % 3 == 0 ? ct1 : aadlen > 0 && rnd() % 2 ? aad : tag1;
    size_t span = victim == ct1 ? (size_t)len : victim == aad ? (size_t)aadlen : taglen;
    size_t at = rnd() % span;
    victim[at] ^= (unsigned char)(1u << (rnd() % 8));
    if (aead_run(c, 0, key, iv, ivlen, aad, aadlen, ct1, len, pt, tag1, taglen, 0))
      fail(&t, "a tampered %s was accepted", victim == ct1 ? "ciphertext" : victim == aad ? "AAD" : "tag");
  }
  /* A 5-byte tag is not one SP 800-38D allows: refused when set. */
  EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
  t.cases++;
  if (!EVP_CipherInit_ex2(ctx, c, key, iv, 0, NULL) || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 5, tag1) > 0)
    fail(&t, "a 5-byte tag was taken");
  ERR_clear_error();
  EVP_CIPHER_CTX_free(ctx);
  EVP_CIPHER_free(c);
  report(&t);
}

static void ccm(int cases)
{
  tally t = {"ccm (round trips, tampering, nonce and tag lengths)", 0, 0};
  EVP_CIPHER *c = fetch("SM4-CCM", "kcrypt");
  static unsigned char key[16], iv[13], aad[200], msg[600], ct[600], pt[600], tag[16];
  for (int i = 0; i < cases; i++, t.cases++) {
    fill(key, 16);
    size_t ivlen = 7 + rnd() % 7, taglen = 4 + 2 * (rnd() % 7);
    int aadlen = (int)(rnd() % 200), len = (int)(rnd() % 600);
    fill(iv, ivlen);
    fill(aad, (size_t)aadlen);
    fill(msg, (size_t)len);
    /* CCM takes its tag length before the message: the EVP way, a tag with no data. */
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    OSSL_PARAM p[3] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &ivlen),
                       OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, NULL, taglen), OSSL_PARAM_END};
    int n, ok = EVP_CipherInit_ex2(ctx, c, NULL, NULL, 1, p) && EVP_CipherInit_ex2(ctx, NULL, key, iv, 1, NULL) &&
                EVP_CipherUpdate(ctx, NULL, &n, NULL, len) && EVP_CipherUpdate(ctx, NULL, &n, aad, aadlen) &&
                EVP_CipherUpdate(ctx, ct, &n, msg, len) && n == len && EVP_CipherFinal_ex(ctx, ct + len, &n) &&
                EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, (int)taglen, tag) > 0;
    EVP_CIPHER_CTX_free(ctx);
    if (!ok) {
      fail(&t, "encryption, nonce %zu, tag %zu, AAD %d, message %d", ivlen, taglen, aadlen, len);
      continue;
    }
    for (int tamper = 0; tamper < 2; tamper++) {
      if (tamper) tag[rnd() % taglen] ^= 0x40;
      memset(pt, 0xa5, sizeof pt);
      ctx = EVP_CIPHER_CTX_new();
      ok = EVP_CipherInit_ex2(ctx, c, NULL, NULL, 0, p) && EVP_CipherInit_ex2(ctx, NULL, key, iv, 0, NULL) &&
           EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, (int)taglen, tag) > 0 &&
           EVP_CipherUpdate(ctx, NULL, &n, aad, aadlen) && EVP_CipherUpdate(ctx, pt, &n, ct, len) &&
           EVP_CipherFinal_ex(ctx, pt + len, &n);
      EVP_CIPHER_CTX_free(ctx);
      ERR_clear_error();
      if (!tamper && (!ok || memcmp(pt, msg, (size_t)len) != 0)) fail(&t, "decryption, message %d", len);
      if (tamper) {
        int leaked = 0;
        for (int j = 0; j < len; j++) leaked |= len > 0 && pt[j] != 0 && pt[j] != 0xa5;
        if (ok || leaked) fail(&t, "a tampered tag: %s", ok ? "accepted" : "plaintext written");
      }
    }
  }
  EVP_CIPHER_free(c);
  report(&t);
}

static void xts(int cases)
{
  tally t = {"xts (round trips, both tweak rules, misuse refused)", 0, 0};
  EVP_CIPHER *c = fetch("SM4-XTS", "kcrypt");
  static unsigned char key[32], iv[16], msg[700], gb[700], ieee[700], pt[700];
  for (int i = 0; i < cases; i++, t.cases++) {
    fill(key, 32);
    fill(iv, 16);
    int len = 16 + (int)(rnd() % 600), n;
    fill(msg, (size_t)len);
    int ok = 1;
    unsigned char *outs[2] = {gb, ieee};
    for (int rule = 0; rule < 2 && ok; rule++) {
      char *name = rule ? "IEEE" : "GB";
      OSSL_PARAM p[2] = {OSSL_PARAM_construct_utf8_string("xts_standard", name, 0), OSSL_PARAM_END};
      for (int enc = 1; enc >= 0 && ok; enc--) {
        EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
        ok = EVP_CipherInit_ex2(ctx, c, key, iv, enc, p) &&
             EVP_CipherUpdate(ctx, enc ? outs[rule] : pt, &n, enc ? msg : outs[rule], len) && n == len &&
             EVP_CipherFinal_ex(ctx, pt, &n);
        EVP_CIPHER_CTX_free(ctx);
      }
      ok = ok && memcmp(pt, msg, (size_t)len) == 0;
    }
    /* The rules agree on the first block (its tweak is E(iv) under both) and differ after it;
     * below 32 bytes ciphertext stealing moves the second tweak into the first block. */
    if (!ok || (len >= 32 && (memcmp(gb, ieee, 16) != 0 || memcmp(gb + 16, ieee + 16, (size_t)len - 16) == 0)))
      fail(&t, "%d bytes", len);
  }
  EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
  int n;
  memcpy(key + 16, key, 16);
  t.cases += 2;
  if (EVP_CipherInit_ex2(ctx, c, key, iv, 1, NULL)) fail(&t, "equal data and tweak keys taken");
  key[31] ^= 1;
  if (!EVP_CipherInit_ex2(ctx, c, key, iv, 1, NULL) || EVP_CipherUpdate(ctx, gb, &n, msg, 15))
    fail(&t, "a 15-byte data unit taken");
  ERR_clear_error();
  EVP_CIPHER_CTX_free(ctx);
  EVP_CIPHER_free(c);
  report(&t);
}

/* Published keystreams (all-zero key and IV: ZUC's specification, test set
 * 1, and the ZUC-256 paper's first vector), then pieces against one call. */
static void zuc(void)
{
  tally t = {"zuc (published keystream, pieces against one call)", 0, 0};
  static const struct {
    const char *name;
    unsigned char z[8];
  } KNOWN[] = {{"ZUC-128", {0x27, 0xbe, 0xde, 0x74, 0x01, 0x80, 0x82, 0xda}},
               {"ZUC-256", {0x58, 0xd0, 0x3a, 0xd6, 0x2e, 0x03, 0x2c, 0xe2}}};
  static unsigned char key[32], iv[32], msg[2000], a[2000], b[2000];
  for (int v = 0; v < 2; v++) {
    EVP_CIPHER *c = fetch(KNOWN[v].name, "kcrypt");
    memset(key, 0, sizeof key);
    memset(iv, 0, sizeof iv);
    memset(msg, 0, 8);
    t.cases++;
    if (crypt_once(c, 1, 1, key, iv, msg, 8, a, 0) != 8 || memcmp(a, KNOWN[v].z, 8) != 0)
      fail(&t, "%s keystream of the zero key and IV", KNOWN[v].name);
    for (int i = 0; i < 30; i++, t.cases++) {
      fill(key, sizeof key);
      fill(iv, sizeof iv);
      for (int j = 17; j < 25; j++) iv[j] &= 0x3f; /* ZUC-256's IV17-IV24 are 6 bits each */
      int len = (int)(rnd() % 2000);
      fill(msg, (size_t)len);
      if (crypt_once(c, 1, 1, key, iv, msg, len, a, 0) != len ||
          crypt_once(c, 1, 1, key, iv, msg, len, b, 1 + (int)(rnd() % 100)) != len ||
          memcmp(a, b, (size_t)len) != 0)
        fail(&t, "%s, %d bytes in pieces", KNOWN[v].name, len);
    }
    EVP_CIPHER_free(c);
  }
  report(&t);
}

static void ublock(void)
{
  tally t = {"ublock (pieces against one call, round trips)", 0, 0};
  const char *variants[] = {"UBLOCK-128-128", "UBLOCK-128-256", "UBLOCK-256-256"}, *modes[] = {"ECB", "CBC", "CTR"};
  static unsigned char key[32], iv[32], msg[1000], a[1100], b[1100], pt[1100];
  for (int v = 0; v < 3; v++)
    for (int m = 0; m < 3; m++) {
      char name[40];
      snprintf(name, sizeof name, "%s-%s", variants[v], modes[m]);
      EVP_CIPHER *c = fetch(name, "kcrypt");
      for (int i = 0; i < 20; i++, t.cases++) {
        fill(key, sizeof key);
        fill(iv, sizeof iv);
        int len = (int)(rnd() % 1000);
        fill(msg, (size_t)len);
        int na = crypt_once(c, 1, 1, key, iv, msg, len, a, 0);
        int nb = crypt_once(c, 1, 1, key, iv, msg, len, b, 1 + (int)(rnd() % 90));
        int np = crypt_once(c, 0, 1, key, iv, a, na, pt, 1 + (int)(rnd() % 90));
        if (na < len || nb != na || memcmp(a, b, (size_t)na) != 0 || np != len || memcmp(pt, msg, (size_t)len))
          fail(&t, "%s, %d bytes", name, len);
      }
      EVP_CIPHER_free(c);
    }
  report(&t);
}

static void errors(void)
{
  tally t = {"errors (misuse refused with an error)", 0, 0};
  EVP_CIPHER *cbc = fetch("SM4-CBC", "kcrypt");
  EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
  unsigned char key[16] = {0}, iv[16] = {0}, buf[64] = {0}, out[96];
  int n;
  t.cases++;
  if (!EVP_CipherInit_ex2(ctx, cbc, NULL, NULL, 1, NULL) || EVP_CipherUpdate(ctx, out, &n, buf, 16))
    fail(&t, "an update with no key was taken");
  ERR_clear_error();
  t.cases++;
  if (EVP_CIPHER_CTX_set_key_length(ctx, 17)) fail(&t, "a 17-byte key length was taken");
  ERR_clear_error();
  /* A last block whose padding is wrong: zeros under the zero key decrypt to noise. */
  t.cases++;
  int total = 0;
  if (!EVP_CipherInit_ex2(ctx, cbc, key, iv, 0, NULL) || !EVP_CipherUpdate(ctx, out, &n, buf, 32) ||
      (total = n, EVP_CipherFinal_ex(ctx, out + total, &n)))
    fail(&t, "a bad padding was accepted");
  else if (ERR_peek_last_error() == 0)
    fail(&t, "a bad padding left no error on the queue");
  ERR_clear_error();
  t.cases++;
  if (!EVP_CipherInit_ex2(ctx, cbc, key, iv, 1, NULL) || !EVP_CIPHER_CTX_set_padding(ctx, 0) ||
      !EVP_CipherUpdate(ctx, out, &n, buf, 20) || EVP_CipherFinal_ex(ctx, out + n, &n))
    fail(&t, "a partial last block without padding was accepted");
  ERR_clear_error();
  EVP_CIPHER_CTX_free(ctx);
  EVP_CIPHER_free(cbc);
  report(&t);
}

/* ---- OpenSSL's evpciph format: "Name = value" lines, stanzas split by blank lines. */

typedef struct {
  char cipher[64], xts[16];
  unsigned char key[64], iv[64], aad[256], tag[32], pt[MAX_LEN], ct[MAX_LEN];
  size_t key_len, iv_len, aad_len, tag_len, pt_len, ct_len;
} stanza;

static size_t unhex(const char *s, unsigned char *out, size_t cap)
{
  size_t n = 0;
  while (s[0] && s[1] && n < cap) {
    unsigned v;
    if (sscanf(s, "%2x", &v) != 1) break;
    out[n++] = (unsigned char)v;
    s += 2;
  }
  return n;
}

static int run_stanza(const stanza *s, int enc)
{
  EVP_CIPHER *c = fetch(s->cipher, "kcrypt");
  int mode = EVP_CIPHER_get_mode(c), aead = mode == EVP_CIPH_GCM_MODE || mode == EVP_CIPH_CCM_MODE;
  EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
  unsigned char out[MAX_LEN + 32], tag[16];
  const unsigned char *in = enc ? s->pt : s->ct, *want = enc ? s->ct : s->pt;
  size_t len = enc ? s->pt_len : s->ct_len, ivlen = s->iv_len;
  OSSL_PARAM p[4], *q = p;
  if (aead) *q++ = OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &ivlen);
  if (mode == EVP_CIPH_CCM_MODE)
    *q++ = OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, enc ? NULL : (void *)s->tag, s->tag_len);
  if (s->xts[0]) *q++ = OSSL_PARAM_construct_utf8_string("xts_standard", (char *)s->xts, 0);
  *q = OSSL_PARAM_construct_end();
  int n, m = 0, ok = EVP_CipherInit_ex2(ctx, c, NULL, NULL, enc, p) &&
                     EVP_CipherInit_ex2(ctx, NULL, s->key, s->iv_len ? s->iv : NULL, enc, NULL) &&
                     EVP_CIPHER_CTX_set_padding(ctx, 0);
  if (ok && aead && !enc && mode == EVP_CIPH_GCM_MODE)
    ok = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, (int)s->tag_len, (void *)s->tag) > 0;
  if (ok && mode == EVP_CIPH_CCM_MODE) ok = EVP_CipherUpdate(ctx, NULL, &n, NULL, (int)len);
  if (ok && s->aad_len) ok = EVP_CipherUpdate(ctx, NULL, &n, s->aad, (int)s->aad_len);
  ok = ok && EVP_CipherUpdate(ctx, out, &n, in, (int)len) && EVP_CipherFinal_ex(ctx, out + n, &m);
  ok = ok && (size_t)(n + m) == len && memcmp(out, want, len) == 0;
  if (ok && aead && enc)
    ok = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, (int)s->tag_len, tag) > 0 &&
         memcmp(tag, s->tag, s->tag_len) == 0;
  EVP_CIPHER_CTX_free(ctx);
  EVP_CIPHER_free(c);
  return ok;
}

static void vectors(const char *path)
{
  tally t = {"vectors (OpenSSL's evpciph_sm4.txt through the provider)", 0, 0};
  FILE *f = fopen(path, "r");
  if (f == NULL) {
    perror(path);
    exit(2);
  }
  static char line[2 * MAX_LEN + 64];
  static stanza s;
  int have = 0;
  for (int more = 1; more;) {
    more = fgets(line, sizeof line, f) != NULL;
    char *eq = more ? strchr(line, '=') : NULL;
    if (line[0] == '#' && more) continue;
    if (eq == NULL) { /* a blank line or the end: run what was read */
      if (have && s.cipher[0]) {
        t.cases++;
        if (!run_stanza(&s, 1) || !run_stanza(&s, 0)) fail(&t, "%s stanza %d", s.cipher, t.cases);
      }
      memset(&s, 0, sizeof s);
      have = 0;
      continue;
    }
    char name[32] = {0}, *value = eq + 1;
    sscanf(line, "%31[A-Za-z]", name);
    while (*value == ' ') value++;
    value[strcspn(value, "\r\n ")] = 0;
    have = 1;
    if (!strcmp(name, "Title")) have = 0;
    else if (!strcmp(name, "Cipher")) snprintf(s.cipher, sizeof s.cipher, "%s", value);
    else if (!strcmp(name, "Key")) s.key_len = unhex(value, s.key, sizeof s.key);
    else if (!strcmp(name, "IV")) s.iv_len = unhex(value, s.iv, sizeof s.iv);
    else if (!strcmp(name, "AAD")) s.aad_len = unhex(value, s.aad, sizeof s.aad);
    else if (!strcmp(name, "Tag")) s.tag_len = unhex(value, s.tag, sizeof s.tag);
    else if (!strcmp(name, "Plaintext")) s.pt_len = unhex(value, s.pt, sizeof s.pt);
    else if (!strcmp(name, "Ciphertext")) s.ct_len = unhex(value, s.ct, sizeof s.ct);
    else if (!strcmp(name, "XTSStandard")) snprintf(s.xts, sizeof s.xts, "%s", value);
  }
  fclose(f);
  if (t.cases == 0) fail(&t, "no stanza in %s", path);
  report(&t);
}

int main(int argc, char **argv)
{
  setvbuf(stdout, NULL, _IOLBF, 0);
  const char *dir = NULL, *vector_file = NULL;
  int cases = 200;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--vectors") && i + 1 < argc) vector_file = argv[++i];
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc) RNG = strtoull(argv[++i], NULL, 0) | 1;
    else if (!strcmp(argv[i], "--cases") && i + 1 < argc) cases = atoi(argv[++i]);
    else if (argv[i][0] != '-' && dir == NULL) dir = argv[i];
    else {
      fprintf(stderr, "usage: evp_check PROVIDER_DIR [--vectors FILE] [--seed N] [--cases N]\n");
      return 2;
    }
  }
  if (dir == NULL) {
    fprintf(stderr, "usage: evp_check PROVIDER_DIR [--vectors FILE] [--seed N] [--cases N]\n");
    return 2;
  }
  LIB = OSSL_LIB_CTX_new();
  if (!OSSL_PROVIDER_set_default_search_path(LIB, dir) || OSSL_PROVIDER_load(LIB, "kcrypt") == NULL ||
      OSSL_PROVIDER_load(LIB, "default") == NULL) {
    fprintf(stderr, "evp_check: cannot load the kcrypt provider from %s\n", dir);
    ERR_print_errors_fp(stderr);
    return 2;
  }
  differential(cases);
  in_place(cases / 2);
  copies();
  reinit_iv();
  gcm(cases);
  ccm(cases / 2);
  xts(cases / 2);
  zuc();
  ublock();
  errors();
  if (vector_file) vectors(vector_file);
  printf("evp_check: %s\n", FAILURES ? "FAILED" : "all passed");
  return FAILURES != 0;
}
