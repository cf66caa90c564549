/* fuzz_decoder.c - bl_decoder_forward and bl_decoder_workspace_size: every size check, ids in
   and out of range, every activation and eps edge, NULL pointers (one layer's weight too),
   which layers keep which intermediates. Input: n_layers, d_model, heads, d_ff, vocab,
   n_positions, L, activation, eps, three flag bytes, the ids, then the floats. A call that
   succeeds must equal, bit for bit, the same layers done through bl_block_forward and
   bl_layernorm_forward, and its logits the rows of wte against the final hidden state. Then the
   hooks and the lens from the input's last FZ_TAIL bytes (fz_hooks_phase). */
#include "fuzz_common.h"

enum { N_FIELDS = 15 };   /* bl_decoder_layer_out's pointers */

/* Expected status, in the engine's order (see the header). */
static FZ_UNUSED bl_status expected(const bl_decoder_desc *d, const bl_decoder_out *o,
                                    const float *ws, int ok_sizes, int bad_layer) {
    if (!d || !o) return BL_ERR_NULL;
    int dims[] = {d->n_layers, d->d_model, d->n_heads, d->d_ff, d->vocab, d->n_positions, d->L};
    for (int i = 0; i < 7; i++)
        if (!fz_dim_ok(dims[i])) return BL_ERR_SIZE;
    if (d->d_model % d->n_heads || d->L > d->n_positions) return BL_ERR_SHAPE;
    if ((unsigned)d->activation >= BL_ACT_COUNT || bl_activation_is_gated(d->activation))
        return BL_ERR_ACTIVATION;
    float e = d->eps == 0.0f ? 1e-5f : d->eps;
    if (!(e > 0.0f) || isinf(e)) return BL_ERR_VALUE;
    if (!ok_sizes) return BL_ERR_TOO_LARGE;
    if (!d->ids || !d->wte || !d->wpe || !d->layers || !o->logits || !ws) return BL_ERR_NULL;
    if (bad_layer) return BL_ERR_NULL;
    for (int i = 0; i < d->L; i++)
        if (d->ids[i] < 0 || d->ids[i] >= d->vocab) return BL_ERR_VALUE;
    return BL_OK;
}

static FZ_QUIET void same(const char *what, int l, const float *a, const float *b, uint64_t n) {
    if (!a) return;
    for (uint64_t i = 0; i < n; i++)
        FZ_CHECK(memcmp(&a[i], &b[i], 4) == 0, "layer %d %s[%llu]: decoder %.9g, block %.9g", l,
                 what, (unsigned long long)i, a[i], b[i]);
}

