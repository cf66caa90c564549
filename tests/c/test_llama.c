/* test_llama.c - the Llama-family decoder (bl_llama_forward) on the tiny Hugging Face folders of
   tests/fixtures/models (tools/gen_models.py): config.json and the safetensors file(s) read
   here, the weights handed over in their own dtype (F32, F16, BF16), the logits and every
   intermediate of one layer against the independent float64 PyTorch forward in reference.json;
   then every argument it refuses. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "bl_internal.h"   /* rope.c's math */

/* ---- a Hugging Face folder ------------------------------------------------------------- */
#define MAX_TENSORS 64
#define MAX_FILES 4

typedef struct {
    char name[96];
    bl_dtype dtype;
    const void *data;
    size_t n;                     /* values */
} tensor;

typedef struct {
    cJSON *config, *ref;
    unsigned char *files[MAX_FILES];
    int n_files, n_tensors;
    tensor t[MAX_TENSORS];
} folder;

static unsigned char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *p = malloc((size_t)n + 1);
    if (!p || fread(p, 1, (size_t)n, f) != (size_t)n) { fprintf(stderr, "read %s\n", path); exit(2); }
    p[n] = 0;
    fclose(f);
    if (len) *len = (size_t)n;
    return p;
}

static cJSON *read_json(const char *dir, const char *file) {
    char path[1024];
    snprintf(path, sizeof path, "%s/models/%s/%s", BL_FIXTURES, dir, file);
    unsigned char *text = read_file(path, NULL);
    if (!text) return NULL;
    cJSON *j = cJSON_Parse((const char *)text);
    free(text);
    if (!j) { fprintf(stderr, "%s is not JSON\n", path); exit(2); }
    return j;
}

/* The tensors of one safetensors file: pointers into its bytes, kept in f. */
static void read_safetensors(folder *f, const char *dir, const char *file) {
    char path[1024];
    size_t len;
    snprintf(path, sizeof path, "%s/models/%s/%s", BL_FIXTURES, dir, file);
    unsigned char *b = read_file(path, &len);
    if (!b || f->n_files == MAX_FILES) { fprintf(stderr, "cannot read %s\n", path); exit(2); }
    f->files[f->n_files++] = b;
    uint64_t hlen = 0;
    for (int i = 7; i >= 0; i--) hlen = hlen << 8 | b[i];
    char *text = malloc(hlen + 1);
    memcpy(text, b + 8, hlen);
    text[hlen] = 0;
    cJSON *h = cJSON_Parse(text), *e;
    free(text);
    cJSON_ArrayForEach(e, h) {
        if (!strcmp(e->string, "__metadata__")) continue;
        const char *dt = fx_str(e, "dtype");
        cJSON *off = fx_get(e, "data_offsets"), *dim;
        if (!strcmp(dt, "BOOL")) continue;
        tensor *t = &f->t[f->n_tensors++];
        snprintf(t->name, sizeof t->name, "%s", e->string);
        t->dtype = !strcmp(dt, "F32") ? BL_DTYPE_F32 : !strcmp(dt, "F16") ? BL_DTYPE_F16 : BL_DTYPE_BF16;
        t->data = b + 8 + hlen + (size_t)cJSON_GetArrayItem(off, 0)->valuedouble;
        t->n = 1;
        cJSON_ArrayForEach(dim, fx_get(e, "shape")) t->n *= (size_t)dim->valuedouble;
    }
    cJSON_Delete(h);
}

static folder *open_folder(const char *dir) {
    folder *f = calloc(1, sizeof *f);
    f->config = read_json(dir, "config.json");
    f->ref = read_json(dir, "reference.json");
    cJSON *index = read_json(dir, "model.safetensors.index.json");
    if (!f->config || !f->ref) { fprintf(stderr, "fixture folder %s is incomplete\n", dir); exit(2); }
    if (!index) {
        read_safetensors(f, dir, "model.safetensors");
    } else {   /* each shard the weight map names, once */
        const char *seen[MAX_FILES] = {0};
        int n = 0;
        cJSON *e;
        cJSON_ArrayForEach(e, fx_get(index, "weight_map")) {
            int known = 0;
            for (int i = 0; i < n; i++) known |= !strcmp(seen[i], e->valuestring);
            if (!known && n < MAX_FILES) {
                seen[n++] = e->valuestring;
                read_safetensors(f, dir, e->valuestring);
            }
        }
        cJSON_Delete(index);
    }
    return f;
}

