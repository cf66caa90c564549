/* llama.c - a Llama-family decoder (Llama, Mistral, Qwen2, Qwen3) as Hugging Face computes it:
   RMS norms, grouped-query attention with RoPE (and Qwen3's per-head q / k norms), a SwiGLU
   FFN, weights read in the checkpoint's dtype and nn.Linear's (out, in) layout through the
   packed GEMM's transposed B; the hooks (edits, a later start, an early end) and the logit lens.
   Every intermediate the caller does not keep lands in the workspace. */
#include <math.h>
#include <string.h>
#include "bl_internal.h"

/* Query rows per attention block: the block's weights (QB x L) are the scratch when the caller
   keeps no weights. */
#define QB 64

/* The sizes after the defaults: Q = n_heads head_dim, KV = n_kv_heads head_dim. */
typedef struct dims {
    int L, D, H, KVH, hd, F, V, Q, KV, qb;
} dims;

static dims dims_of(const bl_llama_desc *d) {
    dims z = {.L = d->L, .D = d->d_model, .H = d->n_heads,
              .KVH = d->n_kv_heads ? d->n_kv_heads : d->n_heads,
              .hd = d->head_dim ? d->head_dim : d->d_model / d->n_heads, .F = d->d_ff,
              .V = d->vocab};
    z.Q = z.H * z.hd;
    z.KV = z.KVH * z.hd;
    z.qb = z.L < QB ? z.L : QB;
    return z;
}

/* The workspace, one table for its size and its use: buffers of (L, d_model), (L, Q), (L, KV),
   (L, d_ff), then the attention scratch (qb, L), the RoPE tables (L, head_dim), and one vector
   for an up-cast bias or norm weight (the longest of d_model, Q, KV, d_ff). */
enum { WS_H0, WS_H1, WS_NORM1, WS_ATTN, WS_RESID1, WS_NORM2, WS_FFN, WS_LD };
enum { WS_Q, WS_CONCAT, WS_LQ };     /* q, rotated in place unless the caller keeps q */
enum { WS_K, WS_V, WS_LKV };
enum { WS_GATE, WS_UP, WS_ACT, WS_LF };

static uint64_t vec_len(const dims *z) {
    uint64_t m = (uint64_t)z->D;
    if ((uint64_t)z->Q > m) m = (uint64_t)z->Q;
    if ((uint64_t)z->F > m) m = (uint64_t)z->F;
    return m;   /* KV <= Q */
}

/* Workspace floats as a 64-bit count (the sizes checked: every factor below 2^17). */
static uint64_t ws_floats(const dims *z) {
    uint64_t L = (uint64_t)z->L;
    return L * (WS_LD * (uint64_t)z->D + WS_LQ * (uint64_t)z->Q + WS_LKV * (uint64_t)z->KV +
                WS_LF * (uint64_t)z->F + (uint64_t)z->qb + (uint64_t)z->hd) + vec_len(z);
}

static bl_status check_positive(bl_error *err, const char *name, float v) {
    if (!(v > 0.0f) || isinf(v))
        return bl__fail(err, BL_ERR_VALUE, "%s (%g) must be a positive finite number", name,
                        (double)v);
    return BL_OK;
}

static bl_status check_at_least_1(bl_error *err, const char *name, float v) {
    if (!(v >= 1.0f) || isinf(v))
        return bl__fail(err, BL_ERR_VALUE, "%s (%g) must be a finite number >= 1", name, (double)v);
    return BL_OK;
}

