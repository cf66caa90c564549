// hooks_reference.test.js - model.forward's hooks (lens, ablate, patch, start, stop) against
// independent float64 torch references: tests/fixtures/models/<variant>/hooks.json
// (tools/gen_models.py) for gpt2, llama, qwen2, qwen3, and tests/fixtures/hooks/poems.json
// (tools/gen_poem_hooks.py) for the shipped poem model, within the tolerances stored with them.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { BlockLens, assertClose, root } = require('./helpers.js');

const read = (f) => JSON.parse(fs.readFileSync(f, 'utf8'));
const MODELS = path.join(root, 'tests', 'fixtures', 'models');
const FIXTURES = ['gpt2', 'llama', 'qwen2', 'qwen3'].map((name) => ({ name, dir: path.join(MODELS, name),
  ref: read(path.join(MODELS, name, 'hooks.json')) })).concat([{ name: 'poems', dir: path.join(root, 'web', 'models', 'poems'),
  ref: read(path.join(root, 'tests', 'fixtures', 'hooks', 'poems.json')) }]);

let bl;
const models = {};
test.before(async () => {
  bl = await BlockLens.load();
  for (const f of FIXTURES) models[f.name] = await bl.loadModel(f.dir);
});
test.after(() => { for (const m of Object.values(models)) m.free(); });

/* ---- rows, softmax, top k ----------------------------------------------------------------- */
const row = (a, r, n) => a.subarray(r * n, (r + 1) * n);

/* log-softmax of a float32 row, in double */
function logSoftmax(x) {
  let max = -Infinity, sum = 0;
  for (const v of x) max = Math.max(max, v);
  for (const v of x) sum += Math.exp(v - max);
  const lse = max + Math.log(sum);
  return Float64Array.from(x, (v) => v - lse);
}

const kl = (lp, lq) => lp.reduce((s, v, i) => s + Math.exp(v) * (v - lq[i]), 0);

/* The n largest of p: ids largest first, equal values lower id first; and their values. */
function topOf(p, n) {
  const ids = Array.from(p.keys()).sort((a, b) => p[b] - p[a] || a - b).slice(0, n);
  return { ids, probs: ids.map((i) => p[i]) };
}

/* The reference stores its top k+1. Ranks whose adjacent reference probabilities are closer than
   the tolerance are a near tie (float32 may order them either way, or put the (k+1)-th in at rank
   k): an id at a rank must be the reference's id there or one of its near-tie group. Probabilities
   are compared rank by rank (sorting moves no value by more than the largest error). Returns the
   largest probability difference and how many ranks took a near-tie partner's id. */
function checkTop(ids, probs, want, tol, label) {
  const [atol, rtol] = tol, k = ids.length, group = [0];
  for (let j = 1; j < want.probs.length; j++)
    group.push(group[j - 1] + (want.probs[j - 1] - want.probs[j] <= atol + rtol * want.probs[j - 1] ? 0 : 1));
  const diff = assertClose(probs, want.probs.slice(0, k), atol, rtol, label + ' probs');
  assert.equal(new Set(ids).size, k, `${label}: ids repeat (${Array.from(ids)})`);
  let swaps = 0;
  for (let j = 0; j < k; j++) {
    if (ids[j] === want.top[j]) continue;
    const at = want.top.indexOf(ids[j]);
    assert.ok(at >= 0 && group[at] === group[j], `${label}: rank ${j} is id ${ids[j]}, want ${want.top[j]} ` +
      `(reference p ${want.probs.join(', ')})`);
    swaps++;
  }
  return { diff, swaps };
}

/* A stored row of the logits: whole, or its top 10+1 by probability (then diff is of the
   probabilities). */
function checkRow(logits, want, tol, label) {
  if (want.logits) return { diff: assertClose(logits, want.logits, ...tol, label + ' logits'), swaps: 0 };
  const t = topOf(logSoftmax(logits).map(Math.exp), want.top.length - 1);
  return checkTop(t.ids, Float64Array.from(t.probs), { top: want.top, probs: want.probs }, tol, label);
}

const close1 = (got, want, tol, label) => assertClose([got], [want], ...tol, label);

