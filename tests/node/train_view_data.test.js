// train_view_data.test.js - the Train view's pure logic (web/src/train/data.js): the unigram
// baseline against hand-worked values and a second, plainly written count; text checks (empty,
// binary, huge, short), the held-out split, the settings' checks and the GPT-2 config, sampling
// and the snapshot thinning.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const WEB = path.join(__dirname, '..', '..', 'web');
const data = require(path.join(WEB, 'src', 'train', 'data.js'));
const { ENGLISH } = require(path.join(WEB, 'src', 'train', 'english.js'));

const close = (a, b, tol, what) => assert.ok(Math.abs(a - b) <= tol, what + ': ' + a + ' vs ' + b + ' (|d| ' + Math.abs(a - b) + ')');

test('unigram_loss_is_the_cross_entropy_of_held_out_characters_under_training_frequencies', () => {
  // train "aab": p(a) = 2/3, p(b) = 1/3; held "ab": -(ln 2/3 + ln 1/3) / 2.
  close(data.unigramLoss('aab', 'ab').loss, -(Math.log(2 / 3) + Math.log(1 / 3)) / 2, 1e-12, 'aab/ab');
  // Lines are documents: the newline is no character; a held-out character never seen counts once.
  const r = data.unigramLoss('ab\nab', 'a\nz');
  close(r.loss, -(Math.log(2 / 4) + Math.log(1 / 4)) / 2, 1e-12, 'unseen z');
  assert.equal(r.unseen, 1);
  assert.equal(r.vocab, 2);
  // cut: only each line's first characters (the trainer's rows).
  close(data.unigramLoss('abbb', 'ab', 1).loss, -Math.log(1 / 1), 1e-12, 'cut train to "a", held to "a"');
});

test('unigram_loss_of_the_poem_sample_matches_a_plain_count', () => {
  const dir = path.join(WEB, 'models', 'poems');
  const train = fs.readFileSync(path.join(dir, 'train.txt'), 'utf8').trim();
  const held = fs.readFileSync(path.join(dir, 'heldout.txt'), 'utf8').trim();
  // A second count written differently: an object of code points, a loop over Array.from.
  const counts = Object.create(null);
  let total = 0;
  Array.from(train).forEach((c) => { if (c !== '\n') { counts[c] = (counts[c] || 0) + 1; total++; } });
  let sum = 0, n = 0;
  Array.from(held).forEach((c) => { if (c !== '\n') { sum += Math.log((counts[c] || 1) / total); n++; } });
  const r = data.unigramLoss(train, held);
  close(r.loss, -sum / n, 1e-9, 'poems');
  // Sanity: a few thousand distinct characters, a baseline of several nats (README: 6.54 on its split).
  assert.ok(r.vocab > 2000 && r.vocab < 6000, 'distinct ' + r.vocab);
  assert.ok(r.loss > 5.5 && r.loss < 8, 'baseline ' + r.loss);
});

test('read_text_refuses_empty_binary_huge_and_short_input_with_a_code', () => {
  const enc = (s) => new TextEncoder().encode(s);
  assert.equal(data.readText(new Uint8Array(0)).error.code, 'textEmpty');
  assert.equal(data.readText('  \n\r\n  ').error.code, 'textEmpty');
  assert.equal(data.readText(Uint8Array.from([0x50, 0x4b, 3, 4, 0, 0])).error.code, 'textBinary');
  assert.equal(data.readText(Uint8Array.from([0x61, 0xff, 0xfe, 0x62])).error.code, 'textBinary', 'invalid UTF-8');
  assert.equal(data.readText('x'.repeat(50) + '\u0001\u0002').error.code, 'textBinary', 'control characters');
  const huge = data.readText(new Uint8Array(data.TEXT_MAX_BYTES + 1));
  assert.equal(huge.error.code, 'textHuge');
  assert.match(huge.error.vars.size, /MB$/);
  assert.equal(data.readText('short').error.code, 'textShort');
  const ok = data.readText(enc('\ufeffline one  \r\n\r\nline two is here\r\n'));
  assert.equal(ok.text, 'line one\nline two is here', 'BOM, CR, trailing spaces and empty lines dropped');
});

test('split_holds_out_the_last_tenth_of_the_lines', () => {
  const lines = Array.from({ length: 25 }, (v, i) => 'line ' + i);
  const s = data.split(lines.join('\n'));
  assert.deepEqual(s.heldout.split('\n'), lines.slice(-3), 'round(25 / 10) = 3 lines');
  assert.deepEqual(s.train.split('\n'), lines.slice(0, -3));
  const few = data.split('abcdefghij'.repeat(3));
  assert.equal(Array.from(few.train).length, 27);
  assert.equal(few.heldout, 'hij');
  assert.equal(data.firstLines('aaaa\nbbbb\ncccc', 9), 'aaaa\nbbbb');
  assert.equal(data.firstLines('aaaaaaaaaa', 4), 'aaaa', 'a first line longer than max is cut');
});

