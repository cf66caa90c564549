/* blocklens.h - the BlockLens engine: one Transformer block in plain C (native and wasm).

   USAGE
       #include "blocklens.h"
       bl_rng rng;  bl_error err;
       bl_rng_seed(&rng, 42);                        // same stream as numpy's np.random.seed(42)
       float x[7*8], w1[8*32], b1[32], w2[32*8], b2[8];
       bl_rng_normal_f32(&rng, x, 7*8);              // x  = np.random.randn(7, 8)
       ... W1, b1, W2, b2 in the same order ...
       float hidden[7*32], act[7*32], out[7*8];
       bl_ffn_desc d = { .L = 7, .d_model = 8, .d_ff = 32, .activation = BL_ACT_RELU,
                         .x = x, .w1 = w1, .b1 = b1, .w2 = w2, .b2 = b2 };
       bl_ffn_out  o = { .hidden = hidden, .activated = act, .out = out };
       if (bl_ffn_forward(&d, &o, &err) != BL_OK) fprintf(stderr, "%s\n", err.message);

   LAYOUT
       Every matrix is float32, row-major. Tokens are rows: x is (L, d_model).
       A linear layer is y = x @ W + b with W stored (in, out), as in the numpy explanations
       (PyTorch's nn.Linear stores the transpose). Biases may be NULL (= zero). The one
       exception is the Llama-family decoder, which reads a checkpoint's weights as they are:
       nn.Linear's (out, in), in F32, F16 or BF16 (see its section).
       Attention tensors that have a head axis are (heads, L, L) or (heads, L, d_k).

   CONVENTIONS
       - Descriptor structs: a zero field means "the default" (no mask, scaled, post-LN, ...).
       - Output buffers are owned by the caller. Required ones must be non-NULL; optional ones
         (marked "optional") may be NULL and are then not computed at all.
       - Output buffers must not overlap inputs.
       - Nothing allocates, nothing aborts, there is no global state: every call depends only
         on its arguments, so many figures can share one wasm instance.

   ERRORS
       Every entry point returns a bl_status. BL_OK is 0. On failure no output is promised and
       `err` (if not NULL) holds a one-line message naming the bad argument, e.g.
       "d_model (10) must be divisible by n_heads (3)". bl_status_string() names a status.

   LIMITS
       Sizes are ints in [1, BL_MAX_DIM]; every buffer must hold at most BL_MAX_ELEMS floats.
       Larger requests fail with BL_ERR_TOO_LARGE before any memory is touched.
*/
#ifndef BLOCKLENS_H
#define BLOCKLENS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BL_MAX_DIM 65536                /* largest L, d_model, d_ff, heads */
#define BL_MAX_ELEMS (1u << 28)        /* largest buffer, in floats (1 GiB) */
#define BL_ERROR_MESSAGE_SIZE 192

/* ---- status ------------------------------------------------------------------------- */
typedef enum bl_status {
    BL_OK = 0,
    BL_ERR_NULL = 1,        /* a required pointer is NULL */
    BL_ERR_SIZE = 2,        /* a size is zero, negative or above BL_MAX_DIM */
    BL_ERR_SHAPE = 3,       /* sizes disagree (d_model not divisible by n_heads, ...) */
    BL_ERR_TOO_LARGE = 4,   /* a buffer would exceed BL_MAX_ELEMS floats */
    BL_ERR_ACTIVATION = 5,  /* unknown activation, or gated/ungated weights mismatch */
    BL_ERR_VALUE = 6,       /* a scalar argument is out of range (eps <= 0, NaN, ...) */
    BL_ERR_PRESET = 7       /* unknown preset name */
} bl_status;

typedef struct bl_error {
    bl_status status;
    char message[BL_ERROR_MESSAGE_SIZE];
} bl_error;

const char *bl_status_string(bl_status status);

/* ---- numpy-compatible random numbers -------------------------------------------------
   MT19937 seeded as numpy's legacy np.random.seed(seed) (init_genrand), uniform doubles as
   np.random.random_sample (53 bits from two draws), normals as the legacy polar Box-Muller
   np.random.randn, which caches its second value: bit-identical doubles for the same calls.
   A state comes from bl_rng_seed (or is a copy of one): pos in [0, 624]. The fill functions
   refuse any other pos with BL_ERR_VALUE; the single draws treat it as spent and refill. */
typedef struct bl_rng {
    uint32_t mt[624];
    int pos;                    /* next index into mt, 624 = spent */
    int has_gauss;
    double gauss;
} bl_rng;

void bl_rng_seed(bl_rng *rng, uint32_t seed);
uint32_t bl_rng_next_u32(bl_rng *rng);
double bl_rng_uniform(bl_rng *rng);                       /* [0, 1) */
double bl_rng_normal(bl_rng *rng);                        /* N(0, 1) */
bl_status bl_rng_uniform_f64(bl_rng *rng, double *out, size_t n, bl_error *err);
bl_status bl_rng_normal_f64(bl_rng *rng, double *out, size_t n, bl_error *err);
bl_status bl_rng_normal_f32(bl_rng *rng, float *out, size_t n, bl_error *err); /* float(randn) */

/* ---- linear layer --------------------------------------------------------------------- */
/* out (M, N) = x (M, K) @ w (K, N) + b (N) ; b may be NULL */
bl_status bl_linear_forward(float *out, const float *x, const float *w, const float *b,
                            int M, int K, int N, bl_error *err);

/* ---- activations ---------------------------------------------------------------------- */
typedef enum bl_activation {
    BL_ACT_RELU = 0,       /* max(0, x) */
    BL_ACT_GELU = 1,       /* x * Phi(x), exact (erf, through erfc); -0 below x = -13.146 */
    BL_ACT_GELU_TANH = 2,  /* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
    BL_ACT_SILU = 3,       /* x * sigmoid(x) */
    BL_ACT_IDENTITY = 4,   /* x: the two layers collapse into one linear map */
    BL_ACT_SWIGLU = 5,     /* gated: silu(x @ Wg) * (x @ Wu) */
    BL_ACT_GEGLU = 6,      /* gated: gelu(x @ Wg) * (x @ Wu) */
    BL_ACT_COUNT = 7
} bl_activation;

