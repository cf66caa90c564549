// heads_jobs.test.js - headJobs (web/src/model/stages/heads.js), the jobs an opened model's heads
// may have on any text, on hand-built weight matrices whose answer is known: a previous-token
// head, a sink head, an induction head on a repeated sequence and a uniform head, each named
// right, with its mean weights against an even row's and its entropy in bits.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { root } = require('./helpers.js');

const { headJobs, DIFFUSE } = require(path.join(root, 'web', 'src', 'model', 'stages', 'heads.js'));
// Even rows are stored as float32 (1/3 is off by 1e-8): what is computed from them is held to 1e-6,
// what is not (an even row's share, in doubles) to 1e-12.
const F32 = 1e-6, TOL = 1e-12;
const close = (got, want, what, tol = TOL) => assert.ok(Math.abs(got - want) <= tol,
  `${what}: ${got} vs ${want}, off by ${Math.abs(got - want)}`);

// <s>, then "a b c d" twice: from the second "a" on, each token's last occurrence is 4 back, so
// its induction key (the token after it) is 3 back.
const IDS = [0, 10, 11, 12, 13, 10, 11, 12, 13], L = IDS.length, INDUCTION_AT = { 5: 2, 6: 3, 7: 4, 8: 5 };

// H rows-of-softmax heads, each given as (q) -> the row's weights over keys 0..q.
function heads(...rowFns) {
  const w = new Float32Array(rowFns.length * L * L);
  rowFns.forEach((fn, h) => {
    for (let q = 0; q < L; q++) {
      const row = fn(q);
      assert.equal(row.length, q + 1);
      close(row.reduce((a, b) => a + b, 0), 1, 'a row sums to 1', F32);
      row.forEach((v, k) => { w[(h * L + q) * L + k] = v; });
    }
  });
  return w;
}
const oneHot = (q, k) => Array.from({ length: q + 1 }, (_, i) => (i === k ? 1 : 0));
const even = (q) => Array.from({ length: q + 1 }, () => 1 / (q + 1));
// A uniform causal row's mean weight on one key, over queries a .. b.
const share = (a, b) => { let s = 0; for (let q = a; q <= b; q++) s += 1 / (q + 1); return s / (b - a + 1); };

test('four_hand_built_heads_are_named_previous_sink_induction_and_spread_out', () => {
  const w = heads((q) => oneHot(q, Math.max(0, q - 1)), (q) => oneHot(q, 0),
    (q) => (INDUCTION_AT[q] !== undefined ? oneHot(q, INDUCTION_AT[q]) : even(q)), even);
  const r = headJobs(w, IDS, 4, L);
  assert.equal(r.kind, 'any');
  assert.equal(r.repeats, 4, 'the second a, b, c and d');
  assert.deepEqual(r.heads.map((h) => (h.sharp ? h.top : 'diffuse')), ['prev', 'sink', 'induction', 'diffuse']);
  const [prev, sink, ind, uni] = r.heads;
  // The previous-token head: all its weight on key q - 1, against 1/(q + 1) for q = 2 .. 8.
  assert.equal(prev.patterns.prev.w, 1);
  close(prev.patterns.prev.u, share(2, 8), 'even row on the previous token');
  close(prev.patterns.prev.lift, 1 / share(2, 8), 'lift');
  assert.equal(prev.patterns.sink.w, 0);
  assert.equal(prev.patterns.self.w, 0);
  assert.equal(prev.patterns.induction.w, 0, 'key q - 1 is never an induction key here');
  assert.equal(prev.entropy, 0, 'one-hot rows carry no bits');
  // The sink head.
  assert.equal(sink.patterns.sink.w, 1);
  assert.equal(sink.patterns.prev.w, 0);
  assert.equal(sink.entropy, 0);
  // The induction head: measured only at the 4 queries with an earlier occurrence.
  assert.equal(ind.patterns.induction.q, 4);
  assert.equal(ind.patterns.induction.w, 1);
  close(ind.patterns.induction.u, share(5, 8), 'even row on the induction key');
  assert.ok(ind.patterns.induction.lift >= DIFFUSE);
  let bits = 0;
  for (let q = 2; q <= 4; q++) bits += Math.log2(q + 1);
  close(ind.entropy, bits / 7, 'even rows at q = 2 .. 4, one-hot after', F32);
  // The uniform head: every pattern exactly an even row's weight, entropy that of an even row.
  for (const [p, v] of Object.entries(uni.patterns)) close(v.lift, 1, p, F32);
  let even8 = 0;
  for (let q = 2; q <= 8; q++) even8 += Math.log2(q + 1);
  close(uni.entropy, even8 / 7, 'uniform entropy', F32);
  close(r.uniformEntropy, even8 / 7, 'the reference entropy');
});

