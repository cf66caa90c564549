/* backward.c - the backward passes of the ops training uses (declared in bl_internal.h): linear
   layers (with the weight gradient's transpose picked to move the fewest floats), layer norm,
   the ungated activations, one sequence's causal attention core, and softmax cross-entropy.
   No checks: src/train.c calls them with sizes it checked. */
#include <math.h>
#include <string.h>
#include "bl_internal.h"
#include "kernel_simd.h"

/* dst (cols, rows) = src (rows, cols)^T, in 16 x 16 tiles that stay in cache */
static void transpose(float *dst, const float *src, int rows, int cols) {
    for (int i0 = 0; i0 < rows; i0 += 16)
        for (int j0 = 0; j0 < cols; j0 += 16) {
            int i1 = i0 + 16 < rows ? i0 + 16 : rows, j1 = j0 + 16 < cols ? j0 + 16 : cols;
            for (int i = i0; i < i1; i++)
                for (int j = j0; j < j1; j++) dst[(size_t)j * rows + i] = src[(size_t)i * cols + j];
        }
}

/* gw (K, N) = x^T @ dy, x (M, K), dy (M, N), through scratch t; bl__gemm reads A row-major, so
   either x is transposed (M K floats), or gw^T = dy^T @ x is formed and transposed back
   (M N + K N floats): whichever moves less (the unembedding's x, dlogits, is the large one). */
static int via_dy(uint64_t M, uint64_t K, uint64_t N) { return M * N + K * N < M * K; }
uint64_t bl__weight_grad_scratch(uint64_t M, uint64_t K, uint64_t N) {
    return via_dy(M, K, N) ? M * N + K * N : M * K;
}
void bl__weight_grad(float *gw, const float *x, const float *dy, int M, int K, int N,
                     float *t) {
    if (!via_dy((uint64_t)M, (uint64_t)K, (uint64_t)N)) {
        transpose(t, x, M, K);
        bl__gemm(gw, N, NULL, t, M, dy, N, 0, NULL, K, M, N, BL_ACT_IDENTITY);
        return;
    }
    float *gt = t + (size_t)M * N;   /* gw^T (N, K) */
    transpose(t, dy, M, N);
    bl__gemm(gt, K, NULL, t, M, x, K, 0, NULL, N, M, K, BL_ACT_IDENTITY);
    transpose(gw, gt, N, K);
}

void bl__linear_backward(float *dx, float *gw, float *gb, const float *x, const float *w,
                         const float *dy, int M, int K, int N, float *t) {
    if (gw) bl__weight_grad(gw, x, dy, M, K, N, t);
    if (gb) {
        for (int n = 0; n < N; n++) gb[n] = 0.0f;
        for (int i = 0; i < M; i++)
            for (int n = 0; n < N; n++) gb[n] += dy[(size_t)i * N + n];
    }
    /* dx (M, K) = dy (M, N) @ w^T: w (K, N) is the transpose given as (N', K') = (K, N) rows */
    if (dx) bl__gemm(dx, K, NULL, dy, N, w, N, 1, NULL, M, N, K, BL_ACT_IDENTITY);
}

void bl__layernorm_backward(float *dx, float *gg, float *gb, const float *dy, const float *x,
                            const float *mean, const float *rstd, const float *gamma, int M,
                            int D) {
    for (int c = 0; c < D; c++) gg[c] = gb[c] = 0.0f;
    for (int i = 0; i < M; i++) {
        const float *xi = x + (size_t)i * D, *dyi = dy + (size_t)i * D;
        float *dxi = dx + (size_t)i * D, m = mean[i], r = rstd[i];
        double a = 0.0, b = 0.0;   /* mean(dxhat), mean(dxhat * xhat) */
        for (int c = 0; c < D; c++) {
            float xh = (xi[c] - m) * r, g = dyi[c] * (gamma ? gamma[c] : 1.0f);
            a += g;
            b += (double)g * xh;
            gg[c] += dyi[c] * xh;
            gb[c] += dyi[c];
        }
        float fa = (float)(a / D), fb = (float)(b / D);
        for (int c = 0; c < D; c++) {
            float xh = (xi[c] - m) * r, g = dyi[c] * (gamma ? gamma[c] : 1.0f);
            dxi[c] += r * (g - fa - xh * fb);
        }
    }
}

