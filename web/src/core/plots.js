/* plots.js - the two small non-matrix plots, drawn on any 2D context (a canvas on the page, a
   recorder for the SVG/PNG export): the activation curve traced by the engine's own
   (before, after) pairs, and the links attention makes between rows next to the FFN's one. */
import * as colors from './colors.js';
import * as format from './format.js';
import * as heatmap from './heatmap.js';

// Scatter of (before, after) in W x H; ungated activations are joined into the curve itself.
// Returns how many points were drawn (at most ~4000, evenly sampled).
function curve(g, res, sc, t, W, H) {
  const F = format, h = res.ffn.hidden, a = res.ffn.activated, n = h.length;
  const step = Math.max(1, Math.floor(n / 4000)), idx = [];
  for (let i = 0; i < n; i += step) idx.push(i);
  idx.sort(function (p, q) { return h[p] - h[q]; });
  let xmax = heatmap.absMax(h), ymin = 0, ymax = 0;
  idx.forEach(function (i) { ymin = Math.min(ymin, a[i]); ymax = Math.max(ymax, a[i]); });
  if (ymax - ymin < 1e-9) ymax = ymin + 1;
  g.fillStyle = sc.css.bg; g.fillRect(0, 0, W, H);
  g.font = heatmap.FONT;
  const yTop = F.short(ymax), yBot = F.short(ymin);
  const L = Math.ceil(Math.max(g.measureText(yTop).width, g.measureText(yBot).width)) + 10, R = W - 12, T = 22, B = H - 30;
  const X = function (v) { return L + (v + xmax) / (2 * xmax) * (R - L); };
  const Y = function (v) { return B - (v - ymin) / (ymax - ymin) * (B - T); };
  g.strokeStyle = sc.css.maskInk; g.lineWidth = 1;
  g.beginPath(); g.moveTo(L, Y(0)); g.lineTo(R, Y(0)); g.moveTo(X(0), T); g.lineTo(X(0), B); g.stroke();
  g.fillStyle = sc.css.muted; g.textBaseline = 'top';
  g.textAlign = 'left'; g.fillText(F.short(-xmax), L, B + 6);
  g.textAlign = 'center'; g.fillText('0', X(0), B + 6);
  g.textAlign = 'right'; g.fillText(F.short(xmax), R, B + 6);
  g.textBaseline = 'middle'; g.fillText(yTop, L - 6, Y(ymax));
  if (ymin < 0) g.fillText(yBot, L - 6, Y(ymin));
  g.fillStyle = sc.css.fg; g.textBaseline = 'alphabetic';
  g.textAlign = 'left'; g.fillText(t('axisAfter'), X(0) + 6, T - 8);
  g.textAlign = 'right'; g.fillText(t('axisBefore'), R, Y(0) - 6);
  if (!res.gated) {
    g.strokeStyle = sc.css.fg; g.lineWidth = 1.5; g.beginPath();
    idx.forEach(function (i, k) { if (k) g.lineTo(X(h[i]), Y(a[i])); else g.moveTo(X(h[i]), Y(a[i])); });
    g.stroke();
  }
  const rgb = [0, 0, 0];
  idx.forEach(function (i) {
    const c = colors.color(sc, 'diverging', h[i], xmax, rgb);
    g.fillStyle = 'rgb(' + c.join(',') + ')';
    g.beginPath(); g.arc(X(h[i]), Y(a[i]), 2.6, 0, 2 * Math.PI); g.fill();
  });
  return idx.length;
}

// The links inset's size for `width` available and L tokens, in CSS pixels.
function linksSize(L, width) {
  const rowH = Math.max(4, Math.min(20, Math.floor(360 / L)));
  return { w: Math.max(240, Math.min(360, width)), h: 16 + L * rowH, rowH: rowH };
}

// Attention: every visible key j feeds query `sel` (width ~ head-averaged weight). FFN: sel
// -> sel only. Returns the head-averaged weights of the selected row.
function links(g, res, sc, width) {
  const F = format, L = res.L, i = res.sel, H = res.heads, w = res.attn.weights;
  const size = linksSize(L, width), rowH = size.rowH, top = 8, W = size.w;
  g.fillStyle = sc.css.bg; g.fillRect(0, 0, W, size.h);
  g.font = heatmap.FONT; g.textBaseline = 'middle';
  const mean = new Float64Array(L);
  for (let h = 0; h < H; h++) for (let j = 0; j < L; j++) mean[j] += w[(h * L + i) * L + j] / H;
  const half = W / 2, every = Math.max(1, Math.ceil(12 / rowH));
  [0, 1].forEach(function (side) {
    const x0 = side * half + 30, x1 = side * half + half - 30;
    for (let r = 0; r < L; r++) {
      const y = top + (r + 0.5) * rowH;
      const on = r === i, lab = F.label(res.tokens[r], 3);
      g.fillStyle = on ? sc.css.fg : sc.css.muted;
      if (on || r % every === 0) {
        g.textAlign = 'right'; g.fillText(lab, x0 - 6, y);
        if (on) { g.textAlign = 'left'; g.fillText(lab, x1 + 6, y); }
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
  return mean;
}


export { curve, links, linksSize };
