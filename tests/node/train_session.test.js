// train_session.test.js - the Train view's Worker loop (web/src/train/session.js) run in Node with
// the engine: what it sends per tick does not grow with the step count (each step's loss is sent
// once, in order; every snapshot has the same shapes), so a long run costs the page no more per
// tick than a short one. Sizes are v8.serialize's (the structured clone postMessage makes).
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const v8 = require('node:v8');
const { BlockLens } = require('./helpers.js');

const { createSession } = require(path.join(__dirname, '..', '..', 'web', 'src', 'train', 'session.js'));
const CONFIG = { n_embd: 16, n_layer: 2, n_head: 2, n_positions: 16, n_inner: 32, activation_function: 'relu' };
const LINES = [];
for (let i = 0; i < 60; i++) LINES.push(['abcabcabc', 'the cat sat', 'a b a b a b', '床前明月光'][i % 4] + (i % 7));
const STEPS = 240, EVERY = 20;

test('a_session_sends_each_loss_once_and_snapshots_of_one_size_however_long_it_runs', async () => {
  const bl = await BlockLens.load();
  const msgs = [];
  let session;
  await new Promise((resolve, reject) => {
    session = createSession(bl, (m) => {
      msgs.push({ m, bytes: v8.serialize(m).length });
      if (m.type === 'trainFailed') reject(new Error(m.message));
      if (m.type === 'trainState' && m.state === 'done') resolve();
    });
    session.handle({ type: 'train', text: LINES.join('\n'), heldout: LINES.slice(0, 8).join('\n'), probe: 'the cat',
      config: CONFIG, seed: 7, batch: 4, lr: 1e-2, weightDecay: 0.01, warmup: 10, steps: STEPS, every: EVERY });
  });
  session.free();
  const progress = msgs.filter((x) => x.m.type === 'trainProgress');
  const snaps = msgs.filter((x) => x.m.type === 'trainSnapshot');
  // every step's loss exactly once, in order: no list re-sent whole
  const steps = progress.flatMap((x) => x.m.losses.map((p) => p[0]));
  assert.deepEqual(steps, Array.from({ length: STEPS }, (_, i) => i + 1));
  // a progress message's size depends only on how many losses it carries, not on the step
  const per = progress.map((x) => (x.bytes - 200) / x.m.losses.length);
  assert.ok(Math.max(...per) < 120, `bytes per loss up to ${Math.max(...per)}`);
  // one snapshot at the start and one per EVERY steps, all the same shapes; their sizes differ
  // only by the sample's text (at most 15 characters here) and the numbers' encodings
  assert.equal(snaps.length, 1 + STEPS / EVERY);
  const first = snaps[0].m;
  for (const { m } of snaps) {
    assert.equal(m.layers.length, CONFIG.n_layer);
    assert.deepEqual(m.layers.map((l) => l.weights.length), first.layers.map((l) => l.weights.length));
    assert.equal(m.logits.length, first.logits.length);
    assert.deepEqual(m.labels, first.labels);
  }
  const sizes = snaps.map((x) => x.bytes);
  assert.ok(Math.max(...sizes) - Math.min(...sizes) <= 200, `snapshot sizes ${Math.min(...sizes)}..${Math.max(...sizes)}`);
  console.log(`# ${STEPS} steps: ${progress.length} progress messages, ${Math.max(...per).toFixed(0)} B per loss at most; ` +
    `snapshots ${Math.min(...sizes)}..${Math.max(...sizes)} B`);
});

test('a_session_passes_coverage_to_the_trainer', async () => {
  const bl = await BlockLens.load();
  const text = LINES.join('\n');
  const started = (coverage) => {
    let got = null;
    const s = createSession(bl, (m) => { if (m.type === 'trainStarted' || m.type === 'trainFailed') got = got || m; });
    s.handle({ type: 'train', text, heldout: LINES[0], probe: '', config: CONFIG, seed: 7, batch: 4, lr: 1e-2,
      weightDecay: 0.01, warmup: 0, steps: 1, every: 1, coverage });
    s.free();
    return got;
  };
  const all = started(undefined), half = started(0.5), bad = started(2);
  const ref = (coverage) => { const t = bl.trainer({ text, config: CONFIG, coverage }); const n = t.vocab.length; t.free(); return n; };
  assert.equal(all.vocabSize, ref(1));
  assert.equal(half.vocabSize, ref(0.5));
  assert.ok(half.vocabSize < all.vocabSize, `${half.vocabSize} < ${all.vocabSize}`);
  assert.equal(bad.type, 'trainFailed');
  assert.match(bad.message, /coverage \(2\)/);
});
