/*
 * Helpers shared by the harness programs (kcrypt, verify, bench, ctcheck),
 * none of which knows about a particular cipher.
 */
#ifndef KC_HARNESS_COMMON_H
#define KC_HARNESS_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Writes a printf-style message into err (nothing when err_size is 0) and
 * returns -1: `return kc_error(err, err_size, "bad %s", what);`. */
__attribute__((format(printf, 3, 4))) int kc_error(char *err, size_t err_size, const char *fmt,
                                                   ...);

/* ---- Hex ---- */

/* The value of hex digit c (either case), or -1. */
int kc_hex_digit(int c);

/*
 * Decodes the hex string `hex` (upper or lower case, no separators, no "0x")
 * into a freshly malloc'ed buffer.  On success returns 0 and sets *out (free
 * it with free(); non-NULL even for an empty string) and *out_len.  On error
 * returns -1 and writes a message such as "odd number of hex digits (31)" or
 * "invalid hex character 'g' at position 4" into err (if err_size > 0).
 */
int kc_hex_decode(const char *hex, uint8_t **out, size_t *out_len, char *err, size_t err_size);

/*
 * Decodes `hex` into exactly `len` bytes at out.  `what` names the value in
 * the error message ("key", "IV"), e.g. "key must be 16 bytes (32 hex
 * digits), got 15 bytes".  Returns 0 or -1.
 */
int kc_hex_decode_exact(const char *hex, uint8_t *out, size_t len, const char *what, char *err,
                        size_t err_size);

/* Writes 2*len lower-case hex digits and a terminating NUL to out. */
void kc_hex_encode(const uint8_t *in, size_t len, char *out);

/* ---- Files ---- */

/* Reads a whole file by name into a malloc'ed buffer (*buf non-NULL even when
 * empty), with one extra NUL byte after the data so text files can be used
 * as strings.  Returns 0, or -1 with errno set on a read or allocation error.
 * (kcrypt streams stdin instead: see kcrypt.c.) */
int kc_read_file(const char *path, uint8_t **buf, size_t *len);

/* ---- Buffers ---- */

/* malloc with the given power-of-two alignment (>= sizeof(void *)); free with
 * kc_free_aligned.  Returns NULL on failure.  Size 0 is allowed. */
void *kc_alloc_aligned(size_t size, size_t align);
void kc_free_aligned(void *p);

/* Bytes of guard placed on each side of a kc_buf. */
#define KC_GUARD_BYTES 64
/* Alignment of a kc_buf's allocation before the offset is applied. */
#define KC_BUF_ALIGN 64

/*
 * A buffer of `len` usable bytes starting at `ptr`, where ptr sits `offset`
 * bytes past a KC_BUF_ALIGN boundary (so offset 0 is 64-byte aligned and
 * offsets 1..15 give every misalignment a 16-byte load can see).  Guard bytes
 * with a known pattern surround it so that writes past either end are
 * detected by kc_buf_guards_ok.
 */
typedef struct kc_buf {
  uint8_t *base; /* what was allocated */
  uint8_t *ptr;  /* the usable bytes, zeroed */
  size_t len;
  size_t offset;
} kc_buf;

/* Allocates; returns 0 or -1 (out of memory). */
int kc_buf_alloc(kc_buf *b, size_t len, size_t offset);
/* 1 if both guard areas still hold their pattern, 0 if something wrote there. */
int kc_buf_guards_ok(const kc_buf *b);
void kc_buf_free(kc_buf *b);

/* ---- Seeded PRNG: xoshiro256** seeded through splitmix64 ---- */

/* Not cryptographic: for reproducible test inputs only. */
typedef struct kc_rng {
  uint64_t s[4];
} kc_rng;

void kc_rng_seed(kc_rng *r, uint64_t seed);
uint64_t kc_rng_next(kc_rng *r);
/* Uniform in [0, bound) (bound > 0), without modulo bias. */
uint64_t kc_rng_below(kc_rng *r, uint64_t bound);
void kc_rng_bytes(kc_rng *r, uint8_t *out, size_t len);

/* rows[i] = base + i * row_bytes for i < n: one pointer per row of a buffer,
 * for kernels that write each lane to its own pointer (ZUC). */
void kc_rows(uint8_t *base, size_t row_bytes, unsigned n, uint8_t *rows[]);

/* ---- Block-cipher modes (SM4, uBlock) ---- */

/* The modes of every block cipher here; each cipher's own enum has the same
 * values (each description checks that at compile time). */
typedef enum { KC_MODE_ECB = 0, KC_MODE_CBC = 1, KC_MODE_CTR = 2 } kc_block_mode;
#define KC_N_BLOCK_MODES 3

