// numerics.test.js - the wasm module against the torch/numpy fixtures, with explicit tolerances.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { BlockLens, fixture, assertClose, jsInputs, root } = require('./helpers.js');

let bl;
test.before(async () => { bl = await BlockLens.load(); });

test('numpyRandom_matches_numpy_bit_for_bit_including_the_cached_normal', () => {
  let compared = 0;
  for (const c of fixture('rng.json')) {
    // raw 32-bit words are not part of the JS API; the C tests check those cases
    if (!c.expected.calls || c.expected.calls.some((call) => call.fn === 'u32')) continue;
    const r = bl.numpyRandom(c.params.seed);
    for (const call of c.expected.calls) {
      const got = call.fn === 'randn' ? r.randn(call.n) : r.rand(call.n);
      assert.ok(got instanceof Float64Array);
      assert.deepEqual(Array.from(got), call.values, `${c.name} ${call.fn}(${call.n})`);
      compared += call.n;
    }
  }
  assert.ok(compared > 5000, `compared ${compared}`);
});

test('the_classic_example_has_100_negative_hidden_values_0_after_ReLU', () => {
  const c = fixture('rng.json').find((k) => k.name === 'classic_seed42');
  const r = bl.numpyRandom(42);
  const x = r.randnF32(56), W1 = r.randnF32(256), b1 = r.randnF32(32), W2 = r.randnF32(256), b2 = r.randnF32(8);
  assert.deepEqual(Array.from(x), Array.from(Float32Array.from(c.inputs.x)));
  assert.deepEqual(Array.from(b2), Array.from(Float32Array.from(c.inputs.b2)));
  const f = bl.ffn({ L: 7, dModel: 8, dFF: 32, x, W1, b1, W2, b2, activation: 'relu' });
  assert.equal(f.hidden.filter((v) => v < 0).length, c.expected.hidden_negatives);
  assert.equal(f.hidden.filter((v) => v < 0).length, 100);
  assert.equal(f.activated.filter((v) => v < 0).length, 0);
  assertClose(f.hidden, c.expected.hidden, c.atol, c.rtol, 'hidden');
});

test('ffn_matches_torch_for_every_activation', () => {
  const seen = new Set();
  for (const c of fixture('ffn.json')) {
    const p = c.params;
    const got = bl.ffn({ L: p.L, dModel: p.d_model, dFF: p.d_ff, activation: p.activation, ...jsInputs(c.inputs) });
    for (const key of Object.keys(c.expected))
      assertClose(got[key], c.expected[key], c.atol, c.rtol, `${c.name}.${key}`);
    seen.add(p.activation);
  }
  assert.deepEqual([...seen].sort(), [...bl.activations].sort());
});

test('attention_matches_torch_masks_scaling_heads', () => {
  for (const c of fixture('attention.json')) {
    const p = c.params;
    const got = bl.attention({ L: p.L, dModel: p.d_model, nHeads: p.n_heads, causal: p.causal,
      scale: !p.no_scale, ...jsInputs(c.inputs) });
    for (const key of Object.keys(c.expected))
      assertClose(got[key], c.expected[key], c.atol, c.rtol, `${c.name}.${key}`);
    assert.ok(got.weights.every((w) => !Number.isNaN(w)));
  }
});

test('norms_match_torch', () => {
  for (const c of fixture('norms.json')) {
    const p = c.params;
    const fn = { layer: 'layerNorm', rms: 'rmsNorm', batch: 'batchNorm' }[p.kind];
    const got = bl[fn]({ L: p.L, d: p.d, eps: p.eps, ...jsInputs(c.inputs) });
    for (const key of Object.keys(c.expected))
      assertClose(got[key], c.expected[key], c.atol, c.rtol, `${c.name}.${key}`);
  }
});

test('encoderLayer_matches_torch_TransformerEncoderLayer_post_LN_and_pre_LN', () => {
  const kinds = new Set();
  for (const c of fixture('block.json')) {
    const p = c.params;
    const got = bl.encoderLayer({ L: p.L, dModel: p.d_model, nHeads: p.n_heads, dFF: p.d_ff,
      activation: p.activation, norm: p.pre_ln ? 'pre' : 'post', causal: p.causal, eps: p.eps,
      ...jsInputs(c.inputs) });
    const flat = { attn_out: got.attn.out, resid1: got.resid1, norm1: got.norm1,
      resid2: got.resid2, norm2: got.norm2, out: got.out };
    for (const key of Object.keys(c.expected))
      assertClose(flat[key], c.expected[key], c.atol, c.rtol, `${c.name}.${key}`);
    kinds.add(p.pre_ln ? 'pre' : 'post');
  }
  assert.equal(kinds.size, 2);
});

