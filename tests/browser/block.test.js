/* block.test.js - the `block` and `saturation` figures: the block's maps obey the formulas of
   their norm placement (sums, LayerNorm recomputed here from the data tables), post-LN gives
   every output row mean 0 and std 1 while pre-LN lets the stream grow; the saturation points
   equal a float64 recomputation from the same random rows; the page's d_k is marked; the SVG
   export equals tools/render.js and carries every text of the page figure; embed.html and
   <block-lens> draw both views. */
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const { setup, open, ready, settle, figureTexts, FILE_URL } = require('./helpers.js');
const { render, parseState } = require('../../tools/render.js');

let env;
test.before(async () => { env = await setup({ server: true }); });
test.after(async () => { await env.close(); });

const num = (s) => Number(String(s).replace(/\u2212/g, '-').replace(/,/g, ''));

// The data table of a block (opened on demand): rows of numbers, and the row headers.
async function table(page, sel) {
  const shown = await page.$eval(sel + ' details', (d) => d.open);
  if (!shown) await page.click(sel + ' details > summary');
  await page.waitForSelector(sel + ' details tbody tr');
  return page.$$eval(sel + ' details tbody tr', (trs) => trs.map((tr) => ({
    head: tr.querySelector('th').textContent, cells: Array.from(tr.querySelectorAll('td'), (td) => td.textContent) })));
}
const matrix = async (page, stage) => (await table(page, `#fig-block .panel[data-stage="${stage}"]`)).map((r) => r.cells.map(num));

// LayerNorm of each row (gamma 1, beta 0, eps 1e-5), in float64.
function layerNorm(m) {
  return m.map((row) => {
    const mean = row.reduce((a, v) => a + v, 0) / row.length;
    const v = row.reduce((a, x) => a + (x - mean) * (x - mean), 0) / row.length;
    return row.map((x) => (x - mean) / Math.sqrt(v + 1e-5));
  });
}

// Largest |a - b| over (rows, cols) relative to 1 + |b|; the tables print 4 significant digits.
function gap(a, b) {
  let g = 0;
  a.forEach((row, r) => row.forEach((v, c) => { g = Math.max(g, Math.abs(v - b[r][c]) / (1 + Math.abs(b[r][c]))); }));
  return g;
}
const add = (a, b) => a.map((row, r) => row.map((v, c) => v + b[r][c]));

