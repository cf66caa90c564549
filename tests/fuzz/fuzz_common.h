/* fuzz_common.h - shared by the libFuzzer targets: a reader of the fuzz input, sizes that are
   mostly small but reach the API's edges, exact-size heap buffers (so AddressSanitizer sees a
   one-float overrun), the argument checks the header documents (the expected status), error
   bounds for the double references (tests/c/reference.c), and a check that aborts with the numbers. */
#ifndef BL_FUZZ_COMMON_H
#define BL_FUZZ_COMMON_H

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "blocklens.h"
#include "reference.h"

#define FZ_UNUSED __attribute__((unused))
/* Reference loops and buffer fills: not instrumented for coverage (their loop comparisons,
   traced, cost the fuzzer more time than the engine itself), and kept out of line so that
   inlining does not instrument them after all. */
#define FZ_QUIET __attribute__((noinline, unused, no_sanitize("coverage")))

/* ---- reading the input: every read past the end gives 0, so any input decodes ------------ */
typedef struct { const uint8_t *p; size_t n; } fz_in;

static FZ_UNUSED unsigned fz_byte(fz_in *in) {
    if (!in->n) return 0;
    in->n--;
    return *in->p++;
}
static FZ_UNUSED uint32_t fz_u32(fz_in *in) {
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= (uint32_t)fz_byte(in) << (8 * i);
    return v;
}

/* Sizes: 3 byte values in 4 give 1..small; the rest pick an edge: the kernels' tile and block
   boundaries (4, 8, 64, 768), BL_MAX_DIM and its neighbours, the dims whose products pass 2^28
   (BL_MAX_ELEMS), 2^31 (46341^2) and 2^32 (65536^2), and the invalid 0, negatives, INT_MAX. */
static const int fz_edges[] = {
    1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 767, 768, 769,
    1024, 2048, 4095, 4096, 4097, 8191, 8192, 8193, 16383, 16384, 16385, 23170, 23171, 32767,
    32768, 46340, 46341, 65535, 65536, 65537, 131072, 0, -1, -65536, INT_MIN, INT_MAX};
#define FZ_N_EDGES ((unsigned)(sizeof fz_edges / sizeof fz_edges[0]))

static FZ_UNUSED int fz_dim(fz_in *in, int small) {
    unsigned b = fz_byte(in);
    if (b < 192) return 1 + (int)(b % (unsigned)small);
    return fz_edges[(b - 192) % FZ_N_EDGES];
}

/* An activation: mostly one of the 7, sometimes out of range (negative, BL_ACT_COUNT, large). */
static FZ_UNUSED bl_activation fz_activation(fz_in *in) {
    unsigned b = fz_byte(in);
    static const int bad[] = {-1, BL_ACT_COUNT, BL_ACT_COUNT + 1, 255, INT_MIN, INT_MAX};
    if (b < 224) return (bl_activation)(b % BL_ACT_COUNT);
    return (bl_activation)bad[(b - 224) % 6];
}

/* An eps: mostly 1e-5, else an edge (tiny, denormal, huge, 0, negative, NaN, infinities). */
static FZ_UNUSED float fz_eps(fz_in *in) {
    static const float e[] = {1e-5f, 1e-6f, 1e-12f, 1.0f, 1e10f, 1.17549435e-38f, 1e-45f,
                              3.4e38f, 0.0f, -0.0f, -1e-5f, NAN, INFINITY, -INFINITY};
    unsigned b = fz_byte(in);
    return b < 128 ? 1e-5f : e[(b - 128) % (sizeof e / sizeof e[0])];
}

/* ---- exact-size heap buffers ----------------------------------------------------------------
   Every block is malloc'd with exactly the bytes the call needs, so reading or writing one float
   past it is a heap-buffer-overflow. Blocks are recorded and freed by fz_free_all. */
#define FZ_MAX_BLOCKS 160
static void *fz_blocks[FZ_MAX_BLOCKS];
static int fz_nblocks;

