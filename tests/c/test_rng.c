/* test_rng.c - numpy's legacy RandomState, reproduced bit for bit. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"

static void rng_matches_numpy_bit_for_bit(void) {
    cJSON *kase;
    int compared = 0;
    cJSON_ArrayForEach(kase, fx_cases("rng.json")) {
        cJSON *calls = fx_get(fx_get(kase, "expected"), "calls");
        if (!calls) continue;
        bl_rng rng;
        bl_rng_seed(&rng, (uint32_t)fx_num(fx_get(kase, "params"), "seed", -1));
        cJSON *call;
        cJSON_ArrayForEach(call, calls) {
            size_t n;
            double *want = fx_doubles(call, "values", &n);
            double *got = malloc(n * sizeof *got);
            const char *fn = fx_str(call, "fn");
            CHECK(n == (size_t)fx_int(call, "n", -1));
            if (strcmp(fn, "randn") == 0) CHECK_STATUS(bl_rng_normal_f64(&rng, got, n, NULL), BL_OK);
            else if (strcmp(fn, "rand") == 0) CHECK_STATUS(bl_rng_uniform_f64(&rng, got, n, NULL), BL_OK);
            else if (strcmp(fn, "u32") == 0) for (size_t i = 0; i < n; i++) got[i] = bl_rng_next_u32(&rng);
            else { fprintf(stderr, "  unknown fn %s\n", fn); CHECK(0); }
            size_t mismatches = 0;
            for (size_t i = 0; i < n; i++) mismatches += memcmp(&got[i], &want[i], sizeof(double)) != 0;
            if (mismatches) fprintf(stderr, "  %s %s(%zu): %zu values differ\n", fx_str(kase, "name"), fn, n, mismatches);
            CHECK(mismatches == 0);
            compared += (int)n;
            free(got);
            free(want);
        }
    }
    printf("     %d doubles compared bit for bit\n", compared);
    CHECK(compared > 1000);
}

static cJSON *classic_case(void) {
    cJSON *kase;
    cJSON_ArrayForEach(kase, fx_cases("rng.json"))
        if (strcmp(fx_str(kase, "name"), "classic_seed42") == 0) return kase;
    return NULL;
}

static void rng_classic_example_has_100_negative_hidden_values(void) {
    cJSON *kase = classic_case();
    CHECK(kase != NULL);
    if (!kase) return;
    bl_rng rng;
    bl_rng_seed(&rng, 42);
    float x[7 * 8], w1[8 * 32], b1[32], w2[32 * 8], b2[8], hidden[7 * 32];
    float *bufs[] = {x, w1, b1, w2, b2};
    const char *names[] = {"x", "w1", "b1", "w2", "b2"};
    size_t sizes[] = {56, 256, 32, 256, 8};
    for (int i = 0; i < 5; i++) {
        CHECK_STATUS(bl_rng_normal_f32(&rng, bufs[i], sizes[i], NULL), BL_OK);
        size_t n;
        float *want = fx_floats(fx_get(kase, "inputs"), names[i], &n);
        CHECK(n == sizes[i] && want && memcmp(want, bufs[i], n * sizeof(float)) == 0);
        free(want);
    }
    CHECK_STATUS(bl_linear_forward(hidden, x, w1, b1, 7, 8, 32, NULL), BL_OK);
    int negatives = 0;
    for (int i = 0; i < 7 * 32; i++) negatives += hidden[i] < 0.0f;
    printf("     hidden negatives: %d of 224\n", negatives);
    CHECK(negatives == fx_int(fx_get(kase, "expected"), "hidden_negatives", -1));
    CHECK(negatives == 100);
    fx_expect_close(kase, "hidden", hidden, 7 * 32);
}

static void rng_cache_survives_uniform_draws(void) {
    /* randn's cached second value is not cleared by rand(), as in numpy. */
    bl_rng a, b;
    bl_rng_seed(&a, 7);
    bl_rng_seed(&b, 7);
    double first = bl_rng_normal(&a), cached;
    (void)bl_rng_normal(&b);
    (void)bl_rng_uniform(&a);
    cached = bl_rng_normal(&a);
    CHECK(a.has_gauss == 0 && cached == bl_rng_normal(&b) && first != cached);
}

static void rng_rejects_null_buffers(void) {
    bl_rng rng;
    bl_error err;
    bl_rng_seed(&rng, 1);
    CHECK_STATUS(bl_rng_normal_f64(&rng, NULL, 3, &err), BL_ERR_NULL);
    CHECK(strstr(err.message, "out") != NULL);
    CHECK_STATUS(bl_rng_normal_f32(NULL, (float[1]){0}, 1, &err), BL_ERR_NULL);
    CHECK_STATUS(bl_rng_uniform_f64(&rng, NULL, 0, &err), BL_OK);
}

/* A bl_rng whose pos is outside [0, 624] (never seeded, or overwritten) is refused by the
   fill functions with a message; the single-value ones never index outside mt[]. The state
   is on the heap so that AddressSanitizer sees a read before it. */
