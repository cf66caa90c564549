/* test_moe.c - the mixture of experts against the torch fixtures and against the plain double
   loops of reference.c (routing, weights, every expert's FFN), plus its behaviours and its refusals
   of bad arguments. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "reference.h"

static bl_activation act_of(const char *name) {
    for (int a = 0; a < BL_ACT_COUNT; a++)
        if (name && strcmp(bl_activation_name((bl_activation)a), name) == 0) return (bl_activation)a;
    return BL_ACT_COUNT;
}

/* Runs bl_moe_forward with every output and a workspace of the size asked for. */
typedef struct {
    float *logits, *probs, *top_weight, *out;
    int32_t *top_index, *load;
} outs;

static outs alloc_outs(const bl_moe_desc *d) {
    outs r = {malloc(sizeof(float) * d->L * d->n_experts), malloc(sizeof(float) * d->L * d->n_experts),
              malloc(sizeof(float) * d->L * d->top_k), malloc(sizeof(float) * d->L * d->d_model),
              malloc(sizeof(int32_t) * d->L * d->top_k), malloc(sizeof(int32_t) * d->n_experts)};
    return r;
}
static void free_outs(outs *r) {
    free(r->logits); free(r->probs); free(r->top_weight); free(r->out); free(r->top_index);
    free(r->load);
}
static bl_moe_out view(const outs *r) {
    return (bl_moe_out){.logits = r->logits, .probs = r->probs, .top_index = r->top_index,
                        .top_weight = r->top_weight, .load = r->load, .out = r->out};
}
static bl_status run(const bl_moe_desc *d, const bl_moe_out *o, bl_error *err) {
    size_t n = bl_moe_workspace_size(d, o);
    float *ws = malloc(sizeof(float) * (n ? n : 1));
    bl_status st = bl_moe_forward(d, o, ws, err);
    free(ws);
    return st;
}

static void moe_matches_torch_fixture(void) {
    cJSON *kase;
    int cases = 0, ties = 0, gated = 0, top1 = 0;
    cJSON_ArrayForEach(kase, fx_cases("moe.json")) {
        cJSON *p = fx_get(kase, "params"), *in = fx_get(kase, "inputs"), *ex = fx_get(kase, "expected");
        bl_moe_desc d = {.L = fx_int(p, "L", 0), .d_model = fx_int(p, "d_model", 0),
                         .d_ff = fx_int(p, "d_ff", 0), .n_experts = fx_int(p, "n_experts", 0),
                         .top_k = fx_int(p, "top_k", 0), .activation = act_of(fx_str(p, "activation")),
                         .x = fx_floats(in, "x", NULL), .wr = fx_floats(in, "wr", NULL),
                         .w1 = fx_floats(in, "w1", NULL), .b1 = fx_floats(in, "b1", NULL),
                         .w3 = fx_floats(in, "w3", NULL), .b3 = fx_floats(in, "b3", NULL),
                         .w2 = fx_floats(in, "w2", NULL), .b2 = fx_floats(in, "b2", NULL)};
        outs r = alloc_outs(&d);
        bl_moe_out o = view(&r);
        bl_error err;
        CHECK_STATUS(run(&d, &o, &err), BL_OK);
        const char *name = fx_str(kase, "name");
        fx_expect_close(kase, "logits", r.logits, (size_t)d.L * d.n_experts);
        fx_expect_close(kase, "probs", r.probs, (size_t)d.L * d.n_experts);
        fx_expect_close(kase, "top_weight", r.top_weight, (size_t)d.L * d.top_k);
        fx_expect_close(kase, "out", r.out, (size_t)d.L * d.d_model);
        /* the routing exactly */
        size_t n;
        double *idx = fx_doubles(ex, "top_index", &n), *load = fx_doubles(ex, "load", NULL);
        CHECK(idx && load && n == (size_t)d.L * d.top_k);
        int wrong = 0;
        for (size_t i = 0; idx && i < n; i++) wrong += r.top_index[i] != (int32_t)idx[i];
        for (int e = 0; load && e < d.n_experts; e++) wrong += r.load[e] != (int32_t)load[e];
        if (wrong) fprintf(stderr, "  FAIL %s: %d routing entries differ\n", name, wrong);
        CHECK(wrong == 0);
        cases++;
        ties += cJSON_IsArray(fx_get(p, "tie"));
        gated += bl_activation_is_gated(d.activation);
        top1 += d.top_k == 1;
        free(idx); free(load); free_outs(&r);
        free((void *)d.x); free((void *)d.wr); free((void *)d.w1); free((void *)d.b1);
        free((void *)d.w3); free((void *)d.b3); free((void *)d.w2); free((void *)d.b2);
    }
    CHECK(cases >= 5 && ties >= 2 && gated >= 2 && top1 >= 2);
}

