/* fuzz_norm.c - bl_layernorm_forward, bl_rmsnorm_forward, bl_batchnorm_forward: optional
   statistics, gamma and beta, every kind of eps, NULL pointers, refused sizes. Input: kind, L,
   d, eps, flags, then the floats. Checked against the two-pass double references of tests/c/reference.c. */
#include "fuzz_common.h"

/* Every output against ref_layernorm / ref_rmsnorm / ref_batchnorm: per row (layer, rms) or
   per column (batch). */
static FZ_QUIET void check(int kind, int L, int d, float eps, const float *x,
                           const float *gamma, const float *beta, const float *out,
                           const float *mean, const float *rstd) {
    size_t n = (size_t)L * d, nstat = kind == 2 ? (size_t)d : (size_t)L;
    double *xd = fz_widen(x, n), *y = fz_alloc(n * sizeof(double));
    double *mu = fz_alloc(nstat * sizeof(double)), *rs = fz_alloc(nstat * sizeof(double));
    if (kind == 0) ref_layernorm(y, mu, rs, xd, gamma, beta, L, d, eps);
    else if (kind == 1) ref_rmsnorm(y, rs, xd, gamma, L, d, eps);
    else ref_batchnorm(y, mu, rs, xd, gamma, beta, L, d, eps);
    for (size_t i = 0; i < n; i++) fz_check_close("norm out", i, out[i], y[i], 1e-6 * (1.0 + fabs(y[i])));
    for (size_t g = 0; g < nstat; g++) {
        if (mean) fz_check_close("mean", g, mean[g], mu[g], 1e-6 * (1.0 + fabs(mu[g])));
        if (rstd) fz_check_close("rstd", g, rstd[g], rs[g], 1e-6 * fabs(rs[g]) + 1e-30);
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
