/* views/attention.js - figure 4, attention: the split into heads, concat and W_O as shapes, and
   one L x L heatmap per head (softmax weights, or the scores before/after the 1/sqrt(d_k)
   scaling), masked cells drawn as empty, hover for exact values. */
(function (ui) {
  'use strict';
  var el = ui.table.el, F = ui.format;
  var MODES = ['weights', 'scaled', 'raw'];

  function segmented(root, ctx) {
    var seg = el('div', 'seg');
    seg.setAttribute('role', 'group');
    root.appendChild(seg);
    var btns = MODES.map(function (m) {
      var b = el('button', 'seg-btn');
      b.type = 'button';
      b.dataset.mode = m;
      b.addEventListener('click', function () { seg.onPick(m); });
      seg.appendChild(b);
      return b;
    });
    return function (mode, t, onPick) {
      seg.onPick = onPick;
      seg.setAttribute('aria-label', t('modeAria'));
      btns.forEach(function (b) {
        b.textContent = t('mode_' + b.dataset.mode);
        b.setAttribute('aria-pressed', String(b.dataset.mode === mode));
      });
    };
  }

  function mount(root, ctx) {
    var flow = el('div');
    root.appendChild(flow);
    var bar = el('div', 'fig-bar');
    root.appendChild(bar);
    var updateSeg = segmented(bar, ctx);
    var stats = el('p', 'fig-note');
    bar.appendChild(stats);
    var grid = el('div', 'heads');
    root.appendChild(grid);
    var panels = [];

    function update(res, ctx) {
      var t = ctx.t, L = res.L, H = res.heads, dk = res.dk, d = res.d, A = res.attn, tk = res.tokens;
      var mode = ctx.state.show, s = 1 / Math.sqrt(dk);   // the 'scaled' view always divides
      updateSeg(mode, t, function (m) { ctx.set({ show: m }); });
      root.dataset.mode = mode;
      root.dataset.causal = String(res.causal);

      ui.flow.render(flow, [
        { name: 'x', shape: L + ' \u00d7 ' + d },
        { op: '\u00b7 W_Q, W_K, W_V', sub: t('qkvSub', { shape: d + ' \u00d7 ' + d }) },
        { name: 'Q, K, V', shape: t('threeOf', { shape: L + ' \u00d7 ' + d }) },
        { op: t('splitOp', { h: H }), sub: 'd_k = ' + d + ' / ' + H + ' = ' + dk },
        { name: t('perHead'), shape: H + ' \u00d7 ' + L + ' \u00d7 ' + dk },
        { op: res.scale ? 'softmax(QK\u1d40/\u221a' + dk + ')' : 'softmax(QK\u1d40)', sub: t(res.causal ? 'maskCausal' : 'maskNone') },
        { name: t('weightsName'), shape: H + ' \u00d7 ' + L + ' \u00d7 ' + L, accent: true },
        { op: '\u00b7 V', sub: t('mixOp') },
        { name: t('contextName'), shape: H + ' \u00d7 ' + L + ' \u00d7 ' + dk },
        { op: t('concatOp'), sub: H + ' \u00d7 ' + dk + ' = ' + d },
        { name: 'concat', shape: L + ' \u00d7 ' + d },
        { op: '\u00b7 W_O + b_O', sub: t('woSub', { shape: d + ' \u00d7 ' + d }) },
        { name: t('outName'), shape: L + ' \u00d7 ' + d }
      ], ctx);

      var st = ui.model.attnStats(A, H, L), peak = st.peak;
      stats.textContent = t(res.scale ? 'attnStats' : 'attnStatsOff', { raw: F.short(st.sd), scaled: F.short(st.sd * s),
        peak: peak.toFixed(2), uniform: (1 / L).toFixed(2) });
      root.dataset.peak = peak.toFixed(4);

      var data = A.weights, kind = 'sequential', max;
      if (mode !== 'weights') {
        kind = 'diverging';
        data = mode === 'raw' ? A.scores : A.scores.map(function (v) { return v * s; });
      }
      max = kind === 'sequential' ? ui.heatmap.absMax(data) : ui.heatmap.absMax(data);
      var masked = res.causal ? function (r, c) { return c > r; } : null;
      while (panels.length < H) panels.push(ui.panel.create(grid, { cls: 'head' }));
      while (panels.length > H) grid.removeChild(panels.pop().root);
      var valueName = t('mode_' + mode);
      panels.forEach(function (p, h) {
        var off = h * L * L;
        p.root.dataset.head = h;
        p.draw({ title: t('headTitle', { h: h + 1 }), shape: valueName + ' \u00b7 ' + L + ' \u00d7 ' + L,
          data: data, offset: off, rows: L, cols: L, kind: kind, max: max, rowLabels: tk, colLabels: tk,
          focusRow: -1, maxCell: 34, masked: masked, legendNote: res.causal ? t('maskedNote') : '',
          label: t('headLabel', { h: h + 1, what: valueName, L: L }),
          describe: function (r, c) {
            var v = F.f32(data[off + r * L + c]);
            var txt = t('cellDescribe', { h: h + 1, q: tk[r], k: tk[c], what: valueName, v: v });
            return masked && masked(r, c) ? txt + '  ' + t('maskedCell') : txt;
          }
        }, { caption: t('headTitle', { h: h + 1 }) + ' \u00b7 ' + valueName, rows: L, cols: L, rowLabels: tk,
          colLabels: tk, corner: t('queryKey'),
          cell: function (r, c) { return masked && masked(r, c) ? '\u2014' : F.short(data[off + r * L + c]); } }, ctx);
      });
    }
    return { update: update };
  }

  ui.views = ui.views || {};
  ui.views.attention = { mount: mount };
})(window.BlockLensUI = window.BlockLensUI || {});