test('post_ln_maps_follow_h_equals_ln_of_x_plus_attention_and_every_output_row_has_mean_0_std_1', async () => {
  const { page, log, close } = await open(env.browser, FILE_URL, 'lang=en');
  try {
    const fig = await page.$eval('#fig-block', (e) => Object.assign({}, e.dataset));
    assert.strictEqual(fig.ln, 'post');
    const m = [];
    for (let s = 0; s < 8; s++) m.push(await matrix(page, s));
    assert.deepStrictEqual([m[0].length, m[0][0].length], [7, 8]);
    assert.ok(gap(add(m[0], m[1]), m[2]) < 2e-3, `x + Attention(x) is the sum (${gap(add(m[0], m[1]), m[2])})`);
    assert.ok(gap(layerNorm(m[2]), m[3]) < 5e-3, `h is LN(x + Attention(x)) recomputed here (${gap(layerNorm(m[2]), m[3])})`);
    assert.deepStrictEqual(m[4], m[3], 'the FFN row starts from h');
    assert.ok(gap(add(m[4], m[5]), m[6]) < 2e-3, 'h + FFN(h) is the sum');
    assert.ok(gap(layerNorm(m[6]), m[7]) < 5e-3, `out is LN(h + FFN(h)) (${gap(layerNorm(m[6]), m[7])})`);
    // The bars' table: |x| from the x map, and each output row's mean 0 and std 1.
    const bars = (await table(page, '#fig-block .chart-bars')).map((r) => r.cells.map(num));
    bars.forEach((row, i) => {
      const nx = Math.sqrt(m[0][i].reduce((a, v) => a + v * v, 0));
      assert.ok(Math.abs(row[0] - nx) < 2e-3 * nx, `token ${i}: |x| ${row[0]} vs ${nx}`);
      assert.ok(Math.abs(row[4]) < 1e-4 && Math.abs(row[5] - 1) < 1e-4, `token ${i}: out mean ${row[4]}, std ${row[5]}`);
      assert.ok(Math.abs(row[3] - Math.sqrt(8)) < 1e-3, `token ${i}: |out| = sqrt(d_model) (${row[3]})`);
    });
    assert.ok(Math.abs(+fig.meanOut - Math.sqrt(8)) < 1e-3);
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});

test('pre_ln_switch_normalises_only_the_sublayer_inputs_and_the_stream_grows', async () => {
  const { page, log, close } = await open(env.browser, FILE_URL, 'lang=en&causal=1');
  try {
    await page.click('#s-block .seg-btn[data-mode="pre"]');
    await page.waitForFunction(() => document.getElementById('fig-block').dataset.ln === 'pre');
    await settle(page);
    assert.match(await page.evaluate(() => location.hash), /(^#|&)ln=pre(&|$)/);
    assert.match(await page.textContent('#fig-block .blk-headline'), /GPT-2/);
    const m = [];
    for (let s = 0; s < 8; s++) m.push(await matrix(page, s));
    assert.ok(gap(layerNorm(m[0]), m[1]) < 5e-3, 'LN₁(x) recomputed here');
    assert.ok(gap(add(m[0], m[2]), m[3]) < 2e-3, 'h = x + Attention(LN₁(x))');
    assert.deepStrictEqual(m[4], m[3], 'the FFN row starts from h');
    assert.ok(gap(layerNorm(m[4]), m[5]) < 5e-3, 'LN₂(h) recomputed here');
    assert.ok(gap(add(m[4], m[6]), m[7]) < 2e-3, 'out = h + FFN(LN₂(h)): nothing normalises the stream');
    const bars = (await table(page, '#fig-block .chart-bars')).map((r) => r.cells.map(num));
    assert.ok(bars.some((row) => Math.abs(row[5] - 1) > 0.05), 'pre-LN output rows keep their own spread');
    const fig = await page.$eval('#fig-block', (e) => Object.assign({}, e.dataset));
    assert.ok(+fig.meanOut > 2 * +fig.meanX, `the stream grows: |x| ${fig.meanX} -> |out| ${fig.meanOut}`);
    assert.strictEqual(fig.causal, 'true');
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});

// The stage's sampling plan (stages/saturation.js), recomputed in float64 from the same stream.
function recompute(dks, seed, L) {
  return window.BlockLens.load().then((bl) => {
    const rng = bl.numpyRandom(seed), Q = 64, K = Math.max(64, L), out = {};
    for (const dk of dks) {
      const samples = Math.max(1, Math.ceil(4096 / (Q * dk))), peaks = Math.min(samples, L <= 32 ? 4 : 1);
      const sets = Math.min(4, Math.floor(K / L)), rows = Math.floor(Q / sets), s = Math.fround(1 / Math.sqrt(dk));
      let sum = 0, sq = 0, n = 0, pr = 0, ps = 0;
      for (let b = 0; b < samples; b++) {
        const q = rng.randnF32(Q * dk), k = rng.randnF32(K * dk), S = [];
        for (let i = 0; i < Q; i++) {
          S.push([]);
          for (let j = 0; j < K; j++) {
            let v = 0;
            for (let c = 0; c < dk; c++) v += q[i * dk + c] * k[j * dk + c];
            S[i].push(v); sum += v; sq += v * v; n++;
          }
        }
        if (b >= peaks) continue;
        for (let g = 0; g < sets; g++) {
          for (let i = 0; i < rows; i++) {
            const row = S[g * rows + i].slice(g * L, g * L + L);
            const peak = (scale) => {
              const m = Math.max(...row.map((v) => v * scale)), e = row.map((v) => Math.exp(v * scale - m));
              return Math.max(...e) / e.reduce((a, v) => a + v, 0);
            };
            pr += peak(1) / rows; ps += peak(s) / rows;
          }
        }
      }
      const v = sq / n - (sum / n) * (sum / n);
      out[dk] = { pairs: n, varRaw: v, varScaled: v * s * s, peakRaw: pr / (peaks * sets), peakScaled: ps / (peaks * sets) };
    }
    return out;
  });
}

test('saturation_points_equal_a_float64_recomputation_from_the_same_random_rows', async () => {
  const { page, log, close } = await open(env.browser, FILE_URL, 'lang=en');
  try {
    const rows = await table(page, '#fig-saturation .chart-lines');
    const dks = rows.map((r) => num(r.head.replace('d_k = ', '')));
    assert.deepStrictEqual(dks, [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]);
    const want = await page.evaluate(`(${recompute.toString()})(${JSON.stringify(dks)}, 42, 7)`);
    rows.forEach((r, i) => {
      const got = r.cells.map(num), w = want[dks[i]];
      assert.strictEqual(got[0], w.pairs, `d_k ${dks[i]}: scores counted`);
      [['varRaw', 2], ['varScaled', 3], ['peakRaw', 4], ['peakScaled', 5]].forEach(([k, c]) => {
        assert.ok(Math.abs(got[c] - w[k]) <= 1e-3 * Math.abs(w[k]), `d_k ${dks[i]} ${k}: page ${got[c]} vs ${w[k]}`);
      });
      // What the figure is for: the raw variance grows as d_k, the scaled one stays near 1;
      // unscaled rows saturate towards one-hot, scaled ones stay well below.
      assert.ok(got[2] / dks[i] > 0.8 && got[2] / dks[i] < 1.25, `d_k ${dks[i]}: raw variance ${got[2]}`);
      assert.ok(got[3] > 0.8 && got[3] < 1.25, `d_k ${dks[i]}: scaled variance ${got[3]}`);
      assert.ok(got[5] > 1 / 7 && got[5] < 0.5, `d_k ${dks[i]}: scaled peak ${got[5]}`);
    });
    assert.ok(num(rows[10].cells[4]) > 0.9, 'unscaled at d_k 1024: nearly one-hot');
    const fig = await page.$eval('#fig-saturation', (e) => Object.assign({}, e.dataset));
    assert.strictEqual(fig.dk, '4');
    assert.ok(Math.abs(+fig.varRaw - want[4].varRaw) <= 1e-5 * want[4].varRaw, `data-var-raw ${fig.varRaw} vs ${want[4].varRaw}`);
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});

test('a_d_k_between_powers_of_two_gets_its_own_marked_point', async () => {
  const { page, close } = await open(env.browser, FILE_URL, 'lang=en&d=12&heads=1');
  try {
    assert.strictEqual(await page.$eval('#fig-saturation', (e) => e.dataset.dk), '12');
    const rows = await table(page, '#fig-saturation .chart-lines');
    assert.ok(rows.some((r) => r.head === 'd_k = 12'), 'a row for d_k = 12');
    assert.match(await page.textContent('#fig-saturation .blk-headline'), /d_k = 12 \(d_model 12 ÷ heads 1\)/);
    assert.match(await page.getAttribute('#fig-saturation .chart-plot[data-plot="variance"] canvas', 'aria-label'), /d_k = 12/);
  } finally { await close(); }
});

async function svgOf(page, view) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(`#s-${view} .export-svg`)]);
  return fs.readFileSync(await dl.path(), 'utf8');
}
function firstDiff(a, b) {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `${i}: page "${a.slice(i - 40, i + 40)}" vs node "${b.slice(i - 40, i + 40)}"`;
}
const squash = (s) => s.replace(/\s+/g, '');
const unescape = (s) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');

for (const hash of ['lang=en', 'lang=zh&theme=dark&ln=pre&causal=1&d=12&heads=3', 'lang=en&scale=0&init=scaled&tokens=one two three']) {
  test(`block_and_saturation_svg_equal_node_render_and_carry_every_page_text_${hash.replace(/[^a-z0-9]+/g, '_')}`, async () => {
    const { page, log, close } = await open(env.browser, env.url, hash.replace(/ /g, '%20'));
    try {
      for (const view of ['block', 'saturation']) {
        const svg = await svgOf(page, view);
        const fromNode = (await render(view, parseState(hash.replace(/ /g, '%20')).state)).svg;
        assert.ok(svg === fromNode, `${view}: page and Node SVG differ at ${firstDiff(svg, fromNode)}`);
        const texts = await figureTexts(page, view);
        assert.ok(texts.length >= 6, `${view}: the page figure has text`);
        const all = squash(unescape(Array.from(svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g), (m) => m[1]).join('')));
        assert.deepStrictEqual(texts.filter((t) => !all.includes(squash(t))), [], `${view}: page text missing from the SVG`);
      }
      assert.deepStrictEqual(log.errors, []);
    } finally { await close(); }
  });
}

test('embed_page_and_block_lens_element_draw_both_views', async () => {
  const context = await env.browser.newContext({ viewport: { width: 900, height: 3000 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  try {
    await page.goto(env.url + 'embed.html#view=block&ln=pre&lang=en');
    await ready(page, 'ready');
    assert.strictEqual(await page.$eval('[data-ln]', (e) => e.dataset.ln), 'pre');
    assert.strictEqual(await page.$$eval('canvas.chart-canvas', (cs) => cs.length), 1);
    const host = env.url + 'blk-element.html';
    await page.route(host, (r) => r.fulfill({ contentType: 'text/html', body: '<!doctype html><meta charset="utf-8"><body>' +
      '<script src="dist/blocklens-element.js"></script><block-lens id="s" view="saturation" lang="en" d="12" heads="3"></block-lens>' +
      '<block-lens id="b" view="block" lang="en" ln="pre"></block-lens></body>' }));
    await page.goto(host);
    for (const id of ['s', 'b']) {
      await page.locator('#' + id).scrollIntoViewIfNeeded();
      await page.waitForFunction((i) => document.getElementById(i).status === 'ready', id, { timeout: 30000 });
    }
    const shapes = await page.$eval('#s', (e) => Array.from(e.shadowRoot.querySelectorAll('canvas.chart-canvas'), (c) => c.width > 100));
    assert.deepStrictEqual(shapes, [true, true], 'two plots');
    const svg = await page.$eval('#b', (e) => e.toSVG());
    assert.strictEqual(svg, (await render('block', parseState('lang=en&ln=pre').state)).svg, 'the element\'s SVG is tools/render.js\'s');
    assert.deepStrictEqual(errors, []);
  } finally { await context.close(); }
});
