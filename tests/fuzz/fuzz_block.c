/* fuzz_block.c - bl_block_forward and bl_block_workspace_size: post-LN and pre-LN, every
   activation, masks, optional outputs, biases and norm parameters present or not, eps edges,
   NULL pointers, refused sizes. Input: L, d_model, heads, d_ff, activation, eps, three flag
   bytes, the mask, then the floats. A block that succeeds must equal, bit for bit, the same
   computation done through the single public calls. */
#include "fuzz_common.h"

/* The block again from bl_attention_forward, bl_layernorm_forward and bl_ffn_forward. */
static FZ_QUIET void compose(const bl_block_desc *d, const bl_block_out *ref, float *ws, float eps) {
    int L = d->L, D = d->d_model;
    size_t n = (size_t)L * D;
    bl_attention_desc a = {.L = L, .d_model = D, .n_heads = d->n_heads, .causal = d->causal,
                           .no_scale = d->no_scale, .key_mask = d->key_mask, .wq = d->wq,
                           .bq = d->bq, .wk = d->wk, .bk = d->bk, .wv = d->wv, .bv = d->bv,
                           .wo = d->wo, .bo = d->bo};
    bl_ffn_desc f = {.L = L, .d_model = D, .d_ff = d->d_ff, .activation = d->activation,
                     .w1 = d->w1, .b1 = d->b1, .w3 = d->w3, .b3 = d->b3, .w2 = d->w2, .b2 = d->b2};
    bl_status st = BL_OK;
    if (!d->pre_ln) {
        a.x = d->x;
        st |= bl_attention_forward(&a, &ref->attn, ws, NULL);
        for (size_t i = 0; i < n; i++) ref->resid1[i] = d->x[i] + ref->attn.out[i];
        st |= bl_layernorm_forward(ref->norm1, NULL, NULL, ref->resid1, d->ln1_gamma, d->ln1_beta, L, D, eps, NULL);
        f.x = ref->norm1;
        st |= bl_ffn_forward(&f, &ref->ffn, NULL);
        for (size_t i = 0; i < n; i++) ref->resid2[i] = ref->norm1[i] + ref->ffn.out[i];
        st |= bl_layernorm_forward(ref->norm2, NULL, NULL, ref->resid2, d->ln2_gamma, d->ln2_beta, L, D, eps, NULL);
        memcpy(ref->out, ref->norm2, n * sizeof(float));
    } else {
        st |= bl_layernorm_forward(ref->norm1, NULL, NULL, d->x, d->ln1_gamma, d->ln1_beta, L, D, eps, NULL);
        a.x = ref->norm1;
        st |= bl_attention_forward(&a, &ref->attn, ws, NULL);
        for (size_t i = 0; i < n; i++) ref->resid1[i] = d->x[i] + ref->attn.out[i];
        st |= bl_layernorm_forward(ref->norm2, NULL, NULL, ref->resid1, d->ln2_gamma, d->ln2_beta, L, D, eps, NULL);
        f.x = ref->norm2;
        st |= bl_ffn_forward(&f, &ref->ffn, NULL);
        for (size_t i = 0; i < n; i++) ref->resid2[i] = ref->resid1[i] + ref->ffn.out[i];
        memcpy(ref->out, ref->resid2, n * sizeof(float));
    }
    FZ_CHECK(st == BL_OK, "a single call refused what the block accepted (%d)", st);
}