/* act'(x) for the ungated activations, in double (gelu: Phi + x phi) */
static double act_deriv(double x, bl_activation act) {
    switch (act) {
    case BL_ACT_RELU: return x > 0.0 ? 1.0 : 0.0;
    case BL_ACT_GELU: return 0.5 * erfc(-x / 1.4142135623730951) +
                             x * exp(-0.5 * x * x) * 0.3989422804014327;
    case BL_ACT_GELU_TANH: {
        double k = 0.7978845608028654, u = k * (x + 0.044715 * x * x * x), t = tanh(u);
        return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * k * (1.0 + 3.0 * 0.044715 * x * x);
    }
    default: return 1.0;
    }
}

void bl__act_backward(float *dpre, const float *dact, const float *pre, size_t n,
                      bl_activation act) {
    for (size_t i = 0; i < n; i++) dpre[i] = (float)(dact[i] * act_deriv(pre[i], act));
}

void bl__attention_backward(float *dq, float *dk, float *dv, const float *dctx, const float *q,
                            const float *k, const float *v, const float *att, int L, int D,
                            int H) {
    int dk_ = D / H;
    float scale = 1.0f / sqrtf((float)dk_);
    for (size_t i = 0, n = (size_t)L * D; i < n; i++) dq[i] = dk[i] = dv[i] = 0.0f;
    for (int h = 0; h < H; h++) {
        const float *P = att + (size_t)h * L * L;
        size_t o = (size_t)h * dk_;
        for (int i = 0; i < L; i++) {
            const float *pi = P + (size_t)i * L, *gi = dctx + (size_t)i * D + o;
            /* dP[i, j] = dctx_i . v_j ; dS = P (dP - sum P dP) scale ; causal: j <= i */
            double dot = 0.0;
            for (int j = 0; j <= i; j++) {
                const float *vj = v + (size_t)j * D + o;
                float s = 0.0f;
                for (int c = 0; c < dk_; c++) s += gi[c] * vj[c];
                dot += (double)pi[j] * s;
            }
            float fdot = (float)dot;
            const float *qi = q + (size_t)i * D + o;
            float *dqi = dq + (size_t)i * D + o;
            for (int j = 0; j <= i; j++) {
                const float *vj = v + (size_t)j * D + o, *kj = k + (size_t)j * D + o;
                float *dvj = dv + (size_t)j * D + o, *dkj = dk + (size_t)j * D + o;
                float s = 0.0f;
                for (int c = 0; c < dk_; c++) s += gi[c] * vj[c];
                float ds = pi[j] * (s - fdot) * scale;
                for (int c = 0; c < dk_; c++) {
                    dvj[c] += pi[j] * gi[c];
                    dqi[c] += ds * kj[c];
                    dkj[c] += ds * qi[c];
                }
            }
        }
    }
}

double bl__xent_backward(float *dlogits, const float *logits, const int32_t *targets, int M,
                         int V, int scored) {
    double total = 0.0;
    float inv = 1.0f / (float)scored;
    int body = V & ~3;
    for (int i = 0; i < M; i++) {
        const float *li = logits + (size_t)i * V;
        float *di = dlogits ? dlogits + (size_t)i * V : NULL;
        int t = targets[i], j;
        if (t < 0) {
            if (di) memset(di, 0, (size_t)V * sizeof(float));
            continue;
        }
        /* max, then sum of e^(l - max) four lanes at a time (e kept in di for the gradient,
           which may be the logits themselves: the target's logit is read first) */
        float lt = li[t];
        v4 mv = v4_splat(-INFINITY);
        for (j = 0; j < body; j += 4) mv = v4_max(mv, v4_load(li + j));
        float mx = v4_hmax(mv);
        for (; j < V; j++) mx = li[j] > mx ? li[j] : mx;
        v4 sv = v4_splat(0.0f), mm = v4_splat(mx);
        float tail = 0.0f;
        for (j = 0; j < body; j += 4) {
            v4 e = v4_exp(v4_load(li + j) - mm);
            if (di) v4_store(di + j, e);
            sv += e;
        }
        for (; j < V; j++) {
            float e = expf(li[j] - mx);
            if (di) di[j] = e;
            tail += e;
        }
        double sum = (double)v4_hsum(sv) + tail;
        total += log(sum) + mx - lt;   /* NaN or infinite logits make it non-finite */
        if (!di) continue;
        v4 sc = v4_splat((float)(1.0 / sum) * inv);
        for (j = 0; j < body; j += 4) v4_store(di + j, v4_load(di + j) * sc);
        for (; j < V; j++) di[j] *= sc[0];
        di[t] -= inv;
    }
    return total / scored;
}
