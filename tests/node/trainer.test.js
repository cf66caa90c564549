// trainer.test.js - bl.trainer: the vocabulary and samples of a text, the API's fields, the same
// bits for the same options, the loss falling on a small text, model() and save() giving the
// trained weights (save -> loadModel({ files }) predicts the same logits, the character
// vocabulary round-trips through tokenizer.json), and bad options naming the option.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { BlockLens } = require('./helpers.js');

const CONFIG = { n_embd: 16, n_layer: 2, n_head: 2, n_positions: 16, n_inner: 32, activation_function: 'relu' };
/* 40 lines: two held out (lines 19 and 39) */
const LINES = [];
for (let i = 0; i < 40; i++) LINES.push(['abcabcabc', 'the cat sat', 'a b a b a b', '床前明月光'][i % 4] + (i % 3));
const TEXT = LINES.join('\n') + '\n';

let bl;
test.before(async () => { bl = await BlockLens.load(); });

test('trainer_builds_the_character_vocabulary_by_count_and_holds_out_every_20th_line', () => {
  const t = bl.trainer({ text: 'bba\r\nccc\n\nab\n', config: CONFIG });
  /* counts over the training lines: c 3, b 3, a 2: ties by code point (b before c) */
  assert.deepEqual(t.vocab, ['<s>', '<unk>', 'b', 'c', 'a']);
  assert.equal(t.trainLines, 3);         // the empty line is skipped, \r dropped
  assert.equal(t.heldOutLines, 0);
  assert.equal(t.config.vocab_size, 5);
  assert.equal(t.config.n_inner, 32);
  t.free();
  const u = bl.trainer({ text: TEXT, config: CONFIG });
  assert.equal(u.trainLines, 38);
  assert.equal(u.heldOutLines, 2);
  assert.throws(() => bl.trainer({ text: 'x', config: CONFIG }), /text has 1 character/);
  u.free();
});

test('coverage_keeps_the_most_frequent_characters_and_maps_the_rest_to_unk', () => {
  /* counts a 4, c 3, b 3, d 1 (total 11; b before c on the tie) */
  const text = 'aaaab\nbbcc\ncd\n';
  const want = [[1, ['a', 'b', 'c', 'd'], 1], [0.5, ['a', 'b'], 7 / 11], [4 / 11, ['a'], 4 / 11],
    [0.3, ['a'], 4 / 11], [0.95, ['a', 'b', 'c', 'd'], 1], [0, [], 0]];
  for (const [coverage, chars, covered] of want) {
    const t = bl.trainer({ text, config: CONFIG, coverage });
    assert.deepEqual(t.vocab, ['<s>', '<unk>'].concat(chars), `coverage ${coverage}`);
    assert.ok(Math.abs(t.coverage - covered) < 1e-12, `coverage ${coverage}: covers ${t.coverage}, want ${covered}`);
    t.free();
  }
  /* the dropped c and d are <unk> targets: 4 of the 11, so "d" alone costs -ln(4 / 11) */
  const t = bl.trainer({ text, config: CONFIG, coverage: 0.5 });
  assert.ok(Math.abs(t.unigramLoss('d') - -Math.log(4 / 11)) < 1e-12, `unigram of d ${t.unigramLoss('d')}`);
  assert.ok(Math.abs(t.unigramLoss('a') - -Math.log(4 / 11)) < 1e-12, `unigram of a ${t.unigramLoss('a')}`);
  assert.ok(Math.abs(t.unigramLoss('b') - -Math.log(3 / 11)) < 1e-12, `unigram of b ${t.unigramLoss('b')}`);
  const files = t.save().files, tok = JSON.parse(new TextDecoder().decode(files['tokenizer.json']));
  assert.deepEqual(Object.keys(tok.model.vocab), ['<s>', '<unk>', 'a', 'b']);
  t.free();
});

test('coverage_0_99_on_the_shipped_poems_cuts_as_a_plain_count_does', () => {
  const fs = require('node:fs'), path = require('node:path');
  const text = fs.readFileSync(path.join(__dirname, '..', '..', 'web', 'models', 'poems', 'train.txt'), 'utf8');
  /* the reference: the lines as trainer() splits them (cut to 64, every 20th held out), counted plainly */
  const lines = text.split('\n').map((l) => Array.from(l.replace(/\r$/, '')).slice(0, 64)).filter((l) => l.length);
  const counts = {};
  let total = 0;
  lines.forEach((l, i) => {
    if (i % 20 === 19) return;
    for (const ch of l) { counts[ch] = (counts[ch] || 0) + 1; total++; }
  });
  const order = Object.keys(counts).sort((a, b) => counts[b] - counts[a] || a.codePointAt(0) - b.codePointAt(0));
  let seen = 0, k = 0;
  while (seen < 0.99 * total) seen += counts[order[k++]];
  const poemConfig = { n_embd: 16, n_layer: 1, n_head: 2, n_positions: 64 };
  const all = bl.trainer({ text, config: poemConfig }), cut = bl.trainer({ text, config: poemConfig, coverage: 0.99 });
  try {
    assert.equal(all.vocab.length, order.length + 2);
    assert.deepEqual(cut.vocab, ['<s>', '<unk>'].concat(order.slice(0, k)));
    assert.ok(cut.coverage >= 0.99 && (seen - counts[order[k - 1]]) / total < 0.99, `covers ${cut.coverage}`);
    console.log(`# poems: ${all.vocab.length} tokens at coverage 1, ${cut.vocab.length} at 0.99 ` +
      `(covers ${cut.coverage.toFixed(4)}); parameters ${all.parameters} -> ${cut.parameters}`);
  } finally {
    all.free();
    cut.free();
  }
});

