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
   fill is theirs); the last few values, and numpy's cached second one, go through normal(). */
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

/* One pass of a attempts (a <= PASS): the accepted ones' pairs (f*x2, f*x1) into g, in
   order; returns how many pairs. */
static int normal_pass(bl_rng *rng, double *g, int a) {
    uint32_t w[4 * PASS];
    double x1[PASS], x2[PASS], r2[PASS];
    take_words(rng, w, 4 * a);
    int acc = 0;
    for (int k = 0; k < a; k++) {
        /* uniform(): (hi * 2^26 + lo) / 2^53, both exact; then 2u - 1 and r2 as normal() */
        double u1 = ((w[4 * k] >> 5) * 67108864.0 + (w[4 * k + 1] >> 6)) / 9007199254740992.0;
        double u2 = ((w[4 * k + 2] >> 5) * 67108864.0 + (w[4 * k + 3] >> 6)) / 9007199254740992.0;
        double v1 = 2.0 * u1 - 1.0, v2 = 2.0 * u2 - 1.0, s = v1 * v1 + v2 * v2;
        x1[acc] = v1;
        x2[acc] = v2;
        r2[acc] = s;
        acc += !(s >= 1.0 || s == 0.0);   /* a rejected attempt is overwritten by the next */
    }
    for (int k = 0; k < acc; k++) {
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
