// fma_page.test.js - where the FMA and SIMD builds differ on the page, as the README says: the FMA
// build fuses only in products of 2^20 multiply-adds or more, so a page result differs exactly
// where such a product feeds it (issue 24, statement 6: "every figure at the page's sizes stays
// below the threshold" was false). Both builds run the page's model in one child process
// (Node 20 needs --experimental-wasm-relaxed-simd for FMA; Node 22 has it on).
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { root } = require('./helpers.js');

const CHILD = `
const path = require('path'), fs = require('fs'), WEB = ${JSON.stringify(path.join(root, 'web'))};
(async () => {
  const BL = require(path.join(WEB, 'dist', 'blocklens.js'));
  const fmaE = await BL.load(), simdE = await BL.load({ fma: false });
  if (!fmaE.fma) { console.log(JSON.stringify({ skip: 'no relaxed SIMD here' })); return; }
  const model = await import(path.join(WEB, 'src/model/model.js')), P = await import(path.join(WEB, 'src/model/params.js'));
  const { createAssets } = await import(path.join(WEB, 'src/model/assets.js'));
  const dir = path.join(WEB, 'models', 'poems'), read = (f) => fs.readFileSync(path.join(dir, f));
  const mk = (e) => { const a = createAssets(); a.add('poems', { weights: new Uint8Array(read('model.safetensors')),
    config: JSON.parse(read('config.json')), vocab: JSON.parse(read('vocab.json')) }); return model.create(e, a); };
  const mf = mk(fmaE), ms = mk(simdE);
  // Every differing number or array of two results: { path: largest difference / largest |value| }.
  function diffs(a, b, at, out) {
    if (ArrayBuffer.isView(a)) {
      let scale = 0, max = -1;
      for (let i = 0; i < b.length; i++) scale = Math.max(scale, Math.abs(b[i]));
      for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) max = Math.max(max, Math.abs(a[i] - b[i]) / scale);
      if (max >= 0) out[at] = max;
    } else if (a && typeof a === 'object') for (const k of Object.keys(a)) diffs(a[k], b && b[k], at + '.' + k, out);
    else if (typeof a === 'number' && !Object.is(a, b)) out[at] = Math.abs(a - b) / Math.max(Math.abs(b), 1e-30);
  }
  const bert = { d: 768, dff: 3072, heads: 12, act: 'gelu', init: 'scaled' };   // the "BERT-base widths" button
  const states = { classic: {}, bert: bert, poems4: { weights: 'poems', tokens: '床前明' },
    poems5: { weights: 'poems', tokens: '床前明月' } };
  const got = {};
  for (const [name, patch] of Object.entries(states)) {
    const s = Object.assign(P.defaults(), patch), a = mf.compute(s), b = ms.compute(s), out = {};
    diffs(a, b, 'res', out);
    got[name] = { diffs: out, dks: a.saturation.points.map((p) => p.dk), counts: [a.ffn.negBefore, a.ffn.negAfter,
      b.ffn.negBefore, b.ffn.negAfter] };
  }
  console.log(JSON.stringify(got));
})().catch((e) => { console.error(e); process.exit(1); });
`;

let measured;
function measure() {
  if (measured) return measured;
  const env = Object.assign({}, process.env);
  delete env.NODE_OPTIONS;
  const flag = Number(process.versions.node.split('.')[0]) < 21 ? ['--experimental-wasm-relaxed-simd'] : [];
  const r = spawnSync(process.execPath, flag.concat(['-e', CHILD]), { env, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr.slice(-1500));
  measured = JSON.parse(r.stdout.trim().split('\n').pop());
  return measured;
}
const paths = (m) => Object.keys(m.diffs);

test('classic_example_differs_only_in_the_saturation_points_of_d_k_256_and_up', (t) => {
  const m = measure();
  if (m.skip) return t.skip(m.skip);
  const c = m.classic;
  // Its q @ k^T products are 64 x d_k x 64: 2^20 multiply-adds from d_k = 256 on.
  const crossing = c.dks.map((dk, i) => [dk, i]).filter(([dk]) => 64 * dk * 64 >= 2 ** 20).map(([, i]) => i);
  assert.deepEqual(crossing.map((i) => c.dks[i]), [256, 512, 1024]);
  const want = crossing.flatMap((i) => ['varRaw', 'varScaled', 'peakRaw', 'peakScaled'].map((k) => `res.saturation.points.${i}.${k}`));
  assert.deepEqual(paths(c).sort(), want.sort(), 'nothing else differs');
  for (const [p, d] of Object.entries(c.diffs)) assert.ok(d < 1e-6, `${p}: relative difference ${d}`);
});

test('trained_model_next_character_logits_differ_from_5_tokens_on', (t) => {
  const m = measure();
  if (m.skip) return t.skip(m.skip);
  // <s> + 3 characters: 4 x 64 x 3436 = 879,616 multiply-adds; <s> + 4: 1,099,520 >= 2^20.
  const next = (s) => paths(s).filter((p) => !p.startsWith('res.saturation'));
  assert.deepEqual(next(m.poems4), []);
  // The same unembedding product feeds the model-wide stages: the whole-model run's logits and
  // lens probabilities, and the ablation's before / after probabilities (its reruns share it).
  const fed = next(m.poems5);
  assert.ok(fed.includes('res.weights.next.logits') && fed.includes('res.wide.logits'), fed.join(' '));
  for (const p of fed)
    assert.match(p, /^res\.(weights\.next\.logits|wide\.logits|wide\.lens\.\d+\.probs|ablation\.tokens\.\d+\.(before|after))$/, p);
  for (const p of fed) assert.ok(m.poems5.diffs[p] < 1e-6, `${p} differs by ${m.poems5.diffs[p]} of its scale`);
});

test('bert_widths_differ_in_every_ffn_and_attention_array_by_rounding_not_in_the_counts', (t) => {
  const m = measure();
  if (m.skip) return t.skip(m.skip);
  const b = m.bert, p = paths(b);
  for (const want of ['res.ffn.hidden', 'res.ffn.out', 'res.attn.q', 'res.attn.weights', 'res.block.ffn'])
    assert.ok(p.includes(want), `${want} differs (7 x 768 x 3072 and 7 x 768 x 768 pass 2^20)`);
  // (each intermediate against its own largest value; not the per-row means of normalised rows, ~0)
  for (const k of p.filter((q) => /^res\.(ffn|attn)\.|^res\.block\.(attn|resid1|norm1|ffn|resid2|norm2|out)$/.test(q)))
    assert.ok(b.diffs[k] < 1e-5, `${k}: ${b.diffs[k]} of its largest value`);
  // The activation figure's counts of negatives before and after GELU agree here.
  assert.deepEqual(b.counts.slice(0, 2), b.counts.slice(2));
});