test('trainer_steps_lower_the_loss_and_evaluate_scores_any_text', () => {
  const t = bl.trainer({ text: TEXT, config: CONFIG, seed: 3, batch: 8, lr: 1e-2, warmup: 5 });
  assert.equal(t.steps, 0);
  assert.equal(t.lastStep, null);
  const held0 = t.evaluate(), first = t.step();
  /* uniform over the vocabulary at the start: the loss is near log(vocab) */
  assert.ok(Math.abs(first - Math.log(t.vocab.length)) < 0.1, `first loss ${first}, log V ${Math.log(t.vocab.length)}`);
  let last = first;
  for (let i = 0; i < 150; i++) last = t.step();
  assert.equal(t.steps, 151);
  assert.ok(last < first - 1.5, `loss ${first} -> ${last}`);
  const held = t.evaluate();
  assert.ok(held < held0 - 1.5, `held-out ${held0} -> ${held}`);
  assert.ok(held < t.unigramLoss(), `held-out ${held} below the unigram baseline ${t.unigramLoss()}`);
  const s = t.lastStep;
  assert.equal(s.loss, last);
  assert.ok(s.tokens > 0 && s.positions >= s.tokens && s.gradNorm > 0 && s.lr === 1e-2);
  /* a text it learnt scores better than a shuffle of its characters */
  assert.ok(t.evaluate('abcabcabc0') < t.evaluate('cabbacacb0'));
  assert.ok(Number.isFinite(t.evaluate('unseen ✓ characters')));
  t.free();
});

test('unigramLoss_is_the_training_targets_frequencies_cross_entropy', () => {
  /* targets of the training lines: a a b (from "aab"), b (from "b"): p(a) = p(b) = 1/2 */
  const t = bl.trainer({ text: 'aab\nb\n', config: CONFIG });
  assert.ok(Math.abs(t.unigramLoss('ab') - Math.log(2)) < 1e-12);
  assert.ok(Math.abs(t.unigramLoss('a\nc') - (Math.log(2) - Math.log(1e-12 / 4)) / 2) < 1e-9);   // c: <unk>
  assert.throws(() => t.unigramLoss(), /no held-out lines/);
  assert.throws(() => t.unigramLoss(5), /unigramLoss: text must be a string/);
  t.free();
});

test('the_same_options_give_the_same_bits_and_another_seed_other_ones', () => {
  const run = (seed) => {
    const t = bl.trainer({ text: TEXT, config: CONFIG, seed, batch: 4 });
    const losses = [];
    for (let i = 0; i < 5; i++) losses.push(t.step());
    const st = t.save().files['model.safetensors'];
    t.free();
    return { losses, st };
  };
  const a = run(11), b = run(11), c = run(12);
  assert.deepEqual(a.losses, b.losses);
  assert.deepEqual(Buffer.from(a.st), Buffer.from(b.st));
  assert.notDeepEqual(a.losses, c.losses);
});

test('learning_rate_warms_up_linearly_then_stays_or_follows_the_cosine', () => {
  const t = bl.trainer({ text: TEXT, config: CONFIG, lr: 0.01, warmup: 4 });
  assert.deepEqual([0, 1, 3, 4, 100].map((k) => t.lrAt(k)), [0.0025, 0.005, 0.01, 0.01, 0.01]);
  const u = bl.trainer({ text: TEXT, config: CONFIG, lr: 0.01, warmup: 4, steps: 104 });
  assert.equal(u.lrAt(4), 0.01);
  assert.ok(Math.abs(u.lrAt(54) - 0.01 * (0.1 + 0.45)) < 1e-12);
  assert.ok(Math.abs(u.lrAt(104) - 0.001) < 1e-12 && Math.abs(u.lrAt(500) - 0.001) < 1e-12);
  assert.equal(u.lrAt(), u.lrAt(0));
  t.free();
  u.free();
});

