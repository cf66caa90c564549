/* bl_internal.h - helpers shared by the engine's source files; not part of the public API. */
#ifndef BL_INTERNAL_H
#define BL_INTERNAL_H

#include "blocklens.h"

/* Records why a call failed (err may be NULL) and returns the status, so checks read
   `if (bad) return bl__fail(err, BL_ERR_SIZE, "L (%d) must be ...", L);` */
bl_status bl__fail(bl_error *err, bl_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void bl__ok(bl_error *err);

/* Size checks: name the argument, keep every buffer at most BL_MAX_ELEMS (2^28) floats.
   SIZE ARITHMETIC (size_t is 32 bits on wasm32): an index or offset into a buffer whose size
   was checked here is below 2^28 and may be computed in size_t. Any other product of sizes
   (the checks themselves, path choices, cost estimates) is computed in uint64_t: two dims
   reach 2^32, three 2^48. */
bl_status bl__check_dim(bl_error *err, const char *name, int value);
bl_status bl__check_elems(bl_error *err, const char *what, uint64_t a, uint64_t b);
bl_status bl__check_ptr(bl_error *err, const char *name, const void *p);
/* A GPT-2 decoder's sizes (decoder.c and train.c; batch 1 where there is none): each dim in
   range, in this order, then d_model % n_heads == 0 and L <= n_positions. */
typedef struct bl__gpt2_sizes {
    int n_layers, d_model, n_heads, d_ff, vocab, n_positions, batch, L;
} bl__gpt2_sizes;
bl_status bl__check_gpt2_sizes(bl_error *err, const bl__gpt2_sizes *s);
/* every ids[i] (i < L) in [0, vocab): the decoders' token check, one message */
bl_status bl__check_ids(bl_error *err, const int32_t *ids, int L, int vocab);
/* Activation checks, one wording for every entry point: act is one of the enum and, where
   ungated_for names a part (not NULL), not gated; the up projection w3 (and b3) is given
   exactly when act is gated. */
bl_status bl__check_activation(bl_error *err, bl_activation act, const char *ungated_for);
bl_status bl__check_up_projection(bl_error *err, bl_activation act, const void *w3,
                                  const void *b3);

/* out (M, N) = x (M, K) @ w (K, N) + b (N), no checks. The hot kernel. */
void bl__matmul(float *out, const float *x, const float *w, const float *b, int M, int K, int N);
/* out (M, N) = act(x (M, K) @ w (K, N) + b (N)); pre (optional) receives the pre-activation. */
void bl__matmul_act(float *out, float *pre, const float *x, const float *w, const float *b,
                    int M, int K, int N, bl_activation act);
float bl__act(float v, bl_activation act);
/* Lets bl__gemm use fused multiply-add (only where compiled in: the wasm SIMD build). */
void bl__set_fma(int on);
/* The general form: c (M, N) [row stride ldc] = act(a (M, K) [lda] @ B + bias (N)), where B is
   b (K, N) [ldb], or with trans_b its transpose given as b (N, K) [ldb]; pre (optional, stride
   ldc) receives the pre-activation. Uses ~100 KiB of stack, allocates nothing. */
void bl__gemm(float *c, int ldc, float *pre, const float *a, int lda, const float *b, int ldb,
              int trans_b, const float *bias, int M, int K, int N, bl_activation act);

/* bl__gemm with B of type bt (F32, F16 or BF16: a checkpoint's weights), up-cast exactly to
   float32 while it is packed; ldb counts values of that type. */
void bl__gemm_typed(float *c, int ldc, float *pre, const float *a, int lda, const void *b,
                    bl_dtype bt, int ldb, int trans_b, const float *bias, int M, int K, int N,
                    bl_activation act);
/* bl__gemm_typed rounding as a product of `macs` multiply-adds would (its FMA choice): the logit
   lens does one forward's unembedding in row blocks and must give its logits bit for bit. */
void bl__gemm_typed_as(float *c, int ldc, float *pre, const float *a, int lda, const void *b,
                       bl_dtype bt, int ldb, int trans_b, const float *bias, int M, int K, int N,
                       bl_activation act, uint64_t macs);
/* bt for bl__gemm_typed(_as) only: F16 weights known to hold no infinity or NaN
   (bl_llama_desc.weights_finite), read without the F16 kernels' watch for them. */
#define BL__DTYPE_F16_FINITE ((bl_dtype)BL_DTYPE_COUNT)
/* Weight values as float32: one (index i), or n from index `from` into out. */
float bl__f16_to_f32(uint16_t h);
float bl__weight_at(const void *w, bl_dtype dt, size_t i);
void bl__weights_to_f32(float *out, const void *w, bl_dtype dt, size_t from, size_t n);
/* attention.c's masked softmax of one row: w (L) = softmax(s * scale) over keys [0, last],
   0 after; mask (L, optional): 0 = key nobody attends to. s may equal w. */
void bl__softmax_row(float *w, const float *s, int L, int last, const unsigned char *mask,
                     float scale);

/* rope.c: the cos / sin tables (L, head_dim / 2) of d's RoPE settings (checked by the caller),
   and out (L, heads * head_dim) = x rotated per head (HF's rotate_half pairs c, c + half). */
void bl__rope_table(float *cos_t, float *sin_t, const bl_llama_desc *d, int L, int head_dim);
/* The double math under them: e^x for x in [-700, 0]; cos and sin of a in [0, 2^20). */
double bl__exp_neg(double x);
void bl__cos_sin(double a, double *c, double *s);
void bl__rope_apply(float *out, const float *x, const float *cos_t, const float *sin_t, int L,
                    int heads, int head_dim);

/* Argument checks of the two sublayers, shared with the block so it fails before writing. */
bl_status bl__attention_check(const bl_attention_desc *d, const bl_attention_out *o,
                              const float *workspace, bl_error *err);
bl_status bl__ffn_check(const bl_ffn_desc *d, const bl_ffn_out *o, bl_error *err);
/* 1 when a head of L x L x d_k is done by attention.c's in-place small-head path. */
int bl__attention_small_head(int L, int d_k);

/* hooks.c: the hooks fields both decoder descs carry (see "hooks" in blocklens.h). */
typedef struct bl_hooks {
    const bl_edit *edits;
    int n_edits, first_layer;
    const float *start;
    int end_layer, logits_last;
} bl_hooks;
/* Checks k against the sizes (messages name the field); *end = the last layer run + 1. */
bl_status bl__check_hooks(bl_error *err, const bl_hooks *k, int n_layers, int L, int n_heads,
                          int *end);
/* Applies, in order, k's edits of (layer, site) to buf: L rows of `width` values, row stride ld
   (HEAD_OUT: head h's columns start at h * width). Returns 1 when any applied. */
int bl__apply_edits(const bl_hooks *k, int layer, bl_site site, float *buf, int L, int width,
                    int ld);
/* The lens of one row of logits (V): its top k ids largest first (ties: the lower id) and their
   softmax probabilities; with rank (and prob) given, target's rank in that order (1 = the top)
   and probability, or 0 and NaN for target -1. Returns -1, or the index of a NaN / infinite
   logit (nothing promised). */
int bl__lens_row(const float *logits, int V, int k, int32_t *ids, float *probs, int32_t target,
                 int32_t *rank, float *prob);
/* Rows of logits the lens keeps at a time. */
#define BL__LENS_ROWS 16
static inline int bl__lens_rows(int L) { return L < BL__LENS_ROWS ? L : BL__LENS_ROWS; }
/* Both decoders' lens argument checks (ws_size: their lens workspace size, 0 = too large;
   weights: the unembedding's pointer, named `wname`; t optional, its targets checked). */
bl_status bl__lens_check(bl_error *err, int L, int D, int V, size_t ws_size, int k, const float *h,
                         const char *wname, const void *weights, const int32_t *ids,
                         const float *probs, const bl_lens_target *t, const float *ws);
/* The unembedding's rows (checked by the caller): from row0 = L - 1 with logits_last, else 0. */
static inline int bl__logits_row0(int logits_last, int L) { return logits_last ? L - 1 : 0; }

/* train.c: the desc check every training entry point makes; backward.c: the ops' backward
   passes (no checks; dx-style outputs are written, except layernorm's dx, which is added to).
   linear:    y (M, N) = x (M, K) @ w (K, N) + b -> dx (M, K), gw (K, N), gb (N) (each optional;
              t: bl__weight_grad_scratch(M, K, N) floats of scratch for gw)
   layernorm: y = LN(x) with the forward's mean, rstd (M) -> dx += , gg, gb (D) written
   act:       dpre (n) = dact * act'(pre) (ungated activations; dpre may equal dact)
   attention: one sequence's causal core, ctx = softmax(q k^T / sqrt(d_k)) v per head, att
              (H, L, L) the forward's weights -> dq, dk, dv (L, D) from dctx (L, D)
   xent:      the mean over rows with targets[i] >= 0 (`scored` of them) of -log softmax(logits
              row)[target]; dlogits (optional, may equal logits) = its gradient. */
bl_status bl__train_check(const bl_train_desc *d, bl_error *err);
/* gw (K, N) = x^T @ dy for x (M, K), dy (M, N), through t (bl__weight_grad_scratch floats) */
void bl__weight_grad(float *gw, const float *x, const float *dy, int M, int K, int N, float *t);
uint64_t bl__weight_grad_scratch(uint64_t M, uint64_t K, uint64_t N);
void bl__linear_backward(float *dx, float *gw, float *gb, const float *x, const float *w,
                         const float *dy, int M, int K, int N, float *t);
void bl__layernorm_backward(float *dx, float *gg, float *gb, const float *dy, const float *x,
                            const float *mean, const float *rstd, const float *gamma, int M,
                            int D);
void bl__act_backward(float *dpre, const float *dact, const float *pre, size_t n,
                      bl_activation act);
void bl__attention_backward(float *dq, float *dk, float *dv, const float *dctx, const float *q,
                            const float *k, const float *v, const float *att, int L, int D,
                            int H);
double bl__xent_backward(float *dlogits, const float *logits, const int32_t *targets, int M,
                         int V, int scored);

#define BL__CHECK(expr) do { bl_status s_ = (expr); if (s_ != BL_OK) return s_; } while (0)

#endif
