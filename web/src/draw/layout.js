/* layout.js - layout both renderers share (the page, dom/blocks/, and the export, draw/svg/): rows of
   a flow of about equal width, and the ends of a colour legend. */
import * as format from './format.js';

// Widths w (px) with `gap` between them, at most `avail` per row -> the indices where a new row
// starts, for the fewest rows whose widest row is as narrow as possible ([] for one row). The
// page's flow (dom/blocks/flow.js) and the export's split their chains the same way.
export function balance(w, gap, avail) {
  const n = w.length, rowW = (i, j) => w.slice(i, j).reduce((a, v) => a + v, 0) + gap * (j - i - 1);
  if (rowW(0, n) <= avail) return [];
  for (let rows = 2; rows <= n; rows++) {
    let best = null, bestW = Infinity;
    const cut = (from, left, starts, widest) => {
      if (left === 1) {
        const wd = Math.max(widest, rowW(from, n));
        if (wd <= avail && wd < bestW) { bestW = wd; best = starts.slice(); }
        return;
      }
      for (let j = from + 1; j <= n - left + 1; j++) {
        const wd = rowW(from, j);
        if (wd > avail || wd >= bestW) break;
        starts.push(j);
        cut(j, left - 1, starts, Math.max(widest, wd));
        starts.pop();
      }
    };
    cut(0, rows, [], 0);
    if (best) return best;
  }
  return w.map((_, i) => i).slice(1);   // nothing fits: one unit per row
}

// The two ends of a legend's scale as text.
export function legendEnds(lg) {
  if (lg.max === null) return [format.MINUS, '+'];
  return [lg.kind === 'diverging' ? format.short(-lg.max) : '0', format.short(lg.max)];
}
