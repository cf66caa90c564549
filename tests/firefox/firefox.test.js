/* firefox.test.js - the page, the embed page and the <block-lens> element in Debian's
   firefox-esr (WebDriver BiDi through puppeteer-core), a part of what tests/browser/ checks in
   Chromium: every figure drawn with the expected shapes and real pixels, over http and from
   file://, no console error and nothing fetched from outside; a settings change redraws and
   lands in the URL hash; the embed page; the element from file:// and on a blog under a strict
   Content-Security-Policy; the engine's build choice. One browser for the whole file; Firefox
   runs with MOZ_DISABLE_NONLOCAL_CONNECTIONS=1, so any connection off the machine fails a test.
   Run: node --test --test-concurrency=1 tests/firefox/firefox.test.js (after bash tools/build). */
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { pathToFileURL } = require('url');
const { setup, guard, open, ready, setField, inspectCanvases, blogServer, FILE_BASE, WEB } = require('./helpers.js');

const T = { timeout: 60000 };
let env, tmp;
test.before(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'blocklens-firefox-pages-'));
  env = await setup({ server: true });
});
test.after(async () => {
  if (env) await env.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

// Requests that left the page's own folder (data: is the inlined wasm and font, blob: the Worker).
function outside(requests, base) {
  const dir = base.replace(/[#?].*$/, '').replace(/[^/]*$/, '');
  return requests.filter((u) => !u.startsWith(dir) && !u.startsWith('data:') && !u.startsWith('blob:'));
}

// A heatmap canvas that was really drawn: its shape, a size on screen, a backing store of that
// size (device pixel ratio 1), many colours, no one colour covering it, opaque, and a 5 x 5 grid
// of sampled pixels that is not one flat colour.
function assertDrawn(c, shape, what) {
  assert.deepStrictEqual([c.rows, c.cols], shape, `${what}: data-rows/-cols`);
  assert.ok(c.cssW > 20 && c.cssH > 10, `${what}: has a size on screen (${c.cssW} x ${c.cssH})`);
  assert.strictEqual(c.w, Math.round(c.cssW), `${what}: backing width = CSS width`);
  assert.strictEqual(c.h, Math.round(c.cssH), `${what}: backing height = CSS height`);
  assert.ok(c.colours >= 8, `${what}: ${c.colours} colours (blank canvas?)`);
  assert.ok(c.top < 0.9, `${what}: one colour covers ${(100 * c.top).toFixed(1)}% of it`);
  assert.ok(c.opaque > 0.5, `${what}: ${(100 * c.opaque).toFixed(1)}% opaque pixels`);
  const sampled = new Set(c.grid.map((p) => p.join(',')));
  assert.ok(sampled.size >= 3, `${what}: the 25 sampled pixels hold ${sampled.size} colours: ${[...sampled].join(' ')}`);
}

function assertDistinct(canvases, what) {
  const hashes = canvases.map((c) => c.hash);
  assert.strictEqual(new Set(hashes).size, hashes.length, `${what}: every canvas differs (${hashes.join(' ')})`);
}

// The default state (d 8, d_ff 32, 2 heads, 7 tokens): [rows, cols] of each figure's canvases.
const FIGURES = [
  ['pipeline', [[7, 8], [7, 32], [7, 32], [7, 8]]],
  ['activation', [[7, 32], [7, 32]]],
  ['rows', [[7, 8], [7, 32], [7, 32], [7, 8]]],
  ['attention', [[7, 7], [7, 7]]],
  ['positionwise', [[7, 8], [7, 8]]]
];

async function checkIndex(page) {
  const boxes = await page.evaluate(() => ['pipeline', 'activation', 'rows', 'attention', 'positionwise', 'paramsplit'].map((id) => {
    const el = document.getElementById('fig-' + id);
    return el && { id, elements: el.querySelectorAll('*').length, height: el.getBoundingClientRect().height, text: el.textContent.trim().length };
  }));
  for (const b of boxes) {
    assert.ok(b, 'every figure is on the page');
    assert.ok(b.elements >= 5 && b.height > 40 && b.text > 0, `#fig-${b.id} is not empty: ${JSON.stringify(b)}`);
  }
  const pixels = {};
  for (const [name, shapes] of FIGURES) {
    const cs = await inspectCanvases(page, `#fig-${name} canvas.hm`);
    assert.strictEqual(cs.length, shapes.length, `#fig-${name}: ${shapes.length} heatmap canvases`);
    cs.forEach((c, i) => assertDrawn(c, shapes[i], `#fig-${name} canvas ${i}`));
    pixels[name] = cs.map((c) => c.hash);
  }
  const attn = await inspectCanvases(page, '#fig-attention canvas.hm');
  assertDistinct(attn, 'the two attention heads');
  return pixels;
}

const drawn = {};   // pixel hashes per way of loading: http and file:// must draw the same
for (const how of ['http', 'file']) {
  test(`index_over_${how}_draws_every_figure_without_errors_or_outside_requests`, T, () => guard(env, async () => {
    const base = how === 'http' ? env.url + 'index.html' : FILE_BASE + 'index.html';
    const { page, log, errors, close } = await open(env, base + '#lang=en');
    try {
      assert.strictEqual(await ready(page), 'ready', 'body[data-status]');
      drawn[how] = await checkIndex(page);
      assert.deepStrictEqual(errors(), [], 'no console error or warning, no page error');
      assert.deepStrictEqual(log.dialogs, [], 'no dialogs');
      assert.deepStrictEqual(outside(log.requests, base), [], 'nothing requested from outside the page');
      if (how === 'http') assert.ok(log.requests.some((u) => u.startsWith(base)), 'the request recorder saw the page itself');
      if (drawn.http && drawn.file) assert.deepStrictEqual(drawn.file, drawn.http, 'file:// draws the same pixels as http');
    } finally { await close(); }
  }));
}

test('changing_heads_to_4_redraws_four_7x7_heads_and_writes_the_url_hash', T, () => guard(env, async () => {
  const { page, errors, close } = await open(env, FILE_BASE + 'index.html#lang=en');
  try {
    await ready(page, 'ready');
    const before = await inspectCanvases(page, '#fig-attention canvas.hm');
    assert.strictEqual(before.length, 2, 'two heads at first');
    assert.strictEqual(await page.$eval('#controls [name="d"]', (e) => e.value), '8', 'default d_model');
    assert.strictEqual(await setField(page, 'heads', 4), 'ready');
    assert.strictEqual(await page.$eval('#controls [name="heads"]', (e) => e.value), '4', 'the control took the value');
    const after = await inspectCanvases(page, '#fig-attention canvas.hm');
    assert.strictEqual(after.length, 4, 'four head canvases');
    after.forEach((c, i) => assertDrawn(c, [7, 7], `head ${i}`));
    assertDistinct(after, 'the four heads');
    assert.ok(!after.some((c) => before.some((b) => b.hash === c.hash)), 'the heads were redrawn (d_k 2 instead of 4)');
    const hash = await page.evaluate(() => location.hash);
    assert.match(hash, /(^#|&)heads=4(&|$)/, `URL hash ${hash}`);
    assert.deepStrictEqual(errors(), []);
  } finally { await close(); }
}));

for (const how of ['file', 'http']) {
  test(`embed_attention_view_over_${how}_draws_two_3x3_heads`, T, () => guard(env, async () => {
    const base = (how === 'http' ? env.url : FILE_BASE) + 'embed.html';
    const { page, log, errors, close } = await open(env, base + '#view=attention&tokens=the%20cat%20sat&heads=2&lang=en');
    try {
      assert.strictEqual(await ready(page), 'ready', 'body[data-status]');
      const heads = await inspectCanvases(page, 'canvas.hm');
      assert.strictEqual(heads.length, 2, 'two heads and no other heatmap');
      heads.forEach((c, i) => assertDrawn(c, [3, 3], `head ${i}`));
      assertDistinct(heads, 'the two heads');
      assert.deepStrictEqual(errors(), []);
      assert.deepStrictEqual(outside(log.requests, base), []);
    } finally { await close(); }
  }));
}

// <block-lens> from file://: a page in a temporary folder loads the one-file bundle from web/dist.
test('block_lens_element_from_file_draws_in_its_shadow_root_and_redraws_on_attribute_change', T, () => guard(env, async () => {
  const script = pathToFileURL(path.join(WEB, 'dist', 'blocklens-element.js')).href;
  const file = path.join(tmp, 'element.html');
  fs.writeFileSync(file, `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>element</title><script src="${script}"></script></head>
<body>
<block-lens id="e-act" view="activation" lang="en"></block-lens>
<block-lens id="e-attn" view="attention" tokens="the cat sat on the mat" d="12" heads="3" lang="en"></block-lens>
</body></html>
`);
  const url = pathToFileURL(file).href;
  const { page, log, errors, close } = await open(env, url, { viewport: { width: 1000, height: 2000 } });
  const status = (id) => page.$eval('#' + id, (e) => e.status);
  try {
    for (const id of ['e-act', 'e-attn']) {
      await page.waitForFunction((i) => document.getElementById(i).status === 'ready', { timeout: 30000, polling: 50 }, id);
    }
    const act = await inspectCanvases(page, 'canvas.hm', '#e-act');
    assert.strictEqual(act.length, 2, 'activation map: before and after the activation');
    act.forEach((c, i) => assertDrawn(c, [7, 32], `activation canvas ${i}`));
    const attn = await inspectCanvases(page, 'canvas.hm', '#e-attn');
    assert.strictEqual(attn.length, 3, 'three heads');
    attn.forEach((c, i) => assertDrawn(c, [6, 6], `attention head ${i}`));
    assertDistinct(attn, 'the three heads');
    assert.strictEqual(await page.$$eval('canvas', (cs) => cs.length), 0, 'the canvases live in the shadow roots only');

    await page.$eval('#e-attn', (e) => { e.setAttribute('heads', '2'); e.setAttribute('tokens', 'a b c d'); });
    await page.waitForFunction(() => {
      const e = document.getElementById('e-attn');
      return e.status === 'ready' && e.shadowRoot.querySelectorAll('canvas.hm').length === 2;
    }, { timeout: 30000, polling: 50 });
    const two = await inspectCanvases(page, 'canvas.hm', '#e-attn');
    two.forEach((c, i) => assertDrawn(c, [4, 4], `redrawn head ${i}`));
    assert.strictEqual(await status('e-act'), 'ready');
    assert.deepStrictEqual(errors(), []);
    assert.deepStrictEqual(outside(log.requests, url).filter((u) => !u.startsWith(FILE_BASE)), []);
  } finally { await close(); }
}));

// The blog of tests/browser/embed.test.js, served from 127.0.0.1 with the same strict CSP header.
const STRICT = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self'; object-src 'none'; base-uri 'none'";
// Where Emscripten first tries fetch() on its inlined data: URL, the CSP refuses it (Firefox
// reports that as a page error) and it decodes the same bytes itself; tolerated, as in
// tests/browser/embed.test.js. connect-src data: silences it.
const DATA_FETCH = /blocked the loading of a resource \(connect-src\) at data:application\/octet-stream/;
// A page bug only Firefox shows (reported, not fixed here): embed.html over http starts its Worker
// from dist/blocklens-worker.js even in a sandboxed frame, whose origin is opaque. Chromium throws
// in new Worker() and the page catches it; Firefox fails the load later and logs this error (the
// page then computes on its own thread, so the figures still come). Counted apart, and checked by
// the TODO test below, so the other assertions stay strict.
const WORKER_FROM_OPAQUE = /Security Error: Content at moz-nullprincipal:.* may not load data from .*\/dist\/blocklens-worker\.js/;
const workerErrors = {};

test('blog_under_a_strict_csp_shows_three_elements_and_two_sandboxed_frames', T, () => guard(env, async () => {
  const base = await blogServer(env, STRICT);
  const { page, log, errors, close } = await open(env, base + 'blog.html', { viewport: { width: 1000, height: 5000 } });
  try {
    for (const id of ['e-attn', 'e-act', 'e-pos']) {
      await page.waitForFunction((i) => document.getElementById(i).status === 'ready', { timeout: 30000, polling: 50 }, id);
    }
    const attn = await inspectCanvases(page, 'canvas.hm', '#e-attn');
    assert.strictEqual(attn.length, 3);
    attn.forEach((c, i) => assertDrawn(c, [6, 6], `e-attn head ${i}`));
    const act = await inspectCanvases(page, 'canvas.hm', '#e-act');
    assert.strictEqual(act.length, 2);
    act.forEach((c, i) => assertDrawn(c, [7, 32], `e-act canvas ${i}`));
    const pos = await inspectCanvases(page, 'canvas.hm', '#e-pos');
    assert.strictEqual(pos.length, 2);
    pos.forEach((c, i) => assertDrawn(c, [4, 8], `e-pos canvas ${i}`));

    // The sandboxed frames (opaque origin) draw their figures too, and report their heights.
    for (const id of ['f-pipe', 'f-rows']) {
      const frame = page.frames().find((f) => f.url().includes('id=' + id));
      assert.ok(frame, `frame ${id}`);
      assert.strictEqual(await ready(frame), 'ready', `${id}: body[data-status]`);
      const cs = await inspectCanvases(frame, 'canvas.hm');
      assert.strictEqual(cs.length, 4, `${id}: four stages`);
      cs.forEach((c, i) => assertDrawn(c, [[7, 8], [7, 32], [7, 32], [7, 8]][i], `${id} canvas ${i}`));
      assert.strictEqual(await frame.evaluate(() => origin), 'null', `${id} is sandboxed`);
      await page.waitForFunction((i) => window.__heights.some((h) => h.id === i && h.height > 150), { timeout: 10000, polling: 50 }, id);
      const inner = await frame.evaluate(() => Math.ceil(document.body.getBoundingClientRect().height));
      await page.waitForFunction((i, want) => {
        const last = window.__heights.filter((h) => h.id === i).pop();
        return Math.abs(last.height - want) <= 2;
      }, { timeout: 10000, polling: 50 }, id, inner);
    }

    const added = await page.evaluate(() => Object.keys(window).filter((k) => window.__globalsBefore.indexOf(k) < 0 && !/^__/.test(k) && !/^\d+$/.test(k)));
    assert.deepStrictEqual(added, ['BlockLens'], 'the bundle defines one global');
    assert.deepStrictEqual(outside(log.requests, base), []);
    workerErrors.strict = errors().filter((e) => WORKER_FROM_OPAQUE.test(e));
    const other = errors().filter((e) => !DATA_FETCH.test(e) && !WORKER_FROM_OPAQUE.test(e));
    assert.deepStrictEqual(other, [], 'no console errors but the refused data: fetch');
    // Refusals seen by the documents (the blog and both frames; a Worker's own are not seen).
    const violations = [];
    for (const f of page.frames()) violations.push(...await f.evaluate(() => window.__cspViolations || ['no recorder']));
    assert.ok(violations.every((v) => /^connect-src data:application\/octet-stream/.test(v)),
      `only the data: fetch was refused by the CSP: ${JSON.stringify(violations)}`);
  } finally { await close(); }
}));

test('blog_with_connect_src_data_keeps_the_console_clean', T, () => guard(env, async () => {
  const base = await blogServer(env, STRICT.replace("default-src 'self'", "default-src 'self'; connect-src 'self' data:"));
  const { page, errors, close } = await open(env, base + 'blog.html', { viewport: { width: 1000, height: 5000 } });
  try {
    await page.waitForFunction(() => document.getElementById('e-attn').status === 'ready', { timeout: 30000, polling: 50 });
    const frame = page.frames().find((f) => f.url().includes('id=f-pipe'));
    assert.strictEqual(await ready(frame), 'ready');
    assert.strictEqual((await inspectCanvases(page, 'canvas.hm', '#e-attn')).length, 3);
    workerErrors.relaxed = errors().filter((e) => WORKER_FROM_OPAQUE.test(e));
    assert.deepStrictEqual(errors().filter((e) => !WORKER_FROM_OPAQUE.test(e)), []);
    for (const f of page.frames()) assert.deepStrictEqual(await f.evaluate(() => window.__cspViolations || ['no recorder']), [], f.url());
  } finally { await close(); }
}));

// A sandboxed frame has an opaque origin: its Worker must come from a Blob, not from a file URL.
test('sandboxed_embed_frames_log_no_worker_security_error', () => {
  assert.deepStrictEqual(workerErrors, { strict: [], relaxed: [] });
});

// Relaxed SIMD probed here independently of the loader: a function doing f32x4.relaxed_madd.
test('engine_picks_the_build_firefox_validates_and_fma_matches_the_simd_build', T, () => guard(env, async () => {
  const { page, errors, close } = await open(env, env.url + 'index.html#lang=en');
  try {
    await ready(page, 'ready');
    const r = await page.evaluate(async () => {
      function validates(ops) {
        const c = [0xfd, 0x0c].concat(new Array(16).fill(0));     // v128.const 0
        const body = [0x00].concat(...ops.map((o) => (o === 'c' ? c : o)), [0x0b]);
        return WebAssembly.validate(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, 5, 1, 0x60, 0, 1, 0x7b,
          3, 2, 1, 0, 0x0a, body.length + 2, 1, body.length].concat(body)));
      }
      const simdOk = validates(['c']), relaxedOk = validates(['c', 'c', 'c', [0xfd, 0x85, 0x02]]);
      const best = await BlockLens.load(), plain = await BlockLens.load({ fma: false });
      const run = (bl) => {
        const g = bl.numpyRandom(3), L = 64, D = 1024, F = 64;
        return bl.ffn({ L, dModel: D, dFF: F, x: g.randnF32(L * D), W1: g.randnF32(D * F),
          W2: g.randnF32(F * D), activation: 'identity' }).hidden;
      };
      const a = run(best), b = run(plain);
      let differ = 0, worst = 0, top = 0;
      for (let i = 0; i < a.length; i++) {
        if (a[i] !== b[i]) differ++;
        worst = Math.max(worst, Math.abs(a[i] - b[i]));
        top = Math.max(top, Math.abs(b[i]));
      }
      return { simdOk, relaxedOk, simd: best.simd, fma: best.fma, plainSimd: plain.simd, plainFma: plain.fma, differ, n: a.length, worst, top };
    });
    assert.strictEqual(r.simdOk, true, 'Firefox validates wasm SIMD');
    assert.deepStrictEqual([r.simd, r.fma], [true, r.relaxedOk], `load() picks SIMD, FMA exactly when relaxed SIMD validates (${r.relaxedOk})`);
    assert.deepStrictEqual([r.plainSimd, r.plainFma], [true, false], 'load({ fma: false }) steps down to SIMD');
    if (r.fma) assert.ok(r.differ > r.n / 10, `fused: ${r.differ} of ${r.n} values differ in the last bits`);
    else assert.strictEqual(r.differ, 0, 'same build twice, same numbers');
    assert.ok(r.top > 1 && r.worst <= 1e-6 * r.top, `only by rounding: ${r.worst} vs ${r.top}`);
    assert.deepStrictEqual(errors(), []);
  } finally { await close(); }
}));

// The recorders above must be able to fail: a page that logs an error and a warning, throws,
// trips its CSP and asks the local server for a missing file is seen doing each of these.
test('the_recorders_see_console_errors_page_errors_csp_refusals_and_requests', T, () => guard(env, async () => {
  const file = path.join(tmp, 'noisy.html');
  fs.writeFileSync(file, `<!doctype html>
<html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="connect-src 'none'"><title>noisy</title></head>
<body><img src="${env.url}no-such-file.png" alt="">
<script>
console.error('noisy-console-error'); console.warn('noisy-console-warning');
fetch('data:,x').catch(function () {});
setTimeout(function () { throw new Error('noisy-uncaught'); }, 0);
</script></body></html>
`);
  const url = pathToFileURL(file).href;
  const { page, log, errors, close } = await open(env, url);
  try {
    await page.waitForFunction(() => window.__cspViolations.length > 0, { timeout: 10000, polling: 50 });
    await new Promise((r) => setTimeout(r, 300));
    const seen = errors().join('\n');
    assert.match(seen, /error: noisy-console-error/);
    assert.match(seen, /warn: noisy-console-warning/);
    assert.match(seen, /pageerror: .*noisy-uncaught/);
    assert.match(seen, /stderr: JavaScript error: file:.*noisy\.html, line \d+: .*noisy-uncaught/);
    assert.deepStrictEqual(outside(log.requests, url), [env.url + 'no-such-file.png']);
    assert.deepStrictEqual(await page.evaluate(() => window.__cspViolations), ['connect-src data']);
  } finally { await close(); }
}));

test('firefox_made_no_connection_off_the_machine', T, async () => {
  assert.strictEqual(env.fatal(), null);
  const proc = env.browser.process();
  assert.ok(proc.exitCode === null && proc.signalCode === null, 'Firefox is still running (it aborts on an outside connection)');
  assert.ok(env.stderr.length > 0, 'Firefox stderr is being read');
});
