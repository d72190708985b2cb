/*
 * kcrypt: encrypt, decrypt or authenticate stdin with the generated kernels,
 * in the manner of `openssl enc -nopad`.
 *
 *   kcrypt sm4 ecb|cbc|ctr -e|-d -k KEYHEX [-i IVHEX] [-t TARGET] [-s STRATEGY]
 *          [--emulated] < in > out
 *   kcrypt ublock128_128|ublock128_256|ublock256_256 ecb|cbc|ctr -e|-d -k KEYHEX
 *          [-i IVHEX] [-t TARGET] [-s STRATEGY] [--emulated] < in > out
 *   kcrypt zuc128|zuc256 enc -k KEYHEX -i IVHEX [--bits N] [-t TARGET] ... < in > out
 *   kcrypt zuc128|zuc256 mac -k KEYHEX -i IVHEX [--tag 32|64|128] [--bits N]
 *          [--mac-method clmul|compare] [-t TARGET] ... < in
 *   kcrypt --list-targets [CIPHER]
 *   kcrypt --list-impls [CIPHER]
 *
 * With no -t/-s the fastest implementation this CPU runs natively is used.
 * -t picks a target (instruction set), -s a slicing strategy; --emulated runs
 * the SIMDe (portable C) build of the target instead of native code.
 *
 * stdin is read and processed in pieces of 1 MiB (KC_CHUNK_BYTES), each
 * piece's output written to stdout while a second thread reads the next
 * (read_ahead.h), so memory stays the same whatever the input's size, output
 * starts before the input ends, and the copy out of the page cache overlaps
 * the cipher.
 * (zuc mac with --mac-method is the exception: that one-shot path reads the
 * whole input into memory first.)
 *
 * On any error a message goes to stderr and the exit status is non-zero (2:
 * bad command line or input, 1: I/O failure: reading stdin, or writing
 * stdout, e.g. a full disk, a closed stdout or a reader that went away;
 * SIGPIPE is ignored so that a closed pipe is reported as such; the
 * listings and --help report a failed write too, naming what they were
 * writing).  Errors on the command line are found before stdin is read,
 * and nothing is written.  An error found in the
 * input (ECB or CBC input that is not a whole number of blocks, zuc --bits
 * beyond the input's end) is found with the last piece, before any of that
 * piece is written; pieces before it have been written already, and the
 * message then says how many bytes went to stdout (e.g. "...; 1048576 bytes
 * were already written").  An input shorter than one piece therefore fails
 * with nothing written.  Whole-block input always succeeds, however the pipe
 * splits it.  A write error, too, can come after earlier pieces were written;
 * its message says how many bytes were.
 *
 * Ciphers are rows of the `ciphers` table below, each written in its own file
 * (kcrypt_sm4.c, kcrypt_zuc.c, kcrypt_ublock.c) against kcrypt.h; choosing an
 * implementation and listing them is shared, here, and so is what the block
 * ciphers (SM4, uBlock) check on their command lines (kc_block_*).
 *
 * Test hook: targets named in KC_DISABLE_TARGETS (comma-separated) are
 * treated as ones this CPU cannot run natively (see common.h).
 */
#define _DEFAULT_SOURCE /* SIGPIPE, write and explicit_bzero under -std=c11 */

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kcrypt.h"
#include "read_ahead.h"

#define PROG "kcrypt"

/* Exit statuses. */
#define EXIT_USAGE 2 /* bad command line or unusable input */
#define EXIT_IO 1    /* reading stdin or writing stdout failed */

/* Room for one error message. */
#define ERR_SIZE 512

static const kc_cipher *const ciphers[] = {
    &kc_cipher_sm4,           &kc_cipher_zuc128,        &kc_cipher_zuc256,
    &kc_cipher_ublock128_128, &kc_cipher_ublock128_256, &kc_cipher_ublock256_256,
};
#define N_CIPHERS (sizeof ciphers / sizeof ciphers[0])

static const kc_cipher *find_cipher(const char *name) {
  for (size_t i = 0; i < N_CIPHERS; i++)
    if (strcmp(ciphers[i]->name, name) == 0) return ciphers[i];
  return NULL;
}

/* ------------------------------------------------------------------ */
/* Choosing an implementation                                           */
/* ------------------------------------------------------------------ */