test('save_gives_a_folder_that_loadModel_opens_with_identical_logits_and_encoding', async () => {
  const t = bl.trainer({ text: TEXT, config: { ...CONFIG, activation_function: 'gelu_new' }, seed: 5 });
  for (let i = 0; i < 20; i++) t.step();
  const { files } = t.save();
  assert.deepEqual(Object.keys(files).sort(), ['config.json', 'model.safetensors', 'tokenizer.json']);
  for (const f of Object.values(files)) assert.ok(f instanceof Uint8Array);
  const config = JSON.parse(Buffer.from(files['config.json']).toString('utf8'));
  assert.equal(config.model_type, 'gpt2');
  assert.equal(config.vocab_size, t.vocab.length);
  const a = t.model(), b = await bl.loadModel({ files });
  try {
    assert.deepEqual(b.vocab, t.vocab);
    assert.equal(a.activation, 'gelu_tanh');
    for (const text of ['the cat sat0', '床前明月光2', '<s><unk>✓ \t z']) {
      const ids = a.encode(text);
      assert.deepEqual(Array.from(b.encode(text)), Array.from(ids), `encode ${JSON.stringify(text)}`);
      const la = a.forward(ids, { layers: [] }).logits, lb = b.forward(ids, { layers: [] }).logits;
      assert.deepEqual(Buffer.from(lb.buffer, lb.byteOffset, lb.byteLength), Buffer.from(la.buffer, la.byteOffset, la.byteLength));
    }
    /* model() is a copy: training on does not change it */
    const ids = a.encode('abc'), before = a.forward(ids, { layers: [] }).logits.slice();
    t.step();
    assert.deepEqual(a.forward(ids, { layers: [] }).logits, before);
    const c = t.model();
    assert.notDeepEqual(c.forward(ids, { layers: [] }).logits, before);
    c.free();
    /* the model's forward gives the trainer's loss on a line */
    const line = 'the cat sat0', e = t.evaluate(line), lids = t.model();
    const lg = lids.forward(lids.encode(line), { layers: [] }).logits, V = t.vocab.length, row = lids.encode(line);
    let nll = 0;
    for (let i = 0; i + 1 < row.length; i++) {
      const r = lg.subarray(i * V, (i + 1) * V), mx = Math.max(...r);
      nll += Math.log(r.reduce((s, v) => s + Math.exp(v - mx), 0)) + mx - r[row[i + 1]];
    }
    assert.ok(Math.abs(nll / (row.length - 1) - e) < 1e-5, `${nll / (row.length - 1)} vs ${e}`);
    lids.free();
  } finally {
    a.free();
    b.free();
    t.free();
  }
});

test('bad_options_throw_naming_the_option', () => {
  const bad = [
    [{ config: CONFIG }, /text must be a string/],
    [{ text: '', config: CONFIG }, /text has 0 characters/],
    [{ text: TEXT }, /config must be an object/],
    [{ text: TEXT, config: { ...CONFIG, n_embd: 15 } }, /config.n_embd \(15\) must be divisible by config.n_head \(2\)/],
    [{ text: TEXT, config: { ...CONFIG, n_layer: 0 } }, /config.n_layer \(0\)/],
    [{ text: TEXT, config: { n_embd: 16, n_layer: 1, n_head: 2 } }, /config.n_positions is required/],
    [{ text: TEXT, config: { ...CONFIG, activation_function: 'swiglu' } }, /config.activation_function "swiglu"/],
    [{ text: TEXT, config: { ...CONFIG, vocab_size: 9 } }, /config has no key "vocab_size"/],
    [{ text: TEXT, config: { ...CONFIG, layer_norm_epsilon: -1 } }, /config.layer_norm_epsilon \(-1\)/],
    [{ text: TEXT, config: CONFIG, seed: -1 }, /seed \(-1\)/],
    [{ text: TEXT, config: CONFIG, seed: 1.5 }, /seed \(1.5\)/],
    [{ text: TEXT, config: CONFIG, batch: 0 }, /batch \(0\)/],
    [{ text: TEXT, config: CONFIG, lr: NaN }, /lr \(NaN\)/],
    [{ text: TEXT, config: CONFIG, lr: '1' }, /lr must be a number/],
    [{ text: TEXT, config: CONFIG, weightDecay: -0.1 }, /weightDecay \(-0.1\)/],
    [{ text: TEXT, config: CONFIG, warmup: 2.5 }, /warmup \(2.5\)/],
    [{ text: TEXT, config: CONFIG, steps: 0 }, /steps \(0\)/],
    [{ text: TEXT, config: CONFIG, coverage: 1.5 }, /coverage \(1.5\) must be a number between 0 and 1/],
    [{ text: TEXT, config: CONFIG, coverage: '0.99' }, /coverage must be a number/],
    [{ text: TEXT, config: CONFIG, Batch: 4 }, /no option "Batch"/],
    [{ text: TEXT, config: { ...CONFIG, n_positions: 70000 } }, /config.n_positions \(70000\)/]
  ];
  for (const [o, re] of bad) assert.throws(() => bl.trainer(o), re, JSON.stringify(o).slice(0, 80));
  const t = bl.trainer({ text: 'ab\ncd\n', config: CONFIG });
  assert.throws(() => t.evaluate(), /no held-out lines/);
  assert.throws(() => t.evaluate(3), /evaluate: text must be a string/);
  assert.throws(() => t.evaluate('\n\n'), /no non-empty line/);
  assert.throws(() => t.lrAt(-1), /lrAt: k must be/);
  t.free();
  t.free();   // twice is fine
  assert.throws(() => t.step(), /this trainer was freed/);
  assert.throws(() => t.save(), /freed/);
  assert.throws(() => t.steps, /freed/);
  assert.throws(() => bl.trainer.call(bl, null), /expects an options object/);
});
