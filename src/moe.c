/* moe.c - a mixture-of-experts FFN as in Mixtral: router logits, top-k routing with a softmax
   over the chosen logits, and per expert one FFN over the tokens routed to it (gathered into
   the workspace), its output added back to those tokens weighted. */
#include <math.h>
#include <string.h>
#include "bl_internal.h"

/* The size checks, apart from the pointers, so that the workspace query can use them. */
static bl_status moe_check_sizes(const bl_moe_desc *d, bl_error *err) {
    BL__CHECK(bl__check_dim(err, "L", d->L));
    BL__CHECK(bl__check_dim(err, "d_model", d->d_model));
    BL__CHECK(bl__check_dim(err, "d_ff", d->d_ff));
    if (d->n_experts < 1 || d->n_experts > BL_MOE_MAX_EXPERTS)
        return bl__fail(err, BL_ERR_SIZE, "n_experts (%d) must be between 1 and %d",
                        d->n_experts, BL_MOE_MAX_EXPERTS);
    if (d->top_k < 1 || d->top_k > d->n_experts)
        return bl__fail(err, d->top_k < 1 ? BL_ERR_SIZE : BL_ERR_SHAPE,
                        "top_k (%d) must be between 1 and n_experts (%d)", d->top_k,
                        d->n_experts);
    BL__CHECK(bl__check_activation(err, d->activation, NULL));
    /* n_experts <= 64, so the logits (L x n_experts) are at most 2^22 floats */
    BL__CHECK(bl__check_elems(err, "x", (uint64_t)d->L, (uint64_t)d->d_model));
    BL__CHECK(bl__check_elems(err, "hidden", (uint64_t)d->L, (uint64_t)d->d_ff));
    BL__CHECK(bl__check_elems(err, "w1 (n_experts x d_model x d_ff)",
                              (uint64_t)d->n_experts * (uint64_t)d->d_model, (uint64_t)d->d_ff));
    return BL_OK;
}

/* Scratch floats, in 64 bits (a product of two dims reaches 2^32): the gathered tokens and
   their expert output (L x d_model each), activated and, gated, up (L x d_ff each), and the
   logits when the caller does not take them. */
static uint64_t work_floats(const bl_moe_desc *d, const bl_moe_out *o) {
    uint64_t L = (uint64_t)d->L;
    return L * (2 * (uint64_t)d->d_model +
                (bl_activation_is_gated(d->activation) ? 2 : 1) * (uint64_t)d->d_ff +
                (o->logits ? 0 : (uint64_t)d->n_experts));
}

size_t bl_moe_workspace_size(const bl_moe_desc *d, const bl_moe_out *o) {
    if (!d || !o || moe_check_sizes(d, NULL) != BL_OK) return 0;
    uint64_t n = work_floats(d, o);
    return n > BL_MAX_ELEMS ? 0 : (size_t)n;
}

static bl_status moe_check(const bl_moe_desc *d, const bl_moe_out *o, const float *ws,
                           bl_error *err) {
    BL__CHECK(bl__check_ptr(err, "desc", d));
    BL__CHECK(bl__check_ptr(err, "out", o));
    BL__CHECK(moe_check_sizes(d, err));
    uint64_t n = work_floats(d, o);
    if (n > BL_MAX_ELEMS)
        return bl__fail(err, BL_ERR_TOO_LARGE, "workspace (%llu floats) exceeds %u floats",
                        (unsigned long long)n, (unsigned)BL_MAX_ELEMS);
    BL__CHECK(bl__check_ptr(err, "x", d->x));
    BL__CHECK(bl__check_ptr(err, "wr", d->wr));
    BL__CHECK(bl__check_ptr(err, "w1", d->w1));
    BL__CHECK(bl__check_ptr(err, "w2", d->w2));
    BL__CHECK(bl__check_ptr(err, "top_index", o->top_index));
    BL__CHECK(bl__check_ptr(err, "top_weight", o->top_weight));
    BL__CHECK(bl__check_ptr(err, "out->out", o->out));
    BL__CHECK(bl__check_up_projection(err, d->activation, d->w3, d->b3));
    return bl__check_ptr(err, "workspace", ws);
}

/* One token's routing: idx (K) = the K largest of lg (E), largest first, the lower index first
   among equals (a strict > never replaces an earlier equal); w (K) = softmax over them. */
static void route(int32_t *idx, float *w, const float *lg, int E, int K) {
    uint64_t taken = 0;
    for (int k = 0; k < K; k++) {
        int best = -1;
        for (int j = 0; j < E; j++)
            if (!(taken >> j & 1) && (best < 0 || lg[j] > lg[best])) best = j;
        taken |= (uint64_t)1 << best;
        idx[k] = best;
    }
    float m = lg[idx[0]], sum = 0.0f;
    for (int k = 0; k < K; k++) sum += w[k] = expf(lg[idx[k]] - m);
    for (int k = 0; k < K; k++) w[k] /= sum;
}

