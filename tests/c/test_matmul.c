/* test_matmul.c - bl__gemm_typed on the shapes where its paths part: the packed
   4 x 8 and 3 x 12 tiles, edge tiles (odd M, N, K), every weight dtype, B transposed or not,
   bias, pre-activation and activation, all against a double-precision reference of the same
   operands; row blocks (as the logit lens does them) and products of one row tile (B read in
   place, not packed) bit-identical to the rows of a larger product. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "bl_internal.h"

static uint32_t seed = 12345u;
static float uniform(void) {   /* in [-1, 1) */
    seed = seed * 1664525u + 1013904223u;
    return (float)(seed >> 8) * 0x1p-23f - 1.0f;
}

/* Weights in dtype dt: values rounded to that type (so the reference sees what the kernel
   sees, through bl__weight_at). */
static void *make_weights(bl_dtype dt, size_t n) {
    if (dt == BL_DTYPE_F32) {
        float *w = malloc(n * 4);
        for (size_t i = 0; i < n; i++) w[i] = uniform() * 0.25f;
        return w;
    }
    uint16_t *w = malloc(n * 2);
    for (size_t i = 0; i < n; i++) {
        float f = uniform() * 0.25f;
        uint32_t bits;
        memcpy(&bits, &f, 4);
        if (dt == BL_DTYPE_BF16) {
            w[i] = (uint16_t)(bits >> 16);
        } else {   /* a normal float16 with the top 10 mantissa bits (|f| >= 2^-14 or 0) */
            uint32_t e = (bits >> 23) & 255u;
            w[i] = e < 113 ? (uint16_t)((bits >> 16) & 0x8000u)
                           : (uint16_t)(((bits >> 16) & 0x8000u) | ((e - 112u) << 10) |
                                        ((bits >> 13) & 1023u));
        }
    }
    return w;
}

static double act_ref(double v, bl_activation act) {
    if (act == BL_ACT_RELU) return v > 0 ? v : 0;
    if (act == BL_ACT_SILU) return v / (1 + exp(-v));
    return v;
}

/* Worst |got - ref| / (sum |terms| + 1e-30) over C and pre, for one case. */
static double run_case(int M, int K, int N, bl_dtype dt, int trans, bl_activation act,
                       int use_bias) {
    float *a = malloc(sizeof(float) * M * K), *bias = malloc(sizeof(float) * N);
    for (int i = 0; i < M * K; i++) a[i] = uniform();
    for (int j = 0; j < N; j++) bias[j] = uniform();
    void *b = make_weights(dt, (size_t)K * N);
    int ldb = trans ? K : N, ldc = N + 3;   /* a row stride wider than N */
    float *c = malloc(sizeof(float) * M * ldc), *pre = malloc(sizeof(float) * M * ldc);
    bl__gemm_typed(c, ldc, pre, a, K, b, dt, ldb, trans, use_bias ? bias : NULL, M, K, N, act);
    double worst = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = use_bias ? bias[j] : 0, mag = fabs(s);
            for (int k = 0; k < K; k++) {
                double w = bl__weight_at(b, dt, trans ? (size_t)j * ldb + k : (size_t)k * ldb + j);
                s += (double)a[i * K + k] * w;
                mag += fabs((double)a[i * K + k] * w);
            }
            double e1 = fabs(pre[i * ldc + j] - s) / (mag + 1e-30);
            double e2 = fabs(c[i * ldc + j] - act_ref(s, act)) / (mag + 1e-30);
            worst = fmax(worst, fmax(e1, e2));
            if (isnan(c[i * ldc + j]) || isnan(pre[i * ldc + j])) worst = INFINITY;
        }
    free(a); free(bias); free(b); free(c); free(pre);
    return worst;
}

