/* index.js - the export renderer's blocks: drawBlocks draws a figure's blocks in order into a
   Sheet (sheet.js); the small text blocks live here, the others one file per block type, named as
   the page's renderer names them (dom/blocks/). */
import * as format from '../format.js';
import { toggles, toplists } from './ablation.js';
import { charts } from './charts.js';
import { counts } from './counts.js';
import { flow } from './flow.js';
import { groups } from './groups.js';
import { nextchars } from './nextchars.js';
import { multiples, panels } from './panels.js';
import { curve, links } from './plots.js';
import { font, width } from './sheet.js';

export function bar(sh, b, res, ctx) {
  sh.bar(sh.x, sh.y, sh.cw, 30, b.parts, b.parts.reduce((a, p) => a + p.n, 0), true, ctx.t);
  sh.y += 40;
}

export function formulas(sh, b) {
  const r = sh.rec, lw = Math.max(...b.rows.map((row) => width(row[0], font(12.5, true)))) + 12;
  for (const row of b.rows) {
    r.font = font(12.5, true); r.fillStyle = sh.sc.css.fg; r.textAlign = 'left'; r.textBaseline = 'alphabetic';
    r.fillText(row[0], sh.x, sh.y + 13);
    sh.y += sh.textBlock(row[1], sh.x + lw, sh.y, sh.cw - lw, 12.5, sh.sc.css.fg) + 4;
  }
  sh.y += 4;
}

export function swatches(sh, b) {
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
}

// A table whose cells are text or a bar of parts; numbers right-aligned, a sub-line under a cell.
export function table(sh, b, res, ctx) {
  const r = sh.rec, cols = b.columns, f = font(12), fb = font(11, true), fs = font(10.5);
  sh.para(b.caption, 13, sh.sc.css.fg, true, 6);
  const cellW = (c, text) => width(text, c === 0 ? f : f);
  const need = cols.map((c, i) => (c.bar ? 0 : Math.max(width(c.label, fb),
    ...b.rows.map((row) => Math.max(cellW(i, row.cells[i] || ''), row.sub && row.sub[i] ? width(row.sub[i], fs) : 0)))
    + 12));
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

const BLOCKS = {
  nextchars,
  ...charts,
  groups,
  counts,
  headline(sh, b) { sh.para(b.text, 13, sh.sc.css.fg, true); },
  note(sh, b) { sh.para(b.text, 12); },
  stats(sh, b) {
    sh.para(b.items.map((it) => it.num + ' ' + it.label).join('  \u00b7  '), 13, sh.sc.css.fg, true);
  },
  legend(sh, b) { sh.y += sh.legend(sh.x, sh.y, b) + 10; },
  flow, panels, multiples, curve, links, bar, formulas, swatches, table, toggles, toplists
};

// Draws the blocks in order; an unknown block type is a programming error.
export function drawBlocks(sh, blocks, res, ctx) {
  for (const b of blocks) {
    if (!Object.prototype.hasOwnProperty.call(BLOCKS, b.type)) {
      throw new Error('BlockLens: unknown block "' + b.type + '"');
    }
    BLOCKS[b.type](sh, b, res, ctx);
  }
}
