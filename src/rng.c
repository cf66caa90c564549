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

bl_status bl_rng_normal_f64(bl_rng *rng, double *out, size_t n, bl_error *err) {
    BL__CHECK(check_fill(err, rng, out, n));
    for (size_t i = 0; i < n; i++) out[i] = normal(rng);
    return BL_OK;
}

bl_status bl_rng_normal_f32(bl_rng *rng, float *out, size_t n, bl_error *err) {
    BL__CHECK(check_fill(err, rng, out, n));
    for (size_t i = 0; i < n; i++) out[i] = (float)normal(rng);
    return BL_OK;
}
