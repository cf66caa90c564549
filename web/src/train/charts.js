/* train/charts.js - the Train view's loss curves on a 2D context (no DOM): the training loss per
   step, the held-out loss at each measurement, and the unigram baseline as a dashed line; colours
   from the page's scheme (draw/colors.js), so dark mode follows. */
import { niceTicks } from '../draw/charts.js';
import { FONT } from '../draw/heatmap.js';
import * as format from '../draw/format.js';

// The y range: from the lowest loss seen to the highest of the first losses and the baseline.
export function lossRange(train, held, baseline) {
  let lo = Infinity, hi = -Infinity;
  const see = (v) => { if (Number.isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); } };
  train.forEach((p) => see(p[1]));
  held.forEach((p) => see(p[1]));
  see(baseline);
  if (!Number.isFinite(lo)) return { lo: 0, hi: 1 };
  if (hi - lo < 1e-6) { lo -= 0.5; hi += 0.5; }
  return { lo: Math.max(0, Math.floor(lo * 2) / 2), hi: Math.ceil(hi * 2) / 2 };
}

// opts: { w, h, train: [[step, loss]], held: [[step, loss]], baseline, steps (the x axis' end),
// labels: { x, y, baseline }, css (the scheme's colours) }.
export function drawLoss(g, o) {
  const css = o.css, r = lossRange(o.train, o.held, o.baseline);
  const span = niceTicks(r.hi - r.lo), yTicks = span.map((v) => Number((r.lo + v).toPrecision(6)))
    .filter((v) => v <= r.hi + 1e-9);
  const yMax = Math.max(r.hi, yTicks[yTicks.length - 1]);
  const xTicks = niceTicks(o.steps).filter((v) => v <= o.steps);
  g.font = FONT;
  const left = Math.ceil(Math.max(...yTicks.map((v) => g.measureText(format.short(v)).width))) + 12;
  const L = left, R = o.w - 14, T = 22, B = o.h - 34;
  const x = (v) => L + v / Math.max(1, o.steps) * (R - L), y = (v) => B - (v - r.lo) / (yMax - r.lo) * (B - T);
  g.fillStyle = css.bg; g.fillRect(0, 0, o.w, o.h);
  g.lineWidth = 1; g.strokeStyle = css.line; g.fillStyle = css.muted;
  g.textAlign = 'right'; g.textBaseline = 'middle';
  yTicks.forEach((v) => {
    const yy = Math.round(y(v)) + 0.5;
    g.beginPath(); g.moveTo(L, yy); g.lineTo(R, yy); g.stroke();
    g.fillText(format.short(v), L - 6, yy);
  });
  g.textAlign = 'center'; g.textBaseline = 'top';
  xTicks.forEach((v) => {
    const xx = Math.round(x(v)) + 0.5;
    g.beginPath(); g.moveTo(xx, B); g.lineTo(xx, B + 4); g.stroke();
    g.fillText(format.short(v), xx, B + 6);
  });
  g.strokeStyle = css.maskInk;
  g.beginPath(); g.moveTo(L, T); g.lineTo(L, B); g.lineTo(R, B); g.stroke();
  g.fillStyle = css.fg; g.textBaseline = 'alphabetic';
  g.textAlign = 'left'; g.fillText(o.labels.y, 0, 13);
  g.textAlign = 'right'; g.fillText(o.labels.x, R, o.h - 3);
  // The baseline: dashed; its name (drawn last, on a halo of the background: the curves cross
  // it somewhere at any width) at the right end above it.
  const base = Number.isFinite(o.baseline) ? y(o.baseline) : null;
  if (base !== null) {
    g.strokeStyle = css.muted;
    g.beginPath();
    for (let xx = L; xx < R; xx += 7) { g.moveTo(xx, base); g.lineTo(Math.min(R, xx + 4), base); }
    g.stroke();
  }
  const line = (pts, color, width) => {
    if (!pts.length) return;
    g.strokeStyle = color; g.lineWidth = width;
    g.beginPath();
    pts.forEach((p, k) => { if (k) g.lineTo(x(p[0]), y(p[1])); else g.moveTo(x(p[0]), y(p[1])); });
    g.stroke();
  };
  line(thin(o.train, Math.max(50, R - L)), css.attention, 1.2);
  line(o.held, css.focus, 2);
  g.fillStyle = css.focus;
  o.held.forEach((p) => { g.beginPath(); g.arc(x(p[0]), y(p[1]), 3, 0, 2 * Math.PI); g.fill(); });
  if (base !== null) {
    g.textAlign = 'right'; g.textBaseline = 'bottom';
    g.lineWidth = 4; g.lineJoin = 'round'; g.strokeStyle = css.bg;
    g.strokeText(o.labels.baseline, R - 6, base - 3);
    g.fillStyle = css.muted; g.fillText(o.labels.baseline, R - 6, base - 3);
  }
  g.lineWidth = 1;
  return { left: L, right: R, top: T, bottom: B };
}

// At most n points, each the mean of its run of steps (a curve of 10,000 steps on 600 pixels).
export function thin(pts, n) {
  if (pts.length <= n) return pts;
  const k = Math.ceil(pts.length / n), out = [];
  for (let i = 0; i < pts.length; i += k) {
    const run = pts.slice(i, i + k);
    out.push([run[run.length - 1][0], run.reduce((s, p) => s + p[1], 0) / run.length]);
  }
  return out;
}
