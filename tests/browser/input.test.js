/* input.test.js - hostile and bad input: token text stays text (no dialog, no element), and
   heads that do not divide d_model, sizes 0 / 100000, 500 tokens or a NaN seed each show a
   message in place while the last good figures stay; fixing the input recovers. */
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { setup, open, setField, FILE_URL } = require('./helpers.js');

let env;
test.before(async () => { env = await setup(); });
test.after(async () => { await env.close(); });

const HOSTILE = '<img src=x onerror=alert(1)> <script>alert(2)</script> "\'><svg/onload=alert(3)>';

async function noInjection(page, log) {
  await page.waitForTimeout(300);
  assert.deepStrictEqual(log.dialogs, [], 'no dialog opened');
  const counts = await page.evaluate(() => ({ img: document.querySelectorAll('img').length,
    svg: document.querySelectorAll('svg').length, scripts: document.querySelectorAll('body script:not([src])').length }));
  assert.deepStrictEqual(counts, { img: 0, svg: 0, scripts: 0 }, 'no element made from token text');
}

test('hostile_token_text_stays_text', async () => {
  const { page, log, close } = await open(env.browser, FILE_URL, 'lang=en');
  try {
    await setField(page, 'tokens', HOSTILE);
    assert.strictEqual(await page.evaluate(() => document.body.dataset.status), 'ready');
    const chips = await page.$$eval('#fig-rows .tokens button', (b) => b.map((x) => x.textContent));
    assert.deepStrictEqual(chips.slice(0, 3), ['<img', 'src=x', 'onerror=alert(1)>']);
    await page.$$eval('details', (ds) => ds.forEach((d) => { d.open = true; }));
    const th = await page.$$eval('#fig-rows .stage tbody th', (t) => t.map((x) => x.textContent));
    assert.ok(th.includes('<script>alert(2)</script>'), 'table headers hold the raw text');
    await noInjection(page, log);
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});

test('hostile_token_text_in_the_url_stays_text', async () => {
  const { page, log, close } = await open(env.browser, FILE_URL, 'lang=en&tokens=' + encodeURIComponent(HOSTILE));
  try {
    assert.strictEqual(await page.$eval('#ctl-tokens', (e) => e.value), HOSTILE);
    await noInjection(page, log);
  } finally { await close(); }
});

// field, value typed, pattern of the message
const BAD = [
  ['heads', '3', /d_model \(8\) must be divisible by the number of heads \(3\)/],
  ['d', '0', /0 is outside 1 … 1024/],
  ['d', '100000', /100000 is outside 1 … 1024/],
  ['tokens', Array.from({ length: 500 }, (_, i) => 'w' + i).join(' '), /500 tokens; this page draws at most 128/],
  ['tokens', '   ', /at least one token/],
  ['seed', 'NaN', /"NaN" is not a whole number/],
  ['seed', '-1', /outside 0 … 4294967295/],
  ['dff', '2.5', /not a whole number/]
];

test('bad_inputs_show_a_message_and_keep_the_last_figures', async () => {
  const { page, log, close } = await open(env.browser, FILE_URL, 'lang=en');
  try {
    const pic = () => page.$$eval('#figures canvas', (cs) => cs.map((c) => c.toDataURL()).join('|'));
    const good = await pic();
    for (const [field, value, pattern] of BAD) {
      await setField(page, field, value);
      const status = await page.evaluate(() => document.body.dataset.status);
      assert.strictEqual(status, 'error', `${field}=${value.slice(0, 20)} is refused`);
      const fieldMsg = await page.$eval(`#ctl-${field}-err`, (e) => (e.hidden ? '' : e.textContent));
      assert.match(fieldMsg, pattern, `message under ${field}`);
      assert.match(await page.textContent('#status'), pattern, 'message at the top of the settings');
      assert.strictEqual(await page.$eval(`#ctl-${field}`, (e) => e.getAttribute('aria-invalid')), 'true');
      assert.ok(await page.$eval('#fig-activation', (e) => e.classList.contains('stale')) === (field !== 'heads'),
        'figures that read the bad value are marked as the last good ones (heads: not the FFN figures)');
      assert.ok(await page.$eval('#fig-attention', (e) => e.classList.contains('stale')), 'attention marked as the last good one');
      assert.strictEqual(await pic(), good, 'figures unchanged');
      assert.strictEqual(await page.$eval('#fig-activation', (e) => e.dataset.negativesBefore), '100');
      // Put the good value back: the message goes and the page is ready again.
      const back = { heads: '2', d: '8', tokens: '远方有颗苹果树', seed: '42', dff: '32' }[field];
      await setField(page, field, back);
      assert.strictEqual(await page.evaluate(() => document.body.dataset.status), 'ready', `recovers after ${field}`);
      assert.strictEqual(await page.$eval('#status', (s) => s.hidden), true);
    }
    assert.deepStrictEqual(log.errors, []);
    assert.deepStrictEqual(log.dialogs, []);
  } finally { await close(); }
});

test('perturbation_value_is_checked_too', async () => {
  const { page, close } = await open(env.browser, FILE_URL, 'lang=en');
  try {
    await page.fill('#fig-positionwise input[name=pval]', 'abc');
    await page.press('#fig-positionwise input[name=pval]', 'Enter');
    await page.waitForTimeout(300);
    assert.match(await page.textContent('#status'), /Perturbation value: "abc" is not a number/);
  } finally { await close(); }
});
