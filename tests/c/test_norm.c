/* test_norm.c - layer, RMS and batch-style norms against torch, and which axis each uses. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"

static void norms_match_torch(void) {
    cJSON *kase;
    int kinds[3] = {0};
    cJSON_ArrayForEach(kase, fx_cases("norms.json")) {
        cJSON *p = fx_get(kase, "params"), *in = fx_get(kase, "inputs");
        int L = fx_int(p, "L", 0), d = fx_int(p, "d", 0);
        float eps = (float)fx_num(p, "eps", 0);
        const char *kind = fx_str(p, "kind");
        float *x = fx_floats(in, "x", NULL), *g = fx_floats(in, "gamma", NULL),
              *b = fx_floats(in, "beta", NULL);
        float *out = malloc(sizeof(float) * L * d), *mean = malloc(sizeof(float) * (L > d ? L : d)),
              *rstd = malloc(sizeof(float) * (L > d ? L : d));
        if (strcmp(kind, "layer") == 0) {
            kinds[0]++;
            CHECK_STATUS(bl_layernorm_forward(out, mean, rstd, x, g, b, L, d, eps, NULL), BL_OK);
            fx_expect_close(kase, "mean", mean, (size_t)L);
            fx_expect_close(kase, "rstd", rstd, (size_t)L);
        } else if (strcmp(kind, "rms") == 0) {
            kinds[1]++;
            CHECK_STATUS(bl_rmsnorm_forward(out, rstd, x, g, L, d, eps, NULL), BL_OK);
            fx_expect_close(kase, "rstd", rstd, (size_t)L);
        } else {
            kinds[2]++;
            CHECK_STATUS(bl_batchnorm_forward(out, mean, rstd, x, g, b, L, d, eps, NULL), BL_OK);
            fx_expect_close(kase, "mean", mean, (size_t)d);
            fx_expect_close(kase, "rstd", rstd, (size_t)d);
        }
        fx_expect_close(kase, "out", out, (size_t)L * d);
        free(x); free(g); free(b); free(out); free(mean); free(rstd);
    }
    CHECK(kinds[0] && kinds[1] && kinds[2]);
}

static void layernorm_normalises_rows_batchnorm_columns(void) {
    enum { L = 4, d = 5 };
    float x[L * d], out[L * d];
    bl_rng rng;
    bl_rng_seed(&rng, 5);
    bl_rng_normal_f32(&rng, x, L * d, NULL);
    CHECK_STATUS(bl_layernorm_forward(out, NULL, NULL, x, NULL, NULL, L, d, 1e-5f, NULL), BL_OK);
    for (int t = 0; t < L; t++) {
        double s = 0;
        for (int f = 0; f < d; f++) s += out[t * d + f];
        CHECK(fabs(s) < 1e-5);
    }
    CHECK_STATUS(bl_batchnorm_forward(out, NULL, NULL, x, NULL, NULL, L, d, 1e-5f, NULL), BL_OK);
    for (int f = 0; f < d; f++) {
        double s = 0;
        for (int t = 0; t < L; t++) s += out[t * d + f];
        CHECK(fabs(s) < 1e-5);
    }
}

static void norms_reject_bad_eps_and_sizes(void) {
    float x[4] = {1, 2, 3, 4}, out[4];
    bl_error err;
    CHECK_STATUS(bl_layernorm_forward(out, NULL, NULL, x, NULL, NULL, 1, 4, 0.0f, &err), BL_ERR_VALUE);
    CHECK(strstr(err.message, "eps") != NULL);
    CHECK_STATUS(bl_rmsnorm_forward(out, NULL, x, NULL, 1, 4, NAN, &err), BL_ERR_VALUE);
    CHECK_STATUS(bl_batchnorm_forward(out, NULL, NULL, x, NULL, NULL, 0, 4, 1e-5f, &err), BL_ERR_SIZE);
    CHECK_STATUS(bl_layernorm_forward(NULL, NULL, NULL, x, NULL, NULL, 1, 4, 1e-5f, &err), BL_ERR_NULL);
}

int main(void) {
    bl_run("norms_match_torch", norms_match_torch);
    bl_run("layernorm_normalises_rows_batchnorm_columns", layernorm_normalises_rows_batchnorm_columns);
    bl_run("norms_reject_bad_eps_and_sizes", norms_reject_bad_eps_and_sizes);
    return bl_summary();
}
