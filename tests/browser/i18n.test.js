/* i18n.test.js - 中文 / English: both dictionaries have the same keys, the toggle switches every
   label on the page (nothing left in the other language), and the browser's language decides
   the first view. */
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const path = require('path');
const { setup, open, settle, FILE_URL, WEB } = require('./helpers.js');

let env;
test.before(async () => { env = await setup(); });
test.after(async () => { await env.close(); });

test('both_languages_have_the_same_keys', () => {
  const dicts = require(path.join(WEB, 'src', 'i18n', 'index.js')).DICTS;
  assert.deepStrictEqual(Object.keys(dicts.zh).sort(), Object.keys(dicts.en).sort());
  // Each figure's own strings file too, so a missing translation names its file; and no key is
  // in two files (the merge would keep only one of them, silently).
  const owner = new Map(Object.keys(require(path.join(WEB, 'src', 'i18n', 'en.js')).default).map((k) => [k, 'en.js']));
  for (const f of require('fs').readdirSync(path.join(WEB, 'src', 'i18n')).filter((n) => !/^(en|zh|index)\.js$/.test(n))) {
    const part = require(path.join(WEB, 'src', 'i18n', f)).default;
    assert.deepStrictEqual(Object.keys(part.zh).sort(), Object.keys(part.en).sort(), f);
    for (const k of Object.keys(part.en)) {
      assert.ok(!owner.has(k), `${k}: in ${owner.get(k)} and ${f}`);
      owner.set(k, f);
    }
  }
});

const HAN = /[\u3400-\u9fff\uff01-\uff5e\u3001-\u3011]/;
const TOKENS = /[远方有颗苹果树]/g;

// All visible text, with the tokens themselves (which are data, not labels) removed.
async function visibleText(page) {
  await page.$$eval('details', (ds) => ds.forEach((d) => { d.open = true; }));
  await page.waitForTimeout(100);
  const text = await page.evaluate(() => document.body.innerText + '\n' + Array.from(document.querySelectorAll('[title],[aria-label]'))
    .map((e) => (e.getAttribute('title') || '') + ' ' + (e.getAttribute('aria-label') || '')).join('\n') + '\n' + document.title);
  return text.replace(TOKENS, '');
}

test('language_toggle_switches_every_label', async () => {
  const { page, log, close } = await open(env.browser, FILE_URL, 'lang=zh');
  try {
    const zh = await visibleText(page);
    assert.ok((zh.match(new RegExp(HAN.source, 'g')) || []).length > 500, 'Chinese page is in Chinese');
    assert.strictEqual(await page.evaluate(() => document.documentElement.lang), 'zh-CN');
    assert.strictEqual(await page.textContent('#lang-toggle'), 'English');

    await page.click('#lang-toggle');
    await settle(page);
    assert.strictEqual(await page.evaluate(() => document.documentElement.lang), 'en');
    assert.match(page.url(), /lang=en/);
    const en = await visibleText(page);
    // The one Chinese word allowed is the toggle's own name for the other language.
    const left = en.split('\n').filter((line) => HAN.test(line) && line.trim() !== '中文');
    assert.deepStrictEqual(left, [], 'no Chinese label left after switching to English');
    assert.strictEqual(await page.textContent('#lang-toggle'), '中文');
    // And back: nothing English-only stays (section headings are Chinese again).
    await page.click('#lang-toggle');
    await settle(page);
    const heads = await page.$$eval('section > h2', (h) => h.map((x) => x.textContent));
    heads.forEach((h) => assert.ok(HAN.test(h), `heading "${h}" is Chinese`));
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});

test('browser_language_picks_the_first_language', async () => {
  for (const [locale, want] of [['zh-CN', 'zh-CN'], ['en-US', 'en'], ['de-DE', 'en']]) {
    const { page, close } = await open(env.browser, FILE_URL, '', { locale });
    try {
      assert.strictEqual(await page.evaluate(() => document.documentElement.lang), want, locale);
    } finally { await close(); }
  }
});
