/* lens.test.js - figure 13, the logit lens, on the page from file:// on the poem model: both
   tables drawn (3 residual points x 25 positions), every cell's colour the probability the
   torch reference (tests/fixtures/hooks/poems.json) gives, the actual next token's cells framed,
   the data tables equal to the reference, the top 5 of a cell from the keyboard; random weights
   say why there is nothing to show and offer the poem model. */
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const { setup, open, settle, FILE_URL, WEB } = require('./helpers.js');

const colors = require(path.join(WEB, 'src', 'draw', 'colors.js'));
const REF = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'hooks', 'poems.json'), 'utf8'));
const VOCAB = JSON.parse(fs.readFileSync(path.join(WEB, 'models', 'poems', 'vocab.json'), 'utf8'));
const QUATRAIN = REF.texts.quatrain, LENS = REF.lens.find((e) => e.ids.length === 1 + Array.from(QUATRAIN).length);
const P = LENS.top.length, L = LENS.ids.length, TOL = REF.atol.lens + 1e-6;
const HASH = 'lang=en&weights=poems&tokens=' + encodeURIComponent(QUATRAIN);

let env;
test.before(async () => { env = await setup(); });
test.after(async () => { await env.close(); });

const figureData = (page) => page.$eval('#fig-lens', (f) => Object.assign({}, f.dataset));
const CANVAS = (panel) => `#fig-lens .panel[data-panel="${panel}"] canvas.hm`;
// Row r of the tables is residual point P - 1 - r (after the last block at the top).
const pointOf = (r) => P - 1 - r;
const nearTie = (probs, j) => Math.abs(probs[j] - probs[j + 1]) <= TOL;

// RGB at CSS-pixel points of a canvas, from one readback of its backing store (helpers' pixels()
// reads once per point, which Chromium warns about at 150 points).
function read(page, sel, points) {
  return page.$eval(sel, (c, pts) => {
    const k = c.width / c.getBoundingClientRect().width, img = c.getContext('2d').getImageData(0, 0, c.width, c.height);
    return pts.map(([x, y]) => {
      const i = (Math.floor(y * k) * c.width + Math.floor(x * k)) * 4;
      return Array.from(img.data.slice(i, i + 3));
    });
  }, points);
}

// The cells' fill, read a few pixels in from each cell's top-left corner (clear of the word in
// its middle and of the frame at its edge); and the frame's pixel on each cell's left edge.
async function cellPixels(page, sel) {
  const d = await page.$eval(sel, (c) => Object.assign({}, c.dataset));
  const at = (r, c, dx, dy) => [+d.plotX + c * +d.cellW + dx, +d.plotY + r * +d.cellH + dy];
  const cells = [];
  for (let r = 0; r < +d.rows; r++) for (let c = 0; c < +d.cols; c++) cells.push([r, c]);
  const all = await read(page, sel, cells.map(([r, c]) => at(r, c, 4, 4))
    .concat(cells.map(([r, c]) => at(r, c, 1.5, +d.cellH / 2))));
  const fill = all.slice(0, cells.length), edge = all.slice(cells.length);
  return { d, cells, fill, edge };
}

