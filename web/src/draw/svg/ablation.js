/* ablation.js - the head ablation figure's `toggles` and `toplists` blocks in the export: the
   grid of switched-off heads as marks, and the before / after lists side by side with their bars
   (dom/blocks/ablation.js is the page's). */
import { font } from './sheet.js';

export function toggles(sh, b) {
  const r = sh.rec, css = sh.sc.css, cw = 30, ch = 22, lw = 64;
  sh.para(b.caption, 12);
  r.font = font(11); r.fillStyle = css.muted; r.textAlign = 'left'; r.textBaseline = 'middle';
  r.fillText(b.corner, sh.x, sh.y + 8);
  r.font = font(11, true); r.textAlign = 'center';
  b.colLabels.forEach((c, j) => r.fillText(c, sh.x + lw + j * cw + cw / 2, sh.y + 8));
  sh.y += 18;
  b.rowLabels.forEach((rl, i) => {
    r.font = font(11); r.fillStyle = css.muted; r.textAlign = 'left';
    r.fillText(rl, sh.x, sh.y + ch / 2);
    b.colLabels.forEach((c, j) => {
      const on = b.on(i, j), x = sh.x + lw + j * cw;
      r.fillStyle = on ? css.attention : css.line; r.fillRect(x + 2, sh.y + 2, cw - 4, ch - 4);
      r.font = font(11, true); r.fillStyle = on ? css.bg : css.muted; r.textAlign = 'center';
      r.fillText(on ? b.offMark : b.onMark, x + cw / 2, sh.y + ch / 2);
    });
    sh.y += ch;
  });
  sh.y += 8;
}

export function toplists(sh, b) {
  const r = sh.rec, css = sh.sc.css, n = b.lists.length, colW = Math.floor(sh.cw / n), y0 = sh.y;
  let bottom = y0;
  b.lists.forEach((list, k) => {
    const x0 = sh.x + k * colW, barW = Math.max(40, Math.min(200, colW - 130));
    let y = y0;
    r.font = font(12, true); r.fillStyle = css.fg; r.textAlign = 'left'; r.textBaseline = 'middle';
    r.fillText(list.title, x0, y + 8);
    y += 20;
    for (const it of list.items) {
      const special = Array.from(it.ch).length > 1;
      r.font = special ? font(10) : font(15, true); r.fillStyle = special ? css.muted : css.fg; r.textAlign = 'center';
      r.fillText(it.ch.length > 8 ? it.ch.slice(0, 7) + '\u2026' : it.ch, x0 + 18, y + 11);
      r.fillStyle = css.line; r.fillRect(x0 + 44, y + 5, barW, 12);
      r.fillStyle = it.chosen ? css.attention : css.ffn; r.fillRect(x0 + 44, y + 5, barW * it.p, 12);
      r.font = font(12, !!it.chosen); r.fillStyle = css.fg; r.textAlign = 'left';
      r.fillText(it.label, x0 + 52 + barW, y + 11);
      y += 24;
    }
    bottom = Math.max(bottom, y);
  });
  sh.y = bottom + 8;
}
