/*
 * kcrypt: encrypt, decrypt or authenticate stdin with the generated kernels,
 * in the manner of `openssl enc -nopad`.  Its options are usage() below; its
 * contract (streaming in KC_CHUNK_BYTES pieces with a read-ahead thread, exit
 * statuses, what is written before an error) is docs/cli.md's "kcrypt".
 * The ciphers are the descriptions of ciphers.c (cipher.h), each variant a
 * cipher here; their command lines are their kc_cli (kcrypt.h; every block
 * cipher's is kc_block_cli), and choosing an implementation is kcrypt_lib.c's.
 */
#define _DEFAULT_SOURCE /* SIGPIPE, write and explicit_bzero under -std=c11 */

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kcrypt.h"
#include "parallel_pieces.h"
#include "read_ahead.h"

#define PROG "kcrypt"

/* Exit statuses. */
#define EXIT_USAGE 2 /* bad command line or unusable input */
#define EXIT_IO 1    /* reading stdin or writing stdout failed */

/* Room for one error message. */
#define ERR_SIZE 512

/* A variant of a cipher: what kcrypt names a cipher. */
typedef struct {
  const kc_desc *d;
  const kc_variant *v;
} cipher;

/* The variant named `name` (e.g. "ublock128_256"); returns 0 or -1. */
static int find_cipher(const char *name, cipher *out) {
  for (size_t c = 0; c < KC_N_CIPHERS; c++)
    for (size_t i = 0; i < KC_CIPHERS[c]->n_variants; i++)
      if (strcmp(KC_CIPHERS[c]->variants[i].name, name) == 0) {
        *out = (cipher){KC_CIPHERS[c], &KC_CIPHERS[c]->variants[i]};
        return 0;
      }
  return -1;
}

/* ------------------------------------------------------------------ */
/* Streaming stdin through a cipher                                     */
/* ------------------------------------------------------------------ */

/* Every piece is whole blocks until the last (see KC_CHUNK_BYTES). */
_Static_assert(KC_CHUNK_BYTES % KC_BLOCK_MAX_BYTES == 0,
               "a piece must hold whole blocks of every block cipher");

/* Prints "kcrypt: error: ...", adding how much of the output went to stdout
 * before it, if any; returns `status`, for `return report(...)`. */
__attribute__((format(printf, 3, 4))) static int report(int status, uint64_t written,
                                                        const char *fmt, ...) {
  char what[ERR_SIZE + 64];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  if (written)
    fprintf(stderr, PROG ": error: %s; %" PRIu64 " byte%s already written\n", what, written,
            written == 1 ? " was" : "s were");
  else
    fprintf(stderr, PROG ": error: %s\n", what);
  return status;
}

/* A command-line error: "kcrypt: error: ...", EXIT_USAGE. */
#define fail(...) report(EXIT_USAGE, 0, __VA_ARGS__)

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
static int stream(const kc_cli *c, kc_read_ahead *ra, uint8_t *out) {
  uint64_t written = 0;
  char err[ERR_SIZE];
  for (;;) {
    kc_read_piece in = kc_read_ahead_next(ra);
    size_t out_len = 0;
    if (in.error) return report(EXIT_IO, written, "reading stdin: %s", strerror(in.error));
    if (c->update(in.data, in.len, in.last, out, &out_len, err, sizeof err) != 0)
      return report(EXIT_USAGE, written, "%s", err);
    kc_read_ahead_done(ra);
    /* After the last piece, what the cipher held back, one piece at a time. */
    for (int more = in.last && c->drain;;) {
      if (kc_write_full(STDOUT_FILENO, out, out_len, &written) != 0)
        return report(EXIT_IO, written, "writing stdout: %s", strerror(errno));
      if (!more) break;
      if ((more = c->drain(out, &out_len, err, sizeof err)) < 0)
        return report(EXIT_USAGE, written, "%s", err);
    }
    int error = in.last ? finish_stdout() : 0;
    if (error) return report(EXIT_IO, written, "writing stdout: %s", strerror(error));
    if (in.last) return 0;
  }
}

