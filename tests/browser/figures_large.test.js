/* figures_large.test.js - figures with long tokens, many tokens and many heads (issue 14, items
   8, 10, 11, 12): the one-token inset's labels fit and its captions sit over their halves (and
   say "up to its own" under the causal mask); shape chains keep each operation whole and on
   balanced rows, on the page and in the SVG; 64+ tokens get thinned key labels that never
   touch; masked cells are hatched, never the colour of a zero; 64 heads are a picker with
   small multiples and one large head (page, URL, export); the activation curve has equal
   scales. Text drawn on canvases is read through a fillText probe installed before load. */
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const { setup, ready, settle, setField, FILE_URL, HASH_64_TOKENS } = require('./helpers.js');
const colors = require('../../web/src/draw/colors.js');

let env;
test.before(async () => { env = await setup({ server: true }); });
test.after(async () => { await env.close(); });

const W128 = Array.from({ length: 128 }, (_, i) => 'w' + i).join(' ');
const LONG = 'transformers understand extraordinarily long tokenization examples';
const BERT128_CAUSAL = 'lang=en&d=768&dff=3072&heads=12&act=gelu&causal=1&tokens=' + encodeURIComponent(W128);
const HEADS64 = 'lang=en&d=256&heads=64';

// Every fillText on a canvas, as boxes in the canvas's CSS pixels (cleared when it is resized).
function probe() {
  const logs = new WeakMap(), fill = CanvasRenderingContext2D.prototype.fillText;
  const size = Object.getOwnPropertyDescriptor(HTMLCanvasElement.prototype, 'width');
  Object.defineProperty(HTMLCanvasElement.prototype, 'width', { get: size.get, configurable: true,
    set(v) { logs.delete(this); size.set.call(this, v); } });
  CanvasRenderingContext2D.prototype.fillText = function (text, x, y) {
    const m = this.getTransform(), k = devicePixelRatio, w = this.measureText(text).width;
    const a = this.textAlign, x0 = a === 'right' || a === 'end' ? x - w : a === 'center' ? x - w / 2 : x;
    const p = (u, v) => [(m.a * u + m.c * v + m.e) / k, (m.b * u + m.d * v + m.f) / k];
    const s = p(x0, y), e = p(x0 + w, y);
    if (!logs.has(this.canvas)) logs.set(this.canvas, []);
    logs.get(this.canvas).push({ text: String(text), x0: Math.min(s[0], e[0]), x1: Math.max(s[0], e[0]),
      y0: Math.min(s[1], e[1]), y1: Math.max(s[1], e[1]), turned: Math.abs(m.b) > 1e-6, font: this.font });
    return fill.call(this, text, x, y);
  };
  window.__texts = (c) => logs.get(c) || [];
}

async function openPage(hash, viewport = { width: 1280, height: 800 }, base = FILE_URL) {
  const context = await env.browser.newContext({ viewport });
  await context.addInitScript(probe);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(base + '#' + hash);
  await ready(page);
  await page.waitForTimeout(300);   // deferred paints and the flows' row breaks
  return { page, errors, close: () => context.close() };
}

const texts = (page, sel) => page.$eval(sel, (c) => window.__texts(c));

