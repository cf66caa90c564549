/* test_train.c - training: each op's backward against central finite differences of the
   double references (reference.c), the whole bl_train_grad against finite differences of
   ref_decoder's loss on a tiny model (read through the documented layout), AdamW and
   clipping against hand computations, determinism, and every argument the entry points
   refuse. tests/node/train_reference.test.js checks the same calls against PyTorch. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "reference.h"
#include "bl_internal.h"

static uint32_t lcg = 4242u;
static float uniform(float scale) { return bl_test_uniform(&lcg, scale); }
static float *rnd(size_t n, float scale) { return bl_test_rnd(&lcg, n, scale); }

/* max |a - b| / (atol + rtol |b|) over n: <= 1 passes; prints the worst */
static int close_to(const char *what, const float *got, const double *want, size_t n,
                    double atol, double rtol) {
    double worst = 0.0, diff = 0.0;
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        double e = fabs(got[i] - want[i]), r = e / (atol + rtol * fabs(want[i]));
        if (!(r <= worst)) { worst = r; diff = e; at = i; }
    }
    printf("    %s: max diff %.3g (at %lu, ratio to tolerance %.3f)\n", what, diff,
           (unsigned long)at, worst);
    return worst <= 1.0;
}

/* the finite-difference step: central, in double, on double inputs */
#define H 1e-5
/* gradients from float kernels against double finite differences */
#define ATOL 1e-5
#define RTOL 1e-4

/* ---- per op ------------------------------------------------------------------------------ */
static double dot(const double *a, const float *r, size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; i++) s += a[i] * r[i];
    return s;
}

static void linear_backward_matches_finite_differences(void) {
    int M = 5, K = 4, N = 3;
    float *x = rnd(M * K, 1), *w = rnd(K * N, 1), *b = rnd(N, 1), *r = rnd(M * N, 1);
    float dx[20], gw[12], gb[3], t[20];
    bl__linear_backward(dx, gw, gb, x, w, r, M, K, N, t);
    double xd[20], y[15], fd[20];
    /* f = sum r * (x w + b): linear in each input, so double differences are exact but for
       rounding; perturb x (double), w and b (float: the exact step taken) */
    for (int i = 0; i < M * K; i++) {
        ref_widen(xd, x, 20);
        xd[i] += H; ref_linear(y, NULL, xd, w, b, M, K, N); double fp = dot(y, r, 15);
        xd[i] -= 2 * H; ref_linear(y, NULL, xd, w, b, M, K, N); double fm = dot(y, r, 15);
        fd[i] = (fp - fm) / (2 * H);
    }
    CHECK(close_to("dx", dx, fd, 20, ATOL, RTOL));
    ref_widen(xd, x, 20);
    float *ps[2] = {w, b};
    float *gs[2] = {gw, gb};
    int ns[2] = {12, 3};
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < ns[k]; i++) {
            float keep = ps[k][i];
            ps[k][i] = keep + 1e-2f; double hp = (double)ps[k][i] - keep;
            ref_linear(y, NULL, xd, w, b, M, K, N); double fp = dot(y, r, 15);
            ps[k][i] = keep - 1e-2f; double hm = keep - (double)ps[k][i];
            ref_linear(y, NULL, xd, w, b, M, K, N); double fm = dot(y, r, 15);
            ps[k][i] = keep;
            fd[i] = (fp - fm) / (hp + hm);
        }
        CHECK(close_to(k ? "gb" : "gw", gs[k], fd, ns[k], ATOL, RTOL));
    }
    free(x); free(w); free(b); free(r);
}

