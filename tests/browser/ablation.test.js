/* ablation.test.js - figure 14 on the page, from file://, on the poem model and the quatrain up to
   故 (its next character: the rhyme 乡): the lists, KL and probabilities are the torch references'
   (tests/fixtures/hooks/poems.json), a key press on a grid cell switches a head off, the sweep's
   heatmap cells and data table hold the reference's drops, a token press follows it, a bad
   `ablate` shows a message while the last drawing stays, and random weights say why in one line. */
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const { setup, open, ready, settle, FILE_URL } = require('./helpers.js');

const REF = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'hooks', 'poems.json'), 'utf8'));
const G = REF.ablate[1], TOL = REF.atol.ablate;
const VOCAB = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'web', 'models', 'poems', 'vocab.json'), 'utf8'));
const TEXT = G.ids.slice(1, G.row + 1).map((id) => VOCAB[id]).join('');
const HASH = 'lang=en&weights=poems&tokens=' + encodeURIComponent(TEXT);
const num = (s) => Number(String(s).replace(/\u2212/g, '-'));

let env;
test.before(async () => { env = await setup(); });
test.after(async () => { await env.close(); });

const data = (page) => page.$eval('#fig-ablation', (f) => Object.assign({}, f.dataset));
const listIds = (page, n) => page.$$eval(`#fig-ablation .abl-list:nth-child(${n}) .next-item`, (b) => b.map((x) => Number(x.dataset.id)));
const caseOf = (l, h) => G.cases.find((c) => c.ablate[0][0] === l && c.ablate[0][1] === h);

test('the_lists_kl_and_probabilities_are_the_references_and_a_key_press_switches_a_head_off', async () => {
  const { page, log, close } = await open(env.browser, FILE_URL, HASH);
  try {
    let d = await data(page);
    assert.strictEqual(d.trained, 'yes');
    assert.strictEqual(d.top, G.base.top.slice(0, 10).join(' '));
    assert.strictEqual(d.target, String(G.target));
    assert.deepStrictEqual(await listIds(page, 1), G.base.top.slice(0, 10));
    assert.strictEqual(await page.$$eval('#fig-ablation .abl-cell', (c) => c.length), 2 * (4 + 1));
    // Keyboard: focus layer 2 head 4 and press Enter.
    await page.focus('#fig-ablation .abl-cell[data-cell="1.3"]');
    await page.keyboard.press('Enter');
    await settle(page);
    d = await data(page);
    const c = caseOf(1, 3);
    assert.strictEqual(d.ablate, '2.4');
    assert.match(await page.evaluate(() => location.hash), /ablate=2\.4/);
    assert.strictEqual(await page.$eval('#fig-ablation .abl-cell[data-cell="1.3"]', (b) => b.getAttribute('aria-pressed')), 'true');
    assert.ok(Math.abs(Number(d.kl) - c.kl) < TOL, `kl ${d.kl} vs ${c.kl}`);
    assert.ok(Math.abs(Math.log(Number(d.pAfter)) - c.target_logprob) < 1e-3, `log p after ${d.pAfter}`);
    assert.deepStrictEqual(await listIds(page, 2), c.top.slice(0, 10));
    // A press on a token of the list follows it; "switch everything back on" clears the set.
    await page.click(`#fig-ablation .abl-list:nth-child(2) .next-item[data-id="${c.top[0]}"]`);
    await settle(page);
    assert.strictEqual((await data(page)).target, String(c.top[0]));
    await page.click('#fig-ablation .abl-clear');
    await settle(page);
    d = await data(page);
    assert.deepStrictEqual([d.ablate, Number(d.kl)], ['', 0]);
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});

test('the_sweep_draws_each_heads_drop_as_the_reference_with_its_data_table', async () => {
  const { page, log, close } = await open(env.browser, FILE_URL, HASH);
  try {
    assert.strictEqual((await data(page)).sweep, 'off');
    await page.click('#fig-ablation .seg-btn:nth-child(2)');
    await page.waitForFunction(() => document.querySelector('#fig-ablation').dataset.sweep === 'done', null, { timeout: 30000 });
    await ready(page);
    const drops = (await data(page)).sweepDrop.split(' ').map(Number);
    for (const c of G.cases) {
      const [l, h] = c.ablate[0], want = G.base.target_logprob - c.target_logprob;
      assert.ok(Math.abs(drops[l * 4 + h] - want) < TOL, `head ${l + 1}.${h + 1}: ${drops[l * 4 + h]} vs ${want}`);
    }
    // The heads' heatmap: a canvas, and its data table (opened on demand) holds the same numbers.
    const panel = page.locator('#fig-ablation [data-part="heads"]');
    assert.strictEqual(await panel.locator('canvas').count(), 1);
    await panel.locator('summary').first().click();
    // (the table is built when its details open: wait for its last cell)
    await panel.locator('table td').nth(2 * 4 - 1).waitFor({ timeout: 10000 });
    const cells = await panel.locator('table td').allTextContents();
    assert.strictEqual(cells.length, 2 * 4);
    cells.forEach((s, i) => assert.ok(Math.abs(num(s) - drops[i]) < 5e-3, `table cell ${i}: ${s} vs ${drops[i]}`));
    assert.match(await page.textContent('#fig-ablation'), /drop of log p\(“乡”\)/);
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});

test('a_bad_ablate_shows_a_message_and_keeps_the_last_drawing', async () => {
  const { page, close } = await open(env.browser, FILE_URL, HASH + '&ablate=1.2');
  try {
    assert.strictEqual((await data(page)).ablate, '1.2');
    const setAblate = (v) => page.evaluate((x) => { location.hash = location.hash.replace(/ablate=[^&]*/, 'ablate=' + x); }, v);
    await setAblate('1.9');
    await page.waitForFunction(() => document.body.dataset.status === 'error', null, { timeout: 30000 });
    assert.match(await page.textContent('#status'), /the model has 4 heads per layer/);
    assert.strictEqual((await data(page)).ablate, '1.2', 'the last good drawing stays');
    await setAblate('2.x%3Cb%3E');
    await page.waitForFunction(() => /2\.x<b>/.test(document.querySelector('#status').textContent), null, { timeout: 30000 });
    assert.match(await page.textContent('#status'), /is not layer\.head or layer\.ffn/);
    assert.strictEqual(await page.$$eval('#status b, #fig-ablation b', (b) => b.length), 0, 'no text as HTML');
    assert.strictEqual((await data(page)).ablate, '1.2');
  } finally { await close(); }
});

test('random_weights_say_in_one_line_why_there_is_nothing_to_ablate', async () => {
  const { page, close } = await open(env.browser, FILE_URL, 'lang=zh');
  try {
    assert.strictEqual((await data(page)).trained, 'no');
    assert.match(await page.textContent('#fig-ablation'), /随机权重只有一个 Block/);
    await page.click('#fig-ablation .next-action');
    await page.waitForFunction(() => document.querySelector('#fig-ablation').dataset.trained === 'yes', null, { timeout: 30000 });
  } finally { await close(); }
});
