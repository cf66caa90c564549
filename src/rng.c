/* rng.c - numpy-compatible random numbers: MT19937 with numpy's legacy seeding, its 53-bit
   uniform doubles and its polar Box-Muller normals (second value cached across calls). */
#include <math.h>
#include "bl_internal.h"

#define MT_N 624
#define MT_M 397

/* np.random.seed(int) -> init_genrand (Knuth's multiplier), not init_by_array. */
void bl_rng_seed(bl_rng *rng, uint32_t seed) {
    rng->mt[0] = seed;
    for (int i = 1; i < MT_N; i++)
        rng->mt[i] = 1812433253u * (rng->mt[i - 1] ^ (rng->mt[i - 1] >> 30)) + (uint32_t)i;
    rng->pos = MT_N;
    rng->has_gauss = 0;
    rng->gauss = 0.0;
}

/* The twist in three runs, so that no index needs a modulo (two divisions per word made the
   refill most of a normal's cost); the same words as the one-loop form. */
#define MT_TWIST(a, b, c) ((c) ^ ((((a) & 0x80000000u) | ((b) & 0x7fffffffu)) >> 1) ^ \
                           (((b) & 1u) ? 0x9908b0dfu : 0u))
static void mt_refill(bl_rng *rng) {
    uint32_t *mt = rng->mt;
    int i = 0;
    for (; i < MT_N - MT_M; i++) mt[i] = MT_TWIST(mt[i], mt[i + 1], mt[i + MT_M]);
    for (; i < MT_N - 1; i++) mt[i] = MT_TWIST(mt[i], mt[i + 1], mt[i + MT_M - MT_N]);
    mt[MT_N - 1] = MT_TWIST(mt[MT_N - 1], mt[0], mt[MT_M - 1]);
    rng->pos = 0;
}

/* A pos outside [0, MT_N) (spent, or a state not made by bl_rng_seed) refills first: never an
   index outside mt[]. The fill functions refuse a pos outside [0, MT_N] instead. */
