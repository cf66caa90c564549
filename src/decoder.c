/* decoder.c - a whole GPT-2-style decoder: token and position embeddings, n_layers pre-LN
   causal blocks (bl_block_forward), the final layer norm and the tied unembedding. Every
   intermediate the caller does not keep lands in the workspace. */
#include <math.h>
#include "bl_internal.h"

/* The workspace, one table for its size and its use: WS_LD buffers of (L, d_model) (the two
   residual streams, then one block's outputs nobody keeps), one (L, d_ff) for the activated
   hidden layer, and one row of L for the attention's softmax when weights are not kept. */
enum { WS_H0, WS_H1, WS_NORM1, WS_Q, WS_K, WS_V, WS_CONCAT, WS_ATTN, WS_RESID1, WS_NORM2, WS_FFN,
       WS_RESID2, WS_LD };

/* Every check that needs only the sizes, in the order the header documents. */
static bl_status check_sizes(const bl_decoder_desc *d, bl_error *err) {
    BL__CHECK(bl__check_dim(err, "n_layers", d->n_layers));
    BL__CHECK(bl__check_dim(err, "d_model", d->d_model));
    BL__CHECK(bl__check_dim(err, "n_heads", d->n_heads));
    BL__CHECK(bl__check_dim(err, "d_ff", d->d_ff));
    BL__CHECK(bl__check_dim(err, "vocab", d->vocab));
    BL__CHECK(bl__check_dim(err, "n_positions", d->n_positions));
    BL__CHECK(bl__check_dim(err, "L", d->L));
    if (d->d_model % d->n_heads != 0)
        return bl__fail(err, BL_ERR_SHAPE, "d_model (%d) must be divisible by n_heads (%d)",
                        d->d_model, d->n_heads);
    if (d->L > d->n_positions)
        return bl__fail(err, BL_ERR_SHAPE, "L (%d) must be at most n_positions (%d)", d->L,
                        d->n_positions);
    BL__CHECK(bl__check_activation(err, d->activation, "the decoder's FFN (GPT-2's c_fc, c_proj)"));
    float eps = d->eps == 0.0f ? 1e-5f : d->eps;
    if (!(eps > 0.0f) || isinf(eps))
        return bl__fail(err, BL_ERR_VALUE, "eps (%g) must be a positive finite number",
                        (double)d->eps);
    uint64_t L = (uint64_t)d->L, D = (uint64_t)d->d_model, F = (uint64_t)d->d_ff;
    BL__CHECK(bl__check_elems(err, "wte", (uint64_t)d->vocab, D));
    BL__CHECK(bl__check_elems(err, "wpe", (uint64_t)d->n_positions, D));
    BL__CHECK(bl__check_elems(err, "logits", L, (uint64_t)d->vocab));
    BL__CHECK(bl__check_elems(err, "w1", D, F));
    BL__CHECK(bl__check_elems(err, "wq", D, D));
    BL__CHECK(bl__check_elems(err, "scores", (uint64_t)d->n_heads * L, L));
    /* L (WS_LD d_model + d_ff + 1): the second factor is below 2^20 */
    BL__CHECK(bl__check_elems(err, "workspace", L, WS_LD * D + F + 1));
    return BL_OK;
}

size_t bl_decoder_workspace_size(const bl_decoder_desc *d) {
    if (!d || check_sizes(d, NULL) != BL_OK) return 0;
    /* checked: at most BL_MAX_ELEMS, so size_t holds it on wasm32 too */
    return (size_t)d->L * (WS_LD * (size_t)d->d_model + (size_t)d->d_ff + 1);
}

static bl_status check_layer(const bl_decoder_layer *w, int l, bl_error *err) {
    const float *required[] = {w->wq, w->wk, w->wv, w->wo, w->w1, w->w2};
    static const char *const names[] = {"wq", "wk", "wv", "wo", "w1", "w2"};
    for (int i = 0; i < 6; i++)
        if (!required[i])
            return bl__fail(err, BL_ERR_NULL, "layers[%d].%s must not be NULL", l, names[i]);
    return BL_OK;
}

/* p if given, else the workspace's buffer */
static float *or_ws(float *p, float *scratch) { return p ? p : scratch; }

