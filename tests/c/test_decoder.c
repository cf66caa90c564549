/* test_decoder.c - the whole decoder (bl_decoder_forward) against the plain double loops of
   reference.c (ref_decoder), on small random weights; every argument it refuses; and the
   shipped poem model against its numpy fixture (tests/fixtures/poems.json). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "reference.h"

#define ATOL 1e-5
#define RTOL 1e-5

/* ---- a small random model ------------------------------------------------------------------ */
static uint32_t lcg = 12345u;
static float *rnd(size_t n, float scale) { return bl_test_rnd(&lcg, n, scale); }
static float *around_one(size_t n) {   /* a layer norm's gamma */
    float *p = rnd(n, 0.2f);
    for (size_t i = 0; i < n; i++) p[i] += 1.0f;
    return p;
}

typedef struct {
    bl_decoder_desc d;
    bl_decoder_layer *layers;
    int32_t *ids;
} model;

/* Random weights for these sizes; biases and norm parameters left NULL when `bare`. */
static model make_model(int NL, int D, int H, int F, int V, int P, int L, bl_activation act,
                        int bare) {
    model m;
    m.layers = calloc((size_t)NL, sizeof *m.layers);
    m.ids = malloc((size_t)L * sizeof *m.ids);
    for (int i = 0; i < L; i++) m.ids[i] = (int32_t)((lcg = lcg * 1664525u + 1013904223u) >> 8) % V;
    for (int l = 0; l < NL; l++) {
        bl_decoder_layer *w = &m.layers[l];
        float s = 1.0f / sqrtf((float)D);
        w->wq = rnd((size_t)D * D, 2 * s);
        w->wk = rnd((size_t)D * D, 2 * s);
        w->wv = rnd((size_t)D * D, s);
        w->wo = rnd((size_t)D * D, s);
        w->w1 = rnd((size_t)D * F, 2 * s);
        w->w2 = rnd((size_t)F * D, 1.0f / sqrtf((float)F));
        if (!bare) {
            w->ln1_gamma = around_one(D); w->ln1_beta = rnd(D, 0.1f);
            w->ln2_gamma = around_one(D); w->ln2_beta = rnd(D, 0.1f);
            w->bq = rnd(D, 0.1f); w->bk = rnd(D, 0.1f); w->bv = rnd(D, 0.1f); w->bo = rnd(D, 0.1f);
            w->b1 = rnd(F, 0.1f); w->b2 = rnd(D, 0.1f);
        }
    }
    m.d = (bl_decoder_desc){
        .n_layers = NL, .d_model = D, .n_heads = H, .d_ff = F, .vocab = V, .n_positions = P,
        .activation = act, .eps = bare ? 0.0f : 1e-5f, .L = L, .ids = m.ids,
        .wte = rnd((size_t)V * D, 1.0f), .wpe = rnd((size_t)P * D, 0.5f), .layers = m.layers,
        .lnf_gamma = bare ? NULL : around_one(D), .lnf_beta = bare ? NULL : rnd(D, 0.1f)};
    return m;
}

static void free_model(model *m) {
    for (int l = 0; l < m->d.n_layers; l++) {
        const float **p = (const float **)&m->layers[l];
        for (size_t i = 0; i < sizeof m->layers[l] / sizeof(float *); i++) free((void *)p[i]);
    }
    free(m->layers);
    free(m->ids);
    free((void *)m->d.wte);
    free((void *)m->d.wpe);
    free((void *)m->d.lnf_gamma);
    free((void *)m->d.lnf_beta);
}

/* ---- against the reference (reference.c) ----------------------------------------------------- */
/* |got - want| <= ATOL + RTOL |want| everywhere; prints the max difference. */
static void expect_close(const char *what, const float *got, const double *want, size_t n) {
    double maxd = 0;
    size_t bad = n;
    for (size_t i = 0; i < n; i++) {
        double diff = fabs((double)got[i] - want[i]);
        if (!(diff <= ATOL + RTOL * fabs(want[i])) && bad == n) bad = i;
        if (!(diff <= maxd)) maxd = diff;
    }
    printf("       %-14s max diff %.3g (%zu values)\n", what, maxd, n);
    if (bad < n) fprintf(stderr, "  %s[%zu]: got %.9g, want %.9g\n", what, bad, got[bad], want[bad]);
    CHECK(bad == n);
}

