// lens.test.js - the logit lens's stages (web/src/model/stages/wide.js, lens.js) and figure 13
// (figures/lens.js): the top 5 per cell against the float64 torch references
// (tests/fixtures/hooks/poems.json, tests/fixtures/models/*/hooks.json: exact ids, probabilities
// within the stored tolerance), the rank and probability of the actual next token against the
// same references and against the engine's own lens over the whole vocabulary (forward's
// lens: V, a separate code path), and the figure's headline counts.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { BlockLens, assertClose, root } = require('./helpers.js');

const SRC = path.join(root, 'web', 'src');
const wide = require(path.join(SRC, 'model', 'stages', 'wide.js'));
const lens = require(path.join(SRC, 'model', 'stages', 'lens.js'));
const model = require(path.join(SRC, 'model', 'model.js'));
const params = require(path.join(SRC, 'model', 'params.js'));
const { createAssets } = require(path.join(SRC, 'model', 'assets.js'));
const { compose } = require(path.join(SRC, 'figures', 'compose.js'));
const { figure } = require(path.join(SRC, 'figures', 'index.js'));
const { firstRight } = require(path.join(SRC, 'figures', 'lens.js'));
const i18n = require(path.join(SRC, 'i18n', 'index.js'));
const colors = require(path.join(SRC, 'draw', 'colors.js'));

const read = (f) => JSON.parse(fs.readFileSync(f, 'utf8'));
const MODELS = path.join(root, 'tests', 'fixtures', 'models');
const POEMS = path.join(root, 'web', 'models', 'poems');
const FIXTURES = ['gpt2', 'llama', 'qwen2', 'qwen3'].map((name) => ({ name, dir: path.join(MODELS, name),
  ref: read(path.join(MODELS, name, 'hooks.json')) }))
  .concat([{ name: 'poems', dir: POEMS, ref: read(path.join(root, 'tests', 'fixtures', 'hooks', 'poems.json')) }]);
const K = wide.LENS_K;

let bl;
const models = {};
test.before(async () => {
  bl = await BlockLens.load();
  for (const f of FIXTURES) models[f.name] = await bl.loadModel(f.dir);
});
test.after(() => { for (const m of Object.values(models)) m.free(); });

// Both stages' steps on model m and ids, as the Worker runs them for an opened folder.
function stages(m, ids) {
  const s = { weights: 'model', ids: Array.from(ids), L: ids.length, layers: m.nLayers, d: m.dModel, dff: m.dFF };
  const assets = { model: () => m }, got = {}, get = (n) => got[n];
  for (const st of [wide.default, lens.default]) {
    const steps = st.steps(bl, s, get, assets);
    let v;
    for (const step of steps) {
      assert.ok(step.cost > 0, `${st.name}: every step has a cost`);
      v = step.run();
    }
    got[st.name] = v;
  }
  return got;
}

// The top id of the wide stage's lens at point p, position i.
function W0(m, ids, p, i) { return stages(m, ids).wide.lens[p].ids[i * K]; }

test('rank_of_counts_larger_logits_and_equal_ones_with_a_lower_id', () => {
  const z = Float32Array.from([1, 3, 2, 3, -1]);
  assert.deepEqual([0, 1, 2, 3, 4].map((t) => lens.rankOf(z, t).rank), [4, 1, 3, 2, 5]);
  const e = Array.from(z, Math.exp), sum = e.reduce((a, b) => a + b, 0);
  for (let t = 0; t < 5; t++) assert.ok(Math.abs(lens.rankOf(z, t).p - e[t] / sum) < 1e-12, `p of ${t}`);
});

