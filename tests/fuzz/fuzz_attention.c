/* fuzz_attention.c - bl_attention_forward and bl_attention_workspace_size: heads, causal and
   key masks (rows with nothing visible), no_scale, every optional output present or not, with
   and without workspace, NULL pointers, refused sizes; the small-head path and the blocked one.
   Input: L, d_model, heads, two flag bytes, the mask, then the floats. Each stage is checked
   against a double reference computed from the engine's previous stage. */
#include "fuzz_common.h"
#include "bl_internal.h"

typedef struct {
    int L, D, H, dk;
    const unsigned char *mask;
    int causal;
} shape_t;

static FZ_QUIET int visible(const shape_t *s, int i, int j) {
    return (!s->causal || j <= i) && (!s->mask || s->mask[j]);
}

/* q/k/v/out (L, D) = x (L, D) @ w (D, D) + b, against ref_linear */
static FZ_QUIET void check_projection(const char *what, const float *got, const float *x, const float *w,
                             const float *b, int L, int D) {
    size_t n = (size_t)L * D;
    double *ref = fz_alloc(n * sizeof(double)), *mag = fz_alloc(n * sizeof(double));
    ref_linear(ref, mag, fz_widen(x, n), w, b, L, D, D);
    for (size_t i = 0; i < n; i++) fz_check_close(what, i, got[i], ref[i], fz_sum_tol(D, mag[i]));
}

/* The engine's q, k, v widened, and scratch for one row: L-long s, mag, w_ref, w_tol, p and
   keep; dk-long ctx, cmag, carried, unused. */
typedef struct {
    double *q, *k, *v, *s, *mag, *w_ref, *w_tol, *p, *ctx, *cmag, *carried, *unused;
    unsigned char *keep;
} row_ws;

/* One head, one query row: logits, weights, context against ref_attention_scores,
   ref_softmax and ref_attention_context, each from the engine's previous step when kept. */