static void every_path_dtype_and_odd_shape_matches_a_double_reference(void) {
    /* M 1-13 (one row tile in place, packed, edge tiles), K below and above one KC slice and
       not a multiple of 4, N with column tails of 1-3, and products past 2^20 multiply-adds
       (3 x 12 tile) */
    static const int shapes[][3] = {{1, 17, 5}, {2, 33, 7}, {3, 16, 9}, {4, 19, 6}, {5, 65, 11},
                                    {7, 130, 13}, {8, 771, 37}, {9, 35, 10}, {1, 15, 4},
                                    {8, 5, 3}, {6, 1027, 170}, {13, 800, 101}, {2, 896, 601}};
    static const bl_activation acts[] = {BL_ACT_IDENTITY, BL_ACT_RELU, BL_ACT_SILU};
    double worst = 0;
    int n = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int dt = BL_DTYPE_F32; dt <= BL_DTYPE_BF16; dt++)
            for (int trans = 0; trans < 2; trans++, n++)
                worst = fmax(worst, run_case(shapes[s][0], shapes[s][1], shapes[s][2],
                                             (bl_dtype)dt, trans, acts[n % 3], n % 2));
    printf("     %d cases: worst error %.3g of the sum of |terms|\n", n, worst);
    CHECK(worst < 4e-7);   /* float32 sums of up to 1027 terms: ~K/4 * 2^-24 at worst */
}

/* The logit lens multiplies one forward's rows in blocks, as bl__gemm_typed_as with the whole
   product's size: every block's rows must equal the whole product's, bit for bit, whichever
   path the whole product takes. */
static void row_blocks_give_the_whole_products_values_bit_for_bit(void) {
    enum { K = 203, N = 45 };
    int bad = 0;
    for (int dt = BL_DTYPE_F32; dt <= BL_DTYPE_BF16; dt++)
        for (int M = 4; M <= 12; M += 4) {
            float *a = malloc(sizeof(float) * M * K), *c = malloc(sizeof(float) * M * N),
                  *c1 = malloc(sizeof(float) * M * N);
            for (int i = 0; i < M * K; i++) a[i] = uniform();
            void *b = make_weights((bl_dtype)dt, (size_t)K * N);
            bl__gemm_typed(c, N, NULL, a, K, b, (bl_dtype)dt, K, 1, NULL, M, K, N,
                           BL_ACT_IDENTITY);
            for (int i0 = 0; i0 < M; i0 += 3) {
                int rows = M - i0 < 3 ? M - i0 : 3;
                bl__gemm_typed_as(c1 + (size_t)i0 * N, N, NULL, a + (size_t)i0 * K, K, b,
                                  (bl_dtype)dt, K, 1, NULL, rows, K, N, BL_ACT_IDENTITY,
                                  (uint64_t)M * K * N);
            }
            bad += memcmp(c, c1, sizeof(float) * M * N) != 0;
            free(a); free(c); free(c1); free(b);
        }
    printf("     %d of 9 products differ when done in row blocks\n", bad);
    CHECK(bad == 0);
}

/* Products of few rows read B in place (one row tile of B (K, N), one row of B (N, K); F32
   B (K, N) streamed up to 8 rows) and edge tiles run only their rows: every row count 1..8
   (up to two tiles of either), each dtype, B transposed or not, K past one KC slice (768) and not
   a multiple of 4, N with a column tail for both tiles (29 = 3 x 8 + 5 = 2 x 12 + 5) and N = 1550
   (several passes of the stream's accumulators from 4 rows on, a 2-column tail), with bias, pre
   and activation, must give the bits of the same rows computed inside a 64-row product (rows
   48-55: packed, full tiles), with the same `macs` (so the same tile and FMA choice: 2^20 picks
   the 3 x 12 tile, 0 the 4 x 8); and the double reference within 4e-7. */