for (const { name, ref } of FIXTURES) {
  test(`${name}_lens_stages_give_the_reference_top_5_and_the_actual_next_tokens_rank`, () => {
    const m = models[name], [atol, rtol] = [ref.atol.lens, ref.rtol];
    let maxTop = 0, maxNext = 0, inTop = 0, beyond = 0;
    for (const want of ref.lens) {
      const ids = want.ids, L = ids.length, P = m.nLayers + 1, { wide: W, lens: R } = stages(m, ids);
      assert.equal(W.lens.length, P);
      assert.equal(R.points, P);
      assert.deepEqual(Array.from(R.next), [...ids.slice(1), -1]);
      for (let p = 0; p < P; p++) {
        for (let i = 0; i < L; i++) {
          const top = want.top[p][i], probs = want.probs[p][i], label = `${name} point ${p} position ${i}`;
          // top 5: probabilities within tolerance; ids exact where the reference has no near tie
          const gotIds = Array.from(W.lens[p].ids.subarray(i * K, (i + 1) * K));
          maxTop = Math.max(maxTop, assertClose(W.lens[p].probs.subarray(i * K, (i + 1) * K), probs.slice(0, K), atol, rtol,
            label + ' top 5 probs'));
          const tie = (j) => probs[j] - probs[j + 1] <= atol + rtol * probs[j];
          for (let j = 0; j < K; j++) {
            if (!tie(j) && !(j > 0 && tie(j - 1))) assert.equal(gotIds[j], top[j], `${label}: rank ${j + 1} id`);
          }
          if (i === L - 1) {
            assert.equal(R.rank[p * L + i], 0, `${label}: the last position has no next token`);
            continue;
          }
          // the actual next token: its rank where the reference ranks it (its top k + 1), else below
          const next = ids[i + 1], at = top.indexOf(next), rank = R.rank[p * L + i], pr = R.prob[p * L + i];
          if (at >= 0) {
            maxNext = Math.max(maxNext, assertClose([pr], [probs[at]], atol, rtol, label + ' p(next)'));
            const near = top.filter((id, j) => Math.abs(probs[j] - probs[at]) <= atol + rtol * probs[at]).length;
            if (near === 1) assert.equal(rank, at + 1, `${label}: rank of the next token ${next}`);
            inTop++;
          } else {
            assert.ok(rank >= top.length, `${label}: next token ${next} below the reference's top ${top.length}, rank ${rank}`);
            assert.ok(pr <= probs[top.length - 1] + atol, `${label}: p(next) ${pr} above the reference's last ${probs.at(-1)}`);
            beyond++;
          }
        }
      }
    }
    console.log(`${name}: max top-5 prob diff ${maxTop.toExponential(2)}, max p(next) diff ${maxNext.toExponential(2)} ` +
      `(atol ${atol}); next token in the reference's top ${K + 1} in ${inTop} cells, below it in ${beyond}`);
  });

  test(`${name}_next_token_ranks_and_probs_match_the_float64_reference`, () => {
    // the reference's rank of the actual next token (tools/hooks_ref.py, float64); a float32 rank
    // may differ by at most the ids the reference has within tolerance of it (next_near)
    const m = models[name], [atol, rtol] = [ref.atol.lens, ref.rtol];
    let exact = 0, cells = 0, maxP = 0;
    for (const want of ref.lens) {
      const ids = want.ids, L = ids.length, { lens: R } = stages(m, ids);
      for (let p = 0; p <= m.nLayers; p++) {
        for (let i = 0; i + 1 < L; i++) {
          const r = R.rank[p * L + i], wr = want.next_rank[p][i], near = want.next_near[p][i], label = `${name} point ${p} position ${i}`;
          assert.ok(Math.abs(r - wr) <= near, `${label}: rank ${r}, reference ${wr} (${near} near ties)`);
          if (near === 0) { assert.equal(r, wr, label); exact++; }
          maxP = Math.max(maxP, assertClose([R.prob[p * L + i]], [want.next_prob[p][i]], atol, rtol, label + ' p(next)'));
          if (wr === 1 && near === 0) assert.equal(W0(m, ids, p, i), ids[i + 1], label + ': rank 1 is the top id');
          cells++;
        }
      }
    }
    console.log(`${name}: next-token ranks vs float64: ${exact} of ${cells} cells without near ties exact, the rest ` +
      `within their near ties; max p(next) diff ${maxP.toExponential(2)}`);
  });

  test(`${name}_lens_ranks_equal_the_engines_lens_over_the_whole_vocabulary`, () => {
    const m = models[name], V = m.vocabSize, ids = ref.lens[ref.lens.length - 1].ids, L = ids.length;
    const { lens: R } = stages(m, ids), full = m.forward(ids, { lens: V }).lens;
    let max = 0;
    for (let p = 0; p <= m.nLayers; p++) {
      for (let i = 0; i + 1 < L; i++) {
        const row = full[p].ids.subarray(i * V, (i + 1) * V), j = row.indexOf(ids[i + 1]);
        assert.equal(R.rank[p * L + i], j + 1, `${name} point ${p} position ${i}: rank`);
        max = Math.max(max, assertClose([R.prob[p * L + i]], [full[p].probs[i * V + j]], 1e-6, 1e-5, `${name} p(next)`));
      }
    }
    assert.equal(R.vocabSize, V);
    console.log(`${name}: ranks over ${V} tokens equal forward's lens: ${V}; max p(next) diff ${max.toExponential(2)}`);
  });
}

