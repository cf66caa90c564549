/* wasm_abi.c - what the JS wrapper needs beyond the public API: the struct layout it reads at
   load and writes by (bl__abi_layout, bl__abi_layout_names; tests/node/abi.test.js pins the wasm32
   numbers), a tag naming the build, a NaN/infinity scan of its inputs, and parameter counts through
   double arrays (JS numbers hold these integers exactly; int64 struct fields would need BigInt). */
#include "bl_internal.h"
#include "kernel_simd.h"

#include <emscripten/heap.h>
#include <malloc.h>
#include <unistd.h>

/* Every struct the wrapper fills or reads, with every field, once: the names and the numbers
   below are both generated from this list, so they cannot disagree. Nested structs (bl_block_out's
   attn and ffn) appear as one field; their own fields are checked under their own struct. */
#define BL__LAYOUT(S, F)                                                                          \
    S(bl_error) F(bl_error, status) F(bl_error, message)                                          \
    S(bl_rng) F(bl_rng, mt) F(bl_rng, pos) F(bl_rng, has_gauss) F(bl_rng, gauss)                  \
    S(bl_ffn_desc) F(bl_ffn_desc, L) F(bl_ffn_desc, d_model) F(bl_ffn_desc, d_ff)                 \
    F(bl_ffn_desc, activation) F(bl_ffn_desc, x) F(bl_ffn_desc, w1) F(bl_ffn_desc, b1)            \
    F(bl_ffn_desc, w3) F(bl_ffn_desc, b3) F(bl_ffn_desc, w2) F(bl_ffn_desc, b2)                   \
    S(bl_ffn_out) F(bl_ffn_out, hidden) F(bl_ffn_out, up) F(bl_ffn_out, activated)                \
    F(bl_ffn_out, out)                                                                            \
    S(bl_attention_desc) F(bl_attention_desc, L) F(bl_attention_desc, d_model)                    \
    F(bl_attention_desc, n_heads) F(bl_attention_desc, causal) F(bl_attention_desc, no_scale)     \
    F(bl_attention_desc, key_mask) F(bl_attention_desc, x) F(bl_attention_desc, wq)               \
    F(bl_attention_desc, bq) F(bl_attention_desc, wk) F(bl_attention_desc, bk)                    \
    F(bl_attention_desc, wv) F(bl_attention_desc, bv) F(bl_attention_desc, wo)                    \
    F(bl_attention_desc, bo)                                                                      \
    S(bl_attention_out) F(bl_attention_out, q) F(bl_attention_out, k) F(bl_attention_out, v)      \
    F(bl_attention_out, scores) F(bl_attention_out, weights) F(bl_attention_out, context)         \
    F(bl_attention_out, concat) F(bl_attention_out, out)                                          \
    S(bl_block_desc) F(bl_block_desc, L) F(bl_block_desc, d_model) F(bl_block_desc, n_heads)      \
    F(bl_block_desc, d_ff) F(bl_block_desc, activation) F(bl_block_desc, pre_ln)                  \
    F(bl_block_desc, causal) F(bl_block_desc, no_scale) F(bl_block_desc, key_mask)                \
    F(bl_block_desc, eps) F(bl_block_desc, x) F(bl_block_desc, wq) F(bl_block_desc, bq)           \
    F(bl_block_desc, wk) F(bl_block_desc, bk) F(bl_block_desc, wv) F(bl_block_desc, bv)           \
    F(bl_block_desc, wo) F(bl_block_desc, bo) F(bl_block_desc, ln1_gamma)                         \
    F(bl_block_desc, ln1_beta) F(bl_block_desc, ln2_gamma) F(bl_block_desc, ln2_beta)             \
    F(bl_block_desc, w1) F(bl_block_desc, b1) F(bl_block_desc, w3) F(bl_block_desc, b3)           \
    F(bl_block_desc, w2) F(bl_block_desc, b2)                                                     \
    S(bl_block_out) F(bl_block_out, attn) F(bl_block_out, ffn) F(bl_block_out, resid1)            \
    F(bl_block_out, norm1) F(bl_block_out, resid2) F(bl_block_out, norm2) F(bl_block_out, out)    \
    S(bl_moe_desc) F(bl_moe_desc, L) F(bl_moe_desc, d_model) F(bl_moe_desc, d_ff)                 \
    F(bl_moe_desc, n_experts) F(bl_moe_desc, top_k) F(bl_moe_desc, activation)                    \
    F(bl_moe_desc, x) F(bl_moe_desc, wr) F(bl_moe_desc, w1) F(bl_moe_desc, b1)                    \
    F(bl_moe_desc, w3) F(bl_moe_desc, b3) F(bl_moe_desc, w2) F(bl_moe_desc, b2)                   \
    S(bl_moe_out) F(bl_moe_out, logits) F(bl_moe_out, probs) F(bl_moe_out, top_index)             \
    F(bl_moe_out, top_weight) F(bl_moe_out, load) F(bl_moe_out, out)                              \
    S(bl_decoder_layer) F(bl_decoder_layer, ln1_gamma) F(bl_decoder_layer, ln1_beta)              \
    F(bl_decoder_layer, wq) F(bl_decoder_layer, bq) F(bl_decoder_layer, wk)                       \
    F(bl_decoder_layer, bk) F(bl_decoder_layer, wv) F(bl_decoder_layer, bv)                       \
    F(bl_decoder_layer, wo) F(bl_decoder_layer, bo) F(bl_decoder_layer, ln2_gamma)                \
    F(bl_decoder_layer, ln2_beta) F(bl_decoder_layer, w1) F(bl_decoder_layer, b1)                 \
    F(bl_decoder_layer, w2) F(bl_decoder_layer, b2)                                               \
    S(bl_edit) F(bl_edit, layer) F(bl_edit, site) F(bl_edit, head) F(bl_edit, row)                \
    F(bl_edit, values)                                                                            \
    S(bl_decoder_desc) F(bl_decoder_desc, n_layers) F(bl_decoder_desc, d_model)                    \
    F(bl_decoder_desc, n_heads) F(bl_decoder_desc, d_ff) F(bl_decoder_desc, vocab)                 \
    F(bl_decoder_desc, n_positions) F(bl_decoder_desc, activation) F(bl_decoder_desc, eps)        \
    F(bl_decoder_desc, L) F(bl_decoder_desc, ids) F(bl_decoder_desc, wte)                         \
    F(bl_decoder_desc, wpe) F(bl_decoder_desc, layers) F(bl_decoder_desc, lnf_gamma)              \
    F(bl_decoder_desc, lnf_beta) F(bl_decoder_desc, edits) F(bl_decoder_desc, n_edits)            \
    F(bl_decoder_desc, first_layer) F(bl_decoder_desc, start) F(bl_decoder_desc, end_layer)       \
    F(bl_decoder_desc, logits_last)                                                               \
    S(bl_lens_target) F(bl_lens_target, targets) F(bl_lens_target, rank) F(bl_lens_target, prob)  \
    S(bl_decoder_layer_out) F(bl_decoder_layer_out, norm1) F(bl_decoder_layer_out, q)               \
    F(bl_decoder_layer_out, k) F(bl_decoder_layer_out, v) F(bl_decoder_layer_out, scores)         \
    F(bl_decoder_layer_out, weights) F(bl_decoder_layer_out, context)                             \
    F(bl_decoder_layer_out, concat) F(bl_decoder_layer_out, attn_out)                             \
    F(bl_decoder_layer_out, resid1) F(bl_decoder_layer_out, norm2) F(bl_decoder_layer_out, hidden)  \
    F(bl_decoder_layer_out, activated) F(bl_decoder_layer_out, ffn_out)                           \
    F(bl_decoder_layer_out, resid2) F(bl_decoder_layer_out, x)                                    \
    S(bl_decoder_out) F(bl_decoder_out, logits) F(bl_decoder_out, embed)                          \
    F(bl_decoder_out, hidden) F(bl_decoder_out, layers)                                           \
    S(bl_llama_layer) F(bl_llama_layer, attn_norm) F(bl_llama_layer, wq) F(bl_llama_layer, bq)    \
    F(bl_llama_layer, wk) F(bl_llama_layer, bk) F(bl_llama_layer, wv) F(bl_llama_layer, bv)       \
    F(bl_llama_layer, q_norm) F(bl_llama_layer, k_norm) F(bl_llama_layer, wo)                     \
    F(bl_llama_layer, bo) F(bl_llama_layer, ffn_norm) F(bl_llama_layer, w_gate)                   \
    F(bl_llama_layer, b_gate) F(bl_llama_layer, w_up) F(bl_llama_layer, b_up)                     \
    F(bl_llama_layer, w_down) F(bl_llama_layer, b_down)                                           \
    S(bl_llama_desc) F(bl_llama_desc, n_layers) F(bl_llama_desc, d_model)                         \
    F(bl_llama_desc, n_heads) F(bl_llama_desc, n_kv_heads) F(bl_llama_desc, head_dim)             \
    F(bl_llama_desc, d_ff) F(bl_llama_desc, vocab) F(bl_llama_desc, max_positions)                \
    F(bl_llama_desc, eps) F(bl_llama_desc, dtype) F(bl_llama_desc, rope_theta)                    \
    F(bl_llama_desc, rope_type) F(bl_llama_desc, rope_factor)                                     \
    F(bl_llama_desc, rope_low_freq_factor) F(bl_llama_desc, rope_high_freq_factor)                \
    F(bl_llama_desc, rope_original_max_positions) F(bl_llama_desc, L) F(bl_llama_desc, ids)       \
    F(bl_llama_desc, embed) F(bl_llama_desc, layers) F(bl_llama_desc, final_norm)                 \
    F(bl_llama_desc, lm_head) F(bl_llama_desc, edits) F(bl_llama_desc, n_edits)                   \
    F(bl_llama_desc, first_layer) F(bl_llama_desc, start) F(bl_llama_desc, end_layer)             \
    F(bl_llama_desc, logits_last) F(bl_llama_desc, weights_finite)                                \
    S(bl_llama_layer_out) F(bl_llama_layer_out, norm1) F(bl_llama_layer_out, rstd1)               \
    F(bl_llama_layer_out, q) F(bl_llama_layer_out, k) F(bl_llama_layer_out, v)                    \
    F(bl_llama_layer_out, q_rot) F(bl_llama_layer_out, k_rot) F(bl_llama_layer_out, scores)       \
    F(bl_llama_layer_out, weights) F(bl_llama_layer_out, context) F(bl_llama_layer_out, concat)   \
    F(bl_llama_layer_out, attn_out) F(bl_llama_layer_out, resid1) F(bl_llama_layer_out, norm2)    \
    F(bl_llama_layer_out, rstd2) F(bl_llama_layer_out, gate) F(bl_llama_layer_out, up)            \
    F(bl_llama_layer_out, activated) F(bl_llama_layer_out, ffn_out) F(bl_llama_layer_out, resid2) \
    F(bl_llama_layer_out, x)                                                                      \
    S(bl_llama_out) F(bl_llama_out, logits) F(bl_llama_out, embed) F(bl_llama_out, hidden)        \
    F(bl_llama_out, layers)

