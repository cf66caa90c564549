#!/usr/bin/env node
/* tools/render.js - one figure as SVG (and PNG) from Node, no browser: the wasm engine computes,
   the page's own modules (web/src: model, figures, core/compose.js) lay out, and the recorder
   writes the same SVG bytes the page's "SVG" button saves.
   Usage:
     node tools/render.js --view attention --state 'tokens=the cat sat&heads=2&causal=1' \
          --lang en --out fig.svg [--png fig.png] [--theme dark] [--width 760]
   --state takes the page's URL hash (an embed.html hash with view= works too). PNG needs the
   npm package @resvg/resvg-js (a devDependency; prebuilt binaries come from npm). */
'use strict';
const fs = require('fs');
const path = require('path');

const WEB = path.join(__dirname, '..', 'web');
const SRC = path.join(WEB, 'src');

// The page's ES modules (web/src is "type": "module"; Node 20.19+ and 22 require() them).
let ui = null;
function loadUI() {
  if (ui) return ui;
  const mod = (p) => require(path.join(SRC, p));
  ui = { params: mod('core/params.js'), i18n: mod('core/i18n.js'), colors: mod('core/colors.js'),
    model: mod('core/model.js'), compose: mod('core/compose.js'), figures: mod('figures/index.js') };
  return ui;
}

// hash-like state text -> { view, state } or throws an Error naming what is wrong.
function parseState(text, view) {
  const u = loadUI(), P = u.params;
  const hash = String(text || '').replace(/^#/, '');
  const fromHash = /(?:^|&)view=([^&]*)/.exec(hash);
  view = view || (fromHash ? decodeURIComponent(fromHash[1]) : 'attention');
  if (!u.figures.VIEWS.includes(view)) throw new Error(`view "${view}" is not one of ${u.figures.VIEWS.join(', ')}`);
  const parsed = P.parseHash(hash);
  if (parsed.errors.length) {
    const t = (k, v) => u.i18n.t('en', k, v);
    throw new Error(parsed.errors.map((e) => (e.key === 'hash' ? 'state' : e.key) + ': ' + t('err_' + e.code, e.vars)).join('; '));
  }
  return { view, state: parsed.state };
}

// The figure for `view` and `state` (params.js keys). 'auto' language is English, 'auto'
// theme light: there is no browser to ask. Returns { svg, width, height, title }.
async function render(view, state, opts = {}) {
  const u = loadUI();
  const engine = await require(path.join(WEB, 'dist', 'blocklens.js')).load();
  const lang = u.i18n.resolve(opts.lang || state.lang, ['en']);
  const theme = (opts.theme || state.theme) === 'dark' ? 'dark' : 'light';
  const st = Object.assign({}, state, { lang, theme });
  const res = u.model.create(engine).compute(st);
  const fig = u.compose.compose(view, res, { t: u.i18n.translator(lang), lang, scheme: u.colors.scheme(theme),
    state: st, width: opts.width });
  return { svg: fig.svg(), width: fig.width, height: fig.height, title: fig.title };
}

const SANS_FONTS = ['truetype/liberation/LiberationSans-Regular.ttf', 'truetype/liberation/LiberationSans-Bold.ttf',
  'opentype/noto/NotoSansCJK-Regular.ttc', 'opentype/noto/NotoSansCJK-Bold.ttc', 'truetype/dejavu/DejaVuSans.ttf',
  'truetype/dejavu/DejaVuSans-Bold.ttf'].map((f) => '/usr/share/fonts/' + f);

// SVG text -> PNG bytes at `zoom` (2: twice the SVG's size, like the page's PNG button).
function svgToPng(svg, zoom) {
  let Resvg;
  try { ({ Resvg } = require('@resvg/resvg-js')); } catch (e) {
    throw new Error('PNG needs the npm package @resvg/resvg-js (npm ci installs it); the SVG needs nothing', { cause: e });
  }
  // Sans-serif faces only where they are known (Debian paths): with every system font loaded,
  // resvg may pick a serif CJK face for a line that mixes scripts.
  const files = SANS_FONTS.filter((f) => fs.existsSync(f));
  const font = files.length >= 2 ? { loadSystemFonts: false, fontFiles: files, defaultFontFamily: 'Liberation Sans' }
    : { loadSystemFonts: true, defaultFontFamily: 'Liberation Sans' };
  const r = new Resvg(svg, { fitTo: { mode: 'zoom', value: zoom || 2 }, font });
  return r.render().asPng();
}

const USAGE = `usage: node tools/render.js --view <${'pipeline|activation|rows|attention|positionwise|paramsplit'}>
       [--state 'tokens=...&d=8&heads=2'] [--lang en|zh] [--theme light|dark] [--width 760]
       --out figure.svg [--png figure.png]`;

async function main(argv) {
  const opts = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '-h' || a === '--help') { console.log(USAGE); return 0; }
    if (!/^--(view|state|lang|theme|width|out|png)$/.test(a) || i + 1 >= argv.length) {
      console.error(`render.js: unexpected "${a}"\n${USAGE}`);
      return 2;
    }
    opts[a.slice(2)] = argv[++i];
  }
  if (!opts.out && !opts.png) { console.error(USAGE); return 2; }
  let job;
  try {
    job = parseState(opts.state, opts.view);
    if (opts.lang && !/^(en|zh)$/.test(opts.lang)) throw new Error('--lang must be en or zh');
    if (opts.theme && !/^(light|dark)$/.test(opts.theme)) throw new Error('--theme must be light or dark');
    if (opts.width && !(/^\d+$/.test(opts.width) && +opts.width >= 320 && +opts.width <= 2400)) throw new Error('--width must be 320..2400');
  } catch (e) {
    console.error('render.js: ' + e.message);
    return 2;
  }
  const fig = await render(job.view, job.state, { lang: opts.lang, theme: opts.theme, width: opts.width ? +opts.width : undefined });
  if (opts.out) {
    fs.writeFileSync(opts.out, fig.svg);
    console.log(`${opts.out}: ${fig.width} x ${fig.height} SVG, ${fig.svg.length} bytes`);
  }
  if (opts.png) {
    const png = svgToPng(fig.svg, 2);
    fs.writeFileSync(opts.png, png);
    console.log(`${opts.png}: ${png.readUInt32BE(16)} x ${png.readUInt32BE(20)} PNG, ${png.length} bytes`);
  }
  return 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; },
    (e) => { console.error('render.js: ' + (e && e.message || e)); process.exitCode = 1; });
}
module.exports = { render, parseState, svgToPng };
