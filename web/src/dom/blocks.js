/* blocks.js - a figure's blocks (figures/*.js) as page elements: heatmap panels with hover,
   keyboard and data tables, shape chains, stat chips, plots, bars and tables. core/sheet.js
   draws the same blocks for the SVG/PNG export. Text goes in as text only. */
import * as format from '../core/format.js';
import { curve, links, linksSize } from '../core/plots.js';
import { el } from './el.js';
import * as flow from './flow.js';
import { sizeCanvas } from './heatmap-canvas.js';
import * as panel from './panel.js';
import { scrollCue } from './scrollcue.js';
import * as tables from './table.js';

// A bar of coloured parts as spans, sized in percent.
function segBar(parts, sc, t, withText) {
  const bar = el('div', 'pbar'), total = parts.reduce((a, p) => a + p.n, 0);
  for (const p of parts) {
    if (!p.n) continue;
    const s = el('span', 'pbar-seg');
    s.style.width = (100 * p.n / total) + '%';
    s.style.background = sc.css[p.key];
    s.title = t('part_' + p.key) + ': ' + format.int(p.n) + ' (' + format.pct(p.n / total) + ')';
    if (withText) s.appendChild(el('span', 'pbar-text', t('part_' + p.key) + ' ' + format.pct(p.n / total)));
    bar.appendChild(s);
  }
  return bar;
}

export function setData(node, data) {
  Object.keys(data || {}).forEach((k) => { node.dataset[k] = data[k]; });
}

