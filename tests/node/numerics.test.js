// numerics.test.js - the wasm module against the torch/numpy fixtures, with explicit tolerances.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { BlockLens, fixture, assertClose, jsInputs } = require('./helpers.js');

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
});
