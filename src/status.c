/* status.c - status names, error messages and the argument checks every entry point uses
   (sizes, pointers, activations). */
#include <stdarg.h>
#include <stdio.h>
#include "bl_internal.h"

const char *bl_status_string(bl_status status) {
    switch (status) {
    case BL_OK: return "ok";
    case BL_ERR_NULL: return "a required pointer is NULL";
    case BL_ERR_SIZE: return "a size is out of range";
    case BL_ERR_SHAPE: return "sizes do not fit together";
    case BL_ERR_TOO_LARGE: return "a buffer would be too large";
    case BL_ERR_ACTIVATION: return "unknown or mismatched activation";
    case BL_ERR_VALUE: return "a value is out of range";
    case BL_ERR_PRESET: return "unknown preset";
    }
    return "unknown status";
}

bl_status bl__fail(bl_error *err, bl_status status, const char *fmt, ...) {
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
        err->status = status;
    }
    return status;
}

void bl__ok(bl_error *err) {
    if (err) {
        err->status = BL_OK;
        err->message[0] = '\0';
    }
}

bl_status bl__check_dim(bl_error *err, const char *name, int value) {
    if (value < 1 || value > BL_MAX_DIM)
        return bl__fail(err, BL_ERR_SIZE, "%s (%d) must be between 1 and %d", name, value,
                        BL_MAX_DIM);
    return BL_OK;
}

bl_status bl__check_elems(bl_error *err, const char *what, uint64_t a, uint64_t b) {
    /* a * b can pass 2^32 (65536 x 65536), so never in a 32-bit size_t; divide, no product */
    if (a != 0 && b > BL_MAX_ELEMS / a)
        return bl__fail(err, BL_ERR_TOO_LARGE, "%s (%llu x %llu) exceeds %u floats", what,
                        (unsigned long long)a, (unsigned long long)b, (unsigned)BL_MAX_ELEMS);
    return BL_OK;
}

bl_status bl__check_ptr(bl_error *err, const char *name, const void *p) {
    if (!p) return bl__fail(err, BL_ERR_NULL, "%s must not be NULL", name);
    return BL_OK;
}

bl_status bl__check_gpt2_sizes(bl_error *err, const bl__gpt2_sizes *s) {
    BL__CHECK(bl__check_dim(err, "n_layers", s->n_layers));
    BL__CHECK(bl__check_dim(err, "d_model", s->d_model));
    BL__CHECK(bl__check_dim(err, "n_heads", s->n_heads));
    BL__CHECK(bl__check_dim(err, "d_ff", s->d_ff));
    BL__CHECK(bl__check_dim(err, "vocab", s->vocab));
    BL__CHECK(bl__check_dim(err, "n_positions", s->n_positions));
    BL__CHECK(bl__check_dim(err, "batch", s->batch));
    BL__CHECK(bl__check_dim(err, "L", s->L));
    if (s->d_model % s->n_heads != 0)
        return bl__fail(err, BL_ERR_SHAPE, "d_model (%d) must be divisible by n_heads (%d)",
                        s->d_model, s->n_heads);
    if (s->L > s->n_positions)
        return bl__fail(err, BL_ERR_SHAPE, "L (%d) must be at most n_positions (%d)", s->L,
                        s->n_positions);
    return BL_OK;
}

bl_status bl__check_ids(bl_error *err, const int32_t *ids, int L, int vocab) {
    for (int i = 0; i < L; i++)
        if (ids[i] < 0 || ids[i] >= vocab)
            return bl__fail(err, BL_ERR_VALUE, "ids[%d] (%ld) must be in [0, vocab %d)", i,
                            (long)ids[i], vocab);
    return BL_OK;
}

bl_status bl__check_activation(bl_error *err, bl_activation act, const char *ungated_for) {
    if ((unsigned)act >= BL_ACT_COUNT)
        return bl__fail(err, BL_ERR_ACTIVATION, "activation (%d) is not one of 0..%d", (int)act,
                        BL_ACT_COUNT - 1);
    if (ungated_for && bl_activation_is_gated(act))
        return bl__fail(err, BL_ERR_ACTIVATION, "activation %s is gated; %s takes ungated ones "
                        "only", bl_activation_name(act), ungated_for);
    return BL_OK;
}

bl_status bl__check_up_projection(bl_error *err, bl_activation act, const void *w3,
                                  const void *b3) {
    if (bl_activation_is_gated(act)) {
        if (!w3)
            return bl__fail(err, BL_ERR_ACTIVATION, "w3 (the up projection) is required by %s",
                            bl_activation_name(act));
    } else if (w3 || b3) {
        return bl__fail(err, BL_ERR_ACTIVATION, "w3/b3 are only used by gated activations, not %s",
                        bl_activation_name(act));
    }
    return BL_OK;
}