static FZ_QUIET void same(const char *what, const float *a, const float *b, uint64_t n) {
    if (!a) return;
    for (uint64_t i = 0; i < n; i++)
        FZ_CHECK(memcmp(&a[i], &b[i], 4) == 0, "%s[%llu]: block %.9g, single calls %.9g", what,
                 (unsigned long long)i, a[i], b[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_in in = {data, size};
    int L = fz_dim(&in, 8), D = fz_dim(&in, 16);
    unsigned hb = fz_byte(&in);
    int F = fz_dim(&in, 24);
    bl_activation act = fz_activation(&in);
    float eps = fz_eps_or_default(&in);
    unsigned f = fz_byte(&in), g = fz_byte(&in), h = fz_byte(&in);
    int H = fz_heads(hb, D);
    int pre_ln = f & 1, causal = (f >> 1) & 1, no_scale = (f >> 2) & 1, has_mask = (f >> 3) & 1;
    int has_scores = (f >> 4) & 1, has_weights = (f >> 5) & 1, has_context = (f >> 6) & 1;
    int has_hidden = f >> 7;
    unsigned biases = g;                 /* bq bk bv bo b1 b2 b3, then the norm parameters */
    int norms = h & 15, raw = (h >> 4) & 1, no_err = (h >> 5) & 1, drop = h >> 6;
    int gated = bl_activation_is_gated(act), swap_w3 = drop == 3;

    int ok = fz_dim_ok(L) && fz_dim_ok(D) && fz_dim_ok(H) && fz_dim_ok(F) && D % H == 0 &&
             fz_fits(L, D) && fz_fits(D, D) && fz_fits((uint64_t)H * L, L) && fz_fits(L, F) &&
             fz_fits(D, F);
    uint64_t n = ok ? (uint64_t)L * D : 1, nw = ok ? (uint64_t)D * D : 1, nd = ok ? (uint64_t)D : 1,
             ns = ok ? (uint64_t)H * L * L : 1, nf = ok ? (uint64_t)F : 1,
             nh = ok ? (uint64_t)L * F : 1, ni = ok ? (uint64_t)D * F : 1;
    if (2 * (n * 14 + ns * 2 + nh * 4) + nw * 4 + nd * 10 + nf * 2 + ni * 3 > FZ_BUDGET_FLOATS)
        return 0;
    if (ok && 2 * ((uint64_t)L * D * D * 4 + (uint64_t)L * L * D * 2 + (uint64_t)L * D * F * 3) >
                  FZ_BUDGET_WORK)
        return 0;

    unsigned char *mask = NULL;
    if (has_mask) {
        mask = fz_alloc(ok ? (size_t)L : 1);
        for (uint64_t j = 0; j < (ok ? (uint64_t)L : 1); j++) mask[j] = fz_byte(&in) % 4 != 0;
    }
#define OPT(bit, cnt) ((biases >> (bit)) & 1 ? fz_floats(&in, cnt, raw) : NULL)
#define NORM(bit) ((norms >> (bit)) & 1 ? fz_floats(&in, nd, raw) : NULL)
    bl_block_desc d = {
        .L = L, .d_model = D, .n_heads = H, .d_ff = F, .activation = act, .pre_ln = pre_ln,
        .causal = causal, .no_scale = no_scale, .key_mask = mask, .eps = eps,
        .x = fz_floats(&in, n, raw),
        .wq = fz_floats(&in, nw, raw), .bq = OPT(0, nd), .wk = fz_floats(&in, nw, raw), .bk = OPT(1, nd),
        .wv = fz_floats(&in, nw, raw), .bv = OPT(2, nd), .wo = fz_floats(&in, nw, raw), .bo = OPT(3, nd),
        .ln1_gamma = NORM(0), .ln1_beta = NORM(1), .ln2_gamma = NORM(2), .ln2_beta = NORM(3),
        .w1 = fz_floats(&in, ni, raw), .b1 = OPT(4, nf),
        .w3 = gated != swap_w3 ? fz_floats(&in, ni, raw) : NULL, .b3 = gated ? OPT(6, nf) : NULL,
        .w2 = fz_floats(&in, ni, raw), .b2 = OPT(5, nd)};
    bl_block_out o[2];
    for (int k = 0; k < 2; k++)   /* o[0] for the block, o[1] for the single calls */
        o[k] = (bl_block_out){
            .attn = {.q = fz_out(n), .k = fz_out(n), .v = fz_out(n),
                     .scores = has_scores ? fz_out(ns) : NULL,
                     .weights = has_weights ? fz_out(ns) : NULL,
                     .context = has_context ? fz_out(n) : NULL, .concat = fz_out(n), .out = fz_out(n)},
            .ffn = {.hidden = has_hidden ? fz_out(nh) : NULL, .up = gated ? fz_out(nh) : NULL,
                    .activated = fz_out(nh), .out = fz_out(n)},
            .resid1 = fz_out(n), .norm1 = fz_out(n), .resid2 = fz_out(n), .norm2 = fz_out(n),
            .out = fz_out(n)};
    size_t ws_size = bl_block_workspace_size(&d, &o[0]);
    FZ_CHECK(ws_size == (has_weights || L < 1 ? 0 : (size_t)L), "block workspace %zu at L %d", ws_size, L);
    float *ws = ws_size ? fz_out(ok ? ws_size : 1) : NULL;
    if (drop == 1) o[0].norm2 = NULL;
    if (drop == 2) ws = NULL;

    /* expected: the block's own outputs, then the attention, the FFN, eps */
    float e = eps == 0.0f ? 1e-5f : eps;
    bl_attention_desc ad = {.L = L, .d_model = D, .n_heads = H, .x = d.x, .wq = d.wq,
                            .wk = d.wk, .wv = d.wv, .wo = d.wo};
    bl_ffn_desc fd = {.L = L, .d_model = D, .d_ff = F, .activation = act, .x = d.x, .w1 = d.w1,
                      .w3 = d.w3, .b3 = d.b3, .w2 = d.w2};
    bl_status want = !o[0].norm2 ? BL_ERR_NULL : fz_attention_status(&ad, &o[0].attn, ws);
    if (want == BL_OK) want = fz_ffn_status(&fd, &o[0].ffn);
    if (want == BL_OK && (!(e > 0.0f) || isinf(e))) want = BL_ERR_VALUE;
    bl_error err;
    bl_status st = bl_block_forward(&d, &o[0], ws, no_err ? NULL : &err);
    fz_check_status("bl_block_forward", st, want, no_err ? NULL : &err);

    if (st == BL_OK) {
        compose(&d, &o[1], ws, e);
        const bl_block_out *a = &o[0], *b = &o[1];
        same("q", a->attn.q, b->attn.q, n);
        same("k", a->attn.k, b->attn.k, n);
        same("v", a->attn.v, b->attn.v, n);
        same("scores", a->attn.scores, b->attn.scores, ns);
        same("weights", a->attn.weights, b->attn.weights, ns);
        same("context", a->attn.context, b->attn.context, n);
        same("concat", a->attn.concat, b->attn.concat, n);
        same("attn.out", a->attn.out, b->attn.out, n);
        same("hidden", a->ffn.hidden, b->ffn.hidden, nh);
        same("up", a->ffn.up, b->ffn.up, nh);
        same("activated", a->ffn.activated, b->ffn.activated, nh);
        same("ffn.out", a->ffn.out, b->ffn.out, n);
        same("resid1", a->resid1, b->resid1, n);
        same("norm1", a->norm1, b->norm1, n);
        same("resid2", a->resid2, b->resid2, n);
        same("norm2", a->norm2, b->norm2, n);
        same("out", a->out, b->out, n);
    }
    fz_free_all();
    return 0;
}
