/*
 * kcrypt's library: choosing an implementation, and the command line and
 * streaming of every block cipher; see kcrypt.h.
 */
#define _DEFAULT_SOURCE /* explicit_bzero */

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kcrypt.h"

/* ------------------------------------------------------------------ */
/* Choosing an implementation                                           */
/* ------------------------------------------------------------------ */

/* 1 if this CPU runs `v` as native code (and the test hook allows it), or
 * the emulated (SIMDe) build `v`. */
static int runs_natively(const kc_impl_view *v) { return kc_view_avail(v) == KC_NATIVE; }
static int runs_emulated(const kc_impl_view *v) { return kc_view_avail(v) == KC_EMULATED; }

/* -t or -s: 0 if no value or some implementation (native or emulated) has
 * that target or strategy (the kc_impl_view field at `field`), else -1
 * naming the known ones. */
static int check_named(const kc_view_list *l, size_t field, const char *what, const char *name,
                       const char *value, char *err, size_t err_size) {
#define FIELD(i) (*(const char *const *)((const char *)&l->v[i] + field))
  char known[512] = "";
  size_t used = 0;
  for (size_t i = 0; value && i < l->n; i++) {
    if (strcmp(FIELD(i), value) == 0) return 0;
    int seen = 0;
    for (size_t j = 0; j < i; j++) seen |= strcmp(FIELD(j), FIELD(i)) == 0;
    const char *sep = used ? ", " : "";
    if (!seen && used < sizeof known)
      used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", sep, FIELD(i));
  }
#undef FIELD
  return value ? kc_error(err, err_size, "unknown %s %s '%s' (known: %s)", name, what, value, known)
               : 0;
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
 * library's own choice if it fits, else the first this CPU runs in the
 * library's registry, which lists the kernels in dispatch order (gen/backends'
 * KERNELS, as generated/targets.json ranks them). */
static const kc_impl_view *pick_native(const kc_desc *d, const kc_view_list *l,
                                       const char *strategy) {
  const void *best = d->best();
  for (size_t i = 0; best && i < l->n; i++) {
    const kc_impl_view *v = &l->v[i];
    if (v->impl == best && runs_natively(v) && (!strategy || strcmp(v->strategy, strategy) == 0))
      return v;
  }
  return scan(l, strategy, NULL, 0, 1);
}

/* The implementation -t/-s/--emulated ask for into *out: 0, or -1 with the
 * reason. */
static int choose(const kc_desc *d, const kc_view_list *l, const char *name, const kc_args *a,
                  const kc_impl_view **out, char *err, size_t err_size) {
  const char *strategy_text = a->strategy ? a->strategy : "any strategy";
  if (a->emulated) {
    if (!a->target) return kc_error(err, err_size, "--emulated needs a target (-t TARGET)");
    if (!(*out = scan(l, a->strategy, a->target, 1, 0)))
      return kc_error(err, err_size, "no emulated (SIMDe) %s build of %s for target '%s' is linked",
                      name, strategy_text, a->target);
    return runs_emulated(*out) ? 0
                               : kc_error(err, err_size,
                                          "this CPU lacks the host instructions the emulated "
                                          "build of '%s' is compiled for",
                                          a->target);
  }
  if (a->target) {
    if (!(*out = scan(l, a->strategy, a->target, 0, 0)))
      return scan(l, a->strategy, a->target, 1, 0)
                 ? kc_error(err, err_size,
                            "target '%s' (%s) exists only as an emulated build here; "
                            "add --emulated to run it",
                            a->target, strategy_text)
                 : kc_error(err, err_size, "no %s implementation of strategy '%s' for target '%s'",
                            name, a->strategy ? a->strategy : "?", a->target);
    /* Another strategy of the same target cannot do better: same ISA. */
    if (runs_natively(*out)) return 0;
    return kc_error(
        err, err_size, "this CPU cannot run target '%s' natively (it lacks the instructions)%s",
        a->target,
        scan(l, a->strategy, a->target, 1, 1) ? "; add --emulated to run its SIMDe build" : "");
  }
  if ((*out = pick_native(d, l, a->strategy))) return 0;
  return kc_error(err, err_size, "no %s implementation of %s runs natively on this CPU", name,
                  strategy_text);
}

const void *kc_select_impl(const kc_desc *d, const char *name, const kc_args *a, char *err,
                           size_t err_size) {
  kc_view_list l;
  const kc_impl_view *v = NULL;
  d->views(&l);
  if (check_named(&l, offsetof(kc_impl_view, target), "target", name, a->target, err, err_size) ||
      check_named(&l, offsetof(kc_impl_view, strategy), "strategy", name, a->strategy, err,
                  err_size) ||
      choose(d, &l, name, a, &v, err, err_size))
    return NULL;
  return v->impl;
}

/* ------------------------------------------------------------------ */
/* Block ciphers                                                        */
/* ------------------------------------------------------------------ */