static FZ_UNUSED void *fz_alloc(size_t bytes) {
    if (fz_nblocks == FZ_MAX_BLOCKS) abort();            /* a target bug, not an engine one */
    void *p = malloc(bytes ? bytes : 1);
    if (!p) abort();
    fz_blocks[fz_nblocks++] = p;
    return p;
}
static FZ_UNUSED void fz_free_all(void) {
    while (fz_nblocks) free(fz_blocks[--fz_nblocks]);
}

/* n floats from the input: multiples of 1/64 in [-2, 2) (finite, so results can be checked
   against a reference), or with raw the input's bytes as float bits (NaN, infinities,
   denormals: only memory safety is checked then). Past the input's end a fixed pattern. */
static FZ_QUIET float *fz_floats(fz_in *in, uint64_t n, int raw) {
    float *p = fz_alloc((size_t)n * sizeof(float));
    for (uint64_t i = 0; i < n; i++) {
        if (raw && in->n >= 4) {
            uint32_t u = fz_u32(in);
            memcpy(&p[i], &u, 4);
        } else if (in->n) {
            p[i] = (float)(int8_t)fz_byte(in) / 64.0f;
        } else {
            p[i] = (float)((int)((i * 2654435761u) >> 25) - 64) / 64.0f;
        }
    }
    return p;
}
/* An output block of n floats, filled with a NaN pattern so unwritten outputs show. */
static FZ_QUIET float *fz_out(uint64_t n) {
    float *p = fz_alloc((size_t)n * sizeof(float));
    for (uint64_t i = 0; i < n; i++) p[i] = NAN;
    return p;
}

/* ---- the documented argument checks, in the engine's order ---------------------------------- */
static FZ_UNUSED int fz_dim_ok(int v) { return v >= 1 && v <= BL_MAX_DIM; }

/* A head count for width D from the byte hb: mostly 1-8 lowered until it divides D (valid),
   else an edge value (often invalid). */
static FZ_UNUSED int fz_heads(unsigned hb, int D) {
    if (hb >= 224 || !fz_dim_ok(D)) return fz_edges[hb % FZ_N_EDGES];
    int H = 1 + (int)(hb % 8);
    while (D % H) H--;
    return H;
}

/* An eps from the input, or 0 (the library's default, 1e-5) a quarter of the time. */
static FZ_UNUSED float fz_eps_or_default(fz_in *in) {
    float eps = fz_eps(in);
    return fz_byte(in) < 64 ? 0.0f : eps;
}
/* dims are in [1, 2^16] when this is asked, so a * b (a itself may be a product) fits */
static FZ_UNUSED int fz_fits(uint64_t a, uint64_t b) { return a * b <= BL_MAX_ELEMS; }

/* Expected status of bl_ffn_forward for these sizes, pointers and activation. */
static FZ_UNUSED bl_status fz_ffn_status(const bl_ffn_desc *d, const bl_ffn_out *o) {
    if (!d || !o) return BL_ERR_NULL;
    if (!fz_dim_ok(d->L) || !fz_dim_ok(d->d_model) || !fz_dim_ok(d->d_ff)) return BL_ERR_SIZE;
    if ((unsigned)d->activation >= BL_ACT_COUNT) return BL_ERR_ACTIVATION;
    if (!fz_fits(d->L, d->d_model) || !fz_fits(d->L, d->d_ff) || !fz_fits(d->d_model, d->d_ff))
        return BL_ERR_TOO_LARGE;
    if (!d->x || !d->w1 || !d->w2 || !o->activated || !o->out) return BL_ERR_NULL;
    if (bl_activation_is_gated(d->activation)) {
        if (!d->w3) return BL_ERR_ACTIVATION;
        if (!o->up) return BL_ERR_NULL;
    } else if (d->w3 || d->b3) {
        return BL_ERR_ACTIVATION;
    }
    return BL_OK;
}

