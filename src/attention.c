/* attention.c - multi-head self-attention: projections, then per head and block of query
   rows: logits q k^T (one GEMM), a numerically stable masked softmax in place, the weighted
   sum of values (one GEMM) straight into concat, and W_O. Only the (heads, L, L) tensors
   the caller asks for are written; otherwise one block of weights lives in the output. */
#include <math.h>
#include <string.h>
#include "bl_internal.h"
#include "kernel_simd.h"

bl_status bl__attention_check(const bl_attention_desc *d, const bl_attention_out *o,
                              const float *workspace, bl_error *err) {
    BL__CHECK(bl__check_ptr(err, "desc", d));
    BL__CHECK(bl__check_ptr(err, "out", o));
    BL__CHECK(bl__check_dim(err, "L", d->L));
    BL__CHECK(bl__check_dim(err, "d_model", d->d_model));
    BL__CHECK(bl__check_dim(err, "n_heads", d->n_heads));
    if (d->d_model % d->n_heads != 0)
        return bl__fail(err, BL_ERR_SHAPE, "d_model (%d) must be divisible by n_heads (%d)",
                        d->d_model, d->n_heads);
    BL__CHECK(bl__check_elems(err, "x", (uint64_t)d->L, (uint64_t)d->d_model));
    BL__CHECK(bl__check_elems(err, "wq", (uint64_t)d->d_model, (uint64_t)d->d_model));
    BL__CHECK(bl__check_elems(err, "scores", (uint64_t)d->n_heads * (uint64_t)d->L,
                              (uint64_t)d->L));
    BL__CHECK(bl__check_ptr(err, "x", d->x));
    BL__CHECK(bl__check_ptr(err, "wq", d->wq));
    BL__CHECK(bl__check_ptr(err, "wk", d->wk));
    BL__CHECK(bl__check_ptr(err, "wv", d->wv));
    BL__CHECK(bl__check_ptr(err, "wo", d->wo));
    BL__CHECK(bl__check_ptr(err, "q", o->q));
    BL__CHECK(bl__check_ptr(err, "k", o->k));
    BL__CHECK(bl__check_ptr(err, "v", o->v));
    BL__CHECK(bl__check_ptr(err, "concat", o->concat));
    BL__CHECK(bl__check_ptr(err, "out->out", o->out));
    if (!o->weights) BL__CHECK(bl__check_ptr(err, "workspace", workspace));
    return BL_OK;
}

size_t bl_attention_workspace_size(const bl_attention_desc *d, const bl_attention_out *o) {
    if (!d || !o || o->weights || d->L < 1) return 0;
    return (size_t)d->L;    /* one row of logits */
}

/* Query rows per block: the block's logits (QB x L) are one GEMM, its context another. */
#define QB 64

/* The cnt (1..3) values at p as a vector, the other lanes pad; and back. Constant lanes only:
   wasm has no variable-lane insert or extract, and clang's stand-in for v[l] = x (through the
   stack) made a row of 7 take 113 ns instead of 69. */
static inline v4 load_part(const float *p, int cnt, float pad) {
    switch (cnt) {
    case 1: return (v4){p[0], pad, pad, pad};
    case 2: return (v4){p[0], p[1], pad, pad};
    default: return (v4){p[0], p[1], p[2], pad};
    }
}
static inline void store_part(float *p, v4 v, int cnt) {
    switch (cnt) {
    case 3: p[2] = v[2]; /* fall through */
    case 2: p[1] = v[1]; /* fall through */
    default: p[0] = v[0];
    }
}

/* One row of weights: w (L) = masked softmax(s * scale); keys after `last` and keys with
   key_mask 0 get weight 0; a row with nothing visible is all zeros. s may equal w.
   The 1-3 keys after the last whole vector go through one padded vector (pad -inf: weight 0). */
