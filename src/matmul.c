/* matmul.c - the one hot kernel: out = act(x @ W + b) with W stored (in, out).
   Register-tiled over MR rows x NR columns with 4-wide vectors (GCC/clang vector extensions:
   wasm simd128 under -msimd128, SSE natively, plain scalars for a wasm build without SIMD).
   Bias and activation are applied in the epilogue, so the hidden layer is written once. */
#include <math.h>
#include <string.h>
#include "bl_internal.h"

typedef float v4 __attribute__((vector_size(16)));

#define MR 4        /* rows of x per tile */
#define NR 8        /* columns of W per tile (NR/4 vectors) */
#define NV (NR / 4)

static inline v4 v4_load(const float *p) { v4 v; memcpy(&v, p, sizeof v); return v; }
static inline void v4_store(float *p, v4 v) { memcpy(p, &v, sizeof v); }

float bl__act(float v, bl_activation act) {
    switch (act) {
    case BL_ACT_RELU: return v > 0.0f ? v : 0.0f;
    case BL_ACT_GELU:
    case BL_ACT_GEGLU: return 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
    case BL_ACT_GELU_TANH: {
        const float c = 0.79788456080286536f; /* sqrt(2/pi) */
        return 0.5f * v * (1.0f + tanhf(c * (v + 0.044715f * v * v * v)));
    }
    case BL_ACT_SILU:
    case BL_ACT_SWIGLU: return v / (1.0f + expf(-v));
    case BL_ACT_IDENTITY:
    default: return v;
    }
}

/* Writes a finished tile: pre = acc + b, out = act(pre). */
static void epilogue(float *out, float *pre, const float *b, const float *acc, int rows,
                     int cols, int ldo, int ldacc, bl_activation act) {
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            float v = acc[r * ldacc + c] + (b ? b[c] : 0.0f);
            if (pre) pre[r * ldo + c] = v;
            out[r * ldo + c] = bl__act(v, act);
        }
}

/* Full MR x NR tile: acc = x[0:MR, :] @ w[:, 0:NR]. */
static void tile_full(float acc[MR * NR], const float *x, const float *w, int K, int N) {
    v4 c[MR][NV];
    for (int r = 0; r < MR; r++)
        for (int v = 0; v < NV; v++) c[r][v] = (v4){0, 0, 0, 0};
    for (int k = 0; k < K; k++) {
        v4 wv[NV];
        for (int v = 0; v < NV; v++) wv[v] = v4_load(w + (size_t)k * N + 4 * v);
        for (int r = 0; r < MR; r++) {
            float a = x[(size_t)r * K + k];
            v4 av = {a, a, a, a};
            for (int v = 0; v < NV; v++) c[r][v] += av * wv[v];
        }
    }
    for (int r = 0; r < MR; r++)
        for (int v = 0; v < NV; v++) v4_store(acc + r * NR + 4 * v, c[r][v]);
}

/* Edge tile (rows <= MR, cols <= NR), plain loops. */
static void tile_edge(float acc[MR * NR], const float *x, const float *w, int K, int N,
                      int rows, int cols) {
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            float s = 0.0f;
            for (int k = 0; k < K; k++) s += x[(size_t)r * K + k] * w[(size_t)k * N + c];
            acc[r * NR + c] = s;
        }
}

void bl__matmul_act(float *out, float *pre, const float *x, const float *w, const float *b,
                    int M, int K, int N, bl_activation act) {
    float acc[MR * NR];
    /* Column panels outside, row tiles inside: one K x NR panel of W stays in cache. */
    for (int j0 = 0; j0 < N; j0 += NR) {
        int cols = N - j0 < NR ? N - j0 : NR;
        for (int i0 = 0; i0 < M; i0 += MR) {
            int rows = M - i0 < MR ? M - i0 : MR;
            const float *xt = x + (size_t)i0 * K;
            if (rows == MR && cols == NR) tile_full(acc, xt, w + j0, K, N);
            else tile_edge(acc, xt, w + j0, K, N, rows, cols);
            size_t o = (size_t)i0 * N + j0;
            epilogue(out + o, pre ? pre + o : NULL, b ? b + j0 : NULL, acc, rows, cols, N, NR,
                     act);
        }
    }
}

void bl__matmul(float *out, const float *x, const float *w, const float *b, int M, int K, int N) {
    bl__matmul_act(out, NULL, x, w, b, M, K, N, BL_ACT_IDENTITY);
}

bl_status bl_linear_forward(float *out, const float *x, const float *w, const float *b,
                            int M, int K, int N, bl_error *err) {
    BL__CHECK(bl__check_dim(err, "M", M));
    BL__CHECK(bl__check_dim(err, "K", K));
    BL__CHECK(bl__check_dim(err, "N", N));
    BL__CHECK(bl__check_elems(err, "x", (size_t)M, (size_t)K));
    BL__CHECK(bl__check_elems(err, "w", (size_t)K, (size_t)N));
    BL__CHECK(bl__check_elems(err, "out", (size_t)M, (size_t)N));
    BL__CHECK(bl__check_ptr(err, "out", out));
    BL__CHECK(bl__check_ptr(err, "x", x));
    BL__CHECK(bl__check_ptr(err, "w", w));
    bl__matmul(out, x, w, b, M, K, N);
    bl__ok(err);
    return BL_OK;
}
