// bench_forward_model.test.js - the whole-model benchmark's checkpoint writer
// (tools/bench/forward-model.js), at a small size: the folder it streams out loads in the engine
// with every tensor where GPT-2's names put it, and the logits are finite and spread like a
// real model's (the benchmark's agreement check with onnxruntime-web means little on flat or
// overflowing logits).
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { BlockLens, root } = require('./helpers.js');
const fm = require(path.join(root, 'tools', 'bench', 'forward-model.js'));

const SMALL = { ...fm.GPT2_SMALL, n_embd: 32, n_layer: 3, n_head: 4, n_positions: 16, vocab_size: 300,
  bos_token_id: 299, eos_token_id: 299 };

test('bench_checkpoint_loads_and_gives_finite_logits_of_a_few_units', async () => {
  const bl = await BlockLens.load(), dir = fs.mkdtempSync(path.join(os.tmpdir(), 'blocklens-bench-ck-'));
  try {
    const bytes = fm.writeCheckpoint(dir, SMALL, 3);
    assert.equal(fs.statSync(path.join(dir, 'model.safetensors')).size, bytes);
    const m = await bl.loadModel(dir);
    assert.equal(m.nLayers, 3);
    assert.equal(m.vocab[299], '<|endoftext|>');
    const ids = fm.benchIds(SMALL, 16, 3);
    assert.equal(ids[0], 299);
    assert.ok(ids.every((i) => Number.isInteger(i) && i >= 0 && i < 300));
    const logits = m.forward(Int32Array.from(ids), { layers: [2] }).logits;
    let sum = 0, sq = 0;
    for (const v of logits) { assert.ok(Number.isFinite(v)); sum += v; sq += v * v; }
    const sd = Math.sqrt(sq / logits.length - (sum / logits.length) ** 2);
    assert.ok(sd > 0.05 && sd < 10, `logits' standard deviation ${sd}`);
    /* the layer-norm gains were written as 1 +- 0.02 (the offset reached the right tensor) */
    const w = m.layerWeights(0);
    assert.ok(w.ln1Gamma.every((g) => Math.abs(g - 1) <= 0.02 * Math.sqrt(3) + 1e-6));
    assert.ok(w.ln1Beta.every((b) => Math.abs(b) <= 0.02 * Math.sqrt(3) + 1e-6));
    m.free();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
