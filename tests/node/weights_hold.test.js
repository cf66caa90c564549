// weights_hold.test.js - engine.holdWeights (web/src/engine/engine-weights.js): weights kept in
// the heap give the results of the same arrays copied per call, bit for bit, in every call that
// takes them; freed, foreign, mis-sized or non-finite ones are refused naming the argument.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { BlockLens } = require('./helpers.js');

function inputs(bl, seed, L, D, H, F) {
  const r = bl.numpyRandom(seed), w = (n) => r.randnF32(n);
  return { L, dModel: D, nHeads: H, dFF: F, x: w(L * D), Wq: w(D * D), bq: w(D), Wk: w(D * D), bk: w(D),
    Wv: w(D * D), bv: w(D), Wo: w(D * D), bo: w(D), W1: w(D * F), b1: w(F), W3: w(D * F), b3: w(F),
    W2: w(F * D), b2: w(D), ln1Gamma: w(D), ln1Beta: w(D), ln2Gamma: w(D), ln2Beta: w(D) };
}
const pick = (o, keys) => Object.fromEntries(keys.map((k) => [k, o[k]]));
const FFN = ['L', 'dModel', 'dFF', 'x', 'W1', 'b1', 'W2', 'b2'];
const ATTN = ['L', 'dModel', 'nHeads', 'x', 'Wq', 'bq', 'Wk', 'bk', 'Wv', 'bv', 'Wo', 'bo'];

// The same call with `names` replaced by held copies (freed after).
function withHeld(bl, a, names, call) {
  const h = Object.fromEntries(names.map((n) => [n, bl.holdWeights(a[n])]));
  try { return call({ ...a, ...h }); } finally { Object.values(h).forEach((x) => x.free()); }
}

test('held_weights_give_the_copied_calls_results_bit_for_bit', async () => {
  const bl = await BlockLens.load();
  // BERT's widths at 8 tokens (W1, W2: 2.4M values each), and a small odd size
  for (const [L, D, H, F] of [[8, 768, 12, 3072], [5, 12, 3, 20]]) {
    const a = inputs(bl, 3, L, D, H, F);
    const ffn = pick(a, FFN);
    assert.deepEqual(withHeld(bl, ffn, ['W1', 'W2'], (o) => bl.ffn({ ...o, activation: 'gelu' })),
      bl.ffn({ ...ffn, activation: 'gelu' }), `ffn ${D}x${F}`);
    const gated = { ...ffn, W3: a.W3, b3: a.b3, activation: 'swiglu' };
    assert.deepEqual(withHeld(bl, gated, ['W1', 'W3', 'W2', 'b1'], (o) => bl.ffn(o)), bl.ffn(gated), `swiglu ${D}x${F}`);
    const attn = { ...pick(a, ATTN), causal: true, scale: true };
    assert.deepEqual(withHeld(bl, attn, ['Wq', 'Wk', 'Wv', 'Wo', 'x'], (o) => bl.attention(o)), bl.attention(attn),
      `attention ${D}`);
    const block = { ...pick(a, ATTN.concat(['dFF', 'W1', 'b1', 'W2', 'b2', 'ln1Gamma', 'ln1Beta', 'ln2Gamma', 'ln2Beta'])),
      activation: 'gelu', causal: false, scale: true };
    assert.deepEqual(withHeld(bl, block, ['W1', 'W2', 'Wq', 'Wo', 'ln1Gamma'], (o) => bl.encoderLayer(o)),
      bl.encoderLayer(block), `encoderLayer ${D}`);
    const norm = { L, d: D, x: a.x, gamma: a.ln1Gamma, beta: a.ln1Beta };
    assert.deepEqual(withHeld(bl, norm, ['x', 'gamma'], (o) => bl.layerNorm(o)), bl.layerNorm(norm), `layerNorm ${D}`);
  }
});