static void layernorm_backward_matches_finite_differences(void) {
    int M = 4, D = 6;
    float *x = rnd(M * D, 2), *g = rnd(D, 1), *be = rnd(D, 1), *r = rnd(M * D, 1);
    float y[24], mean[4], rstd[4], dx[24], gg[6], gb[6];
    CHECK_STATUS(bl_layernorm_forward(y, mean, rstd, x, g, be, M, D, 1e-5f, NULL), BL_OK);
    memset(dx, 0, sizeof dx);
    bl__layernorm_backward(dx, gg, gb, r, x, mean, rstd, g, M, D);
    double xd[24], yd[24], fd[24];
    for (int i = 0; i < M * D; i++) {
        ref_widen(xd, x, 24);
        xd[i] += H; ref_layernorm(yd, NULL, NULL, xd, g, be, M, D, 1e-5); double fp = dot(yd, r, 24);
        xd[i] -= 2 * H; ref_layernorm(yd, NULL, NULL, xd, g, be, M, D, 1e-5); double fm = dot(yd, r, 24);
        fd[i] = (fp - fm) / (2 * H);
    }
    CHECK(close_to("dx", dx, fd, 24, 1e-4, 1e-3));
    ref_widen(xd, x, 24);
    float *ps[2] = {g, be};
    float *gs[2] = {gg, gb};
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < D; i++) {
            float keep = ps[k][i];
            ps[k][i] = keep + 1e-2f; double hp = (double)ps[k][i] - keep;
            ref_layernorm(yd, NULL, NULL, xd, g, be, M, D, 1e-5); double fp = dot(yd, r, 24);
            ps[k][i] = keep - 1e-2f; double hm = keep - (double)ps[k][i];
            ref_layernorm(yd, NULL, NULL, xd, g, be, M, D, 1e-5); double fm = dot(yd, r, 24);
            ps[k][i] = keep;
            fd[i] = (fp - fm) / (hp + hm);
        }
        CHECK(close_to(k ? "gbeta" : "ggamma", gs[k], fd, D, ATOL, RTOL));
    }
    /* dx is added to, not written */
    float acc[24];
    for (int i = 0; i < 24; i++) acc[i] = 1.0f;
    bl__layernorm_backward(acc, gg, gb, r, x, mean, rstd, g, M, D);
    double want[24];
    for (int i = 0; i < 24; i++) want[i] = 1.0 + dx[i];
    CHECK(close_to("dx added to", acc, want, 24, 1e-6, 1e-6));
    free(x); free(g); free(be); free(r);
}

static void activation_backward_matches_finite_differences(void) {
    bl_activation acts[3] = {BL_ACT_RELU, BL_ACT_GELU, BL_ACT_GELU_TANH};
    enum { N = 64 };
    float pre[N], dact[N], dpre[N];
    double fd[N];
    for (int i = 0; i < N; i++) {
        pre[i] = -6.0f + 12.0f * (i + 0.5f) / N;   /* never 0: relu's kink */
        dact[i] = uniform(1);
    }
    for (int a = 0; a < 3; a++) {
        bl__act_backward(dpre, dact, pre, N, acts[a]);
        for (int i = 0; i < N; i++)
            fd[i] = dact[i] * (ref_act(pre[i] + H, acts[a]) - ref_act(pre[i] - H, acts[a])) / (2 * H);
        CHECK(close_to(bl_activation_name(acts[a]), dpre, fd, N, ATOL, RTOL));
    }
}

static double attn_f(const double *q, const double *k, const double *v, const float *r, int L,
                     int D, int Hh) {
    double c[6 * 8];
    ref_attention(c, NULL, NULL, NULL, q, k, v, L, D, Hh, 1.0 / sqrt(D / Hh), 1, NULL);
    return dot(c, r, (size_t)L * D);
}