/* When several targets can run a strategy and none is named, the first of
 * these that this CPU runs natively is taken (unlisted targets come last). */
static const char *const target_preference[] = {
    "avx512_gfni", "avx512", "avx2_gfni", "avx2_vaes", "avx2_aesni", "avx2", "ssse3_aesni",
    "ssse3",       "scalar",
};

/* 1 if this CPU runs `v` as native code (and the test hook allows it). */
static int runs_natively(const kc_impl_view *v) {
  return !v->emulated && kc_impl_avail(0, v->cpu_supported) == KC_NATIVE &&
         !kc_target_disabled(v->target);
}

/* 1 if this CPU can run the emulated (SIMDe) build `v`: the emulation is
 * itself compiled for a host ISA (e.g. AVX2). */
static int runs_emulated(const kc_impl_view *v) {
  return v->emulated && kc_impl_avail(1, v->cpu_supported) == KC_EMULATED;
}

kc_avail kc_view_avail(const kc_impl_view *v) {
  return runs_natively(v) ? KC_NATIVE : runs_emulated(v) ? KC_EMULATED : KC_UNAVAILABLE;
}

/* 1 if some implementation (native or emulated) has this target / strategy. */
static int has_field(const kc_view_list *l, int strategies, const char *value) {
  for (size_t i = 0; i < l->n; i++)
    if (strcmp(strategies ? l->v[i].strategy : l->v[i].target, value) == 0) return 1;
  return 0;
}

/* Writes the known targets or strategies, comma-separated, into buf. */
static void known_fields(const kc_view_list *l, int strategies, char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < l->n; i++) {
    const char *name = strategies ? l->v[i].strategy : l->v[i].target;
    int seen = 0;
    for (size_t j = 0; j < i; j++)
      if (strcmp(strategies ? l->v[j].strategy : l->v[j].target, name) == 0) seen = 1;
    if (seen) continue;
    int w = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", name);
    if (w < 0 || (size_t)w >= size - used) break;
    used += (size_t)w;
  }
}

/* First implementation in registration order matching the filter
 * (strategy/target NULL = any; must_run: only ones this CPU can run). */
static const kc_impl_view *scan(const kc_view_list *l, const char *strategy, const char *target,
                                int emulated, int must_run) {
  for (size_t i = 0; i < l->n; i++) {
    const kc_impl_view *v = &l->v[i];
    if (!!v->emulated != !!emulated) continue;
    if (strategy && strcmp(v->strategy, strategy) != 0) continue;
    if (target && strcmp(v->target, target) != 0) continue;
    if (must_run && !(emulated ? runs_emulated(v) : runs_natively(v))) continue;
    return v;
  }
  return NULL;
}

/* Best native implementation of `strategy` (NULL: any) on any target: the
 * library's own choice if it fits, else by target preference. */
static const kc_impl_view *pick_native(const kc_cipher *c, const kc_view_list *l,
                                       const char *strategy) {
  const void *best = c->best();
  for (size_t i = 0; best && i < l->n; i++) {
    const kc_impl_view *v = &l->v[i];
    if (v->impl == best && runs_natively(v) && (!strategy || strcmp(v->strategy, strategy) == 0))
      return v;
  }
  for (size_t i = 0; i < sizeof target_preference / sizeof target_preference[0]; i++) {
    const kc_impl_view *v = scan(l, strategy, target_preference[i], 0, 1);
    if (v) return v;
  }
  return scan(l, strategy, NULL, 0, 1); /* a target missing from the list */
}

