// errors.test.js - every bad argument throws an Error that names it, nothing aborts the wasm
// runtime, and the engine keeps working afterwards.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { BlockLens } = require('./helpers.js');

let bl, ffnArgs, attnArgs;
test.before(async () => {
  bl = await BlockLens.load();
  const r = bl.numpyRandom(1);
  ffnArgs = { L: 3, dModel: 4, dFF: 8, x: r.randnF32(12), W1: r.randnF32(32), b1: r.randnF32(8),
    W2: r.randnF32(32), b2: r.randnF32(4), activation: 'gelu' };
  attnArgs = { L: 3, dModel: 4, nHeads: 2, x: ffnArgs.x, Wq: r.randnF32(16), Wk: r.randnF32(16),
    Wv: r.randnF32(16), Wo: r.randnF32(16) };
});

const cases = [
  ['ffn', { dModel: 0 }, /dModel \(0\) must be an integer between 1 and 65536/],
  ['ffn', { dModel: 100000 }, /dModel \(100000\)/],
  ['ffn', { L: -1 }, /^BlockLens: L \(-1\)/],
  ['ffn', { L: 2.5 }, /L \(2.5\)/],
  ['ffn', { dFF: NaN }, /dFF \(NaN\)/],
  ['ffn', { dFF: '8' }, /dFF must be an integer between 1 and 65536, not "8" \(a string\)/],
  ['ffn', { L: 65536, dFF: 65536 }, /hidden \(L x dFF\) \(65536 x 65536\) exceeds/],
  ['ffn', { x: undefined }, /x is required \(12 numbers\)/],
  ['ffn', { x: new Float32Array(11) }, /x has 11 values, expected 12/],
  ['ffn', { x: 'abc' }, /x must be a Float32Array or an array of numbers/],
  ['ffn', { b1: [1, 2, 3, 4, 5, 6, 7, NaN] }, /b1\[7\] is NaN/],
  ['ffn', { W2: new Float32Array(32).fill(Infinity) }, /W2\[0\] is Infinity/],
  ['ffn', { W1: Float32Array.from({ length: 32 }, (_, i) => (i === 21 ? NaN : i)) }, /^BlockLens: W1\[21\] is NaN, not a finite number$/],
  ['ffn', { x: Float32Array.from({ length: 12 }, (_, i) => (i === 11 ? -Infinity : 1)) }, /x\[11\] is -Infinity/],
  ['ffn', { activation: 'tanh' }, /activation "tanh" is not one of relu, gelu/],
  ['ffn', { activation: 'swiglu' }, /W3 is required/],
  ['ffn', { W3: new Float32Array(32) }, /W3\/b3 are only used by gated activations/],
  ['ffn', { Wg: new Float32Array(32), activation: 'swiglu' }, /give Wg or W1, not both/],
  ['attention', { nHeads: 3 }, /dModel \(4\) must be divisible by nHeads \(3\)/],
  ['attention', { nHeads: 0 }, /nHeads \(0\)/],
  ['attention', { Wk: undefined }, /Wk is required/],
  ['attention', { causal: 'yes' }, /causal must be true or false/],
  ['attention', { keyMask: [1, 0] }, /keyMask must be an array of 3/],
  ['attention', { L: 20000, x: new Float32Array(80000) }, /scores \(nHeads x L x L\)/],
];

for (const [fn, change, pattern] of cases) {
  test(`${fn}_rejects_${JSON.stringify(change, (k, v) => (typeof v === 'number' && !isFinite(v) ? String(v) : v && v.BYTES_PER_ELEMENT ? `${v.constructor.name}(${v.length})` : v))}`, () => {
    const base = fn === 'ffn' ? ffnArgs : attnArgs;
    const args = { ...base, ...change };
    for (const k of Object.keys(change)) if (change[k] === undefined) delete args[k];
    assert.throws(() => bl[fn](args), (e) => e instanceof Error && pattern.test(e.message));
  });
}

