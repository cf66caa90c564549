// ablation.test.js - head ablation (web/src/model/stages/ablation.js, figure 14): the `ablate`
// setting's parsing and its errors; the ablation and sweep stages, run through model.create on
// the shipped poem model, against the independent torch references of
// tests/fixtures/hooks/poems.json (top 10 ids exact, probabilities, KL and log-probabilities
// within the stored tolerance); the rerun that starts at the ablated layer against a full
// ablated forward; and the tiny gpt2 / llama / qwen2 / qwen3 fixtures' ablation cases.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { BlockLens, assertClose, root } = require('./helpers.js');

const SRC = path.join(root, 'web', 'src');
const model = require(path.join(SRC, 'model', 'model.js'));
const params = require(path.join(SRC, 'model', 'params.js'));
const { createAssets } = require(path.join(SRC, 'model', 'assets.js'));
const A = require(path.join(SRC, 'model', 'stages', 'ablation.js'));

const read = (f) => JSON.parse(fs.readFileSync(f, 'utf8'));
const POEMS = read(path.join(root, 'tests', 'fixtures', 'hooks', 'poems.json'));
const TINY = ['gpt2', 'llama', 'qwen2', 'qwen3'];
const text1 = (list) => list.map(([l, h]) => (l + 1) + '.' + (h === 'ffn' ? 'ffn' : h + 1)).join(',');

let bl, assets;
test.before(async () => {
  bl = await BlockLens.load();
  const dir = path.join(root, 'web', 'models', 'poems');
  assets = createAssets();
  assets.add('poems', { weights: new Uint8Array(fs.readFileSync(path.join(dir, 'model.safetensors'))),
    config: read(path.join(dir, 'config.json')), vocab: read(path.join(dir, 'vocab.json')) });
});

/* ---- the setting ------------------------------------------------------------------------- */
test('ablate_text_parses_to_a_sorted_0_based_list_without_repeats', () => {
  assert.deepEqual(A.parseAblate('').list, []);
  assert.deepEqual(A.parseAblate(' 2.ffn, 1.3 ,2.1,1.3 ').list, [[0, 2], [1, 0], [1, 'ffn']]);
  assert.deepEqual(A.parseAblate('2.FFN,2.4', 2, 4).list, [[1, 3], [1, 'ffn']]);
  assert.equal(A.ablateText(A.parseAblate('2.ffn,1.3,2.1').list), '1.3,2.1,2.ffn');
});

test('bad_ablate_text_names_the_bad_item', () => {
  for (const [bad, item] of [['1.3,x', 'x'], ['0.1', '0.1'], ['1.0', '1.0'], ['1', '1'], ['1.2.3', '1.2.3'], ['1.3,', '']]) {
    assert.deepEqual(A.parseAblate(bad).error, { code: 'ablateItem', vars: { value: item } }, bad);
  }
  assert.deepEqual(A.parseAblate('3.1', 2, 4).error, { code: 'ablateLayer', vars: { value: '3.1', max: 2 } });
  assert.deepEqual(A.parseAblate('1.5', 2, 4).error, { code: 'ablateHead', vars: { value: '1.5', max: 4 } });
});

test('the_page_state_reports_a_bad_ablate_and_checks_it_against_the_trained_model', () => {
  assert.equal(params.defaults().ablate, '');
  assert.equal(params.coerce('ablate', '1.x').error.code, 'ablateItem');
  assert.equal(params.coerce('ablate', '9.9').value, '9.9', 'random weights: only the form is checked');
  const e = params.parseHash('#weights=poems&ablate=' + encodeURIComponent('1.2,2.5')).errors;
  assert.deepEqual(e, [{ key: 'ablate', code: 'ablateHead', vars: { value: '2.5', max: 4 } }]);
  assert.deepEqual(params.parseHash('#weights=poems&ablate=3.ffn').errors[0].code, 'ablateLayer');
  const ok = params.parseHash('#weights=poems&ablate=2.ffn,1.4&sweep=on&abltok=5');
  assert.deepEqual([ok.errors, ok.state.ablate, ok.state.sweep, ok.state.abltok], [[], '2.ffn,1.4', 'on', 5]);
  assert.equal(params.coerce('sweep', 'yes').error.code, 'enum');
});

/* ---- the stages on the poem model, against torch ------------------------------------------ */
// The poem model's text whose last row is the fixture's `row` (its ids checked too).
function textOf(group) {
  const vocab = read(path.join(root, 'web', 'models', 'poems', 'vocab.json'));
  return group.ids.slice(1, group.row + 1).map((id) => vocab[id]).join('');
}
const compute = (patch) => model.create(bl, assets).compute(Object.assign(params.defaults(), { weights: 'poems' }, patch));

