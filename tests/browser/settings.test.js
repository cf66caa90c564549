/* settings.test.js - settings and their messages (issue 14, items 1, 5, 6, 7): a bad value is
   reported next to its own field and fades only the figures that read it; a head count that
   does not divide d_model holds back only the attention figures while the FFN figures follow
   the new sizes; "Classic example" restores every setting; each click on the theme button
   changes the theme; wording (plural, quoted token names, empty fields, full-width punctuation). */
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const path = require('path');
const { setup, open, setField, settle, FILE_URL, WEB } = require('./helpers.js');

let env;
test.before(async () => { env = await setup(); });
test.after(async () => { await env.close(); });

const staleViews = (page) => page.$$eval('#figures .figure', (fs) => fs.filter((f) => f.classList.contains('stale')).map((f) => f.id.slice(4)));
const canvases = (page, view) => page.$$eval(`#fig-${view} canvas`, (cs) => cs.map((c) => c.toDataURL()).join('|'));
const data = (page, view) => page.$eval(`#fig-${view}`, (e) => Object.assign({}, e.dataset));

async function typeIn(page, sel, value) {
  await page.fill(sel, value);
  await page.press(sel, 'Enter');
  await settle(page);
}

test('bad_value_in_a_figure_field_is_reported_next_to_it_and_fades_only_that_figure', async () => {
  const { page, log, close } = await open(env.browser, FILE_URL, 'lang=en', { viewport: { width: 390, height: 844 } });
  const PVAL = '#fig-positionwise input[name=pval]';
  try {
    const before = await canvases(page, 'positionwise');
    await typeIn(page, PVAL, 'abc');
    // The message sits under the field, which is marked and points at it.
    const field = await page.$eval(PVAL, (input) => {
      const err = document.getElementById(input.getAttribute('aria-describedby'));
      const a = input.getBoundingClientRect(), b = err.getBoundingClientRect();
      return { invalid: input.getAttribute('aria-invalid'), text: err.hidden ? '' : err.textContent, gap: b.top - a.bottom,
        inFigure: !!err.closest('#fig-positionwise') };
    });
    assert.strictEqual(field.invalid, 'true');
    assert.match(field.text, /Perturbation value: "abc" is not a number/);
    assert.ok(field.inFigure && field.gap >= 0 && field.gap < 60, `message right under the field (${field.gap} px)`);
    // The summary stays in the settings box.
    assert.match(await page.textContent('#status'), /Perturbation value: "abc" is not a number/);
    assert.deepStrictEqual(await staleViews(page), ['positionwise', 'norms'], 'only the figures that read pval fade');
    assert.match(await page.$eval('#fig-positionwise .fig-stale', (e) => (e.hidden ? '' : e.textContent)), /Perturbation value/);
    // The other figures follow a new seed; the blocked one keeps its last good drawing.
    const act = await data(page, 'activation');
    await setField(page, 'seed', '7');
    await page.waitForFunction(() => document.body.dataset.status === 'error');
    assert.notStrictEqual((await data(page, 'activation')).negativesBefore, act.negativesBefore, 'activation redrawn with seed 7');
    assert.strictEqual(await canvases(page, 'positionwise'), before, 'position-wise figure unchanged');
    assert.strictEqual(await page.$eval(PVAL, (e) => e.value), 'abc', 'the rejected text stays for the reader to fix');
    assert.deepStrictEqual(await staleViews(page), ['positionwise', 'norms']);
    // Fixing it redraws that figure too and clears every mark.
    await typeIn(page, PVAL, '5');
    assert.deepStrictEqual(await staleViews(page), []);
    assert.strictEqual(await page.$eval(PVAL, (e) => e.getAttribute('aria-invalid')), null);
    assert.strictEqual(await page.$eval('#status', (s) => s.hidden), true);
    assert.notStrictEqual(await canvases(page, 'positionwise'), before);
    assert.match(page.url(), /seed=7&.*pval=5/);
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});

test('heads_not_dividing_d_model_block_only_the_figures_that_use_heads', async () => {
  const { page, log, close } = await open(env.browser, FILE_URL, 'lang=en');
  try {
    const attn = await canvases(page, 'attention'), rows = await canvases(page, 'rows');
    const act = await data(page, 'activation');
    await setField(page, 'd', '9');
    await page.waitForFunction(() => document.querySelector('#fig-paramsplit').dataset.attention === '360');
    assert.deepStrictEqual(await staleViews(page), ['rows', 'attention', 'saturation', 'positionwise', 'block']);
    // The FFN figures are computed with d_model = 9: x is 7 x 9, new hidden values.
    const xThumb = await page.$eval('#fig-pipeline canvas', (c) => [c.dataset.rows, c.dataset.cols]);
    assert.deepStrictEqual(xThumb, ['7', '9']);
    assert.notStrictEqual((await data(page, 'activation')).negativesBefore, act.negativesBefore);
    assert.strictEqual((await data(page, 'paramsplit')).ffn, String(2 * 9 * 32 + 32 + 9), 'parameter counts at d_model 9');
    // The attention figures keep their last good drawing.
    assert.strictEqual(await canvases(page, 'attention'), attn);
    assert.strictEqual(await canvases(page, 'rows'), rows);
    assert.match(await page.$eval('#fig-attention .fig-stale', (e) => e.textContent), /Heads/);
    // Hints give the values in effect.
    assert.strictEqual(await page.$eval('#ctl-dff-hint', (e) => e.textContent), '= 3.56 × d_model');
    assert.match(await page.$eval('#ctl-heads-hint', (e) => e.textContent), /d_model = 8, heads = 2, d_k = 4/);
    assert.match(await page.$eval('#ctl-heads-err', (e) => e.textContent), /d_model \(9\) must be divisible by the number of heads \(2\)/);
    // A valid head count redraws them all.
    await setField(page, 'heads', '3');
    await page.waitForFunction(() => document.querySelectorAll('#fig-attention canvas.hm').length === 3);
    assert.deepStrictEqual(await staleViews(page), []);
    assert.strictEqual(await page.evaluate(() => document.body.dataset.status), 'ready');
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});

test('embedded_ffn_figure_follows_valid_sizes_while_heads_are_bad', async () => {
  const { pathToFileURL } = require('url');
  const base = pathToFileURL(path.join(WEB, 'embed.html')).href;
  const context = await env.browser.newContext({ viewport: { width: 800, height: 900 } });
  const page = await context.newPage();
  try {
    await page.goto(base + '#view=pipeline&lang=en&d=9&heads=2');
    await page.waitForFunction(() => document.body.dataset.status === 'error' && !!document.querySelector('.figure canvas'), null, { timeout: 30000 });
    assert.deepStrictEqual(await page.$eval('.figure canvas', (c) => [c.dataset.rows, c.dataset.cols]), ['7', '9']);
    assert.strictEqual(await page.$eval('.figure', (f) => f.classList.contains('stale')), false);
    const msg = await page.textContent('.status');
    assert.strictEqual(msg.match(/must be divisible/g).length, 1, 'the message once: ' + msg);
    await page.goto(base + '#view=attention&lang=en&d=9&heads=2');
    await page.waitForFunction(() => document.body.dataset.status === 'error', null, { timeout: 30000 });
    assert.strictEqual(await page.$$eval('.figure canvas.hm', (c) => c.length), 0, 'no attention drawn for a bad head count');
  } finally { await context.close(); }
});

test('classic_example_restores_every_setting_but_language_and_theme', async () => {
  const hash = 'lang=en&theme=dark&tokens=a%20b%20c%20d%20e&d=12&heads=3&dff=40&act=gelu&seed=7&causal=1&scale=0&sel=2&pert=1&pval=-5&show=raw';
  const { page, log, close } = await open(env.browser, FILE_URL, hash);
  try {
    await typeIn(page, '#fig-positionwise input[name=pval]', 'abc');
    await page.click('button[data-i18n="quick_classic"]');
    await settle(page);
    const params = require(path.join(WEB, 'src', 'model', 'params.js'));
    const want = '#' + params.toHash(Object.assign(params.defaults(), { lang: 'en', theme: 'dark' }));
    assert.strictEqual(new URL(page.url()).hash, want);
    assert.strictEqual((await data(page, 'rows')).selected, '0');
    assert.deepStrictEqual([(await data(page, 'attention')).mode, (await data(page, 'attention')).causal], ['weights', 'false']);
    assert.strictEqual((await data(page, 'positionwise')).perturbed, '3');
    assert.strictEqual((await data(page, 'activation')).negativesBefore, '100');
    assert.strictEqual(await page.$eval('#fig-positionwise input[name=pval]', (e) => e.value), '1000');
    assert.strictEqual(await page.$eval('#ctl-scale', (e) => e.checked), true);
    assert.strictEqual(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
    assert.deepStrictEqual(await staleViews(page), []);
    assert.strictEqual(await page.$eval('#status', (s) => s.hidden), true);
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});

for (const system of ['light', 'dark']) {
  test(`theme_button_changes_the_theme_on_every_click_${system}_system`, async () => {
    const { page, close } = await open(env.browser, FILE_URL, 'lang=en', { colorScheme: system });
    try {
      const look = () => page.evaluate(() => ({ theme: document.documentElement.dataset.theme,
        bg: getComputedStyle(document.body).backgroundColor, label: document.getElementById('theme-toggle').textContent,
        hash: /theme=(\w+)/.exec(location.hash)[1] }));
      const seen = [await look()];
      assert.strictEqual(seen[0].theme, system, 'auto follows the system');
      assert.match(seen[0].label, new RegExp(system + ' \\(system\\)'));
      for (let i = 0; i < 4; i++) {
        await page.click('#theme-toggle');
        await settle(page);
        seen.push(await look());
        const [a, b] = seen.slice(-2);
        assert.notStrictEqual(b.theme, a.theme, `click ${i + 1} changes the theme`);
        assert.notStrictEqual(b.bg, a.bg, `click ${i + 1} changes the colours`);
        assert.notStrictEqual(b.label, a.label, `click ${i + 1} changes the label`);
        assert.match(b.label, new RegExp(b.theme), 'the label names the theme on screen');
      }
      const other = system === 'light' ? 'dark' : 'light';
      assert.deepStrictEqual(seen.map((s) => s.hash), ['auto', other, 'auto', other, 'auto'], 'back to following the system');
    } finally { await close(); }
  });
}

test('wording_plural_quoted_tokens_empty_fields_and_full_width_punctuation', async () => {
  const { page, log, close } = await open(env.browser, FILE_URL, 'lang=en');
  try {
    assert.match(await page.$eval('#ctl-tokens-hint', (e) => e.textContent), /^7 tokens:/, 'the default example keeps its 7 tokens');
    await setField(page, 'tokens', 'the');
    assert.match(await page.$eval('#ctl-tokens-hint', (e) => e.textContent), /^1 token:/);
    await setField(page, 'tokens', 'the cat');
    const inset = await page.$eval('#fig-rows', (f) => f.textContent);
    assert.match(inset, /the weight "the" gives each token/);
    await setField(page, 'heads', '1');
    assert.match(await page.$eval('#fig-attention', (f) => f.textContent), /one head \(no split\)/);
    assert.doesNotMatch(await page.$eval('#figures', (f) => f.textContent), /\b1 heads\b|\b1 tokens\b/);
    await setField(page, 'seed', '');
    assert.match(await page.$eval('#ctl-seed-err', (e) => e.textContent), /^Seed: the field is empty\.$/);
    await setField(page, 'seed', '42');
    await setField(page, 'tokens', 'pie，apple。');
    const chips = await page.$$eval('#fig-rows .tokens button', (b) => b.map((x) => x.textContent));
    assert.deepStrictEqual(chips, ['pie', '，', 'apple', '。']);
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});

test('chinese_wording_quotes_tokens_and_says_a_field_is_empty', async () => {
  const { page, close } = await open(env.browser, FILE_URL, 'lang=zh&tokens=' + encodeURIComponent('我爱吃pie，你呢？'));
  try {
    const chips = await page.$$eval('#fig-rows .tokens button', (b) => b.map((x) => x.textContent));
    assert.deepStrictEqual(chips, ['我', '爱', '吃', 'pie', '，', '你', '呢', '？']);
    assert.match(await page.$eval('#fig-rows', (f) => f.textContent), /“我”分给每个 token 的权重/);
    await setField(page, 'd', ' ');
    assert.match(await page.$eval('#ctl-d-err', (e) => e.textContent), /没有填写/);
  } finally { await close(); }
});

test('typed_seed_waits_for_the_pause_but_enter_applies_it_at_once', async () => {
  const { page, log, close } = await open(env.browser, FILE_URL, 'lang=en');
  try {
    // One task: typing starts nothing (the page waits for a pause); the field's change event
    // (Enter, or leaving the field) asks at once: the page is busy before the task ends.
    const seen = await page.evaluate(() => {
      const input = document.querySelector('#controls [name="seed"]'), out = [];
      input.value = '7';
      input.dispatchEvent(new Event('input', { bubbles: true }));
      out.push(document.body.dataset.status);
      input.dispatchEvent(new Event('change', { bubbles: true }));
      out.push(document.body.dataset.status);
      return out;
    });
    assert.deepStrictEqual(seen, ['ready', 'busy']);
    await settle(page);
    assert.match(await page.evaluate(() => location.hash), /(^#|&)seed=7(&|$)/);
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});

// A field shows the message about the value in it, never an older one beside it: a head count
// that does not divide d_model, then text that is no number, says only the latter; so does the
// layer of the trained model (3 of 2, then "x"); a good value clears both.
test('a_field_never_shows_an_old_error_next_to_the_current_one', async () => {
  const { page, log, close } = await open(env.browser, FILE_URL, 'lang=en');
  const err = (k) => page.$eval(`#ctl-${k}-err`, (e) => (e.hidden ? '' : e.textContent));
  const box = () => page.$eval('#status', (e) => (e.hidden ? '' : e.textContent));
  try {
    await setField(page, 'heads', '3');
    assert.match(await err('heads'), /must be divisible/);
    await setField(page, 'heads', 'x');
    assert.strictEqual(await err('heads'), 'Heads: "x" is not a whole number.');
    assert.doesNotMatch(await box(), /divisible/, 'nor in the settings box');
    await setField(page, 'heads', '4');
    assert.strictEqual(await err('heads'), '');
    await page.selectOption('#ctl-weights', 'poems');
    await settle(page);
    await setField(page, 'layer', '3');
    assert.match(await err('layer'), /3 is outside 1 … 2/);
    await setField(page, 'layer', 'x');
    assert.strictEqual(await err('layer'), 'Layer: "x" is not a whole number.');
    await setField(page, 'layer', '2');
    assert.strictEqual(await err('layer'), '');
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});

// A parse error on a setting the weights make inert is no message: heads "x", then the trained
// model (which fixes the heads and disables the field), says nothing and fades no figure; the
// layer "x", then random weights (the field hidden), neither. Back in the field's mode, the
// message about the text still in it returns.
test('a_field_the_weights_make_inert_shows_no_message', async () => {
  const { page, log, close } = await open(env.browser, FILE_URL, 'lang=en');
  const err = (k) => page.$eval(`#ctl-${k}-err`, (e) => (e.hidden ? '' : e.textContent));
  const box = () => page.$eval('#status', (e) => (e.hidden ? '' : e.textContent));
  try {
    await setField(page, 'heads', 'x');
    assert.match(await err('heads'), /"x" is not a whole number/);
    await page.selectOption('#ctl-weights', 'poems');
    await settle(page);
    assert.strictEqual(await err('heads'), '');
    assert.strictEqual(await box(), '');
    assert.deepStrictEqual(await staleViews(page), []);
    await setField(page, 'layer', 'x');
    assert.match(await err('layer'), /"x" is not a whole number/);
    await page.selectOption('#ctl-weights', 'random');
    await settle(page);
    assert.strictEqual(await err('layer'), '');
    assert.match(await err('heads'), /"x" is not a whole number/, 'the heads field still holds "x"');
    assert.doesNotMatch(await box(), /Layer/);
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});
