/* attention.c - multi-head self-attention: projections, per-head scores, a numerically
   stable masked softmax fused with the weighted sum of values, concat and W_O. */
#include <math.h>
#include "bl_internal.h"

bl_status bl__attention_check(const bl_attention_desc *d, const bl_attention_out *o,
                              const float *workspace, bl_error *err) {
    BL__CHECK(bl__check_ptr(err, "desc", d));
    BL__CHECK(bl__check_ptr(err, "out", o));
    BL__CHECK(bl__check_dim(err, "L", d->L));
    BL__CHECK(bl__check_dim(err, "d_model", d->d_model));
    BL__CHECK(bl__check_dim(err, "n_heads", d->n_heads));
    if (d->d_model % d->n_heads != 0)
        return bl__fail(err, BL_ERR_SHAPE, "d_model (%d) must be divisible by n_heads (%d)",
                        d->d_model, d->n_heads);
    BL__CHECK(bl__check_elems(err, "x", (size_t)d->L, (size_t)d->d_model));
    BL__CHECK(bl__check_elems(err, "wq", (size_t)d->d_model, (size_t)d->d_model));
    BL__CHECK(bl__check_elems(err, "scores", (size_t)d->n_heads * d->L, (size_t)d->L));
    BL__CHECK(bl__check_ptr(err, "x", d->x));
    BL__CHECK(bl__check_ptr(err, "wq", d->wq));
    BL__CHECK(bl__check_ptr(err, "wk", d->wk));
    BL__CHECK(bl__check_ptr(err, "wv", d->wv));
    BL__CHECK(bl__check_ptr(err, "wo", d->wo));
    BL__CHECK(bl__check_ptr(err, "q", o->q));
    BL__CHECK(bl__check_ptr(err, "k", o->k));
    BL__CHECK(bl__check_ptr(err, "v", o->v));
    BL__CHECK(bl__check_ptr(err, "concat", o->concat));
    BL__CHECK(bl__check_ptr(err, "out->out", o->out));
    if (!o->weights) BL__CHECK(bl__check_ptr(err, "workspace", workspace));
    return BL_OK;
}

size_t bl_attention_workspace_size(const bl_attention_desc *d, const bl_attention_out *o) {
    if (!d || !o || o->weights || d->L < 1) return 0;
    return (size_t)d->L;    /* one row of logits */
}

/* One query row of one head: w (L) = masked softmax of the logits, ctx (d_k) = w @ v_h. */
static void attend_row(float *w, float *ctx, const float *qi, const float *k, const float *v,
                       const bl_attention_desc *d, int i, int dk,
                       float scale, float *raw_out) {
    int L = d->L, D = d->d_model;
    int last = d->causal ? i : L - 1;      /* keys after `last` are hidden */
    float m = -INFINITY;
    for (int j = 0; j < L; j++) {
        float s = 0.0f;
        const float *kj = k + (size_t)j * D;
        for (int c = 0; c < dk; c++) s += qi[c] * kj[c];
        if (raw_out) raw_out[j] = s;
        int visible = j <= last && (!d->key_mask || d->key_mask[j]);
        w[j] = visible ? s * scale : -INFINITY;
        if (w[j] > m) m = w[j];
    }
    for (int c = 0; c < dk; c++) ctx[c] = 0.0f;
    if (m == -INFINITY) {                   /* nothing visible: zeros, not NaN */
        for (int j = 0; j < L; j++) w[j] = 0.0f;
        return;
    }
    float sum = 0.0f;
    for (int j = 0; j < L; j++) {
        w[j] = (w[j] == -INFINITY) ? 0.0f : expf(w[j] - m);
        sum += w[j];
    }
    float inv = 1.0f / sum;
    for (int j = 0; j < L; j++) {
        w[j] *= inv;
        if (w[j] == 0.0f) continue;
        const float *vj = v + (size_t)j * D;
        for (int c = 0; c < dk; c++) ctx[c] += w[j] * vj[c];
    }
}

bl_status bl_attention_forward(const bl_attention_desc *d, const bl_attention_out *o,
                               float *workspace, bl_error *err) {
    BL__CHECK(bl__attention_check(d, o, workspace, err));
    int L = d->L, D = d->d_model, H = d->n_heads, dk = D / H;
    float scale = d->no_scale ? 1.0f : 1.0f / sqrtf((float)dk);

    bl__matmul(o->q, d->x, d->wq, d->bq, L, D, D);
    bl__matmul(o->k, d->x, d->wk, d->bk, L, D, D);
    bl__matmul(o->v, d->x, d->wv, d->bv, L, D, D);

    for (int h = 0; h < H; h++) {
        const float *kh = o->k + h * dk, *vh = o->v + h * dk;
        for (int i = 0; i < L; i++) {
            size_t row = ((size_t)h * L + i) * L;
            float *w = o->weights ? o->weights + row : workspace;
            float *raw = o->scores ? o->scores + row : NULL;
            float *ctx = o->concat + (size_t)i * D + h * dk;
            attend_row(w, ctx, o->q + (size_t)i * D + h * dk, kh, vh, d, i, dk, scale, raw);
            if (o->context) {
                float *dst = o->context + ((size_t)h * L + i) * dk;
                for (int c = 0; c < dk; c++) dst[c] = ctx[c];
            }
        }
    }
    bl__matmul(o->out, o->concat, d->wo, d->bo, L, D, D);
    bl__ok(err);
    return BL_OK;
}