// Each maker returns { root, update(block, ctx, res) }; a slot keeps its elements across
// updates, so focus, open tables and canvases survive a redraw.
const MAKERS = {
  headline() {
    const p = el('p', 'fig-note result');
    return { root: p, update: (b) => { p.textContent = b.text; } };
  },
  note() {
    const p = el('p', 'fig-note');
    return { root: p, update: (b) => { p.textContent = b.text; } };
  },
  stats() {
    const box = el('div', 'stats');
    return { root: box, update: (b) => {
      box.textContent = '';
      for (const it of b.items) {
        const c = el('div', 'stat ' + it.cls);
        c.appendChild(el('span', 'stat-num', it.num));
        c.appendChild(el('span', 'stat-label', it.label));
        box.appendChild(c);
      }
    } };
  },
  legend() {
    const box = el('div', 'legend');
    return { root: box, update: (b, ctx) => panel.legend(box, ctx.scheme, b.kind, b.max, b.note) };
  },
  flow() {
    const box = el('div');
    return { root: box, update: (b, ctx) => flow.render(box, b.items, ctx) };
  },
  panels() {
    const box = el('div'), grid = el('div'), lg = el('div', 'legend'), note = el('div', 'legend');
    box.appendChild(grid); box.appendChild(lg); box.appendChild(note);
    const panels = [];
    return { root: box, update: (b, ctx) => {
      grid.className = b.layout === 'heads' ? 'heads' : b.layout === 'stages' ? 'stages' : 'pair';
      const cls = b.layout === 'heads' ? 'head' : b.layout === 'stages' ? 'stage' : '';
      while (panels.length < b.panels.length) panels.push(panel.create(grid, { cls }));
      while (panels.length > b.panels.length) grid.removeChild(panels.pop().root);
      b.panels.forEach((p, i) => {
        const pn = panels[i];
        pn.root.className = 'panel' + (cls ? ' ' + cls : '') + (p.cls ? ' ' + p.cls : '');
        if (p.flex) pn.root.style.flex = p.flex + ' 1 0';
        setData(pn.root, p.data);
        const spec = Object.assign({}, p.spec, { noLegend: !p.legend });
        if (p.legend) Object.assign(spec, { kind: p.legend.kind, max: p.legend.max, legendNote: p.legend.note });
        pn.draw(spec, p.table, ctx);
      });
      lg.hidden = !b.legend;
      if (b.legend) panel.legend(lg, ctx.scheme, b.legend.kind, b.legend.max, b.legend.note);
      note.hidden = !b.note;
      if (b.note) panel.legendNote(note, b.note);
    } };
  },
  curve() {
    const box = el('figure', 'panel curve'), cap = el('figcaption', 'panel-head'), title = el('span', 'panel-title');
    cap.appendChild(title); box.appendChild(cap);
    const wrap = el('div', 'curve-wrap'), canvas = el('canvas', 'curve-canvas'), note = el('p', 'fig-note');
    canvas.setAttribute('role', 'img');
    wrap.appendChild(canvas); box.appendChild(wrap); box.appendChild(note);
    return { root: box, update: (b, ctx, res) => {
      title.textContent = b.title;
      note.textContent = b.note;
      const paint = () => {
        const W = Math.min(420, wrap.clientWidth || 320), H = 230;
        const n = curve(sizeCanvas(canvas, W, H), res, ctx.scheme, ctx.t, W, H);
        canvas.setAttribute('aria-label', b.label(n));
      };
      if (ctx.defer) ctx.defer(paint); else paint();
    } };
  },
  links() {
    const box = el('figure', 'panel inset'), head = el('figcaption', 'panel-head');
    const a = el('span', 'inset-a'), f = el('span', 'inset-f');
    head.appendChild(a); head.appendChild(f); box.appendChild(head);
    const canvas = el('canvas', 'inset-canvas'), note = el('p', 'fig-note'), table = tables.create();
    canvas.setAttribute('role', 'img');
    box.appendChild(canvas); box.appendChild(note); box.appendChild(table.root);
    return { root: box, update: (b, ctx, res) => {
      a.textContent = b.attnCaption; f.textContent = b.ffnCaption;
      const width = Math.min(360, (box.parentNode && box.parentNode.clientWidth) || 360), size = linksSize(res.L, width);
      links(sizeCanvas(canvas, size.w, size.h), res, ctx.scheme, width);
      canvas.setAttribute('aria-label', b.label);
      note.textContent = b.note;
      table.update(b.table, ctx.t);
    } };
  },
  bar() {
    const box = el('div', 'split-bar');
    return { root: box, update: (b, ctx) => { box.textContent = ''; box.appendChild(segBar(b.parts, ctx.scheme, ctx.t, true)); } };
  },
  formulas() {
    const dl = el('dl', 'formulas');
    return { root: dl, update: (b) => {
      dl.textContent = '';
      for (const row of b.rows) { dl.appendChild(el('dt', null, row[0])); dl.appendChild(el('dd', null, row[1])); }
    } };
  },
  swatches() {
    const box = el('div', 'swatches');
    return { root: box, update: (b, ctx) => {
      box.textContent = '';
      for (const s of b.items) {
        const sw = el('span', 'swatch'), dot = el('i');
        dot.style.background = ctx.scheme.css[s.key];
        sw.appendChild(dot);
        sw.appendChild(document.createTextNode(s.label));
        box.appendChild(sw);
      }
    } };
  },
  table() {
    const box = el('div', 'table-scroll'), cue = scrollCue(box);
    return { root: cue.root, update: (b, ctx) => {
      const table = el('table', 'data presets'), hr = el('tr'), thead = el('thead'), body = el('tbody');
      table.appendChild(el('caption', null, b.caption));
      for (const c of b.columns) { const th = el('th', null, c.label); th.scope = 'col'; hr.appendChild(th); }
      thead.appendChild(hr); table.appendChild(thead);
      for (const row of b.rows) {
        const tr = el('tr');
        tr.dataset.preset = row.key;
        b.columns.forEach((c, i) => {
          let cell;
          if (i === 0) { cell = el('th', null, row.cells[i]); cell.scope = 'row'; }
          else if (c.bar) { cell = el('td', 'bar-cell'); cell.appendChild(segBar(row.cells[i], ctx.scheme, ctx.t, false)); }
          else cell = el('td', c.num ? 'num' : null, row.cells[i]);
          if (row.sub && row.sub[i]) cell.appendChild(el('span', 'sub', row.sub[i]));
          tr.appendChild(cell);
        });
        body.appendChild(tr);
      }
      table.appendChild(body);
      box.textContent = '';
      box.appendChild(table);
      cue.update(ctx.t, b.caption);
    } };
  }
};

// Slots for a list of blocks in `root`: rebuilt when the block types change, updated otherwise.
export function blockList(root) {
  let slots = [], shape = '';
  return function update(blocks, ctx, res) {
    const key = blocks.map((b) => b.type).join(' ');
    if (key !== shape) {
      slots.forEach((s) => s.root.remove());
      slots = blocks.map((b) => {
        if (!Object.prototype.hasOwnProperty.call(MAKERS, b.type)) throw new Error('BlockLens: unknown block "' + b.type + '"');
        const s = MAKERS[b.type]();
        s.root.classList.add('blk-' + b.type);
        root.appendChild(s.root);
        return s;
      });
      shape = key;
    }
    blocks.forEach((b, i) => slots[i].update(b, ctx, res));
  };
}

