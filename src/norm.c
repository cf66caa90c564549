/* norm.c - layer norm and RMS norm (per token, across features) and batch-style norm
   (per feature, across tokens), returning their statistics for the comparison figure.
   Two passes with double sums: inputs with a large common offset stay exact enough. */
#include <math.h>
#include "bl_internal.h"

static bl_status norm_check(bl_error *err, const float *out, const float *x, int L, int d,
                            float eps) {
    BL__CHECK(bl__check_dim(err, "L", L));
    BL__CHECK(bl__check_dim(err, "d", d));
    BL__CHECK(bl__check_elems(err, "x", (uint64_t)L, (uint64_t)d));
    BL__CHECK(bl__check_ptr(err, "out", out));
    BL__CHECK(bl__check_ptr(err, "x", x));
    if (!(eps > 0.0f) || isinf(eps))
        return bl__fail(err, BL_ERR_VALUE, "eps (%g) must be a positive finite number",
                        (double)eps);
    return BL_OK;
}

/* Normalises n values spaced `stride` apart; gamma/beta are indexed by `gi` stride too. */
static void normalise(float *out, const float *x, size_t n, size_t stride, const float *gamma,
                      const float *beta, size_t gstride, int center, float eps, float *mean_out,
                      float *rstd_out) {
    double mean = 0.0;
    if (center) {
        for (size_t i = 0; i < n; i++) mean += x[i * stride];
        mean /= (double)n;
    }
    double ss = 0.0;
    for (size_t i = 0; i < n; i++) {
        double t = x[i * stride] - mean;
        ss += t * t;
    }
    double rstd = 1.0 / sqrt(ss / (double)n + eps);
    for (size_t i = 0; i < n; i++) {
        double y = (x[i * stride] - mean) * rstd;
        if (gamma) y *= gamma[i * gstride];
        if (beta) y += beta[i * gstride];
        out[i * stride] = (float)y;
    }
    if (mean_out) *mean_out = (float)mean;
    if (rstd_out) *rstd_out = (float)rstd;
}

bl_status bl_layernorm_forward(float *out, float *mean, float *rstd, const float *x,
                               const float *gamma, const float *beta, int L, int d, float eps,
                               bl_error *err) {
    BL__CHECK(norm_check(err, out, x, L, d, eps));
    for (int t = 0; t < L; t++) {
        size_t o = (size_t)t * d;
        normalise(out + o, x + o, (size_t)d, 1, gamma, beta, 1, 1, eps, mean ? mean + t : NULL,
                  rstd ? rstd + t : NULL);
    }
    bl__ok(err);
    return BL_OK;
}

bl_status bl_rmsnorm_forward(float *out, float *rstd, const float *x, const float *gamma,
                             int L, int d, float eps, bl_error *err) {
    BL__CHECK(norm_check(err, out, x, L, d, eps));
    for (int t = 0; t < L; t++) {
        size_t o = (size_t)t * d;
        normalise(out + o, x + o, (size_t)d, 1, gamma, NULL, 1, 0, eps, NULL,
                  rstd ? rstd + t : NULL);
    }
    bl__ok(err);
    return BL_OK;
}

bl_status bl_batchnorm_forward(float *out, float *mean, float *rstd, const float *x,
                               const float *gamma, const float *beta, int L, int d, float eps,
                               bl_error *err) {
    BL__CHECK(norm_check(err, out, x, L, d, eps));
    for (int f = 0; f < d; f++) {
        /* column f: L values, d apart; this feature's gamma/beta is a single value */
        normalise(out + f, x + f, (size_t)L, (size_t)d, gamma ? gamma + f : NULL,
                  beta ? beta + f : NULL, 0, 1, eps, mean ? mean + f : NULL,
                  rstd ? rstd + f : NULL);
    }
    bl__ok(err);
    return BL_OK;
}
