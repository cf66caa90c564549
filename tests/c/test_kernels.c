/* test_kernels.c - the blocked kernels on shapes the fixtures do not reach (K beyond one
   768-deep slice, ragged tiles, long sequences with masks), against the naive double-precision
   references of reference.c. Bounds are the standard float32 summation bound
   |error| <= K * 2^-23 * sum |terms| (plus a hair), which any indexing bug exceeds by far. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "reference.h"
#include "bl_internal.h"

static float *randn(bl_rng *r, size_t n, float scale) {
    float *a = malloc(n * sizeof *a);
    bl_rng_normal_f32(r, a, n, NULL);
    for (size_t i = 0; i < n; i++) a[i] *= scale;
    return a;
}

static void linear_matches_naive_reference_on_awkward_shapes(void) {
    const int shapes[][3] = {{1, 1, 1}, {3, 5, 7}, {4, 8, 8}, {67, 1000, 45}, {130, 769, 33},
                             {5, 1536, 8}, {9, 3, 100}};
    bl_rng r;
    bl_rng_seed(&r, 99);
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int M = shapes[s][0], K = shapes[s][1], N = shapes[s][2];
        float *x = randn(&r, (size_t)M * K, 1), *w = randn(&r, (size_t)K * N, 1),
              *b = randn(&r, (size_t)N, 1), *out = malloc(sizeof(float) * M * N);
        CHECK_STATUS(bl_linear_forward(out, x, w, b, M, K, N, NULL), BL_OK);
        double *xd = malloc(sizeof(double) * M * K), *ref = malloc(sizeof(double) * M * N),
               *mag = malloc(sizeof(double) * M * N);
        ref_widen(xd, x, (size_t)M * K);
        ref_linear(ref, mag, xd, w, b, M, K, N);
        double worst = 0;
        int bad = 0;
        for (size_t i = 0; i < (size_t)M * N; i++) {
            double err = fabs(out[i] - ref[i]), bound = (K + 1) * 1.2e-7 * mag[i] + 1e-30;
            if (err / bound > worst) worst = err / bound;
            bad += !(err <= bound);
        }
        printf("     linear %d x %d x %d: worst error %.3f of the bound\n", M, K, N, worst);
        CHECK(bad == 0);
        free(x); free(w); free(b); free(out); free(xd); free(ref); free(mag);
    }
}

static void attention_long_sequences_match_naive_reference(void) {
    enum { L = 150, D = 16, H = 4, DK = D / H };
    bl_rng r;
    bl_rng_seed(&r, 7);
    float *x = randn(&r, L * D, 1), *wq = randn(&r, D * D, 0.25f), *wk = randn(&r, D * D, 0.25f),
          *wv = randn(&r, D * D, 0.25f), *wo = randn(&r, D * D, 0.25f);
    unsigned char mask[L];
    for (int j = 0; j < L; j++) mask[j] = (j % 7) != 3;
    float *q = malloc(sizeof(float) * L * D), *k = malloc(sizeof(float) * L * D),
          *v = malloc(sizeof(float) * L * D), *concat = malloc(sizeof(float) * L * D),
          *out = malloc(sizeof(float) * L * D), *weights = malloc(sizeof(float) * H * L * L),
          *lean_out = malloc(sizeof(float) * L * D), *work = malloc(sizeof(float) * L);
    for (int causal = 0; causal <= 1; causal++) {
        bl_attention_desc d = {.L = L, .d_model = D, .n_heads = H, .causal = causal,
                               .key_mask = mask, .x = x, .wq = wq, .wk = wk, .wv = wv, .wo = wo};
        bl_attention_out o = {.q = q, .k = k, .v = v, .weights = weights, .concat = concat, .out = out};
        CHECK_STATUS(bl_attention_forward(&d, &o, NULL, NULL), BL_OK);
        /* reference in double from the engine's own q, k, v (projections are tested above) */
        double *qd = malloc(sizeof(double) * L * D), *kd = malloc(sizeof(double) * L * D),
               *vd = malloc(sizeof(double) * L * D), *cref = malloc(sizeof(double) * L * D),
               *wref = malloc(sizeof(double) * H * L * L);
        ref_widen(qd, q, L * D);
        ref_widen(kd, k, L * D);
        ref_widen(vd, v, L * D);
        ref_attention(cref, NULL, NULL, wref, qd, kd, vd, L, D, H, 1.0 / sqrt((double)DK), causal,
                      mask);
        double worst_w = 0, worst_c = 0;
        for (size_t i = 0; i < (size_t)H * L * L; i++) worst_w = fmax(worst_w, fabs(weights[i] - wref[i]));
        for (size_t i = 0; i < (size_t)L * D; i++) worst_c = fmax(worst_c, fabs(concat[i] - cref[i]));
        free(qd); free(kd); free(vd); free(cref); free(wref);
        printf("     attention L=%d causal=%d: max |weight diff| %.3g, max |context diff| %.3g\n",
               L, causal, worst_w, worst_c);
        CHECK(worst_w < 2e-6 && worst_c < 2e-5);
        /* the lean path (no weights buffer, L floats of workspace) gives identical output */
        bl_attention_out lean = {.q = q, .k = k, .v = v, .concat = concat, .out = lean_out};
        CHECK_STATUS(bl_attention_forward(&d, &lean, work, NULL), BL_OK);
        CHECK(memcmp(lean_out, out, sizeof(float) * L * D) == 0);
    }
    free(x); free(wq); free(wk); free(wv); free(wo); free(q); free(k); free(v);
    free(concat); free(out); free(weights); free(lean_out); free(work);
}

