#!/usr/bin/env node
/* tools/render.js - one figure as SVG (and PNG) from Node, no browser: the wasm engine computes,
   the page's own modules (web/src: model, figures, figures/compose.js) lay out, and the recorder
   writes the same SVG bytes the page's "SVG" button saves.
   Usage:
     node tools/render.js --view attention --state 'tokens=the cat sat&heads=2&causal=1' \
          --lang en --out fig.svg [--png fig.png] [--theme dark] [--width 760]
     node tools/render.js --model path/to/hf-folder --view attention --state 'tokens=Hello&layer=2' ...
   --model opens a Hugging Face model folder (GPT-2 or the Llama family) as the page's "Open a
   model folder…" does, and draws the figure on it (weights=model), at the state's layer.
   --state takes the page's URL hash (an embed.html hash with view= works too). PNG needs the
   npm package @resvg/resvg-js (a devDependency; prebuilt binaries come from npm) and, to match
   the SVG in a browser, Debian's fonts-liberation, fonts-noto-cjk and fonts-dejavu-core. */
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
  ui = { params: mod('model/params.js'), i18n: mod('i18n/index.js'), colors: mod('draw/colors.js'),
    model: mod('model/model.js'), assets: mod('model/assets.js'), compose: mod('figures/compose.js'), figures: mod('figures/index.js'),
    recorder: mod('draw/recorder.js'), folder: mod('model/folder.js'), opener: mod('dom/opener.js') };
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

// Trained weights a state asks for (weights=poems), read from web/models/<name>/ as the page's
// dist/blocklens-<name>.js carries them.
function trainedAssets(u, st) {
  const assets = u.assets.createAssets(), name = st.weights;
  if (name && name !== 'random' && name !== 'model') {
    const dir = path.join(WEB, 'models', name), read = (f) => fs.readFileSync(path.join(dir, f));
    assets.add(name, { weights: new Uint8Array(read('model.safetensors')), config: JSON.parse(read('config.json')),
      vocab: JSON.parse(read('vocab.json')),
      heldout: fs.existsSync(path.join(dir, 'heldout.txt')) ? read('heldout.txt').toString('utf8') : '' });
  }
  return assets;
}

// A model folder opened as the page opens one: the engine's model in the assets under 'model',
// and its facts and tokenizer set in params (setOpened), so that state weights=model draws it.
async function openFolder(u, engine, assets, dir) {
  const names = fs.readdirSync(dir).filter((f) => fs.statSync(path.join(dir, f)).isFile());
  const files = await Promise.all(names.map(async (f) => new File([await fs.openAsBlob(path.join(dir, f))], f)));
  const m = await engine.loadModel(dir);
  const meta = await u.folder.facts(files, m, 1);
  meta.name = path.basename(path.resolve(dir));
  const tok = await u.opener.pageTokenizer(u.folder.byName(files),
    async () => require(path.join(WEB, 'dist', 'blocklens-tokenizers.js')));
  if (!tok) throw new Error(dir + ': no tokenizer the page can read');
  u.params.setOpened(u.folder.openedModel(meta, tok));
  assets.put('model', m);
  return meta;
}

// The figure for `view` and `state` (params.js keys). 'auto' language is English, 'auto'
// theme light: there is no browser to ask. Returns { svg, width, height, title }.
async function render(view, state, opts = {}) {
  const u = loadUI();
  const engine = await require(path.join(WEB, 'dist', 'blocklens.js')).load();
  const lang = u.i18n.resolve(opts.lang || state.lang, ['en']);
  const theme = (opts.theme || state.theme) === 'dark' ? 'dark' : 'light';
  const st = Object.assign({}, state, { lang, theme }), assets = trainedAssets(u, st);
  if (opts.model) Object.assign(st, { weights: 'model', model: (await openFolder(u, engine, assets, opts.model)).name });
  const res = u.model.create(engine, assets).compute(st);
  const fig = u.compose.compose(view, res, { t: u.i18n.translator(lang), lang, scheme: u.colors.scheme(theme),
    state: st, width: opts.width });
  return { svg: fig.svg(), width: fig.width, height: fig.height, title: fig.title };
}

// The PNG's fonts: Debian's files for the faces the SVG's font-family names, in its order
// (recorder.js FAMILY: Arial / Helvetica resolve to Liberation Sans, as on a Debian browser).
const FONT_DIR = '/usr/share/fonts/';
const FACES = [
  { family: 'Liberation Sans', files: ['truetype/liberation/LiberationSans-Regular.ttf', 'truetype/liberation/LiberationSans-Bold.ttf'] },
  { family: 'Noto Sans CJK SC', files: ['opentype/noto/NotoSansCJK-Regular.ttc', 'opentype/noto/NotoSansCJK-Bold.ttc'] },
  { family: 'DejaVu Sans', files: ['truetype/dejavu/DejaVuSans.ttf', 'truetype/dejavu/DejaVuSans-Bold.ttf'] }
];

