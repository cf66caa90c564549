/* ffn.c - activations and the position-wise feed-forward network (plain and gated). */
#include "bl_internal.h"
#include "kernel_simd.h"

static const char *const act_names[BL_ACT_COUNT] = {
    "relu", "gelu", "gelu_tanh", "silu", "identity", "swiglu", "geglu"};

const char *bl_activation_name(bl_activation act) {
    return ((unsigned)act < BL_ACT_COUNT) ? act_names[act] : NULL;
}

int bl_activation_is_gated(bl_activation act) {
    return act == BL_ACT_SWIGLU || act == BL_ACT_GEGLU;
}

bl_status bl_activation_apply(float *out, const float *x, size_t n, bl_activation act,
                              bl_error *err) {
    BL__CHECK(bl__check_activation(err, act, NULL));
    if (n > BL_MAX_ELEMS)
        return bl__fail(err, BL_ERR_TOO_LARGE, "n (%zu) exceeds %u floats", n,
                        (unsigned)BL_MAX_ELEMS);
    if (n > 0) {
        BL__CHECK(bl__check_ptr(err, "out", out));
        BL__CHECK(bl__check_ptr(err, "x", x));
    }
    size_t i = 0;
    for (; i + 4 <= n; i += 4) v4_store(out + i, v4_act(v4_load(x + i), act));   /* = bl__act */
    for (; i < n; i++) out[i] = bl__act(x[i], act);
    bl__ok(err);
    return BL_OK;
}

bl_status bl__ffn_check(const bl_ffn_desc *d, const bl_ffn_out *o, bl_error *err) {
    BL__CHECK(bl__check_ptr(err, "desc", d));
    BL__CHECK(bl__check_ptr(err, "out", o));
    BL__CHECK(bl__check_dim(err, "L", d->L));
    BL__CHECK(bl__check_dim(err, "d_model", d->d_model));
    BL__CHECK(bl__check_dim(err, "d_ff", d->d_ff));
    BL__CHECK(bl__check_activation(err, d->activation, NULL));
    BL__CHECK(bl__check_elems(err, "x", (uint64_t)d->L, (uint64_t)d->d_model));
    BL__CHECK(bl__check_elems(err, "hidden", (uint64_t)d->L, (uint64_t)d->d_ff));
    BL__CHECK(bl__check_elems(err, "w1", (uint64_t)d->d_model, (uint64_t)d->d_ff));
    BL__CHECK(bl__check_ptr(err, "x", d->x));
    BL__CHECK(bl__check_ptr(err, "w1", d->w1));
    BL__CHECK(bl__check_ptr(err, "w2", d->w2));
    BL__CHECK(bl__check_ptr(err, "activated", o->activated));
    BL__CHECK(bl__check_ptr(err, "out->out", o->out));
    BL__CHECK(bl__check_up_projection(err, d->activation, d->w3, d->b3));
    if (bl_activation_is_gated(d->activation)) BL__CHECK(bl__check_ptr(err, "up", o->up));
    return BL_OK;
}

bl_status bl_ffn_forward(const bl_ffn_desc *d, const bl_ffn_out *o, bl_error *err) {
    BL__CHECK(bl__ffn_check(d, o, err));
    int L = d->L, D = d->d_model, F = d->d_ff;
    if (bl_activation_is_gated(d->activation)) {
        /* activated = act(x W1 + b1) * (x W3 + b3) */
        bl__matmul_act(o->activated, o->hidden, d->x, d->w1, d->b1, L, D, F, d->activation);
        bl__matmul(o->up, d->x, d->w3, d->b3, L, D, F);
        for (size_t i = 0, n = (size_t)L * F; i < n; i++) o->activated[i] *= o->up[i];
    } else {
        bl__matmul_act(o->activated, o->hidden, d->x, d->w1, d->b1, L, D, F, d->activation);
    }
    bl__matmul(o->out, o->activated, d->w2, d->b2, L, F, D);   /* (L, F) @ (F, D) */
    bl__ok(err);
    return BL_OK;
}