static void close_folder(folder *f) {
    for (int i = 0; i < f->n_files; i++) free(f->files[i]);
    cJSON_Delete(f->config);
    cJSON_Delete(f->ref);
    free(f);
}

static const tensor *find(const folder *f, const char *name) {
    for (int i = 0; i < f->n_tensors; i++)
        if (!strcmp(f->t[i].name, name)) return &f->t[i];
    return NULL;
}
static const void *weight(const folder *f, const char *name) {
    const tensor *t = find(f, name);
    return t ? t->data : NULL;
}

/* The descriptor of a folder (config.json read as the JS loader reads it), its layer table. */
typedef struct {
    bl_llama_desc d;
    bl_llama_layer layers[2];
    int32_t ids[16];
} model;

static void model_of(model *m, const folder *f) {
    const cJSON *c = f->config, *rs = fx_get(c, "rope_scaling"), *rp = fx_get(c, "rope_parameters");
    memset(m, 0, sizeof *m);
    bl_llama_desc *d = &m->d;
    d->n_layers = fx_int(c, "num_hidden_layers", 0);
    d->d_model = fx_int(c, "hidden_size", 0);
    d->n_heads = fx_int(c, "num_attention_heads", 0);
    d->n_kv_heads = fx_int(c, "num_key_value_heads", 0);
    d->head_dim = fx_int(c, "head_dim", 0);
    d->d_ff = fx_int(c, "intermediate_size", 0);
    d->vocab = fx_int(c, "vocab_size", 0);
    d->max_positions = fx_int(c, "max_position_embeddings", 0);
    d->eps = (float)fx_num(c, "rms_norm_eps", 1e-6);
    d->rope_theta = (float)fx_num(rp ? rp : c, "rope_theta", 10000.0);
    if (cJSON_IsObject(rs)) {
        d->rope_type = BL_ROPE_LLAMA3;
        d->rope_factor = (float)fx_num(rs, "factor", 0);
        d->rope_low_freq_factor = (float)fx_num(rs, "low_freq_factor", 0);
        d->rope_high_freq_factor = (float)fx_num(rs, "high_freq_factor", 0);
        d->rope_original_max_positions = fx_int(rs, "original_max_position_embeddings", 0);
    }
    d->dtype = find(f, "model.embed_tokens.weight")->dtype;
    d->embed = weight(f, "model.embed_tokens.weight");
    d->final_norm = weight(f, "model.norm.weight");
    d->lm_head = weight(f, "lm_head.weight");
    for (int l = 0; l < d->n_layers && l < 2; l++) {
        char p[64], n[128];
        bl_llama_layer *w = &m->layers[l];
        snprintf(p, sizeof p, "model.layers.%d.", l);
#define W(field, suffix) (snprintf(n, sizeof n, "%s%s", p, suffix), w->field = weight(f, n))
        W(attn_norm, "input_layernorm.weight");
        W(wq, "self_attn.q_proj.weight"); W(bq, "self_attn.q_proj.bias");
        W(wk, "self_attn.k_proj.weight"); W(bk, "self_attn.k_proj.bias");
        W(wv, "self_attn.v_proj.weight"); W(bv, "self_attn.v_proj.bias");
        W(q_norm, "self_attn.q_norm.weight"); W(k_norm, "self_attn.k_norm.weight");
        W(wo, "self_attn.o_proj.weight"); W(bo, "self_attn.o_proj.bias");
        W(ffn_norm, "post_attention_layernorm.weight");
        W(w_gate, "mlp.gate_proj.weight"); W(w_up, "mlp.up_proj.weight");
        W(w_down, "mlp.down_proj.weight");
#undef W
    }
    d->layers = m->layers;
    cJSON *id;
    cJSON_ArrayForEach(id, fx_get(f->ref, "ids")) m->ids[d->L++] = (int32_t)id->valuedouble;
    d->ids = m->ids;
}

