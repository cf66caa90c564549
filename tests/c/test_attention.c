/* test_attention.c - multi-head self-attention against the torch fixtures, its masks,
   its stability and its refusals. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"

typedef struct {
    bl_attention_out o;
    float *work;
} outs_t;

static outs_t outs_alloc(int L, int D, int H) {
    size_t n = (size_t)L * D, s = (size_t)H * L * L;
    outs_t r = {{.q = malloc(n * 4), .k = malloc(n * 4), .v = malloc(n * 4),
                 .scores = malloc(s * 4), .weights = malloc(s * 4), .context = malloc(n * 4),
                 .concat = malloc(n * 4), .out = malloc(n * 4)}, malloc((size_t)L * 4)};
    return r;
}
static void outs_free(outs_t *r) {
    free(r->o.q); free(r->o.k); free(r->o.v); free(r->o.scores); free(r->o.weights);
    free(r->o.context); free(r->o.concat); free(r->o.out); free(r->work);
}

static void attention_matches_torch(void) {
    cJSON *kase;
    int n_causal = 0, n_unscaled = 0, n_masked = 0;
    cJSON_ArrayForEach(kase, fx_cases("attention.json")) {
        cJSON *p = fx_get(kase, "params"), *in = fx_get(kase, "inputs");
        int L = fx_int(p, "L", 0), D = fx_int(p, "d_model", 0), H = fx_int(p, "n_heads", 0);
        size_t nmask = 0;
        double *mask_d = fx_doubles(in, "key_mask", &nmask);
        unsigned char *mask = NULL;
        if (mask_d) {
            mask = malloc(nmask);
            for (size_t i = 0; i < nmask; i++) mask[i] = mask_d[i] != 0;
            free(mask_d);
            n_masked++;
        }
        bl_attention_desc d = {
            .L = L, .d_model = D, .n_heads = H, .causal = fx_int(p, "causal", 0),
            .no_scale = fx_int(p, "no_scale", 0), .key_mask = mask, .x = fx_floats(in, "x", NULL),
            .wq = fx_floats(in, "wq", NULL), .bq = fx_floats(in, "bq", NULL),
            .wk = fx_floats(in, "wk", NULL), .bk = fx_floats(in, "bk", NULL),
            .wv = fx_floats(in, "wv", NULL), .bv = fx_floats(in, "bv", NULL),
            .wo = fx_floats(in, "wo", NULL), .bo = fx_floats(in, "bo", NULL)};
        n_causal += d.causal;
        n_unscaled += d.no_scale;
        outs_t r = outs_alloc(L, D, H);
        CHECK_STATUS(bl_attention_forward(&d, &r.o, NULL, NULL), BL_OK);
        size_t n = (size_t)L * D, s = (size_t)H * L * L;
        fx_expect_close(kase, "q", r.o.q, n);
        fx_expect_close(kase, "k", r.o.k, n);
        fx_expect_close(kase, "v", r.o.v, n);
        fx_expect_close(kase, "scores", r.o.scores, s);
        fx_expect_close(kase, "weights", r.o.weights, s);
        fx_expect_close(kase, "context", r.o.context, n);
        fx_expect_close(kase, "concat", r.o.concat, n);
        fx_expect_close(kase, "out", r.o.out, n);
        for (size_t i = 0; i < s; i++) CHECK(!isnan(r.o.weights[i]));
        /* Without the weights buffer (workspace instead) the output is identical. */
        float *out2 = malloc(n * 4);
        bl_attention_out lean = r.o;
        lean.weights = NULL; lean.scores = NULL; lean.context = NULL; lean.out = out2;
        CHECK(bl_attention_workspace_size(&d, &lean) == (size_t)L);
        CHECK_STATUS(bl_attention_forward(&d, &lean, r.work, NULL), BL_OK);
        CHECK(memcmp(out2, r.o.out, n * 4) == 0);
        free(out2);
        free(mask); free((void *)d.x); free((void *)d.wq); free((void *)d.bq); free((void *)d.wk);
        free((void *)d.bk); free((void *)d.wv); free((void *)d.bv); free((void *)d.wo); free((void *)d.bo);
        outs_free(&r);
    }
    CHECK(n_causal > 0 && n_unscaled > 0 && n_masked > 0);
}

enum { L = 6, D = 8, H = 2 };
static float x[L * D], w[4][D * D];
static bl_attention_desc desc(int causal) {
    bl_rng rng;
    bl_rng_seed(&rng, 11);
    bl_rng_normal_f32(&rng, x, L * D, NULL);
    for (int i = 0; i < 4; i++) bl_rng_normal_f32(&rng, w[i], D * D, NULL);
    return (bl_attention_desc){.L = L, .d_model = D, .n_heads = H, .causal = causal, .x = x,
                               .wq = w[0], .wk = w[1], .wv = w[2], .wo = w[3]};
}