/* Every check that needs only the sizes and settings, in the order the header documents. */
static bl_status check_sizes(const bl_llama_desc *d, bl_error *err) {
    BL__CHECK(bl__check_dim(err, "n_layers", d->n_layers));
    BL__CHECK(bl__check_dim(err, "d_model", d->d_model));
    BL__CHECK(bl__check_dim(err, "n_heads", d->n_heads));
    if (d->n_kv_heads != 0) BL__CHECK(bl__check_dim(err, "n_kv_heads", d->n_kv_heads));
    if (d->head_dim != 0) BL__CHECK(bl__check_dim(err, "head_dim", d->head_dim));
    BL__CHECK(bl__check_dim(err, "d_ff", d->d_ff));
    if (d->vocab < 1 || (unsigned)d->vocab > BL_MAX_ELEMS)
        return bl__fail(err, BL_ERR_SIZE, "vocab (%d) must be between 1 and %u", d->vocab,
                        (unsigned)BL_MAX_ELEMS);
    if (d->max_positions < 0)
        return bl__fail(err, BL_ERR_SIZE, "max_positions (%d) must be 0 (no limit) or positive",
                        d->max_positions);
    BL__CHECK(bl__check_dim(err, "L", d->L));
    /* Q and KV in ints only once KV <= Q <= BL_MAX_DIM: n_kv_heads divides n_heads */
    int hd = d->head_dim ? d->head_dim : d->d_model / d->n_heads;
    int kvh = d->n_kv_heads ? d->n_kv_heads : d->n_heads;
    if ((uint64_t)d->n_heads * (uint64_t)hd > BL_MAX_DIM)
        return bl__fail(err, BL_ERR_SIZE, "n_heads * head_dim (%d x %d) must be at most %d",
                        d->n_heads, hd, BL_MAX_DIM);
    if (d->head_dim == 0 && d->d_model % d->n_heads != 0)
        return bl__fail(err, BL_ERR_SHAPE, "d_model (%d) must be divisible by n_heads (%d) when "
                        "head_dim is 0", d->d_model, d->n_heads);
    if (d->n_heads % kvh != 0)
        return bl__fail(err, BL_ERR_SHAPE, "n_heads (%d) must be divisible by n_kv_heads (%d)",
                        d->n_heads, kvh);
    dims z = dims_of(d);
    if (z.hd % 2 != 0)
        return bl__fail(err, BL_ERR_SHAPE, "head_dim (%d) must be even (RoPE pairs its values)",
                        z.hd);
    if (d->max_positions > 0 && d->L > d->max_positions)
        return bl__fail(err, BL_ERR_SHAPE, "L (%d) must be at most max_positions (%d)", d->L,
                        d->max_positions);
    if ((unsigned)d->dtype >= BL_DTYPE_COUNT)
        return bl__fail(err, BL_ERR_VALUE, "dtype (%d) is not one of 0..%d (F32, F16, BF16)",
                        (int)d->dtype, BL_DTYPE_COUNT - 1);
    BL__CHECK(check_positive(err, "eps", d->eps == 0.0f ? 1e-6f : d->eps));
    /* theta >= 1 and factor >= 1 (HF's own check of llama3) keep every inv_freq <= 1, so the
       angles stay below 2^16 (rope.c's cos / sin) */
    BL__CHECK(check_at_least_1(err, "rope_theta", d->rope_theta == 0.0f ? 1e4f : d->rope_theta));
    if (d->rope_type == BL_ROPE_LLAMA3) {
        BL__CHECK(check_at_least_1(err, "rope_factor", d->rope_factor));
        BL__CHECK(check_positive(err, "rope_low_freq_factor", d->rope_low_freq_factor));
        BL__CHECK(check_positive(err, "rope_high_freq_factor", d->rope_high_freq_factor));
        if (!(d->rope_high_freq_factor > d->rope_low_freq_factor))
            return bl__fail(err, BL_ERR_VALUE, "rope_high_freq_factor (%g) must be above "
                            "rope_low_freq_factor (%g)", (double)d->rope_high_freq_factor,
                            (double)d->rope_low_freq_factor);
        if (d->rope_original_max_positions < 1)
            return bl__fail(err, BL_ERR_VALUE, "rope_original_max_positions (%d) must be "
                            "positive", d->rope_original_max_positions);
    } else if (d->rope_type != BL_ROPE_DEFAULT) {
        return bl__fail(err, BL_ERR_VALUE, "rope_type (%d) is not one of 0..1 (default, llama3)",
                        (int)d->rope_type);
    }
    uint64_t L = (uint64_t)z.L, D = (uint64_t)z.D;
    BL__CHECK(bl__check_elems(err, "embed", (uint64_t)z.V, D));
    BL__CHECK(bl__check_elems(err, "logits", L, (uint64_t)z.V));
    BL__CHECK(bl__check_elems(err, "wq", (uint64_t)z.Q, D));
    BL__CHECK(bl__check_elems(err, "w_gate", (uint64_t)z.F, D));
    BL__CHECK(bl__check_elems(err, "scores", (uint64_t)z.H * L, L));
    /* L times a sum of sizes below 2^17 each: exact in 64 bits */
    if (ws_floats(&z) > BL_MAX_ELEMS)
        return bl__fail(err, BL_ERR_TOO_LARGE, "workspace (%llu floats) exceeds %u floats",
                        (unsigned long long)ws_floats(&z), (unsigned)BL_MAX_ELEMS);
    return BL_OK;
}

