/*
 * kcrypt: encrypt or decrypt stdin to stdout with the generated kernels, in the
 * manner of `openssl enc -nopad`.
 *
 *   kcrypt sm4 ecb|cbc|ctr -e|-d -k KEYHEX [-i IVHEX] [-t TARGET] [-s STRATEGY]
 *          [--emulated] < in > out
 *   kcrypt --list-targets [CIPHER]
 *   kcrypt --list-impls [CIPHER]
 *
 * With no -t/-s the fastest implementation this CPU runs natively is used.
 * -t picks a target (instruction set), -s a slicing strategy; --emulated runs
 * the SIMDe (portable C) build of the target instead of native code.
 *
 * On any error a message goes to stderr, nothing goes to stdout, and the exit
 * status is non-zero (2: bad command line or input, 1: I/O failure).  The
 * whole input is read and processed before anything is written, so a failure
 * never leaves partial output.
 *
 * Ciphers are rows of the `ciphers` table at the end of this file: adding one
 * (ZUC, uBlock) is writing its prepare/run/targets functions and a row.
 *
 * Test hook: targets named in KC_DISABLE_TARGETS (comma-separated) are
 * treated as ones this CPU cannot run natively (see common.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "sm4.h"

#define PROG "kcrypt"

/* Exit statuses. */
#define EXIT_USAGE 2 /* bad command line or unusable input */
#define EXIT_IO 1    /* reading stdin or writing stdout failed */

/* Room for one error message. */
#define ERR_SIZE 512

/* ------------------------------------------------------------------ */
/* What the command line asked for, before any cipher looks at it.      */
/* ------------------------------------------------------------------ */

typedef struct kc_args {
  const char *cipher;   /* first positional argument */
  const char *mode;     /* second positional argument */
  int direction;        /* -1: not given, 0: decrypt (-d), 1: encrypt (-e) */
  const char *key_hex;  /* -k */
  const char *iv_hex;   /* -i, NULL if not given */
  const char *target;   /* -t, NULL if not given */
  const char *strategy; /* -s, NULL if not given */
  int emulated;         /* --emulated */
} kc_args;

/* One implementation, for --list-impls and --list-targets. */
typedef struct kc_impl_status {
  const char *strategy;
  const char *target;
  kc_avail avail;
} kc_impl_status;

#define MAX_IMPLS 256

/* A cipher the tool knows.  Each function reports errors through err. */
typedef struct kc_cipher {
  const char *name;
  const char *modes; /* for the usage text, e.g. "ecb|cbc|ctr" */
  /* Called once before anything else (e.g. to register emulated kernels). */
  void (*init)(void);
  /* Checks everything on the command line (mode, key, IV, target, strategy)
   * before stdin is read.  Returns 0 or -1. */
  int (*prepare)(const kc_args *args, char *err, size_t err_size);
  /* Processes the whole input into a malloc'ed *out.  Returns 0 or -1. */
  int (*run)(const uint8_t *in, size_t len, uint8_t **out, size_t *out_len, char *err,
             size_t err_size);
  /* Fills up to `max` entries, one per implementation (native builds and
   * emulated ones separately), and returns their number. */
  size_t (*impls)(kc_impl_status *out, size_t max);
} kc_cipher;

/* ------------------------------------------------------------------ */
/* SM4                                                                  */
/* ------------------------------------------------------------------ */

/* When several targets can run a strategy and none is named, the first of
 * these that this CPU runs natively is taken (unlisted targets come last). */
static const char *const sm4_target_preference[] = {
    "avx512_gfni", "avx2_gfni", "avx2_vaes", "avx2_aesni", "ssse3_aesni", "scalar",
};

/* What sm4_prepare decided, for sm4_run. */
static struct {
  sm4_mode mode;
  sm4_direction dir;
  sm4_key key;
  uint8_t iv[SM4_BLOCK_BYTES];
  const sm4_impl *impl;
} sm4_job;

static void sm4_init(void) { sm4_register_emulated(); }

