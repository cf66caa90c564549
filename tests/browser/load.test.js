/* load.test.js - the page loads over http and from file://, logs no errors, asks for nothing
   outside its own files, and draws every figure: sharp canvases of the expected size. */
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { setup, open, FILE_URL } = require('./helpers.js');

let env;
test.before(async () => { env = await setup({ server: true }); });
test.after(async () => { await env.close(); });

// Every request must be for the page's own files (data: is the inlined wasm, not a request out).
function ownRequests(requests, base) {
  const dir = base.replace(/[^/]*$/, '');
  return requests.filter((u) => !u.startsWith(dir) && !u.startsWith('data:') && !u.startsWith('blob:'));
}

// name, selector of the figure's canvases, expected [rows, cols] per canvas
const FIGURES = [
  ['pipeline thumbnails', '#fig-pipeline canvas.hm', [[7, 8], [7, 32], [7, 32], [7, 8]]],
  ['activation map', '#fig-activation canvas.hm', [[7, 32], [7, 32]]],
  ['per-token rows', '#fig-rows canvas.hm', [[7, 8], [7, 32], [7, 32], [7, 8]]],
  ['attention heads', '#fig-attention canvas.hm', [[7, 7], [7, 7]]],
  ['position-wise diffs', '#fig-positionwise canvas.hm', [[7, 8], [7, 8]]]
];

async function checkFigures(page, dpr) {
  for (const [name, sel, shapes] of FIGURES) {
    const info = await page.$$eval(sel, (cs) => cs.map((c) => {
      const ctx = c.getContext('2d'), img = ctx.getImageData(0, 0, c.width, c.height).data, seen = new Set();
      for (let i = 0; i < img.length; i += 4 * 7) seen.add((img[i] << 16) | (img[i + 1] << 8) | img[i + 2]);
      const r = c.getBoundingClientRect();
      return { w: c.width, h: c.height, cssW: r.width, cssH: r.height, rows: +c.dataset.rows, cols: +c.dataset.cols, colours: seen.size };
    }));
    assert.strictEqual(info.length, shapes.length, `${name}: ${shapes.length} canvases`);
    info.forEach((c, i) => {
      assert.deepStrictEqual([c.rows, c.cols], shapes[i], `${name} #${i} shape`);
      assert.ok(c.cssW > 20 && c.cssH > 10, `${name} #${i} has a size (${c.cssW} x ${c.cssH})`);
      assert.strictEqual(c.w, Math.round(c.cssW * dpr), `${name} #${i} backing width = css width x dpr`);
      assert.strictEqual(c.h, Math.round(c.cssH * dpr), `${name} #${i} backing height = css height x dpr`);
      assert.ok(c.colours >= 8, `${name} #${i} is not blank (${c.colours} colours)`);
    });
  }
  const bars = await page.$$eval('#fig-paramsplit .pbar', (b) => b.length);
  assert.ok(bars >= 7, 'parameter split: current bar plus one per preset');
  const curve = await page.$eval('#fig-activation canvas.curve-canvas', (c) => c.width > 0 && c.height > 0);
  assert.ok(curve, 'activation curve drawn');
}

for (const [how, getBase] of [['http', () => env.url], ['file://', () => FILE_URL]]) {
  test(`page_loads_over_${how}_without_errors_or_outside_requests`, async () => {
    const base = getBase();
    const { page, log, close } = await open(env.browser, base, 'lang=en');
    try {
      assert.strictEqual(await page.evaluate(() => document.body.dataset.status), 'ready');
      assert.deepStrictEqual(log.errors, [], 'no console errors');
      assert.deepStrictEqual(ownRequests(log.requests, base), [], 'no requests outside the page');
      await checkFigures(page, 1);
    } finally { await close(); }
  });
}

test('figures_are_sharp_on_high_dpi_screens', async () => {
  const { page, log, close } = await open(env.browser, env.url, 'lang=zh', { deviceScaleFactor: 2 });
  try {
    await checkFigures(page, 2);
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});

test('page_works_at_360_px_without_horizontal_scroll', async () => {
  const { page, close } = await open(env.browser, FILE_URL, 'lang=en', { viewport: { width: 360, height: 740 } });
  try {
    await checkFigures(page, 1);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `no horizontal page scroll at 360 px (overflow ${overflow})`);
  } finally { await close(); }
});

test('chromium_runs_the_fma_build_and_it_matches_the_simd_build', async () => {
  const { page, close } = await open(env.browser, env.url, 'lang=en');
  try {
    const r = await page.evaluate(async () => {
      const fma = await BlockLens.load(), plain = await BlockLens.load({ fma: false });
      const run = (bl) => {
        const g = bl.numpyRandom(3), L = 64, D = 1024, F = 64;   // 4.2M multiply-adds: fused
        return bl.ffn({ L, dModel: D, dFF: F, x: g.randnF32(L * D), W1: g.randnF32(D * F),
          W2: g.randnF32(F * D), activation: 'identity' }).hidden;
      };
      const a = run(fma), b = run(plain);
      let differ = 0, worst = 0, top = 0;
      for (let i = 0; i < a.length; i++) {
        if (a[i] !== b[i]) differ++;
        worst = Math.max(worst, Math.abs(a[i] - b[i]));
        top = Math.max(top, Math.abs(b[i]));
      }
      return { fma: fma.fma, simd: fma.simd, plainFma: plain.fma, differ, n: a.length, worst, top };
    });
    assert.deepStrictEqual([r.simd, r.fma, r.plainFma], [true, true, false], 'the FMA build by default');
    assert.ok(r.differ > r.n / 10, `fused: ${r.differ} of ${r.n} values differ in the last bits`);
    assert.ok(r.worst <= 1e-6 * r.top, `only by rounding: ${r.worst} vs ${r.top}`);
  } finally { await close(); }
});
