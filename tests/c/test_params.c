/* test_params.c - parameter counts against torch modules counted on the meta device, and the
   published totals of the presets. */
#include <string.h>
#include "harness.h"

/* attn_bias in a fixture: false, true (q, k, v and o) or "qkv" (q, k and v only). */
static int attn_bias_of(const cJSON *p) {
    const char *s = fx_str(p, "attn_bias");
    return s ? (strcmp(s, "qkv") == 0 ? BL_ATTN_BIAS_QKV : -1) : fx_int(p, "attn_bias", 0);
}

static void config_of(const cJSON *p, bl_model_config *c) {
    *c = (bl_model_config){
        .vocab = (int64_t)fx_num(p, "vocab", 0), .max_positions = (int64_t)fx_num(p, "max_positions", 0),
        .type_vocab = (int64_t)fx_num(p, "type_vocab", 0), .d_model = (int64_t)fx_num(p, "d_model", 0),
        .n_layers = (int64_t)fx_num(p, "n_layers", 0), .n_heads = (int64_t)fx_num(p, "n_heads", 0),
        .n_kv_heads = (int64_t)fx_num(p, "n_kv_heads", 0), .d_ff = (int64_t)fx_num(p, "d_ff", 0),
        .gated = fx_int(p, "gated", 0),
        .norm = (fx_str(p, "norm") && strcmp(fx_str(p, "norm"), "rms") == 0) ? BL_NORM_RMS : BL_NORM_LAYER,
        .attn_bias = attn_bias_of(p), .ffn_bias = fx_int(p, "ffn_bias", 0),
        .embed_norm = fx_int(p, "embed_norm", 0), .final_norm = fx_int(p, "final_norm", 0),
        .lm_head = fx_int(p, "lm_head", 0), .pooler = fx_int(p, "pooler", 0),
        .n_experts = (int64_t)fx_num(p, "n_experts", 0), .top_k = (int64_t)fx_num(p, "top_k", 0),
        .n_dec_layers = (int64_t)fx_num(p, "n_dec_layers", 0)};
}

static void check_counts(const cJSON *kase, const bl_param_count *got) {
    cJSON *e = fx_get(kase, "expected");
    struct { const char *k; int64_t v; } f[] = {
        {"embeddings", got->embeddings}, {"attention", got->attention}, {"ffn", got->ffn},
        {"norms", got->norms}, {"other", got->other}, {"total", got->total},
        {"active", got->active}, {"attention_per_layer", got->attention_per_layer},
        {"ffn_per_layer", got->ffn_per_layer}};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        int64_t want = (int64_t)fx_num(e, f[i].k, -1);
        if (want != f[i].v) {
            fprintf(stderr, "  %s.%s: %lld, want %lld\n", fx_str(kase, "name"), f[i].k,
                    (long long)f[i].v, (long long)want);
        }
        CHECK(want == f[i].v);
    }
}

static void params_match_torch_module_counts(void) {
    cJSON *kase;
    int n = 0;
    cJSON_ArrayForEach(kase, fx_cases("params.json")) {
        bl_model_config c;
        bl_param_count got;
        config_of(fx_get(kase, "params"), &c);
        CHECK_STATUS(bl_config_param_count(&c, &got, NULL), BL_OK);
        check_counts(kase, &got);
        n++;
    }
    CHECK(n >= 6);
}

