/* panel.js - one heatmap figure: title, shape line, canvas (with hover/keyboard), colour legend
   and the data-table alternative. Views compose panels; a panel only draws into its root. */
(function (ui) {
  'use strict';
  var el = ui.table.el;

  function legend(root, sc, kind, max, note) {
    root.textContent = '';
    var lo = kind === 'diverging' ? ui.format.short(-max) : '0';
    root.appendChild(el('span', 'lg-num', lo));
    var bar = el('span', 'lg-bar');
    bar.style.background = ui.colors.gradient(sc, kind);
    root.appendChild(bar);
    root.appendChild(el('span', 'lg-num', ui.format.short(max)));
    if (!note) return;
    var n = el('span', 'lg-note');
    if (note.charAt(0) === '\u25cf') {   // the "changed row" dot, in the colour it is drawn in
      n.appendChild(el('span', 'lg-dot', '\u25cf'));
      note = note.slice(1);
    }
    n.appendChild(document.createTextNode(note));
    root.appendChild(n);
  }

  // opts: { cls } ; returns an object whose draw() takes the heatmap spec and table spec.
  function create(parent, opts) {
    opts = opts || {};
    var root = el('figure', 'panel' + (opts.cls ? ' ' + opts.cls : ''));
    var head = el('figcaption', 'panel-head');
    var title = el('span', 'panel-title');
    var shape = el('span', 'panel-shape');
    head.appendChild(title); head.appendChild(shape);
    root.appendChild(head);
    var wrap = el('div', 'hm-wrap');
    var canvas = el('canvas', 'hm');
    wrap.appendChild(canvas);
    root.appendChild(wrap);
    var lg = el('div', 'legend');
    root.appendChild(lg);
    var table = ui.table.create();
    root.appendChild(table.root);
    parent.appendChild(root);
    ui.interact.attach(canvas);

    // spec: heatmap spec (see heatmap.js) plus title, shape, legendNote; tableSpec for table.js.
    // The canvas is painted now, or as a later job when the page draws in slices (ctx.defer).
    var last = null, drawnWidth = 0, queued = false;
    function paint() {
      queued = false;
      var spec = last.spec, ctx = last.ctx;
      drawnWidth = wrap.clientWidth || root.clientWidth || 300;
      spec.width = drawnWidth;
      ui.heatmap.draw(canvas, spec, ctx.scheme, ctx.defer);
      ui.interact.refresh(canvas);
    }
    function later(ctx) {
      if (!ctx.defer) return paint();
      queued = true;
      ctx.defer(paint);
    }
    function draw(spec, tableSpec, ctx) {
      last = { spec: spec, ctx: ctx };
      title.textContent = spec.title || '';
      shape.textContent = spec.shape || '';
      later(ctx);
      lg.hidden = spec.noLegend === true;
      if (!lg.hidden) legend(lg, ctx.scheme, spec.kind, spec.max, spec.legendNote);
      if (tableSpec) table.update(tableSpec, ctx.t);
    }
    // The wrapper's width comes from the page layout, never from the canvas, so redrawing at
    // the new width cannot loop; this catches scrollbars appearing, resizes and reflows. A paint
    // still queued reads the width when it runs.
    if (typeof ResizeObserver === 'function') {
      new ResizeObserver(function () {
        if (last && !queued && Math.abs(wrap.clientWidth - drawnWidth) >= 1) later(last.ctx);
      }).observe(wrap);
    }
    return { root: root, canvas: canvas, wrap: wrap, draw: draw };
  }

  ui.panel = { create: create, legend: legend };
})(window.BlockLensUI = window.BlockLensUI || {});