/* Expected status of bl_attention_forward. */
static FZ_UNUSED bl_status fz_attention_status(const bl_attention_desc *d,
                                               const bl_attention_out *o, const float *ws) {
    if (!d || !o) return BL_ERR_NULL;
    if (!fz_dim_ok(d->L) || !fz_dim_ok(d->d_model) || !fz_dim_ok(d->n_heads)) return BL_ERR_SIZE;
    if (d->d_model % d->n_heads) return BL_ERR_SHAPE;
    if (!fz_fits(d->L, d->d_model) || !fz_fits(d->d_model, d->d_model) ||
        !fz_fits((uint64_t)d->n_heads * d->L, d->L))
        return BL_ERR_TOO_LARGE;
    if (!d->x || !d->wq || !d->wk || !d->wv || !d->wo || !o->q || !o->k || !o->v ||
        !o->concat || !o->out)
        return BL_ERR_NULL;
    if (!o->weights && !ws) return BL_ERR_NULL;
    return BL_OK;
}

/* Buffers of a call the engine refuses get one float each (exact, on the heap): an engine
   that accepted them anyway would overrun. A call the engine accepts gets the documented
   sizes, if they fit the budget below; otherwise the target skips it. */
#define FZ_BUDGET_FLOATS ((uint64_t)1 << 20)   /* 4 MiB of buffers: BL_MAX_DIM x 16 */
#define FZ_BUDGET_WORK ((uint64_t)1 << 20)     /* multiply-adds, the reference's included */

/* ---- references and checks ------------------------------------------------------------------ */
/* The double references are tests/c/reference.c's (ref_linear, ref_act, ...); n floats of the
   engine widened to doubles for them. */
static FZ_QUIET double *fz_widen(const float *x, uint64_t n) {
    double *y = fz_alloc((size_t)n * sizeof(double));
    ref_widen(y, x, (size_t)n);
    return y;
}
/* The engine's activations: exp within 2 ulp, erf within 2e-7, float rounding. */
static FZ_UNUSED double fz_act_tol(double v) { return 1e-6 * (1.0 + fabs(v)); }

/* Bound on the rounding of a float sum of n terms whose magnitudes add to abs_sum. */
static FZ_UNUSED double fz_sum_tol(int n, double abs_sum) {
    return 2.0 * (n + 2) * 5.96e-8 * abs_sum + 1e-30;
}

#define FZ_CHECK(cond, ...)                                                                    \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "\nfuzz check failed at %s:%d: %s\n  ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fprintf(stderr, "\n");                                                             \
            abort();                                                                           \
        }                                                                                      \
    } while (0)

/* The call returned `got`; the documented checks say `want`; err must agree with both. */
static FZ_UNUSED void fz_check_status(const char *what, bl_status got, bl_status want,
                                      const bl_error *err) {
    FZ_CHECK(got == want, "%s returned %d (%s), the documented checks give %d; message \"%s\"",
             what, got, bl_status_string(got), want, err ? err->message : "");
    if (!err) return;
    FZ_CHECK(err->status == got, "%s: err.status %d, returned %d", what, err->status, got);
    FZ_CHECK((got == BL_OK) == (err->message[0] == '\0'), "%s: status %d with message \"%s\"",
             what, got, err->message);
    FZ_CHECK(memchr(err->message, '\0', sizeof err->message) != NULL, "%s: unterminated", what);
}

/* |got - want| <= tol, NaN never close. */
static FZ_QUIET void fz_check_close(const char *what, size_t i, double got, double want,
                                     double tol) {
    FZ_CHECK(fabs(got - want) <= tol, "%s[%zu]: got %.9g, want %.9g (diff %.3g, tolerance %.3g)",
             what, i, got, want, fabs(got - want), tol);
}

/* ---- the decoders' hooks (edits, first_layer / start, end_layer) and lens k -------------- */
/* The hooks read the input's last FZ_TAIL bytes (they also fed the weights: only correlated),
   so a seed reaches them without spelling out every weight first: first_layer, end_layer,
   n_edits | start NULL, k, then per edit layer, site, head, row, values NULL (odd) or not. */