/* 1 if this CPU runs `m` as native code (and the test hook allows it). */
static int sm4_runs_natively(const sm4_impl *m) {
  return !m->emulated && kc_impl_avail(0, m->cpu_supported) == KC_NATIVE &&
         !kc_target_disabled(m->target);
}

/* 1 if some implementation (native or emulated) has this target / strategy. */
static int sm4_has_target(const char *target) {
  size_t n;
  const sm4_impl *const *all = sm4_impls(&n);
  for (size_t i = 0; i < n; i++)
    if (strcmp(all[i]->target, target) == 0) return 1;
  return 0;
}

static int sm4_has_strategy(const char *strategy) {
  size_t n;
  const sm4_impl *const *all = sm4_impls(&n);
  for (size_t i = 0; i < n; i++)
    if (strcmp(all[i]->strategy, strategy) == 0) return 1;
  return 0;
}

/* Writes the known targets or strategies, comma-separated, into buf. */
static void sm4_known(int strategies, char *buf, size_t size) {
  size_t n, used = 0;
  const sm4_impl *const *all = sm4_impls(&n);
  buf[0] = '\0';
  for (size_t i = 0; i < n; i++) {
    const char *name = strategies ? all[i]->strategy : all[i]->target;
    int seen = 0;
    for (size_t j = 0; j < i; j++)
      if (strcmp(strategies ? all[j]->strategy : all[j]->target, name) == 0) seen = 1;
    if (seen) continue;
    int w = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", name);
    if (w < 0 || (size_t)w >= size - used) break;
    used += (size_t)w;
  }
}

/* 1 if this CPU can run the emulated (SIMDe) build `m`: the emulation is
 * itself compiled for a host ISA (e.g. AVX2). */
static int sm4_runs_emulated(const sm4_impl *m) {
  return m->emulated && kc_impl_avail(1, m->cpu_supported) == KC_EMULATED;
}

/* First implementation in sm4_impls() order matching the filter
 * (strategy/target NULL = any; must_run: only ones this CPU can run). */
static const sm4_impl *sm4_scan(const char *strategy, const char *target, int emulated,
                                int must_run) {
  size_t n;
  const sm4_impl *const *all = sm4_impls(&n);
  for (size_t i = 0; i < n; i++) {
    const sm4_impl *m = all[i];
    if (!!m->emulated != !!emulated) continue;
    if (strategy && strcmp(m->strategy, strategy) != 0) continue;
    if (target && strcmp(m->target, target) != 0) continue;
    if (must_run && !(emulated ? sm4_runs_emulated(m) : sm4_runs_natively(m))) continue;
    return m;
  }
  return NULL;
}

/* Best native implementation of `strategy` (NULL: any) on any target. */
static const sm4_impl *sm4_pick_native(const char *strategy) {
  const sm4_impl *best = sm4_impl_best();
  if (best && sm4_runs_natively(best) && (!strategy || strcmp(best->strategy, strategy) == 0))
    return best;
  for (size_t i = 0; i < sizeof sm4_target_preference / sizeof sm4_target_preference[0]; i++) {
    const char *t = sm4_target_preference[i];
    const sm4_impl *m = sm4_impl_find(strategy, t, 0);
    if (!m || m->emulated || !sm4_runs_natively(m)) m = sm4_scan(strategy, t, 0, 1);
    if (m) return m;
  }
  return sm4_scan(strategy, NULL, 0, 1); /* a target missing from the list */
}

