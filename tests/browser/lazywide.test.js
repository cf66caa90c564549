/* lazywide.test.js - the whole model's figures (12-15) are computed only near the screen: on the
   poem model from file://, with the page at its top a text change asks the Worker for no
   model-wide stage (every request's `want` leaves `wide` out, no `wide` stage comes back) and
   figure 13 keeps its drawing; scrolling to it computes and draws the new text. (Other tests open
   the page with <html data-wide="eager">: helpers.js.) */
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { setup, open, settle, setField, FILE_URL } = require('./helpers.js');

let env;
test.before(async () => { env = await setup(); });
test.after(async () => { await env.close(); });

// Records, in the page, each request's `want` posted to the Worker and each stage it sends back.
function spy() {
  const W = window.Worker;
  window.__wants = [];
  window.__got = [];
  const post = W.prototype.postMessage;
  W.prototype.postMessage = function (m, t) {
    if (m && m.spec) window.__wants.push(m.want ? m.want.slice() : null);
    return post.call(this, m, t);
  };
  window.Worker = function (url, o) {
    const w = new W(url, o);
    w.addEventListener('message', (e) => {
      if (e.data && e.data.stages) Object.keys(e.data.stages).forEach((k) => window.__got.push(k));
    });
    return w;
  };
  window.Worker.prototype = W.prototype;
}

const positions = (page) => page.$eval('#fig-lens', (f) => f.dataset.positions);
const scrollTo = async (page, sel) => {
  await page.$eval(sel, (e) => e.scrollIntoView());
};

test('a_text_change_off_screen_computes_no_wide_stage_and_scrolling_to_figure_13_draws_it', async () => {
  const A = '床前明月光', B = '举头望明月，低头思故乡';
  const { page, log, close } = await open(env.browser, FILE_URL, 'lang=en&weights=poems&tokens=' + encodeURIComponent(A),
    { lazyWide: true });
  try {
    await page.addInitScript(spy);
    await page.reload();
    await settle(page);
    // at the top: figure 13 is not drawn, and nothing asked the Worker for the whole model
    assert.strictEqual(await positions(page), undefined, 'figure 13 waits for the reader');
    const wants = await page.evaluate(() => window.__wants);
    assert.ok(wants.every((w) => Array.isArray(w) && !w.includes('wide')), JSON.stringify(wants));
    // its export pressed (without scrolling) before it is drawn: a message, no file
    let downloads = 0;
    page.on('download', () => downloads++);
    await page.$eval('#s-lens .export-svg', (b) => b.click());
    const msg = () => page.$eval('#s-lens .export-msg', (m) => m.textContent);
    assert.match(await msg(), /not drawn yet/);
    // scrolled to it: computed and drawn, and the message goes
    await scrollTo(page, '#s-lens');
    await page.waitForFunction((n) => document.querySelector('#fig-lens').dataset.positions === n,
      String(1 + A.length), { timeout: 30000 });
    await settle(page);
    assert.strictEqual(await msg(), '');
    assert.strictEqual(downloads, 0);
    // back at the top, another text: the figure keeps its drawing and no wide stage is computed
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.waitForTimeout(300);
    await page.evaluate(() => { window.__wants.length = 0; window.__got.length = 0; });
    await setField(page, 'tokens', B);
    await page.waitForTimeout(1000);
    await settle(page);
    assert.strictEqual(await positions(page), String(1 + A.length), 'the old drawing stays');
    const after = await page.evaluate(() => ({ wants: window.__wants, got: window.__got }));
    // (the page's own engine answers what fits in one task: the Worker may get only a part)
    console.log(`after the change: ${after.wants.length} requests to the Worker, stages back: ${after.got.join(' ')}`);
    assert.ok(after.wants.every((w) => Array.isArray(w) && !w.includes('wide')), JSON.stringify(after.wants));
    for (const st of ['wide', 'lens', 'modelview', 'ablation', 'patching']) assert.ok(!after.got.includes(st), st + ' came back');
    // scrolled to it again: the new text's lens
    await scrollTo(page, '#s-lens');
    await page.waitForFunction((n) => document.querySelector('#fig-lens').dataset.positions === n,
      String(1 + Array.from(B).length), { timeout: 30000 });
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});
