// gelu.test.js - the wasm build's exact GELU (erf) against a float64 one, 0.5 x erfc(-x/sqrt 2),
// on the grid of tests/c/test_gelu.c (x = -16 + i 1e-4 up to 10, every float in [-6, -5] and in
// [-13.5, -13]), through the FFN's epilogue (dModel 1, W1 all ones: hidden = x), in whichever
// build this runtime loads (SIMD, FMA or scalar: see tools/test).
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { BlockLens } = require('./helpers.js');

/* erfc(z) for z >= 0 in float64: a positive series below 2.5 (no cancellation), the continued
   fraction above; within 1e-13 relative, far below float32's rounding. */
function erfc(z) {
  if (z < 2.5) {
    let term = z, sum = z;
    for (let n = 1; term > 1e-17 * sum; n++) { term *= 2 * z * z / (2 * n + 1); sum += term; }
    return 1 - 2 / Math.sqrt(Math.PI) * Math.exp(-z * z) * sum;
  }
  let f = z;   // z + 1/2 / (z + 1 / (z + 3/2 / (z + ...))), evaluated from 60 terms down
  for (let n = 60; n >= 1; n--) f = z + (n / 2) / f;
  return Math.exp(-z * z) / Math.sqrt(Math.PI) / f;
}
function gelu64(x) {
  const e = erfc(Math.abs(x) / Math.SQRT2);
  return x < 0 ? 0.5 * x * e : x * (1 - 0.5 * e);
}

function grid() {
  const xs = [];
  for (let i = 0; i <= 260000; i++) xs.push(Math.fround(-16 + 1e-4 * i));
  const bits = new Uint32Array(1), f = new Float32Array(bits.buffer);
  for (const [lo, hi] of [[-6, -5], [-13.5, -13]]) {
    f[0] = lo;
    for (; f[0] <= hi; bits[0]--) xs.push(f[0]);   // |x| shrinks by one ulp a step
  }
  return Float32Array.from(xs);
}

test('erfc_reference_matches_known_values', () => {
  for (const [z, want] of [[0, 1], [1, 0.15729920705028513], [2.4, 6.885138966450786e-4],
    [3, 2.209049699858544e-05], [5, 1.5374597944280349e-12], [7, 4.183825607779414e-23]])
    assert.ok(Math.abs(erfc(z) - want) <= 1e-13 * want, `erfc(${z}) = ${erfc(z)}, want ${want}`);
});

test('gelu_is_within_1e6_absolute_and_1e5_relative_of_float64_and_zero_below_one_threshold', async () => {
  const bl = await BlockLens.load(), build = bl.fma ? 'fma' : bl.simd ? 'simd' : 'scalar';
  const x = grid(), y = new Float32Array(x.length), F = 8, ROWS = 65536;
  for (let i0 = 0; i0 < x.length; i0 += ROWS) {
    const L = Math.min(ROWS, x.length - i0);
    const { activated } = bl.ffn({ L, dModel: 1, dFF: F, activation: 'gelu', x: x.subarray(i0, i0 + L),
      W1: new Float32Array(F).fill(1), W2: new Float32Array(F) });
    for (let i = 0; i < L; i++) y[i0 + i] = activated[i * F + i % F];   // each column alike
  }
  let worstAbs = 0, worstRel = 0, positive = 0, rising = 0, lastZero = -Infinity, firstNonzero = Infinity;
  for (let i = 0; i < x.length; i++) {
    const ref = gelu64(x[i]), e = Math.abs(y[i] - ref);
    worstAbs = Math.max(worstAbs, e);
    if (x[i] >= -3) worstRel = Math.max(worstRel, e / Math.abs(ref || 1));
    if (x[i] < 0 && !(y[i] <= 0)) positive++;
    if (i > 0 && x[i] > x[i - 1] && x[i] < -1 && y[i] > y[i - 1]) rising++;   // gelu falls there
    if (x[i] < 0 && y[i] === 0) lastZero = Math.max(lastZero, x[i]);
    else if (x[i] < 0 && x[i] < -13) firstNonzero = Math.min(firstNonzero, x[i]);
  }
  console.log(`${build}: max abs error ${worstAbs.toExponential(3)}, max rel error ` +
    `${worstRel.toExponential(3)} for x >= -3, exact zeros up to ${lastZero}, nonzero from ${firstNonzero}`);
  assert.ok(worstAbs <= 1e-6, `${build}: abs error ${worstAbs}`);
  assert.ok(worstRel <= 1e-5, `${build}: rel error ${worstRel}`);
  assert.equal(positive, 0, `${build}: positive outputs for negative inputs`);
  assert.equal(rising, 0, `${build}: rises below x = -1`);
  assert.ok(lastZero < firstNonzero && firstNonzero > -13.2 && firstNonzero < -13, `${build}: one threshold`);
});
