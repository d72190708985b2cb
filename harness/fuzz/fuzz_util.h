/*
 * What the fuzz targets share: reading decisions from the fuzz input, buffers
 * placed where an overread or overwrite shows, the kernel choice, and the
 * check that stops the run.
 *
 * Input.  Decisions (which call, lengths, piece splits, buffer placement)
 * are read from the front of the input, message bytes from the back; once
 * either end runs out, decisions read as 0 and message bytes come from a
 * generator seeded by the input, so a short input still makes a long message
 * and a mutation of a decision byte does not shift the message.
 *
 * Buffers.  ASan checks every C access to heap memory, but not what the
 * assembly twins (the _asm.S files of generated/src) read or write: they are
 * assembled, not instrumented.  So a buffer is one of
 *   FZ_HEAP         malloc'd to its exact length (ASan sees one byte past
 *                   its end) at a misaligned offset, the bytes before it
 *                   poisoned (whole 8-byte granules);
 *   FZ_GUARD_END    its last byte the last one before a PROT_NONE page: any
 *                   read or write past its end faults, in C or in assembly;
 *   FZ_GUARD_START  its first byte (misaligned by up to 63) just after a
 *                   PROT_NONE page, and a canary after its end that must stay
 *                   as it was.
 *
 * Checks.  FZ_CHECK(name, condition, printf-args) prints what differed and
 * aborts: libFuzzer saves the input as a crash.  A check whose name is listed
 * in the environment variable FUZZ_SKIP (comma-separated) is not made: for
 * long runs while a known defect awaits its fix (docs/verification.md).
 */
#ifndef KC_FUZZ_UTIL_H
#define KC_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FZ_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(FZ_ASAN)
#define FZ_ASAN 1
#endif
#ifdef FZ_ASAN
#include <sanitizer/asan_interface.h>
#endif

/* ------------------------------------------------------------------ */
/* Checks                                                              */
/* ------------------------------------------------------------------ */

/* 1 if the check `name` is listed in FUZZ_SKIP. */
static inline int fz_skipped(const char *name)
{
    const char *list = getenv("FUZZ_SKIP");
    if (list == NULL)
        return 0;
    const size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        const size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && memcmp(p, name, n) == 0)
            return 1;
        p += len + (end != NULL);
    }
    return 0;
}

/* What the current case is (set with FZ_CONTEXT), printed with a failure,
 * and the check whose calls run now (set by FZ_WANTED), named when a
 * sanitizer stops the run inside the library (a death callback). */
static char fz_context[512];
static const char *fz_current;
#define FZ_CONTEXT(...) snprintf(fz_context, sizeof fz_context, __VA_ARGS__)

#ifdef FZ_ASAN
#include <sanitizer/common_interface_defs.h>
#define FZ_DEATH_CALLBACK 1
#endif

static inline void fz_on_death(void)
{
    fprintf(stderr, "\nFUZZ CASE at the sanitizer's report%s%s%s\n  case: %s\n", fz_current ? " [check " : "",
            fz_current ? fz_current : "", fz_current ? "]" : "", fz_context);
}

#define FZ_CHECK(name, cond, ...)                                                                   \
    do {                                                                                            \
        if (!(cond) && !fz_skipped(name)) {                                                         \
            fprintf(stderr, "\nFUZZ CHECK FAILED [%s] at %s:%d: %s\n  case: %s\n  ", name, __FILE__, \
                    __LINE__, #cond, fz_context);                                                   \
            fprintf(stderr, __VA_ARGS__);                                                           \
            fputc('\n', stderr);                                                                    \
            abort();                                                                                \
        }                                                                                           \
    } while (0)

/* Whether a check that is known to fail until a fix lands is to be made at
 * all (some would crash inside the library before FZ_CHECK could speak). */
#define FZ_WANTED(name) (!fz_skipped(name) && (fz_current = (name)) != NULL)

/* got and want must hold the same len bytes. */
#define FZ_SAME(name, got, want, len, what)                                                         \
    do {                                                                                            \
        const uint8_t *fz_g_ = (got), *fz_w_ = (want);                                              \
        const size_t fz_n_ = (len);                                                                 \
        size_t fz_i_ = 0;                                                                           \
        while (fz_i_ < fz_n_ && fz_g_[fz_i_] == fz_w_[fz_i_])                                       \
            fz_i_++;                                                                                \
        FZ_CHECK(name, fz_i_ == fz_n_, "%s: byte %zu of %zu differs (got %02x, want %02x)", (what), \
                 fz_i_, fz_n_, fz_i_ < fz_n_ ? fz_g_[fz_i_] : 0, fz_i_ < fz_n_ ? fz_w_[fz_i_] : 0); \
    } while (0)

/* ------------------------------------------------------------------ */
/* Input                                                               */
/* ------------------------------------------------------------------ */

typedef struct {
    const uint8_t *front, *back; /* decisions from front upwards, data from back downwards */
    uint64_t prng;               /* message bytes once the input is used up */
} fz_reader;

static inline fz_reader fz_reader_init(const uint8_t *data, size_t size)
{
#ifdef FZ_DEATH_CALLBACK
    static int registered;
    if (!registered) {
        __sanitizer_set_death_callback(fz_on_death);
        registered = 1;
    }
#endif
    fz_current = NULL;
    fz_context[0] = '\0';
    fz_reader r = {data, data + size, 0x9e3779b97f4a7c15ull ^ size};
    for (size_t i = 0; i < size; i++) /* FNV-1a of the whole input seeds the generator */
        r.prng = (r.prng ^ data[i]) * 0x100000001b3ull;
    return r;
}

static inline uint8_t fz_u8(fz_reader *r)
{
    return r->front < r->back ? *r->front++ : 0;
}

static inline uint64_t fz_uint(fz_reader *r, unsigned bytes)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; i++)
        v = v << 8 | fz_u8(r);
    return v;
}