/* ---- against reference.json ------------------------------------------------------------- */
static float *out_buf(size_t n) {   /* NaN-filled: anything not written shows */
    float *p = malloc((n ? n : 1) * sizeof(float));
    for (size_t i = 0; i < n; i++) p[i] = NAN;
    return p;
}

/* |got - want| <= atol + rtol |want| for reference key `key`; prints the max difference. */
static void expect_ref(const folder *f, const char *key, const float *got, size_t n) {
    size_t len;
    double *want = fx_doubles(fx_get(f->ref, "expected"), key, &len);
    double atol = fx_num(f->ref, "atol", 0), rtol = fx_num(f->ref, "rtol", 0), maxd = 0;
    CHECK(want != NULL && len == n);
    if (!want || len != n) { fprintf(stderr, "  %s: %zu values, want %zu\n", key, n, len); free(want); return; }
    size_t bad = n;
    for (size_t i = 0; i < n; i++) {
        double diff = fabs((double)got[i] - want[i]);
        if (!(diff <= atol + rtol * fabs(want[i])) && bad == n) bad = i;
        if (!(diff <= maxd)) maxd = diff;
    }
    printf("       %-16s max diff %.3g (atol %g, rtol %g, %zu values)\n", key, maxd, atol, rtol, n);
    if (bad < n) fprintf(stderr, "  %s[%zu]: got %.9g, want %.9g\n", key, bad, got[bad], want[bad]);
    CHECK(bad == n);
    free(want);
}

#define N_KEPT 22
static const char *const KEPT[N_KEPT] = {
    "norm1", "rstd1", "q", "k", "v", "q_rot", "k_rot", "scores", "weights", "context", "concat",
    "attn_out", "resid1", "norm2", "rstd2", "gate", "up", "activated", "ffn_out", "resid2",
    "embed", "hidden"};

/* Runs the folder's model keeping every intermediate of reference.json's layer and compares. */
static void matches_reference(const char *dir, const char *dtype) {
    folder *f = open_folder(dir);
    model m;
    model_of(&m, f);
    const bl_llama_desc *d = &m.d;
    CHECK(!strcmp(fx_str(f->ref, "dtype"), dtype));
    CHECK(d->dtype == (!strcmp(dtype, "F32") ? BL_DTYPE_F32 : !strcmp(dtype, "F16") ? BL_DTYPE_F16
                                                                                   : BL_DTYPE_BF16));
    int L = d->L, D = d->d_model, H = d->n_heads, hd = d->head_dim ? d->head_dim : D / H;
    int KV = (d->n_kv_heads ? d->n_kv_heads : H) * hd, Q = H * hd, F = d->d_ff;
    size_t sz[N_KEPT] = {
        (size_t)L * D, L, (size_t)L * Q, (size_t)L * KV, (size_t)L * KV, (size_t)L * Q,
        (size_t)L * KV, (size_t)H * L * L, (size_t)H * L * L, (size_t)L * Q, (size_t)L * Q,
        (size_t)L * D, (size_t)L * D, (size_t)L * D, L, (size_t)L * F, (size_t)L * F,
        (size_t)L * F, (size_t)L * D, (size_t)L * D, (size_t)L * D, (size_t)L * D};
    float *buf[N_KEPT];
    for (int i = 0; i < N_KEPT; i++) buf[i] = out_buf(sz[i]);
    bl_llama_layer_out k = {
        .norm1 = buf[0], .rstd1 = buf[1], .q = buf[2], .k = buf[3], .v = buf[4], .q_rot = buf[5],
        .k_rot = buf[6], .scores = buf[7], .weights = buf[8], .context = buf[9], .concat = buf[10],
        .attn_out = buf[11], .resid1 = buf[12], .norm2 = buf[13], .rstd2 = buf[14], .gate = buf[15],
        .up = buf[16], .activated = buf[17], .ffn_out = buf[18], .resid2 = buf[19]};
    int layer = fx_int(f->ref, "layer", 0);
    bl_llama_layer_out *keep[2] = {NULL, NULL};
    keep[layer] = &k;
    float *logits = out_buf((size_t)L * d->vocab);
    bl_llama_out o = {.logits = logits, .embed = buf[20], .hidden = buf[21], .layers = keep};
    size_t wsn = bl_llama_workspace_size(d);
    CHECK(wsn > 0);
    float *ws = out_buf(wsn);
    bl_error err;
    CHECK_STATUS(bl_llama_forward(d, &o, ws, &err), BL_OK);
    CHECK(err.message[0] == '\0');
    if (err.message[0]) fprintf(stderr, "  %s\n", err.message);
    expect_ref(f, "logits", logits, (size_t)L * d->vocab);
    expect_ref(f, "embed", buf[20], sz[20]);
    expect_ref(f, "hidden", buf[21], sz[21]);
    for (int i = 0; i < 20; i++) {
        char key[32];
        snprintf(key, sizeof key, "layer.%s", KEPT[i]);
        expect_ref(f, key, buf[i], sz[i]);
    }
    /* the logits again with nothing kept (everything in the workspace): the same bits */
    float *bare = out_buf((size_t)L * d->vocab);
    bl_llama_out ob = {.logits = bare};
    CHECK_STATUS(bl_llama_forward(d, &ob, ws, NULL), BL_OK);
    CHECK(memcmp(bare, logits, (size_t)L * d->vocab * sizeof(float)) == 0);
    for (int i = 0; i < N_KEPT; i++) free(buf[i]);
    free(logits);
    free(bare);
    free(ws);
    close_folder(f);
}

