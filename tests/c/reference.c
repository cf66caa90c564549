/* reference.c - see reference.h: the header's formulas as plain double loops. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "reference.h"

static double *alloc_doubles(size_t n) {   /* scratch; running out is a test setup error */
    double *p = calloc(n ? n : 1, sizeof(double));
    if (!p) { fprintf(stderr, "reference: out of memory (%zu doubles)\n", n); abort(); }
    return p;
}

void ref_widen(double *y, const float *x, size_t n) {
    for (size_t i = 0; i < n; i++) y[i] = x[i];
}

double ref_act(double v, bl_activation act) {
    switch (act) {
    case BL_ACT_RELU: return v > 0 ? v : 0;
    case BL_ACT_GELU:
    case BL_ACT_GEGLU: return 0.5 * v * (1.0 + erf(v / sqrt(2.0)));
    case BL_ACT_GELU_TANH:
        return 0.5 * v * (1.0 + tanh(sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v)));
    case BL_ACT_SILU:
    case BL_ACT_SWIGLU: return v / (1.0 + exp(-v));
    default: return v;
    }
}

void ref_activation(double *y, const double *x, size_t n, bl_activation act) {
    for (size_t i = 0; i < n; i++) y[i] = ref_act(x[i], act);
}

/* y (M, N) = x (M, K) @ W + b, W's element (k, j) at w[k * wk + j * wj]. */
static void linear(double *y, double *mag, const double *x, const float *w, size_t wk,
                   size_t wj, const float *b, int M, int K, int N) {
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = b ? b[j] : 0.0, m = b ? fabs(b[j]) : 0.0;
            for (int k = 0; k < K; k++) {
                double t = x[(size_t)i * K + k] * w[(size_t)k * wk + (size_t)j * wj];
                s += t;
                m += fabs(t);
            }
            y[(size_t)i * N + j] = s;
            if (mag) mag[(size_t)i * N + j] = m;
        }
}

void ref_linear(double *y, double *mag, const double *x, const float *w, const float *b, int M,
                int K, int N) {
    linear(y, mag, x, w, (size_t)N, 1, b, M, K, N);
}

void ref_linear_tied(double *y, double *mag, const double *x, const float *w, int M, int K,
                     int N) {
    linear(y, mag, x, w, 1, (size_t)K, NULL, M, K, N);
}

/* The three norms: groups of n values (rows of x (L, d), or its columns), two passes. */
static void normalise(double *y, double *mean, double *rstd, const double *x, const float *gamma,
                      const float *beta, int L, int d, int columns, int center, double eps) {
    int groups = columns ? d : L, n = columns ? L : d;
    for (int g = 0; g < groups; g++) {
        /* value i of group g is x[base + i * step]; its feature (gamma, beta) is f */
        size_t base = columns ? (size_t)g : (size_t)g * d, step = columns ? (size_t)d : 1;
        double mu = 0.0, ss = 0.0;
        if (center) {
            for (int i = 0; i < n; i++) mu += x[base + i * step];
            mu /= n;
        }
        for (int i = 0; i < n; i++) ss += (x[base + i * step] - mu) * (x[base + i * step] - mu);
        double r = 1.0 / sqrt(ss / n + eps);
        for (int i = 0; i < n; i++) {
            int f = columns ? g : i;
            y[base + i * step] = (x[base + i * step] - mu) * r * (gamma ? gamma[f] : 1.0) +
                                 (beta ? beta[f] : 0.0);
        }
        if (mean) mean[g] = mu;
        if (rstd) rstd[g] = r;
    }
}

void ref_layernorm(double *y, double *mean, double *rstd, const double *x, const float *gamma,
                   const float *beta, int L, int d, double eps) {
    normalise(y, mean, rstd, x, gamma, beta, L, d, 0, 1, eps);
}

void ref_rmsnorm(double *y, double *rstd, const double *x, const float *gamma, int L, int d,
                 double eps) {
    normalise(y, NULL, rstd, x, gamma, NULL, L, d, 0, 0, eps);
}