test('norms_encoderLayer_paramCount_and_numpyRandom_reject_bad_arguments', () => {
  const x = new Float32Array(8);
  assert.throws(() => bl.layerNorm({ L: 2, d: 4, x, eps: 0 }), /eps \(0\) must be a positive/);
  assert.throws(() => bl.layerNorm({ L: 2, d: 4, x, eps: 1e-60 }), /eps/);   // 0 in float32
  assert.throws(() => bl.rmsNorm({ L: 2, d: 4, x, beta: x.slice(0, 4) }), /beta is not used by rmsNorm/);
  assert.throws(() => bl.batchNorm({ L: 2, d: 4, x, gamma: [1, 2] }), /gamma has 2 values, expected 4/);
  assert.throws(() => bl.encoderLayer({ ...attnArgs, ...ffnArgs, norm: 'middle' }), /norm "middle" must be "post" or "pre"/);
  assert.throws(() => bl.encoderLayer({ ...attnArgs, ...ffnArgs, ln1Gamma: [1] }), /ln1Gamma has 1 values/);
  assert.throws(() => bl.paramCount('gpt-5'), /preset "gpt-5" is not one of/);
  assert.throws(() => bl.paramCount({ dModel: 768, nHeads: 5, dFF: 3072 }), /dModel \(768\) must be divisible by nHeads \(5\)/);
  assert.throws(() => bl.paramCount({ dModel: 8, nHeads: 2, dFF: 32, dFf: 3 }), /unknown config key "dFf"/);
  assert.throws(() => bl.paramCount({ dModel: 8, nHeads: 2, dFF: -1 }), /dFF \(-1\) must be a whole number/);
  assert.throws(() => bl.paramCount({ dModel: 8, nHeads: 2, dFF: 32, norm: 'batch' }), /norm "batch"/);
  assert.throws(() => bl.paramCount({ dModel: 8, nHeads: 2, dFF: 32, nExperts: 4, topK: 5 }), /topK \(5\) must be between 1 and nExperts \(4\)/);
  assert.throws(() => bl.paramCount(null), /paramCount expects an options object/);
  assert.throws(() => bl.numpyRandom(NaN), /seed \(NaN\) must be an integer/);
  assert.throws(() => bl.numpyRandom(2 ** 32), /seed/);
  assert.throws(() => bl.numpyRandom(-1), /seed/);
  assert.throws(() => bl.numpyRandom(1).randn(-2), /n \(-2\)/);
  assert.throws(() => bl.ffn(null), /ffn expects an options object/);
});

test('the_engine_keeps_working_after_every_refusal', () => {
  const before = bl.ffn(ffnArgs).out;
  for (const [fn, change] of cases) {
    try { bl[fn]({ ...(fn === 'ffn' ? ffnArgs : attnArgs), ...change }); } catch (e) { /* expected */ }
  }
  assert.deepEqual(bl.ffn(ffnArgs).out, before);
});

test('a_request_beyond_the_memory_limit_throws_instead_of_aborting', () => {
  // Every array is within the size limits (scores and weights 1 GiB each, q, k, v, context,
  // concat and out 512 MiB each), but together 6.5 GiB: more than the 4 GiB wasm heap can hold,
  // so the call is refused from its sizes, before its arrays are read or malloc is asked.
  const L = 16384, D = 8192, w = new Float32Array(16), heap = bl.heapBytes();
  assert.throws(() => bl.attention({ L, dModel: D, nHeads: 1, x: w, Wq: w, Wk: w, Wv: w, Wo: w }),
    /out of memory: attention \(L 16384, dModel 8192, nHeads 1\) needs \d+ bytes of wasm memory, more than the 4294901760 \(4 GiB\)/);
  assert.equal(bl.heapBytes(), heap);
  assert.equal(bl.ffn(ffnArgs).out.length, 12);
});