static void llama_gqa_llama3_rope_f32_matches_torch(void) { matches_reference("llama", "F32"); }
static void llama_bf16_matches_torch(void) { matches_reference("llama-bf16", "BF16"); }
static void qwen2_qkv_biases_f16_sharded_matches_torch(void) { matches_reference("qwen2", "F16"); }
static void qwen3_qk_norm_wide_heads_bf16_matches_torch(void) { matches_reference("qwen3", "BF16"); }
static void mistral_one_kv_head_f32_matches_torch(void) { matches_reference("mistral", "F32"); }

/* BF16 weights are up-cast exactly while packed: the same weights as float32 give the same bits. */
static void bf16_weights_give_the_bits_of_their_f32_upcast(void) {
    folder *f = open_folder("llama-bf16");
    model m;
    model_of(&m, f);
    /* every tensor as float32 (bf16 is the top half of a float32), the same pointers swapped */
    float *copies[MAX_TENSORS];
    folder *g = calloc(1, sizeof *g);
    *g = *f;
    for (int i = 0; i < f->n_tensors; i++) {
        const uint16_t *h = f->t[i].data;
        copies[i] = malloc(f->t[i].n * sizeof(float));
        for (size_t j = 0; j < f->t[i].n; j++) {
            uint32_t bits = (uint32_t)h[j] << 16;
            memcpy(&copies[i][j], &bits, 4);
        }
        g->t[i].data = copies[i];
        g->t[i].dtype = BL_DTYPE_F32;
    }
    model m32;
    model_of(&m32, g);
    CHECK(m32.d.dtype == BL_DTYPE_F32);
    size_t n = (size_t)m.d.L * m.d.vocab;
    float *a = out_buf(n), *b = out_buf(n), *ws = out_buf(bl_llama_workspace_size(&m.d));
    bl_llama_out oa = {.logits = a}, ob = {.logits = b};
    CHECK_STATUS(bl_llama_forward(&m.d, &oa, ws, NULL), BL_OK);
    CHECK_STATUS(bl_llama_forward(&m32.d, &ob, ws, NULL), BL_OK);
    CHECK(memcmp(a, b, n * sizeof(float)) == 0);
    for (int i = 0; i < f->n_tensors; i++) free(copies[i]);
    free(g);
    free(a);
    free(b);
    free(ws);
    close_folder(f);
}

/* A prefix's logits are the first rows of a longer run's (causal), bit for bit. */
static void llama_logits_do_not_depend_on_later_tokens(void) {
    folder *f = open_folder("qwen3");
    model m;
    model_of(&m, f);
    int L = m.d.L, V = m.d.vocab;
    float *a = out_buf((size_t)L * V), *b = out_buf((size_t)L * V);
    float *ws = out_buf(bl_llama_workspace_size(&m.d));
    bl_llama_out oa = {.logits = a}, ob = {.logits = b};
    CHECK_STATUS(bl_llama_forward(&m.d, &oa, ws, NULL), BL_OK);
    m.d.L = 3;
    CHECK_STATUS(bl_llama_forward(&m.d, &ob, ws, NULL), BL_OK);
    CHECK(memcmp(a, b, (size_t)3 * V * sizeof(float)) == 0);
    free(a);
    free(b);
    free(ws);
    close_folder(f);
}

