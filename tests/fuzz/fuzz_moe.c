/* fuzz_moe.c - bl_moe_forward and bl_moe_workspace_size: 1..64 experts and refused counts, top_k
   at and past its bounds, every activation, optional outputs and biases present or not, routers
   full of ties, NULL pointers, refused sizes. Input: L, d_model, d_ff, n_experts, top_k,
   activation, two flag bytes, then the floats. The routing is checked exactly against the
   engine's own logits (bl_linear_forward gives the same products), the weights and outputs
   against double references with error bounds carried through each expert's FFN. */
#include "fuzz_common.h"

/* n_experts: mostly 1..8, else 1..64, else an edge (64, 65, 0, negatives, INT_MAX). */
static int fz_experts(fz_in *in) {
    static const int e[] = {64, 63, 65, 0, -1, 128, INT_MIN, INT_MAX};
    unsigned b = fz_byte(in);
    if (b < 160) return 1 + (int)(b % 8);
    if (b < 224) return 1 + (int)((b - 160) % 64);
    return e[(b - 224) % 8];
}

/* top_k: mostly in 1..n_experts, else an edge (0, n_experts, n_experts + 1, 64, 65, ...). */
static int fz_top_k(fz_in *in, int E) {
    unsigned b = fz_byte(in);
    if (b < 224 && E >= 1 && E <= 64) return 1 + (int)(b % (unsigned)E);
    int e[] = {0, -1, E, E >= 1 && E < 64 ? E + 1 : 65, 64, 65, INT_MIN, INT_MAX};
    return e[b % 8];
}

/* Expected status of bl_moe_forward, in the engine's order. */
static bl_status fz_moe_status(const bl_moe_desc *d, const bl_moe_out *o, const float *ws) {
    if (!d || !o) return BL_ERR_NULL;
    if (!fz_dim_ok(d->L) || !fz_dim_ok(d->d_model) || !fz_dim_ok(d->d_ff)) return BL_ERR_SIZE;
    if (d->n_experts < 1 || d->n_experts > BL_MOE_MAX_EXPERTS || d->top_k < 1) return BL_ERR_SIZE;
    if (d->top_k > d->n_experts) return BL_ERR_SHAPE;
    if ((unsigned)d->activation >= BL_ACT_COUNT) return BL_ERR_ACTIVATION;
    int gated = bl_activation_is_gated(d->activation);
    if (!fz_fits(d->L, d->d_model) || !fz_fits(d->L, d->d_ff) ||
        !fz_fits((uint64_t)d->n_experts * d->d_model, d->d_ff))
        return BL_ERR_TOO_LARGE;
    uint64_t work = (uint64_t)d->L * (2 * (uint64_t)d->d_model + (gated ? 2 : 1) * (uint64_t)d->d_ff +
                                      (o->logits ? 0 : (uint64_t)d->n_experts));
    if (work > BL_MAX_ELEMS) return BL_ERR_TOO_LARGE;
    if (!d->x || !d->wr || !d->w1 || !d->w2 || !o->top_index || !o->top_weight || !o->out)
        return BL_ERR_NULL;
    if (gated ? !d->w3 : (d->w3 || d->b3)) return BL_ERR_ACTIVATION;
    if (!ws) return BL_ERR_NULL;
    return BL_OK;
}

/* Scratch of expert_ref: F-long h, sh, u, su, a, ea, aa; D-long unused, abs_o. */
typedef struct { double *h, *sh, *u, *su, *a, *ea, *aa, *unused, *abs_o; } expert_ws;

/* y (D) = expert e on token x (D) by ref_linear and ref_act; tol (D) bounds the engine's float
   error (each stage's rounding, carried through the activation's slope (< 1.2) and W2). */
