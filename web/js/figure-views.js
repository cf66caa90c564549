/* figure-views.js - the static layout of each of the six figures for figure.js: what the page's
   view shows, minus the buttons, at a fixed width. Each takes (sheet, res, opts) and draws from
   sheet.y down, leaving sheet.y below what it drew. */
(function (root, factory) {
  var ui = root.BlockLensUI = root.BlockLensUI || {};
  factory(ui);
  if (typeof module === 'object' && module.exports) module.exports = ui;
})(typeof window !== 'undefined' ? window : globalThis, function (ui) {
  'use strict';
  var F = ui.format, X = ' \u00d7 ';

  function hm(data, rows, cols, extra) {
    return Object.assign({ data: data, rows: rows, cols: cols, kind: 'diverging', max: ui.heatmap.absMax(data),
      focusRow: -1, rowLabels: null, colLabels: null }, extra);
  }

  // 1. The FFN chain: cards with shape, count and a thumbnail, joined by the operations.
  function pipeline(sh, res, opts) {
    var t = opts.t, sc = sh.sc, r = sh.rec, L = res.L, d = res.d, f = res.dff, fx = res.ffn;
    var font = ui.figure.font, p1 = d * f + f, p2 = f * d + d, p3 = res.gated ? d * f + f : 0;
    function thumb(data, cols) {
      var cw = Math.max(1, Math.min(6, Math.floor(96 / cols)));
      return hm(data, L, cols, { maxCell: 6, cellH: Math.max(2, Math.min(7, Math.floor(70 / L))), width: 4 + cols * cw + 6 });
    }
    var items = [
      { name: 'x', shape: L + X + d, note: t('nValues', { n: F.int(L * d) }), thumb: thumb(res.x, d) },
      { op: '\u00b7 W\u2081 + b\u2081', sub: t('weightShape', { name: 'W\u2081', shape: d + X + f, n: F.int(p1) }) },
      { name: res.gated ? t('gateName') : t('hiddenName'), shape: L + X + f, note: t('nValues', { n: F.int(L * f) }), thumb: thumb(fx.hidden, f) },
      { op: t('act_' + res.act), sub: res.gated ? t('gatedOp', { shape: d + X + f, n: F.int(p3) }) : t('elementwise') },
      { name: t('activatedName'), shape: L + X + f, accent: true, note: t('negCount', { n: fx.negBefore, m: fx.negAfter }), thumb: thumb(fx.activated, f) },
      { op: '\u00b7 W\u2082 + b\u2082', sub: t('weightShape', { name: 'W\u2082', shape: f + X + d, n: F.int(p2) }) },
      { name: t('outName'), shape: L + X + d, note: t('sameShape'), thumb: thumb(fx.out, d) }
    ];
    // Sizes first (cards as wide as their thumbnail or text), then one row or several.
    items.forEach(function (it) {
      if (it.op !== undefined) {
        it.lines = ui.figure.wrap(it.sub, font(10.5), 82);
        it.w = Math.min(88, Math.max(width(it.op, font(12, true)), 40) + 4);
        it.lines.forEach(function (l) { it.w = Math.max(it.w, Math.min(88, width(l, font(10.5)) + 4)); });
        it.h = 40 + it.lines.length * 14;
      } else {
        var g = ui.heatmap.layout(r, it.thumb);
        it.g = g;
        it.w = Math.max(56, g.w, width(it.name, font(13, true)), width(it.shape, font(11))) + 20;
        it.noteLines = ui.figure.wrap(it.note, font(10.5), it.w - 20);
        it.h = 46 + g.h + it.noteLines.length * 14 + 8;
      }
    });
    // Room left on the line goes to cards whose note would otherwise wrap, shared in proportion.
    var spare = sh.cw - items.reduce(function (a, it) { return a + it.w + 6; }, -6), wantAll = 0;
    items.forEach(function (it) {
      it.want = it.op !== undefined ? 0 : Math.max(0, Math.min(170, width(it.note, font(10.5)) + 22) - it.w);
      wantAll += it.want;
    });
    items.forEach(function (it) {
      if (!it.want || spare <= 0) return;
      it.w += Math.floor(it.want * Math.min(1, spare / wantAll));
      it.noteLines = ui.figure.wrap(it.note, font(10.5), it.w - 20);
      it.h = 46 + it.g.h + it.noteLines.length * 14 + 8;
    });
    var cardH = Math.max.apply(null, items.map(function (it) { return it.op === undefined ? it.h : 0; }));
    sh.grid(items.map(function (it) { return it.w; }), 6, function (i, x, y) {
      var it = items[i];
      if (it.op !== undefined) {
        var cx = x + it.w / 2;
        r.textAlign = 'center'; r.textBaseline = 'alphabetic';
        r.font = font(18); r.fillStyle = sc.css.muted; r.fillText('\u2192', cx, y + 26);
        r.font = font(12, true); r.fillStyle = sc.css.fg; r.fillText(it.op, cx, y + 44);
        r.font = font(10.5); r.fillStyle = sc.css.muted;
        it.lines.forEach(function (l, k) { r.fillText(l, cx, y + 59 + k * 14); });
        return it.h;
      }
      var h = cardH;
      r.fillStyle = sc.css.line; r.fillRect(x, y, it.w, h);
      r.fillStyle = sc.css.card; r.fillRect(x + 1, y + 1, it.w - 2, h - 2);
      if (it.accent) { r.fillStyle = sc.css.ffn; r.fillRect(x, y, it.w, 3); }
      r.textAlign = 'left'; r.textBaseline = 'alphabetic';
      r.font = font(13, true); r.fillStyle = sc.css.fg; r.fillText(it.name, x + 10, y + 20);
      r.font = font(11); r.fillStyle = sc.css.muted; r.fillText(it.shape, x + 10, y + 36);
      ui.heatmap.record(r, it.thumb, sc, x + 10 - 4, y + 44);
      r.font = font(10.5);
      it.noteLines.forEach(function (l, k) { r.fillText(l, x + 10, y + 44 + it.g.h + 14 + k * 14); });
      return h;
    });
    sh.para(t('pipelineStats', { total: F.int(p1 + p2 + p3), ratio: (f / d).toFixed(2).replace(/\.?0+$/, '') }), 12.5);
    sh.y += sh.legend(sh.x, sh.y, 'diverging', null, t('exp_ownScale')) + 8;
  }
  function width(text, f) { return ui.recorder.textWidth(text, f); }

  // 2. Hidden before and after the activation, the counts, and the curve.
  function activation(sh, res, opts) {
    var t = opts.t, fx = res.ffn, L = res.L, f = res.dff, tk = res.tokens;
    var marks = new Uint8Array(fx.hidden.length), nz = 0;
    for (var i = 0; i < marks.length; i++) if (fx.activated[i] === 0 && fx.hidden[i] !== 0) { marks[i] = 1; nz++; }
    var act = t('act_' + res.act);
    sh.para([F.int(fx.negBefore) + ' ' + t('negBeforeLabel', { total: F.int(fx.hidden.length) }),
      F.int(fx.negAfter) + ' ' + t('negAfterLabel', { act: act }), F.int(nz) + ' ' + t('zeroedLabel')].join('  \u00b7  '), 13, sh.sc.css.fg, true);
    var max = Math.max(ui.heatmap.absMax(fx.hidden), res.gated ? ui.heatmap.absMax(fx.activated) : 0);
    var common = { kind: 'diverging', max: max, rowLabels: tk, colLabels: 'index', maxCell: 24 };
    var nameB = res.gated ? t('gateName') : t('hiddenName');
    sh.y += sh.panel(hm(fx.hidden, L, f, Object.assign({ title: t('beforeTitle', { name: nameB }), shape: L + X + f }, common)), sh.x, sh.y, sh.cw).h + 14;
    sh.y += sh.panel(hm(fx.activated, L, f, Object.assign({ title: t('afterTitle', { act: act }), shape: L + X + f, marks: marks }, common)), sh.x, sh.y, sh.cw).h + 6;
    sh.y += sh.legend(sh.x, sh.y, 'diverging', max, nz ? t('markNote') : '') + 18;
    sh.para(t(res.gated ? 'curveTitleGated' : 'curveTitle', { act: act }), 13, sh.sc.css.fg, true, 6);
    var W = Math.min(420, sh.cw), H = 230, r = sh.rec;
    r.save(); r.translate(sh.x, sh.y);
    ui.plots.curve(r, res, sh.sc, t, W, H);
    r.restore();
    var note = t(res.gated ? 'curveNoteGated' : 'curveNote');
    if (sh.cw - W - 18 >= 180) {
      sh.textBlock(note, sh.x + W + 18, sh.y + 4, sh.cw - W - 18, 12, sh.sc.css.muted);
      sh.y += H + 10;
    } else {
      sh.y += H + 8;
      sh.para(note, 12);
    }
  }

  // 3. One token's row through the four FFN stages, beside the attention links.
  function rows(sh, res, opts) {
    var t = opts.t, L = res.L, tk = res.tokens, sel = res.sel, fx = res.ffn;
    sh.para(t('exp_selected', { tok: tk[sel], i: sel }), 13, sh.sc.css.fg, true);
    var stages = [
      { name: 'x', data: res.x, cols: res.d },
      { name: res.gated ? t('gateName') : t('hiddenName'), data: fx.hidden, cols: res.dff },
      { name: t('activatedName'), data: fx.activated, cols: res.dff },
      { name: t('outName'), data: fx.out, cols: res.d }
    ];
    var gap = 16, flex = stages.map(function (s) { return Math.max(8, Math.min(s.cols, 64)); });
    var sum = flex.reduce(function (a, b) { return a + b; }, 0), avail = sh.cw - gap * 3;
    var widths = flex.map(function (k) { return Math.max(110, Math.floor(avail * k / sum)); });
    var over = widths.reduce(function (a, b) { return a + b; }, 0) - avail;
    if (over > 0 && over < avail) widths = widths.map(function (w, i) { return w > 110 ? Math.max(110, w - Math.ceil(over * flex[i] / sum * 2)) : w; });
    sh.grid(widths, gap, function (i, x, y, w) {
      var st = stages[i];
      return sh.panel(hm(st.data, L, st.cols, { title: st.name, shape: L + X + st.cols, rowLabels: tk, colLabels: 'index',
        focusRow: sel, maxCell: 18 }), x, y, w).h;
    });
    sh.y += sh.legend(sh.x, sh.y - 6, 'diverging', null, t('exp_ownScale')) + 12;
    var r = sh.rec, size = ui.plots.linksSize(L, Math.min(360, sh.cw)), font = ui.figure.font;
    r.font = font(12, true); r.textBaseline = 'alphabetic';
    r.textAlign = 'left'; r.fillStyle = sh.sc.css.attention; r.fillText(t('insetAttn'), sh.x, sh.y + 12);
    r.textAlign = 'right'; r.fillStyle = sh.sc.css.ffn; r.fillText(t('insetFfn'), sh.x + size.w, sh.y + 12);
    sh.y += 20;
    r.save(); r.translate(sh.x, sh.y);
    ui.plots.links(r, res, sh.sc, Math.min(360, sh.cw));
    r.restore();
    var note = t(res.causal ? 'insetNoteCausal' : 'insetNote', { tok: tk[sel] });
    if (sh.cw - size.w - 18 >= 180) {
      sh.textBlock(note, sh.x + size.w + 18, sh.y, sh.cw - size.w - 18, 12, sh.sc.css.muted);
      sh.y += size.h + 10;
    } else {
      sh.y += size.h + 8;
      sh.para(note, 12);
    }
  }

  // 4. One L x L heatmap per head: softmax weights, or the scores before/after scaling.
  function attention(sh, res, opts) {
    var t = opts.t, L = res.L, H = res.heads, dk = res.dk, A = res.attn, tk = res.tokens;
    var mode = opts.state.show, s = 1 / Math.sqrt(dk);
    sh.para([t('splitOp', { h: H }) + ', d_k = ' + res.d + ' / ' + H + ' = ' + dk,
      res.scale ? 'softmax(QK\u1d40/\u221a' + dk + ')' : 'softmax(QK\u1d40)', t(res.causal ? 'maskCausal' : 'maskNone'),
      t('mode_' + mode)].join('  \u00b7  '), 13, sh.sc.css.fg, true);
    var data = A.weights, kind = 'sequential';
    if (mode !== 'weights') {
      kind = 'diverging';
      data = mode === 'raw' ? A.scores : A.scores.map(function (v) { return v * s; });
    }
    var max = ui.heatmap.absMax(data), masked = res.causal ? function (r, c) { return c > r; } : null;
    var gap = 22, per = Math.max(1, Math.min(H, Math.floor((sh.cw + gap) / (230 + gap))));
    var w = Math.floor((sh.cw - gap * (per - 1)) / per), widths = [];
    for (var h = 0; h < H; h++) widths.push(w);
    sh.grid(widths, 16, function (h, x, y, w) {
      return sh.panel(hm(data, L, L, { offset: h * L * L, kind: kind, max: max, rowLabels: tk, colLabels: tk, maxCell: 34,
        masked: masked, title: t('headTitle', { h: h + 1 }), shape: t('mode_' + mode) + ' \u00b7 ' + L + X + L }), x, y, w).h;
    });
    sh.y += sh.legend(sh.x, sh.y - 4, kind, max, res.causal ? t('maskedNote') : '') + 12;
    var st = ui.model.attnStats(A, H, L);
    sh.para(t(res.scale ? 'attnStats' : 'attnStatsOff', { raw: F.short(st.sd), scaled: F.short(st.sd * s),
      peak: st.peak.toFixed(2), uniform: (1 / L).toFixed(2) }), 12);
  }

  // 5. |change| of the FFN and attention outputs when one token is set to a large value.
  function positionwise(sh, res, opts) {
    var t = opts.t, P = res.pert, L = res.L, d = res.d, tk = res.tokens;
    sh.para(t('pertSummary', { tok: tk[P.index], v: F.short(P.value), nf: P.ffn.rows.length, na: P.attn.rows.length,
      L: L, rows: P.attn.rows.map(function (r) { return tk[r]; }).join(' ') }), 13, sh.sc.css.fg, true);
    var parts = [[t('diffFfnTitle'), P.ffn], [t('diffAttnTitle'), P.attn]];
    var gap = 26, two = sh.cw >= 2 * 220 + gap, w = two ? Math.floor((sh.cw - gap) / 2) : sh.cw;
    sh.grid([w, w], 14, function (i, x, y, w) {
      var D = parts[i][1], max = ui.heatmap.absMax(D.abs);
      var p = sh.panel(hm(D.abs, L, d, { kind: 'sequential', max: max, rowLabels: tk, colLabels: 'index', maxCell: 26,
        rowFlags: tk.map(function (_, r) { return D.rows.indexOf(r) >= 0; }), title: parts[i][0], shape: L + X + d }), x, y, w);
      var save = sh.cw;
      sh.cw = w;
      sh.legend(x, y + p.h + 4, 'sequential', max, '');
      sh.cw = save;
      return p.h + 22;
    });
    sh.note(t('changedDot'), sh.x, sh.y - 6, sh.cw);
    sh.y += 18;
  }

  // 6. Attention vs FFN parameters for this block, then real models by part.
  function paramsplit(sh, res, opts) {
    var t = opts.t, sc = sh.sc, r = sh.rec, font = ui.figure.font, d = res.d, f = res.dff;
    var A = res.split.attention, Fn = res.split.ffn;
    sh.para(t('splitTitle', { d: d, f: f, h: res.heads }), 13, sc.css.fg, true, 6);
    function bar(x, y, w, h, parts, total, withText) {
      parts.forEach(function (p) {
        if (!p.n) return;
        var pw = w * p.n / total;
        r.fillStyle = sc.css[p.key]; r.fillRect(x, y, pw, h);
        var label = t('part_' + p.key) + ' ' + F.pct(p.n / total);
        if (withText && width(label, font(12, true)) + 16 <= pw) {
          r.font = font(12, true); r.fillStyle = '#ffffff'; r.textAlign = 'left'; r.textBaseline = 'middle';
          r.fillText(label, x + 8, y + h / 2);
        }
        x += pw;
      });
    }
    bar(sh.x, sh.y, sh.cw, 30, [{ key: 'attention', n: A }, { key: 'ffn', n: Fn }], A + Fn, true);
    sh.y += 40;
    var fA = '4\u00b7d\u00b2 + 4\u00b7d = 4\u00b7' + d + '\u00b2 + 4\u00b7' + d + ' = ' + F.int(A);
    var fF = res.gated
      ? '3\u00b7d\u00b7d_ff + 2\u00b7d_ff + d = 3\u00b7' + d + '\u00b7' + f + ' + 2\u00b7' + f + ' + ' + d + ' = ' + F.int(Fn)
      : '2\u00b7d\u00b7d_ff + d_ff + d = 2\u00b7' + d + '\u00b7' + f + ' + ' + f + ' + ' + d + ' = ' + F.int(Fn);
    var lw = Math.max(width(t('part_attention'), font(12.5, true)), width(t('part_ffn'), font(12.5, true))) + 12;
    [['part_attention', fA], ['part_ffn', fF]].forEach(function (row) {
      r.font = font(12.5, true); r.fillStyle = sc.css.fg; r.textAlign = 'left'; r.textBaseline = 'alphabetic';
      r.fillText(t(row[0]), sh.x, sh.y + 13);
      sh.y += sh.textBlock(row[1], sh.x + lw, sh.y, sh.cw - lw, 12.5, sc.css.fg) + 4;
    });
    sh.y += 4;
    sh.para(t('splitRatio', { r: (Fn / A).toFixed(2), share: F.pct(Fn / (A + Fn)) }), 12.5, sc.css.muted, false, 16);
    var PARTS = ['embeddings', 'attention', 'ffn', 'norms', 'other'], x = sh.x;
    r.font = font(11.5); r.textBaseline = 'middle'; r.textAlign = 'left';
    PARTS.forEach(function (k) {
      r.fillStyle = sc.css[k]; r.fillRect(x, sh.y + 2, 11, 11);
      r.fillStyle = sc.css.muted; r.fillText(t('part_' + k), x + 16, sh.y + 8);
      x += 16 + width(t('part_' + k), font(11.5)) + 16;
    });
    sh.y += 24;
    sh.para(t('presetsCaption'), 13, sc.css.fg, true, 6);
    var names = res.presets.map(function (p) { return t('preset_' + p.name); });
    var nameW = Math.min(220, Math.max.apply(null, names.map(function (n) { return width(n, font(12)); })) + 12);
    var cols = [['colTotal', 112], ['colPrinted', 64], ['colFfnShare', 76]];
    var barW = sh.cw - nameW - cols.reduce(function (a, c) { return a + c[1]; }, 0) - 8;
    r.font = font(11, true); r.fillStyle = sc.css.muted; r.textBaseline = 'alphabetic';
    r.textAlign = 'left'; r.fillText(t('colModel'), sh.x, sh.y + 12); r.fillText(t('colSplit'), sh.x + nameW, sh.y + 12);
    var cx = sh.x + nameW + barW + 8;
    r.textAlign = 'right';
    cols.forEach(function (c) { cx += c[1]; r.fillText(t(c[0]), cx, sh.y + 12); });
    sh.y += 18;
    r.fillStyle = sc.css.line; r.fillRect(sh.x, sh.y, sh.cw, 1);
    sh.y += 4;
    res.presets.forEach(function (p, i) {
      var c = p.count, y = sh.y;
      r.font = font(12); r.fillStyle = sc.css.fg; r.textAlign = 'left'; r.textBaseline = 'middle';
      r.fillText(F.label(names[i], 40), sh.x, y + 11);
      bar(sh.x + nameW, y + 4, barW, 14, PARTS.map(function (k) { return { key: k, n: c[k] }; }), c.total, false);
      var cx = sh.x + nameW + barW + 8;
      r.font = font(12); r.fillStyle = sc.css.fg; r.textAlign = 'right';
      [F.int(c.total), c.printedTotal ? F.big(c.printedTotal) : '\u2014', F.pct(c.ffn / c.total)].forEach(function (v, k) {
        cx += cols[k][1]; r.fillText(v, cx, y + 11);
      });
      sh.y += 24;
    });
    sh.y += 6;
    sh.para(t('presetsNote'), 11.5);
  }

  ui.figureViews = { pipeline: pipeline, activation: activation, rows: rows, attention: attention,
    positionwise: positionwise, paramsplit: paramsplit };
});