static void ffn_gelu_beyond_one_k_slice_matches_naive_reference(void) {
    enum { L = 70, D = 800, F = 40 };
    bl_rng r;
    bl_rng_seed(&r, 3);
    float *x = randn(&r, L * D, 1), *w1 = randn(&r, D * F, 0.035f), *b1 = randn(&r, F, 0.1f),
          *w2 = randn(&r, F * D, 0.15f), *b2 = randn(&r, D, 0.1f);
    float *hidden = malloc(sizeof(float) * L * F), *act = malloc(sizeof(float) * L * F),
          *out = malloc(sizeof(float) * L * D);
    bl_ffn_desc d = {.L = L, .d_model = D, .d_ff = F, .activation = BL_ACT_GELU, .x = x,
                     .w1 = w1, .b1 = b1, .w2 = w2, .b2 = b2};
    CHECK_STATUS(bl_ffn_forward(&d, &(bl_ffn_out){.hidden = hidden, .activated = act, .out = out}, NULL), BL_OK);
    double *xd = malloc(sizeof(double) * L * D), *yref = malloc(sizeof(double) * L * D),
           *href = malloc(sizeof(double) * L * F), *aref = malloc(sizeof(double) * L * F);
    ref_widen(xd, x, L * D);
    ref_ffn(yref, href, aref, xd, &d);
    double worst_h = 0, worst_a = 0;
    for (size_t i = 0; i < (size_t)L * F; i++) {
        worst_h = fmax(worst_h, fabs(hidden[i] - href[i]));
        worst_a = fmax(worst_a, fabs(act[i] - aref[i]));
    }
    free(xd); free(yref); free(href); free(aref);
    printf("     ffn K=%d: max |hidden diff| %.3g, max |gelu diff| %.3g\n", D, worst_h, worst_a);
    CHECK(worst_h < 1e-4 && worst_a < 1e-4);
    free(x); free(w1); free(b1); free(w2); free(b2); free(hidden); free(act); free(out);
}

/* Every float16 and bfloat16 bit pattern as a weight, B given transposed (N = 65536, K = 8) and
   not: column j holds pattern j at k = j % 8, zeros elsewhere, and A's rows are one-hot, so
   C[j % 8][j] is the packed value itself. It must be bl__weight_at's exact float32 (NaN stays
   NaN): the vector up-casts of the packing against the scalar ones. M = 8 takes the large
   products' tile (3 x 12), M = 1 (row by row) the small ones' (4 x 8). */
static void f16_and_bf16_weights_pack_to_their_exact_float32_values(void) {
    enum { K = 8, N = 65536 };
    uint16_t *bt = calloc((size_t)N * K, 2), *bn = calloc((size_t)N * K, 2);
    float a[K * K] = {0}, *c = malloc(sizeof(float) * K * N), *c1 = malloc(sizeof(float) * N);
    for (int j = 0; j < N; j++) {
        bt[(size_t)j * K + j % K] = (uint16_t)j;   /* (N, K) */
        bn[(size_t)(j % K) * N + j] = (uint16_t)j;   /* (K, N) */
    }
    for (int k = 0; k < K; k++) a[k * K + k] = 1.0f;
    int bad = 0;
    for (int dt = BL_DTYPE_F16; dt <= BL_DTYPE_BF16; dt++)
        for (int trans = 0; trans < 2; trans++) {
            const uint16_t *b = trans ? bt : bn;
            bl__gemm_typed(c, N, NULL, a, K, b, (bl_dtype)dt, trans ? K : N, trans, NULL, K, K, N,
                           BL_ACT_IDENTITY);
            for (int r = 0; r < K; r++) {
                bl__gemm_typed(c1, N, NULL, a + r * K, K, b, (bl_dtype)dt, trans ? K : N, trans,
                               NULL, 1, K, N, BL_ACT_IDENTITY);
                for (int j = r; j < N; j += K) {
                    float want = bl__weight_at(&(uint16_t){(uint16_t)j}, (bl_dtype)dt, 0);
                    float got = c[(size_t)r * N + j], got1 = c1[j];
                    bad += isnan(want) ? !isnan(got) || !isnan(got1) : !(got == want && got1 == want);
                }
            }
        }
    printf("     %d of 4 x 65536 packed weights differ from their float32 value\n", bad);
    CHECK(bad == 0);
    free(bt); free(bn); free(c); free(c1);
}

