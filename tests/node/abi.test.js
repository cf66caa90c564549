// abi.test.js - the C struct layout the wrapper reads from the wasm module at load (sizeof and
// offsetof of every field, bl__abi_layout in src/wasm_abi.c) against the numbers pinned here for
// wasm32, and the load-time check of the fields the wrapper writes and reads.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { BlockLens } = require('./helpers.js');

/* wasm32: ints, floats and pointers are 4 bytes, the rng's double 8-aligned. A change here is a
   change of the C structs: update these numbers with it. */
const WASM32 = {
  bl_error: { sizeof: 196, status: 0, message: 4 },
  bl_rng: { sizeof: 2512, mt: 0, pos: 2496, has_gauss: 2500, gauss: 2504 },
  bl_ffn_desc: { sizeof: 44, L: 0, d_model: 4, d_ff: 8, activation: 12, x: 16, w1: 20, b1: 24,
    w3: 28, b3: 32, w2: 36, b2: 40 },
  bl_ffn_out: { sizeof: 16, hidden: 0, up: 4, activated: 8, out: 12 },
  bl_attention_desc: { sizeof: 60, L: 0, d_model: 4, n_heads: 8, causal: 12, no_scale: 16,
    key_mask: 20, x: 24, wq: 28, bq: 32, wk: 36, bk: 40, wv: 44, bv: 48, wo: 52, bo: 56 },
  bl_attention_out: { sizeof: 32, q: 0, k: 4, v: 8, scores: 12, weights: 16, context: 20,
    concat: 24, out: 28 },
  bl_block_desc: { sizeof: 116, L: 0, d_model: 4, n_heads: 8, d_ff: 12, activation: 16,
    pre_ln: 20, causal: 24, no_scale: 28, key_mask: 32, eps: 36, x: 40, wq: 44, bq: 48, wk: 52,
    bk: 56, wv: 60, bv: 64, wo: 68, bo: 72, ln1_gamma: 76, ln1_beta: 80, ln2_gamma: 84,
    ln2_beta: 88, w1: 92, b1: 96, w3: 100, b3: 104, w2: 108, b2: 112 },
  bl_block_out: { sizeof: 68, attn: 0, ffn: 32, resid1: 48, norm1: 52, resid2: 56, norm2: 60,
    out: 64 },
  bl_moe_desc: { sizeof: 56, L: 0, d_model: 4, d_ff: 8, n_experts: 12, top_k: 16, activation: 20,
    x: 24, wr: 28, w1: 32, b1: 36, w3: 40, b3: 44, w2: 48, b2: 52 },
  bl_moe_out: { sizeof: 24, logits: 0, probs: 4, top_index: 8, top_weight: 12, load: 16, out: 20 },
  bl_decoder_layer: { sizeof: 64, ln1_gamma: 0, ln1_beta: 4, wq: 8, bq: 12, wk: 16, bk: 20, wv: 24,
    bv: 28, wo: 32, bo: 36, ln2_gamma: 40, ln2_beta: 44, w1: 48, b1: 52, w2: 56, b2: 60 },
  bl_edit: { sizeof: 20, layer: 0, site: 4, head: 8, row: 12, values: 16 },
  bl_decoder_desc: { sizeof: 84, n_layers: 0, d_model: 4, n_heads: 8, d_ff: 12, vocab: 16,
    n_positions: 20, activation: 24, eps: 28, L: 32, ids: 36, wte: 40, wpe: 44, layers: 48,
    lnf_gamma: 52, lnf_beta: 56, edits: 60, n_edits: 64, first_layer: 68, start: 72, end_layer: 76,
    logits_last: 80 },
  bl_lens_target: { sizeof: 12, targets: 0, rank: 4, prob: 8 },
  bl_decoder_layer_out: { sizeof: 64, norm1: 0, q: 4, k: 8, v: 12, scores: 16, weights: 20,
    context: 24, concat: 28, attn_out: 32, resid1: 36, norm2: 40, hidden: 44, activated: 48,
    ffn_out: 52, resid2: 56, x: 60 },
  bl_decoder_out: { sizeof: 16, logits: 0, embed: 4, hidden: 8, layers: 12 },
  bl_llama_layer: { sizeof: 72, attn_norm: 0, wq: 4, bq: 8, wk: 12, bk: 16, wv: 20, bv: 24, q_norm: 28,
    k_norm: 32, wo: 36, bo: 40, ffn_norm: 44, w_gate: 48, b_gate: 52, w_up: 56, b_up: 60, w_down: 64,
    b_down: 68 },
  bl_llama_desc: { sizeof: 116, n_layers: 0, d_model: 4, n_heads: 8, n_kv_heads: 12, head_dim: 16, d_ff: 20,
    vocab: 24, max_positions: 28, eps: 32, dtype: 36, rope_theta: 40, rope_type: 44, rope_factor: 48,
    rope_low_freq_factor: 52, rope_high_freq_factor: 56, rope_original_max_positions: 60, L: 64, ids: 68,
    embed: 72, layers: 76, final_norm: 80, lm_head: 84, edits: 88, n_edits: 92, first_layer: 96, start: 100,
    end_layer: 104, logits_last: 108, weights_finite: 112 },
  bl_llama_layer_out: { sizeof: 84, norm1: 0, rstd1: 4, q: 8, k: 12, v: 16, q_rot: 20, k_rot: 24, scores: 28,
    weights: 32, context: 36, concat: 40, attn_out: 44, resid1: 48, norm2: 52, rstd2: 56, gate: 60, up: 64,
    activated: 68, ffn_out: 72, resid2: 76, x: 80 },
  bl_llama_out: { sizeof: 16, logits: 0, embed: 4, hidden: 8, layers: 12 }
};