const void *kc_select_impl(const kc_cipher *c, const kc_args *a, char *err, size_t err_size) {
  kc_view_list l;
  c->views(&l);
  char known[512];
  if (a->target && !has_field(&l, 0, a->target)) {
    known_fields(&l, 0, known, sizeof known);
    snprintf(err, err_size, "unknown %s target '%s' (known: %s)", c->name, a->target, known);
    return NULL;
  }
  if (a->strategy && !has_field(&l, 1, a->strategy)) {
    known_fields(&l, 1, known, sizeof known);
    snprintf(err, err_size, "unknown %s strategy '%s' (known: %s)", c->name, a->strategy, known);
    return NULL;
  }
  const char *strategy_text = a->strategy ? a->strategy : "any strategy";

  if (a->emulated) {
    if (!a->target) {
      snprintf(err, err_size, "--emulated needs a target (-t TARGET)");
      return NULL;
    }
    const kc_impl_view *v = scan(&l, a->strategy, a->target, 1, 0);
    if (!v) {
      snprintf(err, err_size, "no emulated (SIMDe) %s build of %s for target '%s' is linked",
               c->name, strategy_text, a->target);
      return NULL;
    }
    if (!runs_emulated(v)) {
      snprintf(err, err_size,
               "this CPU lacks the host instructions the emulated build of '%s' is compiled for",
               a->target);
      return NULL;
    }
    return v->impl;
  }

  if (a->target) {
    const kc_impl_view *v = scan(&l, a->strategy, a->target, 0, 0);
    if (!v) {
      if (scan(&l, a->strategy, a->target, 1, 0))
        snprintf(err, err_size,
                 "target '%s' (%s) exists only as an emulated build here; "
                 "add --emulated to run it",
                 a->target, strategy_text);
      else
        snprintf(err, err_size, "no %s implementation of strategy '%s' for target '%s'", c->name,
                 a->strategy ? a->strategy : "?", a->target);
      return NULL;
    }
    if (!runs_natively(v)) {
      /* Another strategy of the same target cannot do better: same ISA. */
      snprintf(err, err_size,
               "this CPU cannot run target '%s' natively (it lacks the instructions)%s",
               a->target,
               scan(&l, a->strategy, a->target, 1, 1) ? "; add --emulated to run its SIMDe build"
                                                      : "");
      return NULL;
    }
    return v->impl;
  }

  const kc_impl_view *v = pick_native(c, &l, a->strategy);
  if (!v) {
    snprintf(err, err_size, "no %s implementation of %s runs natively on this CPU", c->name,
             strategy_text);
    return NULL;
  }
  return v->impl;
}

int kc_parse_decimal(const char *s, size_t *out) {
  if (!*s) return -1;
  size_t v = 0;
  for (const char *p = s; *p; p++) {
    if (*p < '0' || *p > '9') return -1;
    size_t d = (size_t)(*p - '0');
    if (v > (SIZE_MAX - d) / 10) return -1;
    v = v * 10 + d;
  }
  *out = v;
  return 0;
}

/* ------------------------------------------------------------------ */
/* Block ciphers                                                        */
/* ------------------------------------------------------------------ */

/* Mode and direction: fills job->mode; returns 0 or -1. */
static int block_mode(const kc_cipher *c, const kc_args *a, kc_block_job *job, char *err,
                      size_t err_size) {
  if (kc_block_mode_parse(a->mode, &job->mode) != 0) {
    snprintf(err, err_size, "unknown %s mode '%s' (known: ecb, cbc, ctr)", c->name, a->mode);
    return -1;
  }
  job->encrypt = a->direction != 0;
  return 0;
}

/* The key, exactly job->key_bytes; returns 0 or -1. */
static int block_key(const kc_cipher *c, const kc_args *a, kc_block_job *job, char *err,
                     size_t err_size) {
  if (!a->key_hex) {
    snprintf(err, err_size, "missing key (-k KEYHEX, %zu hex digits for %s)", 2 * job->key_bytes,
             c->name);
    return -1;
  }
  char what[64];
  snprintf(what, sizeof what, "%s key", c->name);
  return kc_hex_decode_exact(a->key_hex, job->key, job->key_bytes, what, err, err_size);
}

/* The IV: one block for CBC and CTR, refused for ECB; returns 0 or -1. */
static int block_iv(const kc_cipher *c, const kc_args *a, kc_block_job *job, char *err,
                    size_t err_size) {
  memset(job->iv, 0, sizeof job->iv);
  const char *mode = kc_block_mode_name(job->mode);
  if (job->mode == KC_MODE_ECB) {
    if (!a->iv_hex) return 0;
    snprintf(err, err_size, "%s ecb takes no IV (remove -i)", c->name);
    return -1;
  }
  if (!a->iv_hex) {
    snprintf(err, err_size, "%s %s needs an IV (-i IVHEX, %zu hex digits: one block)", c->name,
             mode, 2 * job->block_bytes);
    return -1;
  }
  char what[64];
  snprintf(what, sizeof what, "%s IV (one block)", c->name);
  return kc_hex_decode_exact(a->iv_hex, job->iv, job->block_bytes, what, err, err_size);
}