#define FZ_TAIL 32
static FZ_UNUSED fz_in fz_tail(const uint8_t *data, size_t size) {
    size_t n = size < FZ_TAIL ? size : FZ_TAIL;
    return (fz_in){data + size - n, n};
}

typedef struct fz_hooks {
    bl_edit e[3];
    int n_edits, first, end, start_null, k;
} fz_hooks;

/* Hooks for a decoder of NL layers, L rows, H heads, site widths D, head_dim hd, F and vocab V:
   mostly valid, each field sometimes one past its range; values from the input or NULL. */
static FZ_UNUSED fz_hooks fz_read_hooks(fz_in *in, int NL, int L, int H, int D, int hd, int F,
                                        int V) {
    fz_hooks k = {0};
    unsigned b0 = fz_byte(in), b1 = fz_byte(in), b2 = fz_byte(in), bk = fz_byte(in);
    k.first = b0 >= 250 ? -1 : (int)(b0 % (unsigned)(NL + 1));
    k.end = b1 & 0x80 ? (int)(b1 % (unsigned)(NL + 2)) : 0;
    k.n_edits = (int)(b2 % 4);
    k.start_null = (b2 >> 7) & 1;
    k.k = bk >= 252 ? (bk == 252 ? 0 : V + 1) : 1 + (int)(bk % (unsigned)V);
    for (int i = 0; i < k.n_edits; i++) {
        unsigned bl = fz_byte(in), bs = fz_byte(in), bh = fz_byte(in), br = fz_byte(in),
                 bv = fz_byte(in);
        bl_edit *e = &k.e[i];
        e->layer = (int)(bl % (unsigned)(NL + 1));
        e->site = bs == 255 ? (bl_site)-1 : (bl_site)(bs % (BL_SITE_COUNT + 1));
        e->head = bh == 255 ? -1 : (int)(bh % (unsigned)(H + 1));
        e->row = (int)(br % (unsigned)(L + 2)) - 1;
        int w = e->site == BL_SITE_HEAD_OUT ? hd : e->site == BL_SITE_FFN_HIDDEN ? F : D;
        e->values = bv & 1 ? NULL : fz_floats(in, (uint64_t)w * (e->row < 0 ? (uint64_t)L : 1), 0);
    }
    return k;
}

/* The documented status of a forward with these hooks (every other argument valid). */
static FZ_UNUSED bl_status fz_hooks_status(const fz_hooks *k, int NL, int L, int H) {
    if (k->first < 0 || k->first >= NL) return BL_ERR_VALUE;
    if (k->end != 0 && (k->end <= k->first || k->end > NL)) return BL_ERR_VALUE;
    if (k->first > 0 && k->start_null) return BL_ERR_NULL;
    int end = k->end ? k->end : NL;
    for (int i = 0; i < k->n_edits; i++) {
        const bl_edit *e = &k->e[i];
        if (e->layer < k->first || e->layer >= end) return BL_ERR_VALUE;
        if ((unsigned)e->site >= BL_SITE_COUNT) return BL_ERR_VALUE;
        if (e->site == BL_SITE_HEAD_OUT && (e->head < 0 || e->head >= H)) return BL_ERR_VALUE;
        if (e->row < -1 || e->row >= L) return BL_ERR_VALUE;
    }
    return BL_OK;
}

/* After a successful hooked run: layers outside [first, end) untouched (NaN), the layers before
   the first edited one equal the plain run's (full_x, full_resid2: NL x n), and each RESID_IN
   row that no later edit rewrites holds its edit's values in x. */