// A font file's character map (cmap formats 4 and 12) -> has(codePoint). For a collection
// (.ttc) the first face's: Noto's CJK collection maps the same characters in every face.
function fontCharset(file) {
  const b = fs.readFileSync(file);
  const base = b.toString('latin1', 0, 4) === 'ttcf' ? b.readUInt32BE(12) : 0;
  let cmap = -1;
  for (let i = 0, n = b.readUInt16BE(base + 4); i < n; i++) {
    const r = base + 12 + 16 * i;
    if (b.toString('latin1', r, r + 4) === 'cmap') cmap = b.readUInt32BE(r + 8);
  }
  if (cmap < 0) throw new Error(file + ': no cmap table');
  const ranges = [];   // [first, last] code points that map to a glyph
  let best = null;
  for (let i = 0, n = b.readUInt16BE(cmap + 2); i < n; i++) {
    const p = b.readUInt16BE(cmap + 4 + 8 * i), e = b.readUInt16BE(cmap + 6 + 8 * i);
    const at = cmap + b.readUInt32BE(cmap + 8 + 8 * i), fmt = b.readUInt16BE(at);
    if ((p === 0 || p === 3 && (e === 1 || e === 10)) && (fmt === 12 || fmt === 4 && !best)) best = at;
  }
  if (best === null) throw new Error(file + ': no Unicode cmap');
  if (b.readUInt16BE(best) === 12) {
    for (let i = 0, n = b.readUInt32BE(best + 12); i < n; i++) {
      const r = best + 16 + 12 * i;
      ranges.push([b.readUInt32BE(r), b.readUInt32BE(r + 4)]);
    }
  } else {
    const seg = b.readUInt16BE(best + 6) / 2, ends = best + 14, starts = ends + 2 * seg + 2;
    const deltas = starts + 2 * seg, offs = deltas + 2 * seg;
    for (let i = 0; i < seg; i++) {
      const lo = b.readUInt16BE(starts + 2 * i), hi = b.readUInt16BE(ends + 2 * i), ro = b.readUInt16BE(offs + 2 * i);
      if (lo === 0xffff) continue;
      if (!ro) { ranges.push([lo, hi]); continue; }
      for (let c = lo; c <= hi; c++) {   // glyph ids from the glyph array; 0 is .notdef
        if (b.readUInt16BE(offs + 2 * i + ro + 2 * (c - lo))) ranges.push([c, c]);
      }
    }
  }
  ranges.sort((x, y) => x[0] - y[0]);
  return { has(cp) {
    let lo = 0, hi = ranges.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (cp < ranges[mid][0]) hi = mid - 1; else if (cp > ranges[mid][1]) lo = mid + 1; else return true;
    }
    return false;
  } };
}

// { files, faces: [{ family, charset }] }: the faces of FACES whose files are installed, read
// once; none when Liberation Sans (the one that draws ASCII) is missing.
let fontSet;
function pngFonts() {
  if (fontSet) return fontSet;
  const have = FACES.filter((f) => f.files.every((p) => fs.existsSync(FONT_DIR + p)));
  fontSet = have.length && have[0] === FACES[0]
    ? { files: have.flatMap((f) => f.files.map((p) => FONT_DIR + p)),
      faces: have.map((f) => ({ family: f.family, charset: fontCharset(FONT_DIR + f.files[0]) })) }
    : { files: [], faces: [] };
  return fontSet;
}

const ENTITY = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };

// resvg shapes a whole text chunk (a <text>, or its part from one absolute x to the next) in
// each span's font and, when one fallback face has every character of it, in that face alone:
// "W\u2081" came out all in DejaVu Sans, wider than the recorder's widths, and ran into the
// label after it; a line with Chinese came out all in Noto Sans CJK. A browser falls back
// character by character down the font-family list. This does the same: a text that mixes
// faces becomes one chunk per run of characters from one face (the first that has them), each
// placed by the recorder's widths and naming its face. Spaces collapse as SVG collapses them.
function splitFallback(svg, faces) {
  if (!faces.length) return svg;
  const { textWidth } = loadUI().recorder;
  const faceOf = (ch) => {
    const cp = ch.codePointAt(0);
    if (cp <= 0x7e) return 0;
    const i = faces.findIndex((f) => f.charset.has(cp));
    return i < 0 ? 0 : i;
  };
  const attr = (attrs, name) => { const m = new RegExp(' ' + name + '="([^"]*)"').exec(attrs); return m ? m[1] : null; };
  const num = (v) => String(Math.round(v * 100) / 100);
  return svg.replace(/<text\b([^>]*)>([^<]*)<\/text>/g, (whole, attrs, body) => {
    if (attr(attrs, 'font-family') !== null) return whole;   // a text that names its own font
    // XML text -> [character, its escaped spelling], spaces collapsed and trimmed
    const units = Array.from(body.replace(/ {2,}/g, ' ').trim().matchAll(/&(amp|lt|gt|quot|#39);|[\s\S]/gu),
      (m) => [m[1] ? ENTITY[m[1]] : m[0], m[0]]);
    const runs = [];
    for (const u of units) {
      const f = faceOf(u[0]), last = runs[runs.length - 1];
      if (last && last.face === f) last.units.push(u); else runs.push({ face: f, units: [u] });
    }
    if (runs.every((r) => r.face === 0)) return whole;
    const family = (r) => r.face ? ' font-family="' + faces[r.face].family + '"' : '';
    if (runs.length === 1) return '<text' + attrs + family(runs[0]) + '>' + body + '</text>';
    const font = (attr(attrs, 'font-weight') ? '600 ' : '') + (attr(attrs, 'font-size') || 12) + 'px';
    const text = (us) => us.map((u) => u[0]).join('');
    const total = textWidth(text(units), font), anchor = attr(attrs, 'text-anchor');
    let at = Number(attr(attrs, 'x')) - (anchor === 'middle' ? total / 2 : anchor === 'end' ? total : 0);
    const out = runs.map((r) => {
      const lead = r.units.findIndex((u) => u[0] !== ' ');   // a chunk's leading space is not drawn
      const x = at + textWidth(' '.repeat(Math.max(0, lead)), font);
      at += textWidth(text(r.units), font);
      return lead < 0 ? '' : '<tspan x="' + num(x) + '"' + family(r) + '>' + r.units.slice(lead).map((u) => u[1]).join('').trimEnd() + '</tspan>';
    });
    return '<text' + attrs.replace(/ text-anchor="[^"]*"/, '') + '>' + out.join('') + '</text>';
  });
}

// The resvg renderer for an SVG at `zoom`, with the fonts above (or the system's, where
// Debian's files are missing).
function resvgFor(svg, zoom) {
  let Resvg;
  try { ({ Resvg } = require('@resvg/resvg-js')); } catch (e) {
    throw new Error('PNG needs the npm package @resvg/resvg-js (npm ci installs it); the SVG needs nothing', { cause: e });
  }
  // Only the faces named, where they are known: with every system font loaded, resvg may pick
  // a serif CJK face for a line that mixes scripts.
  const fonts = pngFonts();
  const font = fonts.faces.length ? { loadSystemFonts: false, fontFiles: fonts.files, defaultFontFamily: 'Liberation Sans' }
    : { loadSystemFonts: true, defaultFontFamily: 'Liberation Sans' };
  return new Resvg(splitFallback(svg, fonts.faces), { fitTo: { mode: 'zoom', value: zoom || 2 }, font });
}

// SVG text -> PNG bytes at `zoom` (2: twice the SVG's size, like the page's PNG button).
function svgToPng(svg, zoom) {
  return resvgFor(svg, zoom).render().asPng();
}

const USAGE = `usage: node tools/render.js --view <${loadUI().figures.VIEWS.join('|')}>
       [--state 'tokens=...&d=8&heads=2'] [--lang en|zh] [--theme light|dark] [--width 760]
       [--model hf-folder] --out figure.svg [--png figure.png]`;

async function main(argv) {
  const opts = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '-h' || a === '--help') { console.log(USAGE); return 0; }
    if (!/^--(view|state|lang|theme|width|out|png|model)$/.test(a) || i + 1 >= argv.length) {
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
    if (opts.model && !fs.existsSync(path.join(opts.model, 'config.json'))) throw new Error('--model ' + opts.model + ' has no config.json');
  } catch (e) {
    console.error('render.js: ' + e.message);
    return 2;
  }
  const fig = await render(job.view, job.state, { lang: opts.lang, theme: opts.theme, width: opts.width ? +opts.width : undefined,
    model: opts.model });
  if (opts.out) {
    fs.writeFileSync(opts.out, fig.svg);
    console.log(`${opts.out}: ${fig.width} x ${fig.height} SVG, ${Buffer.byteLength(fig.svg)} bytes`);
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
module.exports = { render, parseState, svgToPng, resvgFor, splitFallback, pngFonts };
