/* matmul.c - the hot kernel: C = act(A @ B + bias), register-tiled and packed.
   Blocking (BLIS order): for each NC-column block of B and KC-deep slice of K, B is packed
   into NR-wide panels (contiguous, zero-padded) in a stack buffer that stays in L2; every
   MR-row tile of A, read in place (MR sequential streams), is multiplied against each panel
   by the MR x NR micro-kernel, whose accumulators live in vector registers. Bias and
   activation are applied in the epilogue of the last K slice, so the hidden layer is
   written once and never re-read. B may also be F16 or BF16 (a checkpoint's own weights): it
   is up-cast exactly to float32 while it is packed (eight values at a time), so the
   micro-kernels and every float32 path stay as they are. A product of one row tile (M <= MR,
   e.g. one-token decoding), and one of F32 B (K, N) up to 8 rows, does not pack: each value of
   B is used once or streamed, so the kernels read it in place (rows_stream for B (K, N),
   micro_tile's transposing mode for B (N, K), micro_16 for a 16-bit one), summing each output
   in the packed path's order, so that results never depend on M.
   Measurements: tools/bench/REPORT-kernels.md. */
#include <math.h>
#include "bl_internal.h"
#include "kernel_simd.h"

/* Two register tiles, picked by the build in use (both are in the one SIMD module):
   - MR x NR = 4 x 8 without FMA: a multiply and an add need a temporary per product, so
     8 accumulators + 2 B vectors + 4 broadcasts + 1 fill x86's 16 xmm registers (V8 keeps
     one as scratch, and it schedules the k loop's loads, every broadcast included, first).
   - 3 x 12 with FMA (fused): 9 accumulators + 3 B vectors + 3 broadcasts = 15. FMA's latency
     (4 cycles) times its two ports wants 8 independent sums at least; 9 leave slack and the
     loads per FMA drop from 6/8 to 6/9. Tiles of 10 or 12 accumulators (5 x 8, 6 x 8) spill.
   Results do not depend on the tile: each output sums its k terms in order, slice by slice.
   The wasm build without SIMD has only the 4 x 8 tile; natively both run (see micro_3x12). */
#define KC 768           /* K slice: BERT's d_model in one pass, an A tile (MR x KC) in L1 */
#define NC_MAX 36        /* B block width: the packed KC x NC block (96-108 KiB) stays in L2 */
#define MR_MAX 4
#define NR_MAX 12
#if BL_HAS_FMA || !defined(__wasm__)
#define BL_TILE_3X12 1
#else
#define BL_TILE_3X12 0
#endif

float bl__act(float v, bl_activation act) {
    return v4_act(v4_splat(v), act)[0];   /* the epilogue's formulas, bit for bit */
}

/* A 4 x 4 transpose: four k-contiguous rows r[0..3] (columns g..g+3 of B, k..k+3) become the
   four k-rows q[0..3] of those columns. */
static inline __attribute__((always_inline)) void t4(v4 q[4], v4 r0, v4 r1, v4 r2, v4 r3) {
    v4 t0 = __builtin_shufflevector(r0, r1, 0, 4, 1, 5);
    v4 t1 = __builtin_shufflevector(r2, r3, 0, 4, 1, 5);
    v4 t2 = __builtin_shufflevector(r0, r1, 2, 6, 3, 7);
    v4 t3 = __builtin_shufflevector(r2, r3, 2, 6, 3, 7);
    q[0] = __builtin_shufflevector(t0, t1, 0, 1, 4, 5);
    q[1] = __builtin_shufflevector(t0, t1, 2, 3, 6, 7);
    q[2] = __builtin_shufflevector(t2, t3, 0, 1, 4, 5);
    q[3] = __builtin_shufflevector(t2, t3, 2, 3, 6, 7);
}

/* The same rows stored as four k-rows of a panel at p (row stride ld). */
static inline __attribute__((always_inline)) void store_t4s(float *p, int ld, v4 r0, v4 r1, v4 r2,
                                                            v4 r3) {
    v4 q[4];
    t4(q, r0, r1, r2, r3);
    for (int i = 0; i < 4; i++) v4_store(p + i * ld, q[i]);
}

/* Packs B[0:kc, 0:nc] into NR-wide panels: bp[p][k][0:NR], missing columns zero (NR a
   constant: one copy per tile). trans_b: B is given transposed, element (k, j) at b[j * ldb + k]. */
static inline __attribute__((always_inline)) void pack_b_nr(
        float *bp, const float *b, int ldb, int trans_b, int kc, int nc, const int NR) {
    for (int j0 = 0; j0 < nc; j0 += NR, bp += (size_t)kc * NR) {
        int cols = nc - j0 < NR ? nc - j0 : NR;
        if (!trans_b && cols == NR) {
            for (int k = 0; k < kc; k++)
                for (int v = 0; v < NR / 4; v++)
                    v4_store(bp + k * NR + 4 * v, v4_load(b + (size_t)k * ldb + j0 + 4 * v));
        } else if (!trans_b) {
            for (int k = 0; k < kc; k++)
                for (int c = 0; c < NR; c++)
                    bp[k * NR + c] = c < cols ? b[(size_t)k * ldb + j0 + c] : 0.0f;
        } else if (cols == NR) {
            /* 4 x 4 transposes: four k-contiguous rows of b become four k-rows of the panel */
            const float *col[NR_MAX];
            for (int c = 0; c < NR; c++) col[c] = b + (size_t)(j0 + c) * ldb;
            int k = 0;
            for (; k + 4 <= kc; k += 4)
                for (int g = 0; g < NR; g += 4)
                    store_t4s(bp + k * NR + g, NR, v4_load(col[g] + k), v4_load(col[g + 1] + k),
                              v4_load(col[g + 2] + k), v4_load(col[g + 3] + k));
            for (; k < kc; k++)
                for (int c = 0; c < NR; c++) bp[k * NR + c] = col[c][k];
        } else {
            for (int c = 0; c < NR; c++) {
                const float *col = c < cols ? b + (size_t)(j0 + c) * ldb : NULL;
                for (int k = 0; k < kc; k++) bp[k * NR + c] = col ? col[k] : 0.0f;
            }
        }
    }
}