size_t bl_llama_workspace_size(const bl_llama_desc *d) {
    if (!d || check_sizes(d, NULL) != BL_OK) return 0;
    dims z = dims_of(d);
    return (size_t)ws_floats(&z);   /* checked: at most BL_MAX_ELEMS */
}

static bl_status check_layer(const bl_llama_layer *w, int l, bl_error *err) {
    const void *required[] = {w->wq, w->wk, w->wv, w->wo, w->w_gate, w->w_up, w->w_down};
    static const char *const names[] = {"wq", "wk", "wv", "wo", "w_gate", "w_up", "w_down"};
    for (int i = 0; i < 7; i++)
        if (!required[i])
            return bl__fail(err, BL_ERR_NULL, "layers[%d].%s must not be NULL", l, names[i]);
    return BL_OK;
}

/* p if given, else the workspace's buffer */
static float *or_ws(float *p, float *scratch) { return p ? p : scratch; }

/* A bias or norm weight of n values as float32: F32 ones as they are, others up-cast into vec;
   NULL stays NULL. */
static const float *as_f32(const void *w, bl_dtype dt, int n, float *vec) {
    if (!w || dt == BL_DTYPE_F32) return (const float *)w;
    bl__weights_to_f32(vec, w, dt, 0, (size_t)n);
    return vec;
}

/* The dtype the products of d's weight matrices are given (BL__DTYPE_F16_FINITE: see
   bl_llama_desc.weights_finite). */
static bl_dtype matrix_dtype(const bl_llama_desc *d) {
    return d->dtype == BL_DTYPE_F16 && d->weights_finite ? BL__DTYPE_F16_FINITE : d->dtype;
}

/* out (L, N) = x (L, K) @ W^T + b, W (N, K) of dtype dt (products: wt): nn.Linear. */
static void linear(float *out, const float *x, const void *w, const void *b, bl_dtype dt,
                   bl_dtype wt, int L, int K, int N, float *vec) {
    bl__gemm_typed(out, N, NULL, x, K, w, wt, K, 1, as_f32(b, dt, N, vec), L, K, N,
                   BL_ACT_IDENTITY);
}

/* out (rows, d) = rms(x) * g, rstd (rows, optional); g (d) of dtype dt, NULL = 1. Rows of d
   values, at most BL_MAX_DIM of them per call. */
static void rms(float *out, float *rstd, const float *x, const void *g, bl_dtype dt, int rows,
                int d, float eps, float *vec) {
    bl_rmsnorm_forward(out, rstd, x, as_f32(g, dt, d, vec), rows, d, eps, NULL);
}

/* Causal grouped-query attention of one layer, one query head at a time: per block of qb query
   rows the logits q_h k_g^T (one GEMM, only the visible keys unless scores are kept), the scaled
   causal softmax, the context (one GEMM) straight into concat. Logits and weights land in the
   caller's scores / weights rows when kept, else in scratch (qb, L). Each GEMM rounds as the
   group's whole product would (its FMA choice: the FMA build fuses from 2^20 multiply-adds,
   which a head alone at L 64 never reaches but a group of 4 does). Stacking a group's heads into
   one GEMM measured 5-11% slower (tools/bench/REPORT-attention.md). */
