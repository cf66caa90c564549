/* patching.test.js - figure 15, activation patching, on the poem model from file://: the heatmap
   and its data table hold the torch reference's recovered logit differences
   (tests/fixtures/hooks/poems.json), the keyboard reads its cells, the answer pickers and the
   one-press corrupted text work, and a length mismatch draws no heatmap. */
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const { setup, open, settle, cellColors, FILE_URL } = require('./helpers.js');

const REF = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'hooks', 'poems.json'), 'utf8'));
const P = REF.patch, enc = encodeURIComponent;
const HASH = 'weights=poems&tokens=' + enc(REF.texts.clean) + '&corrupt=' + enc(REF.texts.corrupt) +
  '&answer=' + P.answer + '&wrong=' + P.wrong;
// The reference's cells, normalised as TransformerLens does.
const WANT = P.diff.map((row) => row.map((d) => (d - P.corrupt_diff) / (P.clean_diff - P.corrupt_diff)));
const num = (s) => Number(String(s).replace('\u2212', '-'));

let env;
test.before(async () => { env = await setup(); });
test.after(async () => { await env.close(); });

const data = (page) => page.$eval('#fig-patching', (f) => Object.assign({}, f.dataset));

test('the_heatmap_and_its_table_hold_the_torch_references_recovery', async () => {
  const { page, log, close } = await open(env.browser, FILE_URL, 'lang=en&' + HASH);
  try {
    const d = await data(page);
    assert.strictEqual(d.state, 'ok');
    assert.deepStrictEqual([d.answer, d.wrong], [String(P.answer), String(P.wrong)]);
    assert.ok(Math.abs(num(d.cleanDiff) - P.clean_diff) < 1e-4 && Math.abs(num(d.corruptDiff) - P.corrupt_diff) < 1e-4);
    const cells = d.cells.split(' ').map(Number), want = WANT.flat();
    assert.strictEqual(cells.length, want.length);
    cells.forEach((c, i) => assert.ok(Math.abs(c - want[i]) < 5e-4, `cell ${i}: ${c} vs ${want[i]}`));
    // The data table: a row per block, a column per position, the clean->corrupted token marked.
    await page.click('#fig-patching details summary');
    await page.waitForSelector('#fig-patching details table tr');   // built on the toggle event, a task later
    const table = await page.$$eval('#fig-patching details table tr', (trs) => trs.map((tr) =>
      Array.from(tr.children, (c) => c.textContent)));
    assert.deepStrictEqual(table[0].slice(1), ['<s>', '床', '前', '明', '月\u2192日', '光']);
    assert.deepStrictEqual(table.slice(1).map((r) => r[0]), ['block 1', 'block 2']);
    table.slice(1).forEach((r, l) => r.slice(1).forEach((v, p) =>
      assert.ok(Math.abs(Number(v) - WANT[l][p]) < 1.5e-3, `table ${l},${p}: ${v} vs ${WANT[l][p]}`)));
    assert.deepStrictEqual(log.errors, []);   // (before the pixel probes, which Chromium warns about)
    // The canvas: the full recoveries red, the tenth-of-one paler than the nine tenths.
    const canvas = '#fig-patching canvas.hm';
    const [a, b, c, z] = await cellColors(page, canvas, [[0, 4], [1, 5], [1, 4], [0, 0]]);
    for (const rgb of [a, b]) assert.ok(rgb[0] > rgb[2] + 60, `red: ${rgb}`);
    assert.ok(c[1] > b[1] + 40 && z[1] > c[1], `paler with less recovered: ${c} ${b} ${z}`);
    // The headline names the jump: position 4 up to block 1, the last position from block 2.
    assert.match(await page.textContent('#fig-patching .fig-body .result'), /“月→日” \(position 4\).*block 1.*“光” \(position 5/);
    // The keyboard: the cursor starts at (block 1, <s>) and moves; the tooltip reads the cell.
    await page.focus(canvas);
    for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowRight');
    assert.match(await page.$eval('.bl-tip', (t) => t.textContent), /^Block 1, position 4 \(月→日\): recovers 1\.000/);
  } finally { await close(); }
});

test('picking_an_answer_reweighs_the_same_sweep', async () => {
  const { page, close } = await open(env.browser, FILE_URL, 'lang=en&' + HASH);
  try {
    // The clean run's top 10, in order; press the first as the answer.
    const items = await page.$$('#fig-patching .blk-nextchars >> nth=0 >> .next-item');
    assert.strictEqual(items.length, 10);
    await items[0].click();
    await settle(page);
    const d = await data(page);
    assert.notStrictEqual(d.answer, String(P.answer));
    assert.match(await page.evaluate(() => location.hash), new RegExp('answer=' + d.answer));
    assert.strictEqual(d.state, 'ok');
    // Block 0 at the changed position makes the corrupted run the clean one: all of any pair.
    assert.strictEqual(d.cells.split(' ')[4], '1.0000');
  } finally { await close(); }
});

test('empty_offers_one_change_and_a_length_mismatch_draws_nothing', async () => {
  const { page, log, close } = await open(env.browser, FILE_URL, 'lang=zh&weights=poems&tokens=' + enc(REF.texts.clean));
  try {
    assert.strictEqual((await data(page)).state, 'empty');
    assert.strictEqual(await page.$$eval('#fig-patching canvas.hm', (c) => c.length), 0);
    await page.click('#fig-patching .next-action');
    await settle(page);
    assert.strictEqual((await data(page)).state, 'ok');
    assert.strictEqual(await page.inputValue('#fig-patching input[name="corrupt"]'), REF.texts.corrupt);
    assert.strictEqual(await page.$$eval('#fig-patching canvas.hm', (c) => c.length), 1);
    // One character more: a message, and the old heatmap gone.
    await page.fill('#fig-patching input[name="corrupt"]', REF.texts.corrupt + '月');
    await page.press('#fig-patching input[name="corrupt"]', 'Enter');
    await settle(page);
    assert.strictEqual((await data(page)).state, 'length');
    assert.match(await page.textContent('#fig-patching .fig-body'), /干净文本有 6 个 token，改动后的有 7 个/);
    assert.strictEqual(await page.$$eval('#fig-patching canvas.hm', (c) => c.length), 0);
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});

test('random_weights_say_why_in_one_line', async () => {
  const { page, close } = await open(env.browser, FILE_URL, 'lang=en');
  try {
    assert.strictEqual((await data(page)).state, 'random');
    assert.strictEqual(await page.$$eval('#fig-patching .fig-body .fig-note:not([hidden])', (n) => n.length), 1);
    await page.click('#fig-patching .next-action');
    await settle(page);
    assert.strictEqual((await data(page)).state, 'empty');
  } finally { await close(); }
});
