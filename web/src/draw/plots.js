/* plots.js - the two small non-matrix plots, drawn on any 2D context (a canvas on the page, a
   recorder for the SVG/PNG export): the activation curve traced by the engine's own
   (before, after) pairs, and the links attention makes between rows next to the FFN's one. */
import * as colors from './colors.js';
import * as format from './format.js';
import * as heatmap from './heatmap.js';

// Where the activation plot goes: the data's bounds (0 always inside) and, for ungated
// activations, one scale for both axes so that a slope of 1 is drawn at 45 degrees; the plot
// is only as tall (or wide) as the data needs. Gated ones (act(gate) x up) are no curve:
// each axis gets its own scale. Returns { w, h, left, right, top, bottom, kx, ky (px per unit),
// x(v), y(v), ... }.
const CURVE_PAD = { right: 12, top: 22, bottom: 30 }, CURVE_MAX_H = 300;
function curveLayout(g, res, maxW, maxH) {
  const F = format;
  let { xmin, xmax, ymin, ymax } = res.zeros.range;   // (model.js: the zeros stage)
  if (xmax - xmin < 1e-9) xmax = xmin + 1;
  if (ymax - ymin < 1e-9) ymax = ymin + 1;
  g.font = heatmap.FONT;
  const yTop = F.short(ymax), yBot = F.short(ymin);
  const left = Math.ceil(Math.max(g.measureText(yTop).width, ymin < 0 ? g.measureText(yBot).width : 0)) + 12;
  const P = CURVE_PAD, aw = Math.max(60, maxW - left - P.right), ah = Math.max(60, maxH - P.top - P.bottom);
  let kx = aw / (xmax - xmin), ky = Math.min(ah, 200) / (ymax - ymin);
  if (!res.gated) kx = ky = Math.min(aw / (xmax - xmin), ah / (ymax - ymin));
  const pw = Math.max(40, kx * (xmax - xmin)), ph = Math.max(40, ky * (ymax - ymin));
  const L = left, T = P.top, B = T + ph;
  return { w: Math.ceil(L + pw + P.right), h: Math.ceil(B + P.bottom), left: L, right: L + pw, top: T, bottom: B,
    xmin, xmax, ymin, ymax, yTop, yBot, kx, ky,
    x: (v) => L + (v - xmin) * kx, y: (v) => B - (v - ymin) * ky };
}

// Scatter of (before, after) laid out by curveLayout; ungated activations are joined into the
// curve itself. Returns how many points were drawn, evenly sampled: at most ~4000 for a gated
// FFN (a cloud, whose density is the point), ~1500 on an ungated curve (dots 5 px wide on a
// line at most 420 px long: more only overlap, and each costs a filled circle: 16-36 ms per
// 4000 in headless Chromium here).
function curve(g, res, sc, t, p) {
  const F = format, h = res.ffn.hidden, a = res.ffn.activated, n = h.length;
  const step = Math.max(1, Math.floor(n / (res.gated ? 4000 : 1500))), idx = [];
  for (let i = 0; i < n; i += step) idx.push(i);
  idx.sort(function (i, j) { return h[i] - h[j]; });
  const X = p.x, Y = p.y, x0 = X(0), y0 = Y(0);
  g.fillStyle = sc.css.bg; g.fillRect(0, 0, p.w, p.h);
  g.font = heatmap.FONT;
  g.strokeStyle = sc.css.maskInk; g.lineWidth = 1;
  g.beginPath(); g.moveTo(p.left, y0); g.lineTo(p.right, y0); g.moveTo(x0, p.top); g.lineTo(x0, p.bottom); g.stroke();
  g.fillStyle = sc.css.muted; g.textBaseline = 'top';
  const lo = F.short(p.xmin), hi = F.short(p.xmax), room = (s) => g.measureText(s).width / 2 + 6;
  if (p.xmin < 0 && x0 - p.left >= room(lo) + room('0')) { g.textAlign = 'left'; g.fillText(lo, p.left, p.bottom + 6); }
  g.textAlign = 'center'; g.fillText('0', x0, p.bottom + 6);
  if (p.right - x0 >= room(hi) + room('0')) { g.textAlign = 'right'; g.fillText(hi, p.right, p.bottom + 6); }
  g.textAlign = 'right'; g.textBaseline = 'middle';
  if (y0 - Y(p.ymax) >= 14) g.fillText(p.yTop, p.left - 6, Y(p.ymax));
  if (p.ymin < 0 && Y(p.ymin) - y0 >= 14) g.fillText(p.yBot, p.left - 6, Y(p.ymin));
  g.fillStyle = sc.css.fg; g.textBaseline = 'alphabetic';
  g.textAlign = 'left'; g.fillText(t('axisAfter'), x0 + 6, p.top - 8);
  if (!res.gated) {
    g.strokeStyle = sc.css.fg; g.lineWidth = 1.5; g.beginPath();
    idx.forEach(function (i, k) { if (k) g.lineTo(X(h[i]), Y(a[i])); else g.moveTo(X(h[i]), Y(a[i])); });
    g.stroke();
  }
  const rgb = [0, 0, 0], xm = Math.max(-p.xmin, p.xmax);
  idx.forEach(function (i) {
    const c = colors.color(sc, 'diverging', h[i], xm, rgb);
    g.fillStyle = 'rgb(' + c.join(',') + ')';
    g.beginPath(); g.arc(X(h[i]), Y(a[i]), 2.6, 0, 2 * Math.PI); g.fill();
  });
  // The x axis's name over the dots, on a patch of background: a gated cloud reaches past y = 0
  // at the right end, where it sits, and hid its first letters.
  const bw = g.measureText(t('axisBefore')).width;
  g.fillStyle = sc.css.bg; g.fillRect(p.right - bw - 3, y0 - 19, bw + 6, 16);
  g.fillStyle = sc.css.fg; g.textBaseline = 'alphabetic'; g.textAlign = 'right';
  g.fillText(t('axisBefore'), p.right, y0 - 6);
  return idx.length;
}

