/* hooks.c - what both decoders share for their hooks: the check of edits, first_layer, start and
   end_layer; applying a site's edits; and the logit lens's softmax, top k and target rank of one
   row. */
#include <math.h>
#include <string.h>
#include "bl_internal.h"

bl_status bl__check_hooks(bl_error *err, const bl_hooks *k, int n_layers, int L, int n_heads,
                          int *end) {
    if (k->first_layer < 0 || k->first_layer >= n_layers)
        return bl__fail(err, BL_ERR_VALUE, "first_layer (%d) must be in [0, n_layers %d)",
                        k->first_layer, n_layers);
    if (k->end_layer != 0 && (k->end_layer <= k->first_layer || k->end_layer > n_layers))
        return bl__fail(err, BL_ERR_VALUE, "end_layer (%d) must be 0 (every layer) or in "
                        "(first_layer %d, n_layers %d]", k->end_layer, k->first_layer, n_layers);
    if (k->first_layer > 0 && !k->start)
        return bl__fail(err, BL_ERR_NULL, "start must not be NULL when first_layer (%d) is "
                        "above 0", k->first_layer);
    if (k->logits_last != 0 && k->logits_last != 1)
        return bl__fail(err, BL_ERR_VALUE, "logits_last (%d) must be 0 (every row) or 1 (the "
                        "last row only)", k->logits_last);
    if (k->n_edits < 0)
        return bl__fail(err, BL_ERR_VALUE, "n_edits (%d) must not be negative", k->n_edits);
    if (k->n_edits > 0 && !k->edits)
        return bl__fail(err, BL_ERR_NULL, "edits must not be NULL when n_edits (%d) is above 0",
                        k->n_edits);
    *end = k->end_layer ? k->end_layer : n_layers;
    for (int i = 0; i < k->n_edits; i++) {
        const bl_edit *e = &k->edits[i];
        if (e->layer < k->first_layer || e->layer >= *end)
            return bl__fail(err, BL_ERR_VALUE, "edits[%d].layer (%d) must be in [first_layer %d, "
                            "end_layer %d)", i, e->layer, k->first_layer, *end);
        if ((unsigned)e->site >= BL_SITE_COUNT)
            return bl__fail(err, BL_ERR_VALUE, "edits[%d].site (%d) is not one of 0..%d", i,
                            (int)e->site, BL_SITE_COUNT - 1);
        if (e->site == BL_SITE_HEAD_OUT && (e->head < 0 || e->head >= n_heads))
            return bl__fail(err, BL_ERR_VALUE, "edits[%d].head (%d) must be in [0, n_heads %d)",
                            i, e->head, n_heads);
        if (e->row < -1 || e->row >= L)
            return bl__fail(err, BL_ERR_VALUE, "edits[%d].row (%d) must be -1 (every row) or "
                            "in [0, L %d)", i, e->row, L);
    }
    return BL_OK;
}

int bl__apply_edits(const bl_hooks *k, int layer, bl_site site, float *buf, int L, int width,
                    int ld) {
    int hit = 0;
    for (int i = 0; i < k->n_edits; i++) {
        const bl_edit *e = &k->edits[i];
        if (e->layer != layer || e->site != site) continue;
        float *col = buf + (site == BL_SITE_HEAD_OUT ? (size_t)e->head * width : 0);
        int r0 = e->row < 0 ? 0 : e->row, r1 = e->row < 0 ? L : e->row + 1;
        size_t bytes = (size_t)width * sizeof(float);
        for (int r = r0; r < r1; r++) {
            float *dst = col + (size_t)r * ld;
            if (!e->values) memset(dst, 0, bytes);
            else memcpy(dst, e->values + (size_t)(r - r0) * width, bytes);
        }
        hit = 1;
    }
    return hit;
}

/* a ranks above b: larger logit, or equal and the lower id */
static int above(float va, int32_t a, float vb, int32_t b) {
    return va > vb || (va == vb && a < b);
}

