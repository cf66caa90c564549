// attention_small.test.js - heads of at most 4096 L*L*d_k are computed in place (attend_small in
// src/attention.c), larger ones by blocked GEMMs (attend_block). The two must agree bit for bit.
// The blocked path is reached with the same tokens padded by masked keys: padding keys get weight
// exactly 0 and add exact zeros, so the real rows of the padded problem are the small problem's.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { BlockLens } = require('./helpers.js');

const PAD = 70;   /* 70 * 70 * d_k > 4096 for every d_k: the blocked path */

function bits(a) { return Array.from(new Uint32Array(Float32Array.from(a).buffer)); }

test('a_small_head_computed_in_place_equals_the_blocked_path_bit_for_bit', async () => {
  const bl = await BlockLens.load();
  const shapes = [[7, 8, 2], [5, 12, 3], [9, 6, 1], [3, 4, 4]];
  for (const [L, D, H] of shapes) for (const causal of [false, true]) for (const scale of [true, false]) {
    assert.ok(L * L * (D / H) <= 4096 && PAD * PAD * (D / H) > 4096);
    const r = bl.numpyRandom(L * 100 + D), w = () => r.randnF32(D * D);
    const base = { dModel: D, nHeads: H, Wq: w(), Wk: w(), Wv: w(), Wo: w(), bq: r.randnF32(D),
      bk: r.randnF32(D), bv: r.randnF32(D), bo: r.randnF32(D), causal, scale };
    const x = r.randnF32(L * D), xPad = new Float32Array(PAD * D);
    xPad.set(x);
    for (let i = L * D; i < xPad.length; i++) xPad[i] = Math.sin(i);   /* padding tokens: any values */
    const small = bl.attention({ ...base, L, x });
    const mask = Array.from({ length: PAD }, (_, j) => (j < L ? 1 : 0));
    const big = bl.attention({ ...base, L: PAD, x: xPad, keyMask: mask });
    const what = `L ${L}, d_model ${D}, heads ${H}, causal ${causal}, scale ${scale}`;
    for (const k of ['q', 'k', 'v', 'concat', 'out'])
      assert.deepEqual(bits(small[k]), bits(big[k].subarray(0, L * D)), `${k}: ${what}`);
    const dk = D / H;
    for (let h = 0; h < H; h++)
      assert.deepEqual(bits(small.context.subarray(h * L * dk, (h + 1) * L * dk)),
        bits(big.context.subarray(h * PAD * dk, (h * PAD + L) * dk)), `context head ${h}: ${what}`);
    for (const k of ['scores', 'weights'])
      for (let h = 0; h < H; h++)
        for (let i = 0; i < L; i++)
          assert.deepEqual(bits(small[k].subarray((h * L + i) * L, (h * L + i + 1) * L)),
            bits(big[k].subarray((h * PAD + i) * PAD, (h * PAD + i) * PAD + L)), `${k} head ${h} row ${i}: ${what}`);
  }
});

test('a_small_head_with_masked_keys_and_an_all_masked_row_gives_zeros_not_NaN', async () => {
  const bl = await BlockLens.load();
  const L = 6, D = 8, r = bl.numpyRandom(3), w = () => r.randnF32(D * D);
  const res = bl.attention({ L, dModel: D, nHeads: 2, x: r.randnF32(L * D), Wq: w(), Wk: w(), Wv: w(), Wo: w(),
    causal: true, keyMask: [0, 1, 1, 0, 1, 1] });
  for (let h = 0; h < 2; h++) {
    const row0 = res.weights.subarray(h * L * L, h * L * L + L);   /* query 0 sees only key 0: masked */
    assert.deepEqual(Array.from(row0), [0, 0, 0, 0, 0, 0]);
    for (let i = 1; i < L; i++) {
      const row = res.weights.subarray((h * L + i) * L, (h * L + i + 1) * L);
      assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-6, `head ${h} row ${i} sums to 1`);
      assert.equal(row[0], 0);
      assert.equal(row[3], 0);
      for (let j = i + 1; j < L; j++) assert.equal(row[j], 0);
    }
  }
  assert.ok(res.out.every(Number.isFinite));
});
