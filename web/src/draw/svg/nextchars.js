/* nextchars.js - the `nextchars` block in the export: the list of next characters with their
   probability bars, as the page shows it (dom/blocks/nextchars.js); the buttons' actions are not drawn. */
import { fit } from '../heatmap.js';
import { font } from './sheet.js';

export function nextchars(sh, b) {
  const r = sh.rec, css = sh.sc.css;
  if (b.caption) sh.para(b.caption, 12);
  const special = (it) => Array.from(it.ch).length > 1;   // <unk>, <s>, a byte, a word
  // Whole-word pieces (a real vocabulary's): a column as wide as the widest, at most 40 % (then an
  // ellipsis), as on the page (.next-long); else 36 px for one character.
  r.font = font(10);
  const long = b.items.some((it) => Array.from(it.ch).length > 3);
  const col = long ? Math.max(36, Math.min(Math.round(0.4 * sh.cw),
    Math.ceil(Math.max(...b.items.map((it) => r.measureText(it.ch).width))) + 8)) : 36;
  const barW = Math.min(260, sh.cw - col - 84);   // the bars on an absolute scale, as on the page
  for (const it of b.items) {
    const left = long && special(it);   // a word: from the column's left edge
    r.font = special(it) ? font(10) : font(16, true); r.fillStyle = special(it) ? css.muted : css.fg;
    r.textAlign = left ? 'left' : 'center'; r.textBaseline = 'middle';
    r.fillText(left ? fit(r, it.ch, col - 8) : it.ch, left ? sh.x : sh.x + (long ? col / 2 - 4 : 14), sh.y + 11);
    r.fillStyle = css.line; r.fillRect(sh.x + col, sh.y + 5, barW, 12);
    r.fillStyle = css.ffn; r.fillRect(sh.x + col, sh.y + 5, barW * it.p, 12);
    r.font = font(12); r.fillStyle = css.fg; r.textAlign = 'left';
    r.fillText(it.label, sh.x + col + 8 + barW, sh.y + 11);
    sh.y += 24;
  }
  if (b.items.length) sh.y += 6;
}
