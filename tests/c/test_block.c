/* test_block.c - one encoder block, post-LN and pre-LN, against torch's TransformerEncoderLayer. */
#include <stdlib.h>
#include <string.h>
#include "harness.h"

#define F(key) fx_floats(in, key, NULL)

static void block_matches_torch_encoder_layer(void) {
    cJSON *kase;
    int pre = 0, post = 0;
    cJSON_ArrayForEach(kase, fx_cases("block.json")) {
        cJSON *p = fx_get(kase, "params"), *in = fx_get(kase, "inputs");
        int L = fx_int(p, "L", 0), D = fx_int(p, "d_model", 0), H = fx_int(p, "n_heads", 0),
            FF = fx_int(p, "d_ff", 0);
        const char *an = fx_str(p, "activation");
        bl_block_desc d = {
            .L = L, .d_model = D, .n_heads = H, .d_ff = FF,
            .activation = strcmp(an, "gelu") == 0 ? BL_ACT_GELU : BL_ACT_RELU,
            .pre_ln = fx_int(p, "pre_ln", 0), .causal = fx_int(p, "causal", 0),
            .eps = (float)fx_num(p, "eps", 1e-5), .x = F("x"),
            .wq = F("wq"), .bq = F("bq"), .wk = F("wk"), .bk = F("bk"), .wv = F("wv"),
            .bv = F("bv"), .wo = F("wo"), .bo = F("bo"), .ln1_gamma = F("ln1_gamma"),
            .ln1_beta = F("ln1_beta"), .ln2_gamma = F("ln2_gamma"), .ln2_beta = F("ln2_beta"),
            .w1 = F("w1"), .b1 = F("b1"), .w2 = F("w2"), .b2 = F("b2")};
        d.pre_ln ? pre++ : post++;
        size_t n = (size_t)L * D, s = (size_t)H * L * L, h = (size_t)L * FF;
        float *buf = calloc(12 * n + 2 * s + 2 * h, sizeof(float));
        float *q = buf;
        bl_block_out o = {
            .attn = {.q = q, .k = q + n, .v = q + 2 * n, .scores = q + 3 * n,
                     .weights = q + 3 * n + s, .context = q + 3 * n + 2 * s,
                     .concat = q + 4 * n + 2 * s, .out = q + 5 * n + 2 * s},
            .ffn = {.hidden = q + 6 * n + 2 * s, .activated = q + 6 * n + 2 * s + h,
                    .out = q + 6 * n + 2 * s + 2 * h},
            .resid1 = q + 7 * n + 2 * s + 2 * h, .norm1 = q + 8 * n + 2 * s + 2 * h,
            .resid2 = q + 9 * n + 2 * s + 2 * h, .norm2 = q + 10 * n + 2 * s + 2 * h,
            .out = q + 11 * n + 2 * s + 2 * h};
        CHECK(bl_block_workspace_size(&d, &o) == 0);
        CHECK_STATUS(bl_block_forward(&d, &o, NULL, NULL), BL_OK);
        fx_expect_close(kase, "attn_out", o.attn.out, n);
        fx_expect_close(kase, "resid1", o.resid1, n);
        fx_expect_close(kase, "norm1", o.norm1, n);
        fx_expect_close(kase, "resid2", o.resid2, n);
        fx_expect_close(kase, "norm2", o.norm2, n);
        fx_expect_close(kase, "out", o.out, n);
        const float *all[] = {d.x, d.wq, d.bq, d.wk, d.bk, d.wv, d.bv, d.wo, d.bo, d.ln1_gamma,
                              d.ln1_beta, d.ln2_gamma, d.ln2_beta, d.w1, d.b1, d.w2, d.b2};
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) free((void *)all[i]);
        free(buf);
    }
    CHECK(pre > 0 && post > 0);
}

static void block_validates_both_sublayers_before_writing(void) {
    enum { L = 3, D = 4 };
    float x[L * D] = {0}, wm[D * D] = {0}, out[L * D], bufs[16][64];
    memset(bufs, 0x7f, sizeof bufs);
    bl_block_desc d = {.L = L, .d_model = D, .n_heads = 2, .d_ff = 8, .x = x, .wq = wm,
                       .wk = wm, .wv = wm, .wo = wm, .w1 = NULL /* missing */, .w2 = wm};
    bl_block_out o = {.attn = {.q = bufs[0], .k = bufs[1], .v = bufs[2], .weights = bufs[3],
                               .concat = bufs[4], .out = bufs[5]},
                      .ffn = {.activated = bufs[6], .out = bufs[7]},
                      .resid1 = bufs[8], .norm1 = bufs[9], .resid2 = bufs[10], .norm2 = bufs[11],
                      .out = out};
    bl_error err;
    CHECK_STATUS(bl_block_forward(&d, &o, NULL, &err), BL_ERR_NULL);
    CHECK(strstr(err.message, "w1") != NULL);
    CHECK(((unsigned char *)bufs[0])[0] == 0x7f);   /* attention did not run */
    d.w1 = wm;
    d.eps = -1.0f;
    CHECK_STATUS(bl_block_forward(&d, &o, NULL, &err), BL_ERR_VALUE);
}

int main(void) {
    bl_run("block_matches_torch_encoder_layer", block_matches_torch_encoder_layer);
    bl_run("block_validates_both_sublayers_before_writing", block_validates_both_sublayers_before_writing);
    return bl_summary();
}