static void presets_reproduce_published_totals(void) {
    cJSON *kase;
    int presets = 0;
    cJSON_ArrayForEach(kase, fx_cases("params.json")) {
        const char *name = fx_str(fx_get(kase, "params"), "preset");
        if (!name) continue;
        bl_model_config c;
        bl_param_count got;
        int64_t printed = 0;
        CHECK_STATUS(bl_preset_config(name, &c, &printed, NULL), BL_OK);
        CHECK_STATUS(bl_config_param_count(&c, &got, NULL), BL_OK);
        check_counts(kase, &got);
        CHECK(printed == (int64_t)fx_num(fx_get(kase, "expected"), "printed_total", -1));
        printf("     %-17s total %lld, active %lld (printed %lld)\n", name,
               (long long)got.total, (long long)got.active, (long long)printed);
        presets++;
    }
    CHECK(presets == bl_preset_count());
    bl_model_config c;
    bl_param_count p;
    bl_preset_config("bert-base", &c, NULL, NULL);
    bl_config_param_count(&c, &p, NULL);
    CHECK(p.total == 109482240);
    bl_preset_config("gpt2", &c, NULL, NULL);
    bl_config_param_count(&c, &p, NULL);
    CHECK(p.total == 124439808);
    bl_preset_config("llama-2-7b", &c, NULL, NULL);
    bl_config_param_count(&c, &p, NULL);
    CHECK(p.total == 6738415616LL);
    bl_preset_config("mixtral-8x7b", &c, NULL, NULL);
    bl_config_param_count(&c, &p, NULL);
    CHECK(p.total == 46702792704LL && p.active == 12879925248LL);
    bl_preset_config("qwen2-0.5b", &c, NULL, NULL);
    bl_config_param_count(&c, &p, NULL);
    CHECK(p.total == 494032768LL);
    bl_preset_config("poems", &c, NULL, NULL);
    bl_config_param_count(&c, &p, NULL);
    CHECK(p.total == 324096);
}

/* Qwen2's q, k and v carry biases, o does not: the card's 494,032,768 lies between no
   attention biases and biases on all four projections, d_model per layer from either. */
static void attn_bias_qkv_leaves_the_output_projection_without(void) {
    bl_model_config c;
    bl_param_count qkv, all, none;
    CHECK_STATUS(bl_preset_config("qwen2-0.5b", &c, NULL, NULL), BL_OK);
    CHECK(c.attn_bias == BL_ATTN_BIAS_QKV);
    CHECK_STATUS(bl_config_param_count(&c, &qkv, NULL), BL_OK);
    c.attn_bias = BL_ATTN_BIAS_ALL;
    CHECK_STATUS(bl_config_param_count(&c, &all, NULL), BL_OK);
    c.attn_bias = BL_ATTN_BIAS_NONE;
    CHECK_STATUS(bl_config_param_count(&c, &none, NULL), BL_OK);
    /* q 896 + k 128 + v 128 per layer; o adds 896 more */
    CHECK(qkv.attention_per_layer - none.attention_per_layer == 896 + 2 * 128);
    CHECK(all.attention_per_layer - qkv.attention_per_layer == 896);
    CHECK(qkv.total == 494032768LL && none.total == 494005120LL && all.total == 494054272LL);
    printf("     qwen2-0.5b: no attention bias %lld, q/k/v %lld, q/k/v/o %lld\n",
           (long long)none.total, (long long)qkv.total, (long long)all.total);

    /* The poem model: 324,096 with its biases, 322,944 without any */
    CHECK_STATUS(bl_preset_config("poems", &c, NULL, NULL), BL_OK);
    CHECK_STATUS(bl_config_param_count(&c, &all, NULL), BL_OK);
    c.attn_bias = BL_ATTN_BIAS_NONE, c.ffn_bias = 0;
    CHECK_STATUS(bl_config_param_count(&c, &none, NULL), BL_OK);
    CHECK(all.total == 324096 && none.total == 322944);

    bl_error err;
    c.attn_bias = 3;
    CHECK_STATUS(bl_config_param_count(&c, &all, &err), BL_ERR_VALUE);
    CHECK(strstr(err.message, "attn_bias (3)") != NULL);
    c.attn_bias = -1;
    CHECK_STATUS(bl_config_param_count(&c, &all, &err), BL_ERR_VALUE);
}

