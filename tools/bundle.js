#!/usr/bin/env node
/* tools/bundle.js - the front end's ES modules (web/src) bundled by esbuild into classic IIFE
   scripts, which also run from file:// (where browsers refuse module scripts):
     web/dist/blocklens-page.js     index.html's code (after dist/blocklens.js, the engine)
     web/dist/blocklens-embed.js    embed.html's code (after the engine)
     web/dist/blocklens-worker.js   the compute Worker a served page starts (loads the engine beside it)
     web/dist/blocklens-element.js  ONE file for bloggers: the engine, the figures, the styles and
                                    <block-lens>; it defines one global, BlockLens
     web/dist/blocklens-tokenizers.js  a model folder's tokenizer (web/src/tokenizer, with
                                    @huggingface/tokenizers), loaded only when a model is opened
   The Worker's code is also inlined as a string, for the Blob Worker of a page opened from a file.
   Usage: node tools/bundle.js [--sizes] [--watch]   (tools/build runs it after the wasm build). */
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const esbuild = require('esbuild');

const ROOT = path.join(__dirname, '..');
const WEB = path.join(ROOT, 'web');
const SRC = path.join(WEB, 'src', 'entries');
const DIST = path.join(WEB, 'dist');
const CSS = ['base', 'figures', 'embed'];
const VERSION = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;

const COMMON = { bundle: true, format: 'iife', target: ['es2020'], minify: !process.env.BL_NOMINIFY, legalComments: 'none',
  charset: 'utf8', logLevel: 'warning' };

// The page's CSS for a shadow root: variables on :host, the dark set on the figure's frame.
function shadowCSS() {
  const css = CSS.map((f) => fs.readFileSync(path.join(WEB, 'css', f + '.css'), 'utf8')).join('\n')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/:root\[data-theme="dark"\]/g, '.bl-frame[data-theme="dark"]')
    .replace(/:root/g, ':host')
    .replace(/\n\s+/g, '\n').replace(/\n+/g, '\n');
  return ':host{display:block;margin:1em 0}:host([hidden]){display:none}\n' +
    '.bl-frame{color:var(--fg);font:15px/1.6 var(--font);-webkit-text-size-adjust:100%}\n' + css;
}

// The Worker's code for a Blob: built first, then inlined into the other bundles.
async function workerCode() {
  const r = await esbuild.build(Object.assign({}, COMMON, { entryPoints: [path.join(SRC, 'worker-blob.js')], write: false }));
  return r.outputFiles[0].text;
}

function engineBanner() {
  return '/* BlockLens ' + VERSION + ': one Transformer block computed by a C engine (WebAssembly, inlined) and drawn live.\n' +
    '   <script src="blocklens-element.js"></script> <block-lens view="attention" tokens="..."></block-lens>\n' +
    '   CSP: script-src \'self\' \'wasm-unsafe-eval\'. MIT licence. */\n' +
    fs.readFileSync(path.join(DIST, 'blocklens.js'), 'utf8');
}

// The bundles' esbuild options.
async function targets() {
  const define = { __WORKER_CODE__: JSON.stringify(await workerCode()), __ELEMENT_CSS__: JSON.stringify(shadowCSS()) };
  const one = (entry, out, extra) => Object.assign({}, COMMON, { entryPoints: [path.join(SRC, entry)],
    outfile: path.join(DIST, out), define }, extra);
  return [
    one('page.js', 'blocklens-page.js'),
    one('embed.js', 'blocklens-embed.js'),
    one('worker-file.js', 'blocklens-worker.js'),
    one('element.js', 'blocklens-element.js', { banner: { js: engineBanner() } }),
    // Sets module.exports under Node's require (entries/tokenizers.js tests typeof module first).
    one('tokenizers.js', 'blocklens-tokenizers.js', { logOverride: { 'commonjs-variable-in-esm': 'silent' },
      banner: { js: '/* BlockLens tokenizers: @huggingface/tokenizers (Apache-2.0, (c) Hugging Face) for a model folder. */' } })
  ];
}