#define BL__LAYOUT_SNAME(s) ";" #s
#define BL__LAYOUT_FNAME(s, f) " " #f
#define BL__LAYOUT_SNUM(s) (int32_t) sizeof(s),
#define BL__LAYOUT_FNUM(s, f) (int32_t) offsetof(s, f),

/* "bl_error status message;bl_rng mt pos ...": per struct its name then its fields', in the
   order of bl__abi_layout's numbers (the leading ';' is skipped). */
const char *bl__abi_layout_names(void) {
    return &BL__LAYOUT(BL__LAYOUT_SNAME, BL__LAYOUT_FNAME)[1];   /* skip the leading ";" */
}

/* out[0:n] = per struct its sizeof, then the offsetof of each of its fields, in the order of
   bl__abi_layout_names(); returns how many numbers there are (all of them when out is NULL). */
int bl__abi_layout(int32_t *out, int n) {
    static const int32_t all[] = {BL__LAYOUT(BL__LAYOUT_SNUM, BL__LAYOUT_FNUM)};
    int count = (int)(sizeof all / sizeof all[0]);
    for (int i = 0; out && i < n && i < count; i++) out[i] = all[i];
    return count;
}

/* Which build this module is, as a custom section the loader reads from a compiled
   WebAssembly.Module (WebAssembly.Module.customSections) before instantiating one handed to
   load({ wasmModule }). The loader rewrites "fma=1" to "fma=0" where it patches the FMA
   instructions out (engine-load.js), so a patched module never passes for the FMA build. */