/* A value in [0, n), n > 0. */
static inline size_t fz_below(fz_reader *r, size_t n)
{
    return n <= 256 ? fz_u8(r) % n : n <= 65536 ? (size_t)fz_uint(r, 2) % n : (size_t)(fz_uint(r, 4) % n);
}

static inline int fz_bool(fz_reader *r)
{
    return fz_u8(r) & 1;
}

static inline uint64_t fz_next_prng(fz_reader *r)
{
    r->prng ^= r->prng << 13, r->prng ^= r->prng >> 7, r->prng ^= r->prng << 17;
    return r->prng;
}

/* n message bytes: from the back of the input, then the generator. */
static inline void fz_data(fz_reader *r, uint8_t *dst, size_t n)
{
    size_t i = 0;
    for (; i < n && r->back > r->front; i++)
        dst[i] = *--r->back;
    for (; i < n; i++)
        dst[i] = (uint8_t)(fz_next_prng(r) >> 24);
}

/* A length up to `max`: mostly short, sometimes across the mode layer's
 * chunks and the kernels' batches, sometimes near a multiple of `unit`. */
static inline size_t fz_length(fz_reader *r, size_t max, size_t unit)
{
    size_t n;
    switch (fz_u8(r) % 8) {
    case 0:
    case 1:
    case 2:
        n = fz_below(r, 70);
        break;
    case 3:
    case 4:
        n = fz_below(r, 600);
        break;
    case 5:
        n = fz_below(r, max + 1);
        break;
    default: /* a multiple of the unit, give or take a little */
        n = unit * fz_below(r, max / unit + 1);
        n += (size_t)(int8_t)(fz_u8(r) % 5) - 2;
        break;
    }
    return n > max ? max : n;
}

/* ------------------------------------------------------------------ */
/* Buffers                                                             */
/* ------------------------------------------------------------------ */

enum { FZ_HEAP, FZ_GUARD_END, FZ_GUARD_START, FZ_PLACES };

#define FZ_CANARY 0xa5

typedef struct {
    uint8_t *ptr;   /* the buffer */
    size_t len;
    int place;
    uint8_t *mem;   /* what was allocated or mapped */
    size_t mem_len;
    size_t before;  /* heap: bytes before ptr */
} fz_buf;

static inline size_t fz_page(void)
{
    static size_t page;
    if (!page)
        page = (size_t)sysconf(_SC_PAGESIZE);
    return page;
}

/* A pointer to a PROT_NONE page: a call that must refuse its length before
 * reading the buffer gets this one, and a read faults. */