test('settings_are_checked_with_a_message_code_per_field', () => {
  const ok = data.checkSettings({});
  assert.deepEqual(ok.errors, []);
  assert.deepEqual(data.configOf(ok.values), { n_embd: 64, n_layer: 2, n_head: 4, n_positions: 64, n_inner: 256,
    activation_function: 'relu' });
  const bad = data.checkSettings({ d: '30', heads: '4', lr: 'fast', steps: '1.5', batch: '0', ctx: '' });
  const codes = Object.fromEntries(bad.errors.map((e) => [e.key, e.code]));
  assert.deepEqual(codes, { heads: 'divisible', lr: 'number', steps: 'int', batch: 'range', ctx: 'empty' });
  assert.deepEqual(bad.errors.find((e) => e.key === 'heads').vars, { d: 30, heads: 4 });
  // A bad d reports itself, not also a divisibility it cannot be checked for.
  assert.deepEqual(data.checkSettings({ d: '9999', heads: '3' }).errors.map((e) => e.key), ['d']);
});

test('character_coverage_is_a_setting_from_0_9_to_1_default_1', () => {
  assert.equal(data.checkSettings({}).values.coverage, 1);
  assert.equal(data.checkSettings({ coverage: ' 0.95 ' }).values.coverage, 0.95);
  assert.deepEqual(data.checkSettings({ coverage: '0.9' }).errors, [], 'the lower end');
  for (const [v, code] of [['0.5', 'range'], ['1.01', 'range'], ['all', 'number'], ['', 'empty']]) {
    const r = data.checkSettings({ coverage: v });
    assert.deepEqual(r.errors.map((e) => e.key + ':' + e.code), ['coverage:' + code], JSON.stringify(v));
    assert.equal(r.values.coverage, 1, 'a bad value keeps the default: ' + JSON.stringify(v));
  }
  assert.deepEqual(data.checkSettings({ coverage: '2' }).errors[0].vars, { value: '2', min: 0.9, max: 1 });
});

test('param_count_matches_the_shipped_poem_model', () => {
  // README: d 64, 2 layers, context 64, d_ff 256, 3,436 characters -> 324,096 parameters.
  const cfg = JSON.parse(fs.readFileSync(path.join(WEB, 'models', 'poems', 'config.json'), 'utf8'));
  assert.equal(data.paramCount(cfg, cfg.vocab_size), 324096);
});

test('sampling_is_seeded_and_follows_the_softmax', () => {
  const a = data.rng(7), b = data.rng(7);
  const xs = Array.from({ length: 5 }, a), ys = Array.from({ length: 5 }, b);
  assert.deepEqual(xs, ys);
  assert.ok(xs.every((x) => x >= 0 && x < 1));
  // logits ln(1), ln(3): p = 1/4, 3/4; u below 1/4 draws 0, above draws 1; skipped ids never.
  const lg = Float32Array.from([9, 0, Math.log(3)]);
  assert.equal(data.sampleId(lg, 1, 2, 1, 0.2), 0);
  assert.equal(data.sampleId(lg, 1, 2, 1, 0.3), 1);
  assert.equal(data.sampleId(lg, 0, 3, 1, 0.0, [0]), 1, 'id 0 skipped');
  const u = data.rng(1), n = 20000;
  let ones = 0;
  for (let i = 0; i < n; i++) if (data.sampleId(lg, 1, 2, 1, u()) === 1) ones++;
  close(ones / n, 0.75, 0.015, 'share of id 1');
});

test('snapshots_thin_evenly_keeping_the_first_and_the_latest', () => {
  const list = [];
  for (let i = 0; i <= 20; i++) data.keepSnapshot(list, { step: i }, 8);
  assert.ok(list.length <= 8, String(list.length));
  assert.equal(list[0].step, 0);
  assert.equal(list[list.length - 1].step, 20);
  assert.ok(list.every((s, i) => !i || s.step > list[i - 1].step));
});

test('english_sample_is_whole_lines_with_a_held_out_sonnet', () => {
  assert.equal(ENGLISH.train.split('\n').length, 7 * 14);
  assert.equal(ENGLISH.heldout.split('\n').length, 14);
  assert.ok(data.readText(ENGLISH.train).text === ENGLISH.train, 'already normalised');
  assert.ok(ENGLISH.train.startsWith(ENGLISH.probe));
});

test('time_left_and_clock', () => {
  assert.equal(data.timeLeft(0, 10, 0), null);
  close(data.timeLeft(10, 110, 5000), 50, 1e-9, '100 steps at 0.5 s');
  assert.equal(data.clock(65), '1:05');
  assert.equal(data.clock(3725), '1:02:05');
});

test('head_reads_and_curve_thinning', () => {
  const { reads } = require(path.join(WEB, 'src', 'train', 'live.js'));
  const { thin, lossRange } = require(path.join(WEB, 'src', 'train', 'charts.js'));
  // Head 1 of 2, L = 3: a previous-token head (row 0 on itself).
  const L = 3, w = new Float32Array(2 * L * L);
  w.set([1, 0, 0, 1, 0, 0, 0, 1, 0], L * L);
  const [prev, self, bos] = reads(w, 1, L);
  close(prev, 1, 1e-7, 'prev');
  close(self, 1 / 3, 1e-7, 'self');
  close(bos, 2 / 3, 1e-7, 'bos');
  const pts = Array.from({ length: 1000 }, (v, i) => [i + 1, i % 2]);
  const t = thin(pts, 100);
  assert.equal(t.length, 100);
  assert.ok(t.every((p) => Math.abs(p[1] - 0.5) < 1e-9), 'each point the mean of its run');
  assert.equal(t[t.length - 1][0], 1000);
  assert.deepEqual(lossRange([[1, 5.2], [2, 3.1]], [[2, 3.4]], 6.54), { lo: 3, hi: 7 });
});
