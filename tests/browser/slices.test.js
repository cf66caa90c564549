/* slices.test.js - at BERT-base sizes the page draws its figures as short jobs over many tasks
   (web/js/slices.js): every canvas ends up with the same pixels as when all is drawn at once,
   and a change made while a drawing is half done leaves only the newer figures. */
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { setup, open, ready, WORDS64, HASH_64_TOKENS, HASH_BERT } = require('./helpers.js');

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

// The slices module replaced by one that runs each job the moment it is added: the old
// all-at-once drawing.
function atOnce() {
  const sync = { create: () => ({ add: (job) => job(), cancel() {} }) };
  window.BlockLensUI = window.BlockLensUI || {};
  Object.defineProperty(window.BlockLensUI, 'slices', { get: () => sync, set() {} });
}

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
    const fresh = await open(env.browser, env.url, BERT + '&show=raw');
    try {
      await fresh.page.waitForTimeout(300);
      assertSame(got, await canvases(fresh.page));
    } finally { await fresh.close(); }
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});

// Where every cell edge is a whole device pixel, heatmap.js writes the cells as pixels; the
// same heatmap drawn as one rectangle per cell (the export's way) must give the same picture.
const MID = 'lang=en&d=64&dff=256&heads=4&causal=1&tokens=' + encodeURIComponent(WORDS64.split(' ').slice(0, 40).join(' '));
for (const [name, hash, dpr] of [['gapped_7x7', 'lang=en', 1], ['masked_40x40_at_dpr_2', MID, 2]]) {
  test(`heatmap_cells_as_pixels_equal_cells_as_rectangles_${name}`, async () => {
    const { page, log, close } = await open(env.browser, env.url, hash, { deviceScaleFactor: dpr });
    try {
      const r = await page.evaluate(() => {
        const ui = window.BlockLensUI, canvas = document.querySelector('#fig-attention canvas.hm');
        const geo = ui.heatmap.geometry(canvas), dpr = devicePixelRatio;
        const copy = document.createElement('canvas');
        copy.width = canvas.width; copy.height = canvas.height;
        const ctx = copy.getContext('2d');
        ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
        ctx.isRecorder = true;   // paint() then draws one fillRect per cell
        ui.heatmap.record(ctx, geo.s, ui.colors.scheme(document.documentElement.dataset.theme), 0, 0);
        // The cells only (labels are text, drawn the same way by both).
        const g = geo.g, box = [g.left * dpr, g.top * dpr, geo.s.cols * g.cw * dpr, geo.s.rows * g.ch * dpr];
        const a = canvas.getContext('2d').getImageData(...box).data, b = ctx.getImageData(...box).data;
        let diff = 0, first = -1;
        for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) { diff++; if (first < 0) first = i; }
        return { cw: g.cw, diff, first, at: first >= 0 ? [first / 4 % box[2], Math.floor(first / 4 / box[2])] : null,
          a: first >= 0 ? Array.from(a.slice(first - first % 4, first - first % 4 + 4)) : null,
          b: first >= 0 ? Array.from(b.slice(first - first % 4, first - first % 4 + 4)) : null };
      });
      assert.ok(Number.isInteger(r.cw), `whole-pixel cells (${r.cw} px), so heatmap.js wrote them as pixels`);
      assert.strictEqual(r.diff, 0, `cells as pixels equal cells as rectangles (cell ${r.cw} px): ${JSON.stringify(r)}`);
      assert.deepStrictEqual(log.errors, []);
    } finally { await close(); }
  });
}
