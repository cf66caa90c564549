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
    /* the last row alone with the weights declared finite (F16: its one-row kernel then skips
       the watch for inf and NaN): that row's bits */
    bl_llama_desc dl = *d;
    dl.logits_last = 1;
    dl.weights_finite = 1;
    float *last = out_buf((size_t)d->vocab);
    bl_llama_out ol = {.logits = last};
    CHECK_STATUS(bl_llama_forward(&dl, &ol, ws, NULL), BL_OK);
    CHECK(memcmp(last, logits + (size_t)(L - 1) * d->vocab, (size_t)d->vocab * sizeof(float)) == 0);
    free(last);
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

/* Keeping any subset of one layer's q, k, q_rot, k_rot, scores, weights and context (each moves
   where RoPE or the softmax writes: in place, into the kept buffer, or into the workspace) changes
   no bit of them or of the logits: all 128 subsets against keeping all seven. */
static void kept_subsets_give_the_same_bits(const bl_llama_desc *d, int layer) {
    int L = d->L, H = d->n_heads, hd = d->head_dim ? d->head_dim : d->d_model / H;
    int KV = (d->n_kv_heads ? d->n_kv_heads : H) * hd, Q = H * hd;
    size_t sz[7] = {(size_t)L * Q, (size_t)L * KV, (size_t)L * Q, (size_t)L * KV,
                    (size_t)H * L * L, (size_t)H * L * L, (size_t)H * L * hd};
    size_t nl = (size_t)L * d->vocab;
    float *all[7], *some[7], *ref = out_buf(nl), *got = malloc(nl * sizeof(float));
    float *ws = out_buf(bl_llama_workspace_size(d));
    for (int i = 0; i < 7; i++) {
        all[i] = out_buf(sz[i]);
        some[i] = malloc(sz[i] * sizeof(float));
    }
    bl_llama_layer_out **keep = calloc((size_t)d->n_layers, sizeof *keep);
    bl_llama_layer_out ka = {.q = all[0], .k = all[1], .q_rot = all[2], .k_rot = all[3],
                             .scores = all[4], .weights = all[5], .context = all[6]};
    keep[layer] = &ka;
    bl_llama_out o = {.logits = ref, .layers = keep};
    CHECK_STATUS(bl_llama_forward(d, &o, ws, NULL), BL_OK);
    int bad = -1;
    for (int m = 0; m < 128; m++) {
        float *p[7];
        for (int i = 0; i < 7; i++) {   /* NaN-filled again: a value not written shows */
            p[i] = m >> i & 1 ? some[i] : NULL;
            if (p[i])
                for (size_t j = 0; j < sz[i]; j++) p[i][j] = NAN;
        }
        for (size_t j = 0; j < nl; j++) got[j] = NAN;
        bl_llama_layer_out ks = {.q = p[0], .k = p[1], .q_rot = p[2], .k_rot = p[3],
                                 .scores = p[4], .weights = p[5], .context = p[6]};
        keep[layer] = &ks;
        o.logits = got;
        CHECK_STATUS(bl_llama_forward(d, &o, ws, NULL), BL_OK);
        int same = memcmp(got, ref, nl * sizeof(float)) == 0;
        for (int i = 0; i < 7; i++)
            if (p[i]) same &= memcmp(p[i], all[i], sz[i] * sizeof(float)) == 0;
        if (!same && bad < 0) bad = m;
    }
    printf("       L %d, %d q / %d kv heads: 128 kept subsets bit-identical: %s\n", L, H, KV / hd,
           bad < 0 ? "yes" : "NO");
    if (bad >= 0) fprintf(stderr, "  subset %#x (bits q, k, q_rot, k_rot, scores, weights, "
                          "context) differs\n", (unsigned)bad);
    CHECK(bad < 0);
    for (int i = 0; i < 7; i++) {
        free(all[i]);
        free(some[i]);
    }
    free(keep); free(ref); free(got); free(ws);
}

