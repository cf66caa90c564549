/* slices.test.js - at BERT-base sizes the page draws its figures as short jobs over many tasks
   (web/src/dom/slices.js): every canvas ends up with the same pixels as when all is drawn at once,
   and a change made while a drawing is half done leaves only the newer figures. */
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const path = require('path');
const { setup, open, ready, WEB, WORDS64, HASH_64_TOKENS, HASH_BERT } = require('./helpers.js');

let env;
test.before(async () => { env = await setup({ server: true }); });
test.after(async () => { await env.close(); });

const SMALL = HASH_64_TOKENS, BERT = HASH_BERT;

// Every figure canvas as PNG data, by figure and position.
function canvases(page) {
  return page.evaluate(() => Array.from(document.querySelectorAll('#figures canvas'),
    (c, i) => ({ id: (c.closest('[id]') || {}).id + ' #' + i, w: c.width, h: c.height, png: c.toDataURL() })));
}

function assertSame(got, want) {
  assert.strictEqual(got.length, want.length, 'as many canvases');
  got.forEach((c, i) => {
    assert.strictEqual(c.id, want[i].id);
    assert.ok(c.w === want[i].w && c.h === want[i].h && c.png === want[i].png, `${c.id}: the same pixels`);
  });
}

// <html data-slices="off"> makes the page run each drawing job the moment it is added: the
// all-at-once drawing.
function atOnce() { document.documentElement.dataset.slices = 'off'; }

test('figures_drawn_in_slices_equal_figures_drawn_at_once', async () => {
  const sliced = await open(env.browser, env.url, BERT);
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    await context.addInitScript(atOnce);
    const page = await context.newPage();
    await page.goto(env.url + '#' + BERT);
    await ready(page, 'ready');
    await Promise.all([sliced.page.waitForTimeout(300), page.waitForTimeout(300)]);
    const want = await canvases(page), got = await canvases(sliced.page);
    assert.ok(got.length >= 20, `BERT-base figures have many canvases (${got.length})`);
    assertSame(got, want);
    assert.deepStrictEqual(sliced.log.errors, []);
  } finally { await sliced.close(); await context.close(); }
});

