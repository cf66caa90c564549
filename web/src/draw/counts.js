/* counts.js - the `counts` block: one bar per item (tokens routed to each expert), its count
   above it, its label below, and a line at the average. Drawn on any 2D context: a canvas on
   the page (dom/blocks/counts.js) and the export's recorder (draw/svg/counts.js).
   block: { title, items: [{ label, n }], mean, label (text alternative), note, table }. */
import { FONT } from './heatmap.js';

const PLOT_H = 96, TOP = 18, BOTTOM = 20, PAD = 4;

function font(size, bold) { return (bold ? '600 ' : '') + FONT.replace('12px', size + 'px'); }

// Bar width and gap for `n` bars within maxW; the height the counts need.
export function countsLayout(b, maxW) {
  const n = b.items.length, slot = Math.max(4, Math.min(40, Math.floor((maxW - 2 * PAD) / n)));
  const gap = slot >= 12 ? 4 : 1, top = Math.max(1, ...b.items.map((it) => it.n), b.mean);
  return { n, slot, bw: slot - gap, w: 2 * PAD + n * slot, h: TOP + PLOT_H + BOTTOM, top,
    y: (v) => TOP + PLOT_H - PLOT_H * v / top, x: (i) => PAD + i * slot };
}

// The bars at this context's origin; p from countsLayout.
export function counts(g, b, sc, p) {
  g.fillStyle = sc.css.bg; g.fillRect(0, 0, p.w, p.h);
  const base = p.y(0), step = Math.max(1, Math.ceil(18 / p.slot));
  g.textAlign = 'center';
  b.items.forEach((it, i) => {
    const x = p.x(i), cx = x + p.bw / 2, y = p.y(it.n);
    g.fillStyle = it.n ? sc.css.ffn : sc.css.line;
    g.fillRect(x, it.n ? y : base - 2, p.bw, it.n ? base - y : 2);
    g.fillStyle = sc.css.fg;
    if (p.slot >= 14) { g.font = font(10.5); g.textBaseline = 'alphabetic'; g.fillText(String(it.n), cx, y - 4); }
    if (i % step === 0) {
      g.font = font(10.5); g.fillStyle = sc.css.muted; g.textBaseline = 'top'; g.fillText(it.label, cx, base + 5);
    }
  });
  g.fillStyle = sc.css.line; g.fillRect(PAD, base, p.w - 2 * PAD, 1);
  g.fillStyle = sc.css.fg; g.fillRect(PAD, Math.round(p.y(b.mean)), p.w - 2 * PAD, 1);
}
