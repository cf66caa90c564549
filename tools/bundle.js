#!/usr/bin/env node
/* tools/bundle.js - writes web/dist/blocklens-element.js: ONE classic script a blogger copies,
   the engine (web/dist/blocklens.js, wasm inlined) + the figure code + the styles as a string +
   <block-lens>. It defines one global, BlockLens (the engine API, with .ui for the figure code),
   and the custom element. No eval, no inline style attributes: runs under a strict CSP.
   Usage: node tools/bundle.js [--sizes]   (tools/build runs it after the wasm build). */
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');

const WEB = path.join(__dirname, '..', 'web');
const JS = ['i18n/core', 'i18n/en', 'i18n/zh', 'format', 'params', 'model', 'colors', 'heatmap', 'plots',
  'recorder', 'figure', 'figure-views', 'interact', 'table', 'panel', 'flow', 'widgets', 'views/controls',
  'views/pipeline', 'views/activation', 'views/rows', 'views/attention', 'views/positionwise',
  'views/paramsplit', 'exportbar', 'single', 'element'];
const CSS = ['base', 'figures', 'embed'];

// Whole-line // comments, the /* header */ of each file and indentation go; code is untouched.
function slim(src) {
  return src.replace(/^\/\*[\s\S]*?\*\/\n/, '').split('\n')
    .filter((l) => !/^\s*\/\/ /.test(l)).map((l) => l.replace(/^\s+/, '')).filter((l) => l).join('\n');
}

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

function bundle() {
  const engine = fs.readFileSync(path.join(WEB, 'dist', 'blocklens.js'), 'utf8');
  const parts = JS.map((f) => {
    let src = fs.readFileSync(path.join(WEB, 'js', f + '.js'), 'utf8');
    // The full page's prose (explanations, intro, footer) is not part of any single figure.
    if (f.startsWith('i18n/')) src = src.split('\n').filter((l) => !/^\s+(p_\w+|intro|footer|tagline): '.*',$/.test(l)).join('\n');
    return '// ' + f + '.js\n' + slim(src);
  });
  // The figure modules attach to window.BlockLensUI while they load; it then moves to BlockLens.ui.
  const out = '/* BlockLens ' + JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')).version +
    ': one Transformer block computed by a C engine (WebAssembly, inlined) and drawn live.\n' +
    '   <script src="blocklens-element.js"></script> <block-lens view="attention" tokens="..."></block-lens>\n' +
    '   CSP: script-src \'self\' \'wasm-unsafe-eval\'. MIT licence. */\n' +
    engine + '\n;(function () {\n"use strict";\n' +
    'var had = Object.prototype.hasOwnProperty.call(window, "BlockLensUI"), prev = window.BlockLensUI;\n' +
    'window.BlockLensUI = {};\n' +
    parts.join('\n') + '\n' +
    'var ui = window.BlockLensUI;\n' +
    'if (had) window.BlockLensUI = prev; else delete window.BlockLensUI;\n' +
    'BlockLens.ui = ui;\n' +
    '})();\n';
  return out.replace('window.BlockLensUI = {};\n', 'window.BlockLensUI = {};\nwindow.BlockLensUI.elementCSS = ' +
    JSON.stringify(shadowCSS()) + ';\n');
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

if (require.main === module) {
  const file = path.join(WEB, 'dist', 'blocklens-element.js');
  fs.writeFileSync(file, bundle());
  const s = sizes(file);
  console.log(`built web/dist/blocklens-element.js (${s.raw} bytes, ${s.gzip} gzipped)`);
  if (process.argv.includes('--sizes')) {
    const e = sizes(path.join(WEB, 'dist', 'blocklens.js')), m = embedSizes();
    console.log(`dist/blocklens.js (engine only): ${e.raw} bytes, ${e.gzip} gzipped`);
    console.log(`embed.html + ${m.files - 1} files it loads: ${m.raw} bytes, ${m.gzip} gzipped (file by file)`);
  }
}
module.exports = { bundle, sizes, embedSizes, shadowCSS, JS, CSS };