void ref_batchnorm(double *y, double *mean, double *rstd, const double *x, const float *gamma,
                   const float *beta, int L, int d, double eps) {
    normalise(y, mean, rstd, x, gamma, beta, L, d, 1, 1, eps);
}

void ref_ffn(double *y, double *hidden, double *activated, const double *x, const bl_ffn_desc *d) {
    int L = d->L, D = d->d_model, F = d->d_ff;
    size_t n = (size_t)L * F;
    double *h = hidden ? hidden : alloc_doubles(n), *a = activated ? activated : alloc_doubles(n);
    ref_linear(h, NULL, x, d->w1, d->b1, L, D, F);
    ref_activation(a, h, n, d->activation);
    if (bl_activation_is_gated(d->activation)) {   /* a *= x W3 + b3, the up projection */
        double *up = alloc_doubles(n);
        ref_linear(up, NULL, x, d->w3, d->b3, L, D, F);
        for (size_t i = 0; i < n; i++) a[i] *= up[i];
        free(up);
    }
    ref_linear(y, NULL, a, d->w2, d->b2, L, F, D);
    if (!hidden) free(h);
    if (!activated) free(a);
}

/* sum of a[i * sa] * b[i * sb] over n terms; *mag = the sum of their magnitudes */
static double dot(double *mag, const double *a, size_t sa, const double *b, size_t sb, int n) {
    double acc = 0.0, m = 0.0;
    for (int i = 0; i < n; i++) {
        double t = a[(size_t)i * sa] * b[(size_t)i * sb];
        acc += t;
        m += fabs(t);
    }
    *mag = m;
    return acc;
}

void ref_attention_scores(double *s, double *mag, const double *q_i, const double *k, int ld,
                          int n, int dk) {
    for (int j = 0; j < n; j++) {
        double m;
        s[j] = dot(&m, q_i, 1, k + (size_t)j * ld, 1, dk);
        if (mag) mag[j] = m;
    }
}

void ref_softmax(double *p, const double *s, const unsigned char *keep, int n) {
    double m = -INFINITY, z = 0.0;
    for (int j = 0; j < n; j++)
        if ((!keep || keep[j]) && s[j] > m) m = s[j];
    for (int j = 0; j < n; j++) z += p[j] = (!keep || keep[j]) ? exp(s[j] - m) : 0.0;
    for (int j = 0; j < n; j++) p[j] = z > 0.0 ? p[j] / z : 0.0;
}

void ref_attention_context(double *ctx, double *mag, const double *p, const double *v, int ld,
                           int n, int dk) {
    for (int c = 0; c < dk; c++) {
        double m;
        ctx[c] = dot(&m, p, 1, v + c, (size_t)ld, n);
        if (mag) mag[c] = m;
    }
}

void ref_attention(double *concat, double *context, double *scores, double *weights,
                   const double *q, const double *k, const double *v, int L, int D, int H,
                   double scale, int causal, const unsigned char *key_mask) {
    int dk = D / H;
    double *s = alloc_doubles((size_t)L), *t = alloc_doubles((size_t)L),
           *p = alloc_doubles((size_t)L), *ctx = alloc_doubles((size_t)dk);
    unsigned char *keep = malloc((size_t)L);
    if (!keep) abort();
    for (int h = 0; h < H; h++)
        for (int i = 0; i < L; i++) {
            size_t row = ((size_t)h * L + i) * L;
            ref_attention_scores(s, NULL, q + (size_t)i * D + h * dk, k + h * dk, D, L, dk);
            for (int j = 0; j < L; j++) {
                t[j] = s[j] * scale;
                keep[j] = (!causal || j <= i) && (!key_mask || key_mask[j]);
            }
            ref_softmax(p, t, keep, L);
            ref_attention_context(ctx, NULL, p, v + h * dk, D, L, dk);
            for (int c = 0; c < dk; c++) {
                concat[(size_t)i * D + h * dk + c] = ctx[c];
                if (context) context[((size_t)h * L + i) * dk + c] = ctx[c];
            }
            if (scores) memcpy(scores + row, s, sizeof(double) * (size_t)L);
            if (weights) memcpy(weights + row, p, sizeof(double) * (size_t)L);
        }
    free(s); free(t); free(p); free(ctx); free(keep);
}