int kc_block_prepare(const kc_cipher *c, const kc_args *a, size_t key_bytes, size_t block_bytes,
                     kc_block_job *job, char *err, size_t err_size) {
  memset(job, 0, sizeof *job);
  job->key_bytes = key_bytes;
  job->block_bytes = block_bytes;
  if (a->tag || a->bits || a->mac_method) {
    snprintf(err, err_size, "%s takes no --tag, --bits or --mac-method (those are for zuc)",
             c->name);
    return -1;
  }
  if (key_bytes > KC_BLOCK_MAX_BYTES || block_bytes > KC_BLOCK_MAX_BYTES || block_bytes == 0) {
    snprintf(err, err_size, "%s: unsupported key or block size (%zu, %zu bytes)", c->name,
             key_bytes, block_bytes);
    return -1;
  }
  if (block_mode(c, a, job, err, err_size) != 0 || block_key(c, a, job, err, err_size) != 0 ||
      block_iv(c, a, job, err, err_size) != 0)
    return -1;
  job->impl = kc_select_impl(c, a, err, err_size);
  return job->impl ? 0 : -1;
}

int kc_block_piece(const kc_cipher *c, kc_block_job *job, size_t len, int last, char *err,
                   size_t err_size) {
  job->seen += len;
  if (last && job->mode != KC_MODE_CTR && job->seen % job->block_bytes != 0) {
    snprintf(err, err_size,
             "input is %" PRIu64 " bytes, not a multiple of the %zu-byte %s block "
             "(ecb and cbc do no padding)",
             job->seen, job->block_bytes, c->name);
    return -1;
  }
  return 0;
}

int kc_block_finish(int rc, const char *driver, const char *impl_name, size_t len,
                    size_t *out_len, char *err, size_t err_size) {
  if (rc != 0) {
    snprintf(err, err_size, "%s with %s failed (code %d)", driver, impl_name, rc);
    return -1;
  }
  *out_len = len;
  return 0;
}

/* ------------------------------------------------------------------ */
/* Streaming stdin through a cipher                                     */
/* ------------------------------------------------------------------ */

/* Every piece is whole blocks until the last (see KC_CHUNK_BYTES). */
_Static_assert(KC_CHUNK_BYTES % KC_BLOCK_MAX_BYTES == 0,
               "a piece must hold whole blocks of every block cipher");

/* Writes all len bytes to fd, however many each write takes, counting them
 * into *written as they go.  Returns 0, or -1 with errno set (EPIPE for a
 * reader that went away: SIGPIPE is ignored). */
static int write_full(int fd, const uint8_t *buf, size_t len, uint64_t *written) {
  while (len > 0) {
    ssize_t n = write(fd, buf, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO; /* no progress and no reason: do not spin */
      return -1;
    }
    buf += n;
    len -= (size_t)n;
    *written += (uint64_t)n;
  }
  return 0;
}

/* Prints "kcrypt: error: <what>", adding how much of the output went to
 * stdout before it, if any. */
static void stream_error(const char *what, uint64_t written) {
  if (written)
    fprintf(stderr, PROG ": error: %s; %" PRIu64 " byte%s already written\n", what, written,
            written == 1 ? " was" : "s were");
  else
    fprintf(stderr, PROG ": error: %s\n", what);
}

/* Reports that writing stdout failed with errno value `error`; returns EXIT_IO. */
static int stdout_error(int error, uint64_t written) {
  char what[128];
  snprintf(what, sizeof what, "writing stdout: %s", strerror(error));
  stream_error(what, written);
  return EXIT_IO;
}

/* The last step of every path that writes to stdout: flushes stdio's buffer
 * (a listing waits there until now) and closes a duplicate of fd 1, which
 * reports what the file system deferred (NFS writes back at every close).
 * stdout itself stays open, so that main may run again in the same process
 * (as a fuzz target does).  Returns 0, or the errno value of the failed
 * write (ferror: one that failed earlier; nothing has failed since, so errno
 * still holds its reason). */
