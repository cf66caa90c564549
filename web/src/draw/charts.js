/* charts.js - two chart blocks drawn on any 2D context (a canvas on the page, a recorder for the
   SVG/PNG export): `lines`, series of (x, y) points on log2 or linear axes with marked values,
   and `tokenbars`, a few bars per token. The figures give plain data; series colours are keys
   of the colour scheme (colors.js), so dark mode and the export follow. No DOM. */
import * as format from './format.js';
import { FONT, fit } from './heatmap.js';

export const PLOT_H = 230, BARS_H = 210;
const SMALL = FONT.replace('12px', '11px');

// ---- a line plot ------------------------------------------------------------------------------
// plot: { xLog, yLog, xTicks, yTicks, yMin, yMax, xLabel, yLabel, series: [{ key, points: [[x, y]] }],
// vmark: { x, label }, hmarks: [{ y, label }] }. Log axes are base 2.
const tx = (v, log) => (log ? Math.log2(v) : v);

export function plotLayout(g, plot, w, h) {
  g.font = FONT;
  const yText = plot.yTicks.map((v) => format.short(v));
  const left = Math.ceil(Math.max(...yText.map((s) => g.measureText(s).width))) + 12;
  const xs = plot.xTicks.map((v) => tx(v, plot.xLog)), x0 = Math.min(...xs), x1 = Math.max(...xs);
  const y0 = tx(plot.yMin, plot.yLog), y1 = tx(plot.yMax, plot.yLog);
  const L = left, R = w - 18, T = plot.vmark ? 40 : 24, B = h - 38;
  return { w, h, left: L, right: R, top: T, bottom: B, yText,
    x: (v) => L + (tx(v, plot.xLog) - x0) / (x1 - x0) * (R - L),
    y: (v) => B - (tx(v, plot.yLog) - y0) / (y1 - y0) * (B - T) };
}

// A dashed line as short segments (the recorder draws no dash patterns).
function dashed(g, xa, ya, xb, yb, on, off) {
  const len = Math.hypot(xb - xa, yb - ya), ux = (xb - xa) / len, uy = (yb - ya) / len;
  g.beginPath();
  for (let t = 0; t < len; t += on + off) {
    const e = Math.min(len, t + on);
    g.moveTo(xa + ux * t, ya + uy * t); g.lineTo(xa + ux * e, ya + uy * e);
  }
  g.stroke();
}

// A series' marker at (x, y): a filled circle or a filled square, r px from the centre.
export function marker(g, kind, x, y, r) {
  if (kind === 'square') { g.fillRect(x - r, y - r, 2 * r, 2 * r); return; }
  g.beginPath(); g.arc(x, y, r, 0, 2 * Math.PI); g.fill();
}

// The background, and a horizontal grid line with its label at each of the y ticks.
function background(g, css, p, ticks) {
  g.fillStyle = css.bg; g.fillRect(0, 0, p.w, p.h);
  g.font = FONT; g.lineWidth = 1;
  g.strokeStyle = css.line; g.fillStyle = css.muted; g.textAlign = 'right'; g.textBaseline = 'middle';
  ticks.forEach((v, i) => {
    const y = Math.round(p.y(v)) + 0.5;
    g.beginPath(); g.moveTo(p.left, y); g.lineTo(p.right, y); g.stroke();
    g.fillText(p.yText[i], p.left - 6, y);
  });
}