test('the_layout_read_from_the_wasm_module_is_the_pinned_wasm32_layout', async () => {
  const bl = await BlockLens.load();
  const got = bl._abi();
  assert.deepEqual(Object.keys(got).sort(), Object.keys(WASM32).sort());
  for (const [s, fields] of Object.entries(WASM32)) assert.deepEqual(got[s], fields, s);
  assert.equal(got.bl_block_out.ffn, got.bl_attention_out.sizeof);   // nested structs are one field
  assert.doesNotThrow(() => bl._checkAbi(got));
});

test('a_layout_without_a_struct_or_field_the_wrapper_uses_fails_naming_it', async () => {
  const bl = await BlockLens.load();
  const altered = (edit) => { const t = bl._abi(); edit(t); return t; };
  assert.throws(() => bl._checkAbi(altered((t) => { delete t.bl_ffn_desc.d_ff; })),
    { message: 'BlockLens: the wasm module\'s struct bl_ffn_desc has no field d_ff (the wrapper uses it): rebuild web/dist/blocklens.js' });
  assert.throws(() => bl._checkAbi(altered((t) => { delete t.bl_rng; })),
    /the wasm module has no struct bl_rng \(the wrapper uses it\)/);
  assert.throws(() => bl._checkAbi(altered((t) => { t.bl_block_desc.eps = 38; })),
    /bl_block_desc\.eps is at byte 38, not a 32-bit word of its 116 bytes/);
  assert.throws(() => bl._checkAbi(altered((t) => { t.bl_decoder_out.layers = 16; })),
    /bl_decoder_out\.layers is at byte 16, not a 32-bit word of its 16 bytes/);
  // a field the wrapper does not name is left 0 (C's default), not refused
  assert.doesNotThrow(() => bl._checkAbi(altered((t) => { t.bl_ffn_desc.gate_bias = 44; t.bl_ffn_desc.sizeof = 48; })));
});

test('an_encoder_layer_written_through_every_bl_block_desc_and_bl_block_out_field_equals_its_single_calls', async () => {
  // every optional pointer and flag given, so a field at a wrong offset changes some output
  const bl = await BlockLens.load();
  const r = bl.numpyRandom(11), L = 3, D = 4, H = 2, F = 6, eps = 1e-3;
  const w = (n) => r.randnF32(n);
  const attn = { L, dModel: D, nHeads: H, x: w(L * D), Wq: w(D * D), bq: w(D), Wk: w(D * D), bk: w(D),
    Wv: w(D * D), bv: w(D), Wo: w(D * D), bo: w(D), causal: true, scale: false, keyMask: [1, 0, 1] };
  const ffn = { W1: w(D * F), b1: w(F), W3: w(D * F), b3: w(F), W2: w(F * D), b2: w(D), activation: 'swiglu' };
  const ln = { ln1Gamma: w(D), ln1Beta: w(D), ln2Gamma: w(D), ln2Beta: w(D) };
  const block = bl.encoderLayer({ ...attn, ...ffn, ...ln, dFF: F, eps });   // post-LN
  const a = bl.attention(attn);
  assert.deepEqual(block.attn, a);
  const resid1 = a.out.map((v, i) => v + attn.x[i]);
  assert.deepEqual(block.resid1, resid1);
  const norm1 = bl.layerNorm({ L, d: D, x: resid1, gamma: ln.ln1Gamma, beta: ln.ln1Beta, eps }).out;
  assert.deepEqual(block.norm1, norm1);
  const f = bl.ffn({ L, dModel: D, dFF: F, x: norm1, ...ffn });
  assert.deepEqual(block.ffn, f);
  const resid2 = f.out.map((v, i) => v + norm1[i]);
  assert.deepEqual(block.resid2, resid2);
  const norm2 = bl.layerNorm({ L, d: D, x: resid2, gamma: ln.ln2Gamma, beta: ln.ln2Beta, eps }).out;
  assert.deepEqual(block.norm2, norm2);
  assert.deepEqual(block.out, norm2);
});
