/*
 * kcrypt's SM4 (kc_sm4_cli): ecb, cbc and ctr go to kc_block_cli; gcm, ccm, xts, cmac and
 * cbc-mac are sm4.h's calls of the same names, here:
 *   gcm -e   streams: each piece's ciphertext as it comes, the tag after the last.
 *   gcm -d   streams the input through the GCM state, dropping its plaintext, and into an
 *            unlinked temporary file, holding back the last --tag-bytes (the tag).  Only
 *            once the tag verifies does a second pass decrypt that file to stdout (drain).
 *            So nothing is written before the tag verifies, memory stays constant, and
 *            the file holds ciphertext only: no plaintext reaches the disk.
 *   ccm, xts, cbc-mac  gather stdin in memory for their one-shot call: CCM needs the
 *            length first, an XTS data unit is one call, cbc-mac is one call.
 *   cmac     streams.
 * The command line is checked whole before stdin is read (the library judges the kernel
 * in prepare too: GCM and XTS need a SIMD one).
 */
#define _GNU_SOURCE /* O_TMPFILE, pread, mkstemp, explicit_bzero */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kcrypt.h"
#include "sm4.h"

typedef enum { GCM, CCM, XTS, CMAC, CBC_MAC, N_MODES } mode_id;
static const char *const NAMES[N_MODES] = {"gcm", "ccm", "xts", "cmac", "cbc-mac"};
/* The options only some modes take (kc_refuse_options) that each takes. */
static const char *const TAKES[N_MODES] = {"-a,--aad-file,--tag-bytes",
                                           "-a,--aad-file,--tag-bytes", "--tweak-rule",
                                           "--tag-bytes", NULL};

/* What prepare decided, and how far the input got. */
static struct {
  const kc_cli *block; /* ecb, cbc, ctr: kc_block_cli runs them all */
  mode_id mode;
  int encrypt;
  const sm4_impl *impl; /* NULL: the library's choice */
  sm4_key key, tweak_key;
  uint8_t *iv, *aad; /* gcm, ccm (iv: the nonce), xts (the tweak) */
  size_t iv_len, aad_len, tag_len;
  sm4_xts_rule rule;
  sm4_gcm_state gcm;
  sm4_cmac_state cmac;
  uint8_t held[16]; /* gcm -d: the input's last bytes so far, the tag once it ends */
  size_t held_len;
  int tmp;                /* gcm -d: the temporary file of the ciphertext, or -1 */
  uint64_t body, drained; /* gcm -d: the bytes in tmp; of those, decrypted to stdout */
  kc_gathered whole;      /* ccm, xts, cbc-mac: stdin; then their output */
  size_t pos, end;        /* what drain has written of whole, and where its output ends */
} job;

/* 0 for SM4_OK, else -1 with "CALL with KERNEL failed: why (code N)". */
static int lib(int rc, const char *call, char *err, size_t err_size) {
  static const char *const why[] = {
      "", "length out of range", "no kernel this CPU runs for it (gcm and xts need a SIMD one)",
      "state not live", "argument out of range", "the tag does not verify"};
  if (rc == SM4_OK) return 0;
  return kc_error(err, err_size, "%s with %s failed: %s (code %d)", call,
                  job.impl ? job.impl->name : "the library's choice",
                  rc < 0 && rc >= -5 ? why[-rc] : "unknown error", rc);
}

static int auth_failed(char *err, size_t err_size) {
  return kc_error(err, err_size,
                  "authentication failed: the tag does not verify (wrong key, %s, AAD or tag "
                  "length, or altered input); no plaintext was written",
                  job.mode == GCM ? "IV" : "nonce");
}

/* -k: one key, or xts's data key then tweak key. */
static int read_keys(const kc_args *a, char *err, size_t err_size) {
  size_t n = job.mode == XTS ? 2 * SM4_KEY_BYTES : SM4_KEY_BYTES;
  const char *what = job.mode == XTS ? "sm4 xts key (the data key, then the tweak key)" : "sm4 key";
  uint8_t bytes[2 * SM4_KEY_BYTES];
  if (!a->key_hex)
    return kc_error(err, err_size, "missing key (-k KEYHEX, %zu hex digits for %s)", 2 * n, what);
  int rc = kc_hex_decode_exact(a->key_hex, bytes, n, what, err, err_size);
  if (rc == 0) rc = lib(sm4_set_key(&job.key, bytes), "sm4_set_key", err, err_size);
  if (rc == 0 && job.mode == XTS)
    rc = lib(sm4_set_key(&job.tweak_key, bytes + SM4_KEY_BYTES), "sm4_set_key", err, err_size);
  explicit_bzero(bytes, sizeof bytes);
  return rc;
}

