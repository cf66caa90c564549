/* trained.test.js - the trained poem model on the page: loaded only when asked for, from
   file://, in the Worker; every figure drawn from its block; the next-character panel predicts
   what tools/train/reference.py (an independent float64 forward) says it predicts. */
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');
const { setup, open, ready, settle, setField, FILE_URL, WEB } = require('./helpers.js');
const { VIEWS } = require(path.join(WEB, 'src', 'figures', 'index.js'));

const FIXTURE = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'poems.json'), 'utf8'));
const caseOf = (text) => {
  const c = FIXTURE.cases.find((x) => x.text === text);
  assert.ok(c, `the fixture has "${text}"`);
  return c;
};
const POEMS = 'dist/blocklens-poems.js';

let env;
test.before(async () => { env = await setup({ server: true }); });
test.after(async () => { await env.close(); });

const figureData = (page, view) => page.$eval('#fig-' + view, (f) => Object.assign({}, f.dataset));
const stale = (page) => page.$$eval('#figures .figure.stale', (figs) => figs.map((f) => f.id));

test('random_weights_never_load_the_trained_model', async () => {
  const { page, log, close } = await open(env.browser, FILE_URL, 'lang=en');
  try {
    assert.ok(!log.requests.some((u) => u.endsWith(POEMS)), 'no request for the weights');
    assert.strictEqual(await page.evaluate(() => typeof self[Symbol.for('blocklens.assets')]), 'undefined');
    assert.strictEqual((await figureData(page, 'next')).trained, 'no');
  } finally { await close(); }
});

for (const text of ['远方有颗苹果树', '白日依山尽，黄河入海']) {
  test(`trained_weights_from_file_draw_every_figure_and_predict_the_fixtures_next_character_${text}`, async () => {
    const want = caseOf(text);
    const { page, log, close } = await open(env.browser, FILE_URL, 'lang=zh&weights=poems&tokens=' + encodeURIComponent(text));
    try {
      assert.strictEqual(await page.evaluate(() => document.body.dataset.status), 'ready', await page.textContent('#status'));
      assert.strictEqual(log.requests.filter((u) => u.endsWith(POEMS)).length, 1, 'the weights are loaded once');
      const next = await figureData(page, 'next');
      assert.strictEqual(next.trained, 'yes');
      assert.strictEqual(next.top, want.top10[0].char, 'the top prediction is the reference forward\'s');
      assert.ok(Math.abs(Number(next.topP) - want.top10[0].p) < 1e-4, `p ${next.topP} vs ${want.top10[0].p}`);
      // The list shows the reference's top 10 in its order.
      const chars = await page.$$eval('#fig-next .next-item .next-ch', (s) => s.map((x) => x.textContent));
      assert.deepStrictEqual(chars, want.top10.map((x) => x.char));
      // Every figure drawn from these weights, none waiting or stale; the attention is causal over <s> + the characters.
      assert.deepStrictEqual(await stale(page), []);
      for (const v of VIEWS) assert.ok(await page.$eval('#fig-' + v + ' .fig-body', (b) => b.textContent.length > 0), v + ' is drawn');
      const rows = await page.$$eval('#fig-rows .tokens button', (b) => b.map((x) => x.textContent));
      assert.deepStrictEqual(rows, ['<s>', ...Array.from(text)]);
      assert.strictEqual((await figureData(page, 'attention')).causal, 'true');
      assert.strictEqual(await page.$$eval('#fig-attention .heads > .panel', (p) => p.length), 4, 'the model\'s 4 heads');
      assert.deepStrictEqual(log.errors, []);
    } finally { await close(); }
  });
}