// legend: [{ key, color, marker }] giving each series its look.
export function drawPlot(g, plot, legend, sc, p) {
  const css = sc.css;
  background(g, css, p, plot.yTicks);
  g.textAlign = 'center'; g.textBaseline = 'top';
  plot.xTicks.forEach((v) => {
    const x = Math.round(p.x(v)) + 0.5;
    g.beginPath(); g.moveTo(x, p.bottom); g.lineTo(x, p.bottom + 4); g.stroke();
    g.fillText(format.short(v), x, p.bottom + 6);
  });
  g.strokeStyle = css.maskInk;
  g.beginPath(); g.moveTo(p.left, p.top); g.lineTo(p.left, p.bottom); g.lineTo(p.right, p.bottom); g.stroke();
  // Axis names: y above its axis, x under the tick labels at the right.
  g.fillStyle = css.fg; g.textBaseline = 'alphabetic';
  g.textAlign = 'left'; g.fillText(plot.yLabel, 0, 13);
  g.textAlign = 'right'; g.fillText(plot.xLabel, p.right, p.h - 4);
  // Reference values: horizontal ones with their label at the right end, above the line.
  g.font = SMALL;
  (plot.hmarks || []).forEach((m) => {
    const y = p.y(m.y);
    g.strokeStyle = css.muted; dashed(g, p.left, y, p.right, y, 4, 3);
    g.fillStyle = css.muted; g.textAlign = 'right'; g.textBaseline = 'bottom';
    g.fillText(m.label, p.right, y - 2);
  });
  // The marked x (the page's d_k): a dashed line, its label on a line of its own above the
  // plot, centred on it but kept inside the canvas.
  if (plot.vmark) {
    const x = p.x(plot.vmark.x), wl = g.measureText(plot.vmark.label).width;
    g.strokeStyle = css.focus; g.lineWidth = 1.5; dashed(g, x, p.top - 10, x, p.bottom, 5, 3); g.lineWidth = 1;
    g.fillStyle = css.focus; g.textBaseline = 'alphabetic'; g.textAlign = 'left';
    g.fillText(plot.vmark.label, Math.max(0, Math.min(p.w - wl, x - wl / 2)), p.top - 13);
  }
  // The series: a line through the points, then a marker on each.
  plot.series.forEach((s) => {
    const look = legend.find((l) => l.key === s.key), color = css[look.color];
    g.strokeStyle = color; g.fillStyle = color; g.lineWidth = 1.6;
    g.beginPath();
    s.points.forEach(([x, y], k) => { if (k) g.lineTo(p.x(x), p.y(y)); else g.moveTo(p.x(x), p.y(y)); });
    g.stroke();
    s.points.forEach(([x, y]) => marker(g, look.marker, p.x(x), p.y(y), look.marker === 'square' ? 3 : 3.4));
  });
  g.lineWidth = 1;
}

// ---- bars per token --------------------------------------------------------------------------
// b: { tokens, series: [{ key, color, values }], yLabel }; the y axis from 0 to a round maximum.
export function niceTicks(max) {
  if (!(max > 0)) return [0, 1];
  const raw = max / 4, p = Math.pow(10, Math.floor(Math.log10(raw))), f = raw / p;
  const step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10) * p, out = [];
  for (let v = 0; v < max + step * 0.999; v += step) out.push(Number(v.toPrecision(6)));
  return out;
}

export function barsLayout(g, b, w, h) {
  g.font = FONT;
  let max = 0;
  b.series.forEach((s) => { for (const v of s.values) if (v > max) max = v; });
  const ticks = niceTicks(max), yText = ticks.map((v) => format.short(v));
  const left = Math.ceil(Math.max(...yText.map((s) => g.measureText(s).width))) + 12;
  const L = left, R = w - 6, T = 30, B = h - 24, n = b.tokens.length, group = (R - L) / n;
  const top = ticks[ticks.length - 1];
  return { w, h, left: L, right: R, top: T, bottom: B, ticks, yText, group, max: top,
    y: (v) => B - v / top * (B - T) };
}

export function drawBars(g, b, sc, p) {
  const css = sc.css, n = b.tokens.length, k = b.series.length;
  background(g, css, p, p.ticks);
  g.fillStyle = css.fg; g.textAlign = 'left'; g.textBaseline = 'alphabetic';
  g.fillText(b.yLabel, 0, 13);
  // Each token's group: k bars side by side with a gap between groups.
  const pad = Math.min(8, p.group * 0.2), bw = (p.group - pad) / k;
  for (let t = 0; t < n; t++) {
    const x0 = p.left + t * p.group + pad / 2;
    b.series.forEach((s, j) => {
      const v = s.values[t], y = p.y(Math.max(0, v));
      g.fillStyle = css[s.color];
      g.fillRect(x0 + j * bw, y, Math.max(0.5, bw - (bw >= 4 ? 1 : 0)), p.bottom - y);
    });
  }
  g.strokeStyle = css.maskInk;
  g.beginPath(); g.moveTo(p.left, p.bottom + 0.5); g.lineTo(p.right, p.bottom + 0.5); g.stroke();
  // Token names under their groups; every step-th one when they would touch.
  g.fillStyle = css.muted; g.textAlign = 'center'; g.textBaseline = 'top';
  const names = b.tokens.map((tk) => format.label(tk, 8)), wide = Math.max(...names.map((s) => g.measureText(s).width));
  const step = Math.max(1, Math.ceil((Math.min(wide, 60) + 6) / p.group));
  for (let t = 0; t < n; t += step) {
    g.fillText(fit(g, names[t], Math.max(12, p.group * step - 6)), p.left + (t + 0.5) * p.group, p.bottom + 5);
  }
}