const char *bl_activation_name(bl_activation act);        /* "relu", ..., NULL if unknown */
int bl_activation_is_gated(bl_activation act);
/* out[i] = act(x[i]) elementwise for the ungated activations (gated ones apply their gate
   function: silu for SwiGLU, gelu for GeGLU). out may equal x. */
bl_status bl_activation_apply(float *out, const float *x, size_t n, bl_activation act,
                              bl_error *err);

/* ---- feed-forward network --------------------------------------------------------------
   ungated:  hidden = x @ W1 + b1 ; activated = act(hidden) ; out = activated @ W2 + b2
   gated:    hidden = x @ W1 + b1 (the gate) ; up = x @ W3 + b3 ;
             activated = act(hidden) * up ; out = activated @ W2 + b2
   (W1 = W_gate, W3 = W_up, W2 = W_down in Llama's naming). */
typedef struct bl_ffn_desc {
    int L, d_model, d_ff;
    bl_activation activation;
    const float *x;             /* (L, d_model) */
    const float *w1, *b1;       /* (d_model, d_ff), (d_ff) */
    const float *w3, *b3;       /* gated only: (d_model, d_ff), (d_ff); must be NULL otherwise */
    const float *w2, *b2;       /* (d_ff, d_model), (d_model) */
} bl_ffn_desc;

typedef struct bl_ffn_out {
    float *hidden;              /* (L, d_ff)    optional: pre-activation (the gate if gated) */
    float *up;                  /* (L, d_ff)    gated only, required there */
    float *activated;           /* (L, d_ff)    required */
    float *out;                 /* (L, d_model) required */
} bl_ffn_out;

bl_status bl_ffn_forward(const bl_ffn_desc *desc, const bl_ffn_out *out, bl_error *err);

/* ---- mixture of experts ----------------------------------------------------------------
   A sparse FFN as in Mixtral: a router sends each token to top_k of n_experts FFNs.
   logits     = x @ Wr                       (L, n_experts); Wr (d_model, n_experts), no bias
   top_index  = per token the top_k experts by logit, largest first; equal logits: the lower
                expert index first                                           (L, top_k)
   top_weight = softmax over those top_k logits only                         (L, top_k)
   out[i]     = sum over k of top_weight[i,k] * FFN_e(x[i]), e = top_index[i,k]  (L, d_model)
   probs      = softmax over all n_experts logits (what a figure shows; out does not use it)
   Each expert is an FFN exactly as bl_ffn_forward computes it (ungated, or gated with W1 the
   gate, W3 the up projection, W2 the down projection), its weights stacked on a leading
   expert axis: expert e's W1 is w1 + e * d_model * d_ff. Each expert runs once, on the tokens
   routed to it (gathered into the workspace), and its output is added back weighted. */
#define BL_MOE_MAX_EXPERTS 64

typedef struct bl_moe_desc {
    int L, d_model, d_ff;       /* d_ff per expert */
    int n_experts;              /* 1..BL_MOE_MAX_EXPERTS */
    int top_k;                  /* 1..n_experts: experts per token */
    bl_activation activation;
    const float *x;             /* (L, d_model) */
    const float *wr;            /* (d_model, n_experts) the router */
    const float *w1, *b1;       /* (n_experts, d_model, d_ff), (n_experts, d_ff) */
    const float *w3, *b3;       /* gated only: as w1, b1; must be NULL otherwise */
    const float *w2, *b2;       /* (n_experts, d_ff, d_model), (n_experts, d_model) */
} bl_moe_desc;

typedef struct bl_moe_out {
    float *logits;              /* (L, n_experts) optional (needs more workspace when NULL) */
    float *probs;               /* (L, n_experts) optional: softmax over every expert */
    int32_t *top_index;         /* (L, top_k)     required */
    float *top_weight;          /* (L, top_k)     required */
    int32_t *load;              /* (n_experts)    optional: tokens routed to each expert */
    float *out;                 /* (L, d_model)   required */
} bl_moe_out;

/* Floats of scratch that bl_moe_forward needs for these outputs (0 when the sizes are refused):
   L * (2 d_model + d_ff), plus L * d_ff when gated, plus L * n_experts without logits. */
size_t bl_moe_workspace_size(const bl_moe_desc *desc, const bl_moe_out *out);
bl_status bl_moe_forward(const bl_moe_desc *desc, const bl_moe_out *out, float *workspace,
                         bl_error *err);

/* ---- multi-head self-attention ---------------------------------------------------------
   q = x Wq + bq, k = x Wk + bk, v = x Wv + bv                           (L, d_model) each
   head h uses columns [h*d_k, (h+1)*d_k) with d_k = d_model / n_heads
   scores[h]  = q_h k_h^T                  raw dot products, unscaled and unmasked (L, L)
   weights[h] = softmax(scores[h] * s + mask) with s = 1/sqrt(d_k) (or 1 if no_scale)
                masked entries get weight 0; a row with every key masked is all zeros
   context[h] = weights[h] v_h                                          (L, d_k)
   concat     = the heads side by side: concat[i, h*d_k + c] = context[h][i, c]  (L, d_model)
   out        = concat Wo + bo                                          (L, d_model) */
typedef struct bl_attention_desc {
    int L, d_model, n_heads;
    int causal;                       /* 1: query i sees keys j <= i (GPT); 0: all (BERT) */
    int no_scale;                     /* 1: skip the 1/sqrt(d_k) scaling (saturation demo) */
    const unsigned char *key_mask;    /* (L) optional: 0 = padding key nobody may attend to */
    const float *x;                   /* (L, d_model) */
    const float *wq, *bq, *wk, *bk, *wv, *bv, *wo, *bo; /* W (d_model, d_model), b (d_model) */
} bl_attention_desc;

