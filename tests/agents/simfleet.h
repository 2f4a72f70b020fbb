/*
 * simfleet.h: what every WebAssembly test agent here shares (freestanding C, no libc).
 *
 * The ABI (see README.md): the module exports `memory`, `simfleet_buffer`, `simfleet_init`,
 * `simfleet_reset` and `simfleet_act`, and imports at most `simfleet.random_u64` and
 * `simfleet.random_fill`.
 *
 * This header gives:
 *   - SF_EXPORT / SF_IMPORT and the stream's imports; sf_next, the next word, drawn from a
 *     buffer that `random_fill` refills 32 words at a time (one call into the host per 32
 *     draws instead of one per draw);
 *   - the static input buffer and the exported `simfleet_buffer` that returns it;
 *   - a bounds-checked MessagePack reader (sf_reader) and a writer (sf_writer);
 *   - the random primitives of shared/wire/src/seeding.rs (sf_unit, sf_index,
 *     sf_weighted_nonnegative), bit for bit.
 *
 * Each agent is one translation unit that includes this header once. Compile with
 * -ffp-contract=off (build.sh does) so that no multiply-add is fused.
 */
#ifndef SIMFLEET_H
#define SIMFLEET_H

#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------- exports and imports */

/* Exports a function under `name` (and keeps it). */
#define SF_EXPORT(name) __attribute__((export_name(name)))
/* Declares a function imported as `module`.`name`. */
#define SF_IMPORT(module, name) __attribute__((import_module(module), import_name(name)))

/* The next 64-bit word of the seat's own ChaCha stream. Only referenced functions become
 * imports: an agent that never calls it imports nothing. */
SF_IMPORT("simfleet", "random_u64") long long sf_random_u64(void);
/* The stream's next `count` words, little-endian, at `words`. */
SF_IMPORT("simfleet", "random_fill") void sf_random_fill(uint64_t *words, int count);

/* Draws not yet used, refilled when empty. The host puts the module's memory back before
 * every episode, where the stream starts again: the buffer is empty then too. */
#define SF_DRAWS 32
static uint64_t sf_draws[SF_DRAWS];
static uint32_t sf_drawn = SF_DRAWS;

/* The next word of the stream, as sf_random_u64 gives it, buffered. */
static inline uint64_t sf_next(void) {
    if (sf_drawn == SF_DRAWS) {
        sf_random_fill(sf_draws, SF_DRAWS);
        sf_drawn = 0;
    }
    return sf_draws[sf_drawn++];
}

/* ---------------------------------------------------------------- memory helpers */

/* The compiler may emit calls to these for struct copies and zeroing; there is no libc.
 * (-fno-builtin keeps the loops below from being turned back into calls.) Unused ones are
 * dropped by the linker. */
void *memset(void *dst, int c, size_t n) {
    unsigned char *d = (unsigned char *)dst;
    while (n--) *d++ = (unsigned char)c;
    return dst;
}

void *memcpy(void *restrict dst, const void *restrict src, size_t n) {
    unsigned char *d = (unsigned char *)dst;
    const unsigned char *s = (const unsigned char *)src;
    while (n--) *d++ = *s++;
    return dst;
}

void *memmove(void *dst, const void *src, size_t n) {
    unsigned char *d = (unsigned char *)dst;
    const unsigned char *s = (const unsigned char *)src;
    if (d < s) {
        while (n--) *d++ = *s++;
    } else {
        while (n--) d[n] = s[n];
    }
    return dst;
}

/* ---------------------------------------------------------------- the input buffer */

#ifndef SF_INPUT_CAP
#define SF_INPUT_CAP 16384u
#endif

/* Where the host writes the next input (the init map or an observation). */
static unsigned char sf_input[SF_INPUT_CAP] __attribute__((aligned(16)));

/* The address of at least `len` writable bytes, or 0 when `len` does not fit. */
SF_EXPORT("simfleet_buffer") int simfleet_buffer(int len) {
    if (len < 0 || (uint32_t)len > SF_INPUT_CAP) return 0;
    return (int)(uintptr_t)sf_input;
}

/* ---------------------------------------------------------------- MessagePack reader */

/* A reader over (p, len). Every read checks the bounds; a failed read sets `err`, which
 * stays set (later reads fail too), and returns 0. `pos <= len` always holds. */
typedef struct {
    const uint8_t *p;
    uint32_t len;
    uint32_t pos;
    int err;
} sf_reader;

/* A reader over the `len` input bytes the host wrote into sf_input (err when len does not
 * fit the buffer). */
static inline sf_reader sf_input_reader(int len) {
    sf_reader r = {sf_input, 0, 0, 0};
    if (len < 0 || (uint32_t)len > SF_INPUT_CAP) {
        r.err = 1;
    } else {
        r.len = (uint32_t)len;
    }
    return r;
}