test('paramCount_matches_torch_module_counts_and_the_published_totals', () => {
  const camel = (k) => k.replace(/_([a-z])/g, (_, ch) => ch.toUpperCase()).replace(/^dFf$/, 'dFF');
  let presets = 0;
  for (const c of fixture('params.json')) {
    const cfg = {};
    for (const [k, v] of Object.entries(c.params)) if (k !== 'preset') cfg[camel(k)] = v;
    const got = bl.paramCount(cfg);
    for (const [k, v] of Object.entries(c.expected))
      if (k !== 'printed_total') assert.equal(got[camel(k)], v, `${c.name}.${k}`);
    if (c.params.preset) {
      const byName = bl.paramCount(c.params.preset);
      assert.equal(byName.total, c.expected.total);
      assert.equal(byName.printedTotal, c.expected.printed_total);
      presets++;
    }
  }
  assert.equal(presets, bl.presets.length);
  assert.equal(bl.paramCount('bert-base').total, 109482240);
  assert.equal(bl.paramCount('gpt2').total, 124439808);
  assert.equal(bl.paramCount('llama-2-7b').total, 6738415616);
  assert.equal(bl.paramCount('mixtral-8x7b').active, 12879925248);
  assert.equal(bl.paramCount('qwen2-0.5b').total, 494032768);
  assert.equal(bl.paramCount('poems').total, 324096);
});

test('attnBias_qkv_gives_Qwen2_its_published_total_true_and_false_count_as_before', () => {
  const qwen = bl.presetConfig('qwen2-0.5b').config;
  assert.equal(qwen.attnBias, 'qkv');
  assert.equal(bl.paramCount(qwen).total, 494032768);   // the model card's figure, exactly
  // All or nothing, the only choices before, miss it by d_model per layer either way.
  const D = 896, KV = 128, L = 24;
  assert.equal(bl.paramCount({ ...qwen, attnBias: true }).total, 494032768 + L * D);
  assert.equal(bl.paramCount({ ...qwen, attnBias: false }).total, 494032768 - L * (D + 2 * KV));
  for (const [v, same] of [['all', true], [1, true], ['none', false], [0, false]])
    assert.equal(bl.paramCount({ ...qwen, attnBias: v }).total, bl.paramCount({ ...qwen, attnBias: same }).total, String(v));
  for (const bad of [2, 'q', 'QKV', null, 0.5])
    assert.throws(() => bl.paramCount({ ...qwen, attnBias: bad }), /^Error: BlockLens: attnBias must be true \(q, k, v and o\), "qkv" \(q, k and v only\) or false, not /);
  // Every preset's config counts its own total (the config round-trips, 'qkv' included).
  for (const name of bl.presets) assert.equal(bl.paramCount(bl.presetConfig(name).config).total, bl.paramCount(name).total, name);
});

test('the_poem_models_config_counts_what_its_safetensors_file_holds_324096', () => {
  const dir = path.join(root, 'web', 'models', 'poems');
  const bytes = fs.readFileSync(path.join(dir, 'model.safetensors'));
  const header = JSON.parse(bytes.subarray(8, 8 + Number(bytes.readBigUInt64LE(0))).toString('utf8'));
  let inFile = 0;
  for (const [name, t] of Object.entries(header)) if (name !== '__metadata__') inFile += t.shape.reduce((a, b) => a * b, 1);
  const c = JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8'));
  // GPT-2's config.json as a paramCount config: learned positions, final norm, tied head, biases everywhere.
  const config = { vocab: c.vocab_size, maxPositions: c.n_positions, dModel: c.n_embd, nLayers: c.n_layer,
    nHeads: c.n_head, dFF: c.n_inner, attnBias: true, ffnBias: true, finalNorm: true };
  assert.equal(inFile, 324096);
  assert.equal(c.blocklens.parameters, 324096);
  assert.equal(bl.paramCount(config).total, inFile);
  assert.equal(bl.paramCount('poems').total, inFile);
  for (const k of Object.keys(config))
    assert.equal(bl.presetConfig('poems').config[k], config[k] === true ? 1 : config[k], `poems preset ${k}`);
});