// Trained weights as a classic script (dom/assets.js loads it on demand; from file:// a fetch of
// the sibling files would be refused): web/models/<name>/{model.safetensors,config.json,vocab.json}
// -> web/dist/blocklens-<name>.js. The safetensors bytes travel as base64.
const MODELS = ['poems'];
function assetScripts() {
  for (const name of MODELS) {
    const dir = path.join(WEB, 'models', name);
    if (!fs.existsSync(path.join(dir, 'model.safetensors'))) continue;
    const read = (f) => fs.readFileSync(path.join(dir, f));
    const body = { config: JSON.parse(read('config.json')), vocab: JSON.parse(read('vocab.json')),
      weights: read('model.safetensors').toString('base64') };
    // (heldout.txt, 300 poems never trained on, 57 KB: figure 16 searches them; see the README)
    if (fs.existsSync(path.join(dir, 'heldout.txt'))) body.heldout = read('heldout.txt').toString('utf8');
    fs.writeFileSync(path.join(DIST, 'blocklens-' + name + '.js'), '/* BlockLens trained weights "' + name +
      '" (web/models/' + name + '/, see its README); loaded by the page only when asked for. */\n' +
      // Under a Symbol key (dom/assets.js ASSETS_KEY): the host page's markup cannot shadow it.
      '(function (k) { (Object.prototype.hasOwnProperty.call(self, k) ? self[k] : (self[k] = Object.create(null)))[' +
      JSON.stringify(name) + '] = ' + JSON.stringify(body) + '; })(Symbol.for(\'blocklens.assets\'));\n');
  }
}

// The tokenizer module also carries its own source, for a page from file:// to hand to its Blob
// Worker (which may not importScripts a file:// URL; dom/opener.js): set only where it registers.
function tokenizerSource() {
  const file = path.join(DIST, 'blocklens-tokenizers.js'), code = fs.readFileSync(file, 'utf8');
  fs.writeFileSync(file, code + 'if (!(typeof module === \'object\' && module && typeof module.exports === \'object\')) ' +
    'self[Symbol.for(\'blocklens.tokenizers.source\')] = ' + JSON.stringify(code) + ';\n');
}

async function bundle() {
  for (const opts of await targets()) await esbuild.build(opts);
  tokenizerSource();
  assetScripts();
}

function sizes(file) {
  const buf = fs.readFileSync(file);
  return { raw: buf.length, gzip: zlib.gzipSync(buf, { level: 9 }).length };
}

// What a blogger copies for iframes: embed.html and every file it links, gzipped one by one.
function embedSizes() {
  const html = fs.readFileSync(path.join(WEB, 'embed.html'), 'utf8');
  const files = ['embed.html'].concat(Array.from(html.matchAll(/(?:src|href)="([^"#:]+)"/g), (m) => m[1]));
  return files.reduce((t, f) => { const s = sizes(path.join(WEB, f)); return { files: t.files + 1, raw: t.raw + s.raw, gzip: t.gzip + s.gzip }; },
    { files: 0, raw: 0, gzip: 0 });
}

// Rebuilds on every change under web/src and web/css (the engine needs tools/build).
async function watch() {
  const contexts = await Promise.all((await targets()).map((o) => esbuild.context(o)));
  await Promise.all(contexts.map((c) => c.watch()));
  console.log('watching web/src (Ctrl-C stops); the worker code and the element CSS are read at start');
}

async function main(argv) {
  if (argv.includes('--watch')) return watch();
  await bundle();
  for (const f of ['blocklens-page.js', 'blocklens-embed.js', 'blocklens-worker.js', 'blocklens-element.js',
    'blocklens-tokenizers.js']) {
    const s = sizes(path.join(DIST, f));
    console.log(`built web/dist/${f} (${s.raw} bytes, ${s.gzip} gzipped)`);
  }
  if (argv.includes('--sizes')) {
    const e = sizes(path.join(DIST, 'blocklens.js')), m = embedSizes();
    console.log(`dist/blocklens.js (engine only): ${e.raw} bytes, ${e.gzip} gzipped`);
    console.log(`embed.html + ${m.files - 1} files it loads: ${m.raw} bytes, ${m.gzip} gzipped (file by file)`);
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((e) => { console.error('bundle.js: ' + (e && e.message || e)); process.exitCode = 1; });
}
module.exports = { bundle, sizes, embedSizes, shadowCSS, CSS };
