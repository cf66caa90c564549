/* scale.test.js - BERT-base widths (d_model 768, d_ff 3072, 12 heads, 64 tokens) stay usable:
   the first draw finishes in seconds, 64 x 3072 matrices are canvases that fit the page (no
   per-cell DOM), and view-only changes such as picking a token redraw without recomputing. */
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { setup, open, settle, FILE_URL } = require('./helpers.js');

let env;
test.before(async () => { env = await setup(); });
test.after(async () => { await env.close(); });

const WORDS = Array.from({ length: 64 }, (_, i) => 'tok' + i).join(' ');
const HASH = 'lang=en&d=768&dff=3072&heads=12&act=gelu&tokens=' + encodeURIComponent(WORDS);

test('bert_base_sizes_render_and_stay_interactive', async () => {
  const t0 = Date.now();
  const { page, log, close } = await open(env.browser, FILE_URL, HASH);
  try {
    const first = Date.now() - t0;
    assert.strictEqual(await page.evaluate(() => document.body.dataset.status), 'ready');
    assert.ok(first < 30000, `first draw in ${first} ms`);
    const hidden = await page.$eval('#fig-activation canvas.hm', (c) => ({ rows: +c.dataset.rows, cols: +c.dataset.cols,
      w: c.getBoundingClientRect().width, wrap: c.parentNode.getBoundingClientRect().width }));
    assert.deepStrictEqual([hidden.rows, hidden.cols], [64, 3072]);
    assert.ok(hidden.w <= hidden.wrap + 1, 'the 3072 columns are pooled into the available width');
    // 12 heads: a page of 8 as small multiples and the picked one large (issue 14, item 11).
    assert.deepStrictEqual(await page.$eval('#fig-attention', (f) => [f.querySelectorAll('.head-thumb canvas.hm').length,
      f.querySelectorAll('.head canvas.hm').length]), [8, 1]);
    const cells = await page.evaluate(() => document.querySelectorAll('td').length);
    assert.ok(cells < 2000, `no per-cell DOM (${cells} table cells while tables are closed)`);
    // Picking a token only redraws.
    const t1 = Date.now();
    await page.click('#fig-rows .tokens button[data-index="10"]');
    await page.waitForFunction(() => document.querySelector('#fig-rows').dataset.selected === '10');
    const pick = Date.now() - t1;
    assert.ok(pick < 3000, `token pick redraws in ${pick} ms`);
    // Opening a 64 x 3072 data table shows a bounded, labelled part of it.
    await page.click('#fig-activation .panel summary');
    await page.waitForSelector('#fig-activation .panel table caption');   // built on the toggle event, a task later
    const caption = await page.$eval('#fig-activation .panel table caption', (c) => c.textContent);
    assert.match(caption, /first 64 of 3072 columns/);
    await settle(page);
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});
