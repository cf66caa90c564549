// modelview.test.js - figure 12, the model view (web/src/figures/heads.js, stage
// web/src/model/stages/modelview.js): on the shipped poem model and on the tiny qwen3 folder,
// every cell of the grid is the wide stage's weights of that layer and head, the summary is
// headJobs / headRoles of that layer, the hover text names the head's largest weights (found
// again here by a plain sort), and the data table lists every head sorted by the measure.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { BlockLens, root } = require('./helpers.js');

const SRC = path.join(root, 'web', 'src');
const { headJobs, headRoles } = require(path.join(SRC, 'model', 'stages', 'heads.js'));
const { topWeights, MEASURES } = require(path.join(SRC, 'model', 'stages', 'modelview.js'));
const model = require(path.join(SRC, 'model', 'model.js'));
const params = require(path.join(SRC, 'model', 'params.js'));
const { createAssets } = require(path.join(SRC, 'model', 'assets.js'));
const { FIGURES } = require(path.join(SRC, 'figures', 'index.js'));
const { compose } = require(path.join(SRC, 'figures', 'compose.js'));
const i18n = require(path.join(SRC, 'i18n', 'index.js'));
const colors = require(path.join(SRC, 'draw', 'colors.js'));

const QUATRAIN = '床前明月光，疑是地上霜。举头望明月，低头思故乡。';

function poemAssets() {
  const dir = path.join(root, 'web', 'models', 'poems'), assets = createAssets();
  assets.add('poems', { weights: new Uint8Array(fs.readFileSync(path.join(dir, 'model.safetensors'))),
    config: JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8')),
    vocab: JSON.parse(fs.readFileSync(path.join(dir, 'vocab.json'), 'utf8')) });
  return assets;
}
const ctxOf = (state, lang = 'en') => ({ t: i18n.translator(lang), lang, scheme: colors.scheme('light'),
  state: Object.assign({}, state, { lang, theme: 'light' }), set: () => {} });

// The head's largest weights by sorting every (query >= 1, key <= query) cell.
function sortedTop(w, h, L, n) {
  const all = [];
  for (let q = 1; q < L; q++) for (let k = 0; k <= q; k++) all.push({ q, k, w: w[(h * L + q) * L + k] });
  return all.sort((a, b) => b.w - a.w || (a.q - b.q) || (a.k - b.k)).slice(0, n);
}

test('top_weights_are_the_largest_cells_of_the_head_in_order', () => {
  const L = 5, H = 2, w = new Float32Array(H * L * L);
  let x = 1;
  for (let i = 0; i < w.length; i++) { x = (x * 48271) % 2147483647; w[i] = x / 2147483647; }
  for (let h = 0; h < H; h++) assert.deepEqual(topWeights(w, h, L, 4), sortedTop(w, h, L, 4));
  assert.equal(topWeights(w, 0, L, 4).some((c) => c.q === 0 || c.k > c.q), false, 'no query 0, no masked cell');
});

test('the_poem_models_grid_is_the_wide_stages_weights_and_the_measures_per_layer', async () => {
  const bl = await BlockLens.load();
  const state = Object.assign(params.defaults(), { weights: 'poems', tokens: QUATRAIN, hmeasure: 'up' });
  const res = model.create(bl, poemAssets()).compute(state), wide = res.wide, mv = res.modelview;
  const L = wide.L, H = wide.heads, NL = wide.layers;
  assert.deepEqual([NL, H, L], [2, 4, 25]);
  const out = FIGURES.get('heads').build(res, ctxOf(state));
  const grid = out.blocks.find((b) => b.type === 'grid');
  assert.equal(grid.cells.length, NL * H);
  let maxDiff = 0;
  for (let l = 0; l < NL; l++) {
    const A = wide.attention[l], jobs = headJobs(A, wide.ids, H, L), roles = headRoles({ weights: A }, res.tokens, H, L);
    assert.equal(roles.n, 5);
    for (let h = 0; h < H; h++) {
      const c = grid.cells[l * H + h], r = mv.layers[l][h];
      assert.equal(c.layer, l); assert.equal(c.head, h);
      // The cell's map: head h of layer l, under the causal mask.
      assert.equal(c.spec.data, A); assert.equal(c.spec.offset, h * L * L);
      assert.equal(c.spec.masked(2, 3), true); assert.equal(c.spec.masked(3, 2), false);
      const P = jobs.heads[h].patterns;
      for (const [k, v] of [['prev', P.prev.w], ['sink', P.sink.w], ['self', P.self.w],
        ['up', roles.heads[h].patterns.up.w], ['entropy', jobs.heads[h].entropy]]) {
        maxDiff = Math.max(maxDiff, Math.abs(r[k] - v));
      }
      assert.equal(c.badge, Math.round(100 * roles.heads[h].patterns.up.w) + '%');
      const top = sortedTop(A, h, L, 3);
      assert.deepEqual(r.largest, top);
      assert.ok(c.hint.includes('\u201c' + res.tokens[top[0].q] + '\u201d \u2192 \u201c' + res.tokens[top[0].k] +
        '\u201d ' + top[0].w.toFixed(2)), c.hint);
    }
  }
  assert.ok(maxDiff === 0, 'measures equal headJobs / headRoles exactly: max diff ' + maxDiff);
  // Layer 1 head 3 reads one line up (tools/train/REPORT.md): the table's first row.
  const table = grid.table, col = (k) => 1 + MEASURES.indexOf(k);
  assert.equal(table.rows, NL * H);
  assert.equal(table.rowLabels[0], 'Layer 1, head 3');
  assert.equal(out.data.best, 'l1h3');
  const ups = Array.from({ length: table.rows }, (_, i) => Number(table.cell(i, col('up')).replace('%', '')));
  assert.deepEqual(ups, ups.slice().sort((a, b) => b - a), 'sorted by the measure');
  for (let i = 0; i < table.rows; i++) {
    const [, l, h] = /Layer (\d), head (\d)/.exec(table.rowLabels[i]).map(Number), r = mv.layers[l - 1][h - 1];
    assert.equal(table.cell(i, col('entropy')), r.entropy.toFixed(2));
    assert.equal(table.cell(i, col('prev')), Math.round(100 * r.prev) + '%');
  }
  assert.equal(out.data.cells, '8');
  // The export draws the grid: every badge, both languages.
  for (const lang of ['en', 'zh']) {
    const svg = compose('heads', res, ctxOf(state, lang)).svg();
    for (const c of grid.cells) assert.ok(svg.includes('>' + c.badge + '<'), lang + ' ' + c.badge);
  }
});

