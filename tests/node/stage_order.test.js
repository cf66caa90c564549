// stage_order.test.js - the model runs its stages in an order derived from each stage's deps
// (web/src/model/model.js stageOrder): every stage after what it reads, ties in the page order of
// the first figure that needs it; a cycle, an unknown dep or a duplicate name is an Error.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');

const SRC = path.join(__dirname, '..', '..', 'web', 'src');
const model = require(path.join(SRC, 'model', 'model.js'));
const LIST = require(path.join(SRC, 'model', 'stages', 'index.js')).default;
const { FIGURES } = require(path.join(SRC, 'figures', 'index.js'));

const stage = (name, deps) => ({ name, deps, key: () => name, steps: () => [] });

test('every_stage_runs_once_and_after_the_stages_it_reads', () => {
  assert.deepEqual([...model.STAGES].sort(), LIST.map((s) => s.name).sort());
  const at = new Map(model.STAGES.map((n, i) => [n, i]));
  for (const s of LIST) for (const d of s.deps) assert.ok(at.get(d) < at.get(s.name), `${d} before ${s.name}`);
});

test('stages_run_in_the_page_order_of_the_first_figure_that_needs_them', () => {
  // The model ranks by place in stages/index.js alone (the Worker has no figures): that list
  // must give the order that ranking by figure gives.
  const rank = new Map();
  [...FIGURES.values()].forEach((f, i) => model.closure(f.needs).forEach((n) => { if (!rank.has(n)) rank.set(n, i); }));
  const byFigure = model.stageOrder(LIST, (n) => (rank.has(n) ? rank.get(n) : Infinity)).map((s) => s.name);
  assert.deepEqual(model.STAGES, byFigure, 'stages/index.js: list each stage with the first figure that needs it');
});

test('ties_keep_the_given_order_and_deps_come_first', () => {
  const list = [stage('c', ['b']), stage('a', []), stage('b', ['a']), stage('d', [])];
  assert.deepEqual(model.stageOrder(list).map((s) => s.name), ['a', 'b', 'c', 'd']);
  // A rank moves d ahead of everything it does not depend on.
  assert.deepEqual(model.stageOrder(list, (n) => (n === 'd' ? -1 : 0)).map((s) => s.name), ['d', 'a', 'b', 'c']);
});

test('a_cycle_an_unknown_dep_or_a_duplicate_stage_throws', () => {
  assert.throws(() => model.stageOrder([stage('a', ['b']), stage('b', ['a']), stage('c', [])]),
    { name: 'Error', message: /cycle: a <- b; b <- a/ });
  assert.throws(() => model.stageOrder([stage('a', ['nope'])]), { name: 'Error', message: /stage "a" depends on "nope", which is no stage/ });
  assert.throws(() => model.stageOrder([stage('a', []), stage('a', [])]), { name: 'Error', message: /two stages named "a"/ });
});

test('every_figure_needs_known_stages', () => {
  for (const f of FIGURES.values()) assert.doesNotThrow(() => model.closure(f.needs), f.view);
});

// The progress line names the stage being computed (dom/progress.js): a stage without a label
// would show its key, e.g. "progress_attnmean".
test('every_stage_has_a_progress_label_in_both_languages', () => {
  const { DICTS } = require(path.join(SRC, 'i18n', 'index.js'));
  for (const lang of ['en', 'zh']) {
    const missing = model.STAGES.filter((n) => typeof DICTS[lang]['progress_' + n] !== 'string');
    assert.deepEqual(missing, [], lang);
  }
});
