/* test_hooks.c - the decoders' hooks (edits, first_layer / start, end_layer, logits_last) and
   logit lens, on both decoders with small random weights (the Llama path in F32, F16 and BF16):
   identities that hold bit for bit (a run restarted from its own residual, an edit writing what
   is there, every head zeroed = attn_out set to o_proj's bias, the last row alone = the full
   call's last row), the lens (top k, target ranks) against the forward's logits and a softmax
   and rank count computed here, and every refusal. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"

/* ---- allocations, freed together ------------------------------------------------------- */
static void *pool[4096];
static int n_pool;
static void *take(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p || n_pool == 4096) { fprintf(stderr, "out of memory\n"); exit(2); }
    return pool[n_pool++] = p;
}
static void free_all(void) {
    while (n_pool) free(pool[--n_pool]);
}
static float *nan_buf(size_t n) {   /* NaN-filled: anything not written shows */
    float *p = take(n * sizeof(float));
    for (size_t i = 0; i < n; i++) p[i] = NAN;
    return p;
}

static uint32_t lcg = 7u;
static float uni(void) {   /* [-1, 1) */
    lcg = lcg * 1664525u + 1013904223u;
    return (float)(lcg >> 8) / 16777216.0f * 2.0f - 1.0f;
}
static float *rnd(size_t n, float scale, float offset) {
    float *p = take(n * sizeof(float));
    for (size_t i = 0; i < n; i++) p[i] = offset + uni() * scale;
    return p;
}
static uint16_t f32_to_f16(float f) {   /* |f| in [2^-14, 2): normal halves, truncated */
    uint32_t u;
    memcpy(&u, &f, 4);
    uint32_t s = (u >> 16) & 0x8000u, e = (u >> 23) & 255u, m = (u >> 13) & 1023u;
    if (e < 127 - 14) return (uint16_t)s;
    return (uint16_t)(s | ((e - 127 + 15) << 10) | m);
}
/* n random values of dtype dt (as weights): float32, or 16-bit patterns of those values */
static const void *wts(bl_dtype dt, size_t n, float scale, float offset) {
    float *f = rnd(n, scale, offset);
    if (dt == BL_DTYPE_F32) return f;
    uint16_t *h = take(n * 2);
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &f[i], 4);
        h[i] = dt == BL_DTYPE_BF16 ? (uint16_t)(u >> 16) : f32_to_f16(f[i]);
    }
    return h;
}
static float as_float(const void *w, bl_dtype dt, size_t i) {
    if (dt == BL_DTYPE_F32) return ((const float *)w)[i];
    uint16_t h = ((const uint16_t *)w)[i];
    if (dt == BL_DTYPE_BF16) {
        uint32_t u = (uint32_t)h << 16;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    int e = (h >> 10) & 31, m = h & 1023;
    float v = e ? ldexpf(1.0f + (float)m / 1024.0f, e - 15) : ldexpf((float)m, -24);
    return h & 0x8000 ? -v : v;
}

/* ---- one decoder of either kind behind one interface ----------------------------------- */
enum { MAX_NL = 4 };
typedef struct rec {   /* one layer's kept outputs */
    float *x, *norm1, *context, *concat, *attn_out, *resid1, *norm2, *activated, *ffn_out, *resid2;
} rec;
typedef struct net {
    const char *name;
    int llama;
    bl_decoder_desc g;
    bl_llama_desc m;
    bl_decoder_layer gl[MAX_NL];
    bl_llama_layer ml[MAX_NL];
    int NL, L, D, H, hd, F, V;
    float *bo[MAX_NL];   /* o_proj's bias per layer as float32 (D) */
} net;

static int32_t *ids_of(int L, int V) {
    int32_t *ids = take((size_t)L * sizeof(int32_t));
    for (int i = 0; i < L; i++) ids[i] = (int32_t)((i * 7 + 3) % V);
    return ids;
}

static net gpt2(int L, int D, int H, int F) {
    net n = {.name = "gpt2", .NL = 3, .L = L, .D = D, .H = H, .hd = D / H, .F = F, .V = 50};
    float s = 1.0f / sqrtf((float)D);
    for (int l = 0; l < n.NL; l++) {
        n.gl[l] = (bl_decoder_layer){
            .ln1_gamma = rnd(D, 0.2f, 1), .ln1_beta = rnd(D, 0.1f, 0), .wq = rnd((size_t)D * D, s, 0),
            .bq = rnd(D, 0.1f, 0), .wk = rnd((size_t)D * D, s, 0), .bk = rnd(D, 0.1f, 0),
            .wv = rnd((size_t)D * D, s, 0), .bv = rnd(D, 0.1f, 0), .wo = rnd((size_t)D * D, s, 0),
            .bo = rnd(D, 0.3f, 0), .ln2_gamma = rnd(D, 0.2f, 1), .ln2_beta = rnd(D, 0.1f, 0),
            .w1 = rnd((size_t)D * F, s, 0), .b1 = rnd(F, 0.1f, 0),
            .w2 = rnd((size_t)F * D, 1.0f / sqrtf((float)F), 0), .b2 = rnd(D, 0.1f, 0)};
        n.bo[l] = (float *)n.gl[l].bo;
    }
    n.g = (bl_decoder_desc){.n_layers = n.NL, .d_model = D, .n_heads = H, .d_ff = F, .vocab = n.V,
                            .n_positions = 64, .activation = BL_ACT_GELU_TANH, .L = L,
                            .ids = ids_of(L, n.V), .wte = rnd((size_t)n.V * D, 1, 0),
                            .wpe = rnd((size_t)64 * D, 0.3f, 0), .layers = n.gl,
                            .lnf_gamma = rnd(D, 0.2f, 1), .lnf_beta = rnd(D, 0.1f, 0)};
    return n;
}

/* GQA (4 heads on 2 kv heads), every bias, Qwen3's q / k norms, an untied lm_head */
static net llama(bl_dtype dt, const char *name, int L) {
    enum { D = 16, H = 4, KVH = 2, HD = 6, F = 24 };
    net n = {.name = name, .llama = 1, .NL = 3, .L = L, .D = D, .H = H, .hd = HD, .F = F, .V = 50};
    int Q = H * HD, KV = KVH * HD;
    float s = 1.0f / sqrtf((float)D);
    for (int l = 0; l < n.NL; l++) {
        n.ml[l] = (bl_llama_layer){
            .attn_norm = wts(dt, D, 0.2f, 1), .wq = wts(dt, (size_t)Q * D, 2 * s, 0),
            .bq = wts(dt, Q, 0.1f, 0), .wk = wts(dt, (size_t)KV * D, 2 * s, 0),
            .bk = wts(dt, KV, 0.1f, 0), .wv = wts(dt, (size_t)KV * D, s, 0), .bv = wts(dt, KV, 0.1f, 0),
            .q_norm = wts(dt, HD, 0.2f, 1), .k_norm = wts(dt, HD, 0.2f, 1),
            .wo = wts(dt, (size_t)D * Q, 1.0f / sqrtf((float)Q), 0), .bo = wts(dt, D, 0.3f, 0),
            .ffn_norm = wts(dt, D, 0.2f, 1), .w_gate = wts(dt, (size_t)F * D, s, 0),
            .b_gate = wts(dt, F, 0.1f, 0), .w_up = wts(dt, (size_t)F * D, s, 0),
            .b_up = wts(dt, F, 0.1f, 0), .w_down = wts(dt, (size_t)D * F, 1.0f / sqrtf((float)F), 0),
            .b_down = wts(dt, D, 0.1f, 0)};
        n.bo[l] = take(D * sizeof(float));
        for (int c = 0; c < D; c++) n.bo[l][c] = as_float(n.ml[l].bo, dt, (size_t)c);
    }
    n.m = (bl_llama_desc){.n_layers = n.NL, .d_model = D, .n_heads = H, .n_kv_heads = KVH,
                          .head_dim = HD, .d_ff = F, .vocab = n.V, .eps = 1e-5f, .dtype = dt,
                          .L = L, .ids = ids_of(L, n.V), .embed = wts(dt, (size_t)n.V * D, 1, 0),
                          .layers = n.ml, .final_norm = wts(dt, D, 0.2f, 1),
                          .lm_head = wts(dt, (size_t)n.V * D, 0.5f, 0)};
    return n;
}

static rec *new_recs(const net *n) {   /* every layer's outputs, NaN-filled */
    rec *r = take(MAX_NL * sizeof(rec));
    size_t ld = (size_t)n->L * n->D, lq = (size_t)n->L * n->H * n->hd, lf = (size_t)n->L * n->F;
    for (int l = 0; l < n->NL; l++)
        r[l] = (rec){.x = nan_buf(ld), .norm1 = nan_buf(ld), .context = nan_buf(lq),
                     .concat = nan_buf(lq), .attn_out = nan_buf(ld), .resid1 = nan_buf(ld),
                     .norm2 = nan_buf(ld), .activated = nan_buf(lf), .ffn_out = nan_buf(ld),
                     .resid2 = nan_buf(ld)};
    return r;
}

/* One forward with these hooks; recs (optional) keeps every layer, embed (optional) too.
   logits_last is what the next run() passes (tests set it around the call). */
static int logits_last;
static bl_status run(const net *n, const bl_edit *e, int ne, int first, const float *start,
                     int end, float *logits, rec *recs, float *embed, bl_error *err) {
    bl_status s;
    if (!n->llama) {
        bl_decoder_desc d = n->g;
        d.layers = n->gl;   /* n was copied since it was made */
        d.edits = e; d.n_edits = ne; d.first_layer = first; d.start = start; d.end_layer = end;
        d.logits_last = logits_last;
        bl_decoder_layer_out lo[MAX_NL], *keep[MAX_NL];
        for (int l = 0; l < n->NL; l++) {
            rec *r = recs ? &recs[l] : NULL;
            lo[l] = r ? (bl_decoder_layer_out){.x = r->x, .norm1 = r->norm1, .context = r->context,
                                               .concat = r->concat, .attn_out = r->attn_out,
                                               .resid1 = r->resid1, .norm2 = r->norm2,
                                               .activated = r->activated, .ffn_out = r->ffn_out,
                                               .resid2 = r->resid2}
                      : (bl_decoder_layer_out){0};
            keep[l] = &lo[l];
        }
        bl_decoder_out o = {.logits = logits, .embed = embed, .layers = keep};
        size_t wn = bl_decoder_workspace_size(&d);
        float *ws = malloc((wn ? wn : 1) * sizeof(float));
        s = bl_decoder_forward(&d, &o, ws, err);
        free(ws);
    } else {
        bl_llama_desc d = n->m;
        d.layers = n->ml;
        d.edits = e; d.n_edits = ne; d.first_layer = first; d.start = start; d.end_layer = end;
        d.logits_last = logits_last;
        bl_llama_layer_out lo[MAX_NL], *keep[MAX_NL];
        for (int l = 0; l < n->NL; l++) {
            rec *r = recs ? &recs[l] : NULL;
            lo[l] = r ? (bl_llama_layer_out){.x = r->x, .norm1 = r->norm1, .context = r->context,
                                             .concat = r->concat, .attn_out = r->attn_out,
                                             .resid1 = r->resid1, .norm2 = r->norm2,
                                             .activated = r->activated, .ffn_out = r->ffn_out,
                                             .resid2 = r->resid2}
                      : (bl_llama_layer_out){0};
            keep[l] = &lo[l];
        }
        bl_llama_out o = {.logits = logits, .embed = embed, .layers = keep};
        size_t wn = bl_llama_workspace_size(&d);
        float *ws = malloc((wn ? wn : 1) * sizeof(float));
        s = bl_llama_forward(&d, &o, ws, err);
        free(ws);
    }
    return s;
}

static bl_status lens_t(const net *n, const float *h, int k, int32_t *ids, float *probs,
                        const bl_lens_target *t, bl_error *err) {   /* (reads no layers) */
    size_t wn = n->llama ? bl_llama_lens_workspace_size(&n->m) : bl_decoder_lens_workspace_size(&n->g);
    float *ws = malloc((wn ? wn : 1) * sizeof(float));
    bl_status s = n->llama ? bl_llama_lens(&n->m, h, k, ids, probs, t, ws, err)
                           : bl_decoder_lens(&n->g, h, k, ids, probs, t, ws, err);
    free(ws);
    return s;
}
static bl_status lens(const net *n, const float *h, int k, int32_t *ids, float *probs,
                      bl_error *err) {
    return lens_t(n, h, k, ids, probs, NULL, err);
}

static int same_bits(const float *a, const float *b, size_t n) {
    return memcmp(a, b, n * sizeof(float)) == 0;
}

/* The site's kept buffer, (L, width) rows of stride ld, and its width; HEAD_OUT: the context
   of head h, (L, hd) contiguous. */
static const float *site_of(const net *n, const rec *r, bl_site s, int h, int *width) {
    *width = s == BL_SITE_HEAD_OUT ? n->hd : s == BL_SITE_FFN_HIDDEN ? n->F : n->D;
    switch (s) {
    case BL_SITE_RESID_IN: return r->x;
    case BL_SITE_ATTN_IN: return r->norm1;
    case BL_SITE_HEAD_OUT: return r->context + (size_t)h * n->L * n->hd;
    case BL_SITE_ATTN_OUT: return r->attn_out;
    case BL_SITE_RESID_MID: return r->resid1;
    case BL_SITE_FFN_IN: return r->norm2;
    case BL_SITE_FFN_HIDDEN: return r->activated;
    default: return r->ffn_out;
    }
}

#define N_NETS 5
static net nets[N_NETS];
static void make_nets(void) {
    nets[0] = gpt2(9, 24, 3, 40);    /* attention's small-head path */
    nets[1] = gpt2(40, 24, 3, 40);   /* its blocked path */
    nets[1].name = "gpt2 L 40";
    nets[2] = llama(BL_DTYPE_F32, "llama f32", 9);
    nets[3] = llama(BL_DTYPE_F16, "llama f16", 70);   /* two query blocks */
    nets[4] = llama(BL_DTYPE_BF16, "llama bf16", 9);
}

/* ---- identities ------------------------------------------------------------------------- */
static void restart_from_own_residual_is_bit_identical(void) {
    for (int t = 0; t < N_NETS; t++) {
        const net *n = &nets[t];
        size_t nl = (size_t)n->L * n->V, ld = (size_t)n->L * n->D;
        float *full = nan_buf(nl), *again = nan_buf(nl), *embed = nan_buf(ld);
        rec *r = new_recs(n), *r2 = new_recs(n);
        CHECK_STATUS(run(n, NULL, 0, 0, NULL, 0, full, r, embed, NULL), BL_OK);
        CHECK(same_bits(r[0].x, embed, ld));
        for (int l = 1; l < n->NL; l++) {
            CHECK(same_bits(r[l].x, r[l - 1].resid2, ld));
            CHECK_STATUS(run(n, NULL, 0, l, r[l - 1].resid2, 0, again, r2, NULL, NULL), BL_OK);
            CHECK(same_bits(full, again, nl));
            CHECK(same_bits(r2[l].resid2, r[l].resid2, ld));
        }
        /* start at layer 0 from the embeddings themselves */
        CHECK_STATUS(run(n, NULL, 0, 0, embed, 0, again, NULL, NULL, NULL), BL_OK);
        CHECK(same_bits(full, again, nl));
        printf("       %s: restarts at layers 1..%d bit-identical\n", n->name, n->NL - 1);
    }
}

static void edit_writing_the_value_there_changes_nothing(void) {
    for (int t = 0; t < N_NETS; t++) {
        const net *n = &nets[t];
        size_t nl = (size_t)n->L * n->V;
        float *full = nan_buf(nl), *again = nan_buf(nl);
        rec *r = new_recs(n);
        CHECK_STATUS(run(n, NULL, 0, 0, NULL, 0, full, r, NULL, NULL), BL_OK);
        int count = 0;
        for (int l = 0; l < n->NL; l++)
            for (int s = 0; s < BL_SITE_COUNT; s++) {
                int width, h = s == BL_SITE_HEAD_OUT ? n->H - 1 : 0;
                const float *v = site_of(n, &r[l], (bl_site)s, h, &width);
                int row = n->L / 2;
                /* every row at once, then one row twice (several edits of one site) */
                bl_edit e[3] = {{.layer = l, .site = (bl_site)s, .head = h, .row = -1, .values = v},
                                {.layer = l, .site = (bl_site)s, .head = h, .row = row,
                                 .values = v + (size_t)row * width},
                                {.layer = l, .site = (bl_site)s, .head = h, .row = row,
                                 .values = v + (size_t)row * width}};
                CHECK_STATUS(run(n, e, 3, 0, NULL, 0, again, NULL, NULL, NULL), BL_OK);
                int same = same_bits(full, again, nl);
                CHECK(same);
                if (!same) fprintf(stderr, "  %s layer %d site %d\n", n->name, l, s);
                count++;
            }
        printf("       %s: %d no-op edits, logits bit-identical\n", n->name, count);
    }
}

static void zero_every_head_equals_attn_out_set_to_o_proj_bias(void) {
    for (int t = 0; t < N_NETS; t++) {
        const net *n = &nets[t];
        size_t nl = (size_t)n->L * n->V, ld = (size_t)n->L * n->D;
        float *a = nan_buf(nl), *b = nan_buf(nl), *full = nan_buf(nl);
        rec *ra = new_recs(n), *rb = new_recs(n);
        CHECK_STATUS(run(n, NULL, 0, 0, NULL, 0, full, NULL, NULL, NULL), BL_OK);
        int l = 1;
        bl_edit heads[16];
        for (int h = 0; h < n->H; h++)
            heads[h] = (bl_edit){.layer = l, .site = BL_SITE_HEAD_OUT, .head = h, .row = -1};
        float *bias = take(ld * sizeof(float));
        for (int i = 0; i < n->L; i++) memcpy(bias + (size_t)i * n->D, n->bo[l], n->D * sizeof(float));
        bl_edit set = {.layer = l, .site = BL_SITE_ATTN_OUT, .row = -1, .values = bias};
        CHECK_STATUS(run(n, heads, n->H, 0, NULL, 0, a, ra, NULL, NULL), BL_OK);
        CHECK_STATUS(run(n, &set, 1, 0, NULL, 0, b, rb, NULL, NULL), BL_OK);
        CHECK(same_bits(a, b, nl));
        CHECK(same_bits(ra[l].attn_out, bias, ld));
        CHECK(!same_bits(a, full, nl));   /* the ablation did something */
        /* the kept context and concat show the zeros */
        size_t lq = (size_t)n->L * n->H * n->hd;
        int zeros = 1;
        for (size_t i = 0; i < lq; i++) zeros &= ra[l].context[i] == 0.0f && ra[l].concat[i] == 0.0f;
        CHECK(zeros);
        printf("       %s: %d heads zeroed = attn_out := bo, bit for bit\n", n->name, n->H);
    }
}

static void zero_ffn_out_makes_resid2_equal_resid1(void) {
    for (int t = 0; t < N_NETS; t++) {
        const net *n = &nets[t];
        size_t nl = (size_t)n->L * n->V, ld = (size_t)n->L * n->D;
        float *a = nan_buf(nl);
        rec *r = new_recs(n);
        bl_edit e = {.layer = 2, .site = BL_SITE_FFN_OUT, .row = -1};
        CHECK_STATUS(run(n, &e, 1, 0, NULL, 0, a, r, NULL, NULL), BL_OK);
        int eq = 1;
        for (size_t i = 0; i < ld; i++) eq &= r[2].resid2[i] == r[2].resid1[i];
        CHECK(eq);
        /* one row: only that row's stream skips the FFN */
        bl_edit one = {.layer = 0, .site = BL_SITE_FFN_OUT, .row = 2};
        CHECK_STATUS(run(n, &one, 1, 0, NULL, 0, a, r, NULL, NULL), BL_OK);
        int row_eq = 1, other_differs = 0;
        for (int c = 0; c < n->D; c++) {
            row_eq &= r[0].resid2[2 * n->D + c] == r[0].resid1[2 * n->D + c];
            other_differs |= r[0].resid2[3 * n->D + c] != r[0].resid1[3 * n->D + c];
        }
        CHECK(row_eq);
        CHECK(other_differs);
    }
}

static void end_layer_stops_and_leaves_later_layers_untouched(void) {
    for (int t = 0; t < N_NETS; t++) {
        const net *n = &nets[t];
        size_t nl = (size_t)n->L * n->V, ld = (size_t)n->L * n->D;
        float *full = nan_buf(nl);
        rec *r = new_recs(n), *s = new_recs(n);
        CHECK_STATUS(run(n, NULL, 0, 0, NULL, 0, full, r, NULL, NULL), BL_OK);
        /* blocks [1, 2) from layer 1's own input, no logits */
        CHECK_STATUS(run(n, NULL, 0, 1, r[0].resid2, 2, NULL, s, NULL, NULL), BL_OK);
        CHECK(same_bits(s[1].resid2, r[1].resid2, ld));
        int untouched = 1;
        for (size_t i = 0; i < ld; i++) untouched &= isnan(s[0].resid2[i]) && isnan(s[2].x[i]) &&
                                                      isnan(s[2].resid2[i]);
        CHECK(untouched);
        /* end_layer = n_layers also skips the unembedding: logits stay as they were */
        float *logits = nan_buf(nl);
        CHECK_STATUS(run(n, NULL, 0, 0, NULL, n->NL, logits, NULL, NULL, NULL), BL_OK);
        CHECK(isnan(logits[0]) && isnan(logits[nl - 1]));
    }
}

/* ---- the logit lens ---------------------------------------------------------------------- */
static void lens_top1_of_last_residual_is_the_logits_argmax(void) {
    for (int t = 0; t < N_NETS; t++) {
        const net *n = &nets[t];
        int L = n->L, V = n->V, k = 5;
        size_t nl = (size_t)L * V;
        float *logits = nan_buf(nl), *probs = nan_buf((size_t)L * k);
        int32_t *ids = take((size_t)L * k * sizeof(int32_t));
        rec *r = new_recs(n);
        CHECK_STATUS(run(n, NULL, 0, 0, NULL, 0, logits, r, NULL, NULL), BL_OK);
        CHECK_STATUS(lens(n, r[n->NL - 1].resid2, k, ids, probs, NULL), BL_OK);
        double maxd = 0;
        int argmax_ok = 1, order_ok = 1, sum_ok = 1;
        for (int i = 0; i < L; i++) {
            const float *row = logits + (size_t)i * V;
            int best = 0;
            double m = row[0], sum = 0, psum = 0;
            for (int j = 1; j < V; j++) if (row[j] > row[best]) best = j;
            for (int j = 0; j < V; j++) if (row[j] > m) m = row[j];
            for (int j = 0; j < V; j++) sum += exp(row[j] - m);
            argmax_ok &= ids[(size_t)i * k] == best;
            for (int j = 0; j < k; j++) {
                int32_t id = ids[(size_t)i * k + j];
                double want = exp(row[id] - m) / sum, d = fabs(probs[(size_t)i * k + j] - want);
                if (!(d <= maxd)) maxd = d;
                psum += probs[(size_t)i * k + j];
                if (j) order_ok &= probs[(size_t)i * k + j] <= probs[(size_t)i * k + j - 1];
            }
            sum_ok &= psum <= 1.0 + 1e-6;
        }
        printf("       %s: lens probs vs softmax(logits) max diff %.3g (tol 1e-6)\n", n->name, maxd);
        CHECK(argmax_ok);
        CHECK(order_ok);
        CHECK(sum_ok);
        CHECK(maxd <= 1e-6);
    }
}

/* The lens's logits are the forward's bit for bit (in row blocks of 16: L 40 and 70 take three
   and five): its probs for k = vocab equal, exactly, the same double softmax of the forward's
   logits done here in the same order. */
static void lens_probs_are_the_softmax_of_the_forward_logits_bit_for_bit(void) {
    for (int t = 0; t < N_NETS; t++) {
        const net *n = &nets[t];
        int L = n->L, V = n->V;
        float *logits = nan_buf((size_t)L * V), *probs = nan_buf((size_t)L * V);
        int32_t *ids = take((size_t)L * V * sizeof(int32_t));
        rec *r = new_recs(n);
        CHECK_STATUS(run(n, NULL, 0, 0, NULL, 0, logits, r, NULL, NULL), BL_OK);
        CHECK_STATUS(lens(n, r[n->NL - 1].resid2, V, ids, probs, NULL), BL_OK);
        int exact = 1;
        for (int i = 0; i < L; i++) {
            const float *row = logits + (size_t)i * V;
            float m = -INFINITY;
            double sum = 0.0;
            for (int j = 0; j < V; j++) if (row[j] > m) m = row[j];
            for (int j = 0; j < V; j++) sum += exp((double)row[j] - (double)m);
            for (int j = 0; j < V; j++) {
                int32_t id = ids[(size_t)i * V + j];
                exact &= probs[(size_t)i * V + j] == (float)(exp((double)row[id] - (double)m) / sum);
            }
        }
        CHECK(exact);
    }
}

static void lens_with_k_vocab_ranks_every_id_ties_lower_first(void) {
    const net *n = &nets[0];
    /* k = vocab: every id once per row, the probabilities summing to 1 */
    int L = n->L, V = n->V;
    float *h = rnd((size_t)L * n->D, 1, 0), *probs = nan_buf((size_t)L * V);
    int32_t *ids = take((size_t)L * V * sizeof(int32_t));
    CHECK_STATUS(lens(n, h, V, ids, probs, NULL), BL_OK);
    int perm = 1;
    for (int i = 0; i < L; i++) {
        int seen[64] = {0};
        double s = 0;
        for (int j = 0; j < V; j++) {
            int32_t id = ids[(size_t)i * V + j];
            if (id < 0 || id >= V || seen[id]++) perm = 0;
            s += probs[(size_t)i * V + j];
        }
        CHECK(fabs(s - 1.0) <= 1e-5);
    }
    CHECK(perm);
    /* ties: a tied wte (every row equal) makes every logit equal: ids come out 0, 1, 2, ... */
    net tie = *n;
    float *wte = take((size_t)V * n->D * sizeof(float));
    for (int v = 0; v < V; v++) memcpy(wte + (size_t)v * n->D, n->g.wte, n->D * sizeof(float));
    tie.g.wte = wte;
    CHECK_STATUS(lens(&tie, h, 4, ids, probs, NULL), BL_OK);
    CHECK(ids[0] == 0 && ids[1] == 1 && ids[2] == 2 && ids[3] == 3);
    CHECK(fabsf(probs[0] - 1.0f / (float)V) <= 1e-7f);
}

/* Target ranks: per row, 1 + the ids the lens orders above the target (larger logit, or equal
   and lower), counted here on the forward's own logits (bit for bit the lens's), and the same
   double softmax: both exact. The targets are the next token (-1 at the last row: rank 0, NaN)
   and, on every row, each id in turn once (row i targets i % V) so ranks 1 .. V all occur. */
static void lens_target_ranks_equal_a_count_over_the_forward_logits(void) {
    for (int t = 0; t < N_NETS; t++) {
        const net *n = &nets[t];
        int L = n->L, V = n->V, k = 3;
        float *logits = nan_buf((size_t)L * V), *probs = nan_buf((size_t)L * k);
        float *prob = nan_buf((size_t)L);
        int32_t *ids = take((size_t)L * k * sizeof(int32_t)), *rank = take((size_t)L * 4);
        int32_t *tg = take((size_t)L * 4);
        const int32_t *tok = n->llama ? n->m.ids : n->g.ids;
        rec *r = new_recs(n);
        CHECK_STATUS(run(n, NULL, 0, 0, NULL, 0, logits, r, NULL, NULL), BL_OK);
        int exact = 1, top_ok = 1, ones = 0;
        for (int pass = 0; pass < 2; pass++) {
            for (int i = 0; i < L; i++) tg[i] = pass ? i % V : i + 1 < L ? tok[i + 1] : -1;
            bl_lens_target tt = {.targets = tg, .rank = rank, .prob = prob};
            CHECK_STATUS(lens_t(n, r[n->NL - 1].resid2, k, ids, probs, &tt, NULL), BL_OK);
            for (int i = 0; i < L; i++) {
                if (tg[i] < 0) {
                    exact &= rank[i] == 0 && isnan(prob[i]);
                    continue;
                }
                const float *row = logits + (size_t)i * V;
                float zt = row[tg[i]], m = -INFINITY;
                int want = 1;
                double sum = 0.0;
                for (int j = 0; j < V; j++) {
                    want += row[j] > zt || (row[j] == zt && j < tg[i]);
                    if (row[j] > m) m = row[j];
                }
                for (int j = 0; j < V; j++) sum += exp((double)row[j] - (double)m);
                exact &= rank[i] == want;
                exact &= prob[i] == (float)(exp((double)zt - (double)m) / sum);
                top_ok &= (rank[i] == 1) == (ids[(size_t)i * k] == tg[i]);
                if (rank[i] <= k) top_ok &= ids[(size_t)i * k + rank[i] - 1] == tg[i];
                ones += rank[i] == 1;
            }
        }
        CHECK(exact);
        CHECK(top_ok);
        printf("       %s: %d target ranks exact (%d of them the top)\n", n->name, 2 * L - 1, ones);
    }
    /* ties: a wte of equal rows makes every logit equal: target t ranks t + 1 */
    const net *n = &nets[0];
    net tie = *n;
    int L = n->L, V = n->V;
    float *wte = take((size_t)V * n->D * sizeof(float)), *h = rnd((size_t)L * n->D, 1, 0);
    for (int v = 0; v < V; v++) memcpy(wte + (size_t)v * n->D, n->g.wte, n->D * sizeof(float));
    tie.g.wte = wte;
    float probs[64], prob[64];
    int32_t ids[64], rank[64], tg[64];
    for (int i = 0; i < L; i++) tg[i] = (i * 11) % V;
    bl_lens_target tt = {.targets = tg, .rank = rank, .prob = prob};
    CHECK_STATUS(lens_t(&tie, h, 1, ids, probs, &tt, NULL), BL_OK);
    int tie_ok = 1;
    for (int i = 0; i < L; i++) tie_ok &= rank[i] == tg[i] + 1 && fabsf(prob[i] - 1.0f / V) <= 1e-7f;
    CHECK(tie_ok);
}

/* logits_last: the last row alone, bit for bit the full call's last row, plain and with hooks
   (an edit, a later start); the (L - 1) rows before it are not written. */
static void logits_last_is_the_full_calls_last_row_bit_for_bit(void) {
    for (int t = 0; t < N_NETS; t++) {
        const net *n = &nets[t];
        int L = n->L, V = n->V;
        float *full = nan_buf((size_t)L * V), *last = nan_buf((size_t)L * V);
        rec *r = new_recs(n);
        bl_edit e = {.layer = 1, .site = BL_SITE_HEAD_OUT, .head = 0, .row = -1};
        int same = 1;
        for (int c = 0; c < 3; c++) {
            const bl_edit *ed = c == 1 ? &e : NULL;
            int first = c == 2 ? 1 : 0;
            CHECK_STATUS(run(n, ed, ed ? 1 : 0, 0, NULL, 0, full, r, NULL, NULL), BL_OK);
            logits_last = 1;
            bl_status st = run(n, ed, ed ? 1 : 0, first, first ? r[0].resid2 : NULL, 0, last, NULL,
                               NULL, NULL);
            logits_last = 0;
            CHECK_STATUS(st, BL_OK);
            same &= same_bits(last, full + (size_t)(L - 1) * V, (size_t)V);
            same &= isnan(last[V]) && isnan(last[(size_t)L * V - 1]);
        }
        CHECK(same);
        printf("       %s: last row alone bit-identical (plain, ablated, restarted)\n", n->name);
    }
}

/* ---- refusals ----------------------------------------------------------------------------- */
static void expect(const net *n, const bl_edit *e, int ne, int first, const float *start, int end,
                   bl_status status, const char *part) {
    bl_error err;
    float *logits = nan_buf((size_t)n->L * n->V);
    CHECK_STATUS(run(n, e, ne, first, start, end, logits, NULL, NULL, &err), status);
    CHECK(strstr(err.message, part) != NULL);
    if (!strstr(err.message, part)) fprintf(stderr, "  message \"%s\" lacks \"%s\"\n", err.message, part);
    CHECK(isnan(logits[0]));
}

static void hooks_refuse_bad_arguments_naming_them(void) {
    for (int t = 0; t < N_NETS; t += 2) {
        const net *n = &nets[t];
        float *start = rnd((size_t)n->L * n->D, 1, 0);
        bl_edit ok = {.layer = 0, .site = BL_SITE_RESID_IN, .row = -1};
        bl_edit e[3] = {ok, ok, ok};
        e[2].layer = 9;
        expect(n, e, 3, 0, NULL, 0, BL_ERR_VALUE, "edits[2].layer (9) must be in [first_layer 0, end_layer 3)");
        e[2].layer = 0;
        expect(n, e, 3, 1, start, 0, BL_ERR_VALUE, "edits[0].layer (0) must be in [first_layer 1, end_layer 3)");
        e[0].layer = 2;
        expect(n, e, 1, 0, NULL, 2, BL_ERR_VALUE, "edits[0].layer (2) must be in [first_layer 0, end_layer 2)");
        e[0] = ok;
        e[1].site = BL_SITE_COUNT;
        expect(n, e, 2, 0, NULL, 0, BL_ERR_VALUE, "edits[1].site (8) is not one of 0..7");
        e[1].site = (bl_site)-1;
        expect(n, e, 2, 0, NULL, 0, BL_ERR_VALUE, "edits[1].site (-1)");
        e[1] = (bl_edit){.layer = 0, .site = BL_SITE_HEAD_OUT, .head = n->H, .row = 0};
        char want[128];
        snprintf(want, sizeof want, "edits[1].head (%d) must be in [0, n_heads %d)", n->H, n->H);
        expect(n, e, 2, 0, NULL, 0, BL_ERR_VALUE, want);
        e[1].head = -1;
        expect(n, e, 2, 0, NULL, 0, BL_ERR_VALUE, "edits[1].head (-1)");
        e[1] = ok;
        e[1].row = n->L;
        snprintf(want, sizeof want, "edits[1].row (%d) must be -1 (every row) or in [0, L %d)", n->L, n->L);
        expect(n, e, 2, 0, NULL, 0, BL_ERR_VALUE, want);
        e[1].row = -2;
        expect(n, e, 2, 0, NULL, 0, BL_ERR_VALUE, "edits[1].row (-2)");
        expect(n, NULL, 1, 0, NULL, 0, BL_ERR_NULL, "edits must not be NULL when n_edits (1)");
        expect(n, e, -1, 0, NULL, 0, BL_ERR_VALUE, "n_edits (-1) must not be negative");
        expect(n, NULL, 0, 1, NULL, 0, BL_ERR_NULL, "start must not be NULL when first_layer (1)");
        expect(n, NULL, 0, 3, start, 0, BL_ERR_VALUE, "first_layer (3) must be in [0, n_layers 3)");
        expect(n, NULL, 0, -1, start, 0, BL_ERR_VALUE, "first_layer (-1)");
        expect(n, NULL, 0, 1, start, 1, BL_ERR_VALUE, "end_layer (1) must be 0 (every layer) or in (first_layer 1, n_layers 3]");
        expect(n, NULL, 0, 0, NULL, 4, BL_ERR_VALUE, "end_layer (4)");
        expect(n, NULL, 0, 0, NULL, -1, BL_ERR_VALUE, "end_layer (-1)");
        /* logits NULL only with end_layer */
        bl_error err;
        CHECK_STATUS(run(n, NULL, 0, 0, NULL, 0, NULL, NULL, NULL, &err), BL_ERR_NULL);
        CHECK(strstr(err.message, "logits") != NULL);
        /* the lens */
        float probs[64];
        int32_t ids[64];
        CHECK_STATUS(lens(n, start, 0, ids, probs, &err), BL_ERR_VALUE);
        CHECK(strstr(err.message, "k (0) must be in [1, vocab 50]") != NULL);
        CHECK_STATUS(lens(n, start, n->V + 1, ids, probs, &err), BL_ERR_VALUE);
        CHECK(strstr(err.message, "k (51)") != NULL);
        CHECK_STATUS(lens(n, NULL, 1, ids, probs, &err), BL_ERR_NULL);
        CHECK(strstr(err.message, "h must not be NULL") != NULL);
        CHECK_STATUS(lens(n, start, 1, NULL, probs, &err), BL_ERR_NULL);
        CHECK_STATUS(lens(n, start, 1, ids, NULL, &err), BL_ERR_NULL);
        float *inf = rnd((size_t)n->L * n->D, 1, 0);
        inf[3] = INFINITY;
        CHECK_STATUS(lens(n, inf, 1, ids, probs, &err), BL_ERR_VALUE);
        CHECK(strstr(err.message, "logit of token 0") != NULL);
        /* the lens's targets */
        int32_t tg[128], rank[128];
        float prob[128];
        for (int i = 0; i < n->L; i++) tg[i] = -1;
        tg[n->L - 1] = n->V;
        bl_lens_target tt = {.targets = tg, .rank = rank, .prob = prob};
        CHECK_STATUS(lens_t(n, start, 1, ids, probs, &tt, &err), BL_ERR_VALUE);
        snprintf(want, sizeof want, "targets[%d] (%d) must be -1 (none) or in [0, vocab %d)",
                 n->L - 1, n->V, n->V);
        CHECK(strstr(err.message, want) != NULL);
        tg[n->L - 1] = -2;
        CHECK_STATUS(lens_t(n, start, 1, ids, probs, &tt, &err), BL_ERR_VALUE);
        CHECK(strstr(err.message, "(-2)") != NULL);
        tg[n->L - 1] = 0;
        tt.rank = NULL;
        CHECK_STATUS(lens_t(n, start, 1, ids, probs, &tt, &err), BL_ERR_NULL);
        CHECK(strstr(err.message, "rank must not be NULL") != NULL);
        tt.rank = rank;
        tt.prob = NULL;
        CHECK_STATUS(lens_t(n, start, 1, ids, probs, &tt, &err), BL_ERR_NULL);
        CHECK(strstr(err.message, "prob must not be NULL") != NULL);
        /* targets NULL: no ranks, rank and prob not needed */
        bl_lens_target none = {0};
        CHECK_STATUS(lens_t(n, start, 1, ids, probs, &none, NULL), BL_OK);
        logits_last = 2;
        expect(n, NULL, 0, 0, NULL, 0, BL_ERR_VALUE, "logits_last (2) must be 0 (every row) or 1");
        logits_last = -1;
        expect(n, NULL, 0, 0, NULL, 0, BL_ERR_VALUE, "logits_last (-1)");
        logits_last = 0;
        printf("       %s: refused, e.g. \"%s\"\n", n->name, err.message);
    }
}

int main(void) {
    make_nets();
    bl_run("restart_from_own_residual_is_bit_identical", restart_from_own_residual_is_bit_identical);
    bl_run("edit_writing_the_value_there_changes_nothing", edit_writing_the_value_there_changes_nothing);
    bl_run("zero_every_head_equals_attn_out_set_to_o_proj_bias",
           zero_every_head_equals_attn_out_set_to_o_proj_bias);
    bl_run("zero_ffn_out_makes_resid2_equal_resid1", zero_ffn_out_makes_resid2_equal_resid1);
    bl_run("end_layer_stops_and_leaves_later_layers_untouched",
           end_layer_stops_and_leaves_later_layers_untouched);
    bl_run("lens_top1_of_last_residual_is_the_logits_argmax",
           lens_top1_of_last_residual_is_the_logits_argmax);
    bl_run("lens_probs_are_the_softmax_of_the_forward_logits_bit_for_bit",
           lens_probs_are_the_softmax_of_the_forward_logits_bit_for_bit);
    bl_run("lens_with_k_vocab_ranks_every_id_ties_lower_first",
           lens_with_k_vocab_ranks_every_id_ties_lower_first);
    bl_run("lens_target_ranks_equal_a_count_over_the_forward_logits",
           lens_target_ranks_equal_a_count_over_the_forward_logits);
    bl_run("logits_last_is_the_full_calls_last_row_bit_for_bit",
           logits_last_is_the_full_calls_last_row_bit_for_bit);
    bl_run("hooks_refuse_bad_arguments_naming_them", hooks_refuse_bad_arguments_naming_them);
    free_all();
    return bl_summary();
}