/* ---- against the plain double loops of reference.c ------------------------------------------ */
/* Expert e's FFN on one token: y (d_model) from x (d_model). */
static void expert_ref(double *y, const double *x, const bl_moe_desc *d, int e) {
    size_t DF = (size_t)d->d_model * d->d_ff;
    bl_ffn_desc f = {.L = 1, .d_model = d->d_model, .d_ff = d->d_ff, .activation = d->activation,
                     .w1 = d->w1 + e * DF, .b1 = d->b1 ? d->b1 + (size_t)e * d->d_ff : NULL,
                     .w3 = d->w3 ? d->w3 + e * DF : NULL,
                     .b3 = d->b3 ? d->b3 + (size_t)e * d->d_ff : NULL, .w2 = d->w2 + e * DF,
                     .b2 = d->b2 ? d->b2 + (size_t)e * d->d_model : NULL};
    ref_ffn(y, NULL, NULL, x, &f);
}

/* |got - want| within the tolerance of the fixtures' floor: returns the fraction used. */
static double used(double got, double want) { return fabs(got - want) / (1e-4 + 1e-4 * fabs(want)); }

/* Compares every output with the loop; returns the smallest gap between adjacent logits among
   each token's top_k + 1 (what the routing had to order), so that a caller can check that its
   data holds no near tie that float32 rounding could reorder. */
static double check_against_loop(const bl_moe_desc *d, const outs *r, const char *what) {
    int L = d->L, D = d->d_model, E = d->n_experts, K = d->top_k;
    double worst = 0.0, gap = INFINITY;
    int routing = 0, loads[64] = {0};
    double *x = malloc(sizeof(double) * D), *y = malloc(sizeof(double) * D),
           *ye = malloc(sizeof(double) * D);
    for (int i = 0; i < L; i++) {
        double lg[64], p[64];
        ref_widen(x, d->x + (size_t)i * D, (size_t)D);
        ref_linear(lg, NULL, x, d->wr, NULL, 1, D, E);
        ref_softmax(p, lg, NULL, E);
        for (int e = 0; e < E; e++) {
            worst = fmax(worst, used(r->logits[i * E + e], lg[e]));
            worst = fmax(worst, used(r->probs[i * E + e], p[e]));
        }
        /* the top_k + 1 by selection: the largest not yet taken, the lower index among equals */
        int idx[65], taken[64] = {0}, n = K < E ? K + 1 : E;
        for (int k = 0; k < n; k++) {
            int best = -1;
            for (int e = 0; e < E; e++)
                if (!taken[e] && (best < 0 || lg[e] > lg[best])) best = e;
            taken[best] = 1;
            idx[k] = best;
        }
        for (int k = 0; k + 1 < n; k++) gap = fmin(gap, lg[idx[k]] - lg[idx[k + 1]]);
        for (int k = 0; k < K; k++) {
            loads[idx[k]]++;
            routing += r->top_index[i * K + k] != idx[k];
        }
        double chosen[64], w[64];   /* the weights: softmax of the chosen logits */
        for (int k = 0; k < K; k++) chosen[k] = lg[idx[k]];
        ref_softmax(w, chosen, NULL, K);
        for (int k = 0; k < K; k++) worst = fmax(worst, used(r->top_weight[i * K + k], w[k]));
        for (int c = 0; c < D; c++) y[c] = 0.0;
        for (int k = 0; k < K; k++) {
            expert_ref(ye, x, d, idx[k]);
            for (int c = 0; c < D; c++) y[c] += w[k] * ye[c];
        }
        for (int c = 0; c < D; c++) worst = fmax(worst, used(r->out[i * D + c], y[c]));
    }
    free(x); free(y); free(ye);
    for (int e = 0; e < E; e++) routing += r->load[e] != loads[e];
    printf("     %s: %.1f%% of the tolerance (1e-4 + 1e-4 |want|) used, %d routing mismatches, "
           "smallest logit gap %.3g\n", what, 100.0 * worst, routing, gap);
    CHECK(routing == 0);
    CHECK(worst <= 1.0);
    return gap;
}