/* ---- the tests, one set per model ----------------------------------------------------------- */
for (const { name, ref } of FIXTURES) {
  const V = ref.vocab_size;

  test(`${name}_logit_lens_gives_the_reference_top_k_at_every_residual_point`, () => {
    const m = models[name], tol = [ref.atol.lens, ref.rtol];
    let swaps = 0, max = 0;
    for (const want of ref.lens) {
      const k = want.k, L = want.ids.length, out = m.forward(want.ids, { lens: k });
      assert.equal(out.lens.length, m.nLayers + 1, 'lens: the embeddings and every block\'s output');
      out.lens.forEach((e, i) => {
        assert.ok(e.ids instanceof Int32Array && e.ids.length === L * k, `lens[${i}].ids: Int32Array (L*k)`);
        assert.ok(e.probs instanceof Float32Array && e.probs.length === L * k, `lens[${i}].probs: Float32Array (L*k)`);
        for (let p = 0; p < L; p++) {
          const got = checkTop(row(e.ids, p, k), row(e.probs, p, k), { top: want.top[i][p], probs: want.probs[i][p] },
            tol, `${name} lens[${i}] position ${p}`);
          max = Math.max(max, got.diff);
          swaps += got.swaps;
        }
      });
      // the last point is the logits: its probabilities are the softmax of the same forward's logits
      const last = out.lens[m.nLayers];
      for (let p = 0; p < L; p++) {
        const sm = logSoftmax(row(out.logits, p, V)).map(Math.exp), ids = row(last.ids, p, k);
        assertClose(row(last.probs, p, k), Array.from(ids, (i) => sm[i]), ...tol, `${name} lens[NL] vs logits, position ${p}`);
      }
    }
    console.log(`${name} lens: max prob diff ${max.toExponential(2)} (atol ${tol[0]}), ${swaps} near-tie ranks accepted`);
  });

  test(`${name}_ablated_heads_and_ffns_give_the_reference_logits_and_kl`, () => {
    const m = models[name], tol = [ref.atol.ablate, ref.rtol];
    let max = 0, klMax = 0, swaps = 0;
    for (const grp of ref.ablate) {
      const base = row(m.forward(grp.ids).logits, grp.row, V), lp = logSoftmax(base);
      const b = checkRow(base, grp.base, tol, `${name} unablated row ${grp.row}`);
      const effects = [], L = grp.ids.length;
      if (grp.target !== undefined) close1(lp[grp.target], grp.base.target_logprob, tol, `${name} unablated log p(target)`);
      for (const c of grp.cases) {
        const label = `${name} ablate ${JSON.stringify(c.ablate)}`, out = m.forward(grp.ids, { ablate: c.ablate });
        const r = row(out.logits, grp.row, V), lq = logSoftmax(r), got = checkRow(r, c, tol, label);
        max = Math.max(max, got.diff, b.diff);
        swaps += got.swaps;
        klMax = Math.max(klMax, close1(kl(lp, lq), c.kl, tol, label + ' KL'));
        if (grp.target !== undefined) {
          close1(lq[grp.target], c.target_logprob, tol, label + ' log p(target)');
          effects.push(`${c.name} ${Math.exp(lq[grp.target]).toFixed(3)}`);
        }
        // what was zeroed shows in the kept intermediates: the head's context (heads, L, head_dim)
        // rows, or the FFN's output (so resid2 is resid1)
        for (const [l, h] of c.ablate) {
          const layer = out.layers[l];
          if (h === 'ffn') {
            assert.ok(layer.ffn.out.every((v) => v === 0), `${label}: layers[${l}].ffn.out is zero`);
            assert.deepEqual(layer.resid2, layer.resid1, `${label}: layers[${l}].resid2 is resid1`);
          } else {
            const n = layer.attention.context.length / m.nHeads;   // L * head_dim
            if (c.ablate.filter(([al, ah]) => al === l && ah !== 'ffn').length === m.nHeads) {
              // no head left: each row of the attention output is o_proj's bias (or 0 without one)
              const bo = m.layerWeights(l).bo || new Float32Array(m.dModel);
              for (let q = 0; q < L; q++) assert.deepEqual(row(layer.attention.out, q, m.dModel), bo, `${label}: attention.out row ${q}`);
            }
            assert.ok(layer.attention.context.subarray(h * n, (h + 1) * n).every((v) => v === 0),
              `${label}: layers[${l}].attention.context of head ${h} is zero`);
          }
        }
      }
      if (effects.length) console.log(`${name} p(${m.decode([grp.target])}) at row ${grp.row}: ${Math.exp(lp[grp.target]).toFixed(3)}, ablated: ${effects.join(', ')}`);
    }
    console.log(`${name} ablate: max ${V > 256 ? 'top-10 prob' : 'logit'} diff ${max.toExponential(2)}, max KL diff ${klMax.toExponential(2)} ` +
      `(atol ${tol[0]}), ${swaps} near-tie ranks accepted`);
  });

  test(`${name}_patching_the_clean_residual_gives_the_reference_logit_difference_everywhere`, () => {
    const m = models[name], p = ref.patch, tol = [ref.atol.patch, ref.rtol], L = p.clean.length;
    const diff = (logits) => logits[(L - 1) * V + p.answer] - logits[(L - 1) * V + p.wrong];
    const clean = m.forward(p.clean), corrupt = m.forward(p.corrupt);
    close1(diff(clean.logits), p.clean_diff, tol, `${name} clean logit difference`);
    close1(diff(corrupt.logits), p.corrupt_diff, tol, `${name} corrupted logit difference`);
    if (p.clean_logits) {
      assertClose(row(clean.logits, L - 1, V), p.clean_logits, ...tol, `${name} clean last row`);
      assertClose(row(corrupt.logits, L - 1, V), p.corrupt_logits, ...tol, `${name} corrupted last row`);
    }
    const got = [], D = m.dModel;
    let max = 0;
    for (let l = 0; l < m.nLayers; l++) {
      for (let pos = 0; pos < L; pos++) {
        const out = m.forward(p.corrupt, { patch: [{ layer: l, position: pos, from: clean }] });
        got.push(diff(out.logits));
        // the patched row shows in the layer's x; the other rows are the corrupted run's
        for (let q = 0; q < L; q++)
          assert.deepEqual(row(out.layers[l].x, q, D), row((q === pos ? clean : corrupt).layers[l].x, q, D),
            `${name} patch (${l}, ${pos}): layers[${l}].x row ${q}`);
        if (p.logits) max = Math.max(max, assertClose(row(out.logits, L - 1, V), p.logits[l][pos], ...tol,
          `${name} patch (${l}, ${pos}) last row`));
      }
    }
    max = Math.max(max, assertClose(got, p.diff.flat(), ...tol, `${name} patched logit differences`));
    console.log(`${name} patch: clean ${p.clean_diff.toFixed(3)}, corrupted ${p.corrupt_diff.toFixed(3)}; ` +
      `by (layer, position): ${got.map((v) => v.toFixed(3)).join(' ')}; max diff ${max.toExponential(2)} (atol ${tol[0]})`);
  });

  test(`${name}_a_later_start_from_the_clean_run_gives_its_logits_and_an_early_stop_none`, () => {
    const m = models[name], p = ref.patch, tol = [ref.atol.patch, ref.rtol], L = p.clean.length;
    const diff = (logits) => logits[(L - 1) * V + p.answer] - logits[(L - 1) * V + p.wrong];
    const clean = m.forward(p.clean);
    for (let l = 0; l < m.nLayers; l++) {
      // the corrupted ids, but every block from l on fed the clean residual: the clean run's numbers
      const out = m.forward(p.corrupt, { start: { layer: l, from: clean } });
      for (let e = 0; e < l; e++) assert.equal(out.layers[e], null, `start at ${l}: layers[${e}] not run`);
      close1(diff(out.logits), p.clean_diff, tol, `${name} start at ${l}: logit difference`);
      if (p.clean_logits) assertClose(row(out.logits, L - 1, V), p.clean_logits, ...tol, `${name} start at ${l}: last row`);
    }
    for (let n = 1; n < m.nLayers + 1; n++) {
      const out = m.forward(p.clean, { stop: n });
      assert.equal(out.logits, null, `stop ${n}: no logits`);
      for (let l = 0; l < n; l++) assert.deepEqual(out.layers[l].resid2, clean.layers[l].resid2, `stop ${n}: layers[${l}].resid2`);
      for (let l = n; l < m.nLayers; l++) assert.ok(!out.layers[l], `stop ${n}: layers[${l}] not run`);
    }
  });
}