/* A regular file through a cipher whose pieces depend on their offsets
 * alone, each piece read and run on one of two threads (parallel_pieces.h).
 * Returns the exit status. */
static int pieces_apart(kc_crypt_at_fn crypt) {
  uint64_t written = 0;
  int read_failed = 0;
  char err[ERR_SIZE];
  int rc = kc_parallel_pieces(STDIN_FILENO, STDOUT_FILENO, KC_CHUNK_BYTES, crypt, &written,
                              &read_failed, err, sizeof err);
  if (rc == -2) return report(EXIT_USAGE, written, "%s", err);
  if (rc != 0)
    return report(EXIT_IO, written, "%s: %s", read_failed ? "reading stdin" : "writing stdout",
                  strerror(errno));
  int error = finish_stdout();
  return error ? report(EXIT_IO, written, "writing stdout: %s", strerror(error)) : 0;
}

/* stream() with its buffers, which hold plain text and so are wiped
 * afterwards, as is what the cipher kept; or, for a regular file and a
 * cipher of offsets alone, pieces_apart.  Returns the exit status. */
static int run_cipher(const kc_cli *c) {
  /* A reader that goes away makes write fail with EPIPE, reported like any
   * other write error, instead of killing kcrypt silently. */
  signal(SIGPIPE, SIG_IGN);
  kc_crypt_at_fn crypt = c->crypt_at && !c->input_limit ? c->crypt_at() : NULL;
  if (crypt && kc_pieces_seekable(STDIN_FILENO)) {
    int status = pieces_apart(crypt);
    c->wipe();
    return status;
  }
  uint64_t limit = c->input_limit ? c->input_limit() : UINT64_MAX;
  kc_read_ahead ra;
  uint8_t *out = malloc(KC_CHUNK_BYTES + KC_OUT_SLACK);
  int status;
  if (!out || kc_read_ahead_start(&ra, STDIN_FILENO, KC_CHUNK_BYTES, limit) != 0) {
    report(EXIT_IO, 0, "cannot set up reading: %s", out ? strerror(errno) : "out of memory");
    free(out);
    return EXIT_IO;
  }
  status = stream(c, &ra, out);
  kc_read_ahead_stop(&ra);
  explicit_bzero(out, KC_CHUNK_BYTES + KC_OUT_SLACK);
  free(out);
  c->wipe();
  return status;
}

/* ------------------------------------------------------------------ */
/* Command line                                                         */
/* ------------------------------------------------------------------ */