/* rope.c's own exp, cos and sin (no libm in the page's wasm) against libm's, over the range
   they serve: exponents of theta^(-2c/hd) for theta up to 1e9, angles up to position 65535. */
static void rope_math_matches_libm(void) {
    double worst_e = 0, worst_t = 0;
    for (double x = -48.0; x <= 0.0; x += 0.00731) {
        double want = exp(x), rel = fabs(bl__exp_neg(x) - want) / want;
        if (rel > worst_e) worst_e = rel;
    }
    for (double a = 0.0; a < 65536.0; a += 0.618034 * (1.0 + a / 4096.0)) {
        double c, s;
        bl__cos_sin(a, &c, &s);
        double e = fmax(fabs(c - cos(a)), fabs(s - sin(a)));
        if (e > worst_t) worst_t = e;
    }
    printf("       exp: max relative error %.3g; cos, sin: max error %.3g\n", worst_e, worst_t);
    CHECK(worst_e < 1e-15);
    CHECK(worst_t < 1e-11);   /* a itself is only known to 65536 x 2^-53 = 7e-12 */
}

/* ---- refusals ------------------------------------------------------------------------------ */
/* d is refused with `status` and a message containing `part`; nothing is written to logits. */
static void expect_refused(const bl_llama_desc *d, const bl_llama_out *o, bl_status status,
                           const char *part) {
    float ws[1];
    bl_error err;
    size_t wsn = bl_llama_workspace_size(d);
    float *w = wsn ? out_buf(wsn) : ws;
    bl_status s = bl_llama_forward(d, o, w, &err);
    CHECK_STATUS(s, status);
    CHECK(err.status == status);
    CHECK(strstr(err.message, part) != NULL);
    if (!strstr(err.message, part)) fprintf(stderr, "  message \"%s\" lacks \"%s\"\n", err.message, part);
    else printf("       refused: %s\n", err.message);
    if (wsn) free(w);
}

