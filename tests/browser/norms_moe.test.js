/* norms_moe.test.js - figures 7 (norms) and 9 (moe) against independent computations: which
   rows each norm changes when one token is perturbed (plain float64 norms here), the statistics
   the LayerNorm card tables, the router's choices, loads, probabilities and output against a
   direct bl.moe call in Node with weights drawn as the figure says, the parameter counts by
   formula, the experts' width cap at BERT widths; page and Node SVG the same bytes. */
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const { setup, open, settle, figureTexts, FILE_URL, WEB } = require('./helpers.js');
const { render, parseState } = require('../../tools/render.js');

const F = require(path.join(WEB, 'src', 'draw', 'format.js'));
let env, bl;
test.before(async () => {
  env = await setup({ server: true });
  bl = await require(path.join(WEB, 'dist', 'blocklens.js')).load();
});
test.after(async () => { await env.close(); });

// x as the page draws it: np.random.seed(seed); randn(L, d) in float32.
const xOf = (seed, L, d) => bl.numpyRandom(seed).randnF32(L * d);

// The three norms in float64, no gamma / beta, eps 1e-5: out (L*d).
function norm64(kind, x, L, d) {
  const out = new Float64Array(L * d), eps = 1e-5;
  const groups = kind === 'batch' ? d : L, size = kind === 'batch' ? L : d;
  const at = kind === 'batch' ? (g, j) => j * d + g : (g, j) => g * d + j;
  for (let g = 0; g < groups; g++) {
    let mean = 0, sq = 0;
    for (let j = 0; j < size; j++) mean += x[at(g, j)] / size;
    if (kind === 'rms') mean = 0;
    for (let j = 0; j < size; j++) sq += (x[at(g, j)] - mean) ** 2 / size;
    for (let j = 0; j < size; j++) out[at(g, j)] = (x[at(g, j)] - mean) / Math.sqrt(sq + eps);
  }
  return out;
}

// Rows whose output moves by more than a float32 rounding when row `p` is set to `v`.
function changedRows(kind, x, L, d, p, v) {
  const x2 = Float32Array.from(x);
  x2.fill(v, p * d, (p + 1) * d);
  const a = norm64(kind, x, L, d), b = norm64(kind, x2, L, d), rows = [];
  for (let r = 0; r < L; r++) if (Array.from({ length: d }, (_, c) => Math.abs(a[r * d + c] - b[r * d + c])).some((e) => e > 1e-4)) rows.push(r);
  return rows.join(',');
}

// Opens a figure's data table (built on the toggle event) and returns its body as text cells.
async function tableOf(page, sel) {
  await page.click(sel + ' details.table-alt summary');
  await page.waitForSelector(sel + ' details.table-alt table');
  return page.$$eval(sel + ' details.table-alt tbody tr', (trs) => trs.map((tr) => Array.from(tr.children, (c) => c.textContent)));
}

