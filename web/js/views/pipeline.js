/* views/pipeline.js - figure 1, the FFN as a chain: x -> x·W1+b1 -> activation -> ·W2+b2 -> out,
   with every shape, value count and parameter count, and a thumbnail of each real matrix. */
(function (ui) {
  'use strict';
  var el = ui.table.el, F = ui.format;

  function thumb(name, data, rows, cols, tokens, ctx) {
    return { data: data, rows: rows, cols: cols, kind: 'diverging', max: ui.heatmap.absMax(data),
      maxCell: 6, cellH: Math.max(2, Math.min(7, Math.floor(70 / rows))), maxWidth: 170,
      rowLabels: null, colLabels: null, focusRow: -1, label: ctx.t('thumbLabel', { name: name, r: rows, c: cols }),
      describe: function (r, c) { return name + '[' + tokens[r] + ', ' + c + '] = ' + F.f32(data[r * cols + c]); } };
  }

  // With the identity, W1·W2 is one (d x d) matrix: show how close the FFN is to that one layer.
  function collapseGap(res) {
    var d = res.d, f = res.dff, w = res.weights;
    if (d * d * f > 4e6) return null;
    var M = new Float64Array(d * d), c = new Float64Array(d), gap = 0;
    for (var i = 0; i < d; i++) for (var k = 0; k < f; k++) {
      var a = w.W1[i * f + k];
      for (var j = 0; j < d; j++) M[i * d + j] += a * w.W2[k * d + j];
    }
    for (j = 0; j < d; j++) { c[j] = w.b2[j]; for (k = 0; k < f; k++) c[j] += w.b1[k] * w.W2[k * d + j]; }
    for (var r = 0; r < res.L; r++) for (j = 0; j < d; j++) {
      var y = c[j];
      for (i = 0; i < d; i++) y += res.x[r * d + i] * M[i * d + j];
      gap = Math.max(gap, Math.abs(y - res.ffn.out[r * d + j]) / Math.max(1, Math.abs(y)));
    }
    return gap;
  }

  function mount(root, ctx) {
    var flow = el('div');
    var stats = el('p', 'fig-note');
    root.appendChild(flow);
    root.appendChild(stats);

    function update(res, ctx) {
      var t = ctx.t, L = res.L, d = res.d, f = res.dff, fx = res.ffn, tk = res.tokens;
      var actName = t('act_' + res.act);
      var p1 = d * f + f, p2 = f * d + d, p3 = res.gated ? d * f + f : 0;
      var items = [
        { name: 'x', shape: L + ' \u00d7 ' + d, note: t('nValues', { n: F.int(L * d) }), thumb: thumb('x', res.x, L, d, tk, ctx) },
        { op: '\u00b7 W\u2081 + b\u2081', sub: t('weightShape', { name: 'W\u2081', shape: d + ' \u00d7 ' + f, n: F.int(p1) }) },
        { name: res.gated ? t('gateName') : t('hiddenName'), shape: L + ' \u00d7 ' + f,
          note: t('nValues', { n: F.int(L * f) }), thumb: thumb('hidden', fx.hidden, L, f, tk, ctx) },
        res.gated
          ? { op: actName, sub: t('gatedOp', { shape: d + ' \u00d7 ' + f, n: F.int(p3) }) }
          : { op: actName, sub: t('elementwise') },
        { name: t('activatedName'), shape: L + ' \u00d7 ' + f, accent: true,
          note: t('negCount', { n: fx.negBefore, m: fx.negAfter }), thumb: thumb('activated', fx.activated, L, f, tk, ctx) },
        { op: '\u00b7 W\u2082 + b\u2082', sub: t('weightShape', { name: 'W\u2082', shape: f + ' \u00d7 ' + d, n: F.int(p2) }) },
        { name: t('outName'), shape: L + ' \u00d7 ' + d, note: t('sameShape'), thumb: thumb('out', fx.out, L, d, tk, ctx) }
      ];
      ui.flow.render(flow, items, ctx);
      var parts = [t('pipelineStats', { total: F.int(p1 + p2 + p3), ratio: (f / d).toFixed(2).replace(/\.?0+$/, '') })];
      if (res.act === 'identity') {
        var gap = collapseGap(res);
        parts.push(gap === null ? t('collapseNote') : t('collapseCheck', { gap: gap.toExponential(1) }));
      }
      stats.textContent = parts.join(' ');
    }
    return { update: update };
  }

  ui.views = ui.views || {};
  ui.views.pipeline = { mount: mount };
})(window.BlockLensUI = window.BlockLensUI || {});