static void small_row_counts_give_the_packed_paths_bits(void) {
    enum { BIG = 64, K = 777, NMAX = 1550 };
    static const uint64_t macs[] = {0, 1u << 20};
    static const int ns[] = {29, NMAX};
    float *a = malloc(sizeof(float) * BIG * K), *bias = malloc(sizeof(float) * NMAX);
    float *c = malloc(sizeof(float) * BIG * NMAX), *pre = malloc(sizeof(float) * BIG * NMAX);
    float *c1 = malloc(sizeof(float) * 8 * NMAX), *pre1 = malloc(sizeof(float) * 8 * NMAX);
    for (int i = 0; i < BIG * K; i++) a[i] = uniform();
    for (int j = 0; j < NMAX; j++) bias[j] = uniform();
    int bad = 0, n = 0;
    double worst = 0;
    for (int ni = 0; ni < 2; ni++)
        for (int dt = BL_DTYPE_F32; dt <= BL_DTYPE_BF16; dt++)
            for (int trans = 0; trans < 2; trans++)
                for (int m = 0; m < 2; m++) {
                    const int N = ns[ni];
                    void *b = make_weights((bl_dtype)dt, (size_t)K * N);
                    int ldb = trans ? K : N;
                    bl_activation act = m ? BL_ACT_SILU : BL_ACT_GELU;
                    bl__gemm_typed_as(c, N, pre, a, K, b, (bl_dtype)dt, ldb, trans, bias, BIG, K, N,
                                      act, macs[m]);
                    for (int M = 1; M <= 8; M++, n++) {
                        /* rows 48.. of A: full tiles of both kinds in the 64-row product */
                        const float *am = a + (size_t)48 * K;
                        bl__gemm_typed_as(c1, N, pre1, am, K, b, (bl_dtype)dt, ldb, trans, bias, M,
                                          K, N, act, macs[m]);
                        bad += memcmp(c1, c + (size_t)48 * N, sizeof(float) * M * N) != 0 ||
                               memcmp(pre1, pre + (size_t)48 * N, sizeof(float) * M * N) != 0;
                        /* the reference: every column at N = 29, every 7th at 1550 */
                        for (int i = 0; i < M; i++)
                            for (int j = 0; j < N; j += N > 29 ? 7 : 1) {
                                double s = bias[j], mag = fabs(s);
                                for (int k = 0; k < K; k++) {
                                    size_t wi = trans ? (size_t)j * K + k : (size_t)k * N + j;
                                    double w = bl__weight_at(b, (bl_dtype)dt, wi);
                                    s += (double)am[i * K + k] * w;
                                    mag += fabs((double)am[i * K + k] * w);
                                }
                                double e = fabs(pre1[i * N + j] - s) / (mag + 1e-30);
                                worst = isnan(pre1[i * N + j]) ? INFINITY : fmax(worst, e);
                            }
                    }
                    free(b);
                }
    printf("     %d of %d small products differ from the 64-row product's rows; worst error "
           "%.3g of the sum of |terms|\n", bad, n, worst);
    CHECK(n == 192);
    CHECK(bad == 0);
    CHECK(worst < 4e-7);
    free(a); free(bias); free(c); free(pre); free(c1); free(pre1);
}

/* F16 and BF16 weights give the bits of their float32 up-cast at every row count: the path a
   product takes must not depend on the dtype (fuzz_llama caught a small-row path that did). */
static void sixteen_bit_weights_give_their_f32_upcasts_bits_at_every_row_count(void) {
    static const int ks[] = {37, 801};
    enum { N = 13 };
    int bad = 0, n = 0;
    for (int dt = BL_DTYPE_F16; dt <= BL_DTYPE_BF16; dt++)
        for (int M = 1; M <= 10; M++, n++) {
            int K = ks[M % 2], trans = M % 3 != 0;
            float *a = malloc(sizeof(float) * M * K), *c = malloc(sizeof(float) * M * N),
                  *c32 = malloc(sizeof(float) * M * N), *b32 = malloc(sizeof(float) * K * N);
            for (int i = 0; i < M * K; i++) a[i] = uniform();
            void *b = make_weights((bl_dtype)dt, (size_t)K * N);
            bl__weights_to_f32(b32, b, (bl_dtype)dt, 0, (size_t)K * N);
            int ldb = trans ? K : N;
            bl__gemm_typed(c, N, NULL, a, K, b, (bl_dtype)dt, ldb, trans, NULL, M, K, N,
                           BL_ACT_GELU);
            bl__gemm_typed(c32, N, NULL, a, K, b32, BL_DTYPE_F32, ldb, trans, NULL, M, K, N,
                           BL_ACT_GELU);
            bad += memcmp(c, c32, sizeof(float) * M * N) != 0;
            free(a); free(c); free(c32); free(b32); free(b);
        }
    printf("     %d of %d products differ from their F32 up-cast's\n", bad, n);
    CHECK(bad == 0);
}

int main(void) {
    bl_run("every_path_dtype_and_odd_shape_matches_a_double_reference",
           every_path_dtype_and_odd_shape_matches_a_double_reference);
    bl_run("row_blocks_give_the_whole_products_values_bit_for_bit",
           row_blocks_give_the_whole_products_values_bit_for_bit);
    bl_run("small_row_counts_give_the_packed_paths_bits",
           small_row_counts_give_the_packed_paths_bits);
    bl_run("sixteen_bit_weights_give_their_f32_upcasts_bits_at_every_row_count",
           sixteen_bit_weights_give_their_f32_upcasts_bits_at_every_row_count);
    return bl_summary();
}
