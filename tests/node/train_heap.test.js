// train_heap.test.js - bl.trainer past 2 GiB of wasm heap (where wasm hands JS negative
// addresses; engine-heap.js's rules): with 3 GiB of ballast taken first (bl._take, never
// written, so the process stays small), a trainer's block sits above it, and its steps, its
// evaluation, save() and model() give, bit for bit, what the same trainer gives low in the heap.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { BlockLens } = require('./helpers.js');

const GiB = 2 ** 30;
const TEXT = Array(10).fill('床前明月光\n疑是地上霜\n举头望明月\n低头思故乡').join('\n');
const CONFIG = { n_embd: 16, n_layer: 2, n_head: 2, n_positions: 16, activation_function: 'gelu' };

/* The trainer and its model stay alive (the caller frees them): a freed block low in the heap
   would take the next trainer's. */
function run(bl, past, keep) {
  const t = bl.trainer({ text: TEXT, config: CONFIG, seed: 9, batch: 4 });
  keep.push(t);
  assert.ok(past ? t._heapAt() > past : t._heapAt() < 2 * GiB, `the trainer's block at ${t._heapAt()}`);
  const losses = [t.step(), t.step(), t.step()], held = t.evaluate();
  const st = Buffer.from(t.save().files['model.safetensors']);
  const m = t.model();
  keep.push(m);
  const logits = m.forward(m.encode('床前明月光'), { layers: [] }).logits.slice();
  return { losses, held, st, logits };
}

test('a_trainer_past_2_GiB_gives_the_same_bits_as_one_low_in_the_heap', async () => {
  const bl = await BlockLens.load(), keep = [];
  const low = run(bl, 0, keep);
  const ballast = bl._take(3 * GiB);
  assert.ok(ballast > 0, 'the ballast was taken');
  try {
    assert.ok(bl.heapBytes() > 3 * GiB);
    const high = run(bl, ballast + 3 * GiB - 1, keep);
    assert.deepEqual(high.losses, low.losses);
    assert.equal(high.held, low.held);
    assert.ok(high.st.equals(low.st), 'save() bytes');
    assert.deepEqual(high.logits, low.logits);
  } finally {
    keep.forEach((x) => x.free());
    bl._give(ballast);
  }
  assert.ok(process.memoryUsage().rss < 1.5 * GiB, `rss ${process.memoryUsage().rss}`);
});
