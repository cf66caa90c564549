/* blocks.js - a figure's blocks (figures/*.js) as page elements: heatmap panels with hover,
   keyboard and data tables, shape chains, stat chips, plots, bars and tables. core/sheet.js
   draws the same blocks for the SVG/PNG export. Text goes in as text only. */
import * as format from '../core/format.js';
import { CURVE_MAX_H, curve, curveLayout, links, linksLayout } from '../core/plots.js';
import { nextchars } from './block-next.js';
import { lines, tokenbars } from './chart-blocks.js';
import { counts } from './counts.js';
import { el, setData } from './el.js';
import { groups } from './groups.js';
import * as flow from './flow.js';
import { draw as drawHeatmap, sizeCanvas } from './heatmap-canvas.js';
import { fitted } from './holder.js';
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

// Each maker returns { root, update(block, ctx, res) }; a slot keeps its elements across
// updates, so focus, open tables and canvases survive a redraw.
const MAKERS = {
  nextchars,
  lines, tokenbars,
  groups,
  counts,
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
      grid.className = b.layout === 'heads' ? 'heads' : b.layout === 'stages' ? 'stages' : b.layout === 'one' ? 'one' : 'pair';
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
  // Many heads: "Head (1-n) [<] [n] [>]", then a page of small multiples, each a button that
  // picks its head. The buttons' arrows are CSS, so the text is the same as in the export.
  multiples() {
    const box = el('div', 'head-picker'), bar = el('div', 'head-pick-bar'), label = el('label', 'head-pick-label');
    const text = el('span'), input = el('input', 'head-pick-input'), range = el('span', 'head-pick-range');
    const prev = el('button', 'mini head-step head-prev'), next = el('button', 'mini head-step head-next');
    const grid = el('div', 'head-thumbs');
    input.type = 'number'; input.min = '1'; input.step = '1'; input.name = 'head'; input.inputMode = 'numeric';
    prev.type = next.type = 'button';
    label.appendChild(text); label.appendChild(input);
    bar.appendChild(prev); bar.appendChild(label); bar.appendChild(next); bar.appendChild(range);
    box.appendChild(bar); box.appendChild(grid);
    let cur = null;
    const go = (h) => { if (cur && h >= 0 && h < cur.count && h !== cur.value) cur.pick(h); };
    prev.addEventListener('click', () => go(cur.value - 1));
    next.addEventListener('click', () => go(cur.value + 1));
    input.addEventListener('change', () => {
      const v = Number(input.value);
      if (Number.isInteger(v)) go(Math.min(cur.count, Math.max(1, v)) - 1);
      else input.value = String(cur.value + 1);
    });
    return { root: box, update: (b, ctx) => {
      cur = b;
      text.textContent = b.label;
      range.textContent = b.range;
      input.max = String(b.count);
      if (document.activeElement !== input) input.value = String(b.value + 1);
      prev.setAttribute('aria-label', b.prev); prev.title = b.prev; prev.disabled = b.value <= 0;
      next.setAttribute('aria-label', b.next); next.title = b.next; next.disabled = b.value >= b.count - 1;
      const had = grid.contains(document.activeElement) ? document.activeElement.dataset.head : null;
      grid.textContent = '';
      for (const p of b.panels) {
        const btn = el('button', 'head-thumb'), canvas = el('canvas', 'hm');
        btn.type = 'button';
        btn.dataset.head = p.head;
        btn.title = p.hint;
        btn.setAttribute('aria-pressed', String(p.head === b.value));
        btn.appendChild(el('span', 'head-thumb-title', p.title));
        btn.appendChild(canvas);
        btn.addEventListener('click', () => go(p.head));
        grid.appendChild(btn);
        drawHeatmap(canvas, p.spec, ctx.scheme, ctx.defer);
        canvas.removeAttribute('role');
        if (had === String(p.head)) btn.focus();
      }
    } };
  },
  curve() {
    const box = el('figure', 'panel curve'), cap = el('figcaption', 'panel-head'), title = el('span', 'panel-title');
    cap.appendChild(title); box.appendChild(cap);
    const wrap = el('div', 'curve-wrap'), canvas = el('canvas', 'curve-canvas'), note = el('p', 'fig-note');
    canvas.setAttribute('role', 'img');
    wrap.appendChild(canvas); box.appendChild(wrap); box.appendChild(note);
    const paint = fitted(wrap);
    return { root: box, update: (b, ctx, res) => {
      title.textContent = b.title;
      note.textContent = b.note;
      paint((w) => {
        const p = curveLayout(canvas.getContext('2d'), res, Math.min(420, w || 320), CURVE_MAX_H);
        const n = curve(sizeCanvas(canvas, p.w, p.h), res, ctx.scheme, ctx.t, p);
        canvas.setAttribute('aria-label', b.label(n));
        // Test hooks: px per unit on each axis and where (0, 0) is, in CSS pixels.
        Object.assign(canvas.dataset, { kx: p.kx, ky: p.ky, x0: p.x(0), y0: p.y(0) });
      }, ctx);
    } };
  },
  // Captions over the half of the drawing each describes (the head is as wide as the canvas).
  links() {
    const box = el('figure', 'panel inset'), head = el('figcaption', 'panel-head inset-head');
    const a = el('span', 'inset-a'), f = el('span', 'inset-f');
    head.appendChild(a); head.appendChild(f); box.appendChild(head);
    const canvas = el('canvas', 'inset-canvas'), note = el('p', 'fig-note'), table = tables.create();
    canvas.setAttribute('role', 'img');
    box.appendChild(canvas); box.appendChild(note); box.appendChild(table.root);
    let paint = null;
    return { root: box, update: (b, ctx, res) => {
      // (Its width is the parent's, known once the box is placed.)
      if (!paint) paint = fitted(box.parentNode);
      a.textContent = b.attnCaption; f.textContent = b.ffnCaption;
      paint((w) => {
        const p = linksLayout(canvas.getContext('2d'), res, (w && w - 17) || 360);   // less the inset's border and padding
        links(sizeCanvas(canvas, p.w, p.h), res, ctx.scheme, p);
        head.style.width = p.w + 'px';
        note.style.maxWidth = Math.max(p.w, 320) + 'px';
        canvas.setAttribute('aria-label', b.label);
      });
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