test('a_head_sharp_on_a_key_no_pattern_names_is_focused_not_spread_out', () => {
  // Head 1 reads key 1 from every query (content, not place); head 2 even rows.
  const r = headJobs(heads((q) => oneHot(q, Math.min(q, 1)), even), IDS, 2, L);
  assert.equal(r.heads[0].sharp, false, 'key 1 is none of the four kinds past q = 2');
  assert.equal(r.heads[0].entropy, 0);
  assert.equal(r.heads[0].focused, true);
  assert.equal(r.heads[1].focused, false, 'even rows are spread out');
  const prev = heads((q) => oneHot(q, Math.max(0, q - 1)));
  assert.equal(headJobs(prev, IDS, 1, L).heads[0].focused, false, 'a head with a job is not "focused"');
});

test('a_self_head_is_named_and_text_without_repeats_has_no_induction_pattern', () => {
  const ids = [0, 1, 2, 3, 4, 5], n = ids.length, w = new Float32Array(n * n);
  for (let q = 0; q < n; q++) w[q * n + q] = 1;
  const r = headJobs(w, ids, 1, n);
  assert.equal(r.repeats, 0);
  assert.equal(r.heads[0].top, 'self');
  assert.equal(r.heads[0].sharp, true);
  assert.equal(r.heads[0].patterns.induction, undefined, 'no query has an earlier occurrence');
});

test('a_head_twice_as_heavy_as_an_even_row_stands_out_and_just_under_does_not', () => {
  // Key 0 gets f times an even row's share at every query: lift f exactly.
  const n = 6, ids = [0, 1, 2, 3, 4, 5], at = (f) => {
    const w = new Float32Array(n * n);
    for (let q = 0; q < n; q++) {
      const s0 = Math.min(1, f / (q + 1)), rest = (1 - s0) / q;
      for (let k = 0; k <= q; k++) w[q * n + k] = k === 0 ? s0 : rest;
    }
    return headJobs(w, ids, 1, n).heads[0];
  };
  const a = at(2.05), b = at(1.95);
  assert.equal(a.top, 'sink');
  assert.equal(a.sharp, true);
  assert.equal(b.top, 'sink');
  assert.equal(b.sharp, false);
});

test('fewer_than_three_tokens_give_no_jobs', () => {
  assert.equal(headJobs(new Float32Array(4), [0, 1], 1, 2), null);
});

// The SVG export (tools/render.js --model) carries the job table: a row per head, with the
// numbers headJobs gives on the layer's weights from the engine.
test('the_export_of_an_opened_llama_draws_the_job_table_headjobs_computes', async () => {
  const { render, parseState } = require('../../tools/render.js');
  const { textOf } = require('../../tools/tokenizer/fixtures.js');
  const { BlockLens } = require('./helpers.js');
  const dir = path.join(root, 'tests', 'fixtures', 'models', 'llama'), ids = [3, 17, 0, 42, 63, 17, 3, 17, 0, 42];
  const bl = await BlockLens.load(), m = await bl.loadModel(dir);
  let ref;
  try {
    const w = m.forward(Int32Array.from(ids), { layers: [0] }).layers[0].attention.weights;
    ref = headJobs(w, ids, w.length / ids.length ** 2, ids.length);
  } finally { m.free(); }
  const job = parseState('tokens=' + encodeURIComponent(textOf(ids)) + '&layer=1', 'attention');
  const svg = (await render(job.view, job.state, { lang: 'en', model: dir })).svg;
  const texts = Array.from(svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g), (x) => x[1].replace(/&amp;/g, '&'));
  assert.ok(texts.includes('The 4 heads of layer 1: mean weight per kind of key'), 'the caption');
  const pct = (v) => Math.round(100 * v) + '%';
  ref.heads.forEach((h, i) => {
    const at = texts.lastIndexOf('Head ' + (i + 1));   // (the maps' titles come first)
    assert.ok(at >= 0, `head ${i + 1}'s row`);
    // The row's cells follow its head in drawing order: job, its lift, 4 weights, the entropy.
    const row = texts.slice(at + 1, at + 8);
    assert.deepEqual(row.slice(2), [...['prev', 'sink', 'self', 'induction'].map((p) => pct(h.patterns[p].w)),
      h.entropy.toFixed(2)], `head ${i + 1}: ${row.join(' | ')}`);
  });
});