test('inset_labels_fit_and_captions_sit_over_the_half_they_describe', async () => {
  for (const [vw, full] of [[1280, true], [390, false]]) {
    const { page, errors, close } = await openPage('lang=en&sel=2&tokens=' + encodeURIComponent(LONG), { width: vw, height: 844 });
    try {
      const cv = '#fig-rows canvas.inset-canvas';
      const box = await page.$eval(cv, (c) => ({ w: c.getBoundingClientRect().width, left: c.getBoundingClientRect().left }));
      const drawn = await texts(page, cv);
      assert.ok(drawn.length >= 6, `${vw}: labels drawn (${drawn.length})`);
      for (const d of drawn) assert.ok(d.x0 >= -0.5 && d.x1 <= box.w + 0.5, `${vw}: "${d.text}" inside the canvas (${d.x0.toFixed(1)}..${d.x1.toFixed(1)} of ${box.w})`);
      // No two labels touch: same line and overlapping in x.
      for (let i = 0; i < drawn.length; i++) {
        for (let j = i + 1; j < drawn.length; j++) {
          const a = drawn[i], b = drawn[j];
          const sameLine = Math.abs(a.y0 - b.y0) < 10, cross = a.x0 < b.x1 - 0.5 && b.x0 < a.x1 - 0.5;
          assert.ok(!(sameLine && cross), `${vw}: "${a.text}" and "${b.text}" overlap`);
        }
      }
      // Each half of the drawing stays in its half.
      for (const d of drawn) assert.ok(d.x1 <= box.w / 2 + 0.5 || d.x0 >= box.w / 2 - 0.5, `${vw}: "${d.text}" crosses the middle`);
      const words = drawn.map((d) => d.text);
      if (full) assert.ok(words.includes('extraordinarily') && words.includes('tokenization'), `1280: whole tokens fit (${words.join(', ')})`);
      else assert.ok(words.some((w) => w.endsWith('\u2026') && w.length > 4), `390: long tokens cut with an ellipsis (${words.join(', ')})`);
      // Captions: the attention one over the left half, the FFN one over the right half.
      const cap = await page.$eval('#fig-rows .inset', (f) => ['.inset-a', '.inset-f'].map((s) => {
        const r = f.querySelector(s).getBoundingClientRect();
        return { left: r.left, right: r.right, text: f.querySelector(s).textContent };
      }));
      assert.ok(Math.abs(cap[0].left - box.left) <= 2, `${vw}: attention caption starts over the drawing (${cap[0].left} vs ${box.left})`);
      assert.ok(cap[0].right <= box.left + box.w / 2 + 1, `${vw}: attention caption within the left half`);
      assert.ok(Math.abs(cap[1].left - (box.left + box.w / 2)) <= 8, `${vw}: FFN caption starts at the right half (${cap[1].left} vs ${box.left + box.w / 2})`);
      assert.ok(cap[1].right <= box.left + box.w + 1, `${vw}: FFN caption ends over the drawing (${cap[1].right} vs ${box.left + box.w})`);
      assert.strictEqual(cap[0].text, 'Attention: reads every row');
      await setField(page, 'causal', true);
      assert.strictEqual(await page.$eval('#fig-rows .inset-a', (e) => e.textContent), 'Attention: reads only the rows up to its own');
      assert.deepStrictEqual(errors, []);
    } finally { await close(); }
  }
});

test('flow_chains_keep_each_operation_whole_on_balanced_rows_page_and_svg', async () => {
  for (const hash of ['lang=en', 'lang=zh', HASH_64_TOKENS, 'lang=en&d=768&dff=3072&heads=12&act=gelu&tokens=a%20b%20c']) {
    const { page, errors, close } = await openPage(hash);
    try {
      const flows = await page.$$eval('.flow', (fs2) => fs2.map((f) => {
        const fr = f.getBoundingClientRect();
        const ops = Array.from(f.querySelectorAll('.flow-op-text'), (o) => ({ text: o.textContent, lines: o.getClientRects().length,
          h: o.getBoundingClientRect().height, lh: parseFloat(getComputedStyle(o).lineHeight) || 20 }));
        const units = Array.from(f.querySelectorAll('.flow-unit'), (u) => {
          const r = u.getBoundingClientRect(), kids = Array.from(u.children, (k) => k.getBoundingClientRect().top);
          return { top: Math.round(r.top), left: r.left, right: r.right, w: r.width, oneLine: Math.max(...kids) - Math.min(...kids) < 2 };
        });
        return { left: fr.left, right: fr.right, ops, units };
      }));
      assert.strictEqual(flows.length, 3, `${hash}: three chains (the FFN, attention, mixture of experts)`);
      for (const f of flows) {
        for (const o of f.ops) assert.ok(o.h < 1.6 * o.lh, `${hash}: "${o.text}" is on one line (${o.h} px)`);
        for (const u of f.units) {
          assert.ok(u.oneLine, `${hash}: an operation and the tensor it makes sit side by side`);
          assert.ok(u.left >= f.left - 0.5 && u.right <= f.right + 0.5, `${hash}: a unit inside the column`);
        }
        // Rows: the fewest that fit, and no row could take the next row's first unit: a row
        // with a lone unit only when that unit cannot share a row.
        const rows = [...new Set(f.units.map((u) => u.top))].map((top) => f.units.filter((u) => u.top === top));
        const widths = rows.map((r) => r.reduce((a, u) => a + u.w, 0) + 6 * (r.length - 1));
        const total = f.units.reduce((a, u) => a + u.w, 0) + 6 * (f.units.length - 1), col = f.right - f.left;
        assert.ok(rows.length <= Math.ceil(total / col) + 1, `${hash}: ${rows.length} rows for ${Math.round(total)} px in ${col}`);
        if (rows.length > 1) {
          assert.ok(Math.min(...widths) >= 0.45 * Math.max(...widths), `${hash}: rows of about equal width (${widths.map(Math.round)})`);
        }
      }
      assert.deepStrictEqual(errors, []);
    } finally { await close(); }
  }
  // The export: an operation's text is one <text>, never broken across lines.
  const { page, close } = await openPage('lang=en', { width: 1280, height: 800 }, env.url + 'index.html');
  try {
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#s-attention .export-svg')]);
    const svg = fs.readFileSync(await dl.path(), 'utf8');
    const all = Array.from(svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g), (m) => m[1].replace(/&amp;/g, '&'));
    for (const op of ['\u00b7 W_Q, W_K, W_V', 'softmax(QK\u1d40/\u221a4)', 'split into 2 heads', '\u00b7 W_O + b_O']) {
      assert.ok(all.includes(op), `SVG: "${op}" in one piece`);
    }
  } finally { await close(); }
});