static float *out_buf(size_t n) {   /* NaN-filled: anything not written shows */
    float *p = malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++) p[i] = NAN;
    return p;
}

/* Runs the model keeping every intermediate of layer `keep`, only the weights of layer
   `weights_only` (if >= 0), and compares all of it with the reference. */
static void compare_with_reference(model *m, int keep, int weights_only) {
    const bl_decoder_desc *d = &m->d;
    int L = d->L, D = d->d_model, H = d->n_heads, F = d->d_ff, V = d->vocab;
    size_t n = (size_t)L * D, s = (size_t)H * L * L, f = (size_t)L * F;
    bl_decoder_layer_out k = {
        .norm1 = out_buf(n), .q = out_buf(n), .k = out_buf(n), .v = out_buf(n), .scores = out_buf(s),
        .weights = out_buf(s), .context = out_buf(n), .concat = out_buf(n), .attn_out = out_buf(n),
        .resid1 = out_buf(n), .norm2 = out_buf(n), .hidden = out_buf(f), .activated = out_buf(f),
        .ffn_out = out_buf(n), .resid2 = out_buf(n)};
    bl_decoder_layer_out wo = {.weights = out_buf(s)};
    bl_decoder_layer_out **keep_list = calloc((size_t)d->n_layers, sizeof *keep_list);
    keep_list[keep] = &k;
    if (weights_only >= 0) keep_list[weights_only] = &wo;
    bl_decoder_out o = {.logits = out_buf((size_t)L * V), .embed = out_buf(n),
                        .hidden = out_buf(n), .layers = keep_list};
    size_t wsn = bl_decoder_workspace_size(d);
    CHECK(wsn == (size_t)L * (12 * (size_t)D + F + 1));
    float *ws = out_buf(wsn);
    bl_error err;
    CHECK_STATUS(bl_decoder_forward(d, &o, ws, &err), BL_OK);
    CHECK(err.message[0] == '\0');

    ref_decoder_layer *r = calloc((size_t)d->n_layers, sizeof *r);
    double *hidden = malloc(sizeof(double) * n), *logits = malloc(sizeof(double) * L * V),
           *embed = malloc(sizeof(double) * n);
    ref_decoder(embed, r, hidden, logits, d);
    expect_close("embed", o.embed, embed, n);
    const ref_decoder_layer *e = &r[keep];
    expect_close("norm1", k.norm1, e->norm1, n);
    expect_close("q", k.q, e->q, n);
    expect_close("k", k.k, e->k, n);
    expect_close("v", k.v, e->v, n);
    expect_close("scores", k.scores, e->scores, s);
    expect_close("weights", k.weights, e->weights, s);
    expect_close("context", k.context, e->context, n);
    expect_close("concat", k.concat, e->concat, n);
    expect_close("attn_out", k.attn_out, e->attn_out, n);
    expect_close("resid1", k.resid1, e->resid1, n);
    expect_close("norm2", k.norm2, e->norm2, n);
    expect_close("hidden", k.hidden, e->hidden, f);
    expect_close("activated", k.activated, e->activated, f);
    expect_close("ffn_out", k.ffn_out, e->ffn_out, n);
    expect_close("resid2", k.resid2, e->resid2, n);
    if (weights_only >= 0) expect_close("weights (2nd)", wo.weights, r[weights_only].weights, s);
    expect_close("final hidden", o.hidden, hidden, n);
    expect_close("logits", o.logits, logits, (size_t)L * V);

    ref_decoder_free(r, d->n_layers);
    free(r);
    free(hidden);
    free(logits);
    free(embed);
    float **p = (float **)&k;
    for (size_t i = 0; i < sizeof k / sizeof(float *); i++) free(p[i]);
    free(wo.weights);
    free(keep_list);
    free(o.logits);
    free(o.embed);
    free(o.hidden);
    free(ws);
}

static void decoder_matches_plain_loops_with_gelu_tanh(void) {
    model m = make_model(3, 16, 4, 40, 23, 12, 9, BL_ACT_GELU_TANH, 0);
    compare_with_reference(&m, 1, 2);
    compare_with_reference(&m, 0, -1);
    free_model(&m);
}