test('the_lens_on_the_quatrain_draws_the_references_top_tokens_and_frames_the_next_characters', async () => {
  const { page, log, close } = await open(env.browser, FILE_URL, HASH);
  try {
    const data = await figureData(page);
    assert.strictEqual(data.applies, 'yes');
    assert.strictEqual(data.trained, 'yes');
    assert.strictEqual(+data.points, P);
    assert.strictEqual(+data.positions, L);
    // the first point whose top-1 is the next character, from the reference alone
    const first = LENS.ids.slice(1).map((next, i) => LENS.top.findIndex((pt) => pt[i][0] === next));
    assert.strictEqual(data.first, first.join(' '));
    const counts = Array.from({ length: P }, (_, p) => first.filter((v) => v === p).length);
    const head = await page.textContent('#fig-lens .blk-headline');
    counts.forEach((n, p) => { if (n) assert.ok(head.includes((p ? `after block ${p}` : 'at the embeddings') + ` for ${n}`), head); });
    // the top-1 ids of every cell: the reference's, wherever its first two are not a near tie
    const top = data.top.split(' ').map((row) => row.split(',').map(Number));
    for (let p = 0; p < P; p++) {
      for (let i = 0; i < L; i++) {
        if (!nearTie(LENS.probs[p][i], 0)) assert.strictEqual(top[p][i], LENS.top[p][i][0], `point ${p} position ${i}`);
      }
    }
    // the top panel: each cell coloured by the reference's top probability, framed iff top-1 is next
    const sc = colors.scheme('light'), focus = colors.hex(sc.css.focus), rgb = [0, 0, 0];
    const upper = await cellPixels(page, CANVAS('top'));
    assert.strictEqual(+upper.d.rows, P);
    assert.strictEqual(+upper.d.cols, L);
    let framed = 0;
    upper.cells.forEach(([r, c], k) => {
      const p = pointOf(r), want = colors.color(sc, 'sequential', LENS.probs[p][c][0], 1, rgb);
      assert.ok(upper.fill[k].every((v, j) => Math.abs(v - want[j]) <= 3), `top (${r}, ${c}): ${upper.fill[k]} vs ${want}`);
      const isNext = c + 1 < L && LENS.top[p][c][0] === LENS.ids[c + 1];
      const onFrame = upper.edge[k].every((v, j) => Math.abs(v - focus[j]) <= 40);
      assert.strictEqual(onFrame, isNext, `top (${r}, ${c}) framed: ${upper.edge[k]}`);
      framed += isNext ? 1 : 0;
    });
    assert.ok(framed > 0, 'some cells are framed');
    // the lower panel: the actual next character's probability (the last column is masked)
    const lower = await cellPixels(page, CANVAS('next'));
    lower.cells.forEach(([r, c], k) => {
      if (c + 1 >= L) return;
      const p = pointOf(r), at = LENS.top[p][c].indexOf(LENS.ids[c + 1]);
      if (at < 0) {   // below the reference's top 6: at most its 6th probability
        const max = colors.color(sc, 'sequential', LENS.probs[p][c][LENS.probs[p][c].length - 1] + TOL, 1, [0, 0, 0]);
        assert.ok(lower.fill[k][0] >= max[0] - 3, `next (${r}, ${c}) is light: ${lower.fill[k]}`);
        return;
      }
      const want = colors.color(sc, 'sequential', LENS.probs[p][c][at], 1, rgb);
      assert.ok(lower.fill[k].every((v, j) => Math.abs(v - want[j]) <= 3), `next (${r}, ${c}): ${lower.fill[k]} vs ${want}`);
    });
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});

test('the_lens_data_tables_equal_the_reference_and_the_keyboard_shows_a_cells_top_5', async () => {
  const { page, log, close } = await open(env.browser, FILE_URL, HASH);
  try {
    const table = async (panel) => {
      await page.click(`#fig-lens .panel[data-panel="${panel}"] details.table-alt summary`);
      // built on the toggle event, a task after the click: without the wait a table read empty
      await page.waitForSelector(`#fig-lens .panel[data-panel="${panel}"] table.data tbody tr`);
      return page.$$eval(`#fig-lens .panel[data-panel="${panel}"] table.data tbody tr`,
        (rows) => rows.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => td.textContent)));
    };
    const upper = await table('top'), lower = await table('next');
    assert.strictEqual(upper.length, P);
    assert.strictEqual(lower.length, P);
    for (let r = 0; r < P; r++) {
      const p = pointOf(r);
      assert.strictEqual(upper[r].length, L);
      for (let c = 0; c < L; c++) {
        const m = /^(.+) ([\d.]+)%( \u2713)?$/.exec(upper[r][c]), probs = LENS.probs[p][c];
        assert.ok(m, `top table (${r}, ${c}): "${upper[r][c]}"`);
        if (!nearTie(probs, 0)) assert.strictEqual(m[1], VOCAB[LENS.top[p][c][0]], `top table (${r}, ${c}) token`);
        assert.ok(Math.abs(+m[2] - 100 * probs[0]) <= 0.05 + 100 * TOL, `top table (${r}, ${c}): ${m[2]}% vs ${probs[0]}`);
        assert.strictEqual(!!m[3], c + 1 < L && m[1] === VOCAB[LENS.ids[c + 1]], `top table (${r}, ${c}) tick`);
        // the actual next character: its rank where the reference ranks it, else below its top 6
        if (c + 1 >= L) { assert.strictEqual(lower[r][c], '\u2014'); continue; }
        const n = /^#([\d,]+) ([\d.<]+)%$/.exec(lower[r][c]), rank = +n[1].replace(/,/g, '');
        const at = LENS.top[p][c].indexOf(LENS.ids[c + 1]);
        if (at >= 0 && !nearTie(probs, at) && !(at > 0 && nearTie(probs, at - 1))) assert.strictEqual(rank, at + 1, `rank (${r}, ${c})`);
        if (at < 0) assert.ok(rank >= probs.length, `rank (${r}, ${c}) ${rank} below the reference's top ${probs.length}`);
      }
    }
    // keyboard: the cursor moves over the top panel and its tooltip lists the cell's top 5
    const sel = CANVAS('top');
    await page.focus(sel);
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowDown');
    const tip = await page.textContent('.bl-tip');
    const p = pointOf(1);
    assert.ok(tip.startsWith(`After block ${p}, position 1 (${VOCAB[LENS.ids[1]]})`), tip);
    for (let j = 0; j < 5; j++) if (!nearTie(LENS.probs[p][1], j)) assert.ok(tip.includes(VOCAB[LENS.top[p][1][j]]), tip);
    assert.ok(/Next in the text: .+, rank [\d,]+, /.test(tip), tip);
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});

test('random_weights_say_why_there_is_no_lens_and_offer_the_poem_model', async () => {
  const { page, log, close } = await open(env.browser, FILE_URL, 'lang=zh');
  try {
    assert.strictEqual((await figureData(page)).trained, 'no');
    assert.strictEqual(await page.$$eval('#fig-lens canvas', (c) => c.length), 0);
    await page.click('#fig-lens .next-action');
    await page.waitForFunction(() => document.querySelector('#fig-lens').dataset.trained === 'yes', null, { timeout: 30000 });
    await settle(page);
    const head = await page.textContent('#fig-lens .blk-headline');
    assert.ok(head.startsWith('透镜最早猜对下一个字的地方'), head);
    assert.strictEqual(await page.$$eval('#fig-lens canvas.hm', (c) => c.length), 2);
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});
