/* figures.test.js - each figure is written once (web/src/figures/*.js) and drawn twice: as
   elements on the page and into the SVG export. Everything the page figure says must be in its
   SVG; and two copies of one embed snippet in a post both fit their frames. */
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const { setup, open, figureTexts } = require('./helpers.js');

const { VIEWS } = require(require('path').join(__dirname, '..', '..', 'web', 'src', 'figures', 'index.js'));
let env;
test.before(async () => { env = await setup({ server: true }); });
test.after(async () => { await env.close(); });


async function svgOf(page, view) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(`#s-${view} .export-svg`)]);
  return fs.readFileSync(await dl.path(), 'utf8');
}

const squash = (s) => s.replace(/\s+/g, '');
const unescape = (s) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');

for (const [name, hash] of [['classic', 'lang=en'], ['gated_zh_identity', 'lang=zh&act=swiglu&causal=1&show=scaled'],
  ['identity', 'lang=en&act=identity&tokens=one two three']]) {
  test(`every_text_of_each_page_figure_is_in_its_svg_${name}`, async () => {
    // Chromium drops a page's 11th download in a row: a fresh page for each half of the figures.
    for (const views of [VIEWS.slice(0, 6), VIEWS.slice(6)]) await checkTexts(hash, views);
  });
}

// FFN neurons on the poem model, with the held-out search's table of poems.
test('every_text_of_the_neurons_figure_is_in_its_svg_on_the_poem_model', async () => {
  await checkTexts('lang=zh&weights=poems&nsearch=on&tokens=' + encodeURIComponent('床前明月光，疑是地上霜。'), ['neurons']);
});

// Activation patching draws its sweep only on a trained model with a corrupted text.
test('every_text_of_the_patching_figure_is_in_its_svg_on_the_poem_model', async () => {
  await checkTexts('lang=zh&weights=poems&tokens=' + encodeURIComponent('床前明月光') + '&corrupt=' +
    encodeURIComponent('床前明日光'), ['patching']);
});

async function checkTexts(hash, views) {
  const { page, log, close } = await open(env.browser, env.url, hash.replace(/ /g, '%20'));
  try {
    for (const view of views) {
      const texts = await figureTexts(page, view);
      // (The next-character, model view, logit lens, ablation, patching and neurons figures have one line
      // with random weights: nothing to predict, one block only.)
      const least = hash.includes('weights=') || !['next', 'heads', 'lens', 'ablation', 'patching', 'neurons'].includes(view) ? 3 : 1;
      assert.ok(texts.length >= least, `${view}: the page figure has text (${texts.length})`);
      const svg = squash(unescape(Array.from((await svgOf(page, view)).matchAll(/<text[^>]*>([^<]*)<\/text>/g), (m) => m[1]).join('')));
      const missing = texts.filter((t) => !svg.includes(squash(t)));
      assert.deepStrictEqual(missing, [], `${view}: page text missing from the SVG`);
    }
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
}

// Chromium's autofill visits every form control of the page after each edit of a field: the
// 32 embed boxes, closed, cost it 16 layouts of the whole page per keystroke. They are in the
// page only while open, and follow a change of state made while open.
test('closed_embed_boxes_put_no_form_controls_in_the_page_and_an_open_one_follows_the_state', async () => {
  const { page, log, close } = await open(env.browser, env.url, 'lang=en&tokens=one two three');
  try {
    const boxes = () => page.$$eval('.embed-code textarea', (a) => a.length);
    assert.strictEqual(await boxes(), 0, 'no embed box while all are closed');
    await page.click('#s-attention .embed-code summary');
    await page.waitForSelector('#s-attention textarea.embed-element');
    assert.strictEqual(await boxes(), 2, 'the open one\'s two boxes');
    await page.fill('#controls [name="seed"]', '7');
    await page.press('#controls [name="seed"]', 'Enter');
    await page.waitForFunction(() => /seed="7"/.test(document.querySelector('#s-attention textarea.embed-element').value), null, { timeout: 10000 });
    await page.click('#s-attention .embed-code summary');
    await page.waitForFunction(() => !document.querySelector('.embed-code textarea'), null, { timeout: 5000 });
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
});

test('two_copies_of_one_embed_snippet_both_fit_their_frames', async () => {
  const { page, close } = await open(env.browser, env.url, 'lang=en&tokens=one two three');
  try {
    await page.click('#s-attention .embed-code summary');
    await page.waitForFunction(() => /^\d+$/.test(document.querySelector('#s-attention .embed-code').dataset.measured || ''), null, { timeout: 20000 });
    const first = await page.inputValue('#s-attention textarea.embed-iframe');
    await page.locator('#s-attention .embed-box button').first().click();
    const second = await page.inputValue('#s-attention textarea.embed-iframe');
    const ids = [first, second].map((s) => /id="([^"]+)"/.exec(s)[1]);
    assert.notStrictEqual(ids[0], ids[1], 'each copy has its own id');
    // The height the snippet's script gives a frame 680 px wide, from the heights measured.
    const table = /data-heights="([^"]+)"/.exec(first)[1].split(' ').map((p) => p.split(':').map(Number));
    const reserved = Math.max(...table.filter(([w]) => w === 680 || w === 720).map(([, h]) => h));
    // A 680 px blog column with both copies; the frames load from the same server.
    const blog = env.url + 'two-copies.html';
    await page.route(blog, (r) => r.fulfill({ contentType: 'text/html',
      body: '<!doctype html><meta charset="utf-8"><body style="width:680px;margin:0">' + first + '<p>between</p>' + second + '</body>' }));
    await page.goto(blog);
    await page.waitForFunction(() => Array.from(document.querySelectorAll('iframe')).every((f) => f.style.height), null, { timeout: 30000 });
    await page.waitForTimeout(500);
    const frames = page.frames().filter((f) => f.url().includes('embed.html'));
    assert.strictEqual(frames.length, 2);
    const outer = await page.$$eval('iframe', (fs2) => fs2.map((f) => f.getBoundingClientRect().height));
    for (let i = 0; i < 2; i++) {
      const inner = await frames[i].evaluate(() => Math.ceil(document.body.getBoundingClientRect().height));
      const el = await frames[i].frameElement();
      const h = await el.evaluate((f) => f.getBoundingClientRect().height);
      assert.ok(Math.abs(h - inner) <= 3, `frame ${i}: ${h} px tall for ${inner} px of content`);
    }
    assert.ok(outer.every((h) => Math.abs(h - reserved) <= 3), `the suggested height (${reserved}) is the drawn one (${outer})`);
  } finally { await close(); }
});

