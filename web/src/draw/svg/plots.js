/* plots.js - the `curve` and `links` blocks in the export: the activation curve and the attention
   vs FFN links drawing (draw/plots.js paints both for the page too), each with its note. */
import { CURVE_MAX_H, curve as paintCurve, curveLayout, links as paintLinks, linksLayout } from '../plots.js';

export function curve(sh, b, res, ctx) {
  sh.para(b.title, 13, sh.sc.css.fg, true, 6);
  const p = curveLayout(sh.rec, res, Math.min(420, sh.cw), CURVE_MAX_H);
  sh.plotWithNote(p.w, p.h, (g) => paintCurve(g, res, sh.sc, ctx.t, p), b.note);
}

// Each caption over its half of the drawing, wrapped to that half.
export function links(sh, b, res) {
  const p = linksLayout(sh.rec, res, Math.min(520, sh.cw)), cw = p.half - 8;
  const ha = sh.textBlock(b.attnCaption, sh.x, sh.y, cw, 12, sh.sc.css.attention, true);
  const hf = sh.textBlock(b.ffnCaption, sh.x + p.half, sh.y, cw, 12, sh.sc.css.ffn, true);
  sh.y += Math.max(ha, hf) + 6;
  sh.plotWithNote(p.w, p.h, (g) => paintLinks(g, res, sh.sc, p), b.note);
}
