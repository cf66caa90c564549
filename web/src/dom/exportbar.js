/* exportbar.js - the "SVG" and "PNG" buttons under a figure: figures/compose.js lays the figure out once
   into a recorder, which becomes the SVG text or, replayed on a canvas at 2x, the PNG. The file
   is saved through a temporary <a download>. Used by the page, embed.html and <block-lens>. */
import * as figure from '../figures/compose.js';
import { el } from './el.js';

// { view, res, ctx } -> the composed figure, in the language and colours on screen.
function compose(job) {
  const c = job.ctx;
  const state = Object.assign({}, c.state, { lang: c.lang, theme: c.scheme.name });
  return figure.compose(job.view, job.res, { t: c.t, lang: c.lang, scheme: c.scheme, state: state });
}

function svgText(job) { return compose(job).svg(); }

// Resolves with a PNG Blob twice the figure's size.
function pngBlob(job) {
  const fig = compose(job), canvas = document.createElement('canvas');
  canvas.width = fig.width * 2;
  canvas.height = fig.height * 2;
  fig.rec.replay(canvas.getContext('2d'), 2);
  return new Promise(function (resolve, reject) {
    canvas.toBlob(function (b) { if (b) resolve(b); else reject(new Error('toBlob gave nothing')); }, 'image/png');
  });
}

function save(blob, name, near) {
  const a = document.createElement('a'), url = URL.createObjectURL(blob);
  a.href = url;
  a.download = name;
  a.hidden = true;
  (near || document.body).appendChild(a);
  a.click();
  a.remove();
  setTimeout(function () { URL.revokeObjectURL(url); }, 4000);
}

// opts: { view, get() -> { res, ctx } or null }. Returns { root, update(t) }.
function create(opts) {
  const bar = el('div', 'export-bar');
  const msg = el('span', 'export-msg');
  msg.setAttribute('role', 'status');
  let tr = null;   // the page's texts, from update()
  function button(kind) {
    const b = el('button', 'mini export-' + kind);
    b.type = 'button';
    b.dataset.export = kind;
    b.addEventListener('click', function () {
      const job = opts.get();
      // (A figure below the fold may not be drawn yet: say so rather than do nothing.)
      if (!job) { msg.textContent = tr ? tr('exp_notDrawn') : ''; return; }
      job.view = opts.view;
      const name = 'blocklens-' + opts.view + '.' + kind;
      msg.textContent = '';
      try {
        if (kind === 'svg') save(new Blob([svgText(job)], { type: 'image/svg+xml' }), name, bar);
        else pngBlob(job).then(function (png) { save(png, name, bar); }, fail);
      } catch (e) { fail(e); }
      function fail(e) { msg.textContent = job.ctx.t('exp_failed', { message: String(e && e.message || e) }); }
    });
    bar.appendChild(b);
    return b;
  }
  const svgB = button('svg'), pngB = button('png');
  bar.appendChild(msg);
  return {
    root: bar,
    update: function (t) {
      tr = t;
      if (msg.textContent && opts.get()) msg.textContent = '';
      svgB.textContent = t('exp_svg'); svgB.title = t('exp_svgTitle');
      pngB.textContent = t('exp_png'); pngB.title = t('exp_pngTitle');
    }
  };
}

export { create, svgText, pngBlob, compose };
