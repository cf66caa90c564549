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

  // Scatter of (before, after) in a small canvas; ungated ones are joined into the curve itself.
  function drawCurve(canvas, res, ctx) {
    var sc = ctx.scheme, h = res.ffn.hidden, a = res.ffn.activated, n = h.length;
    var step = Math.max(1, Math.floor(n / 4000)), idx = [];
    for (var i = 0; i < n; i += step) idx.push(i);
    idx.sort(function (p, q) { return h[p] - h[q]; });
    var xmax = ui.heatmap.absMax(h), ymin = 0, ymax = 0;
    idx.forEach(function (i) { ymin = Math.min(ymin, a[i]); ymax = Math.max(ymax, a[i]); });
    if (ymax - ymin < 1e-9) ymax = ymin + 1;
    var W = Math.min(420, canvas.parentNode.clientWidth || 320), H = 230, dpr = Math.max(1, Math.min(3, window.devicePixelRatio || 1));
    canvas.width = Math.round(W * dpr); canvas.height = Math.round(H * dpr);
    canvas.style.width = W + 'px'; canvas.style.height = H + 'px';
    var g = canvas.getContext('2d');
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.fillStyle = sc.css.bg; g.fillRect(0, 0, W, H);
    g.font = ui.heatmap.FONT;
    var yTop = F.short(ymax), yBot = F.short(ymin);
    var L = Math.ceil(Math.max(g.measureText(yTop).width, g.measureText(yBot).width)) + 10, R = W - 12, T = 22, B = H - 30;
    var X = function (v) { return L + (v + xmax) / (2 * xmax) * (R - L); };
    var Y = function (v) { return B - (v - ymin) / (ymax - ymin) * (B - T); };
    g.strokeStyle = sc.css.maskInk; g.lineWidth = 1;
    g.beginPath(); g.moveTo(L, Y(0)); g.lineTo(R, Y(0)); g.moveTo(X(0), T); g.lineTo(X(0), B); g.stroke();
    g.fillStyle = sc.css.muted; g.textBaseline = 'top';
    g.textAlign = 'left'; g.fillText(F.short(-xmax), L, B + 6);
    g.textAlign = 'center'; g.fillText('0', X(0), B + 6);
    g.textAlign = 'right'; g.fillText(F.short(xmax), R, B + 6);
    g.textBaseline = 'middle'; g.fillText(yTop, L - 6, Y(ymax));
    if (ymin < 0) g.fillText(yBot, L - 6, Y(ymin));
    g.fillStyle = sc.css.fg; g.textBaseline = 'alphabetic';
    g.textAlign = 'left'; g.fillText(ctx.t('axisAfter'), X(0) + 6, T - 8);
    g.textAlign = 'right'; g.fillText(ctx.t('axisBefore'), R, Y(0) - 6);
    if (!res.gated) {
      g.strokeStyle = sc.css.fg; g.lineWidth = 1.5; g.beginPath();
      idx.forEach(function (i, k) { if (k) g.lineTo(X(h[i]), Y(a[i])); else g.moveTo(X(h[i]), Y(a[i])); });
      g.stroke();
    }
    var rgb = [0, 0, 0];
    idx.forEach(function (i) {
      var c = ui.colors.color(sc, 'diverging', h[i], xmax, rgb);
      g.fillStyle = 'rgb(' + c.join(',') + ')';
      g.beginPath(); g.arc(X(h[i]), Y(a[i]), 2.6, 0, 2 * Math.PI); g.fill();
    });
    canvas.setAttribute('aria-label', ctx.t('curveLabel', { n: idx.length }));
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
      drawCurve(curve, res, ctx);
      curveNote.textContent = t(res.gated ? 'curveNoteGated' : 'curveNote');
    }
    return { update: update };
  }

  ui.views = ui.views || {};
  ui.views.activation = { mount: mount };
})(window.BlockLensUI = window.BlockLensUI || {});