static int finish_stdout(void) {
  if (fflush(stdout) != 0 || ferror(stdout)) return errno;
  int fd = dup(STDOUT_FILENO);
  return fd >= 0 && close(fd) == 0 ? 0 : errno;
}

/*
 * stdin through the cipher to stdout, one piece of KC_CHUNK_BYTES at a time
 * (at most the cipher's input limit in all), the next piece read by a second
 * thread while the cipher works on this one (read_ahead.h).  A short piece
 * means the input ended, so it is the last; a full piece may be followed by
 * an empty last one.  Returns the exit status.
 */
static int stream(const kc_cipher *c, kc_read_ahead *ra, uint8_t *out) {
  uint64_t written = 0;
  char err[ERR_SIZE], what[ERR_SIZE + 64];
  for (;;) {
    kc_read_piece in = kc_read_ahead_next(ra);
    size_t out_len = 0;
    if (in.error) {
      snprintf(what, sizeof what, "reading stdin: %s", strerror(in.error));
      stream_error(what, written);
      return EXIT_IO;
    }
    if (c->update(in.data, in.len, in.last, out, &out_len, err, sizeof err) != 0) {
      stream_error(err, written);
      return EXIT_USAGE;
    }
    kc_read_ahead_done(ra);
    if (write_full(STDOUT_FILENO, out, out_len, &written) != 0)
      return stdout_error(errno, written);
    if (in.last) {
      int error = finish_stdout();
      return error ? stdout_error(error, written) : 0;
    }
  }
}

/* stream() with its buffers, which hold plain text and so are wiped
 * afterwards, as is what the cipher kept.  Returns the exit status. */
static int run_cipher(const kc_cipher *c) {
  /* A reader that goes away makes write fail with EPIPE, reported like any
   * other write error, instead of killing kcrypt silently. */
  signal(SIGPIPE, SIG_IGN);
  uint64_t limit = c->input_limit ? c->input_limit() : UINT64_MAX;
  kc_read_ahead ra;
  uint8_t *out = malloc(KC_CHUNK_BYTES + KC_OUT_SLACK);
  int status;
  if (!out || kc_read_ahead_start(&ra, STDIN_FILENO, KC_CHUNK_BYTES, limit) != 0) {
    fprintf(stderr, PROG ": error: cannot set up reading: %s\n", out ? strerror(errno) : "out of memory");
    free(out);
    return EXIT_IO;
  }
  status = stream(c, &ra, out);
  kc_read_ahead_stop(&ra);
  explicit_bzero(out, KC_CHUNK_BYTES + KC_OUT_SLACK);
  free(out);
  if (c->wipe) c->wipe();
  return status;
}

/* ------------------------------------------------------------------ */
/* Command line                                                         */
/* ------------------------------------------------------------------ */

static void usage(FILE *f) {
  fprintf(f,
          "usage: " PROG " CIPHER MODE [-e|-d] -k KEYHEX [-i IVHEX] [-t TARGET] [-s STRATEGY]\n"
          "              [--tag BITS] [--bits N] [--mac-method M] [--emulated] < input > output\n"
          "       " PROG " --list-targets [CIPHER]\n"
          "       " PROG " --list-impls [CIPHER]\n"
          "\n"
          "sm4 and ublock* encrypt (-e) or decrypt (-d) all of stdin to stdout without\n"
          "padding, 1 MiB at a time (output starts before the input ends).\n"
          "zuc128/zuc256 enc XORs stdin with the keystream (its own inverse; no -e/-d);\n"
          "zuc128/zuc256 mac prints the MAC of stdin in hex.\n"
          "  -k, --key HEX        key in hex (sm4, zuc128, ublock128_128: 16 bytes;\n"
          "                       zuc256, ublock128_256, ublock256_256: 32 bytes)\n"
          "  -i, --iv HEX         IV in hex: sm4 and ublock CBC, CTR, one block (16 bytes;\n"
          "                       ublock256_256: 32); CTR counts the whole block as one\n"
          "                       big-endian integer; zuc128: 16 bytes;\n"
          "                       zuc256: 25 bytes (IV17..IV24 in the low 6 bits of a\n"
          "                       byte each) or 23 bytes (those fields packed)\n"
          "      --tag BITS       zuc mac: tag length, 32 (default), 64 or 128 (zuc256)\n"
          "      --bits N         zuc: use the first N bits of stdin (default: all of it;\n"
          "                       no more of stdin is read);\n"
          "                       enc writes ceil(N/8) bytes, unused low bits zero\n"
          "      --mac-method M   zuc mac on a lanes kernel: clmul or compare, through\n"
          "                       the one-shot call, which reads all of stdin into\n"
          "                       memory first (without it, mac streams like the rest)\n"
          "  -t, --target NAME    instruction-set target (see --list-targets)\n"
          "  -s, --strategy NAME  slicing strategy (e.g. byteslice, wordslice, lanes,\n"
          "                       register, nibbleslice, reference)\n"
          "      --emulated       run the target's SIMDe (portable C) build\n"
          "      --list-targets   print each target and whether it runs native,\n"
          "                       emulated or is unavailable here\n"
          "      --list-impls     the same per implementation: cipher, strategy,\n"
          "                       target, status\n"
          "\nciphers and modes:\n");
  for (size_t i = 0; i < N_CIPHERS; i++)
    fprintf(f, "  %s %s\n", ciphers[i]->name, ciphers[i]->modes);
}

