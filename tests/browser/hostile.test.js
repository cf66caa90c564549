/* hostile.test.js - state from URLs and attributes that try to reach Object.prototype, values of
   a megabyte, and a javascript: link: the page, embed.html and <block-lens> stay usable, say
   what is wrong in short messages and never put the link in an href. */
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const path = require('path');
const { pathToFileURL } = require('url');
const { setup, open, ready, WEB } = require('./helpers.js');

let env;
test.before(async () => { env = await setup({ server: true }); });
test.after(async () => { await env.close(); });

test('prototype_keys_in_the_embed_hash_are_ignored_and_later_hashes_still_work', async () => {
  for (const k of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
    const { page, log, close } = await open(env.browser, env.url + 'embed.html', `view=attention&${k}=1&lang=en`);
    try {
      assert.strictEqual(await page.evaluate(() => document.body.dataset.status), 'ready', k);
      await page.evaluate(() => { location.hash = '#view=attention&tokens=a%20b&heads=2&valueOf=3&lang=en'; });
      await page.waitForFunction(() => document.querySelectorAll('canvas.hm[data-rows="2"]').length === 2, null, { timeout: 20000 });
      assert.deepStrictEqual(log.errors, [], k);
    } finally { await close(); }
  }
});

test('prototype_keys_in_the_page_hash_leave_no_unfilled_message', async () => {
  const { page, log, close } = await open(env.browser, env.url, 'constructor=x&__proto__=y&lang=en');
  try {
    assert.strictEqual(await page.evaluate(() => document.body.dataset.status), 'ready');
    assert.doesNotMatch(await page.textContent('#status'), /\{\w+\}/);
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});

test('element_refuses_a_javascript_link_and_quotes_huge_values_short', async () => {
  const context = await env.browser.newContext();
  const page = await context.newPage();
  try {
    await page.goto(pathToFileURL(path.join(WEB, 'index.html')).href.replace('index.html', 'embed.html') + '#view=pipeline');
    await ready(page);
    await page.evaluate((src) => new Promise((resolve) => {
      const s = document.createElement('script');
      s.src = src;
      s.onload = resolve;
      document.head.appendChild(s);
    }), pathToFileURL(path.join(WEB, 'dist', 'blocklens-element.js')).href);
    const got = await page.evaluate(async () => {
      const big = 'q'.repeat(1 << 20);
      const mk = (attrs) => {
        const el = document.createElement('block-lens');
        for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
        document.body.appendChild(el);
        return el;
      };
      const evil = mk({ view: 'attention', page: 'javascript:alert(1)', lang: 'en' });
      const huge = mk({ view: 'attention', act: big, seed: big, tokens: 'a b', lang: 'en' });
      const good = mk({ view: 'attention', page: 'https://example.org/bl/index.html', lang: 'en' });
      const wait = (el) => new Promise((r) => { const t = setInterval(() => { if (el.status === 'ready' || el.status === 'error') { clearInterval(t); r(); } }, 50); });
      await Promise.all([wait(evil), wait(huge), wait(good)]);
      const link = (el) => { const a = el.shadowRoot.querySelector('a.bl-open'); return a && !a.hidden ? a.getAttribute('href') : null; };
      return { evilStatus: evil.status, evilLink: link(evil), evilMsg: evil.shadowRoot.querySelector('.status').textContent,
        hugeMsgLen: huge.shadowRoot.querySelector('.status').textContent.length, goodLink: link(good) };
    });
    assert.strictEqual(got.evilLink, null, 'no javascript: href');
    assert.match(got.evilMsg, /http\(s\) and relative links/);
    assert.ok(got.hugeMsgLen < 400, `two 1 MB attributes give a short message (${got.hugeMsgLen} characters)`);
    assert.match(got.goodLink, /^https:\/\/example\.org\/bl\/index\.html#tokens=/);
  } finally { await context.close(); }
});
