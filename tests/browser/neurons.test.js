/* neurons.test.js - figure 16, FFN neurons, on the poem model from file://: the figure's numbers
   and tables equal the torch reference (tests/fixtures/hooks/neurons.json: each layer's most
   active neurons, the activation on every token, the promoted and suppressed tokens), a bar is
   drawn for every token with a visible activation, a neuron is picked from the lists or typed
   (a bad one shows a message and keeps the last drawing), and the held-out search shows its
   progress, can be cancelled, and finds the reference's top 10 poems. */
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const { setup, open, settle, ready, FILE_URL } = require('./helpers.js');

const REF = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'hooks', 'neurons.json'), 'utf8'));
const P = REF.models.find((m) => m.name === 'poems');
const HASH = 'lang=en&weights=poems&tokens=' + encodeURIComponent(P.text);
const num = (s) => Number(String(s).replace('\u2212', '-'));
const nameOf = (c) => (c.layer + 1) + '.' + (c.neuron + 1);

let env;
test.before(async () => { env = await setup(); });
test.after(async () => { await env.close(); });

const data = (page) => page.$eval('#fig-neurons', (f) => Object.assign({}, f.dataset));
const tables = (page) => page.$$eval('#fig-neurons table', (ts) => ts.map((t) =>
  Array.from(t.querySelectorAll('tr'), (tr) => Array.from(tr.children, (c) => c.textContent))));

// Runs of bar-coloured pixels along the row just above the bars' axis: one per drawn bar.
const barRuns = (page) => page.$eval('#fig-neurons .chart-bars canvas', (c) => {
  const g = c.getContext('2d'), w = c.width, h = c.height, img = g.getImageData(0, 0, w, h).data;
  const bg = (x, y) => { const i = 4 * (y * w + x); return [img[i], img[i + 1], img[i + 2]]; };
  // the axis: the lowest row with a long dark-ish line; sample 3 device pixels above it
  let axis = -1;
  for (let y = h - 1; y > 0 && axis < 0; y--) {
    let n = 0;
    for (let x = 0; x < w; x++) { const p = bg(x, y); if (Math.max(...p) - Math.min(...p) < 20 && p[0] < 200) n++; }
    if (n > w / 2) axis = y;
  }
  const y = axis - 3;
  let runs = 0, inRun = false;
  for (let x = 0; x < w; x++) {
    const p = bg(x, y), coloured = Math.max(...p) - Math.min(...p) > 60;
    if (coloured && !inRun) runs++;
    inRun = coloured;
  }
  return { runs, axis };
});

