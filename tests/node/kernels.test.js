// kernels.test.js - the wasm build's blocked kernels on shapes beyond the fixtures (K past
// one 768-deep slice, ragged tiles, L = 150 with masks) against naive float64 references.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { BlockLens } = require('./helpers.js');


test('ffn_hidden_layer_matches_a_float64_reference_past_one_K_slice_and_on_ragged_tiles', async () => {
  const bl = await BlockLens.load();
  for (const [L, D, F] of [[67, 1000, 45], [130, 769, 33], [3, 5, 7], [9, 3, 100]]) {
    const r = bl.numpyRandom(L + D + F);
    const x = r.randnF32(L * D), W1 = r.randnF32(D * F), b1 = r.randnF32(F), W2 = r.randnF32(F * D);
    const { hidden } = bl.ffn({ L, dModel: D, dFF: F, x, W1, b1, W2, activation: 'identity' });
    let worst = 0;
    for (let i = 0; i < L; i++)
      for (let j = 0; j < F; j++) {
        let ref = b1[j], mag = Math.abs(b1[j]);
        for (let k = 0; k < D; k++) { const t = x[i * D + k] * W1[k * F + j]; ref += t; mag += Math.abs(t); }
        const bound = (D + 1) * 1.2e-7 * mag;
        worst = Math.max(worst, Math.abs(hidden[i * F + j] - ref) / bound);
      }
    assert.ok(worst <= 1, `${L}x${D}x${F}: error ${worst} of the float32 summation bound`);
  }
});

test('attention_over_150_tokens_with_causal_and_padding_masks_matches_a_float64_reference', async () => {
  const bl = await BlockLens.load();
  const L = 150, D = 16, H = 4, dk = D / H;
  const r = bl.numpyRandom(150);
  const w = () => r.randnF32(D * D).map((v) => v * 0.25);
  const x = r.randnF32(L * D), keyMask = Array.from({ length: L }, (_, j) => (j % 7 !== 3 ? 1 : 0));
  for (const causal of [false, true]) {
    const a = bl.attention({ L, dModel: D, nHeads: H, x, Wq: w(), Wk: w(), Wv: w(), Wo: w(), causal, keyMask });
    let worstW = 0, worstC = 0;
    for (let h = 0; h < H; h++)
      for (let i = 0; i < L; i++) {
        const s = new Float64Array(L);
        let m = -Infinity, sum = 0;
        for (let j = 0; j < L; j++) {
          let dot = 0;
          for (let c = 0; c < dk; c++) dot += a.q[i * D + h * dk + c] * a.k[j * D + h * dk + c];
          s[j] = keyMask[j] && (!causal || j <= i) ? dot / Math.sqrt(dk) : -Infinity;
          m = Math.max(m, s[j]);
        }
        for (let j = 0; j < L; j++) sum += s[j] === -Infinity ? 0 : Math.exp(s[j] - m);
        for (let c = 0; c < dk; c++) {
          let ctx = 0;
          for (let j = 0; j < L; j++) {
            const wij = s[j] === -Infinity ? 0 : Math.exp(s[j] - m) / sum;
            if (c === 0) worstW = Math.max(worstW, Math.abs(a.weights[(h * L + i) * L + j] - wij));
            ctx += wij * a.v[j * D + h * dk + c];
          }
          worstC = Math.max(worstC, Math.abs(a.concat[i * D + h * dk + c] - ctx));
        }
      }
    assert.ok(worstW < 2e-6, `causal=${causal}: max |weight diff| ${worstW}`);
    assert.ok(worstC < 2e-5, `causal=${causal}: max |context diff| ${worstC}`);
  }
});

test('the_build_in_use_is_the_one_this_run_expects', async () => {
  const bl = await BlockLens.load();
  const expect = process.env.BLOCKLENS_EXPECT_BUILD || 'simd';   // tools/test sets it per pass
  assert.ok(['fma', 'simd', 'scalar'].includes(expect), `BLOCKLENS_EXPECT_BUILD=${expect}`);
  assert.equal(bl.simd, expect !== 'scalar');
  assert.equal(bl.fma, expect === 'fma');
});

