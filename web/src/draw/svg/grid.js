/* grid.js - the `grid` block in the export (figure 12, the model view; dom/blocks/grid.js): head
   numbers above, a layer label per row, each cell's small heatmap framed in the colour of its
   measure with the badge under it; cells shrink so the heads fit the sheet's width. */
import * as colors from '../colors.js';
import { layout as heatLayout, record } from '../heatmap.js';
import { font, width } from './sheet.js';

export function grid(sh, b) {
  const r = sh.rec, sc = sh.sc, GAP = 8, rgb = [0, 0, 0];
  const labelW = Math.max(...Array.from({ length: b.layers }, (_, l) => width(b.rowLabel(l), font(11)))) + 10;
  sh.para(b.hint, 11.5, sc.css.muted, false, 4);
  // The page's cell size, or smaller where the heads would not fit.
  const s0 = b.cells[0].spec, mapW = heatLayout(r, s0).w;
  const room = (sh.cw - labelW) / b.heads - GAP - 4, k = Math.min(1, room / mapW);
  const specs = b.cells.map((c) => (k < 1 ? Object.assign({}, c.spec, { maxCell: c.spec.maxCell * k,
    cellH: c.spec.cellH * k, width: Math.floor(c.spec.width * k) }) : c.spec));
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
