/* test_ffn.c - the feed-forward network against the torch fixtures, plus its behaviours
   and its refusals of bad arguments. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"

static bl_activation act_of(const char *name) {
    for (int a = 0; a < BL_ACT_COUNT; a++)
        if (name && strcmp(bl_activation_name((bl_activation)a), name) == 0) return (bl_activation)a;
    return BL_ACT_COUNT;
}

static void ffn_matches_torch_for_every_activation(void) {
    cJSON *kase;
    int seen[BL_ACT_COUNT] = {0};
    cJSON_ArrayForEach(kase, fx_cases("ffn.json")) {
        cJSON *p = fx_get(kase, "params"), *in = fx_get(kase, "inputs");
        int L = fx_int(p, "L", 0), D = fx_int(p, "d_model", 0), F = fx_int(p, "d_ff", 0);
        bl_activation act = act_of(fx_str(p, "activation"));
        CHECK(act < BL_ACT_COUNT);
        if (act >= BL_ACT_COUNT) continue;
        seen[act]++;
        bl_ffn_desc d = {.L = L, .d_model = D, .d_ff = F, .activation = act,
                         .x = fx_floats(in, "x", NULL), .w1 = fx_floats(in, "w1", NULL),
                         .b1 = fx_floats(in, "b1", NULL), .w3 = fx_floats(in, "w3", NULL),
                         .b3 = fx_floats(in, "b3", NULL), .w2 = fx_floats(in, "w2", NULL),
                         .b2 = fx_floats(in, "b2", NULL)};
        int gated = bl_activation_is_gated(act);
        bl_ffn_out o = {.hidden = malloc(sizeof(float) * L * F),
                        .up = gated ? malloc(sizeof(float) * L * F) : NULL,
                        .activated = malloc(sizeof(float) * L * F),
                        .out = malloc(sizeof(float) * L * D)};
        bl_error err;
        CHECK_STATUS(bl_ffn_forward(&d, &o, &err), BL_OK);
        fx_expect_close(kase, "hidden", o.hidden, (size_t)L * F);
        if (gated) fx_expect_close(kase, "up", o.up, (size_t)L * F);
        fx_expect_close(kase, "activated", o.activated, (size_t)L * F);
        fx_expect_close(kase, "out", o.out, (size_t)L * D);
        free((void *)d.x); free((void *)d.w1); free((void *)d.b1); free((void *)d.w3);
        free((void *)d.b3); free((void *)d.w2); free((void *)d.b2);
        free(o.hidden); free(o.up); free(o.activated); free(o.out);
    }
    for (int a = 0; a < BL_ACT_COUNT; a++) CHECK(seen[a] > 0);
}

/* A small deterministic FFN for the behaviour tests. */
enum { L = 5, D = 6, F = 12 };
static float x[L * D], w1[D * F], b1[F], w3[D * F], w2[F * D], b2[D];
static void fill(void) {
    bl_rng rng;
    bl_rng_seed(&rng, 3);
    bl_rng_normal_f32(&rng, x, L * D, NULL);
    bl_rng_normal_f32(&rng, w1, D * F, NULL);
    bl_rng_normal_f32(&rng, b1, F, NULL);
    bl_rng_normal_f32(&rng, w3, D * F, NULL);
    bl_rng_normal_f32(&rng, w2, F * D, NULL);
    bl_rng_normal_f32(&rng, b2, D, NULL);
}

static void ffn_relu_zeroes_negatives(void) {
    fill();
    float hidden[L * F], act[L * F], out[L * D];
    bl_ffn_desc d = {.L = L, .d_model = D, .d_ff = F, .activation = BL_ACT_RELU, .x = x,
                     .w1 = w1, .b1 = b1, .w2 = w2, .b2 = b2};
    CHECK_STATUS(bl_ffn_forward(&d, &(bl_ffn_out){.hidden = hidden, .activated = act, .out = out}, NULL), BL_OK);
    int neg_before = 0, neg_after = 0, zeroed = 0;
    for (int i = 0; i < L * F; i++) {
        neg_before += hidden[i] < 0;
        neg_after += act[i] < 0;
        zeroed += hidden[i] < 0 && act[i] == 0.0f;
        CHECK(act[i] == (hidden[i] > 0 ? hidden[i] : 0.0f));
    }
    CHECK(neg_before > 0 && neg_after == 0 && zeroed == neg_before);
}

