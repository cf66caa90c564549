/* counts.js - the `counts` block on the page (draw/counts.js paints it): a bar per item on a
   canvas with a text alternative, the note beside it, and the numbers as a data table. */
import { counts as paintCounts, countsLayout } from '../../draw/counts.js';
import { el } from '../el.js';
import { sizeCanvas } from '../heatmap-canvas.js';
import { fitted } from '../holder.js';
import * as tables from '../table.js';

export function counts() {
  const box = el('figure', 'panel counts'), cap = el('figcaption', 'panel-head'), title = el('span', 'panel-title');
  cap.appendChild(title); box.appendChild(cap);
  const wrap = el('div', 'counts-wrap'), canvas = el('canvas', 'counts-canvas'), note = el('p', 'fig-note');
  canvas.setAttribute('role', 'img');
  wrap.appendChild(canvas); wrap.appendChild(note); box.appendChild(wrap);
  const table = tables.create();
  box.appendChild(table.root);
  const paint = fitted(wrap);
  return { root: box, update(b, ctx) {
    title.textContent = b.title;
    note.textContent = b.note;
    canvas.setAttribute('aria-label', b.label);
    box.dataset.counts = b.items.map((it) => it.n).join(',');
    paint((w) => {
      const p = countsLayout(b, Math.min(560, w || 320));
      paintCounts(sizeCanvas(canvas, p.w, p.h), b, ctx.scheme, p);
    }, ctx);
    table.update(b.table, ctx.t);
  } };
}
