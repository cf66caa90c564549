/* groups.js - the `groups` block in the export: the same cards as the page (dom/blocks/groups.js),
   laid out by draw/groups.js. */
import { groupLayout, groupOverlay } from '../groups.js';
import { record } from '../heatmap.js';
import { font } from './sheet.js';

// The export: cards side by side (as many ~220 px columns as fit), each with its title and
// shape, the drawing, and its note below; then the block's legend.
export function groups(sh, b) {
  const r = sh.rec, sc = sh.sc, n = b.cards.length, gap = 22;
  const per = Math.max(1, Math.min(n, Math.floor((sh.cw + gap) / (220 + gap))));
  const widths = b.cards.map(() => Math.floor((sh.cw - gap * (per - 1)) / per));
  sh.grid(widths, 14, (i, x, y, w) => {
    const card = b.cards[i], lay = groupLayout(r, card, w, b.cards);
    r.font = font(13, true); r.fillStyle = sc.css.fg; r.textAlign = 'left'; r.textBaseline = 'alphabetic';
    const tw = r.measureText(card.title).width;
    r.fillText(card.title, x, y + 13);
    if (card.shape) {
      r.font = font(11); r.fillStyle = sc.css.muted;
      r.fillText(card.shape, x + tw + 8, y + 13);
    }
    const top = y + 20;
    part(r, card, 'matrix', lay.m, lay.gm, x + lay.mx, top + lay.my, sc);
    if (lay.s) part(r, card, 'strips', lay.s, lay.gs, x + lay.sx, top + lay.sy, sc);
    const h = 20 + lay.h + 6;
    return h + (card.note ? sh.textBlock(card.note, x, y + h, w, 11, sc.css.muted) + 6 : 0);
  });
  if (b.legend) sh.y += sh.legend(sh.x, sh.y - 4, b.legend) + 12;
}

function part(rec, card, which, spec, g, x, y, sc) {
  record(rec, spec, sc, x, y);
  rec.save(); rec.translate(x, y);
  groupOverlay(rec, card, which, g, spec, sc);
  rec.restore();
}