static inline const uint8_t *fz_noaccess(void)
{
    static void *page;
    if (!page) {
        page = mmap(NULL, fz_page(), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (page == MAP_FAILED)
            abort();
    }
    return page;
}

/* A length past `max` (the library's documented longest piece, e.g.
 * PTRDIFF_MAX): just past it, a power of two, or near SIZE_MAX. */
static inline size_t fz_past(fz_reader *r, size_t max)
{
    switch (fz_u8(r) % 4) {
    case 0:
        return max + 1 + fz_below(r, 64);
    case 1:
        return SIZE_MAX - fz_below(r, 64);
    case 2:
        return max + 1 + (size_t)(fz_uint(r, 8) % (SIZE_MAX - max));
    default:
        return max + 1 + ((SIZE_MAX - max - 1) >> fz_below(r, 63));
    }
}

/* A buffer of len bytes at `place`, misaligned by `skew` (0..63), holding
 * the canary byte. */
static inline uint8_t *fz_alloc(fz_buf *b, size_t len, int place, size_t skew)
{
    memset(b, 0, sizeof *b);
    b->len = len, b->place = place % FZ_PLACES;
    skew %= 64;
    if (b->place == FZ_HEAP) {
        b->before = skew;
        b->mem = malloc(skew + len ? skew + len : 1);
        if (!b->mem)
            abort();
        b->ptr = b->mem + skew;
        memset(b->mem, FZ_CANARY, skew + len);
#ifdef FZ_ASAN
        ASAN_POISON_MEMORY_REGION(b->mem, skew / 8 * 8);
#endif
        return b->ptr;
    }
    const size_t page = fz_page();
    const size_t data_pages = (len + 64 + 64 + page - 1) / page;
    b->mem_len = (data_pages + 2) * page;
    b->mem = mmap(NULL, b->mem_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (b->mem == MAP_FAILED)
        abort();
    if (mprotect(b->mem, page, PROT_NONE) != 0 ||
        mprotect(b->mem + (data_pages + 1) * page, page, PROT_NONE) != 0)
        abort();
    memset(b->mem + page, FZ_CANARY, data_pages * page);
    b->ptr = b->place == FZ_GUARD_END ? b->mem + (data_pages + 1) * page - len : b->mem + page + skew;
    return b->ptr;
}

/* 1 if nothing around the buffer was written (the mapped kinds; ASan
 * watches the heap kind itself). */
static inline int fz_canary_intact(const fz_buf *b)
{
    if (b->place == FZ_HEAP)
        return 1;
    const size_t page = fz_page();
    const uint8_t *lo = b->mem + page, *hi = b->mem + b->mem_len - page;
    for (const uint8_t *p = lo; p < b->ptr; p++)
        if (*p != FZ_CANARY)
            return 0;
    for (const uint8_t *p = b->ptr + b->len; p < hi; p++)
        if (*p != FZ_CANARY)
            return 0;
    return 1;
}

static inline void fz_free(fz_buf *b)
{
    if (!b->mem)
        return;
    if (b->place == FZ_HEAP) {
#ifdef FZ_ASAN
        ASAN_UNPOISON_MEMORY_REGION(b->mem, b->before);
#endif
        free(b->mem);
    } else {
        munmap(b->mem, b->mem_len);
    }
    b->mem = NULL;
}

/* A buffer placed as the input says. */
static inline uint8_t *fz_alloc_from(fz_reader *r, fz_buf *b, size_t len)
{
    const uint8_t c = fz_u8(r);
    return fz_alloc(b, len, c % FZ_PLACES, (size_t)(c >> 2));
}

/* ------------------------------------------------------------------ */
/* Pieces                                                              */
/* ------------------------------------------------------------------ */

/* The next piece of a message with `left` bytes to go: whole units of
 * `unit` bytes (1 for any length), mostly small, sometimes large. */
static inline size_t fz_piece(fz_reader *r, size_t left, size_t unit)
{
    size_t n;
    switch (fz_u8(r) % 6) {
    case 0:
        n = 0;
        break;
    case 1:
        n = fz_below(r, 4) * unit;
        break;
    case 2:
    case 3:
        n = fz_below(r, 80) * unit / (unit > 1 ? 16 : 1);
        break;
    case 4:
        n = fz_below(r, 2048 / unit + 1) * unit;
        break;
    default:
        n = left;
        break;
    }
    n = n / unit * unit;
    return n > left ? left / unit * unit : n;
}

/* The implementations of cipher P (sm4, zuc, ublock) a target chooses from:
 * those this CPU runs (with FZ_EMULATED the SIMDe builds too, registered
 * first).  Defines impls[] and n_impls, collect_impls() that fills them
 * (call it once, from the target's setup), and impl_name() for messages
 * (NULL: the library's choice). */
#ifdef FZ_EMULATED
#define FZ_REGISTER_EMULATED(P) P##_register_emulated()
#else
#define FZ_REGISTER_EMULATED(P) ((void)0)
#endif
#define FZ_IMPLS(P)                                                                                   \
    static const P##_impl *impls[128];                                                                \
    static size_t n_impls;                                                                            \
    static void collect_impls(void)                                                                   \
    {                                                                                                 \
        FZ_REGISTER_EMULATED(P);                                                                      \
        size_t n;                                                                                     \
        const P##_impl *const *all = P##_impls(&n);                                                   \
        for (size_t i = 0; i < n && n_impls < sizeof impls / sizeof impls[0]; i++)                   \
            if (all[i]->cpu_supported())                                                              \
                impls[n_impls++] = all[i];                                                            \
    }                                                                                                 \
    __attribute__((unused)) static const char *impl_name(const P##_impl *impl)                        \
    {                                                                                                 \
        return impl ? impl->name : "NULL (library's choice)";                                         \
    }

#endif /* KC_FUZZ_UTIL_H */