test('poems_reference_ids_are_the_engines_encoding_of_its_texts', () => {
  const m = models.poems, r = FIXTURES.find((f) => f.name === 'poems').ref;
  assert.deepEqual(Array.from(m.encode(r.texts.clean)), r.patch.clean);
  assert.deepEqual(Array.from(m.encode(r.texts.corrupt)), r.patch.corrupt);
  assert.deepEqual(Array.from(m.encode(r.texts.quatrain)), r.lens[1].ids);
  assert.equal(m.decode([r.ablate[1].target]), '乡');
});

test('bad_hook_options_throw_errors_naming_them_and_the_model_still_works', () => {
  const m = models.gpt2, ids = FIXTURES[0].ref.patch.clean, full = m.forward(ids), want = full.logits;
  const short = m.forward(ids.slice(0, 3));
  const bad = [
    [{ lens: 0 }, /lens/], [{ lens: 1.5 }, /lens/], [{ lens: m.vocabSize + 1 }, /lens/],
    [{ ablate: [[m.nLayers, 0]] }, /ablate/], [{ ablate: [[0, m.nHeads]] }, /ablate/], [{ ablate: [[0, 'attn']] }, /ablate/],
    [{ ablate: [0, 1] }, /ablate/],
    [{ patch: [{ layer: 0, position: ids.length, from: full }] }, /patch|position/],
    [{ patch: [{ layer: 0, position: 0, from: short }] }, /patch|from/],
    [{ patch: [{ layer: m.nLayers, position: 0, from: full }] }, /patch|layer/],
    [{ patch: [{ layer: 0, position: 0 }] }, /patch|from/],
    [{ start: { layer: 1, from: short } }, /start|from/], [{ start: { layer: m.nLayers + 1, from: full } }, /start|layer/],
    [{ stop: -1 }, /stop/], [{ stop: 1.5 }, /stop/], [{ stop: m.nLayers + 1 }, /stop/]
  ];
  for (const [opts, re] of bad)
    assert.throws(() => m.forward(ids, opts), (e) => e instanceof Error && re.test(e.message), JSON.stringify(opts));
  assert.deepEqual(m.forward(ids).logits, want);
});
