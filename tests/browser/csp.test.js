/* csp.test.js - under the strictest policy that still lets wasm run (default-src 'none';
   script-src 'self' 'wasm-unsafe-eval'; style-src 'self'), the page, embed.html and a
   <block-lens> element draw their figures and the console stays completely empty: no refused
   data: fetch (the engine hands Emscripten the decoded bytes), no refused blob: Worker (served
   pages start the Worker from a same-origin file), nothing else. */
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
async function visit(file) {
  const context = await env.browser.newContext({ viewport: { width: 1100, height: 3000 } });
  const page = await context.newPage();
  const log = [];
  page.on('console', (m) => log.push(m.type() + ': ' + m.text()));
  page.on('pageerror', (e) => log.push('pageerror: ' + e.message));
  await context.route(/^https:\/\/site\.example\//, (route) => {
    const rel = new URL(route.request().url()).pathname.slice(1);
    const full = rel.startsWith('csp-') ? path.join(FIX, rel) : path.join(WEB, rel);
    if (!fs.existsSync(full)) return route.fulfill({ status: 404, body: 'not found' });
    const ext = rel.split('.').pop();
    route.fulfill({ body: fs.readFileSync(full), contentType: (TYPES[ext] || 'application/octet-stream') + '; charset=utf-8',
      headers: ext === 'html' ? { 'Content-Security-Policy': POLICY } : {} });
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
