/* bench_native.c - times the engine's C natively on one shape, the same calls the wasm bench
   makes: gemm (bl_linear_forward), ffn (bl_ffn_forward, GELU), attn (bl_attention_forward,
   only the required outputs). Prints one JSON line: {"op", "shape", "ms": [per call, per run]}.
   Built with -DBL_BENCH_OPENBLAS (and -lopenblas), "blas-gemm" and "blas-ffn" time the same
   GEMM + bias and FFN (exact GELU) with OpenBLAS's cblas_sgemm instead, the native reference
   of the report (run with OPENBLAS_NUM_THREADS=1, like the single-thread wasm peers).
   usage: bench_native gemm|ffn|attn|blas-gemm|blas-ffn A B C [runs [calls per run]] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <math.h>
#include "blocklens.h"
#ifdef BL_BENCH_OPENBLAS
#include <cblas.h>

/* out (M, N) = x (M, K) @ w (K, N) + b: the bias copied into out, then beta = 1. */
static void blas_linear(float *out, const float *x, const float *w, const float *b, int M, int K, int N) {
    for (int i = 0; i < M; i++) memcpy(out + (size_t)i * N, b, (size_t)N * sizeof *out);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, x, K, w, N, 1.0f, out, N);
}
#endif

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static float *randn(bl_rng *rng, size_t n, float scale) {
    float *p = malloc(n * sizeof *p);
    if (!p) { fprintf(stderr, "out of memory\n"); exit(1); }
    bl_rng_normal_f32(rng, p, n, NULL);
    for (size_t i = 0; i < n; i++) p[i] *= scale;
    return p;
}

int main(int argc, char **argv) {
    if (argc < 5) { fprintf(stderr, "usage: %s gemm|ffn|attn A B C [runs]\n", argv[0]); return 2; }
    const char *op = argv[1];
    int a = atoi(argv[2]), b = atoi(argv[3]), c = atoi(argv[4]);
    int runs = argc > 5 ? atoi(argv[5]) : 7, reps = argc > 6 ? atoi(argv[6]) : 1;
    bl_rng rng;
    bl_error err;
    bl_rng_seed(&rng, 1);
    bl_status s = BL_OK;
    double ms[64];
    if (runs > 64) runs = 64;
    if (runs < 1 || reps < 1) { fprintf(stderr, "runs and calls must be >= 1\n"); return 2; }
    if (!strcmp(op, "gemm")) {            /* (M, K, N) */
        float *x = randn(&rng, (size_t)a * b, 1), *w = randn(&rng, (size_t)b * c, 0.03f);
        float *bias = randn(&rng, c, 1), *out = malloc((size_t)a * c * 4);
        for (int r = -2; r < runs && s == BL_OK; r++) {
            double t0 = now_ms();
            for (int i = 0; i < reps && s == BL_OK; i++) s = bl_linear_forward(out, x, w, bias, a, b, c, &err);
            if (r >= 0) ms[r] = (now_ms() - t0) / reps;
        }
    } else if (!strcmp(op, "ffn")) {      /* (L, d_model, d_ff) */
        int L = a, D = b, F = c;
        bl_ffn_desc d = {.L = L, .d_model = D, .d_ff = F, .activation = BL_ACT_GELU,
                         .x = randn(&rng, (size_t)L * D, 1), .w1 = randn(&rng, (size_t)D * F, 0.03f),
                         .b1 = randn(&rng, F, 1), .w2 = randn(&rng, (size_t)F * D, 0.03f),
                         .b2 = randn(&rng, D, 1)};
        bl_ffn_out o = {.activated = malloc((size_t)L * F * 4), .out = malloc((size_t)L * D * 4)};
        for (int r = -2; r < runs && s == BL_OK; r++) {
            double t0 = now_ms();
            for (int i = 0; i < reps && s == BL_OK; i++) s = bl_ffn_forward(&d, &o, &err);
            if (r >= 0) ms[r] = (now_ms() - t0) / reps;
        }
    } else if (!strcmp(op, "attn")) {     /* (L, d_model, heads) */
        int L = a, D = b, H = c;
        float sc = 0.03f;
        bl_attention_desc d = {.L = L, .d_model = D, .n_heads = H, .x = randn(&rng, (size_t)L * D, 1),
                               .wq = randn(&rng, (size_t)D * D, sc), .bq = randn(&rng, D, 1),
                               .wk = randn(&rng, (size_t)D * D, sc), .bk = randn(&rng, D, 1),
                               .wv = randn(&rng, (size_t)D * D, sc), .bv = randn(&rng, D, 1),
                               .wo = randn(&rng, (size_t)D * D, sc), .bo = randn(&rng, D, 1)};
        size_t n = (size_t)L * D * 4;
        bl_attention_out o = {.q = malloc(n), .k = malloc(n), .v = malloc(n), .concat = malloc(n),
                              .out = malloc(n)};
        float *ws = malloc(bl_attention_workspace_size(&d, &o) * 4 + 4);
        for (int r = -2; r < runs && s == BL_OK; r++) {
            double t0 = now_ms();
            for (int i = 0; i < reps && s == BL_OK; i++) s = bl_attention_forward(&d, &o, ws, &err);
            if (r >= 0) ms[r] = (now_ms() - t0) / reps;
        }
#ifdef BL_BENCH_OPENBLAS
    } else if (!strcmp(op, "blas-gemm")) {
        float *x = randn(&rng, (size_t)a * b, 1), *w = randn(&rng, (size_t)b * c, 0.03f);
        float *bias = randn(&rng, c, 1), *out = malloc((size_t)a * c * 4);
        for (int r = -2; r < runs; r++) {
            double t0 = now_ms();
            for (int i = 0; i < reps; i++) blas_linear(out, x, w, bias, a, b, c);
            if (r >= 0) ms[r] = (now_ms() - t0) / reps;
        }
    } else if (!strcmp(op, "blas-ffn")) {
        int L = a, D = b, F = c;
        float *x = randn(&rng, (size_t)L * D, 1), *w1 = randn(&rng, (size_t)D * F, 0.03f);
        float *b1 = randn(&rng, F, 1), *w2 = randn(&rng, (size_t)F * D, 0.03f), *b2 = randn(&rng, D, 1);
        float *h = malloc((size_t)L * F * 4), *out = malloc((size_t)L * D * 4);
        for (int r = -2; r < runs; r++) {
            double t0 = now_ms();
            for (int i = 0; i < reps; i++) {
                blas_linear(h, x, w1, b1, L, D, F);
                for (size_t j = 0; j < (size_t)L * F; j++) h[j] = 0.5f * h[j] * (1.0f + erff(h[j] * 0.70710678f));
                blas_linear(out, h, w2, b2, L, F, D);
            }
            if (r >= 0) ms[r] = (now_ms() - t0) / reps;
        }
#endif
    } else {
        fprintf(stderr, "unknown op %s\n", op);
        return 2;
    }
    if (s != BL_OK) { fprintf(stderr, "%s\n", err.message); return 1; }
    printf("{\"op\":\"%s\",\"shape\":[%d,%d,%d],\"ms\":[", op, a, b, c);
    for (int r = 0; r < runs; r++) printf("%s%.4f", r ? "," : "", ms[r]);
    printf("]}\n");
    return 0;
}