test('key_labels_thin_out_at_64_and_128_tokens_without_touching', async () => {
  for (const [hash, sel] of [[HASH_64_TOKENS, '#fig-attention .head[data-head="0"] canvas.hm'],
    [BERT128_CAUSAL, '#fig-attention .head-large canvas.hm']]) {
    for (const vw of [1280, 390]) {
      const { page, errors, close } = await openPage(hash, { width: vw, height: 844 });
      try {
        const top = await page.$eval(sel, (c) => +c.dataset.plotY);
        const keys = (await texts(page, sel)).filter((d) => d.y1 <= top + 0.5);
        const L = hash === HASH_64_TOKENS ? 64 : 128;
        assert.ok(keys.length >= 4 && keys.length < L, `${vw}: ${keys.length} of ${L} key labels`);
        // Evenly thinned: every step-th token from the first.
        const idx = keys.map((k) => Number(k.text.replace(/^\D+/, '')));
        const step = idx[1] - idx[0];
        assert.ok(step > 1 && idx.every((v, i) => v === i * step), `${vw}: every ${step}th key (${idx.slice(0, 6)}...)`);
        // Flat labels never overlap; rotated ones (one line of 12 px text across) stay 12 px apart.
        for (let i = 1; i < keys.length; i++) {
          const a = keys[i - 1], b = keys[i];
          if (b.turned) assert.ok(b.x0 - a.x0 >= 12, `${vw}: rotated key labels ${a.text} and ${b.text} ${(b.x0 - a.x0).toFixed(1)} px apart`);
          else assert.ok(b.x0 >= a.x1 + 2, `${vw}: key labels ${a.text} and ${b.text} touch`);
        }
        assert.deepStrictEqual(errors, []);
      } finally { await close(); }
    }
  }
});