/* The longest block and the longest key of the block ciphers here (bytes). */
#define KC_BLOCK_MAX_BYTES 32

/* "ecb", "cbc", "ctr" ("?" for anything else). */
const char *kc_block_mode_name(kc_block_mode m);
/* Parses "ecb", "cbc" or "ctr"; returns 0 or -1. */
int kc_block_mode_parse(const char *name, kc_block_mode *m);
/* "encrypt" or "decrypt". */
const char *kc_direction_name(int encrypt);

/* One mode in one direction, named as bench and ctcheck name it. */
typedef struct kc_block_op {
  const char *name; /* "ecb-enc", "ecb-dec", "cbc-enc", "cbc-dec", "ctr" */
  kc_block_mode mode;
  int encrypt; /* CTR: 1 (the same operation both ways) */
} kc_block_op;

#define KC_N_BLOCK_OPS 5
extern const kc_block_op KC_BLOCK_OPS[KC_N_BLOCK_OPS];
/* The comma-separated names, for usage texts and --mode lists. */
#define KC_BLOCK_OP_NAMES "ecb-enc,ecb-dec,cbc-enc,cbc-dec,ctr"

/* ---- Where an implementation runs ---- */

/* Ordered from best to worst: merging two statuses keeps the smaller. */
typedef enum {
  KC_NATIVE = 0,      /* this CPU executes the kernel's instructions */
  KC_EMULATED = 1,    /* the CPU lacks them, but a SIMDe (portable C) build is linked */
  KC_UNAVAILABLE = 2  /* neither */
} kc_avail;

/* "native", "emulated" or "unavailable". */
const char *kc_avail_name(kc_avail a);

/*
 * Test hook: 1 if `target` appears in the comma-separated environment
 * variable KC_DISABLE_TARGETS (e.g. "avx512_gfni,avx2_gfni").  kcrypt treats
 * such targets as ones this CPU cannot run natively, so the error path for an
 * unsupported target can be tested on a machine that supports everything.
 */
int kc_target_disabled(const char *target);

/* 1 if `word` is one of the items of the comma-separated `list`. */
int kc_in_list(const char *list, const char *word);

/* ---- Command lines ---- */

/* Parses a decimal count: digits only (no sign, no spaces), at most
 * UINT64_MAX.  Returns 0 or -1. */
int kc_parse_count(const char *s, uint64_t *out);

/* What an option does; the first four take the next argument as their
 * value (STRING, 0, is what an entry that names no kind does). */
typedef enum {
  KC_OPT_STRING, /* *(const char **)dest = the value */
  KC_OPT_COUNT,  /* *(uint64_t *)dest = the value, a count (kc_parse_count) in [min, max] */
  KC_OPT_WORD,   /* *(int *)dest = the value's index in words */
  KC_OPT_CALL,   /* parse(value, dest, err, err_size) returns 0 or -1 with the reason */
  KC_OPT_FLAG,   /* *(int *)dest = 1 */
  KC_OPT_STOP,   /* *(int *)dest = 1, and parsing ends there (--help) */
  KC_OPT_SET     /* *(int *)dest = value; refused after a SET of another value to dest */
} kc_opt_kind;

/* One option of a program's table.  An entry without a name is a positional
 * argument: the arguments that are not options (those not starting with '-',
 * and "-" itself) fill the positional entries in table order. */
typedef struct kc_opt {
  const char *name;  /* "--key", or NULL for a positional argument */
  const char *alias; /* "-k", or NULL */
  kc_opt_kind kind;
  void *dest;
  int value;                /* SET: what it stores */
  int once;                 /* STRING: refuse a second one ("option -k given twice") */
  uint64_t min, max;        /* COUNT: the range; max 0: none */
  const char *const *words; /* WORD: the values, NULL-terminated */
  int (*parse)(const char *value, void *dest, char *err, size_t err_size); /* CALL */
  int *seen; /* set to 1 when the option is given, if not NULL */
} kc_opt;

/* Parses argv[1 .. argc) by the n options of `opts`, left to right, up to the end or a STOP
 * option.  Returns 0, or -1 at the first error with the message in err ("unknown option
 * '-x'", "option -k needs a value", "option -k given twice", "--seed needs a number", ...). */
int kc_opts_parse(int argc, char **argv, const kc_opt *opts, size_t n, char *err, size_t err_size);

/* Fills model with the CPU model name from /proc/cpuinfo ("unknown" if none),
 * and features with the space-separated CPU features the generated dispatch
 * checks that this CPU has (kc_cpu.h; e.g. "ssse3 pclmul aes avx2 vaes"). */
void kc_cpu_describe(char *model, char *features, size_t size);

#endif /* KC_HARNESS_COMMON_H */