static inline sf_reader sf_reader_over(const void *p, uint32_t len) {
    sf_reader r = {(const uint8_t *)p, len, 0, 0};
    return r;
}

static inline int sf_fail(sf_reader *r) {
    r->err = 1;
    return 0;
}

/* Whether `n` more bytes can be read. */
static inline int sf_need(sf_reader *r, uint64_t n) {
    if (r->err) return 0;
    if (n > (uint64_t)(r->len - r->pos)) return sf_fail(r);
    return 1;
}

/* The next byte without consuming it (call sf_need first). */
static inline uint8_t sf_peek(const sf_reader *r) {
    return r->p[r->pos];
}

/* A big-endian unsigned integer of `k` bytes (1, 2, 4 or 8); 0 and err when short. */
static inline uint64_t sf_be(sf_reader *r, uint32_t k) {
    uint64_t v = 0;
    if (!sf_need(r, k)) return 0;
    for (uint32_t i = 0; i < k; i++) v = (v << 8) | r->p[r->pos + i];
    r->pos += k;
    return v;
}

/* Advances past `n` bytes. */
static inline int sf_advance(sf_reader *r, uint64_t n) {
    if (!sf_need(r, n)) return 0;
    r->pos += (uint32_t)n;
    return 1;
}

/* A map header (fixmap, map16, map32): the number of key/value pairs. */
static inline int sf_read_map(sf_reader *r, uint32_t *n) {
    if (!sf_need(r, 1)) return 0;
    uint8_t b = sf_peek(r);
    if (b >= 0x80 && b <= 0x8f) {
        r->pos += 1;
        *n = b & 0x0fu;
        return 1;
    }
    if (b == 0xde || b == 0xdf) {
        r->pos += 1;
        uint64_t v = sf_be(r, b == 0xde ? 2 : 4);
        if (r->err) return 0;
        *n = (uint32_t)v;
        return 1;
    }
    return sf_fail(r);
}

/* An array header (fixarray, array16, array32): the number of elements. */
static inline int sf_read_array(sf_reader *r, uint32_t *n) {
    if (!sf_need(r, 1)) return 0;
    uint8_t b = sf_peek(r);
    if (b >= 0x90 && b <= 0x9f) {
        r->pos += 1;
        *n = b & 0x0fu;
        return 1;
    }
    if (b == 0xdc || b == 0xdd) {
        r->pos += 1;
        uint64_t v = sf_be(r, b == 0xdc ? 2 : 4);
        if (r->err) return 0;
        *n = (uint32_t)v;
        return 1;
    }
    return sf_fail(r);
}

/* A non-negative integer: positive fixint, uint8/16/32/64 (and int8..int64 holding a
 * non-negative value). */
static inline int sf_read_uint(sf_reader *r, uint64_t *v) {
    if (!sf_need(r, 1)) return 0;
    uint8_t b = sf_peek(r);
    if (b <= 0x7f) {
        r->pos += 1;
        *v = b;
        return 1;
    }
    uint32_t k;
    int is_signed = 0;
    switch (b) {
    case 0xcc: k = 1; break;
    case 0xcd: k = 2; break;
    case 0xce: k = 4; break;
    case 0xcf: k = 8; break;
    case 0xd0: k = 1; is_signed = 1; break;
    case 0xd1: k = 2; is_signed = 1; break;
    case 0xd2: k = 4; is_signed = 1; break;
    case 0xd3: k = 8; is_signed = 1; break;
    default: return sf_fail(r);
    }
    if (!sf_need(r, 1 + (uint64_t)k)) return 0;
    r->pos += 1;
    uint64_t x = sf_be(r, k);
    if (is_signed && (x >> (8 * k - 1)) != 0) return sf_fail(r); /* negative */
    *v = x;
    return 1;
}

/* A string (fixstr, str8, str16, str32): a pointer to its bytes (not NUL-terminated, inside
 * the buffer) and their count. */
static inline int sf_read_str(sf_reader *r, const char **s, uint32_t *n) {
    if (!sf_need(r, 1)) return 0;
    uint8_t b = sf_peek(r);
    uint64_t len;
    if (b >= 0xa0 && b <= 0xbf) {
        r->pos += 1;
        len = b & 0x1fu;
    } else if (b == 0xd9 || b == 0xda || b == 0xdb) {
        r->pos += 1;
        len = sf_be(r, b == 0xd9 ? 1 : b == 0xda ? 2 : 4);
        if (r->err) return 0;
    } else {
        return sf_fail(r);
    }
    if (!sf_need(r, len)) return 0;
    *s = (const char *)(r->p + r->pos);
    *n = (uint32_t)len;
    r->pos += (uint32_t)len;
    return 1;
}

