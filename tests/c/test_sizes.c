/* test_sizes.c - size arithmetic at the edges the API accepts. Built twice: 64-bit, and 32-bit
   (test_sizes32, -m32) where size_t is as narrow as on wasm32, so a product that wraps there
   fails here too. No fixtures: the 32-bit build has no cJSON. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "reference.h"
#include "bl_internal.h"

static void attention_small_head_path_only_for_products_up_to_4096(void) {
    /* L * L * d_k: 8192^2 * 64 and 16384^2 * 16 are 2^32 and wrap to 0 in 32 bits */
    struct { int L, dk, small; } c[] = {
        {7, 4, 1},     {32, 4, 1},     {33, 4, 0},      {8, 64, 1},      {9, 64, 0},
        {1, 64, 1},    {1, 65, 0},     {64, 1, 1},      {65, 1, 0},      {8192, 64, 0},
        {16384, 16, 0}, {65536, 1, 0}, {65536, 64, 0},  {46341, 2, 0},   {32768, 4, 0},
        {65536, 65536, 0}, {4096, 1, 0}};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        int got = bl__attention_small_head(c[i].L, c[i].dk);
        if (got != c[i].small)
            fprintf(stderr, "  L %d, d_k %d: small %d, want %d\n", c[i].L, c[i].dk, got, c[i].small);
        CHECK(got == c[i].small);
    }
}

/* Attention at L = 8192, d_model = 64, one head: accepted, and on wasm32 it took the small-head
   path and overran its stack array. Causal, identity weights, so row i's context is the softmax
   over keys 0..i of x_i . x_j / 8, weighting x_j: checked against a double reference on a few
   rows. 2^33 multiply-adds: only in optimised builds without sanitizers (~3 s). */
static void attention_8192_tokens_of_d_k_64_is_computed_right(void) {
#if defined(__OPTIMIZE__) && !defined(__SANITIZE_ADDRESS__)
    enum { L = 8192, D = 64 };
    size_t n = (size_t)L * D;
    float *x = malloc(n * 4), *w = calloc((size_t)D * D, 4), *ws = malloc((size_t)L * 4);
    float *q = malloc(n * 4), *k = malloc(n * 4), *v = malloc(n * 4), *cc = malloc(n * 4),
          *out = malloc(n * 4);
    CHECK(x && w && ws && q && k && v && cc && out);
    if (!(x && w && ws && q && k && v && cc && out)) return;
    uint32_t s = 1;
    for (size_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        x[i] = (float)(s >> 8) / 16777216.0f - 0.5f;
    }
    for (int i = 0; i < D; i++) w[i * D + i] = 1.0f;
    bl_attention_desc d = {.L = L, .d_model = D, .n_heads = 1, .causal = 1, .x = x,
                           .wq = w, .wk = w, .wv = w, .wo = w};
    bl_attention_out o = {.q = q, .k = k, .v = v, .concat = cc, .out = out};
    CHECK(bl_attention_workspace_size(&d, &o) == (size_t)L);
    bl_error err;
    CHECK_STATUS(bl_attention_forward(&d, &o, ws, &err), BL_OK);
    int rows[] = {0, 1, 63, 64, 4095, 8191};
    double maxdiff = 0.0, *xd = malloc(sizeof(double) * n), *e = malloc(sizeof(double) * L);
    double *p = malloc(sizeof(double) * L), ctx[D];
    CHECK(xd && e && p);
    if (!(xd && e && p)) return;
    ref_widen(xd, x, n);
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        int i = rows[r];   /* q = k = v = x; the causal row sees keys 0..i */
        ref_attention_scores(e, NULL, xd + (size_t)i * D, xd, D, i + 1, D);
        for (int j = 0; j <= i; j++) e[j] /= 8.0;
        ref_softmax(p, e, NULL, i + 1);
        ref_attention_context(ctx, NULL, p, xd, D, i + 1, D);
        for (int c = 0; c < D; c++) {
            double diff = fabs(ctx[c] - out[(size_t)i * D + c]);
            if (diff > maxdiff) maxdiff = diff;
        }
    }
    free(xd); free(e); free(p);
    printf("     max |out - reference| over 6 rows: %.3g (tolerance 1e-5)\n", maxdiff);
    CHECK(maxdiff < 1e-5);
    free(x); free(w); free(ws); free(q); free(k); free(v); free(cc); free(out);
#else
    printf("     skipped: 2^33 multiply-adds are too slow unoptimised or under sanitizers\n");
#endif
}

/* Products of accepted dims at 2^31, 2^32 (0 in a 32-bit size_t) and beyond: refused with
   BL_ERR_TOO_LARGE before any buffer is touched (each buffer here holds one float). */
