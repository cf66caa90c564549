/* panels.js - the `panels` and `multiples` blocks in the export: heatmaps with their titles and
   legends side by side, and a page of small heads with the picked one outlined (dom/blocks/panels.js). */
import { layout as heatLayout, record } from '../heatmap.js';
import { balance } from '../layout.js';
import { font } from './sheet.js';

// Heatmaps side by side: 'pair' (two columns when they fit), 'heads' (as many ~230 px
// columns as fit), 'stages' (widths in proportion to their columns).
export function panels(sh, b) {
  const n = b.panels.length, gap = b.layout === 'pair' ? 26 : b.layout === 'heads' ? 22 : 16;
  let widths;
  if (b.layout === 'stages') {
    const flex = b.panels.map((p) => p.flex), sum = flex.reduce((a, v) => a + v, 0), avail = sh.cw - gap * (n - 1);
    widths = flex.map((k) => Math.max(110, Math.floor(avail * k / sum)));
    const over = widths.reduce((a, v) => a + v, 0) - avail;
    if (over > 0 && over < avail) {
      widths = widths.map((w, i) => (w > 110 ? Math.max(110, w - Math.ceil(over * flex[i] / sum * 2)) : w));
    }
  } else if (b.layout === 'one') {
    widths = b.panels.map(() => sh.cw);   // (each a row of its own, as on the page)
  } else {
    const min = b.layout === 'pair' ? 220 : 230;
    const per = Math.max(1, Math.min(n, Math.floor((sh.cw + gap) / (min + gap))));
    widths = b.panels.map(() => Math.floor((sh.cw - gap * (per - 1)) / per));
  }
  sh.grid(widths, 14, (i, x, y, w) => {
    const p = b.panels[i], got = sh.panel(p.spec, x, y, w);
    if (!p.legend) return got.h;
    sh.legend(x, y + got.h + 4, p.legend, w);
    return got.h + 22;
  });
  if (b.legend) sh.y += sh.legend(sh.x, sh.y - 6, b.legend) + 12;
  if (b.note) { sh.note(b.note, sh.x, sh.y - 6, sh.cw); sh.y += 18; }
}

// Many heads: which one is large and which are shown, then the small multiples in a row,
// the picked one outlined.
export function multiples(sh, b) {
  const r = sh.rec, sc = sh.sc;
  sh.para(b.label + ': ' + (b.value + 1) + '  \u00b7  ' + b.range, 12.5, sc.css.fg, true, 8);
  const gs = b.panels.map((p) => heatLayout(r, p.spec)), GAP = 10;
  const starts = [0, ...balance(gs.map((g) => g.w + 4), GAP, sh.cw), gs.length];
  for (let k = 0; k + 1 < starts.length; k++) {
    let x = sh.x, rowH = 0;
    for (let i = starts[k]; i < starts[k + 1]; i++) {
      const p = b.panels[i], g = gs[i], on = p.head === b.value, y = sh.y;
      r.font = font(11, on); r.fillStyle = on ? sc.css.fg : sc.css.muted;
      r.textAlign = 'left'; r.textBaseline = 'alphabetic';
      r.fillText(p.title, x + 2, y + 11);
      record(r, p.spec, sc, x + 2, y + 16);
      if (on) { r.strokeStyle = sc.css.focus; r.lineWidth = 2; r.strokeRect(x, y + 14, g.w + 4, g.h + 4); }
      rowH = Math.max(rowH, 20 + g.h);
      x += g.w + 4 + GAP;
    }
    sh.y += rowH + 10;
  }
}