static void decoder_matches_plain_loops_with_relu_and_default_norms_and_biases(void) {
    model m = make_model(2, 12, 3, 20, 31, 10, 10, BL_ACT_RELU, 1);   /* L = n_positions */
    compare_with_reference(&m, 1, 0);
    free_model(&m);
}

static void decoder_of_one_token_with_one_head(void) {
    model m = make_model(1, 8, 1, 8, 5, 4, 1, BL_ACT_GELU, 0);
    compare_with_reference(&m, 0, -1);
    free_model(&m);
}

/* The logits must not depend on which intermediates are kept (they come from the workspace
   otherwise), and a prefix's logits equal the first rows of a longer run (causal). */
static void decoder_logits_do_not_depend_on_what_is_kept_nor_on_later_tokens(void) {
    model m = make_model(2, 16, 2, 32, 17, 16, 11, BL_ACT_GELU_TANH, 0);
    bl_decoder_desc *d = &m.d;
    size_t nl = (size_t)d->L * d->vocab;
    float *a = out_buf(nl), *b = out_buf(nl), *c = out_buf(nl);
    float *ws = out_buf(bl_decoder_workspace_size(d));
    float *w0 = out_buf((size_t)d->n_heads * d->L * d->L), *h1 = out_buf((size_t)d->L * d->d_ff);
    bl_decoder_layer_out k0 = {.weights = w0}, k1 = {.hidden = h1};
    bl_decoder_layer_out *both[2] = {&k0, &k1};
    bl_decoder_out oa = {.logits = a}, ob = {.logits = b, .layers = both};
    CHECK_STATUS(bl_decoder_forward(d, &oa, ws, NULL), BL_OK);
    CHECK_STATUS(bl_decoder_forward(d, &ob, ws, NULL), BL_OK);
    CHECK(memcmp(a, b, nl * sizeof(float)) == 0);
    int full = d->L;
    d->L = 6;
    bl_decoder_out oc = {.logits = c};
    CHECK_STATUS(bl_decoder_forward(d, &oc, ws, NULL), BL_OK);
    double maxd = 0;
    for (size_t i = 0; i < (size_t)6 * d->vocab; i++) maxd = fmax(maxd, fabs(c[i] - a[i]));
    printf("       prefix of 6 vs 11 tokens: max diff %.3g\n", maxd);
    CHECK(maxd <= 1e-5);
    CHECK(!isnan(c[6 * d->vocab - 1]) && isnan(c[6 * d->vocab]));   /* wrote only L rows */
    d->L = full;
    free(a); free(b); free(c); free(ws); free(w0); free(h1);
    free_model(&m);
}

static void decoder_workspace_size_follows_the_sizes(void) {
    model m = make_model(1, 8, 2, 16, 5, 6, 4, BL_ACT_RELU, 0);
    bl_decoder_desc d = m.d;
    CHECK(bl_decoder_workspace_size(&d) == 4 * (12 * 8 + 16 + 1));
    CHECK(bl_decoder_workspace_size(NULL) == 0);
    d.L = 7;                                   /* past n_positions */
    CHECK(bl_decoder_workspace_size(&d) == 0);
    d.L = 4;
    d.n_heads = 3;                              /* 8 % 3 */
    CHECK(bl_decoder_workspace_size(&d) == 0);
    /* L 65536 x (12 * 65536 + 1 + 1) passes 2^32 floats: refused, never wrapped */
    bl_decoder_desc big = {.n_layers = 1, .d_model = 65536, .n_heads = 1, .d_ff = 1, .vocab = 1,
                           .n_positions = 65536, .L = 65536};
    CHECK(bl_decoder_workspace_size(&big) == 0);
    big.d_model = big.L = 1024;                /* 2^10 x (12 x 2^10 + 2): 12.6 M floats */
    CHECK(bl_decoder_workspace_size(&big) == (size_t)1024 * (12 * 1024 + 2));
    free_model(&m);
}