static void attention_backward_matches_finite_differences(void) {
    int L = 6, D = 8, Hh = 2;
    size_t n = (size_t)L * D;
    float *q = rnd(n, 1.5f), *k = rnd(n, 1.5f), *v = rnd(n, 1), *r = rnd(n, 1);
    float att[2 * 36], concat[48], dq[48], dk[48], dv[48];
    double w[2 * 36], qd[48], kd[48], vd[48], fd[48];
    ref_widen(qd, q, n); ref_widen(kd, k, n); ref_widen(vd, v, n);
    ref_attention(NULL == NULL ? (double[48]){0} : NULL, NULL, NULL, w, qd, kd, vd, L, D, Hh,
                  1.0 / sqrt(D / Hh), 1, NULL);
    for (int i = 0; i < 72; i++) att[i] = (float)w[i];
    (void)concat;
    bl__attention_backward(dq, dk, dv, r, q, k, v, att, L, D, Hh);
    double *ins[3] = {qd, kd, vd};
    float *gs[3] = {dq, dk, dv};
    const char *names[3] = {"dq", "dk", "dv"};
    for (int t = 0; t < 3; t++) {
        for (size_t i = 0; i < n; i++) {
            double keep = ins[t][i];
            ins[t][i] = keep + H; double fp = attn_f(qd, kd, vd, r, L, D, Hh);
            ins[t][i] = keep - H; double fm = attn_f(qd, kd, vd, r, L, D, Hh);
            ins[t][i] = keep;
            fd[i] = (fp - fm) / (2 * H);
        }
        CHECK(close_to(names[t], gs[t], fd, n, ATOL, RTOL));
    }
    free(q); free(k); free(v); free(r);
}

static double xent_ref(const double *lg, const int32_t *tg, int M, int V) {
    double total = 0.0;
    int n = 0;
    for (int i = 0; i < M; i++) {
        if (tg[i] < 0) continue;
        double mx = lg[i * V], s = 0.0;
        for (int j = 1; j < V; j++) mx = fmax(mx, lg[i * V + j]);
        for (int j = 0; j < V; j++) s += exp(lg[i * V + j] - mx);
        total += log(s) + mx - lg[i * V + tg[i]];
        n++;
    }
    return total / n;
}

static void cross_entropy_backward_matches_finite_differences_and_skips_minus_one(void) {
    int M = 4, V = 5;
    int32_t tg[4] = {2, -1, 0, 4};
    float *lg = rnd(M * V, 3), dl[20];
    double ld[20], fd[20];
    double loss = bl__xent_backward(dl, lg, tg, M, V, 3);
    ref_widen(ld, lg, 20);
    double want = xent_ref(ld, tg, M, V);
    printf("    loss %.9g, reference %.9g\n", loss, want);
    CHECK(fabs(loss - want) < 1e-6 * fabs(want) + 1e-6);
    for (int i = 0; i < M * V; i++) {
        double keep = ld[i];
        ld[i] = keep + H; double fp = xent_ref(ld, tg, M, V);
        ld[i] = keep - H; double fm = xent_ref(ld, tg, M, V);
        ld[i] = keep;
        fd[i] = (fp - fm) / (2 * H);
    }
    CHECK(close_to("dlogits", dl, fd, 20, ATOL, RTOL));
    for (int j = 0; j < V; j++) CHECK(dl[V + j] == 0.0f);   /* the ignored row */
    free(lg);
}

/* ---- the whole model ----------------------------------------------------------------------- */
static bl_train_desc tiny(bl_activation act) {
    return (bl_train_desc){.n_layers = 2, .d_model = 8, .n_heads = 2, .d_ff = 12, .vocab = 7,
                           .n_positions = 6, .activation = act, .batch = 2, .L = 5};
}

/* params: GPT-2-like magnitudes (gains near 1), seeded */
static float *tiny_params(const bl_train_desc *d) {
    size_t n = bl_train_param_count(d);
    float *p = rnd(n, 0.5f);
    for (int l = -1; l < d->n_layers; l++) {
        bl_train_part gains[3] = {BL_TP_LN1_GAMMA, BL_TP_LN2_GAMMA, BL_TP_LNF_GAMMA};
        for (int g = 0; g < 3; g++) {
            size_t at = bl_train_param_offset(d, g == 2 ? -1 : l, gains[g]);
            if (at == (size_t)-1 || (g == 2) != (l == -1)) continue;
            for (int c = 0; c < d->d_model; c++) p[at + c] += 1.0f;
        }
    }
    return p;
}