/* What the command line decided, and how far the input got. */
static struct {
  const kc_desc *d;
  const char *name; /* the variant's */
  const void *impl;
  kc_block_mode mode;
  int encrypt;
  size_t block_bytes;
  uint8_t iv[KC_BLOCK_MAX_BYTES]; /* CBC, CTR; zeros for ECB */
  void *ks, *st;                  /* key schedule, mode state */
  uint64_t seen;                  /* input bytes handed to update so far */
} job;

/* Mode and direction; returns 0 or -1. */
static int block_mode(const char *name, const kc_args *a, char *err, size_t err_size) {
  job.encrypt = a->direction != 0;
  if (kc_block_mode_parse(a->mode, &job.mode) == 0) return 0;
  return kc_error(err, err_size, "unknown %s mode '%s' (known: ecb, cbc, ctr)", name, a->mode);
}

int kc_write_full(int fd, const uint8_t *buf, size_t len, uint64_t *written) {
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

/* The options only some modes take: where kc_args keeps each, and who takes it. */
static const struct {
  const char *name;
  size_t field;
  const char *takers;
} MODE_OPTIONS[] = {
    {"--tag", offsetof(kc_args, tag), "zuc mac"},
    {"--bits", offsetof(kc_args, bits), "zuc"},
    {"--mac-method", offsetof(kc_args, mac_method), "zuc mac"},
    {"-a", offsetof(kc_args, aad_hex), "sm4 gcm and ccm"},
    {"--aad-file", offsetof(kc_args, aad_file), "sm4 gcm and ccm"},
    {"--tag-bytes", offsetof(kc_args, tag_bytes), "sm4 gcm, ccm and cmac"},
    {"--tweak-rule", offsetof(kc_args, tweak_rule), "sm4 xts"},
};

int kc_refuse_options(const kc_args *a, const char *taken, const char *who, char *err,
                      size_t err_size) {
  for (size_t i = 0; i < sizeof MODE_OPTIONS / sizeof MODE_OPTIONS[0]; i++) {
    const char *value = *(const char *const *)((const char *)a + MODE_OPTIONS[i].field);
    if (value && !(taken && kc_in_list(taken, MODE_OPTIONS[i].name)))
      return kc_error(err, err_size, "%s takes no %s (it is for %s)", who, MODE_OPTIONS[i].name,
                      MODE_OPTIONS[i].takers);
  }
  return 0;
}

int kc_gather(kc_gathered *g, const uint8_t *in, size_t len, const char *what, char *err,
              size_t err_size) {
  if (g->cap - g->len < len || !g->data) {
    size_t cap = g->cap ? g->cap : KC_CHUNK_BYTES;
    while (cap - g->len < len) /* an absurd size: SIZE_MAX, which malloc refuses */
      cap = cap > SIZE_MAX / 2 ? SIZE_MAX : 2 * cap;
    uint8_t *bigger = malloc(cap);
    if (!bigger) return kc_error(err, err_size, "out of memory (%zu bytes for %s)", cap, what);
    size_t used = g->len;
    if (g->data) memcpy(bigger, g->data, used);
    kc_gather_wipe(g); /* the old buffer held the input: wiped, not just handed back */
    g->data = bigger;
    g->len = used;
    g->cap = cap;
  }
  memcpy(g->data + g->len, in, len);
  g->len += len;
  return 0;
}

void kc_gather_wipe(kc_gathered *g) {
  if (g->data) explicit_bzero(g->data, g->cap);
  free(g->data);
  *g = (kc_gathered){NULL, 0, 0};
}

int kc_read_key(const kc_variant *v, const kc_args *a, uint8_t *key, char *err, size_t err_size) {
  if (!a->key_hex)
    return kc_error(err, err_size, "missing key (-k KEYHEX, %zu hex digits for %s)",
                    2 * v->key_bytes, v->name);
  char what[64];
  snprintf(what, sizeof what, "%s key", v->name);
  return kc_hex_decode_exact(a->key_hex, key, v->key_bytes, what, err, err_size);
}

/* The IV: one block for CBC and CTR, refused for ECB; returns 0 or -1. */
static int block_iv(const kc_variant *v, const kc_args *a, char *err, size_t err_size) {
  memset(job.iv, 0, sizeof job.iv);
  if (job.mode == KC_MODE_ECB)
    return a->iv_hex ? kc_error(err, err_size, "%s ecb takes no IV (remove -i)", v->name) : 0;
  if (!a->iv_hex)
    return kc_error(err, err_size, "%s %s needs an IV (-i IVHEX, %zu hex digits: one block)",
                    v->name, kc_block_mode_name(job.mode), 2 * v->block_bytes);
  char what[64];
  snprintf(what, sizeof what, "%s IV (one block)", v->name);
  return kc_hex_decode_exact(a->iv_hex, job.iv, v->block_bytes, what, err, err_size);
}

/* After the library call `step` ("crypt"; CBC and CTR: "init", "update", "final", named with
 * the mode, "sm4_cbc_update") returned rc: 0, or -1 with the reason. */
static int block_call(int rc, const char *step, char *err, size_t err_size) {
  if (rc == 0) return 0;
  kc_view_list l;
  job.d->views(&l);
  const kc_impl_view *v = kc_view_of(&l, job.impl);
  int ecb = job.mode == KC_MODE_ECB;
  return kc_error(err, err_size, "%s_%s%s%s with %s failed (code %d)", job.d->block->prefix,
                  ecb ? "" : kc_block_mode_name(job.mode), ecb ? "" : "_", step, v ? v->name : "?",
                  rc);
}

static int block_prepare(const kc_desc *d, const kc_variant *v, const kc_args *a, char *err,
                         size_t err_size) {
  memset(&job, 0, sizeof job);
  job.d = d;
  job.name = v->name;
  job.block_bytes = v->block_bytes;
  char who[64];
  snprintf(who, sizeof who, "%s %s", v->name, a->mode);
  if (kc_refuse_options(a, NULL, who, err, err_size) != 0) return -1;
  uint8_t key[KC_BLOCK_MAX_BYTES];
  if (block_mode(v->name, a, err, err_size) != 0 || kc_read_key(v, a, key, err, err_size) != 0 ||
      block_iv(v, a, err, err_size) != 0)
    return -1;
  job.impl = kc_select_impl(d, v->name, a, err, err_size);
  if (!job.impl) return -1;
  job.ks = kc_block_new_key(d);
  job.st = calloc(1, d->block->state_size);
  if (!job.st) return kc_error(err, err_size, "out of memory");
  int rc = d->block->set_key(job.ks, v->id, key);
  explicit_bzero(key, sizeof key);
  if (rc != 0)
    return kc_error(err, err_size, "%s_set_key for %s failed (code %d)", d->block->prefix, v->name,
                    rc);
  if (job.mode == KC_MODE_ECB) return 0;
  return block_call(d->block->init(job.st, job.mode, job.impl, job.encrypt, job.ks, job.iv),
                    "init", err, err_size);
}

/* One piece through the mode, refusing a last ECB or CBC piece that leaves
 * the input short of whole blocks (no padding) before any of it is
 * processed; the mode's final call after the last. */
static int block_update(const uint8_t *in, size_t len, int last, uint8_t *out, size_t *out_len,
                        char *err, size_t err_size) {
  const kc_block_api *b = job.d->block;
  job.seen += len;
  if (last && job.mode != KC_MODE_CTR && job.seen % job.block_bytes != 0)
    return kc_error(err, err_size,
                    "input is %" PRIu64 " bytes, not a multiple of the %zu-byte %s block "
                    "(ecb and cbc do no padding)",
                    job.seen, job.block_bytes, job.name);
  *out_len = len;
  if (job.mode == KC_MODE_ECB)
    return block_call(b->crypt(job.impl, KC_MODE_ECB, job.encrypt, job.ks, job.iv, in, out, len),
                      "crypt", err, err_size);
  if (block_call(b->update(job.st, job.mode, in, out, len), "update", err, err_size) != 0) return -1;
  return last ? block_call(b->final(job.st, job.mode), "final", err, err_size) : 0;
}

/* The key schedule and whatever mode state is left. */
static void block_wipe(void) {
  if (job.st) {
    if (job.mode != KC_MODE_ECB) job.d->block->reset(job.st, job.mode);
    explicit_bzero(job.st, job.d->block->state_size);
    free(job.st);
  }
  if (job.ks) kc_block_free_key(job.d, job.ks);
  memset(&job, 0, sizeof job);
}

/* CTR from the IV advanced to the piece's first block: a big-endian add of
 * offset / block_bytes (pieces start at whole blocks). */
static int block_crypt_at(uint64_t offset, const uint8_t *in, uint8_t *out, size_t len, char *err,
                          size_t err_size) {
  uint8_t iv[KC_BLOCK_MAX_BYTES];
  uint64_t carry = offset / job.block_bytes;
  for (size_t i = job.block_bytes; i-- > 0;) {
    carry += job.iv[i];
    iv[i] = (uint8_t)carry;
    carry >>= 8;
  }
  int rc = job.d->block->crypt(job.impl, KC_MODE_CTR, 1, job.ks, iv, in, out, len);
  explicit_bzero(iv, sizeof iv);
  return block_call(rc, "crypt", err, err_size);
}

static kc_crypt_at_fn block_crypt_at_of_job(void) {
  return job.mode == KC_MODE_CTR ? block_crypt_at : NULL;
}

const kc_cli kc_block_cli = {"ecb|cbc|ctr", 1,    block_prepare, NULL, block_update,
                             block_wipe,       NULL, NULL,          block_crypt_at_of_job};
