/* panel.js - one heatmap figure: title, shape line, canvas (with hover/keyboard), colour legend
   and the data-table alternative. Views compose panels; a panel only draws into its root. */
import * as colors from '../draw/colors.js';
import { legendEnds } from '../draw/layout.js';
import { el, setHidden, setText } from './el.js';
import { draw as drawHeatmap } from './heatmap-canvas.js';
import { tracked } from './holder.js';
import * as interact from './interact.js';
import * as tables from './table.js';

function legend(root, sc, kind, max, note) {
  // (Rebuilt only when it would differ: a redraw of many panels otherwise restyles each.)
  const key = [sc.name, kind, max, note].join('\u0001');
  if (root.dataset.key === key) return;
  root.dataset.key = key;
  root.textContent = '';
  const ends = legendEnds({ kind: kind, max: max });
  root.appendChild(el('span', 'lg-num', ends[0]));
  const bar = el('span', 'lg-bar');
  bar.style.background = colors.gradient(sc, kind);
  root.appendChild(bar);
  root.appendChild(el('span', 'lg-num', ends[1]));
  if (note) legendNote(root, note, true);
}

// A legend's note; a leading ● is shown in the colour the figures draw it in.
function legendNote(root, note, keep) {
  if (!keep) root.textContent = '';
  const n = el('span', 'lg-note');
  if (note.charAt(0) === '\u25cf') {   // the "changed row" dot
    n.appendChild(el('span', 'lg-dot', '\u25cf'));
    note = note.slice(1);
  }
  n.appendChild(document.createTextNode(note));
  root.appendChild(n);
}

// opts: { cls } ; returns an object whose draw() takes the heatmap spec and table spec.
function create(parent, opts) {
  opts = opts || {};
  const root = el('figure', 'panel' + (opts.cls ? ' ' + opts.cls : ''));
  const head = el('figcaption', 'panel-head');
  const title = el('span', 'panel-title');
  const shape = el('span', 'panel-shape');
  head.appendChild(title); head.appendChild(shape);
  root.appendChild(head);
  const wrap = el('div', 'hm-wrap');
  const canvas = el('canvas', 'hm');
  wrap.appendChild(canvas);
  root.appendChild(wrap);
  const lg = el('div', 'legend');
  root.appendChild(lg);
  const table = tables.create();
  root.appendChild(table.root);
  parent.appendChild(root);
  interact.attach(canvas);

  // spec: heatmap spec (see heatmap.js) plus title, shape, legendNote; tableSpec for table.js.
  // The canvas is painted now, or as a later job when the page draws in slices (ctx.defer).
  let last = null;
  // The wrapper's width comes from the page layout, never from the canvas, so redrawing at
  // the new width cannot loop; this catches scrollbars appearing, resizes and reflows. Such a
  // repaint is a task of its own, whole, not a job of the page's drawing: a newer drawing drops
  // its queued jobs (slices cancel()) and need not redraw this figure, which would then stay at
  // the old width or half painted.
  const width = tracked(wrap, () => { if (last) setTimeout(() => paint(null), 0); });
  // defer: the page's slices.add (the bands as later jobs), or null (all now).
  function paint(defer) {
    const spec = last.spec, ctx = last.ctx;
    spec.width = width() || root.clientWidth || 300;
    drawHeatmap(canvas, spec, ctx.scheme, defer, true);
    interact.refresh(canvas);
  }
  function later(ctx) {
    if (ctx.defer) ctx.defer(() => paint(ctx.defer)); else paint(null);
  }
  function draw(spec, tableSpec, ctx) {
    last = { spec: spec, ctx: ctx };
    setText(title, spec.title || '');
    setText(shape, spec.shape || '');
    later(ctx);
    setHidden(lg, spec.noLegend === true);
    if (!lg.hidden) legend(lg, ctx.scheme, spec.kind, spec.max, spec.legendNote);
    if (tableSpec) table.update(tableSpec, ctx.t);
  }
  return { root: root, canvas: canvas, wrap: wrap, draw: draw };
}

export { create, legend, legendNote };
