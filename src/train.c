/* train.c - training a GPT-2 decoder: the parameter layout (one table), the forward with every
   intermediate kept for the backward, the backward through the whole model, and the
   bl_train_grad / bl_train_eval entry points; the ops' backward passes are in backward.c. The
   forward is bl_decoder_forward's maths on batch * L rows (attention per sequence through
   bl_attention_forward). */
#include <math.h>
#include <string.h>
#include "bl_internal.h"

/* ---- the parameter layout: sizes per part, in HF GPT-2 order -------------------------- */
static size_t part_size(const bl_train_desc *d, bl_train_part p) {
    size_t D = (size_t)d->d_model, F = (size_t)d->d_ff;
    switch (p) {
    case BL_TP_WTE: return (size_t)d->vocab * D;
    case BL_TP_WPE: return (size_t)d->n_positions * D;
    case BL_TP_WQ: case BL_TP_WK: case BL_TP_WV: case BL_TP_WO: return D * D;
    case BL_TP_W1: case BL_TP_W2: return D * F;
    case BL_TP_B1: return F;
    default: return D;   /* the gains and biases of width d_model */
    }
}

size_t bl_train_param_size(const bl_train_desc *d, bl_train_part part) {
    if (!d || bl__train_check(d, NULL) != BL_OK || (unsigned)part >= BL_TP_COUNT) return 0;
    return part_size(d, part);
}
#define LAYER_FIRST BL_TP_LN1_GAMMA
#define LAYER_END BL_TP_LNF_GAMMA   /* parts [LAYER_FIRST, LAYER_END) repeat per layer */

bl_status bl__train_check(const bl_train_desc *d, bl_error *err) {
    BL__CHECK(bl__check_ptr(err, "desc", d));
    bl__gpt2_sizes sz = {d->n_layers, d->d_model, d->n_heads, d->d_ff, d->vocab, d->n_positions,
                         d->batch, d->L};
    BL__CHECK(bl__check_gpt2_sizes(err, &sz));
    if (d->activation != BL_ACT_RELU && d->activation != BL_ACT_GELU &&
        d->activation != BL_ACT_GELU_TANH)
        return bl__fail(err, BL_ERR_ACTIVATION, "activation (%d) must be relu (0), gelu (1) or "
                        "gelu_tanh (2) for training", (int)d->activation);
    float eps = d->eps == 0.0f ? 1e-5f : d->eps;
    if (!(eps > 0.0f) || isinf(eps))
        return bl__fail(err, BL_ERR_VALUE, "eps (%g) must be a positive finite number",
                        (double)d->eps);
    uint64_t D = (uint64_t)d->d_model, F = (uint64_t)d->d_ff, V = (uint64_t)d->vocab;
    uint64_t BL = (uint64_t)d->batch * (uint64_t)d->L, NL = (uint64_t)d->n_layers;
    BL__CHECK(bl__check_elems(err, "batch * L", (uint64_t)d->batch, (uint64_t)d->L));
    BL__CHECK(bl__check_elems(err, "wte", V, D));
    BL__CHECK(bl__check_elems(err, "logits (batch * L x vocab)", BL, V));
    /* every layer's parameters: 4 D^2 + 2 D F + 9 D + F (below 2^36 for checked dims) */
    uint64_t per = 4 * D * D + 2 * D * F + 9 * D + F;
    uint64_t all = (V + (uint64_t)d->n_positions) * D + 2 * D;
    if (per > BL_MAX_ELEMS || NL * per > BL_MAX_ELEMS - all)
        return bl__fail(err, BL_ERR_TOO_LARGE, "parameters (%llu per layer x %d layers) exceed "
                        "%u floats", (unsigned long long)per, d->n_layers, (unsigned)BL_MAX_ELEMS);
    return BL_OK;
}

size_t bl_train_param_count(const bl_train_desc *d) {
    if (!d || bl__train_check(d, NULL) != BL_OK) return 0;
    size_t n = part_size(d, BL_TP_WTE) + part_size(d, BL_TP_WPE) + 2 * (size_t)d->d_model;
    for (int p = LAYER_FIRST; p < LAYER_END; p++) n += (size_t)d->n_layers * part_size(d, p);
    return n;
}

