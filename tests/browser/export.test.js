/* export.test.js - the SVG and PNG buttons of every figure on the page: the SVG parses as XML,
   carries the token labels (hostile text escaped), a title and a legend; the PNG is twice the
   SVG's size; tools/render.js in Node writes the very same SVG bytes for the same state; the
   "Embed" code loads the same figure. Exports and their renderings go to tests/artifacts/. */
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');
const { setup, open } = require('./helpers.js');
const { render, parseState } = require('../../tools/render.js');

const OUT = path.resolve(__dirname, '..', 'artifacts');
const { VIEWS } = require(require('path').join(__dirname, '..', '..', 'web', 'src', 'figures', 'index.js'));
// Views without a colour scale (counts, plots, a list) or without token labels (shapes, d_k sweeps,
// the next character), and those whose random-weights state is a short message (the next
// character, the model view, the logit lens and the ablation: tests/node/modelview.test.js,
// tests/browser/lens.test.js and ablation.test.js draw those on the trained model, and the
// neurons below; patching: its
// sweep is held to every check on the poem model below).
const LEGENDLESS = ['paramsplit', 'saturation', 'next', 'heads', 'lens', 'ablation', 'patching', 'neurons'];
const TOKENLESS = ['pipeline', 'paramsplit', 'saturation', 'next', 'heads', 'lens', 'ablation', 'patching', 'neurons'];
const FEW = ['next', 'heads', 'lens', 'ablation', 'patching', 'neurons'];

let env, started;
test.before(async () => { env = await setup({ server: true }); fs.mkdirSync(OUT, { recursive: true }); started = Date.now(); });
test.after(async () => { await env.close(); });

// Clicks the figure's button and returns the saved file's bytes and suggested name.
async function exportOf(page, view, kind) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(`#s-${view} .export-${kind}`)]);
  const file = await dl.path();
  return { name: dl.suggestedFilename(), bytes: fs.readFileSync(file) };
}

// Parsed in the browser: well-formed?, <text> contents, title, whether a legend is drawn.
function inspect(page, svg) {
  return page.evaluate((s) => {
    const doc = new DOMParser().parseFromString(s, 'image/svg+xml');
    const root = doc.documentElement;
    return { error: doc.querySelector('parsererror') ? doc.querySelector('parsererror').textContent : null,
      texts: Array.from(doc.querySelectorAll('text'), (t) => t.textContent), title: (doc.querySelector('title') || {}).textContent,
      w: +root.getAttribute('width'), h: +root.getAttribute('height'), gradients: doc.querySelectorAll('linearGradient').length,
      scripts: doc.querySelectorAll('script').length, foreign: doc.querySelectorAll('foreignObject').length };
  }, svg);
}

test('every_figure_exports_a_valid_svg_with_labels_and_legend_and_a_2x_png', async () => {
  const evil = '<b>x</b> a&b "q" ]]> 远方';
  const hash = 'lang=en&tokens=' + encodeURIComponent(evil);
  // Chromium drops a page's 11th download in a row: a fresh page for each 4 figures (8 files).
  for (let i = 0; i < VIEWS.length; i += 4) await exportsOf(hash, VIEWS.slice(i, i + 4));
});

test('the_patching_sweep_exports_with_its_legend_and_both_texts_tokens', async () => {
  const hash = 'lang=en&weights=poems&tokens=' + encodeURIComponent('床前明月光') + '&corrupt=' + encodeURIComponent('床前明日光');
  await exportsOf(hash, ['patching'], ['<s>', '床', '前', '明', '月\u2192日', '光'], true);
});

// FFN neurons on the poem model: the token labels of its bars (no colour scale: no legend).
test('the_neurons_figure_exports_with_its_token_labels_on_the_poem_model', async () => {
  await exportsOf('lang=en&weights=poems&tokens=' + encodeURIComponent('床前明月光'), ['neurons'],
    ['<s>', '床', '前', '明', '月', '光']);
});