bl_status bl_decoder_forward(const bl_decoder_desc *d, const bl_decoder_out *o, float *ws,
                             bl_error *err) {
    BL__CHECK(bl__check_ptr(err, "desc", d));
    BL__CHECK(bl__check_ptr(err, "out", o));
    BL__CHECK(check_sizes(d, err));
    BL__CHECK(bl__check_ptr(err, "ids", d->ids));
    BL__CHECK(bl__check_ptr(err, "wte", d->wte));
    BL__CHECK(bl__check_ptr(err, "wpe", d->wpe));
    BL__CHECK(bl__check_ptr(err, "layers", d->layers));
    BL__CHECK(bl__check_ptr(err, "logits", o->logits));
    BL__CHECK(bl__check_ptr(err, "workspace", ws));
    for (int l = 0; l < d->n_layers; l++) BL__CHECK(check_layer(&d->layers[l], l, err));
    BL__CHECK(bl__check_ids(err, d->ids, d->L, d->vocab));

    int L = d->L, D = d->d_model;
    size_t n = (size_t)L * D;   /* checked: every index below is under BL_MAX_ELEMS */
    float eps = d->eps == 0.0f ? 1e-5f : d->eps;
    float *buf[WS_LD];
    for (int i = 0; i < WS_LD; i++) buf[i] = ws + (size_t)i * n;
    float *activated = ws + WS_LD * n, *row = activated + (size_t)L * d->d_ff;

    /* h (L, D) = wte[ids] + wpe[0:L] */
    float *h = buf[WS_H0], *next = buf[WS_H1];
    for (int i = 0; i < L; i++) {
        const float *te = d->wte + (size_t)d->ids[i] * D, *pe = d->wpe + (size_t)i * D;
        for (int c = 0; c < D; c++) h[(size_t)i * D + c] = te[c] + pe[c];
    }
    if (o->embed)
        for (size_t i = 0; i < n; i++) o->embed[i] = h[i];

    /* the blocks: h -> next, kept intermediates where the caller asked, else the workspace */
    for (int l = 0; l < d->n_layers; l++) {
        const bl_decoder_layer *w = &d->layers[l];
        bl_decoder_layer_out k = {0};
        if (o->layers && o->layers[l]) k = *o->layers[l];
        bl_block_desc b = {
            .L = L, .d_model = D, .n_heads = d->n_heads, .d_ff = d->d_ff,
            .activation = d->activation, .pre_ln = 1, .causal = 1, .eps = eps, .x = h,
            .wq = w->wq, .bq = w->bq, .wk = w->wk, .bk = w->bk, .wv = w->wv, .bv = w->bv,
            .wo = w->wo, .bo = w->bo, .ln1_gamma = w->ln1_gamma, .ln1_beta = w->ln1_beta,
            .ln2_gamma = w->ln2_gamma, .ln2_beta = w->ln2_beta,
            .w1 = w->w1, .b1 = w->b1, .w2 = w->w2, .b2 = w->b2};
        bl_block_out bo = {
            .attn = {.q = or_ws(k.q, buf[WS_Q]), .k = or_ws(k.k, buf[WS_K]),
                     .v = or_ws(k.v, buf[WS_V]), .scores = k.scores, .weights = k.weights,
                     .context = k.context, .concat = or_ws(k.concat, buf[WS_CONCAT]),
                     .out = or_ws(k.attn_out, buf[WS_ATTN])},
            .ffn = {.hidden = k.hidden, .activated = or_ws(k.activated, activated),
                    .out = or_ws(k.ffn_out, buf[WS_FFN])},
            .resid1 = or_ws(k.resid1, buf[WS_RESID1]), .norm1 = or_ws(k.norm1, buf[WS_NORM1]),
            .resid2 = or_ws(k.resid2, buf[WS_RESID2]), .norm2 = or_ws(k.norm2, buf[WS_NORM2]),
            .out = next};
        BL__CHECK(bl_block_forward(&b, &bo, row, err));
        float *t = h;
        h = next;
        next = t;
    }

    /* hidden = LN_f(h); logits (L, vocab) = hidden @ wte^T, wte read as (vocab, D) rows */
    float *hidden = or_ws(o->hidden, buf[WS_NORM1]);
    BL__CHECK(bl_layernorm_forward(hidden, NULL, NULL, h, d->lnf_gamma, d->lnf_beta, L, D, eps,
                                   err));
    bl__gemm(o->logits, d->vocab, NULL, hidden, D, d->wte, D, 1, NULL, L, D, d->vocab,
             BL_ACT_IDENTITY);
    /* finite weights can still overflow float32 on the way: say so rather than return Inf/NaN */
    for (size_t i = 0, V = (size_t)d->vocab, nl = (size_t)L * V; i < nl; i++) {
        float v = o->logits[i];
        if (v - v != 0.0f)
            return bl__fail(err, BL_ERR_VALUE, "logit of token %d, vocabulary entry %d is %s: "
                            "float32 overflowed inside the model", (int)(i / V), (int)(i % V),
                            v != v ? "NaN" : "infinite");
    }
    bl__ok(err);
    return BL_OK;
}