typedef struct bl_attention_out {
    float *q, *k, *v;           /* (L, d_model) each, required */
    float *scores;              /* (n_heads, L, L) optional */
    float *weights;             /* (n_heads, L, L) optional (needs workspace when NULL) */
    float *context;             /* (n_heads, L, d_k) optional */
    float *concat;              /* (L, d_model) required */
    float *out;                 /* (L, d_model) required */
} bl_attention_out;

/* Floats of scratch that bl_attention_forward needs for these outputs (0 when weights given). */
size_t bl_attention_workspace_size(const bl_attention_desc *desc, const bl_attention_out *out);
bl_status bl_attention_forward(const bl_attention_desc *desc, const bl_attention_out *out,
                               float *workspace, bl_error *err);

/* ---- normalisation ---------------------------------------------------------------------
   layer norm: per token (row), over its d features:   out = (x - mean) * rstd * gamma + beta
   rms norm:   per token, no centering:                out = x * rstd * gamma, rstd = 1/sqrt(mean(x^2)+eps)
   batch norm: per feature (column), over the L tokens (training-mode statistics, biased
               variance): the "which axis" contrast with layer norm.
   mean / rstd are optional; gamma / beta may be NULL (= 1 / 0). eps must be > 0 and finite. */
bl_status bl_layernorm_forward(float *out, float *mean, float *rstd, const float *x,
                               const float *gamma, const float *beta, int L, int d, float eps,
                               bl_error *err);       /* mean, rstd: (L) */
bl_status bl_rmsnorm_forward(float *out, float *rstd, const float *x, const float *gamma,
                             int L, int d, float eps, bl_error *err);           /* rstd: (L) */
bl_status bl_batchnorm_forward(float *out, float *mean, float *rstd, const float *x,
                               const float *gamma, const float *beta, int L, int d, float eps,
                               bl_error *err);       /* mean, rstd: (d) */

/* ---- one encoder block -----------------------------------------------------------------
   post-LN (original Transformer, BERT):          pre-LN (GPT-2 and later):
     resid1 = x + Attn(x)                           norm1  = LN1(x)
     norm1  = LN1(resid1)                           resid1 = x + Attn(norm1)
     resid2 = norm1 + FFN(norm1)                    norm2  = LN2(resid1)
     norm2  = LN2(resid2)                           resid2 = resid1 + FFN(norm2)
     out    = norm2                                 out    = resid2
   The attention and FFN intermediates land in attn / ffn as for the single calls. */
typedef struct bl_block_desc {
    int L, d_model, n_heads, d_ff;
    bl_activation activation;
    int pre_ln;                       /* 0: post-LN (default), 1: pre-LN */
    int causal, no_scale;
    const unsigned char *key_mask;    /* (L) optional */
    float eps;                        /* layer norm eps; 0 means 1e-5 */
    const float *x;                   /* (L, d_model) */
    const float *wq, *bq, *wk, *bk, *wv, *bv, *wo, *bo;
    const float *ln1_gamma, *ln1_beta, *ln2_gamma, *ln2_beta;   /* (d_model) each */
    const float *w1, *b1, *w3, *b3, *w2, *b2;                    /* as in bl_ffn_desc */
} bl_block_desc;

typedef struct bl_block_out {
    bl_attention_out attn;
    bl_ffn_out ffn;
    float *resid1, *norm1, *resid2, *norm2;   /* (L, d_model) each, required */
    float *out;                               /* (L, d_model) required */
} bl_block_out;

size_t bl_block_workspace_size(const bl_block_desc *desc, const bl_block_out *out);
bl_status bl_block_forward(const bl_block_desc *desc, const bl_block_out *out,
                           float *workspace, bl_error *err);

/* ---- hooks: editing a decoder's forward -----------------------------------------------
   Both decoders (bl_decoder_forward, bl_llama_forward) take the same three hooks in their desc;
   all zero (the default) is the plain forward.
   - edits / n_edits: values replaced inside the forward. Each edit names a layer, a site and a
     row (a token, or -1 for every row); its values (width, or (L, width) when row is -1; NULL =
     zeros) overwrite the site right after it is computed, before anything reads it, so the kept
     intermediates show the edited values. Several edits of one site apply in array order.
   - first_layer / start: start (L, d_model) is the residual stream entering block first_layer
     (with first_layer 0 it replaces the embeddings; out->embed still gets them); the blocks
     before it are not run (their layer outputs are not touched). start NULL with first_layer 0:
     from the embeddings. start is required when first_layer > 0. ids are read (and checked)
     either way.
   - end_layer: 0 runs every block; else blocks [first_layer, end_layer) only, and the final norm
     and unembedding are skipped: out->logits may be NULL and out->hidden is not written.
   - logits_last: 0 unembeds every row (out->logits (L, vocab)); 1 only the last row: out->logits
     is (1, vocab), bit for bit the last row of the full call (a sweep that reads only the next
     token's distribution skips (L - 1) x vocab x d_model multiply-adds). out->hidden still
     gets every row. Any other value is refused.
   Sites and their widths (Q = n_heads * head_dim, the GPT-2 decoder's head_dim d_model/n_heads):
     BL_SITE_RESID_IN    h entering the layer (L, d_model); the layer out's x shows it edited
     BL_SITE_ATTN_IN     norm1, attention's input (L, d_model)
     BL_SITE_HEAD_OUT    one head's context (L, head_dim), before the concat meets o_proj
                         (edit.head picks it); the kept context and concat show it
     BL_SITE_ATTN_OUT    after o_proj, bias included (L, d_model)
     BL_SITE_RESID_MID   resid1 (L, d_model)
     BL_SITE_FFN_IN      norm2, the FFN's input (L, d_model)
     BL_SITE_FFN_HIDDEN  activated (L, d_ff): act(x W1 + b1), Llama's silu(gate) * up
     BL_SITE_FFN_OUT     after the down projection, bias included (L, d_model)
   Zeroing every head of a layer leaves attn_out = bo (o_proj's bias; 0 when it has none), not 0:
   zero BL_SITE_ATTN_OUT to remove the sublayer. Zeroing FFN_OUT makes resid2 equal resid1.
   Errors name the edit: "edits[2].layer (9) must be in [first_layer 0, end_layer 4)",
   "edits[0].head (12) must be in [0, n_heads 12)", "edits[1].row (7) must be -1 (every row)
   or in [0, L 7)", "start must not be NULL when first_layer (3) is above 0".

   Logit lens: bl_decoder_lens / bl_llama_lens take a residual stream h (L, d_model) (a layer
   out's x or resid2, or out->embed) through the decoder's final norm and unembedding, exactly
   as the forward's logits, then the softmax over the vocabulary, and give per row the top k:
   ids (L, k) largest probability first (equal logits: the lower id first) and their probs
   (L, k). Logits live only for one block of rows in the workspace (..._lens_workspace_size).
   With target (optional, NULL: none; or its targets NULL) it also gives, per row i, the rank
   of token targets[i] in the same order (1 = the top: ids[i * k] when k >= 1) and its softmax
   probability, from the same logits; targets[i] = -1 gives rank 0 and prob NaN. A target
   outside [-1, vocab) is refused: "targets[3] (50257) must be -1 (none) or in [0, vocab ...)". */