static void attend(const dims *z, const float *q, const float *k, const float *v, float *concat,
                   float *scores, float *weights, float *context, float *scratch) {
    int L = z->L, hd = z->hd, Q = z->Q, KV = z->KV, group = z->H / z->KVH;
    float scale = 1.0f / sqrtf((float)hd);
    for (int h = 0; h < z->H; h++) {
        int g = h / group;
        for (int i0 = 0; i0 < L; i0 += z->qb) {
            int rows = L - i0 < z->qb ? L - i0 : z->qb, seen = i0 + rows, n = scores ? L : seen;
            size_t at = ((size_t)h * L + i0) * L;
            float *w = weights ? weights + at : scratch, *s = scores ? scores + at : w;
            /* s (rows, n) = q_h[i0:i0+rows] (rows, hd) @ k_g^T (hd, n) */
            bl__gemm_typed_as(s, L, NULL, q + (size_t)i0 * Q + (size_t)h * hd, Q,
                              k + (size_t)g * hd, BL_DTYPE_F32, KV, 1, NULL, rows, hd, n,
                              BL_ACT_IDENTITY, (uint64_t)group * rows * hd * n);
            for (int r = 0; r < rows; r++)
                bl__softmax_row(w + (size_t)r * L, s + (size_t)r * L, L, i0 + r, NULL, scale);
            /* concat[i0:i0+rows, h hd:(h+1) hd] = w (rows, seen) @ v_g[0:seen] (seen, hd): the
               weights after `seen` are zeros */
            float *ctx = concat + (size_t)i0 * Q + (size_t)h * hd;
            bl__gemm_typed_as(ctx, Q, NULL, w, L, v + (size_t)g * hd, BL_DTYPE_F32, KV, 0, NULL,
                              rows, seen, hd, BL_ACT_IDENTITY, (uint64_t)group * rows * seen * hd);
            if (context)
                for (int r = 0; r < rows; r++)
                    memcpy(context + ((size_t)h * L + i0 + r) * hd, ctx + (size_t)r * Q,
                           (size_t)hd * sizeof(float));
        }
    }
}

/* q or k (L, heads * hd) normed per head in place (Qwen3's q_norm / k_norm), weight g (hd). */
static void head_norm(float *x, const void *g, bl_dtype dt, const dims *z, int heads, float eps,
                      float *vec) {
    for (int i = 0; i < z->L; i++) {
        float *row = x + (size_t)i * heads * z->hd;
        rms(row, NULL, row, g, dt, heads, z->hd, eps, vec);
    }
}

static bl_hooks hooks_of(const bl_llama_desc *d) {
    return (bl_hooks){.edits = d->edits, .n_edits = d->n_edits, .first_layer = d->first_layer,
                      .start = d->start, .end_layer = d->end_layer,
                      .logits_last = d->logits_last};
}

