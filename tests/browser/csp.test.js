/* csp.test.js - under the strictest policy that still lets wasm run (default-src 'none';
   script-src 'self' 'wasm-unsafe-eval'; style-src 'self'), the page, embed.html and a
   <block-lens> element draw their figures and the console stays completely empty: no refused
   data: fetch (the engine hands Emscripten the decoded bytes), no refused blob: Worker (served
   pages start the Worker from a same-origin file), nothing else; and what a policy without
   'wasm-unsafe-eval' does, in the document only or sent with every file (the README's table). */
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const { setup, WEB } = require('./helpers.js');

const POLICY = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'";
const SITE = 'https://site.example/';
const FIX = path.join(__dirname, 'fixtures');
const TYPES = { html: 'text/html', css: 'text/css', js: 'text/javascript', svg: 'image/svg+xml' };

let env;
test.before(async () => { env = await setup(); });
test.after(async () => { await env.close(); });

// The site (served by the test itself, never the network): web/ plus the element fixture,
// every HTML document with the policy as a header. Every console message is kept.
async function visit(file, { policy = POLICY, scripts = null } = {}) {
  const context = await env.browser.newContext({ viewport: { width: 1100, height: 3000 } });
  const page = await context.newPage();
  const log = [];
  await page.addInitScript(() => {
    self.__violations = [];
    addEventListener('securitypolicyviolation', (e) => self.__violations.push(e.violatedDirective + ' ' + e.blockedURI));
  });
  page.on('console', (m) => log.push(m.type() + ': ' + m.text()));
  page.on('pageerror', (e) => log.push('pageerror: ' + e.message));
  await context.route(/^https:\/\/site\.example\//, (route) => {
    const rel = new URL(route.request().url()).pathname.slice(1);
    const full = rel.startsWith('csp-') ? path.join(FIX, rel) : path.join(WEB, rel);
    if (!fs.existsSync(full)) return route.fulfill({ status: 404, body: 'not found' });
    const ext = rel.split('.').pop();
    route.fulfill({ body: fs.readFileSync(full), contentType: (TYPES[ext] || 'application/octet-stream') + '; charset=utf-8',
      headers: ext === 'html' ? { 'Content-Security-Policy': policy } : ext === 'js' && scripts ? { 'Content-Security-Policy': scripts } : {} });
  });
  await page.goto(SITE + file);
  return { page, log, close: () => context.close() };
}

async function settled(page, fn) {
  await page.waitForFunction(fn, null, { timeout: 30000 });
  await page.waitForTimeout(500);   // anything the Worker or a late task would log
}

test('page_under_the_strict_policy_draws_everything_and_logs_nothing', async () => {
  const { page, log, close } = await visit('index.html#lang=en');
  try {
    await settled(page, () => document.body.dataset.status === 'ready');
    const heads = await page.$$eval('#fig-attention canvas.hm', (cs) => cs.map((c) => [+c.dataset.rows, +c.dataset.cols]));
    assert.deepStrictEqual(heads, [[7, 7], [7, 7]]);
    // A change goes through the Worker (started from dist/blocklens-worker.js, not a blob:).
    await page.fill('#controls [name="heads"]', '4');
    await page.waitForTimeout(400);
    await settled(page, () => document.body.dataset.status === 'ready' && document.querySelectorAll('#fig-attention canvas.hm').length === 4);
    assert.strictEqual(await page.evaluate(() => document.body.dataset.compute), 'worker');
    assert.deepStrictEqual(log, []);
  } finally { await close(); }
});

test('embed_under_the_strict_policy_logs_nothing', async () => {
  const { page, log, close } = await visit('embed.html#view=attention&tokens=the%20cat%20sat&lang=en');
  try {
    await settled(page, () => document.body.dataset.status === 'ready');
    assert.strictEqual(await page.$$eval('canvas.hm', (cs) => cs.length), 2);
    assert.deepStrictEqual(log, []);
  } finally { await close(); }
});

test('element_under_the_strict_policy_logs_nothing', async () => {
  const { page, log, close } = await visit('csp-element.html');
  try {
    await settled(page, () => document.getElementById('e').status === 'ready');
    const n = await page.$eval('#e', (e) => e.shadowRoot.querySelectorAll('canvas.hm').length);
    assert.strictEqual(n, 2, 'the activation map: before and after');
    assert.deepStrictEqual(log, []);
  } finally { await close(); }
});

// What a site's policy must allow (README, Content-Security-Policy). Without 'wasm-unsafe-eval'
// the document cannot compile wasm: one violation is reported (script-src, wasm-eval), and the
// figures are drawn only because the Worker's own script came without a policy; a site that
// sends the same header with every file (the Worker's script too) gets no figure at all.
// What a site's policy must allow (README, Content-Security-Policy). Without 'wasm-unsafe-eval'
// the document cannot compile wasm: one violation is reported (script-src, wasm-eval), and the
// figures are drawn only because the Worker's own script came without a policy; a site that
// sends the same header with every file (the Worker's script too) gets no figure at all.
const NO_WASM = "default-src 'none'; script-src 'self'; style-src 'self'";
const WHERE = ['index.html#lang=en', 'embed.html#view=attention&tokens=the%20cat%20sat&lang=en', 'csp-element.html'];
// { status, maps } of the page, the embed or the element (csp-element.html's #e).
const stateOf = () => {
  const e = document.getElementById('e'), root = e ? e.shadowRoot : document;
  return { status: e ? e.status : document.body.dataset.status, maps: root ? root.querySelectorAll('canvas.hm').length : 0 };
};
async function outcome(page) {
  await page.waitForFunction(() => {
    const e = document.getElementById('e'), st = e ? e.status : document.body.dataset.status;
    return st === 'ready' || st === 'error';
  }, null, { timeout: 30000 });
  await page.waitForTimeout(500);
  return Object.assign(await page.evaluate(stateOf), { violations: await page.evaluate(() => self.__violations) });
}

test('a_policy_without_wasm_unsafe_eval_reports_one_violation_the_Worker_draws_if_its_script_has_none', async () => {
  for (const file of WHERE) {
    const { page, log, close } = await visit(file, { policy: NO_WASM });
    try {
      const got = await outcome(page);
      assert.strictEqual(got.status, 'ready', file);
      assert.ok(got.maps >= 2, `${file}: figures drawn (${got.maps} maps)`);
      assert.deepStrictEqual([got.violations, log], [['script-src wasm-eval'], []], file);
    } finally { await close(); }
  }
});

test('the_same_policy_sent_with_every_file_draws_nothing_wasm_unsafe_eval_on_both_draws_everything', async () => {
  for (const file of WHERE) {
    for (const [policy, want] of [[NO_WASM, 'error'], [POLICY, 'ready']]) {
      const { page, log, close } = await visit(file, { policy, scripts: policy });
      try {
        const got = await outcome(page);
        assert.strictEqual(got.status, want, `${file} under ${policy} on every file`);
        if (want === 'ready') assert.deepStrictEqual([got.maps >= 2, got.violations, log], [true, [], []], file);
        else assert.strictEqual(got.maps, 0, `${file}: nothing drawn`);
      } finally { await close(); }
    }
  }
});