size_t bl_train_param_offset(const bl_train_desc *d, int layer, bl_train_part part) {
    if (!d || bl__train_check(d, NULL) != BL_OK || (unsigned)part >= BL_TP_COUNT) return (size_t)-1;
    int in_layer = part >= LAYER_FIRST && part < LAYER_END;
    if (in_layer ? layer < 0 || layer >= d->n_layers : layer != -1) return (size_t)-1;
    size_t at = part_size(d, BL_TP_WTE), per = 0;
    if (part == BL_TP_WTE) return 0;
    if (part == BL_TP_WPE) return at;
    at += part_size(d, BL_TP_WPE);
    for (int p = LAYER_FIRST; p < LAYER_END; p++) per += part_size(d, p);
    if (!in_layer)   /* ln_f, after the layers */
        return at + (size_t)d->n_layers * per + (part == BL_TP_LNF_BETA ? (size_t)d->d_model : 0);
    at += (size_t)layer * per;
    for (int p = LAYER_FIRST; p < (int)part; p++) at += part_size(d, p);
    return at;
}

/* The parameters (or gradients) of one layer as pointers into the flat buffer. */
typedef struct layer_ptrs {
    float *p[BL_TP_COUNT];
} layer_ptrs;
static layer_ptrs ptrs_of(const bl_train_desc *d, const float *base, int layer) {
    layer_ptrs r;
    for (int p = 0; p < BL_TP_COUNT; p++) {
        int in_layer = p >= LAYER_FIRST && p < LAYER_END;
        r.p[p] = (float *)base + bl_train_param_offset(d, in_layer ? layer : -1, p);
    }
    return r;
}

/* ---- the workspace: one table for its size and its use -------------------------------
   Per layer (kept for the backward): x (the residual entering), norm1, q, k, v, concat,
   resid1, norm2 (BL, D) each; mean1, rstd1, mean2, rstd2 (BL) each; pre, act (BL, F) each;
   att (batch, H, L, L). Then the final h and LN_f output (BL, D), its mean and rstd (BL), the
   logits (BL, V); the backward's scratch: dh, dn, dq, dk, dv, dc, tmp (BL, D), da (BL, F), one
   transpose buffer (train_scratch); and the input and target ids (2 BL int32). */
enum { LD_X, LD_N1, LD_Q, LD_K, LD_V, LD_C, LD_R1, LD_N2, LD_COUNT };
typedef struct cache {
    float *ld[LD_COUNT], *mean1, *rstd1, *mean2, *rstd2, *pre, *act, *att;
} cache;
typedef struct wsmap {
    float *hf, *nf, *meanf, *rstdf, *logits, *dh, *dn, *dq, *dk, *dv, *dc, *tmp, *da, *t;
    int32_t *ids;
} wsmap;

/* floats of the transpose buffer: the largest of the backward's weight gradients' needs */
static uint64_t train_scratch(const bl_train_desc *d) {
    uint64_t M = (uint64_t)d->batch * d->L, D = (uint64_t)d->d_model, F = (uint64_t)d->d_ff;
    uint64_t need[4] = {bl__weight_grad_scratch(M, (uint64_t)d->vocab, D),
                        bl__weight_grad_scratch(M, F, D), bl__weight_grad_scratch(M, D, F),
                        bl__weight_grad_scratch(M, D, D)};
    uint64_t big = 0;
    for (int i = 0; i < 4; i++) big = need[i] > big ? need[i] : big;
    return big;
}

static size_t per_layer(const bl_train_desc *d, size_t BL) {
    return BL * (LD_COUNT * (size_t)d->d_model + 4 + 2 * (size_t)d->d_ff) +
           (size_t)d->batch * d->n_heads * d->L * d->L;
}

size_t bl_train_workspace_size(const bl_train_desc *d) {
    if (!d || bl__train_check(d, NULL) != BL_OK) return 0;
    uint64_t BL = (uint64_t)d->batch * d->L, D = (uint64_t)d->d_model, F = (uint64_t)d->d_ff,
             V = (uint64_t)d->vocab, H = (uint64_t)d->n_heads, L = (uint64_t)d->L;
    uint64_t big = train_scratch(d);
    uint64_t layer = BL * (LD_COUNT * D + 4 + 2 * F) + (uint64_t)d->batch * H * L * L;
    uint64_t n = (uint64_t)d->n_layers * layer + BL * (2 * D + 2 + V) + BL * (7 * D + F) + big +
                 2 * BL;
    return n > BL_MAX_ELEMS ? 0 : (size_t)n;
}

static cache cache_of(const bl_train_desc *d, float *ws, int l, size_t BL) {
    float *p = ws + (size_t)l * per_layer(d, BL);
    size_t D = (size_t)d->d_model, F = (size_t)d->d_ff;
    cache c;
    for (int i = 0; i < LD_COUNT; i++, p += BL * D) c.ld[i] = p;
    c.mean1 = p; p += BL;
    c.rstd1 = p; p += BL;
    c.mean2 = p; p += BL;
    c.rstd2 = p; p += BL;
    c.pre = p; p += BL * F;
    c.act = p; p += BL * F;
    c.att = p;
    return c;
}