bl_status bl_llama_forward(const bl_llama_desc *d, const bl_llama_out *o, float *ws,
                           bl_error *err) {
    BL__CHECK(bl__check_ptr(err, "desc", d));
    BL__CHECK(bl__check_ptr(err, "out", o));
    BL__CHECK(check_sizes(d, err));
    bl_hooks hk = hooks_of(d);
    int end;
    BL__CHECK(bl__check_hooks(err, &hk, d->n_layers, d->L, d->n_heads, &end));
    BL__CHECK(bl__check_ptr(err, "ids", d->ids));
    BL__CHECK(bl__check_ptr(err, "embed", d->embed));
    BL__CHECK(bl__check_ptr(err, "layers", d->layers));
    if (!d->end_layer) BL__CHECK(bl__check_ptr(err, "logits", o->logits));
    BL__CHECK(bl__check_ptr(err, "workspace", ws));
    for (int l = 0; l < d->n_layers; l++) BL__CHECK(check_layer(&d->layers[l], l, err));
    BL__CHECK(bl__check_ids(err, d->ids, d->L, d->vocab));

    dims z = dims_of(d);
    int L = z.L, D = z.D, hd = z.hd;
    bl_dtype dt = d->dtype, wt = matrix_dtype(d);
    float eps = d->eps == 0.0f ? 1e-6f : d->eps;
    /* the workspace's buffers (checked: every offset below BL_MAX_ELEMS) */
    size_t nd = (size_t)L * D, nq = (size_t)L * z.Q, nkv = (size_t)L * z.KV, nf = (size_t)L * z.F;
    float *bd[WS_LD], *bq[WS_LQ], *bkv[WS_LKV], *bf[WS_LF], *p = ws;
    for (int i = 0; i < WS_LD; i++, p += nd) bd[i] = p;
    for (int i = 0; i < WS_LQ; i++, p += nq) bq[i] = p;
    for (int i = 0; i < WS_LKV; i++, p += nkv) bkv[i] = p;
    for (int i = 0; i < WS_LF; i++, p += nf) bf[i] = p;
    float *scratch = p, *cos_t = scratch + (size_t)z.qb * L, *sin_t = cos_t + (size_t)L * hd / 2;
    float *vec = sin_t + (size_t)L * hd / 2;

    /* h (L, D) = embed[ids], up-cast row by row */
    float *h = bd[WS_H0], *next = bd[WS_H1];
    for (int i = 0; i < L; i++)
        bl__weights_to_f32(h + (size_t)i * D, d->embed, dt, (size_t)d->ids[i] * D, (size_t)D);
    if (o->embed) memcpy(o->embed, h, nd * sizeof(float));
    if (d->start) memcpy(h, d->start, nd * sizeof(float));
    bl__rope_table(cos_t, sin_t, d, L, hd);

    /* each site's edits right after it is computed, before anything reads it */
    for (int l = d->first_layer; l < end; l++) {
        const bl_llama_layer *w = &d->layers[l];
        bl_llama_layer_out k = {0};
        if (o->layers && o->layers[l]) k = *o->layers[l];
        bl__apply_edits(&hk, l, BL_SITE_RESID_IN, h, L, D, D);
        if (k.x) memcpy(k.x, h, nd * sizeof(float));
        /* attention: norm1 (L, D); q (L, Q), k, v (L, KV); RoPE; heads; o_proj */
        float *norm1 = or_ws(k.norm1, bd[WS_NORM1]);
        rms(norm1, k.rstd1, h, w->attn_norm, dt, L, D, eps, vec);
        bl__apply_edits(&hk, l, BL_SITE_ATTN_IN, norm1, L, D, D);
        /* q and k go where they are kept (unrotated, else rotated, else the workspace) and are
           rotated in place unless the unrotated ones are kept: then into q_rot / k_rot or the
           workspace buffer they left free */
        float *q = k.q ? k.q : or_ws(k.q_rot, bq[WS_Q]);
        float *kk = k.k ? k.k : or_ws(k.k_rot, bkv[WS_K]), *v = or_ws(k.v, bkv[WS_V]);
        linear(q, norm1, w->wq, w->bq, dt, wt, L, D, z.Q, vec);
        linear(kk, norm1, w->wk, w->bk, dt, wt, L, D, z.KV, vec);
        linear(v, norm1, w->wv, w->bv, dt, wt, L, D, z.KV, vec);
        if (w->q_norm) head_norm(q, w->q_norm, dt, &z, z.H, eps, vec);
        if (w->k_norm) head_norm(kk, w->k_norm, dt, &z, z.KVH, eps, vec);
        float *q_rot = k.q_rot ? k.q_rot : k.q ? bq[WS_Q] : q;
        float *k_rot = k.k_rot ? k.k_rot : k.k ? bkv[WS_K] : kk;
        bl__rope_apply(q_rot, q, cos_t, sin_t, L, z.H, hd);
        bl__rope_apply(k_rot, kk, cos_t, sin_t, L, z.KVH, hd);
        float *concat = or_ws(k.concat, bq[WS_CONCAT]);
        attend(&z, q_rot, k_rot, v, concat, k.scores, k.weights, k.context, scratch);
        if (bl__apply_edits(&hk, l, BL_SITE_HEAD_OUT, concat, L, hd, z.Q) && k.context)
            for (int hh = 0; hh < z.H; hh++)
                for (int i = 0; i < L; i++)
                    memcpy(k.context + ((size_t)hh * L + i) * hd,
                           concat + (size_t)i * z.Q + (size_t)hh * hd, (size_t)hd * sizeof(float));
        float *attn = or_ws(k.attn_out, bd[WS_ATTN]), *resid1 = or_ws(k.resid1, bd[WS_RESID1]);
        linear(attn, concat, w->wo, w->bo, dt, wt, L, z.Q, D, vec);
        bl__apply_edits(&hk, l, BL_SITE_ATTN_OUT, attn, L, D, D);
        for (size_t i = 0; i < nd; i++) resid1[i] = h[i] + attn[i];
        bl__apply_edits(&hk, l, BL_SITE_RESID_MID, resid1, L, D, D);

        /* FFN: norm2; activated = silu(gate) (the GEMM's epilogue, gate its pre-activation),
           times up; down into ffn_out; resid2 (the next h) */
        float *norm2 = or_ws(k.norm2, bd[WS_NORM2]);
        rms(norm2, k.rstd2, resid1, w->ffn_norm, dt, L, D, eps, vec);
        bl__apply_edits(&hk, l, BL_SITE_FFN_IN, norm2, L, D, D);
        float *gate = or_ws(k.gate, bf[WS_GATE]), *up = or_ws(k.up, bf[WS_UP]);
        float *act = or_ws(k.activated, bf[WS_ACT]);
        bl__gemm_typed(act, z.F, gate, norm2, D, w->w_gate, wt, D, 1,
                       as_f32(w->b_gate, dt, z.F, vec), L, D, z.F, BL_ACT_SILU);
        linear(up, norm2, w->w_up, w->b_up, dt, wt, L, D, z.F, vec);
        for (size_t i = 0; i < nf; i++) act[i] *= up[i];
        bl__apply_edits(&hk, l, BL_SITE_FFN_HIDDEN, act, L, z.F, z.F);
        float *ffn = or_ws(k.ffn_out, bd[WS_FFN]);
        linear(ffn, act, w->w_down, w->b_down, dt, wt, L, z.F, D, vec);
        bl__apply_edits(&hk, l, BL_SITE_FFN_OUT, ffn, L, D, D);
        for (size_t i = 0; i < nd; i++) next[i] = resid1[i] + ffn[i];
        if (k.resid2) memcpy(k.resid2, next, nd * sizeof(float));
        float *t = h;
        h = next;
        next = t;
    }
    if (d->end_layer) {
        bl__ok(err);
        return BL_OK;
    }

    /* hidden = rms(h, final_norm); logits (rows, V) = hidden[row0:] @ lm_head^T, lm_head (V, D)
       rows, rounded as the whole product would be (so the last row alone is bit-identical) */
    float *hidden = or_ws(o->hidden, bd[WS_NORM1]);
    rms(hidden, NULL, h, d->final_norm, dt, L, D, eps, vec);
    int row0 = bl__logits_row0(d->logits_last, L);
    bl__gemm_typed_as(o->logits, z.V, NULL, hidden + (size_t)row0 * D, D,
                      d->lm_head ? d->lm_head : d->embed, wt, D, 1, NULL, L - row0, D, z.V,
                      BL_ACT_IDENTITY, (uint64_t)L * D * z.V);
    bl__ok(err);
    return BL_OK;
}

