// controller.test.js - the page's controller (web/src/model/controller.js) waits for a pause in
// typing before it asks for numbers, and Enter or leaving the field (flush) asks at once; a bad
// value blocks only the figures whose `reads` include it (the others are computed with the new
// values, the blocked ones keep their last good drawing, fixing it unblocks them), and a bad
// value of a setting every figure reads blocks them all.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const SRC = path.join(__dirname, '..', '..', 'web', 'src');
const { createController } = require(path.join(SRC, 'model', 'controller.js'));
const { FIGURES, VIEWS } = require(path.join(SRC, 'figures', 'index.js'));

// A compute that records the settings of each request and never answers.
function recorder() {
  const asked = [];
  return { asked, compute: { request: (state) => asked.push(state.seed), cancel() {}, busy: () => false } };
}

const settle = (ms) => new Promise((r) => setTimeout(r, ms));

// A controller attached to a recorder, past its first request.
async function started() {
  const { asked, compute } = recorder(), ctl = createController(null, () => {});
  ctl.attach(compute);
  await settle(10);
  asked.length = 0;
  return { asked, ctl };
}

test('typed_value_waits_for_the_typing_pause_then_is_asked_once', async () => {
  const { asked, ctl } = await started();
  ctl.setRaw('seed', '7', false);
  ctl.setRaw('seed', '71', false);
  assert.deepEqual(asked, [], 'nothing asked while typing');
  await settle(400);
  assert.deepEqual(asked, [71], 'the last value, once, after the pause');
});

test('flush_asks_for_the_typed_value_at_once_and_cancels_the_pause', async () => {
  const { asked, ctl } = await started();
  ctl.setRaw('seed', '7', false);
  ctl.flush();
  assert.deepEqual(asked, [7], 'asked in the same task as the flush');
  await settle(400);
  assert.deepEqual(asked, [7], 'the pause that was waiting asks nothing again');
  ctl.flush();
  assert.deepEqual(asked, [7], 'a flush with nothing typed asks nothing');
});

test('flush_after_a_rejected_value_asks_nothing', async () => {
  const { asked, ctl } = await started();
  ctl.setRaw('seed', 'abc', false);
  ctl.flush();
  await settle(400);
  assert.deepEqual(asked, []);
  assert.ok(ctl.errors().some((e) => e.key === 'seed'), 'the bad value is reported');
});

// A page of every figure over a compute that answers each request with the settings it used:
// on each answer a figure is drawn when the controller says the answer is fresh for its reads
// (page.js), and keeps its last drawing otherwise. drawn: view -> the settings of its drawing.
// hold: answers wait for answer() (the newest request's), as a Worker's do.
async function page(hold) {
  const asked = [], drawn = new Map(), reads = VIEWS.map((v) => FIGURES.get(v).reads);
  let waiting = null;
  const compute = { request: (state, cb) => {
    asked.push(state);
    waiting = () => cb(null, Object.assign({}, state));
    if (!hold) waiting();
  }, cancel() {}, busy: () => false };
  const ctl = createController(null, (kind) => {
    if (kind !== 'result') return;
    for (const v of VIEWS) if (ctl.fresh(FIGURES.get(v).reads)) drawn.set(v, ctl.result);
  }, reads);
  ctl.attach(compute);
  if (hold) waiting();
  await settle(10);
  assert.equal(drawn.size, VIEWS.length, 'every figure drawn from the first answer');
  return { asked, ctl, drawn, stale: () => VIEWS.filter((v) => ctl.stale(FIGURES.get(v).reads)), answer: () => waiting() };
}
const readers = (key) => VIEWS.filter((v) => FIGURES.get(v).reads.includes(key));
const of = (drawn, key) => Object.fromEntries(VIEWS.map((v) => [v, drawn.get(v)[key]]));

test('bad_value_blocks_only_the_figures_that_read_it', async () => {
  const { asked, ctl, drawn, stale } = await page();
  const pvalFigures = readers('pval');
  assert.ok(pvalFigures.length > 0 && pvalFigures.length < VIEWS.length, 'some figures read pval, some do not');
  ctl.setRaw('pval', 'abc', true);
  ctl.setRaw('seed', '7', true);
  await settle(10);
  assert.deepEqual(stale(), pvalFigures, 'only the figures that read pval are marked');
  assert.equal(asked.at(-1).pval, 1000, 'the request uses the last valid pval');
  for (const v of VIEWS) {
    assert.equal(drawn.get(v).seed, pvalFigures.includes(v) ? 42 : 7,
      `${v}: ${pvalFigures.includes(v) ? 'keeps its last good drawing' : 'drawn with the new seed'}`);
  }
  assert.deepEqual(ctl.badOf(['pval', 'seed']), ['pval']);
  ctl.setRaw('pval', '5', true);
  await settle(10);
  assert.deepEqual(stale(), [], 'fixing the value clears every mark');
  assert.deepEqual(of(drawn, 'pval'), Object.fromEntries(VIEWS.map((v) => [v, 5])), 'every figure drawn with pval 5');
  assert.deepEqual(of(drawn, 'seed'), Object.fromEntries(VIEWS.map((v) => [v, 7])));
});