/* The mean loss of tokens under ref_decoder, the model read through the layout's views. */
static double ref_loss(const bl_train_desc *t, const float *p, const int32_t *tokens) {
    bl_decoder_layer layers[4];
    for (int l = 0; l < t->n_layers; l++) {
#define AT(part) (p + bl_train_param_offset(t, l, part))
        layers[l] = (bl_decoder_layer){
            .ln1_gamma = AT(BL_TP_LN1_GAMMA), .ln1_beta = AT(BL_TP_LN1_BETA),
            .wq = AT(BL_TP_WQ), .bq = AT(BL_TP_BQ), .wk = AT(BL_TP_WK), .bk = AT(BL_TP_BK),
            .wv = AT(BL_TP_WV), .bv = AT(BL_TP_BV), .wo = AT(BL_TP_WO), .bo = AT(BL_TP_BO),
            .ln2_gamma = AT(BL_TP_LN2_GAMMA), .ln2_beta = AT(BL_TP_LN2_BETA),
            .w1 = AT(BL_TP_W1), .b1 = AT(BL_TP_B1), .w2 = AT(BL_TP_W2), .b2 = AT(BL_TP_B2)};
#undef AT
    }
    double total = 0.0;
    int scored = 0, L = t->L, V = t->vocab;
    for (int b = 0; b < t->batch; b++) {
        int32_t ids[16];
        const int32_t *row = tokens + (size_t)b * (L + 1);
        for (int i = 0; i < L; i++) ids[i] = row[i] < 0 ? 0 : row[i];
        bl_decoder_desc d = {.n_layers = t->n_layers, .d_model = t->d_model,
                             .n_heads = t->n_heads, .d_ff = t->d_ff, .vocab = V,
                             .n_positions = t->n_positions, .activation = t->activation, .L = L,
                             .ids = ids, .wte = p, .wpe = p + bl_train_param_offset(t, -1, BL_TP_WPE),
                             .layers = layers,
                             .lnf_gamma = p + bl_train_param_offset(t, -1, BL_TP_LNF_GAMMA),
                             .lnf_beta = p + bl_train_param_offset(t, -1, BL_TP_LNF_BETA)};
        ref_decoder_layer rl[4];
        double hidden[16 * 8], logits[16 * 7];
        ref_decoder(NULL, rl, hidden, logits, &d);
        ref_decoder_free(rl, t->n_layers);
        double one = xent_ref(logits, row + 1, L, V);
        int n = 0;
        for (int i = 1; i <= L; i++) n += row[i] >= 0;
        total += one * n;
        scored += n;
    }
    return total / scored;
}

static void train_grad_matches_finite_differences_of_the_reference_decoder(void) {
    bl_activation acts[2] = {BL_ACT_GELU_TANH, BL_ACT_GELU};
    for (int a = 0; a < 2; a++) {
        bl_train_desc d = tiny(acts[a]);
        size_t n = bl_train_param_count(&d);
        float *p = tiny_params(&d), *g = malloc(n * sizeof(float));
        float *ws = malloc(bl_train_workspace_size(&d) * sizeof(float));
        double *fd = malloc(n * sizeof(double));
        /* a padded row: its last targets -1, its padding input -1 */
        int32_t tokens[12] = {0, 3, 5, 1, 6, 2, 0, 4, 4, 2, -1, -1};
        float loss;
        bl_error err;
        CHECK_STATUS(bl_train_grad(&d, p, tokens, g, &loss, ws, &err), BL_OK);
        double want = ref_loss(&d, p, tokens);
        printf("    %s: loss %.7g, reference %.7g\n", bl_activation_name(acts[a]), loss, want);
        CHECK(fabs(loss - want) < 1e-5 * want);
        for (size_t i = 0; i < n; i++) {
            float keep = p[i];
            p[i] = keep + 1e-3f; double hp = (double)p[i] - keep, fp = ref_loss(&d, p, tokens);
            p[i] = keep - 1e-3f; double hm = keep - (double)p[i], fm = ref_loss(&d, p, tokens);
            p[i] = keep;
            fd[i] = (fp - fm) / (hp + hm);
        }
        /* step 1e-3 (the float step actually taken): the O(h^2) term is ~1e-6 here */
        CHECK(close_to("every gradient", g, fd, n, 2e-5, 2e-4));
        /* wpe's last row (position 5) is never read with L = 5: exactly zero */
        size_t at = bl_train_param_offset(&d, -1, BL_TP_WPE) + 5 * 8;
        for (int c = 0; c < 8; c++) CHECK(g[at + c] == 0.0f);
        free(p); free(g); free(ws); free(fd);
    }
}

