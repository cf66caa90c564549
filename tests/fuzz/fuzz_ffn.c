/* fuzz_ffn.c - bl_ffn_forward: plain and gated activations, optional biases and hidden output,
   mismatched w3/b3, NULL pointers, refused sizes. Input: L, d_model, d_ff, activation, flags,
   then the floats. Each stage is checked against a double reference computed from the engine's
   previous stage, so tolerances stay tight. */
#include "fuzz_common.h"

/* Each stage against double sums computed from the engine's previous stage. */
static FZ_QUIET void check(const bl_ffn_desc *dp, const bl_ffn_out *op, int L, int D, int F,
                           int gated, uint64_t nh) {
    const bl_ffn_desc d = *dp;
    const bl_ffn_out o = *op;
    bl_activation act = d.activation;
    /* hidden = x W1 + b1, up = x W3 + b3: against ref_linear */
    double *xd = fz_widen(d.x, (uint64_t)L * D);
    double *hid = fz_alloc(nh * sizeof(double)), *hid_mag = fz_alloc(nh * sizeof(double));
    ref_linear(hid, hid_mag, xd, d.w1, d.b1, L, D, F);
    for (size_t i = 0; i < nh && o.hidden; i++)
        fz_check_close("hidden", i, o.hidden[i], hid[i], fz_sum_tol(D, hid_mag[i]));
    if (gated) {
        double *up = fz_alloc(nh * sizeof(double)), *up_mag = fz_alloc(nh * sizeof(double));
        ref_linear(up, up_mag, xd, d.w3, d.b3, L, D, F);
        for (size_t i = 0; i < nh; i++) fz_check_close("up", i, o.up[i], up[i], fz_sum_tol(D, up_mag[i]));
    }
    /* activated = act(hidden) (* up): from the engine's hidden when given, else the reference
       hidden (its tolerance carried through: the activations' slopes stay below 1.2) */
    for (size_t i = 0; i < nh; i++) {
        double h = o.hidden ? o.hidden[i] : hid[i];
        double t = o.hidden ? 0.0 : 1.2 * fz_sum_tol(D, hid_mag[i]);
        double a = ref_act(h, act), ref = a, tol = fz_act_tol(h) + t;
        if (gated) {
            ref = a * o.up[i];
            tol = tol * fabs(o.up[i]) + 1.2e-7 * fabs(ref);
        }
        fz_check_close("activated", i, o.activated[i], ref, tol);
    }
    /* out = activated W2 + b2, from the engine's activated */
    uint64_t no = (uint64_t)L * D;
    double *y = fz_alloc(no * sizeof(double)), *y_mag = fz_alloc(no * sizeof(double));
    ref_linear(y, y_mag, fz_widen(o.activated, nh), d.w2, d.b2, L, F, D);
    for (size_t i = 0; i < no; i++) fz_check_close("out", i, o.out[i], y[i], fz_sum_tol(F, y_mag[i]));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_in in = {data, size};
    int L = fz_dim(&in, 8), D = fz_dim(&in, 24), F = fz_dim(&in, 40);
    bl_activation act = fz_activation(&in);
    unsigned f = fz_byte(&in), g = fz_byte(&in);
    int has_b1 = f & 1, has_b2 = (f >> 1) & 1, has_b3 = (f >> 2) & 1, has_hidden = (f >> 3) & 1;
    int raw = (f >> 4) & 1, no_err = (f >> 5) & 1, swap_w3 = (f >> 6) & 1, null_desc = f >> 7;
    int drop = g % 8;   /* 1 x, 2 w1, 3 w2, 4 activated, 5 out, 6 up: NULL */
    int gated = bl_activation_is_gated(act);

    /* the call as the flags make it; buffers sized once the expected status is known */
    int sizes_ok = fz_dim_ok(L) && fz_dim_ok(D) && fz_dim_ok(F) && fz_fits(L, D) &&
                   fz_fits(L, F) && fz_fits(D, F);
    uint64_t nx = sizes_ok ? (uint64_t)L * D : 1, nw = sizes_ok ? (uint64_t)D * F : 1,
             nf = sizes_ok ? (uint64_t)F : 1, nd = sizes_ok ? (uint64_t)D : 1,
             nh = sizes_ok ? (uint64_t)L * F : 1;
    if (nx * 2 + nw * 3 + nf * 2 + nd + nh * 3 > FZ_BUDGET_FLOATS) return 0;
    if (sizes_ok && (uint64_t)L * D * F * 6 > FZ_BUDGET_WORK) return 0;
    int with_w3 = gated != swap_w3;   /* swap_w3: w3 missing when gated, present when not */
    bl_ffn_desc d = {.L = L, .d_model = D, .d_ff = F, .activation = act,
                     .x = fz_floats(&in, nx, raw), .w1 = fz_floats(&in, nw, raw),
                     .b1 = has_b1 ? fz_floats(&in, nf, raw) : NULL,
                     .w3 = with_w3 ? fz_floats(&in, nw, raw) : NULL,
                     .b3 = has_b3 ? fz_floats(&in, nf, raw) : NULL,
                     .w2 = fz_floats(&in, nw, raw), .b2 = has_b2 ? fz_floats(&in, nd, raw) : NULL};
    bl_ffn_out o = {.hidden = has_hidden ? fz_out(nh) : NULL, .up = gated ? fz_out(nh) : NULL,
                    .activated = fz_out(nh), .out = fz_out(nx)};
    if (drop == 1) d.x = NULL;
    if (drop == 2) d.w1 = NULL;
    if (drop == 3) d.w2 = NULL;
    if (drop == 4) o.activated = NULL;
    if (drop == 5) o.out = NULL;
    if (drop == 6) o.up = NULL;
    bl_status want = fz_ffn_status(null_desc ? NULL : &d, &o);
    bl_error err;
    bl_status st = bl_ffn_forward(null_desc ? NULL : &d, &o, no_err ? NULL : &err);
    fz_check_status("bl_ffn_forward", st, want, no_err ? NULL : &err);
    if (st == BL_OK && !raw) check(&d, &o, L, D, F, gated, nh);
    fz_free_all();
    return 0;
}