static void llama_refuses_bad_arguments_naming_them(void) {
    folder *f = open_folder("llama");
    model m;
    model_of(&m, f);
    float *logits = out_buf((size_t)m.d.L * m.d.vocab);
    bl_llama_out o = {.logits = logits};
    bl_llama_desc d;
    bl_llama_layer lay[2];

    d = m.d; m.ids[2] = 64;
    expect_refused(&d, &o, BL_ERR_VALUE, "ids[2] (64) must be in [0, vocab 64)");
    m.ids[2] = -1;
    expect_refused(&d, &o, BL_ERR_VALUE, "ids[2] (-1)");
    m.ids[2] = 0;
    d = m.d; d.n_kv_heads = 3;
    expect_refused(&d, &o, BL_ERR_SHAPE, "n_heads (4) must be divisible by n_kv_heads (3)");
    d = m.d; d.n_heads = 1; d.n_kv_heads = 65535; d.head_dim = 65535;   /* KV would pass 2^31 */
    expect_refused(&d, &o, BL_ERR_SHAPE, "n_heads (1) must be divisible by n_kv_heads (65535)");
    d = m.d; d.head_dim = 7;
    expect_refused(&d, &o, BL_ERR_SHAPE, "head_dim (7) must be even");
    d = m.d; d.head_dim = 0; d.d_model = 18;
    expect_refused(&d, &o, BL_ERR_SHAPE, "d_model (18) must be divisible by n_heads (4)");
    d = m.d; d.dtype = (bl_dtype)7;
    expect_refused(&d, &o, BL_ERR_VALUE, "dtype (7) is not one of 0..2");
    d = m.d; d.max_positions = 4;
    expect_refused(&d, &o, BL_ERR_SHAPE, "L (6) must be at most max_positions (4)");
    d = m.d; d.rope_type = (bl_rope_type)5;
    expect_refused(&d, &o, BL_ERR_VALUE, "rope_type (5)");
    d = m.d; d.rope_high_freq_factor = 0.5f;
    expect_refused(&d, &o, BL_ERR_VALUE, "rope_high_freq_factor (0.5) must be above");
    d = m.d; d.rope_original_max_positions = 0;
    expect_refused(&d, &o, BL_ERR_VALUE, "rope_original_max_positions (0)");
    d = m.d; d.rope_theta = -1.0f;
    expect_refused(&d, &o, BL_ERR_VALUE, "rope_theta (-1) must be a finite number >= 1");
    d = m.d; d.rope_theta = 0.5f;
    expect_refused(&d, &o, BL_ERR_VALUE, "rope_theta (0.5)");
    d = m.d; d.rope_factor = 0.5f;
    expect_refused(&d, &o, BL_ERR_VALUE, "rope_factor (0.5) must be a finite number >= 1");
    d = m.d; d.eps = NAN;
    expect_refused(&d, &o, BL_ERR_VALUE, "eps (nan)");
    d = m.d; d.L = 0;
    expect_refused(&d, &o, BL_ERR_SIZE, "L (0) must be between 1 and");
    d = m.d; d.vocab = 0;
    expect_refused(&d, &o, BL_ERR_SIZE, "vocab (0)");
    d = m.d; d.n_heads = 65536; d.n_kv_heads = 0; d.head_dim = 2;
    expect_refused(&d, &o, BL_ERR_SIZE, "n_heads * head_dim (65536 x 2) must be at most 65536");
    d = m.d; d.vocab = 1 << 25;
    expect_refused(&d, &o, BL_ERR_TOO_LARGE, "embed (33554432 x 16) exceeds");
    d = m.d; d.L = 65536; d.max_positions = 0;
    expect_refused(&d, &o, BL_ERR_TOO_LARGE, "exceeds");
    CHECK(bl_llama_workspace_size(&d) == 0);
    d = m.d; d.embed = NULL;
    expect_refused(&d, &o, BL_ERR_NULL, "embed must not be NULL");
    d = m.d; d.ids = NULL;
    expect_refused(&d, &o, BL_ERR_NULL, "ids must not be NULL");
    memcpy(lay, m.layers, sizeof lay);
    d = m.d; d.layers = lay; lay[1].w_up = NULL;
    expect_refused(&d, &o, BL_ERR_NULL, "layers[1].w_up must not be NULL");
    memcpy(lay, m.layers, sizeof lay);
    lay[0].wk = NULL;
    expect_refused(&d, &o, BL_ERR_NULL, "layers[0].wk must not be NULL");
    bl_llama_out none = {0};
    expect_refused(&m.d, &none, BL_ERR_NULL, "logits must not be NULL");
    CHECK_STATUS(bl_llama_forward(NULL, &o, logits, NULL), BL_ERR_NULL);
    CHECK_STATUS(bl_llama_forward(&m.d, &o, NULL, NULL), BL_ERR_NULL);
    CHECK(bl_llama_workspace_size(NULL) == 0);
    for (size_t i = 0; i < (size_t)m.d.L * m.d.vocab; i++) CHECK(isnan(logits[i]));
    free(logits);
    close_folder(f);
}

int main(void) {
    bl_run("llama_gqa_llama3_rope_f32_matches_torch", llama_gqa_llama3_rope_f32_matches_torch);
    bl_run("llama_bf16_matches_torch", llama_bf16_matches_torch);
    bl_run("qwen2_qkv_biases_f16_sharded_matches_torch", qwen2_qkv_biases_f16_sharded_matches_torch);
    bl_run("qwen3_qk_norm_wide_heads_bf16_matches_torch", qwen3_qk_norm_wide_heads_bf16_matches_torch);
    bl_run("mistral_one_kv_head_f32_matches_torch", mistral_one_kv_head_f32_matches_torch);
    bl_run("bf16_weights_give_the_bits_of_their_f32_upcast", bf16_weights_give_the_bits_of_their_f32_upcast);
    bl_run("llama_logits_do_not_depend_on_later_tokens", llama_logits_do_not_depend_on_later_tokens);
    bl_run("rope_math_matches_libm", rope_math_matches_libm);
    bl_run("llama_refuses_bad_arguments_naming_them", llama_refuses_bad_arguments_naming_them);
    return bl_summary();
}