test('layer_norm_changes_only_the_perturbed_row_batch_norm_changes_every_row', async () => {
  const { page, log, close } = await open(env.browser, FILE_URL, 'lang=en');
  try {
    const rows = () => page.$eval('#fig-norms', (e) => [e.dataset.layerRows, e.dataset.batchRows, e.dataset.rmsRows]);
    const x = xOf(42, 7, 8), all = '0,1,2,3,4,5,6';
    assert.deepStrictEqual(await rows(), ['3', all, '3'], 'token 3 set to 1000: one row, all 7 rows, one row');
    assert.deepStrictEqual(await rows(), ['layer', 'batch', 'rms'].map((k) => changedRows(k, x, 7, 8, 3, 1000)), 'as float64 norms say');
    // Another token and value, through the figure's own controls.
    await page.click('#fig-norms button.tok >> nth=1');
    await settle(page);
    const field = page.locator('#fig-norms input[name="pval"]');
    await field.fill('-2.5');
    await field.press('Enter');
    await settle(page);
    assert.match(page.url(), /pert=1&/);
    assert.deepStrictEqual(await rows(), ['1', all, '1']);
    assert.deepStrictEqual(await rows(), ['layer', 'batch', 'rms'].map((k) => changedRows(k, x, 7, 8, 1, -2.5)));
    const counts = await page.textContent('#fig-norms .blk-headline >> nth=1');
    assert.match(counts, /LayerNorm changed 1 of 7 rows, BatchNorm 7 of 7, RMSNorm 1 of 7/);
    // LayerNorm's statistics in its card's table: mean and sqrt(var + eps) of each row of x.
    const cells = await tableOf(page, '#fig-norms .groups-card[data-kind="layer"]');
    assert.strictEqual(cells.length, 7);
    cells.forEach((row, r) => {
      const v = Array.from(x.subarray(r * 8, r * 8 + 8)), mean = v.reduce((a, b) => a + b, 0) / 8;
      const sd = Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / 8 + 1e-5);
      const shown = row.slice(1, 3).map((s) => Number(s.replace('\u2212', '-')));
      assert.ok(Math.abs(shown[0] - mean) <= 5e-4 * Math.max(1, Math.abs(mean)), `row ${r}: mean ${shown[0]} vs ${mean}`);
      assert.ok(Math.abs(shown[1] - sd) <= 5e-4 * sd, `row ${r}: std ${shown[1]} vs ${sd}`);
    });
    // The keyboard reads a statistic with the group it belongs to: BatchNorm's column 1.
    await page.focus('#fig-norms .groups-card[data-kind="batch"] canvas.groups-strips');
    await page.keyboard.press('ArrowRight');
    const col = Array.from({ length: 7 }, (_, r) => x[r * 8 + 1]), mean = col.reduce((a, b) => a + b, 0) / 7;
    const tip = await page.textContent('.bl-tip');
    assert.match(tip, /^column 1: \u03bc = (\S+), \u03c3 = \S+$/);
    assert.ok(Math.abs(Number(/= (\S+),/.exec(tip)[1].replace('\u2212', '-')) - mean) < 1e-6, tip + ' vs ' + mean);
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});

// The figure's weights, drawn as its note says: np.random.seed(seed + 1), then Wr (d, E), W1
// (E, d, f), b1 (E, f), [W3, b3], W2 (E, f, d), b2 (E, d); scaled init divides Wr, W1, W3 by
// sqrt(d) and W2 by sqrt(f) (float32 products).
function directMoe(o) {
  const r = bl.numpyRandom(o.seed + 1), sc = (a, s) => (o.init === 'scaled' ? a.map((v) => v * s) : a);
  const { L, d, E, f } = o, gated = o.act === 'swiglu' || o.act === 'geglu';
  const a = { L, dModel: d, dFF: f, nExperts: E, topK: o.K, x: xOf(o.seed, L, d), activation: o.act };
  a.Wr = sc(r.randnF32(d * E), 1 / Math.sqrt(d));
  a.W1 = sc(r.randnF32(E * d * f), 1 / Math.sqrt(d)); a.b1 = r.randnF32(E * f);
  if (gated) { a.W3 = sc(r.randnF32(E * d * f), 1 / Math.sqrt(d)); a.b3 = r.randnF32(E * f); }
  a.W2 = sc(r.randnF32(E * f * d), 1 / Math.sqrt(f)); a.b2 = r.randnF32(E * d);
  return bl.moe(a);
}

