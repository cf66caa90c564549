/* views/positionwise.js - figure 5, the position-wise experiment: set one token's vector to a
   large value and draw |change| of the FFN output (only that row moves) next to |change| of the
   attention output (every row that can see that token moves). */
(function (ui) {
  'use strict';
  var el = ui.table.el, F = ui.format;

  function mount(root, ctx) {
    var bar = el('div', 'fig-bar');
    root.appendChild(bar);
    var updateBar = ui.widgets.tokenBar(bar, 'pertAria');
    var valLabel = el('label', 'inline-field');
    var valText = el('span');
    var val = el('input');
    val.type = 'text';
    val.inputMode = 'decimal';
    val.size = 8;
    val.name = 'pval';
    valLabel.appendChild(valText); valLabel.appendChild(val);
    bar.appendChild(valLabel);
    val.addEventListener('change', function () { ctx.setRaw('pval', val.value, val); });
    var summary = el('p', 'fig-note result');
    root.appendChild(summary);
    var grid = el('div', 'pair');
    root.appendChild(grid);
    var pF = ui.panel.create(grid, { cls: 'diff-ffn' }), pA = ui.panel.create(grid, { cls: 'diff-attn' });
    var onPick = { current: function () {} };

    function names(rows, tk) { return rows.map(function (r) { return tk[r]; }).join(' '); }

    function update(res, ctx) {
      var t = ctx.t, P = res.pert, L = res.L, d = res.d, tk = res.tokens, p = P.index;
      onPick.current = function (i) { ctx.set({ pert: i }); };
      updateBar(tk, p, onPick, t);
      valText.textContent = t('pvalLabel');
      if (document.activeElement !== val) val.value = String(P.value);
      root.dataset.perturbed = p;
      root.dataset.ffnRows = P.ffn.rows.join(',');
      root.dataset.attnRows = P.attn.rows.join(',');
      summary.textContent = t('pertSummary', { tok: tk[p], v: F.short(P.value),
        nf: P.ffn.rows.length, na: P.attn.rows.length, L: L, rows: names(P.attn.rows, tk) });
      function spec(name, D, title) {
        return { title: title, shape: L + ' \u00d7 ' + d, data: D.abs, rows: L, cols: d, kind: 'sequential',
          max: ui.heatmap.absMax(D.abs), rowLabels: tk, colLabels: 'index', focusRow: -1, maxCell: 26,
          rowFlags: tk.map(function (_, r) { return D.rows.indexOf(r) >= 0; }), legendNote: t('changedDot'),
          label: t('diffLabel', { name: name, n: D.rows.length, L: L }),
          describe: function (r, c) { return '|\u0394 ' + name + '[' + tk[r] + ', ' + c + ']| = ' + F.f32(D.abs[r * d + c]); } };
      }
      function table(caption, D) {
        return { caption: caption, rows: L, cols: d, rowLabels: tk, corner: t('tokenCol'),
          cell: function (r, c) { return F.short(D.abs[r * d + c]); } };
      }
      var tf = t('diffFfnTitle'), ta = t('diffAttnTitle');
      pF.draw(spec('FFN', P.ffn, tf), table(tf, P.ffn), ctx);
      pA.draw(spec('attention', P.attn, ta), table(ta, P.attn), ctx);
    }
    return { update: update };
  }

  ui.views = ui.views || {};
  ui.views.positionwise = { mount: mount };
})(window.BlockLensUI = window.BlockLensUI || {});
