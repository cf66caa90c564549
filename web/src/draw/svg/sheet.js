/* sheet.js - the export's drawing cursor: a figure's blocks (figures/*.js) are drawn top to bottom
   into a recorder at a fixed width (index.js, one file per block type beside it), the static picture
   behind the SVG/PNG export and tools/render.js. No DOM; the page draws the same blocks as elements
   (dom/blocks/). Text widths come from the recorder's fixed metrics, so Node and every browser lay
   out the same bytes. */
import * as format from '../format.js';
import { FONT, record } from '../heatmap.js';
import { legendEnds } from '../layout.js';
import { textWidth } from '../recorder.js';

const PAD = 18;
const FONT_AT = FONT.replace('12px', '{size}px');
export function font(size, bold) { return (bold ? '600 ' : '') + FONT_AT.replace('{size}', size); }
export const width = (text, f) => textWidth(text, f);

// Greedy line breaking: at spaces, and between wide (CJK) characters; closing full-width
// punctuation stays with what it follows.
const UNITS = /[\u2e80-\u9fff\uac00-\ud7a3\uf900-\ufaff\uff00-\uffef][\u3000-\u303f\uff0c\uff1a\uff1b\uff01\uff09]*|[^\s\u2e80-\u9fff\uac00-\ud7a3\uf900-\ufaff\uff00-\uffef]+[\u3001\u3002\uff0c\uff1a\uff1b\uff01\uff1f\uff09]*\s*|\s+/g;
export function wrap(text, f, maxW) {
  const units = String(text).match(UNITS) || [], lines = [];
  let line = '';
  for (const u of units) {
    if (line && width((line + u).replace(/\s+$/, ''), f) > maxW) {
      lines.push(line.replace(/\s+$/, '')); line = u.replace(/^\s+/, '');
    }
    else line += u;
  }
  if (line.replace(/\s+$/, '')) lines.push(line.replace(/\s+$/, ''));
  return lines;
}

// A drawing cursor over one recorder: y grows as blocks are added, top to bottom.
export class Sheet {
  constructor(rec, sc, w) {
    this.rec = rec; this.sc = sc; this.w = w; this.x = PAD; this.cw = w - 2 * PAD; this.y = PAD;
  }

  // Wrapped text at (x, y) no wider than maxW; returns the height used.
  textBlock(text, x, y, maxW, size, color, bold) {
    const f = font(size, bold), lh = Math.round(size * 1.45), r = this.rec;
    const lines = wrap(text, f, maxW);
    r.font = f; r.fillStyle = color; r.textAlign = 'left'; r.textBaseline = 'alphabetic';
    lines.forEach((l, i) => r.fillText(l, x, y + size + i * lh));
    return lines.length ? (lines.length - 1) * lh + Math.round(size * 1.35) : 0;
  }

  para(text, size, color, bold, gap) {
    this.y += this.textBlock(text, this.x, this.y, this.cw, size || 12.5, color || this.sc.css.muted, bold) +
      (gap === undefined ? 10 : gap);
  }

  // A heatmap with its title and shape above it, at (x, y) and `w` wide; returns { w, h }.
  panel(spec, x, y, w) {
    const r = this.rec, sc = this.sc;
    r.font = font(13, true); r.fillStyle = sc.css.fg; r.textAlign = 'left'; r.textBaseline = 'alphabetic';
    const title = spec.title || '', tw = width(title, r.font);
    r.fillText(title, x, y + 13);
    if (spec.shape) {
      r.font = font(11); r.fillStyle = sc.css.muted;
      r.fillText(spec.shape, x + tw + (title ? 8 : 0), y + 13);
    }
    const g = record(r, Object.assign({}, spec, { width: w }), sc, x, y + 20);
    return { w: g.w, h: 20 + g.h };
  }

  // Colour legend "lo [bar] hi  note" at (x, y) within maxW; returns the height used. max
  // null: each matrix has its own scale, so the ends read "−" and "+".
  legend(x, y, lg, maxW) {
    const r = this.rec, sc = this.sc, f = font(11);
    const lo = legendEnds(lg)[0], hi = legendEnds(lg)[1];
    r.font = f; r.fillStyle = sc.css.muted; r.textAlign = 'left'; r.textBaseline = 'middle';
    r.fillText(lo, x, y + 7);
    const room = (maxW || this.cw) - width(lo, f) - width(hi, f) - 12;
    const bx = x + width(lo, f) + 6, bw = Math.max(28, Math.min(120, room));
    const grad = r.createLinearGradient(bx, 0, bx + bw, 0), stops = sc.css[lg.kind];
    stops.forEach((c, i) => grad.addColorStop(i / (stops.length - 1), c));
    r.fillStyle = sc.css.line; r.fillRect(bx - 1, y + 2, bw + 2, 11);
    r.fillStyle = grad; r.fillRect(bx, y + 3, bw, 9);
    r.fillStyle = sc.css.muted;
    r.fillText(hi, bx + bw + 6, y + 7);
    const nx = bx + bw + 6 + width(hi, f) + 14;
    if (lg.note) this.note(lg.note, nx, y, x + (maxW || this.cw) - nx);
    return 16;
  }

  // A one-line note; a leading ● is drawn as a dot in the colour the figures use for it.
  note(note, x, y, maxW) {
    const r = this.rec, sc = this.sc, f = font(11);
    if (note.charAt(0) === '\u25cf') {
      r.fillStyle = sc.css.focus; r.beginPath(); r.arc(x + 4, y + 7.5, 3.5, 0, 2 * Math.PI); r.fill();
      note = note.slice(1).replace(/^\s+/, ''); x += 12;
    }
    r.font = f; r.fillStyle = sc.css.muted; r.textAlign = 'left'; r.textBaseline = 'middle';
    r.fillText(wrap(note, f, Math.max(60, maxW))[0] || '', x, y + 7);
  }

  // Boxes of the given widths placed left to right, wrapping; draw(i, x, y, w) returns a height.
  grid(widths, gap, draw) {
    let x = this.x, rowH = 0;
    widths.forEach((w, i) => {
      if (x > this.x && x + w > this.x + this.cw + 0.5) { this.y += rowH + gap; x = this.x; rowH = 0; }
      rowH = Math.max(rowH, draw(i, x, this.y, w));
      x += w + gap;
    });
    this.y += rowH + gap;
  }

  // A plot `pw` x `ph` drawn by paint(ctx) with its note beside it (or below when narrow).
  plotWithNote(pw, ph, paint, note) {
    const r = this.rec;
    r.save(); r.translate(this.x, this.y);
    paint(r);
    r.restore();
    if (this.cw - pw - 18 >= 180) {
      this.textBlock(note, this.x + pw + 18, this.y + 4, this.cw - pw - 18, 12, this.sc.css.muted);
      this.y += ph + 10;
    } else {
      this.y += ph + 8;
      this.para(note, 12);
    }
  }

  // A bar of coloured parts `w` wide at (x, y), labelled inside where a label fits.
  bar(x, y, w, h, parts, total, withText, t) {
    const r = this.rec, sc = this.sc;
    for (const p of parts) {
      if (!p.n) continue;
      const pw = w * p.n / total, label = t('part_' + p.key) + ' ' + format.pct(p.n / total);
      r.fillStyle = sc.css[p.key]; r.fillRect(x, y, pw, h);
      if (withText && width(label, font(12, true)) + 16 <= pw) {
        r.font = font(12, true); r.fillStyle = sc.css.barInk; r.textAlign = 'left'; r.textBaseline = 'middle';
        r.fillText(label, x + 8, y + h / 2);
      }
      x += pw;
    }
  }
}