/* Random weights on the numpy stream, scaled by 1/sqrt(fan_in). */
typedef struct {
    float *x, *wr, *w1, *b1, *w3, *b3, *w2, *b2;
} weights;

static float *randn(bl_rng *rng, size_t n, float scale) {
    float *p = malloc(sizeof(float) * n);
    bl_rng_normal_f32(rng, p, n, NULL);
    for (size_t i = 0; i < n; i++) p[i] *= scale;
    return p;
}
static bl_moe_desc make(weights *w, uint32_t seed, int L, int D, int F, int E, int K,
                        bl_activation act, int bias) {
    bl_rng rng;
    bl_rng_seed(&rng, seed);
    int gated = bl_activation_is_gated(act);
    size_t ew = (size_t)E * D * F;
    *w = (weights){randn(&rng, (size_t)L * D, 1.0f), randn(&rng, (size_t)D * E, 1.0f / sqrtf(D)),
                   randn(&rng, ew, 1.0f / sqrtf(D)), bias ? randn(&rng, (size_t)E * F, 0.1f) : NULL,
                   gated ? randn(&rng, ew, 1.0f / sqrtf(D)) : NULL,
                   gated && bias ? randn(&rng, (size_t)E * F, 0.1f) : NULL,
                   randn(&rng, ew, 1.0f / sqrtf(F)), bias ? randn(&rng, (size_t)E * D, 0.1f) : NULL};
    return (bl_moe_desc){.L = L, .d_model = D, .d_ff = F, .n_experts = E, .top_k = K,
                         .activation = act, .x = w->x, .wr = w->wr, .w1 = w->w1, .b1 = w->b1,
                         .w3 = w->w3, .b3 = w->b3, .w2 = w->w2, .b2 = w->b2};
}
static void free_weights(weights *w) {
    free(w->x); free(w->wr); free(w->w1); free(w->b1); free(w->w3); free(w->b3); free(w->w2);
    free(w->b2);
}

/* One configuration against the loop; the data must not hold a near tie. */
static void against_loop(const char *what, uint32_t seed, int L, int D, int F, int E, int K,
                         bl_activation act, int bias) {
    weights w;
    bl_moe_desc d = make(&w, seed, L, D, F, E, K, act, bias);
    outs r = alloc_outs(&d);
    bl_moe_out o = view(&r);
    bl_error err;
    CHECK_STATUS(run(&d, &o, &err), BL_OK);
    double gap = check_against_loop(&d, &r, what);
    CHECK(gap > 1e-4);   /* float32 rounding cannot have reordered these logits */
    free_outs(&r);
    free_weights(&w);
}

static void moe_top1_matches_a_plain_loop(void) {
    against_loop("relu E4 top1", 5, 7, 8, 16, 4, 1, BL_ACT_RELU, 1);
    against_loop("gelu_tanh E8 top1 no bias", 6, 11, 6, 9, 8, 1, BL_ACT_GELU_TANH, 0);
}

static void moe_top2_matches_a_plain_loop(void) {
    against_loop("relu E8 top2", 7, 9, 8, 32, 8, 2, BL_ACT_RELU, 1);
    against_loop("gelu E5 top2 no bias", 8, 13, 12, 20, 5, 2, BL_ACT_GELU, 0);
    against_loop("silu E64 top8", 9, 6, 5, 7, 64, 8, BL_ACT_SILU, 1);
    against_loop("identity E3 top3", 10, 4, 3, 5, 3, 3, BL_ACT_IDENTITY, 1);
}

static void moe_gated_matches_a_plain_loop(void) {
    against_loop("swiglu E8 top2 no bias (Mixtral)", 11, 9, 8, 24, 8, 2, BL_ACT_SWIGLU, 0);
    against_loop("swiglu E6 top3 with b1 b3 b2", 12, 5, 6, 10, 6, 3, BL_ACT_SWIGLU, 1);
    against_loop("geglu E4 top1", 13, 70, 16, 40, 4, 1, BL_ACT_GEGLU, 1);
}

