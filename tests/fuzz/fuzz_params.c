/* fuzz_params.c - bl_config_param_count on configs from the edges (0, 2^31, 2^32, 2^40 and
   past it, negatives, INT64 limits), bl_preset_count / bl_preset_name / bl_preset_config with
   names and indices from the input, bl_status_string. Counts are checked exactly against a
   128-bit reference: BL_ERR_TOO_LARGE exactly when a reported count passes INT64_MAX (the
   32-bit build has no __int128 and checks that the parts add up instead). */
#include "fuzz_common.h"

static const int64_t edges64[] = {
    0, 1, 2, 3, 4, 8, 12, 32, 768, 4096, 46341, 65536, (int64_t)1 << 20, INT32_MAX,
    (int64_t)1 << 31, (int64_t)1 << 32, ((int64_t)1 << 32) + 1, ((int64_t)1 << 40) - 1,
    (int64_t)1 << 40, ((int64_t)1 << 40) + 1, (int64_t)1 << 41, (int64_t)3 << 38, -1,
    -((int64_t)1 << 40), INT64_MIN, INT64_MAX};

static int64_t value(fz_in *in) {
    unsigned b = fz_byte(in);
    if (b < 128) return b % 16;
    if (b == 255) {
        uint64_t lo = fz_u32(in), hi = fz_u32(in);
        return (int64_t)(lo | hi << 32);
    }
    return edges64[(b - 128) % (sizeof edges64 / sizeof edges64[0])];
}
static int truth(fz_in *in) {   /* any int: only zero / non-zero may matter */
    unsigned b = fz_byte(in);
    return b & 1 ? (int)(int8_t)b : 0;
}

static bl_status check_of(const bl_model_config *c) {
    const int64_t v[] = {c->vocab, c->max_positions, c->type_vocab, c->d_model, c->n_layers,
                         c->n_heads, c->n_kv_heads, c->d_ff, c->n_experts, c->top_k,
                         c->n_dec_layers};
    const int64_t lo[] = {0, 0, 0, 1, 0, 1, 0, 1, 0, 0, 0};
    for (int i = 0; i < 11; i++)
        if (v[i] < lo[i] || v[i] > ((int64_t)1 << 40)) return BL_ERR_SIZE;
    if (c->d_model % c->n_heads) return BL_ERR_SHAPE;
    if (c->n_kv_heads && (c->n_kv_heads > c->n_heads || c->n_heads % c->n_kv_heads))
        return BL_ERR_SHAPE;
    if (c->n_experts ? (c->top_k < 1 || c->top_k > c->n_experts) : c->top_k != 0)
        return BL_ERR_SHAPE;
    if (c->norm != BL_NORM_LAYER && c->norm != BL_NORM_RMS) return BL_ERR_VALUE;
    if (c->attn_bias < BL_ATTN_BIAS_NONE || c->attn_bias > BL_ATTN_BIAS_QKV) return BL_ERR_VALUE;
    return BL_OK;
}

#ifdef __SIZEOF_INT128__
typedef __int128 i128;
#define SAT ((i128)1 << 120)   /* operands are >= 0 here; saturate long before 2^127 */
static i128 m(i128 a, i128 b) { return a == 0 || b == 0 ? 0 : a > SAT / b ? SAT : a * b; }
static i128 s(i128 a, i128 b) { return a + b > SAT ? SAT : a + b; }

/* The nine counts as the header defines them, exactly; returns 0 if one passes INT64_MAX. */
static FZ_QUIET int reference(const bl_model_config *c, int64_t out[9]) {
    i128 d = c->d_model, kv = m(c->n_kv_heads ? c->n_kv_heads : c->n_heads, d / c->n_heads);
    i128 norm = c->norm == BL_NORM_LAYER ? 2 * d : d;
    i128 attn = s(m(2 * d, d), m(2 * d, kv));
    if (c->attn_bias) attn = s(attn, d + 2 * kv);            /* q, k, v */
    if (c->attn_bias == BL_ATTN_BIAS_ALL) attn = s(attn, d);  /* and o */
    i128 expert = m(m(c->gated ? 3 : 2, d), c->d_ff);
    if (c->ffn_bias) expert = s(expert, m(c->gated ? 2 : 1, c->d_ff) + d);
    i128 ffn = expert, idle = 0;
    if (c->n_experts) {
        ffn = s(m(expert, c->n_experts), m(d, c->n_experts));
        idle = m(expert, c->n_experts - c->top_k);
    }
    i128 layers = (i128)c->n_layers + c->n_dec_layers;
    i128 stacks = (c->n_layers > 0) + (c->n_dec_layers > 0);
    i128 v[9];
    v[0] = m((i128)c->vocab + c->max_positions + c->type_vocab, d);
    v[1] = m(attn, (i128)c->n_layers + 2 * (i128)c->n_dec_layers);
    v[2] = m(ffn, layers);
    v[3] = m(norm, 2 * (i128)c->n_layers + 3 * (i128)c->n_dec_layers + (c->embed_norm ? 1 : 0) +
                       (c->final_norm ? stacks : 0));
    v[4] = s(c->pooler ? s(m(d, d), d) : 0, c->lm_head ? m(d, c->vocab) : 0);
    v[5] = s(s(s(v[0], v[1]), s(v[2], v[3])), v[4]);
    v[6] = v[5] - m(idle, layers);
    v[7] = attn;
    v[8] = ffn;
    for (int i = 0; i < 9; i++) {
        if (v[i] > INT64_MAX || v[i] >= SAT) return 0;
        out[i] = (int64_t)v[i];
    }
    return 1;
}
#endif