test('the_figure_and_its_tables_equal_the_torch_reference', async () => {
  const { page, log, close } = await open(env.browser, FILE_URL, HASH);
  try {
    const d = await data(page), last = P.layers.length - 1;
    assert.strictEqual(d.trained, 'yes');
    assert.strictEqual(d.neuron, (last + 1) + '.' + (P.layers[last].top[0] + 1), 'default: the last layer\'s top');
    assert.deepStrictEqual(d.lists.split(' '), P.layers.map((L) => L.top.map((n) => n + 1).join(',')));
    const c = P.neurons.find((x) => x.layer === last && x.neuron === P.layers[last].top[0]);
    d.act.split(' ').map(Number).forEach((v, i) => assert.ok(Math.abs(v - c.activation[i]) < 1e-4, `act ${i}`));
    assert.deepStrictEqual([d.promote, d.suppress], [c.promote.join(' '), c.suppress.join(' ')]);
    // The direct-logit table: rank, promoted token, id, value, suppressed token, id, value.
    const T = await tables(page), direct = T.find((t) => t[0][1] === 'promotes');
    assert.strictEqual(direct.length, 11);
    direct.slice(1).forEach((r, i) => {
      assert.deepStrictEqual([num(r[2]), num(r[5])], [c.promote[i], c.suppress[i]]);
      assert.ok(Math.abs(num(r[3]) - c.promote_values[i]) < 1e-4 && Math.abs(num(r[6]) - c.suppress_values[i]) < 1e-4, `row ${i}`);
    });
    // The activation table (in the bars' details): one row per token with the reference's value.
    await page.click('#fig-neurons .chart-bars details summary');
    await page.waitForSelector('#fig-neurons .chart-bars details tr');   // built on the toggle event
    const rows = await page.$$eval('#fig-neurons .chart-bars details tr', (trs) => trs.slice(1).map((tr) =>
      Array.from(tr.children, (x) => x.textContent)));
    assert.strictEqual(rows.length, c.activation.length);
    rows.forEach((r, i) => assert.ok(Math.abs(num(r[1]) - c.activation[i]) < 1e-4, `table row ${i}: ${r}`));
    assert.strictEqual(rows[0][0], '<s>');
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});

test('every_token_with_a_visible_activation_has_its_bar_and_a_list_press_picks_a_neuron', async () => {
  const { page, close } = await open(env.browser, FILE_URL, HASH);
  try {
    // Layer 1's top neuron fires on many tokens: press it in the first list.
    const c = P.neurons.find((x) => x.layer === 0 && x.neuron === P.layers[0].top[0]);
    await page.click('#fig-neurons .abl-list:first-child button[data-rank="1"]');
    await settle(page);
    assert.strictEqual((await data(page)).neuron, nameOf(c));
    const max = Math.max(...c.activation), { runs } = await barRuns(page);
    const sure = c.activation.filter((v) => v > 0.05 * max).length, any = c.activation.filter((v) => v > 0).length;
    assert.ok(sure >= 3, `a neuron with several bars: ${sure}`);
    assert.ok(runs >= sure && runs <= any, `bars drawn ${runs}, visible ${sure}..${any}`);
    assert.match(await page.getAttribute('#fig-neurons .abl-list:first-child button[data-rank="1"]', 'aria-pressed'), /true/);
  } finally { await close(); }
});

test('a_press_on_a_hidden_unit_of_the_activation_figure_picks_that_neuron', async () => {
  const { page, close } = await open(env.browser, FILE_URL, HASH + '&layer=2');
  try {
    // The activation figure's second map is after ReLU: column 96 is hidden unit 97 of block 2.
    const canvas = '#fig-activation canvas.hm >> nth=1';
    const at = await page.locator(canvas).evaluate((c, col) => {
      const d = c.dataset, r = c.getBoundingClientRect();
      return [r.left + +d.plotX + (col + 0.5) * +d.cellW, r.top + +d.plotY + 0.5 * +d.cellH];
    }, 96);
    await page.mouse.click(at[0], at[1]);
    await page.waitForFunction(() => document.querySelector('#fig-neurons').dataset.neuron === '2.97', null, { timeout: 30000 });
    const c = P.neurons.find((x) => x.layer === 1 && x.neuron === 96);
    assert.strictEqual((await data(page)).promote, c.promote.join(' '));
  } finally { await close(); }
});

test('a_typed_neuron_is_checked_a_bad_one_keeps_the_last_drawing', async () => {
  const { page, close } = await open(env.browser, FILE_URL, HASH);
  try {
    const field = page.locator('#fig-neurons input[name="neuron"]');
    await field.fill('3.1');
    await field.press('Enter');
    await page.waitForFunction(() => /the model has 2 layers/.test(document.querySelector('#fig-neurons .field-err').textContent),
      null, { timeout: 30000 });
    const before = (await data(page)).neuron;
    assert.notStrictEqual(before, '3.1');
    await field.fill('1.<b>x');
    await field.press('Enter');
    await page.waitForFunction(() => /1\.<b>x/.test(document.querySelector('#fig-neurons .field-err').textContent),
      null, { timeout: 30000 });
    assert.strictEqual(await page.$$eval('#fig-neurons b', (b) => b.length), 0, 'no text as HTML');
    assert.strictEqual((await data(page)).neuron, before, 'the last good drawing stays');
    const c = P.neurons.find((x) => x.layer === 1 && x.neuron === 255);
    await field.fill('2.256');
    await field.press('Enter');
    await page.waitForFunction(() => document.querySelector('#fig-neurons').dataset.neuron === '2.256', null, { timeout: 30000 });
    const d = await data(page);
    assert.strictEqual(d.picked, 'yes');
    assert.deepStrictEqual([d.promote, d.suppress], [c.promote.join(' '), c.suppress.join(' ')]);
  } finally { await close(); }
});

test('the_held_out_search_shows_progress_can_be_cancelled_and_finds_the_reference_poems', async () => {
  const S = P.search, hash = HASH + '&neuron=' + (S.layer + 1) + '.' + (S.neuron + 1);
  const { page, log, close } = await open(env.browser, FILE_URL, hash);
  try {
    assert.strictEqual((await data(page)).search, 'off');
    const on = '#fig-neurons .seg-btn:nth-child(2)', off = '#fig-neurons .seg-btn:nth-child(1)';
    // Switched on, the progress line names the search; switched off meanwhile, it stops. The
    // search may take only a few hundred ms (the line shows after 250), so the page itself
    // watches for the line and presses "off" the moment it shows the search, while it runs.
    await page.evaluate((offSel) => {
      const p = document.getElementById('progress'), fig = document.querySelector('#fig-neurons');
      const w = window.__search = { shown: null, results: [] };
      new MutationObserver(() => {
        if (w.shown || p.hidden || p.dataset.stage !== 'nsearch') return;
        w.shown = { frac: p.querySelector('progress').value, search: fig.dataset.search };
        document.querySelector(offSel).click();
      }).observe(p, { attributes: true, attributeFilter: ['hidden', 'data-stage'] });
      new MutationObserver(() => w.results.push(fig.dataset.search))
        .observe(fig, { attributes: true, attributeFilter: ['data-search'] });
    }, off);
    // The search runs in the page's Worker, which the page's CPU throttling does not slow: on a
    // fast host it can end (~250 ms) before the line's delay has passed. So the Worker is held
    // busy for 800 ms right after the click, as a slow machine would be, between two of the
    // search's 50 ms slices: the line then shows, and the search still runs when it does.
    await page.waitForFunction(() => document.body.dataset.compute === 'worker', null, { timeout: 30000 });
    assert.strictEqual(page.workers().length, 1, 'the page computes in one Worker');
    await page.click(on);
    await page.workers()[0].evaluate(() => { const end = Date.now() + 800; while (Date.now() < end); });
    await page.waitForFunction(() => window.__search.shown, null, { timeout: 30000 });
    const seen = await page.evaluate(() => window.__search.shown);
    assert.ok(seen.frac >= 0 && seen.frac < 1, `progress ${seen.frac}`);
    assert.strictEqual(seen.search, 'off', 'shown while the search runs');
    await ready(page);
    await page.waitForTimeout(500);
    assert.strictEqual((await data(page)).search, 'off', 'cancelled');
    assert.deepStrictEqual(await page.evaluate(() => window.__search.results.filter((v) => v !== 'off')), [],
      'no result of the cancelled search shown');
    assert.ok(await page.$eval('#progress', (p) => p.hidden), 'the progress line is gone');
    // On again: it runs to the end and lists the reference's ten poems, the character marked.
    await page.click(on);
    await page.waitForFunction(() => document.querySelector('#fig-neurons').dataset.search !== 'off', null, { timeout: 60000 });
    await ready(page);
    assert.deepStrictEqual((await data(page)).search.split(' ').map(Number), S.lines);
    const T = await tables(page), found = T.find((t) => t[0][2] === 'line');
    assert.deepStrictEqual(found.slice(1).map((r) => num(r[1])), S.lines.map((l) => l + 1));
    assert.deepStrictEqual(found.slice(1).map((r) => num(r[3])), S.positions);
    found.slice(1).forEach((r, i) => {
      assert.ok(Math.abs(num(r[4]) - S.values[i]) < 1e-4, `value ${i}`);
      assert.match(r[2], /【.】/u, 'the character marked');
    });
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});
