/* kernel_simd.h - 4-wide float vectors for the kernels (GCC/clang vector extensions: wasm
   simd128 under -msimd128, SSE natively, plain scalars in the wasm build without SIMD) and
   the vector math the epilogues need: exp, erfc (inside gelu), and the activations built on
   them. Accuracy: exp within 2 ulp; gelu within 4.1e-7 relative of a float64 one wherever its
   value is a normal float32 (tests/c/test_gelu.c), far inside the fixtures' 2e-5 tolerances. */
#ifndef BL_KERNEL_SIMD_H
#define BL_KERNEL_SIMD_H

#include <stdint.h>
#include <string.h>
#include "bl_internal.h"

typedef float v4 __attribute__((vector_size(16)));
typedef int32_t v4i __attribute__((vector_size(16)));

static inline v4 v4_load(const float *p) { v4 v; memcpy(&v, p, sizeof v); return v; }
static inline void v4_store(float *p, v4 v) { memcpy(p, &v, sizeof v); }
static inline v4 v4_splat(float a) { return (v4){a, a, a, a}; }
#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
/* pmin(b, a) = a < b ? a : b and pmax(b, a) = b < a ? a : b, lane for lane the generic
   selects below (NaN and signed zeros included), one instruction each */
static inline v4 v4_min(v4 a, v4 b) { return (v4)wasm_f32x4_pmin((v128_t)b, (v128_t)a); }
static inline v4 v4_max(v4 a, v4 b) { return (v4)wasm_f32x4_pmax((v128_t)b, (v128_t)a); }
#else
static inline v4 v4_min(v4 a, v4 b) { return (v4)(((v4i)(a < b) & (v4i)a) | (~(v4i)(a < b) & (v4i)b)); }
static inline v4 v4_max(v4 a, v4 b) { return (v4)(((v4i)(a > b) & (v4i)a) | (~(v4i)(a > b) & (v4i)b)); }
#endif
/* a * b + c. In the wasm SIMD module (-mrelaxed-simd -DBL_FMA) it rounds once: clang 14's
   prototype f32x4.fma, rewritten to the standard f32x4.relaxed_madd (a * b + c) by
   tools/relax.js after linking; only used when the loader switched FMA on (bl__set_fma).
   Elsewhere a multiply and an add. */
#if defined(BL_FMA) && defined(__wasm_relaxed_simd__)
#define BL_HAS_FMA 1
static inline v4 v4_fma(v4 a, v4 b, v4 c) { return (v4)__builtin_wasm_fma_f32x4((v128_t)a, (v128_t)b, (v128_t)c); }
#else
#define BL_HAS_FMA 0
static inline v4 v4_fma(v4 a, v4 b, v4 c) { return a * b + c; }
#endif
static inline float v4_hsum(v4 a) { return (a[0] + a[1]) + (a[2] + a[3]); }
static inline float v4_hmax(v4 a) {
    float m01 = a[0] > a[1] ? a[0] : a[1], m23 = a[2] > a[3] ? a[2] : a[3];
    return m01 > m23 ? m01 : m23;
}

/* floor(x) for |x| < 2^31 */
static inline v4 v4_floor(v4 x) {
#if defined(__wasm_simd128__)
    return (v4)wasm_f32x4_floor((v128_t)x);
#else
    v4 t = __builtin_convertvector(__builtin_convertvector(x, v4i), v4);   /* truncate ... */
    return t - (v4)((v4i)(t > x) & (v4i)v4_splat(1.0f));                   /* ... then floor */
#endif
}
/* e^r for |r| <= ln2/2 (Cephes expf's degree-6 polynomial) */
static inline v4 v4_exp_poly(v4 r) {
    v4 r2 = r * r;
    v4 p = v4_splat(1.9875691500e-4f);
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    return p * r2 + r + 1.0f;
}
/* (m * 2^n) for n in [-252, 252], m a normal float: 2^n in two halves, neither of which can
   leave the exponent range, so the product rounds once (also into the subnormals) */
static inline v4 v4_pow2(v4i n, v4 m) {
    v4i h = n >> 1;
    v4 s1 = (v4)((h + 127) << 23), s2 = (v4)((n - h + 127) << 23);
    return m * s1 * s2;
}
/* lanes of a where mask (all ones), of b elsewhere */
static inline v4 v4_select(v4i mask, v4 a, v4 b) { return (v4)((mask & (v4i)a) | (~mask & (v4i)b)); }

/* e^x (Cephes expf): x = n ln2 + r, |r| <= ln2/2, degree-6 polynomial, 2^n via the exponent
   bits. Inputs are clamped to [-87.3, 88.7]: tiny results flush to ~1e-38, never NaN.
   -INFINITY in gives ~0 out; callers that need an exact 0 mask it. */