// strict: every check for every view (no view's random-weights exemption).
async function exportsOf(hash, views, tokens = ['<b>x</b>', 'a&b', '"q"', ']]>', '远', '方'], strict = false) {
  const { page, log, close } = await open(env.browser, env.url, hash);
  const FEW_TEXTS = strict ? [] : FEW, NO_LEGEND = strict ? [] : LEGENDLESS, NO_TOKENS = strict ? [] : TOKENLESS;
  try {
    for (const view of views) {
      const svg = await exportOf(page, view, 'svg');
      assert.strictEqual(svg.name, `blocklens-${view}.svg`);
      const text = svg.bytes.toString('utf8');
      const info = await inspect(page, text);
      assert.strictEqual(info.error, null, `${view}: SVG parses`);
      assert.strictEqual(info.scripts + info.foreign, 0, `${view}: no script, no foreignObject`);
      assert.ok(info.title.startsWith('BlockLens: '), `${view}: title`);
      assert.ok(info.texts.length >= (FEW_TEXTS.includes(view) ? 3 : 8), `${view}: text stays text (${info.texts.length} <text>)`);
      assert.ok(info.gradients >= 1 || NO_LEGEND.includes(view), `${view}: colour legend`);
      if (!NO_TOKENS.includes(view)) {
        for (const tok of tokens) assert.ok(info.texts.some((t) => t.startsWith(tok.slice(0, 8))), `${view}: token label ${tok}`);
      }
      assert.doesNotMatch(text, /<b>/, `${view}: hostile text escaped`);
      fs.writeFileSync(path.join(OUT, `export-${view}.svg`), svg.bytes);

      const png = await exportOf(page, view, 'png');
      assert.strictEqual(png.bytes.toString('latin1', 1, 4), 'PNG');
      assert.deepStrictEqual([png.bytes.readUInt32BE(16), png.bytes.readUInt32BE(20)], [2 * info.w, 2 * info.h], `${view}: PNG at 2x`);
      fs.writeFileSync(path.join(OUT, `export-${view}.png`), png.bytes);
    }
    assert.deepStrictEqual(log.errors, []);
  } finally { await close(); }
}

test('node_render_writes_the_same_svg_as_the_page_export', async () => {
  const hashes = [
    'tokens=the cat sat on the mat&d=12&heads=3&causal=1&lang=en&theme=dark',
    'tokens=远方有颗苹果树&act=swiglu&sel=4&pert=1&pval=-20&show=raw&lang=zh&theme=light'
  ];
  // Chromium drops a page's 11th download in a row: a fresh page for each half of the figures.
  for (const [hash, views] of hashes.flatMap((h) => [[h, VIEWS.slice(0, 6)], [h, VIEWS.slice(6)]])) {
    const { page, close } = await open(env.browser, env.url, hash.replace(/ /g, '%20'));
    try {
      for (const view of views) {
        const fromPage = (await exportOf(page, view, 'svg')).bytes.toString('utf8');
        const st = parseState(hash.replace(/ /g, '%20'));
        const fromNode = (await render(view, st.state)).svg;
        assert.ok(fromPage === fromNode, `${view} (${hash}): page and Node SVG differ at ${firstDiff(fromPage, fromNode)}`);
      }
    } finally { await close(); }
  }
});

function firstDiff(a, b) {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `${i}: page "${a.slice(i - 20, i + 40)}" vs node "${b.slice(i - 20, i + 40)}"`;
}

test('exported_svgs_render_in_chromium_for_a_look', async () => {
  const context = await env.browser.newContext({ viewport: { width: 800, height: 600 } });
  const page = await context.newPage();
  try {
    for (const view of ['attention', 'activation', 'pipeline']) {
      const file = path.join(OUT, `export-${view}.svg`);
      // (written by the first test of this run, not left from an earlier one)
      assert.ok(fs.existsSync(file) && fs.statSync(file).mtimeMs >= started - 1000, `${view}: exported in this run`);
      await page.goto(pathToFileURL(file).href);
      const size = await page.evaluate(() => [document.documentElement.width.baseVal.value, document.documentElement.height.baseVal.value]);
      assert.ok(size[0] === 760 && size[1] > 200, `${view}: ${size}`);
      await page.setViewportSize({ width: size[0], height: Math.ceil(size[1]) });
      await page.screenshot({ path: path.join(OUT, `export-${view}-svg-in-chromium.png`) });
    }
  } finally { await context.close(); }
});

test('embed_code_loads_the_same_figure', async () => {
  const { page, close } = await open(env.browser, env.url, 'lang=en&tokens=one two three four&d=12&heads=3');
  try {
    await page.click('#s-attention .embed-code summary');
    const iframe = await page.inputValue('#s-attention textarea.embed-iframe');
    const element = await page.inputValue('#s-attention textarea.embed-element');
    assert.match(iframe, /<iframe src="http:\/\/127\.0\.0\.1:\d+\/embed\.html#view=attention&amp;tokens=one%20two%20three%20four&amp;d=12&amp;/);
    assert.match(iframe, /sandbox="allow-scripts allow-downloads"/);
    assert.match(element, /<script src="http:\/\/127\.0\.0\.1:\d+\/dist\/blocklens-element\.js"><\/script>\n<block-lens view="attention" tokens="one two three four" d="12" heads="3" lang="en" heights="[\d: ]+"><\/block-lens>/);
    const src = /src="([^"]+)"/.exec(iframe)[1].replace(/&amp;/g, '&');
    const frame = await page.context().newPage();
    await frame.goto(src);
    await frame.waitForFunction(() => document.body.dataset.status === 'ready', null, { timeout: 30000 });
    const shapes = await frame.$$eval('canvas.hm', (cs) => cs.map((c) => [+c.dataset.rows, +c.dataset.cols]));
    assert.deepStrictEqual(shapes, [[4, 4], [4, 4], [4, 4]]);
    await frame.close();
  } finally { await close(); }
});
