/* wasm_abi.c - what the JS wrapper needs beyond the public API: struct sizes to verify its
   field tables against at load time, and parameter counts through double arrays (JS numbers
   hold these integers exactly; int64 struct fields would need BigInt plumbing). */
#include "bl_internal.h"
#include "kernel_simd.h"

/* sizes[] = sizeof of bl_error, bl_rng, bl_ffn_desc, bl_ffn_out, bl_attention_desc,
   bl_attention_out, bl_block_desc, bl_block_out; returns how many were written. */
int bl__abi_sizes(int *sizes, int n) {
    int all[] = {(int)sizeof(bl_error),          (int)sizeof(bl_rng),
                 (int)sizeof(bl_ffn_desc),       (int)sizeof(bl_ffn_out),
                 (int)sizeof(bl_attention_desc), (int)sizeof(bl_attention_out),
                 (int)sizeof(bl_block_desc),     (int)sizeof(bl_block_out)};
    int count = (int)(sizeof all / sizeof all[0]);
    if (!sizes) return count;
    for (int i = 0; i < n && i < count; i++) sizes[i] = all[i];
    return count;
}

/* Config as 19 doubles, in bl_model_config's field order:
   vocab, max_positions, type_vocab, d_model, n_layers, n_heads, n_kv_heads, d_ff, gated,
   norm, attn_bias, ffn_bias, embed_norm, final_norm, lm_head, pooler, n_experts, top_k,
   n_dec_layers. */
#define BL__CONFIG_FIELDS 19

static void config_to_doubles(const bl_model_config *c, double *f) {
    double v[BL__CONFIG_FIELDS] = {
        (double)c->vocab,    (double)c->max_positions, (double)c->type_vocab,
        (double)c->d_model,  (double)c->n_layers,      (double)c->n_heads,
        (double)c->n_kv_heads, (double)c->d_ff,        c->gated,
        c->norm,             c->attn_bias,             c->ffn_bias,
        c->embed_norm,       c->final_norm,            c->lm_head,
        c->pooler,           (double)c->n_experts,     (double)c->top_k,
        (double)c->n_dec_layers};
    for (int i = 0; i < BL__CONFIG_FIELDS; i++) f[i] = v[i];
}

static bl_status config_from_doubles(bl_model_config *c, const double *f, bl_error *err) {
    for (int i = 0; i < BL__CONFIG_FIELDS; i++)   /* integers in [0, 2^53) only */
        if (!(f[i] >= 0.0 && f[i] < 9007199254740992.0) || f[i] != (double)(int64_t)f[i])
            return bl__fail(err, BL_ERR_VALUE, "config field %d (%g) must be a whole number >= 0",
                            i, f[i]);
    *c = (bl_model_config){
        .vocab = (int64_t)f[0], .max_positions = (int64_t)f[1], .type_vocab = (int64_t)f[2],
        .d_model = (int64_t)f[3], .n_layers = (int64_t)f[4], .n_heads = (int64_t)f[5],
        .n_kv_heads = (int64_t)f[6], .d_ff = (int64_t)f[7], .gated = f[8] != 0,
        .norm = f[9] != 0 ? BL_NORM_RMS : BL_NORM_LAYER, .attn_bias = f[10] != 0,
        .ffn_bias = f[11] != 0, .embed_norm = f[12] != 0, .final_norm = f[13] != 0,
        .lm_head = f[14] != 0, .pooler = f[15] != 0, .n_experts = (int64_t)f[16],
        .top_k = (int64_t)f[17], .n_dec_layers = (int64_t)f[18]};
    return BL_OK;
}

/* counts (9 doubles) = embeddings, attention, ffn, norms, other, total, active,
   attention_per_layer, ffn_per_layer. */
bl_status bl__param_count_f64(const double *config, double *counts, bl_error *err) {
    BL__CHECK(bl__check_ptr(err, "config", config));
    BL__CHECK(bl__check_ptr(err, "counts", counts));
    bl_model_config c;
    bl_param_count p;
    BL__CHECK(config_from_doubles(&c, config, err));
    BL__CHECK(bl_config_param_count(&c, &p, err));
    int64_t v[9] = {p.embeddings, p.attention, p.ffn, p.norms, p.other, p.total, p.active,
                    p.attention_per_layer, p.ffn_per_layer};
    for (int i = 0; i < 9; i++) counts[i] = (double)v[i];
    return BL_OK;
}

/* config (19 doubles) and printed (1 double) of a named preset. */
bl_status bl__preset_f64(const char *name, double *config, double *printed, bl_error *err) {
    BL__CHECK(bl__check_ptr(err, "config", config));
    bl_model_config c;
    int64_t p = 0;
    BL__CHECK(bl_preset_config(name, &c, &p, err));
    config_to_doubles(&c, config);
    if (printed) *printed = (double)p;
    return BL_OK;
}

/* Index of the first NaN or infinity among p[0:n], or -1: the wrapper's check of Float32Array
   inputs after copying them in (a JS loop over them cost more than the small calls' compute).
   x - x is 0 for every finite x and NaN otherwise; sixteen at a time, then the exact spot. */
int bl__first_nonfinite(const float *p, int n) {
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        v4 a = v4_load(p + i), b = v4_load(p + i + 4), c = v4_load(p + i + 8), d = v4_load(p + i + 12);
        if (v4_hsum((a - a) + (b - b) + (c - c) + (d - d)) != 0.0f) break;  /* NaN != 0 */
    }
    for (; i < n; i++)
        if (p[i] - p[i] != 0.0f) return i;
    return -1;
}

/* The first of count (pointer, length) pairs in list that holds a NaN or infinity, or -1:
   one call checks every float input of a JS call. */
int bl__first_nonfinite_of(const int *list, int count) {
    for (int k = 0; k < count; k++)
        if (bl__first_nonfinite((const float *)(uintptr_t)list[2 * k], list[2 * k + 1]) >= 0) return k;
    return -1;
}
