/* ffn.test.js - the FFN figures: the classic example's 100/0 negatives, the activation choices,
   and picking a token (click, keyboard) greys every other row in every FFN stage. */
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { setup, open, setField, settle, cellColors, isGrey, FILE_URL } = require('./helpers.js');

let env;
test.before(async () => { env = await setup(); });
test.after(async () => { await env.close(); });

const data = (page, sel) => page.$eval(sel, (e) => Object.assign({}, e.dataset));

test('default_shows_100_negatives_before_relu_and_0_after', async () => {
  const { page, close } = await open(env.browser, FILE_URL, 'lang=en');
  try {
    const d = await data(page, '#fig-activation');
    assert.strictEqual(d.negativesBefore, '100');
    assert.strictEqual(d.negativesAfter, '0');
    assert.strictEqual(d.zeroed, '100', 'every negative became an exact 0, marked ×');
    const chips = await page.$$eval('#fig-activation .stat-num', (n) => n.map((x) => x.textContent));
    assert.deepStrictEqual(chips, ['100', '0', '100']);
  } finally { await close(); }
});

test('gelu_keeps_small_negatives_and_identity_collapses_to_one_layer', async () => {
  const { page, close } = await open(env.browser, FILE_URL, 'lang=en');
  try {
    await setField(page, 'act', 'gelu');
    let d = await data(page, '#fig-activation');
    assert.strictEqual(d.negativesBefore, '100', 'same hidden values');
    assert.ok(+d.negativesAfter > 0, 'GELU lets negatives through');
    await setField(page, 'act', 'identity');
    const note = await page.$eval('#fig-pipeline .fig-note', (e) => e.textContent);
    assert.match(note, /one linear layer/);
    await setField(page, 'act', 'swiglu');
    d = await data(page, '#fig-activation');
    assert.strictEqual(d.negativesBefore, '100', 'the gate is x·W1 + b1, drawn as in the classic order');
    assert.match(await page.$eval('#ctl-act-hint', (e) => e.textContent), /Three matrices/);
  } finally { await close(); }
});

// Every cell of every stage: the chosen row keeps colour, every other row is grey.
async function checkGreyed(page, sel) {
  assert.strictEqual(await page.$eval('#fig-rows', (e) => e.dataset.selected), String(sel));
  for (let k = 0; k < 4; k++) {
    const canvas = `#fig-rows .stage[data-stage="${k}"] canvas.hm`;
    const cols = await page.$eval(canvas, (c) => +c.dataset.cols);
    const cells = [];
    for (let r = 0; r < 7; r++) for (let c = 0; c < cols; c++) cells.push([r, c]);
    const colours = await cellColors(page, canvas, cells);
    let coloured = 0;
    cells.forEach(([r], i) => {
      if (r === sel) { if (!isGrey(colours[i])) coloured++; } else assert.ok(isGrey(colours[i]), `stage ${k} row ${r} is grey: ${colours[i]}`);
    });
    assert.ok(coloured >= cols / 2, `stage ${k}: the selected row keeps its colours (${coloured} of ${cols})`);
  }
}

test('clicking_a_token_greys_every_other_row', async () => {
  const { page, close } = await open(env.browser, FILE_URL, 'lang=en');
  try {
    await checkGreyed(page, 0);
    await page.click('#fig-rows .tokens button[data-index="3"]');
    await settle(page);
    await checkGreyed(page, 3);
    assert.strictEqual(await page.$eval('#fig-rows .tokens button[data-index="3"]', (b) => b.getAttribute('aria-pressed')), 'true');
    assert.match(page.url(), /sel=3/, 'the selection is in the URL');
  } finally { await close(); }
});

test('tokens_and_heatmaps_work_from_the_keyboard', async () => {
  const { page, close } = await open(env.browser, FILE_URL, 'lang=en');
  try {
    await page.focus('#fig-rows .tokens button[data-index="0"]');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await settle(page);
    await checkGreyed(page, 2);
    // A heatmap takes focus; arrows move a cursor whose value is announced in the tooltip.
    await page.focus('#fig-activation .panel canvas.hm');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowDown');
    const tip = await page.$eval('.bl-tip', (t) => ({ text: t.textContent, hidden: t.hidden, live: t.getAttribute('aria-live') }));
    assert.strictEqual(tip.hidden, false);
    assert.strictEqual(tip.live, 'polite');
    assert.match(tip.text, /^hidden\[方, 1\] = −?\d/);
    // Enter on a per-token heatmap selects that row.
    await page.focus('#fig-rows .stage[data-stage="1"] canvas.hm');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await settle(page);
    assert.strictEqual(await page.$eval('#fig-rows', (e) => e.dataset.selected), '3');
  } finally { await close(); }
});

test('hover_shows_the_exact_float32_value', async () => {
  const { page, close } = await open(env.browser, FILE_URL, 'lang=en');
  try {
    const c = await page.$('#fig-activation .panel canvas.hm');
    await c.scrollIntoViewIfNeeded();
    const box = await c.boundingBox();
    const d = await c.evaluate((e) => ({ x: +e.dataset.plotX, y: +e.dataset.plotY, w: +e.dataset.cellW, h: +e.dataset.cellH }));
    await page.mouse.move(box.x + d.x + d.w * 0.5, box.y + d.y + d.h * 0.5);
    const tip = await page.$eval('.bl-tip', (t) => t.textContent);
    // x[0] of the numpy example is 0.49671414...; hidden[0,0] is a float32 printed in full.
    assert.match(tip, /^hidden\[远, 0\] = −?\d+\.\d{4,}/);
  } finally { await close(); }
});
