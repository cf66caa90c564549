/* nextchars.js - the `nextchars` block in the export: the list of next characters with their
   probability bars, as the page shows it (dom/blocks/nextchars.js); the buttons' actions are not drawn. */
import { font } from './sheet.js';

export function nextchars(sh, b) {
  const r = sh.rec, css = sh.sc.css;
  if (b.caption) sh.para(b.caption, 12);
  const barW = Math.min(260, sh.cw - 120);   // the bars on an absolute scale, as on the page
  for (const it of b.items) {
    const special = Array.from(it.ch).length > 1;   // <unk>, <s>
    r.font = special ? font(10) : font(16, true); r.fillStyle = special ? css.muted : css.fg;
    r.textAlign = 'center'; r.textBaseline = 'middle';
    r.fillText(it.ch, sh.x + 14, sh.y + 11);
    r.fillStyle = css.line; r.fillRect(sh.x + 36, sh.y + 5, barW, 12);
    r.fillStyle = css.ffn; r.fillRect(sh.x + 36, sh.y + 5, barW * it.p, 12);
    r.font = font(12); r.fillStyle = css.fg; r.textAlign = 'left';
    r.fillText(it.label, sh.x + 44 + barW, sh.y + 11);
    sh.y += 24;
  }
  if (b.items.length) sh.y += 6;
}
