/* heatmap-canvas.js - a heatmap on a page canvas: sized for the screen's density, drawn at once
   or as short jobs (the page's slices), with its geometry kept for hover and keyboard. */
import { layout, paint, steps } from '../draw/heatmap.js';

const geoms = new WeakMap(), draws = new WeakMap();   // canvas -> latest geometry; number of draws
const painted = new WeakMap();   // canvas -> the paintKey of its last finished painting

// What a canvas shows, as far as it can be told without reading the values: the same matrix
// object (the model's arrays are never written after their stage is done), size, scale,
// colours and labels. null when a mask function is involved (it cannot be compared).
function paintKey(s, sc, k) {
  if (s.masked) return null;
  const cols = Array.isArray(s.colLabels) ? s.colLabels.join('\u0001') : s.colLabels;
  const text = [s.offset || 0, s.rows, s.cols, s.kind, s.max, s.focusRow, s.maxCell, s.cellH, s.width, sc.name, k,
    (s.rowLabels || []).join('\u0001'), cols, (s.rowFlags || []).join()];
  if (s.cellText) return null;   // (words in the cells: a function, not comparable)
  return { data: s.data, marks: s.marks || null, text: text.join('\u0002') };
}
const sameKey = (a, b) => !!a && !!b && a.data === b.data && a.marks === b.marks && a.text === b.text;

export function dpr() {
  return Math.max(1, Math.min(3, (typeof devicePixelRatio === 'number' && devicePixelRatio) || 1));
}

// Draw `s` into `canvas`; remembers the geometry for hover and keyboard (see interact.js).
// With `defer` (the page's slices.add) each step after the background is a job of its own; a
// newer draw of the same canvas makes the older one's remaining steps do nothing. keep: the
// caller draws nothing over the heatmap, so a canvas already showing the same picture may be
// left as it is.
export function draw(canvas, s, sc, defer, keep) {
  const k = dpr();
  const ctx = canvas.getContext('2d');
  const g = layout(ctx, s);
  const n = (draws.get(canvas) || 0) + 1, key = keep ? paintKey(s, sc, k) : null;
  draws.set(canvas, n);
  // The same picture, fully painted: left as it is (at large sizes an unchanged matrix, such as
  // x after an activation change, cost its pooling, pixels and upload again).
  const sameSize = canvas.width === Math.round(g.w * k) && canvas.height === Math.round(g.h * k);
  if (sameKey(key, painted.get(canvas)) && sameSize) {
    /* nothing to paint */
  } else {
    painted.delete(canvas);
    canvas.width = Math.round(g.w * k);
    canvas.height = Math.round(g.h * k);
    canvas.style.width = g.w + 'px';
    canvas.style.height = g.h + 'px';
    ctx.setTransform(k, 0, 0, k, 0, 0);
    const done = function () { if (key) painted.set(canvas, key); };
    if (!defer) { paint(ctx, s, sc, g, k); done(); } else {
      const all = steps(ctx, s, sc, g, k), last = all.length - 1;
      all.forEach(function (f, i) {
        if (i === 0) f();
        else defer(function () { if (draws.get(canvas) === n) { f(); if (i === last) done(); } });
      });
      if (last === 0) done();
    }
  }
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
