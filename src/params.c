/* params.c - parameter counts as a pure function of a model config (with per-part breakdown
   and MoE active count), and the named presets of real models. */
#include <string.h>
#include "bl_internal.h"

/* Overflow-checked int64 arithmetic: any overflow poisons the whole count. Every operation
   on a config value goes through these (fields reach 2^40, so d_model^2 alone overflows). */
typedef struct { int overflow; } acc_t;
static int64_t mul(acc_t *a, int64_t x, int64_t y) {
    int64_t r;
    if (__builtin_mul_overflow(x, y, &r)) { a->overflow = 1; return 0; }
    return r;
}
static int64_t add(acc_t *a, int64_t x, int64_t y) {
    int64_t r;
    if (__builtin_add_overflow(x, y, &r)) { a->overflow = 1; return 0; }
    return r;
}
static int64_t sub(acc_t *a, int64_t x, int64_t y) {
    int64_t r;
    if (__builtin_sub_overflow(x, y, &r)) { a->overflow = 1; return 0; }
    return r;
}

static bl_status check_config(const bl_model_config *c, bl_error *err) {
    struct { const char *name; int64_t v, lo; } f[] = {
        {"vocab", c->vocab, 0},           {"max_positions", c->max_positions, 0},
        {"type_vocab", c->type_vocab, 0}, {"d_model", c->d_model, 1},
        {"n_layers", c->n_layers, 0},     {"n_heads", c->n_heads, 1},
        {"n_kv_heads", c->n_kv_heads, 0}, {"d_ff", c->d_ff, 1},
        {"n_experts", c->n_experts, 0},   {"top_k", c->top_k, 0},
        {"n_dec_layers", c->n_dec_layers, 0}};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (f[i].v < f[i].lo || f[i].v > ((int64_t)1 << 40))
            return bl__fail(err, BL_ERR_SIZE, "%s (%lld) must be between %lld and 2^40",
                            f[i].name, (long long)f[i].v, (long long)f[i].lo);
    if (c->d_model % c->n_heads)
        return bl__fail(err, BL_ERR_SHAPE, "d_model (%lld) must be divisible by n_heads (%lld)",
                        (long long)c->d_model, (long long)c->n_heads);
    if (c->n_kv_heads && (c->n_kv_heads > c->n_heads || c->n_heads % c->n_kv_heads))
        return bl__fail(err, BL_ERR_SHAPE, "n_heads (%lld) must be a multiple of n_kv_heads (%lld)",
                        (long long)c->n_heads, (long long)c->n_kv_heads);
    if (c->n_experts ? (c->top_k < 1 || c->top_k > c->n_experts) : c->top_k != 0)
        return bl__fail(err, BL_ERR_SHAPE, "top_k (%lld) must be between 1 and n_experts (%lld)",
                        (long long)c->top_k, (long long)c->n_experts);
    if (c->norm != BL_NORM_LAYER && c->norm != BL_NORM_RMS)
        return bl__fail(err, BL_ERR_VALUE, "norm (%d) must be BL_NORM_LAYER or BL_NORM_RMS",
                        (int)c->norm);
    if (c->attn_bias < BL_ATTN_BIAS_NONE || c->attn_bias > BL_ATTN_BIAS_QKV)
        return bl__fail(err, BL_ERR_VALUE, "attn_bias (%d) must be BL_ATTN_BIAS_NONE, "
                        "BL_ATTN_BIAS_ALL or BL_ATTN_BIAS_QKV", c->attn_bias);
    return BL_OK;
}

bl_status bl_config_param_count(const bl_model_config *c, bl_param_count *out, bl_error *err) {
    BL__CHECK(bl__check_ptr(err, "cfg", c));
    BL__CHECK(bl__check_ptr(err, "out", out));
    BL__CHECK(check_config(c, err));
    acc_t a = {0};
    int64_t d = c->d_model;
    int64_t kv_dim = mul(&a, c->n_kv_heads ? c->n_kv_heads : c->n_heads, d / c->n_heads);
    int64_t norm = c->norm == BL_NORM_LAYER ? mul(&a, 2, d) : d;

    /* one attention sublayer: q and o are d x d, k and v are d x kv_dim; biases of
       q, k, v (d + 2 kv_dim) and of o (d) */
    int64_t attn = mul(&a, mul(&a, 2, d), add(&a, d, kv_dim));
    if (c->attn_bias != BL_ATTN_BIAS_NONE) attn = add(&a, attn, add(&a, d, mul(&a, 2, kv_dim)));
    if (c->attn_bias == BL_ATTN_BIAS_ALL) attn = add(&a, attn, d);
    /* one expert (or the dense FFN): 2 or 3 matrices d x d_ff */
    int64_t expert = mul(&a, mul(&a, c->gated ? 3 : 2, d), c->d_ff);
    if (c->ffn_bias) expert = add(&a, expert, add(&a, mul(&a, c->gated ? 2 : 1, c->d_ff), d));
    int64_t ffn = expert, idle = 0;
    if (c->n_experts) {
        int64_t router = mul(&a, d, c->n_experts);   /* routers carry no bias */
        ffn = add(&a, mul(&a, expert, c->n_experts), router);
        idle = mul(&a, expert, sub(&a, c->n_experts, c->top_k));
    }
    int64_t layers = add(&a, c->n_layers, c->n_dec_layers);
    int64_t stacks = (c->n_layers > 0) + (c->n_dec_layers > 0);

    bl_param_count p = {0};
    p.embeddings = mul(&a, add(&a, add(&a, c->vocab, c->max_positions), c->type_vocab), d);
    /* decoder layers of an encoder-decoder add cross-attention and a third norm */
    p.attention = mul(&a, attn, add(&a, c->n_layers, mul(&a, 2, c->n_dec_layers)));
    p.ffn = mul(&a, ffn, layers);
    p.norms = mul(&a, norm, add(&a, add(&a, mul(&a, 2, c->n_layers), mul(&a, 3, c->n_dec_layers)),
                                (c->embed_norm ? 1 : 0) + (c->final_norm ? stacks : 0)));
    p.other = add(&a, c->pooler ? add(&a, mul(&a, d, d), d) : 0,
                  c->lm_head ? mul(&a, d, c->vocab) : 0);
    p.total = add(&a, add(&a, add(&a, p.embeddings, p.attention), add(&a, p.ffn, p.norms)),
                  p.other);
    p.active = sub(&a, p.total, mul(&a, idle, layers));
    p.attention_per_layer = attn;
    p.ffn_per_layer = ffn;
    if (a.overflow)
        return bl__fail(err, BL_ERR_TOO_LARGE, "the parameter count overflows 64 bits");
    *out = p;
    bl__ok(err);
    return BL_OK;
}

