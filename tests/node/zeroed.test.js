// zeroed.test.js - the activation figure's × marks (web/src/model/stages/ffn.js zeroedMarks): only
// what the activation sets to 0 by its definition is marked; exact zeros that float32 rounding
// makes (GELU far below 0) are counted apart, on the engine's own outputs.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { BlockLens } = require('./helpers.js');

const { zeroedMarks } = require(path.join(__dirname, '..', '..', 'web', 'src', 'model', 'stages', 'ffn.js'));

// x (n) through a 1-wide FFN (W1 = 1, b1 = 0): hidden is x, activated is act(x) (gated: act(x) * up).
async function run(act, xs, ups) {
  const bl = await BlockLens.load(), zero = Float32Array.of(0);
  const a = { L: xs.length, dModel: 2, dFF: 1, activation: act, W1: Float32Array.of(1, 0), b1: zero, W2: Float32Array.of(1, 1), b2: Float32Array.of(0, 0),
    x: Float32Array.from(xs.flatMap((v, i) => [v, ups ? ups[i] : 0])) };
  if (ups) Object.assign(a, { W3: Float32Array.of(0, 1), b3: zero });
  return bl.ffn(a);
}

const XS = [-40, -8, -6, -1, -1e-30, 0, 1e-30, 0.5, 3];

test('relu_marks_every_x_at_or_below_0_and_nothing_underflows', async () => {
  const f = await run('relu', XS), z = zeroedMarks(f, 'relu');
  assert.deepEqual(Array.from(z.marks), XS.map((x) => (x <= 0 ? 1 : 0)));
  assert.equal(z.count, XS.filter((x) => x <= 0).length);
  assert.equal(z.underflow, 0);
});

test('gelu_silu_and_identity_mark_only_x_equal_0_and_count_rounding_zeros_apart', async () => {
  for (const act of ['gelu', 'gelu_tanh', 'silu', 'identity']) {
    const f = await run(act, XS), z = zeroedMarks(f, act);
    assert.deepEqual(Array.from(z.marks), XS.map((x) => (x === 0 ? 1 : 0)), act);
    const rounded = XS.filter((x, i) => x !== 0 && f.activated[i] === 0).length;
    assert.equal(z.underflow, rounded, act);
    if (act === 'gelu') {   // the engine's GELU is 0 only where |gelu| < 2^-126 (x < -13.146)
      assert.equal(rounded, 1, `float32 GELU gives 0 at x = -40 and nowhere else here (${rounded})`);
      assert.ok(f.activated[XS.indexOf(-8)] < 0, 'GELU(-8) = -5.0e-15 stays negative');
    }
  }
});

test('gated_marks_a_zero_gate_or_a_zero_up_and_counts_other_zeros_as_underflow', async () => {
  const gates = [0, 2, -1, -40, 1.5], ups = [3, 0, 2, 5, 1e-30];
  for (const act of ['swiglu', 'geglu']) {
    const f = await run(act, gates, ups), z = zeroedMarks(f, act);
    assert.deepEqual(Array.from(z.marks), gates.map((g, i) => (g === 0 || ups[i] === 0 ? 1 : 0)), act);
    const rounded = gates.filter((g, i) => !(g === 0 || ups[i] === 0) && f.activated[i] === 0).length;
    assert.equal(z.underflow, rounded, act);
    if (act === 'geglu') assert.ok(rounded >= 1, 'GELU(-40) rounds to 0, and so does its product with up');
  }
});