/* -i: gcm's IV (1 byte or more), ccm's nonce (7-13), xts's tweak (16); refused by the MACs. */
static int read_iv(const kc_args *a, const char *who, char *err, size_t err_size) {
  static const char *const wants[] = {"an IV (-i IVHEX, 1 byte or more; 12 is usual)",
                                      "a nonce (-i NONCEHEX, 7 to 13 bytes)",
                                      "a tweak (-i TWEAKHEX, 16 bytes)"};
  if (job.mode >= CMAC)
    return a->iv_hex ? kc_error(err, err_size, "%s takes no IV (remove -i)", who) : 0;
  if (!a->iv_hex) return kc_error(err, err_size, "%s needs %s", who, wants[job.mode]);
  char inner[128];
  if (kc_hex_decode(a->iv_hex, &job.iv, &job.iv_len, inner, sizeof inner) != 0)
    return kc_error(err, err_size, "bad %s -i hex: %s", who, inner);
  size_t n = job.iv_len;
  int ok = job.mode == GCM ? n >= 1 : job.mode == CCM ? n >= 7 && n <= 13 : n == SM4_BLOCK_BYTES;
  return ok ? 0 : kc_error(err, err_size, "%s needs %s, got %zu bytes", who, wants[job.mode], n);
}

/* --tag-bytes: gcm 4, 8 or 12-16 (SP 800-38D), ccm 4-16 even, cmac 1-16; default 16. */
static int read_tag_bytes(const char *text, const char *who, char *err, size_t err_size) {
  static const char *const allowed[] = {"4, 8 or 12 to 16", "an even number from 4 to 16", "",
                                        "1 to 16"};
  uint64_t n = 16;
  if (text && kc_parse_count(text, &n) != 0) n = 0;
  int ok = job.mode == GCM   ? n == 4 || n == 8 || (n >= 12 && n <= 16)
           : job.mode == CCM ? n >= 4 && n <= 16 && n % 2 == 0
                             : n >= 1 && n <= 16;
  job.tag_len = (size_t)n;
  return ok ? 0
            : kc_error(err, err_size, "%s --tag-bytes must be %s, got '%s'", who, allowed[job.mode],
                       text);
}

/* -a or --aad-file (neither: no AAD). */
static int read_aad(const kc_args *a, const char *who, char *err, size_t err_size) {
  char inner[128];
  if (a->aad_hex && a->aad_file)
    return kc_error(err, err_size, "give only one of -a and --aad-file");
  if (a->aad_hex && kc_hex_decode(a->aad_hex, &job.aad, &job.aad_len, inner, sizeof inner) != 0)
    return kc_error(err, err_size, "bad %s -a hex: %s", who, inner);
  if (a->aad_file && kc_read_file(a->aad_file, &job.aad, &job.aad_len) != 0)
    return kc_error(err, err_size, "cannot read --aad-file '%s': %s", a->aad_file, strerror(errno));
  return 0;
}

/* Starts a GCM message in job.gcm: its IV and AAD. */
static int gcm_start(char *err, size_t err_size) {
  sm4_direction dir = job.encrypt ? SM4_ENCRYPT : SM4_DECRYPT;
  if (lib(sm4_gcm_init(&job.gcm, job.impl, dir, &job.key, job.iv, job.iv_len), "sm4_gcm_init", err,
          err_size) != 0)
    return -1;
  return lib(sm4_gcm_aad(&job.gcm, job.aad, job.aad_len), "sm4_gcm_aad", err, err_size);
}

/* gcm -d's temporary file in $TMPDIR (else /tmp), unlinked from the start: O_TMPFILE where
 * the file system has it, else mkstemp and unlink; numbered above stderr (as read_ahead.c's
 * eventfd, for a closed stdout). */
