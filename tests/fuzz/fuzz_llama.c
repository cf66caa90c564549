/* fuzz_llama.c - bl_llama_forward and bl_llama_workspace_size: every size and setting check
   (heads, kv heads, head_dim, vocab past BL_MAX_DIM, max_positions, dtype, eps, the RoPE
   settings), ids in and out of range, NULL pointers (one layer's weight too), optional biases and
   q/k norms, tied or not, which layers keep which intermediates. Input: n_layers, d_model, heads,
   kv heads, head_dim, d_ff, vocab, max_positions, L, dtype, eps, five RoPE bytes, three flag
   bytes, the ids, then the weights. A call that succeeds must give the same logits, bit for bit,
   with nothing kept, and (16-bit weights) with the same weights up-cast to F32. Then the hooks
   and the lens from the input's last FZ_TAIL bytes (fz_hooks_phase). */
#include "fuzz_common.h"
#include "bl_internal.h"   /* bl__weights_to_f32 for the F32 twin */

enum { N_FIELDS = 20 };   /* bl_llama_layer_out's pointers */

typedef struct {   /* the sizes after the defaults, valid only when the dims are */
    int H, KVH, hd;
    uint64_t Q, KV;
} heads;

static heads heads_of(const bl_llama_desc *d) {
    heads z = {.H = d->n_heads, .KVH = d->n_kv_heads ? d->n_kv_heads : d->n_heads,
               .hd = d->head_dim ? d->head_dim
                     : fz_dim_ok(d->n_heads) && fz_dim_ok(d->d_model) ? d->d_model / d->n_heads : 1};
    z.Q = (uint64_t)z.H * (uint64_t)(z.hd > 0 ? z.hd : 1);
    z.KV = (uint64_t)z.KVH * (uint64_t)(z.hd > 0 ? z.hd : 1);
    return z;
}

static uint64_t ws_floats(const bl_llama_desc *d, heads z) {
    uint64_t L = (uint64_t)d->L, D = (uint64_t)d->d_model, F = (uint64_t)d->d_ff;
    uint64_t qb = L < 64 ? L : 64, vec = D > z.Q ? D : z.Q;
    if (F > vec) vec = F;
    return L * (7 * D + 2 * z.Q + 2 * z.KV + 3 * F + qb + (uint64_t)z.hd) + vec;
}

static int positive(float v) { return v > 0.0f && !isinf(v); }
static int at_least_1(float v) { return v >= 1.0f && !isinf(v); }

/* What the size and settings checks give (the header's order), BL_OK if they pass. */
static FZ_UNUSED bl_status sizes_status(const bl_llama_desc *d) {
    if (!fz_dim_ok(d->n_layers) || !fz_dim_ok(d->d_model) || !fz_dim_ok(d->n_heads))
        return BL_ERR_SIZE;
    if (d->n_kv_heads && !fz_dim_ok(d->n_kv_heads)) return BL_ERR_SIZE;
    if (d->head_dim && !fz_dim_ok(d->head_dim)) return BL_ERR_SIZE;
    if (!fz_dim_ok(d->d_ff)) return BL_ERR_SIZE;
    if (d->vocab < 1 || (unsigned)d->vocab > BL_MAX_ELEMS) return BL_ERR_SIZE;
    if (d->max_positions < 0 || !fz_dim_ok(d->L)) return BL_ERR_SIZE;
    heads z = heads_of(d);
    if (z.Q > BL_MAX_DIM) return BL_ERR_SIZE;
    if (!d->head_dim && d->d_model % d->n_heads) return BL_ERR_SHAPE;
    if (z.H % z.KVH || z.hd % 2) return BL_ERR_SHAPE;
    if (d->max_positions > 0 && d->L > d->max_positions) return BL_ERR_SHAPE;
    if ((unsigned)d->dtype >= BL_DTYPE_COUNT) return BL_ERR_VALUE;
    if (!positive(d->eps == 0.0f ? 1e-6f : d->eps)) return BL_ERR_VALUE;
    if (!at_least_1(d->rope_theta == 0.0f ? 1e4f : d->rope_theta)) return BL_ERR_VALUE;
    if (d->rope_type == BL_ROPE_LLAMA3) {
        if (!at_least_1(d->rope_factor) || !positive(d->rope_low_freq_factor) ||
            !positive(d->rope_high_freq_factor) ||
            !(d->rope_high_freq_factor > d->rope_low_freq_factor) ||
            d->rope_original_max_positions < 1)
            return BL_ERR_VALUE;
    } else if (d->rope_type != BL_ROPE_DEFAULT) {
        return BL_ERR_VALUE;
    }
    uint64_t L = (uint64_t)d->L, D = (uint64_t)d->d_model, V = (uint64_t)d->vocab;
    if (!fz_fits(V, D) || !fz_fits(L, V) || !fz_fits(z.Q, D) || !fz_fits(d->d_ff, D) ||
        !fz_fits((uint64_t)z.H * L, L) || ws_floats(d, z) > BL_MAX_ELEMS)
        return BL_ERR_TOO_LARGE;
    return BL_OK;
}

