/* heatmap-canvas.js - a heatmap on a page canvas: sized for the screen's density, drawn at once
   or as short jobs (the page's slices), with its geometry kept for hover and keyboard. */
import { layout, paint, steps } from '../core/heatmap.js';

const geoms = new WeakMap(), draws = new WeakMap();   // canvas -> latest geometry; number of draws

export function dpr() {
  return Math.max(1, Math.min(3, (typeof devicePixelRatio === 'number' && devicePixelRatio) || 1));
}

// Draw `s` into `canvas`; remembers the geometry for hover and keyboard (see interact.js).
// With `defer` (the page's slices.add) each step after the background is a job of its own; a
// newer draw of the same canvas makes the older one's remaining steps do nothing.
export function draw(canvas, s, sc, defer) {
  const k = dpr();
  const ctx = canvas.getContext('2d');
  const g = layout(ctx, s);
  canvas.width = Math.round(g.w * k);
  canvas.height = Math.round(g.h * k);
  canvas.style.width = g.w + 'px';
  canvas.style.height = g.h + 'px';
  ctx.setTransform(k, 0, 0, k, 0, 0);
  const n = (draws.get(canvas) || 0) + 1;
  draws.set(canvas, n);
  if (!defer) paint(ctx, s, sc, g, k);
  else steps(ctx, s, sc, g, k).forEach(function (f, i) {
    if (i === 0) f();
    else defer(function () { if (draws.get(canvas) === n) f(); });
  });
  // Test and export hooks: the matrix shape and where the cells are, in CSS pixels.
  const ds = canvas.dataset;
  ds.rows = s.rows; ds.cols = s.cols; ds.plotX = g.left; ds.plotY = g.top;
  ds.cellW = g.cw; ds.cellH = g.ch; ds.cssW = g.w; ds.cssH = g.h;
  ds.maskRgb = sc.maskRGB.join(',');
  if (s.label) canvas.setAttribute('aria-label', s.label);
  geoms.set(canvas, { s: s, g: g });
  return g;
}

export function geometry(canvas) { return geoms.get(canvas); }

// A canvas sized w x h CSS pixels, sharp at the screen's density; returns its context.
export function sizeCanvas(canvas, w, h) {
  const k = dpr();
  canvas.width = Math.round(w * k); canvas.height = Math.round(h * k);
  canvas.style.width = w + 'px'; canvas.style.height = h + 'px';
  const g = canvas.getContext('2d');
  g.setTransform(k, 0, 0, k, 0, 0);
  return g;
}