/* Skips one value of any type (nested maps and arrays included), without recursion: a
 * count of values still to skip, which can never exceed the bytes left (each value takes at
 * least one byte). */
static inline int sf_skip(sf_reader *r) {
    uint64_t pending = 1;
    while (pending > 0) {
        if (!sf_need(r, pending)) return 0;
        pending -= 1;
        uint8_t b = sf_peek(r);
        r->pos += 1;
        uint64_t extra = 0; /* bytes of payload after the header */
        uint64_t children = 0; /* values nested in this one */
        if (b <= 0x7f || b >= 0xe0) {
            /* positive / negative fixint */
        } else if (b <= 0x8f) {
            children = 2u * (uint64_t)(b & 0x0fu);
        } else if (b <= 0x9f) {
            children = b & 0x0fu;
        } else if (b <= 0xbf) {
            extra = b & 0x1fu;
        } else {
            switch (b) {
            case 0xc0: case 0xc2: case 0xc3: break;          /* nil, false, true */
            case 0xc4: case 0xd9: extra = sf_be(r, 1); break; /* bin8, str8 */
            case 0xc5: case 0xda: extra = sf_be(r, 2); break; /* bin16, str16 */
            case 0xc6: case 0xdb: extra = sf_be(r, 4); break; /* bin32, str32 */
            case 0xc7: extra = sf_be(r, 1) + 1; break;        /* ext8: len, type, data */
            case 0xc8: extra = sf_be(r, 2) + 1; break;        /* ext16 */
            case 0xc9: extra = sf_be(r, 4) + 1; break;        /* ext32 */
            case 0xca: extra = 4; break;                      /* float32 */
            case 0xcb: extra = 8; break;                      /* float64 */
            case 0xcc: case 0xd0: extra = 1; break;
            case 0xcd: case 0xd1: extra = 2; break;
            case 0xce: case 0xd2: extra = 4; break;
            case 0xcf: case 0xd3: extra = 8; break;
            case 0xd4: extra = 2; break;                      /* fixext1: type + 1 */
            case 0xd5: extra = 3; break;
            case 0xd6: extra = 5; break;
            case 0xd7: extra = 9; break;
            case 0xd8: extra = 17; break;
            case 0xdc: children = sf_be(r, 2); break;         /* array16 */
            case 0xdd: children = sf_be(r, 4); break;         /* array32 */
            case 0xde: children = 2u * sf_be(r, 2); break;    /* map16 */
            case 0xdf: children = 2u * sf_be(r, 4); break;    /* map32 */
            default: return sf_fail(r);                       /* 0xc1: never used */
            }
            if (r->err) return 0;
        }
        if (!sf_advance(r, extra)) return 0;
        pending += children; /* at most 2 * 2^32 more: no overflow */
    }
    return 1;
}

/* Whether the string (s, n) is the NUL-terminated `lit`. */
static inline int sf_key_eq(const char *s, uint32_t n, const char *lit) {
    uint32_t i = 0;
    for (; i < n; i++) {
        if (lit[i] == 0 || lit[i] != s[i]) return 0;
    }
    return lit[i] == 0;
}

/* An array of small uints into out[0..cap): fails when it has more than `cap` elements or an
 * element above `max`. */
static inline int sf_read_u8_array(sf_reader *r, uint8_t *out, uint32_t cap, uint32_t max, uint32_t *count) {
    uint32_t n;
    if (!sf_read_array(r, &n)) return 0;
    if (n > cap) return sf_fail(r);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t v;
        if (!sf_read_uint(r, &v)) return 0;
        if (v > max) return sf_fail(r);
        out[i] = (uint8_t)v;
    }
    *count = n;
    return 1;
}

/* ---------------------------------------------------------------- MessagePack writer */

#ifndef SF_OUTPUT_CAP
#define SF_OUTPUT_CAP 1024u
#endif

static unsigned char sf_output[SF_OUTPUT_CAP] __attribute__((aligned(16)));

/* A writer into sf_output; a write that does not fit sets `err`. */
typedef struct {
    uint8_t *p;
    uint32_t cap;
    uint32_t pos;
    int err;
} sf_writer;

static inline sf_writer sf_output_writer(void) {
    sf_writer w = {sf_output, SF_OUTPUT_CAP, 0, 0};
    return w;
}

static inline int sf_w_room(sf_writer *w, uint32_t n) {
    if (w->err || n > w->cap - w->pos) {
        w->err = 1;
        return 0;
    }
    return 1;
}

static inline void sf_w_byte(sf_writer *w, uint8_t b) {
    if (sf_w_room(w, 1)) w->p[w->pos++] = b;
}