/* Ends a path that wrote `what` (e.g. "the help text") to stdout through
 * stdio: finishes stdout and reports a write error as "kcrypt: error:
 * writing <what>: <reason>".  Returns the exit status, 0 or EXIT_IO. */
static int finish_text(const char *what) {
  int error = finish_stdout();
  if (!error) return 0;
  fprintf(stderr, PROG ": error: writing %s: %s\n", what, strerror(error));
  return EXIT_IO;
}

/* --help: the usage text on stdout.  Returns the exit status. */
static int help(void) {
  usage(stdout);
  return finish_text("the help text");
}

/* Prints "kcrypt: error: ..." and returns EXIT_USAGE, for `return fail(...)`. */
static int fail(const char *msg) {
  fprintf(stderr, PROG ": error: %s\n", msg);
  return EXIT_USAGE;
}

/*
 * --list-targets [CIPHER]: one line "TARGET STATUS" per target.  A target is
 * native if one of its native implementations runs on this CPU, else
 * emulated if a SIMDe build of it is linked, else unavailable.  Without a
 * cipher, each target's best status over all ciphers.
 *
 * --list-impls [CIPHER]: one line "CIPHER STRATEGY TARGET STATUS" per
 * implementation (a native build and its emulated twin are two lines).
 */
static int list(const char *cipher_name, int per_impl) {
  struct {
    const char *target;
    kc_avail avail;
  } merged[KC_MAX_IMPLS];
  size_t n_merged = 0;
  for (size_t c = 0; c < N_CIPHERS; c++) {
    if (cipher_name && strcmp(ciphers[c]->name, cipher_name) != 0) continue;
    kc_view_list l;
    ciphers[c]->views(&l);
    for (size_t i = 0; i < l.n; i++) {
      kc_avail avail = kc_view_avail(&l.v[i]);
      if (per_impl) {
        printf("%s %s %s %s\n", ciphers[c]->name, l.v[i].strategy, l.v[i].target,
               kc_avail_name(avail));
        continue;
      }
      size_t j;
      for (j = 0; j < n_merged; j++)
        if (strcmp(merged[j].target, l.v[i].target) == 0) break;
      if (j == n_merged) {
        if (n_merged < KC_MAX_IMPLS) {
          merged[n_merged].target = l.v[i].target;
          merged[n_merged++].avail = avail;
        }
      } else if (avail < merged[j].avail) {
        merged[j].avail = avail; /* keep the best */
      }
    }
  }
  for (size_t i = 0; i < n_merged; i++)
    printf("%s %s\n", merged[i].target, kc_avail_name(merged[i].avail));
  return finish_text(per_impl ? "the list of implementations" : "the list of targets");
}

/* Stores an option's value, refusing a missing value or a repeat. */
static int take_value(int argc, char **argv, int *i, const char **slot, char *err,
                      size_t err_size) {
  const char *opt = argv[*i];
  if (*i + 1 >= argc) {
    snprintf(err, err_size, "option %s needs a value", opt);
    return -1;
  }
  if (*slot) {
    snprintf(err, err_size, "option %s given twice", opt);
    return -1;
  }
  *slot = argv[++*i];
  return 0;
}

