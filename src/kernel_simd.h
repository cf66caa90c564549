/* kernel_simd.h - 4-wide float vectors for the kernels (GCC/clang vector extensions: wasm
   simd128 under -msimd128, SSE natively, plain scalars in the wasm build without SIMD) and
   the vector math the epilogues need: exp, erf, and the activations built on them.
   Accuracy: exp within 2 ulp, erf within 2e-7 absolute (Eigen's rational fit), far inside
   the fixtures' 2e-5 tolerances. */
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

/* e^x (Cephes expf): x = n ln2 + r, |r| <= ln2/2, degree-6 polynomial, 2^n via the exponent
   bits. Inputs are clamped to [-87.3, 88.7]: tiny results flush to ~1e-38, never NaN.
   -INFINITY in gives ~0 out; callers that need an exact 0 mask it. */
static inline v4 v4_exp(v4 x) {
    x = v4_min(v4_max(x, v4_splat(-87.33654f)), v4_splat(88.72283f));
    v4 fx = x * 1.44269504088896341f + 0.5f;
#if defined(__wasm_simd128__)
    v4 fn = (v4)wasm_f32x4_floor((v128_t)fx);                /* fx in [-125.5, 128.5]: exact */
#else
    v4 fn = __builtin_convertvector(__builtin_convertvector(fx, v4i), v4);   /* truncate ... */
    v4i gt = (v4i)(fn > fx);                                  /* ... then floor */
    fn -= (v4)(gt & (v4i)v4_splat(1.0f));
#endif
    v4i n = __builtin_convertvector(fn, v4i);
    v4 r = x - fn * 0.693359375f + fn * 2.12194440e-4f;
    v4 r2 = r * r;
    v4 p = v4_splat(1.9875691500e-4f);
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r2 + r + 1.0f;
    /* n in [-126, 128]: build 2^n in two halves so that n = 128 cannot overflow the exponent */
    v4i h = n >> 1;
    v4 s1 = (v4)((h + 127) << 23), s2 = (v4)((n - h + 127) << 23);
    return p * s1 * s2;
}

/* erf(x): Eigen's rational approximation on [-4, 4] (erf is +-1 to float precision beyond). */
static inline v4 v4_erf(v4 x) {
    x = v4_min(v4_max(x, v4_splat(-4.0f)), v4_splat(4.0f));
    v4 x2 = x * x;
    v4 p = v4_splat(-2.72614225801306e-10f);
    p = p * x2 + 2.77068142495902e-08f;
    p = p * x2 + -2.10102402082508e-06f;
    p = p * x2 + -5.69250639462346e-05f;
    p = p * x2 + -7.34990630326855e-04f;
    p = p * x2 + -2.95459980854025e-03f;
    p = p * x2 + -1.60960333262415e-02f;
    p = p * x;
    v4 q = v4_splat(-1.45660718464996e-05f);
    q = q * x2 + -2.13374055278905e-04f;
    q = q * x2 + -1.68282697438203e-03f;
    q = q * x2 + -7.37332916720468e-03f;
    q = q * x2 + -1.42647390514189e-02f;
    return p / q;
}

/* act(v) for the epilogues: the same formulas bl__act applies to one value. */
static inline v4 v4_act(v4 v, bl_activation act) {
    switch (act) {
    case BL_ACT_RELU: return v4_max(v, v4_splat(0.0f));
    case BL_ACT_GELU:
    case BL_ACT_GEGLU: return 0.5f * v * (1.0f + v4_erf(v * 0.70710678118654752f));
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
