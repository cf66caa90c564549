/* fma_probe.c - this host's one-core 128-bit FMA limit, and what the 3 x 12 register tile
   (9 accumulators, the FMA build's micro-kernel) and a 4 x 12 tile (12 accumulators, which
   V8's 15 xmm registers cannot hold) reach natively with their operands in L1. CPU time.
   cc -O2 -mfma -mavx2 tools/bench/fma_probe.c -o /tmp/fma_probe && /tmp/fma_probe
   With --peak it prints only the best of 7 short peak runs (GFLOPS): kernels.js's limit.
   (REPORT-kernels.md, 2026-12-02 bigtile.) */
#include <string.h>
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

static float A[4][1024] __attribute__((aligned(64))), B[1024 * 12] __attribute__((aligned(64)));
static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}
#define F(c, x, b) c = _mm_fmadd_ps(x, b, c);
#define SUM4(a, b, c, d) _mm_add_ps(_mm_add_ps(a, b), _mm_add_ps(c, d))

/* 12 independent FMA chains, no loads: the ports' limit */
static double peak(long n) {
    __m128 c0 = _mm_setzero_ps(), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0,
           c8 = c0, c9 = c0, c10 = c0, c11 = c0, a = _mm_set1_ps(0.9999f), b = _mm_set1_ps(1e-4f);
    double t = now();
    for (long i = 0; i < n; i++) {
        F(c0, a, b) F(c1, a, b) F(c2, a, b) F(c3, a, b) F(c4, a, b) F(c5, a, b)
        F(c6, a, b) F(c7, a, b) F(c8, a, b) F(c9, a, b) F(c10, a, b) F(c11, a, b)
        __asm__ volatile("" : "+x"(c0), "+x"(c1), "+x"(c2), "+x"(c3), "+x"(c4), "+x"(c5),
                         "+x"(c6), "+x"(c7), "+x"(c8), "+x"(c9), "+x"(c10), "+x"(c11));
    }
    t = now() - t;
    __m128 s = _mm_add_ps(SUM4(c0, c1, c2, c3), _mm_add_ps(SUM4(c4, c5, c6, c7), SUM4(c8, c9, c10, c11)));
    return s[0] == 12345.0f ? 0 : n * 12.0 * 8 / t / 1e9;
}

/* rows x 12 tile over kc, A broadcast from memory, B from a packed panel, as micro_3x12 */
__attribute__((noinline)) static void tile(float *out, int kc, int rows) {
    __m128 c0 = _mm_setzero_ps(), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0,
           c8 = c0, c9 = c0, c10 = c0, c11 = c0;
    const float *bp = B;
    if (rows == 3)
        for (int k = 0; k < kc; k++, bp += 12) {
            __m128 b0 = _mm_load_ps(bp), b1 = _mm_load_ps(bp + 4), b2 = _mm_load_ps(bp + 8), x;
            x = _mm_broadcast_ss(A[0] + k); F(c0, x, b0) F(c1, x, b1) F(c2, x, b2)
            x = _mm_broadcast_ss(A[1] + k); F(c3, x, b0) F(c4, x, b1) F(c5, x, b2)
            x = _mm_broadcast_ss(A[2] + k); F(c6, x, b0) F(c7, x, b1) F(c8, x, b2)
        }
    else
        for (int k = 0; k < kc; k++, bp += 12) {
            __m128 b0 = _mm_load_ps(bp), b1 = _mm_load_ps(bp + 4), b2 = _mm_load_ps(bp + 8), x;
            x = _mm_broadcast_ss(A[0] + k); F(c0, x, b0) F(c1, x, b1) F(c2, x, b2)
            x = _mm_broadcast_ss(A[1] + k); F(c3, x, b0) F(c4, x, b1) F(c5, x, b2)
            x = _mm_broadcast_ss(A[2] + k); F(c6, x, b0) F(c7, x, b1) F(c8, x, b2)
            x = _mm_broadcast_ss(A[3] + k); F(c9, x, b0) F(c10, x, b1) F(c11, x, b2)
        }
    _mm_storeu_ps(out, _mm_add_ps(SUM4(c0, c1, c2, c3),
                                  _mm_add_ps(SUM4(c4, c5, c6, c7), SUM4(c8, c9, c10, c11))));
}

int main(int argc, char **argv) {
    float o[4];
    if (argc > 1 && !strcmp(argv[1], "--peak")) {   /* the best sample: the host is shared */
        double best = 0;
        for (int rep = 0; rep < 7; rep++) {
            double g = peak(20000000);
            if (g > best) best = g;
        }
        printf("%.1f\n", best);
        return 0;
    }
    for (int i = 0; i < 4 * 1024; i++) ((float *)A)[i] = i * 1e-4f;
    for (int i = 0; i < 1024 * 12; i++) B[i] = i * 1e-5f;
    for (int rep = 0; rep < 3; rep++) {
        printf("128-bit FMA peak %.1f GFLOPS;", peak(200000000));
        for (int rows = 3; rows <= 4; rows++) {
            double t = now();
            long n = 0;
            for (int r = 0; r < 50000000 / 768; r++, n += 768) tile(o, 768, rows);
            t = now() - t;
            printf("  %d x 12 tile, kc 768: %.1f", rows, n * rows * 12 * 2.0 / t / 1e9);
        }
        printf("  (%g)\n", o[0]);
    }
    return 0;
}
