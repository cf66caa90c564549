/* charts.js - the `lines` and `tokenbars` blocks (draw/charts.js) drawn into the export sheet: the
   same legend, titles, plots and notes as the page shows (dom/blocks/charts.js); data tables stay on
   the page. */
import { BARS_H, PLOT_H, barsLayout, drawBars, drawPlot, marker, plotLayout } from '../charts.js';
import { textWidth } from '../recorder.js';
import { font } from './sheet.js';

// Markers and names on one line, wrapping like the swatches block.
function legend(sh, items) {
  const r = sh.rec, f = font(11.5);
  let x = sh.x;
  for (const it of items) {
    const w = 16 + textWidth(it.label, f) + 16;
    if (x > sh.x && x + w > sh.x + sh.cw) { x = sh.x; sh.y += 18; }
    r.fillStyle = sh.sc.css[it.color];
    marker(r, it.marker || 'square', x + 5, sh.y + 7.5, 4);
    r.font = f; r.fillStyle = sh.sc.css.muted; r.textAlign = 'left'; r.textBaseline = 'middle';
    r.fillText(it.label, x + 14, sh.y + 8);
    x += w;
  }
  sh.y += 24;
}

// Draws paint(g, p) for layout p at (x, y) of the sheet.
function at(sh, x, y, paint) {
  sh.rec.save(); sh.rec.translate(x, y);
  paint(sh.rec);
  sh.rec.restore();
}

export const charts = {
  // Two plots side by side when each gets 300 px, else one under the other.
  lines(sh, b) {
    legend(sh, b.legend);
    const gap = 24, two = b.plots.length > 1 && sh.cw >= 600 + gap;
    const w = two ? Math.floor((sh.cw - gap) / 2) : Math.min(sh.cw, 520);
    let col = 0, rowH = 0;
    b.plots.forEach((plot) => {
      const x = sh.x + col * (w + gap), th = sh.textBlock(plot.title, x, sh.y, w, 13, sh.sc.css.fg, true) + 6;
      const p = plotLayout(sh.rec, plot, w, PLOT_H);
      at(sh, x, sh.y + th, (g) => drawPlot(g, plot, b.legend, sh.sc, p));
      rowH = Math.max(rowH, th + p.h);
      if (two && col === 0) { col = 1; return; }
      sh.y += rowH + 12; col = 0; rowH = 0;
    });
    if (col) sh.y += rowH + 12;
    sh.para(b.note, 12);
  },

  tokenbars(sh, b) {
    sh.para(b.title, 13, sh.sc.css.fg, true, 6);
    legend(sh, b.series);
    const p = barsLayout(sh.rec, b, Math.min(sh.cw, 900), BARS_H);
    at(sh, sh.x, sh.y, (g) => drawBars(g, b, sh.sc, p));
    sh.y += p.h + 8;
    sh.para(b.note, 12);
  }
};