/* One refused call: the status, a message containing `part`, and nothing written. */
static void refused(const bl_decoder_desc *d, const bl_decoder_out *o, float *ws, bl_status want,
                    const char *part) {
    bl_error err;
    float before = o && o->logits ? o->logits[0] : 0.0f;
    bl_status got = bl_decoder_forward(d, o, ws, &err);
    if (got != want || !strstr(err.message, part))
        fprintf(stderr, "  want %d \"%s\": got %d \"%s\"\n", want, part, got, err.message);
    CHECK(got == want);
    CHECK(err.status == got);
    CHECK(strstr(err.message, part) != NULL);
    if (o && o->logits) CHECK(isnan(o->logits[0]) && isnan(before));
    CHECK(bl_decoder_forward(d, o, ws, NULL) == want);   /* err may be NULL */
}

static void decoder_refuses_every_bad_argument_by_name(void) {
    model m = make_model(2, 8, 2, 16, 5, 6, 4, BL_ACT_RELU, 0);
    float *logits = out_buf(4 * 5), *ws = out_buf(bl_decoder_workspace_size(&m.d));
    bl_decoder_out o = {.logits = logits};
    bl_decoder_desc d;
    refused(NULL, &o, ws, BL_ERR_NULL, "desc");
    refused(&m.d, NULL, ws, BL_ERR_NULL, "out");
#define WITH(field, value, status, part) \
    do { d = m.d; d.field = value; refused(&d, &o, ws, status, part); } while (0)
    WITH(n_layers, 0, BL_ERR_SIZE, "n_layers (0)");
    WITH(d_model, -1, BL_ERR_SIZE, "d_model (-1)");
    WITH(n_heads, 0, BL_ERR_SIZE, "n_heads (0)");
    WITH(d_ff, 65537, BL_ERR_SIZE, "d_ff (65537)");
    WITH(vocab, 0, BL_ERR_SIZE, "vocab (0)");
    WITH(n_positions, 0, BL_ERR_SIZE, "n_positions (0)");
    WITH(L, 0, BL_ERR_SIZE, "L (0)");
    WITH(n_heads, 3, BL_ERR_SHAPE, "d_model (8) must be divisible by n_heads (3)");
    WITH(L, 7, BL_ERR_SHAPE, "L (7) must be at most n_positions (6)");
    WITH(activation, (bl_activation)99, BL_ERR_ACTIVATION, "activation (99)");
    WITH(activation, BL_ACT_SWIGLU, BL_ERR_ACTIVATION, "swiglu is gated");
    WITH(eps, -1.0f, BL_ERR_VALUE, "eps (-1)");
    WITH(eps, NAN, BL_ERR_VALUE, "eps (nan)");
    WITH(eps, INFINITY, BL_ERR_VALUE, "eps (inf)");
    d = m.d; d.vocab = 65536; d.d_model = 65536; d.n_heads = 1;
    refused(&d, &o, ws, BL_ERR_TOO_LARGE, "wte (65536 x 65536)");
    d = m.d; d.n_positions = 65536; d.d_model = 8192;
    refused(&d, &o, ws, BL_ERR_TOO_LARGE, "wpe (65536 x 8192)");
    d = m.d; d.L = 65536; d.n_positions = 65536; d.vocab = 8192;
    refused(&d, &o, ws, BL_ERR_TOO_LARGE, "logits (65536 x 8192)");
    d = m.d; d.d_model = 16384; d.d_ff = 65536; d.n_heads = 1;
    refused(&d, &o, ws, BL_ERR_TOO_LARGE, "w1 (16384 x 65536)");
    d = m.d; d.L = 4096; d.n_positions = 4096; d.n_heads = 32; d.d_model = 32;
    refused(&d, &o, ws, BL_ERR_TOO_LARGE, "scores (131072 x 4096)");
    d = m.d; d.L = 8192; d.n_positions = 8192; d.d_model = 4096; d.vocab = 1;   /* each part fits */
    refused(&d, &o, ws, BL_ERR_TOO_LARGE, "workspace (8192 x 49169)");
    WITH(ids, NULL, BL_ERR_NULL, "ids must not be NULL");
    WITH(wte, NULL, BL_ERR_NULL, "wte must not be NULL");
    WITH(wpe, NULL, BL_ERR_NULL, "wpe must not be NULL");
    WITH(layers, NULL, BL_ERR_NULL, "layers must not be NULL");
    refused(&m.d, &o, NULL, BL_ERR_NULL, "workspace must not be NULL");
    bl_decoder_out no_logits = {.embed = logits};
    refused(&m.d, &no_logits, ws, BL_ERR_NULL, "logits must not be NULL");

    /* each required weight of each layer, named with its layer */
    static const char *const names[] = {"wq", "wk", "wv", "wo", "w1", "w2"};
    for (int l = 0; l < 2; l++)
        for (int i = 0; i < 6; i++) {
            bl_decoder_layer layers[2] = {m.layers[0], m.layers[1]}, *w = &layers[l];
            const float **slot[] = {&w->wq, &w->wk, &w->wv, &w->wo, &w->w1, &w->w2};
            *slot[i] = NULL;
            d = m.d;
            d.layers = layers;
            char part[64];
            snprintf(part, sizeof part, "layers[%d].%s must not be NULL", l, names[i]);
            refused(&d, &o, ws, BL_ERR_NULL, part);
        }

    /* ids out of range: the position and the value */
    int32_t ids[4] = {0, 1, 2, 3};
    d = m.d;
    d.ids = ids;
    ids[2] = 5;
    refused(&d, &o, ws, BL_ERR_VALUE, "ids[2] (5) must be in [0, vocab 5)");
    ids[2] = 2;
    ids[3] = -1;
    refused(&d, &o, ws, BL_ERR_VALUE, "ids[3] (-1) must be in [0, vocab 5)");
    ids[3] = INT32_MIN;
    refused(&d, &o, ws, BL_ERR_VALUE, "ids[3] (-2147483648)");
    ids[3] = 4;   /* the largest valid id */
    bl_error err;
    CHECK_STATUS(bl_decoder_forward(&d, &o, ws, &err), BL_OK);
    CHECK(err.status == BL_OK && err.message[0] == '\0');
#undef WITH
    free(logits);
    free(ws);
    free_model(&m);
}