test('masked_cells_are_hatched_never_the_colour_of_zero_at_128_tokens', async () => {
  const { page, errors, close } = await openPage(BERT128_CAUSAL);
  try {
    // The large head (cells of a few px) and a small multiple (pooled: under a pixel per cell).
    const sels = ['#fig-attention .head canvas.hm', '#fig-attention .head-thumb[data-head="1"] canvas.hm'];
    assert.strictEqual(await page.$$eval(sels[1], (c) => c.length), 1, 'a small multiple');
    for (const sel of sels) {
      const got = await page.$eval(sel, (c, ink) => {
        const d = c.dataset, k = c.width / +d.cssW, L = +d.rows, g = c.getContext('2d');
        const img = g.getImageData(0, 0, c.width, c.height).data, mask = d.maskRgb.split(',').map(Number);
        const at = (x, y) => { const i = (Math.floor(y * k) * c.width + Math.floor(x * k)) * 4; return [img[i], img[i + 1], img[i + 2]]; };
        const between = (p) => p.every((v, i) => v >= Math.min(ink[i], mask[i]) - 2 && v <= Math.max(ink[i], mask[i]) + 2);
        const out = { masked: 0, grey: 0, ink: 0, light: 0, lower: 0, lowerMask: 0 };
        // Every pixel well inside the upper triangle (key > query + 2), and below the diagonal.
        const x0 = +d.plotX, y0 = +d.plotY, cw = +d.cellW, ch = +d.cellH;
        for (let y = y0 + 0.5; y < y0 + L * ch; y += 1 / k) {
          for (let x = x0 + 0.5; x < x0 + L * cw; x += 1 / k) {
            const r = (y - y0) / ch, col = (x - x0) / cw, p = at(x, y);
            if (col > r + 3) {
              out.masked++;
              if (between(p)) out.grey++;
              if (p[0] < mask[0] - 15 && p[1] < mask[1] - 15 && p[2] < mask[2] - 15) out.ink++;
              if (p[2] > p[0] + 4) out.light++;   // any blue: a weight's colour
            } else if (col < r - 3) {
              out.lower++;
              if (p.join() === mask.join()) out.lowerMask++;
            }
          }
        }
        return out;
      }, colors.hex(colors.scheme('light').css.maskInk));
      assert.ok(got.masked > 200, `${sel}: masked pixels sampled (${got.masked})`);
      assert.strictEqual(got.light, 0, `${sel}: no masked pixel has a weight's (blue) colour`);
      assert.strictEqual(got.grey, got.masked, `${sel}: masked pixels are the mask colour, the hatch's or between (${JSON.stringify(got)})`);
      assert.ok(got.ink > 0.05 * got.masked && got.ink < 0.6 * got.masked, `${sel}: hatch lines visible (${got.ink} of ${got.masked})`);
      assert.ok(got.lowerMask < 0.01 * got.lower, `${sel}: visible cells are not drawn as masked (${got.lowerMask} of ${got.lower})`);
    }
    assert.match(await page.$eval('#fig-attention', (f) => f.textContent), /hatched grey = masked/);
    assert.deepStrictEqual(errors, []);
  } finally { await close(); }
});