// The links inset laid out for `width` available and the tokens' labels as `g` measures them:
// each half is [labels | lines | the selected token's label]; labels are cut with an ellipsis
// to what leaves the lines at least 48 px (their full text is in the data table).
function linksLayout(g, res, width) {
  const L = res.L, rowH = Math.max(4, Math.min(20, Math.floor(360 / L)));
  g.font = heatmap.FONT;
  const raw = res.tokens.map(function (tk) { return format.label(tk, 16); });
  const natural = Math.ceil(Math.max.apply(null, raw.map(function (s) { return g.measureText(s).width; })));
  // Wide enough for two halves of labels + 120 px of lines, within what is available.
  const w = Math.floor(Math.max(240, Math.min(width, 560, 2 * (2 * natural + 16 + 120)))), half = w / 2;
  const cap = Math.max(24, Math.floor((half - 48 - 16) / 2));
  const labels = raw.map(function (s) { return heatmap.fit(g, s, cap); });
  const lw = Math.min(cap, natural), sw = Math.ceil(g.measureText(labels[res.sel]).width);
  return { w: w, h: 16 + L * rowH, rowH: rowH, half: half, labels: labels, lw: lw, sw: sw };
}

// Attention: every visible key j feeds query `sel` (width ~ head-averaged weight). FFN: sel
// -> sel only (the attnmean stage's row sel). `p` from linksLayout.
function links(g, res, sc, p) {
  const L = res.L, i = res.sel, rowH = p.rowH, top = 8;
  g.fillStyle = sc.css.bg; g.fillRect(0, 0, p.w, p.h);
  g.font = heatmap.FONT; g.textBaseline = 'middle';
  const mean = res.attnmean.mean.subarray(i * L, (i + 1) * L);
  const every = Math.max(1, Math.ceil(12 / rowH));
  [0, 1].forEach(function (side) {
    const x0 = side * p.half + p.lw + 8, x1 = side * p.half + p.half - p.sw - 8 - (side ? 0 : 8);
    for (let r = 0; r < L; r++) {
      const y = top + (r + 0.5) * rowH, on = r === i;
      g.fillStyle = on ? sc.css.fg : sc.css.muted;
      if (on || (r % every === 0 && Math.abs(r - i) >= every)) {
        g.textAlign = 'right'; g.fillText(p.labels[r], x0 - 6, y);
        if (on) { g.textAlign = 'left'; g.fillText(p.labels[r], x1 + 6, y); }
      }
    }
    const yi = top + (i + 0.5) * rowH;
    g.strokeStyle = side ? sc.css.ffn : sc.css.attention;
    for (let k = 0; k < L; k++) {
      const wt = side ? (k === i ? 1 : 0) : mean[k];
      if (wt <= 0.004) continue;
      g.globalAlpha = side ? 1 : Math.min(1, 0.25 + wt);
      g.lineWidth = side ? 3 : 0.8 + 6 * wt;
      const yk = top + (k + 0.5) * rowH;
      g.beginPath(); g.moveTo(x0, yk);
      g.bezierCurveTo((x0 + x1) / 2, yk, (x0 + x1) / 2, yi, x1, yi); g.stroke();
    }
    g.globalAlpha = 1;
  });
}


export { CURVE_MAX_H, curve, curveLayout, links, linksLayout };