static void eval_gives_the_loss_of_grad_and_the_same_bits_twice(void) {
    bl_train_desc d = tiny(BL_ACT_RELU);
    size_t n = bl_train_param_count(&d);
    float *p = tiny_params(&d), *g1 = malloc(n * 4), *g2 = malloc(n * 4);
    float *ws = malloc(bl_train_workspace_size(&d) * sizeof(float));
    int32_t tokens[12] = {0, 1, 2, 3, 4, 5, 0, 6, 5, 4, 3, 2};
    float l1, l2, le;
    CHECK_STATUS(bl_train_grad(&d, p, tokens, g1, &l1, ws, NULL), BL_OK);
    memset(ws, 0x7f, bl_train_workspace_size(&d) * sizeof(float));   /* stale scratch is not read */
    CHECK_STATUS(bl_train_grad(&d, p, tokens, g2, &l2, ws, NULL), BL_OK);
    CHECK_STATUS(bl_train_eval(&d, p, tokens, &le, ws, NULL), BL_OK);
    CHECK(memcmp(&l1, &l2, 4) == 0 && memcmp(&l1, &le, 4) == 0);
    CHECK(memcmp(g1, g2, n * 4) == 0);
    free(p); free(g1); free(g2); free(ws);
}

static void layout_parts_tile_the_buffer_in_hf_order(void) {
    bl_train_desc d = tiny(BL_ACT_RELU);
    size_t at = 0;
    for (int l = -1; l <= d.n_layers; l++)
        for (int p = 0; p < BL_TP_COUNT; p++) {
            int global = p < BL_TP_LN1_GAMMA || p >= BL_TP_LNF_GAMMA;
            int layer = global ? -1 : l;
            /* order: wte, wpe, layers 0.., ln_f */
            if (global && !((l == -1 && p < BL_TP_LN1_GAMMA) || (l == d.n_layers && p >= BL_TP_LNF_GAMMA))) continue;
            if (!global && (l < 0 || l >= d.n_layers)) continue;
            CHECK(bl_train_param_offset(&d, layer, p) == at);
            at += bl_train_param_size(&d, p);
        }
    CHECK(at == bl_train_param_count(&d));
    /* 7*8 + 6*8 + 2 * (4*64 + 2*96 + 9*8 + 12) + 16 */
    CHECK(at == 56 + 48 + 2 * (256 + 192 + 72 + 12) + 16);
    CHECK(bl_train_param_offset(&d, 2, BL_TP_WQ) == (size_t)-1);
    CHECK(bl_train_param_offset(&d, 0, BL_TP_WTE) == (size_t)-1);
    CHECK(bl_train_param_offset(&d, -1, BL_TP_COUNT) == (size_t)-1);
}