// Runs in the pass with --experimental-wasm-relaxed-simd (tools/test); the other passes have
// no FMA build to compare and report it skipped.
const fmaRun = process.env.BLOCKLENS_EXPECT_BUILD === 'fma';
test('the_FMA_build_fuses_large_products_only_small_ones_are_bit_identical_to_the_SIMD_build',
  { skip: !fmaRun && 'needs relaxed SIMD (the --experimental-wasm-relaxed-simd pass)' }, async () => {
    const fma = await BlockLens.load(), plain = await BlockLens.load({ fma: false });
    assert.equal(fma.fma, true);
    assert.equal(plain.fma, false);
    const run = (bl, L, D, F) => {
      const r = bl.numpyRandom(L * 7 + D);
      return bl.ffn({ L, dModel: D, dFF: F, x: r.randnF32(L * D), W1: r.randnF32(D * F),
        W2: r.randnF32(F * D), activation: 'identity' }).hidden;
    };
    assert.deepEqual(run(fma, 16, 64, 256), run(plain, 16, 64, 256), '262,144 multiply-adds: not fused');
    const a = run(fma, 64, 1024, 64), b = run(plain, 64, 1024, 64);   // 4.2M: fused
    let differ = 0, worst = 0, top = 0;
    for (let i = 0; i < a.length; i++) {
      if (a[i] !== b[i]) differ++;
      worst = Math.max(worst, Math.abs(a[i] - b[i]));
      top = Math.max(top, Math.abs(b[i]));
    }
    assert.ok(differ > a.length / 10, `fused: ${differ} of ${a.length} values differ in the last bits`);
    assert.ok(worst <= 1e-6 * top, `only by rounding: ${worst} vs max |value| ${top}`);
  });

test('results_do_not_depend_on_what_earlier_calls_left_in_the_heap', async () => {
  const bl = await BlockLens.load();
  const r = bl.numpyRandom(77), L = 5, D = 12, H = 3;
  const w = () => r.randnF32(D * D).map((v) => v / Math.sqrt(D));
  const base = { L, dModel: D, nHeads: H, x: r.randnF32(L * D), Wq: w(), Wk: w(), Wv: w(), Wo: w() };
  const variants = [{}, { causal: true }, { scale: false }, { causal: true, scale: false },
    { causal: true, keyMask: [1, 1, 0, 1, 1] }];
  const first = variants.map((v) => bl.attention({ ...base, ...v }));
  // Fill the reused heap block with large random values and NaN-free garbage of other shapes.
  for (const [l, d, f] of [[64, 96, 384], [9, 24, 96], [33, 40, 16]]) {
    const g = bl.numpyRandom(l + d + f);
    bl.ffn({ L: l, dModel: d, dFF: f, x: g.randnF32(l * d).map((v) => v * 1e3), W1: g.randnF32(d * f),
      W2: g.randnF32(f * d), activation: 'gelu' });
    variants.forEach((v, i) => {
      const again = bl.attention({ ...base, ...v });
      for (const key of ['weights', 'context', 'concat', 'out'])
        assert.deepEqual(again[key], first[i][key], `${JSON.stringify(v)} ${key} after a ${l}x${d}x${f} call`);
    });
  }
});

// A checkpoint's F32 (N, K) weight times one row is read in place, not packed (micro_tile's
// transposing mode in src/matmul.c); its bits must be those the row gets inside a product of
// several rows (packed).
// GPT-2's tied LM head is such a weight: logits 'last' multiplies only the last row, rounded as
// the whole product. 5 x 64 x 4100 = 1.31M multiply-adds: the FMA build fuses both; the SIMD
// build checks the unfused kernel.
test('the_last_rows_logits_alone_have_the_bits_of_that_row_in_the_whole_product_on_a_wide_vocabulary', async () => {
  const bl = await BlockLens.load();
  const ck = require('./checkpoint.js');
  const V = 4100, model = ck.randomGpt2(bl, { seed: 21, D: 64, H: 4, F: 64, V, nLayer: 1 });
  const m = bl.loadModel({ weights: ck.safetensors(ck.tensorsOf(model)), config: model.config, vocab: model.vocab });
  try {
    const ids = [0, 5, 900, 4099, 17];
    const full = m.forward(ids).logits, last = m.forward(ids, { logits: 'last' }).logits;
    assert.equal(last.length, V);
    const row = full.subarray(4 * V, 5 * V);
    let differ = 0;
    for (let j = 0; j < V; j++) if (!Object.is(last[j], row[j])) differ++;
    assert.equal(differ, 0, `${differ} of ${V} logits differ`);
  } finally { m.free(); }
});