test('many_heads_are_a_picker_small_multiples_and_one_large_head_page_url_and_svg', async () => {
  for (const vw of [1280, 390]) {
    const { page, errors, close } = await openPage(HEADS64, { width: vw, height: 844 }, env.url + 'index.html');
    try {
      const h = await page.$eval('#fig-attention', (f) => f.getBoundingClientRect().height);
      assert.ok(h < (vw > 500 ? 1400 : 2000), `${vw}: 64 heads in ${Math.round(h)} px`);
      const state = () => page.evaluate(() => {
        const f = document.querySelector('#fig-attention');
        return { thumbs: Array.from(f.querySelectorAll('.head-thumb'), (b) => b.dataset.head),
          pressed: Array.from(f.querySelectorAll('.head-thumb[aria-pressed=true]'), (b) => b.dataset.head),
          large: Array.from(f.querySelectorAll('.head'), (p) => p.dataset.head),
          title: (f.querySelector('.head-large .panel-title') || {}).textContent, input: (f.querySelector('.head-pick-input') || {}).value,
          canvases: f.querySelectorAll('canvas.hm').length };
      });
      let s = await state();
      assert.deepStrictEqual(s.thumbs, ['0', '1', '2', '3', '4', '5', '6', '7']);
      assert.deepStrictEqual(s.pressed, ['0']);
      assert.deepStrictEqual(s.large, ['0']);
      assert.strictEqual(s.title, 'Head 1');
      assert.strictEqual(s.canvases, 9, 'eight small multiples and one large head');
      await page.click('#fig-attention .head-thumb[data-head="4"]');
      await settle(page);
      s = await state();
      assert.strictEqual(s.title, 'Head 5');
      assert.deepStrictEqual(s.pressed, ['4']);
      assert.match(page.url(), /[#&]head=5(&|$)/);
      await page.click('#fig-attention .head-next');
      await settle(page);
      assert.strictEqual((await state()).title, 'Head 6');
      await page.fill('#fig-attention .head-pick-input', '20');
      await page.press('#fig-attention .head-pick-input', 'Enter');
      await settle(page);
      s = await state();
      assert.deepStrictEqual(s.thumbs, ['16', '17', '18', '19', '20', '21', '22', '23']);
      assert.strictEqual(s.title, 'Head 20');
      assert.strictEqual(s.input, '20');
      assert.match(page.url(), /[#&]head=20(&|$)/);
      // Bad input is put back, out-of-range input is clamped.
      await page.fill('#fig-attention .head-pick-input', '999');
      await page.press('#fig-attention .head-pick-input', 'Enter');
      await settle(page);
      assert.strictEqual((await state()).title, 'Head 64');
      if (vw > 500) {
        // A link with the state opens the same head; the export shows the same blocks.
        await page.reload();
        await ready(page);
        assert.strictEqual((await state()).title, 'Head 64');
        const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#s-attention .export-svg')]);
        const svg = fs.readFileSync(await dl.path(), 'utf8');
        const all = Array.from(svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g), (m) => m[1]);
        assert.ok(all.some((t) => t.startsWith('Head (1\u201364): 64')), 'SVG: the picked head is named');
        for (let k = 57; k <= 64; k++) assert.ok(all.includes('Head ' + k), `SVG: small multiple Head ${k}`);
        assert.strictEqual(all.filter((t) => t === 'Head 64').length, 2, 'SVG: head 64 small and large');
        assert.ok(svg.length < 400000, `SVG size ${svg.length}`);
        // Four heads or fewer: all of them large, as before.
        await page.evaluate(() => { location.hash = 'lang=en&d=8&heads=4'; });
        await settle(page);
        s = await state();
        assert.deepStrictEqual([s.thumbs.length, s.large], [0, ['0', '1', '2', '3']]);
      }
      assert.deepStrictEqual(errors, []);
    } finally { await close(); }
  }
});

test('activation_curve_has_equal_scales_and_no_empty_half', async () => {
  for (const [act, equal] of [['relu', true], ['gelu', true], ['identity', true], ['swiglu', false]]) {
    for (const vw of [1280, 390]) {
      const { page, errors, close } = await openPage('lang=en&act=' + act, { width: vw, height: 844 });
      try {
        const c = await page.$eval('#fig-activation canvas.curve-canvas', (cv) => {
          const d = cv.dataset, r = cv.getBoundingClientRect();
          return { kx: +d.kx, ky: +d.ky, x0: +d.x0, y0: +d.y0, w: r.width, h: r.height };
        });
        if (equal) {
          assert.ok(Math.abs(c.kx - c.ky) < 1e-9 * c.kx, `${act} ${vw}: one scale for both axes (${c.kx} vs ${c.ky})`);
        } else {
          assert.ok(c.kx > 0 && c.ky > 0, `${act}: scales`);
        }
        assert.ok(c.h <= 300 && c.w <= 420 && c.h >= 60, `${act} ${vw}: ${c.w} x ${c.h}`);
        if (act === 'relu' || act === 'identity') {
          // Points on y = x lie at 45 degrees from the origin: a dot drawn there, not background.
          const hits = await page.$eval('#fig-activation canvas.curve-canvas', (cv) => {
            const d = cv.dataset, k = cv.width / cv.getBoundingClientRect().width, g = cv.getContext('2d');
            const bg = Array.from(g.getImageData(1, 1, 1, 1).data.slice(0, 3)).join();
            let on = 0;
            for (let v = 0.2; v <= 0.8; v += 0.1) {
              const t = v * (+d.y0 - 24) / +d.ky;   // a value within the drawn range
              const x = +d.x0 + t * +d.kx, y = +d.y0 - t * +d.ky;
              if (Array.from(g.getImageData(Math.floor(x * k), Math.floor(y * k), 1, 1).data.slice(0, 3)).join() !== bg) on++;
            }
            return on;
          });
          assert.ok(hits >= 6, `${act} ${vw}: the slope-1 branch runs along the diagonal (${hits} of 7)`);
        }
        assert.deepStrictEqual(errors, []);
      } finally { await close(); }
    }
  }
});