test('a_change_while_figures_are_half_drawn_leaves_only_the_newer_figures', async () => {
  const { page, log, close } = await open(env.browser, env.url, SMALL);
  try {
    // BERT-base widths, then the moment the answer arrives (figures not yet drawn), the raw
    // scores instead of the weights: a view-only change, redrawn from the same answer.
    await page.evaluate(() => performance.clearMarks());
    await page.click('button[data-i18n="quick_bert"]');
    const busy = await page.evaluate(() => new Promise((resolve) => {
      (function poll() {
        if (!performance.getEntriesByName('blocklens:result').length) return setTimeout(poll, 0);
        const status = document.body.dataset.status;
        document.querySelector('#fig-attention .seg-btn[data-mode="raw"]').click();
        resolve(status);
      })();
    }));
    assert.strictEqual(busy, 'busy', 'the change came while the figures were being drawn');
    await ready(page, 'ready');
    await page.waitForTimeout(300);
    assert.match(await page.evaluate(() => location.hash), /show=raw/);
    const got = await canvases(page);
    const fresh = await open(env.browser, env.url, BERT + '&show=raw&init=scaled');   // the BERT-widths preset's init
    try {
      await fresh.page.waitForTimeout(300);
      assertSame(got, await canvases(fresh.page));
    } finally { await fresh.close(); }
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});

// Where every cell edge is a whole device pixel, draw/heatmap.js writes the cells as pixels
// (drawCellPixels); the same heatmap drawn as one rectangle per cell (drawCells, the export's
// way) must give the same picture. The page has no globals to reach its modules through, so a
// small probe bundled here from web/src draws both, in a blank page at the test's density.
const PROBE = `
import { draw, geometry } from './dom/heatmap-canvas.js';
import { absMax, record } from './draw/heatmap.js';
import { scheme } from './draw/colors.js';

// A spec like figures/attention.js builds: L x L sequential weights (deterministic
// pseudo-random numbers), tokens on both sides, cells at most 34 px, causal mask on request.
function spec(L, tokens, causal, width) {
  const data = new Float32Array(L * L);
  let x = 12345;
  for (let i = 0; i < data.length; i++) { x = (Math.imul(x, 1103515245) + 12345) >>> 0; data[i] = (x >>> 8) / 16777216; }
  return { data, rows: L, cols: L, kind: 'sequential', max: absMax(data), rowLabels: tokens, colLabels: tokens,
    focusRow: -1, maxCell: 34, masked: causal ? (r, c) => c > r : null, width };
}

export function run(L, tokens, causal, width) {
  const sc = scheme('light'), dpr = devicePixelRatio, count = { puts: 0, rects: 0 };
  const canvas = document.body.appendChild(document.createElement('canvas'));
  const ctx0 = canvas.getContext('2d'), put = ctx0.putImageData;
  ctx0.putImageData = function () { count.puts++; return put.apply(this, arguments); };
  draw(canvas, spec(L, tokens, causal, width), sc);   // the page's way
  const { s, g } = geometry(canvas);
  const copy = document.createElement('canvas');
  copy.width = canvas.width; copy.height = canvas.height;
  const ctx = copy.getContext('2d'), fill = ctx.fillRect;
  ctx.fillRect = function () { count.rects++; return fill.apply(this, arguments); };
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.isRecorder = true;   // paint() then draws one fillRect per cell
  record(ctx, s, sc, 0, 0);
  // The cells only (labels are text, drawn the same way by both).
  const box = [g.left * dpr, g.top * dpr, s.cols * g.cw * dpr, s.rows * g.ch * dpr];
  const a = ctx0.getImageData(...box).data, b = ctx.getImageData(...box).data, colours = new Set();
  let diff = 0, first = -1;
  for (let i = 0; i < a.length; i += 4) colours.add(a[i] << 16 | a[i + 1] << 8 | a[i + 2]);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) { diff++; if (first < 0) first = i; }
  const at = first - first % 4;
  return Object.assign({ dpr, cw: g.cw, ch: g.ch, left: g.left, top: g.top, box, colours: colours.size, diff }, count,
    first < 0 ? {} : { at: [at / 4 % box[2], Math.floor(at / 4 / box[2])], a: Array.from(a.slice(at, at + 4)), b: Array.from(b.slice(at, at + 4)) });
}
`;
let probeCode = null;
const probe = () => probeCode || (probeCode = require('esbuild').buildSync({
  stdin: { contents: PROBE, resolveDir: path.join(WEB, 'src'), sourcefile: 'probe.js' },
  bundle: true, format: 'iife', globalName: 'heatmapProbe', write: false, logLevel: 'silent'
}).outputFiles[0].text);

const CJK7 = Array.from('\u8fdc\u65b9\u6709\u9897\u82f9\u679c\u6811');   // the page's default tokens
const TOK40 = WORDS64.split(' ').slice(0, 40);
for (const [name, L, tokens, causal, dpr] of [['gapped_7x7', 7, CJK7, false, 1], ['masked_40x40_at_dpr_2', 40, TOK40, true, 2]]) {
  test(`heatmap_cells_as_pixels_equal_cells_as_rectangles_${name}`, async () => {
    // about:blank, not the page: its figures, engine and requests have no part in this.
    const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: dpr });
    const errors = [];
    try {
      const page = await context.newPage();
      page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') errors.push(m.type() + ': ' + m.text()); });
      page.on('pageerror', (e) => errors.push('pageerror: ' + e.message));
      await page.addScriptTag({ content: probe() });
      const r = await page.evaluate((a) => window.heatmapProbe.run(...a), [L, tokens, causal, 560]);
      assert.strictEqual(r.dpr, dpr, 'devicePixelRatio is the test\'s deviceScaleFactor');
      for (const k of ['cw', 'ch', 'left', 'top'])
        assert.ok(Number.isInteger(r[k]), `whole-pixel cells (${k} ${r[k]} px), so heatmap.js wrote them as pixels`);
      assert.ok(r.puts >= 1, 'the page canvas got its cells as ImageData');
      assert.ok(r.rects >= L * L, `the copy got one rectangle per cell (${r.rects} fillRect calls)`);
      assert.ok(r.colours > (causal ? 20 : 10), `the cells are not blank (${r.colours} colours)`);
      assert.strictEqual(r.diff, 0, `cells as pixels equal cells as rectangles (cell ${r.cw} px): ${JSON.stringify(r)}`);
      assert.deepStrictEqual(errors, []);
    } finally { await context.close(); }
  });
}