test('fixed_value_keeps_its_figures_marked_until_the_answer_with_it_is_in', async () => {
  const { ctl, drawn, stale, answer } = await page(true);
  ctl.setRaw('pval', 'abc', true);
  ctl.set({ seed: 7 });
  await settle(10);
  answer();
  assert.deepEqual(stale(), readers('pval'));
  ctl.setRaw('pval', '5', true);
  await settle(10);
  assert.deepEqual(stale(), readers('pval'), 'still showing pval 1000: marked until redrawn');
  answer();
  assert.deepEqual(stale(), []);
  assert.equal(drawn.get('norms').pval, 5);
});

test('heads_not_dividing_d_model_block_only_the_figures_that_read_heads', async () => {
  const { asked, ctl, drawn, stale } = await page();
  const headFigures = readers('heads');
  ctl.set({ d: 9 });
  await settle(10);
  assert.deepEqual(stale(), headFigures);
  assert.deepEqual([asked.at(-1).d, asked.at(-1).heads], [9, 1], 'asked with d 9 and the largest head count that divides it');
  for (const v of VIEWS) assert.equal(drawn.get(v).d, headFigures.includes(v) ? 8 : 9, v);
  ctl.set({ heads: 3 });
  await settle(10);
  assert.deepEqual(stale(), []);
  for (const v of VIEWS) assert.deepEqual([drawn.get(v).d, drawn.get(v).heads], [9, 3], v);
});

test('emptied_tokens_are_asked_with_their_last_value_and_block_every_figure_that_reads_them', async () => {
  const { asked, ctl, drawn, stale } = await page();
  const tokenFigures = readers('tokens');
  assert.ok(tokenFigures.length < VIEWS.length, 'a figure that does not read the tokens');
  ctl.set({ tokens: ' ', dff: 16 });
  await settle(10);
  assert.deepEqual(stale(), tokenFigures);
  assert.deepEqual([asked.at(-1).tokens, asked.at(-1).dff], ['远方有颗苹果树', 16], 'the last valid tokens, the new d_ff');
  for (const v of VIEWS) assert.equal(drawn.get(v).dff, tokenFigures.includes(v) ? 32 : 16, v);
});

test('bad_value_of_a_setting_every_figure_reads_blocks_them_all', async () => {
  const { asked, ctl, drawn, stale } = await page();
  assert.deepEqual(readers('weights'), VIEWS, 'every figure reads weights');
  const before = new Map(drawn);
  asked.length = 0;
  ctl.setRaw('weights', 'nonsense', true);
  ctl.setRaw('seed', '7', true);
  await settle(10);
  assert.deepEqual(stale(), VIEWS, 'every figure marked');
  assert.deepEqual(asked, [], 'nothing to draw: nothing asked');
  for (const v of VIEWS) assert.equal(drawn.get(v), before.get(v), `${v} keeps its drawing`);
  ctl.setRaw('weights', 'poems', true);
  await settle(10);
  assert.deepEqual(stale(), []);
  for (const v of VIEWS) assert.deepEqual([drawn.get(v).weights, drawn.get(v).seed], ['poems', 7], v);
});

// A layer past the trained model's blocks holds back the figures of one block; the d_k sweep,
// the parameter split, the next character, the logit lens, the ablation, activation patching and
// the FFN neurons (the whole model's) are computed all the same.
test('bad_layer_blocks_the_figures_of_one_block_only', async () => {
  const { asked, ctl, drawn, stale } = await page();
  const blockFigures = readers('layer');
  // (heads, the model view, shows every layer at once.)
  assert.deepEqual(VIEWS.filter((v) => !blockFigures.includes(v)), ['saturation', 'paramsplit', 'next', 'heads', 'lens',
    'ablation', 'patching', 'neurons']);
  ctl.set({ weights: 'poems' });
  await settle(10);
  ctl.set({ layer: 3, temp: 2 });   // the poem model has 2 blocks
  await settle(10);
  assert.deepEqual(stale(), blockFigures);
  assert.deepEqual([asked.at(-1).layer, asked.at(-1).temp], [1, 2], 'asked with the last valid layer');
  for (const v of VIEWS) assert.equal(drawn.get(v).temp, blockFigures.includes(v) ? 1 : 2, v);
});

test('a_typed_layer_out_of_range_names_the_trained_models_range', async () => {
  const { ctl } = await page();
  ctl.set({ weights: 'poems' });
  ctl.setRaw('layer', '0', true);
  const e = ctl.errors().find((x) => x.key === 'layer');
  assert.deepEqual([e.code, e.vars.max], ['range', 2]);
});