/* Restores the min-heap (root = the lowest ranked) under node i of n. */
static void sift(float *v, int32_t *id, int n, int i) {
    for (;;) {
        int c = 2 * i + 1, lo = i;
        if (c < n && above(v[lo], id[lo], v[c], id[c])) lo = c;
        if (c + 1 < n && above(v[lo], id[lo], v[c + 1], id[c + 1])) lo = c + 1;
        if (lo == i) return;
        float tv = v[i]; v[i] = v[lo]; v[lo] = tv;
        int32_t ti = id[i]; id[i] = id[lo]; id[lo] = ti;
        i = lo;
    }
}

int bl__lens_row(const float *logits, int V, int k, int32_t *ids, float *probs, int32_t target,
                 int32_t *rank, float *prob) {
    /* softmax's max and sum in double; any NaN or infinity refuses the row */
    float m = -INFINITY;
    for (int j = 0; j < V; j++) {
        if (logits[j] - logits[j] != 0.0f) return j;
        if (logits[j] > m) m = logits[j];
    }
    double sum = 0.0;
    for (int j = 0; j < V; j++) sum += exp((double)logits[j] - (double)m);
    /* the target's rank: 1 + the entries the lens orders above it */
    if (rank && target < 0) {
        *rank = 0;
        *prob = NAN;
    } else if (rank) {
        float zt = logits[target];
        int32_t above_t = 0;
        for (int j = 0; j < V; j++) above_t += above(logits[j], j, zt, target);
        *rank = above_t + 1;
        *prob = (float)(exp((double)zt - (double)m) / sum);
    }
    /* the top k by a min-heap of k in probs (as logits) / ids: O(V log k) */
    for (int j = 0; j < k; j++) { probs[j] = logits[j]; ids[j] = j; }
    for (int i = k / 2 - 1; i >= 0; i--) sift(probs, ids, k, i);
    for (int j = k; j < V; j++)
        if (above(logits[j], j, probs[0], ids[0])) {
            probs[0] = logits[j];
            ids[0] = j;
            sift(probs, ids, k, 0);
        }
    /* heap sort: the lowest ranked moves to the end, leaving the best first */
    for (int n = k - 1; n > 0; n--) {
        float tv = probs[0]; probs[0] = probs[n]; probs[n] = tv;
        int32_t ti = ids[0]; ids[0] = ids[n]; ids[n] = ti;
        sift(probs, ids, n, 0);
    }
    for (int j = 0; j < k; j++) probs[j] = (float)(exp((double)probs[j] - (double)m) / sum);
    return -1;
}

bl_status bl__lens_check(bl_error *err, int L, int D, int V, size_t ws_size, int k, const float *h,
                         const char *wname, const void *weights, const int32_t *ids,
                         const float *probs, const bl_lens_target *t, const float *ws) {
    if (ws_size == 0)
        return bl__fail(err, BL_ERR_TOO_LARGE, "the lens workspace (%d rows x (d_model %d + "
                        "vocab %d)) exceeds %u floats", bl__lens_rows(L), D, V,
                        (unsigned)BL_MAX_ELEMS);
    if (k < 1 || k > V) return bl__fail(err, BL_ERR_VALUE, "k (%d) must be in [1, vocab %d]", k, V);
    BL__CHECK(bl__check_elems(err, "ids", (uint64_t)L, (uint64_t)k));
    BL__CHECK(bl__check_ptr(err, "h", h));
    BL__CHECK(bl__check_ptr(err, wname, weights));
    BL__CHECK(bl__check_ptr(err, "ids", ids));
    BL__CHECK(bl__check_ptr(err, "probs", probs));
    if (t && t->targets) {
        BL__CHECK(bl__check_ptr(err, "rank", t->rank));
        BL__CHECK(bl__check_ptr(err, "prob", t->prob));
        for (int i = 0; i < L; i++)
            if (t->targets[i] < -1 || t->targets[i] >= V)
                return bl__fail(err, BL_ERR_VALUE, "targets[%d] (%d) must be -1 (none) or in "
                                "[0, vocab %d)", i, (int)t->targets[i], V);
    }
    return bl__check_ptr(err, "workspace", ws);
}