static void softmax_row(float *w, const float *s, int L, int last, const unsigned char *mask,
                        float scale) {
    int n = last + 1, tail = n & 3, body = n - tail, j;
    v4 mv = v4_splat(-INFINITY), vs = v4_splat(scale), ninf = v4_splat(-INFINITY);
    if (mask) {                             /* scaled logits into w, masked keys -inf */
        for (j = 0; j < n; j++) w[j] = mask[j] ? s[j] * scale : -INFINITY;
        s = w;
        vs = v4_splat(1.0f);                /* w holds the scaled logits already */
    }
    /* max(s scale): scale > 0, so the max of the stored products */
    for (j = 0; j < body; j += 4) mv = v4_max(mv, v4_load(s + j) * vs);
    if (tail) mv = v4_max(mv, load_part(s + body, tail, -INFINITY) * vs);
    float m = v4_hmax(mv);
    for (j = n; j < L; j++) w[j] = 0.0f;
    if (m == -INFINITY) {                   /* nothing visible: zeros, not NaN */
        for (j = 0; j < n; j++) w[j] = 0.0f;
        return;
    }
    v4 sv = v4_splat(0.0f), mm = v4_splat(m), e;
    for (j = 0; j < body; j += 4) {         /* e = exp(w - m), exactly 0 where masked */
        v4 v = v4_load(s + j) * vs;
        e = (v4)((v4i)v4_exp(v - mm) & ~(v4i)(v == ninf));
        v4_store(w + j, e);
        sv += e;
    }
    if (tail) {
        v4 v = load_part(s + body, tail, -INFINITY) * vs;
        e = (v4)((v4i)v4_exp(v - mm) & ~(v4i)(v == ninf));
        store_part(w + body, e, tail);
        sv += e;                            /* the padding adds exact zeros */
    }
    v4 vi = v4_splat(1.0f / v4_hsum(sv));
    for (j = 0; j < body; j += 4) v4_store(w + j, v4_load(w + j) * vi);
    if (tail) store_part(w + body, load_part(w + body, tail, 0.0f) * vi, tail);
}

void bl__softmax_row(float *w, const float *s, int L, int last, const unsigned char *mask,
                     float scale) {
    softmax_row(w, s, L, last, mask, scale);
}

/* Self-attention of rows [i0, i0 + rows) of head h. The logits land in scores (if asked),
   the weights in weights (if asked) or in `scratch` (rows x L); context goes to concat. */
static void attend_block(const bl_attention_desc *d, const bl_attention_out *o, int h, int i0,
                         int rows, float *scratch, float scale) {
    int L = d->L, D = d->d_model, dk = D / d->n_heads;
    size_t at = ((size_t)h * L + i0) * L;
    float *w = o->weights ? o->weights + at : scratch;
    float *s = o->scores ? o->scores + at : w;
    /* s (rows, L) = q_h[i0:i0+rows] (rows, dk) @ k_h^T (dk, L) */
    bl__gemm(s, L, NULL, o->q + (size_t)i0 * D + h * dk, D, o->k + h * dk, D, 1, NULL, rows,
             dk, L, BL_ACT_IDENTITY);
    for (int r = 0; r < rows; r++) {
        int i = i0 + r;
        softmax_row(w + (size_t)r * L, s + (size_t)r * L, L, d->causal ? i : L - 1, d->key_mask,
                    scale);
    }
    /* concat[i0:i0+rows, h*dk:(h+1)*dk] = w (rows, L) @ v_h (L, dk) */
    float *ctx = o->concat + (size_t)i0 * D + h * dk;
    bl__gemm(ctx, D, NULL, w, L, o->v + h * dk, D, 0, NULL, rows, L, dk, BL_ACT_IDENTITY);
    if (o->context)
        for (int r = 0; r < rows; r++)
            memcpy(o->context + ((size_t)h * L + i0 + r) * dk, ctx + (size_t)r * D,
                   (size_t)dk * sizeof(float));
}

/* Heads this small (the page's default sizes: L 7, d_k 4) cost more in bl__gemm's packing and
   tiles than in arithmetic, so each query row is done in place: logits (four keys at a time from
   a transposed copy of k_h), softmax, context. Every element sees the same operations in the
   same order as in attend_block's products (k ascending from 0), so results are bit-identical. */