typedef struct bl_lens_target {
    const int32_t *targets;           /* (L) each -1 (none) or in [0, vocab); NULL: no ranks */
    int32_t *rank;                    /* (L) required with targets */
    float *prob;                      /* (L) required with targets */
} bl_lens_target;
typedef enum bl_site {
    BL_SITE_RESID_IN, BL_SITE_ATTN_IN, BL_SITE_HEAD_OUT, BL_SITE_ATTN_OUT, BL_SITE_RESID_MID,
    BL_SITE_FFN_IN, BL_SITE_FFN_HIDDEN, BL_SITE_FFN_OUT, BL_SITE_COUNT
} bl_site;

typedef struct bl_edit {
    int layer;                  /* in [first_layer, end_layer) */
    bl_site site;
    int head;                   /* BL_SITE_HEAD_OUT only: in [0, n_heads); ignored otherwise */
    int row;                    /* -1: every row, values (L, width); else in [0, L), values (width) */
    const float *values;        /* NULL = zeros */
} bl_edit;

/* ---- a whole decoder (GPT-2) -----------------------------------------------------------
   Token ids in, next-token logits out, through n_layers pre-LN causal blocks:
     h      = wte[ids] + wpe[0:L]                                        (L, d_model)
     layer: norm1 = LN1(h) ; resid1 = h + Attn(norm1)  (causal, scaled by 1/sqrt(d_k))
            norm2 = LN2(resid1) ; resid2 = resid1 + FFN(norm2) ; h = resid2
     hidden = LN_f(h) ; logits = hidden @ wte^T            (tied unembedding) (L, vocab)
   Each layer is bl_block_forward with pre_ln = 1, causal = 1; all layer norms share eps.
   Weights are GPT-2's (its Conv1D stores (in, out) already); c_attn (d, 3d) splits into
   wq, wk, wv = its column blocks [0, d), [d, 2d), [2d, 2d + d). Only ungated activations.
   Usage:
       bl_decoder_desc d = { .n_layers = 2, .d_model = 64, .n_heads = 4, .d_ff = 256,
                             .vocab = 3555, .n_positions = 64, .activation = BL_ACT_RELU,
                             .L = L, .ids = ids, .wte = wte, .wpe = wpe, .layers = layers,
                             .lnf_gamma = g, .lnf_beta = b };
       float *ws = malloc(bl_decoder_workspace_size(&d) * sizeof(float));
       bl_decoder_layer_out keep1 = { .weights = w1 };            // layer 1's attention only
       bl_decoder_layer_out *keep[2] = { NULL, &keep1 };
       bl_decoder_out o = { .logits = logits, .layers = keep };
       bl_decoder_forward(&d, &o, ws, &err);
   Errors name the argument: "ids[3] (5000) must be in [0, vocab 3555)", "layers[1].wq must
   not be NULL", "L (80) must be at most n_positions (64)" (BL_ERR_SHAPE). */
typedef struct bl_decoder_layer {
    const float *ln1_gamma, *ln1_beta;        /* (d_model) each; NULL = 1 / 0 */
    const float *wq, *bq, *wk, *bk, *wv, *bv; /* attn.c_attn split: W (d_model, d_model), b (d_model) */
    const float *wo, *bo;                     /* attn.c_proj: (d_model, d_model), (d_model) */
    const float *ln2_gamma, *ln2_beta;        /* (d_model) each */
    const float *w1, *b1;                     /* mlp.c_fc: (d_model, d_ff), (d_ff) */
    const float *w2, *b2;                     /* mlp.c_proj: (d_ff, d_model), (d_model) */
} bl_decoder_layer;

