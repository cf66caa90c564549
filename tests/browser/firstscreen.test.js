/* firstscreen.test.js - the first figure is drawn before the rest of the page is built (the
   other figures, their texts, the Train view: entries/page.js mountRest), the page is whole
   once it says ready, and a reload still comes back to where the reader was. */
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { setup, open, ready, FILE_URL } = require('./helpers.js');

let env;
test.before(async () => { env = await setup(); });
test.after(async () => { await env.close(); });

// What the page holds at the moment it marks its first figure drawn (a wrapped performance.mark:
// synchronous, inside the drawing's own task).
function watchFirstMark() {
  const mark = performance.mark.bind(performance);
  performance.mark = (name, o) => {
    if (name === 'blocklens:figure:pipeline' && !window.__atFirst) {
      const q = (s) => document.querySelector(s);
      window.__atFirst = { pipeline: q('#fig-pipeline canvas.hm') !== null, activation: q('#fig-activation').childElementCount,
        train: q('#train-view').childElementCount, intro: q('.intro').textContent.length,
        rowsTitle: q('#h-rows [data-i18n]').textContent.length, footer: q('.foot p').textContent.length };
    }
    return mark(name, o);
  };
}

test('first_figure_is_drawn_before_the_rest_of_the_page_is_built', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript(watchFirstMark);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(FILE_URL + '#lang=en');
  await ready(page, 'ready');
  const at = await page.evaluate(() => window.__atFirst);
  assert.ok(at, 'the first figure was marked');
  assert.deepStrictEqual(at.pipeline, true, 'the first figure has its heatmaps at its mark');
  assert.ok(at.intro > 20, `the first screen's texts are in (intro ${at.intro} chars)`);
  assert.deepStrictEqual([at.activation, at.train, at.rowsTitle, at.footer], [0, 0, 0, 0],
    'figure 2, the Train view and the texts below the first figure wait');
  const whole = await page.evaluate(() => ({
    empty: [...document.querySelectorAll('.figure')].filter((f) => !f.childElementCount).map((f) => f.id),
    untexted: [...document.querySelectorAll('[data-i18n]')].filter((n) => !n.textContent.trim()).map((n) => n.dataset.i18n),
    train: document.querySelector('#train-view').childElementCount,
    drawn: ['activation', 'attention', 'next'].filter((k) => performance.getEntriesByName('blocklens:figure:' + k).length)
  }));
  assert.deepStrictEqual(whole.empty, [], 'every figure is built once the page is ready');
  assert.deepStrictEqual(whole.untexted, [], 'every text is in once the page is ready');
  assert.ok(whole.train > 0, 'the Train view is built');
  assert.deepStrictEqual(whole.drawn, ['activation', 'attention', 'next'], 'figures 2, 4 and 11 are drawn');
  assert.deepStrictEqual(errors, []);
  await context.close();
});

test('reload_returns_to_the_scrolled_figure', async () => {
  const { page, log, close } = await open(env.browser, FILE_URL, 'lang=en', { lazyWide: true });
  await page.evaluate(() => document.getElementById('s-norms').scrollIntoView());
  const before = await page.evaluate(() => scrollY);
  assert.ok(before > 2000, `scrolled down (${before} px)`);
  await page.reload();
  await ready(page);
  await page.waitForTimeout(300);
  const after = await page.evaluate(() => scrollY);
  assert.ok(Math.abs(after - before) <= 2, `back at ${before} px after the reload (at ${after})`);
  assert.deepStrictEqual(log.errors, []);
  await close();
});
