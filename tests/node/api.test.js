// api.test.js - the JS contract: one shared instance, caller-owned copies, accepted input
// types, gated naming, and no heap growth across repeated calls.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { BlockLens } = require('./helpers.js');

function ffnInputs(bl, seed, L, D, F) {
  const r = bl.numpyRandom(seed);
  return { L, dModel: D, dFF: F, x: r.randnF32(L * D), W1: r.randnF32(D * F), b1: r.randnF32(F),
    W2: r.randnF32(F * D), b2: r.randnF32(D) };
}

test('load_returns_one_shared_engine_and_defines_no_globals', async () => {
  const before = new Set(Object.keys(globalThis));
  const a = BlockLens.load(), b = BlockLens.load();
  assert.equal(a, b);
  assert.equal(await a, await b);
  assert.deepEqual(Object.keys(globalThis).filter((k) => !before.has(k)), []);
  assert.equal(typeof globalThis.BlockLensCore, 'undefined');
});

test('outputs_are_caller_owned_copies', async () => {
  const bl = await BlockLens.load();
  const args = ffnInputs(bl, 2, 3, 4, 8);
  const first = bl.ffn(args);
  const keep = Float32Array.from(first.out);
  first.out.fill(0);
  const second = bl.ffn(args);
  assert.deepEqual(second.out, keep);
  // small results may share one pool buffer, never bytes
  assert.ok(second.out.buffer !== first.out.buffer || second.out.byteOffset >= first.out.byteOffset + first.out.byteLength ||
    first.out.byteOffset >= second.out.byteOffset + second.out.byteLength);
});

test('plain_arrays_and_Float64Arrays_give_the_same_result_as_Float32Arrays', async () => {
  const bl = await BlockLens.load();
  const args = ffnInputs(bl, 3, 2, 4, 8);
  const plain = Object.fromEntries(Object.entries(args).map(([k, v]) => [k, ArrayBuffer.isView(v) ? Array.from(v) : v]));
  const f64 = Object.fromEntries(Object.entries(args).map(([k, v]) => [k, ArrayBuffer.isView(v) ? Float64Array.from(v) : v]));
  assert.deepEqual(bl.ffn(plain).out, bl.ffn(args).out);
  assert.deepEqual(bl.ffn(f64).out, bl.ffn(args).out);
});

test('gated_FFN_accepts_Wg_Wu_Wd_and_returns_gate_and_up', async () => {
  const bl = await BlockLens.load();
  const r = bl.numpyRandom(4), L = 2, D = 4, F = 6;
  const x = r.randnF32(L * D), Wg = r.randnF32(D * F), Wu = r.randnF32(D * F), Wd = r.randnF32(F * D);
  const a = bl.ffn({ L, dModel: D, dFF: F, x, Wg, Wu, Wd, activation: 'swiglu' });
  const b = bl.ffn({ L, dModel: D, dFF: F, x, W1: Wg, W3: Wu, W2: Wd, activation: 'swiglu' });
  assert.deepEqual(a.out, b.out);
  assert.equal(a.gate, a.hidden);
  for (let i = 0; i < L * F; i++) {
    const silu = a.gate[i] / (1 + Math.exp(-a.gate[i]));
    assert.ok(Math.abs(a.activated[i] - silu * a.up[i]) <= 1e-5 * (1 + Math.abs(a.activated[i])));
  }
});

test('numpyRandom_streams_continue_across_calls_like_numpy', async () => {
  const bl = await BlockLens.load();
  const one = bl.numpyRandom(9), two = bl.numpyRandom(9);
  const joined = [...one.randn(3), ...one.randn(4)];
  assert.deepEqual(joined, Array.from(two.randn(7)));
  assert.deepEqual(Array.from(bl.numpyRandom(9).randnF32(7)), Array.from(Float32Array.from(joined)));
});

test('a_copied_numpyRandom_stream_goes_on_from_the_same_point_apart_from_the_original', async () => {
  const bl = await BlockLens.load();
  const r = bl.numpyRandom(9);
  r.randn(3);   // an odd count: numpy's cached second normal is part of the state copied
  const c = r.copy(), rest = Array.from(bl.numpyRandom(9).randn(10)).slice(3);
  assert.deepEqual(Array.from(c.randn(7)), rest);
  assert.deepEqual(Array.from(r.randn(7)), rest);   // drawing from the copy left r where it was
  assert.deepEqual(Array.from(r.copy().randn(2)), Array.from(c.copy().randn(2)));
  assert.equal(c.seed, 9);
});

test('10_000_calls_at_the_same_sizes_leave_the_heap_where_it_was', async () => {
  const bl = await BlockLens.load();
  const args = ffnInputs(bl, 5, 7, 8, 32);
  const r = bl.numpyRandom(6);
  const attn = { L: 7, dModel: 8, nHeads: 2, x: args.x, Wq: r.randnF32(64), Wk: r.randnF32(64),
    Wv: r.randnF32(64), Wo: r.randnF32(64), causal: true };
  for (let i = 0; i < 100; i++) { bl.ffn(args); bl.attention(attn); }
  const before = bl.heapBytes();
  for (let i = 0; i < 10000; i++) { bl.ffn(args); bl.attention(attn); }
  assert.equal(bl.heapBytes(), before);
});