for (const [name, hash, o] of [
  ['classic', 'lang=en', { seed: 42, L: 7, d: 8, dff: 32, E: 8, K: 2, f: 32, act: 'relu', init: 'classic' }],
  ['gated_scaled', 'lang=en&act=swiglu&init=scaled&seed=7&experts=5&topk=3&d=12&dff=20&heads=3',
    { seed: 7, L: 7, d: 12, dff: 20, E: 5, K: 3, f: 20, act: 'swiglu', init: 'scaled' }]]) {
  test(`moe_figure_shows_what_a_direct_bl_moe_call_computes_${name}`, async () => {
    const { page, log, close } = await open(env.browser, FILE_URL, hash);
    try {
      const m = directMoe(o), data = await page.$eval('#fig-moe', (e) => Object.assign({}, e.dataset));
      assert.strictEqual(data.top, Array.from(m.topIndex).join(','), 'each token\'s chosen experts');
      assert.strictEqual(data.load, Array.from(m.load).join(','), 'tokens per expert');
      assert.strictEqual(m.load.reduce((a, b) => a + b, 0), o.L * o.K);
      assert.strictEqual(await page.$eval('#fig-moe .counts', (e) => e.dataset.counts), data.load, 'the bars');
      const probs = await tableOf(page, '#fig-moe .groups-card[data-kind="router"]');
      probs.forEach((row, r) => row.slice(1).forEach((cell, e) => {
        const k = Array.from(m.topIndex.subarray(r * o.K, (r + 1) * o.K)).indexOf(e);
        assert.strictEqual(cell, F.short(m.probs[r * o.E + e]) + (k >= 0 ? ' (#' + (k + 1) + ')' : ''), `probs[${r}, ${e}]`);
      }));
      const out = await tableOf(page, '#fig-moe .moe-out');
      out.forEach((row, r) => row.slice(1).forEach((cell, c) => assert.strictEqual(cell, F.short(m.out[r * o.d + c]), `out[${r}, ${c}]`)));
      // Parameters: E experts of (m matrices d x d_ff + biases) and the router d x E; per token K of them.
      const gated = o.act === 'swiglu', expert = (gated ? 3 : 2) * o.d * o.dff + (gated ? 2 : 1) * o.dff + o.d;
      const params = await page.textContent('#fig-moe .formulas dd');
      assert.ok(params.includes(': ' + F.int(o.E * expert + o.d * o.E) + ' '), params);
      assert.ok(params.includes(F.int(o.K * expert + o.d * o.E) + ' '), params);
      assert.deepStrictEqual(log.errors, []);
    } finally { await close(); }
  });
}

test('moe_controls_change_the_experts_and_top_k', async () => {
  const { page, log, close } = await open(env.browser, FILE_URL, 'lang=en');
  try {
    for (const [key, v] of [['experts', '4'], ['topk', '1']]) {
      const field = page.locator(`#fig-moe input[name="${key}"]`);
      await field.fill(v);
      await field.press('Enter');
      await settle(page);
    }
    assert.match(page.url(), /experts=4&topk=1/);
    const m = directMoe({ seed: 42, L: 7, d: 8, E: 4, K: 1, f: 32, act: 'relu', init: 'classic' });
    assert.strictEqual(await page.$eval('#fig-moe', (e) => e.dataset.top), Array.from(m.topIndex).join(','));
    assert.strictEqual(await page.$$eval('#fig-moe .groups-card[data-kind="router"] canvas.groups-matrix', (c) => c[0].dataset.cols), '4');
    // top-k above the number of experts: a message at the field, the figure keeps its drawing.
    const field = page.locator('#fig-moe input[name="topk"]');
    await field.fill('6');
    await field.press('Enter');
    await settle(page);
    assert.match(await page.textContent('#fig-moe .field-err:not([hidden])'), /top-k \(6\) must be at most the number of experts \(4\)/);
    assert.strictEqual(await page.$eval('#fig-moe', (e) => e.dataset.topk), '1');
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});

test('moe_experts_at_bert_widths_are_capped_and_say_so', async () => {
  const { page, close } = await open(env.browser, FILE_URL, 'lang=en&d=768&dff=3072&heads=12&init=scaled');
  try {
    const want = Math.floor(2097152 / (8 * 2 * 768));   // stages/moe.js MAX_DRAWN = 2^21
    assert.strictEqual(await page.$eval('#fig-moe', (e) => e.dataset.width), String(want));
    const notes = await page.$$eval('#fig-moe .blk-note', (n) => n.map((e) => e.textContent).join('\n'));
    assert.match(notes, new RegExp('d_ff = ' + want + ', not 3072'));
    const m = directMoe({ seed: 42, L: 7, d: 768, E: 8, K: 2, f: want, act: 'relu', init: 'scaled' });
    assert.strictEqual(await page.$eval('#fig-moe', (e) => e.dataset.top), Array.from(m.topIndex).join(','));
    // The counts are for the full width: 8 experts of 2 x 768 x 3072 + 3072 + 768, the router 768 x 8.
    assert.ok((await page.textContent('#fig-moe .formulas dd')).includes(': ' + F.int(8 * (2 * 768 * 3072 + 3072 + 768) + 768 * 8) + ' '));
  } finally { await close(); }
});

// Exports of both views in states the shared export tests do not visit: every page text is in
// the SVG, and Node's render writes the same bytes.
const squash = (s) => s.replace(/\s+/g, '');
const unescape = (s) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
test('norms_and_moe_exports_match_the_page_and_node', async () => {
  for (const hash of ['lang=zh&theme=dark&experts=16&topk=3&d=16&heads=4&pert=6&pval=-3', 'lang=en&tokens=a%20b&act=geglu&experts=3&topk=3']) {
    const { page, log, close } = await open(env.browser, env.url, hash);
    try {
      for (const view of ['norms', 'moe']) {
        const [dl] = await Promise.all([page.waitForEvent('download'), page.click(`#s-${view} .export-svg`)]);
        const svg = fs.readFileSync(await dl.path(), 'utf8');
        assert.ok(svg === (await render(view, parseState(hash).state)).svg, `${view} (${hash}): page and Node SVG differ`);
        const texts = await figureTexts(page, view);
        const inSvg = squash(unescape(Array.from(svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g), (m) => m[1]).join('')));
        assert.deepStrictEqual(texts.filter((t) => !inSvg.includes(squash(t))), [], `${view}: page text missing from the SVG`);
      }
      assert.deepStrictEqual(log.errors, []);
    } finally { await close(); }
  }
});

