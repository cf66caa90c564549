/* index.js - a figure's blocks (figures/*.js) as page elements: blockList keeps one slot per block;
   the small text blocks are made here, the others one file per block type beside it, named as the
   export's renderer names them (draw/svg/). Text goes in as text only. */
import * as format from '../../draw/format.js';
import { el } from '../el.js';
import * as panel from '../panel.js';
import { scrollCue } from '../scrollcue.js';
import { toggles, toplists } from './ablation.js';
import { lines, tokenbars } from './charts.js';
import { counts } from './counts.js';
import { flow } from './flow.js';
import { groups } from './groups.js';
import { nextchars } from './nextchars.js';
import { multiples, panels } from './panels.js';
import { curve, links } from './plots.js';

// A bar of coloured parts as spans, sized in percent.
function segBar(parts, sc, t, withText) {
  const bar = el('div', 'pbar'), total = parts.reduce((a, p) => a + p.n, 0);
  for (const p of parts) {
    if (!p.n) continue;
    const s = el('span', 'pbar-seg');
    s.style.width = (100 * p.n / total) + '%';
    s.style.background = sc.css[p.key];
    s.title = t('part_' + p.key) + ': ' + format.int(p.n) + ' (' + format.pct(p.n / total) + ')';
    if (withText) s.appendChild(el('span', 'pbar-text', t('part_' + p.key) + ' ' + format.pct(p.n / total)));
    bar.appendChild(s);
  }
  return bar;
}

// Each maker returns { root, update(block, ctx, res) }; a slot keeps its elements across
// updates, so focus, open tables and canvases survive a redraw.
const MAKERS = {
  nextchars,
  lines, tokenbars,
  groups,
  counts,
  flow, panels, multiples, curve, links,
  toggles, toplists,
  headline() {
    const p = el('p', 'fig-note result');
    return { root: p, update: (b) => { p.textContent = b.text; } };
  },
  note() {
    const p = el('p', 'fig-note');
    return { root: p, update: (b) => { p.textContent = b.text; } };
  },
  stats() {
    const box = el('div', 'stats');
    return { root: box, update: (b) => {
      box.textContent = '';
      for (const it of b.items) {
        const c = el('div', 'stat ' + it.cls);
        c.appendChild(el('span', 'stat-num', it.num));
        c.appendChild(el('span', 'stat-label', it.label));
        box.appendChild(c);
      }
    } };
  },
  legend() {
    const box = el('div', 'legend');
    return { root: box, update: (b, ctx) => panel.legend(box, ctx.scheme, b.kind, b.max, b.note) };
  },
  bar() {
    const box = el('div', 'split-bar');
    return { root: box, update: (b, ctx) => {
      box.textContent = '';
      box.appendChild(segBar(b.parts, ctx.scheme, ctx.t, true));
    } };
  },
  formulas() {
    const dl = el('dl', 'formulas');
    return { root: dl, update: (b) => {
      dl.classList.toggle('prose', !!b.prose);   // sentences, not formulas
      dl.textContent = '';
      for (const row of b.rows) { dl.appendChild(el('dt', null, row[0])); dl.appendChild(el('dd', null, row[1])); }
    } };
  },
  swatches() {
    const box = el('div', 'swatches');
    return { root: box, update: (b, ctx) => {
      box.textContent = '';
      for (const s of b.items) {
        const sw = el('span', 'swatch'), dot = el('i');
        dot.style.background = ctx.scheme.css[s.key];
        sw.appendChild(dot);
        sw.appendChild(document.createTextNode(s.label));
        box.appendChild(sw);
      }
    } };
  },
  table() {
    const box = el('div', 'table-scroll'), cue = scrollCue(box);
    return { root: cue.root, update: (b, ctx) => {
      const table = el('table', 'data presets'), hr = el('tr'), thead = el('thead'), body = el('tbody');
      table.appendChild(el('caption', null, b.caption));
      for (const c of b.columns) { const th = el('th', null, c.label); th.scope = 'col'; hr.appendChild(th); }
      thead.appendChild(hr); table.appendChild(thead);
      for (const row of b.rows) {
        const tr = el('tr');
        tr.dataset.preset = row.key;
        b.columns.forEach((c, i) => {
          let cell;
          if (i === 0) { cell = el('th', null, row.cells[i]); cell.scope = 'row'; }
          else if (c.bar) {
            cell = el('td', 'bar-cell');
            cell.appendChild(segBar(row.cells[i], ctx.scheme, ctx.t, false));
          }
          else cell = el('td', c.num ? 'num' : null, row.cells[i]);
          if (row.sub && row.sub[i]) cell.appendChild(el('span', 'sub', row.sub[i]));
          tr.appendChild(cell);
        });
        body.appendChild(tr);
      }
      table.appendChild(body);
      box.textContent = '';
      box.appendChild(table);
      cue.update(ctx.t, b.caption);
    } };
  }
};

// Slots for a list of blocks in `root`: rebuilt when the block types change, updated otherwise.
export function blockList(root) {
  let slots = [], shape = '';
  return function update(blocks, ctx, res) {
    const key = blocks.map((b) => b.type).join(' ');
    if (key !== shape) {
      slots.forEach((s) => s.root.remove());
      slots = blocks.map((b) => {
        if (!Object.prototype.hasOwnProperty.call(MAKERS, b.type)) {
          throw new Error('BlockLens: unknown block "' + b.type + '"');
        }
        const s = MAKERS[b.type]();
        s.root.classList.add('blk-' + b.type);
        root.appendChild(s.root);
        return s;
      });
      shape = key;
    }
    blocks.forEach((b, i) => slots[i].update(b, ctx, res));
  };
}