/* p (E) = softmax(lg (E)) over every expert. */
static void softmax_all(float *p, const float *lg, int E) {
    float m = lg[0], sum = 0.0f;
    for (int j = 1; j < E; j++) m = lg[j] > m ? lg[j] : m;
    for (int j = 0; j < E; j++) sum += p[j] = expf(lg[j] - m);
    for (int j = 0; j < E; j++) p[j] /= sum;
}

/* The slot of expert e among token i's choices, or -1 (an expert is chosen at most once). */
static int slot_of(const int32_t *idx, int K, int e) {
    for (int k = 0; k < K; k++)
        if (idx[k] == e) return k;
    return -1;
}

bl_status bl_moe_forward(const bl_moe_desc *d, const bl_moe_out *o, float *workspace,
                         bl_error *err) {
    BL__CHECK(moe_check(d, o, workspace, err));
    int L = d->L, D = d->d_model, F = d->d_ff, E = d->n_experts, K = d->top_k;
    int gated = bl_activation_is_gated(d->activation);
    /* workspace: [logits (L, E) when not an output] xs (L, D), act (L, F), [up (L, F)], eo (L, D) */
    float *ws = workspace, *logits = o->logits;
    if (!logits) {
        logits = ws;
        ws += (size_t)L * E;
    }
    float *xs = ws, *act = xs + (size_t)L * D, *up = gated ? act + (size_t)L * F : NULL;
    float *eo = act + (size_t)L * F * (gated ? 2 : 1);

    bl__matmul(logits, d->x, d->wr, NULL, L, D, E);   /* (L, D) @ (D, E) */
    /* finite x and Wr can still overflow float32 here: an Inf or NaN logit would give NaN
       weights (and a NaN first in a row would win the ranking), so it is refused, named,
       before any routing or output is written */
    for (size_t i = 0, n = (size_t)L * (size_t)E; i < n; i++)
        if (logits[i] - logits[i] != 0.0f)
            return bl__fail(err, BL_ERR_VALUE, "router logit of token %d, expert %d is %s: "
                            "x @ Wr overflows float32", (int)(i / (size_t)E), (int)(i % (size_t)E),
                            logits[i] != logits[i] ? "NaN" : "infinite");
    for (int i = 0; i < L; i++) {
        const float *lg = logits + (size_t)i * E;
        route(o->top_index + (size_t)i * K, o->top_weight + (size_t)i * K, lg, E, K);
        if (o->probs) softmax_all(o->probs + (size_t)i * E, lg, E);
    }
    memset(o->out, 0, sizeof(float) * (size_t)L * D);
    for (int e = 0; e < E; e++) {
        /* gather: xs (n, D) = the rows of x routed to expert e, in token order */
        int n = 0;
        for (int i = 0; i < L; i++)
            if (slot_of(o->top_index + (size_t)i * K, K, e) >= 0)
                memcpy(xs + (size_t)n++ * D, d->x + (size_t)i * D, sizeof(float) * (size_t)D);
        if (o->load) o->load[e] = n;
        if (!n) continue;
        size_t wo = (size_t)e * D * F;   /* checked: below BL_MAX_ELEMS */
        bl_ffn_desc fd = {.L = n, .d_model = D, .d_ff = F, .activation = d->activation, .x = xs,
                          .w1 = d->w1 + wo, .b1 = d->b1 ? d->b1 + (size_t)e * F : NULL,
                          .w3 = d->w3 ? d->w3 + wo : NULL,
                          .b3 = d->b3 ? d->b3 + (size_t)e * F : NULL,
                          .w2 = d->w2 + wo, .b2 = d->b2 ? d->b2 + (size_t)e * D : NULL};
        bl_ffn_out fo = {.up = up, .activated = act, .out = eo};
        BL__CHECK(bl_ffn_forward(&fd, &fo, err));
        /* scatter: out[i] += weight * eo[r], the same rows in the same order */
        for (int i = 0, r = 0; i < L; i++) {
            int k = slot_of(o->top_index + (size_t)i * K, K, e);
            if (k < 0) continue;
            float w = o->top_weight[(size_t)i * K + k], *y = o->out + (size_t)i * D;
            const float *s = eo + (size_t)r++ * D;
            for (int c = 0; c < D; c++) y[c] += w * s[c];
        }
    }
    bl__ok(err);
    return BL_OK;
}
