// patching.test.js - the activation-patching stage (web/src/model/stages/patching.js) run through
// model.create on the poem model and on the fixture folders, against the PyTorch references
// (tests/fixtures/hooks/poems.json, tests/fixtures/models/*/hooks.json: patch.diff[l][p], the logit
// difference answer - wrong at the last position); and patching every position of block 0 from the
// clean run gives the clean logits exactly.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { BlockLens, root } = require('./helpers.js');

const SRC = path.join(root, 'web', 'src');
const model = require(path.join(SRC, 'model', 'model.js'));
const params = require(path.join(SRC, 'model', 'params.js'));
const { createAssets } = require(path.join(SRC, 'model', 'assets.js'));
const { RUNS } = require(path.join(SRC, 'model', 'stages', 'wide.js'));
const { TOP } = require(path.join(SRC, 'model', 'stages', 'patching.js'));

const read = (...p) => fs.readFileSync(path.join(root, ...p), 'utf8');
const POEMS = JSON.parse(read('tests', 'fixtures', 'hooks', 'poems.json'));
let bl, assets;
test.before(async () => {
  bl = await BlockLens.load();
  const dir = path.join(root, 'web', 'models', 'poems');
  assets = createAssets();
  assets.add('poems', { weights: new Uint8Array(fs.readFileSync(path.join(dir, 'model.safetensors'))),
    config: JSON.parse(read('web', 'models', 'poems', 'config.json')),
    vocab: JSON.parse(read('web', 'models', 'poems', 'vocab.json')) });
});

const poemState = (patch) => Object.assign(params.defaults(), { weights: 'poems',
  tokens: POEMS.texts.clean, corrupt: POEMS.texts.corrupt }, patch);

// diff[l][p] of a stage value for the pair (answer, wrong), both among its candidates.
function diffs(v, answer, wrong) {
  const C = v.cand.length, a = v.cand.indexOf(answer), w = v.cand.indexOf(wrong);
  assert.ok(a >= 0 && w >= 0, `answer ${answer} and wrong ${wrong} are candidates`);
  return Array.from({ length: v.layers }, (_, l) => Array.from({ length: v.L },
    (__, p) => v.patched[(l * v.L + p) * C + a] - v.patched[(l * v.L + p) * C + w]));
}
function assertNear(got, want, atol, label) {
  let max = 0;
  got.flat().forEach((g, i) => { max = Math.max(max, Math.abs(g - want.flat()[i])); });
  assert.ok(max <= atol, `${label}: max diff ${max} > ${atol}`);
  return max;
}

test('poems: every cell of the sweep equals the torch reference', () => {
  const res = model.create(bl, assets).compute(poemState()), v = res.patching, P = POEMS.patch;
  assert.equal(v.state, 'ok');
  assert.deepEqual(Array.from(RUNS.get(res.wide).ids), P.clean);
  assert.deepEqual(v.differ, [P.clean.findIndex((id, i) => id !== P.corrupt[i])]);
  assert.equal(v.patched.length, 2 * 6 * v.cand.length);
  const C = v.cand.length, a = v.cand.indexOf(P.answer), w = v.cand.indexOf(P.wrong);
  assert.ok(Math.abs(v.clean[a] - v.clean[w] - P.clean_diff) < POEMS.atol.patch);
  assert.ok(Math.abs(v.corrupt[a] - v.corrupt[w] - P.corrupt_diff) < POEMS.atol.patch);
  assertNear(diffs(v, P.answer, P.wrong), P.diff, POEMS.atol.patch, 'poems');
  assert.ok(C <= 2 * TOP && v.cleanTop.ids.length === TOP && v.corruptTop.ids.length === TOP);
  // Only rows that differ need a rerun: block 0's input (the embeddings) at the changed position
  // alone, block 1's from it on (causal attention): 1 + 2 of the 12 cells.
  assert.equal(v.reran, 3);
});

test('poems: the top 10 are the logits sorted, their softmax summing below 1', () => {
  const res = model.create(bl, assets).compute(poemState()), v = res.patching, m = assets.model(bl, 'poems');
  const clean = RUNS.get(res.wide).out, V = m.vocabSize, row = clean.logits.subarray(5 * V, 6 * V);
  const sorted = Array.from(row.keys()).sort((i, j) => row[j] - row[i] || i - j).slice(0, TOP);
  assert.deepEqual(v.cleanTop.ids, sorted);
  let mx = -Infinity, sum = 0;
  for (const x of row) mx = Math.max(mx, x);
  for (const x of row) sum += Math.exp(x - mx);
  v.cleanTop.ids.forEach((id, i) => assert.ok(Math.abs(v.cleanTop.probs[i] - Math.exp(row[id] - mx) / sum) < 1e-7));
});