static void llama_kept_attention_outputs_in_any_subset_give_the_same_bits(void) {
    static const char *const dirs[] = {"llama", "qwen3", "mistral"};
    for (int i = 0; i < 3; i++) {
        folder *f = open_folder(dirs[i]);
        model m;
        model_of(&m, f);
        kept_subsets_give_the_same_bits(&m.d, m.d.n_layers - 1);
        close_folder(f);
    }
}

/* ---- past one attention block: a plain double forward ---------------------------------------- */
/* y (L, N) = x (L, K) @ W^T + b, W (N, K) float32 (nn.Linear), in double. */
static void ref_lin(double *y, const double *x, const float *w, const float *b, int L, int K, int N) {
    for (int i = 0; i < L; i++)
        for (int j = 0; j < N; j++) {
            double acc = b ? b[j] : 0.0;
            for (int k = 0; k < K; k++) acc += x[(size_t)i * K + k] * w[(size_t)j * K + k];
            y[(size_t)i * N + j] = acc;
        }
}
/* rows of d values normed in place, weight g (d, NULL = 1) */
static void ref_rms(double *x, const float *g, int rows, int d, double eps) {
    for (int i = 0; i < rows; i++) {
        double *r = x + (size_t)i * d, ss = 0;
        for (int c = 0; c < d; c++) ss += r[c] * r[c];
        double rstd = 1.0 / sqrt(ss / d + eps);
        for (int c = 0; c < d; c++) r[c] *= rstd * (g ? g[c] : 1.0);
    }
}
/* HF's forward from the header's formulas with libm in double: logits (L, vocab); F32 weights. */
static void ref_llama(double *logits, const bl_llama_desc *d) {
    int L = d->L, D = d->d_model, H = d->n_heads, KVH = d->n_kv_heads, hd = d->head_dim, F = d->d_ff;
    int Q = H * hd, KV = KVH * hd, half = hd / 2;
    double *h = calloc((size_t)L * D, 8), *n = calloc((size_t)L * D, 8), *q = calloc((size_t)L * Q, 8);
    double *k = calloc((size_t)L * KV, 8), *v = calloc((size_t)L * KV, 8), *ctx = calloc((size_t)L * Q, 8);
    double *o = calloc((size_t)L * D, 8), *g = calloc((size_t)L * F, 8), *u = calloc((size_t)L * F, 8);
    double *freq = calloc((size_t)half, 8), *w = calloc((size_t)L, 8);
    for (int c = 0; c < half; c++) {   /* HF's _compute_llama3_parameters */
        double f = pow(d->rope_theta, -2.0 * c / hd), wl = 2 * M_PI / f, old = d->rope_original_max_positions;
        double lo = d->rope_low_freq_factor, hi = d->rope_high_freq_factor, fac = d->rope_factor;
        if (d->rope_type == BL_ROPE_LLAMA3) {
            if (wl > old / lo) f /= fac;
            else if (wl >= old / hi) {
                double sm = (old / wl - lo) / (hi - lo);
                f = (1 - sm) * f / fac + sm * f;
            }
        }
        freq[c] = f;
    }
    for (int i = 0; i < L; i++)
        for (int c = 0; c < D; c++) h[(size_t)i * D + c] = ((const float *)d->embed)[(size_t)d->ids[i] * D + c];
    for (int l = 0; l < d->n_layers; l++) {
        const bl_llama_layer *y = &d->layers[l];
        memcpy(n, h, (size_t)L * D * 8);
        ref_rms(n, y->attn_norm, L, D, d->eps);
        ref_lin(q, n, y->wq, y->bq, L, D, Q);
        ref_lin(k, n, y->wk, y->bk, L, D, KV);
        ref_lin(v, n, y->wv, y->bv, L, D, KV);
        if (y->q_norm) ref_rms(q, y->q_norm, L * H, hd, d->eps);
        if (y->k_norm) ref_rms(k, y->k_norm, L * KVH, hd, d->eps);
        for (int i = 0; i < L; i++)   /* rotate_half */
            for (int t = 0; t < H + KVH; t++) {
                double *r = t < H ? q + (size_t)i * Q + t * hd : k + (size_t)i * KV + (t - H) * hd;
                for (int c = 0; c < half; c++) {
                    double a = r[c], b = r[c + half], cs = cos(i * freq[c]), sn = sin(i * freq[c]);
                    r[c] = a * cs - b * sn;
                    r[c + half] = b * cs + a * sn;
                }
            }
        for (int hh = 0; hh < H; hh++) {
            int gg = hh / (H / KVH);
            for (int i = 0; i < L; i++) {
                double m = -INFINITY, sum = 0;
                for (int j = 0; j <= i; j++) {
                    double sc = 0;
                    for (int c = 0; c < hd; c++) sc += q[(size_t)i * Q + hh * hd + c] * k[(size_t)j * KV + gg * hd + c];
                    w[j] = sc / sqrt((double)hd);
                    if (w[j] > m) m = w[j];
                }
                for (int j = 0; j <= i; j++) sum += w[j] = exp(w[j] - m);
                for (int c = 0; c < hd; c++) {
                    double acc = 0;
                    for (int j = 0; j <= i; j++) acc += w[j] / sum * v[(size_t)j * KV + gg * hd + c];
                    ctx[(size_t)i * Q + hh * hd + c] = acc;
                }
            }
        }
        ref_lin(o, ctx, y->wo, y->bo, L, Q, D);
        for (size_t i = 0; i < (size_t)L * D; i++) h[i] += o[i];
        memcpy(n, h, (size_t)L * D * 8);
        ref_rms(n, y->ffn_norm, L, D, d->eps);
        ref_lin(g, n, y->w_gate, y->b_gate, L, D, F);
        ref_lin(u, n, y->w_up, y->b_up, L, D, F);
        for (size_t i = 0; i < (size_t)L * F; i++) g[i] = g[i] / (1 + exp(-g[i])) * u[i];
        ref_lin(o, g, y->w_down, y->b_down, L, F, D);
        for (size_t i = 0; i < (size_t)L * D; i++) h[i] += o[i];
    }
    ref_rms(h, d->final_norm, L, D, d->eps);
    ref_lin(logits, h, d->lm_head ? d->lm_head : d->embed, NULL, L, D, d->vocab);
    free(h); free(n); free(q); free(k); free(v); free(ctx); free(o); free(g); free(u); free(freq); free(w);
}