static int open_temp(char *err, size_t err_size) {
  const char *dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  job.tmp = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (job.tmp < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
    char path[4096];
    snprintf(path, sizeof path, "%s/kcrypt-XXXXXX", dir);
    if ((job.tmp = mkstemp(path)) >= 0) unlink(path);
  }
  if (job.tmp >= 0 && job.tmp <= STDERR_FILENO) { /* stdout closed: keep clear of fd 0-2 */
    int above = fcntl(job.tmp, F_DUPFD_CLOEXEC, STDERR_FILENO + 1), error = errno;
    close(job.tmp);
    job.tmp = above;
    errno = error;
  }
  return job.tmp >= 0 ? 0
                      : kc_error(err, err_size, "cannot create sm4 gcm -d's temporary file in %s "
                                                "($TMPDIR): %s", dir, strerror(errno));
}

static int modes_prepare(const kc_desc *d, const kc_variant *v, const kc_args *a, char *err,
                         size_t err_size) {
  memset(&job, 0, sizeof job);
  job.tmp = -1;
  kc_block_mode block_mode;
  if (kc_block_mode_parse(a->mode, &block_mode) == 0) {
    job.block = &kc_block_cli;
    return kc_block_cli.prepare(d, v, a, err, err_size);
  }
  while (job.mode < N_MODES && strcmp(a->mode, NAMES[job.mode]) != 0) job.mode++;
  if (job.mode == N_MODES)
    return kc_error(err, err_size, "unknown sm4 mode '%s' (known: ecb, cbc, ctr, gcm, ccm, xts, "
                                   "cmac, cbc-mac)", a->mode);
  char who[32];
  snprintf(who, sizeof who, "sm4 %s", a->mode);
  job.encrypt = a->direction != 0;
  job.rule = a->tweak_rule && strcmp(a->tweak_rule, "gb") == 0 ? SM4_XTS_GB : SM4_XTS_IEEE;
  if (kc_refuse_options(a, TAKES[job.mode], who, err, err_size) != 0 ||
      read_keys(a, err, err_size) != 0 || read_iv(a, who, err, err_size) != 0 ||
      read_tag_bytes(a->tag_bytes, who, err, err_size) != 0 ||
      read_aad(a, who, err, err_size) != 0)
    return -1;
  if (a->tweak_rule && strcmp(a->tweak_rule, "gb") != 0 && strcmp(a->tweak_rule, "ieee") != 0)
    return kc_error(err, err_size, "--tweak-rule must be ieee or gb, got '%s'", a->tweak_rule);
  job.impl = kc_select_impl(d, v->name, a, err, err_size);
  if (!job.impl) return -1;
  /* Nothing named: the library's own choice, the serial kernel for the chained modes. */
  if (!a->target && !a->strategy && job.mode != GCM && job.mode != XTS) job.impl = NULL;
  if (job.mode == CMAC) return lib(sm4_cmac_init(&job.cmac, job.impl, &job.key), "sm4_cmac_init",
                                   err, err_size);
  if (job.mode == XTS) { /* a probe: does this kernel run XTS? */
    uint8_t block[SM4_BLOCK_BYTES] = {0};
    return lib(sm4_xts_crypt(job.impl, SM4_ENCRYPT, job.rule, &job.key, &job.tweak_key, job.iv,
                             block, block, sizeof block), "sm4_xts_crypt", err, err_size);
  }
  if (job.mode != GCM) return 0;
  return gcm_start(err, err_size) != 0 || (!job.encrypt && open_temp(err, err_size) != 0) ? -1 : 0;
}

/* gcm -d, first pass: n bytes of ciphertext through the state (the plaintext into scratch,
 * unused) and into the temporary file. */
static int gcm_take(const uint8_t *in, size_t n, uint8_t *scratch, char *err, size_t err_size) {
  if (lib(sm4_gcm_update(&job.gcm, in, scratch, n), "sm4_gcm_update", err, err_size) != 0)
    return -1;
  uint64_t written = 0;
  if (kc_write_full(job.tmp, in, n, &written) != 0)
    return kc_error(err, err_size, "writing sm4 gcm -d's temporary file: %s", strerror(errno));
  job.body += n;
  return 0;
}

/* gcm -d, first pass, one piece: all but the input's last tag_len bytes so far go through
 * gcm_take (what was held back first), those last ones are held back; after the last
 * piece they are the tag, and verify says whether the second pass (drain) may run. */