typedef struct bl_decoder_desc {
    int n_layers, d_model, n_heads, d_ff;
    int vocab, n_positions;           /* rows of wte and wpe */
    bl_activation activation;         /* relu, gelu, gelu_tanh (GPT-2's "gelu_new"), ... */
    float eps;                        /* every layer norm's eps; 0 means 1e-5 */
    int L;                            /* tokens, at most n_positions */
    const int32_t *ids;               /* (L) each in [0, vocab) */
    const float *wte;                 /* (vocab, d_model): embedding and unembedding */
    const float *wpe;                 /* (n_positions, d_model) */
    const bl_decoder_layer *layers;   /* (n_layers) */
    const float *lnf_gamma, *lnf_beta;/* (d_model) each; NULL = 1 / 0 */
    const bl_edit *edits;             /* (n_edits) optional: see "hooks" */
    int n_edits;
    int first_layer;                  /* 0 = from the embeddings */
    const float *start;               /* (L, d_model) the residual entering first_layer */
    int end_layer;                    /* 0 = n_layers; else stop there, no unembedding */
    int logits_last;                  /* 1: logits of the last row only (1, vocab); see "hooks" */
} bl_decoder_desc;

/* One layer's intermediates, named as in bl_block_out; every field optional: NULL ones are not kept. */
typedef struct bl_decoder_layer_out {
    float *norm1;                     /* (L, d_model) */
    float *q, *k, *v;                 /* (L, d_model) each */
    float *scores, *weights;          /* (n_heads, L, L) each, as bl_attention_out */
    float *context;                   /* (n_heads, L, d_k) */
    float *concat;                    /* (L, d_model) */
    float *attn_out;                  /* (L, d_model) after wo */
    float *resid1, *norm2;            /* (L, d_model) each */
    float *hidden, *activated;        /* (L, d_ff) each: FFN pre- and post-activation */
    float *ffn_out, *resid2;          /* (L, d_model) each */
    float *x;                         /* (L, d_model) the residual entering the layer (edited) */
} bl_decoder_layer_out;

typedef struct bl_decoder_out {
    float *logits;                    /* (L, vocab), (1, vocab) with logits_last; required unless
                                         end_layer is set */
    float *embed;                     /* (L, d_model) optional: wte[ids] + wpe[0:L] */
    float *hidden;                    /* (L, d_model) optional: LN_f(h), before the unembedding */
    bl_decoder_layer_out *const *layers; /* (n_layers) optional; layers[l] NULL: keep nothing */
} bl_decoder_out;

/* Floats of scratch bl_decoder_forward needs (the sizes only; required, whatever is kept);
   0 when the sizes are invalid or it would exceed BL_MAX_ELEMS. */
size_t bl_decoder_workspace_size(const bl_decoder_desc *desc);
bl_status bl_decoder_forward(const bl_decoder_desc *desc, const bl_decoder_out *out,
                             float *workspace, bl_error *err);
/* The logit lens (see "hooks"): h (L, d_model) -> ids (L, k), probs (L, k), k in [1, vocab];
   target optional (ranks and probabilities of given tokens). The hooks fields of desc are not
   read; ids are not needed (may be NULL). */
size_t bl_decoder_lens_workspace_size(const bl_decoder_desc *desc);
bl_status bl_decoder_lens(const bl_decoder_desc *desc, const float *h, int k, int32_t *ids,
                          float *probs, const bl_lens_target *target, float *workspace,
                          bl_error *err);

/* ---- a Llama-family decoder (Llama, Mistral, Qwen2, Qwen3) ----------------------------
   As Hugging Face transformers' LlamaForCausalLM (and Mistral-, Qwen2-, Qwen3ForCausalLM)
   compute it in float32. Weights stay in the checkpoint's dtype and nn.Linear's layout: a
   projection W is (out, in) and y = x @ W^T + b. Every weight pointer below is of `dtype`
   (F32, F16 or BF16), up-cast exactly to float32 where it is read; activations are float32.
   With Q = n_heads * head_dim, KV = n_kv_heads * head_dim, rms(x, g) = x / sqrt(mean(x^2) + eps) * g:
     h      = embed[ids]                                                      (L, d_model)
     layer: norm1 = rms(h, attn_norm)                      rstd1 (L) = 1 / sqrt(mean(h^2) + eps)
            q = norm1 Wq^T + bq (L, Q) ; k = norm1 Wk^T + bk, v = norm1 Wv^T + bv (L, KV)
            Qwen3: q, k = rms over each head's head_dim values, weight q_norm / k_norm (head_dim)
            q_rot, k_rot = RoPE(q), RoPE(k): HF's rotate_half, value c of a head (c < head_dim/2)
              paired with c + head_dim/2, angle pos * inv_freq[c], inv_freq[c] = theta^(-2c/head_dim)
              (rescaled per frequency when rope_type is BL_ROPE_LLAMA3, as HF's "llama3")
            query head h reads kv head g = h / (n_heads / n_kv_heads)     (grouped-query)
            scores[h]  = q_rot_h k_rot_g^T       raw, unscaled and unmasked  (n_heads, L, L)
            weights[h] = causal softmax(scores[h] / sqrt(head_dim))         (n_heads, L, L)
            context[h] = weights[h] v_g (L, head_dim) ; concat (L, Q) = the heads side by side
            attn_out = concat Wo^T + bo ; resid1 = h + attn_out             (L, d_model)
            norm2 = rms(resid1, ffn_norm) ; gate = norm2 Wg^T + bg, up = norm2 Wu^T + bu (L, d_ff)
            activated = silu(gate) * up ; ffn_out = activated Wd^T + bd ; resid2 = resid1 + ffn_out
            h = resid2
     hidden = rms(h, final_norm) ; logits = hidden lm_head^T (lm_head NULL: embed, tied) (L, vocab)
   Usage (HF names -> fields: model.embed_tokens.weight -> embed, layers.N.self_attn.q_proj ->
   layers[N].wq / bq, .o_proj -> wo, .q_norm -> q_norm, .input_layernorm -> attn_norm,
   .post_attention_layernorm -> ffn_norm, .mlp.gate_proj / up_proj / down_proj -> w_gate / w_up /
   w_down, model.norm -> final_norm, lm_head.weight -> lm_head):
       bl_llama_desc d = { .n_layers = 16, .d_model = 2048, .n_heads = 32, .n_kv_heads = 8,
                           .head_dim = 64, .d_ff = 8192, .vocab = 128256, .eps = 1e-5f,
                           .dtype = BL_DTYPE_BF16, .rope_theta = 500000.0f,
                           .rope_type = BL_ROPE_LLAMA3, .rope_factor = 32.0f,
                           .rope_low_freq_factor = 1.0f, .rope_high_freq_factor = 4.0f,
                           .rope_original_max_positions = 8192, .L = L, .ids = ids,
                           .embed = embed, .layers = layers, .final_norm = norm };
       float *ws = malloc(bl_llama_workspace_size(&d) * sizeof(float));
       bl_llama_out o = { .logits = logits };
       bl_llama_forward(&d, &o, ws, &err);
   Errors name the argument: "ids[2] (70000) must be in [0, vocab 64)", "n_heads (6) must be
   divisible by n_kv_heads (4)", "head_dim (7) must be even (RoPE pairs its values)",
   "layers[1].w_up must not be NULL", "dtype (7) is not one of 0..2", "L (9000) must be at most
   max_positions (8192)". */