static void usage(FILE *f) {
  fprintf(f,
          "usage: " PROG " CIPHER MODE [-e|-d] -k KEYHEX [-i IVHEX] [-t TARGET] [-s STRATEGY]\n"
          "              [--tag BITS] [--bits N] [--mac-method M] [--emulated]\n"
          "              [-a AADHEX | --aad-file F] [--tag-bytes N] [--tweak-rule ieee|gb]\n"
          "              < input > output\n"
          "       " PROG " --list-targets [CIPHER]\n"
          "       " PROG " --list-impls [CIPHER]\n"
          "\n"
          "sm4 and ublock* ecb, cbc and ctr encrypt (-e) or decrypt (-d) all of stdin to\n"
          "stdout without padding, 1 MiB at a time (output starts before the input ends).\n"
          "zuc128/zuc256/zuc_nea6 enc XORs stdin with the keystream (its own inverse;\n"
          "no -e/-d); zuc256 is the 2018 ZUC-256, zuc_nea6 3GPP's 256-bit NEA6.\n"
          "zuc128/zuc256 mac prints the MAC of stdin in hex; zuc_nea6 mac prints\n"
          "3GPP's NIA6 tag (whole bytes, read into memory first).\n"
          "sm4 gcm and ccm -e write the ciphertext, then the tag; -d reads that form and\n"
          "writes no plaintext unless the tag verifies (else: \"authentication failed\").\n"
          "gcm streams (-d keeps the ciphertext in an unlinked file in $TMPDIR, then\n"
          "decrypts it again); ccm, xts and cbc-mac read all of stdin into memory first.\n"
          "sm4 xts: stdin is one data unit (16 bytes or more).\n"
          "sm4 cmac and cbc-mac print the MAC of stdin in hex (no -e/-d).\n"
          "  -k, --key HEX        key in hex (sm4, zuc128, ublock128_128: 16 bytes;\n"
          "                       zuc256, zuc_nea6, ublock128_256, ublock256_256: 32)\n"
          "                       (sm4 xts: 32, the data key, then the tweak key)\n"
          "  -i, --iv HEX         IV in hex: sm4 and ublock CBC, CTR, one block (16 bytes;\n"
          "                       ublock256_256: 32); CTR counts the whole block as one\n"
          "                       big-endian integer; sm4 gcm: 1 byte or more (12 is\n"
          "                       usual); sm4 ccm: the nonce, 7 to 13 bytes; sm4 xts:\n"
          "                       the tweak, 16 bytes; zuc128, zuc_nea6: 16 bytes;\n"
          "                       zuc256: 25 bytes (IV17..IV24 in the low 6 bits of a\n"
          "                       byte each) or 23 bytes (those fields packed)\n"
          "      --tag BITS       zuc mac: tag length, 32 (default), 64 or 128 (zuc256);\n"
          "                       zuc_nea6 (NIA6): 32 to 128 in steps of 8\n"
          "      --bits N         zuc: use the first N bits of stdin (default: all of it;\n"
          "                       no more of stdin is read);\n"
          "                       enc writes ceil(N/8) bytes, unused low bits zero\n"
          "      --mac-method M   zuc mac on a lanes kernel: clmul or compare, through\n"
          "                       the one-shot call, which reads all of stdin into\n"
          "                       memory first (without it, mac streams like the rest)\n"
          "  -a, --aad HEX        sm4 gcm, ccm: additional authenticated data in hex\n"
          "      --aad-file FILE  the same, the bytes of FILE (default: none)\n"
          "      --tag-bytes N    sm4 gcm: 4, 8 or 12-16; ccm: 4-16, even; cmac: 1-16\n"
          "                       (default 16); -d takes the last N bytes as the tag\n"
          "      --tweak-rule R   sm4 xts: ieee (IEEE 1619, default) or gb (GB/T 17964)\n"
          "  -t, --target NAME    instruction-set target (see --list-targets)\n"
          "  -s, --strategy NAME  slicing strategy (e.g. byteslice, wordslice, lanes,\n"
          "                       register, nibbleslice, reference)\n"
          "      --emulated       run the target's SIMDe (portable C) build\n"
          "      --list-targets   print each target and whether it runs native,\n"
          "                       emulated or is unavailable here\n"
          "      --list-impls     the same per implementation: cipher, strategy,\n"
          "                       target, status; then per cipher and role (bulk:\n"
          "                       ECB, CBC decryption, CTR; serial: CBC encryption)\n"
          "                       the kernel used without -t and why: override\n"
          "                       (KC_DISPATCH), record (this CPU's measurements,\n"
          "                       gen/dispatch.toml) or feature-order; and this\n"
          "                       CPU's key (dispatch cpu ...)\n"
          "\nenvironment:\n"
          "  KC_DISPATCH          CIPHER[.ROLE]=KERNEL,... the default kernel to run\n"
          "                       (testing; e.g. sm4=STRATEGY_TARGET): an unknown\n"
          "                       name is refused, a kernel this CPU cannot run is\n"
          "                       passed over\n"
          "\nciphers and modes:\n");
  for (size_t c = 0; c < KC_N_CIPHERS; c++)
    for (size_t i = 0; i < KC_CIPHERS[c]->n_variants; i++)
      fprintf(f, "  %s %s\n", KC_CIPHERS[c]->variants[i].name, KC_CIPHERS[c]->cli->modes);
}