/* ---- the optimiser ------------------------------------------------------------------------- */
static void adamw_steps_match_a_hand_computation(void) {
    float p[2] = {1.0f, -2.0f}, g[2] = {0.5f, 0.25f}, m[2] = {0}, v[2] = {0};
    bl_adamw_desc o = {.lr = 0.1f, .beta1 = 0.9f, .beta2 = 0.95f, .eps = 1e-8f,
                       .weight_decay = 0.01f, .step = 1};
    double pd[2] = {1.0, -2.0}, md[2] = {0}, vd[2] = {0};
    for (int s = 1; s <= 3; s++) {
        o.step = s;
        CHECK_STATUS(bl_adamw_step(p, g, m, v, 2, &o, NULL), BL_OK);
        for (int i = 0; i < 2; i++) {
            pd[i] *= 1 - 0.1 * 0.01;
            md[i] = 0.9 * md[i] + 0.1 * g[i];
            vd[i] = 0.95 * vd[i] + 0.05 * (double)g[i] * g[i];
            double mh = md[i] / (1 - pow(0.9, s)), vh = vd[i] / (1 - pow(0.95, s));
            pd[i] -= 0.1 * mh / (sqrt(vh) + 1e-8);
        }
    }
    /* step 1 by hand: 0.999 - 0.1 * 0.05 / 0.1 / (sqrt(0.0125 / 0.05) + 1e-8) = 0.899 */
    CHECK(close_to("params after 3 steps", p, pd, 2, 1e-6, 1e-6));
    float p1[1] = {1.0f}, g1[1] = {0.5f}, m1[1] = {0}, v1[1] = {0};
    o.step = 1;
    bl_adamw_step(p1, g1, m1, v1, 1, &o, NULL);
    CHECK(fabsf(p1[0] - 0.899f) < 1e-6f);
}

static void train_adamw_decays_matrices_only(void) {
    bl_train_desc d = tiny(BL_ACT_RELU);
    size_t n = bl_train_param_count(&d);
    float *p = malloc(n * 4), *g = calloc(n, 4), *m = calloc(n, 4), *v = calloc(n, 4);
    for (size_t i = 0; i < n; i++) p[i] = 1.0f;
    bl_adamw_desc o = {.lr = 0.5f, .beta1 = 0.9f, .beta2 = 0.95f, .weight_decay = 0.1f, .step = 1};
    CHECK_STATUS(bl_train_adamw_step(&d, p, g, m, v, &o, NULL), BL_OK);
    int ok = 1;
    for (int l = -1; l < d.n_layers; l++)
        for (int part = 0; part < BL_TP_COUNT; part++) {
            size_t at = bl_train_param_offset(&d, l, part);
            if (at == (size_t)-1) continue;
            int matrix = part == BL_TP_WTE || part == BL_TP_WPE || part == BL_TP_WQ ||
                         part == BL_TP_WK || part == BL_TP_WV || part == BL_TP_WO ||
                         part == BL_TP_W1 || part == BL_TP_W2;
            float want = matrix ? 1.0f - 0.5f * 0.1f : 1.0f;
            for (size_t i = 0; i < bl_train_param_size(&d, part); i++) ok &= p[at + i] == want;
        }
    CHECK(ok);
    free(p); free(g); free(m); free(v);
}

static void clip_grad_norm_scales_to_max_norm_as_torch(void) {
    float g[2] = {3.0f, 4.0f}, norm = 0;
    CHECK_STATUS(bl_clip_grad_norm(g, 2, 1.0f, &norm, NULL), BL_OK);
    CHECK(norm == 5.0f);
    CHECK(fabsf(g[0] - 3.0f / (5.0f + 1e-6f)) < 1e-7f && fabsf(g[1] - 4.0f / (5.0f + 1e-6f)) < 1e-7f);
    float s[2] = {0.3f, 0.4f};
    CHECK_STATUS(bl_clip_grad_norm(s, 2, 1.0f, &norm, NULL), BL_OK);
    CHECK(s[0] == 0.3f && s[1] == 0.4f);   /* below max_norm: untouched */
    float bad[2] = {INFINITY, 1.0f};
    bl_error err;
    CHECK_STATUS(bl_clip_grad_norm(bad, 2, 1.0f, NULL, &err), BL_ERR_VALUE);
    CHECK(strstr(err.message, "grads") != NULL && bad[1] == 1.0f);
}