/* ---- presets --------------------------------------------------------------------------- */
typedef struct { const char *name; bl_model_config cfg; int64_t printed; } preset_t;

static const preset_t presets[] = {
    /* Vaswani et al. 2017: shared 37k BPE vocabulary, embeddings tied with the pre-softmax
       projection, sinusoidal positions, 6 + 6 layers; the paper prints 65M and 213M. */
    {"transformer-base",
     {.vocab = 37000, .d_model = 512, .n_layers = 6, .n_heads = 8, .d_ff = 2048,
      .attn_bias = 1, .ffn_bias = 1, .n_dec_layers = 6}, 65000000},
    {"transformer-big",
     {.vocab = 37000, .d_model = 1024, .n_layers = 6, .n_heads = 16, .d_ff = 4096,
      .attn_bias = 1, .ffn_bias = 1, .n_dec_layers = 6}, 213000000},
    /* BERT-base uncased with its pooler: 109,482,240 (the paper prints 110M). */
    {"bert-base",
     {.vocab = 30522, .max_positions = 512, .type_vocab = 2, .d_model = 768, .n_layers = 12,
      .n_heads = 12, .d_ff = 3072, .attn_bias = 1, .ffn_bias = 1, .embed_norm = 1,
      .pooler = 1}, 110000000},
    /* GPT-2 small, LM head tied to the token embedding: 124,439,808 (the paper printed 117M). */
    {"gpt2",
     {.vocab = 50257, .max_positions = 1024, .d_model = 768, .n_layers = 12, .n_heads = 12,
      .d_ff = 3072, .attn_bias = 1, .ffn_bias = 1, .final_norm = 1}, 117000000},
    /* Llama-2-7B: SwiGLU, RMSNorm, rotary positions, no biases, untied head. */
    {"llama-2-7b",
     {.vocab = 32000, .d_model = 4096, .n_layers = 32, .n_heads = 32, .d_ff = 11008,
      .gated = 1, .norm = BL_NORM_RMS, .final_norm = 1, .lm_head = 1}, 7000000000},
    /* Mixtral-8x7B: 8 SwiGLU experts, 2 active, grouped-query attention with 8 KV heads;
       announced as 46.7B total, 12.9B active. */
    {"mixtral-8x7b",
     {.vocab = 32000, .d_model = 4096, .n_layers = 32, .n_heads = 32, .n_kv_heads = 8,
      .d_ff = 14336, .gated = 1, .norm = BL_NORM_RMS, .final_norm = 1, .lm_head = 1,
      .n_experts = 8, .top_k = 2}, 46700000000},
    /* Qwen2-0.5B: SwiGLU, RMSNorm, rotary positions, 14 heads sharing 2 KV heads, biases on
       q, k and v only, tied head; the model card's total is 494,032,768. */
    {"qwen2-0.5b",
     {.vocab = 151936, .d_model = 896, .n_layers = 24, .n_heads = 14, .n_kv_heads = 2,
      .d_ff = 4864, .gated = 1, .norm = BL_NORM_RMS, .attn_bias = BL_ATTN_BIAS_QKV,
      .final_norm = 1}, 494032768},
    /* The page's trained model (web/models/poems, GPT-2's layout): 3,436 characters, 64
       positions, 2 pre-LN layers, ReLU FFN, biases everywhere, tied head; its config.json
       records 324,096 parameters, as many as its safetensors file holds. */
    {"poems",
     {.vocab = 3436, .max_positions = 64, .d_model = 64, .n_layers = 2, .n_heads = 4,
      .d_ff = 256, .attn_bias = BL_ATTN_BIAS_ALL, .ffn_bias = 1, .final_norm = 1}, 324096},
};
#define N_PRESETS ((int)(sizeof presets / sizeof presets[0]))

int bl_preset_count(void) { return N_PRESETS; }

const char *bl_preset_name(int index) {
    return (index >= 0 && index < N_PRESETS) ? presets[index].name : NULL;
}

bl_status bl_preset_config(const char *name, bl_model_config *cfg, int64_t *printed_total,
                           bl_error *err) {
    BL__CHECK(bl__check_ptr(err, "name", name));
    BL__CHECK(bl__check_ptr(err, "cfg", cfg));
    for (int i = 0; i < N_PRESETS; i++)
        if (strcmp(presets[i].name, name) == 0) {
            *cfg = presets[i].cfg;
            if (printed_total) *printed_total = presets[i].printed;
            bl__ok(err);
            return BL_OK;
        }
    return bl__fail(err, BL_ERR_PRESET,
                    "unknown preset \"%.40s\" (known: transformer-base, transformer-big, "
                    "bert-base, gpt2, llama-2-7b, mixtral-8x7b, qwen2-0.5b, poems)", name);
}