static wsmap map_of(const bl_train_desc *d, float *ws, size_t BL) {
    size_t D = (size_t)d->d_model, F = (size_t)d->d_ff, V = (size_t)d->vocab;
    wsmap w;
    float *p = ws + (size_t)d->n_layers * per_layer(d, BL);
    float **ld[] = {&w.hf, &w.nf};
    for (int i = 0; i < 2; i++, p += BL * D) *ld[i] = p;
    w.meanf = p; p += BL;
    w.rstdf = p; p += BL;
    w.logits = p; p += BL * V;
    float **sc[] = {&w.dh, &w.dn, &w.dq, &w.dk, &w.dv, &w.dc, &w.tmp};
    for (int i = 0; i < 7; i++, p += BL * D) *sc[i] = p;
    w.da = p; p += BL * F;
    w.t = p;
    p += (size_t)train_scratch(d);
    w.ids = (int32_t *)p;
    return w;
}

/* ---- forward and backward of the whole model ------------------------------------------ */

/* inputs (BL) and targets (BL) of tokens (batch, L + 1), checked: -1 only where allowed;
   returns the scored targets' count or -1 (err set) */
static int split_tokens(const bl_train_desc *d, const int32_t *tokens, int32_t *in, int32_t *tg,
                        bl_error *err) {
    int n = 0, L = d->L;
    for (int b = 0; b < d->batch; b++)
        for (int i = 0; i <= L; i++) {
            int32_t t = tokens[(size_t)b * (L + 1) + i];
            if (t < -1 || t >= d->vocab) {
                bl__fail(err, BL_ERR_VALUE, "tokens[%d][%d] (%ld) must be -1 (none) or in "
                         "[0, vocab %d)", b, i, (long)t, d->vocab);
                return -1;
            }
            if (i < L) in[(size_t)b * L + i] = t < 0 ? 0 : t;   /* padding reads as id 0 */
            if (i > 0) {
                tg[(size_t)b * L + i - 1] = t;
                n += t >= 0;
            }
        }
    if (n == 0) bl__fail(err, BL_ERR_VALUE, "tokens has no target to score (every target is -1)");
    return n ? n : -1;
}

static bl_status forward(const bl_train_desc *d, const float *params, const int32_t *in,
                         float *ws, bl_error *err) {
    int B = d->batch, L = d->L, D = d->d_model, F = d->d_ff, H = d->n_heads, BLi = B * L;
    size_t BL = (size_t)BLi, n = BL * D;
    float eps = d->eps == 0.0f ? 1e-5f : d->eps;
    wsmap w = map_of(d, ws, BL);
    layer_ptrs g = ptrs_of(d, params, 0);
    /* x0 (BL, D) = wte[in] + wpe[position] */
    float *x = cache_of(d, ws, 0, BL).ld[LD_X];
    for (size_t r = 0; r < BL; r++) {
        const float *te = g.p[BL_TP_WTE] + (size_t)in[r] * D, *pe = g.p[BL_TP_WPE] + (r % L) * D;
        for (int c = 0; c < D; c++) x[r * D + c] = te[c] + pe[c];
    }
    for (int l = 0; l < d->n_layers; l++) {
        cache c = cache_of(d, ws, l, BL);
        layer_ptrs p = ptrs_of(d, params, l);
        float *next = l + 1 < d->n_layers ? cache_of(d, ws, l + 1, BL).ld[LD_X] : w.hf;
        BL__CHECK(bl_layernorm_forward(c.ld[LD_N1], c.mean1, c.rstd1, c.ld[LD_X],
                                       p.p[BL_TP_LN1_GAMMA], p.p[BL_TP_LN1_BETA], BLi, D, eps,
                                       err));
        for (int b = 0; b < B; b++) {
            size_t o = (size_t)b * L * D;
            bl_attention_desc ad = {.L = L, .d_model = D, .n_heads = H, .causal = 1,
                                    .x = c.ld[LD_N1] + o, .wq = p.p[BL_TP_WQ], .bq = p.p[BL_TP_BQ],
                                    .wk = p.p[BL_TP_WK], .bk = p.p[BL_TP_BK], .wv = p.p[BL_TP_WV],
                                    .bv = p.p[BL_TP_BV], .wo = p.p[BL_TP_WO], .bo = p.p[BL_TP_BO]};
            bl_attention_out ao = {.q = c.ld[LD_Q] + o, .k = c.ld[LD_K] + o, .v = c.ld[LD_V] + o,
                                   .weights = c.att + (size_t)b * H * L * L,
                                   .concat = c.ld[LD_C] + o, .out = w.tmp + o};
            BL__CHECK(bl_attention_forward(&ad, &ao, NULL, err));
        }
        for (size_t i = 0; i < n; i++) c.ld[LD_R1][i] = c.ld[LD_X][i] + w.tmp[i];
        BL__CHECK(bl_layernorm_forward(c.ld[LD_N2], c.mean2, c.rstd2, c.ld[LD_R1],
                                       p.p[BL_TP_LN2_GAMMA], p.p[BL_TP_LN2_BETA], BLi, D, eps,
                                       err));
        bl__matmul_act(c.act, c.pre, c.ld[LD_N2], p.p[BL_TP_W1], p.p[BL_TP_B1], BLi, D, F,
                       d->activation);
        bl__matmul(w.tmp, c.act, p.p[BL_TP_W2], p.p[BL_TP_B2], BLi, F, D);
        for (size_t i = 0; i < n; i++) next[i] = c.ld[LD_R1][i] + w.tmp[i];
    }
    BL__CHECK(bl_layernorm_forward(w.nf, w.meanf, w.rstdf, w.hf, g.p[BL_TP_LNF_GAMMA],
                                   g.p[BL_TP_LNF_BETA], BLi, D, eps, err));
    bl__gemm(w.logits, d->vocab, NULL, w.nf, D, g.p[BL_TP_WTE], D, 1, NULL, BLi, D, d->vocab,
             BL_ACT_IDENTITY);
    return BL_OK;
}