static void products_past_2_32_are_refused_before_touching_buffers(void) {
    float one[8] = {0}, *p = one;
    unsigned char mask[1] = {1};
    bl_error err;
    const int big = BL_MAX_DIM;           /* 65536: big * big = 2^32 */
    CHECK_STATUS(bl_linear_forward(p, p, p, NULL, big, big, 1, &err), BL_ERR_TOO_LARGE);
    CHECK_STATUS(bl_linear_forward(p, p, p, NULL, 1, big, big, &err), BL_ERR_TOO_LARGE);
    CHECK_STATUS(bl_linear_forward(p, p, p, NULL, big, 1, big, &err), BL_ERR_TOO_LARGE);
    CHECK_STATUS(bl_linear_forward(p, p, p, NULL, 46341, 46341, 1, &err), BL_ERR_TOO_LARGE);
    CHECK(strstr(err.message, "46341") != NULL);

    bl_ffn_desc f = {.L = big, .d_model = 1, .d_ff = big, .x = p, .w1 = p, .w2 = p};
    bl_ffn_out fo = {.hidden = p, .activated = p, .out = p};
    CHECK_STATUS(bl_ffn_forward(&f, &fo, &err), BL_ERR_TOO_LARGE);
    f = (bl_ffn_desc){.L = 1, .d_model = big, .d_ff = big, .x = p, .w1 = p, .w2 = p};
    CHECK_STATUS(bl_ffn_forward(&f, &fo, &err), BL_ERR_TOO_LARGE);

    bl_attention_desc a = {.L = big, .d_model = 1, .n_heads = 1, .key_mask = mask, .x = p,
                           .wq = p, .wk = p, .wv = p, .wo = p};
    bl_attention_out ao = {.q = p, .k = p, .v = p, .scores = p, .weights = p, .context = p,
                           .concat = p, .out = p};
    CHECK_STATUS(bl_attention_forward(&a, &ao, p, &err), BL_ERR_TOO_LARGE);   /* L*L = 2^32 */
    a.L = 16384, a.d_model = 64, a.n_heads = 64;                              /* H*L*L = 2^34 */
    CHECK_STATUS(bl_attention_forward(&a, &ao, p, &err), BL_ERR_TOO_LARGE);
    a.L = 1, a.d_model = big, a.n_heads = big;                                /* D*D = 2^32 */
    CHECK_STATUS(bl_attention_forward(&a, &ao, p, &err), BL_ERR_TOO_LARGE);

    CHECK_STATUS(bl_layernorm_forward(p, p, p, p, p, p, big, big, 1e-5f, &err), BL_ERR_TOO_LARGE);
    CHECK_STATUS(bl_rmsnorm_forward(p, p, p, p, 46341, 46341, 1e-5f, &err), BL_ERR_TOO_LARGE);
    CHECK_STATUS(bl_batchnorm_forward(p, p, p, p, p, p, big, 32768, 1e-5f, &err),
                 BL_ERR_TOO_LARGE);

    bl_block_desc b = {.L = big, .d_model = big, .n_heads = 1, .d_ff = 1, .x = p, .wq = p,
                       .wk = p, .wv = p, .wo = p, .w1 = p, .w2 = p};
    bl_block_out bo = {.attn = ao, .ffn = fo, .resid1 = p, .norm1 = p, .resid2 = p,
                       .norm2 = p, .out = p};
    CHECK_STATUS(bl_block_forward(&b, &bo, p, &err), BL_ERR_TOO_LARGE);
    b.L = 32768, b.d_model = 8, b.d_ff = 32768;                    /* L*L, L*d_ff = 2^30 */
    CHECK_STATUS(bl_block_forward(&b, &bo, p, &err), BL_ERR_TOO_LARGE);

    CHECK_STATUS(bl_activation_apply(p, p, (size_t)BL_MAX_ELEMS + 1, BL_ACT_RELU, &err),
                 BL_ERR_TOO_LARGE);
    bl_rng rng;
    bl_rng_seed(&rng, 1);
    CHECK_STATUS(bl_rng_normal_f32(&rng, p, (size_t)BL_MAX_ELEMS + 1, &err), BL_ERR_TOO_LARGE);
    CHECK_STATUS(bl_rng_uniform_f64(&rng, (double *)one, SIZE_MAX, &err), BL_ERR_TOO_LARGE);
}