static void count(fz_in *in) {
    bl_model_config c;   /* field by field: an initializer list's order of evaluation is unspecified */
    c.vocab = value(in), c.max_positions = value(in), c.type_vocab = value(in);
    c.d_model = value(in), c.n_layers = value(in), c.n_heads = value(in);
    c.n_kv_heads = value(in), c.d_ff = value(in), c.gated = truth(in);
    unsigned nb = fz_byte(in);   /* norm: 0 or 1, or any int */
    c.norm = (bl_norm_kind)(nb % 8 == 7 ? (int)fz_u32(in) : (int)(nb & 1));
    unsigned ab = fz_byte(in);   /* attn_bias: none, all, q/k/v only, or any int */
    c.attn_bias = ab % 8 == 7 ? (int)fz_u32(in) : (int)(ab % 3);
    c.ffn_bias = truth(in), c.embed_norm = truth(in);
    c.final_norm = truth(in), c.lm_head = truth(in), c.pooler = truth(in);
    c.n_experts = value(in), c.top_k = value(in), c.n_dec_layers = value(in);
    unsigned fix = fz_byte(in);   /* make the shape valid more often than chance would */
    if ((fix & 3) == 1) c.n_heads = 1;
    if ((fix & 3) == 2 && c.d_model > 0) c.n_heads = c.d_model;
    if ((fix & 12) == 4) c.n_kv_heads = c.n_heads;
    if ((fix & 12) == 8) c.n_kv_heads = 0;
    if ((fix & 48) == 16) c.top_k = c.n_experts > 0 ? 1 + (c.top_k & 0xffff) % c.n_experts : 0;
    bl_param_count p;
    bl_error err;
    bl_status want = check_of(&c), st = bl_config_param_count(&c, &p, &err);
#ifdef __SIZEOF_INT128__
    int64_t ref[9];
    if (want == BL_OK && !reference(&c, ref)) want = BL_ERR_TOO_LARGE;
    fz_check_status("bl_config_param_count", st, want, &err);
    if (st != BL_OK) return;
    const int64_t got[9] = {p.embeddings, p.attention, p.ffn, p.norms, p.other, p.total,
                            p.active, p.attention_per_layer, p.ffn_per_layer};
    for (int i = 0; i < 9; i++)
        FZ_CHECK(got[i] == ref[i], "count %d: %lld, want %lld", i, (long long)got[i], (long long)ref[i]);
#else
    if (want == BL_OK && st == BL_ERR_TOO_LARGE) want = BL_ERR_TOO_LARGE;   /* not modelled */
    fz_check_status("bl_config_param_count", st, want, &err);
    if (st != BL_OK) return;
    FZ_CHECK(p.total == p.embeddings + p.attention + p.ffn + p.norms + p.other, "parts");
    FZ_CHECK(p.active >= 0 && p.active <= p.total, "active %lld", (long long)p.active);
#endif
    FZ_CHECK(bl_config_param_count(&c, NULL, &err) == BL_ERR_NULL, "out NULL");
}

static void presets(fz_in *in) {
    int n = bl_preset_count();
    FZ_CHECK(n == 8, "bl_preset_count %d", n);
    int index = fz_byte(in) & 1 ? (int)fz_u32(in) : (int)fz_byte(in) % 10 - 1;
    const char *name = bl_preset_name(index);
    FZ_CHECK((name != NULL) == (index >= 0 && index < n), "bl_preset_name(%d)", index);
    /* a name: a preset's, cut or extended, or bytes from the input; exact-size copy */
    unsigned how = fz_byte(in), which = fz_byte(in), len = fz_byte(in) % 48;
    char *buf;
    if (how & 1) {
        const char *base = bl_preset_name((int)(which % (unsigned)n));
        size_t bl = strlen(base), cut = how & 2 ? len % (bl + 1) : bl;
        buf = fz_alloc(cut + (how & 4 ? 1 : 0) + 1);
        memcpy(buf, base, cut);
        if (how & 4) buf[cut++] = (char)fz_byte(in);
        buf[cut] = '\0';
    } else {
        buf = fz_alloc(len + 1);
        for (unsigned i = 0; i < len; i++) buf[i] = (char)fz_byte(in);
        buf[len] = '\0';
    }
    int known = 0;
    for (int i = 0; i < n; i++) known |= strcmp(buf, bl_preset_name(i)) == 0;
    bl_model_config c;
    int64_t printed = -1;
    bl_error err;
    bl_status st = bl_preset_config(buf, &c, how & 8 ? NULL : &printed, &err);
    fz_check_status("bl_preset_config", st, known ? BL_OK : BL_ERR_PRESET, &err);
    fz_check_status("bl_preset_config(NULL)", bl_preset_config(NULL, &c, NULL, &err), BL_ERR_NULL, &err);
    fz_check_status("bl_preset_config(cfg NULL)", bl_preset_config(buf, NULL, NULL, &err), BL_ERR_NULL, &err);
    if (st == BL_OK) {
        bl_param_count p;
        fz_check_status("preset count", bl_config_param_count(&c, &p, &err), BL_OK, &err);
        if (!(how & 8)) FZ_CHECK(printed > 0, "printed total %lld", (long long)printed);
    }
    /* every status there is (a switch compiled to a table gives the fuzzer no edges), and any int */
    for (int status = -1; status <= BL_ERR_PRESET + 1; status++)
        FZ_CHECK(bl_status_string((bl_status)status)[0] != '\0', "bl_status_string(%d)", status);
    int status = (int)fz_u32(in);
    const char *text = bl_status_string((bl_status)status);
    FZ_CHECK(text != NULL && text[0] != '\0', "bl_status_string(%d)", status);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_in in = {data, size};
    if (fz_byte(&in) % 4 == 0) presets(&in);
    else count(&in);
    fz_free_all();
    return 0;
}