/* ---- the shipped poem model against its float64 fixture ---------------------------------- */
/* web/models/poems (written by tools/train) and tests/fixtures/poems.json (tools/train/
   reference.py, numpy): missing files fail the test. */
#define POEMS BL_FIXTURES "/../../web/models/poems/"

static unsigned char *read_file(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "  cannot open %s\n", path); return NULL; }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *p = malloc((size_t)len + 1);
    if (fread(p, 1, (size_t)len, f) != (size_t)len) { free(p); p = NULL; }
    fclose(f);
    if (p) p[len] = 0;
    if (n) *n = (size_t)len;
    return p;
}

static float half(uint16_t h) {   /* IEEE binary16 -> float, exact */
    int e = (h >> 10) & 31, f = h & 1023;
    float v = e == 0 ? ldexpf((float)f, -24) : e == 31 ? (f ? NAN : INFINITY) : ldexpf((float)(f | 1024), e - 25);
    return h & 0x8000 ? -v : v;
}

/* Tensor `name` of a safetensors file as floats (F16 or F32), or NULL (reported). */
static float *tensor(const cJSON *header, const unsigned char *data, size_t size, const char *name,
                     size_t want) {
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(header, name), *off = fx_get(e, "data_offsets");
    if (cJSON_GetArraySize(off) != 2) off = NULL;
    const char *dtype = fx_str(e, "dtype");
    size_t a = off ? (size_t)cJSON_GetArrayItem(off, 0)->valuedouble : 0;
    size_t b = off ? (size_t)cJSON_GetArrayItem(off, 1)->valuedouble : 0;
    int f16 = dtype && strcmp(dtype, "F16") == 0, f32 = dtype && strcmp(dtype, "F32") == 0;
    if (!e || !(f16 || f32) || b > size || b - a != want * (f16 ? 2 : 4)) {
        fprintf(stderr, "  tensor %s: missing or not %zu F16/F32 values\n", name, want);
        CHECK(0);
        return NULL;
    }
    float *p = malloc(want * sizeof(float));
    for (size_t i = 0; i < want; i++) {
        if (f16) p[i] = half((uint16_t)(data[a + 2 * i] | data[a + 2 * i + 1] << 8));
        else memcpy(&p[i], data + a + 4 * i, 4);
    }
    return p;
}

