/* sheet.js - a figure's blocks (figures/*.js) drawn top to bottom into a recorder at a fixed
   width: the static picture behind the SVG/PNG export and tools/render.js. No DOM; the page
   draws the same blocks as elements (dom/blocks.js). Text widths come from the recorder's fixed
   metrics, so Node and every browser lay out the same bytes. */
import * as format from './format.js';
import { FONT, layout as heatLayout, record } from './heatmap.js';
import { CURVE_MAX_H, curve, curveLayout, links, linksLayout } from './plots.js';
import { textWidth } from './recorder.js';
import { drawCounts as counts } from './counts.js';
import { drawGroups as groups } from './groups.js';
import { nextchars } from './sheet-next.js';
import { CHART_BLOCKS } from './sheet-charts.js';

const PAD = 18;
const FONT_AT = FONT.replace('12px', '{size}px');
export function font(size, bold) { return (bold ? '600 ' : '') + FONT_AT.replace('{size}', size); }
const width = (text, f) => textWidth(text, f);

// Greedy line breaking: at spaces, and between wide (CJK) characters; closing full-width
// punctuation stays with what it follows.
const UNITS = /[\u2e80-\u9fff\uac00-\ud7a3\uf900-\ufaff\uff00-\uffef][\u3000-\u303f\uff0c\uff1a\uff1b\uff01\uff09]*|[^\s\u2e80-\u9fff\uac00-\ud7a3\uf900-\ufaff\uff00-\uffef]+[\u3001\u3002\uff0c\uff1a\uff1b\uff01\uff1f\uff09]*\s*|\s+/g;
export function wrap(text, f, maxW) {
  const units = String(text).match(UNITS) || [], lines = [];
  let line = '';
  for (const u of units) {
    if (line && width((line + u).replace(/\s+$/, ''), f) > maxW) { lines.push(line.replace(/\s+$/, '')); line = u.replace(/^\s+/, ''); }
    else line += u;
  }
  if (line.replace(/\s+$/, '')) lines.push(line.replace(/\s+$/, ''));
  return lines;
}

// Widths w (px) with `gap` between them, at most `avail` per row -> the indices where a new row
// starts, for the fewest rows whose widest row is as narrow as possible ([] for one row). The
// page's flow (dom/flow.js) and the export's split their chains the same way.
export function balance(w, gap, avail) {
  const n = w.length, rowW = (i, j) => w.slice(i, j).reduce((a, v) => a + v, 0) + gap * (j - i - 1);
  if (rowW(0, n) <= avail) return [];
  for (let rows = 2; rows <= n; rows++) {
    let best = null, bestW = Infinity;
    const cut = (from, left, starts, widest) => {
      if (left === 1) {
        const wd = Math.max(widest, rowW(from, n));
        if (wd <= avail && wd < bestW) { bestW = wd; best = starts.slice(); }
        return;
      }
      for (let j = from + 1; j <= n - left + 1; j++) {
        const wd = rowW(from, j);
        if (wd > avail || wd >= bestW) break;
        starts.push(j);
        cut(j, left - 1, starts, Math.max(widest, wd));
        starts.pop();
      }
    };
    cut(0, rows, [], 0);
    if (best) return best;
  }
  return w.map((_, i) => i).slice(1);   // nothing fits: one unit per row
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
    this.y += this.textBlock(text, this.x, this.y, this.cw, size || 12.5, color || this.sc.css.muted, bold) + (gap === undefined ? 10 : gap);
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
        r.font = font(12, true); r.fillStyle = '#ffffff'; r.textAlign = 'left'; r.textBaseline = 'middle';
        r.fillText(label, x + 8, y + h / 2);
      }
      x += pw;
    }
  }
}

// The two ends of a legend's scale as text.
export function legendEnds(lg) {
  if (lg.max === null) return [format.MINUS, '+'];
  return [lg.kind === 'diverging' ? format.short(-lg.max) : '0', format.short(lg.max)];
}

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