/* A router whose columns a < b are equal: every token's logits a and b tie exactly. The loop
   (lower index first among equals) and the engine must agree token by token, and the tie must
   have decided the choice of some tokens. Dyadic values keep every logit exact. */
static void moe_ties_go_to_the_lower_expert_index(void) {
    for (int K = 1; K <= 2; K++) {
        weights w;
        bl_moe_desc d = make(&w, 20 + K, 16, 8, 12, 6, K, K == 1 ? BL_ACT_RELU : BL_ACT_SWIGLU, 1);
        int a = 1, b = 4;
        for (int i = 0; i < 16 * 8; i++) w.x[i] = roundf(w.x[i] * 8.0f) / 8.0f;
        for (int k = 0; k < 8; k++) {
            for (int e = 0; e < 6; e++) w.wr[k * 6 + e] = roundf(w.wr[k * 6 + e] * 4.0f) / 4.0f;
            w.wr[k * 6 + b] = w.wr[k * 6 + a];
        }
        outs r = alloc_outs(&d);
        bl_moe_out o = view(&r);
        CHECK_STATUS(run(&d, &o, NULL), BL_OK);
        int decided = 0, b_taken_alone = 0;
        for (int i = 0; i < 16; i++) {
            CHECK(r.logits[i * 6 + a] == r.logits[i * 6 + b]);
            int has_a = 0, has_b = 0;
            for (int k = 0; k < K; k++) {
                has_a |= r.top_index[i * K + k] == a;
                has_b |= r.top_index[i * K + k] == b;
            }
            decided += has_a && !has_b;
            b_taken_alone += has_b && !has_a;
        }
        printf("     top_k %d: the tie decided %d of 16 tokens\n", K, decided);
        CHECK(decided >= 1);
        CHECK(b_taken_alone == 0);
        check_against_loop(&d, &r, K == 1 ? "ties, relu top1" : "ties, swiglu top2");
        free_outs(&r);
        free_weights(&w);
    }
    /* all logits equal (a zero router): experts 0..k-1, equal weights */
    weights w;
    bl_moe_desc d = make(&w, 30, 3, 4, 6, 5, 3, BL_ACT_RELU, 0);
    memset(w.wr, 0, sizeof(float) * 4 * 5);
    outs r = alloc_outs(&d);
    bl_moe_out o = view(&r);
    CHECK_STATUS(run(&d, &o, NULL), BL_OK);
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) {
            CHECK(r.top_index[i * 3 + k] == k);
            CHECK(fabsf(r.top_weight[i * 3 + k] - 1.0f / 3.0f) < 1e-7f);
        }
    CHECK(r.load[0] == 3 && r.load[2] == 3 && r.load[3] == 0 && r.load[4] == 0);
    free_outs(&r);
    free_weights(&w);
}

static void moe_weights_sum_to_one_and_load_counts_every_choice(void) {
    weights w;
    bl_moe_desc d = make(&w, 40, 33, 8, 16, 8, 2, BL_ACT_GELU, 1);
    outs r = alloc_outs(&d);
    bl_moe_out o = view(&r);
    CHECK_STATUS(run(&d, &o, NULL), BL_OK);
    int total = 0;
    for (int e = 0; e < 8; e++) total += r.load[e];
    CHECK(total == 33 * 2);
    for (int i = 0; i < 33; i++) {
        float s = 0.0f, p = 0.0f;
        for (int k = 0; k < 2; k++) s += r.top_weight[i * 2 + k];
        for (int e = 0; e < 8; e++) p += r.probs[i * 8 + e];
        CHECK(fabsf(s - 1.0f) < 1e-6f && fabsf(p - 1.0f) < 1e-6f);
        CHECK(r.top_weight[i * 2] >= r.top_weight[i * 2 + 1]);   /* largest first */
        CHECK(r.top_index[i * 2] != r.top_index[i * 2 + 1]);
        /* the chosen weights are the all-expert probabilities renormalised (Mixtral's order) */
        float p0 = r.probs[i * 8 + r.top_index[i * 2]], p1 = r.probs[i * 8 + r.top_index[i * 2 + 1]];
        CHECK(fabsf(r.top_weight[i * 2] - p0 / (p0 + p1)) < 1e-6f);
    }
    free_outs(&r);
    free_weights(&w);
}

