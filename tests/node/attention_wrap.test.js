// attention_wrap.test.js - attention at L 8192, d_k 64, where L * L * d_k is 2^32 (issue 13,
// item 1): a 32-bit size product wrapped to 0 there, the small-head path was taken and its
// stack array overrun by megabytes (plausible numbers, then "memory access out of bounds" on
// the next call needing a bigger heap block). The call must give correct rows (checked against
// plain JS at a few rows) or a BlockLens Error, and the engine must keep working.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { BlockLens } = require('./helpers.js');
const ref = require('./reference.js');

function close(got, want, tol, label) {
  let max = 0;
  for (let i = 0; i < want.length; i++) max = Math.max(max, Math.abs(got[i] - want[i]) / (1 + Math.abs(want[i])));
  assert.ok(max <= tol, `${label}: max relative difference ${max} (tolerance ${tol})`);
}

test('attention_at_L_8192_d_k_64_L_L_d_k_2_32_is_right_at_sampled_rows_and_the_engine_keeps_working', async () => {
  const bl = await BlockLens.load(), r = bl.numpyRandom(8192);
  const L = 8192, D = 64, scale = 1 / 8;
  const x = r.randnF32(L * D), w = () => r.randnF32(D * D).map((v) => v * 0.125);
  const a = { L, dModel: D, nHeads: 1, x, Wq: w(), Wk: w(), Wv: w(), Wo: w() };
  (() => {   // in a scope of its own: the 530 MB result is garbage once checked
    let got;
    try {
      got = bl.attention(a);
    } catch (e) {
      assert.ok(e instanceof Error && e.message.startsWith('BlockLens: '), `a BlockLens Error, not ${e}`);
      return;
    }
    const k = ref.linear(x, a.Wk, null, L, D, D), v = ref.linear(x, a.Wv, null, L, D, D);
    close(got.k, k, 1e-5, 'k');
    close(got.v, v, 1e-5, 'v');
    for (const i of [0, 1, 4095, 8190, 8191]) {
      const q = ref.linear(x.subarray(i * D, (i + 1) * D), a.Wq, null, 1, D, D);
      close(got.q.subarray(i * D, (i + 1) * D), q, 1e-5, `q row ${i}`);
      const s = new Float64Array(L), wgt = new Float64Array(L), ctx = new Float64Array(D);
      let max = -Infinity, sum = 0;
      for (let j = 0; j < L; j++) {
        for (let c = 0; c < D; c++) s[j] += q[c] * k[j * D + c];
        max = Math.max(max, s[j] * scale);
      }
      for (let j = 0; j < L; j++) sum += (wgt[j] = Math.exp(s[j] * scale - max));
      for (let j = 0; j < L; j++) {
        wgt[j] /= sum;
        for (let c = 0; c < D; c++) ctx[c] += wgt[j] * v[j * D + c];
      }
      close(got.scores.subarray(i * L, (i + 1) * L), s, 1e-4, `scores row ${i}`);
      close(got.weights.subarray(i * L, (i + 1) * L), wgt, 1e-7, `weights row ${i}`);
      close(got.context.subarray(i * D, (i + 1) * D), ctx, 1e-4, `context row ${i}`);
      close(got.out.subarray(i * D, (i + 1) * D), ref.linear(ctx, a.Wo, null, 1, D, D), 1e-4, `out row ${i}`);
    }
  })();
  // a call that needs a larger heap block than the attention's ~530 MB (a malloc and a free over
  // whatever the overrun wrote), checked at its first and last rows; then a small known case
  const LF = 16384, F = 4400, f = { L: LF, dModel: 1, dFF: F, x: r.randnF32(LF), W1: r.randnF32(F), W2: r.randnF32(F) };
  const res = bl.ffn(f);
  for (const i of [0, LF - 1]) {
    const one = { ...f, L: 1, x: f.x.subarray(i, i + 1) }, want = ref.ffn(one);
    close(res.hidden.subarray(i * F, (i + 1) * F), want.hidden, 1e-5, `large ffn hidden row ${i}`);
    close(res.out.subarray(i, i + 1), want.out, 1e-4, `large ffn out row ${i}`);
  }
  const small = { L: 3, dModel: 4, dFF: 8, activation: 'gelu', x: r.randnF32(12), W1: r.randnF32(32), W2: r.randnF32(32) };
  assert.equal(ref.compare(bl.ffn(small), ref.ffn(small), 1e-4, 1e-4), null);
});