/* ---- bad arguments ------------------------------------------------------------------------- */
static void bad_arguments_give_the_status_and_name_the_argument(void) {
    bl_train_desc d = tiny(BL_ACT_RELU);
    size_t n = bl_train_param_count(&d);
    float *p = tiny_params(&d), *g = malloc(n * 4), *ws = malloc(bl_train_workspace_size(&d) * 4);
    int32_t tokens[12] = {0, 1, 2, 3, 4, 5, 0, 6, 5, 4, 3, 2};
    float loss;
    bl_error err;
    struct { bl_train_desc d; bl_status s; const char *msg; } cases[] = {
        {tiny(BL_ACT_SWIGLU), BL_ERR_ACTIVATION, "activation (5)"},
        {tiny(BL_ACT_SILU), BL_ERR_ACTIVATION, "activation (3)"},
    };
    cases[0].d.activation = BL_ACT_SWIGLU;
    for (int i = 0; i < 2; i++) {
        CHECK_STATUS(bl_train_grad(&cases[i].d, p, tokens, g, &loss, ws, &err), cases[i].s);
        CHECK(strstr(err.message, cases[i].msg) != NULL);
    }
    bl_train_desc e = d;
    e.L = 7;
    CHECK_STATUS(bl_train_grad(&e, p, tokens, g, &loss, ws, &err), BL_ERR_SHAPE);
    CHECK(strstr(err.message, "L (7) must be at most n_positions (6)") != NULL);
    e = d; e.batch = 0;
    CHECK_STATUS(bl_train_eval(&e, p, tokens, &loss, ws, &err), BL_ERR_SIZE);
    CHECK(strstr(err.message, "batch (0)") != NULL);
    e = d; e.n_heads = 3;
    CHECK_STATUS(bl_train_eval(&e, p, tokens, &loss, ws, &err), BL_ERR_SHAPE);
    CHECK(strstr(err.message, "n_heads (3)") != NULL);
    e = d; e.eps = -1.0f;
    CHECK_STATUS(bl_train_eval(&e, p, tokens, &loss, ws, &err), BL_ERR_VALUE);
    CHECK(strstr(err.message, "eps") != NULL);
    CHECK(bl_train_param_count(&e) == 0 && bl_train_workspace_size(&e) == 0);
    CHECK_STATUS(bl_train_grad(&d, p, tokens, NULL, &loss, ws, &err), BL_ERR_NULL);
    CHECK(strstr(err.message, "grads must not be NULL") != NULL);
    CHECK_STATUS(bl_train_eval(&d, NULL, tokens, &loss, ws, &err), BL_ERR_NULL);
    CHECK(strstr(err.message, "params") != NULL);
    CHECK_STATUS(bl_train_eval(&d, p, tokens, &loss, NULL, &err), BL_ERR_NULL);
    CHECK(strstr(err.message, "workspace") != NULL);
    tokens[8] = 7;
    CHECK_STATUS(bl_train_eval(&d, p, tokens, &loss, ws, &err), BL_ERR_VALUE);
    CHECK(strstr(err.message, "tokens[1][2] (7) must be -1 (none) or in [0, vocab 7)") != NULL);
    int32_t none[12] = {0, -1, -1, -1, -1, -1, 0, -1, -1, -1, -1, -1};
    CHECK_STATUS(bl_train_eval(&d, p, none, &loss, ws, &err), BL_ERR_VALUE);
    CHECK(strstr(err.message, "no target") != NULL);
    /* logits past float32 (ln_f gain and wte 1e20): named, for the gradient and the loss */
    tokens[8] = 2;
    float *huge = tiny_params(&d);
    for (size_t i = 0; i < bl_train_param_size(&d, BL_TP_WTE); i++) huge[i] *= 1e20f;
    for (int c = 0; c < d.d_model; c++) huge[bl_train_param_offset(&d, -1, BL_TP_LNF_GAMMA) + c] = 1e20f;
    CHECK_STATUS(bl_train_grad(&d, huge, tokens, g, &loss, ws, &err), BL_ERR_VALUE);
    CHECK(strstr(err.message, "logit of row") != NULL && strstr(err.message, "not finite") != NULL);
    CHECK_STATUS(bl_train_eval(&d, huge, tokens, &loss, ws, &err), BL_ERR_VALUE);
    CHECK(strstr(err.message, "logit of row") != NULL);
    free(huge);
    float m[4] = {0}, v[4] = {0}, q[4] = {0}, gg[4] = {0};
    bl_adamw_desc o = {.lr = 0.1f, .beta1 = 0.9f, .beta2 = 0.95f, .step = 0};
    CHECK_STATUS(bl_adamw_step(q, gg, m, v, 4, &o, &err), BL_ERR_VALUE);
    CHECK(strstr(err.message, "step (0)") != NULL);
    o.step = 1; o.beta2 = 1.0f;
    CHECK_STATUS(bl_adamw_step(q, gg, m, v, 4, &o, &err), BL_ERR_VALUE);
    CHECK(strstr(err.message, "beta2 (1)") != NULL);
    o.beta2 = 0.95f; o.lr = NAN;
    CHECK_STATUS(bl_train_adamw_step(&d, p, g, g, g, &o, &err), BL_ERR_VALUE);
    CHECK(strstr(err.message, "lr (nan)") != NULL);
    CHECK_STATUS(bl_adamw_step(q, NULL, m, v, 4, &o, &err), BL_ERR_NULL);
    CHECK(strstr(err.message, "grads") != NULL);
    CHECK_STATUS(bl_train_adamw_step(&e, p, g, g, g, &o, &err), BL_ERR_VALUE);
    CHECK(strstr(err.message, "eps") != NULL);
    CHECK_STATUS(bl_clip_grad_norm(gg, 4, 0.0f, NULL, &err), BL_ERR_VALUE);
    CHECK(strstr(err.message, "max_norm (0)") != NULL);
    CHECK_STATUS(bl_clip_grad_norm(gg, 0, 1.0f, NULL, &err), BL_ERR_SIZE);
    CHECK(strstr(err.message, "n (0)") != NULL);
    free(p); free(g); free(ws);
}

