// reads.test.js - each figure's `reads` (figures/index.js) is the whole list of settings its
// output follows: a change of any other setting, to another valid value, leaves the output as it
// was, for random weights (few and many heads) and for the trained model; a `stream` setting
// changes the attention figure only together with its weights; and a read taken off a figure's
// list is reported, so the check can fail.
// A figure's output: its build(res, ctx) -> { data, blocks } (functions by presence, typed
// arrays as numbers) and those blocks drawn by the export renderer (draw/svg, which reads res
// too), for a result model.create(engine).compute(state). Not compose.js's title, state line and
// <desc>: they print the whole state (toHash) by design.
// Outside the contract: the page keys (controller.js PAGE_KEYS: lang, theme). They change the
// page's words and colours for every figure, never its numbers; this test draws in English, light.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const WEB = path.join(__dirname, '..', '..', 'web');
const mod = (p) => require(path.join(WEB, 'src', p));
const P = mod('model/params.js'), { FIGURES } = mod('figures/index.js'), { PAGE_KEYS } = mod('model/controller.js');
const model = mod('model/model.js'), { createAssets } = mod('model/assets.js');
const { translator } = mod('i18n/index.js'), { scheme } = mod('draw/colors.js');
const recorder = mod('draw/recorder.js'), { drawBlocks } = mod('draw/svg/index.js'), { Sheet } = mod('draw/svg/sheet.js');

// Other values of every setting (each is tried alone, on each base state where it is valid):
// small sizes, so that the ~100 computes take about 2 s.
const OTHER = {
  tokens: ['the cat sat on a mat', '远方有颗苹果花'], d: [4, 12, 16], dff: [16], heads: [1, 4],
  act: P.ACTIVATIONS.filter((a) => a !== 'relu'), seed: [7], causal: [true], scale: [false],
  sel: [2, 6], pert: [0, 6], pval: [-5], show: ['scaled', 'raw'], head: [2], init: ['scaled'], ln: ['pre'],
  masks: ['both'], hmeasure: ['entropy'], experts: [4, 16], topk: [1, 3], weights: ['poems'], model: ['llama'], layer: [2],
  temp: [0.5, 2], ablate: ['2.1', '1.ffn'], abltok: [5], sweep: ['on'],
  // activation patching: a corrupted text of the default's length; candidates of its answer pair
  corrupt: ['远方有颗苹果花'], answer: [40], wrong: [1157],
  // FFN neurons: another neuron; the held-out search
  neuron: ['1.5', '2.9'], nsearch: ['on']
};
// The states the changes start from: the classic example; 8 heads (the attention figure shows
// one head large, setting `head`); the trained poem model (its sizes replace d, d_ff, heads),
// also with a corrupted text.
const BASES = {
  random: P.defaults(),
  heads8: Object.assign(P.defaults(), { heads: 8 }),
  poems: Object.assign(P.defaults(), { weights: 'poems' }),
  // (activation patching draws its sweep only with a corrupted text: 苹果树 -> 苹果花)
  patched: Object.assign(P.defaults(), { weights: 'poems', corrupt: '远方有颗苹果花' })
};

const t = translator('en'), sc = scheme('light');

let engine, models;
test.before(async () => {
  engine = await require(path.join(WEB, 'dist', 'blocklens.js')).load();
  const assets = createAssets(), dir = path.join(WEB, 'models', 'poems'), read = (f) => fs.readFileSync(path.join(dir, f));
  assets.add('poems', { weights: new Uint8Array(read('model.safetensors')), config: JSON.parse(read('config.json')),
    vocab: JSON.parse(read('vocab.json')), heldout: read('heldout.txt').toString('utf8') });
  models = model.create(engine, assets);
});

// A state's result, computed once.
const results = new Map();
function result(state) {
  const key = P.toHash(state);
  if (!results.has(key)) results.set(key, models.compute(state));
  return results.get(key);
}