static void workspace_sizes_at_the_largest_dims(void) {
    float one[1];
    bl_attention_desc a = {.L = BL_MAX_DIM, .d_model = BL_MAX_DIM, .n_heads = 1};
    bl_attention_out o = {0};
    CHECK(bl_attention_workspace_size(&a, &o) == (size_t)BL_MAX_DIM);
    o.weights = one;
    CHECK(bl_attention_workspace_size(&a, &o) == 0);
    bl_block_desc b = {.L = BL_MAX_DIM, .d_model = 1, .n_heads = 1, .d_ff = 1};
    bl_block_out bo = {0};
    CHECK(bl_block_workspace_size(&b, &bo) == (size_t)BL_MAX_DIM);
    CHECK(bl_attention_workspace_size(NULL, &o) == 0);
    /* the decoder's: L (12 d_model + d_ff + 1), refused past 2^28 floats, never wrapped */
    bl_decoder_desc d = {.n_layers = 1, .d_model = 16384, .n_heads = 1, .d_ff = BL_MAX_DIM,
                         .vocab = 1, .n_positions = 16384, .L = 16384};
    CHECK(bl_decoder_workspace_size(&d) == 0);                    /* 2^14 x (13 x 2^16 + 1) */
    d.d_model = 1, d.d_ff = 16371;                                 /* 2^14 x 2^14: the most */
    CHECK(bl_decoder_workspace_size(&d) == (size_t)1 << 28);
    d.d_ff = 16372;                                                /* 2^14 x (2^14 + 1) */
    CHECK(bl_decoder_workspace_size(&d) == 0);
    int32_t id = 0;
    bl_decoder_layer w = {.wq = one, .wk = one, .wv = one, .wo = one, .w1 = one, .w2 = one};
    bl_decoder_out out = {.logits = one};
    d.ids = &id, d.wte = one, d.wpe = one, d.layers = &w;
    bl_error err;
    CHECK_STATUS(bl_decoder_forward(&d, &out, one, &err), BL_ERR_TOO_LARGE);
    CHECK(strstr(err.message, "workspace (16384 x 16385)") != NULL);
}

/* The mixture of experts: stacked expert weights (n_experts x d_model x d_ff reaches 2^38) and
   its workspace L (2 d_model + 2 d_ff + n_experts), refused past 2^28 floats, never wrapped. */
static void moe_sizes_past_2_28_are_refused_never_wrapped(void) {
    float one[1];
    int32_t idx[1];
    bl_moe_desc m = {.L = 1, .d_model = BL_MAX_DIM, .d_ff = BL_MAX_DIM, .n_experts = 64,
                     .top_k = 1, .x = one, .wr = one, .w1 = one, .w2 = one};
    bl_moe_out mo = {.top_index = idx, .top_weight = one, .out = one};
    bl_error err;
    CHECK(bl_moe_workspace_size(&m, &mo) == 0);
    CHECK_STATUS(bl_moe_forward(&m, &mo, one, &err), BL_ERR_TOO_LARGE);
    CHECK(strstr(err.message, "(4194304 x 65536)") != NULL);
    m.n_experts = 1, m.d_model = 4096, m.d_ff = 4096, m.L = BL_MAX_DIM;   /* x, hidden: 2^28 */
    m.activation = BL_ACT_SWIGLU, m.w3 = one;
    CHECK(bl_moe_workspace_size(&m, &mo) == 0);                         /* 2^16 x 2^14 + 2^16 */
    CHECK_STATUS(bl_moe_forward(&m, &mo, one, &err), BL_ERR_TOO_LARGE);
    CHECK(strstr(err.message, "workspace (1073807360 floats)") != NULL);
    m.L = 16383, m.d_model = 1, m.d_ff = 8191, m.n_experts = 1;        /* just under 2^28 */
    mo.logits = one;
    CHECK(bl_moe_workspace_size(&m, &mo) == (size_t)16383 * (2 + 2 * 8191));
    m.L = 16384;                                                         /* 2^14 x 2^14 */
    CHECK(bl_moe_workspace_size(&m, &mo) == (size_t)1 << 28);
    mo.logits = NULL;                                                    /* + L logits */
    CHECK(bl_moe_workspace_size(&m, &mo) == 0);
}

int main(void) {
    printf("     size_t is %d bits\n", (int)(8 * sizeof(size_t)));
    bl_run("attention_small_head_path_only_for_products_up_to_4096",
           attention_small_head_path_only_for_products_up_to_4096);
    bl_run("attention_8192_tokens_of_d_k_64_is_computed_right",
           attention_8192_tokens_of_d_k_64_is_computed_right);
    bl_run("products_past_2_32_are_refused_before_touching_buffers",
           products_past_2_32_are_refused_before_touching_buffers);
    bl_run("workspace_sizes_at_the_largest_dims", workspace_sizes_at_the_largest_dims);
    bl_run("moe_sizes_past_2_28_are_refused_never_wrapped",
           moe_sizes_past_2_28_are_refused_never_wrapped);
    return bl_summary();
}
