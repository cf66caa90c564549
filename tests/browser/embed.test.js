/* embed.test.js - embedding single figures: three <block-lens> elements and two sandboxed
   iframes on a blog page under a strict CSP render five different figures; attributes redraw;
   elements wait until scrolled into view; frames report their height; the single script defines
   one global. Screenshots go to tests/artifacts/. */
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const { setup, WEB } = require('./helpers.js');

const FIX = path.join(__dirname, 'fixtures');
const OUT = path.resolve(__dirname, '..', 'artifacts');
// The strict policy a careful blog sends. Chromium needs 'wasm-unsafe-eval' to compile wasm.
const STRICT = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self'; object-src 'none'; base-uri 'none'";
// Emscripten 3.1.6 first tries fetch() on its inlined data: URL; CSP refuses it (logged), and it
// then decodes the same bytes itself. `connect-src 'self' data:` silences that (see README).
const DATA_FETCH = /data:application\/octet-stream;base64|Fetch API cannot load data:/;

let env;
test.before(async () => { env = await setup(); fs.mkdirSync(OUT, { recursive: true }); });
test.after(async () => { await env.close(); });

// The blog lives at https://blog.example/ (served by the test, never by the network): its page
// from fixtures/, BlockLens's files from web/, every HTML document with the CSP header. (A
// loopback server would not do: Chromium keeps a sandboxed frame's opaque origin away from
// loopback addresses, which no real blog is on.)
const BLOG = 'https://blog.example/';
const TYPES = { html: 'text/html', css: 'text/css', js: 'text/javascript', svg: 'image/svg+xml' };
async function blogPage(opts = {}) {
  const context = await env.browser.newContext({ viewport: { width: 1000, height: opts.height || 5000 } });
  const page = await context.newPage();
  const log = { errors: [], requests: [] };
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') log.errors.push(m.text()); });
  page.on('pageerror', (e) => log.errors.push('pageerror: ' + e.message));
  context.on('request', (r) => log.requests.push(r.url()));
  const csp = opts.csp || STRICT;
  await context.route(/^https:\/\/blog\.example\//, (route) => {
    const rel = new URL(route.request().url()).pathname.slice(1);
    const file = /^blog(\.|-listener)/.test(rel) ? path.join(FIX, rel) : path.join(WEB, rel);
    if (!file.startsWith(FIX) && !file.startsWith(WEB) || !fs.existsSync(file)) return route.fulfill({ status: 404, body: 'not found' });
    const ext = rel.split('.').pop();
    route.fulfill({ body: fs.readFileSync(file), contentType: (TYPES[ext] || 'application/octet-stream') + '; charset=utf-8',
      headers: ext === 'html' ? { 'Content-Security-Policy': csp } : {} });
  });
  await page.goto(BLOG + 'blog.html');
  return { page, log, close: () => context.close() };
}

async function elementReady(page, id, status = 'ready') {
  await page.waitForFunction(([i, s]) => document.getElementById(i).status === s, [id, status], { timeout: 30000 });
}

// Shapes of the heatmap canvases inside an element's shadow root, and whether each is drawn.
function shadowCanvases(page, id) {
  return page.$eval('#' + id, (el) => Array.from(el.shadowRoot.querySelectorAll('canvas.hm')).map((c) => {
    const img = c.getContext('2d').getImageData(0, 0, c.width, c.height).data, seen = new Set();
    for (let i = 0; i < img.length; i += 28) seen.add((img[i] << 16) | (img[i + 1] << 8) | img[i + 2]);
    const r = c.getBoundingClientRect();
    return { rows: +c.dataset.rows, cols: +c.dataset.cols, colours: seen.size, visible: r.width > 20 && r.height > 10 };
  }));
}

function frameOf(page, id) { return page.frames().find((f) => f.url().includes('id=' + id)); }

async function frameCanvases(frame) {
  await frame.waitForFunction(() => document.body.dataset.status === 'ready', null, { timeout: 30000 });
  return frame.$$eval('canvas.hm', (cs) => cs.map((c) => [+c.dataset.rows, +c.dataset.cols]));
}