static void backward(const bl_train_desc *d, const float *params, const int32_t *in,
                     float *grads, float *ws) {
    int B = d->batch, L = d->L, D = d->d_model, F = d->d_ff, H = d->n_heads, V = d->vocab;
    int BLi = B * L;
    size_t BL = (size_t)BLi, n = BL * D;
    wsmap w = map_of(d, ws, BL);
    layer_ptrs g = ptrs_of(d, params, 0), gg = ptrs_of(d, grads, 0);
    /* the logits hold dlogits now: d nf = dlogits @ wte ; d wte = dlogits^T @ nf */
    bl__gemm(w.dn, D, NULL, w.logits, V, g.p[BL_TP_WTE], D, 0, NULL, BLi, V, D, BL_ACT_IDENTITY);
    bl__weight_grad(gg.p[BL_TP_WTE], w.logits, w.nf, BLi, V, D, w.t);
    memset(w.dh, 0, n * sizeof(float));
    bl__layernorm_backward(w.dh, gg.p[BL_TP_LNF_GAMMA], gg.p[BL_TP_LNF_BETA], w.dn, w.hf,
                           w.meanf, w.rstdf, g.p[BL_TP_LNF_GAMMA], BLi, D);
    for (int l = d->n_layers - 1; l >= 0; l--) {
        cache c = cache_of(d, ws, l, BL);
        layer_ptrs p = ptrs_of(d, params, l), q = ptrs_of(d, grads, l);
        /* FFN: x_next = resid1 + act @ w2 + b2, act = f(norm2 @ w1 + b1) */
        bl__linear_backward(w.da, q.p[BL_TP_W2], q.p[BL_TP_B2], c.act, p.p[BL_TP_W2], w.dh, BLi,
                            F, D, w.t);
        bl__act_backward(w.da, w.da, c.pre, BL * F, d->activation);
        bl__linear_backward(w.dn, q.p[BL_TP_W1], q.p[BL_TP_B1], c.ld[LD_N2], p.p[BL_TP_W1], w.da,
                            BLi, D, F, w.t);
        bl__layernorm_backward(w.dh, q.p[BL_TP_LN2_GAMMA], q.p[BL_TP_LN2_BETA], w.dn,
                               c.ld[LD_R1], c.mean2, c.rstd2, p.p[BL_TP_LN2_GAMMA], BLi, D);
        /* attention: resid1 = x + concat @ wo + bo */
        bl__linear_backward(w.dc, q.p[BL_TP_WO], q.p[BL_TP_BO], c.ld[LD_C], p.p[BL_TP_WO], w.dh,
                            BLi, D, D, w.t);
        for (int b = 0; b < B; b++) {
            size_t o = (size_t)b * L * D;
            bl__attention_backward(w.dq + o, w.dk + o, w.dv + o, w.dc + o, c.ld[LD_Q] + o,
                                   c.ld[LD_K] + o, c.ld[LD_V] + o, c.att + (size_t)b * H * L * L,
                                   L, D, H);
        }
        const bl_train_part wp[3] = {BL_TP_WQ, BL_TP_WK, BL_TP_WV},
                            bp[3] = {BL_TP_BQ, BL_TP_BK, BL_TP_BV};
        float *dy[3] = {w.dq, w.dk, w.dv};
        for (int j = 0; j < 3; j++) {
            bl__linear_backward(j ? w.tmp : w.dn, q.p[wp[j]], q.p[bp[j]], c.ld[LD_N1], p.p[wp[j]],
                                dy[j], BLi, D, D, w.t);
            if (j)
                for (size_t i = 0; i < n; i++) w.dn[i] += w.tmp[i];
        }
        bl__layernorm_backward(w.dh, q.p[BL_TP_LN1_GAMMA], q.p[BL_TP_LN1_BETA], w.dn, c.ld[LD_X],
                               c.mean1, c.rstd1, p.p[BL_TP_LN1_GAMMA], BLi, D);
    }
    /* embeddings: scatter-add into the token rows (after the unembedding's part), wpe by row */
    memset(gg.p[BL_TP_WPE], 0, part_size(d, BL_TP_WPE) * sizeof(float));
    for (size_t r = 0; r < BL; r++) {
        float *te = gg.p[BL_TP_WTE] + (size_t)in[r] * D, *pe = gg.p[BL_TP_WPE] + (r % L) * D;
        const float *dr = w.dh + r * D;
        for (int c = 0; c < D; c++) {
            te[c] += dr[c];
            pe[c] += dr[c];
        }
    }
}

