// held_weights.test.js - in Chromium (the FMA build): the batched normal fills (src/rng.c) equal
// draws made a few at a time and Node's fills, bit for bit, at BERT widths; and an FFN on weights
// held in the heap (engine.holdWeights) equals the one that copies them in.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { setup, open } = require('./helpers.js');
const { BlockLens } = require('../node/helpers.js');

let env;
test.before(async () => { env = await setup({ server: true }); });
test.after(async () => { await env.close(); });

// FNV-1a of a Float32Array's bytes (the same function in Node and in the page).
function fnv(a) {
  const b = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  let h = 0x811c9dc5;
  for (let i = 0; i < b.length; i++) h = Math.imul(h ^ b[i], 0x01000193) >>> 0;
  return h;
}

test('chromium_fills_equal_single_draws_and_node_and_held_weights_equal_copies', async () => {
  const { page, close } = await open(env.browser, env.url, 'lang=en');
  try {
    const r = await page.evaluate(async (fnvSrc) => {
      const hash = new Function('return ' + fnvSrc)();
      const bl = await BlockLens.load(), n = 768 * 3072;
      const fill = bl.numpyRandom(7).randnF32(n), few = new Float32Array(n), g = bl.numpyRandom(7);
      for (let i = 0; i < n; i += 15) few.set(g.randn(Math.min(15, n - i)), i);
      let differ = 0;
      for (let i = 0; i < n; i++) if (!Object.is(fill[i], few[i])) differ++;
      const w = bl.numpyRandom(3), L = 16, D = 768, F = 3072;
      const a = { L, dModel: D, dFF: F, x: w.randnF32(L * D), W1: w.randnF32(D * F), b1: w.randnF32(F),
        W2: w.randnF32(F * D), b2: w.randnF32(D), activation: 'gelu' };
      const W1 = bl.holdWeights(a.W1), W2 = bl.holdWeights(a.W2);
      const held = bl.ffn({ ...a, W1, W2 }), copied = bl.ffn(a);
      W1.free();
      W2.free();
      let heldDiffer = 0;
      for (const k of ['hidden', 'activated', 'out'])
        for (let i = 0; i < copied[k].length; i++) if (!Object.is(held[k][i], copied[k][i])) heldDiffer++;
      return { fma: bl.fma, differ, hash: hash(fill), heldDiffer, freed: W1.freed };
    }, fnv.toString());
    assert.equal(r.differ, 0, 'fill values that differ from draws a few at a time');
    const node = await BlockLens.load();
    assert.equal(r.hash, fnv(node.numpyRandom(7).randnF32(768 * 3072)), 'the fill in Chromium and in Node');
    assert.equal(r.heldDiffer, 0, 'held-weights FFN values that differ from the copying call');
    assert.equal(r.freed, true);
    assert.equal(typeof r.fma, 'boolean');
  } finally {
    await close();
  }
});