typedef enum bl_dtype {
    BL_DTYPE_F32 = 0,   /* float32 */
    BL_DTYPE_F16 = 1,   /* IEEE half */
    BL_DTYPE_BF16 = 2,  /* bfloat16: the top 16 bits of a float32 */
    BL_DTYPE_COUNT = 3
} bl_dtype;

typedef enum bl_rope_type {
    BL_ROPE_DEFAULT = 0,  /* inv_freq[c] = theta^(-2c/head_dim) */
    BL_ROPE_LLAMA3 = 1    /* HF's rope_type "llama3": wavelengths above original/low_freq_factor
                             divided by factor, below original/high_freq_factor kept, smoothed
                             in between */
} bl_rope_type;

typedef struct bl_llama_layer {          /* every pointer of the desc's dtype; Q, KV as above */
    const void *attn_norm;              /* input_layernorm (d_model); NULL = 1 */
    const void *wq, *bq;                /* q_proj (Q, d_model), (Q); bq NULL = none */
    const void *wk, *bk;                /* k_proj (KV, d_model), (KV) */
    const void *wv, *bv;                /* v_proj (KV, d_model), (KV) */
    const void *q_norm, *k_norm;        /* Qwen3 (head_dim) each; NULL = no q / k norm */
    const void *wo, *bo;                /* o_proj (d_model, Q), (d_model) */
    const void *ffn_norm;               /* post_attention_layernorm (d_model); NULL = 1 */
    const void *w_gate, *b_gate;        /* gate_proj (d_ff, d_model), (d_ff) */
    const void *w_up, *b_up;            /* up_proj (d_ff, d_model), (d_ff) */
    const void *w_down, *b_down;        /* down_proj (d_model, d_ff), (d_model) */
} bl_llama_layer;

typedef struct bl_llama_desc {
    int n_layers, d_model, n_heads;
    int n_kv_heads;                     /* 0 = n_heads; must divide n_heads */
    int head_dim;                       /* 0 = d_model / n_heads; even */
    int d_ff;                           /* intermediate_size */
    int vocab;                          /* rows of embed and lm_head, 1..BL_MAX_ELEMS */
    int max_positions;                  /* 0 = no limit; else L must be at most it */
    float eps;                          /* rms_norm_eps of every norm; 0 means 1e-6 */
    bl_dtype dtype;                     /* of every weight: F32 (0, the default), F16, BF16 */
    float rope_theta;                   /* 0 means 10000; else >= 1 */
    bl_rope_type rope_type;
    float rope_factor;                  /* llama3: factor (>= 1, as HF checks it) */
    float rope_low_freq_factor;         /* llama3: low_freq_factor (> 0) */
    float rope_high_freq_factor;        /* llama3: high_freq_factor (> low_freq_factor) */
    int rope_original_max_positions;    /* llama3: original_max_position_embeddings (>= 1) */
    int L;                              /* tokens */
    const int32_t *ids;                 /* (L) each in [0, vocab) */
    const void *embed;                  /* embed_tokens (vocab, d_model) */
    const bl_llama_layer *layers;       /* (n_layers) */
    const void *final_norm;             /* model.norm (d_model); NULL = 1 */
    const void *lm_head;                /* (vocab, d_model); NULL = embed (tied) */
    const bl_edit *edits;               /* (n_edits) optional: see "hooks" */
    int n_edits;
    int first_layer;                    /* 0 = from the embeddings */
    const float *start;                 /* (L, d_model) float32: the residual entering first_layer */
    int end_layer;                      /* 0 = n_layers; else stop there, no unembedding */
    int logits_last;                    /* 1: logits of the last row only (1, vocab); see "hooks" */
    int weights_finite;                 /* 1: no F16 weight is an infinity or a NaN (the caller
                                           has checked, as BlockLens.loadModel does), so the F16
                                           one-row kernel skips its watch for them (~11% faster);
                                           such a weight then gives wrong finite values. 0: the
                                           kernels watch; other dtypes ignore it */
} bl_llama_desc;

/* One layer's intermediates; every field optional: NULL ones are not kept. Q, KV as above. */
typedef struct bl_llama_layer_out {
    float *norm1, *rstd1;               /* (L, d_model), (L) */
    float *q;                           /* (L, Q) after bias and q_norm, before RoPE */
    float *k, *v;                       /* (L, KV) each; k after bias and k_norm, before RoPE */
    float *q_rot;                       /* (L, Q) after RoPE */
    float *k_rot;                       /* (L, KV) after RoPE */
    float *scores, *weights;            /* (n_heads, L, L) each */
    float *context;                     /* (n_heads, L, head_dim) */
    float *concat;                      /* (L, Q) */
    float *attn_out, *resid1;           /* (L, d_model) each */
    float *norm2, *rstd2;               /* (L, d_model), (L) */
    float *gate, *up, *activated;       /* (L, d_ff) each */
    float *ffn_out, *resid2;            /* (L, d_model) each */
    float *x;                           /* (L, d_model) the residual entering the layer (edited) */
} bl_llama_layer_out;