/* The exact float32 value of a float16 (every one is a float32: subnormals are m 2^-24). */
float bl__f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 31u, m = h & 1023u, bits;
    if (e == 0) {
        float f = (float)m * 0x1p-24f;
        return sign ? -f : f;
    }
    bits = e == 31 ? sign | 0x7f800000u | (m << 13) : sign | ((e + 112u) << 23) | (m << 13);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static inline float bf16_to_f32(uint16_t h) {   /* the top half of a float32 */
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* Value i of a weight array of type dt, as float32. */
float bl__weight_at(const void *w, bl_dtype dt, size_t i) {
    if (dt == BL_DTYPE_F32) return ((const float *)w)[i];
    uint16_t h = ((const uint16_t *)w)[i];
    return dt == BL_DTYPE_F16 ? bl__f16_to_f32(h) : bf16_to_f32(h);
}

/* out[0:n] = w[from : from + n] up-cast to float32. */
void bl__weights_to_f32(float *out, const void *w, bl_dtype dt, size_t from, size_t n) {
    if (dt == BL_DTYPE_F32) {
        memcpy(out, (const float *)w + from, n * sizeof(float));
    } else if (dt == BL_DTYPE_BF16) {
        const uint16_t *h = (const uint16_t *)w + from;
        for (size_t i = 0; i < n; i++) out[i] = bf16_to_f32(h[i]);
    } else {
        const uint16_t *h = (const uint16_t *)w + from;
        for (size_t i = 0; i < n; i++) out[i] = bl__f16_to_f32(h[i]);
    }
}

/* Four bfloat16 values as float32: widened, shifted into the top half. */
typedef uint16_t v4u16 __attribute__((vector_size(8)));
static inline v4i v4_load_u16(const uint16_t *p) {
    v4u16 h;
    memcpy(&h, p, sizeof h);
    return __builtin_convertvector(h, v4i);
}
static inline v4 v4_load_bf16(const uint16_t *p) { return (v4)(v4_load_u16(p) << 16); }
/* Four float16 values as float32, exactly, bl__f16_to_f32 lane for lane: exponent and
   mantissa moved into place and scaled by 2^112 (rebiasing normals, and subnormals m 2^-136
   to m 2^-24: exact), inf/NaN (2^16 and up after the scale) given exponent 255, the sign
   taken from the sign-extended load. Float compares and no shifts of the sign: clang 14
   turns integer ones here into unsigned compares and shuffles that V8 expands. */
typedef int16_t v4i16 __attribute__((vector_size(8)));
static inline v4 v4_load_f16(const uint16_t *p) {
    v4i16 h;
    memcpy(&h, p, sizeof h);
    v4i x = __builtin_convertvector(h, v4i);
    v4 f = (v4)((x & 0x7fff) << 13) * 0x1p112f;
    return (v4)((v4i)f | ((v4i)(f >= 0x1p16f) & 0x7f800000) | (x & (int32_t)0x80000000));
}

/* Eight 16-bit values at a time (SIMD builds and native; the wasm build without SIMD keeps
   the four-value loads above). Four 16-byte loads, k..k+7 of 4 columns of a B (N, K), taken
   as 32-bit lanes (a pair of k each) and transposed with t4: q[p] lane c holds column c's k+2p
   (low half) and k+2p+1 (high half), 8 shuffles per 32 weights where t4 on up-cast values
   spends 8 per 16 (the shuffle port was a bound). The halves widen with shifts and masks. */
#if defined(__wasm_simd128__) || !defined(__wasm__)
#define BL_WIDE16 1
#if defined(__clang__)
#define BL_UNROLL _Pragma("clang loop unroll(full)")
#else
#define BL_UNROLL
#endif
typedef uint16_t v8u16 __attribute__((vector_size(16)));
static inline v8u16 v8u16_load(const uint16_t *p) { v8u16 v; memcpy(&v, p, sizeof v); return v; }
static inline v8u16 v8u16_max(v8u16 a, v8u16 b) {
#if defined(__wasm_simd128__)
    return (v8u16)wasm_u16x8_max((v128_t)a, (v128_t)b);   /* one instruction (a compare: 3-4) */
#else
    v8u16 m = (v8u16)(a > b);
    return (a & m) | (b & ~m);
#endif
}
static inline __attribute__((always_inline)) void t4_16(v4i q[4], const uint16_t *r, size_t l,
                                                        v8u16 *seen) {
    v8u16 r0 = v8u16_load(r), r1 = v8u16_load(r + l), r2 = v8u16_load(r + 2 * l),
          r3 = v8u16_load(r + 3 * l);
    /* the largest h << 1 (special16_seen) */
    if (seen)
        *seen = v8u16_max(v8u16_max(*seen, r0 << 1),
                          v8u16_max(r1 << 1, v8u16_max(r2 << 1, r3 << 1)));
    v4 t[4];
    t4(t, (v4)r0, (v4)r1, (v4)r2, (v4)r3);
    for (int p = 0; p < 4; p++) q[p] = (v4i)t[p];
}
/* The two values of q's lanes as float32: BF16 by a shift and a mask; F16 for finite values by
   the sign-extended bits shifted into place, the shifted-in sign copies masked off
   (sign | (h & 0x7fff) << 13) and scaled by 2^112, v4_load_f16's result for every finite h
   (subnormals and -0 included) in 2 operations and the scale (unscaled: the caller has put
   2^112 into A). Exponent 31 (inf/NaN) comes out as a finite value of 2^16 and up: callers
   check `seen` and redo such a panel or tile with v4_load_f16. */
static inline __attribute__((always_inline)) void widen16(v4 *lo, v4 *hi, v4i q, const int bf,
                                                          const int unscaled) {
    const int32_t m = (int32_t)0x8fffe000;
    if (bf) {
        *lo = (v4)(q << 16);
        *hi = (v4)(q & (int32_t)0xffff0000);
    } else {
        /* the low half sign-extended times 2^13: one pmaddwd for two shifts */
#if defined(__wasm_simd128__)
        v4i l = (v4i)wasm_i32x4_dot_i16x8((v128_t)q, wasm_i32x4_splat(8192));
#else
        v4i l = (q << 16) >> 3;
#endif
        *lo = (v4)(l & m);
        *hi = (v4)((q >> 3) & m);
        if (!unscaled) {
            *lo *= 0x1p112f;
            *hi *= 0x1p112f;
        }
    }
}
/* seen: the largest h << 1; an exponent of all ones (inf/NaN) from 0xf800 (F16), 0xff00 (BF16) */
static inline int special16_seen(v8u16 seen, const int bf) {
    int any = 0;
    for (int i = 0; i < 8; i++) any |= seen[i] >= (bf ? 0xff00u : 0xf800u);
    return any;
}
#else
#define BL_WIDE16 0
#endif

/* pack_b_16's body for one dtype (bf a constant): full panels of a transposed B eight values
   at a time (wide: t4_16, widen16) then four (4 x 4 transposes), of B (K, N) four at a time,
   the rest one value at a time. Returns 1 if the wide up-cast met an F16 inf or NaN (the
   panels then hold wrong values: the caller packs again with wide 0). */
static inline __attribute__((always_inline)) int pack_b_16_dt(
        float *bp, const uint16_t *b, int ldb, int trans_b, int kc, int nc, const int bf,
        const int NR, const int wide) {
    size_t sk = trans_b ? 1 : (size_t)ldb, sj = trans_b ? (size_t)ldb : 1;   /* strides of k, j */
#if BL_WIDE16
    v8u16 seen = {0};
#endif
    for (int j0 = 0; j0 < nc; j0 += NR, bp += (size_t)kc * NR) {
        int cols = nc - j0 < NR ? nc - j0 : NR, k = 0;
#if BL_WIDE16
        if (wide && trans_b && cols == NR)   /* eight k at a time (t4_16) */
            for (; k + 8 <= kc; k += 8)
                for (int g = 0; g < NR; g += 4) {
                    v4i q[4];
                    t4_16(q, b + (size_t)(j0 + g) * ldb + k, (size_t)ldb, bf ? NULL : &seen);
                    for (int p = 0; p < 4; p++) {
                        v4 lo, hi;
                        widen16(&lo, &hi, q[p], bf, 0);
                        v4_store(bp + (k + 2 * p) * NR + g, lo);
                        v4_store(bp + (k + 2 * p + 1) * NR + g, hi);
                    }
                }
#endif
        if (trans_b && cols == NR)
            for (; k + 4 <= kc; k += 4)
                for (int g = 0; g < NR; g += 4) {
                    const uint16_t *r = b + (size_t)(j0 + g) * ldb + k;
                    const size_t l = (size_t)ldb;
                    if (bf)
                        store_t4s(bp + k * NR + g, NR, v4_load_bf16(r), v4_load_bf16(r + l),
                                  v4_load_bf16(r + 2 * l), v4_load_bf16(r + 3 * l));
                    else
                        store_t4s(bp + k * NR + g, NR, v4_load_f16(r), v4_load_f16(r + l),
                                  v4_load_f16(r + 2 * l), v4_load_f16(r + 3 * l));
                }
        else if (cols == NR)
            for (; k < kc; k++)
                for (int v = 0; v < NR / 4; v++) {
                    const uint16_t *r = b + (size_t)k * ldb + j0 + 4 * v;
                    v4_store(bp + k * NR + 4 * v, bf ? v4_load_bf16(r) : v4_load_f16(r));
                }
        for (; k < kc; k++)
            for (int c = 0; c < NR; c++) {
                float v = 0.0f;
                if (c < cols) {
                    uint16_t h = b[(size_t)k * sk + (size_t)(j0 + c) * sj];
                    v = bf ? bf16_to_f32(h) : bl__f16_to_f32(h);
                }
                bp[k * NR + c] = v;
            }
    }
#if BL_WIDE16
    return wide && !bf && special16_seen(seen, 0);
#else
    (void)wide;
    return 0;
#endif
}

/* pack_b for a 16-bit B (dt F16 or BF16), up-cast exactly on the way: the same panels and
   zero padding. b points at element (0, 0) of the block, in 16-bit values; ldb counts values.
   Not inlined, so as not to double the kernel's code in the page. */
static __attribute__((noinline)) void pack_b_16(float *bp, const uint16_t *b, bl_dtype dt,
                                                int ldb, int trans_b, int kc, int nc, int nr) {
    /* wide 0: an F16 block with an inf or NaN, packed again four exact values at a time (a
       run-time flag: the same code) */
    for (int wide = 1; wide >= 0; wide--) {
        int special = 0;
        if (nr == 8 && dt == BL_DTYPE_BF16) pack_b_16_dt(bp, b, ldb, trans_b, kc, nc, 1, 8, 1);
        else if (nr == 8) special = pack_b_16_dt(bp, b, ldb, trans_b, kc, nc, 0, 8, wide);
#if BL_TILE_3X12
        else if (dt == BL_DTYPE_BF16) pack_b_16_dt(bp, b, ldb, trans_b, kc, nc, 1, 12, 1);
        else special = pack_b_16_dt(bp, b, ldb, trans_b, kc, nc, 0, 12, wide);
#endif
        if (!special) return;
    }
}

/* Four values of B from index i on (dt 0 F32, 1 F16, 2 BF16: a constant), as float32. */
static inline __attribute__((always_inline)) v4 load_b4(const void *b, size_t i, const int dt) {
    if (dt == 0) return v4_load((const float *)b + i);
    if (dt == 1) return v4_load_f16((const uint16_t *)b + i);
    return v4_load_bf16((const uint16_t *)b + i);
}
static inline __attribute__((always_inline)) float load_b1(const void *b, size_t i, const int dt) {
    if (dt == 0) return ((const float *)b)[i];
    uint16_t h = ((const uint16_t *)b)[i];
    return dt == 1 ? bl__f16_to_f32(h) : bf16_to_f32(h);
}

/* How a micro-tile reads B: a packed panel (bp[k][0:NR]), or, for a product of one row tile,
   where B packed would be read once, a transposed B (N, K) in place (b[j * ldb + k]: four
   k-contiguous rows per 4 columns, transposed in registers as packing does; B (K, N) goes
   through rows_stream). Either way each output sums 0 + a0 b0 + a1 b1 + ... in k order with
   the same multiply-add, so the bits do not depend on the mode, the tile or MR. */
enum { B_PACKED, B_COLS };

/* t (MR, NR) = a (MR rows of stride lda, kc columns) @ B (kc, NR), accumulators in registers.
   A is read in place: MR sequential streams, one broadcast load per element (packing A
   measured slower: its copies cost more than the broadcasts from a few streams the hardware
   prefetches anyway). MR, NR, fused (FMA's single-rounding a*b+c), mode and dt are constants;
   MR is the tile's row count, so an edge tile of fewer rows does only its own FMAs. */
static inline __attribute__((always_inline)) void micro_tile(
        float *restrict t, const float *a, int lda, const void *restrict b, int ldb, int kc,
        const int MR, const int NR, const int fused, const int mode, const int dt) {
    const float *ar[MR_MAX];
    for (int r = 0; r < MR; r++) ar[r] = a + (size_t)r * lda;
    v4 c[MR_MAX][NR_MAX / 4];
    for (int r = 0; r < MR; r++)
        for (int v = 0; v < NR / 4; v++) c[r][v] = v4_splat(0.0f);
    int k = 0;
    if (mode == B_COLS)   /* four k at a time: per 4 columns, 4 loads and a transpose */
        for (; k + 4 <= kc; k += 4)
            for (int v = 0; v < NR / 4; v++) {
                v4 q[4];
                size_t i = (size_t)4 * v * ldb + k, l = (size_t)ldb;
                t4(q, load_b4(b, i, dt), load_b4(b, i + l, dt), load_b4(b, i + 2 * l, dt),
                   load_b4(b, i + 3 * l, dt));
                for (int kk = 0; kk < 4; kk++)
                    for (int r = 0; r < MR; r++) {
                        v4 av = v4_splat(ar[r][k + kk]);
                        c[r][v] = fused ? v4_fma(av, q[kk], c[r][v]) : c[r][v] + av * q[kk];
                    }
            }
    for (; k < kc; k++) {
        v4 bv[NR_MAX / 4];
        for (int v = 0; v < NR / 4; v++) {
            if (mode == B_PACKED) bv[v] = v4_load((const float *)b + (size_t)k * NR + 4 * v);
            else {
                size_t i = (size_t)4 * v * ldb + k, l = (size_t)ldb;
                bv[v] = (v4){load_b1(b, i, dt), load_b1(b, i + l, dt), load_b1(b, i + 2 * l, dt),
                             load_b1(b, i + 3 * l, dt)};
            }
        }
        for (int r = 0; r < MR; r++) {
            v4 av = v4_splat(ar[r][k]);
            for (int v = 0; v < NR / 4; v++)
                c[r][v] = fused ? v4_fma(av, bv[v], c[r][v]) : c[r][v] + av * bv[v];
        }
    }
    for (int r = 0; r < MR; r++)
        for (int v = 0; v < NR / 4; v++) v4_store(t + r * NR + 4 * v, c[r][v]);
}

/* The full tiles' kernel, as it was before the edge and in-place modes (written apart: through
   micro_tile's general form the FMA build's large products measured 3-6% slower, A/A 0.3%). */
static inline __attribute__((always_inline)) void micro_full(
        float *restrict t, const float *a, int lda, const float *restrict bp, int kc,
        const int MR, const int NR, const int fused) {
    const float *ar[MR_MAX];
    for (int r = 0; r < MR; r++) ar[r] = a + (size_t)r * lda;
    v4 c[MR_MAX][NR_MAX / 4];
    for (int r = 0; r < MR; r++)
        for (int v = 0; v < NR / 4; v++) c[r][v] = v4_splat(0.0f);
    for (int k = 0; k < kc; k++, bp += NR) {
        v4 b[NR_MAX / 4];
        for (int v = 0; v < NR / 4; v++) b[v] = v4_load(bp + 4 * v);
        for (int r = 0; r < MR; r++) {
            v4 av = v4_splat(ar[r][k]);
            for (int v = 0; v < NR / 4; v++)
                c[r][v] = fused ? v4_fma(av, b[v], c[r][v]) : c[r][v] + av * b[v];
        }
    }
    for (int r = 0; r < MR; r++)
        for (int v = 0; v < NR / 4; v++) v4_store(t + r * NR + 4 * v, c[r][v]);
}

/* micro_tile for 1..MR rows (rows < MR in the edge tile) */
#define MICRO_ROWS(MR, NR, fused, mode, dt)                                                  \
    do {                                                                                     \
        if ((MR) > 3 && rows == 4) micro_tile(t, a, lda, b, ldb, kc, 4, NR, fused, mode, dt); \
        else if ((MR) > 2 && rows == 3) micro_tile(t, a, lda, b, ldb, kc, 3, NR, fused, mode, dt); \
        else if (rows == 2) micro_tile(t, a, lda, b, ldb, kc, 2, NR, fused, mode, dt);      \
        else micro_tile(t, a, lda, b, ldb, kc, 1, NR, fused, mode, dt);                     \
    } while (0)

/* The 4 x 8 tile on a packed panel bp: all 4 rows (rows is for bench_kernels.c), and an edge
   tile of 1-3 rows in a function of its own, so that the full tile's code stays as it was. */
static void micro(float *restrict t, const float *a, int lda, int rows,
                  const float *restrict bp, int kc) {
    (void)rows;
    micro_full(t, a, lda, bp, kc, 4, 8, 0);
}
static __attribute__((noinline)) void micro_edge(float *restrict t, const float *a, int lda,
                                                 int rows, const float *restrict bp, int kc) {
    const void *b = bp;
    const int ldb = 0;
    MICRO_ROWS(3, 8, 0, B_PACKED, 0);
}

/* micro_tile's one-row B_COLS mode for a 16-bit B (N, K) (bf: BF16, else F16), eight k at a
   time (t4_16, widen16), the same sum per output: 0 + a0 b0 + a1 b1 + ... in k order, fused
   as the tile is. Returns 1, t unfinished, for the inputs named below: the caller redoes the
   tile through micro_tile. watch 0: F16 B the caller knows to hold no inf or NaN
   (BL__DTYPE_F16_FINITE), so B is not watched for them: 8 operations per 32 weights fewer,
   11% at 1 x 896 x 4864 (REPORT-kernels.md, session 19). */
#if BL_WIDE16
static inline __attribute__((always_inline)) int micro_16(
        float *restrict t, const float *a, const uint16_t *restrict b, int ldb, int kc,
        const int NR, const int fused, const int bf, const int watch) {
    /* An inf or NaN in A, in the last kc % 8 k, or (F16) anywhere in B sends the tile to the
       caller's kernel: where NaNs meet, the payload kept follows operand order, which this
       code need not share with it. (BF16's eight-k loop is not checked: that cost 40% at
       1 x 896 x 4864; its NaNs are exact, only which of two meeting payloads is kept may
       differ, as between the F32 and 16-bit one-row 3 x 12 kernels before.) F16: A times
       2^112 (exact unless |a| >= 2^16: then also the caller's kernel), so that B's bits need
       no scaling: (a 2^112) (w 2^-112) is a w, rounded once as before. */
    float as[KC] __attribute__((aligned(16)));
    const float *ab = bf ? a : as;
    v4 s0 = v4_splat(0.0f), s1 = s0;   /* inf or NaN if some a (2^112) is, or a sum overflows */
    int k = 0;
    for (; k + 8 <= kc; k += 8) {
        v4 x0 = v4_load(a + k), x1 = v4_load(a + k + 4);
        if (!bf) {
            x0 *= 0x1p112f;
            x1 *= 0x1p112f;
            v4_store(as + k, x0);
            v4_store(as + k + 4, x1);
        }
        s0 += x0;
        s1 += x1;
    }
    float st = v4_hsum(s0 + s1);
    for (int j = k; j < kc; j++) {
        st += a[j];
        for (int c4 = 0; c4 < NR; c4++) {   /* the tail's weights */
            uint16_t h = b[(size_t)c4 * ldb + j];
            if (bf ? (h & 0x7f80) == 0x7f80 : (h & 0x7c00) == 0x7c00) return 1;
        }
    }
    if (!(st - st == 0.0f)) return 1;
    v4 c[NR_MAX / 4];
    for (int v = 0; v < NR / 4; v++) c[v] = v4_splat(0.0f);
    v8u16 seen = {0};
    for (k = 0; k + 8 <= kc; k += 8)
        BL_UNROLL for (int v = 0; v < NR / 4; v++) {   /* (else clang keeps c in memory) */
            v4i q[4];
            t4_16(q, b + (size_t)4 * v * ldb + k, (size_t)ldb, bf || !watch ? NULL : &seen);
            for (int p = 0; p < 4; p++) {
                v4 lo, hi, a0 = v4_splat(ab[k + 2 * p]), a1 = v4_splat(ab[k + 2 * p + 1]);
                widen16(&lo, &hi, q[p], bf, 1);
                c[v] = fused ? v4_fma(a0, lo, c[v]) : c[v] + a0 * lo;
                c[v] = fused ? v4_fma(a1, hi, c[v]) : c[v] + a1 * hi;
            }
        }
    if (!bf && watch && special16_seen(seen, 0)) return 1;
    for (; k < kc; k++) {   /* the last kc % 8: one value at a time */
        v4 av = v4_splat(a[k]);
        for (int v = 0; v < NR / 4; v++) {
            size_t i = (size_t)4 * v * ldb + k, l = (size_t)ldb;
            v4 bv = {load_b1(b, i, 1 + bf), load_b1(b, i + l, 1 + bf),
                     load_b1(b, i + 2 * l, 1 + bf), load_b1(b, i + 3 * l, 1 + bf)};
            c[v] = fused ? v4_fma(av, bv, c[v]) : c[v] + av * bv;
        }
    }
    for (int v = 0; v < NR / 4; v++) v4_store(t + 4 * v, c[v]);
    return 0;
}
/* (watch 0: F16 B known to hold no inf or NaN, BL__DTYPE_F16_FINITE: its watch skipped) */
#define MICRO_16_IN_PLACE(NR, fused)                                                        \
    do {                                                                                    \
        if (dt == 2 && micro_16(t, a, b, ldb, kc, NR, fused, 1, 1))                         \
            micro_tile(t, a, lda, b, ldb, kc, 1, NR, fused, B_COLS, 2);                     \
        else if (dt == 1 && !watch && micro_16(t, a, b, ldb, kc, NR, fused, 0, 0))          \
            micro_tile(t, a, lda, b, ldb, kc, 1, NR, fused, B_COLS, 1);                     \
        else if (dt == 1 && watch && micro_16(t, a, b, ldb, kc, NR, fused, 0, 1))           \
            micro_tile(t, a, lda, b, ldb, kc, 1, NR, fused, B_COLS, 1);                     \
    } while (0)
#else
#define MICRO_16_IN_PLACE(NR, fused)                                                        \
    do {                                                                                    \
        (void)watch;                                                                        \
        if (dt == 1) micro_tile(t, a, lda, b, ldb, kc, 1, NR, fused, B_COLS, 1);            \
        else micro_tile(t, a, lda, b, ldb, kc, 1, NR, fused, B_COLS, 2);                    \
    } while (0)
#endif

/* One row of the 4 x 8 tile on a transposed B (N, K) in place (dt 0-2 as in load_b4). Not
   inlined: the cost is per call, not per k. Only for one row: at 2-4 rows it measured no
   faster than packing (B then serves several rows), and every variant is engine size. */
static __attribute__((noinline)) void micro_in_place(float *restrict t, const float *a, int lda,
                                                     const void *b, int ldb, int dt, int kc,
                                                     int watch) {
    if (dt == 0) micro_tile(t, a, lda, b, ldb, kc, 1, 8, 0, B_COLS, 0);
    else MICRO_16_IN_PLACE(8, 0);
}

#if BL_TILE_3X12
/* The 4 x 8 tile fused as the 3 x 12 one is (the same sums, so the same bits), for F16 B at 2-16
   rows: there F16 packed into 12-wide panels measured 1.07-1.55x slower than into 8-wide ones
   (Node 22 and Chromium; at 32-128 rows Chromium's V8 ran the 3 x 12 tile 1-8% faster:
   REPORT-kernels.md, session 19). 8 accumulators + 2 B vectors + a broadcast. */
static void micro_4x8f(float *restrict t, const float *a, int lda, int rows,
                       const float *restrict bp, int kc) {
    (void)rows;
    micro_full(t, a, lda, bp, kc, 4, 8, BL_HAS_FMA);
}
static __attribute__((noinline)) void micro_4x8f_edge(float *restrict t, const float *a, int lda,
                                                      int rows, const float *restrict bp, int kc) {
    const void *b = bp;
    const int ldb = 0;
    MICRO_ROWS(3, 8, BL_HAS_FMA, B_PACKED, 0);
}
#endif

/* The 3 x 12 tile: fused in the FMA build. Natively (C tests, ASan, fuzzing) it runs unfused
   where the FMA build would fuse, so that its code is checked there too; results are the
   4 x 8 tile's bit for bit. The wasm build without SIMD keeps to 4 x 8. */
#if BL_TILE_3X12
static void micro_3x12(float *restrict t, const float *a, int lda, int rows,
                       const float *restrict bp, int kc) {
    (void)rows;
    micro_full(t, a, lda, bp, kc, 3, 12, BL_HAS_FMA);
}
static __attribute__((noinline)) void micro_3x12_edge(float *restrict t, const float *a, int lda,
                                                      int rows, const float *restrict bp, int kc) {
    const void *b = bp;
    const int ldb = 0;
    MICRO_ROWS(2, 12, BL_HAS_FMA, B_PACKED, 0);
}
static __attribute__((noinline)) void micro_3x12_in_place(float *restrict t, const float *a,
                                                          int lda, const void *b, int ldb, int dt,
                                                          int kc, int watch) {
    if (dt == 0) micro_tile(t, a, lda, b, ldb, kc, 1, 12, BL_HAS_FMA, B_COLS, 0);
    else MICRO_16_IN_PLACE(12, BL_HAS_FMA);
}
#endif
/* acc (R, w; row stride ldc) += a (R rows of stride lda, kb columns) @ B (kb, w), B (K, N)
   read in place along its rows, w a multiple of 8: per 8 columns R x 2 accumulators (one row:
   per 16 columns 4, so that 4 sums are in flight) in registers over kb consecutive k (kb row
   streams of B), then back to acc (L1). Each output gets + a_k b_k in k order, fused as the
   tile is, so starting from acc = 0 at a KC slice it is micro_tile's sum. R <= 4: 8
   accumulators + 2 B vectors + a broadcast (V8: 15 xmm). */
#define STREAM_KB 8       /* k per visit of acc (8 row streams of B; 16 and 32 measured slower) */
#define STREAM_V1 4       /* vectors at one row (1 x 896 x 4864, 8 k: 2 14.1, 4 15.3, 6 10.8) */
#define STREAM_KB1 16     /* k per visit at one row (4 vectors: 8 k 15.3 GFLOPS, 16 k 20.1) */
#define STREAM_ACC 6144   /* floats of accumulators (24 KiB, L1): one row takes 6144 columns */
static inline __attribute__((always_inline)) void stream_cols(
        float *restrict acc, int ldc, const float *const *ar, const char *restrict b, size_t lb,
        int kb, const int R, const int V, const int fused, const int dt) {
    v4 c[4][STREAM_V1];
    for (int r = 0; r < R; r++)
        for (int v = 0; v < V; v++) c[r][v] = v4_load(acc + r * ldc + 4 * v);
    for (int k = 0; k < kb; k++, b += lb) {
        v4 bv[STREAM_V1];
        for (int v = 0; v < V; v++) bv[v] = load_b4(b, 4 * v, dt);
        for (int r = 0; r < R; r++) {
            v4 av = v4_splat(ar[r][k]);
            for (int v = 0; v < V; v++)
                c[r][v] = fused ? v4_fma(av, bv[v], c[r][v]) : c[r][v] + av * bv[v];
        }
    }
    for (int r = 0; r < R; r++)
        for (int v = 0; v < V; v++) v4_store(acc + r * ldc + 4 * v, c[r][v]);
}
static inline __attribute__((always_inline)) void rows_stream(
        float *restrict acc, int ldc, const float *a, int lda, const void *restrict b, int ldb,
        int kb, int w, const int R, const int fused, const int dt) {
    const size_t es = dt == 0 ? 4 : 2, lb = (size_t)ldb * es;   /* bytes per row of B */
    const float *ar[4];
    for (int r = 0; r < R; r++) ar[r] = a + (size_t)r * lda;
    const int V = R == 1 ? STREAM_V1 : 2;   /* one row: more sums in flight for the latency */
    int j = 0;
    for (; j + 4 * V <= w; j += 4 * V)
        stream_cols(acc + j, ldc, ar, (const char *)b + j * es, lb, kb, R, V, fused, dt);
    for (; V > 2 && j < w; j += 8)
        stream_cols(acc + j, ldc, ar, (const char *)b + j * es, lb, kb, R, 2, fused, dt);
}
#define STREAM_ROWS(fused, dt)                                                              \
    do {                                                                                    \
        if (rows == 4) rows_stream(acc, ldc, a, lda, b, ldb, kb, w, 4, fused, dt);          \
        else if (rows == 3) rows_stream(acc, ldc, a, lda, b, ldb, kb, w, 3, fused, dt);     \
        else if (rows == 2) rows_stream(acc, ldc, a, lda, b, ldb, kb, w, 2, fused, dt);     \
        else rows_stream(acc, ldc, a, lda, b, ldb, kb, w, 1, fused, dt);                    \
    } while (0)
/* rows_stream for 1-4 rows, fused in the 3 x 12 tile's products of the FMA build. */
static __attribute__((noinline)) void stream_rows(float *restrict acc, int ldc, const float *a,
                                                  int lda, int rows, const void *b, int ldb,
                                                  int dt, int kb, int w, int fused) {
    if (BL_HAS_FMA && fused && dt == 0) STREAM_ROWS(1, 0);   /* (only the FMA build fuses) */
    else if (BL_HAS_FMA && fused && dt == 1) STREAM_ROWS(1, 1);
    else if (BL_HAS_FMA && fused) STREAM_ROWS(1, 2);
    else if (dt == 0) STREAM_ROWS(0, 0);
    else if (dt == 1) STREAM_ROWS(0, 1);
    else STREAM_ROWS(0, 2);
}
/* acc (M, w; row stride w) = a (M rows, kc columns) @ B (kc, w) for M <= 8: zeroed, then kb
   rows of B at a time for each group of up to 4 rows (a group's kb x w of B is read again by
   the next from L1). es: bytes per value of B. */
static void stream(float *restrict acc, const float *a, int lda, int M, const void *b, int ldb,
                   int dt, size_t es, int kc, int w, int fused) {
    for (int i = 0; i < M * w; i += 4) v4_store(acc + i, v4_splat(0.0f));
    int kbm = M == 1 ? STREAM_KB1 : STREAM_KB;
    for (int k = 0; k < kc; k += kbm) {
        int kb = kc - k < kbm ? kc - k : kbm;
        for (int i = 0; i < M; i += 4)
            stream_rows(acc + (size_t)i * w, w, a + (size_t)i * lda + k, lda, M - i < 4 ? M - i : 4,
                        (const char *)b + (size_t)k * ldb * es, ldb, dt, kb, w, fused);
    }
}

/* The packed micro-tile for `rows` rows of the MR x NR tile (F8: the fused 4 x 8 one). */
static inline __attribute__((always_inline)) void micro_packed(
        float *restrict t, const float *a, int lda, int rows, const float *restrict bp, int kc,
        const int MR, const int NR, const int F8) {
#if BL_TILE_3X12
    if (F8 && rows == MR) micro_4x8f(t, a, lda, rows, bp, kc);
    else if (F8) micro_4x8f_edge(t, a, lda, rows, bp, kc);
    else if (NR == 12 && rows == MR) micro_3x12(t, a, lda, rows, bp, kc);
    else if (NR == 12) micro_3x12_edge(t, a, lda, rows, bp, kc);
    else
#endif
    if (rows == MR) micro(t, a, lda, rows, bp, kc);
    else micro_edge(t, a, lda, rows, bp, kc);
}

/* From this many multiply-adds on, a product uses FMA. Below it (every figure at the page's
   own sizes) results stay bit-identical to the SIMD build and to Node, so exports match. */
#define FMA_MIN_MACS (1u << 20)

/* Off until the loader has seen the runtime validate relaxed SIMD: elsewhere it loads this
   module with every FMA instruction replaced by one of the same shape (see engine-load.js),
   and micro_fused must never run. */
static int fma_on;
void bl__set_fma(int on) { fma_on = on; }

/* Writes a finished micro-tile t (rows, cols; row stride nr) into C. Slices after the first
   add what C holds; the last adds the bias, writes pre (optional) and C = act(pre). */
static void tile_out(float *c, int ldc, float *pre, const float *t, int nr, const float *bias,
                     int rows, int cols, int first, int last, bl_activation act) {
    for (int r = 0; r < rows; r++) {
        float *cr = c + (size_t)r * ldc, *pr = pre ? pre + (size_t)r * ldc : NULL;
        const float *tr = t + r * nr;
        int j = 0;
        for (; j + 4 <= cols; j += 4) {
            v4 v = v4_load(tr + j);
            if (!first) v += v4_load(cr + j);
            if (last) {
                if (bias) v += v4_load(bias + j);
                if (pr) v4_store(pr + j, v);
                if (act != BL_ACT_IDENTITY) v = v4_act(v, act);
            }
            v4_store(cr + j, v);
        }
        for (; j < cols; j++) {
            float v = tr[j] + (first ? 0.0f : cr[j]);
            if (last) {
                if (bias) v += bias[j];
                if (pr) pr[j] = v;
                v = bl__act(v, act);
            }
            cr[j] = v;
        }
    }
}

/* The blocked loops for one tile (MR, NR, NC constants; F8: 4 x 8 fused, never for one row of
   a transposed B, whose in-place kernel at 8 columns is not fused). */
static inline __attribute__((always_inline)) void gemm_blocked(
        float *c, int ldc, float *pre, const float *a, int lda, const void *b, bl_dtype bt,
        int ldb, int trans_b, const float *bias, int M, int K, int N, bl_activation act,
        int watch, const int MR, const int NR, const int NC, const int F8) {
    float bp[KC * NC_MAX] __attribute__((aligned(16)));
    float t[MR_MAX * NR_MAX] __attribute__((aligned(16)));
    /* Not packed where each value of B is used once or streamed: one row tile of B (K, N), one
       row of B (N, K), and F32 B (K, N) up to 8 rows (streamed once for all rows: packing cost
       as much as the multiply-adds). B (N, K) at 2-8 rows stays packed for every dtype: F32
       kernels of its own gave logits other than the F16/BF16 twin's (fuzz_llama; most likely
       NaN payloads, which follow each kernel's operand order). */
    if ((M <= MR && (M == 1 || !trans_b)) || (bt == BL_DTYPE_F32 && !trans_b && M <= 8)) {
        int dt = bt == BL_DTYPE_F32 ? 0 : bt == BL_DTYPE_F16 ? 1 : 2;
        size_t es = bt == BL_DTYPE_F32 ? 4 : 2;
        int j = 0;
        if (!trans_b) {   /* columns in eights, streamed along B's rows */
            float acc[STREAM_ACC] __attribute__((aligned(16)));
            int nv = N / 8 * 8, sw = STREAM_ACC / M / 8 * 8;   /* columns per pass */
            for (; j < nv; j += sw) {
                int w = nv - j < sw ? nv - j : sw;
                for (int pc = 0; pc < K; pc += KC) {
                    int kc = K - pc < KC ? K - pc : KC;
                    stream(acc, a + pc, lda, M, (const char *)b + ((size_t)pc * ldb + j) * es,
                           ldb, dt, es, kc, w, BL_HAS_FMA && (NR == 12 || F8));
                    tile_out(c + j, ldc, pre ? pre + j : NULL, acc, w, bias ? bias + j : NULL,
                             M, w, pc == 0, pc + kc == K, act);
                }
            }
            j = nv;
        }
        for (; j < N; j += NR) {
            int cols = N - j < NR ? N - j : NR;
            for (int pc = 0; pc < K; pc += KC) {
                int kc = K - pc < KC ? K - pc : KC, first = pc == 0, last = pc + kc == K;
                size_t at = trans_b ? (size_t)j * ldb + pc : (size_t)pc * ldb + j;
                const void *bj = (const char *)b + at * es;
                if (cols < NR || !trans_b) {   /* the last columns: packed, zero-padded */
                    if (bt == BL_DTYPE_F32) pack_b_nr(bp, bj, ldb, trans_b, kc, cols, NR);
                    else pack_b_16(bp, bj, bt, ldb, trans_b, kc, cols, NR);
                    for (int i = 0; i < M; i += MR) {
                        int rows = M - i < MR ? M - i : MR;
                        size_t o = (size_t)i * ldc + j;
                        micro_packed(t, a + (size_t)i * lda + pc, lda, rows, bp, kc, MR, NR, F8);
                        tile_out(c + o, ldc, pre ? pre + o : NULL, t, NR, bias ? bias + j : NULL,
                                 rows, cols, first, last, act);
                    }
                    continue;
                }
#if BL_TILE_3X12
                if (NR == 12) micro_3x12_in_place(t, a + pc, lda, bj, ldb, dt, kc, watch);
                else
#endif
                micro_in_place(t, a + pc, lda, bj, ldb, dt, kc, watch);
                tile_out(c + j, ldc, pre ? pre + j : NULL, t, NR, bias ? bias + j : NULL, M, cols,
                         first, last, act);
            }
        }
        return;
    }
    for (int jc = 0; jc < N; jc += NC) {
        int nc = N - jc < NC ? N - jc : NC;
        for (int pc = 0; pc < K; pc += KC) {
            int kc = K - pc < KC ? K - pc : KC, first = pc == 0, last = pc + kc == K;
            size_t at = trans_b ? (size_t)jc * ldb + pc : (size_t)pc * ldb + jc;
            if (bt == BL_DTYPE_F32) pack_b_nr(bp, (const float *)b + at, ldb, trans_b, kc, nc, NR);
            else pack_b_16(bp, (const uint16_t *)b + at, bt, ldb, trans_b, kc, nc, NR);
            for (int i = 0; i < M; i += MR) {
                int rows = M - i < MR ? M - i : MR;
                const float *ai = a + (size_t)i * lda + pc;
                for (int j = 0; j < nc; j += NR) {
                    int cols = nc - j < NR ? nc - j : NR;
                    micro_packed(t, ai, lda, rows, bp + (size_t)j * kc, kc, MR, NR, F8);
                    size_t o = (size_t)i * ldc + jc + j;
                    tile_out(c + o, ldc, pre ? pre + o : NULL, t, NR, bias ? bias + jc + j : NULL,
                             rows, cols, first, last, act);
                }
            }
        }
    }
}

/* One function per tile, so that only one packing buffer is on the stack at a time. */
static __attribute__((noinline)) void gemm_4x8(
        float *c, int ldc, float *pre, const float *a, int lda, const void *b, bl_dtype bt,
        int ldb, int trans_b, const float *bias, int M, int K, int N, bl_activation act,
        int watch) {
    gemm_blocked(c, ldc, pre, a, lda, b, bt, ldb, trans_b, bias, M, K, N, act, watch, 4, 8, 32, 0);
}
#if BL_TILE_3X12
static __attribute__((noinline)) void gemm_3x12(
        float *c, int ldc, float *pre, const float *a, int lda, const void *b, bl_dtype bt,
        int ldb, int trans_b, const float *bias, int M, int K, int N, bl_activation act,
        int watch) {
    gemm_blocked(c, ldc, pre, a, lda, b, bt, ldb, trans_b, bias, M, K, N, act, watch, 3, 12, 36, 0);
}
static __attribute__((noinline)) void gemm_4x8f(
        float *c, int ldc, float *pre, const float *a, int lda, const void *b, bl_dtype bt,
        int ldb, int trans_b, const float *bias, int M, int K, int N, bl_activation act,
        int watch) {
    gemm_blocked(c, ldc, pre, a, lda, b, bt, ldb, trans_b, bias, M, K, N, act, watch, 4, 8, 32, 1);
}
#endif

void bl__gemm_typed(float *c, int ldc, float *pre, const float *a, int lda, const void *b,
                    bl_dtype bt, int ldb, int trans_b, const float *bias, int M, int K, int N,
                    bl_activation act) {
    bl__gemm_typed_as(c, ldc, pre, a, lda, b, bt, ldb, trans_b, bias, M, K, N, act,
                      (uint64_t)M * (uint64_t)K * (uint64_t)N);
}

/* (The 3 x 12 and 4 x 8f tiles are the fused ones in the FMA build: `macs` picks fusing as a
   product of that many multiply-adds would, so the lens's row blocks round as the forward's whole
   product; which of the two is used does not change the bits.) */
void bl__gemm_typed_as(float *c, int ldc, float *pre, const float *a, int lda, const void *b,
                       bl_dtype bt, int ldb, int trans_b, const float *bias, int M, int K, int N,
                       bl_activation act, uint64_t macs) {
    int watch = bt != BL__DTYPE_F16_FINITE;
    if (!watch) bt = BL_DTYPE_F16;
#if BL_TILE_3X12
    if ((fma_on || !BL_HAS_FMA) && macs >= FMA_MIN_MACS) {
        if (bt == BL_DTYPE_F16 && M >= 2 && M <= 16) {   /* (see micro_4x8f) */
            gemm_4x8f(c, ldc, pre, a, lda, b, bt, ldb, trans_b, bias, M, K, N, act, watch);
            return;
        }
        gemm_3x12(c, ldc, pre, a, lda, b, bt, ldb, trans_b, bias, M, K, N, act, watch);
        return;
    }
#else
    (void)macs;
#endif
    gemm_4x8(c, ldc, pre, a, lda, b, bt, ldb, trans_b, bias, M, K, N, act, watch);
}

void bl__gemm(float *c, int ldc, float *pre, const float *a, int lda, const float *b, int ldb,
              int trans_b, const float *bias, int M, int K, int N, bl_activation act) {
    bl__gemm_typed(c, ldc, pre, a, lda, b, BL_DTYPE_F32, ldb, trans_b, bias, M, K, N, act);
}

void bl__matmul_act(float *out, float *pre, const float *x, const float *w, const float *b,
                    int M, int K, int N, bl_activation act) {
    bl__gemm(out, N, pre, x, K, w, N, 0, b, M, K, N, act);
}

void bl__matmul(float *out, const float *x, const float *w, const float *b, int M, int K, int N) {
    bl__gemm(out, N, NULL, x, K, w, N, 0, b, M, K, N, BL_ACT_IDENTITY);
}

bl_status bl_linear_forward(float *out, const float *x, const float *w, const float *b,
                            int M, int K, int N, bl_error *err) {
    BL__CHECK(bl__check_dim(err, "M", M));
    BL__CHECK(bl__check_dim(err, "K", K));
    BL__CHECK(bl__check_dim(err, "N", N));
    BL__CHECK(bl__check_elems(err, "x", (uint64_t)M, (uint64_t)K));
    BL__CHECK(bl__check_elems(err, "w", (uint64_t)K, (uint64_t)N));
    BL__CHECK(bl__check_elems(err, "out", (uint64_t)M, (uint64_t)N));
    BL__CHECK(bl__check_ptr(err, "out", out));
    BL__CHECK(bl__check_ptr(err, "x", x));
    BL__CHECK(bl__check_ptr(err, "w", w));
    bl__matmul(out, x, w, b, M, K, N);
    bl__ok(err);
    return BL_OK;
}
