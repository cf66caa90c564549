/* figure.js - one figure as a static picture: title, the state it shows, the view's heatmaps and
   plots with their labels, a legend, a credit line, laid out at a fixed width into a recorder.
   No DOM: the page's SVG/PNG export and tools/render.js (Node) run this same code, so the same
   state gives the same SVG bytes. The six view layouts are in figure-views.js. */
(function (root, factory) {
  var ui = root.BlockLensUI = root.BlockLensUI || {};
  factory(ui);
  if (typeof module === 'object' && module.exports) module.exports = ui;
})(typeof window !== 'undefined' ? window : globalThis, function (ui) {
  'use strict';

  var VIEWS = ['pipeline', 'activation', 'rows', 'attention', 'positionwise', 'paramsplit'];
  var WIDTH = 760, PAD = 18;
  var FONT = ui.heatmap.FONT.replace('12px', '{size}px');
  function font(size, bold) { return (bold ? '600 ' : '') + FONT.replace('{size}', size); }
  function width(text, f) { return ui.recorder.textWidth(text, f); }

  // Greedy line breaking: at spaces, and between wide (CJK) characters.
  function wrap(text, f, maxW) {
    var units = String(text).match(/[\u2e80-\u9fff\uac00-\ud7a3\uf900-\ufaff\uff00-\uffef][\u3000-\u303f\uff0c\uff1a\uff1b\uff01\uff09]*|[^\s\u2e80-\u9fff\uac00-\ud7a3\uf900-\ufaff\uff00-\uffef]+\s*|\s+/g) || [];
    var lines = [], line = '';
    units.forEach(function (u) {
      if (line && width((line + u).replace(/\s+$/, ''), f) > maxW) { lines.push(line.replace(/\s+$/, '')); line = u.replace(/^\s+/, ''); }
      else line += u;
    });
    if (line.replace(/\s+$/, '')) lines.push(line.replace(/\s+$/, ''));
    return lines;
  }

  // A drawing cursor over one recorder: y grows as parts are added, top to bottom.
  function Sheet(rec, sc, t, w) {
    this.rec = rec; this.sc = sc; this.t = t; this.w = w; this.x = PAD; this.cw = w - 2 * PAD; this.y = PAD;
  }
  var S = Sheet.prototype;

  // Wrapped text at (x, y) no wider than maxW; returns the height used.
  S.textBlock = function (text, x, y, maxW, size, color, bold) {
    var f = font(size, bold), lh = Math.round(size * 1.45), r = this.rec;
    var lines = wrap(text, f, maxW);
    r.font = f; r.fillStyle = color; r.textAlign = 'left'; r.textBaseline = 'alphabetic';
    lines.forEach(function (l, i) { r.fillText(l, x, y + size + i * lh); });
    return lines.length ? (lines.length - 1) * lh + Math.round(size * 1.35) : 0;
  };
  S.para = function (text, size, color, bold, gap) {
    this.y += this.textBlock(text, this.x, this.y, this.cw, size || 12.5, color || this.sc.css.muted, bold) + (gap === undefined ? 10 : gap);
  };

  // A heatmap with its title and shape above it, at (x, y) and `w` wide; returns { w, h }.
  S.panel = function (spec, x, y, w) {
    var r = this.rec, sc = this.sc;
    r.font = font(13, true); r.fillStyle = sc.css.fg; r.textAlign = 'left'; r.textBaseline = 'alphabetic';
    var title = spec.title || '', tw = width(title, r.font);
    r.fillText(title, x, y + 13);
    if (spec.shape) {
      r.font = font(11); r.fillStyle = sc.css.muted;
      r.fillText(spec.shape, x + tw + (title ? 8 : 0), y + 13);
    }
    spec.width = w;
    var g = ui.heatmap.record(r, spec, sc, x, y + 20);
    return { w: g.w, h: 20 + g.h };
  };

  // Colour legend: "lo [bar] hi  note" at (x, y); returns the height used. max null: each
  // matrix has its own scale, so the ends read "−" and "+".
  S.legend = function (x, y, kind, max, note) {
    var r = this.rec, sc = this.sc, F = ui.format, f = font(11);
    var lo = max === null ? F.MINUS : kind === 'diverging' ? F.short(-max) : '0', hi = max === null ? '+' : F.short(max);
    r.font = f; r.fillStyle = sc.css.muted; r.textAlign = 'left'; r.textBaseline = 'middle';
    r.fillText(lo, x, y + 7);
    var bx = x + width(lo, f) + 6, bw = 120;
    var grad = r.createLinearGradient(bx, 0, bx + bw, 0), stops = sc.css[kind];
    stops.forEach(function (c, i) { grad.addColorStop(i / (stops.length - 1), c); });
    r.fillStyle = sc.css.line; r.fillRect(bx - 1, y + 2, bw + 2, 11);
    r.fillStyle = grad; r.fillRect(bx, y + 3, bw, 9);
    r.fillStyle = sc.css.muted;
    r.fillText(hi, bx + bw + 6, y + 7);
    var nx = bx + bw + 6 + width(hi, f) + 14;
    if (note) this.note(note, nx, y, x + this.cw - nx);
    return 16;
  };

  // A legend note; a leading ● is drawn as a dot in the colour the figures use for it.
  S.note = function (note, x, y, maxW) {
    var r = this.rec, sc = this.sc, f = font(11);
    if (note.charAt(0) === '\u25cf') {
      r.fillStyle = sc.css.focus; r.beginPath(); r.arc(x + 4, y + 7.5, 3.5, 0, 2 * Math.PI); r.fill();
      note = note.slice(1).replace(/^\s+/, ''); x += 12;
    }
    r.font = f; r.fillStyle = sc.css.muted; r.textAlign = 'left'; r.textBaseline = 'middle';
    r.fillText(wrap(note, f, Math.max(60, maxW))[0] || '', x, y + 7);
  };

  // Boxes of the given widths placed left to right, wrapping; draw(i, x, y) returns a height.
  S.grid = function (widths, gap, draw) {
    var x = this.x, rowH = 0, self = this;
    widths.forEach(function (w, i) {
      if (x > self.x && x + w > self.x + self.cw + 0.5) { self.y += rowH + gap; x = self.x; rowH = 0; }
      rowH = Math.max(rowH, draw(i, x, self.y, w));
      x += w + gap;
    });
    this.y += rowH + gap;
  };

  function stateLine(res, t) {
    return t('exp_state', { tokens: ui.format.label(res.tokens.join(res.tokens.some(function (x) { return x.length > 1; }) ? ' ' : ''), 48),
      L: res.L, d: res.d, dff: res.dff, heads: res.heads, act: t('act_' + res.act), seed: res.seed });
  }

  // view, res (model.compute), opts { t, lang, scheme, state, width } -> { rec, svg(), title, desc }
  function compose(view, res, opts) {
    if (VIEWS.indexOf(view) < 0) throw new Error('BlockLens: unknown view "' + String(view).slice(0, 40) + '"');
    var t = opts.t, sc = opts.scheme, w = opts.width || WIDTH;
    var rec = ui.recorder.create(w, 100);
    var sheet = new Sheet(rec, sc, t, w);
    rec.fillStyle = sc.css.bg; rec.fillRect(0, 0, w, 100);   // resized below
    var bg = rec.ops[0];
    var title = t('h_' + view);
    sheet.para(title, 17, sc.css.fg, true, 2);
    sheet.para(stateLine(res, t), 12, sc.css.muted, false, 14);
    ui.figureViews[view](sheet, res, opts);
    rec.font = font(10.5); rec.fillStyle = sc.css.muted; rec.textAlign = 'right'; rec.textBaseline = 'alphabetic';
    rec.fillText(t('exp_credit'), w - PAD, sheet.y + 6);
    rec.height = Math.ceil(sheet.y + 6 + PAD);
    bg.h = rec.height;
    var desc = 'BlockLens ' + 'view=' + view + '&' + ui.params.toHash(opts.state);
    return { rec: rec, title: title, desc: desc, width: w, height: rec.height,
      svg: function () { return rec.toSVG({ title: 'BlockLens: ' + title, desc: desc, lang: opts.lang === 'zh' ? 'zh-CN' : 'en' }); } };
  }

  ui.figure = { compose: compose, VIEWS: VIEWS, WIDTH: WIDTH, wrap: wrap, font: font };
});
