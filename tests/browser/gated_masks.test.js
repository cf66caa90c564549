/* gated_masks.test.js - the FFN figures for gated FFNs (the gate before and after its function,
   the up projection, their product, each scale stated; the parity line), the initialisation
   setting in the page, embed.html and <block-lens>, zeros by definition vs float32 underflow at
   BERT widths, and BERT vs GPT masks side by side. Reference numbers are recomputed in the page
   from the engine's numpy-compatible stream, without the page's model code. */
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { pathToFileURL } = require('url');
const { setup, open, setField, settle, figureTexts, FILE_URL, WEB } = require('./helpers.js');

let env;
test.before(async () => { env = await setup({ server: true }); });
test.after(async () => { await env.close(); });

const num = (s) => Number(String(s).replace(/\u2212/g, '-').replace(/[\s\u00d7]/g, ''));
const data = (page, sel) => page.$eval(sel, (e) => Object.assign({}, e.dataset));

// The FFN of the classic numpy order (x, W1, b1, W2, b2[, W3, b3]) drawn with the engine's
// stream in the page, init applied as stated (W1, W3 / sqrt(d), W2 / sqrt(d_ff)), run by
// bl.ffn; the gate's function from its own ungated call. Arrays come back as plain lists.
function reference(page, o) {
  return page.evaluate(async (a) => {
    const bl = await BlockLens.load(), r = bl.numpyRandom(42), gated = a.act === 'swiglu' || a.act === 'geglu';
    const x = r.randnF32(a.L * a.d), W1 = r.randnF32(a.d * a.dff), b1 = r.randnF32(a.dff), W2 = r.randnF32(a.dff * a.d), b2 = r.randnF32(a.d);
    const W3 = gated ? r.randnF32(a.d * a.dff) : null, b3 = gated ? r.randnF32(a.dff) : null;
    if (a.init === 'scaled') {
      for (const [w, s] of [[W1, 1 / Math.sqrt(a.d)], [W2, 1 / Math.sqrt(a.dff)], [W3, 1 / Math.sqrt(a.d)]]) if (w) for (let i = 0; i < w.length; i++) w[i] *= s;
    }
    const args = { L: a.L, dModel: a.d, dFF: a.dff, x, W1, b1, W2, b2, activation: a.act };
    if (gated) Object.assign(args, { W3, b3 });
    const f = bl.ffn(args);
    const g = gated ? bl.ffn({ L: a.L, dModel: a.d, dFF: a.dff, x, W1, b1, W2, b2, activation: a.act === 'swiglu' ? 'silu' : 'gelu' }).activated : null;
    const list = (v) => (v ? Array.from(v) : null);
    return { hidden: list(f.hidden), up: list(f.up), activated: list(f.activated), gate: list(g) };
  }, Object.assign({ L: 7, d: 8, dff: 32, init: 'classic' }, o));
}

// A panel's data table (opened) as rows of cell texts.
async function table(page, panelSel) {
  await page.$eval(panelSel + ' details', (d) => { d.open = true; });
  await page.waitForFunction((s) => document.querySelector(s + ' details tbody tr'), panelSel);
  return page.$$eval(panelSel + ' details tbody tr', (trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => td.textContent)));
}

// Table cells (4 significant digits, 3 past 1e-3) against reference values.
function assertTable(rows, ref, cols, label) {
  let worst = 0;
  rows.forEach((cells, r) => cells.forEach((text, c) => {
    const want = ref[r * cols + c], got = num(text), diff = Math.abs(got - want);
    worst = Math.max(worst, diff / Math.max(Math.abs(want), 1e-30));
    assert.ok(diff <= 5e-3 * Math.abs(want) + 1e-30, `${label}[${r}, ${c}]: page ${text}, engine ${want} (max rel diff ${worst})`);
  }));
}
const absMax = (a) => a.reduce((m, v) => Math.max(m, Math.abs(v)), 0);