static void close_to(const char *what, const float *got, const cJSON *want, size_t n, double atol,
                     double rtol, double *worst) {
    CHECK(cJSON_IsArray(want) && (size_t)cJSON_GetArraySize(want) == n);
    if (!cJSON_IsArray(want) || (size_t)cJSON_GetArraySize(want) != n) {
        fprintf(stderr, "  %s: want %zu values\n", what, n);
        return;
    }
    size_t i = 0, bad = n;
    const cJSON *it;
    cJSON_ArrayForEach(it, want) {
        double diff = fabs((double)got[i] - it->valuedouble);
        if (!(diff <= atol + rtol * fabs(it->valuedouble)) && bad == n) bad = i;
        if (!(diff <= *worst)) *worst = diff;
        i++;
    }
    if (bad < n) fprintf(stderr, "  %s[%zu]: got %.9g (atol %g, rtol %g)\n", what, bad, got[bad], atol, rtol);
    CHECK(bad == n);
}

static void decoder_matches_the_poem_fixture(void) {
    cJSON *cases = fx_cases("poems.json");
    size_t size = 0;
    unsigned char *file = read_file(POEMS "model.safetensors", &size);
    char *cfg_text = (char *)read_file(POEMS "config.json", NULL);
    CHECK(file && cfg_text && size > 8);
    if (!file || !cfg_text || size <= 8) { free(file); free(cfg_text); return; }
    uint64_t hl = 0;
    for (int i = 7; i >= 0; i--) hl = hl << 8 | file[i];
    CHECK(hl <= size - 8);
    cJSON *header = cJSON_ParseWithLength((const char *)file + 8, (size_t)hl), *cfg = cJSON_Parse(cfg_text);
    const unsigned char *data = file + 8 + hl;
    size_t dsize = size - 8 - (size_t)hl;
    int D = fx_int(cfg, "n_embd", 0), NL = fx_int(cfg, "n_layer", 0), V = fx_int(cfg, "vocab_size", 0),
        P = fx_int(cfg, "n_positions", 0), F = fx_int(cfg, "n_inner", 0);
    const char *act = fx_str(cfg, "activation_function");
    bl_decoder_desc d = {
        .n_layers = NL, .d_model = D, .n_heads = fx_int(cfg, "n_head", 0), .d_ff = F ? F : 4 * D,
        .vocab = V, .n_positions = P, .eps = (float)fx_num(cfg, "layer_norm_epsilon", 1e-5),
        .activation = strcmp(act, "relu") == 0 ? BL_ACT_RELU : strcmp(act, "gelu") == 0 ? BL_ACT_GELU : BL_ACT_GELU_TANH,
        .wte = tensor(header, data, dsize, "wte.weight", (size_t)V * D),
        .wpe = tensor(header, data, dsize, "wpe.weight", (size_t)P * D),
        .lnf_gamma = tensor(header, data, dsize, "ln_f.weight", D),
        .lnf_beta = tensor(header, data, dsize, "ln_f.bias", D)};
    F = d.d_ff;
    bl_decoder_layer *layers = calloc((size_t)NL, sizeof *layers);
    for (int l = 0; l < NL; l++) {
        char n[64];
        bl_decoder_layer *w = &layers[l];
#define T(field, name, count) (snprintf(n, sizeof n, "h.%d." name, l), w->field = tensor(header, data, dsize, n, count))
        T(ln1_gamma, "ln_1.weight", D); T(ln1_beta, "ln_1.bias", D);
        T(wo, "attn.c_proj.weight", (size_t)D * D); T(bo, "attn.c_proj.bias", D);
        T(ln2_gamma, "ln_2.weight", D); T(ln2_beta, "ln_2.bias", D);
        T(w1, "mlp.c_fc.weight", (size_t)D * F); T(b1, "mlp.c_fc.bias", F);
        T(w2, "mlp.c_proj.weight", (size_t)F * D); T(b2, "mlp.c_proj.bias", D);
#undef T
        snprintf(n, sizeof n, "h.%d.attn.c_attn.weight", l);
        float *qkv = tensor(header, data, dsize, n, (size_t)D * 3 * D);
        snprintf(n, sizeof n, "h.%d.attn.c_attn.bias", l);
        float *bqkv = tensor(header, data, dsize, n, (size_t)3 * D);
        float *split[6];
        for (int j = 0; j < 3; j++) {   /* q, k, v: the column blocks [jD, (j+1)D) */
            split[j] = malloc((size_t)D * D * sizeof(float));
            split[3 + j] = malloc((size_t)D * sizeof(float));
            for (int r = 0; qkv && r < D; r++) memcpy(split[j] + (size_t)r * D, qkv + (size_t)r * 3 * D + j * D, D * sizeof(float));
            if (bqkv) memcpy(split[3 + j], bqkv + j * D, D * sizeof(float));
        }
        w->wq = split[0]; w->wk = split[1]; w->wv = split[2];
        w->bq = split[3]; w->bk = split[4]; w->bv = split[5];
        free(qkv);
        free(bqkv);
    }
    d.layers = layers;

    int compared_layers = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cases) {
        size_t L;
        double *idd = fx_doubles(c, "ids", &L), atol = fx_num(c, "atol", 0), rtol = fx_num(c, "rtol", 0), worst = 0;
        int32_t *ids = malloc(L * sizeof *ids);
        for (size_t i = 0; i < L; i++) ids[i] = (int32_t)idd[i];
        d.L = (int)L;
        d.ids = ids;
        size_t n = L * D, s = (size_t)d.n_heads * L * L, f = L * F;
        bl_decoder_layer_out *keep = calloc((size_t)NL, sizeof *keep), **list = calloc((size_t)NL, sizeof *list);
        for (int l = 0; l < NL; l++) {
            float **p = (float **)&keep[l];
            size_t sizes[15] = {n, n, n, n, s, s, n, n, n, n, n, f, f, n, n};
            for (int i = 0; i < 15; i++) p[i] = out_buf(sizes[i]);
            list[l] = &keep[l];
        }
        bl_decoder_out o = {.logits = out_buf(L * V), .embed = out_buf(n), .layers = list};
        float *ws = out_buf(bl_decoder_workspace_size(&d));
        CHECK_STATUS(bl_decoder_forward(&d, &o, ws, NULL), BL_OK);
        close_to("last_logits", o.logits + (L - 1) * V, fx_get(c, "last_logits"), (size_t)V, atol, rtol, &worst);
        if (fx_get(c, "logits")) close_to("logits", o.logits, fx_get(c, "logits"), L * V, atol, rtol, &worst);
        const cJSON *want;
        int l = 0;
        cJSON_ArrayForEach(want, fx_get(c, "layers")) {
            const cJSON *at = fx_get(want, "attention"), *ff = fx_get(want, "ffn");
            bl_decoder_layer_out *k = &keep[l];
            close_to("x", l ? keep[l - 1].resid2 : o.embed, fx_get(want, "x"), n, atol, rtol, &worst);
            close_to("norm1", k->norm1, fx_get(want, "norm1"), n, atol, rtol, &worst);
            close_to("q", k->q, fx_get(at, "q"), n, atol, rtol, &worst);
            close_to("k", k->k, fx_get(at, "k"), n, atol, rtol, &worst);
            close_to("v", k->v, fx_get(at, "v"), n, atol, rtol, &worst);
            close_to("scores", k->scores, fx_get(at, "scores"), s, atol, rtol, &worst);
            close_to("weights", k->weights, fx_get(at, "weights"), s, atol, rtol, &worst);
            close_to("context", k->context, fx_get(at, "context"), n, atol, rtol, &worst);
            close_to("concat", k->concat, fx_get(at, "concat"), n, atol, rtol, &worst);
            close_to("attention.out", k->attn_out, fx_get(at, "out"), n, atol, rtol, &worst);
            close_to("resid1", k->resid1, fx_get(want, "resid1"), n, atol, rtol, &worst);
            close_to("norm2", k->norm2, fx_get(want, "norm2"), n, atol, rtol, &worst);
            close_to("ffn.hidden", k->hidden, fx_get(ff, "hidden"), f, atol, rtol, &worst);
            close_to("ffn.activated", k->activated, fx_get(ff, "activated"), f, atol, rtol, &worst);
            close_to("ffn.out", k->ffn_out, fx_get(ff, "out"), n, atol, rtol, &worst);
            close_to("resid2", k->resid2, fx_get(want, "resid2"), n, atol, rtol, &worst);
            l++;
            compared_layers++;
        }
        CHECK(l == 0 || l == NL);
        /* the top-1 next character */
        int top = 0;
        for (int j = 1; j < V; j++)
            if (o.logits[(L - 1) * V + j] > o.logits[(L - 1) * V + top]) top = j;
        const cJSON *top10 = fx_get(c, "top10");
        CHECK(top == fx_int(cJSON_GetArrayItem(top10, 0), "id", -1));
        printf("       %s: L %zu, top-1 id %d, max diff %.3g (atol %g, rtol %g)\n", fx_str(c, "text"), L, top,
               worst, atol, rtol);
        for (int j = 0; j < NL; j++) {
            float **p = (float **)&keep[j];
            for (int i = 0; i < 15; i++) free(p[i]);
        }
        free(keep); free(list); free(o.logits); free(o.embed); free(ws); free(ids); free(idd);
    }
    CHECK(compared_layers >= 1);
    for (int l = 0; l < NL; l++) {
        const float **p = (const float **)&layers[l];
        for (size_t i = 0; i < sizeof layers[l] / sizeof(float *); i++) free((void *)p[i]);
    }
    free(layers);
    free((void *)d.wte); free((void *)d.wpe); free((void *)d.lnf_gamma); free((void *)d.lnf_beta);
    cJSON_Delete(header);
    cJSON_Delete(cfg);
    free(file);
    free(cfg_text);
}

