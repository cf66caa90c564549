/* groups.js - the `groups` block on the page (draw/groups.js lays it out; draw/svg/groups.js draws
   the export): cards of a matrix with its averaging groups and their statistics as strips, each part a
   heatmap canvas with hover and keyboard, the card's note and its data table. */
import { groupLayout, groupOverlay } from '../../draw/groups.js';
import { el } from '../el.js';
import { draw as drawHeatmap } from '../heatmap-canvas.js';
import * as panel from '../panel.js';
import { tracked } from '../holder.js';
import * as interact from '../interact.js';
import * as tables from '../table.js';

function card(parent) {
  const root = el('figure', 'panel groups-card'), head = el('figcaption', 'panel-head');
  const title = el('span', 'panel-title'), shape = el('span', 'panel-shape');
  head.appendChild(title); head.appendChild(shape); root.appendChild(head);
  const wrap = el('div', 'hm-wrap groups-draw');
  const m = el('canvas', 'hm groups-matrix'), s = el('canvas', 'hm groups-strips');
  wrap.appendChild(m); wrap.appendChild(s); root.appendChild(wrap);
  const note = el('p', 'fig-note groups-note'), table = tables.create();
  root.appendChild(note); root.appendChild(table.root);
  parent.appendChild(root);
  interact.attach(m); interact.attach(s);
  let last = null, n = 0;
  // (A width change repaints in a task of its own, whole: see panel.js.)
  const width = tracked(wrap, () => { if (last) setTimeout(() => paint(null), 0); });

  // Both canvases, then the rules and outline over each once its cells are painted; defer: the
  // page's slices.add, or null (all now).
  function paint(defer) {
    const c = last.card, ctx = last.ctx, sc = ctx.scheme, mine = ++n;
    const lay = groupLayout(m.getContext('2d'), c, width() || 300, last.all);
    const below = c.axis !== 'rows';
    wrap.classList.toggle('groups-below', below);
    // Side by side: the wrapper's flex gap; one below the other: the layout's offsets.
    m.style.marginLeft = below ? lay.mx + 'px' : '';
    m.style.marginTop = below ? '' : lay.my + 'px';
    s.style.marginLeft = below ? lay.sx + 'px' : '';
    s.style.marginTop = (below ? lay.sy - lay.gm.h : lay.sy) + 'px';
    s.hidden = !lay.s;
    [[m, lay.m, 'matrix'], [s, lay.s, 'strips']].forEach(([cv, spec, which]) => {
      if (!spec) return;
      const g = drawHeatmap(cv, spec, sc, defer);
      const over = () => { if (n === mine) groupOverlay(cv.getContext('2d'), c, which, g, spec, sc); };
      if (defer) defer(over); else over();
      interact.refresh(cv);
    });
  }
  function later(ctx) {
    if (ctx.defer) ctx.defer(() => paint(ctx.defer)); else paint(null);
  }
  return { root, update(c, ctx, all) {
    last = { card: c, ctx, all };
    title.textContent = c.title;
    shape.textContent = c.shape || '';
    note.textContent = c.note || '';
    note.hidden = !c.note;
    root.dataset.axis = c.axis || '';
    if (c.data) Object.keys(c.data).forEach((k) => { root.dataset[k] = c.data[k]; });
    table.update(c.table, ctx.t);
    later(ctx);
  } };
}

export function groups() {
  const box = el('div'), grid = el('div', 'groups'), lg = el('div', 'legend'), cards = [];
  box.appendChild(grid); box.appendChild(lg);
  return { root: box, update(b, ctx) {
    while (cards.length < b.cards.length) cards.push(card(grid));
    while (cards.length > b.cards.length) grid.removeChild(cards.pop().root);
    grid.dataset.n = b.cards.length;
    b.cards.forEach((c, i) => cards[i].update(c, ctx, b.cards));
    lg.hidden = !b.legend;
    if (b.legend) panel.legend(lg, ctx.scheme, b.legend.kind, b.legend.max, b.legend.note);
  } };
}
