/* grid.js - the `grid` block in the export (figure 12, the model view; dom/blocks/grid.js): head
   numbers above, a layer label per row, each cell's small heatmap framed in the colour of its
   measure with the badge under it; cells shrink so the heads fit the sheet's width. A big grid's
   maps are max-pooled in w x w blocks (30 x 9 maps of 64 tokens would be a million rects). */
import * as colors from '../colors.js';
import { layout as heatLayout, record } from '../heatmap.js';
import { font, width } from './sheet.js';

const MAX_RECTS = 60000;

// spec's (L, L) map as (P, P) blocks of w x w: each the largest weight its block may see (the
// heatmap's own pooling rule); a block above the diagonal is masked whole.
function pooled(spec, w) {
  const L = spec.rows, P = Math.ceil(L / w), out = new Float32Array(P * P), d = spec.data, off = spec.offset || 0;
  for (let r = 0; r < L; r++) {
    for (let c = 0; c <= r; c++) {
      const i = Math.floor(r / w) * P + Math.floor(c / w), v = d[off + r * L + c];
      if (v > out[i]) out[i] = v;
    }
  }
  const k = w;
  return Object.assign({}, spec, { data: out, offset: 0, rows: P, cols: P, maxCell: spec.maxCell * k,
    cellH: spec.cellH * k, width: Math.ceil(P * spec.maxCell * k) + 10 });
}

export function grid(sh, b) {
  const r = sh.rec, sc = sh.sc, GAP = 8, rgb = [0, 0, 0];
  const labelW = Math.max(...Array.from({ length: b.layers }, (_, l) => width(b.rowLabel(l), font(11)))) + 10;
  sh.para(b.hint, 11.5, sc.css.muted, false, 4);
  // The page's cell size, or smaller where the heads would not fit.
  const L = b.cells[0].spec.rows, n = b.cells.length;
  const w = n * L * L > MAX_RECTS ? Math.ceil(L / Math.floor(Math.sqrt(MAX_RECTS / n))) : 1;
  const base = w > 1 ? b.cells.map((c) => pooled(c.spec, w)) : b.cells.map((c) => c.spec);
  if (w > 1) sh.para(b.pooledNote(w), 11.5, sc.css.muted, false, 4);
  const s0 = base[0], mapW = heatLayout(r, s0).w;
  const room = (sh.cw - labelW) / b.heads - GAP - 4, k = Math.min(1, room / mapW);
  const specs = base.map((p) => (k < 1 ? Object.assign({}, p, { maxCell: p.maxCell * k,
    cellH: p.cellH * k, width: Math.floor(p.width * k) }) : p));
  const g = heatLayout(r, specs[0]), step = g.w + 4 + GAP;
  r.font = font(11); r.fillStyle = sc.css.muted; r.textAlign = 'center'; r.textBaseline = 'alphabetic';
  for (let h = 0; h < b.heads; h++) r.fillText(b.colLabel(h), sh.x + labelW + h * step + (g.w + 4) / 2, sh.y + 11);
  sh.y += 16;
  for (let l = 0; l < b.layers; l++) {
    r.font = font(11); r.fillStyle = sc.css.muted; r.textAlign = 'left'; r.textBaseline = 'middle';
    r.fillText(b.rowLabel(l), sh.x, sh.y + g.h / 2 + 2);
    for (let h = 0; h < b.heads; h++) {
      const i = l * b.heads + h, c = b.cells[i], x = sh.x + labelW + h * step;
      record(r, specs[i], sc, x + 2, sh.y + 2);
      colors.color(sc, 'sequential', c.frame, 1, rgb);
      r.strokeStyle = 'rgb(' + rgb.join(',') + ')'; r.lineWidth = 2;
      r.strokeRect(x, sh.y, g.w + 4, g.h + 4);
      r.font = font(10); r.fillStyle = sc.css.fg; r.textAlign = 'center'; r.textBaseline = 'alphabetic';
      r.fillText(c.badge, x + (g.w + 4) / 2, sh.y + g.h + 17);
    }
    sh.y += g.h + 24;
  }
  sh.y += 4;
}