static void ffn_identity_collapses_into_one_linear_map(void) {
    /* act = identity: out == x @ (W1 W2) + (b1 W2 + b2) */
    fill();
    float act[L * F], out[L * D], w12[D * D], b12[D], direct[L * D];
    bl_ffn_desc d = {.L = L, .d_model = D, .d_ff = F, .activation = BL_ACT_IDENTITY, .x = x,
                     .w1 = w1, .b1 = b1, .w2 = w2, .b2 = b2};
    CHECK_STATUS(bl_ffn_forward(&d, &(bl_ffn_out){.activated = act, .out = out}, NULL), BL_OK);
    CHECK_STATUS(bl_linear_forward(w12, w1, w2, NULL, D, F, D, NULL), BL_OK);
    CHECK_STATUS(bl_linear_forward(b12, b1, w2, b2, 1, F, D, NULL), BL_OK);
    CHECK_STATUS(bl_linear_forward(direct, x, w12, b12, L, D, D, NULL), BL_OK);
    double maxdiff = 0;
    for (int i = 0; i < L * D; i++) maxdiff = fmax(maxdiff, fabs(out[i] - direct[i]));
    printf("     two layers vs one: max diff %.3g\n", maxdiff);
    CHECK(maxdiff < 1e-4);
}

static void ffn_treats_each_token_alone(void) {
    /* Changing token 2 changes only row 2 of the output. */
    fill();
    float act[L * F], a[L * D], b[L * D];
    bl_ffn_desc d = {.L = L, .d_model = D, .d_ff = F, .activation = BL_ACT_GELU, .x = x,
                     .w1 = w1, .b1 = b1, .w2 = w2, .b2 = b2};
    CHECK_STATUS(bl_ffn_forward(&d, &(bl_ffn_out){.activated = act, .out = a}, NULL), BL_OK);
    for (int c = 0; c < D; c++) x[2 * D + c] = 100.0f;
    CHECK_STATUS(bl_ffn_forward(&d, &(bl_ffn_out){.activated = act, .out = b}, NULL), BL_OK);
    for (int i = 0; i < L; i++)
        for (int c = 0; c < D; c++) {
            int same = a[i * D + c] == b[i * D + c];
            CHECK(i == 2 ? !same : same);
        }
}

static void ffn_rejects_bad_arguments_with_a_message(void) {
    fill();
    float hidden[L * F], act[L * F], up[L * F], out[L * D];
    bl_ffn_out o = {.hidden = hidden, .up = up, .activated = act, .out = out};
    bl_ffn_desc good = {.L = L, .d_model = D, .d_ff = F, .activation = BL_ACT_RELU, .x = x,
                        .w1 = w1, .b1 = b1, .w2 = w2, .b2 = b2};
    bl_error err;
    bl_ffn_desc d = good;
    d.d_model = 0;
    CHECK_STATUS(bl_ffn_forward(&d, &o, &err), BL_ERR_SIZE);
    CHECK(strstr(err.message, "d_model (0)") != NULL);
    d = good; d.L = -3;
    CHECK_STATUS(bl_ffn_forward(&d, &o, &err), BL_ERR_SIZE);
    d = good; d.d_ff = BL_MAX_DIM + 1;
    CHECK_STATUS(bl_ffn_forward(&d, &o, &err), BL_ERR_SIZE);
    d = good; d.L = BL_MAX_DIM; d.d_ff = BL_MAX_DIM;       /* 2^32 floats: refused, untouched */
    CHECK_STATUS(bl_ffn_forward(&d, &o, &err), BL_ERR_TOO_LARGE);
    CHECK(strstr(err.message, "hidden") != NULL);
    d = good; d.x = NULL;
    CHECK_STATUS(bl_ffn_forward(&d, &o, &err), BL_ERR_NULL);
    CHECK(strcmp(err.message, "x must not be NULL") == 0);
    d = good; d.activation = (bl_activation)99;
    CHECK_STATUS(bl_ffn_forward(&d, &o, &err), BL_ERR_ACTIVATION);
    d = good; d.activation = BL_ACT_SWIGLU;                 /* gated needs w3 */
    CHECK_STATUS(bl_ffn_forward(&d, &o, &err), BL_ERR_ACTIVATION);
    CHECK(strstr(err.message, "w3") != NULL);
    d = good; d.w3 = w3;                                    /* ungated must not get w3 */
    CHECK_STATUS(bl_ffn_forward(&d, &o, &err), BL_ERR_ACTIVATION);
    CHECK_STATUS(bl_ffn_forward(NULL, &o, &err), BL_ERR_NULL);
    CHECK_STATUS(bl_ffn_forward(&good, &(bl_ffn_out){.activated = act}, &err), BL_ERR_NULL);
    CHECK_STATUS(bl_ffn_forward(&good, &o, &err), BL_OK);
    CHECK(err.message[0] == '\0');
}

int main(void) {
    bl_run("ffn_matches_torch_for_every_activation", ffn_matches_torch_for_every_activation);
    bl_run("ffn_relu_zeroes_negatives", ffn_relu_zeroes_negatives);
    bl_run("ffn_identity_collapses_into_one_linear_map", ffn_identity_collapses_into_one_linear_map);
    bl_run("ffn_treats_each_token_alone", ffn_treats_each_token_alone);
    bl_run("ffn_rejects_bad_arguments_with_a_message", ffn_rejects_bad_arguments_with_a_message);
    return bl_summary();
}