/* A header byte then a `k`-byte big-endian value. */
static inline void sf_w_be(sf_writer *w, uint8_t head, uint64_t v, uint32_t k) {
    if (!sf_w_room(w, 1 + k)) return;
    w->p[w->pos++] = head;
    for (uint32_t i = k; i > 0; i--) w->p[w->pos++] = (uint8_t)(v >> (8 * (i - 1)));
}

/* A non-negative integer in its shortest form. */
static inline void sf_w_uint(sf_writer *w, uint64_t v) {
    if (v <= 0x7f) sf_w_byte(w, (uint8_t)v);
    else if (v <= 0xff) sf_w_be(w, 0xcc, v, 1);
    else if (v <= 0xffff) sf_w_be(w, 0xcd, v, 2);
    else if (v <= 0xffffffffu) sf_w_be(w, 0xce, v, 4);
    else sf_w_be(w, 0xcf, v, 8);
}

/* An array header (fixarray, array16, array32). */
static inline void sf_w_array(sf_writer *w, uint32_t n) {
    if (n <= 15) sf_w_byte(w, (uint8_t)(0x90 | n));
    else if (n <= 0xffff) sf_w_be(w, 0xdc, n, 2);
    else sf_w_be(w, 0xdd, n, 4);
}

/* A map header (fixmap, map16, map32). */
static inline void sf_w_map(sf_writer *w, uint32_t n) {
    if (n <= 15) sf_w_byte(w, (uint8_t)(0x80 | n));
    else if (n <= 0xffff) sf_w_be(w, 0xde, n, 2);
    else sf_w_be(w, 0xdf, n, 4);
}

/* A string of `n` bytes. */
static inline void sf_w_strn(sf_writer *w, const char *s, uint32_t n) {
    if (n <= 31) sf_w_byte(w, (uint8_t)(0xa0 | n));
    else if (n <= 0xff) sf_w_be(w, 0xd9, n, 1);
    else if (n <= 0xffff) sf_w_be(w, 0xda, n, 2);
    else sf_w_be(w, 0xdb, n, 4);
    if (!sf_w_room(w, n)) return;
    for (uint32_t i = 0; i < n; i++) w->p[w->pos++] = (uint8_t)s[i];
}

/* A NUL-terminated string. */
static inline void sf_w_str(sf_writer *w, const char *s) {
    uint32_t n = 0;
    while (s[n]) n++;
    sf_w_strn(w, s, n);
}

/* What simfleet_act returns: (ptr << 32) | len of the written answer, or 0 (an empty answer,
 * which the host refuses) when the writer overflowed. */
static inline long long sf_answer(const sf_writer *w) {
    if (w->err) return 0;
    uint64_t ptr = (uint32_t)(uintptr_t)w->p;
    return (long long)((ptr << 32) | (uint64_t)w->pos);
}

/* ---------------------------------------------------------------- random primitives */
/* Exactly shared/wire/src/seeding.rs: the same word per draw, the same IEEE operations. */

/* unit(x) = (x >> 11) * 2^-53. (x >> 11) < 2^53 converts exactly; the product by a power of
 * two is exact. */
static inline double sf_unit_of(uint64_t x) {
    return (double)(x >> 11) * (1.0 / 9007199254740992.0);
}

/* unit() = unit(next_u64()), in [0, 1). */
static inline double sf_unit(void) {
    return sf_unit_of(sf_next());
}

/* index(n) = min(floor(unit() * n), n - 1), with index(2) = the word's top bit. n >= 1. */
static inline uint32_t sf_index(uint32_t n) {
    uint64_t x = sf_next();
    if (n == 2) return (uint32_t)(x >> 63);
    double v = sf_unit_of(x) * (double)n;
    int64_t i = (int64_t)v; /* v in [0, n]: truncation is the floor */
    uint64_t last = (uint64_t)n - 1;
    return (uint32_t)((uint64_t)i < last ? (uint64_t)i : last);
}

/* chance(p) = unit() < p. */
static inline int sf_chance(double p) {
    return sf_unit() < p;
}

/* weighted_nonnegative(w): prefix sums acc = w0, w0 + w1, ... (left to right, from 0.0);
 * x = unit() * total; the number of prefix sums <= x, at most n - 1. The prefix sums are
 * recomputed in a second pass, in the same order, so they are the same doubles. n >= 1. */
static inline uint32_t sf_weighted_nonnegative(const double *w, uint32_t n) {
    double acc = 0.0;
    for (uint32_t i = 0; i < n; i++) acc += w[i];
    double x = sf_unit() * acc;
    uint32_t below = 0;
    double p = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        p += w[i];
        below += (p <= x) ? 1u : 0u;
    }
    return below < n - 1 ? below : n - 1;
}

#endif /* SIMFLEET_H */
