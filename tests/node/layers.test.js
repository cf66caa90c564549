// layers.test.js - the front end's imports follow its layers (web/src): numbers (model/), strings
// (i18n/) and drawing (draw/) import nothing of each other; figures/ builds on those three;
// dom/ on all of them (never on the export renderer, draw/svg/); entries/ ties them together.
// tokenizer/ stands apart: it imports an npm package (vendor: @huggingface/tokenizers), and only its
// own bundle holds it. train/ (the Train view) builds on dom/ and below, and imports fflate (vendor)
// for its zip. And no import cycle. The imports are those esbuild's metafile
// lists for the five bundles.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const path = require('path');
const esbuild = require('esbuild');

const SRC = path.join(__dirname, '..', '..', 'web', 'src');
const ENTRIES = ['page.js', 'embed.js', 'worker-file.js', 'element.js', 'tokenizers.js']
  .map((f) => path.join(SRC, 'entries', f));
// The folders a file of each layer may import from (its own included).
const MAY = {
  model: ['model'], i18n: ['i18n'], draw: ['draw'], 'draw/svg': ['draw', 'draw/svg'],
  figures: ['figures', 'model', 'i18n', 'draw', 'draw/svg'],
  dom: ['dom', 'dom/blocks', 'model', 'i18n', 'draw', 'figures'], 'dom/blocks': ['dom', 'dom/blocks', 'draw'],
  train: ['train', 'dom', 'model', 'i18n', 'draw', 'vendor'],
  entries: ['entries', 'dom', 'figures', 'model', 'i18n', 'draw', 'tokenizer', 'train'],
  tokenizer: ['tokenizer', 'vendor'], vendor: ['vendor']
};
const layer = (file) => {
  if (file.split(path.sep).includes('node_modules')) return 'vendor';
  const dir = path.dirname(path.relative(SRC, file)).split(path.sep).join('/');
  return dir.replace(/^model\/stages$/, 'model');
};

async function graph(entries) {
  const r = await esbuild.build({ entryPoints: entries || ENTRIES, bundle: true, write: false, metafile: true, outdir: '/tmp/bl-layers',
    format: 'iife', logLevel: 'silent', define: { __WORKER_CODE__: '""', __ELEMENT_CSS__: '""' } });
  const g = new Map();
  for (const [file, info] of Object.entries(r.metafile.inputs)) {
    g.set(path.resolve(file), info.imports.filter((i) => !i.external).map((i) => path.resolve(i.path)));
  }
  return g;
}

test('every_import_stays_in_its_layer_or_goes_down', async () => {
  const g = await graph(), bad = [];
  assert.ok(g.size > 60, 'the bundles list the front end\'s modules (' + g.size + ')');
  for (const [file, imports] of g) {
    const from = layer(file);
    assert.ok(MAY[from], path.relative(SRC, file) + ' is in a folder the layers name');
    for (const to of imports) if (!MAY[from].includes(layer(to))) bad.push(path.relative(SRC, file) + ' -> ' + path.relative(SRC, to));
  }
  assert.deepStrictEqual(bad, []);
});

test('the_imports_have_no_cycle', async () => {
  const g = await graph(), state = new Map(), cycles = [];
  const visit = (f, trail) => {
    if (state.get(f) === 'done') return;
    if (state.get(f) === 'open') { cycles.push(trail.slice(trail.indexOf(f)).concat(f).map((x) => path.relative(SRC, x)).join(' -> ')); return; }
    state.set(f, 'open');
    for (const to of g.get(f) || []) visit(to, trail.concat(f));
    state.set(f, 'done');
  };
  for (const f of g.keys()) visit(f, []);
  assert.deepStrictEqual(cycles, []);
});

test('the_tokenizer_is_only_in_its_own_bundle', async () => {
  const tokenizerFiles = (g) => Array.from(g.keys()).filter((f) => layer(f) === 'tokenizer' ||
    (layer(f) === 'vendor' && !f.split(path.sep).includes('fflate')));
  const own = tokenizerFiles(await graph([path.join(SRC, 'entries', 'tokenizers.js')]));
  assert.ok(own.some((f) => f.includes('@huggingface')), 'dist/blocklens-tokenizers.js bundles @huggingface/tokenizers');
  for (const entry of ENTRIES.filter((f) => !f.endsWith('tokenizers.js'))) {
    assert.deepStrictEqual(tokenizerFiles(await graph([entry])).map((f) => path.relative(SRC, f)), [],
      path.basename(entry) + ' (the page\'s first load) holds none of the tokenizer');
  }
});