/* Finite weights whose products overflow float32 (a final norm's gamma of 3e38): the logits
   would hold Inf or NaN; the decoder refuses them and names the first one. */
static void decoder_refuses_logits_that_overflow_float32(void) {
    model m = make_model(1, 8, 2, 16, 5, 4, 3, BL_ACT_RELU, 0);
    for (int c = 0; c < 8; c++) ((float *)m.d.lnf_gamma)[c] = 3e38f;
    float *logits = malloc(sizeof(float) * 3 * 5);
    float *ws = malloc(sizeof(float) * bl_decoder_workspace_size(&m.d));
    bl_decoder_out o = {.logits = logits};
    bl_error err;
    CHECK_STATUS(bl_decoder_forward(&m.d, &o, ws, &err), BL_ERR_VALUE);
    printf("     %s\n", err.message);
    CHECK(strstr(err.message, "logit of token 0, vocabulary entry ") != NULL);
    CHECK(strstr(err.message, "float32 overflowed") != NULL);
    for (int c = 0; c < 8; c++) ((float *)m.d.lnf_gamma)[c] = 1.0f;   /* and back: it runs */
    CHECK_STATUS(bl_decoder_forward(&m.d, &o, ws, &err), BL_OK);
    free(ws);
    free(logits);
    free_model(&m);
}

int main(void) {
    bl_run("decoder_matches_plain_loops_with_gelu_tanh", decoder_matches_plain_loops_with_gelu_tanh);
    bl_run("decoder_matches_plain_loops_with_relu_and_default_norms_and_biases",
           decoder_matches_plain_loops_with_relu_and_default_norms_and_biases);
    bl_run("decoder_of_one_token_with_one_head", decoder_of_one_token_with_one_head);
    bl_run("decoder_logits_do_not_depend_on_what_is_kept_nor_on_later_tokens",
           decoder_logits_do_not_depend_on_what_is_kept_nor_on_later_tokens);
    bl_run("decoder_workspace_size_follows_the_sizes", decoder_workspace_size_follows_the_sizes);
    bl_run("decoder_refuses_every_bad_argument_by_name", decoder_refuses_every_bad_argument_by_name);
    bl_run("decoder_matches_the_poem_fixture", decoder_matches_the_poem_fixture);
    bl_run("decoder_refuses_logits_that_overflow_float32", decoder_refuses_logits_that_overflow_float32);
    return bl_summary();
}