/* The decoder again through the public single calls; compares what o kept. */
static FZ_QUIET void compose(const bl_decoder_desc *d, const bl_decoder_out *o) {
    int L = d->L, D = d->d_model, F = d->d_ff, H = d->n_heads, V = d->vocab;
    uint64_t n = (uint64_t)L * D, s = (uint64_t)H * L * L, f = (uint64_t)L * F;
    float eps = d->eps == 0.0f ? 1e-5f : d->eps;
    float *h = fz_out(n), *hid = fz_out(n);
    for (int i = 0; i < L; i++)
        for (int c = 0; c < D; c++)
            h[(size_t)i * D + c] = d->wte[(size_t)d->ids[i] * D + c] + d->wpe[(size_t)i * D + c];
    if (o->embed) same("embed", -1, o->embed, h, n);
    bl_block_out r = {
        .attn = {.q = fz_out(n), .k = fz_out(n), .v = fz_out(n), .scores = fz_out(s),
                 .weights = fz_out(s), .context = fz_out(n), .concat = fz_out(n), .out = fz_out(n)},
        .ffn = {.hidden = fz_out(f), .activated = fz_out(f), .out = fz_out(n)},
        .resid1 = fz_out(n), .norm1 = fz_out(n), .resid2 = fz_out(n), .norm2 = fz_out(n),
        .out = fz_out(n)};
    for (int l = 0; l < d->n_layers; l++) {
        const bl_decoder_layer *w = &d->layers[l];
        bl_block_desc b = {
            .L = L, .d_model = D, .n_heads = H, .d_ff = F, .activation = d->activation,
            .pre_ln = 1, .causal = 1, .eps = eps, .x = h, .wq = w->wq, .bq = w->bq, .wk = w->wk,
            .bk = w->bk, .wv = w->wv, .bv = w->bv, .wo = w->wo, .bo = w->bo,
            .ln1_gamma = w->ln1_gamma, .ln1_beta = w->ln1_beta, .ln2_gamma = w->ln2_gamma,
            .ln2_beta = w->ln2_beta, .w1 = w->w1, .b1 = w->b1, .w2 = w->w2, .b2 = w->b2};
        FZ_CHECK(bl_block_forward(&b, &r, NULL, NULL) == BL_OK, "the block refused layer %d", l);
        const bl_decoder_layer_out *k = o->layers ? o->layers[l] : NULL;
        if (k) {
            same("norm1", l, k->norm1, r.norm1, n);
            same("q", l, k->q, r.attn.q, n);
            same("k", l, k->k, r.attn.k, n);
            same("v", l, k->v, r.attn.v, n);
            same("scores", l, k->scores, r.attn.scores, s);
            same("weights", l, k->weights, r.attn.weights, s);
            same("context", l, k->context, r.attn.context, n);
            same("concat", l, k->concat, r.attn.concat, n);
            same("attn_out", l, k->attn_out, r.attn.out, n);
            same("resid1", l, k->resid1, r.resid1, n);
            same("norm2", l, k->norm2, r.norm2, n);
            same("hidden", l, k->hidden, r.ffn.hidden, f);
            same("activated", l, k->activated, r.ffn.activated, f);
            same("ffn_out", l, k->ffn_out, r.ffn.out, n);
            same("resid2", l, k->resid2, r.resid2, n);
        }
        memcpy(h, r.out, n * sizeof(float));
    }
    FZ_CHECK(bl_layernorm_forward(hid, NULL, NULL, h, d->lnf_gamma, d->lnf_beta, L, D, eps, NULL)
                 == BL_OK, "final layer norm refused");
    if (o->hidden) same("final hidden", -1, o->hidden, hid, n);
    uint64_t nl = (uint64_t)L * V;
    double *lg = fz_alloc((size_t)nl * sizeof(double)), *mag = fz_alloc((size_t)nl * sizeof(double));
    ref_linear_tied(lg, mag, fz_widen(hid, n), d->wte, L, D, V);
    for (size_t i = 0; i < nl; i++)
        fz_check_close("logits", i, o->logits[i], lg[i], fz_sum_tol(D, mag[i]));
}