test('three_elements_and_two_sandboxed_iframes_render_five_figures_under_a_strict_csp', async () => {
  const { page, log, close } = await blogPage();
  try {
    for (const id of ['e-attn', 'e-act', 'e-pos']) await elementReady(page, id);
    const attn = await shadowCanvases(page, 'e-attn');
    assert.deepStrictEqual(attn.map((c) => [c.rows, c.cols]), [[6, 6], [6, 6], [6, 6]], 'attention: 3 heads of 6 x 6');
    const act = await shadowCanvases(page, 'e-act');
    assert.deepStrictEqual(act.map((c) => [c.rows, c.cols]), [[7, 32], [7, 32]], 'activation map');
    const pos = await shadowCanvases(page, 'e-pos');
    assert.deepStrictEqual(pos.map((c) => [c.rows, c.cols]), [[4, 8], [4, 8]], 'position-wise diffs');
    for (const c of attn.concat(act, pos)) assert.ok(c.visible && c.colours >= 6, 'canvas drawn and not hidden by the blog CSS');

    // The numbers are the engine's: causal mask -> empty upper triangle; 100 negatives; one FFN row.
    assert.strictEqual(await page.$eval('#e-attn', (e) => e.shadowRoot.querySelector('.figure').dataset.causal), 'true');
    assert.strictEqual(await page.$eval('#e-act', (e) => e.shadowRoot.querySelector('.figure').dataset.negativesBefore), '100');
    assert.strictEqual(await page.$eval('#e-pos', (e) => e.shadowRoot.querySelector('.figure').dataset.ffnRows), '2');
    // Styles stayed in: the dark element is dark, the blog's red divs and 40px buttons did not get in.
    const look = await page.$eval('#e-act', (e) => {
      const box = e.shadowRoot.querySelector('.bl-one');
      return { bg: getComputedStyle(box).backgroundColor, title: e.shadowRoot.querySelector('.bl-title') };
    });
    assert.strictEqual(look.bg, 'rgb(23, 26, 33)', 'dark theme inside the shadow root');
    const btn = await page.$eval('#e-attn', (e) => getComputedStyle(e.shadowRoot.querySelector('.seg-btn')).fontSize);
    assert.notStrictEqual(btn, '40px', 'blog CSS does not reach the buttons');
    assert.strictEqual(await page.$eval('#e-act', (e) => e.shadowRoot.querySelector('.bl-title')), null, 'controls=none: no title row');

    // The sandboxed frames: pipeline (no controls) and per-token rows (full controls, dark, 中文).
    const pipe = await frameCanvases(frameOf(page, 'f-pipe'));
    assert.deepStrictEqual(pipe, [[7, 8], [7, 32], [7, 32], [7, 8]], 'pipeline thumbnails in the frame');
    const rowsFrame = frameOf(page, 'f-rows');
    assert.deepStrictEqual(await frameCanvases(rowsFrame), [[7, 8], [7, 32], [7, 32], [7, 8]], 'rows stages in the frame');
    assert.strictEqual(await rowsFrame.evaluate(() => document.querySelector('.figure').dataset.selected), '3');
    assert.strictEqual(await rowsFrame.evaluate(() => document.documentElement.lang), 'zh-CN');
    assert.ok(await rowsFrame.$('#ctl-tokens'), 'controls=full shows the settings form');
    assert.strictEqual(await rowsFrame.evaluate(() => origin), 'null', 'the frame really is sandboxed');

    // Each frame told the page its height, and the page could fit it.
    await page.waitForFunction(() => ['f-pipe', 'f-rows'].every((id) => window.__heights.some((h) => h.id === id)), null, { timeout: 10000 });
    for (const id of ['f-pipe', 'f-rows']) {
      const frame = frameOf(page, id);
      const inner = await frame.evaluate(() => Math.ceil(document.body.getBoundingClientRect().height));
      const last = await page.evaluate((i) => window.__heights.filter((h) => h.id === i).pop(), id);
      assert.ok(Math.abs(last.height - inner) <= 2 && last.height > 150, `${id}: reported ${last.height}, content ${inner}`);
      const outer = await page.$eval('#' + id, (f) => f.getBoundingClientRect().height);
      assert.ok(Math.abs(outer - last.height - 2) <= 3, `${id}: iframe resized to ${outer}`);
    }

    // One global from the script; nothing fetched from elsewhere; no errors but Emscripten's
    // refused data: fetch.
    const added = await page.evaluate(() => Object.keys(window).filter((k) => window.__globalsBefore.indexOf(k) < 0 && !/^__/.test(k) && !/^\d+$/.test(k)));   // 0, 1: the frames
    assert.deepStrictEqual(added, ['BlockLens']);
    assert.strictEqual(await page.evaluate(() => typeof customElements.get('block-lens')), 'function');
    const outside = log.requests.filter((u) => !u.startsWith(BLOG) && !u.startsWith('data:') && !u.startsWith('blob:'));
    assert.deepStrictEqual(outside, []);
    assert.deepStrictEqual(log.errors.filter((e) => !DATA_FETCH.test(e)), [], 'no other console errors');
    // What a reader sees: the elements (no blog CSS inside them), then each sandboxed frame.
    await page.$eval('#spacer', (s) => s.remove());
    await page.screenshot({ path: path.join(OUT, 'embed-blog-page.png'), fullPage: true });
    for (const id of ['f-pipe', 'f-rows']) {
      await page.$eval('#' + id, (f) => f.scrollIntoView());
      await page.waitForTimeout(300);
      await page.locator('#' + id).screenshot({ path: path.join(OUT, `embed-iframe-${id}.png`) });
    }
  } finally { await close(); }
});

