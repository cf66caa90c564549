/* views/activation.js - figure 2, the activation map: hidden before and after the activation on
   one colour scale, cells set to exactly 0 marked ×, the negative counts, and the curve traced
   by the engine's own (before, after) pairs. */
(function (ui) {
  'use strict';
  var el = ui.table.el, F = ui.format;

  function chip(parent, cls) {
    var c = el('div', 'stat ' + cls);
    var n = el('span', 'stat-num'), l = el('span', 'stat-label');
    c.appendChild(n); c.appendChild(l);
    parent.appendChild(c);
    return { num: n, label: l };
  }

  // The curve itself is drawn by plots.js (shared with the SVG/PNG export).
  function drawCurve(canvas, res, ctx) {
    var W = Math.min(420, canvas.parentNode.clientWidth || 320), H = 230;
    var n = ui.plots.curve(ui.plots.sizeCanvas(canvas, W, H), res, ctx.scheme, ctx.t, W, H);
    canvas.setAttribute('aria-label', ctx.t('curveLabel', { n: n }));
  }

  function mount(root, ctx) {
    var stats = el('div', 'stats');
    root.appendChild(stats);
    var before = chip(stats, 'neg-before'), after = chip(stats, 'neg-after'), zeroed = chip(stats, 'zeroed');
    var grid = el('div', 'pair');
    root.appendChild(grid);
    var pBefore = ui.panel.create(grid), pAfter = ui.panel.create(grid);
    var curveBox = el('figure', 'panel curve');
    var curveCap = el('figcaption', 'panel-head');
    var curveTitle = el('span', 'panel-title');
    curveCap.appendChild(curveTitle);
    curveBox.appendChild(curveCap);
    var curveWrap = el('div', 'curve-wrap');
    var curve = el('canvas', 'curve-canvas');
    curve.setAttribute('role', 'img');
    curveWrap.appendChild(curve);
    curveBox.appendChild(curveWrap);
    var curveNote = el('p', 'fig-note');
    curveBox.appendChild(curveNote);
    root.appendChild(curveBox);

    function update(res, ctx) {
      var t = ctx.t, fx = res.ffn, L = res.L, f = res.dff, tk = res.tokens;
      var marks = new Uint8Array(fx.hidden.length), nz = 0;
      for (var i = 0; i < marks.length; i++) {
        if (fx.activated[i] === 0 && fx.hidden[i] !== 0) { marks[i] = 1; nz++; }
      }
      root.dataset.negativesBefore = fx.negBefore;
      root.dataset.negativesAfter = fx.negAfter;
      root.dataset.zeroed = nz;
      before.num.textContent = F.int(fx.negBefore);
      before.label.textContent = t('negBeforeLabel', { total: F.int(fx.hidden.length) });
      after.num.textContent = F.int(fx.negAfter);
      after.label.textContent = t('negAfterLabel', { act: t('act_' + res.act) });
      zeroed.num.textContent = F.int(nz);
      zeroed.label.textContent = t('zeroedLabel');

      var max = Math.max(ui.heatmap.absMax(fx.hidden), res.gated ? ui.heatmap.absMax(fx.activated) : 0);
      var common = { rows: L, cols: f, kind: 'diverging', max: max, rowLabels: tk, colLabels: 'index',
        focusRow: -1, maxCell: 24 };
      function spec(name, data, extra) {
        return Object.assign({}, common, extra, { data: data,
          describe: function (r, c) {
            var s = name + '[' + tk[r] + ', ' + c + '] = ' + F.f32(data[r * f + c]);
            return marks[r * f + c] ? s + '  (' + t('wasValue', { v: F.f32(fx.hidden[r * f + c]) }) + ')' : s;
          } });
      }
      function table(name, data) {
        return { caption: name, rows: L, cols: f, rowLabels: tk, corner: t('tokenCol'),
          cell: function (r, c) { return F.short(data[r * f + c]) + (marks[r * f + c] ? ' \u00d7' : ''); } };
      }
      var nameB = res.gated ? t('gateName') : t('hiddenName'), nameA = t('activatedName');
      pBefore.draw(spec('hidden', fx.hidden, { title: t('beforeTitle', { name: nameB }), shape: L + ' \u00d7 ' + f,
        label: t('heatLabel', { name: nameB, r: L, c: f }) }), table(nameB, fx.hidden), ctx);
      pAfter.draw(spec('activated', fx.activated, { title: t('afterTitle', { act: t('act_' + res.act) }),
        shape: L + ' \u00d7 ' + f, marks: marks, legendNote: nz ? t('markNote') : '',
        label: t('heatLabel', { name: nameA, r: L, c: f }) }), table(nameA, fx.activated), ctx);
      curveTitle.textContent = t(res.gated ? 'curveTitleGated' : 'curveTitle', { act: t('act_' + res.act) });
      if (ctx.defer) ctx.defer(function () { drawCurve(curve, res, ctx); }); else drawCurve(curve, res, ctx);
      curveNote.textContent = t(res.gated ? 'curveNoteGated' : 'curveNote');
    }
    return { update: update };
  }

  ui.views = ui.views || {};
  ui.views.activation = { mount: mount };
})(window.BlockLensUI = window.BlockLensUI || {});