static FZ_QUIET void fz_check_hooked(const fz_hooks *k, int NL, int L, int D, float *const *full_resid2,
                                     float *const *x, float *const *resid2) {
    uint64_t n = (uint64_t)L * D;
    int end = k->end ? k->end : NL, first_edit = end;
    for (int i = 0; i < k->n_edits; i++)
        if (k->e[i].layer < first_edit) first_edit = k->e[i].layer;
    for (int l = 0; l < NL; l++) {
        if (l < k->first || l >= end) {
            FZ_CHECK(isnan(x[l][0]) && isnan(resid2[l][n - 1]), "layer %d outside [%d, %d) written",
                     l, k->first, end);
        } else if (l < first_edit) {
            FZ_CHECK(memcmp(resid2[l], full_resid2[l], (size_t)n * 4) == 0,
                     "layer %d resid2 differs from the plain run's with no edit before it", l);
        }
    }
    for (int i = 0; i < k->n_edits; i++) {
        const bl_edit *e = &k->e[i];
        if (e->site != BL_SITE_RESID_IN) continue;
        for (int r = e->row < 0 ? 0 : e->row; r < (e->row < 0 ? L : e->row + 1); r++) {
            int later = 0;
            for (int j = i + 1; j < k->n_edits; j++)
                later |= k->e[j].site == BL_SITE_RESID_IN && k->e[j].layer == e->layer &&
                         (k->e[j].row < 0 || k->e[j].row == r);
            if (later) continue;
            for (int c = 0; c < D; c++) {
                float want = e->values ? e->values[(size_t)(e->row < 0 ? r : 0) * D + c] : 0.0f;
                FZ_CHECK(memcmp(&x[e->layer][(size_t)r * D + c], &want, 4) == 0,
                         "edit %d: x[%d][%d, %d] %.9g, the edit wrote %.9g", i, e->layer, r, c,
                         x[e->layer][(size_t)r * D + c], want);
            }
        }
    }
}

/* The lens's top 1 of every row is the row's argmax (ties: the lower id) and its probs fall. */
static FZ_QUIET void fz_check_lens(const float *logits, int L, int V, int k, const int32_t *ids,
                                   const float *probs) {
    for (int i = 0; i < L; i++) {
        const float *row = logits + (size_t)i * V;
        int best = 0;
        for (int j = 1; j < V; j++) if (row[j] > row[best]) best = j;
        FZ_CHECK(ids[(size_t)i * k] == best, "lens row %d: top id %d, argmax %d", i,
                 ids[(size_t)i * k], best);
        for (int j = 1; j < k; j++)
            FZ_CHECK(probs[(size_t)i * k + j] <= probs[(size_t)i * k + j - 1],
                     "lens row %d: probs not falling at %d", i, j);
    }
}

/* ---- the hooks driver shared by fuzz_decoder and fuzz_llama ------------------------------- */
/* One decoder stack as the driver sees it: its sizes and its calls behind adapters (the two
   stacks' descs and outs are different types with the same hook fields). */
typedef struct fz_stack {
    const void *desc;
    int NL, L, D, H, hd, F, V;   /* n_layers, rows, d_model, heads, head_dim, d_ff, vocab */
    /* forward with hooks k (NULL: none) and start, writing x[l] / resid2[l] (NULL x: not kept)
       of every layer and logits (NULL: none) */
    bl_status (*forward)(const void *desc, const fz_hooks *k, const float *start, float *const *x,
                         float *const *resid2, float *logits, float *ws, bl_error *err);
    size_t (*lens_workspace_size)(const void *desc);
    bl_status (*lens)(const void *desc, const float *h, int k, int32_t *ids, float *probs,
                      float *ws, bl_error *err);
} fz_stack;

/* The adapters of one stack, T = decoder or llama: their descs and outs are different types
   whose hook fields share their names. FZ_STACK(T, d, hd) is the stack of desc d. */