static inline uint32_t next_u32(bl_rng *rng) {
    if ((unsigned)rng->pos >= MT_N) mt_refill(rng);
    uint32_t y = rng->mt[rng->pos++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

/* 27 + 26 bits from two draws, as numpy's random_sample. */
static inline double uniform(bl_rng *rng) {
    uint32_t a = next_u32(rng) >> 5, b = next_u32(rng) >> 6;
    return (a * 67108864.0 + b) / 9007199254740992.0;
}

/* The public draws; the fills below use the inline forms (a call per word was a third of a
   normal's instructions). */
uint32_t bl_rng_next_u32(bl_rng *rng) { return next_u32(rng); }
double bl_rng_uniform(bl_rng *rng) { return uniform(rng); }

static inline double normal(bl_rng *rng) {
    if (rng->has_gauss) {
        rng->has_gauss = 0;
        double g = rng->gauss;
        rng->gauss = 0.0;
        return g;
    }
    double x1, x2, r2;
    do {
        x1 = 2.0 * uniform(rng) - 1.0;
        x2 = 2.0 * uniform(rng) - 1.0;
        r2 = x1 * x1 + x2 * x2;
    } while (r2 >= 1.0 || r2 == 0.0);
    double f = sqrt(-2.0 * log(r2) / r2);
    rng->gauss = f * x1;
    rng->has_gauss = 1;
    return f * x2;
}

double bl_rng_normal(bl_rng *rng) { return normal(rng); }

static bl_status check_fill(bl_error *err, const bl_rng *rng, const void *out, size_t n) {
    BL__CHECK(bl__check_ptr(err, "rng", rng));
    if (rng->pos < 0 || rng->pos > MT_N)
        return bl__fail(err, BL_ERR_VALUE,
                        "rng->pos (%d) must be between 0 and %d: seed the state with bl_rng_seed",
                        rng->pos, MT_N);
    if (n > 0) BL__CHECK(bl__check_ptr(err, "out", out));
    if (n > BL_MAX_ELEMS)
        return bl__fail(err, BL_ERR_TOO_LARGE, "n (%zu) exceeds %u values", n,
                        (unsigned)BL_MAX_ELEMS);
    bl__ok(err);
    return BL_OK;
}

bl_status bl_rng_uniform_f64(bl_rng *rng, double *out, size_t n, bl_error *err) {
    BL__CHECK(check_fill(err, rng, out, n));
    for (size_t i = 0; i < n; i++) out[i] = uniform(rng);
    return BL_OK;
}

/* ---- the fills' batched normals: the same words, attempts and arithmetic as normal(), in
   passes. Every polar attempt reads exactly four words, so a pass tempers 4*A words at once
   (SIMD where built with simd128), tests all A attempts, then takes the log of the accepted
   ones: no branch per word and no unpredictable branch per attempt. A <= the pairs still
   wanted, so every attempt of a pass is one the single draws would make too (the state after a
   fill is theirs); the last few values, and numpy's cached second one, go through normal().
   With simd128 the attempts, the log (log2_main) and the pairs go two lanes at a time. */
#define PASS 256            /* attempts per pass (1024 words) */
#define PASS_MIN 8          /* fewer pairs wanted: single draws */

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
static inline v128_t temper4(v128_t y) {
    y = wasm_v128_xor(y, wasm_u32x4_shr(y, 11));
    y = wasm_v128_xor(y, wasm_v128_and(wasm_i32x4_shl(y, 7), wasm_i32x4_splat((int)0x9d2c5680u)));
    y = wasm_v128_xor(y, wasm_v128_and(wasm_i32x4_shl(y, 15), wasm_i32x4_splat((int)0xefc60000u)));
    return wasm_v128_xor(y, wasm_u32x4_shr(y, 18));
}
/* mt[i..i+3] = MT_TWIST(mt[i..], mt[i+1..], mt[i+j..]): every word read is one the scalar
   loop reads at that point (j >= 4 or j <= -4 words away from what this writes). */
static inline void twist4(uint32_t *mt, int i, int j) {
    v128_t a = wasm_v128_load(mt + i), b = wasm_v128_load(mt + i + 1), c = wasm_v128_load(mt + i + j);
    v128_t y = wasm_v128_or(wasm_v128_and(a, wasm_i32x4_splat((int)0x80000000u)),
                            wasm_v128_and(b, wasm_i32x4_splat(0x7fffffff)));
    v128_t odd = wasm_i32x4_neg(wasm_v128_and(b, wasm_i32x4_splat(1)));
    y = wasm_v128_xor(wasm_v128_xor(c, wasm_u32x4_shr(y, 1)),
                      wasm_v128_and(odd, wasm_i32x4_splat((int)0x9908b0dfu)));
    wasm_v128_store(mt + i, y);
}
#endif

static void mt_refill_fast(bl_rng *rng) {
#if defined(__wasm_simd128__)
    uint32_t *mt = rng->mt;
    int i = 0;
    for (; i + 4 <= MT_N - MT_M; i += 4) twist4(mt, i, MT_M);
    for (; i < MT_N - MT_M; i++) mt[i] = MT_TWIST(mt[i], mt[i + 1], mt[i + MT_M]);
    for (; i + 4 <= MT_N - 1; i += 4) twist4(mt, i, MT_M - MT_N);
    for (; i < MT_N - 1; i++) mt[i] = MT_TWIST(mt[i], mt[i + 1], mt[i + MT_M - MT_N]);
    mt[MT_N - 1] = MT_TWIST(mt[MT_N - 1], mt[0], mt[MT_M - 1]);
    rng->pos = 0;
#else
    mt_refill(rng);
#endif
}

/* The next n tempered words into w, as n next_u32 calls would give them. */
static void take_words(bl_rng *rng, uint32_t *w, int n) {
    while (n > 0) {
        if (rng->pos >= MT_N) mt_refill_fast(rng);
        int m = MT_N - rng->pos < n ? MT_N - rng->pos : n, k = 0;
        const uint32_t *src = rng->mt + rng->pos;
#if defined(__wasm_simd128__)
        for (; k + 4 <= m; k += 4) wasm_v128_store(w + k, temper4(wasm_v128_load(src + k)));
#endif
        for (; k < m; k++) {
            uint32_t y = src[k];
            y ^= y >> 11;
            y ^= (y << 7) & 0x9d2c5680u;
            y ^= (y << 15) & 0xefc60000u;
            y ^= y >> 18;
            w[k] = y;
        }
        rng->pos += m;
        w += m;
        n -= m;
    }
}

#if defined(__wasm_simd128__)
/* log() two lanes at a time, bit for bit the log() this module links: emscripten's musl at -O3
   builds the Arm optimized-routines log (musl src/math/log.c, without FMA), whose table is libc's
   own __log_data (hidden, but visible to a static link), so the numbers cannot drift from it.
   Only the main path is here; lanes on log.c's other paths (x within 1/16 below 1, or not a
   normal number) take the scalar call. With the attempts two at a time too, a fill of 4.7M
   normals takes 0.83x the time (tools/bench/REPORT-page.md). Kept in a separate loop from the
   attempts: one loop for both, or the log in a loop of its own, measured slower (1.05-1.1x). */
extern const struct {
    double ln2hi, ln2lo, poly[5], poly1[11];
    struct { double invc, logc; } tab[128];
    struct { double chi, clo; } tab2[128];
} __log_data;

static inline v128_t log2_main(v128_t x) {
#define LOGD __log_data
#define SPL wasm_f64x2_splat
    v128_t tmp = wasm_i64x2_sub(x, wasm_i64x2_splat(0x3fe6000000000000LL));
    v128_t i = wasm_v128_and(wasm_u64x2_shr(tmp, 45), wasm_i64x2_splat(127));
    v128_t k = wasm_i64x2_shr(tmp, 52);                                /* arithmetic */
    v128_t z = wasm_i64x2_sub(x, wasm_v128_and(tmp, wasm_i64x2_splat((int64_t)0xfffULL << 52)));
    int i0 = (int)wasm_i64x2_extract_lane(i, 0), i1 = (int)wasm_i64x2_extract_lane(i, 1);
    v128_t t0 = wasm_v128_load(&LOGD.tab[i0]), t1 = wasm_v128_load(&LOGD.tab[i1]);
    v128_t c0 = wasm_v128_load(&LOGD.tab2[i0]), c1 = wasm_v128_load(&LOGD.tab2[i1]);
    v128_t invc = wasm_i64x2_shuffle(t0, t1, 0, 2), logc = wasm_i64x2_shuffle(t0, t1, 1, 3);
    v128_t chi = wasm_i64x2_shuffle(c0, c1, 0, 2), clo = wasm_i64x2_shuffle(c0, c1, 1, 3);
    /* the operations of log.c in its order: r = (z - chi - clo) * invc, ... */
    v128_t r = wasm_f64x2_mul(wasm_f64x2_sub(wasm_f64x2_sub(z, chi), clo), invc);
    v128_t kd = wasm_f64x2_convert_low_i32x4(wasm_i32x4_shuffle(k, k, 0, 2, 0, 2));
    v128_t w = wasm_f64x2_add(wasm_f64x2_mul(kd, SPL(LOGD.ln2hi)), logc);
    v128_t hi = wasm_f64x2_add(w, r);
    v128_t lo = wasm_f64x2_add(wasm_f64x2_add(wasm_f64x2_sub(w, hi), r),
                               wasm_f64x2_mul(kd, SPL(LOGD.ln2lo)));
    v128_t r2 = wasm_f64x2_mul(r, r);
    v128_t p = wasm_f64x2_add(
        wasm_f64x2_add(SPL(LOGD.poly[1]), wasm_f64x2_mul(r, SPL(LOGD.poly[2]))),
        wasm_f64x2_mul(r2, wasm_f64x2_add(SPL(LOGD.poly[3]), wasm_f64x2_mul(r, SPL(LOGD.poly[4])))));
    v128_t y = wasm_f64x2_add(wasm_f64x2_add(lo, wasm_f64x2_mul(r2, SPL(LOGD.poly[0]))),
                              wasm_f64x2_mul(wasm_f64x2_mul(r, r2), p));
    return wasm_f64x2_add(y, hi);
#undef SPL
#undef LOGD
}
#endif

/* One pass of a attempts (a <= PASS): the accepted ones' pairs (f*x2, f*x1) into g, in
   order; returns how many pairs. */
static int normal_pass(bl_rng *rng, double *g, int a) {
    uint32_t w[4 * PASS];
    double x1[PASS], x2[PASS], r2[PASS];
    take_words(rng, w, 4 * a);
    int acc = 0, k = 0;
#if defined(__wasm_simd128__)
    /* two attempts at a time: the same exact uniforms (the division by 2^53 is a product), and
       s rounded as normal()'s */
    const v128_t two26 = wasm_f64x2_splat(67108864.0), inv53 = wasm_f64x2_splat(0x1p-53);
    const v128_t two = wasm_f64x2_splat(2.0), one = wasm_f64x2_splat(1.0);
    for (; k + 2 <= a; k += 2) {
        v128_t q0 = wasm_v128_load(w + 4 * k), q1 = wasm_v128_load(w + 4 * k + 4);
        v128_t hi = wasm_u32x4_shr(wasm_i32x4_shuffle(q0, q1, 0, 4, 2, 6), 5);
        v128_t lo = wasm_u32x4_shr(wasm_i32x4_shuffle(q0, q1, 1, 5, 3, 7), 6);
        v128_t hi2 = wasm_i32x4_shuffle(hi, hi, 2, 3, 2, 3), lo2 = wasm_i32x4_shuffle(lo, lo, 2, 3, 2, 3);
        v128_t u1 = wasm_f64x2_mul(wasm_f64x2_add(wasm_f64x2_mul(wasm_f64x2_convert_low_u32x4(hi), two26),
                                                  wasm_f64x2_convert_low_u32x4(lo)), inv53);
        v128_t u2 = wasm_f64x2_mul(wasm_f64x2_add(wasm_f64x2_mul(wasm_f64x2_convert_low_u32x4(hi2), two26),
                                                  wasm_f64x2_convert_low_u32x4(lo2)), inv53);
        v128_t v1 = wasm_f64x2_sub(wasm_f64x2_mul(two, u1), one);
        v128_t v2 = wasm_f64x2_sub(wasm_f64x2_mul(two, u2), one);
        v128_t s = wasm_f64x2_add(wasm_f64x2_mul(v1, v1), wasm_f64x2_mul(v2, v2));
        v128_t ok = wasm_v128_and(wasm_f64x2_lt(s, one), wasm_f64x2_ne(s, wasm_f64x2_splat(0.0)));
        x1[acc] = wasm_f64x2_extract_lane(v1, 0);
        x2[acc] = wasm_f64x2_extract_lane(v2, 0);
        r2[acc] = wasm_f64x2_extract_lane(s, 0);
        acc -= (int)wasm_i64x2_extract_lane(ok, 0);   /* all ones: -1 */
        x1[acc] = wasm_f64x2_extract_lane(v1, 1);
        x2[acc] = wasm_f64x2_extract_lane(v2, 1);
        r2[acc] = wasm_f64x2_extract_lane(s, 1);
        acc -= (int)wasm_i64x2_extract_lane(ok, 1);
    }
#endif
    for (; k < a; k++) {
        /* uniform(): (hi * 2^26 + lo) / 2^53, both exact; then 2u - 1 and r2 as normal() */
        double u1 = ((w[4 * k] >> 5) * 67108864.0 + (w[4 * k + 1] >> 6)) / 9007199254740992.0;
        double u2 = ((w[4 * k + 2] >> 5) * 67108864.0 + (w[4 * k + 3] >> 6)) / 9007199254740992.0;
        double v1 = 2.0 * u1 - 1.0, v2 = 2.0 * u2 - 1.0, s = v1 * v1 + v2 * v2;
        x1[acc] = v1;
        x2[acc] = v2;
        r2[acc] = s;
        acc += !(s >= 1.0 || s == 0.0);   /* a rejected attempt is overwritten by the next */
    }
    k = 0;
#if defined(__wasm_simd128__)
    for (; k + 2 <= acc; k += 2) {
        v128_t s = wasm_v128_load(r2 + k);
        v128_t l = log2_main(s);
        /* off log.c's main path (s < 1 here): not normal, or within 1/16 below 1 */
        v128_t off = wasm_v128_or(wasm_f64x2_lt(s, wasm_f64x2_splat(0x1p-1022)),
                                  wasm_f64x2_ge(s, wasm_f64x2_splat(1.0 - 0x1p-4)));
        if (wasm_v128_any_true(off)) {
            double l2[2];
            wasm_v128_store(l2, l);
            if (wasm_i64x2_extract_lane(off, 0)) l2[0] = log(r2[k]);
            if (wasm_i64x2_extract_lane(off, 1)) l2[1] = log(r2[k + 1]);
            l = wasm_v128_load(l2);
        }
        v128_t f = wasm_f64x2_sqrt(wasm_f64x2_div(wasm_f64x2_mul(wasm_f64x2_splat(-2.0), l), s));
        v128_t a2 = wasm_f64x2_mul(f, wasm_v128_load(x2 + k)), a1 = wasm_f64x2_mul(f, wasm_v128_load(x1 + k));
        wasm_v128_store(g + 2 * k, wasm_i64x2_shuffle(a2, a1, 0, 2));
        wasm_v128_store(g + 2 * k + 2, wasm_i64x2_shuffle(a2, a1, 1, 3));
    }
#endif
    for (; k < acc; k++) {
        double f = sqrt(-2.0 * log(r2[k]) / r2[k]);
        g[2 * k] = f * x2[k];
        g[2 * k + 1] = f * x1[k];
    }
    return acc;
}

/* out[0..n) as n normal() calls: out[i] = (T)value, T float or double. */
#define NORMAL_FILL(T)                                                                    \
    size_t i = 0;                                                                         \
    if (n > 0 && rng->has_gauss) out[i++] = (T)normal(rng);                               \
    double g[2 * PASS];                                                                   \
    while ((n - i) / 2 >= PASS_MIN) {                                                     \
        size_t want = (n - i) / 2;                                                        \
        int got = normal_pass(rng, g, want < PASS ? (int)want : PASS);                    \
        for (int k = 0; k < 2 * got; k++) out[i + k] = (T)g[k];                           \
        i += 2 * (size_t)got;                                                             \
        if (got) rng->gauss = 0.0;   /* as normal() leaves it after a pair's second value */ \
    }                                                                                     \
    for (; i < n; i++) out[i] = (T)normal(rng);

bl_status bl_rng_normal_f64(bl_rng *rng, double *out, size_t n, bl_error *err) {
    BL__CHECK(check_fill(err, rng, out, n));
    NORMAL_FILL(double)
    return BL_OK;
}

bl_status bl_rng_normal_f32(bl_rng *rng, float *out, size_t n, bl_error *err) {
    BL__CHECK(check_fill(err, rng, out, n));
    NORMAL_FILL(float)
    return BL_OK;
}
