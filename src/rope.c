/* rope.c - rotary position embeddings as Hugging Face applies them (rotate_half): the
   frequencies (plain, or rescaled as rope_type "llama3"), a cos / sin table per position, and
   the rotation of every head of q or k. Angles are computed in double, then rounded once. The
   few double functions this needs are written here (libm's pow, cos and sin would add 14 KB
   to each wasm build of the page's one script); tests/c/test_llama.c checks them against libm. */
#include <math.h>
#include "bl_internal.h"
#include "kernel_simd.h"

/* e^x for x in [-700, 0]: x = n ln2 + r, |r| <= ln2 / 2 (Cody-Waite: ln2 in a 32-bit head,
   n's product exact, and a tail), Taylor to r^14 (below 1e-16 relative), then halved -n times
   (exact). */
double bl__exp_neg(double x) {
    const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
    double n = floor(x / M_LN2 + 0.5), r = (x - n * ln2_hi) - n * ln2_lo, t = 1.0, e = 1.0;
    for (int k = 1; k <= 14; k++) e += t *= r / k;
    for (int i = (int)-n; i > 0; i--) e *= 0.5;
    return e;
}

/* cos and sin of a in [0, 2^20): a = q pi/2 + r, |r| <= pi/4 (Cody-Waite: pi/2 in a 33-bit
   head, q's product exact, and a tail), Taylor to r^16 (below 1e-16), the quadrant from q. */
void bl__cos_sin(double a, double *c, double *s) {
    const double pio2_hi = 1.57079632673412561417e+00, pio2_lo = 6.07710050650619224932e-11;
    double q = floor(a * M_2_PI + 0.5), r = (a - q * pio2_hi) - q * pio2_lo, r2 = r * r;
    double sr = 1.0, cr = 1.0;
    for (int k = 16; k >= 2; k -= 2) {   /* Horner on the Taylor series of sin(r)/r and cos(r) */
        sr = 1.0 - r2 / ((k + 1) * k) * sr;
        cr = 1.0 - r2 / (k * (k - 1)) * cr;
    }
    sr *= r;
    switch ((long)q & 3) {
    case 0: *c = cr; *s = sr; break;
    case 1: *c = -sr; *s = cr; break;
    case 2: *c = -cr; *s = -sr; break;
    default: *c = sr; *s = -cr; break;
    }
}

/* inv_freq[c] (c < head_dim / 2) of these settings; the caller checked them. */
static double inv_freq(const bl_llama_desc *d, int c, int head_dim) {
    double theta = d->rope_theta == 0.0f ? 10000.0 : (double)d->rope_theta;
    double f = bl__exp_neg(-2.0 * c / head_dim * log(theta));   /* theta^(-2c / head_dim) */
    if (d->rope_type != BL_ROPE_LLAMA3) return f;
    /* HF's _compute_llama3_parameters: long wavelengths slowed by factor, short ones kept,
       the band between blended by where the wavelength falls */
    double factor = d->rope_factor, lo = d->rope_low_freq_factor, hi = d->rope_high_freq_factor;
    double old = d->rope_original_max_positions, wavelen = 2.0 * M_PI / f;
    if (wavelen > old / lo) return f / factor;
    if (wavelen < old / hi) return f;
    double smooth = (old / wavelen - lo) / (hi - lo);
    return (1.0 - smooth) * f / factor + smooth * f;
}

/* cos_t, sin_t (L, head_dim / 2): the angle pos * inv_freq[c] of position pos, pair c. */
void bl__rope_table(float *cos_t, float *sin_t, const bl_llama_desc *d, int L, int head_dim) {
    int half = head_dim / 2;
    for (int c = 0; c < half; c++) {
        double f = inv_freq(d, c, head_dim);
        for (int pos = 0; pos < L; pos++) {
            double co, si;
            bl__cos_sin(pos * f, &co, &si);
            cos_t[(size_t)pos * half + c] = (float)co;
            sin_t[(size_t)pos * half + c] = (float)si;
        }
    }
}

/* out (L, heads * head_dim) = RoPE(x (L, heads * head_dim)), each head on its own: value c
   (c < half) paired with c + half, as HF's x * cos + rotate_half(x) * sin. out may equal x (the
   forward rotates in place). Written 4 wide by hand: clang's own vectors guard against overlap
   and fall back to scalars when out is x; each value is the same two products and one sum. */
void bl__rope_apply(float *out, const float *x, const float *cos_t, const float *sin_t, int L,
                    int heads, int head_dim) {
    int half = head_dim / 2, body = half & ~3;
    size_t row = (size_t)heads * head_dim;
    for (int i = 0; i < L; i++) {
        const float *co = cos_t + (size_t)i * half, *si = sin_t + (size_t)i * half;
        for (int h = 0; h < heads; h++) {
            const float *a = x + i * row + (size_t)h * head_dim, *b = a + half;
            float *oa = out + i * row + (size_t)h * head_dim, *ob = oa + half;
            int c = 0;
            for (; c < body; c += 4) {
                v4 xa = v4_load(a + c), xb = v4_load(b + c), vc = v4_load(co + c);
                v4 vs = v4_load(si + c);
                v4_store(oa + c, xa * vc + -xb * vs);
                v4_store(ob + c, xb * vc + xa * vs);
            }
            for (; c < half; c++) {
                float xa = a[c], xb = b[c];
                oa[c] = xa * co[c] + -xb * si[c];
                ob[c] = xb * co[c] + xa * si[c];
            }
        }
    }
}