test('patching_every_position_of_block_0_from_the_clean_run_gives_the_clean_logits', () => {
  const res = model.create(bl, assets).compute(poemState()), m = assets.model(bl, 'poems');
  const clean = RUNS.get(res.wide).out, x = m.forward(Int32Array.from(POEMS.patch.corrupt));
  const patch = POEMS.patch.corrupt.map((_, p) => ({ layer: 0, position: p, from: clean }));
  const r = m.forward(Int32Array.from(POEMS.patch.corrupt), { start: { layer: 0, from: x }, patch, layers: [] });
  const a = new Uint32Array(r.logits.buffer, r.logits.byteOffset, r.logits.length);
  const b = new Uint32Array(clean.logits.buffer, clean.logits.byteOffset, clean.logits.length);
  assert.equal(a.length, b.length);
  assert.ok(a.every((u, i) => u === b[i]), 'bit for bit');
  // and one cell of the sweep, at the changed position of block 0, gives the clean difference
  const v = res.patching, C = v.cand.length, p = v.differ[0];
  for (let c = 0; c < C; c++) assert.equal(v.patched[p * C + c], v.clean[c]);
});

test('different_lengths_give_a_length_state_and_no_sweep; empty_gives_empty', () => {
  const m = model.create(bl, assets);
  const v = m.compute(poemState({ corrupt: '床前明月光光' })).patching;
  assert.deepEqual({ state: v.state, L: v.L, Lx: v.Lx }, { state: 'length', L: 6, Lx: 7 });
  assert.equal(v.patched, undefined);
  assert.deepEqual(m.compute(poemState({ corrupt: '' })).patching, { state: 'empty' });
  assert.equal(model.create(bl).compute(params.defaults()).patching, null, 'random weights: null');
});

test('the sweep is one step per cell after the corrupted run, each bounded by one forward', () => {
  const m = model.create(bl, assets), spec = model.resolve(poemState({ corrupt: '床前明日光' }));
  const steps = m.plan(spec, ['patching']).filter((s) => s.stage === 'patching');
  assert.equal(steps.length, 1 + 2 * 6);
  assert.ok(steps.slice(1).every((s) => s.cost <= steps[0].cost));
});

// The fixture folders (GPT-2, Llama, Qwen2, Qwen3): the same sweep, opened as the page opens one.
for (const name of ['gpt2', 'llama', 'qwen2', 'qwen3']) {
  test(name + ': every cell of the sweep equals the torch reference', async () => {
    const ref = JSON.parse(read('tests', 'fixtures', 'models', name, 'hooks.json')), P = ref.patch;
    const m = await bl.loadModel(path.join(root, 'tests', 'fixtures', 'models', name));
    try {
      const a = createAssets();
      a.put('model', m);
      const cfg = { d: m.dModel, dff: m.dFF, heads: m.nHeads, layers: m.nLayers };
      // An opened folder as params.setOpened describes it; its tokenizer here: ids as given.
      const enc = (text) => { const ids = text.split(',').map(Number); return { ids, labels: ids.map(String) }; };
      params.setOpened(Object.assign({ kvHeads: m.nKvHeads, headDim: m.headDim, act: 'gelu', norm: 'layer',
        counts: {}, name, serial: 900 + name.length, positions: 64, encode: enc, text: String, label: String }, cfg));
      const spec = model.resolve(Object.assign(params.defaults(), { weights: 'model',
        tokens: P.clean.join(','), corrupt: P.corrupt.join(',') })), mm = model.create(bl, a), want = ['patching'];
      mm.plan(spec, want).forEach((st) => st.run());
      const v = mm.result(spec, want).patching;
      assert.equal(v.state, 'ok');
      const max = assertNear(diffs(v, P.answer, P.wrong), P.diff, ref.atol.patch + ref.rtol * 20, name);
      assert.ok(max < ref.atol.patch * 10, name + ' max diff ' + max);
    } finally {
      params.setOpened(null);
      m.free();
    }
  });
}

test('the_default_pair_is_the_clean_top_and_when_both_runs_agree_the_most_moved_candidate', () => {
  const { FIGURES } = require(path.join(SRC, 'figures', 'index.js')), { translator } = require(path.join(SRC, 'i18n', 'index.js'));
  const st = poemState(), res = model.create(bl, assets).compute(st), m = assets.model(bl, 'poems'), V = m.vocabSize;
  const out = FIGURES.get('patching').build(res, { t: translator('en'), lang: 'en', state: st, set() {} });
  // Both last rows straight from forward, the candidates as the figure offers them (each run's top 10).
  const c = RUNS.get(res.wide).out.logits.subarray(5 * V), x = m.forward(Int32Array.from(POEMS.patch.corrupt)).logits.subarray(5 * V);
  const top = (r) => Array.from(r.keys()).sort((i, j) => r[j] - r[i] || i - j).slice(0, TOP);
  const a = top(c)[0];
  assert.equal(top(x)[0], a, 'this pair of texts has one top token in both runs');
  const cand = [...new Set([...top(c), ...top(x)])].filter((j) => j !== a);
  const moved = (j) => Math.abs((c[a] - c[j]) - (x[a] - x[j]));
  const w = cand.reduce((b, j) => (moved(j) > moved(b) ? j : b));
  assert.deepEqual([out.data.answer, out.data.wrong], [String(a), String(w)]);
  assert.ok(out.blocks.some((b) => b.type === 'note' && /the corruption moved most/.test(b.text)));
});