// ---- the blocks ------------------------------------------------------------------------------
const BLOCKS = {
  nextchars,
  ...CHART_BLOCKS,
  groups,
  counts,
  headline(sh, b) { sh.para(b.text, 13, sh.sc.css.fg, true); },
  note(sh, b) { sh.para(b.text, 12); },
  stats(sh, b) {
    sh.para(b.items.map((it) => it.num + ' ' + it.label).join('  \u00b7  '), 13, sh.sc.css.fg, true);
  },
  legend(sh, b) { sh.y += sh.legend(sh.x, sh.y, b) + 10; },

  // Cards (name, shape, thumbnail, note) joined by operations. An operation stays with the
  // card it makes (a unit); units go in the fewest rows of about equal width (as on the page).
  flow(sh, b) {
    const r = sh.rec, items = b.items.map((it) => Object.assign({}, it)), GAP = 6;
    for (const it of items) {
      if (it.op !== undefined) {
        // The operation's text never breaks; the line under it wraps at its width or 100 px.
        const opW = width(it.op, font(12, true));
        it.lines = it.sub ? wrap(it.sub, font(10.5), Math.max(100, opW)) : [];
        it.w = Math.ceil(Math.max(40, opW, ...it.lines.map((l) => width(l, font(10.5)))) + 4);
        it.h = 44 + it.lines.length * 14;
      } else {
        if (it.thumb) it.thumb = Object.assign({}, it.thumb, { width: Math.min(it.thumb.maxWidth || 200, it.thumb.width || 160) });
        it.g = it.thumb ? heatLayout(r, it.thumb) : { w: 0, h: -6 };
        it.w = Math.ceil(Math.max(56, it.g.w, width(it.name, font(13, true)), width(it.shape || '', font(11))) + 20);
        it.noteLines = it.note ? wrap(it.note, font(10.5), it.w - 20) : [];
      }
    }
    const units = [];
    items.forEach((it) => { if (it.op !== undefined || !units.length) units.push([]); units[units.length - 1].push(it); });
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
  },

  // Heatmaps side by side: 'pair' (two columns when they fit), 'heads' (as many ~230 px
  // columns as fit), 'stages' (widths in proportion to their columns).
  panels(sh, b) {
    const n = b.panels.length, gap = b.layout === 'pair' ? 26 : b.layout === 'heads' ? 22 : 16;
    let widths;
    if (b.layout === 'stages') {
      const flex = b.panels.map((p) => p.flex), sum = flex.reduce((a, v) => a + v, 0), avail = sh.cw - gap * (n - 1);
      widths = flex.map((k) => Math.max(110, Math.floor(avail * k / sum)));
      const over = widths.reduce((a, v) => a + v, 0) - avail;
      if (over > 0 && over < avail) widths = widths.map((w, i) => (w > 110 ? Math.max(110, w - Math.ceil(over * flex[i] / sum * 2)) : w));
    } else if (b.layout === 'one') {
      widths = [sh.cw];
    } else {
      const min = b.layout === 'pair' ? 220 : 230, per = Math.max(1, Math.min(n, Math.floor((sh.cw + gap) / (min + gap))));
      widths = b.panels.map(() => Math.floor((sh.cw - gap * (per - 1)) / per));
    }
    sh.grid(widths, 14, (i, x, y, w) => {
      const p = b.panels[i], got = sh.panel(p.spec, x, y, w);
      if (!p.legend) return got.h;
      sh.legend(x, y + got.h + 4, p.legend, w);
      return got.h + 22;
    });
    if (b.legend) sh.y += sh.legend(sh.x, sh.y - 6, b.legend) + 12;
    if (b.note) { sh.note(b.note, sh.x, sh.y - 6, sh.cw); sh.y += 18; }
  },

  // Many heads: which one is large and which are shown, then the small multiples in a row,
  // the picked one outlined.
  multiples(sh, b) {
    const r = sh.rec, sc = sh.sc;
    sh.para(b.label + ': ' + (b.value + 1) + '  \u00b7  ' + b.range, 12.5, sc.css.fg, true, 8);
    const gs = b.panels.map((p) => heatLayout(r, p.spec)), GAP = 10;
    const starts = [0, ...balance(gs.map((g) => g.w + 4), GAP, sh.cw), gs.length];
    for (let k = 0; k + 1 < starts.length; k++) {
      let x = sh.x, rowH = 0;
      for (let i = starts[k]; i < starts[k + 1]; i++) {
        const p = b.panels[i], g = gs[i], on = p.head === b.value, y = sh.y;
        r.font = font(11, on); r.fillStyle = on ? sc.css.fg : sc.css.muted; r.textAlign = 'left'; r.textBaseline = 'alphabetic';
        r.fillText(p.title, x + 2, y + 11);
        record(r, p.spec, sc, x + 2, y + 16);
        if (on) { r.strokeStyle = sc.css.focus; r.lineWidth = 2; r.strokeRect(x, y + 14, g.w + 4, g.h + 4); }
        rowH = Math.max(rowH, 20 + g.h);
        x += g.w + 4 + GAP;
      }
      sh.y += rowH + 10;
    }
  },

  curve(sh, b, res, ctx) {
    sh.para(b.title, 13, sh.sc.css.fg, true, 6);
    const p = curveLayout(sh.rec, res, Math.min(420, sh.cw), CURVE_MAX_H);
    sh.plotWithNote(p.w, p.h, (g) => curve(g, res, sh.sc, ctx.t, p), b.note);
  },

  // Each caption over its half of the drawing, wrapped to that half.
  links(sh, b, res) {
    const p = linksLayout(sh.rec, res, Math.min(520, sh.cw)), cw = p.half - 8;
    const ha = sh.textBlock(b.attnCaption, sh.x, sh.y, cw, 12, sh.sc.css.attention, true);
    const hf = sh.textBlock(b.ffnCaption, sh.x + p.half, sh.y, cw, 12, sh.sc.css.ffn, true);
    sh.y += Math.max(ha, hf) + 6;
    sh.plotWithNote(p.w, p.h, (g) => links(g, res, sh.sc, p), b.note);
  },

  bar(sh, b, res, ctx) {
    sh.bar(sh.x, sh.y, sh.cw, 30, b.parts, b.parts.reduce((a, p) => a + p.n, 0), true, ctx.t);
    sh.y += 40;
  },

  formulas(sh, b) {
    const r = sh.rec, lw = Math.max(...b.rows.map((row) => width(row[0], font(12.5, true)))) + 12;
    for (const row of b.rows) {
      r.font = font(12.5, true); r.fillStyle = sh.sc.css.fg; r.textAlign = 'left'; r.textBaseline = 'alphabetic';
      r.fillText(row[0], sh.x, sh.y + 13);
      sh.y += sh.textBlock(row[1], sh.x + lw, sh.y, sh.cw - lw, 12.5, sh.sc.css.fg) + 4;
    }
    sh.y += 4;
  },

  swatches(sh, b) {
    const r = sh.rec;
    let x = sh.x;
    r.font = font(11.5); r.textBaseline = 'middle'; r.textAlign = 'left';
    for (const s of b.items) {
      const w = 16 + width(s.label, font(11.5)) + 16;
      if (x > sh.x && x + w > sh.x + sh.cw) { x = sh.x; sh.y += 18; }
      r.fillStyle = sh.sc.css[s.key]; r.fillRect(x, sh.y + 2, 11, 11);
      r.fillStyle = sh.sc.css.muted; r.fillText(s.label, x + 16, sh.y + 8);
      x += w;
    }
    sh.y += 24;
  },

  // A table whose cells are text or a bar of parts; numbers right-aligned, a sub-line under a cell.
  table(sh, b, res, ctx) {
    const r = sh.rec, cols = b.columns, f = font(12), fb = font(11, true), fs = font(10.5);
    sh.para(b.caption, 13, sh.sc.css.fg, true, 6);
    const cellW = (c, text) => width(text, c === 0 ? f : f);
    const need = cols.map((c, i) => (c.bar ? 0 : Math.max(width(c.label, fb),
      ...b.rows.map((row) => Math.max(cellW(i, row.cells[i] || ''), row.sub && row.sub[i] ? width(row.sub[i], fs) : 0))) + 12));
    need[0] = Math.min(220, need[0]);
    const barW = Math.max(80, sh.cw - need.reduce((a, v) => a + v, 0));
    const xs = [];
    let x = sh.x;
    cols.forEach((c, i) => { xs.push(x); x += c.bar ? barW : need[i]; });
    const right = (i) => xs[i] + (cols[i].bar ? barW : need[i]) - 6;
    r.font = fb; r.fillStyle = sh.sc.css.muted; r.textBaseline = 'alphabetic';
    cols.forEach((c, i) => {
      r.textAlign = c.num ? 'right' : 'left';
      r.fillText(c.label, c.num ? right(i) : xs[i], sh.y + 12);
    });
    sh.y += 18;
    r.fillStyle = sh.sc.css.line; r.fillRect(sh.x, sh.y, sh.cw, 1);
    sh.y += 4;
    for (const row of b.rows) {
      const hasSub = row.sub && row.sub.some((s) => s);
      cols.forEach((c, i) => {
        if (c.bar) {
          const parts = row.cells[i], total = parts.reduce((a, p) => a + p.n, 0);
          sh.bar(xs[i], sh.y + 4, barW - 8, 14, parts, total, false, ctx.t);
          return;
        }
        r.font = f; r.fillStyle = sh.sc.css.fg; r.textAlign = c.num ? 'right' : 'left'; r.textBaseline = 'middle';
        r.fillText(i === 0 ? format.label(row.cells[i], 40) : row.cells[i], c.num ? right(i) : xs[i], sh.y + 11);
        if (row.sub && row.sub[i]) {
          r.font = fs; r.fillStyle = sh.sc.css.muted;
          r.fillText(row.sub[i], c.num ? right(i) : xs[i], sh.y + 25);
        }
      });
      sh.y += hasSub ? 36 : 24;
    }
    sh.y += 6;
  }
};

// Draws the blocks in order; an unknown block type is a programming error.
export function drawBlocks(sh, blocks, res, ctx) {
  for (const b of blocks) {
    if (!Object.prototype.hasOwnProperty.call(BLOCKS, b.type)) throw new Error('BlockLens: unknown block "' + b.type + '"');
    BLOCKS[b.type](sh, b, res, ctx);
  }
}