static int gcm_check(const uint8_t *in, size_t len, int last, uint8_t *scratch, char *err,
                     size_t err_size) {
  size_t total = job.held_len + len, body = total > job.tag_len ? total - job.tag_len : 0;
  size_t from_held = body < job.held_len ? body : job.held_len, from_in = body - from_held;
  if (gcm_take(job.held, from_held, scratch, err, err_size) != 0 ||
      gcm_take(in, from_in, scratch, err, err_size) != 0)
    return -1;
  memmove(job.held, job.held + from_held, job.held_len - from_held);
  memcpy(job.held + job.held_len - from_held, in + from_in, len - from_in);
  job.held_len = total - body;
  if (!last) return 0;
  if (job.held_len < job.tag_len)
    return kc_error(err, err_size, "sm4 gcm -d: the input is %zu bytes, shorter than its %zu-byte "
                                   "tag", job.held_len, job.tag_len);
  int rc = sm4_gcm_verify(&job.gcm, job.held, job.tag_len);
  if (rc == SM4_ERR_AUTH) return auth_failed(err, err_size);
  return lib(rc, "sm4_gcm_verify", err, err_size) != 0 ? -1 : gcm_start(err, err_size);
}

/* ccm, xts, cbc-mac: the one-shot call on the gathered input, in place.  The output goes
 * to stdout through drain, but cbc-mac's line, which is written at once. */
static int one_shot(uint8_t *out, size_t *out_len, char *err, size_t err_size) {
  uint8_t *data = job.whole.data, tag[SM4_BLOCK_BYTES];
  size_t len = job.whole.len;
  sm4_direction dir = job.encrypt ? SM4_ENCRYPT : SM4_DECRYPT;
  if (job.mode == CBC_MAC) {
    if (len == 0 || len % SM4_BLOCK_BYTES) /* empty: the zero block, whatever the key */
      return kc_error(err, err_size, "sm4 cbc-mac takes one or more whole 16-byte blocks; the "
                                     "input is %zu bytes (cmac takes any length)", len);
    if (lib(sm4_cbc_mac(job.impl, &job.key, data, len, tag), "sm4_cbc_mac", err, err_size) != 0)
      return -1;
    kc_hex_encode(tag, sizeof tag, (char *)out);
    out[2 * sizeof tag] = '\n';
    *out_len = 2 * sizeof tag + 1;
    return 0;
  }
  if (job.mode == XTS) {
    if (len < SM4_BLOCK_BYTES)
      return kc_error(err, err_size, "sm4 xts needs a data unit of at least 16 bytes; the input "
                                     "is %zu", len);
    job.end = len;
    return lib(sm4_xts_crypt(job.impl, dir, job.rule, &job.key, &job.tweak_key, job.iv, data,
                             data, len), "sm4_xts_crypt", err, err_size);
  }
  if (job.encrypt) {
    if (lib(sm4_ccm_encrypt(job.impl, &job.key, job.iv, job.iv_len, job.aad, job.aad_len, data,
                            data, len, tag, job.tag_len), "sm4_ccm_encrypt", err, err_size) != 0)
      return -1;
    job.end = len + job.tag_len;
    return kc_gather(&job.whole, tag, job.tag_len, "the whole input", err, err_size);
  }
  if (len < job.tag_len)
    return kc_error(err, err_size, "sm4 ccm -d: the input is %zu bytes, shorter than its %zu-byte "
                                   "tag", len, job.tag_len);
  job.end = len - job.tag_len;
  int rc = sm4_ccm_decrypt(job.impl, &job.key, job.iv, job.iv_len, job.aad, job.aad_len, data,
                           data, job.end, data + job.end, job.tag_len);
  if (rc == SM4_ERR_AUTH) job.end = 0;
  return rc == SM4_ERR_AUTH ? auth_failed(err, err_size)
                            : lib(rc, "sm4_ccm_decrypt", err, err_size);
}

/* ccm: the message must stay below 2^(8 (15 - nonce bytes)) bytes (SP 800-38C); said as
 * soon as the input passes it, before the rest is read. */
static int ccm_bound(char *err, size_t err_size) {
  unsigned bits = 8 * (15 - (unsigned)job.iv_len);
  uint64_t max = bits >= 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
  uint64_t message = job.whole.len - (job.encrypt ? 0 : job.tag_len);
  if (job.mode != CCM || job.whole.len < job.tag_len || message <= max) return 0;
  return kc_error(err, err_size, "sm4 ccm with a %zu-byte nonce takes messages of at most %" PRIu64
                                 " bytes; the input is longer", job.iv_len, max);
}

