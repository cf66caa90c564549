/* fuzz_linear.c - bl_linear_forward (the GEMM under every layer: its tiles, K slices and
   column blocks), bl_activation_apply, bl_activation_name, bl_activation_is_gated.
   Input: M, K, N, flags, activation, n for the activation call, then the floats. Results are
   checked against double references; refused calls get one-float buffers. */
#include "fuzz_common.h"

/* out (M, N) against ref_linear of x (M, K) @ w (K, N) + b */
static FZ_QUIET void check_linear(const float *out, const float *x, const float *w,
                                  const float *b, int M, int K, int N) {
    size_t n = (size_t)M * N;
    double *ref = fz_alloc(n * sizeof(double)), *mag = fz_alloc(n * sizeof(double));
    ref_linear(ref, mag, fz_widen(x, (uint64_t)M * K), w, b, M, K, N);
    for (size_t i = 0; i < n; i++)
        fz_check_close("linear out", i, out[i], ref[i], fz_sum_tol(K, mag[i]));
}

static FZ_QUIET void check_activation(const float *out, const float *x, size_t n,
                                      bl_activation act) {
    for (size_t i = 0; i < n; i++)
        fz_check_close(bl_activation_name(act), i, out[i], ref_act(x[i], act), fz_act_tol(x[i]));
}

static void linear(fz_in *in) {
    int M = fz_dim(in, 9), K = fz_dim(in, 40), N = fz_dim(in, 40);
    unsigned f = fz_byte(in);
    int has_b = f & 1, raw = (f >> 1) & 1, drop = (f >> 2) % 6, no_err = (f >> 5) & 1;
    bl_status want = BL_OK;
    if (!fz_dim_ok(M) || !fz_dim_ok(K) || !fz_dim_ok(N)) want = BL_ERR_SIZE;
    else if (!fz_fits(M, K) || !fz_fits(K, N) || !fz_fits(M, N)) want = BL_ERR_TOO_LARGE;
    else if (drop >= 1 && drop <= 3) want = BL_ERR_NULL;
    int real = want == BL_OK || want == BL_ERR_NULL;
    uint64_t nx = real ? (uint64_t)M * K : 1, nw = real ? (uint64_t)K * N : 1,
             nb = real ? (uint64_t)N : 1, no = real ? (uint64_t)M * N : 1;
    if (nx + nw + nb + no > FZ_BUDGET_FLOATS || (real && (uint64_t)M * K * N * 2 > FZ_BUDGET_WORK))
        return;
    float *x = fz_floats(in, nx, raw), *w = fz_floats(in, nw, raw);
    float *b = has_b ? fz_floats(in, nb, raw) : NULL, *out = fz_out(no);
    bl_error err;
    bl_status st = bl_linear_forward(drop == 1 ? NULL : out, drop == 2 ? NULL : x,
                                     drop == 3 ? NULL : w, b, M, K, N, no_err ? NULL : &err);
    fz_check_status("bl_linear_forward", st, want, no_err ? NULL : &err);
    if (st == BL_OK && !raw) check_linear(out, x, w, b, M, K, N);
}

static void activation(fz_in *in) {
    bl_activation act = fz_activation(in);
    unsigned f = fz_byte(in);
    int raw = f & 1, in_place = (f >> 1) & 1, drop = (f >> 2) % 4, no_err = (f >> 4) & 1;
    int dim = fz_dim(in, 70);
    size_t n = dim >= 0 && dim <= BL_MAX_DIM ? (size_t)dim : 3;   /* up to 65536, and 0 */
    if ((f >> 5) == 7) n = (size_t)BL_MAX_ELEMS + 1 + fz_byte(in);  /* refused: too large */
    if ((f >> 5) == 6) n = SIZE_MAX - fz_byte(in);
    FZ_CHECK((bl_activation_name(act) != NULL) == ((unsigned)act < BL_ACT_COUNT), "name %d", act);
    FZ_CHECK(bl_activation_is_gated(act) == (act == BL_ACT_SWIGLU || act == BL_ACT_GEGLU),
             "gated %d", act);
    bl_status want = BL_OK;
    if ((unsigned)act >= BL_ACT_COUNT) want = BL_ERR_ACTIVATION;
    else if (n > BL_MAX_ELEMS) want = BL_ERR_TOO_LARGE;
    else if (n > 0 && drop) want = BL_ERR_NULL;
    size_t nbuf = n > BL_MAX_ELEMS ? 1 : n;
    float *x = fz_floats(in, nbuf, raw), *out = in_place ? x : fz_out(nbuf);
    float *keep = fz_alloc(nbuf * sizeof(float));
    memcpy(keep, x, nbuf * sizeof(float));
    bl_error err;
    bl_status st = bl_activation_apply(drop & 1 ? NULL : out, drop & 2 ? NULL : x, n, act,
                                       no_err ? NULL : &err);
    fz_check_status("bl_activation_apply", st, want, no_err ? NULL : &err);
    if (st == BL_OK && !raw) check_activation(out, keep, n, act);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_in in = {data, size};
    if (fz_byte(&in) & 1) activation(&in);
    else linear(&in);
    fz_free_all();
    return 0;
}
