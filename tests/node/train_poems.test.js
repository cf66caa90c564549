// train_poems.test.js - the poem config (d 64, 2 layers, 4 heads, context 64, batch 8)
// trained by bl.trainer on the 3,000 Tang poems the page ships: after a fixed number of steps its
// loss on the 300 held-out poems (never trained on: web/models/poems/heldout.txt) is below the
// unigram baseline, both the trainer's and the Train view's (which counts an unseen character
// once, so it is the lower, harder one). A number from the run, printed; no timing.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { BlockLens } = require('./helpers.js');

const DIR = path.join(__dirname, '..', '..', 'web', 'models', 'poems');
const data = require(path.join(__dirname, '..', '..', 'web', 'src', 'train', 'data.js'));
const CONFIG = { n_embd: 64, n_layer: 2, n_head: 4, n_positions: 64, n_inner: 256, activation_function: 'relu' };
const STEPS = 100;

test('the_poem_config_trained_100_steps_is_below_the_unigram_baseline_on_held_out_poems', async () => {
  const bl = await BlockLens.load();
  const train = fs.readFileSync(path.join(DIR, 'train.txt'), 'utf8');
  const held = fs.readFileSync(path.join(DIR, 'heldout.txt'), 'utf8');
  const t = bl.trainer({ text: train, config: CONFIG, seed: 1234, batch: 8, lr: 3e-3, warmup: 20 });
  try {
    const before = t.evaluate(held);
    // untrained: about log(vocab), far above either baseline
    assert.ok(Math.abs(before - Math.log(t.vocab.length)) < 0.3, `untrained ${before}, log V ${Math.log(t.vocab.length)}`);
    for (let i = 0; i < STEPS; i++) t.step();
    const after = t.evaluate(held), mine = t.unigramLoss(held), view = data.unigramLoss(train, held, 64).loss;
    console.log(`# poem config, ${STEPS} steps: held-out ${before.toFixed(3)} -> ${after.toFixed(3)} nats; ` +
      `unigram ${mine.toFixed(3)} (trainer), ${view.toFixed(3)} (Train view)`);
    assert.ok(after < Math.min(mine, view), `held-out ${after} must be below the unigram baselines ${mine}, ${view}`);
  } finally {
    t.free();
  }
});
