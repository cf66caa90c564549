/* block.c - one encoder block: attention and FFN sublayers with residuals and layer norms,
   in the post-LN order (original Transformer, BERT) or the pre-LN order (GPT-2). */
#include <math.h>
#include "bl_internal.h"

static void attn_desc_of(bl_attention_desc *a, const bl_block_desc *d, const float *input) {
    *a = (bl_attention_desc){
        .L = d->L, .d_model = d->d_model, .n_heads = d->n_heads, .causal = d->causal,
        .no_scale = d->no_scale, .key_mask = d->key_mask, .x = input,
        .wq = d->wq, .bq = d->bq, .wk = d->wk, .bk = d->bk,
        .wv = d->wv, .bv = d->bv, .wo = d->wo, .bo = d->bo};
}

static void ffn_desc_of(bl_ffn_desc *f, const bl_block_desc *d, const float *input) {
    *f = (bl_ffn_desc){
        .L = d->L, .d_model = d->d_model, .d_ff = d->d_ff, .activation = d->activation,
        .x = input, .w1 = d->w1, .b1 = d->b1, .w3 = d->w3, .b3 = d->b3, .w2 = d->w2,
        .b2 = d->b2};
}

size_t bl_block_workspace_size(const bl_block_desc *d, const bl_block_out *o) {
    if (!d || !o) return 0;
    bl_attention_desc a;
    attn_desc_of(&a, d, d->x);
    return bl_attention_workspace_size(&a, &o->attn);
}

static void add(float *out, const float *a, const float *b, size_t n) {
    for (size_t i = 0; i < n; i++) out[i] = a[i] + b[i];
}

bl_status bl_block_forward(const bl_block_desc *d, const bl_block_out *o, float *workspace,
                           bl_error *err) {
    BL__CHECK(bl__check_ptr(err, "desc", d));
    BL__CHECK(bl__check_ptr(err, "out", o));
    BL__CHECK(bl__check_ptr(err, "resid1", o->resid1));
    BL__CHECK(bl__check_ptr(err, "norm1", o->norm1));
    BL__CHECK(bl__check_ptr(err, "resid2", o->resid2));
    BL__CHECK(bl__check_ptr(err, "norm2", o->norm2));
    BL__CHECK(bl__check_ptr(err, "out->out", o->out));
    float eps = d->eps == 0.0f ? 1e-5f : d->eps;
    int L = d->L, D = d->d_model;
    bl_attention_desc a;
    bl_ffn_desc f;
    /* Validate both sublayers (and eps) before anything is written. */
    attn_desc_of(&a, d, d->x);
    ffn_desc_of(&f, d, d->x);
    BL__CHECK(bl__attention_check(&a, &o->attn, workspace, err));
    BL__CHECK(bl__ffn_check(&f, &o->ffn, err));
    if (!(eps > 0.0f) || isinf(eps))
        return bl__fail(err, BL_ERR_VALUE, "eps (%g) must be a positive finite number",
                        (double)eps);
    size_t n = (size_t)L * D;   /* checked: at most BL_MAX_ELEMS */
    if (!d->pre_ln) {
        BL__CHECK(bl_attention_forward(&a, &o->attn, workspace, err));
        add(o->resid1, d->x, o->attn.out, n);
        BL__CHECK(bl_layernorm_forward(o->norm1, NULL, NULL, o->resid1, d->ln1_gamma,
                                       d->ln1_beta, L, D, eps, err));
        ffn_desc_of(&f, d, o->norm1);
        BL__CHECK(bl_ffn_forward(&f, &o->ffn, err));
        add(o->resid2, o->norm1, o->ffn.out, n);
        BL__CHECK(bl_layernorm_forward(o->norm2, NULL, NULL, o->resid2, d->ln2_gamma,
                                       d->ln2_beta, L, D, eps, err));
        for (size_t i = 0; i < n; i++) o->out[i] = o->norm2[i];
    } else {
        BL__CHECK(bl_layernorm_forward(o->norm1, NULL, NULL, d->x, d->ln1_gamma, d->ln1_beta,
                                       L, D, eps, err));
        attn_desc_of(&a, d, o->norm1);
        BL__CHECK(bl_attention_forward(&a, &o->attn, workspace, err));
        add(o->resid1, d->x, o->attn.out, n);
        BL__CHECK(bl_layernorm_forward(o->norm2, NULL, NULL, o->resid1, d->ln2_gamma,
                                       d->ln2_beta, L, D, eps, err));
        ffn_desc_of(&f, d, o->norm2);
        BL__CHECK(bl_ffn_forward(&f, &o->ffn, err));
        add(o->resid2, o->resid1, o->ffn.out, n);
        for (size_t i = 0; i < n; i++) o->out[i] = o->resid2[i];
    }
    bl__ok(err);
    return BL_OK;
}
