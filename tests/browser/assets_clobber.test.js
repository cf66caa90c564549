/* assets_clobber.test.js - host-page markup that clobbers a named global (a <form
   id="BlockLensAssets"> with an <input name="poems">, two <a id="BlockLensAssets">) does not stop
   <block-lens weights="poems"> from loading the trained weights: dist/blocklens-poems.js
   registers them under a Symbol key, which named-element access cannot shadow (issue 24). */
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');
const { setup } = require('./helpers.js');

const FIX = path.join(__dirname, 'fixtures');
const FIXTURE = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'poems.json'), 'utf8'));
const WANT = FIXTURE.cases.find((c) => c.text === '远方有颗苹果树').top10[0].char;

let env;
test.before(async () => { env = await setup(); });
test.after(async () => { await env.close(); });

for (const [file, clobber] of [['clobber-form.html', 'HTMLFormElement'], ['clobber-anchors.html', 'HTMLCollection']]) {
  test(`trained_element_draws_from_file_when_markup_clobbers_BlockLensAssets_${clobber}`, async () => {
    const context = await env.browser.newContext(), page = await context.newPage(), errors = [];
    page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') errors.push(m.text()); });
    page.on('pageerror', (e) => errors.push('pageerror: ' + e.message));
    try {
      await page.goto(pathToFileURL(path.join(FIX, file)).href);
      // The markup does shadow the name: the host's element, not ours, is self.BlockLensAssets.
      assert.strictEqual(await page.evaluate(() => self.BlockLensAssets.constructor.name), clobber);
      await page.waitForFunction(() => ['e', 'a'].every((id) => {
        const s = document.getElementById(id).status;
        return s === 'ready' || s === 'error';
      }), null, { timeout: 30000 });
      const st = await page.$$eval('block-lens', (els) => els.map((e) => e.status + ': ' +
        (e.shadowRoot.querySelector('.bl-error, [role="alert"]') || {}).textContent));
      assert.deepStrictEqual(await page.$$eval('block-lens', (els) => els.map((e) => e.status)), ['ready', 'ready'],
        st.join(' | '));
      // The trained figures: the model's top next character, its causal attention over 4 heads.
      assert.strictEqual(await page.$eval('#e', (e) => e.shadowRoot.querySelector('.bl-figure').dataset.top), WANT);
      const attn = await page.$eval('#a', (e) => Object.assign({}, e.shadowRoot.querySelector('.bl-figure').dataset));
      assert.strictEqual(attn.causal, 'true');
      // Registered under the Symbol key, the host's element untouched.
      assert.strictEqual(await page.evaluate(() => typeof self[Symbol.for('blocklens.assets')].poems.weights), 'string');
      assert.strictEqual(await page.evaluate(() => self.BlockLensAssets.constructor.name), clobber);
      assert.deepStrictEqual(errors, []);
    } finally { await context.close(); }
  });
}