void ref_decoder(double *embed, ref_decoder_layer *layers, double *hidden, double *logits,
                 const bl_decoder_desc *d) {
    int L = d->L, D = d->d_model, H = d->n_heads, F = d->d_ff, V = d->vocab;
    size_t n = (size_t)L * D, s = (size_t)H * L * L, f = (size_t)L * F;
    double eps = d->eps == 0.0f ? (double)1e-5f : (double)d->eps;
    double *x = alloc_doubles(n);   /* the residual stream */
    for (int i = 0; i < L; i++)
        for (int c = 0; c < D; c++)
            x[(size_t)i * D + c] = (double)d->wte[(size_t)d->ids[i] * D + c] + d->wpe[(size_t)i * D + c];
    if (embed) memcpy(embed, x, sizeof(double) * n);
    for (int l = 0; l < d->n_layers; l++) {
        const bl_decoder_layer *w = &d->layers[l];
        ref_decoder_layer *o = &layers[l];
        *o = (ref_decoder_layer){
            .norm1 = alloc_doubles(n), .q = alloc_doubles(n), .k = alloc_doubles(n),
            .v = alloc_doubles(n), .scores = alloc_doubles(s), .weights = alloc_doubles(s),
            .context = alloc_doubles(n), .concat = alloc_doubles(n), .attn_out = alloc_doubles(n),
            .resid1 = alloc_doubles(n), .norm2 = alloc_doubles(n), .hidden = alloc_doubles(f),
            .activated = alloc_doubles(f), .ffn_out = alloc_doubles(n), .resid2 = alloc_doubles(n)};
        /* pre-LN, causal: x + attn(norm1(x)), then that + ffn(norm2(that)) */
        ref_layernorm(o->norm1, NULL, NULL, x, w->ln1_gamma, w->ln1_beta, L, D, eps);
        ref_linear(o->q, NULL, o->norm1, w->wq, w->bq, L, D, D);
        ref_linear(o->k, NULL, o->norm1, w->wk, w->bk, L, D, D);
        ref_linear(o->v, NULL, o->norm1, w->wv, w->bv, L, D, D);
        ref_attention(o->concat, o->context, o->scores, o->weights, o->q, o->k, o->v, L, D, H,
                      1.0 / sqrt((double)(D / H)), 1, NULL);
        ref_linear(o->attn_out, NULL, o->concat, w->wo, w->bo, L, D, D);
        for (size_t i = 0; i < n; i++) o->resid1[i] = x[i] + o->attn_out[i];
        ref_layernorm(o->norm2, NULL, NULL, o->resid1, w->ln2_gamma, w->ln2_beta, L, D, eps);
        bl_ffn_desc fd = {.L = L, .d_model = D, .d_ff = F, .activation = d->activation,
                          .w1 = w->w1, .b1 = w->b1, .w2 = w->w2, .b2 = w->b2};
        ref_ffn(o->ffn_out, o->hidden, o->activated, o->norm2, &fd);
        for (size_t i = 0; i < n; i++) o->resid2[i] = o->resid1[i] + o->ffn_out[i];
        memcpy(x, o->resid2, sizeof(double) * n);
    }
    ref_layernorm(hidden, NULL, NULL, x, d->lnf_gamma, d->lnf_beta, L, D, eps);
    ref_linear_tied(logits, NULL, hidden, d->wte, L, D, V);
    free(x);
}

void ref_decoder_free(ref_decoder_layer *layers, int n_layers) {
    for (int l = 0; l < n_layers; l++) {
        double **bufs = (double **)&layers[l];
        for (size_t b = 0; b < sizeof layers[l] / sizeof(double *); b++) free(bufs[b]);
    }
}