int main(void) {
    bl_run("linear_backward_matches_finite_differences", linear_backward_matches_finite_differences);
    bl_run("layernorm_backward_matches_finite_differences", layernorm_backward_matches_finite_differences);
    bl_run("activation_backward_matches_finite_differences", activation_backward_matches_finite_differences);
    bl_run("attention_backward_matches_finite_differences", attention_backward_matches_finite_differences);
    bl_run("cross_entropy_backward_matches_finite_differences_and_skips_minus_one",
           cross_entropy_backward_matches_finite_differences_and_skips_minus_one);
    bl_run("train_grad_matches_finite_differences_of_the_reference_decoder",
           train_grad_matches_finite_differences_of_the_reference_decoder);
    bl_run("eval_gives_the_loss_of_grad_and_the_same_bits_twice",
           eval_gives_the_loss_of_grad_and_the_same_bits_twice);
    bl_run("layout_parts_tile_the_buffer_in_hf_order", layout_parts_tile_the_buffer_in_hf_order);
    bl_run("adamw_steps_match_a_hand_computation", adamw_steps_match_a_hand_computation);
    bl_run("train_adamw_decays_matrices_only", train_adamw_decays_matrices_only);
    bl_run("clip_grad_norm_scales_to_max_norm_as_torch", clip_grad_norm_scales_to_max_norm_as_torch);
    bl_run("bad_arguments_give_the_status_and_name_the_argument",
           bad_arguments_give_the_status_and_name_the_argument);
    return bl_summary();
}