test('key_padding_mask_hides_keys_from_every_query', async () => {
  const bl = await BlockLens.load();
  const r = bl.numpyRandom(8), L = 4, D = 4;
  const w = () => r.randnF32(D * D);
  const res = bl.attention({ L, dModel: D, nHeads: 1, x: r.randnF32(L * D), Wq: w(), Wk: w(), Wv: w(), Wo: w(), keyMask: [1, 1, 0, 1] });
  for (let i = 0; i < L; i++) assert.equal(res.weights[i * L + 2], 0);
});

test('a_previous_result_passed_as_into_receives_the_outputs_and_is_returned', async () => {
  const bl = await BlockLens.load();
  const a = ffnInputs(bl, 11, 5, 8, 16), b = ffnInputs(bl, 12, 5, 8, 16);
  const into = bl.ffn(a);
  const arrays = [into.hidden, into.activated, into.out];
  const fresh = bl.ffn(b);
  assert.equal(bl.ffn(b, into), into);
  assert.deepEqual([into.hidden, into.activated, into.out], arrays, 'the same arrays, refilled');
  assert.deepEqual(into.out, fresh.out);
  assert.deepEqual(into.hidden, fresh.hidden);
  // every compute call: attention, the norms, a gated FFN and the whole layer
  const r = bl.numpyRandom(13), w = () => r.randnF32(64);
  const att = (seed) => ({ L: 5, dModel: 8, nHeads: 2, x: bl.numpyRandom(seed).randnF32(40),
    Wq: w(), Wk: w(), Wv: w(), Wo: w(), causal: true });
  const a1 = att(1), a2 = att(2), ra = bl.attention(a1);
  assert.deepEqual(bl.attention(a2, ra).weights, bl.attention(a2).weights);
  const n = { L: 5, d: 8, x: b.x };
  const rn = bl.layerNorm({ L: 5, d: 8, x: a.x });
  assert.deepEqual(bl.layerNorm(n, rn), bl.layerNorm(n));
  const g = { L: 5, dModel: 8, dFF: 16, x: a.x, Wg: r.randnF32(128), Wu: r.randnF32(128), Wd: r.randnF32(128), activation: 'swiglu' };
  const rg = bl.ffn(Object.assign({}, g, { x: b.x }));
  bl.ffn(g, rg);
  assert.equal(rg.gate, rg.hidden);
  assert.deepEqual(rg.up, bl.ffn(g).up);
  const layer = Object.assign({}, a1, { dFF: 16, W1: a.W1.subarray(0, 128), W2: a.W2.subarray(0, 128) });
  const rl = bl.encoderLayer(Object.assign({}, layer, { x: b.x }));
  assert.deepEqual(bl.encoderLayer(layer, rl), bl.encoderLayer(layer));
});

test('into_may_be_one_of_the_call_inputs', async () => {
  const bl = await BlockLens.load();
  const r = bl.layerNorm({ L: 4, d: 8, x: bl.numpyRandom(3).randnF32(32), gamma: new Float32Array(8).fill(2) });
  const expect = bl.layerNorm({ L: 4, d: 8, x: Float32Array.from(r.out) });
  bl.layerNorm({ L: 4, d: 8, x: r.out }, r);      // x is copied in before r.out is written
  assert.deepEqual(r, expect);
});

test('an_into_that_does_not_fit_throws_names_the_array_and_is_left_untouched', async () => {
  const bl = await BlockLens.load();
  const args = ffnInputs(bl, 14, 3, 4, 8);
  const small = bl.ffn(ffnInputs(bl, 15, 2, 4, 8));
  const copy = Float32Array.from(small.out);
  assert.throws(() => bl.ffn(args, small), /^Error: BlockLens: into\.hidden has 16 values, expected 24$/);
  assert.deepEqual(small.out, copy);
  assert.throws(() => bl.ffn(args, { hidden: new Float32Array(24), activated: [], out: null }),
    /into\.activated must be a Float32Array/);
  assert.throws(() => bl.ffn(args, 5), /into must be a previous result of the same call/);
  assert.throws(() => bl.encoderLayer({ L: 2, dModel: 4, nHeads: 1, dFF: 8, x: new Float32Array(8),
    Wq: new Float32Array(16), Wk: new Float32Array(16), Wv: new Float32Array(16), Wo: new Float32Array(16),
    W1: new Float32Array(32), W2: new Float32Array(32) }, {}), /into\.attn\.q must be a Float32Array/);
  assert.deepEqual(bl.ffn(args, bl.ffn(args)).out, bl.ffn(args).out, 'the engine works afterwards');
});

test('10_000_calls_with_into_allocate_no_new_output_arrays_and_leave_the_heap_where_it_was', async () => {
  const bl = await BlockLens.load();
  const args = ffnInputs(bl, 16, 7, 8, 32);
  const r = bl.ffn(args), out = r.out;
  const before = bl.heapBytes();
  for (let i = 0; i < 10000; i++) bl.ffn(args, r);
  assert.equal(r.out, out);
  assert.equal(bl.heapBytes(), before);
});