test('with_connect_src_data_the_console_stays_clean', async () => {
  const { page, log, close } = await blogPage({ csp: STRICT.replace("default-src 'self'", "default-src 'self'; connect-src 'self' data:") });
  try {
    await elementReady(page, 'e-attn');
    await frameCanvases(frameOf(page, 'f-pipe'));
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});

test('elements_compute_only_when_scrolled_into_view', async () => {
  const { page, close } = await blogPage({ height: 900 });
  try {
    await elementReady(page, 'e-attn');
    await page.waitForTimeout(500);
    assert.strictEqual(await page.$eval('#e-late', (e) => e.status), 'idle', 'far below the fold: nothing computed');
    assert.strictEqual(await page.$eval('#e-late', (e) => e.shadowRoot.querySelectorAll('canvas.hm').length), 0);
    await page.$eval('#e-late', (e) => e.scrollIntoView());
    await elementReady(page, 'e-late');
    assert.deepStrictEqual((await shadowCanvases(page, 'e-late')).map((c) => [c.rows, c.cols]), [[2, 2]]);
  } finally { await close(); }
});

test('attribute_changes_redraw_the_element', async () => {
  const { page, close } = await blogPage();
  try {
    await elementReady(page, 'e-attn');
    const shapes = async () => (await shadowCanvases(page, 'e-attn')).map((c) => [c.rows, c.cols]);
    await page.$eval('#e-attn', (e) => e.setAttribute('heads', '4'));
    await page.waitForFunction(() => document.getElementById('e-attn').shadowRoot.querySelectorAll('canvas.hm').length === 4);
    assert.deepStrictEqual(await shapes(), [[6, 6], [6, 6], [6, 6], [6, 6]]);
    await page.$eval('#e-attn', (e) => e.setAttribute('tokens', 'just two'));
    await page.waitForFunction(() => document.getElementById('e-attn').shadowRoot.querySelector('canvas.hm').dataset.rows === '2');
    assert.deepStrictEqual(await shapes(), [[2, 2], [2, 2], [2, 2], [2, 2]]);
    await page.$eval('#e-attn', (e) => e.removeAttribute('causal'));
    await page.waitForFunction(() => document.getElementById('e-attn').shadowRoot.querySelector('.figure').dataset.causal === 'false');
    // A bad value: a message in the element's language, the last good figure stays.
    await page.$eval('#e-attn', (e) => e.setAttribute('heads', '5'));
    await elementReady(page, 'e-attn', 'error');
    const msg = await page.$eval('#e-attn', (e) => e.shadowRoot.querySelector('.status').textContent);
    assert.match(msg, /d_model \(12\) must be divisible by the number of heads \(5\)/);
    assert.strictEqual((await shapes()).length, 4, 'the last figure stays');
    // A new view rebuilds the figure.
    await page.$eval('#e-attn', (e) => { e.setAttribute('heads', '2'); e.setAttribute('view', 'rows'); });
    await elementReady(page, 'e-attn');
    assert.deepStrictEqual(await shapes(), [[2, 12], [2, 32], [2, 32], [2, 12]]);
    await page.$eval('#e-attn', (e) => e.setAttribute('lang', 'zh'));
    await page.waitForFunction(() => /一次一个/.test(document.getElementById('e-attn').shadowRoot.querySelector('.bl-title').textContent)
      || /[\u4e00-\u9fff]/.test(document.getElementById('e-attn').shadowRoot.querySelector('.bl-title').textContent));
  } finally { await close(); }
});

test('hostile_attribute_and_hash_values_stay_text', async () => {
  const { page, close } = await blogPage();
  try {
    await elementReady(page, 'e-pos');
    const evil = '<img src=x onerror="window.__pwned=1"> &amp; "q"';
    await page.$eval('#e-pos', (e, v) => e.setAttribute('tokens', v), evil);
    await page.waitForFunction(() => document.getElementById('e-pos').shadowRoot.querySelector('canvas.hm').dataset.rows === '5');
    assert.strictEqual(await page.$eval('#e-pos', (e) => e.shadowRoot.querySelectorAll('img').length), 0);
    assert.strictEqual(await page.evaluate(() => window.__pwned), undefined);
    const svg = await page.$eval('#e-pos', (e) => e.toSVG());
    const ok = await page.evaluate((s) => {
      const doc = new DOMParser().parseFromString(s, 'image/svg+xml');
      return !doc.querySelector('parsererror') && Array.from(doc.querySelectorAll('text')).some((t) => t.textContent === 'src=x');
    }, svg);
    assert.ok(ok, 'the element\'s SVG parses and carries the token text');
  } finally { await close(); }
});

test('embed_html_works_from_file_and_rejects_an_unknown_view', async () => {
  const { pathToFileURL } = require('url');
  const base = pathToFileURL(path.join(WEB, 'embed.html')).href;
  const context = await env.browser.newContext({ viewport: { width: 800, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  try {
    await page.goto(base + '#view=positionwise&lang=en&tokens=x y z&pert=0');
    await page.waitForFunction(() => document.body.dataset.status === 'ready', null, { timeout: 30000 });
    assert.strictEqual(await page.$eval('.figure', (f) => f.dataset.ffnRows), '0');
    await page.goto(base + '#view=nope&lang=en');
    await page.waitForFunction(() => document.body.dataset.status === 'error', null, { timeout: 30000 });
    assert.match(await page.textContent('.status'), /Figure: "nope" is not one of the choices/);
    assert.deepStrictEqual(errors, []);
  } finally { await context.close(); }
});