#define FZ_STACK_ADAPTERS(T)                                                                    \
    static bl_status fz_##T##_forward(const void *desc, const fz_hooks *k, const float *start, \
                                      float *const *x, float *const *resid2, float *logits,     \
                                      float *ws, bl_error *err) {                               \
        bl_##T##_desc d = *(const bl_##T##_desc *)desc;                                         \
        bl_##T##_layer_out lo[4], *lp[4];                                                       \
        for (int l = 0; l < d.n_layers; l++) {                                                  \
            lo[l] = (bl_##T##_layer_out){.x = x[l], .resid2 = resid2[l]};                       \
            lp[l] = &lo[l];                                                                     \
        }                                                                                       \
        if (k) {                                                                                \
            d.edits = k->e;                                                                     \
            d.n_edits = k->n_edits;                                                             \
            d.first_layer = k->first;                                                           \
            d.start = start;                                                                    \
            d.end_layer = k->end;                                                               \
        }                                                                                       \
        bl_##T##_out o = {.logits = logits, .layers = lp};                                      \
        return bl_##T##_forward(&d, &o, ws, err);                                               \
    }                                                                                           \
    static size_t fz_##T##_lens_ws(const void *desc) {                                          \
        return bl_##T##_lens_workspace_size(desc);                                              \
    }                                                                                           \
    static bl_status fz_##T##_lens(const void *desc, const float *h, int k, int32_t *ids,       \
                                   float *probs, float *ws, bl_error *err) {                    \
        return bl_##T##_lens(desc, h, k, ids, probs, ws, err);                                  \
    }
#define FZ_STACK(T, d, hd)                                                                      \
    ((fz_stack){(d), (d)->n_layers, (d)->L, (d)->d_model, (d)->n_heads, (hd), (d)->d_ff,          \
                (d)->vocab, fz_##T##_forward, fz_##T##_lens_ws, fz_##T##_lens})

/* The hooks on a model that ran (NL <= 4): a plain run keeping every resid2, then one with
   hooks read from in (status as documented; see fz_check_hooked), then the lens with k from it. */
static FZ_QUIET void fz_hooks_phase(const fz_stack *s, fz_in *in, float *ws) {
    int NL = s->NL, L = s->L, D = s->D, V = s->V;
    uint64_t n = (uint64_t)L * D, nl = (uint64_t)L * V;
    fz_hooks k = fz_read_hooks(in, NL, L, s->H, D, s->hd, s->F, V);
    float *full_r[4], *x[4], *r[4], *none[4] = {0};
    for (int l = 0; l < NL; l++) {
        full_r[l] = fz_out(n);
        x[l] = fz_out(n);
        r[l] = fz_out(n);
    }
    float *logits = fz_out(nl), *hooked = k.end && k.start_null ? NULL : fz_out(nl);
    FZ_CHECK(s->forward(s->desc, NULL, NULL, none, full_r, logits, ws, NULL) == BL_OK,
             "a plain rerun was refused");
    const float *start = k.first >= 1 && k.first < NL && !k.start_null ? full_r[k.first - 1] : NULL;
    bl_status want = fz_hooks_status(&k, NL, L, s->H);
    bl_error err;
    bl_status st = s->forward(s->desc, &k, start, x, r, hooked, ws, &err);
    if (want == BL_OK && st == BL_ERR_VALUE && strstr(err.message, "overflowed")) return;
    fz_check_status("forward with hooks", st, want, &err);
    if (st == BL_OK) {
        fz_check_hooked(&k, NL, L, D, full_r, x, r);
        if (!k.n_edits && !k.end)   /* restarted from its own residual: the same logits */
            FZ_CHECK(memcmp(hooked, logits, (size_t)nl * 4) == 0, "restart at %d changed the logits",
                     k.first);
    }
    /* the lens of the last residual */
    size_t wn = s->lens_workspace_size(s->desc);
    FZ_CHECK(wn > 0, "lens workspace 0 for a model that ran");
    int kk = k.k, ok_k = kk >= 1 && kk <= V;
    int32_t *ids = fz_alloc(ok_k ? (size_t)L * kk * 4 : 4);
    float *probs = fz_out(ok_k ? (uint64_t)L * kk : 1), *lws = fz_out(wn);
    st = s->lens(s->desc, full_r[NL - 1], kk, ids, probs, lws, &err);
    if (ok_k && st == BL_ERR_VALUE && strstr(err.message, "overflowed")) return;
    fz_check_status("lens", st, ok_k ? BL_OK : BL_ERR_VALUE, &err);
    if (st == BL_OK) fz_check_lens(logits, L, V, kk, ids, probs);
}

#endif