/* One expert, top 1: out is bl_ffn_forward's out, bit for bit (weight exactly 1). */
static void moe_single_expert_equals_bl_ffn_forward(void) {
    for (int a = 0; a < BL_ACT_COUNT; a++) {
        weights w;
        bl_moe_desc d = make(&w, 50 + a, 7, 8, 32, 1, 1, (bl_activation)a, 1);
        outs r = alloc_outs(&d);
        bl_moe_out o = view(&r);
        CHECK_STATUS(run(&d, &o, NULL), BL_OK);
        float act[7 * 32], up[7 * 32], out[7 * 8];
        bl_ffn_desc f = {.L = 7, .d_model = 8, .d_ff = 32, .activation = (bl_activation)a,
                         .x = w.x, .w1 = w.w1, .b1 = w.b1, .w3 = w.w3, .b3 = w.b3, .w2 = w.w2,
                         .b2 = w.b2};
        CHECK_STATUS(bl_ffn_forward(&f, &(bl_ffn_out){.up = up, .activated = act, .out = out}, NULL),
                     BL_OK);
        CHECK(memcmp(out, r.out, sizeof out) == 0);
        for (int i = 0; i < 7; i++) CHECK(r.top_index[i] == 0 && r.top_weight[i] == 1.0f);
        CHECK(r.load[0] == 7);
        free_outs(&r);
        free_weights(&w);
    }
}

/* Without logits, probs and load: the same routing and output, bit for bit; the workspace
   grows by the logits. */
static void moe_optional_outputs_change_nothing(void) {
    weights w;
    bl_moe_desc d = make(&w, 60, 9, 8, 24, 8, 2, BL_ACT_SWIGLU, 1);
    outs r = alloc_outs(&d), s = alloc_outs(&d);
    bl_moe_out o = view(&r), bare = {.top_index = s.top_index, .top_weight = s.top_weight, .out = s.out};
    CHECK(bl_moe_workspace_size(&d, &o) == (size_t)9 * (2 * 8 + 2 * 24));
    CHECK(bl_moe_workspace_size(&d, &bare) == (size_t)9 * (2 * 8 + 2 * 24 + 8));
    d.activation = BL_ACT_GELU;
    CHECK(bl_moe_workspace_size(&d, &o) == (size_t)9 * (2 * 8 + 24));
    d.activation = BL_ACT_SWIGLU;
    CHECK_STATUS(run(&d, &o, NULL), BL_OK);
    CHECK_STATUS(run(&d, &bare, NULL), BL_OK);
    CHECK(memcmp(r.top_index, s.top_index, sizeof(int32_t) * 9 * 2) == 0);
    CHECK(memcmp(r.top_weight, s.top_weight, sizeof(float) * 9 * 2) == 0);
    CHECK(memcmp(r.out, s.out, sizeof(float) * 9 * 8) == 0);
    free_outs(&r);
    free_outs(&s);
    free_weights(&w);
}

/* Changing one token changes only that token's routing and output row. */
static void moe_treats_each_token_alone(void) {
    weights w;
    bl_moe_desc d = make(&w, 70, 6, 8, 16, 4, 2, BL_ACT_RELU, 1);
    outs a = alloc_outs(&d), b = alloc_outs(&d);
    bl_moe_out oa = view(&a), ob = view(&b);
    CHECK_STATUS(run(&d, &oa, NULL), BL_OK);
    for (int c = 0; c < 8; c++) w.x[3 * 8 + c] = -w.x[3 * 8 + c] * 3.0f;
    CHECK_STATUS(run(&d, &ob, NULL), BL_OK);
    for (int i = 0; i < 6; i++) {
        int same = memcmp(a.out + i * 8, b.out + i * 8, sizeof(float) * 8) == 0;
        CHECK(i == 3 ? !same : same);
        if (i != 3) CHECK(memcmp(a.top_index + i * 2, b.top_index + i * 2, 8) == 0);
    }
    free_outs(&a);
    free_outs(&b);
    free_weights(&w);
}

/* Each refusal names its argument and leaves every output untouched. */
/* Finite x and Wr whose product overflows float32: x @ Wr gives Inf, or NaN (Inf - Inf), for
   one token. Without the check a NaN logit at expert 0 won the ranking (no comparison with a
   NaN is true, so nothing replaced it) and the weights came out NaN. */
