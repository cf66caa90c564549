/* groups.js - the `groups` block: a matrix with the groups a statistic is taken over (its rows
   or its columns) ruled and one of them outlined, and the statistics as heatmap strips along
   that axis (one value per row to the right, one per column below); or, without an axis,
   a matrix with some cells outlined (the experts a router chose). Layout and overlay only;
   the cells are heatmap.js's. The page (dom/blocks/groups.js) and the export
   (draw/svg/groups.js) run the same layout, so both show the same cards.
   card: { title, shape, note, axis: 'rows' | 'cols' | null, hi (group outlined), cells
   ([[r, c], ...] outlined), matrix, strips (heatmap specs without width; strips optional),
   table }. */
import { layout } from './heatmap.js';

const GAP = 2;   // px between the matrix and its strips

// Where the matrix and the strips go in a card `width` wide (ctx measures the labels): specs
// with their widths set, geometries, offsets, total size. Every card of `all` (the block's)
// leaves room for the widest strips beside a matrix, so their matrices get the same cells.
export function groupLayout(ctx, card, width, all) {
  const beside = (c) => layout(ctx, Object.assign({}, c.strips, { width: 200 })).w;
  const reserve = Math.max(0, ...(all || [card]).filter((c) => c.axis === 'rows' && c.strips)
    .map((c) => beside(c) + GAP));
  const m = Object.assign({}, card.matrix, { width: Math.max(60, width - reserve) }), gm = layout(ctx, m);
  let s, gs;
  if (!card.strips) return { m, s: null, gm, gs: null, mx: 0, my: 0, sx: 0, sy: 0, w: gm.w, h: gm.h };
  if (card.axis === 'rows') {
    s = Object.assign({}, card.strips, { width: beside(card), cellH: gm.ch });
    gs = layout(ctx, s);
    // Rows level with the matrix's, whatever the strips' labels took above them.
    const my = Math.max(0, gs.top - gm.top), sy = Math.max(0, gm.top - gs.top);
    return { m, s, gm, gs, mx: 0, my, sx: gm.w + GAP, sy, w: gm.w + GAP + gs.w, h: Math.max(my + gm.h, sy + gs.h) };
  }
  s = Object.assign({}, card.strips, { maxCell: gm.cw, cellH: Math.max(8, Math.min(16, gm.ch)), width: gm.w + 200 });
  gs = layout(ctx, s);
  const dx = gm.left - gs.left, mx = Math.max(0, -dx), sx = Math.max(0, dx);
  return { m, s, gm, gs, mx, my: 0, sx, sy: gm.h + GAP - 4, w: Math.max(mx + gm.w, sx + gs.w),
    h: gm.h + GAP - 4 + gs.h };
}

// On one part (which: 'matrix' | 'strips', drawn at this context's origin with geometry g): a rule
// between neighbouring groups where they are at least 5 px thick, and group `hi` outlined; or
// the card's cells outlined.
export function groupOverlay(ctx, card, which, g, spec, sc) {
  if (card.cells) {
    if (which !== 'matrix') return;
    ctx.strokeStyle = sc.css.focus; ctx.lineWidth = 2;
    const w = Math.max(2, g.cw - 3), h = Math.max(2, g.ch - 3);
    for (const [r, c] of card.cells) ctx.strokeRect(g.left + c * g.cw + 0.5, g.top + r * g.ch + 0.5, w, h);
    return;
  }
  if (!card.axis) return;
  const rows = card.axis === 'rows', n = rows ? spec.rows : spec.cols, size = rows ? g.ch : g.cw;
  const x0 = g.left, y0 = g.top, W = spec.cols * g.cw, H = spec.rows * g.ch;
  if (which === 'matrix' && size >= 5) {
    ctx.fillStyle = sc.css.muted;
    for (let i = 1; i < n; i++) {
      if (rows) ctx.fillRect(x0, y0 + i * g.ch - 1, W - 1, 1);
      else ctx.fillRect(x0 + i * g.cw - 1, y0, 1, H - 1);
    }
  }
  const hi = Math.max(0, Math.min(n - 1, card.hi || 0)), t = Math.max(size, 3);
  const box = rows ? [x0, y0 + hi * g.ch + (size - t) / 2, W, t] : [x0 + hi * g.cw + (size - t) / 2, y0, t, H];
  ctx.strokeStyle = sc.css.focus; ctx.lineWidth = 2;
  ctx.strokeRect(box[0] - 1, box[1] - 1, box[2] + 1, box[3] + 1);
}