/* Chooses the implementation from -t/-s/--emulated, or explains why not. */
static const sm4_impl *sm4_select(const kc_args *a, char *err, size_t err_size) {
  char known[512];
  if (a->target && !sm4_has_target(a->target)) {
    sm4_known(0, known, sizeof known);
    snprintf(err, err_size, "unknown sm4 target '%s' (known: %s)", a->target, known);
    return NULL;
  }
  if (a->strategy && !sm4_has_strategy(a->strategy)) {
    sm4_known(1, known, sizeof known);
    snprintf(err, err_size, "unknown sm4 strategy '%s' (known: %s)", a->strategy, known);
    return NULL;
  }
  const char *strategy_text = a->strategy ? a->strategy : "any strategy";

  if (a->emulated) {
    if (!a->target) {
      snprintf(err, err_size, "--emulated needs a target (-t TARGET)");
      return NULL;
    }
    const sm4_impl *m = sm4_impl_find(a->strategy, a->target, 1);
    if (!m || !m->emulated) m = sm4_scan(a->strategy, a->target, 1, 0);
    if (!m) {
      snprintf(err, err_size, "no emulated (SIMDe) sm4 build of %s for target '%s' is linked",
               strategy_text, a->target);
      return NULL;
    }
    if (!sm4_runs_emulated(m)) {
      snprintf(err, err_size,
               "this CPU lacks the host instructions the emulated build of '%s' is compiled for",
               a->target);
      return NULL;
    }
    return m;
  }

  if (a->target) {
    const sm4_impl *m = sm4_impl_find(a->strategy, a->target, 0);
    if (m && m->emulated) m = NULL;
    if (!m) m = sm4_scan(a->strategy, a->target, 0, 0);
    if (!m) {
      if (sm4_scan(a->strategy, a->target, 1, 0))
        snprintf(err, err_size,
                 "target '%s' (%s) exists only as an emulated build here; "
                 "add --emulated to run it",
                 a->target, strategy_text);
      else
        snprintf(err, err_size, "no sm4 implementation of strategy '%s' for target '%s'",
                 a->strategy ? a->strategy : "?", a->target);
      return NULL;
    }
    if (!sm4_runs_natively(m)) {
      /* Another strategy of the same target cannot do better: same ISA. */
      snprintf(err, err_size,
               "this CPU cannot run target '%s' natively (it lacks the instructions)%s",
               a->target,
               sm4_scan(a->strategy, a->target, 1, 1) ? "; add --emulated to run its SIMDe build"
                                                      : "");
      return NULL;
    }
    return m;
  }

  const sm4_impl *m = sm4_pick_native(a->strategy);
  if (!m) {
    snprintf(err, err_size, "no sm4 implementation of %s runs natively on this CPU",
             strategy_text);
    return NULL;
  }
  return m;
}

static int sm4_prepare(const kc_args *a, char *err, size_t err_size) {
  /* Mode and whether it takes an IV. */
  int needs_iv;
  if (strcmp(a->mode, "ecb") == 0) {
    sm4_job.mode = SM4_MODE_ECB;
    needs_iv = 0;
  } else if (strcmp(a->mode, "cbc") == 0) {
    sm4_job.mode = SM4_MODE_CBC;
    needs_iv = 1;
  } else if (strcmp(a->mode, "ctr") == 0) {
    sm4_job.mode = SM4_MODE_CTR;
    needs_iv = 1;
  } else {
    snprintf(err, err_size, "unknown sm4 mode '%s' (known: ecb, cbc, ctr)", a->mode);
    return -1;
  }
  sm4_job.dir = a->direction ? SM4_ENCRYPT : SM4_DECRYPT;

  /* Key. */
  uint8_t key[SM4_KEY_BYTES];
  if (!a->key_hex) {
    snprintf(err, err_size, "missing key (-k KEYHEX, %d hex digits)", 2 * SM4_KEY_BYTES);
    return -1;
  }
  if (kc_hex_decode_exact(a->key_hex, key, SM4_KEY_BYTES, "key", err, err_size) != 0) return -1;

  /* IV: required for CBC and CTR, refused for ECB. */
  memset(sm4_job.iv, 0, sizeof sm4_job.iv);
  if (needs_iv && !a->iv_hex) {
    snprintf(err, err_size, "sm4 %s needs an IV (-i IVHEX, %d hex digits)", a->mode,
             2 * SM4_BLOCK_BYTES);
    return -1;
  }
  if (!needs_iv && a->iv_hex) {
    snprintf(err, err_size, "sm4 ecb takes no IV (remove -i)");
    return -1;
  }
  if (needs_iv &&
      kc_hex_decode_exact(a->iv_hex, sm4_job.iv, SM4_BLOCK_BYTES, "IV", err, err_size) != 0)
    return -1;

  /* Implementation. */
  sm4_job.impl = sm4_select(a, err, err_size);
  if (!sm4_job.impl) return -1;

  sm4_set_key(&sm4_job.key, key);
  memset(key, 0, sizeof key);
  return 0;
}