typedef struct bl_llama_out {
    float *logits;                      /* (L, vocab), (1, vocab) with logits_last; required
                                           unless end_layer is set */
    float *embed;                       /* (L, d_model) optional: embed[ids] */
    float *hidden;                      /* (L, d_model) optional: after final_norm */
    bl_llama_layer_out *const *layers;  /* (n_layers) optional; layers[l] NULL: keep nothing */
} bl_llama_out;

/* Floats of scratch bl_llama_forward needs (the sizes only, whatever is kept); 0 when the
   sizes are refused. */
size_t bl_llama_workspace_size(const bl_llama_desc *desc);
bl_status bl_llama_forward(const bl_llama_desc *desc, const bl_llama_out *out, float *workspace,
                           bl_error *err);
/* The logit lens (see "hooks"): h (L, d_model) -> ids (L, k), probs (L, k), k in [1, vocab];
   target optional (ranks and probabilities of given tokens). */
size_t bl_llama_lens_workspace_size(const bl_llama_desc *desc);
bl_status bl_llama_lens(const bl_llama_desc *desc, const float *h, int k, int32_t *ids,
                        float *probs, const bl_lens_target *target, float *workspace,
                        bl_error *err);

/* ---- training a GPT-2 decoder ---------------------------------------------------------
   The decoder of bl_decoder_forward (pre-LN, causal, tied embeddings; relu, gelu or gelu_tanh)
   trained on batch sequences of L tokens. Every parameter lives in one flat float buffer, and
   the gradients and AdamW's two moments in buffers of the same layout, bl_train_param_count
   floats each. The layout is HF GPT-2's tensor order, c_attn split into its three column blocks
   (the decoder's wq, wk, wv), so each part is one contiguous (in, out) matrix or vector:
     wte (vocab, d_model), wpe (n_positions, d_model),
     per layer: ln_1 gamma, beta (d_model) ; wq, wk, wv (d_model, d_model) ; bq, bk, bv (d_model:
       together c_attn.bias) ; wo, bo (attn.c_proj) ; ln_2 gamma, beta ; w1 (d_model, d_ff),
       b1 (d_ff) (mlp.c_fc) ; w2 (d_ff, d_model), b2 (d_model) (mlp.c_proj),
     then ln_f gamma, beta (d_model).
   bl_train_param_offset(d, layer, part) gives a part's first float (layer -1 for wte, wpe and
   ln_f; 0..n_layers-1 for the others), bl_train_param_size its length: a bl_decoder_desc can
   point into the buffer directly. tokens is (batch, L + 1) int32: the inputs are columns 0..L-1,
   the targets columns 1..L; -1 marks no token (padding): an input -1 reads as id 0, a target
   -1 is not scored. The loss is the mean cross-entropy (nats) over the scored targets, as
   torch's F.cross_entropy(ignore_index=-1); the gradients are of that mean.
       bl_train_desc d = { .n_layers = 2, .d_model = 64, .n_heads = 4, .d_ff = 256,
                           .vocab = 3436, .n_positions = 64, .activation = BL_ACT_RELU,
                           .batch = 8, .L = 64 };
       size_t n = bl_train_param_count(&d);               // params, grads, m, v: n floats each
       float *ws = malloc(bl_train_workspace_size(&d) * sizeof(float));
       bl_adamw_desc opt = { .lr = 3e-3f, .beta1 = 0.9f, .beta2 = 0.95f, .eps = 1e-8f,
                             .weight_decay = 0.01f };
       for (int s = 1; s <= steps; s++) {
           bl_train_grad(&d, params, tokens, grads, &loss, ws, &err);
           bl_clip_grad_norm(grads, n, 1.0f, NULL, &err);
           opt.step = s;
           bl_train_adamw_step(&d, params, grads, m, v, &opt, &err);   // m, v start at zero
       }
   Deterministic: the same inputs give the same bits (one thread, fixed summation orders).
   Errors name the argument: "tokens[2][5] (99) must be -1 (none) or in [0, vocab 13)",
   "tokens has no target to score (every target is -1)", "activation (5) must be relu (0),
   gelu (1) or gelu_tanh (2) for training", "step (0) must be at least 1 (the first step is 1)".
   AdamW is torch.optim.AdamW's update (torch 1.13): p *= 1 - lr wd ; m = b1 m + (1 - b1) g ;
   v = b2 v + (1 - b2) g^2 ; p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps).
   bl_train_adamw_step decays only the matrices (wte, wpe, wq, wk, wv, wo, w1, w2), as
   tools/train/train.py does (its desc is checked whole, batch and L included, but only the
   model's sizes are used); bl_adamw_step applies weight_decay to all n values.
   bl_clip_grad_norm is torch.nn.utils.clip_grad_norm_ (2-norm over all n values): every
   gradient times max_norm / (norm + 1e-6) when that is below 1; *norm (optional) gets the norm
   before clipping; a non-finite norm is BL_ERR_VALUE and leaves grads as they were. */
typedef struct bl_train_desc {
    int n_layers, d_model, n_heads, d_ff;
    int vocab, n_positions;           /* rows of wte and wpe */
    bl_activation activation;         /* BL_ACT_RELU, BL_ACT_GELU or BL_ACT_GELU_TANH */
    float eps;                        /* every layer norm's eps; 0 means 1e-5 */
    int batch;                        /* sequences per call */
    int L;                            /* tokens per sequence (inputs), 1..n_positions */
} bl_train_desc;