static FZ_QUIET void expert_ref(const bl_moe_desc *d, int e, const double *x, double *y,
                                double *tol, const expert_ws *r) {
    int D = d->d_model, F = d->d_ff;
    int gated = bl_activation_is_gated(d->activation);
    size_t DF = (size_t)D * F;
    const float *b1 = d->b1 ? d->b1 + (size_t)e * F : NULL, *b3 = d->b3 ? d->b3 + (size_t)e * F : NULL;
    const float *b2 = d->b2 ? d->b2 + (size_t)e * D : NULL;
    ref_linear(r->h, r->sh, x, d->w1 + e * DF, b1, 1, D, F);
    if (gated) ref_linear(r->u, r->su, x, d->w3 + e * DF, b3, 1, D, F);
    for (int j = 0; j < F; j++) {
        double eh = fz_sum_tol(D, r->sh[j]), g = ref_act(r->h[j], d->activation);
        double a = g, ea = 1.2 * eh + fz_act_tol(r->h[j]);
        if (gated) {
            double u = r->u[j], eu = fz_sum_tol(D, r->su[j]);
            a = g * u;
            ea = ea * (fabs(u) + eu) + fabs(g) * eu + 1.2e-7 * fabs(a);
        }
        r->a[j] = a, r->ea[j] = ea, r->aa[j] = fabs(a) + ea;
    }
    /* y = a W2 + b2; as ea and aa are >= 0, the magnitudes of ea W2 are the carried error
       ea |W2| and those of aa W2 + b2 the float sum's scale |b2| + (|a| + ea) |W2| */
    ref_linear(y, NULL, r->a, d->w2 + e * DF, b2, 1, F, D);
    ref_linear(r->unused, tol, r->ea, d->w2 + e * DF, NULL, 1, F, D);
    ref_linear(r->unused, r->abs_o, r->aa, d->w2 + e * DF, b2, 1, F, D);
    for (int c = 0; c < D; c++) tol[c] += fz_sum_tol(F, r->abs_o[c]);
}

/* 1 when every router logit x @ Wr (the engine's product) is finite: the engine refuses others. */
static FZ_QUIET int logits_finite(const bl_moe_desc *d) {
    size_t n = (size_t)d->L * (size_t)d->n_experts;
    float *lg = fz_alloc(sizeof(float) * n);
    FZ_CHECK(bl_linear_forward(lg, d->x, d->wr, NULL, d->L, d->d_model, d->n_experts, NULL) == BL_OK,
             "linear refused");
    for (size_t i = 0; i < n; i++)
        if (!isfinite(lg[i])) return 0;
    return 1;
}

