/* adamw.c - the optimiser's two steps: global-norm gradient clipping (as
   torch.nn.utils.clip_grad_norm_) and AdamW (as torch.optim.AdamW: decoupled weight decay,
   bias-corrected moments), on flat float buffers; and the training layout's step, which
   decays the 2-D matrices only. */
#include <math.h>
#include "bl_internal.h"

bl_status bl_clip_grad_norm(float *grads, size_t n, float max_norm, float *norm, bl_error *err) {
    BL__CHECK(bl__check_ptr(err, "grads", grads));
    if (n == 0 || n > BL_MAX_ELEMS)
        return bl__fail(err, BL_ERR_SIZE, "n (%lu) must be between 1 and %u", (unsigned long)n,
                        (unsigned)BL_MAX_ELEMS);
    if (!(max_norm > 0.0f) || isinf(max_norm))
        return bl__fail(err, BL_ERR_VALUE, "max_norm (%g) must be a positive finite number",
                        (double)max_norm);
    double ss = 0.0;   /* in double, in index order: the same bits every run */
    for (size_t i = 0; i < n; i++) ss += (double)grads[i] * grads[i];
    float total = (float)sqrt(ss);
    if (norm) *norm = total;
    if (!isfinite(total))
        return bl__fail(err, BL_ERR_VALUE, "grads: the norm is not finite (%g)", (double)total);
    /* torch: coef = max_norm / (total + 1e-6), clamped to 1, every gradient multiplied by it */
    float coef = max_norm / (total + 1e-6f);
    if (coef < 1.0f)
        for (size_t i = 0; i < n; i++) grads[i] *= coef;
    bl__ok(err);
    return BL_OK;
}

static bl_status check_adamw(const bl_adamw_desc *a, bl_error *err) {
    BL__CHECK(bl__check_ptr(err, "opt", a));
    if (!(a->lr >= 0.0f) || isinf(a->lr))
        return bl__fail(err, BL_ERR_VALUE, "lr (%g) must be a finite number >= 0", (double)a->lr);
    if (!(a->beta1 >= 0.0f && a->beta1 < 1.0f))
        return bl__fail(err, BL_ERR_VALUE, "beta1 (%g) must be in [0, 1)", (double)a->beta1);
    if (!(a->beta2 >= 0.0f && a->beta2 < 1.0f))
        return bl__fail(err, BL_ERR_VALUE, "beta2 (%g) must be in [0, 1)", (double)a->beta2);
    if (!(a->eps >= 0.0f) || isinf(a->eps))
        return bl__fail(err, BL_ERR_VALUE, "eps (%g) must be a finite number >= 0 (0 = 1e-8)",
                        (double)a->eps);
    if (!(a->weight_decay >= 0.0f) || isinf(a->weight_decay))
        return bl__fail(err, BL_ERR_VALUE, "weight_decay (%g) must be a finite number >= 0",
                        (double)a->weight_decay);
    if (a->step < 1)
        return bl__fail(err, BL_ERR_VALUE, "step (%d) must be at least 1 (the first step is 1)",
                        a->step);
    return BL_OK;
}

/* One AdamW update of n values with weight decay wd, as torch 1.13's _single_tensor_adamw. */
static void adamw(float *p, const float *g, float *m, float *v, size_t n, const bl_adamw_desc *a,
                  float wd) {
    float b1 = a->beta1, b2 = a->beta2, eps = a->eps == 0.0f ? 1e-8f : a->eps;
    double bc1 = 1.0 - pow((double)b1, a->step), bc2 = 1.0 - pow((double)b2, a->step);
    float step_size = (float)(a->lr / bc1), bc2_sqrt = (float)sqrt(bc2);
    float decay = 1.0f - a->lr * wd;
    for (size_t i = 0; i < n; i++) {
        p[i] *= decay;
        m[i] = m[i] * b1 + g[i] * (1.0f - b1);
        v[i] = v[i] * b2 + g[i] * g[i] * (1.0f - b2);
        float denom = sqrtf(v[i]) / bc2_sqrt + eps;
        p[i] -= step_size * (m[i] / denom);
    }
}

static bl_status check_buffers(const float *p, const float *g, const float *m, const float *v,
                               bl_error *err) {
    BL__CHECK(bl__check_ptr(err, "params", p));
    BL__CHECK(bl__check_ptr(err, "grads", g));
    BL__CHECK(bl__check_ptr(err, "m", m));
    BL__CHECK(bl__check_ptr(err, "v", v));
    return BL_OK;
}

bl_status bl_adamw_step(float *params, const float *grads, float *m, float *v, size_t n,
                        const bl_adamw_desc *a, bl_error *err) {
    BL__CHECK(check_buffers(params, grads, m, v, err));
    if (n == 0 || n > BL_MAX_ELEMS)
        return bl__fail(err, BL_ERR_SIZE, "n (%lu) must be between 1 and %u", (unsigned long)n,
                        (unsigned)BL_MAX_ELEMS);
    BL__CHECK(check_adamw(a, err));
    adamw(params, grads, m, v, n, a, a->weight_decay);
    bl__ok(err);
    return BL_OK;
}

/* The parts that weight decay reaches: tools/train/train.py's "*.weight of 2 dimensions". */
static int is_matrix(bl_train_part p) {
    return p == BL_TP_WTE || p == BL_TP_WPE || p == BL_TP_WQ || p == BL_TP_WK || p == BL_TP_WV ||
           p == BL_TP_WO || p == BL_TP_W1 || p == BL_TP_W2;
}

bl_status bl_train_adamw_step(const bl_train_desc *d, float *params, const float *grads,
                              float *m, float *v, const bl_adamw_desc *a, bl_error *err) {
    BL__CHECK(bl__train_check(d, err));
    BL__CHECK(check_buffers(params, grads, m, v, err));
    BL__CHECK(check_adamw(a, err));
    for (int l = -1; l < d->n_layers; l++)
        for (int p = 0; p < BL_TP_COUNT; p++) {
            size_t at = bl_train_param_offset(d, l, (bl_train_part)p);
            if (at == (size_t)-1) continue;   /* a global part with l >= 0, or a layer's with -1 */
            size_t len = bl_train_param_size(d, (bl_train_part)p);
            adamw(params + at, grads + at, m + at, v + at, len, a,
                  is_matrix((bl_train_part)p) ? a->weight_decay : 0.0f);
        }
    bl__ok(err);
    return BL_OK;
}