test('swiglu_draws_the_gate_its_silu_the_up_projection_and_their_product_each_on_its_stated_scale', async () => {
  const { page, log, close } = await open(env.browser, FILE_URL, 'lang=en&act=swiglu');
  try {
    const ref = await reference(page, { act: 'swiglu' });
    const maps = await page.$$eval('#fig-activation .panel:not(.curve)', (ps) => ps.map((p) => ({ map: p.dataset.map, max: +p.dataset.max })));
    assert.deepStrictEqual(maps.map((m) => m.map), ['gate', 'gate-act', 'up', 'product']);
    for (const [map, values] of [['gate', ref.hidden], ['gate-act', ref.gate], ['up', ref.up], ['product', ref.activated]]) {
      assertTable(await table(page, `#fig-activation .panel[data-map="${map}"]`), values, 32, map);
    }
    // The product is the gate's SiLU times up, value by value (float32).
    ref.activated.forEach((v, i) => assert.strictEqual(v, Math.fround(ref.gate[i] * ref.up[i]), `product ${i}`));
    // Scales: the gate and its SiLU share one, up and the product have their own (the gate no
    // longer shares the product's larger scale, which washed it out).
    const scale = Object.fromEntries(maps.map((m) => [m.map, m.max]));
    const gmax = Math.max(absMax(ref.hidden), absMax(ref.gate));
    assert.ok(Math.abs(scale.gate - gmax) <= 1e-6 * gmax && scale['gate-act'] === scale.gate, `gate scale ${scale.gate} vs ${gmax}`);
    assert.ok(Math.abs(scale.up - absMax(ref.up)) <= 1e-6 * absMax(ref.up), 'up on its own scale');
    assert.ok(Math.abs(scale.product - absMax(ref.activated)) <= 1e-6 * absMax(ref.activated), 'product on its own scale');
    assert.ok(scale.gate < scale.product, `the gate (${scale.gate}) is not drawn on the product's scale (${scale.product})`);
    assert.match(await page.textContent('#fig-activation'), /g and SiLU\(g\) share this scale/);
    // The chain: the gate branch, the up branch, then their product; the rows figure shows up too.
    const flows = await page.$$eval('#fig-pipeline .blk-flow', (fs2) => fs2.map((f) => Array.from(f.querySelectorAll('.flow-name'), (n) => n.textContent)));
    assert.deepStrictEqual(flows, [['x', 'gate', 'SiLU(gate)'], ['x', 'up'], ['activated', 'out']]);
    const stages = await page.$$eval('#fig-rows .stage .panel-title', (ts) => ts.map((x) => x.textContent));
    assert.deepStrictEqual(stages, ['x', 'gate', 'up', 'activated', 'out']);
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});

test('parity_line_compares_a_gated_ffn_at_8_3_d_with_an_ungated_one_at_4_d', async () => {
  const { page, close } = await open(env.browser, FILE_URL, 'lang=en&act=swiglu&d=12&dff=32');
  try {
    // Matrices only: 2·d·4d for the ungated one, 3·d·round(8d/3) for the gated one.
    const check = async (d, dff, gated) => {
      const at = Math.round(8 * d / 3), ds = await data(page, '#fig-pipeline');
      assert.strictEqual(+ds.parityPlain, 2 * d * 4 * d);
      assert.strictEqual(+ds.parityAt, at);
      assert.strictEqual(+ds.parityGated, 3 * d * at);
      assert.strictEqual(+ds.parityCurrent, (gated ? 3 : 2) * d * dff);
      assert.strictEqual(ds.parity, String(gated && dff === at));
      return page.$$eval('#fig-pipeline .fig-note', (ns) => ns.map((n) => n.textContent).join(' '));
    };
    let text = await check(12, 32, true);
    assert.match(text, /d_ff = 4·d = 48 has 2·d·d_ff = 1,152 weights.*8\/3·d = 32 gives 1,152.*d_ff = 32: 1,152 weights, at parity/);
    await setField(page, 'd', 8);
    text = await check(8, 32, true);
    assert.match(text, /8\/3·d ≈ 21\.33 → 21 gives 504\. This gated FFN, d_ff = 32: 768 weights, 1\.5 × the ungated 4·d count; at parity d_ff would be 21/);
    await setField(page, 'act', 'relu');
    text = await check(8, 32, false);
    assert.match(text, /This ungated FFN, d_ff = 32: 512 weights \(1 × the 4·d count\)/);
  } finally { await close(); }
});

test('underflow_at_bert_widths_is_reported_apart_from_what_the_activation_zeroes', async () => {
  const hash = 'lang=en&d=768&dff=3072&heads=12&init=classic';
  const { page, close } = await open(env.browser, FILE_URL, hash + '&act=relu');
  try {
    for (const act of ['relu', 'gelu']) {
      if (act !== 'relu') await setField(page, 'act', act);
      const ref = await reference(page, { d: 768, dff: 3072, act });
      const le0 = ref.hidden.filter((v) => v <= 0).length;
      const under = ref.activated.filter((v, i) => v === 0 && ref.hidden[i] !== 0 && !(act === 'relu' && ref.hidden[i] <= 0)).length;
      const ds = await data(page, '#fig-activation');
      assert.strictEqual(ds.init, 'classic');
      if (act === 'relu') {
        assert.strictEqual(+ds.zeroed, le0, 'ReLU: every x <= 0 is zeroed by definition');
        assert.strictEqual(+ds.underflow, 0);
      } else {
        assert.strictEqual(+ds.zeroed, ref.hidden.filter((v) => v === 0).length, 'GELU: only x = 0 is zeroed by definition');
        assert.ok(under > 1000, `unit weights at this width push many GELU inputs below -13.15, where it is exactly 0 in float32 (${under})`);
        assert.strictEqual(+ds.underflow, under);
        const note = await page.$$eval('#fig-activation .fig-note', (ns) => ns.map((n) => n.textContent).join(' '));
        assert.ok(note.includes(under.toLocaleString('en-US') + ' values are exactly 0 only through float32 rounding'), note);
      }
      // Cell by cell in the tables (their first columns): × exactly where x <= 0 under ReLU,
      // nowhere under GELU, whose zeros all come from rounding.
      const before = await table(page, '#fig-activation .panel:nth-child(1)');
      const after = await table(page, '#fig-activation .panel:nth-child(2)');
      let marks = 0, zeros = 0;
      before.forEach((cells, r) => cells.forEach((text, c) => {
        const marked = after[r][c].endsWith('\u00d7'), x = num(text);
        assert.strictEqual(marked, act === 'relu' && x <= 0, `${act} [${r}, ${c}]: ${text} -> ${after[r][c]}`);
        if (marked) marks++;
        if (!marked && num(after[r][c]) === 0) zeros++;
      }));
      assert.ok(act === 'relu' ? marks > 100 : zeros > 100, `${act}: the tables show marks ${marks}, unmarked zeros ${zeros}`);
    }
  } finally { await close(); }
});

test('init_scaled_reaches_the_numbers_in_the_page_embed_and_element', async () => {
  const hoverHidden = async (page, canvas) => {
    const c = await page.$(canvas);
    await c.scrollIntoViewIfNeeded();
    const box = await c.boundingBox(), g = await c.evaluate((e) => ({ x: +e.dataset.plotX, y: +e.dataset.plotY, w: +e.dataset.cellW, h: +e.dataset.cellH }));
    await page.mouse.move(box.x + g.x + g.w / 2, box.y + g.y + g.h / 2);
    return Math.fround(num(/= (\S+)/.exec(await page.$eval('.bl-tip', (t) => t.textContent))[1]));
  };
  const { page, close } = await open(env.browser, FILE_URL, 'lang=en');
  try {
    const classic = await reference(page, {}), scaled = await reference(page, { init: 'scaled' });
    assert.strictEqual(await hoverHidden(page, '#fig-activation .panel canvas.hm'), classic.hidden[0]);
    await setField(page, 'init', 'scaled');
    assert.match(page.url(), /init=scaled/);
    for (const v of ['pipeline', 'activation']) assert.strictEqual((await data(page, '#fig-' + v)).init, 'scaled', v + ' redrawn');
    assert.strictEqual(await hoverHidden(page, '#fig-activation .panel canvas.hm'), scaled.hidden[0]);
    assert.notStrictEqual(scaled.hidden[0], classic.hidden[0]);
    assert.match(await page.textContent('#fig-pipeline'), /Weights: scaled, randn \/ √fan_in: W₁ ÷ √8, W₂ ÷ √32\./);
    // The link restores it.
    await page.goto(FILE_URL + '#lang=en&init=scaled&act=geglu');
    await page.waitForFunction(() => document.body.dataset.status === 'ready');
    assert.match(await page.textContent('#fig-activation'), /W₁ and W₃ ÷ √8, W₂ ÷ √32/);

    // embed.html
    await page.goto(pathToFileURL(path.join(WEB, 'embed.html')).href + '#view=activation&lang=en&init=scaled');
    await page.waitForFunction(() => document.body.dataset.status === 'ready', null, { timeout: 30000 });
    assert.strictEqual(await page.$eval('.figure', (f) => f.dataset.init), 'scaled');
    assert.strictEqual(await hoverHidden(page, '.figure .panel canvas.hm'), scaled.hidden[0]);

    // <block-lens init="scaled">, from a page of its own.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bl-init-'));
    const file = path.join(dir, 'element.html');
    fs.writeFileSync(file, '<!doctype html><meta charset="utf-8"><script src="' + pathToFileURL(path.join(WEB, 'dist', 'blocklens-element.js')).href +
      '"></script><block-lens id="e" view="pipeline" init="scaled" lang="en"></block-lens>');
    try {
      await page.goto(pathToFileURL(file).href);
      await page.waitForFunction(() => document.getElementById('e').status === 'ready', null, { timeout: 30000 });
      const got = await page.$eval('#e', (e) => ({ init: e.shadowRoot.querySelector('.bl-figure').dataset.init, text: e.shadowRoot.textContent }));
      assert.strictEqual(got.init, 'scaled');
      assert.match(got.text, /Weights: scaled, randn \/ √fan_in: W₁ ÷ √8, W₂ ÷ √32\./);
      await page.$eval('#e', (e) => e.setAttribute('init', 'classic'));
      await page.waitForFunction(() => document.getElementById('e').shadowRoot.querySelector('.bl-figure').dataset.init === 'classic', null, { timeout: 30000 });
      assert.match(await page.$eval('#e', (e) => e.shadowRoot.textContent), /Weights: numpy classic, unit randn/);
    } finally { fs.rmSync(dir, { recursive: true, force: true }); }
  } finally { await close(); }
});

test('both_masks_show_bert_and_gpt_weights_of_the_same_input_side_by_side', async () => {
  const { page, log, close } = await open(env.browser, FILE_URL, 'lang=en');
  try {
    // The single-mask figure's tables, bidirectional then causal: what each side must show.
    const one = await table(page, '#fig-attention .head[data-head="1"]');
    await setField(page, 'causal', true);
    const gptOne = await table(page, '#fig-attention .head[data-head="1"]');
    for (const causal of [true, false]) {
      if (!causal) await setField(page, 'causal', false);
      await page.click('#fig-attention .seg-btn[data-mode="both"]');
      await settle(page);
      assert.match(page.url(), /masks=both/);
      const ds = await data(page, '#fig-attention');
      assert.strictEqual(ds.masks, 'both');
      const sides = await page.$$eval('#fig-attention .panel[data-head="1"]', (ps) => ps.map((p) => p.dataset.mask));
      assert.deepStrictEqual(sides, ['bert', 'gpt'], 'BERT left, GPT right whatever the causal setting');
      const bert = await table(page, '#fig-attention .panel[data-head="1"][data-mask="bert"]');
      const gpt = await table(page, '#fig-attention .panel[data-head="1"][data-mask="gpt"]');
      assert.deepStrictEqual(bert, one, 'BERT side = the bidirectional figure');
      assert.deepStrictEqual(gpt, gptOne, 'GPT side = the causal figure');
      // The first token attends only to itself under the causal mask, every row sums to 1 on
      // both sides, and the last row (which sees every key either way) is the same.
      assert.strictEqual(gpt[0][0], '1');
      assert.ok(gpt[0].slice(1).every((v) => v === '\u2014'));
      assert.ok(bert[0].every((v) => v !== '\u2014' && num(v) < 1));
      for (const rows of [bert, gpt]) rows.forEach((cells, r) => {
        const sum = cells.filter((v) => v !== '\u2014').reduce((a, v) => a + num(v), 0);
        assert.ok(Math.abs(sum - 1) < 0.01, `row ${r} sums to 1 (${sum})`);
      });
      assert.deepStrictEqual(gpt[gpt.length - 1], bert[bert.length - 1]);
      assert.strictEqual(ds.selfGpt, '1.0000');
      assert.strictEqual(ds.lastDiff, '0');
      assert.match(await page.textContent('#fig-attention'), /the first token, "远", can attend only to itself: weight 1 /);
      await page.click('#fig-attention .seg-btn[data-mode="one"]');
      await settle(page);
      assert.strictEqual((await data(page, '#fig-attention')).masks, 'one');
    }
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});

test('both_masks_with_many_heads_pair_the_picked_head', async () => {
  const { page, close } = await open(env.browser, FILE_URL, 'lang=en&d=48&dff=64&heads=6&masks=both&head=5');
  try {
    assert.deepStrictEqual(await page.$$eval('#fig-attention .head-thumb', (b) => b.length), 6);
    const pair = await page.$$eval('#fig-attention .panel.head-pair', (ps) => ps.map((p) => p.dataset.head + p.dataset.mask));
    assert.deepStrictEqual(pair, ['4bert', '4gpt']);
  } finally { await close(); }
});

// Every text of the page figure is in its SVG export (as figures.test.js, for these states).
test('gated_scaled_and_both_masks_figures_say_the_same_in_their_svg', async () => {
  const { page, log, close } = await open(env.browser, env.url, 'lang=zh&act=geglu&init=scaled&masks=both');
  try {
    for (const view of ['pipeline', 'activation', 'rows', 'attention']) {
      const texts = await figureTexts(page, view);
      const [dl] = await Promise.all([page.waitForEvent('download'), page.click(`#s-${view} .export-svg`)]);
      const svg = Array.from(fs.readFileSync(await dl.path(), 'utf8').matchAll(/<text[^>]*>([^<]*)<\/text>/g), (m) => m[1]).join('')
        .replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&').replace(/\s+/g, '');
      const missing = texts.filter((x) => !svg.includes(x.replace(/\s+/g, '')));
      assert.deepStrictEqual(missing, [], view + ': page text missing from the SVG');
    }
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});