static FZ_QUIET void check(const bl_moe_desc *d, const bl_moe_out *o, int raw) {
    int L = d->L, D = d->d_model, E = d->n_experts, K = d->top_k;
    /* the engine's logits: bl_linear_forward runs the same product */
    float *lg = fz_alloc(sizeof(float) * (size_t)L * E);
    FZ_CHECK(bl_linear_forward(lg, d->x, d->wr, NULL, L, D, E, NULL) == BL_OK, "linear refused");
    if (o->logits)
        FZ_CHECK(memcmp(lg, o->logits, sizeof(float) * (size_t)L * E) == 0, "logits differ from x @ wr");
    int load[BL_MOE_MAX_EXPERTS] = {0};
    for (int i = 0; i < L; i++) {
        const int32_t *idx = o->top_index + (size_t)i * K;
        uint64_t seen = 0;
        for (int k = 0; k < K; k++) {   /* any input: K distinct experts in range */
            FZ_CHECK(idx[k] >= 0 && idx[k] < E && !(seen >> idx[k] & 1), "token %d slot %d: expert %d",
                     i, k, idx[k]);
            seen |= (uint64_t)1 << idx[k];
            load[idx[k]]++;
        }
    }
    if (o->load)
        for (int e = 0; e < E; e++)
            FZ_CHECK(o->load[e] == load[e], "load[%d] %d, routed %d", e, o->load[e], load[e]);
    if (raw) return;   /* NaN and infinities: memory safety and the invariants above only */

    size_t sd = sizeof(double) * (size_t)D, sf = sizeof(double) * (size_t)d->d_ff;
    double *y = fz_alloc(sd), *ty = fz_alloc(sd), *ref = fz_alloc(sd), *tol = fz_alloc(sd);
    double *mag = fz_alloc(sd), *xd = fz_widen(d->x, (uint64_t)L * D);
    double *chosen = fz_alloc(sizeof(double) * (size_t)K), *wk = fz_alloc(sizeof(double) * (size_t)K);
    double *all = fz_alloc(sizeof(double) * (size_t)E), *probs = fz_alloc(sizeof(double) * (size_t)E);
    expert_ws ews = {.h = fz_alloc(sf), .sh = fz_alloc(sf), .u = fz_alloc(sf), .su = fz_alloc(sf),
                     .a = fz_alloc(sf), .ea = fz_alloc(sf), .aa = fz_alloc(sf),
                     .unused = fz_alloc(sd), .abs_o = fz_alloc(sd)};
    for (int i = 0; i < L; i++) {
        const float *l = lg + (size_t)i * E;
        const int32_t *idx = o->top_index + (size_t)i * K;
        const float *w = o->top_weight + (size_t)i * K;
        /* the routing: the largest not yet taken, the lower index among equals */
        uint64_t taken = 0;
        for (int k = 0; k < K; k++) {
            int best = -1;
            for (int e = 0; e < E; e++)
                if (!(taken >> e & 1) && (best < 0 || l[e] > l[best])) best = e;
            taken |= (uint64_t)1 << best;
            FZ_CHECK(idx[k] == best, "token %d slot %d: expert %d, the rule gives %d (logits %.9g, %.9g)",
                     i, k, idx[k], best, l[idx[k]], l[best]);
        }
        /* weights: softmax of the chosen logits; probs: of all (weights <= 1: absolute bounds) */
        for (int k = 0; k < K; k++) chosen[k] = l[idx[k]];
        ref_softmax(wk, chosen, NULL, K);
        for (int k = 0; k < K; k++)
            fz_check_close("top_weight", (size_t)i * K + k, w[k], wk[k], 1e-6 * (1 + K));
        if (o->probs) {
            ref_widen(all, l, (size_t)E);
            ref_softmax(probs, all, NULL, E);
            for (int e = 0; e < E; e++)
                fz_check_close("probs", (size_t)i * E + e, o->probs[(size_t)i * E + e], probs[e],
                               1e-6 * (1 + E));
        }
        /* out: the engine's weights times each chosen expert's double FFN, bounds carried */
        for (int c = 0; c < D; c++) ref[c] = tol[c] = mag[c] = 0.0;
        for (int k = 0; k < K; k++) {
            expert_ref(d, idx[k], xd + (size_t)i * D, y, ty, &ews);
            for (int c = 0; c < D; c++) {
                ref[c] += w[k] * y[c];
                tol[c] += fabs(w[k]) * ty[c];
                mag[c] += fabs(w[k]) * (fabs(y[c]) + ty[c]);
            }
        }
        for (int c = 0; c < D; c++)
            fz_check_close("out", (size_t)i * D + c, o->out[(size_t)i * D + c], ref[c],
                           tol[c] + fz_sum_tol(K, mag[c]));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_in in = {data, size};
    int L = fz_dim(&in, 8), D = fz_dim(&in, 16), F = fz_dim(&in, 24);
    int E = fz_experts(&in), K = fz_top_k(&in, E);
    bl_activation act = fz_activation(&in);
    unsigned f = fz_byte(&in), g = fz_byte(&in);
    int has_b1 = f & 1, has_b2 = (f >> 1) & 1, has_b3 = (f >> 2) & 1, has_logits = (f >> 3) & 1;
    int has_probs = (f >> 4) & 1, has_load = (f >> 5) & 1, raw = (f >> 6) & 1, no_err = f >> 7;
    int swap_w3 = g & 1, ties = (g >> 1) & 1, drop = (g >> 2) % 12;  /* 1..7 a pointer, 8 ws, 9 desc, 10 out */
    int gated = (unsigned)act < BL_ACT_COUNT && bl_activation_is_gated(act);

    /* buffers of the documented sizes when the sizes pass, else one float each (a workspace
       past 2^28 floats is refused too) */
    int sizes_ok = fz_dim_ok(L) && fz_dim_ok(D) && fz_dim_ok(F) && E >= 1 && E <= 64 &&
                   K >= 1 && K <= E && fz_fits(L, D) && fz_fits(L, F) &&
                   fz_fits((uint64_t)E * D, F) &&
                   (uint64_t)L * (2 * (uint64_t)D + (gated ? 2 : 1) * (uint64_t)F +
                                  (has_logits ? 0 : (uint64_t)E)) <= BL_MAX_ELEMS;
    uint64_t nx = sizes_ok ? (uint64_t)L * D : 1, nr = sizes_ok ? (uint64_t)D * E : 1,
             nw = sizes_ok ? (uint64_t)E * D * F : 1, nf = sizes_ok ? (uint64_t)E * F : 1,
             nd = sizes_ok ? (uint64_t)E * D : 1, nl = sizes_ok ? (uint64_t)L * E : 1,
             nk = sizes_ok ? (uint64_t)L * K : 1, ne = sizes_ok ? (uint64_t)E : 1;
    uint64_t work = sizes_ok ? (uint64_t)L * (2 * (uint64_t)D + 2 * (uint64_t)F + E) : 1;
    if (nx * 2 + nr + nw * 3 + nf * 2 + nd + nl * 2 + nk * 2 + ne + work > FZ_BUDGET_FLOATS) return 0;
    if (sizes_ok && (uint64_t)L * D * E + (uint64_t)L * K * D * F * 6 > FZ_BUDGET_WORK) return 0;
    int with_w3 = gated != swap_w3;   /* swap_w3: w3 missing when gated, present when not */
    bl_moe_desc d = {.L = L, .d_model = D, .d_ff = F, .n_experts = E, .top_k = K, .activation = act,
                     .x = fz_floats(&in, nx, raw), .wr = fz_floats(&in, nr, raw),
                     .w1 = fz_floats(&in, nw, raw), .b1 = has_b1 ? fz_floats(&in, nf, raw) : NULL,
                     .w3 = with_w3 ? fz_floats(&in, nw, raw) : NULL,
                     .b3 = has_b3 ? fz_floats(&in, nf, raw) : NULL,
                     .w2 = fz_floats(&in, nw, raw), .b2 = has_b2 ? fz_floats(&in, nd, raw) : NULL};
    if (ties && sizes_ok)   /* every odd expert's router column a copy of expert 0's */
        for (int k = 0; k < D; k++)
            for (int e = 1; e < E; e += 2) ((float *)d.wr)[(size_t)k * E + e] = d.wr[(size_t)k * E];
    int32_t *top_index = fz_alloc(sizeof(int32_t) * nk), *load = has_load ? fz_alloc(sizeof(int32_t) * ne) : NULL;
    for (uint64_t i = 0; i < nk; i++) top_index[i] = -7;
    bl_moe_out o = {.logits = has_logits ? fz_out(nl) : NULL, .probs = has_probs ? fz_out(nl) : NULL,
                    .top_index = top_index, .top_weight = fz_out(nk), .load = load, .out = fz_out(nx)};
    size_t ws_size = bl_moe_workspace_size(&d, &o);
    uint64_t want_ws = (uint64_t)L * (2 * (uint64_t)D + (gated ? 2 : 1) * (uint64_t)F +
                                      (o.logits ? 0 : (uint64_t)E));
    FZ_CHECK(ws_size == (sizes_ok && (unsigned)act < BL_ACT_COUNT ? want_ws : 0),
             "workspace size %zu at L %d, d_model %d, d_ff %d, n_experts %d", ws_size, L, D, F, E);
    float *ws = fz_out(ws_size ? ws_size : 1);
    if (drop == 1) d.x = NULL;
    if (drop == 2) d.wr = NULL;
    if (drop == 3) d.w1 = NULL;
    if (drop == 4) d.w2 = NULL;
    if (drop == 5) o.top_index = NULL;
    if (drop == 6) o.top_weight = NULL;
    if (drop == 7) o.out = NULL;
    if (drop == 8) ws = NULL;
    const bl_moe_desc *dp = drop == 9 ? NULL : &d;
    const bl_moe_out *op = drop == 10 ? NULL : &o;
    bl_status want = fz_moe_status(dp, op, ws);
    if (want == BL_OK && !logits_finite(&d)) want = BL_ERR_VALUE;   /* x @ Wr overflowed */
    bl_error err;
    bl_status st = bl_moe_forward(dp, op, ws, no_err ? NULL : &err);
    fz_check_status("bl_moe_forward", st, want, no_err ? NULL : &err);
    if (st == BL_OK) {
        check(&d, &o, raw);
    } else {   /* refused: nothing written */
        for (uint64_t i = 0; i < nk; i++) FZ_CHECK(top_index[i] == -7, "top_index written when refused");
        for (uint64_t i = 0; o.out && i < nx; i++) FZ_CHECK(isnan(o.out[i]), "out written when refused");
    }
    fz_free_all();
    return 0;
}