static inline v4 v4_exp(v4 x) {
    x = v4_min(v4_max(x, v4_splat(-87.33654f)), v4_splat(88.72283f));
    v4 fn = v4_floor(x * 1.44269504088896341f + 0.5f);       /* in [-126, 128] */
    v4i n = __builtin_convertvector(fn, v4i);
    v4 r = x - fn * 0.693359375f + fn * 2.12194440e-4f;
    return v4_pow2(n, v4_exp_poly(r));
}

/* gelu(x) = x Phi(x) = 0.5 x erfc(-x / sqrt2), through erfc so that the tail keeps its
   relative accuracy (1 + erf(x / sqrt2) cancels for x < -3). With a = |x| and z = a / sqrt2:
   erfc(z) = t exp(-z^2 + c(t)), t = 1 / (1 + z / 2) (Numerical Recipes' erfcc, a Chebyshev
   fit of relative error < 1.2e-7 for every z >= 0); z^2 = a^2 / 2 is split into an exact part
   (a with 12 mantissa bits, squared) and a small one, which the exp reduction adds after the
   big one cancels. Then gelu = w = 0.5 x t e^(...) for x < 0, x - w for x >= 0: never
   positive for x < 0. Measured against a float64 gelu on [-16, 10]: absolute error 2.4e-7,
   relative 4.1e-7 down to x = -13.146 (|gelu| = 2^-126), then -0. NaN stays NaN. */
static inline v4 v4_gelu(v4 x) {
    /* Below x = -13.1462469, |gelu| < 2^-126: -0 there rather than a subnormal, which x86
       multiplies (here and in the next matmul) at a fraction of the speed. a = |x|, cut where
       the result is settled (x itself from 9 on, -0 below the threshold; NaN -> 9). */
    v4i neg = (v4i)(x < 0.0f), zero = (v4i)(x < -13.1462469f);
    v4 a = v4_min((v4)((v4i)x & 0x7fffffff), v4_select(neg, v4_splat(14.0f), v4_splat(9.0f)));
    a = v4_select(zero, v4_splat(0.0f), a);
    v4 t = 1.0f / (1.0f + 0.35355339059327376f * a);
    /* c(t), degree 9: Horner for the two low terms, whose roundings set the accuracy, and
       Estrin's pairs for the eight high ones, a chain of 5 multiply-adds instead of 9 (gelu is
       latency-bound one vector at a time in the epilogues) */
    v4 t2 = t * t, t4 = t2 * t2;
    v4 h = ((0.37409196f + 0.09678418f * t) + (-0.18628806f + 0.27886807f * t) * t2) +
           ((-1.13520398f + 1.48851587f * t) + (-0.82215223f + 0.17087277f * t) * t2) * t4;
    v4 c = h * t + 1.00002368f;
    c = c * t + -1.26551223f;
    v4 ah = (v4)((v4i)a & (int32_t)0xfffff000), al = a - ah;
    v4 hi = -0.5f * ah * ah;                              /* exact */
    v4 lo = c - 0.5f * al * (a + ah);
    v4 fn = v4_floor((hi + lo) * 1.44269504088896341f + 0.5f);   /* in [-127, 0] */
    v4 r = (hi - fn * 0.693359375f) + lo + fn * 2.12194440e-4f;
    v4 xs = (v4)((v4i)a | ((v4i)x & (int32_t)0x80000000));   /* x with its magnitude cut */
    v4 w = v4_pow2(__builtin_convertvector(fn, v4i), v4_exp_poly(r) * (0.5f * xs * t));
    return v4_select(zero, v4_splat(-0.0f), v4_select(neg, w, x - w));
}

/* act(v) for the epilogues: the same formulas bl__act applies to one value. */
static inline v4 v4_act(v4 v, bl_activation act) {
    switch (act) {
    case BL_ACT_RELU: return v4_max(v, v4_splat(0.0f));
    case BL_ACT_GELU:
    case BL_ACT_GEGLU: return v4_gelu(v);
    case BL_ACT_GELU_TANH: {   /* 0.5 v (1 + tanh(u)) = v / (1 + e^(-2u)) */
        v4 u = 0.79788456080286536f * (v + 0.044715f * v * v * v);
        return v / (1.0f + v4_exp(-2.0f * u));
    }
    case BL_ACT_SILU:
    case BL_ACT_SWIGLU: return v / (1.0f + v4_exp(-v));
    case BL_ACT_IDENTITY:
    default: return v;
    }
}

#endif