static void moe_refuses_router_logits_that_overflow_float32(void) {
    for (int nan = 0; nan <= 1; nan++) {
        weights w;
        bl_moe_desc d = make(&w, 40, 5, 4, 6, 4, 2, BL_ACT_RELU, 0);
        /* token 3: x = (1e30, 1e30, 0, 0); Wr rows 0 and 1 at expert 0: 1e30 and +-1e30 */
        for (int c = 0; c < 4; c++) w.x[3 * 4 + c] = c < 2 ? 1e30f : 0.0f;
        w.wr[0 * 4 + 0] = 1e30f;
        w.wr[1 * 4 + 0] = nan ? -1e30f : 1e30f;
        outs r = alloc_outs(&d);
        for (int i = 0; i < 5 * 2; i++) r.top_index[i] = -7;
        bl_moe_out o = view(&r);
        bl_error err;
        CHECK_STATUS(run(&d, &o, &err), BL_ERR_VALUE);
        printf("     %s\n", err.message);
        CHECK(strstr(err.message, nan ? "token 3, expert 0 is NaN" : "token 3, expert 0 is infinite"));
        for (int i = 0; i < 5 * 2; i++) CHECK(r.top_index[i] == -7);   /* nothing routed */
        free_outs(&r);
        free_weights(&w);
    }
}