test('ablation_stage_matches_torch_on_every_poems_case', () => {
  const atol = POEMS.atol.ablate, rtol = POEMS.rtol;
  let cases = 0;
  for (const group of POEMS.ablate) {
    const tokens = textOf(group);
    for (const c of group.cases) {
      const r = compute({ tokens, ablate: text1(c.ablate) }), Ab = r.ablation;
      assert.deepEqual(Array.from(r.wide.ids), group.ids.slice(0, group.row + 1), 'the same ids');
      const asSet = (list) => list.map((a) => a.join('.')).sort();
      assert.deepEqual(asSet(Ab.list), asSet(c.ablate), c.name);
      assert.deepEqual(Ab.top.before, group.base.top.slice(0, 10), c.name + ': top 10 before');
      assert.deepEqual(Ab.top.after, c.top.slice(0, 10), c.name + ': top 10 after');
      const p = new Map(Ab.tokens.map((x) => [x.id, x]));
      assertClose(Ab.top.before.map((id) => p.get(id).before), group.base.probs.slice(0, 10), atol, rtol, c.name + ' p before');
      assertClose(Ab.top.after.map((id) => p.get(id).after), c.probs.slice(0, 10), atol, rtol, c.name + ' p after');
      assertClose([Ab.kl], [c.kl], atol, rtol, c.name + ' kl');
      assert.equal(Ab.target, group.base.top[0], 'followed: the top token before');
      cases++;
    }
  }
  assert.equal(cases, 13);
});

test('nothing_switched_off_gives_kl_0_and_the_same_lists', () => {
  const Ab = compute({ tokens: textOf(POEMS.ablate[1]) }).ablation;
  assert.deepEqual([Ab.list, Ab.kl], [[], 0]);
  assert.deepEqual(Ab.top.after, Ab.top.before);
});

test('a_picked_token_is_followed_and_one_outside_the_vocabulary_falls_back_to_the_top', () => {
  const g = POEMS.ablate[1], tokens = textOf(g);
  assert.equal(compute({ tokens, abltok: 5 }).ablation.target, 5);
  assert.equal(compute({ tokens, abltok: POEMS.vocab_size }).ablation.target, g.base.top[0]);
});

test('the_sweep_on_the_quatrain_matches_torch_for_every_head_of_the_rhyme', () => {
  const g = POEMS.ablate[1], atol = POEMS.atol.ablate, rtol = POEMS.rtol;
  const S = compute({ tokens: textOf(g), sweep: 'on' }).ablsweep, H = S.heads;
  assert.deepEqual([S.layers, S.heads, S.target], [2, 4, g.target]);
  assertClose([S.base], [g.base.target_logprob], atol, rtol, 'log p before');
  for (const c of g.cases) {
    const [l, h] = c.ablate[0];
    assertClose([S.drop[l * H + h]], [g.base.target_logprob - c.target_logprob], atol, rtol, c.name + ' drop');
    assertClose([S.kl[l * H + h]], [c.kl], atol, rtol, c.name + ' kl');
  }
  assert.equal(compute({ tokens: textOf(g) }).ablsweep, null, 'no sweep unless asked');
});

test('the_sweep_ffn_column_equals_full_ablated_forwards', () => {
  const g = POEMS.ablate[1], m = assets.model(bl, 'poems'), ids = Int32Array.from(g.ids.slice(0, g.row + 1));
  const S = compute({ tokens: textOf(g), sweep: 'on' }).ablsweep, V = m.vocabSize, L = ids.length;
  const lastRow = (out) => A.logSoftmax(out.logits.subarray((L - 1) * V, L * V));
  const before = lastRow(m.forward(ids));
  for (let l = 0; l < S.layers; l++) {
    const after = lastRow(m.forward(ids, { ablate: [[l, 'ffn']] }));
    assertClose([S.ffnDrop[l]], [before[g.target] - after[g.target]], 1e-5, 0, 'ffn ' + l + ' drop');
    assertClose([S.ffnKl[l]], [A.klDiv(before, after)], 1e-5, 0, 'ffn ' + l + ' kl');
  }
});

test('a_rerun_started_at_the_ablated_layer_equals_a_full_ablated_forward', () => {
  const g = POEMS.ablate[1], m = assets.model(bl, 'poems'), ids = Int32Array.from(g.ids);
  const run = { model: m, out: m.forward(ids), ids }, V = m.vocabSize, L = ids.length;
  for (const list of [[[1, 3]], [[1, 'ffn']], [[0, 2]], [[1, 0], [1, 2]], [[0, 'ffn'], [1, 1]]]) {
    const full = m.forward(ids, { ablate: list }).logits.slice((L - 1) * V, L * V);
    assert.deepEqual(A.ablatedLogits(run, list), full, JSON.stringify(list) + ': bit for bit');
  }
});

