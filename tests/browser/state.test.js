/* state.test.js - every control lives in the URL hash: changing controls writes it, opening the
   link restores the exact view, editing the hash redraws, and a malformed hash is reported
   while the last good figures stay. */
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const path = require('path');
const { setup, open, setField, settle, FILE_URL, WEB } = require('./helpers.js');

let env;
test.before(async () => { env = await setup(); });
test.after(async () => { await env.close(); });

const snapshot = (page) => page.evaluate(() => {
  const v = {};
  document.querySelectorAll('#controls [name]').forEach((e) => { v[e.name] = e.type === 'checkbox' ? e.checked : e.value; });
  const ds = (s) => Object.assign({}, document.querySelector(s).dataset);
  return { controls: v, lang: document.documentElement.lang, theme: document.documentElement.dataset.theme,
    act: ds('#fig-activation'), rows: ds('#fig-rows'), attn: ds('#fig-attention'), pert: ds('#fig-positionwise'),
    split: ds('#fig-paramsplit'), heads: document.querySelectorAll('#fig-attention .head').length,
    pval: document.querySelector('#fig-positionwise input[name=pval]').value };
});

test('parse_and_write_round_trip_in_node', () => {
  const params = require(path.join(WEB, 'src', 'model', 'params.js'));
  const s = Object.assign(params.defaults(), { tokens: 'a b & c=d #e', d: 12, heads: 3, causal: true, pval: -2.5, lang: 'en' });
  const back = params.parseHash('#' + params.toHash(s));
  assert.deepStrictEqual(back.errors, []);
  assert.deepStrictEqual(back.state, s);
});

test('url_hash_round_trips_the_whole_state', async () => {
  const { page, close } = await open(env.browser, FILE_URL, 'lang=en');
  let hash, before;
  try {
    await setField(page, 'tokens', 'the quick brown fox jumps');
    await setField(page, 'd', 12);
    await setField(page, 'heads', 3);
    await setField(page, 'dff', 40);
    await setField(page, 'act', 'gelu_tanh');
    await setField(page, 'seed', 7);
    await setField(page, 'causal', true);
    await setField(page, 'scale', false);
    await page.click('#fig-rows .tokens button[data-index="2"]');
    await page.click('#fig-positionwise .tokens button[data-index="4"]');
    await page.fill('#fig-positionwise input[name=pval]', '-50');
    await page.press('#fig-positionwise input[name=pval]', 'Enter');
    await page.click('#fig-attention .seg-btn[data-mode="scaled"]');
    await page.click('#theme-toggle');
    await settle(page);
    hash = new URL(page.url()).hash;
    before = await snapshot(page);
  } finally { await close(); }
  for (const k of ['tokens=the%20quick%20brown%20fox%20jumps', 'd=12', 'heads=3', 'dff=40', 'act=gelu_tanh', 'seed=7',
    'causal=1', 'scale=0', 'sel=2', 'pert=4', 'pval=-50', 'show=scaled', 'lang=en', 'theme=dark']) {
    assert.ok(hash.includes(k), `hash has ${k}: ${hash}`);
  }
  const again = await open(env.browser, FILE_URL, hash.slice(1));
  try {
    const after = await snapshot(again.page);
    assert.deepStrictEqual(after, before);
    assert.strictEqual(after.rows.selected, '2');
    assert.strictEqual(after.pert.perturbed, '4');
    assert.strictEqual(after.pert.attnRows, '4', 'causal: the last token is seen by itself only');
    assert.strictEqual(after.heads, 3);
  } finally { await again.close(); }
});

test('editing_the_hash_redraws_and_malformed_hash_keeps_the_figures', async () => {
  const { page, log, close } = await open(env.browser, FILE_URL, 'lang=en');
  try {
    await page.evaluate(() => { location.hash = 'lang=en&act=gelu&d=8&dff=32&heads=4'; });
    await settle(page);
    assert.strictEqual(await page.$eval('#ctl-act', (e) => e.value), 'gelu');
    assert.strictEqual(await page.$$eval('#fig-attention .head', (h) => h.length), 4);
    const pic = await page.$eval('#fig-activation canvas.hm', (c) => c.toDataURL());
    for (const bad of ['d=abc', 'heads=%E0%A4%A', 'act=tanh', 'd=10&heads=3', 'seed=NaN', 'causal=maybe']) {
      await page.evaluate((h) => { location.hash = h; }, bad);
      await settle(page);
      assert.strictEqual(await page.evaluate(() => document.body.dataset.status), 'error', bad);
      const msg = await page.$eval('#status', (s) => (s.hidden ? '' : s.textContent));
      assert.ok(msg.length > 10, `a message for "${bad}": ${msg}`);
      assert.strictEqual(await page.$eval('#fig-activation canvas.hm', (c) => c.toDataURL()), pic, `figures kept for "${bad}"`);
      assert.strictEqual(await page.$eval('#ctl-act', (e) => e.value), 'gelu');
    }
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});

test('malformed_hash_on_first_load_shows_the_default_figures_and_a_message', async () => {
  const { page, close } = await open(env.browser, FILE_URL, 'lang=en&d=%%%&heads=0');
  try {
    assert.strictEqual(await page.evaluate(() => document.body.dataset.status), 'error');
    const msg = await page.textContent('#status');
    assert.match(msg, /Link/);
    assert.match(msg, /outside 1 … 64/);
    assert.strictEqual(await page.$eval('#fig-activation', (e) => e.dataset.negativesBefore), '100');
    assert.strictEqual(await page.evaluate(() => document.documentElement.lang), 'en', 'the good part of the link is used');
  } finally { await close(); }
});
