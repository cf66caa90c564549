/* counts.js - the `counts` block in the export: title, bars (draw/counts.js paints them for the page
   too), note. */
import { counts as paintCounts, countsLayout } from '../counts.js';

// The export: title, the bars (at most 560 px wide), the note beside them or below.
export function counts(sh, b) {
  sh.para(b.title, 13, sh.sc.css.fg, true, 6);
  const p = countsLayout(b, Math.min(560, sh.cw));
  sh.plotWithNote(p.w, p.h, (g) => paintCounts(g, b, sh.sc, p), b.note);
}
