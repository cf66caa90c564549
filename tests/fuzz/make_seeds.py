#!/usr/bin/env python3
"""Writes the seed corpus of the fuzz targets (tests/fuzz/corpus/<target>/<name>), committed:
a few inputs per target that decode to the page's default sizes, the kernels' tile edges,
BL_MAX_DIM, refused sizes, every activation, masks and the optional outputs. The layouts are
the ones each fuzz_<target>.c reads; run this again after changing one.
Usage: python3 tests/fuzz/make_seeds.py"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
EDGES = [1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 767, 768,
         769, 1024, 2048, 4095, 4096, 4097, 8191, 8192, 8193, 16383, 16384, 16385, 23170, 23171,
         32767, 32768, 46340, 46341, 65535, 65536, 65537, 131072, 0, -1, -65536, -2**31,
         2**31 - 1]   # fz_edges in fuzz_common.h


def edge(v):
    """The byte fz_dim reads as the edge value v."""
    return 192 + EDGES.index(v)


def small(v):
    """The byte fz_dim reads as the small size v (1 <= v <= its `small`)."""
    return v - 1


def floats(*vals):
    """Input floats: fz_floats reads a byte b as (int8)b / 64."""
    return bytes(int(v * 64) & 0xFF for v in vals)


def hook_seeds(base):
    """Seeds whose last 32 bytes (FZ_TAIL, fuzz_common.h) drive the hooks of a 2-layer model:
    first_layer, end_layer (128 + e: e), n_edits (+ 128: start NULL), k - 1, then per edit
    layer, site (0..7 bl_site, 8 refused), head, row + 1, values flag (odd: NULL)."""
    def tail(*b):
        return base + bytes(b) + bytes(32 - len(b))
    return {
        "hooks_restart_at_layer_1": tail(1, 0, 0, 3),
        "hooks_stop_after_block_1_lens_k_5": tail(0, 128 + 1, 0, 4),
        "hooks_resid_in_every_row_and_head_out_row_2": tail(0, 0, 2, 0, 0, 0, 0, 0, 0,
                                                            1, 2, 1, 3, 1),
        "hooks_ffn_zeroed_then_set_resid_mid": tail(1, 128 + 2, 2, 1, 1, 7, 0, 0, 1, 1, 4, 0, 5, 0),
        "hooks_refused_edit_layer_past_end": tail(0, 128 + 1, 1, 0, 1, 0, 0, 0, 1),
        "hooks_refused_site_8": tail(0, 0, 1, 0, 0, 8, 0, 0, 1),
        "hooks_refused_start_null": tail(1, 0, 128, 0),
        "hooks_refused_lens_k_0": tail(0, 0, 0, 252),
    }


SEEDS = {
    "linear": {
        # byte 0 even: linear; M, K, N, flags (bit 0 bias)
        "page_7x8_at_8x32_bias": bytes([0, small(7), small(8), small(32), 1]) + floats(0.5, -1, 1.5),
        "tiles_5x40_at_40x40": bytes([0, small(5), small(40), small(40), 0]),
        "max_dim_1x1_at_1x65536": bytes([0, small(1), small(1), edge(65536), 1]),
        "refused_46341_squared": bytes([0, edge(46341), edge(46341), small(1), 0]),
        "refused_null_out": bytes([0, small(3), small(4), small(5), 1 << 2]),
        # byte 0 odd: activation; act, flags, n
        **{f"activation_{a}": bytes([1, a, 0, small(40)]) + floats(-2, -0.5, 0, 0.25, 1.75)
           for a in range(7)},
        "activation_unknown": bytes([1, 224, 0, small(3)]),
        "activation_too_large": bytes([1, 0, 7 << 5, 0, 5]),
    },
    "ffn": {
        # L, d_model, d_ff, activation, flags (b1 b2 b3 hidden raw no_err swap_w3 null), drop
        "page_relu": bytes([small(7), small(8), small(32), 0, 0b1011, 0]),
        "page_gelu_no_bias": bytes([small(7), small(8), small(32), 1, 0b1000, 0]),
        "swiglu_with_b3": bytes([small(7), small(8), small(21), 5, 0b1111, 0]),
        "geglu": bytes([small(4), small(16), small(40), 6, 0b0111, 0]),
        "gated_without_w3": bytes([small(2), small(3), small(4), 5, 1 << 6, 0]),
        "max_d_ff": bytes([small(1), small(1), edge(65536), 3, 0b1011, 0]),
        "refused_hidden_2_32": bytes([edge(65536), small(1), edge(65536), 0, 0, 0]),
    },
    "attention": {
        # L, d_model, heads (a divisor of d_model by index), flags (causal no_scale mask scores
        # weights context raw no_err), biases and drop; then the mask bytes
        "page_7x8_2_heads_all_outputs": bytes([small(7), small(8), 1, 0b111001, 0x0F]),
        "page_causal_workspace": bytes([small(7), small(8), 1, 0b000001, 0x0F]),
        "masked_keys": bytes([small(9), small(12), 2, 0b011100, 0x05]) + bytes([1, 0, 1, 1, 0, 4, 1, 1, 0]),
        "all_keys_masked": bytes([small(5), small(4), 0, 0b010100, 0]) + bytes([0, 0, 0, 0, 0]),
        "no_scale": bytes([small(12), small(24), 3, 0b010010, 0x0F]),
        "blocked_path_65_tokens": bytes([edge(65), small(4), 0, 0b000001, 0]),
        "d_k_64_one_head": bytes([small(3), edge(64), 0, 0b001000, 0]),
        "small_head_test_at_8192_x_64": bytes([edge(8192), edge(64), 0, 0b011000, 0]),
        "refused_shape": bytes([small(4), small(10), 203, 0, 0]),
        "refused_no_workspace": bytes([small(4), small(8), 1, 0, 11 << 4]),
    },
    "norm": {
        # kind (0 layer 1 rms 2 batch), L, d, eps, flags (gamma beta mean rstd raw no_err, drop)
        "layer_7x8": bytes([0, small(7), small(8), 0, 0b1111]) + floats(1, 2, 3, 4, 5, 6, 7, 8),
        "rms_7x8": bytes([1, small(7), small(8), 0, 0b1001]),
        "batch_12x40": bytes([2, small(12), small(40), 0, 0b1111]),
        "constant_row_tiny_eps": bytes([0, small(1), small(8), 128 + 6, 0b1100]) + floats(*[0.5] * 8),
        "eps_nan": bytes([0, small(2), small(2), 128 + 11, 0]),
        "max_dim_row": bytes([0, small(1), edge(65536), 0, 0b1100]),
        "refused_2_32": bytes([2, edge(65536), edge(65536), 0, 0]),
    },
    "block": {
        # L, d_model, heads, d_ff, activation, eps, eps default, flags (pre_ln causal no_scale mask
        # scores weights context hidden), biases, norms/raw/no_err/drop; then the mask
        "page_post_ln_relu": bytes([small(7), small(8), 1, small(24), 0, 0, 0, 0b11110000, 0x3F, 0x0F]),
        "gpt_pre_ln_causal_gelu": bytes([small(7), small(8), 1, small(24), 1, 0, 0, 0b00000011, 0x3F, 0x0F]),
        "swiglu_masked": bytes([small(6), small(16), 3, small(12), 5, 0, 255, 0b00011001, 0x7F, 0x05]) + bytes([1, 1, 0, 1, 1, 1]),
        "eps_zero_means_default": bytes([small(3), small(4), 0, small(5), 2, 128 + 8, 255, 0, 0, 0]),
        "refused_eps_negative": bytes([small(3), small(4), 0, small(5), 2, 128 + 10, 255, 0, 0, 0]),
        "refused_missing_norm2": bytes([small(3), small(4), 0, small(5), 0, 0, 0, 0, 0, 1 << 6]),
    },
    "decoder": {
        # n_layer, d_model, heads, d_ff, vocab, n_positions, L, activation, eps, eps default,
        # flags (L <= P, raw, no_err, bare, embed, hidden, bad ids), kept layers and fields,
        # drop/drop layer/drop weight; then the ids
        "two_layers_relu_all_kept": bytes([small(2), small(16), 3, small(24), small(20), small(12),
                                           small(9), 0, 0, 0, 0b110001, 0xFF, 0]) + bytes(range(9)),
        "three_layers_gelu_tanh_bare": bytes([small(3), small(8), 1, small(16), small(7), small(6),
                                              small(6), 2, 0, 255, 0b1001, 0b10100101, 0]),
        "one_token_one_layer": bytes([small(1), small(4), 0, small(4), small(3), small(1), small(1),
                                      1, 0, 0, 1, 1, 0]) + bytes([2]),
        "refused_id_past_vocab": bytes([small(1), small(4), 0, small(4), small(3), small(4),
                                        small(3), 0, 0, 0, 1 | 64, 0, 0]) + bytes([0, 240, 1]),
        "refused_negative_id": bytes([small(1), small(4), 0, small(4), small(3), small(4),
                                      small(3), 0, 0, 0, 1 | 64, 0, 0]) + bytes([0, 241, 1]),
        "refused_L_past_n_positions": bytes([small(1), small(4), 0, small(4), small(3), small(2),
                                             small(5), 0, 0, 0, 0, 0, 0]),
        "refused_gated": bytes([small(1), small(4), 0, small(4), small(3), small(4), small(3), 5,
                                0, 0, 1, 0, 0]),
        "refused_missing_w2_of_layer_1": bytes([small(2), small(4), 0, small(4), small(3), small(4),
                                                small(3), 0, 0, 0, 1, 1, 7 | 1 << 4 | 3 << 6]),
        "refused_no_workspace": bytes([small(1), small(4), 0, small(4), small(3), small(4),
                                       small(3), 0, 0, 0, 1, 0, 6]),
        **hook_seeds(bytes([small(2), small(16), 3, small(24), small(20), small(12), small(9), 0,
                            0, 0, 0b110001, 0xFF, 0]) + bytes(range(9))),
    },
    "llama": {
        # n_layers, d_model, heads, kv heads (< 32 default, < 224 a divisor of heads), head_dim
        # (< 64 default, < 224 even 2..16), d_ff, vocab, max_positions (< 128 none, < 224
        # 1..12; from 224 on, these three pick fz_edges[b - 224]), L, dtype (b % 3: F32 F16 BF16), eps, eps default, rope type (< 112 default,
        # < 224 llama3), theta, factor, low/high, original, flags (L <= max_pos, raw, no_err,
        # qkv bias, o bias, mlp bias, qk norm, tied), keeps (bad ids, embed, hidden, layers x2,
        # fields, bare), drop/drop layer/drop weight; then the ids
        "gqa_llama3_bf16_all_kept": bytes([small(2), small(16), 3, 33, 64 + 3, small(24), small(20),
                                           0, small(7), 2, 0, 255, 112, 2, 0, 0, 0, 1, 0b00011110,
                                           0]) + bytes(range(7)),
        "qwen3_f16_qk_norm_tied": bytes([small(2), small(8), 1, 0, 64 + 2, small(12), small(9),
                                         128 + 7, small(5), 1, 0, 255, 0, 3, 0, 0, 0,
                                         1 | 64 | 128, 0b00001110, 0]) + bytes(range(5)),
        "qwen2_f32_biases_one_kv_head": bytes([small(2), small(16), 3, 224 + 0, 0, small(20),
                                               small(11), 0, small(6), 0, 0, 255, 0, 1, 0, 0, 0,
                                               1 | 8, 0b00010000, 0]) + bytes(range(6)),
        "refused_kv_heads_not_dividing": bytes([small(1), small(8), 3, 224 + 2, 0, small(8),
                                                small(5), 0, small(3), 0, 0, 255, 0, 0, 0, 0, 0,
                                                1, 0, 0]),
        "refused_llama3_factor_below_1": bytes([small(1), small(8), 1, 0, 0, small(8), small(5), 0,
                                                small(3), 2, 0, 255, 112, 0, 4, 0, 0, 1, 0, 0]),
        "refused_odd_head_dim": bytes([small(1), small(8), 1, 0, 224 + 2, small(8), small(5), 0,
                                       small(3), 0, 0, 255, 0, 0, 0, 0, 0, 1, 0, 0]),
        "refused_missing_w_down_of_layer_1": bytes([small(2), small(8), 1, 0, 0, small(8),
                                                    small(5), 0, small(3), 2, 0, 255, 0, 0, 0, 0,
                                                    0, 1, 0, 7 | 1 << 4 | 6 << 5]),
        **hook_seeds(bytes([small(2), small(16), 3, 33, 64 + 3, small(24), small(20), 0, small(7),
                            2, 0, 255, 112, 2, 0, 0, 0, 1, 0b00011110, 0]) + bytes(range(7))),
    },
    "moe": {
        # L, d_model, d_ff, n_experts (b < 160: 1 + b % 8; < 224: 1 + (b - 160); 224.. edges 64,
        # 63, 65, 0, -1), top_k (b < 224: 1 + b % n_experts; 224.. edges 0, -1, E, E + 1),
        # activation, flags (b1 b2 b3 logits probs load raw no_err), swap_w3 / ties / drop << 2
        "page_relu_8_experts_top2": bytes([small(7), small(8), small(32), 7, 1, 0, 0b111011, 0]),
        "mixtral_swiglu_no_bias": bytes([small(9), small(8), small(24), 7, 1, 5, 0b111000, 0]),
        "top1_geglu_all_biases": bytes([small(5), small(6), small(10), 3, 0, 6, 0b111111, 0]),
        # ties: odd experts' router columns become copies of expert 0's, which wins on the
        # even tokens (x +1) and comes third on the odd ones (x -1)
        "ties_top2_gelu": bytes([small(8), small(8), small(12), 5, 1, 1, 0b111011, 0b10])
        + floats(*[1 - 2 * (i % 2) for i in range(8) for _ in range(8)])
        + floats(*[0.5, 0, 0.25, 0, -0.25, 0] * 8),
        "ties_top3_swiglu_no_logits": bytes([small(6), small(4), small(6), 7, 2, 5, 0b100111, 0b10])
        + floats(*[1 - 2 * (i % 2) for i in range(6) for _ in range(4)])
        + floats(*[0.5, 0, 0.25, 0, -0.25, 0, 0.125, 0] * 4),
        "experts_64_top_64": bytes([small(2), small(3), small(4), 223, 226, 3, 0b111011, 0]),
        "raw_nan_inf_logits": bytes([small(4), small(4), small(4), 5, 1, 0, 0b1111111, 0b10])
        + struct.pack("<6f", float("nan"), float("inf"), -float("inf"), 1e-45, 3e38, -3e38),
        "gated_without_w3": bytes([small(2), small(3), small(4), 3, 1, 5, 0, 1]),
        "refused_65_experts": bytes([small(2), small(2), small(2), 226, 0, 0, 0, 0]),
        "refused_top_k_past_experts": bytes([small(2), small(2), small(2), 3, 227, 0, 0, 0]),
        "refused_top_k_0": bytes([small(2), small(2), small(2), 3, 224, 0, 0, 0]),
        "refused_activation": bytes([small(2), small(2), small(2), 3, 1, 224, 0, 0]),
        "refused_stacked_2_30": bytes([small(1), edge(4096), edge(4096), 223, 0, 0, 0, 0]),
        "refused_workspace_past_2_28": bytes([edge(65536), edge(2048), small(1), 0, 0, 0, 0b1000, 0]),
        "refused_no_workspace": bytes([small(3), small(4), small(5), 3, 1, 0, 0b1000, 8 << 2]),
    },
    "rng": {
        # seed, spoil (bit 0 pos from a list, 1 pos from 4 bytes, 2 has_gauss, 3 gauss), calls
        "seed_42_randn_56": struct.pack("<I", 42) + bytes([0, 1, 56, 0, 8, 2, 10, 7, 7, 5, 3]),
        "seed_0_uniform_and_u32": struct.pack("<I", 0) + bytes([0, 0, 200, 3, 4, 5, 6, 248, 100]),
        "pos_minus_one": struct.pack("<I", 7) + bytes([1, 0, 1, 4, 2, 4, 3, 0, 5]),
        "pos_int_min": struct.pack("<I", 7) + bytes([1, 5, 0, 9, 3, 1, 2]),
        "pos_625_cached_gauss": struct.pack("<I", 7) + bytes([1 | 4, 7, 1, 0, 0, 0, 7, 7, 1, 3]),
        "fill_too_large": struct.pack("<I", 1) + bytes([0, 2, 255, 0, 252, 1, 250]),
    },
    "params": {
        # byte 0 % 4 == 0: presets: index (a flag byte, then 4 bytes or 1), how the name is
        # made (bit 0 a preset's, 1 cut, 2 one byte appended, 3 printed_total NULL), which, len
        **{f"preset_{i}": bytes([0, 0, i + 1, 1, i, 0]) for i in range(6)},
        "preset_name_cut": bytes([4, 0, 3, 1 | 2, 2, 3]),
        "preset_name_extended": bytes([4, 0, 3, 1 | 4 | 8, 3, 0, ord("x")]),
        "preset_unknown": bytes([8, 1, 255, 255, 255, 255, 0, 0, 5]) + b"gpt-2",
        # config: vocab max_pos type d_model layers heads kv d_ff gated norm attn_b ffn_b
        # embed_n final_n lm_head pooler experts top_k dec_layers, fix
        "config_small": bytes([1, 10, 8, 2, 12, 2, 4, 0, 15, 0, 0, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0]),
        "config_moe": bytes([1, 12, 0, 0, 8, 2, 4, 2, 14, 1, 2, 0, 0, 0, 1, 1, 0, 8, 2, 0, 0]),
        "config_2_40": bytes([1, 128 + 18, 0, 0, 128 + 18, 1, 0, 0, 128 + 18, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 0, 1]),
        "config_pooler_2_40": bytes([1, 0, 0, 0, 128 + 18, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1]),
        "config_negative": bytes([1, 128 + 22, 0, 0, 4, 1, 1, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
    },
}

for target, seeds in SEEDS.items():
    folder = os.path.join(HERE, "corpus", target)
    os.makedirs(folder, exist_ok=True)
    for old in os.listdir(folder):
        os.remove(os.path.join(folder, old))
    for name, data in seeds.items():
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)
    print(f"{target}: {len(seeds)} seeds")
