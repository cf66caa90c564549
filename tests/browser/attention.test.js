/* attention.test.js - attention heatmaps and the position-wise experiment: the causal mask
   empties the upper triangle, the perturbation lights only its own row in the FFN diff and
   the rows that can see it in the attention diff, scaling changes how peaked softmax is. */
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { setup, open, setField, settle, cellColors, FILE_URL } = require('./helpers.js');

let env;
test.before(async () => { env = await setup(); });
test.after(async () => { await env.close(); });

const L = 7;
const all = (f) => { const out = []; for (let r = 0; r < L; r++) for (let c = 0; c < L; c++) if (f(r, c)) out.push([r, c]); return out; };

async function headCanvases(page) { return page.$$eval('#fig-attention canvas.hm', (cs) => cs.length); }

test('causal_mask_empties_the_upper_triangle', async () => {
  const { page, close } = await open(env.browser, FILE_URL, 'lang=en');
  try {
    const heads = await headCanvases(page);
    assert.strictEqual(heads, 2);
    const sel = (h) => `#fig-attention .head[data-head="${h}"] canvas.hm`;
    const mask = await page.$eval(sel(0), (c) => c.dataset.maskRgb.split(',').map(Number));
    // Bidirectional: no cell is drawn as masked.
    let colours = await cellColors(page, sel(0), all(() => true));
    assert.ok(colours.every((rgb) => rgb.join() !== mask.join()), 'no masked cells without the mask');
    await setField(page, 'causal', true);
    assert.strictEqual(await page.$eval('#fig-attention', (e) => e.dataset.causal), 'true');
    for (let h = 0; h < heads; h++) {
      const upper = await cellColors(page, sel(h), all((r, c) => c > r));
      upper.forEach((rgb, i) => assert.deepStrictEqual(rgb, mask, `head ${h + 1} upper cell ${i} is empty`));
      const lower = await cellColors(page, sel(h), all((r, c) => c <= r));
      assert.ok(lower.every((rgb) => rgb.join() !== mask.join()), `head ${h + 1}: the diagonal and below are drawn`);
    }
    // The data table says the same: masked cells are a dash, each row of weights sums to 1.
    await page.click('#fig-attention .head[data-head="0"] summary');
    await page.waitForSelector('#fig-attention .head[data-head="0"] tbody tr');   // built on the toggle event
    const rows = await page.$$eval('#fig-attention .head[data-head="0"] tbody tr', (trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => td.textContent)));
    rows.forEach((cells, r) => cells.forEach((v, c) => { if (c > r) assert.strictEqual(v, '\u2014'); else assert.notStrictEqual(v, '\u2014'); }));
    rows.forEach((cells, r) => {
      const sum = cells.slice(0, r + 1).reduce((s, v) => s + Number(v.replace('\u2212', '-')), 0);
      assert.ok(Math.abs(sum - 1) < 0.01, `row ${r} sums to 1 (${sum})`);
    });
  } finally { await close(); }
});

test('perturbation_changes_only_its_row_in_the_ffn_and_visible_rows_in_attention', async () => {
  const { page, close } = await open(env.browser, FILE_URL, 'lang=en');
  try {
    const d = () => page.$eval('#fig-positionwise', (e) => Object.assign({}, e.dataset));
    let ds = await d();
    assert.strictEqual(ds.perturbed, '3');
    assert.strictEqual(ds.ffnRows, '3', 'FFN: only the perturbed row changes');
    assert.strictEqual(ds.attnRows, '0,1,2,3,4,5,6', 'bidirectional attention: every row changes');
    // Pixels: in the FFN diff, every cell outside row 3 has the colour of zero change.
    const ffn = '#fig-positionwise .diff-ffn canvas.hm';
    const cells = [];
    for (let r = 0; r < L; r++) for (let c = 0; c < 8; c++) cells.push([r, c]);
    const colours = await cellColors(page, ffn, cells);
    const zero = colours[0];
    cells.forEach(([r], i) => { if (r !== 3) assert.deepStrictEqual(colours[i], zero, `FFN diff row ${r} is dark`); });
    assert.ok(cells.some(([r], i) => r === 3 && colours[i].join() !== zero.join()), 'row 3 lights up');

    await page.click('#fig-positionwise .tokens button[data-index="5"]');
    await settle(page);
    ds = await d();
    assert.strictEqual(ds.ffnRows, '5');
    await setField(page, 'causal', true);
    ds = await d();
    assert.strictEqual(ds.attnRows, '5,6', 'causal: only the token itself and later ones see it');
    assert.strictEqual(ds.ffnRows, '5');
    const attn = '#fig-positionwise .diff-attn canvas.hm';
    const ac = await cellColors(page, attn, cells);
    const az = ac[0];
    cells.forEach(([r], i) => { if (r < 5) assert.deepStrictEqual(ac[i], az, `attention diff row ${r} unchanged`); });
  } finally { await close(); }
});

test('turning_off_the_scaling_makes_softmax_peakier', async () => {
  const { page, close } = await open(env.browser, FILE_URL, 'lang=en&d=64&dff=256&heads=1');
  try {
    const peak = () => page.$eval('#fig-attention', (e) => Number(e.dataset.peak));
    const scaled = await peak();
    await setField(page, 'scale', false);
    const raw = await peak();
    assert.ok(raw > scaled + 0.1, `peak without scaling (${raw}) is well above with scaling (${scaled})`);
    // The display switch: raw scores use a diverging scale and still one panel per head.
    await page.click('#fig-attention .seg-btn[data-mode="raw"]');
    await settle(page);
    assert.strictEqual(await page.$eval('#fig-attention', (e) => e.dataset.mode), 'raw');
    assert.match(page.url(), /show=raw/);
  } finally { await close(); }
});