test('random_weights_say_why_the_model_view_is_empty', async () => {
  const bl = await BlockLens.load(), state = params.defaults();
  const res = model.create(bl).compute(state);
  assert.equal(res.modelview, null);
  const out = FIGURES.get('heads').build(res, ctxOf(state));
  assert.equal(out.data.trained, 'no');
  assert.match(out.blocks[0].text, /Random weights have a single block/);
});

// The tiny qwen3 folder opened as the page opens one (tools/render.js's openFolder): its text is
// the torch reference's ids, so the grid's layer is checked against torch's weights too.
async function openQwen3(bl, assets) {
  const dir = path.join(root, 'tests', 'fixtures', 'models', 'qwen3');
  const folder = require(path.join(SRC, 'model', 'folder.js')), opener = require(path.join(SRC, 'dom', 'opener.js'));
  const names = fs.readdirSync(dir).filter((f) => f !== 'reference.json' && f !== 'hooks.json');
  const files = await Promise.all(names.map(async (f) => new File([await fs.openAsBlob(path.join(dir, f))], f)));
  const m = await bl.loadModel(dir), meta = await folder.facts(files, m, 1);
  meta.name = 'qwen3';
  const tok = await opener.pageTokenizer(folder.byName(files),
    async () => require(path.join(root, 'web', 'dist', 'blocklens-tokenizers.js')));
  params.setOpened(folder.openedModel(meta, tok));
  assets.put('model', m);
}

test('an_opened_qwen3_folders_grid_has_its_layers_by_heads_and_torchs_weights', async () => {
  const bl = await BlockLens.load(), assets = createAssets();
  await openQwen3(bl, assets);
  const ref = require(path.join(root, 'tests', 'fixtures', 'models', 'qwen3', 'reference.json'));
  const { textOf } = require(path.join(root, 'tools', 'tokenizer', 'fixtures.js'));
  const state = Object.assign(params.defaults(), { weights: 'model', model: 'qwen3', tokens: textOf(ref.ids),
    hmeasure: 'entropy' });
  const res = model.create(bl, assets).compute(state), wide = res.wide, mv = res.modelview;
  assert.deepEqual(Array.from(wide.ids), ref.ids);
  const L = wide.L, H = wide.heads;
  assert.deepEqual([wide.layers, H], [2, 4]);
  const got = wide.attention[ref.layer], want = ref.expected['layer.weights'];
  let max = 0;
  for (let i = 0; i < want.length; i++) max = Math.max(max, Math.abs(got[i] - want[i]) - ref.rtol * Math.abs(want[i]));
  assert.ok(max <= ref.atol, 'layer ' + ref.layer + ' weights against torch: max excess ' + max);
  const out = FIGURES.get('heads').build(res, ctxOf(state));
  assert.equal(out.data.applies, 'yes');
  const grid = out.blocks.find((b) => b.type === 'grid');
  assert.deepEqual([grid.layers, grid.heads, grid.cells.length], [2, 4, 8]);
  for (let l = 0; l < 2; l++) {
    const jobs = headJobs(wide.attention[l], wide.ids, H, L);
    for (let h = 0; h < H; h++) {
      const c = grid.cells[l * H + h];
      assert.equal(c.spec.data, wide.attention[l]);
      assert.equal(mv.layers[l][h].entropy, jobs.heads[h].entropy);
      assert.equal(mv.layers[l][h].up, null, 'no lines outside the poem model');
      assert.equal(c.badge, jobs.heads[h].entropy.toFixed(2));
    }
  }
  assert.ok(out.blocks.some((b) => b.type === 'note' && /poem model/.test(b.text)));
});