static void params_reject_bad_configs(void) {
    bl_model_config c;
    bl_param_count p;
    bl_error err;
    bl_preset_config("gpt2", &c, NULL, NULL);
    c.n_heads = 5;
    CHECK_STATUS(bl_config_param_count(&c, &p, &err), BL_ERR_SHAPE);
    CHECK(strstr(err.message, "n_heads (5)") != NULL);
    bl_preset_config("mixtral-8x7b", &c, NULL, NULL);
    c.top_k = 9;
    CHECK_STATUS(bl_config_param_count(&c, &p, &err), BL_ERR_SHAPE);
    c.top_k = 2;
    c.n_kv_heads = 3;
    CHECK_STATUS(bl_config_param_count(&c, &p, &err), BL_ERR_SHAPE);
    c.n_kv_heads = 0;
    c.d_model = (int64_t)1 << 40;
    c.n_heads = 1;
    c.d_ff = (int64_t)1 << 40;
    CHECK_STATUS(bl_config_param_count(&c, &p, &err), BL_ERR_TOO_LARGE);
    c.d_model = -1;
    CHECK_STATUS(bl_config_param_count(&c, &p, &err), BL_ERR_SIZE);
    CHECK_STATUS(bl_preset_config("<script>", &c, NULL, &err), BL_ERR_PRESET);
    CHECK(strstr(err.message, "unknown preset") != NULL);
}

/* Accepted configs (every field <= 2^40) whose products pass 2^63: BL_ERR_TOO_LARGE, with no
   signed overflow on the way (the asan preset's UBSan stops at one). Near the edge the count
   stays exact. */
static void params_overflow_is_a_status_not_undefined_behaviour(void) {
    bl_param_count p;
    bl_error err;
    const int64_t T40 = (int64_t)1 << 40;
    bl_model_config pooler = {.d_model = T40, .n_heads = 1, .d_ff = 1, .pooler = 1};
    CHECK_STATUS(bl_config_param_count(&pooler, &p, &err), BL_ERR_TOO_LARGE);
    CHECK(strstr(err.message, "overflows") != NULL);
    bl_model_config biases = {.d_model = T40, .n_heads = 1, .d_ff = T40, .n_layers = 1,
                              .attn_bias = 1, .ffn_bias = 1, .gated = 1, .n_experts = T40,
                              .top_k = 1, .n_dec_layers = T40, .final_norm = 1};
    CHECK_STATUS(bl_config_param_count(&biases, &p, &err), BL_ERR_TOO_LARGE);
    bl_model_config moe = {.d_model = 1, .n_heads = 1, .d_ff = T40, .n_layers = T40,
                           .ffn_bias = 1, .gated = 1, .n_experts = 4096, .top_k = 1};
    CHECK_STATUS(bl_config_param_count(&moe, &p, &err), BL_ERR_TOO_LARGE);

    /* d = 2^30, one layer: attention 4 d^2, FFN 2 d, norms 2 * 2d, pooler d^2 + d */
    const int64_t d = (int64_t)1 << 30;
    bl_model_config edge = {.d_model = d, .n_heads = 1, .d_ff = 1, .n_layers = 1, .pooler = 1};
    CHECK_STATUS(bl_config_param_count(&edge, &p, &err), BL_OK);
    CHECK(p.attention == 4 * d * d && p.ffn == 2 * d && p.norms == 4 * d);
    CHECK(p.other == d * d + d);
    CHECK(p.total == 5 * d * d + 7 * d && p.active == p.total);
}

int main(void) {
    bl_run("params_match_torch_module_counts", params_match_torch_module_counts);
    bl_run("presets_reproduce_published_totals", presets_reproduce_published_totals);
    bl_run("attn_bias_qkv_leaves_the_output_projection_without",
           attn_bias_qkv_leaves_the_output_projection_without);
    bl_run("params_reject_bad_configs", params_reject_bad_configs);
    bl_run("params_overflow_is_a_status_not_undefined_behaviour",
           params_overflow_is_a_status_not_undefined_behaviour);
    return bl_summary();
}
