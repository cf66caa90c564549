/* bench_attention.c - llama.c's causal attention core alone in wasm, for tools/bench/attention.js:
   rotated q (L, H hd), k, v (L, KVH hd) set up once in the heap, then the forward's own attend()
   (the tree's src/llama.c included, so a checkout of main times its per-head version) called
   `reps` times per timed run; nothing kept but concat. */
#include <stdint.h>
#include <stdlib.h>
#include <math.h>
#include "bl_internal.h"
#include BL_BENCH_LLAMA   /* src/llama.c itself: its static attend() and dims */

static float *q, *k, *v, *concat, *scratch;
static dims z;

static uint32_t s = 12345;
static float uni(void) { s = s * 1664525u + 1013904223u; return (float)s / 4294967296.0f * 2.0f - 1.0f; }

/* returns 0, or 1 when out of memory */
int ba_setup(int L, int H, int KVH, int hd, int fma) {
    free(q); free(k); free(v); free(concat); free(scratch);
    z = (dims){.L = L, .H = H, .KVH = KVH, .hd = hd, .Q = H * hd, .KV = KVH * hd,
               .qb = L < QB ? L : QB};
    size_t nq = (size_t)L * z.Q, nkv = (size_t)L * z.KV;
    q = malloc(nq * 4); k = malloc(nkv * 4); v = malloc(nkv * 4); concat = malloc(nq * 4);
    scratch = malloc((size_t)z.qb * L * 4);   /* attend()'s logits / weights block (qb, L) */
    if (!q || !k || !v || !concat || !scratch) return 1;
    s = 12345;
    for (size_t i = 0; i < nq; i++) q[i] = uni();
    for (size_t i = 0; i < nkv; i++) k[i] = uni();
    for (size_t i = 0; i < nkv; i++) v[i] = uni();
    bl__set_fma(fma);
    return 0;
}

void ba_run(int reps) {
    for (int r = 0; r < reps; r++) attend(&z, q, k, v, concat, NULL, NULL, NULL, scratch);
}

/* multiply-adds times 2 of one call: per head and block, rows x hd x seen twice */
double ba_flops(void) {
    double f = 0;
    for (int i0 = 0; i0 < z.L; i0 += z.qb) {
        int rows = z.L - i0 < z.qb ? z.L - i0 : z.qb;
        f += 4.0 * rows * z.hd * (i0 + rows);
    }
    return f * z.H;
}

/* concat's bits hashed (FNV-1a): equal across trees and builds = bit-identical results */
uint32_t ba_hash(void) {
    uint32_t h = 2166136261u;
    const unsigned char *p = (const unsigned char *)concat;
    for (size_t i = 0; i < (size_t)z.L * z.Q * 4; i++) h = (h ^ p[i]) * 16777619u;
    return h;
}

/* concat[i][h hd + e] against causal softmax(q k^T / sqrt(hd)) v in double: |difference| */
double ba_err(int i, int h, int e) {
    int g = h / (z.H / z.KVH);
    double m = -INFINITY, sum = 0, acc = 0, *p = malloc((size_t)(i + 1) * sizeof(double));
    for (int j = 0; j <= i; j++) {
        double dot = 0;
        for (int c = 0; c < z.hd; c++)
            dot += (double)q[(size_t)i * z.Q + h * z.hd + c] * k[(size_t)j * z.KV + g * z.hd + c];
        p[j] = dot / sqrt((double)z.hd);
        if (p[j] > m) m = p[j];
    }
    for (int j = 0; j <= i; j++) sum += p[j] = exp(p[j] - m);
    for (int j = 0; j <= i; j++) acc += p[j] / sum * v[(size_t)j * z.KV + g * z.hd + e];
    free(p);
    return fabs(acc - concat[(size_t)i * z.Q + h * z.hd + e]);
}