static FZ_QUIET void check_row(const shape_t *s, const bl_attention_out *o, float scale, int h, int i,
                      const row_ws *r) {
    int L = s->L, D = s->D, dk = s->dk, n_vis = 0;
    size_t row = ((size_t)h * L + i) * L;
    double m = -INFINITY, delta = 0.0;
    ref_attention_scores(r->s, r->mag, r->q + (size_t)i * D + h * dk, r->k + h * dk, D, L, dk);
    for (int j = 0; j < L; j++) {
        double ref = r->s[j], tol = fz_sum_tol(dk, r->mag[j]);
        if (o->scores) fz_check_close("scores", row + j, o->scores[row + j], ref, tol);
        /* the softmax's input: the engine's logit when we have it, else ours within tol */
        r->w_ref[j] = (o->scores ? o->scores[row + j] : ref) * scale;
        double d = (o->scores ? 0.0 : tol * scale) + 2.4e-7 * fabs(r->w_ref[j]);
        r->keep[j] = (unsigned char)visible(s, i, j);
        if (r->keep[j]) {
            n_vis++;
            if (r->w_ref[j] > m) m = r->w_ref[j];
            if (d > delta) delta = d;
        }
    }
    ref_softmax(r->p, r->w_ref, r->keep, L);   /* all 0 when nothing is visible */
    delta += 2.4e-7 * fabs(m) + 3e-7;          /* w - m rounded, exp within 2 ulp */
    for (int j = 0; j < L; j++)
        r->w_tol[j] = n_vis ? r->p[j] * (2.0 * delta + n_vis * 1.2e-7) + 1e-7 : 0.0;
    for (int j = 0; j < L; j++) {
        if (!o->weights) break;
        float got = o->weights[row + j];
        if (!visible(s, i, j) || n_vis == 0)
            FZ_CHECK(got == 0.0f, "weights[%d][%d][%d] = %g where the key is hidden", h, i, j, got);
        else
            fz_check_close("weights", row + j, got, r->p[j], r->w_tol[j]);
    }
    /* context row: weights (engine's if given) @ v_h; concat holds it, context too if asked.
       The reference weights' error is carried as w_tol @ |v_h| (w_tol >= 0: the magnitudes). */
    if (o->weights) ref_widen(r->p, o->weights + row, (size_t)L);
    ref_attention_context(r->ctx, r->cmag, r->p, r->v + h * dk, D, L, dk);
    if (!o->weights) ref_attention_context(r->unused, r->carried, r->w_tol, r->v + h * dk, D, L, dk);
    for (int c = 0; c < dk; c++) {
        float got = o->concat[(size_t)i * D + h * dk + c];
        double carried = o->weights ? 0.0 : r->carried[c];
        if (n_vis == 0) FZ_CHECK(got == 0.0f, "concat[%d][%d] = %g with nothing visible", i, h * dk + c, got);
        fz_check_close("concat", (size_t)i * D + h * dk + c, got, r->ctx[c],
                       fz_sum_tol(L, r->cmag[c]) + carried);
        if (o->context) {
            float cx = o->context[((size_t)h * L + i) * dk + c];
            FZ_CHECK(memcmp(&cx, &got, 4) == 0, "context[%d][%d][%d] %g != concat %g", h, i, c, cx, got);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_in in = {data, size};
    int L = fz_dim(&in, 12), D = fz_dim(&in, 24);
    unsigned hb = fz_byte(&in), f = fz_byte(&in), g = fz_byte(&in);
    int H;
    if (hb < 200 && fz_dim_ok(D)) {          /* mostly a divisor of D: a valid shape */
        int divs[64], n = 0;
        for (int k = 1; k <= D && n < 64; k++)
            if (D % k == 0) divs[n++] = k;
        H = divs[hb % n];
    } else {
        H = hb < 200 ? 1 + hb % 8 : fz_edges[(hb - 200) % FZ_N_EDGES];
    }
    int causal = f & 1, no_scale = (f >> 1) & 1, has_mask = (f >> 2) & 1;
    int has_scores = (f >> 3) & 1, has_weights = (f >> 4) & 1, has_context = (f >> 5) & 1;
    int raw = (f >> 6) & 1, no_err = f >> 7;
    int biases = g & 15, drop = g >> 4;   /* 1..10 a required pointer, 11 workspace, 12 desc */

    int ok = fz_dim_ok(L) && fz_dim_ok(D) && fz_dim_ok(H) && D % H == 0 && fz_fits(L, D) &&
             fz_fits(D, D) && fz_fits((uint64_t)H * L, L);
    int dk = ok ? D / H : 1;
    if (fz_dim_ok(L) && fz_dim_ok(D) && fz_dim_ok(H) && D % H == 0)   /* the path choice */
        FZ_CHECK(bl__attention_small_head(L, D / H) ==
                     (D / H <= 64 && (uint64_t)L * L * (uint64_t)(D / H) <= 4096),
                 "small-head test at L %d, d_k %d", L, D / H);
    uint64_t n = ok ? (uint64_t)L * D : 1, nw = ok ? (uint64_t)D * D : 1, nb = ok ? (uint64_t)D : 1,
             ns = ok ? (uint64_t)H * L * L : 1, nl = ok ? (uint64_t)L : 1;
    if (n * 7 + nw * 4 + nb * 4 + ns * 2 + nl > FZ_BUDGET_FLOATS) return 0;
    if (ok && ((uint64_t)L * D * D * 8 + (uint64_t)L * L * D * 4 > FZ_BUDGET_WORK)) return 0;

    unsigned char *mask = NULL;
    if (has_mask) {
        mask = fz_alloc(nl);
        for (uint64_t j = 0; j < nl; j++) mask[j] = fz_byte(&in) % 4 != 0;
    }
    bl_attention_desc d = {.L = L, .d_model = D, .n_heads = H, .causal = causal,
                           .no_scale = no_scale, .key_mask = mask,
                           .x = fz_floats(&in, n, raw),
                           .wq = fz_floats(&in, nw, raw), .bq = biases & 1 ? fz_floats(&in, nb, raw) : NULL,
                           .wk = fz_floats(&in, nw, raw), .bk = biases & 2 ? fz_floats(&in, nb, raw) : NULL,
                           .wv = fz_floats(&in, nw, raw), .bv = biases & 4 ? fz_floats(&in, nb, raw) : NULL,
                           .wo = fz_floats(&in, nw, raw), .bo = biases & 8 ? fz_floats(&in, nb, raw) : NULL};
    bl_attention_out o = {.q = fz_out(n), .k = fz_out(n), .v = fz_out(n),
                          .scores = has_scores ? fz_out(ns) : NULL,
                          .weights = has_weights ? fz_out(ns) : NULL,
                          .context = has_context ? fz_out(n) : NULL,
                          .concat = fz_out(n), .out = fz_out(n)};
    size_t ws_size = bl_attention_workspace_size(&d, &o);
    FZ_CHECK(ws_size == (o.weights || L < 1 ? 0 : (size_t)L), "workspace size %zu at L %d", ws_size, L);
    float *ws = ws_size ? fz_out(ok ? ws_size : 1) : NULL;
    const float **in_ptr[] = {NULL, &d.x, &d.wq, &d.wk, &d.wv, &d.wo};
    float **out_ptr[] = {&o.q, &o.k, &o.v, &o.concat, &o.out};
    if (drop >= 1 && drop <= 5) *in_ptr[drop] = NULL;
    if (drop >= 6 && drop <= 10) *out_ptr[drop - 6] = NULL;
    if (drop == 11) ws = NULL;
    bl_status want = fz_attention_status(drop == 12 ? NULL : &d, &o, ws);
    bl_error err;
    bl_status st = bl_attention_forward(drop == 12 ? NULL : &d, &o, ws, no_err ? NULL : &err);
    fz_check_status("bl_attention_forward", st, want, no_err ? NULL : &err);

    if (st == BL_OK && !raw) {
        shape_t s = {L, D, H, dk, mask, causal};
        float scale = no_scale ? 1.0f : 1.0f / sqrtf((float)dk);
        check_projection("q", o.q, d.x, d.wq, d.bq, L, D);
        check_projection("k", o.k, d.x, d.wk, d.bk, L, D);
        check_projection("v", o.v, d.x, d.wv, d.bv, L, D);
        size_t rl = nl * sizeof(double), rd = (size_t)dk * sizeof(double);
        row_ws r = {.q = fz_widen(o.q, n), .k = fz_widen(o.k, n), .v = fz_widen(o.v, n),
                    .s = fz_alloc(rl), .mag = fz_alloc(rl), .w_ref = fz_alloc(rl),
                    .w_tol = fz_alloc(rl), .p = fz_alloc(rl), .ctx = fz_alloc(rd),
                    .cmag = fz_alloc(rd), .carried = fz_alloc(rd), .unused = fz_alloc(rd),
                    .keep = fz_alloc(nl)};
        for (int h = 0; h < H; h++)
            for (int i = 0; i < L; i++) check_row(&s, &o, scale, h, i, &r);
        check_projection("out", o.out, o.concat, d.wo, d.bo, L, D);
    }
    fz_free_all();
    return 0;
}