static void moe_rejects_bad_arguments_with_a_message(void) {
    weights w;
    bl_moe_desc good = make(&w, 80, 5, 6, 12, 4, 2, BL_ACT_RELU, 1), d;
    float w3[4 * 6 * 12] = {0};
    outs r = alloc_outs(&good);
    bl_moe_out o = view(&r), oo;
    size_t nws = bl_moe_workspace_size(&good, &o);
    float *ws = malloc(sizeof(float) * nws);
    bl_error err;
    struct { const char *msg; bl_status st; } want[] = {
        {"desc must not be NULL", BL_ERR_NULL},
        {"out must not be NULL", BL_ERR_NULL},
        {"L (0) must be between 1 and 65536", BL_ERR_SIZE},
        {"d_model (-2) must be between 1 and 65536", BL_ERR_SIZE},
        {"d_ff (65537) must be between 1 and 65536", BL_ERR_SIZE},
        {"n_experts (0) must be between 1 and 64", BL_ERR_SIZE},
        {"n_experts (65) must be between 1 and 64", BL_ERR_SIZE},
        {"top_k (0) must be between 1 and n_experts (4)", BL_ERR_SIZE},
        {"top_k (5) must be between 1 and n_experts (4)", BL_ERR_SHAPE},
        {"activation (99) is not one of 0..6", BL_ERR_ACTIVATION},
        {"x (65536 x 65536) exceeds 268435456 floats", BL_ERR_TOO_LARGE},
        {"hidden (65536 x 65536) exceeds 268435456 floats", BL_ERR_TOO_LARGE},
        {"w1 (n_experts x d_model x d_ff) (262144 x 4096) exceeds 268435456 floats", BL_ERR_TOO_LARGE},
        {"workspace (268500992 floats) exceeds 268435456 floats", BL_ERR_TOO_LARGE},
        {"x must not be NULL", BL_ERR_NULL},
        {"wr must not be NULL", BL_ERR_NULL},
        {"w1 must not be NULL", BL_ERR_NULL},
        {"w2 must not be NULL", BL_ERR_NULL},
        {"top_index must not be NULL", BL_ERR_NULL},
        {"top_weight must not be NULL", BL_ERR_NULL},
        {"out->out must not be NULL", BL_ERR_NULL},
        {"w3 (the up projection) is required by swiglu", BL_ERR_ACTIVATION},
        {"w3/b3 are only used by gated activations, not relu", BL_ERR_ACTIVATION},
        {"w3/b3 are only used by gated activations, not gelu", BL_ERR_ACTIVATION},
        {"workspace must not be NULL", BL_ERR_NULL},
    };
    int n = (int)(sizeof want / sizeof want[0]);
    for (int c = 0; c < n; c++) {
        d = good;
        oo = o;
        float *wsp = ws;
        const bl_moe_desc *dp = &d;
        const bl_moe_out *op = &oo;
        switch (c) {
        case 0: dp = NULL; break;
        case 1: op = NULL; break;
        case 2: d.L = 0; break;
        case 3: d.d_model = -2; break;
        case 4: d.d_ff = 65537; break;
        case 5: d.n_experts = 0; break;
        case 6: d.n_experts = 65; break;
        case 7: d.top_k = 0; break;
        case 8: d.top_k = 5; break;
        case 9: d.activation = (bl_activation)99; break;
        case 10: d.L = 65536; d.d_model = 65536; break;
        case 11: d.L = 65536; d.d_ff = 65536; break;
        case 12: d.n_experts = 64; d.d_model = 4096; d.d_ff = 4096; break;   /* 2^30 */
        case 13: d.L = 65536; d.d_model = 2048; d.d_ff = 1; break;
        case 14: d.x = NULL; break;
        case 15: d.wr = NULL; break;
        case 16: d.w1 = NULL; break;
        case 17: d.w2 = NULL; break;
        case 18: oo.top_index = NULL; break;
        case 19: oo.top_weight = NULL; break;
        case 20: oo.out = NULL; break;
        case 21: d.activation = BL_ACT_SWIGLU; break;
        case 22: d.w3 = w3; break;
        case 23: d.activation = BL_ACT_GELU; d.b3 = w3; break;
        case 24: wsp = NULL; break;
        }
        for (int i = 0; i < 5 * 6; i++) r.out[i] = -7.0f;
        for (int i = 0; i < 5 * 2; i++) r.top_index[i] = -7;
        for (int e = 0; e < 4; e++) r.load[e] = -7;
        bl_status st = bl_moe_forward(dp, op, wsp, &err);
        if (st != want[c].st || strcmp(err.message, want[c].msg) != 0)
            fprintf(stderr, "  case %d: status %d \"%s\", want %d \"%s\"\n", c, st, err.message,
                    want[c].st, want[c].msg);
        CHECK(st == want[c].st && err.status == st);
        CHECK(strcmp(err.message, want[c].msg) == 0);
        int touched = 0;
        for (int i = 0; i < 5 * 6; i++) touched += r.out[i] != -7.0f;
        for (int i = 0; i < 5 * 2; i++) touched += r.top_index[i] != -7;
        for (int e = 0; e < 4; e++) touched += r.load[e] != -7;
        CHECK(touched == 0);
        if (c >= 2 && c <= 13) CHECK(bl_moe_workspace_size(dp, op) == 0);   /* refused sizes */
    }
    CHECK(bl_moe_workspace_size(NULL, &o) == 0 && bl_moe_workspace_size(&good, NULL) == 0);
    CHECK_STATUS(bl_moe_forward(&good, &o, ws, &err), BL_OK);
    CHECK(err.message[0] == '\0');
    CHECK_STATUS(bl_moe_forward(&good, &o, ws, NULL), BL_OK);
    free(ws);
    free_outs(&r);
    free_weights(&w);
}

int main(void) {
    bl_run("moe_matches_torch_fixture", moe_matches_torch_fixture);
    bl_run("moe_top1_matches_a_plain_loop", moe_top1_matches_a_plain_loop);
    bl_run("moe_top2_matches_a_plain_loop", moe_top2_matches_a_plain_loop);
    bl_run("moe_gated_matches_a_plain_loop", moe_gated_matches_a_plain_loop);
    bl_run("moe_ties_go_to_the_lower_expert_index", moe_ties_go_to_the_lower_expert_index);
    bl_run("moe_refuses_router_logits_that_overflow_float32",
           moe_refuses_router_logits_that_overflow_float32);
    bl_run("moe_weights_sum_to_one_and_load_counts_every_choice",
           moe_weights_sum_to_one_and_load_counts_every_choice);
    bl_run("moe_single_expert_equals_bl_ffn_forward", moe_single_expert_equals_bl_ffn_forward);
    bl_run("moe_optional_outputs_change_nothing", moe_optional_outputs_change_nothing);
    bl_run("moe_treats_each_token_alone", moe_treats_each_token_alone);
    bl_run("moe_rejects_bad_arguments_with_a_message", moe_rejects_bad_arguments_with_a_message);
    return bl_summary();
}