static uint32_t lcg = 2024u;
static float *rnd(size_t n, float scale, float offset) {   /* uniform in offset + [-scale, scale) */
    float *p = malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++) {
        lcg = lcg * 1664525u + 1013904223u;
        p[i] = offset + ((float)(lcg >> 8) / 16777216.0f * 2.0f - 1.0f) * scale;
    }
    return p;
}

/* L 150: three blocks of query rows (QB 64), with and without kept scores, every option on. */
static void llama_past_one_attention_block_matches_plain_double_loops(void) {
    enum { NL = 2, D = 16, H = 4, KVH = 2, HD = 8, F = 24, V = 40, L = 150 };
    const int Q = H * HD, KV = KVH * HD;
    bl_llama_layer lay[NL];
    int32_t ids[L];
    for (int i = 0; i < L; i++) ids[i] = (int32_t)((i * 7 + 3) % V);
    for (int l = 0; l < NL; l++) {
        float s = 1.0f / sqrtf((float)D);
        lay[l] = (bl_llama_layer){
            .attn_norm = rnd(D, 0.2f, 1), .wq = rnd((size_t)Q * D, 2 * s, 0), .bq = rnd(Q, 0.1f, 0),
            .wk = rnd((size_t)KV * D, 2 * s, 0), .bk = rnd(KV, 0.1f, 0), .wv = rnd((size_t)KV * D, s, 0),
            .bv = rnd(KV, 0.1f, 0), .q_norm = rnd(HD, 0.2f, 1), .k_norm = rnd(HD, 0.2f, 1),
            .wo = rnd((size_t)D * Q, 1.0f / sqrtf((float)Q), 0), .bo = rnd(D, 0.1f, 0),
            .ffn_norm = rnd(D, 0.2f, 1), .w_gate = rnd((size_t)F * D, s, 0), .b_gate = rnd(F, 0.1f, 0),
            .w_up = rnd((size_t)F * D, s, 0), .b_up = rnd(F, 0.1f, 0),
            .w_down = rnd((size_t)D * F, 1.0f / sqrtf((float)F), 0), .b_down = rnd(D, 0.1f, 0)};
    }
    bl_llama_desc d = {.n_layers = NL, .d_model = D, .n_heads = H, .n_kv_heads = KVH, .head_dim = HD,
                       .d_ff = F, .vocab = V, .eps = 1e-5f, .rope_theta = 10000.0f,
                       .rope_type = BL_ROPE_LLAMA3, .rope_factor = 8.0f, .rope_low_freq_factor = 1.0f,
                       .rope_high_freq_factor = 4.0f, .rope_original_max_positions = 64, .L = L,
                       .ids = ids, .embed = rnd((size_t)V * D, 1.0f, 0), .layers = lay,
                       .final_norm = rnd(D, 0.2f, 1), .lm_head = rnd((size_t)V * D, 0.5f, 0)};
    size_t nl = (size_t)L * V, ns = (size_t)H * L * L;
    float *a = out_buf(nl), *b = out_buf(nl), *sc = out_buf(ns), *ws = out_buf(bl_llama_workspace_size(&d));
    double *want = malloc(nl * sizeof(double));
    bl_llama_layer_out k1 = {.scores = sc};
    bl_llama_layer_out *keep[NL] = {NULL, &k1};
    bl_llama_out oa = {.logits = a}, ob = {.logits = b, .layers = keep};
    CHECK_STATUS(bl_llama_forward(&d, &oa, ws, NULL), BL_OK);
    CHECK_STATUS(bl_llama_forward(&d, &ob, ws, NULL), BL_OK);
    CHECK(memcmp(a, b, nl * sizeof(float)) == 0);
    ref_llama(want, &d);
    double maxd = 0;
    size_t bad = nl;
    for (size_t i = 0; i < nl; i++) {
        double diff = fabs(a[i] - want[i]);
        if (!(diff <= 1e-4 + 1e-4 * fabs(want[i])) && bad == nl) bad = i;
        if (!(diff <= maxd)) maxd = diff;
    }
    printf("       logits (L %d) max diff %.3g (atol 1e-4, rtol 1e-4)\n", L, maxd);
    if (bad < nl) fprintf(stderr, "  logits[%zu]: got %.9g, want %.9g\n", bad, a[bad], want[bad]);
    CHECK(bad == nl);
    kept_subsets_give_the_same_bits(&d, NL - 1);
    for (int l = 0; l < NL; l++) {
        const void **p = (const void **)&lay[l];
        for (size_t i = 0; i < sizeof lay[l] / sizeof(void *); i++) free((void *)p[i]);
    }
    free((void *)d.embed); free((void *)d.final_norm); free((void *)d.lm_head);
    free(a); free(b); free(sc); free(ws); free(want);
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
    bl_run("llama_past_one_attention_block_matches_plain_double_loops",
           llama_past_one_attention_block_matches_plain_double_loops);
    bl_run("llama_kept_attention_outputs_in_any_subset_give_the_same_bits",
           llama_kept_attention_outputs_in_any_subset_give_the_same_bits);
    bl_run("rope_math_matches_libm", rope_math_matches_libm);
    bl_run("llama_refuses_bad_arguments_naming_them", llama_refuses_bad_arguments_naming_them);
    return bl_summary();
}