/* The 16-bit weights' fast up-casts (eight values at a time; F16 for finite values only, with
   2^112 moved into A where |a| < 2^16) must give a float32 B's bits wherever an inf or NaN sits
   among finite weights (the panel or tile is redone exactly) and when A holds a value the
   moved scale would overflow. Each case: one special value (or one huge a) at every position
   of B (N, K) = (29, 37) (two 12- and three 8-column tiles plus edges, K: 8-blocks and a
   tail), 1 and 8 rows, both tiles (macs 0, 2^20), against the same product of B up-cast.
   NaN as NaN: where two NaNs meet, the payload kept follows operand order, which the F32
   and 16-bit kernels did not share before either (the one-row 3 x 12 tile natively). */
static void f16_inf_and_nan_among_finite_weights_keep_their_bits(void) {
    enum { M = 8, K = 37, N = 29 };
    static const uint16_t special[] = {0x7c00, 0xfc00, 0x7e00, 0xfd01},   /* inf, -inf, NaNs */
                          bf16_special[] = {0x7f80, 0xff80, 0x7fc0, 0xff81};
    bl_rng r;
    bl_rng_seed(&r, 23);
    uint16_t b[N * K];
    float bf[N * K], a[M * K], c[M * N], want[M * N];
    for (int i = 0; i < M * K; i++) a[i] = (float)((int)(bl_rng_next_u32(&r) % 2001) - 1000) / 64;
    long bad = 0, cases = 0;
    for (int dt = BL_DTYPE_F16; dt <= BL_DTYPE_BF16; dt++)
        for (int s = -2; s < 4; s++)   /* s = -1: no special weight, a huge a instead; -2: two
                                          NaNs in one column and one in A (their payloads) */
            for (int at = 0; at < N * K; at++) {
                for (int i = 0; i < N * K; i++) {   /* random finite values, subnormals too */
                    uint16_t h = (uint16_t)bl_rng_next_u32(&r);
                    if (((h >> 10) & 31) == 31 && dt == BL_DTYPE_F16) h ^= 0x4000;
                    if (((h >> 7) & 255) == 255 && dt == BL_DTYPE_BF16) h ^= 0x4000;
                    b[i] = h;
                }
                float keep = a[at % K], keep11 = a[(at % K + 11) % K];
                if (s >= 0) b[at] = dt == BL_DTYPE_F16 ? special[s] : bf16_special[s];
                else if (s == -1)
                    a[at % K] = at & 1 ? 65536.0f : -1e30f;
                else {
                    b[at] = dt == BL_DTYPE_F16 ? 0x7e01 : 0x7fc1;
                    b[at / K * K + (at % K + 5) % K] = dt == BL_DTYPE_F16 ? 0xfe77 : 0xffe3;
                    uint32_t nan = 0x7fa12345u;   /* quiet: 0x7fe12345 */
                    memcpy(&a[(at % K + 11) % K], &nan, 4);
                }
                bl__weights_to_f32(bf, b, (bl_dtype)dt, 0, (size_t)N * K);
                for (int m = 1; m <= M; m += M - 1)
                    for (int big = 0; big < 2; big++) {
                        uint64_t macs = big ? 1u << 20 : 0;
                        bl__gemm_typed_as(c, N, NULL, a, K, b, (bl_dtype)dt, K, 1, NULL, m, K, N,
                                          BL_ACT_IDENTITY, macs);
                        bl__gemm_typed_as(want, N, NULL, a, K, bf, BL_DTYPE_F32, K, 1, NULL, m, K,
                                          N, BL_ACT_IDENTITY, macs);
                        for (int i = 0; i < m * N; i++)
                            bad += memcmp(&c[i], &want[i], 4) && !(isnan(c[i]) && isnan(want[i]));
                        cases++;
                    }
                a[at % K] = keep;
                if (s == -2) a[(at % K + 11) % K] = keep11;
            }
    printf("     %ld outputs differ from B up-cast's in %ld products\n", bad, cases);
    CHECK(bad == 0);
}

int main(void) {
    bl_run("linear_matches_naive_reference_on_awkward_shapes", linear_matches_naive_reference_on_awkward_shapes);
    bl_run("attention_long_sequences_match_naive_reference", attention_long_sequences_match_naive_reference);
    bl_run("ffn_gelu_beyond_one_k_slice_matches_naive_reference", ffn_gelu_beyond_one_k_slice_matches_naive_reference);
    bl_run("f16_and_bf16_weights_pack_to_their_exact_float32_values", f16_and_bf16_weights_pack_to_their_exact_float32_values);
    bl_run("f16_inf_and_nan_among_finite_weights_keep_their_bits", f16_inf_and_nan_among_finite_weights_keep_their_bits);
    return bl_summary();
}