static void attention_causal_mask_blocks_future(void) {
    bl_attention_desc d = desc(1);
    outs_t r = outs_alloc(L, D, H);
    CHECK_STATUS(bl_attention_forward(&d, &r.o, NULL, NULL), BL_OK);
    for (int h = 0; h < H; h++)
        for (int i = 0; i < L; i++) {
            float sum = 0;
            for (int j = 0; j < L; j++) {
                float wij = r.o.weights[(h * L + i) * L + j];
                if (j > i) CHECK(wij == 0.0f);
                sum += wij;
            }
            CHECK(fabsf(sum - 1.0f) < 1e-5f);
        }
    CHECK(r.o.weights[0] == 1.0f);   /* the first token sees only itself */
    outs_free(&r);
}

static void attention_fully_masked_row_is_zero_not_nan(void) {
    bl_attention_desc d = desc(1);
    unsigned char mask[L] = {0, 1, 1, 1, 1, 1};
    d.key_mask = mask;                 /* row 0 may only see key 0, which is padding */
    outs_t r = outs_alloc(L, D, H);
    CHECK_STATUS(bl_attention_forward(&d, &r.o, NULL, NULL), BL_OK);
    for (int h = 0; h < H; h++)
        for (int j = 0; j < L; j++) CHECK(r.o.weights[h * L * L + j] == 0.0f);
    for (int c = 0; c < D; c++) CHECK(r.o.concat[c] == 0.0f);
    for (int i = 0; i < L * D; i++) CHECK(!isnan(r.o.out[i]));
    outs_free(&r);
}

static void attention_scaling_softens_the_softmax(void) {
    /* Dividing by sqrt(d_k) lowers the largest weight of a row (or leaves it). */
    bl_attention_desc d = desc(0);
    outs_t a = outs_alloc(L, D, H), b = outs_alloc(L, D, H);
    CHECK_STATUS(bl_attention_forward(&d, &a.o, NULL, NULL), BL_OK);
    d.no_scale = 1;
    CHECK_STATUS(bl_attention_forward(&d, &b.o, NULL, NULL), BL_OK);
    double max_a = 0, max_b = 0;
    for (int i = 0; i < H * L * L; i++) {
        max_a = fmax(max_a, a.o.weights[i]);
        max_b = fmax(max_b, b.o.weights[i]);
        CHECK(a.o.scores[i] == b.o.scores[i]);       /* raw scores do not depend on it */
    }
    CHECK(max_b > max_a);
    outs_free(&a);
    outs_free(&b);
}

static void attention_mixes_rows_that_can_see_the_change(void) {
    for (int causal = 0; causal <= 1; causal++) {
        bl_attention_desc d = desc(causal);
        outs_t a = outs_alloc(L, D, H), b = outs_alloc(L, D, H);
        CHECK_STATUS(bl_attention_forward(&d, &a.o, NULL, NULL), BL_OK);
        for (int c = 0; c < D; c++) x[3 * D + c] = 10.0f;
        CHECK_STATUS(bl_attention_forward(&d, &b.o, NULL, NULL), BL_OK);
        for (int i = 0; i < L; i++) {
            int changed = 0;
            for (int c = 0; c < D; c++) changed |= a.o.out[i * D + c] != b.o.out[i * D + c];
            CHECK(changed == (!causal || i >= 3));
        }
        outs_free(&a);
        outs_free(&b);
    }
}

static void attention_rejects_bad_arguments_with_a_message(void) {
    bl_attention_desc d = desc(0);
    outs_t r = outs_alloc(L, D, H);
    bl_error err;
    d.n_heads = 3;
    CHECK_STATUS(bl_attention_forward(&d, &r.o, NULL, &err), BL_ERR_SHAPE);
    CHECK(strcmp(err.message, "d_model (8) must be divisible by n_heads (3)") == 0);
    d.n_heads = 0;
    CHECK_STATUS(bl_attention_forward(&d, &r.o, NULL, &err), BL_ERR_SIZE);
    d = desc(0);
    d.wk = NULL;
    CHECK_STATUS(bl_attention_forward(&d, &r.o, NULL, &err), BL_ERR_NULL);
    CHECK(strstr(err.message, "wk") != NULL);
    d = desc(0);
    bl_attention_out lean = r.o;
    lean.weights = NULL;
    CHECK_STATUS(bl_attention_forward(&d, &lean, NULL, &err), BL_ERR_NULL);
    CHECK(strstr(err.message, "workspace") != NULL);
    d.L = 20000;   /* 2 x 20000 x 20000 scores: too large, refused before any write */
    CHECK_STATUS(bl_attention_forward(&d, &r.o, NULL, &err), BL_ERR_TOO_LARGE);
    outs_free(&r);
}

int main(void) {
    bl_run("attention_matches_torch", attention_matches_torch);
    bl_run("attention_causal_mask_blocks_future", attention_causal_mask_blocks_future);
    bl_run("attention_fully_masked_row_is_zero_not_nan", attention_fully_masked_row_is_zero_not_nan);
    bl_run("attention_scaling_softens_the_softmax", attention_scaling_softens_the_softmax);
    bl_run("attention_mixes_rows_that_can_see_the_change", attention_mixes_rows_that_can_see_the_change);
    bl_run("attention_rejects_bad_arguments_with_a_message", attention_rejects_bad_arguments_with_a_message);
    return bl_summary();
}