test('the_figure_on_the_quatrain_says_where_the_lens_first_finds_the_next_character', async () => {
  const assets = createAssets();
  assets.add('poems', { weights: new Uint8Array(fs.readFileSync(path.join(POEMS, 'model.safetensors'))),
    config: read(path.join(POEMS, 'config.json')), vocab: read(path.join(POEMS, 'vocab.json')) });
  const st = Object.assign(params.defaults(), { weights: 'poems', tokens: params.POEM.tokens, lang: 'en', theme: 'light' });
  const res = model.create(bl, assets).compute(st);
  const ref = read(path.join(root, 'tests', 'fixtures', 'hooks', 'poems.json')).lens
    .find((e) => e.ids.length === res.L), P = ref.top.length;
  assert.ok(ref, 'the fixture has the quatrain');
  // independent of the figure: the first point whose reference top-1 is the next character
  const want = ref.ids.slice(1).map((next, i) => ref.top.findIndex((pt) => pt[i][0] === next));
  assert.deepEqual(Array.from(firstRight(res.wide, res.lens.next)), want);
  const counts = Array.from({ length: P }, (_, p) => want.filter((v) => v === p).length);
  const never = want.filter((v) => v < 0).length;
  const ctx = { t: i18n.translator('en'), lang: 'en', scheme: colors.scheme('light'), state: st };
  const fig = figure('lens').build(res, ctx);
  const head = fig.blocks.find((b) => b.type === 'headline').text;
  for (let p = 0; p < P; p++) {
    if (counts[p]) assert.ok(head.includes((p ? `after block ${p}` : 'at the embeddings') + ` for ${counts[p]}`), head);
  }
  assert.ok(head.includes(`(positions out of ${want.length})`), head);
  if (never) assert.ok(head.includes(`never does for ${never}`), head);
  assert.equal(fig.data.first, want.join(' '));
  console.log(`poems: ${head}`);
  // the export draws the cells' words: the top token of every cell of the top panel
  const svg = compose('lens', res, ctx).svg();
  for (const p of [0, P - 1]) {
    const id = ref.top[p][3][0];
    assert.ok(svg.includes('>' + res.lens.vocab[id] + '<'), `the SVG has the top character of point ${p}`);
  }
});

test('a_text_of_one_token_has_no_next_token_to_find', async () => {
  const m = models.gpt2, { wide: W, lens: R } = stages(m, [3]);
  assert.deepEqual(Array.from(R.next), [-1]);
  assert.deepEqual(Array.from(R.rank), new Array(m.nLayers + 1).fill(0));
  assert.equal(firstRight(W, R.next).length, 0);
});

test('random_weights_have_no_lens_and_the_figure_offers_the_poem_model', async () => {
  const st = Object.assign(params.defaults(), { lang: 'en', theme: 'light' });
  const res = model.create(bl).compute(st);
  assert.equal(res.wide, null);
  assert.equal(res.lens, null);
  const fig = figure('lens').build(res, { t: i18n.translator('en'), lang: 'en', state: st, set: () => {} });
  assert.equal(fig.data.trained, 'no');
  assert.equal(fig.data.applies, 'yes');
  assert.equal(fig.blocks.filter((b) => b.type === 'note').length, 1);
});
