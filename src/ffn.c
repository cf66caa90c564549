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

/* Products this small (the page's FFN, 7 x 8 x 32; attention's projections, 7 x 8 x 8) cost
   more in bl__gemm's packing, tile buffer and epilogue pass than in arithmetic, so they are
   done in place, one row and four columns at a time. Bit-identical to bl__matmul_act: at these
   sizes it runs one K slice of its unfused 4 x 8 tile (FMA starts at 2^20 multiply-adds),
   whose every output is 0 + a0 b0 + a1 b1 + ... in k order, then + bias, pre, act; its
   columns past the last four add 0.0f (tile_out) and take bl__act, as here. */
#define SMALL_MACS 4096
static void matmul_small(float *out, float *pre, const float *x, const float *w, const float *b,
                         int M, int K, int N, bl_activation act) {
    for (int i = 0; i < M; i++) {
        const float *xi = x + (size_t)i * K;
        float *oi = out + (size_t)i * N, *pi = pre ? pre + (size_t)i * N : NULL;
        int j = 0;
        for (; j + 8 <= N; j += 8) {   /* two vectors: one broadcast of x feeds both */
            v4 c0 = v4_splat(0.0f), c1 = v4_splat(0.0f);
            for (int k = 0; k < K; k++) {
                v4 a = v4_splat(xi[k]);
                c0 = c0 + a * v4_load(w + (size_t)k * N + j);
                c1 = c1 + a * v4_load(w + (size_t)k * N + j + 4);
            }
            if (b) { c0 += v4_load(b + j); c1 += v4_load(b + j + 4); }
            if (pi) { v4_store(pi + j, c0); v4_store(pi + j + 4, c1); }
            if (act != BL_ACT_IDENTITY) { c0 = v4_act(c0, act); c1 = v4_act(c1, act); }
            v4_store(oi + j, c0);
            v4_store(oi + j + 4, c1);
        }
        for (; j + 4 <= N; j += 4) {
            v4 c0 = v4_splat(0.0f);
            for (int k = 0; k < K; k++) c0 = c0 + v4_splat(xi[k]) * v4_load(w + (size_t)k * N + j);
            if (b) c0 += v4_load(b + j);
            if (pi) v4_store(pi + j, c0);
            if (act != BL_ACT_IDENTITY) c0 = v4_act(c0, act);
            v4_store(oi + j, c0);
        }
        for (; j < N; j++) {
            float c = 0.0f;
            for (int k = 0; k < K; k++) c = c + xi[k] * w[(size_t)k * N + j];
            c = c + 0.0f;
            if (b) c += b[j];
            if (pi) pi[j] = c;
            oi[j] = bl__act(c, act);
        }
    }
}

void bl__matmul_act_small(float *out, float *pre, const float *x, const float *w, const float *b,
                          int M, int K, int N, bl_activation act) {
    if ((uint64_t)M * (uint64_t)K * (uint64_t)N <= SMALL_MACS)
        matmul_small(out, pre, x, w, b, M, K, N, act);
    else
        bl__matmul_act(out, pre, x, w, b, M, K, N, act);
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
        bl__matmul_act_small(o->activated, o->hidden, d->x, d->w1, d->b1, L, D, F, d->activation);
        bl__matmul_act_small(o->up, NULL, d->x, d->w3, d->b3, L, D, F, BL_ACT_IDENTITY);
        for (size_t i = 0, n = (size_t)L * F; i < n; i++) o->activated[i] *= o->up[i];
    } else {
        bl__matmul_act_small(o->activated, o->hidden, d->x, d->w1, d->b1, L, D, F, d->activation);
    }
    bl__matmul_act_small(o->out, NULL, o->activated, d->w2, d->b2, L, F, D, BL_ACT_IDENTITY);   /* (L, F) @ (F, D) */
    bl__ok(err);
    return BL_OK;
}