typedef enum bl_train_part {          /* the layout's parts, in buffer order */
    BL_TP_WTE, BL_TP_WPE,
    BL_TP_LN1_GAMMA, BL_TP_LN1_BETA, BL_TP_WQ, BL_TP_WK, BL_TP_WV, BL_TP_BQ, BL_TP_BK, BL_TP_BV,
    BL_TP_WO, BL_TP_BO, BL_TP_LN2_GAMMA, BL_TP_LN2_BETA, BL_TP_W1, BL_TP_B1, BL_TP_W2, BL_TP_B2,
    BL_TP_LNF_GAMMA, BL_TP_LNF_BETA, BL_TP_COUNT
} bl_train_part;

typedef struct bl_adamw_desc {
    float lr, beta1, beta2;           /* betas in [0, 1) */
    float eps;                        /* 0 means 1e-8 */
    float weight_decay;               /* decoupled: p *= 1 - lr * weight_decay */
    int step;                         /* this update's number, 1 for the first */
} bl_adamw_desc;

/* Floats of the parameter buffer, of the workspace (0 when the sizes are refused). */
size_t bl_train_param_count(const bl_train_desc *desc);
size_t bl_train_workspace_size(const bl_train_desc *desc);
/* A part's first float and its length ((size_t)-1 and 0 for a bad desc, part or layer). */
size_t bl_train_param_offset(const bl_train_desc *desc, int layer, bl_train_part part);
size_t bl_train_param_size(const bl_train_desc *desc, bl_train_part part);
/* Forward and backward: grads (param count) = d loss / d params; *loss = the mean loss. */
bl_status bl_train_grad(const bl_train_desc *desc, const float *params, const int32_t *tokens,
                        float *grads, float *loss, float *workspace, bl_error *err);
/* The forward only: *loss. */
bl_status bl_train_eval(const bl_train_desc *desc, const float *params, const int32_t *tokens,
                        float *loss, float *workspace, bl_error *err);
bl_status bl_clip_grad_norm(float *grads, size_t n, float max_norm, float *norm, bl_error *err);
bl_status bl_adamw_step(float *params, const float *grads, float *m, float *v, size_t n,
                        const bl_adamw_desc *opt, bl_error *err);
bl_status bl_train_adamw_step(const bl_train_desc *desc, float *params, const float *grads,
                              float *m, float *v, const bl_adamw_desc *opt, bl_error *err);

/* ---- parameter counts ------------------------------------------------------------------
   A pure function of the config: the page's bars and any allocation read the same numbers.
   Encoder / decoder-only stacks use n_layers; an encoder-decoder (the original Transformer)
   adds n_dec_layers decoder layers that also carry cross-attention and a third norm. */
typedef enum bl_norm_kind { BL_NORM_LAYER = 0, BL_NORM_RMS = 1 } bl_norm_kind;
/* Which attention projections carry a bias (bl_model_config.attn_bias; 0 and 1 read as the
   false / true they were before the third value). */
typedef enum bl_attn_bias {
    BL_ATTN_BIAS_NONE = 0,      /* Llama, Mistral */
    BL_ATTN_BIAS_ALL = 1,       /* q, k, v and o (BERT, GPT-2, the 2017 Transformer) */
    BL_ATTN_BIAS_QKV = 2        /* q, k and v only, o without (Qwen2) */
} bl_attn_bias;

typedef struct bl_model_config {
    int64_t vocab;              /* token embedding rows */
    int64_t max_positions;      /* learned position rows (0: sinusoidal / rotary, no weights) */
    int64_t type_vocab;         /* token-type rows (BERT: 2), 0 for none */
    int64_t d_model, n_layers, n_heads;
    int64_t n_kv_heads;         /* 0 = n_heads (multi-head); fewer = grouped-query */
    int64_t d_ff;               /* per expert */
    int gated;                  /* 1: three FFN matrices (SwiGLU/GeGLU) */
    bl_norm_kind norm;          /* layer norm has gamma and beta, rms norm gamma only */
    int attn_bias;              /* a bl_attn_bias: which attention projections carry biases */
    int ffn_bias;               /* the FFN's matrices carry biases */
    int embed_norm;             /* a norm right after the embeddings (BERT) */
    int final_norm;             /* a norm after the last layer (GPT-2, Llama) */
    int lm_head;                /* 1: a separate output projection d_model x vocab (untied) */
    int pooler;                 /* BERT's pooler: d_model x d_model + bias */
    int64_t n_experts, top_k;   /* MoE: n_experts FFNs per layer, top_k active; 0 = dense */
    int64_t n_dec_layers;       /* encoder-decoder only: decoder layers */
} bl_model_config;

typedef struct bl_param_count {
    int64_t embeddings;         /* token + position + type rows */
    int64_t attention;          /* all attention projections (self and cross), with biases */
    int64_t ffn;                /* all FFN matrices and biases, every expert, the routers */
    int64_t norms;              /* every gamma and beta, embedding and final norms included */
    int64_t other;              /* pooler and untied LM head */
    int64_t total;
    int64_t active;             /* used per token: only top_k experts counted */
    int64_t attention_per_layer;/* one self-attention sublayer */
    int64_t ffn_per_layer;      /* one FFN sublayer, all experts and the router */
} bl_param_count;

bl_status bl_config_param_count(const bl_model_config *cfg, bl_param_count *out, bl_error *err);

/* Named presets: "transformer-base", "transformer-big", "bert-base", "gpt2",
   "llama-2-7b", "mixtral-8x7b", "qwen2-0.5b", "poems" (the page's trained model,
   web/models/poems). printed_total is the paper's / model card's figure (rounded where the
   source rounds), 0 if none. */
int bl_preset_count(void);
const char *bl_preset_name(int index);
bl_status bl_preset_config(const char *name, bl_model_config *cfg, int64_t *printed_total,
                           bl_error *err);

#ifdef __cplusplus
}
#endif
#endif /* BLOCKLENS_H */
