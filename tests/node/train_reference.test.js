// train_reference.test.js - the training engine (src/train.c, src/adamw.c) against PyTorch:
// tests/fixtures/train/gpt2_tiny.json (tools/gen_train_ref.py): a tiny GPT-2's mean loss and
// every gradient by torch autograd, and 20 steps of clip_grad_norm_ + torch.optim.AdamW (the loss
// per step, the final weights), float64 references; each tolerance is stored with the fixture:
// 16 x the float32 computation's own difference from float64 (rtol 1e-4 beside it).
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { BlockLens, assertClose, root } = require('./helpers.js');

const doc = JSON.parse(fs.readFileSync(path.join(root, 'tests', 'fixtures', 'train', 'gpt2_tiny.json'), 'utf8'));
const f32 = (b64) => {
  const b = Buffer.from(b64, 'base64');
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.length));
};

/* The fixture's parameters: RandomState(seed).randn(n) as float32, times scale, gains + 1 (the
   layout: wte, wpe, per layer ln_1 (2 d), wq wk wv (3 d^2), bq bk bv (3 d), wo (d^2), bo, ln_2,
   w1 (d f), b1 (f), w2 (f d), b2; ln_f). Returns params and where each layer's bk lies. */
function initial(bl, c) {
  const d = c.desc, D = d.d_model, Fd = d.d_ff, per = 4 * D * D + 2 * D * Fd + 9 * D + Fd;
  const head = (d.vocab + d.n_positions) * D, n = head + d.n_layers * per + 2 * D;
  const p = bl.numpyRandom(c.init.seed).randnF32(n), scale = Math.fround(c.init.scale), bk = [];
  for (let i = 0; i < n; i++) p[i] = p[i] * scale;
  const gains = [head + d.n_layers * per];   // ln_f
  for (let l = 0; l < d.n_layers; l++) {
    const at = head + l * per;
    gains.push(at, at + 2 * D + 3 * D * D + 3 * D + D * D + D);   // ln_1, ln_2
    bk.push(at + 2 * D + 3 * D * D + D);
  }
  for (const g of gains) for (let i = 0; i < D; i++) p[g + i] = p[g + i] + 1;
  return { params: p, bk };
}

let bl;
test.before(async () => { bl = await BlockLens.load(); });

for (const c of doc.cases) {
  test(`${c.name}: the loss and every gradient match torch autograd`, () => {
    const { params } = initial(bl, c);
    const got = bl._trainGrad(c.desc, params, Int32Array.from(c.tokens));
    assertClose([got.loss], [c.loss], c.loss_atol, c.rtol, 'loss');
    const diff = assertClose(got.grads, f32(c.grads_f32_b64), c.grads_atol, c.rtol, 'grads');
    console.log(`# ${c.name}: loss ${got.loss} (torch ${c.loss}), grads max diff ${diff.toExponential(2)} ` +
      `(atol ${c.grads_atol.toExponential(2)})`);
  });

  test(`${c.name}: 20 AdamW steps with clipping give torch's loss curve and weights`, () => {
    const { params, bk } = initial(bl, c), a = c.adamw;
    const got = bl._trainSteps(c.desc, params, doc.batches.map((b) => Int32Array.from(b)), a);
    const dl = assertClose(got.losses, a.losses, a.losses_atol, c.rtol, 'losses');
    assert.ok(a.losses[a.losses.length - 1] < a.losses[0], 'the reference loss falls');
    let line = `# ${c.name}: 20 losses max diff ${dl.toExponential(2)} (atol ${a.losses_atol.toExponential(2)})`;
    if (a.final_f32_b64) {
      const want = f32(a.final_f32_b64), D = c.desc.d_model, g = got.params.slice(), w = want.slice();
      for (const at of bk) for (let i = 0; i < D; i++) g[at + i] = w[at + i] = 0;   // final_skip says why
      const dp = assertClose(g, w, a.final_atol, c.rtol, 'final weights');
      line += `, final weights max diff ${dp.toExponential(2)} (atol ${a.final_atol.toExponential(2)})`;
    }
    console.log(line);
  });
}