static int modes_update(const uint8_t *in, size_t len, int last, uint8_t *out, size_t *out_len,
                        char *err, size_t err_size) {
  if (job.block) return job.block->update(in, len, last, out, out_len, err, err_size);
  *out_len = 0;
  if (job.mode == GCM && !job.encrypt) return gcm_check(in, len, last, out, err, err_size);
  if (job.mode == GCM) {
    if (lib(sm4_gcm_update(&job.gcm, in, out, len), "sm4_gcm_update", err, err_size) != 0)
      return -1;
    *out_len = len + (last ? job.tag_len : 0);
    return last ? lib(sm4_gcm_final(&job.gcm, out + len, job.tag_len), "sm4_gcm_final", err,
                      err_size)
                : 0;
  }
  if (job.mode == CMAC) {
    uint8_t tag[SM4_BLOCK_BYTES];
    if (lib(sm4_cmac_update(&job.cmac, in, len), "sm4_cmac_update", err, err_size) != 0) return -1;
    if (!last) return 0;
    if (lib(sm4_cmac_final(&job.cmac, tag, job.tag_len), "sm4_cmac_final", err, err_size) != 0)
      return -1;
    kc_hex_encode(tag, job.tag_len, (char *)out);
    out[2 * job.tag_len] = '\n';
    *out_len = 2 * job.tag_len + 1;
    return 0;
  }
  if (kc_gather(&job.whole, in, len, "the whole input", err, err_size) != 0 ||
      ccm_bound(err, err_size) != 0)
    return -1;
  return last ? one_shot(out, out_len, err, err_size) : 0;
}

/* After the last piece: gcm -d's second pass, the temporary file decrypted a piece at a
 * time (its tag checked again at the end: the file is this process's alone, but a change
 * is said rather than trusted); else what one_shot left in whole. */
static int modes_drain(uint8_t *out, size_t *out_len, char *err, size_t err_size) {
  if (job.tmp < 0) {
    size_t n = job.end - job.pos < KC_CHUNK_BYTES ? job.end - job.pos : KC_CHUNK_BYTES;
    if (n) memcpy(out, job.whole.data + job.pos, n);
    job.pos += n;
    *out_len = n;
    return job.pos < job.end;
  }
  uint64_t left = job.body - job.drained;
  size_t n = left < KC_CHUNK_BYTES ? (size_t)left : KC_CHUNK_BYTES;
  for (size_t got = 0; got < n;) {
    ssize_t r = pread(job.tmp, out + got, n - got, (off_t)(job.drained + got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0)
      return kc_error(err, err_size, "reading sm4 gcm -d's temporary file: %s",
                      r ? strerror(errno) : "it ended early");
    got += (size_t)r;
  }
  if (lib(sm4_gcm_update(&job.gcm, out, out, n), "sm4_gcm_update", err, err_size) != 0) return -1;
  job.drained += n;
  *out_len = n;
  if (job.drained < job.body) return 1;
  if (sm4_gcm_verify(&job.gcm, job.held, job.tag_len) == SM4_OK) return 0;
  return kc_error(err, err_size, "sm4 gcm -d's temporary file changed between its two passes: "
                                 "the plaintext written is not what was authenticated");
}

static void modes_wipe(void) {
  if (job.block) job.block->wipe();
  sm4_gcm_reset(&job.gcm);
  sm4_cmac_reset(&job.cmac);
  kc_gather_wipe(&job.whole);
  if (job.iv) explicit_bzero(job.iv, job.iv_len);
  free(job.iv);
  free(job.aad);
  if (job.tmp >= 0) close(job.tmp); /* unlinked already: closing removes it */
  explicit_bzero(&job, sizeof job);
}

/* ecb, cbc and ctr are kc_block_cli's, CTR's pieces apart too. */
static kc_crypt_at_fn modes_crypt_at(void) {
  return job.block ? job.block->crypt_at() : NULL;
}

const kc_cli kc_sm4_cli = {"ecb|cbc|ctr|gcm|ccm|xts|cmac|cbc-mac", 1, modes_prepare, NULL,
                           modes_update, modes_wipe, modes_drain, "cmac,cbc-mac", modes_crypt_at};
