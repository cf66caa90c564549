/* plots.js - the `curve` and `links` blocks on the page: the activation curve and the attention vs
   FFN links drawing on canvases that follow their holder's width (draw/plots.js paints both; the
   export draws them in draw/svg/plots.js). */
import { CURVE_MAX_H, curve as paintCurve, curveLayout, links as paintLinks, linksLayout } from '../../draw/plots.js';
import { el } from '../el.js';
import { sizeCanvas } from '../heatmap-canvas.js';
import { fitted } from '../holder.js';
import * as tables from '../table.js';

export function curve() {
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
      const n = paintCurve(sizeCanvas(canvas, p.w, p.h), res, ctx.scheme, ctx.t, p);
      canvas.setAttribute('aria-label', b.label(n));
      // Test hooks: px per unit on each axis and where (0, 0) is, in CSS pixels.
      Object.assign(canvas.dataset, { kx: p.kx, ky: p.ky, x0: p.x(0), y0: p.y(0) });
    }, ctx);
  } };
}

// Captions over the half of the drawing each describes (the head is as wide as the canvas).
export function links() {
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
      // (Less the inset's border and padding.)
      const p = linksLayout(canvas.getContext('2d'), res, (w && w - 17) || 360);
      paintLinks(sizeCanvas(canvas, p.w, p.h), res, ctx.scheme, p);
      head.style.width = p.w + 'px';
      note.style.maxWidth = Math.max(p.w, 320) + 'px';
      canvas.setAttribute('aria-label', b.label);
    });
    note.textContent = b.note;
    table.update(b.table, ctx.t);
  } };
}
