/* reference.h - one plain double-precision reference per op, written to be read, not to be
   fast: the C tests and the fuzz targets check the engine against these (as llm.c keeps
   matmul_forward_naive beside matmul_forward). Activations are double, parameters the
   engine's own floats (widening is exact). Outputs come first, in caller-owned buffers; the few
   that allocate scratch say so. An optional `mag` receives, per output, the sum of the
   magnitudes of the terms behind it (|bias| included): the scale of float32's rounding. */
#ifndef BL_REFERENCE_H
#define BL_REFERENCE_H
#include <stddef.h>
#include "blocklens.h"

/* y (n) = x (n) as doubles */
void ref_widen(double *y, const float *x, size_t n);

/* act(v); a gated activation gives its gate's: silu for swiglu, gelu for geglu */
double ref_act(double v, bl_activation act);
/* y (n) = act(x (n)), elementwise */
void ref_activation(double *y, const double *x, size_t n, bl_activation act);

/* y (M, N) = x (M, K) @ w (K, N) + b (N, optional); mag (M, N) optional */
void ref_linear(double *y, double *mag, const double *x, const float *w, const float *b, int M,
                int K, int N);
/* y (M, N) = x (M, K) @ w^T, w given as (N, K): the tied unembedding, h @ wte^T */
void ref_linear_tied(double *y, double *mag, const double *x, const float *w, int M, int K,
                     int N);

/* y (L, d) = (x - mean) * rstd * gamma + beta over each row of x (L, d); mean, rstd (L)
   optional; gamma, beta (d) optional (1 and 0) */
void ref_layernorm(double *y, double *mean, double *rstd, const double *x, const float *gamma,
                   const float *beta, int L, int d, double eps);
/* y (L, d) = x * rstd * gamma over each row, rstd = 1 / sqrt(mean(x^2) + eps); rstd (L) */
void ref_rmsnorm(double *y, double *rstd, const double *x, const float *gamma, int L, int d,
                 double eps);
/* y (L, d) = (x - mean) * rstd * gamma + beta over each column; mean, rstd (d) */
void ref_batchnorm(double *y, double *mean, double *rstd, const double *x, const float *gamma,
                   const float *beta, int L, int d, double eps);

/* y (L, d_model) = act(x @ w1 + b1) [* (x @ w3 + b3) when gated] @ w2 + b2, with x (L, d_model)
   in place of d->x (not read) and d's sizes, weights and activation; hidden (L, d_ff) and
   activated (L, d_ff) receive the intermediates when not NULL. Allocates its scratch. */
void ref_ffn(double *y, double *hidden, double *activated, const double *x, const bl_ffn_desc *d);

/* Attention's three steps for one query row of one head. k, v hold n rows of dk, row i at
   k + i * ld (a head's columns of (L, D) with ld = D). */
/* s (n) = q_i (dk) . k_j, not scaled; mag (n) optional */
void ref_attention_scores(double *s, double *mag, const double *q_i, const double *k, int ld,
                          int n, int dk);
/* p (n) = softmax of s (n) over the entries keep (n, optional: all) marks, 0 elsewhere; all 0
   when none is kept */
void ref_softmax(double *p, const double *s, const unsigned char *keep, int n);
/* ctx (dk) = p (n) @ v (n, dk); mag (dk) optional */
void ref_attention_context(double *ctx, double *mag, const double *p, const double *v, int ld,
                           int n, int dk);
/* Multi-head attention after the projections: q, k, v (L, D), H heads of dk = D / H.
   concat (L, D) = each head's softmax(scale * q k^T, causal and key_mask (L, optional) hiding
   keys) @ v; context (H, L, dk), scores (H, L, L, before scale and mask) and weights (H, L, L)
   optional. Allocates its scratch. */
void ref_attention(double *concat, double *context, double *scores, double *weights,
                   const double *q, const double *k, const double *v, int L, int D, int H,
                   double scale, int causal, const unsigned char *key_mask);

/* One decoder layer's intermediates, shaped as bl_decoder_layer_out's. */
typedef struct {
    double *norm1, *q, *k, *v, *scores, *weights, *context, *concat, *attn_out, *resid1, *norm2,
        *hidden, *activated, *ffn_out, *resid2;
} ref_decoder_layer;
/* The decoder of d: embed (L, d_model, optional), every layer's intermediates (layers
   (n_layers), each buffer allocated here: ref_decoder_free), the final hidden state
   (L, d_model) and logits (L, vocab). */
void ref_decoder(double *embed, ref_decoder_layer *layers, double *hidden, double *logits,
                 const bl_decoder_desc *d);
void ref_decoder_free(ref_decoder_layer *layers, int n_layers);

#endif