/* The lens's scratch: a block of rows normed (rows, D), their logits (rows, V), and the final
   norm's weight up-cast (D). */

size_t bl_llama_lens_workspace_size(const bl_llama_desc *d) {
    if (!d || check_sizes(d, NULL) != BL_OK) return 0;
    uint64_t f = (uint64_t)bl__lens_rows(d->L) * ((uint64_t)d->d_model + (uint64_t)d->vocab) +
                 (uint64_t)d->d_model;
    return f > BL_MAX_ELEMS ? 0 : (size_t)f;
}

bl_status bl_llama_lens(const bl_llama_desc *d, const float *h, int k, int32_t *ids,
                        float *probs, const bl_lens_target *t, float *ws, bl_error *err) {
    BL__CHECK(bl__check_ptr(err, "desc", d));
    BL__CHECK(check_sizes(d, err));
    BL__CHECK(bl__lens_check(err, d->L, d->d_model, d->vocab, bl_llama_lens_workspace_size(d),
                             k, h, "embed", d->embed, ids, probs, t, ws));
    if (t && !t->targets) t = NULL;
    int L = d->L, D = d->d_model, V = d->vocab, rb = bl__lens_rows(L);
    float eps = d->eps == 0.0f ? 1e-6f : d->eps;
    float *normed = ws, *logits = ws + (size_t)rb * D, *vec = logits + (size_t)rb * V;
    const void *head = d->lm_head ? d->lm_head : d->embed;
    for (int i0 = 0; i0 < L; i0 += rb) {
        int rows = L - i0 < rb ? L - i0 : rb;
        /* the forward's final norm and unembedding on these rows, rounded as its one product */
        rms(normed, NULL, h + (size_t)i0 * D, d->final_norm, d->dtype, rows, D, eps, vec);
        bl__gemm_typed_as(logits, V, NULL, normed, D, head, matrix_dtype(d), D, 1, NULL, rows, D, V,
                          BL_ACT_IDENTITY, (uint64_t)L * D * V);
        for (int r = 0, i = i0; r < rows; r++, i++) {
            int bad = bl__lens_row(logits + (size_t)r * V, V, k, ids + (size_t)i * k,
                                   probs + (size_t)i * k, t ? t->targets[i] : -1,
                                   t ? t->rank + i : NULL, t ? t->prob + i : NULL);
            if (bad >= 0)
                return bl__fail(err, BL_ERR_VALUE, "logit of token %d, vocabulary entry %d is "
                                "not finite: float32 overflowed inside the model", i0 + r, bad);
        }
    }
    bl__ok(err);
    return BL_OK;
}
