// figure_notes.test.js - the numbers the attention and MoE notes quote, in both languages: the
// peak is set against uniform rows under the same mask (causal: the mean of 1/(i + 1), not 1/L),
// and every expert tied for the largest load is named (issue 24, findings 1 and 2).
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { BlockLens } = require('./helpers.js');

const SRC = path.join(__dirname, '..', '..', 'web', 'src');
const model = require(path.join(SRC, 'model', 'model.js'));
const params = require(path.join(SRC, 'model', 'params.js'));
const { uniformPeak } = require(path.join(SRC, 'model', 'stages', 'attention.js'));
const { busiest } = require(path.join(SRC, 'model', 'stages', 'moe.js'));
const { FIGURES } = require(path.join(SRC, 'figures', 'index.js'));
const i18n = require(path.join(SRC, 'i18n', 'index.js'));

let bl;
test.before(async () => { bl = await BlockLens.load(); });

// The answer for the defaults patched by `patch`, and the notes view `view` writes in `lang`.
function run(patch) { return model.create(bl).compute(Object.assign(params.defaults(), patch)); }
function notes(view, res, lang, patch) {
  const state = Object.assign(params.defaults(), patch, { lang });
  const fig = FIGURES.get(view).build(res, { t: i18n.translator(lang), lang, state, set() {} });
  return { data: fig.data, text: fig.blocks.map((b) => b.text || b.note || '').filter(Boolean).join('\n') };
}
const harmonicMean = (L) => Array.from({ length: L }, (_, i) => 1 / (i + 1)).reduce((a, b) => a + b) / L;
const TOKENS_25 = Array.from({ length: 25 }, (_, i) => 't' + i).join(' ');

test('uniform_peak_is_one_over_L_without_a_mask_and_the_mean_of_one_over_i_plus_one_causal', () => {
  for (const L of [1, 2, 7, 25]) {
    assert.equal(uniformPeak(L, false), 1 / L);
    const got = uniformPeak(L, true), want = harmonicMean(L);
    assert.ok(Math.abs(got - want) <= 1e-15, `L ${L}: ${got} vs ${want} (diff ${Math.abs(got - want)})`);
  }
  assert.equal(uniformPeak(7, true).toFixed(2), '0.37');
  assert.equal(uniformPeak(25, true).toFixed(2), '0.15');
  assert.equal(uniformPeak(1, true), 1);
});

test('attnstats_stage_gives_the_uniform_reference_of_its_mask', () => {
  for (const [patch, L, want] of [[{}, 7, 1 / 7], [{ causal: true }, 7, harmonicMean(7)],
    [{ causal: true, tokens: TOKENS_25 }, 25, harmonicMean(25)], [{ causal: false, tokens: TOKENS_25 }, 25, 1 / 25]]) {
    const r = run(patch);
    assert.equal(r.L, L);
    assert.ok(Math.abs(r.attnstats.uniform - want) <= 1e-15, `${JSON.stringify(patch)}: ${r.attnstats.uniform} vs ${want}`);
    // A causal run is peakier than its own uniform reference, never below it.
    assert.ok(r.attnstats.peak >= r.attnstats.uniform - 1e-7, `peak ${r.attnstats.peak} >= ${r.attnstats.uniform}`);
  }
});

test('attention_note_under_the_causal_mask_quotes_the_causal_uniform_reference_en_zh', () => {
  for (const [patch, u] of [[{ causal: true }, '0.37'], [{ causal: true, tokens: TOKENS_25 }, '0.15']]) {
    const res = run(patch), en = notes('attention', res, 'en', patch), zh = notes('attention', res, 'zh', patch);
    assert.match(en.text, new RegExp('a uniform causal row would average ' + u.replace('.', '\\.') + ', as row i'));
    assert.ok(zh.text.includes('均匀的因果行平均为 ' + u), zh.text);
    for (const n of [en, zh]) assert.ok(!n.text.includes('1/L'), 'no 1/L reference under the causal mask: ' + n.text);
    assert.equal(en.data.uniform, res.attnstats.uniform.toFixed(4));
  }
  const res = run({}), en = notes('attention', res, 'en', {}), zh = notes('attention', res, 'zh', {});
  assert.ok(en.text.includes('uniform rows would give 1/L = 0.14'), en.text);
  assert.ok(zh.text.includes('均匀分布为 1/L = 0.14'), zh.text);
});

test('attention_note_with_both_masks_quotes_the_bert_and_gpt_uniform_references_en_zh', () => {
  for (const causal of [true, false]) {
    const patch = { causal, masks: 'both' }, res = run(patch);
    assert.ok(Math.abs(res.maskpair.gpt.uniform - harmonicMean(7)) <= 1e-15);
    assert.equal(res.maskpair.bert.uniform, 1 / 7);
    const en = notes('attention', res, 'en', patch), zh = notes('attention', res, 'zh', patch);
    assert.ok(en.text.includes('(uniform rows would give 0.37 under the causal mask, 1/L = 0.14 with none)'), en.text);
    assert.ok(zh.text.includes('（均匀的行在因果掩码下平均为 0.37，无掩码时为 1/L = 0.14）'), zh.text);
    assert.deepEqual([en.data.uniformGpt, en.data.uniformBert], [harmonicMean(7).toFixed(4), (1 / 7).toFixed(4)]);
  }
});

test('busiest_names_every_expert_tied_for_the_largest_load', () => {
  assert.deepEqual(busiest(Int32Array.from([0, 3, 1, 1, 3, 2, 3, 1])), [1, 4, 6]);
  assert.deepEqual(busiest([5, 2, 0]), [0]);
  assert.deepEqual(busiest([2, 2]), [0, 1]);
});

test('moe_load_note_names_all_three_experts_tied_at_three_en_zh', () => {
  const res = run({});   // the defaults: 7 tokens, top-2 over 8 experts, loads 0,3,1,1,3,2,3,1
  assert.equal(Array.from(res.moe.load).join(','), '0,3,1,1,3,2,3,1');
  assert.deepEqual(res.moe.busiest, [1, 4, 6]);
  assert.ok(notes('moe', res, 'en', {}).text.includes('The busiest, experts 1, 4 and 6, get 3 each.'));
  assert.ok(notes('moe', res, 'zh', {}).text.includes('最忙的是专家 1、4 和 6，各分到 3 个。'));
});

test('moe_load_note_with_one_busiest_expert_or_all_tied', () => {
  const res = run({});
  // One expert ahead (the same answer with expert 6's load raised by one).
  const one = Object.assign({}, res, { moe: Object.assign({}, res.moe, { load: Int32Array.from([0, 3, 1, 1, 3, 2, 4, 0]),
    busiest: [6] }) });
  assert.ok(notes('moe', one, 'en', {}).text.includes('The busiest, expert 6, gets 4.'));
  assert.ok(notes('moe', one, 'zh', {}).text.includes('最忙的是专家 6，分到 4 个。'));
  // Every expert tied: top-2 of 2 experts sends each of the 7 tokens to both.
  const patch = { experts: 2, topk: 2 }, r = run(patch);
  assert.deepEqual(r.moe.busiest, [0, 1]);
  assert.ok(notes('moe', r, 'en', patch).text.includes('Every expert gets 7.'));
  assert.ok(notes('moe', r, 'zh', patch).text.includes('每个专家都分到 7 个。'));
});
