/* charts.js - the `lines` and `tokenbars` blocks (draw/charts.js draws them) as page
   elements: a legend as text, canvases with a text alternative, a note and a data table.
   draw/svg/charts.js draws the same blocks for the SVG/PNG export. */
import { BARS_H, PLOT_H, barsLayout, drawBars, drawPlot, plotLayout } from '../../draw/charts.js';
import { el } from '../el.js';
import { sizeCanvas } from '../heatmap-canvas.js';
import { fitted } from '../holder.js';
import * as tables from '../table.js';

// "● label  ■ label": each series' marker in its colour, then its name.
function legend(box, items, sc) {
  box.textContent = '';
  for (const it of items) {
    const key = el('span', 'chart-key'), mark = el('i', 'chart-mark ' + (it.marker || 'square'));
    mark.style.background = sc.css[it.color];
    key.appendChild(mark);
    key.appendChild(document.createTextNode(it.label));
    box.appendChild(key);
  }
}

// A canvas repainted at its holder's width, now or as a later job (ctx.defer), and again when
// that width changes (scrollbars, resizes, a phone turned).
function canvasSlot(parent, cls) {
  const wrap = el('div', 'chart-wrap'), canvas = el('canvas', cls);
  canvas.setAttribute('role', 'img');
  wrap.appendChild(canvas);
  parent.appendChild(wrap);
  // set(fn, ctx): fn(width) paints at the holder's width.
  return { wrap, canvas, set: fitted(wrap) };
}

export function lines() {
  const box = el('figure', 'panel chart-lines'), keys = el('div', 'chart-legend'), grid = el('div', 'chart-plots');
  const note = el('p', 'fig-note'), table = tables.create();
  box.appendChild(keys); box.appendChild(grid); box.appendChild(note); box.appendChild(table.root);
  const slots = [];
  return { root: box, update: (b, ctx) => {
    legend(keys, b.legend, ctx.scheme);
    while (slots.length < b.plots.length) {
      const cell = el('div', 'chart-plot'), title = el('p', 'panel-title chart-title');
      cell.appendChild(title);
      grid.appendChild(cell);
      slots.push({ cell, title, c: canvasSlot(cell, 'chart-canvas') });
    }
    while (slots.length > b.plots.length) grid.removeChild(slots.pop().cell);
    b.plots.forEach((plot, i) => {
      const s = slots[i], canvas = s.c.canvas;
      s.title.textContent = plot.title;
      s.cell.dataset.plot = plot.key;
      canvas.setAttribute('aria-label', plot.label);
      s.c.set((w) => {
        const p = plotLayout(canvas.getContext('2d'), plot, Math.max(240, Math.min(520, w || 360)), PLOT_H);
        drawPlot(sizeCanvas(canvas, p.w, p.h), plot, b.legend, ctx.scheme, p);
      }, ctx);
    });
    note.textContent = b.note;
    table.update(b.table, ctx.t);
  } };
}

export function tokenbars() {
  const box = el('figure', 'panel chart-bars'), head = el('figcaption', 'panel-head');
  const title = el('span', 'panel-title');
  const keys = el('div', 'chart-legend'), note = el('p', 'fig-note'), table = tables.create();
  head.appendChild(title); box.appendChild(head); box.appendChild(keys);
  const c = canvasSlot(box, 'chart-canvas');
  box.appendChild(note); box.appendChild(table.root);
  return { root: box, update: (b, ctx) => {
    title.textContent = b.title;
    legend(keys, b.series, ctx.scheme);
    c.canvas.setAttribute('aria-label', b.label);
    c.set((w) => {
      const p = barsLayout(c.canvas.getContext('2d'), b, Math.max(240, Math.min(900, w || 600)), BARS_H);
      drawBars(sizeCanvas(c.canvas, p.w, p.h), b, ctx.scheme, p);
    }, ctx);
    note.textContent = b.note;
    table.update(b.table, ctx.t);
  } };
}