/* Ends a path that wrote `what` (e.g. "the help text") to stdout through
 * stdio: finishes stdout and reports a write error as "kcrypt: error:
 * writing <what>: <reason>".  Returns the exit status, 0 or EXIT_IO. */
static int finish_text(const char *what) {
  int error = finish_stdout();
  return error ? report(EXIT_IO, 0, "writing %s: %s", what, strerror(error)) : 0;
}

/*
 * --list-targets [CIPHER]: one line "TARGET STATUS" per target.  A target is
 * native if one of its native implementations runs on this CPU, else
 * emulated if a SIMDe build of it is linked, else unavailable.  Without a
 * cipher, each target's best status over all ciphers.
 *
 * --list-impls [CIPHER]: one line "CIPHER STRATEGY TARGET STATUS" per
 * implementation (a native build and its emulated twin are two lines); then
 * per cipher and role the default kernel (print_dispatch), and this CPU's
 * identity as dispatch's records key it.
 */
/* "dispatch CIPHER ROLE KERNEL SOURCE [DETAIL]" per role the library picks a
 * default for: SOURCE override, record (DETAIL: its key) or feature-order;
 * DETAIL also names a KC_DISPATCH kernel passed over because it does not
 * run here. */
static void print_dispatch(const kc_desc *d, const kc_variant *v, const kc_view_list *l) {
  for (int role = 0; role < KC_DISPATCH_ROLE_COUNT; role++) {
    kc_dispatch_why why;
    const kc_impl_view *pick = kc_view_of(l, d->dispatch(role, v->id, &why));
    if (!pick) continue;
    printf("dispatch %s %s %s %s", v->name, kc_dispatch_role_name(role), pick->name,
           kc_dispatch_source_name(why.source));
    if (why.source == KC_DISPATCH_RECORD) printf(" %s", kc_dispatch_record_key(why.record));
    if (why.refused) printf(" (KC_DISPATCH's %s does not run here)", why.refused);
    putchar('\n');
  }
}

/* "dispatch cpu VENDOR/FAMILY/MODEL/FEATURE,...": the key of this CPU's record. */
static void print_identity(void) {
  kc_cpu_identity id;
  kc_cpu_identify(&id);
  printf("dispatch cpu %s/%u/%u/", id.vendor, id.family, id.model);
  const char *sep = "";
  for (int bit = 0; bit < KC_CPU_FEATURE_COUNT; bit++)
    if (kc_cpu_features() >> bit & 1) {
      printf("%s%s", sep, kc_cpu_feature_name(1u << bit));
      sep = ",";
    }
  putchar('\n');
}

static int list(const char *cipher_name, int per_impl) {
  typedef struct {
    const char *target;
    kc_avail avail;
  } target_status;
  target_status merged[KC_MAX_IMPLS];
  size_t n_merged = 0;
  for (size_t c = 0; c < KC_N_CIPHERS; c++)
    for (size_t k = 0; k < KC_CIPHERS[c]->n_variants; k++) {
      const char *name = KC_CIPHERS[c]->variants[k].name;
      if (cipher_name && strcmp(name, cipher_name) != 0) continue;
      kc_view_list l;
      KC_CIPHERS[c]->views(&l);
      for (size_t i = 0; i < l.n; i++) {
        const kc_impl_view *v = &l.v[i];
        kc_avail avail = kc_view_avail(v);
        if (per_impl) {
          printf("%s %s %s %s\n", name, v->strategy, v->target, kc_avail_name(avail));
          continue;
        }
        size_t j = 0;
        while (j < n_merged && strcmp(merged[j].target, v->target) != 0) j++;
        if (j == n_merged && n_merged < KC_MAX_IMPLS)
          merged[n_merged++] = (target_status){v->target, avail};
        else if (j < n_merged && avail < merged[j].avail)
          merged[j].avail = avail; /* keep the best */
      }
      if (per_impl) print_dispatch(KC_CIPHERS[c], &KC_CIPHERS[c]->variants[k], &l);
    }
  if (per_impl) print_identity();
  for (size_t i = 0; i < n_merged; i++)
    printf("%s %s\n", merged[i].target, kc_avail_name(merged[i].avail));
  return finish_text(per_impl ? "the list of implementations" : "the list of targets");
}