static int sm4_run(const uint8_t *in, size_t len, uint8_t **out, size_t *out_len, char *err,
                   size_t err_size) {
  if (sm4_job.mode != SM4_MODE_CTR && len % SM4_BLOCK_BYTES != 0) {
    snprintf(err, err_size,
             "input is %zu bytes, not a multiple of the %d-byte block "
             "(ecb and cbc do no padding)",
             len, SM4_BLOCK_BYTES);
    return -1;
  }
  uint8_t *buf = malloc(len ? len : 1);
  if (!buf) {
    snprintf(err, err_size, "out of memory (%zu bytes)", len);
    return -1;
  }
  int rc = sm4_crypt(sm4_job.impl, sm4_job.mode, sm4_job.dir, &sm4_job.key, sm4_job.iv, in, buf,
                     len);
  if (rc != SM4_OK) {
    snprintf(err, err_size, "sm4_crypt with %s failed (code %d)", sm4_job.impl->name, rc);
    free(buf);
    return -1;
  }
  *out = buf;
  *out_len = len;
  return 0;
}

/* Every registered implementation with where it runs here. */
static size_t sm4_list(kc_impl_status *out, size_t max) {
  size_t n, count = 0;
  const sm4_impl *const *all = sm4_impls(&n);
  for (size_t i = 0; i < n && count < max; i++) {
    const sm4_impl *m = all[i];
    out[count].strategy = m->strategy;
    out[count].target = m->target;
    out[count].avail = sm4_runs_natively(m)   ? KC_NATIVE
                       : sm4_runs_emulated(m) ? KC_EMULATED
                                              : KC_UNAVAILABLE;
    count++;
  }
  return count;
}

/* ------------------------------------------------------------------ */
/* The cipher table                                                     */
/* ------------------------------------------------------------------ */

static const kc_cipher ciphers[] = {
    {"sm4", "ecb|cbc|ctr", sm4_init, sm4_prepare, sm4_run, sm4_list},
};
#define N_CIPHERS (sizeof ciphers / sizeof ciphers[0])

static const kc_cipher *find_cipher(const char *name) {
  for (size_t i = 0; i < N_CIPHERS; i++)
    if (strcmp(ciphers[i].name, name) == 0) return &ciphers[i];
  return NULL;
}

/* ------------------------------------------------------------------ */
/* Command line                                                         */
/* ------------------------------------------------------------------ */