test('a_held_handle_serves_many_calls_and_other_inputs_still_change', async () => {
  const bl = await BlockLens.load();
  const a = inputs(bl, 5, 4, 16, 2, 40), W1 = bl.holdWeights(a.W1), W2 = bl.holdWeights(a.W2);
  assert.equal(W1.length, 16 * 40);
  assert.equal(W1.freed, false);
  for (let s = 0; s < 3; s++) {
    const x = bl.numpyRandom(100 + s).randnF32(4 * 16), ffn = { ...pick(a, FFN), x };
    assert.deepEqual(bl.ffn({ ...ffn, W1, W2 }), bl.ffn(ffn), `x of seed ${100 + s}`);
  }
  // the handle holds the values it was given: a later change of the array is not seen
  const before = bl.ffn({ ...pick(a, FFN), W1, W2 });
  const W1copy = a.W1.slice();
  a.W1[0] += 1;
  assert.deepEqual(bl.ffn({ ...pick(a, FFN), W1, W2 }), before);
  assert.notDeepEqual(bl.ffn({ ...pick(a, FFN), W2 }).hidden, before.hidden);
  a.W1.set(W1copy);
  W1.free();
  W2.free();
});

test('freed_foreign_and_mis_sized_handles_are_refused_naming_the_argument', async () => {
  const bl = await BlockLens.load();
  const a = inputs(bl, 6, 3, 8, 2, 12), ffn = pick(a, FFN);
  const W1 = bl.holdWeights(a.W1);
  const small = bl.holdWeights(a.b1);
  assert.throws(() => bl.ffn({ ...ffn, W2: small }), /W2 holds 12 values, expected 96/);
  assert.throws(() => bl.attention({ ...pick(a, ATTN), keyMask: small }), /keyMask cannot be a holdWeights handle/);
  W1.free();
  assert.equal(W1.freed, true);
  assert.equal(W1.length, 0);
  assert.throws(() => bl.ffn({ ...ffn, W1 }), /W1 is a freed holdWeights handle/);
  W1.free();   // again: nothing
  // A handle of another engine: the scalar build's beside this one. (A runtime without SIMD,
  // tools/test's scalar pass, has one build and so one engine per process: the SIMD and FMA
  // passes check this.)
  if (bl.simd) {
    const scalar = await BlockLens.load({ simd: false });
    assert.ok(scalar !== bl && !scalar.simd, 'the scalar build is another engine');
    const other = scalar.holdWeights(a.W2);
    assert.throws(() => bl.ffn({ ...ffn, W2: other }), /W2 is a holdWeights handle of another engine/);
    assert.deepEqual(scalar.ffn({ ...ffn, W2: other }), scalar.ffn(ffn));
    other.free();
  }
  small.free();
});

test('holdWeights_refuses_what_is_no_finite_float_array', async () => {
  const bl = await BlockLens.load();
  assert.throws(() => bl.holdWeights('abc'), /holdWeights: values must be a Float32Array or an array of numbers, not "abc"/);
  assert.throws(() => bl.holdWeights(new Float32Array(0)), /holdWeights: values has 0 values/);
  assert.throws(() => bl.holdWeights(new Float32Array([1, NaN, 2])), /values\[1\] is NaN, not a finite number/);
  assert.throws(() => bl.holdWeights(new Float64Array([1, 2, 1e300])), /values\[2\] is 1e\+300, beyond float32/);
  assert.throws(() => bl.holdWeights([1, 'x']), /values\[1\] is "x"/);
  const h = bl.holdWeights([1, 2.5, -3]);   // plain numbers, as float32
  assert.equal(h.length, 3);
  h.free();
});

test('holding_and_freeing_again_and_again_does_not_grow_the_heap', async () => {
  const bl = await BlockLens.load();
  const big = bl.numpyRandom(1).randnF32(1 << 20);
  bl.holdWeights(big).free();
  const bytes = bl.heapBytes();
  for (let i = 0; i < 20; i++) bl.holdWeights(big).free();
  assert.equal(bl.heapBytes(), bytes);
});