static FZ_UNUSED bl_status expected(const bl_llama_desc *d, const bl_llama_out *o, const float *ws,
                                    int bad_layer) {
    if (!d || !o) return BL_ERR_NULL;
    bl_status s = sizes_status(d);
    if (s != BL_OK) return s;
    if (!d->ids || !d->embed || !d->layers || !o->logits || !ws || bad_layer) return BL_ERR_NULL;
    for (int i = 0; i < d->L; i++)
        if (d->ids[i] < 0 || d->ids[i] >= d->vocab) return BL_ERR_VALUE;
    return BL_OK;
}

/* n weights of dtype dt (bad dtypes: 4 bytes each, never read): F32 as fz_floats; F16 and BF16
   finite values of modest size, or with raw any 16 bits (NaN, infinities, subnormals). */
static FZ_QUIET void *fz_weights(fz_in *in, uint64_t n, bl_dtype dt, int raw) {
    if (dt != BL_DTYPE_F16 && dt != BL_DTYPE_BF16) return fz_floats(in, n, raw);
    uint16_t *p = fz_alloc((size_t)n * 2);
    for (uint64_t i = 0; i < n; i++) {
        unsigned a = fz_byte(in), b = raw ? fz_byte(in) : (unsigned)(i * 2654435761u >> 24);
        if (raw) p[i] = (uint16_t)(a | b << 8);
        else if (dt == BL_DTYPE_F16)   /* 2^-6 .. 2^3 */
            p[i] = (uint16_t)((a & 0x80) << 8 | (9 + a % 10) << 10 | ((a & 3) << 8 | b));
        else                           /* 2^-7 .. 2^2 */
            p[i] = (uint16_t)((a & 0x80) << 8 | (120 + a % 10) << 7 | (b & 0x7f));
    }
    return p;
}

/* A float32 copy of n weights of dtype dt (16-bit ones up-cast exactly). */
static FZ_QUIET float *fz_upcast(const void *w, bl_dtype dt, uint64_t n) {
    float *p = fz_alloc((size_t)n * sizeof(float));
    bl__weights_to_f32(p, w, dt, 0, (size_t)n);
    return p;
}

static const float thetas[] = {0.0f, 10000.0f, 500000.0f, 1e6f, 1.0f, 0.5f, -1.0f, NAN, INFINITY};
static const float factors[] = {8.0f, 32.0f, 1.0f, 2.0f, 0.5f, 0.0f, NAN, INFINITY};
static const float lows[] = {1.0f, 0.5f, 2.0f, 0.0f, NAN};
static const float highs[] = {4.0f, 1.0f, 0.25f, 0.0f, INFINITY};
static const int origs[] = {256, 8192, 1, 64, 0, -1};
#define PICK(a, b) (a)[(b) % (sizeof(a) / sizeof((a)[0]))]