test('embed_and_element_draw_the_norms_and_moe_views', async () => {
  const base = env.url.replace(/\/$/, '');
  const { page, close } = await open(env.browser, base + '/embed.html', 'view=moe&experts=4&topk=2&lang=en');
  try {
    const m = directMoe({ seed: 42, L: 7, d: 8, E: 4, K: 2, f: 32, act: 'relu', init: 'classic' });
    assert.strictEqual(await page.$eval('[data-top]', (e) => e.dataset.top), Array.from(m.topIndex).join(','));
    await page.goto(base + '/embed.html#view=norms&pert=0&lang=en');
    await page.waitForFunction(() => (document.querySelector('[data-layer-rows]') || { dataset: {} }).dataset.layerRows === '0');
    assert.strictEqual(await page.$eval('[data-layer-rows]', (e) => e.dataset.batchRows), '0,1,2,3,4,5,6');
    // Both as <block-lens> elements in someone's page.
    const blog = base + '/norms-moe-post.html';
    await page.route(blog, (r) => r.fulfill({ contentType: 'text/html', body: '<!doctype html><meta charset="utf-8"><body>' +
      '<script src="dist/blocklens-element.js"></script><block-lens id="e-moe" view="moe" experts="4" lang="en"></block-lens>' +
      '<block-lens id="e-norms" view="norms" pert="5" lang="en"></block-lens></body>' }));
    await page.goto(blog);
    await page.waitForFunction(() => ['e-moe', 'e-norms'].every((id) => document.getElementById(id).status === 'ready'), null, { timeout: 30000 });
    const shadow = (id, sel, key) => page.$eval('#' + id, (e, a) => e.shadowRoot.querySelector(a[0]).dataset[a[1]], [sel, key]);
    assert.strictEqual(await shadow('e-moe', '[data-top]', 'top'), Array.from(m.topIndex).join(','));
    assert.strictEqual(await shadow('e-norms', '[data-layer-rows]', 'layerRows'), '5');
    assert.strictEqual(await shadow('e-norms', '[data-layer-rows]', 'batchRows'), '0,1,2,3,4,5,6');
  } finally { await close(); }
});