static void usage(FILE *f) {
  fprintf(f,
          "usage: " PROG " CIPHER MODE -e|-d -k KEYHEX [-i IVHEX] [-t TARGET] [-s STRATEGY]\n"
          "              [--emulated] < input > output\n"
          "       " PROG " --list-targets [CIPHER]\n"
          "       " PROG " --list-impls [CIPHER]\n"
          "\n"
          "Encrypts (-e) or decrypts (-d) all of stdin to stdout without padding.\n"
          "  -k, --key HEX        key in hex\n"
          "  -i, --iv HEX         IV in hex (CBC, CTR); CTR counts the whole block\n"
          "                       as one big-endian 128-bit integer\n"
          "  -t, --target NAME    instruction-set target (see --list-targets)\n"
          "  -s, --strategy NAME  slicing strategy (e.g. byteslice, wordslice, reference)\n"
          "      --emulated       run the target's SIMDe (portable C) build\n"
          "      --list-targets   print each target and whether it runs native,\n"
          "                       emulated or is unavailable here\n"
          "      --list-impls     the same per implementation: cipher, strategy,\n"
          "                       target, status\n"
          "\nciphers and modes:\n");
  for (size_t i = 0; i < N_CIPHERS; i++)
    fprintf(f, "  %s %s\n", ciphers[i].name, ciphers[i].modes);
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
  kc_impl_status merged[MAX_IMPLS];
  size_t n_merged = 0;
  for (size_t c = 0; c < N_CIPHERS; c++) {
    if (cipher_name && strcmp(ciphers[c].name, cipher_name) != 0) continue;
    ciphers[c].init();
    kc_impl_status mine[MAX_IMPLS];
    size_t n = ciphers[c].impls(mine, MAX_IMPLS);
    for (size_t i = 0; i < n; i++) {
      if (per_impl) {
        printf("%s %s %s %s\n", ciphers[c].name, mine[i].strategy, mine[i].target,
               kc_avail_name(mine[i].avail));
        continue;
      }
      size_t j;
      for (j = 0; j < n_merged; j++)
        if (strcmp(merged[j].target, mine[i].target) == 0) break;
      if (j == n_merged) {
        if (n_merged < MAX_IMPLS) merged[n_merged++] = mine[i];
      } else if (mine[i].avail < merged[j].avail) {
        merged[j].avail = mine[i].avail; /* keep the best */
      }
    }
  }
  for (size_t i = 0; i < n_merged; i++)
    printf("%s %s\n", merged[i].target, kc_avail_name(merged[i].avail));
  return fflush(stdout) == 0 ? 0 : EXIT_IO;
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

int main(int argc, char **argv) {
  char err[ERR_SIZE];
  if (argc < 2) {
    fprintf(stderr, PROG ": error: missing arguments\n\n");
    usage(stderr);
    return EXIT_USAGE;
  }
  if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
    usage(stdout);
    return 0;
  }
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
    int rc = 0;
    int is_enc = strcmp(arg, "-e") == 0 || strcmp(arg, "--encrypt") == 0;
    int is_dec = strcmp(arg, "-d") == 0 || strcmp(arg, "--decrypt") == 0;
    if (is_enc || is_dec) {
      int dir = is_enc ? 1 : 0;
      if (a.direction != -1 && a.direction != dir)
        return fail("give only one of -e (encrypt) and -d (decrypt)");
      a.direction = dir;
    } else if (strcmp(arg, "-k") == 0 || strcmp(arg, "--key") == 0) {
      rc = take_value(argc, argv, &i, &a.key_hex, err, sizeof err);
    } else if (strcmp(arg, "-i") == 0 || strcmp(arg, "--iv") == 0) {
      rc = take_value(argc, argv, &i, &a.iv_hex, err, sizeof err);
    } else if (strcmp(arg, "-t") == 0 || strcmp(arg, "--target") == 0) {
      rc = take_value(argc, argv, &i, &a.target, err, sizeof err);
    } else if (strcmp(arg, "-s") == 0 || strcmp(arg, "--strategy") == 0) {
      rc = take_value(argc, argv, &i, &a.strategy, err, sizeof err);
    } else if (strcmp(arg, "--emulated") == 0) {
      a.emulated = 1;
    } else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
      usage(stdout);
      return 0;
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
    if (rc != 0) return fail(err);
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
  if (a.direction == -1) return fail("missing -e (encrypt) or -d (decrypt)");

  cipher->init();
  if (cipher->prepare(&a, err, sizeof err) != 0) return fail(err);

  /* Everything on the command line is valid: read, process, then write. */
  uint8_t *in, *out;
  size_t in_len, out_len;
  if (kc_read_all(stdin, &in, &in_len) != 0) {
    fprintf(stderr, PROG ": error: reading stdin: %s\n", strerror(errno));
    return EXIT_IO;
  }
  if (cipher->run(in, in_len, &out, &out_len, err, sizeof err) != 0) {
    free(in);
    return fail(err);
  }
  free(in);
  if (kc_write_all(stdout, out, out_len) != 0) {
    fprintf(stderr, PROG ": error: writing stdout: %s\n", strerror(errno));
    free(out);
    return EXIT_IO;
  }
  free(out);
  return 0;
}