int main(int argc, char **argv) {
  char err[ERR_SIZE];
  if (argc < 2) {
    fprintf(stderr, PROG ": error: missing arguments\n\n");
    usage(stderr);
    return EXIT_USAGE;
  }
  const char *override = getenv("KC_DISPATCH");
  if (kc_dispatch_check(override, err, sizeof err) != 0) return fail("KC_DISPATCH: %s", err);
  int list_targets = strcmp(argv[1], "--list-targets") == 0;
  if (list_targets || strcmp(argv[1], "--list-impls") == 0) {
    cipher found;
    if (argc > 3) return fail("%s takes at most one cipher name", argv[1]);
    if (argc == 3 && find_cipher(argv[2], &found) != 0) return fail("unknown cipher '%s'", argv[2]);
    return list(argc == 3 ? argv[2] : NULL, !list_targets);
  }

  /* Positional CIPHER and MODE, options anywhere; every value given once. */
  kc_args a = {.direction = -1};
  int help = 0;
  const kc_opt opts[] = {
      {.dest = &a.cipher},
      {.dest = &a.mode},
      {"--encrypt", "-e", KC_OPT_SET, &a.direction, .value = 1},
      {"--decrypt", "-d", KC_OPT_SET, &a.direction, .value = 0},
      {"--key", "-k", .dest = &a.key_hex, .once = 1},
      {"--iv", "-i", .dest = &a.iv_hex, .once = 1},
      {"--target", "-t", .dest = &a.target, .once = 1},
      {"--strategy", "-s", .dest = &a.strategy, .once = 1},
      {"--tag", .dest = &a.tag, .once = 1},
      {"--bits", .dest = &a.bits, .once = 1},
      {"--mac-method", .dest = &a.mac_method, .once = 1},
      {"--aad", "-a", .dest = &a.aad_hex, .once = 1},
      {"--aad-file", .dest = &a.aad_file, .once = 1},
      {"--tag-bytes", .dest = &a.tag_bytes, .once = 1},
      {"--tweak-rule", .dest = &a.tweak_rule, .once = 1},
      {"--emulated", NULL, KC_OPT_FLAG, .dest = &a.emulated},
      {"--help", "-h", KC_OPT_STOP, .dest = &help},
  };
  if (kc_opts_parse(argc, argv, opts, sizeof opts / sizeof opts[0], err, sizeof err) != 0)
    return fail("%s (see " PROG " --help)", err);
  if (help) { /* the usage text on stdout */
    usage(stdout);
    return finish_text("the help text");
  }

  if (!a.cipher) return fail("missing cipher (e.g. sm4)");
  cipher c;
  if (find_cipher(a.cipher, &c) != 0)
    return fail("unknown cipher '%s' (see " PROG " --help)", a.cipher);
  const kc_cli *cli = c.d->cli;
  if (!a.mode) return fail("missing mode for %s (%s)", c.v->name, cli->modes);
  int undirected = cli->undirected_modes && kc_in_list(cli->undirected_modes, a.mode);
  if (cli->needs_direction && !undirected && a.direction == -1)
    return fail("missing -e (encrypt) or -d (decrypt)");
  if (!cli->needs_direction && a.direction != -1)
    return fail("%s takes no -e/-d (%s)", c.v->name, cli->modes);
  if (undirected && a.direction != -1)
    return fail("%s %s takes no -e/-d (it prints a MAC)", c.v->name, a.mode);

  if (cli->prepare(c.d, c.v, &a, err, sizeof err) != 0) {
    cli->wipe();
    return fail("%s", err);
  }
  /* Everything on the command line is valid: stream stdin to stdout. */
  return run_cipher(cli);
}
