/* rope.c - rotary position embeddings as Hugging Face applies them (rotate_half): the
   frequencies (plain, or rescaled as rope_type "llama3"), a cos / sin table per position, and
   the rotation of every head of q or k. Angles are computed in double, then rounded once. */
#include <math.h>
#include "bl_internal.h"

/* inv_freq[c] (c < head_dim / 2) of these settings; the caller checked them. */
static double inv_freq(const bl_llama_desc *d, int c, int head_dim) {
    double theta = d->rope_theta == 0.0f ? 10000.0 : (double)d->rope_theta;
    double f = 1.0 / pow(theta, 2.0 * c / head_dim);
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
            double a = pos * f;
            cos_t[(size_t)pos * half + c] = (float)cos(a);
            sin_t[(size_t)pos * half + c] = (float)sin(a);
        }
    }
}

/* out (L, heads * head_dim) = RoPE(x (L, heads * head_dim)), each head on its own: value c
   (c < half) paired with c + half, as HF's x * cos + rotate_half(x) * sin. */
void bl__rope_apply(float *out, const float *x, const float *cos_t, const float *sin_t, int L,
                    int heads, int head_dim) {
    int half = head_dim / 2;
    size_t row = (size_t)heads * head_dim;
    for (int i = 0; i < L; i++) {
        const float *co = cos_t + (size_t)i * half, *si = sin_t + (size_t)i * half;
        for (int h = 0; h < heads; h++) {
            const float *a = x + i * row + (size_t)h * head_dim, *b = a + half;
            float *oa = out + i * row + (size_t)h * head_dim, *ob = oa + half;
            for (int c = 0; c < half; c++) {
                float xa = a[c], xb = b[c];
                oa[c] = xa * co[c] + -xb * si[c];
                ob[c] = xb * co[c] + xa * si[c];
            }
        }
    }
}