static void rng_rejects_a_position_outside_its_state(void) {
    bl_rng *rng = malloc(sizeof *rng);
    double d[4];
    float f[4];
    bl_error err;
    int bad[] = {-1, -1000, -2147483647 - 1, 625, 2147483647};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        bl_rng_seed(rng, 3);
        rng->pos = bad[i];
        CHECK_STATUS(bl_rng_normal_f64(rng, d, 4, &err), BL_ERR_VALUE);
        CHECK(strstr(err.message, "pos") != NULL);
        CHECK_STATUS(bl_rng_uniform_f64(rng, d, 4, &err), BL_ERR_VALUE);
        CHECK_STATUS(bl_rng_normal_f32(rng, f, 4, &err), BL_ERR_VALUE);
        CHECK_STATUS(bl_rng_normal_f32(rng, f, 0, &err), BL_ERR_VALUE);
        CHECK(rng->pos == bad[i]);                    /* refused before drawing anything */
        (void)bl_rng_next_u32(rng);                   /* treated as spent: refills, in range */
        CHECK(rng->pos == 1);
        rng->pos = bad[i];
        CHECK(isfinite(bl_rng_normal(rng)) && isfinite(bl_rng_uniform(rng)));
        CHECK(rng->pos >= 0 && rng->pos <= 624);
    }
    bl_rng_seed(rng, 3);                              /* the two ends are valid states */
    CHECK(rng->pos == 624);
    CHECK_STATUS(bl_rng_normal_f64(rng, d, 4, &err), BL_OK);
    rng->pos = 0;
    CHECK_STATUS(bl_rng_uniform_f64(rng, d, 4, &err), BL_OK);
    free(rng);
}

/* The fills draw in batched passes (src/rng.c): the values and the state after them must be
   those of single draws, for sizes around the pass boundaries and at BERT widths' 2.4M. */
static void rng_fills_equal_single_draws_bit_for_bit(void) {
    static const size_t sizes[] = {1, 15, 16, 17, 511, 512, 513, 1001, 262144, 2359296, 3, 100003};
    const size_t nsizes = sizeof sizes / sizeof sizes[0];
    bl_rng *fill = malloc(sizeof *fill), *one = malloc(sizeof *one);
    float *f = malloc(2359296 * sizeof *f);
    double *d = malloc(2359296 * sizeof *d);
    size_t mismatches = 0, compared = 0;
    for (uint32_t seed = 0; seed < 3; seed++) {
        bl_rng_seed(fill, seed * 7919u + 42u);
        bl_rng_seed(one, seed * 7919u + 42u);
        for (size_t s = 0; s < nsizes; s++) {
            size_t n = sizes[(s + seed) % nsizes];
            int as_f32 = (s + seed) % 2 == 0;
            /* a stale gauss with none cached: single draws end with it 0.0 after any pair */
            if (!fill->has_gauss) fill->gauss = one->gauss = 0.5 + (double)s;
            if (as_f32) CHECK_STATUS(bl_rng_normal_f32(fill, f, n, NULL), BL_OK);
            else CHECK_STATUS(bl_rng_normal_f64(fill, d, n, NULL), BL_OK);
            for (size_t i = 0; i < n; i++) {
                double want = bl_rng_normal(one);
                if (as_f32) { float w32 = (float)want; mismatches += memcmp(&w32, &f[i], 4) != 0; }
                else mismatches += memcmp(&want, &d[i], 8) != 0;
            }
            compared += n;
            CHECK(memcmp(fill, one, sizeof *fill) == 0);
            if (s % 3 == 0) CHECK(bl_rng_uniform(fill) == bl_rng_uniform(one));   /* odd word counts */
        }
    }
    /* every size from 16 to 400: some fills end on a batched pass, with no single draw after */
    bl_rng_seed(fill, 5);
    bl_rng_seed(one, 5);
    for (size_t n = 16; n <= 400; n++) {
        if (!fill->has_gauss) fill->gauss = one->gauss = 0.25 * (double)n;
        CHECK_STATUS(bl_rng_normal_f64(fill, d, n, NULL), BL_OK);
        for (size_t i = 0; i < n; i++) {
            double want = bl_rng_normal(one);
            mismatches += memcmp(&want, &d[i], 8) != 0;
        }
        compared += n;
        if (memcmp(fill, one, sizeof *fill) != 0) { fprintf(stderr, "  states differ after %zu\n", n); CHECK(0); break; }
    }
    printf("     %zu normals compared bit for bit\n", compared);
    CHECK(mismatches == 0);
    free(fill); free(one); free(f); free(d);
}

int main(void) {
    bl_run("rng_matches_numpy_bit_for_bit", rng_matches_numpy_bit_for_bit);
    bl_run("rng_classic_example_has_100_negative_hidden_values", rng_classic_example_has_100_negative_hidden_values);
    bl_run("rng_cache_survives_uniform_draws", rng_cache_survives_uniform_draws);
    bl_run("rng_rejects_null_buffers", rng_rejects_null_buffers);
    bl_run("rng_rejects_a_position_outside_its_state", rng_rejects_a_position_outside_its_state);
    bl_run("rng_fills_equal_single_draws_bit_for_bit", rng_fills_equal_single_draws_bit_for_bit);
    return bl_summary();
}
