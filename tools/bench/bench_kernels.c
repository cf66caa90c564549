/* bench_kernels.c - the GEMM kernel alone in wasm, for tools/bench/kernels.js: one problem
   (A (M, K) @ B + bias, B F32 (K, N) or F16 / BF16 given transposed (N, K), as checkpoints hold
   it) set up once in the module's heap, then bl__gemm_typed called `reps` times per timed run. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "bl_internal.h"
#include BL_BENCH_MATMUL   /* src/matmul.c itself: its static micro-kernels too, for bk_micro */

static float *a, *bias, *c;
static void *b;
static int gM, gK, gN, gdt, gtrans;   /* gdt: as passed to bl__gemm_typed (3: F16, no watch) */
static bl_dtype data_dt(int dt) { return dt == (int)BL__DTYPE_F16_FINITE ? BL_DTYPE_F16 : (bl_dtype)dt; }

static uint32_t s = 12345;
static float uni(void) { s = s * 1664525u + 1013904223u; return (float)s / 4294967296.0f * 2.0f - 1.0f; }
static uint16_t to16(float f, int dt) {   /* round to nearest-even: F16 for |f| < 1, BF16 */
    uint32_t u;
    memcpy(&u, &f, 4);
    if (dt == BL_DTYPE_BF16) return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
    float m = f < 0 ? -f : f;   /* |f| < 1: exponent in range, normals above 2^-14 */
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    if (m < 0x1p-14f) return sign;
    int e;
    float fr = frexpf(m, &e);   /* m = fr 2^e, fr in [0.5, 1) */
    uint32_t q = (uint32_t)lrintf(fr * 2048.0f);   /* 11 bits */
    if (q == 2048) { q = 1024; e++; }
    return (uint16_t)(sign | (uint16_t)((e - 1 + 15) << 10) | (q & 1023u));
}

/* returns 0, or 1 when out of memory */
int bk_setup(int M, int K, int N, int dt, int trans, int fma) {
    free(a); free(b); free(bias); free(c);
    gM = M; gK = K; gN = N; gdt = dt; gtrans = dt == BL_DTYPE_F32 ? trans : 1;
    dt = data_dt(dt);
    size_t es = dt == BL_DTYPE_F32 ? 4 : 2;
    a = malloc((size_t)M * K * 4); b = malloc((size_t)K * N * es);
    bias = malloc((size_t)N * 4); c = malloc((size_t)M * N * 4);
    if (!a || !b || !bias || !c) return 1;
    for (size_t i = 0; i < (size_t)M * K; i++) a[i] = uni();
    float scale = 1.0f / 32.0f;
    for (size_t i = 0; i < (size_t)K * N; i++) {
        float v = uni() * scale;
        if (dt == BL_DTYPE_F32) ((float *)b)[i] = v;
        else ((uint16_t *)b)[i] = to16(v, dt);
    }
    for (int j = 0; j < N; j++) bias[j] = uni();
    bl__set_fma(fma);
    return 0;
}

void bk_run(int reps) {
    int ldb = gtrans ? gK : gN;
    for (int r = 0; r < reps; r++)
        bl__gemm_typed(c, gN, NULL, a, gK, b, (bl_dtype)gdt, ldb, gtrans, bias, gM, gK, gN,
                       BL_ACT_IDENTITY);
}

/* c[i] as a double reference check: sum_k a[r][k] B[k][col] + bias in double */
double bk_ref(int r, int col) {
    double acc = bias[col];
    for (int k = 0; k < gK; k++) {
        size_t i = gtrans ? (size_t)col * gK + k : (size_t)k * gN + col;
        acc += (double)a[(size_t)r * gK + k] * bl__weight_at(b, data_dt(gdt), i);
    }
    return acc;
}
double bk_out(int r, int col) { return c[(size_t)r * gN + col]; }

/* the micro-kernel alone, its operands in L1: a tile of A (mr x 256) against one B panel;
   fused picks the FMA build's tile (3 x 12; 4 x 8 in sources before it), else the SIMD
   build's 4 x 8. Returns the multiply-adds of one call. */
static float ta[4 * 256], tb[256 * 12], tt[4 * 12];
double bk_micro(int reps, int fused) {
    for (int i = 0; i < 4 * 256; i++) ta[i] = uni();
    for (int i = 0; i < 256 * 12; i++) tb[i] = uni();
    for (int r = 0; r < reps; r++) {
#ifdef BL_TILE_3X12
        if (fused) micro_3x12(tt, ta, 256, 3, tb, 256);
#else
        if (fused) micro_fused(tt, ta, 256, 4, tb, 256);
#endif
        else micro(tt, ta, 256, 4, tb, 256);
        ta[r & 255] += tt[r & 7] * 1e-30f;
    }
#ifdef BL_TILE_3X12
    return fused ? 3 * 12 * 256 : 4 * 8 * 256;
#else
    return 4 * 8 * 256;
#endif
}

/* memcpy of B's bytes (as set up) into a second buffer, `reps` times: this module's copy
   bandwidth at B's size, what a memory-bound one-row product is held to. Returns the bytes of
   one copy, or 0 when out of memory. */
static void *bcopy_dst;
double bk_copy(int reps) {
    size_t n = (size_t)gK * gN * (gdt == BL_DTYPE_F32 ? 4 : 2);
    free(bcopy_dst);
    bcopy_dst = malloc(n);
    if (!bcopy_dst) return 0;
    volatile unsigned char sink = 0;   /* reads the copies so none is dropped */
    for (int r = 0; r < reps; r++) {
        memcpy(bcopy_dst, b, n);
        sink ^= ((unsigned char *)bcopy_dst)[(size_t)r * 4099 % n];
    }
    return (double)n;
}
