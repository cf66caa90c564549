/* views/rows.js - figure 3, per-token rows: one token's row stays coloured through x, hidden,
   activated and out while the others are greyed (the FFN treats each row alone); an inset beside
   it draws the links attention makes between rows and the single self-link of the FFN. */
(function (ui) {
  'use strict';
  var el = ui.table.el, F = ui.format;

  // The links are drawn by plots.js (shared with the SVG/PNG export).
  function drawInset(canvas, res, ctx, width) {
    var size = ui.plots.linksSize(res.L, width);
    return ui.plots.links(ui.plots.sizeCanvas(canvas, size.w, size.h), res, ctx.scheme, width);
  }

  function mount(root, ctx) {
    var onPick = { current: function () {} };
    var updateBar = ui.widgets.tokenBar(root, 'tokensAria');
    var layout = el('div', 'rows-layout');
    root.appendChild(layout);
    var stages = el('div', 'stages');
    layout.appendChild(stages);
    var panels = [0, 1, 2, 3].map(function () { return ui.panel.create(stages, { cls: 'stage' }); });
    var inset = el('figure', 'panel inset');
    var insetHead = el('figcaption', 'panel-head');
    var insetA = el('span', 'inset-a'), insetF = el('span', 'inset-f');
    insetHead.appendChild(insetA); insetHead.appendChild(insetF);
    inset.appendChild(insetHead);
    var insetCanvas = el('canvas', 'inset-canvas');
    insetCanvas.setAttribute('role', 'img');
    inset.appendChild(insetCanvas);
    var insetNote = el('p', 'fig-note');
    inset.appendChild(insetNote);
    var insetTable = ui.table.create();
    inset.appendChild(insetTable.root);
    layout.appendChild(inset);

    function update(res, ctx) {
      var t = ctx.t, L = res.L, tk = res.tokens, sel = res.sel;
      onPick.current = function (i) { ctx.set({ sel: i }); };
      updateBar(tk, sel, onPick, t);
      root.dataset.selected = sel;
      var fx = res.ffn;
      var stagesSpec = [
        { name: 'x', data: res.x, cols: res.d },
        { name: res.gated ? t('gateName') : t('hiddenName'), data: fx.hidden, cols: res.dff },
        { name: t('activatedName'), data: fx.activated, cols: res.dff },
        { name: t('outName'), data: fx.out, cols: res.d }
      ];
      stagesSpec.forEach(function (st, k) {
        panels[k].root.style.flex = Math.max(8, Math.min(st.cols, 64)) + ' 1 0';
        panels[k].root.dataset.stage = k;
        panels[k].draw({ title: st.name, shape: L + ' \u00d7 ' + st.cols, data: st.data, rows: L, cols: st.cols,
          kind: 'diverging', max: ui.heatmap.absMax(st.data), rowLabels: tk, colLabels: 'index', focusRow: sel,
          maxCell: 18, label: t('rowsLabel', { name: st.name, tok: tk[sel] }),
          onPick: function (r) { ctx.set({ sel: r }); },
          describe: function (r, c) { return st.name + '[' + tk[r] + ', ' + c + '] = ' + F.f32(st.data[r * st.cols + c]); }
        }, { caption: st.name, rows: L, cols: st.cols, rowLabels: tk, corner: t('tokenCol'),
          cell: function (r, c) { return F.short(st.data[r * st.cols + c]); } }, ctx);
      });
      insetA.textContent = t('insetAttn');
      insetF.textContent = t('insetFfn');
      var mean = drawInset(insetCanvas, res, ctx, inset.clientWidth - 16);
      insetCanvas.setAttribute('aria-label', t('insetLabel', { tok: tk[sel] }));
      insetNote.textContent = t(res.causal ? 'insetNoteCausal' : 'insetNote', { tok: tk[sel] });
      insetTable.update({ caption: t('insetTable', { tok: tk[sel] }), rows: L, cols: 1, rowLabels: tk,
        colLabels: [t('meanWeight')], corner: t('keyCol'), cell: function (r) { return F.short(mean[r]); } }, t);
    }
    return { update: update };
  }

  ui.views = ui.views || {};
  ui.views.rows = { mount: mount };
})(window.BlockLensUI = window.BlockLensUI || {});