/* The checks both entry points share (bl_train_grad checks grads first). */
static bl_status check_call(const bl_train_desc *d, const float *params, const int32_t *tokens,
                            const float *loss, const float *ws, bl_error *err) {
    BL__CHECK(bl__train_check(d, err));
    BL__CHECK(bl__check_ptr(err, "params", params));
    BL__CHECK(bl__check_ptr(err, "tokens", tokens));
    BL__CHECK(bl__check_ptr(err, "loss", loss));
    BL__CHECK(bl__check_ptr(err, "workspace", ws));
    if (!bl_train_workspace_size(d))
        return bl__fail(err, BL_ERR_TOO_LARGE, "workspace (batch %d x L %d) exceeds %u floats",
                        d->batch, d->L, (unsigned)BL_MAX_ELEMS);
    return BL_OK;
}

static bl_status run(const bl_train_desc *d, const float *params, const int32_t *tokens,
                     float *grads, float *loss, float *ws, bl_error *err) {
    BL__CHECK(check_call(d, params, tokens, loss, ws, err));
    size_t BL = (size_t)d->batch * d->L;
    wsmap w = map_of(d, ws, BL);
    int32_t *in = w.ids, *tg = w.ids + BL;
    int scored = split_tokens(d, tokens, in, tg, err);
    if (scored < 0) return err ? err->status : BL_ERR_VALUE;
    BL__CHECK(forward(d, params, in, ws, err));
    /* finite logits keep the mean finite; else the forward again, to name the first bad one */
    double mean = bl__xent_backward(grads ? w.logits : NULL, w.logits, tg, (int)BL, d->vocab,
                                    scored);
    if (!isfinite(mean)) {
        if (grads) BL__CHECK(forward(d, params, in, ws, err));
        for (size_t i = 0, nl = BL * d->vocab; i < nl; i++)
            if (w.logits[i] - w.logits[i] != 0.0f)
                return bl__fail(err, BL_ERR_VALUE, "logit of row %d, vocabulary entry %d is not "
                                "finite: float32 overflowed inside the model",
                                (int)(i / d->vocab), (int)(i % d->vocab));
        return bl__fail(err, BL_ERR_VALUE, "the loss is not finite");
    }
    *loss = (float)mean;
    if (grads)
        backward(d, params, in, grads, ws);
    bl__ok(err);
    return BL_OK;
}

bl_status bl_train_grad(const bl_train_desc *d, const float *params, const int32_t *tokens,
                        float *grads, float *loss, float *ws, bl_error *err) {
    BL__CHECK(bl__check_ptr(err, "grads", grads));
    return run(d, params, tokens, grads, loss, ws, err);
}

bl_status bl_train_eval(const bl_train_desc *d, const float *params, const int32_t *tokens,
                        float *loss, float *ws, bl_error *err) {
    return run(d, params, tokens, NULL, loss, ws, err);
}
