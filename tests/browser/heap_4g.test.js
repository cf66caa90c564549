/* heap_4g.test.js - the wasm heap past 2 GiB in Chromium (tests/node/heap_4g.test.js in Node):
   with 3.5 GiB of ballast taken, calls and the poem model sit past it and give the bits they give
   low in the heap; and on a fresh heap one block grows it to its 4 GiB maximum (65,535 pages). */
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const { setup } = require('./helpers.js');

const ROOT = path.resolve(__dirname, '..', '..');
const POEMS = path.join(ROOT, 'web', 'models', 'poems');

let env;
test.before(async () => { env = await setup(); });
test.after(async () => { await env.close(); });

test('calls_and_a_model_past_2_GiB_match_low_ones_and_the_heap_reaches_4_GiB_in_chromium', async () => {
  const context = await env.browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  try {
    await page.goto('about:blank');
    await page.addScriptTag({ path: path.join(ROOT, 'web', 'dist', 'blocklens.js') });
    const files = { weights: fs.readFileSync(path.join(POEMS, 'model.safetensors')).toString('base64'),
      config: fs.readFileSync(path.join(POEMS, 'config.json'), 'utf8'), vocab: fs.readFileSync(path.join(POEMS, 'vocab.json'), 'utf8') };
    const r = await page.evaluate(async (f) => {
      const bl = await BlockLens.load(), GiB = 2 ** 30, BALLAST = 3.5 * GiB;
      const model = { weights: Uint8Array.from(atob(f.weights), (c) => c.charCodeAt(0)), config: JSON.parse(f.config),
        vocab: JSON.parse(f.vocab) };
      function all(m) {
        const rnd = bl.numpyRandom(20), g = (n) => rnd.randnF32(n), L = 7, D = 16, F = 32, out = [];
        const ffn = { L, dModel: D, dFF: F, activation: 'gelu', x: g(L * D), W1: g(D * F), b1: g(F), W2: g(F * D) };
        const att = { L, dModel: D, nHeads: 4, x: g(L * D), Wq: g(D * D), Wk: g(D * D), Wv: g(D * D), Wo: g(D * D), causal: true };
        const r1 = bl.ffn(ffn), r2 = bl.attention(att), r3 = bl.encoderLayer({ ...att, ...ffn, norm: 'pre' });
        const r4 = m.forward(m.encode('床前明月光'));
        out.push(r1.hidden, r1.out, r2.scores, r2.out, r3.out, r4.logits, r4.layers[1].ffn.hidden, m.layerWeights(1).W1);
        return out.map((a) => Array.from(new Uint32Array(a.buffer, a.byteOffset, a.length)).join(','));
      }
      /* first, on a fresh heap: the largest block (HEAP_MAX less the code, data and stack) */
      let lo = 0, hi = 4294901760;
      while (hi - lo > 65536) {
        const mid = Math.floor((lo + hi) / 2), p = bl._take(mid);
        if (p) { bl._give(p); lo = mid; } else hi = mid;
      }
      const big = bl._take(lo), maxHeap = bl.heapBytes();
      bl._give(big);
      const low = bl.loadModel(model), want = all(low), lowAt = [bl._arena, low._heapAt()];
      const ballast = bl._take(BALLAST), high = bl.loadModel(model);
      bl.ffn({ L: 512, dModel: 64, dFF: 256, x: new Float32Array(512 * 64), W1: new Float32Array(64 * 256),
        W2: new Float32Array(256 * 64) });   /* a larger heap block, past the ballast */
      const highAt = [bl._arena, high._heapAt()];
      const same = [all(high), all(low)].map((got) => got.every((s, i) => s === want[i]));
      const heapHigh = bl.heapBytes();
      high.free();
      bl._give(ballast);
      return { ballast, lowAt, highAt, same, heapHigh, largest: lo, maxHeap, after: all(low)[0] === want[0] };
    }, files);
    console.log(`# chromium: ballast at ${r.ballast}, model and calls at ${r.highAt}; heap ${r.heapHigh}; ` +
      `largest block ${r.largest}, heap ${r.maxHeap} bytes`);
    assert.ok(r.lowAt.every((a) => a < 2 ** 31), `first computed low in the heap (${r.lowAt})`);
    assert.ok(r.highAt.every((a) => a >= r.ballast + 3.5 * 2 ** 30), `then past the ballast (${r.highAt})`);
    assert.deepStrictEqual(r.same, [true, true], 'the same bits past 3.5 GiB, with the model high and low');
    assert.strictEqual(r.maxHeap, 4294901760, 'the heap grows to its maximum, 65,535 pages');
    assert.ok(r.largest > 4294901760 - 16 * 2 ** 20, `one block of nearly 4 GiB (${r.largest} bytes)`);
    assert.ok(r.after, 'the engine computes the same afterwards');
    assert.deepStrictEqual(errors, []);
  } finally {
    await context.close();
  }
});