#ifndef BL_SMALL_HEAD
#define BL_SMALL_HEAD 4096      /* L * L * d_k at most, and d_k <= 64: kt below then fits */
#endif
/* In 64 bits: L * L * d_k reaches 2^48, and a 32-bit size_t (wasm32) wraps 8192^2 * 64 to 0. */
int bl__attention_small_head(int L, int d_k) {
    return d_k <= 64 && (uint64_t)L * (uint64_t)L * (uint64_t)d_k <= BL_SMALL_HEAD;
}

static void attend_small(const bl_attention_desc *d, const bl_attention_out *o, int h,
                         float *scratch, float scale) {
    int L = d->L, D = d->d_model, dk = D / d->n_heads, lp = (L + 3) & ~3;
    size_t at = (size_t)h * L * L;
    float kt[BL_SMALL_HEAD + 3 * 64] __attribute__((aligned(16)));   /* kt[c][j], d_k (L + 3) */
    for (int c = 0; c < dk; c++) {
        for (int j = 0; j < L; j++) kt[c * lp + j] = o->k[(size_t)j * D + h * dk + c];
        for (int j = L; j < lp; j++) kt[c * lp + j] = 0.0f;
    }
    const float *vh = o->v + h * dk;
    for (int i = 0; i < L; i++) {
        float *w = o->weights ? o->weights + at + (size_t)i * L : scratch;
        float *s = o->scores ? o->scores + at + (size_t)i * L : w;
        const float *qi = o->q + (size_t)i * D + h * dk;
        for (int j = 0; j < L; j += 4) {
            v4 acc = v4_splat(0.0f);
            for (int c = 0; c < dk; c++) acc = acc + v4_splat(qi[c]) * v4_load(kt + c * lp + j);
            if (L - j >= 4) v4_store(s + j, acc);
            else store_part(s + j, acc, L - j);
        }
        softmax_row(w, s, L, d->causal ? i : L - 1, d->key_mask, scale);
        float *ctx = o->concat + (size_t)i * D + h * dk;
        int c = 0;
        for (; c + 4 <= dk; c += 4) {
            v4 acc = v4_splat(0.0f);
            for (int j = 0; j < L; j++) acc = acc + v4_splat(w[j]) * v4_load(vh + (size_t)j * D + c);
            v4_store(ctx + c, acc);
        }
        for (; c < dk; c++) {
            float acc = 0.0f;
            for (int j = 0; j < L; j++) acc = acc + w[j] * vh[(size_t)j * D + c];
            ctx[c] = acc;
        }
        if (o->context) memcpy(o->context + ((size_t)h * L + i) * dk, ctx, (size_t)dk * sizeof(float));
    }
}

bl_status bl_attention_forward(const bl_attention_desc *d, const bl_attention_out *o,
                               float *workspace, bl_error *err) {
    BL__CHECK(bl__attention_check(d, o, workspace, err));
    int L = d->L, D = d->d_model, H = d->n_heads, dk = D / H;
    float scale = d->no_scale ? 1.0f : 1.0f / sqrtf((float)dk);

    bl__matmul(o->q, d->x, d->wq, d->bq, L, D, D);
    bl__matmul(o->k, d->x, d->wk, d->bk, L, D, D);
    bl__matmul(o->v, d->x, d->wv, d->bv, L, D, D);

    /* Without a weights output, a block's weights live in o->out (L x D floats, written
       only by the final projection): up to D rows of L at a time, so no (L, L) temporary. */
    int qb = o->weights ? QB : (D < QB ? D : QB);
    int small = bl__attention_small_head(L, dk);
    for (int h = 0; h < H; h++) {
        if (small) {
            attend_small(d, o, h, o->out, scale);   /* a row of weights at a time in out */
            continue;
        }
        for (int i0 = 0; i0 < L; i0 += qb)
            attend_block(d, o, h, i0, L - i0 < qb ? L - i0 : qb, o->out, scale);
    }
    bl__matmul(o->out, o->concat, d->wo, d->bo, L, D, D);
    bl__ok(err);
    return BL_OK;
}