/* The option slot for a value-taking option, or NULL if `arg` is none. */
static const char **value_slot(kc_args *a, const char *arg) {
  static const struct {
    const char *short_name, *long_name;
    size_t offset;
  } options[] = {
      {"-k", "--key", offsetof(kc_args, key_hex)},
      {"-i", "--iv", offsetof(kc_args, iv_hex)},
      {"-t", "--target", offsetof(kc_args, target)},
      {"-s", "--strategy", offsetof(kc_args, strategy)},
      {NULL, "--tag", offsetof(kc_args, tag)},
      {NULL, "--bits", offsetof(kc_args, bits)},
      {NULL, "--mac-method", offsetof(kc_args, mac_method)},
  };
  for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
    if ((options[i].short_name && strcmp(arg, options[i].short_name) == 0) ||
        strcmp(arg, options[i].long_name) == 0)
      return (const char **)((char *)a + options[i].offset);
  return NULL;
}

int main(int argc, char **argv) {
  char err[ERR_SIZE];
  if (argc < 2) {
    fprintf(stderr, PROG ": error: missing arguments\n\n");
    usage(stderr);
    return EXIT_USAGE;
  }
  if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) return help();
  int list_targets = strcmp(argv[1], "--list-targets") == 0;
  if (list_targets || strcmp(argv[1], "--list-impls") == 0) {
    if (argc > 3) {
      snprintf(err, sizeof err, "%s takes at most one cipher name", argv[1]);
      return fail(err);
    }
    if (argc == 3 && !find_cipher(argv[2])) {
      snprintf(err, sizeof err, "unknown cipher '%s'", argv[2]);
      return fail(err);
    }
    return list(argc == 3 ? argv[2] : NULL, !list_targets);
  }

  /* Parse: positional CIPHER and MODE, options anywhere after. */
  kc_args a = {0};
  a.direction = -1;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    int is_enc = strcmp(arg, "-e") == 0 || strcmp(arg, "--encrypt") == 0;
    int is_dec = strcmp(arg, "-d") == 0 || strcmp(arg, "--decrypt") == 0;
    const char **slot = value_slot(&a, arg);
    if (is_enc || is_dec) {
      int dir = is_enc ? 1 : 0;
      if (a.direction != -1 && a.direction != dir)
        return fail("give only one of -e (encrypt) and -d (decrypt)");
      a.direction = dir;
    } else if (slot) {
      if (take_value(argc, argv, &i, slot, err, sizeof err) != 0) return fail(err);
    } else if (strcmp(arg, "--emulated") == 0) {
      a.emulated = 1;
    } else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
      return help();
    } else if (arg[0] == '-' && arg[1] != '\0') {
      snprintf(err, sizeof err, "unknown option '%s' (see " PROG " --help)", arg);
      return fail(err);
    } else if (!a.cipher) {
      a.cipher = arg;
    } else if (!a.mode) {
      a.mode = arg;
    } else {
      snprintf(err, sizeof err, "unexpected argument '%s'", arg);
      return fail(err);
    }
  }

  if (!a.cipher) return fail("missing cipher (e.g. sm4)");
  const kc_cipher *cipher = find_cipher(a.cipher);
  if (!cipher) {
    snprintf(err, sizeof err, "unknown cipher '%s' (see " PROG " --help)", a.cipher);
    return fail(err);
  }
  if (!a.mode) {
    snprintf(err, sizeof err, "missing mode for %s (%s)", cipher->name, cipher->modes);
    return fail(err);
  }
  if (cipher->needs_direction && a.direction == -1)
    return fail("missing -e (encrypt) or -d (decrypt)");
  if (!cipher->needs_direction && a.direction != -1) {
    snprintf(err, sizeof err, "%s takes no -e/-d (%s)", cipher->name, cipher->modes);
    return fail(err);
  }

  if (cipher->prepare(&a, err, sizeof err) != 0) {
    if (cipher->wipe) cipher->wipe();
    return fail(err);
  }
  /* Everything on the command line is valid: stream stdin to stdout. */
  return run_cipher(cipher);
}
