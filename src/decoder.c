/* decoder.c - a whole GPT-2-style decoder: token and position embeddings, n_layers pre-LN
   causal blocks (bl_block_forward's pre-LN steps, spelled out so the hooks reach every site),
   the final layer norm and the tied unembedding; and its logit lens. Every intermediate the
   caller does not keep lands in the workspace. */
#include <math.h>
#include <string.h>
#include "bl_internal.h"

/* The workspace, one table for its size and its use: WS_LD buffers of (L, d_model) (the two
   residual streams, then one block's outputs nobody keeps), one (L, d_ff) for the activated
   hidden layer, and one row of L for the attention's softmax when weights are not kept. */
enum { WS_H0, WS_H1, WS_NORM1, WS_Q, WS_K, WS_V, WS_CONCAT, WS_ATTN, WS_RESID1, WS_NORM2, WS_FFN,
       WS_RESID2, WS_LD };

/* Every check that needs only the sizes, in the order the header documents. */
static bl_status check_sizes(const bl_decoder_desc *d, bl_error *err) {
    bl__gpt2_sizes sz = {d->n_layers, d->d_model, d->n_heads, d->d_ff, d->vocab, d->n_positions,
                         1, d->L};
    BL__CHECK(bl__check_gpt2_sizes(err, &sz));
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

static bl_hooks hooks_of(const bl_decoder_desc *d) {
    return (bl_hooks){.edits = d->edits, .n_edits = d->n_edits, .first_layer = d->first_layer,
                      .start = d->start, .end_layer = d->end_layer,
                      .logits_last = d->logits_last};
}

/* Logits (rows, V) of a checked non-finite scan: BL_OK, or the message naming the entry. */
static bl_status check_logits(const float *logits, int row0, int rows, int V, bl_error *err) {
    for (size_t i = 0, nl = (size_t)rows * V; i < nl; i++) {
        float v = logits[i];
        if (v - v != 0.0f)
            return bl__fail(err, BL_ERR_VALUE, "logit of token %d, vocabulary entry %d is %s: "
                            "float32 overflowed inside the model", row0 + (int)(i / V),
                            (int)(i % V), v != v ? "NaN" : "infinite");
    }
    return BL_OK;
}

bl_status bl_decoder_forward(const bl_decoder_desc *d, const bl_decoder_out *o, float *ws,
                             bl_error *err) {
    BL__CHECK(bl__check_ptr(err, "desc", d));
    BL__CHECK(bl__check_ptr(err, "out", o));
    BL__CHECK(check_sizes(d, err));
    bl_hooks hk = hooks_of(d);
    int end;
    BL__CHECK(bl__check_hooks(err, &hk, d->n_layers, d->L, d->n_heads, &end));
    BL__CHECK(bl__check_ptr(err, "ids", d->ids));
    BL__CHECK(bl__check_ptr(err, "wte", d->wte));
    BL__CHECK(bl__check_ptr(err, "wpe", d->wpe));
    BL__CHECK(bl__check_ptr(err, "layers", d->layers));
    if (!d->end_layer) BL__CHECK(bl__check_ptr(err, "logits", o->logits));
    BL__CHECK(bl__check_ptr(err, "workspace", ws));
    for (int l = 0; l < d->n_layers; l++) BL__CHECK(check_layer(&d->layers[l], l, err));
    BL__CHECK(bl__check_ids(err, d->ids, d->L, d->vocab));

    int L = d->L, D = d->d_model, F = d->d_ff, H = d->n_heads, dk = D / H;
    size_t n = (size_t)L * D;   /* checked: every index below is under BL_MAX_ELEMS */
    float eps = d->eps == 0.0f ? 1e-5f : d->eps;
    float *buf[WS_LD];
    for (int i = 0; i < WS_LD; i++) buf[i] = ws + (size_t)i * n;
    float *activated = ws + WS_LD * n, *row = activated + (size_t)L * F;

    /* h (L, D) = wte[ids] + wpe[0:L], or the caller's start */
    float *h = buf[WS_H0], *next = buf[WS_H1];
    for (int i = 0; i < L; i++) {
        const float *te = d->wte + (size_t)d->ids[i] * D, *pe = d->wpe + (size_t)i * D;
        for (int c = 0; c < D; c++) h[(size_t)i * D + c] = te[c] + pe[c];
    }
    if (o->embed) memcpy(o->embed, h, n * sizeof(float));
    if (d->start) memcpy(h, d->start, n * sizeof(float));

    /* the blocks (pre-LN, causal), kept intermediates where the caller asked, else the
       workspace; each site's edits right after it is computed */
    for (int l = d->first_layer; l < end; l++) {
        const bl_decoder_layer *w = &d->layers[l];
        bl_decoder_layer_out k = {0};
        if (o->layers && o->layers[l]) k = *o->layers[l];
        bl__apply_edits(&hk, l, BL_SITE_RESID_IN, h, L, D, D);
        if (k.x) memcpy(k.x, h, n * sizeof(float));
        float *norm1 = or_ws(k.norm1, buf[WS_NORM1]);
        BL__CHECK(bl_layernorm_forward(norm1, NULL, NULL, h, w->ln1_gamma, w->ln1_beta, L, D,
                                       eps, err));
        bl__apply_edits(&hk, l, BL_SITE_ATTN_IN, norm1, L, D, D);
        bl_attention_desc ad = {
            .L = L, .d_model = D, .n_heads = H, .causal = 1, .x = norm1,
            .wq = w->wq, .bq = w->bq, .wk = w->wk, .bk = w->bk, .wv = w->wv, .bv = w->bv,
            .wo = w->wo, .bo = w->bo};
        bl_attention_out ao = {
            .q = or_ws(k.q, buf[WS_Q]), .k = or_ws(k.k, buf[WS_K]), .v = or_ws(k.v, buf[WS_V]),
            .scores = k.scores, .weights = k.weights, .context = k.context,
            .concat = or_ws(k.concat, buf[WS_CONCAT]), .out = or_ws(k.attn_out, buf[WS_ATTN])};
        BL__CHECK(bl_attention_forward(&ad, &ao, row, err));
        /* edited heads: into concat (and the kept context), then o_proj again, the same call */
        if (bl__apply_edits(&hk, l, BL_SITE_HEAD_OUT, ao.concat, L, dk, D)) {
            if (k.context)
                for (int hh = 0; hh < H; hh++)
                    for (int i = 0; i < L; i++)
                        memcpy(k.context + ((size_t)hh * L + i) * dk,
                               ao.concat + (size_t)i * D + (size_t)hh * dk,
                               (size_t)dk * sizeof(float));
            bl__matmul(ao.out, ao.concat, w->wo, w->bo, L, D, D);
        }
        bl__apply_edits(&hk, l, BL_SITE_ATTN_OUT, ao.out, L, D, D);
        float *resid1 = or_ws(k.resid1, buf[WS_RESID1]);
        for (size_t i = 0; i < n; i++) resid1[i] = h[i] + ao.out[i];
        bl__apply_edits(&hk, l, BL_SITE_RESID_MID, resid1, L, D, D);
        float *norm2 = or_ws(k.norm2, buf[WS_NORM2]);
        BL__CHECK(bl_layernorm_forward(norm2, NULL, NULL, resid1, w->ln2_gamma, w->ln2_beta, L,
                                       D, eps, err));
        bl__apply_edits(&hk, l, BL_SITE_FFN_IN, norm2, L, D, D);
        /* FFN as bl_ffn_forward computes it (ungated), split at the hidden layer */
        float *act = or_ws(k.activated, activated), *ffn = or_ws(k.ffn_out, buf[WS_FFN]);
        bl__matmul_act(act, k.hidden, norm2, w->w1, w->b1, L, D, F, d->activation);
        bl__apply_edits(&hk, l, BL_SITE_FFN_HIDDEN, act, L, F, F);
        bl__matmul(ffn, act, w->w2, w->b2, L, F, D);
        bl__apply_edits(&hk, l, BL_SITE_FFN_OUT, ffn, L, D, D);
        for (size_t i = 0; i < n; i++) next[i] = resid1[i] + ffn[i];
        if (k.resid2) memcpy(k.resid2, next, n * sizeof(float));
        float *t = h;
        h = next;
        next = t;
    }
    if (d->end_layer) {
        bl__ok(err);
        return BL_OK;
    }

    /* hidden = LN_f(h); logits (rows, vocab) = hidden[row0:] @ wte^T, wte read as (vocab, D)
       rows, rounded as the whole product would be (so the last row alone is bit-identical) */
    float *hidden = or_ws(o->hidden, buf[WS_NORM1]);
    BL__CHECK(bl_layernorm_forward(hidden, NULL, NULL, h, d->lnf_gamma, d->lnf_beta, L, D, eps,
                                   err));
    int row0 = bl__logits_row0(d->logits_last, L);
    bl__gemm_typed_as(o->logits, d->vocab, NULL, hidden + (size_t)row0 * D, D, d->wte,
                      BL_DTYPE_F32, D, 1, NULL, L - row0, D, d->vocab, BL_ACT_IDENTITY,
                      (uint64_t)L * D * d->vocab);
    /* finite weights can still overflow float32 on the way: say so rather than return Inf/NaN */
    BL__CHECK(check_logits(o->logits, row0, L - row0, d->vocab, err));
    bl__ok(err);
    return BL_OK;
}

/* The lens's scratch: a block of rows normed (rows, D) and their logits (rows, vocab). */

size_t bl_decoder_lens_workspace_size(const bl_decoder_desc *d) {
    if (!d || check_sizes(d, NULL) != BL_OK) return 0;
    uint64_t f = (uint64_t)bl__lens_rows(d->L) * ((uint64_t)d->d_model + (uint64_t)d->vocab);
    return f > BL_MAX_ELEMS ? 0 : (size_t)f;
}

bl_status bl_decoder_lens(const bl_decoder_desc *d, const float *h, int k, int32_t *ids,
                          float *probs, const bl_lens_target *t, float *ws, bl_error *err) {
    BL__CHECK(bl__check_ptr(err, "desc", d));
    BL__CHECK(check_sizes(d, err));
    BL__CHECK(bl__lens_check(err, d->L, d->d_model, d->vocab, bl_decoder_lens_workspace_size(d),
                             k, h, "wte", d->wte, ids, probs, t, ws));
    if (t && !t->targets) t = NULL;
    int L = d->L, D = d->d_model, V = d->vocab, rb = bl__lens_rows(L);
    float eps = d->eps == 0.0f ? 1e-5f : d->eps;
    float *normed = ws, *logits = ws + (size_t)rb * D;
    for (int i0 = 0; i0 < L; i0 += rb) {
        int rows = L - i0 < rb ? L - i0 : rb;
        /* the forward's final norm and unembedding on these rows, rounded as its one product */
        BL__CHECK(bl_layernorm_forward(normed, NULL, NULL, h + (size_t)i0 * D, d->lnf_gamma,
                                       d->lnf_beta, rows, D, eps, err));
        bl__gemm_typed_as(logits, V, NULL, normed, D, d->wte, BL_DTYPE_F32, D, 1, NULL, rows, D, V,
                          BL_ACT_IDENTITY, (uint64_t)L * D * V);
        BL__CHECK(check_logits(logits, i0, rows, V, err));
        for (int r = 0, i = i0; r < rows; r++, i++)
            bl__lens_row(logits + (size_t)r * V, V, k, ids + (size_t)i * k, probs + (size_t)i * k,
                         t ? t->targets[i] : -1, t ? t->rank + i : NULL, t ? t->prob + i : NULL);
    }
    bl__ok(err);
    return BL_OK;
}