// What the figure `view` shows for `state`, as one string (drawn once).
const outputs = new Map();
function output(view, state) {
  const key = view + '#' + P.toHash(state);
  if (!outputs.has(key)) outputs.set(key, draw(view, state));
  return outputs.get(key);
}
function draw(view, state) {
  const res = result(state), ctx = { t, lang: 'en', scheme: sc, state, set() {}, setRaw() {} };
  const out = FIGURES.get(view).build(res, ctx);
  const rec = recorder.create(760, 100);
  drawBlocks(new Sheet(rec, sc, 760), out.blocks, res, ctx);
  const json = JSON.stringify({ data: out.data, blocks: out.blocks },
    (k, v) => (ArrayBuffer.isView(v) ? Array.from(v) : typeof v === 'function' ? 'function' : v));
  return json + '\n' + rec.toSVG({ title: '', desc: '', lang: 'en' });
}

// The single-setting changes of a base state that keep it valid: [{ key, value, state }].
function changes(base) {
  return Object.entries(OTHER).flatMap(([key, values]) => values
    .map((value) => ({ key, value, state: Object.assign({}, base, { [key]: value }) }))
    .filter((c) => P.validate(c.state).length === 0));
}

// The check: the changes of settings outside `reads` (page keys aside) that change what the
// figure `view` shows, as "key=value" (none when `reads` is the whole list).
function unreadChanges(view, reads) {
  const seen = [];
  for (const [name, base] of Object.entries(BASES)) {
    const before = output(view, base);
    for (const c of changes(base)) {
      if (reads.includes(c.key) || PAGE_KEYS.includes(c.key)) continue;
      if (output(view, c.state) !== before) seen.push(`${name}: ${c.key}=${c.value}`);
    }
  }
  return seen;
}

test('every_setting_but_the_page_keys_has_another_valid_value_on_every_base', () => {
  const keys = P.PARAMS.map((p) => p.key).filter((k) => !PAGE_KEYS.includes(k));
  assert.deepEqual(Object.keys(OTHER).sort(), keys.sort(), 'OTHER lists every setting of params.js');
  for (const [key, values] of Object.entries(OTHER)) {
    for (const v of values) {
      assert.ok(!P.coerce(key, String(v)).error, `${key}=${v} parses`);
      assert.notEqual(v, P.defaults()[key], `${key}=${v} is not the default`);
    }
  }
  for (const [name, base] of Object.entries(BASES)) {
    assert.deepEqual(P.validate(base), [], name + ' is valid');
    const tried = new Set(changes(base).map((c) => c.key));
    assert.deepEqual(keys.filter((k) => !tried.has(k)), [], `settings with no valid other value on ${name}`);
  }
});

for (const view of FIGURES.keys()) {
  test(`${view}_output_ignores_every_setting_outside_its_reads`, () => {
    assert.deepEqual(unreadChanges(view, FIGURES.get(view).reads), [], `${view} changed with a setting it does not read`);
  });
}

// page.js does not redraw a figure when only its `stream` settings changed and the weights
// stayed (relu -> gelu keeps them): its output must then be the same.
test('stream_setting_changes_a_figure_only_when_the_weights_change', () => {
  let kept = 0, moved = 0;
  for (const f of FIGURES.values()) {
    for (const key of f.stream || []) {
      const base = BASES.random, before = output(f.view, base);
      for (const c of changes(base).filter((x) => x.key === key)) {
        const same = result(c.state).keys.weights === result(base).keys.weights;
        if (same) { kept++; assert.equal(output(f.view, c.state), before, `${f.view}: ${key}=${c.value} keeps the weights`); }
        else if (output(f.view, c.state) !== before) moved++;
      }
    }
  }
  assert.ok(kept > 0 && moved > 0, `both cases tried: ${kept} with the same weights, ${moved} with new ones that redraw`);
});

// The check can fail: a figure's list without one of its reads is reported, for every read of
// every figure (none of them is listed without need).
for (const view of FIGURES.keys()) {
  test(`${view}_check_reports_each_read_taken_off_its_list`, () => {
    const reads = FIGURES.get(view).reads;
    const unseen = reads.filter((r) => {
      const seen = unreadChanges(view, reads.filter((x) => x !== r));
      assert.ok(seen.every((s) => s.includes(': ' + r + '=')), `${view} without ${r}: only ${r} is reported: ${seen}`);
      return !seen.length;
    });
    assert.deepEqual(unseen, [], `${view}: reads whose removal the check does not report`);
  });
}