FZ_STACK_ADAPTERS(decoder)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_in in = {data, size};
    int NL = fz_dim(&in, 3), D = fz_dim(&in, 16);
    unsigned hb = fz_byte(&in);
    int F = fz_dim(&in, 24), V = fz_dim(&in, 20), P = fz_dim(&in, 12), L = fz_dim(&in, 12);
    bl_activation act = fz_activation(&in);
    float eps = fz_eps_or_default(&in);
    unsigned f = fz_byte(&in), g = fz_byte(&in), h = fz_byte(&in);
    int H = fz_heads(hb, D);
    if (f & 1 && fz_dim_ok(L) && fz_dim_ok(P) && L > P) P = L;      /* mostly L <= P */
    int raw = (f >> 1) & 1, no_err = (f >> 2) & 1, bare = (f >> 3) & 1, keep_embed = (f >> 4) & 1,
        keep_hidden = (f >> 5) & 1, bad_ids = (f >> 6) & 1;
    unsigned keep_layers = g & 7, fields = g >> 3;   /* which layers keep, and a field mask seed */
    int drop = h & 15, drop_layer = (h >> 4) & 3, drop_weight = (h >> 6) + (g & 1) * 2;  /* 0..5 */

    int dims_ok = fz_dim_ok(NL) && fz_dim_ok(D) && fz_dim_ok(H) && fz_dim_ok(F) && fz_dim_ok(V) &&
                  fz_dim_ok(P) && fz_dim_ok(L);
    int ok_sizes = dims_ok && fz_fits(V, D) && fz_fits(P, D) && fz_fits(L, V) && fz_fits(D, F) &&
                   fz_fits(D, D) && fz_fits((uint64_t)H * L, L) &&
                   fz_fits(L, 12 * (uint64_t)D + F + 1);
    int ok = ok_sizes && D % H == 0 && L <= P;
    uint64_t n = ok ? (uint64_t)L * D : 1, s = ok ? (uint64_t)H * L * L : 1,
             nf = ok ? (uint64_t)L * F : 1, nl = ok ? (uint64_t)NL : 1;
    uint64_t weights = ok ? (uint64_t)V * D + (uint64_t)P * D +
                                nl * (4 * (uint64_t)D * D + 2 * (uint64_t)D * F + 10 * (uint64_t)D + F)
                          : 1;
    uint64_t per_layer = 11 * n + 2 * s + 2 * nf;
    if (weights + nl * per_layer + 2 * per_layer + 16 * n + (ok ? (uint64_t)L * V : 1) >
        FZ_BUDGET_FLOATS)
        return 0;
    if (ok && nl * 2 * ((uint64_t)L * D * D * 4 + (uint64_t)L * L * D * 2 + (uint64_t)L * D * F * 2) +
                  2 * (uint64_t)L * D * V > FZ_BUDGET_WORK)
        return 0;
    if (nl > 4) return 0;   /* fz_alloc's block table: 15 kept buffers per layer at most */

    int32_t *ids = fz_alloc(ok ? (size_t)L * 4 : 4);
    for (uint64_t i = 0; i < (ok ? (uint64_t)L : 1); i++) {
        unsigned b = fz_byte(&in);
        static const int32_t odd[] = {-1, INT32_MIN, INT32_MAX, 65536};
        ids[i] = bad_ids && b >= 240 ? (b == 240 && ok ? V : odd[b % 4]) : (int32_t)(b % (unsigned)(ok ? V : 1));
    }
    bl_decoder_layer *layers = fz_alloc((size_t)nl * sizeof *layers);
    float *wq_all = fz_floats(&in, nl * 4 * (ok ? (uint64_t)D * D : 1), raw);
    float *ffn_all = fz_floats(&in, nl * 2 * (ok ? (uint64_t)D * F : 1), raw);
    float *vec_all = bare ? NULL : fz_floats(&in, nl * (ok ? 10 * (uint64_t)D + F : 10), raw);
    for (uint64_t l = 0; l < nl; l++) {
        uint64_t dd = ok ? (uint64_t)D * D : 1, df = ok ? (uint64_t)D * F : 1;
        uint64_t dv = ok ? (uint64_t)D : 1, fv = ok ? (uint64_t)F : 1;
        float *wm = wq_all + l * 4 * dd, *fm = ffn_all + l * 2 * df;
        float *vv = vec_all ? vec_all + l * (10 * dv + fv) : NULL;
#define VEC(i) (vv ? vv + (i) * dv : NULL)
        layers[l] = (bl_decoder_layer){
            .ln1_gamma = VEC(0), .ln1_beta = VEC(1), .wq = wm, .bq = VEC(2), .wk = wm + dd,
            .bk = VEC(3), .wv = wm + 2 * dd, .bv = VEC(4), .wo = wm + 3 * dd, .bo = VEC(5),
            .ln2_gamma = VEC(6), .ln2_beta = VEC(7), .w1 = fm, .b1 = vv ? vv + 10 * dv : NULL,
            .w2 = fm + df, .b2 = VEC(8)};
#undef VEC
    }
    int bad_layer = 0;
    if (drop == 7) {   /* one required weight of one layer */
        bl_decoder_layer *w = &layers[(uint64_t)drop_layer % nl];
        const float **slot[] = {&w->wq, &w->wk, &w->wv, &w->wo, &w->w1, &w->w2};
        *slot[drop_weight] = NULL;
        bad_layer = 1;
    }
    bl_decoder_desc d = {
        .n_layers = NL, .d_model = D, .n_heads = H, .d_ff = F, .vocab = V, .n_positions = P,
        .activation = act, .eps = eps, .L = L, .ids = ids,
        .wte = fz_floats(&in, ok ? (uint64_t)V * D : 1, raw),
        .wpe = fz_floats(&in, ok ? (uint64_t)P * D : 1, raw), .layers = layers,
        .lnf_gamma = bare ? NULL : fz_floats(&in, ok ? (uint64_t)D : 1, raw),
        .lnf_beta = bare ? NULL : fz_floats(&in, ok ? (uint64_t)D : 1, raw)};

    /* kept intermediates: layers whose bit is set keep the fields of a mask from `fields` */
    bl_decoder_layer_out *keep_list[4] = {0}, *keeps = fz_alloc((size_t)nl * sizeof *keeps);
    for (uint64_t l = 0; l < nl; l++) {
        keeps[l] = (bl_decoder_layer_out){0};
        if (!((keep_layers >> (l % 3)) & 1)) continue;
        unsigned mask = (fields * 2654435761u + (unsigned)l * 40503u) >> 17;   /* 15 bits */
        float **p = (float **)&keeps[l];
        uint64_t sizes[N_FIELDS] = {n, n, n, n, s, s, n, n, n, n, n, nf, nf, n, n};
        for (int i = 0; i < N_FIELDS; i++)
            if ((mask >> i) & 1) p[i] = fz_out(sizes[i]);
        keep_list[l] = &keeps[l];
    }
    bl_decoder_out o = {.logits = fz_out(ok ? (uint64_t)L * V : 1),
                        .embed = keep_embed ? fz_out(n) : NULL,
                        .hidden = keep_hidden ? fz_out(n) : NULL,
                        .layers = keep_layers ? keep_list : NULL};
    size_t ws_size = bl_decoder_workspace_size(&d);
    int sizes_pass = ok && (unsigned)act < BL_ACT_COUNT && !bl_activation_is_gated(act) &&
                     (eps == 0.0f || (eps > 0.0f && !isinf(eps)));
    FZ_CHECK(ws_size == (sizes_pass ? (size_t)L * (12 * (size_t)D + F + 1) : 0),
             "decoder workspace %zu", ws_size);
    float *ws = fz_out(ok ? (uint64_t)L * (12 * (uint64_t)D + F + 1) : 1);

    const bl_decoder_desc *dp = &d;
    const bl_decoder_out *op = &o;
    switch (drop) {
    case 1: d.ids = NULL; break;
    case 2: d.wte = NULL; break;
    case 3: d.wpe = NULL; break;
    case 4: d.layers = NULL; break;
    case 5: o.logits = NULL; break;
    case 6: ws = NULL; break;
    case 8: dp = NULL; break;
    case 9: op = NULL; break;
    }
    bl_status want = expected(dp, op, ws, ok_sizes, bad_layer);
    bl_error err;
    bl_status st = bl_decoder_forward(dp, op, ws, no_err ? NULL : &err);
    /* finite weights can overflow float32 inside: refused then, with the Inf/NaN in the logits */
    int overflowed = 0;
    for (uint64_t i = 0; want == BL_OK && st == BL_ERR_VALUE && i < (uint64_t)L * V; i++)
        overflowed |= !isfinite(o.logits[i]);
    if (overflowed) want = BL_ERR_VALUE;
    fz_check_status("bl_decoder_forward", st, want, no_err ? NULL : &err);
    if (st == BL_OK && !raw) compose(&d, &o);
    fz_in tail = fz_tail(data, size);
    if (st == BL_OK && !raw && NL <= 4) fz_hooks_phase(&FZ_STACK(decoder, &d, D / H), &tail, ws);
    fz_free_all();
    return 0;
}
