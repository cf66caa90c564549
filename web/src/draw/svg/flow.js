/* flow.js - the `flow` block in the export: cards (name, shape, thumbnail, note) joined by
   operations, split into rows as the page splits them (dom/blocks/flow.js). */
import { layout as heatLayout, record } from '../heatmap.js';
import { balance } from '../layout.js';
import { font, width, wrap } from './sheet.js';

// One item of a flow at (x, y): an operation (arrow, text, wrapped line under it) or a card.
function flowItem(sh, it, x, y, cardH) {
  const r = sh.rec, sc = sh.sc;
  if (it.op !== undefined) {
    const cx = x + it.w / 2, top = y + Math.max(0, (cardH - it.h) / 2);
    r.textAlign = 'center'; r.textBaseline = 'alphabetic';
    r.font = font(18); r.fillStyle = sc.css.muted; r.fillText('\u2192', cx, top + 20);
    r.font = font(12, true); r.fillStyle = sc.css.fg; r.fillText(it.op, cx, top + 38);
    r.font = font(10.5); r.fillStyle = sc.css.muted;
    it.lines.forEach((l, k) => r.fillText(l, cx, top + 53 + k * 14));
    return it.h;
  }
  r.fillStyle = sc.css.line; r.fillRect(x, y, it.w, cardH);
  r.fillStyle = sc.css.card; r.fillRect(x + 1, y + 1, it.w - 2, cardH - 2);
  if (it.accent) { r.fillStyle = sc.css.ffn; r.fillRect(x, y, it.w, 3); }
  r.textAlign = 'left'; r.textBaseline = 'alphabetic';
  r.font = font(13, true); r.fillStyle = sc.css.fg; r.fillText(it.name, x + 10, y + 20);
  r.font = font(11); r.fillStyle = sc.css.muted; r.fillText(it.shape || '', x + 10, y + 36);
  if (it.thumb) record(r, it.thumb, sc, x + 10 - 4, y + 44);
  r.font = font(10.5);
  it.noteLines.forEach((l, k) => r.fillText(l, x + 10, y + 44 + it.g.h + 14 + k * 14));
  return cardH;
}

// Cards (name, shape, thumbnail, note) joined by operations. An operation stays with the
// card it makes (a unit); units go in the fewest rows of about equal width (as on the page).
export function flow(sh, b) {
  const r = sh.rec, items = b.items.map((it) => Object.assign({}, it)), GAP = 6;
  for (const it of items) {
    if (it.op !== undefined) {
      // The operation's text never breaks; the line under it wraps at its width or 100 px.
      const opW = width(it.op, font(12, true));
      it.lines = it.sub ? wrap(it.sub, font(10.5), Math.max(100, opW)) : [];
      it.w = Math.ceil(Math.max(40, opW, ...it.lines.map((l) => width(l, font(10.5)))) + 4);
      it.h = 44 + it.lines.length * 14;
    } else {
      if (it.thumb) {
        it.thumb = Object.assign({}, it.thumb, { width: Math.min(it.thumb.maxWidth || 200, it.thumb.width || 160) });
      }
      it.g = it.thumb ? heatLayout(r, it.thumb) : { w: 0, h: -6 };
      it.w = Math.ceil(Math.max(56, it.g.w, width(it.name, font(13, true)), width(it.shape || '', font(11))) + 20);
      it.noteLines = it.note ? wrap(it.note, font(10.5), it.w - 20) : [];
    }
  }
  const units = [];
  items.forEach((it) => {
    if (it.op !== undefined || !units.length) units.push([]);
    units[units.length - 1].push(it);
  });
  const unitW = (u) => u.reduce((a, it) => a + it.w, 0) + GAP * (u.length - 1);
  const starts = [0, ...balance(units.map(unitW), GAP, sh.cw), units.length];
  const rows = starts.slice(1).map((end, k) => units.slice(starts[k], end));
  // Room left on a row goes to its cards whose note would otherwise wrap, shared in proportion.
  for (const row of rows) {
    const cards = row.flat().filter((it) => it.op === undefined && it.note);
    const spare = sh.cw - row.reduce((a, u) => a + unitW(u) + GAP, -GAP);
    const want = cards.map((it) => Math.max(0, Math.min(170, width(it.note, font(10.5)) + 22) - it.w));
    const all = want.reduce((a, v) => a + v, 0);
    cards.forEach((it, k) => {
      if (!want[k] || spare <= 0) return;
      it.w += Math.floor(want[k] * Math.min(1, spare / all));
      it.noteLines = wrap(it.note, font(10.5), it.w - 20);
    });
  }
  items.forEach((it) => { if (it.op === undefined) it.h = 46 + it.g.h + it.noteLines.length * 14 + 8; });
  const cardH = Math.max(...items.map((it) => (it.op === undefined ? it.h : 0)));
  for (const row of rows) {
    let x = sh.x, rowH = 0;
    for (const it of row.flat()) {
      rowH = Math.max(rowH, flowItem(sh, it, x, sh.y, cardH));
      x += it.w + GAP;
    }
    sh.y += rowH + 8;
  }
}