/* ---- the tiny models of the engine's fixtures --------------------------------------------- */
// The top k of a row, ties to the lower id, computed here apart from the stage's topIds.
const topOf = (row, k) => Array.from(row.keys()).sort((a, b) => row[b] - row[a] || a - b).slice(0, k);

for (const name of TINY) {
  test(name + ': ablated_logits_kl_and_top_10_match_torch', async () => {
    const ref = read(path.join(root, 'tests', 'fixtures', 'models', name, 'hooks.json'));
    const m = await bl.loadModel(path.join(root, 'tests', 'fixtures', 'models', name));
    try {
      const atol = ref.atol.ablate, rtol = ref.rtol;
      for (const group of ref.ablate) {
        const ids = Int32Array.from(group.ids.slice(0, group.row + 1)), run = { model: m, out: m.forward(ids), ids };
        const before = A.logSoftmax(A.ablatedLogits(run, []));
        assertClose(A.ablatedLogits(run, []), group.base.logits, atol, rtol, name + ' base logits');
        for (const c of group.cases) {
          const logits = A.ablatedLogits(run, c.ablate), after = A.logSoftmax(logits);
          assertClose(logits, c.logits, atol, rtol, name + ' ' + c.name + ' logits');
          assertClose([A.klDiv(before, after)], [c.kl], atol, rtol, name + ' ' + c.name + ' kl');
          assert.deepEqual(A.topIds(after, 10), topOf(c.logits, 10), name + ' ' + c.name + ' top 10');
        }
      }
    } finally { m.free(); }
  });
}

test('top_ids_orders_by_value_then_lower_id', () => {
  assert.deepEqual(A.topIds(Float64Array.from([0.1, 0.5, 0.5, -1, 0.9]), 3), [4, 1, 2]);
  assert.deepEqual(A.topIds(Float64Array.from([3, 2, 1]), 5), [0, 1, 2]);
});

/* ---- a head toggle while the sweep runs (figure 14 is drawn at once) ------------------------ */
test('a_head_toggle_during_the_sweep_is_drawn_before_the_sweep_ends_and_the_sweep_resumes', () => {
  const { ready, figure } = require(path.join(SRC, 'figures', 'index.js'));
  const i18n = require(path.join(SRC, 'i18n', 'index.js'));
  const M = model.create(bl, assets), tokens = textOf(POEMS.ablate[0]);
  const state = (patch) => Object.assign(params.defaults(), { weights: 'poems', tokens, sweep: 'on', lang: 'en' }, patch);
  const s1 = model.resolve(state({})), steps1 = M.plan(s1);
  const sweep1 = steps1.filter((st) => st.stage === 'ablsweep');
  assert.ok(sweep1.length > 4, 'the sweep has steps');
  // run up to three steps into the sweep, then the reader switches head 1.2 off
  const cut = steps1.indexOf(sweep1[3]);
  steps1.slice(0, cut).forEach((st) => st.run());
  const s2 = model.resolve(state({ ablate: '1.2' })), steps2 = M.plan(s2);
  // (patching comes after the sweep in the stage order: not run yet either)
  assert.deepEqual([...new Set(steps2.map((st) => st.stage))].slice(0, 2), ['ablation', 'ablsweep'], 'wide is cached');
  assert.equal(steps2.filter((st) => st.stage === 'ablsweep').length, sweep1.length - 3, 'the sweep resumes');
  steps2[0].run();
  const ctx = { t: i18n.translator('en'), lang: 'en', state: state({ ablate: '1.2' }), set: () => {} };
  const mid = M.result(s2);
  assert.ok(mid.missing.includes('ablsweep') && !mid.missing.includes('ablation') && !mid.missing.includes('wide'));
  assert.ok(ready('ablation', mid), 'the figure is drawn without the sweep');
  const fig = figure('ablation').build(mid, ctx);
  assert.equal(fig.data.ablate, '1.2');
  assert.equal(fig.data.sweep, 'running');
  steps2.slice(1).filter((st) => st.stage === 'ablsweep').forEach((st) => st.run());
  const end = M.result(s2), done = figure('ablation').build(end, ctx);
  assert.equal(done.data.sweep, 'done');
  // the resumed sweep equals one run in one go
  const fresh = figure('ablation').build(compute({ tokens, sweep: 'on' }), ctx);
  assert.equal(done.data.sweepDrop, fresh.data.sweepDrop);
});
