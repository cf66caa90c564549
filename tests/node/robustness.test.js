// robustness.test.js - random malformed calls either succeed or throw a BlockLens Error;
// none crashes or aborts the wasm runtime, and results afterwards are unchanged.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { BlockLens } = require('./helpers.js');

function lcg(seed) {   // deterministic, so a failure can be replayed
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296);
}

test('2,000 random malformed calls never break the engine', async () => {
  const bl = await BlockLens.load();
  const rnd = lcg(12345);
  const pick = (list) => list[Math.floor(rnd() * list.length)];
  const sizes = [0, -1, 1, 2, 3, 4, 6, 8, 1.5, NaN, Infinity, '4', null, undefined, 65537, {}];
  const arrayOf = () => {
    const n = pick([0, 1, 2, 3, 4, 6, 8, 9, 12, 16, 24, 32, 48, 64]);
    const kind = pick(['f32', 'f64', 'plain', 'bad', 'str', 'nan']);
    if (kind === 'str') return 'x'.repeat(n);
    const a = kind === 'f32' ? new Float32Array(n) : kind === 'f64' ? new Float64Array(n) : new Array(n).fill(0);
    for (let i = 0; i < n; i++) a[i] = kind === 'bad' ? pick([1, '1', null, {}]) : kind === 'nan' && i === 0 ? NaN : rnd() - 0.5;
    return a;
  };
  const reference = { L: 2, dModel: 4, dFF: 8, x: new Float32Array(8).fill(0.5), W1: new Float32Array(32).fill(0.1),
    W2: new Float32Array(32).fill(-0.1) };
  const before = bl.ffn(reference).out;
  const fns = ['ffn', 'attention', 'layerNorm', 'rmsNorm', 'batchNorm', 'encoderLayer', 'paramCount'];
  const keys = ['L', 'dModel', 'dFF', 'nHeads', 'd', 'x', 'W1', 'b1', 'W2', 'b2', 'W3', 'Wq', 'Wk', 'Wv', 'Wo',
    'gamma', 'beta', 'eps', 'activation', 'causal', 'scale', 'keyMask', 'norm', 'nLayers', 'vocab'];
  let ok = 0, refused = 0;
  for (let i = 0; i < 2000; i++) {
    const opts = {};
    for (const k of keys) {
      if (rnd() < 0.3) continue;
      if (['L', 'dModel', 'dFF', 'nHeads', 'd', 'nLayers', 'vocab'].includes(k)) opts[k] = pick(sizes);
      else if (k === 'eps') opts[k] = pick([1e-5, 0, -1, NaN, '1e-5']);
      else if (k === 'activation') opts[k] = pick(['relu', 'swiglu', 'tanh', 3, undefined]);
      else if (k === 'causal' || k === 'scale') opts[k] = pick([true, false, 1, 'yes']);
      else if (k === 'norm') opts[k] = pick(['pre', 'post', 'rms', 'layer', 7]);
      else opts[k] = arrayOf();
    }
    const fn = pick(fns);
    try {
      bl[fn](rnd() < 0.05 ? pick([null, 'bert-base', 42, []]) : opts);
      ok++;
    } catch (e) {
      assert.ok(e instanceof Error && e.message.startsWith('BlockLens: '), `${fn}: ${e && e.stack}`);
      refused++;
    }
  }
  assert.ok(refused > 1500, `refused ${refused} (accepted ${ok})`);
  assert.deepEqual(bl.ffn(reference).out, before);
});