// The embed code reserves the height a figure needs at the reader's width: on a phone (390 px)
// and a wide screen (1280 px) the iframe starts at the height it will end with (its script picks
// it from the heights measured at 25 widths), its own height attribute is enough on a phone
// without the script, and <block-lens> reserves its height before it is drawn.
for (const [name, hash, view] of [['attention', 'lang=en', 'attention'],
  ['trained_attention', 'lang=zh&weights=poems&tokens=' + encodeURIComponent('床前明月光，疑是地上霜。举头望明月，低头思故乡。'), 'attention']]) {
  test(`embed_code_reserves_the_height_at_the_readers_width_${name}`, async () => {
    const { page, close } = await open(env.browser, env.url, hash);
    let iframe, element;
    try {
      await page.click(`#s-${view} .embed-code summary`);
      await page.waitForFunction((v) => /^\d+$/.test(document.querySelector(`#s-${v} .embed-code`).dataset.measured || ''), view,
        { timeout: 30000 });
      iframe = await page.inputValue(`#s-${view} textarea.embed-iframe`);
      element = await page.inputValue(`#s-${view} textarea.embed-element`);
    } finally { await close(); }
    const attrHeight = +/height="(\d+)"/.exec(iframe)[1];
    for (const width of [390, 1280]) {
      const context = await env.browser.newContext({ viewport: { width, height: 800 }, isMobile: width < 500, hasTouch: width < 500 });
      const page2 = await context.newPage();
      try {
        const blog = env.url + 'blog-' + width + '.html';
        await page2.route(blog, (r) => r.fulfill({ contentType: 'text/html', body: '<!doctype html><meta charset="utf-8">' +
          '<meta name="viewport" content="width=device-width"><body style="margin:8px"><p>Before.</p>' + iframe + '<p>After.</p>' }));
        await page2.goto(blog, { waitUntil: 'domcontentloaded' });
        const first = await page2.$eval('iframe', (f) => f.getBoundingClientRect().height);
        const frame = await (await page2.waitForSelector('iframe')).contentFrame();
        await frame.waitForFunction(() => document.body.dataset.status === 'ready', null, { timeout: 30000 });
        await page2.waitForTimeout(600);
        const inner = await frame.evaluate(() => Math.ceil(document.body.getBoundingClientRect().height));
        const last = await page2.$eval('iframe', (f) => f.getBoundingClientRect().height);
        assert.ok(Math.abs(last - inner) <= 3, `${width} px: the frame fits its figure (${last} for ${inner})`);
        // (Between two measured widths the height changes a little: it may start up to 3 % taller.)
        assert.ok(last - first <= 8 && first - last <= 0.03 * last, `${width} px: the frame starts at ${first} px and ends at ${last} px`);
        if (width === 390) assert.ok(attrHeight >= inner, `without the script a phone sees it whole (${attrHeight} >= ${inner})`);

        // The element, on its own page: its height before it is drawn is the drawn one.
        const page3 = env.url + 'element-' + width + '.html';
        await page2.route(page3, (r) => r.fulfill({ contentType: 'text/html', body: '<!doctype html><meta charset="utf-8">' +
          '<meta name="viewport" content="width=device-width"><body style="margin:8px">' + element + '<p id="after">After.</p>' }));
        await page2.goto(page3, { waitUntil: 'domcontentloaded' });
        await page2.waitForFunction(() => customElements.get('block-lens'));
        const before = await page2.$eval('block-lens', (e) => e.getBoundingClientRect().height);
        await page2.waitForFunction(() => document.querySelector('block-lens').status === 'ready', null, { timeout: 30000 });
        await page2.waitForTimeout(300);
        const drawn = await page2.$eval('block-lens', (e) => e.getBoundingClientRect().height);
        assert.ok(drawn - before <= 8 && before - drawn <= 0.03 * drawn,
          `${width} px: the element reserves ${before} px and is drawn ${drawn} px tall`);
      } finally { await context.close(); }
    }
  });
}
