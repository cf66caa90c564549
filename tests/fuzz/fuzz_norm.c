/* fuzz_norm.c - bl_layernorm_forward, bl_rmsnorm_forward, bl_batchnorm_forward: optional
   statistics, gamma and beta, every kind of eps, NULL pointers, refused sizes. Input: kind, L,
   d, eps, flags, then the floats. Checked against a two-pass double reference. */
#include "fuzz_common.h"

/* Normalises n values `stride` apart as the header documents; returns mean and rstd. */
static FZ_QUIET void reference(double *y, const float *x, size_t n, size_t stride, int center, float eps,
                      double *mean_out, double *rstd_out) {
    double mean = 0.0, ss = 0.0;
    if (center) {
        for (size_t i = 0; i < n; i++) mean += x[i * stride];
        mean /= (double)n;
    }
    for (size_t i = 0; i < n; i++) ss += (x[i * stride] - mean) * (x[i * stride] - mean);
    double rstd = 1.0 / sqrt(ss / (double)n + eps);
    for (size_t i = 0; i < n; i++) y[i] = (x[i * stride] - mean) * rstd;
    *mean_out = mean;
    *rstd_out = rstd;
}

/* Every output against the reference, per row (layer, rms) or per column (batch). */
static FZ_QUIET void check(int kind, int L, int d, float eps, const float *x,
                           const float *gamma, const float *beta, const float *out,
                           const float *mean, const float *rstd) {
    uint64_t nstat = kind == 2 ? (uint64_t)d : (uint64_t)L;
    double *y = fz_alloc((kind == 2 ? (size_t)L : (size_t)d) * sizeof(double));
    for (uint64_t g = 0; g < nstat; g++) {
        size_t len = kind == 2 ? (size_t)L : (size_t)d, stride = kind == 2 ? (size_t)d : 1;
        size_t base = kind == 2 ? (size_t)g : (size_t)g * d;
        double mu, rs;
        reference(y, x + base, len, stride, kind != 1, eps, &mu, &rs);
        for (size_t i = 0; i < len; i++) {
            size_t feat = kind == 2 ? (size_t)g : i, at = base + i * stride;
            double ref = y[i];
            if (gamma) ref *= gamma[feat];
            if (beta) ref += beta[feat];
            fz_check_close("norm out", at, out[at], ref, 1e-6 * (1.0 + fabs(ref)));
        }
        if (mean) fz_check_close("mean", g, mean[g], mu, 1e-6 * (1.0 + fabs(mu)));
        if (rstd) fz_check_close("rstd", g, rstd[g], rs, 1e-6 * fabs(rs) + 1e-30);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_in in = {data, size};
    int kind = fz_byte(&in) % 3;   /* 0 layer, 1 rms, 2 batch */
    int L = fz_dim(&in, 12), d = fz_dim(&in, 40);
    float eps = fz_eps(&in);
    unsigned f = fz_byte(&in);
    int has_gamma = f & 1, has_beta = (f >> 1) & 1, has_mean = (f >> 2) & 1, has_rstd = (f >> 3) & 1;
    int raw = (f >> 4) & 1, no_err = (f >> 5) & 1, drop = f >> 6;   /* 1 out, 2 x */

    bl_status want = BL_OK;
    if (!fz_dim_ok(L) || !fz_dim_ok(d)) want = BL_ERR_SIZE;
    else if (!fz_fits(L, d)) want = BL_ERR_TOO_LARGE;
    else if (drop == 1 || drop == 2) want = BL_ERR_NULL;
    else if (!(eps > 0.0f) || isinf(eps)) want = BL_ERR_VALUE;
    int real = want != BL_ERR_SIZE && want != BL_ERR_TOO_LARGE;
    uint64_t n = real ? (uint64_t)L * d : 1, rows = real ? (uint64_t)L : 1, cols = real ? (uint64_t)d : 1;
    uint64_t nstat = kind == 2 ? cols : rows, ngb = cols;
    if (n * 3 + ngb * 2 + nstat * 2 > FZ_BUDGET_FLOATS || n * 8 > FZ_BUDGET_WORK) return 0;

    float *x = fz_floats(&in, n, raw), *out = fz_out(n);
    float *gamma = has_gamma ? fz_floats(&in, ngb, raw) : NULL;
    float *beta = has_beta && kind != 1 ? fz_floats(&in, ngb, raw) : NULL;
    float *mean = has_mean && kind != 1 ? fz_out(nstat) : NULL, *rstd = has_rstd ? fz_out(nstat) : NULL;
    float *o = drop == 1 ? NULL : out;
    const float *xi = drop == 2 ? NULL : x;
    bl_error err, *e = no_err ? NULL : &err;
    bl_status st;
    if (kind == 0) st = bl_layernorm_forward(o, mean, rstd, xi, gamma, beta, L, d, eps, e);
    else if (kind == 1) st = bl_rmsnorm_forward(o, rstd, xi, gamma, L, d, eps, e);
    else st = bl_batchnorm_forward(o, mean, rstd, xi, gamma, beta, L, d, eps, e);
    fz_check_status(kind == 0 ? "bl_layernorm_forward" : kind == 1 ? "bl_rmsnorm_forward"
                                                                   : "bl_batchnorm_forward",
                    st, want, e);
    if (st == BL_OK && !raw) check(kind, L, d, eps, x, gamma, beta, out, mean, rstd);
    fz_free_all();
    return 0;
}