FZ_STACK_ADAPTERS(llama)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_in in = {data, size};
    int NL = fz_dim(&in, 2), D = fz_dim(&in, 16);
    unsigned hb = fz_byte(&in), kvb = fz_byte(&in), hdb = fz_byte(&in);
    int F = fz_dim(&in, 24), V = fz_dim(&in, 20);
    unsigned mpb = fz_byte(&in);
    int L = fz_dim(&in, 10);
    unsigned dtb = fz_byte(&in);
    float eps = fz_eps_or_default(&in);
    unsigned rt = fz_byte(&in), tb = fz_byte(&in), fb = fz_byte(&in), lhb = fz_byte(&in),
             orb = fz_byte(&in);
    unsigned f = fz_byte(&in), g = fz_byte(&in), h = fz_byte(&in);

    int H = fz_heads(hb, D), KVH = 0, HD = 0, MP = 0;
    if (kvb >= 224) KVH = fz_edges[(kvb - 224) % FZ_N_EDGES];
    else if (kvb >= 32 && fz_dim_ok(H)) {   /* a divisor of H, else the default (0 = H) */
        KVH = 1 + (int)(kvb % (unsigned)H);
        while (H % KVH) KVH--;
    }
    if (hdb >= 224) HD = fz_edges[(hdb - 224) % FZ_N_EDGES];
    else if (hdb >= 64) HD = 2 * (1 + (int)(hdb % 8));
    if (mpb >= 224) MP = fz_edges[(mpb - 224) % FZ_N_EDGES];
    else if (mpb >= 128) MP = 1 + (int)(mpb % 12);
    if (f & 1 && MP > 0 && fz_dim_ok(L) && L > MP) MP = L;   /* mostly L <= max_positions */
    static const int bad_dtypes[] = {3, -1, 255, INT_MAX};
    bl_dtype dt = (bl_dtype)(dtb < 240 ? (int)(dtb % 3) : bad_dtypes[dtb % 4]);
    static const int bad_ropes[] = {2, -1, 7};
    bl_rope_type rope = (bl_rope_type)(rt < 112 ? 0 : rt < 224 ? 1 : bad_ropes[rt % 3]);
    int raw = (f >> 1) & 1, no_err = (f >> 2) & 1, qkv_bias = (f >> 3) & 1, o_bias = (f >> 4) & 1,
        mlp_bias = (f >> 5) & 1, qk_norm = (f >> 6) & 1, tied = (f >> 7) & 1;
    int bad_ids = g & 1, keep_embed = (g >> 1) & 1, keep_hidden = (g >> 2) & 1, bare = (g >> 6) & 1;
    unsigned keep_layers = (g >> 3) & 3, fields = g * 40503u + h;
    int drop = h & 15, drop_layer = (h >> 4) & 1, drop_weight = (int)((h >> 5) % 7);

    bl_llama_desc d = {
        .n_layers = NL, .d_model = D, .n_heads = H, .n_kv_heads = KVH, .head_dim = HD, .d_ff = F,
        .vocab = V, .max_positions = MP, .eps = eps, .dtype = dt, .rope_theta = PICK(thetas, tb),
        .rope_type = rope, .rope_factor = PICK(factors, fb),
        .rope_low_freq_factor = PICK(lows, lhb), .rope_high_freq_factor = PICK(highs, lhb >> 4),
        .rope_original_max_positions = PICK(origs, orb), .L = L};
    int ok = sizes_status(&d) == BL_OK;
    heads z = heads_of(&d);
    uint64_t n = ok ? (uint64_t)L * D : 1, nq = ok ? (uint64_t)L * z.Q : 1,
             nkv = ok ? (uint64_t)L * z.KV : 1, s = ok ? (uint64_t)H * L * L : 1,
             nf = ok ? (uint64_t)L * F : 1, nl = ok ? (uint64_t)NL : 1, nt = ok ? (uint64_t)L : 1;
    uint64_t mats = ok ? 2 * z.Q * D + 2 * z.KV * D + 3 * (uint64_t)F * D : 1;   /* per layer */
    uint64_t vecs = ok ? 4 * (uint64_t)D + z.Q + 2 * z.KV + 2 * (uint64_t)F + 2 * (uint64_t)z.hd : 1;
    uint64_t table = ok ? (uint64_t)V * D : 1, wsn = ok ? ws_floats(&d, z) : 1;
    uint64_t per_layer = 8 * n + 4 * nq + 4 * nkv + 2 * s + 3 * nf + 2 * nt;
    if (2 * (nl * (mats + vecs) + 2 * table + (uint64_t)D) + nl * per_layer + 3 * n + wsn +
            3 * (ok ? (uint64_t)L * V : 1) > FZ_BUDGET_FLOATS)
        return 0;
    if (ok && 3 * (nl * ((uint64_t)L * mats + 2 * s * (uint64_t)z.hd) + (uint64_t)L * D * V) >
                  FZ_BUDGET_WORK)
        return 0;
    if (nl > 2) return 0;   /* fz_alloc's block table */

    int32_t *ids = fz_alloc((size_t)nt * 4);
    for (uint64_t i = 0; i < nt; i++) {
        unsigned b = fz_byte(&in);
        static const int32_t odd[] = {-1, INT32_MIN, INT32_MAX, 65536};
        ids[i] = bad_ids && b >= 240 ? (b == 240 && ok ? V : odd[b % 4])
                                     : (int32_t)(b % (unsigned)(ok ? V : 1));
    }
    /* every layer's matrices in one block, its vectors in another; offsets as laid out below */
    void *mat_all = fz_weights(&in, nl * mats, dt, raw), *vec_all = fz_weights(&in, nl * vecs, dt, raw);
    size_t es = dt == BL_DTYPE_F16 || dt == BL_DTYPE_BF16 ? 2 : 4;
    bl_llama_layer *layers = fz_alloc((size_t)nl * sizeof *layers);
    for (uint64_t l = 0; l < nl; l++) {
        const char *m = (const char *)mat_all + l * mats * es, *v = (const char *)vec_all + l * vecs * es;
        uint64_t qd = ok ? z.Q * D : 0, kd = ok ? z.KV * D : 0, fd = ok ? (uint64_t)F * D : 0;
        uint64_t dv = ok ? (uint64_t)D : 0, qv = ok ? z.Q : 0, kv = ok ? z.KV : 0,
                 fv = ok ? (uint64_t)F : 0, hv = ok ? (uint64_t)z.hd : 0;
#define AT(base, off) ((const void *)((base) + (off) * es))
        layers[l] = (bl_llama_layer){
            .wq = AT(m, 0), .wk = AT(m, qd), .wv = AT(m, qd + kd), .wo = AT(m, qd + 2 * kd),
            .w_gate = AT(m, 2 * qd + 2 * kd), .w_up = AT(m, 2 * qd + 2 * kd + fd),
            .w_down = AT(m, 2 * qd + 2 * kd + 2 * fd),
            .attn_norm = bare ? NULL : AT(v, 0), .ffn_norm = bare ? NULL : AT(v, dv),
            .bq = qkv_bias ? AT(v, 2 * dv) : NULL, .bk = qkv_bias ? AT(v, 2 * dv + qv) : NULL,
            .bv = qkv_bias ? AT(v, 2 * dv + qv + kv) : NULL,
            .bo = o_bias ? AT(v, 2 * dv + qv + 2 * kv) : NULL,
            .q_norm = qk_norm ? AT(v, 3 * dv + qv + 2 * kv) : NULL,
            .k_norm = qk_norm ? AT(v, 3 * dv + qv + 2 * kv + hv) : NULL,
            .b_gate = mlp_bias ? AT(v, 3 * dv + qv + 2 * kv + 2 * hv) : NULL,
            .b_up = mlp_bias ? AT(v, 3 * dv + qv + 2 * kv + 2 * hv + fv) : NULL,
            .b_down = mlp_bias ? AT(v, 3 * dv + qv + 2 * kv + 2 * hv + 2 * fv) : NULL};
#undef AT
    }
    int bad_layer = 0;
    if (drop == 7) {   /* one required weight of one layer */
        bl_llama_layer *w = &layers[(uint64_t)drop_layer % nl];
        const void **slot[] = {&w->wq, &w->wk, &w->wv, &w->wo, &w->w_gate, &w->w_up, &w->w_down};
        *slot[drop_weight] = NULL;
        bad_layer = 1;
    }
    d.ids = ids;
    d.embed = fz_weights(&in, table, dt, raw);
    d.lm_head = tied ? NULL : fz_weights(&in, table, dt, raw);
    d.final_norm = bare ? NULL : fz_weights(&in, ok ? (uint64_t)D : 1, dt, raw);
    d.layers = layers;

    /* kept intermediates: layers whose bit is set keep the fields of a mask from `fields` */
    bl_llama_layer_out *keep_list[2] = {0}, *keeps = fz_alloc((size_t)nl * sizeof *keeps);
    for (uint64_t l = 0; l < nl; l++) {
        keeps[l] = (bl_llama_layer_out){0};
        if (!((keep_layers >> l) & 1)) continue;
        unsigned mask = (fields * 2654435761u + (unsigned)l * 40503u) >> 12;   /* 20 bits */
        float **p = (float **)&keeps[l];
        uint64_t sizes[N_FIELDS] = {n, nt, nq, nkv, nkv, nq, nkv, s, s, nq, nq, n, n, n, nt,
                                    nf, nf, nf, n, n};
        for (int i = 0; i < N_FIELDS; i++)
            if ((mask >> i) & 1) p[i] = fz_out(sizes[i]);
        keep_list[l] = &keeps[l];
    }
    uint64_t nlog = ok ? (uint64_t)L * V : 1;
    bl_llama_out o = {.logits = fz_out(nlog), .embed = keep_embed ? fz_out(n) : NULL,
                      .hidden = keep_hidden ? fz_out(n) : NULL,
                      .layers = keep_layers ? keep_list : NULL};
    size_t ws_size = bl_llama_workspace_size(&d);
    FZ_CHECK(ws_size == (ok ? (size_t)wsn : 0), "llama workspace %zu, want %llu", ws_size,
             (unsigned long long)(ok ? wsn : 0));
    float *ws = fz_out(wsn);

    const bl_llama_desc *dp = &d;
    const bl_llama_out *op = &o;
    switch (drop) {
    case 1: d.ids = NULL; break;
    case 2: d.embed = NULL; break;
    case 3: d.layers = NULL; break;
    case 4: o.logits = NULL; break;
    case 5: ws = NULL; break;
    case 8: dp = NULL; break;
    case 9: op = NULL; break;
    }
    bl_status want = expected(dp, op, ws, bad_layer);
    bl_error err;
    bl_status st = bl_llama_forward(dp, op, ws, no_err ? NULL : &err);
    fz_check_status("bl_llama_forward", st, want, no_err ? NULL : &err);
    if (st == BL_OK && !raw) {
        /* nothing kept: the same logits */
        float *bare_logits = fz_out(nlog);
        bl_llama_out ob = {.logits = bare_logits};
        FZ_CHECK(bl_llama_forward(&d, &ob, ws, NULL) == BL_OK, "refused with nothing kept");
        FZ_CHECK(memcmp(bare_logits, o.logits, (size_t)nlog * 4) == 0, "logits differ when nothing is kept");
        if (dt != BL_DTYPE_F32) {   /* the F32 twin: the same weights up-cast */
            bl_llama_desc d32 = d;
            bl_llama_layer *l32 = fz_alloc((size_t)nl * sizeof *l32);
            float *m32 = fz_upcast(mat_all, dt, nl * mats), *v32 = fz_upcast(vec_all, dt, nl * vecs);
            for (uint64_t l = 0; l < nl; l++) {
                const void **src = (const void **)&layers[l];
                const void **dst = (const void **)&l32[l];
                for (size_t i = 0; i < sizeof *l32 / sizeof(void *); i++) {
                    const char *p = src[i];
                    const char *mb = (const char *)mat_all, *vb = (const char *)vec_all;
                    if (!p) dst[i] = NULL;
                    else if (p >= mb && p < mb + nl * mats * es) dst[i] = m32 + (p - mb) / (ptrdiff_t)es;
                    else dst[i] = v32 + (p - vb) / (ptrdiff_t)es;
                }
            }
            d32.dtype = BL_DTYPE_F32;
            d32.layers = l32;
            d32.embed = fz_upcast(d.embed, dt, table);
            d32.lm_head = d.lm_head ? fz_upcast(d.lm_head, dt, table) : NULL;
            d32.final_norm = d.final_norm ? fz_upcast(d.final_norm, dt, (uint64_t)D) : NULL;
            float *twin = fz_out(nlog);
            bl_llama_out ot = {.logits = twin};
            FZ_CHECK(bl_llama_forward(&d32, &ot, ws, NULL) == BL_OK, "the F32 twin was refused");
            FZ_CHECK(memcmp(twin, o.logits, (size_t)nlog * 4) == 0,
                     "dtype %d logits differ from their F32 up-cast's", (int)dt);
        }
        fz_in tail = fz_tail(data, size);
        fz_hooks_phase(&FZ_STACK(llama, &d, HD ? HD : D / H), &tail, ws);
    }
    fz_free_all();
    return 0;
}
