/* views/paramsplit.js - figure 6, where the parameters are: attention vs FFN for one block at the
   current sizes, then whole real models (embeddings, attention, FFN, norms, the rest) with exact
   totals from the engine next to the rounded figure their paper or model card prints. */
(function (ui) {
  'use strict';
  var el = ui.table.el, F = ui.format;
  var PARTS = ['embeddings', 'attention', 'ffn', 'norms', 'other'];

  function segBar(parts, total, sc, t, withText) {
    var bar = el('div', 'pbar');
    parts.forEach(function (p) {
      if (!p.n) return;
      var s = el('span', 'pbar-seg');
      s.style.width = (100 * p.n / total) + '%';
      s.style.background = sc.css[p.key];
      s.title = t('part_' + p.key) + ': ' + F.int(p.n) + ' (' + F.pct(p.n / total) + ')';
      if (withText) s.appendChild(el('span', 'pbar-text', t('part_' + p.key) + ' ' + F.pct(p.n / total)));
      bar.appendChild(s);
    });
    return bar;
  }

  function mount(root, ctx) {
    var current = el('div', 'split-current');
    root.appendChild(current);
    var legend = el('div', 'swatches');
    root.appendChild(legend);
    var tableBox = el('div', 'table-scroll');
    root.appendChild(tableBox);
    var note = el('p', 'fig-note');
    root.appendChild(note);

    function update(res, ctx) {
      var t = ctx.t, sc = ctx.scheme, d = res.d, f = res.dff, A = res.split.attention, Fn = res.split.ffn;
      current.textContent = '';
      current.appendChild(el('p', 'split-title', t('splitTitle', { d: d, f: f, h: res.heads })));
      current.appendChild(segBar([{ key: 'attention', n: A }, { key: 'ffn', n: Fn }], A + Fn, sc, t, true));
      var fA = '4\u00b7d\u00b2 + 4\u00b7d = 4\u00b7' + d + '\u00b2 + 4\u00b7' + d + ' = ' + F.int(A);
      var fF = res.gated
        ? '3\u00b7d\u00b7d_ff + 2\u00b7d_ff + d = 3\u00b7' + d + '\u00b7' + f + ' + 2\u00b7' + f + ' + ' + d + ' = ' + F.int(Fn)
        : '2\u00b7d\u00b7d_ff + d_ff + d = 2\u00b7' + d + '\u00b7' + f + ' + ' + f + ' + ' + d + ' = ' + F.int(Fn);
      var dl = el('dl', 'formulas');
      [['part_attention', fA], ['part_ffn', fF]].forEach(function (row) {
        dl.appendChild(el('dt', null, t(row[0])));
        dl.appendChild(el('dd', null, row[1]));
      });
      current.appendChild(dl);
      current.appendChild(el('p', 'fig-note', t('splitRatio', { r: (Fn / A).toFixed(2), share: F.pct(Fn / (A + Fn)) })));
      root.dataset.attention = A;
      root.dataset.ffn = Fn;

      legend.textContent = '';
      PARTS.forEach(function (k) {
        var s = el('span', 'swatch');
        var dot = el('i');
        dot.style.background = sc.css[k];
        s.appendChild(dot);
        s.appendChild(document.createTextNode(t('part_' + k)));
        legend.appendChild(s);
      });

      var table = el('table', 'data presets');
      table.appendChild(el('caption', null, t('presetsCaption')));
      var hr = el('tr');
      ['colModel', 'colSplit', 'colTotal', 'colPrinted', 'colFfnShare', 'colFfnLayer'].forEach(function (k) {
        var th = el('th', null, t(k)); th.scope = 'col'; hr.appendChild(th);
      });
      var thead = el('thead'); thead.appendChild(hr); table.appendChild(thead);
      var body = el('tbody');
      res.presets.forEach(function (p) {
        var c = p.count, tr = el('tr');
        tr.dataset.preset = p.name;
        var th = el('th', null, t('preset_' + p.name)); th.scope = 'row'; tr.appendChild(th);
        var cell = el('td', 'bar-cell');
        cell.appendChild(segBar(PARTS.map(function (k) { return { key: k, n: c[k] }; }), c.total, sc, t, false));
        tr.appendChild(cell);
        var tot = el('td', 'num', F.int(c.total));
        if (c.active && c.active !== c.total) tot.appendChild(el('span', 'sub', t('activeNote', { n: F.big(c.active) })));
        tr.appendChild(tot);
        tr.appendChild(el('td', 'num', c.printedTotal ? F.big(c.printedTotal) : '\u2014'));
        tr.appendChild(el('td', 'num', F.pct(c.ffn / c.total)));
        tr.appendChild(el('td', 'num', F.pct(c.ffn / (c.ffn + c.attention))));
        body.appendChild(tr);
      });
      table.appendChild(body);
      tableBox.textContent = '';
      tableBox.appendChild(table);
      note.textContent = t('presetsNote');
    }
    return { update: update };
  }

  ui.views = ui.views || {};
  ui.views.paramsplit = { mount: mount };
})(window.BlockLensUI = window.BlockLensUI || {});