test('switching_to_trained_weights_and_appending_the_top_character', async () => {
  const want = caseOf('远方有颗苹果树');
  const { page, log, close } = await open(env.browser, FILE_URL, 'lang=en&tokens=' + encodeURIComponent('远方有颗苹果树'));
  try {
    await page.selectOption('#ctl-weights', 'poems');
    await settle(page);
    await ready(page, 'ready');
    assert.match(page.url(), /[#&]weights=poems(&|$)/);
    assert.strictEqual((await figureData(page, 'next')).top, want.top10[0].char);
    // The sizes are the model's: the form says so and does not take edits.
    assert.strictEqual(await page.isDisabled('#ctl-d'), true);
    await page.click('#fig-next .next-item[data-rank="1"]');
    await settle(page);
    await ready(page, 'ready');
    assert.strictEqual(await page.inputValue('#ctl-tokens'), '远方有颗苹果树' + want.top10[0].char);
    // Layer 2 shows the second block: other attention weights, same next character.
    const maps = () => page.$$eval('#fig-attention canvas.hm', (cs) => cs.map((c) => c.toDataURL()).join('|'));
    const before = await maps();
    await page.fill('#ctl-layer', '2');
    await settle(page);
    await ready(page, 'ready');
    assert.notStrictEqual(await maps(), before, 'the attention maps are the second block\'s');
    assert.match(await page.textContent('#weights-note'), /block 2 of 2/);
    // A layer the model does not have is refused next to the field; the figures stay.
    await page.fill('#ctl-layer', '3');
    await settle(page);
    assert.strictEqual(await page.getAttribute('#ctl-layer', 'aria-invalid'), 'true');
    assert.ok((await page.textContent('#ctl-layer-err')).includes('3'));
    // Back to random weights: the classic numbers again, the form open for edits.
    await page.selectOption('#ctl-weights', 'random');
    await settle(page);
    assert.strictEqual(await page.isDisabled('#ctl-d'), false);
    assert.strictEqual((await figureData(page, 'next')).trained, 'no');
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});

test('embed_and_element_load_the_trained_weights_when_asked', async () => {
  const want = caseOf('远方有颗苹果树');
  const { page, log, close } = await open(env.browser, env.url.replace(/\/?$/, '/') + 'embed.html',
    'view=next&weights=poems&lang=en&tokens=' + encodeURIComponent('远方有颗苹果树'));
  try {
    await page.waitForFunction(() => document.body.dataset.status === 'ready', null, { timeout: 30000 });
    assert.strictEqual(await page.$eval('.bl-figure', (f) => f.dataset.top), want.top10[0].char);
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }

  const html = '<!doctype html><meta charset="utf-8"><script src="' + pathToFileURL(path.join(WEB, 'dist', 'blocklens-element.js')).href +
    '"></script><block-lens id="e" view="next" weights="poems" tokens="远方有颗苹果树" lang="en"></block-lens>';
  const file = path.join(require('os').tmpdir(), 'blocklens-trained-element.html');
  fs.writeFileSync(file, html);
  const context = await env.browser.newContext(), ep = await context.newPage(), errors = [];
  ep.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') errors.push(m.text()); });
  ep.on('pageerror', (e) => errors.push(e.message));
  try {
    await ep.goto(pathToFileURL(file).href);
    await ep.waitForFunction(() => { const e = document.getElementById('e'); return e && e.status === 'ready'; }, null, { timeout: 30000 });
    const top = await ep.$eval('#e', (e) => e.shadowRoot.querySelector('.bl-figure').dataset.top);
    assert.strictEqual(top, want.top10[0].char);
    assert.deepStrictEqual(errors, []);
  } finally { await context.close(); }
});

// The tokens field's hint and its error name the same count for one text (the model's <s> is
// not one of the characters typed), and the hint says what a trained model does with spaces.
test('token_hint_and_error_give_one_count_for_one_text', async () => {
  const text = '床前明月光'.repeat(14);   // 70 characters: past the 63 the model reads after <s>
  const { page, close } = await open(env.browser, FILE_URL, 'lang=en&weights=poems');
  try {
    await setField(page, 'tokens', text);
    const hint = await page.$eval('#ctl-tokens-hint', (e) => e.textContent);
    const err = await page.$eval('#ctl-tokens-err', (e) => e.textContent);
    assert.match(hint, /^70 characters/);
    assert.match(hint, /spaces are left out/);
    assert.match(err, /\b70 tokens\b/);
  } finally { await close(); }
});

// A press on a next character appends it; the figures above grow with the text, and the list
// stays where it was under the pointer.
test('pressing_a_next_character_keeps_the_list_where_it_was', async () => {
  const { page, close } = await open(env.browser, FILE_URL, 'lang=en&weights=poems&tokens=' + encodeURIComponent('床前明月光'));
  try {
    await ready(page);
    await page.$eval('#fig-next .next-list', (e) => e.scrollIntoView({ block: 'center' }));
    await page.waitForTimeout(300);
    const before = await page.$eval('#fig-next .next-list', (e) => e.getBoundingClientRect().top);
    const y0 = await page.evaluate(() => scrollY);
    await page.click('#fig-next .next-item[data-rank="2"]');
    await page.waitForFunction(() => document.querySelector('#tokens, [name="tokens"]').value.length > 5, null, { timeout: 20000 });
    await settle(page);
    await page.waitForTimeout(300);
    const after = await page.$eval('#fig-next .next-list', (e) => e.getBoundingClientRect().top);
    assert.ok(Math.abs(after - before) <= 2, `the list moved ${after - before} px on screen`);
    assert.ok(await page.evaluate((y) => scrollY !== y, y0), 'the page scrolled by what the figures above grew');
  } finally { await close(); }
});

// The button under random weights loads what it names: the whole quatrain, a token past <s>
// selected (the rows figure has lines before it to compare).
test('the_quatrain_button_loads_the_whole_quatrain', async () => {
  const { page, close } = await open(env.browser, FILE_URL, 'lang=en');
  try {
    await ready(page);
    await page.click('#fig-next .next-action');
    await page.waitForFunction(() => /weights=poems/.test(location.hash), null, { timeout: 20000 });
    await settle(page);
    const tokens = await page.inputValue('#controls [name="tokens"]');
    assert.strictEqual(tokens, '床前明月光，疑是地上霜。举头望明月，低头思故乡。');
    const sel = Number(await page.$eval('#fig-rows', (f) => f.dataset.selected));
    assert.ok(sel > 0, `the rows figure opens on a character, not on <s> (${sel})`);
  } finally { await close(); }
});

// The attention figure says, per head of the block shown, what it does with the text on the
// page, measured from its weights: on the quatrain, head 1.3 looks one line up (at the column
// it writes next), head 1.4 at the previous character, head 2.4 at <s> (tools/train/REPORT.md);
// the maps' titles name the job; the SVG export carries the same lines.
const QUATRAIN = '床前明月光，疑是地上霜。举头望明月，低头思故乡。';
const roleLines = (page) => page.$$eval('#fig-attention dl.formulas.prose', (dls) => dls.flatMap((dl) =>
  Array.from(dl.querySelectorAll('dt'), (dt) => ({ head: dt.textContent, text: dt.nextElementSibling.textContent }))));

test('trained_attention_says_what_each_head_does_on_the_text_shown', async () => {
  const { page, log, close } = await open(env.browser, env.url, 'lang=en&weights=poems&tokens=' + encodeURIComponent(QUATRAIN));
  try {
    let lines = await roleLines(page);
    assert.deepStrictEqual(lines.map((l) => l.head), ['Head 1', 'Head 2', 'Head 3', 'Head 4']);
    const share = (line, re) => { const m = line.text.match(re); assert.ok(m, line.text); return Number(m[1]); };
    const up = share(lines[2], /^(\d+)% of its weight on the character one line up, above the one it writes next/);
    assert.ok(up >= 25 && up <= 35, `head 1.3: ${up}% one line up`);
    assert.ok(share(lines[3], /^(\d+)% of its weight on the previous character/) >= 20, lines[3].text);
    assert.match(lines[0].text, /^spread out/);
    const roles = (await figureData(page, 'attention')).roles.split(' ');
    assert.deepStrictEqual([roles[0], roles[2], roles[3]], ['diffuse', 'up', 'prev']);
    const titles = await page.$$eval('#fig-attention .heads > .panel .panel-title',
      (hs) => hs.map((x) => x.textContent));
    assert.ok(titles.some((x) => /Head 3 · one line up \d+%/.test(x)), titles.join(' | '));
    // The SVG export draws the same lines (wrapped into several <text>s).
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#s-attention .export-svg')]);
    const svg = fs.readFileSync(await dl.path(), 'utf8').replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
    assert.ok(svg.includes(`${up}% of its weight on the character one line up`), 'the SVG has head 3\'s line');
    assert.ok(svg.includes('What each head of block 1 does with this text'));
    // Block 2: its own heads, head 4 on <s>; in Chinese too.
    await setField(page, 'layer', '2');
    await ready(page, 'ready');
    assert.strictEqual((await figureData(page, 'attention')).roles.split(' ')[3], 'bos');
    await page.click('#lang-toggle');
    await settle(page);
    lines = await roleLines(page);
    assert.deepStrictEqual(lines.map((l) => l.head), ['第 1 头', '第 2 头', '第 3 头', '第 4 头']);
    assert.match(lines[3].text, /^\d+% 的权重在<s>/);
    assert.match(await page.textContent('#fig-attention'), /第 2 块的每个头/);
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});

// A text with no 5- or 7-character lines says why no head is checked for looking one line up.
test('a_text_without_lines_says_the_one_line_up_pattern_is_not_checked', async () => {
  const { page, close } = await open(env.browser, FILE_URL, 'lang=en&weights=poems&tokens=' + encodeURIComponent('床前明月光'));
  try {
    const lines = await roleLines(page);
    assert.strictEqual(lines.length, 4);
    assert.ok(lines.every((l) => !/one line up/.test(l.text)), 'no line pattern measured');
    assert.match(await page.textContent('#fig-attention'), /no lines of 5 or 7 characters/);
    assert.strictEqual((await figureData(page, 'attention')).lineLength, '0');
  } finally { await close(); }
});

// Random weights: no lines about heads (they have no jobs).
test('random_attention_names_no_head_jobs', async () => {
  const { page, close } = await open(env.browser, FILE_URL, 'lang=en');
  try {
    assert.deepStrictEqual(await roleLines(page), []);
    assert.strictEqual((await figureData(page, 'attention')).roles, undefined);
  } finally { await close(); }
});

// The Weights field keeps the selected token: with the model's <s> in front, the rows figure
// opens on the same character (row 1), not on <s>, and goes back to row 0 with random weights.
test('the_weights_field_keeps_the_selected_character_off_s', async () => {
  const { page, close } = await open(env.browser, FILE_URL, 'lang=en');
  try {
    assert.strictEqual((await figureData(page, 'rows')).selected, '0');
    await page.selectOption('#ctl-weights', 'poems');
    await settle(page);
    await ready(page, 'ready');
    assert.strictEqual((await figureData(page, 'rows')).selected, '1');
    assert.strictEqual(await page.$eval('#fig-rows .tokens button[aria-pressed="true"]', (b) => b.textContent), '远');
    await page.selectOption('#ctl-weights', 'random');
    await settle(page);
    assert.strictEqual((await figureData(page, 'rows')).selected, '0');
  } finally { await close(); }
});

// The settings' "Tang poem model" button loads the quatrain, on a character.
test('the_tang_poem_button_loads_the_quatrain', async () => {
  const { page, close } = await open(env.browser, FILE_URL, 'lang=en');
  try {
    await page.click('#controls .quick button[data-i18n="quick_poems"]');
    await settle(page);
    await ready(page, 'ready');
    assert.strictEqual(await page.inputValue('#ctl-tokens'), QUATRAIN);
    assert.ok(Number((await figureData(page, 'rows')).selected) > 0);
    assert.strictEqual((await roleLines(page)).length, 4);
  } finally { await close(); }
});

// With trained weights no text on the page describes random ones: the introduction, the
// attention figure's ("W_Q … drawn as randn / √d_model … variance close to d_k"), the block's
// (γ = 1, β = 0), the FFN's ("pick identity"), the activation's (the default example's counts)
// and the saturation figure's notes have trained wordings; random weights bring the classic
// texts back.
const RANDOM_WORDS = /Pick "identity" to see|randn \/ √d_model|variance close to d_k|np\.random\.seed\(42\)|γ = 1 and β = 0|100 of the 224|only close to unit variance|speak of random weights/;
const pageText = (page) => page.$$eval('.intro, #weights-note, .explain p, #fig-saturation .fig-note', (ns) =>
  ns.filter((n) => !n.closest('[hidden]')).map((n) => n.textContent).join('\n'));

test('trained_weights_get_texts_that_fit_them', async () => {
  const { page, log, close } = await open(env.browser, FILE_URL, 'lang=en&weights=poems&tokens=' + encodeURIComponent(QUATRAIN));
  try {
    let text = await pageText(page);
    assert.doesNotMatch(text, RANDOM_WORDS);
    assert.match(await page.textContent('.intro'), /^Weights: Tang poems\./);
    assert.match(await page.textContent('#s-attention .explain'), /the trained model's block chosen under Layer/);
    assert.match(await page.textContent('#s-block .explain'), /its own learned LayerNorm γ and β/);
    assert.match(await page.textContent('#fig-saturation'), /runs on the trained model, which divides by √d_k = √16/);
    assert.match(await page.textContent('#ctl-seed-hint'), /does not use it/);
    assert.strictEqual(await page.isVisible('#ctl-init'), false, 'no "numpy classic: unit randn" for a trained model');
    await page.click('#lang-toggle');
    await settle(page);
    text = await pageText(page);
    assert.doesNotMatch(text, /randn \/ √d_model、偏置为 0|γ = 1、β = 0|224 个值中/);
    assert.match(await page.textContent('.intro'), /^权重：唐诗。/);
    await page.selectOption('#ctl-weights', 'random');
    await settle(page);
    await ready(page, 'ready');
    assert.match(await page.textContent('#s-attention .explain'), /randn \/ √d_model/);
    assert.match(await page.textContent('.intro'), /经典的 numpy 例子/);
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});

// An embedded trained-model figure says which model and block it shows, as its SVG export does:
// embed.html (compact and figure-only) and <block-lens>, in both languages; random weights
// name none.
test('embedded_trained_figures_name_the_model_and_the_block', async () => {
  const embed = env.url.replace(/\/?$/, '/') + 'embed.html';
  const modelLine = async (hash) => {
    const { page, close } = await open(env.browser, embed, hash);
    try {
      await page.waitForFunction(() => /ready|error/.test(document.body.dataset.status), null, { timeout: 30000 });
      return await page.$eval('.bl-model', (e) => (e.hidden || !e.offsetHeight ? '' : e.textContent));
    } finally { await close(); }
  };
  assert.strictEqual(await modelLine('view=attention&weights=poems&layer=2&lang=en'), 'the trained Tang-poem model, block 2 of 2');
  assert.strictEqual(await modelLine('view=rows&weights=poems&lang=zh&controls=none'), '训练好的唐诗模型，第 1 个 Block（共 2 个）');
  assert.strictEqual(await modelLine('view=next&weights=poems&lang=en'), 'the trained Tang-poem model (2 blocks)');
  assert.strictEqual(await modelLine('view=attention&lang=en'), '');

  const html = '<!doctype html><meta charset="utf-8"><script src="' + pathToFileURL(path.join(WEB, 'dist', 'blocklens-element.js')).href +
    '"></script><block-lens id="e" view="block" weights="poems" layer="2" lang="zh"></block-lens>';
  const file = path.join(require('os').tmpdir(), 'blocklens-trained-element-model.html');
  fs.writeFileSync(file, html);
  const context = await env.browser.newContext(), ep = await context.newPage();
  try {
    await ep.goto(pathToFileURL(file).href);
    await ep.waitForFunction(() => { const e = document.getElementById('e'); return e && e.status === 'ready'; }, null, { timeout: 30000 });
    assert.strictEqual(await ep.$eval('#e', (e) => e.shadowRoot.querySelector('.bl-model').textContent),
      '训练好的唐诗模型，第 2 个 Block（共 2 个）');
    assert.match(await ep.$eval('#e', (e) => e.toSVG()), /第 2 个/);
  } finally { await context.close(); }
});

// A trained-model link or element that gives no text opens on the quatrain (the random
// example's 7 characters are too short for the one-line-up head), on its second 明.
test('a_trained_link_without_text_opens_on_the_quatrain', async () => {
  const { page, close } = await open(env.browser, FILE_URL, 'lang=en&weights=poems');
  try {
    assert.strictEqual(await page.inputValue('#ctl-tokens'), QUATRAIN);
    assert.strictEqual((await figureData(page, 'rows')).selected, '16');
    assert.strictEqual((await figureData(page, 'attention')).roles.split(' ')[2], 'up');
  } finally { await close(); }
  const embed = env.url.replace(/\/?$/, '/') + 'embed.html';
  const e = await open(env.browser, embed, 'view=attention&weights=poems&lang=en');
  try {
    await e.page.waitForFunction(() => document.body.dataset.status === 'ready', null, { timeout: 30000 });
    assert.strictEqual(await e.page.$eval('.bl-figure', (f) => f.dataset.lineLength), '5');
  } finally { await e.close(); }
});

// Both masks side by side: a head's job (measured under the model's causal mask) names its
// GPT map, not the BERT one; the maps of a pair start level.
test('with_both_masks_the_job_names_the_causal_map_only', async () => {
  const { page, close } = await open(env.browser, FILE_URL, 'lang=en&weights=poems&masks=both');
  try {
    const titles = await page.$$eval('#fig-attention .panel .panel-title', (hs) => hs.map((x) => x.textContent));
    assert.ok(titles.some((x) => /^Head 3 · GPT: causal · one line up \d+%$/.test(x)), titles.join(' | '));
    assert.ok(titles.filter((x) => /BERT/.test(x)).every((x) => !/one line up|previous|<s> \d/.test(x)), titles.join(' | '));
    const tops = await page.$$eval('#fig-attention .pair', (ps) => ps.map((p) => Array.from(p.querySelectorAll('canvas.hm'),
      (c) => Math.round(c.getBoundingClientRect().top))));
    for (const row of tops) assert.ok(Math.max(...row) - Math.min(...row) <= 1, `maps of a pair start level: ${row}`);
  } finally { await close(); }
});