#if defined(__wasm_simd128__) && BL_HAS_FMA
#define BL__BUILD_TAG "blocklens simd fma=1"
#elif defined(__wasm_simd128__)
#define BL__BUILD_TAG "blocklens simd fma=0"
#else
#define BL__BUILD_TAG "blocklens scalar"
#endif
__asm__(".section .custom_section.blocklens,\"\",@\n.ascii \"" BL__BUILD_TAG "\"\n.text\n");

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
    if (f[10] > BL_ATTN_BIAS_QKV)   /* attn_bias: a bl_attn_bias */
        return bl__fail(err, BL_ERR_VALUE, "config field 10 (attn_bias, %g) must be 0, 1 or 2",
                        f[10]);
    *c = (bl_model_config){
        .vocab = (int64_t)f[0], .max_positions = (int64_t)f[1], .type_vocab = (int64_t)f[2],
        .d_model = (int64_t)f[3], .n_layers = (int64_t)f[4], .n_heads = (int64_t)f[5],
        .n_kv_heads = (int64_t)f[6], .d_ff = (int64_t)f[7], .gated = f[8] != 0,
        .norm = f[9] != 0 ? BL_NORM_RMS : BL_NORM_LAYER, .attn_bias = (int)f[10],
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

/* Index of the first NaN or infinity among the n 16-bit values at p (dtype 1: F16, 2: BF16:
   an exponent of all ones), or -1: the check of weights kept in their own dtype. */
int bl__first_nonfinite_16(const uint16_t *p, int n, int dtype) {
    uint16_t e = dtype == BL_DTYPE_F16 ? 0x7c00u : 0x7f80u;
    for (int i = 0; i < n; i++)
        if ((p[i] & e) == e) return i;
    return -1;
}

/* The first of count (pointer, length) pairs in list that holds a NaN or infinity, or -1:
   one call checks every float input of a JS call. The pointers are unsigned words: the heap
   reaches 4 GiB, so an address may have its top bit set. */
int bl__first_nonfinite_of(const uint32_t *list, int count) {
    for (int k = 0; k < count; k++)
        if (bl__first_nonfinite((const float *)(uintptr_t)list[2 * k], list[2 * k + 1]) >= 0) return k;
    return -1;
}

/* The most one malloc could still find: the heap's free bytes (its top included) plus what it can
   still grow. The wrapper refuses a block larger than that without asking malloc: a failed
   growth would make dlmalloc stop growing the heap contiguously, and then no block of 2 GiB or
   more could be taken again. Walks the heap's chunks (mallinfo): called only to take a block. */
size_t bl__heap_room(void) {
    struct mallinfo mi = mallinfo();
    /* fordblks: an int in the header, a size_t in dlmalloc: the same 32 bits */
    return (size_t)(unsigned)mi.fordblks + (emscripten_get_heap_max() - (size_t)sbrk(0));
}

/* ---- training (src/train.c, src/adamw.c) without a struct record: bl_train_desc as 9 ints
   (n_layers, d_model, n_heads, d_ff, vocab, n_positions, activation, batch, L) and eps. */
static bl_train_desc train_desc_of(const int32_t *c, float eps) {
    return (bl_train_desc){.n_layers = c[0], .d_model = c[1], .n_heads = c[2], .d_ff = c[3],
                           .vocab = c[4], .n_positions = c[5], .activation = (bl_activation)c[6],
                           .eps = eps, .batch = c[7], .L = c[8]};
}

/* out = param count, workspace floats, then the float offsets of wte, wpe, ln_f gamma, ln_f
   beta, then per layer its 16 parts in buffer order (bl_train_part LN1_GAMMA..B2): 6 + 16
   n_layers doubles. The status names a refused size. */
bl_status bl__train_layout(const int32_t *cfg, float eps, double *out, bl_error *err) {
    BL__CHECK(bl__check_ptr(err, "cfg", cfg));
    BL__CHECK(bl__check_ptr(err, "out", out));
    bl_train_desc d = train_desc_of(cfg, eps);
    BL__CHECK(bl__train_check(&d, err));
    size_t ws = bl_train_workspace_size(&d);
    if (!ws)
        return bl__fail(err, BL_ERR_TOO_LARGE, "workspace (batch %d x L %d) exceeds %u floats",
                        d.batch, d.L, (unsigned)BL_MAX_ELEMS);
    out[0] = (double)bl_train_param_count(&d);
    out[1] = (double)ws;
    const bl_train_part g[4] = {BL_TP_WTE, BL_TP_WPE, BL_TP_LNF_GAMMA, BL_TP_LNF_BETA};
    for (int i = 0; i < 4; i++) out[2 + i] = (double)bl_train_param_offset(&d, -1, g[i]);
    for (int l = 0; l < d.n_layers; l++)
        for (int p = BL_TP_LN1_GAMMA; p < BL_TP_LNF_GAMMA; p++)
            out[6 + 16 * l + (p - BL_TP_LN1_GAMMA)] = (double)bl_train_param_offset(&d, l, p);
    bl__ok(err);
    return BL_OK;
}

/* bl_train_grad (grads given) or bl_train_eval (grads NULL). */
bl_status bl__train_run(const int32_t *cfg, float eps, const float *params, const int32_t *tokens,
                        float *grads, float *loss, float *ws, bl_error *err) {
    BL__CHECK(bl__check_ptr(err, "cfg", cfg));
    bl_train_desc d = train_desc_of(cfg, eps);
    return grads ? bl_train_grad(&d, params, tokens, grads, loss, ws, err)
                 : bl_train_eval(&d, params, tokens, loss, ws, err);
}

/* One optimiser step: bl_clip_grad_norm (clip > 0; *norm the norm before it), then
   bl_train_adamw_step with { lr, beta1, beta2, adam_eps, weight_decay, step }. */
bl_status bl__train_update(const int32_t *cfg, float eps, float *params, float *grads, float *m,
                           float *v, float lr, float beta1, float beta2, float adam_eps,
                           float weight_decay, int step, float clip, float *norm, bl_error *err) {
    BL__CHECK(bl__check_ptr(err, "cfg", cfg));
    bl_train_desc d = train_desc_of(cfg, eps);
    BL__CHECK(bl__train_check(&d, err));
    if (clip > 0.0f) BL__CHECK(bl_clip_grad_norm(grads, bl_train_param_count(&d), clip, norm, err));
    bl_adamw_desc o = {.lr = lr, .beta1 = beta1, .beta2 = beta2, .eps = adam_eps,
                       .weight_decay = weight_decay, .step = step};
    return bl_train_adamw_step(&d, params, grads, m, v, &o, err);
}
