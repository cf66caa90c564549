/* flow.js - a left-to-right chain of tensors and operations with their shapes, used by the FFN
   pipeline and the attention split. Each operation stays with the tensor it makes (one unit
   that never breaks); when the units do not fit one row they are split into the fewest rows
   of about equal width. Narrow screens stack them top-down (CSS). */
import { layout as heatLayout } from '../../draw/heatmap.js';
import { balance } from '../../draw/layout.js';
import { el } from '../el.js';
import { draw as drawHeatmap } from '../heatmap-canvas.js';
import * as interact from '../interact.js';

// Line breaks between the units of `root` for its current width (read after layout, in a
// ResizeObserver callback); the DOM is touched only when the breaks change. What is observed
// is a probe as wide as the root and 0 px tall, out of the flow: the breaks change the root's
// height, never the probe's size, so the observer cannot loop.
function rebalance(root) {
  const units = Array.from(root.children).filter((c) => c.classList.contains('flow-unit'));
  const style = getComputedStyle(root);
  let want = [];
  if (style.flexDirection !== 'column') {
    const widths = units.map((u) => u.getBoundingClientRect().width);
    want = balance(widths, parseFloat(style.columnGap) || 0, root.clientWidth + 0.5);
  }
  const have = [];
  units.forEach((u, i) => {
    if (u.previousElementSibling && u.previousElementSibling.classList.contains('flow-break')) have.push(i);
  });
  if (have.join() === want.join()) return;
  root.querySelectorAll(':scope > .flow-break').forEach((b) => b.remove());
  want.forEach((i) => root.insertBefore(el('div', 'flow-break'), units[i]));
}

const observers = new WeakMap();   // root -> its ResizeObserver

// items: [{ op: text, sub: text } | { name, shape, note, thumb: heatmap spec or null }]
// Returns the thumbnail canvases so the caller can draw into them after layout.
function render(root, items, ctx) {
  root.textContent = '';
  root.classList.add('flow');
  const thumbs = [];
  let unit = null;
  items.forEach(function (it) {
    if (it.op !== undefined || !unit) { unit = el('div', 'flow-unit'); root.appendChild(unit); }
    if (it.op !== undefined) {
      const op = el('div', 'flow-op');
      op.appendChild(el('span', 'flow-arrow', '\u2192'));
      op.appendChild(el('span', 'flow-op-text', it.op));
      // The line under an operation may be as wide as the operation's text (--op-chars, in
      // its monospace characters) and wraps at about 6.6rem when that is shorter.
      op.style.setProperty('--op-chars', String(Array.from(it.op).length));
      if (it.sub) op.appendChild(el('span', 'flow-op-sub', it.sub));
      unit.appendChild(op);
      return;
    }
    const card = el('div', 'flow-card' + (it.accent ? ' accent' : ''));
    card.appendChild(el('span', 'flow-name', it.name));
    card.appendChild(el('span', 'flow-shape', it.shape));
    if (it.thumb) {
      const wrap = el('div', 'hm-wrap thumb');
      const canvas = el('canvas', 'hm');
      wrap.appendChild(canvas);
      card.appendChild(wrap);
      interact.attach(canvas);
      // The thumbnail's own width (not the card's): sized now, so the card has its final
      // size at the first layout, before the canvas is painted.
      const spec = Object.assign({}, it.thumb, { width: Math.min(it.thumb.maxWidth || 200, it.thumb.width || 160) });
      const g = heatLayout(canvas.getContext('2d'), spec);
      canvas.style.width = g.w + 'px'; canvas.style.height = g.h + 'px';
      thumbs.push({ canvas: canvas, spec: spec });
    }
    if (it.note) card.appendChild(el('span', 'flow-note', it.note));
    unit.appendChild(card);
  });
  thumbs.forEach(function (th) {
    const paint = function () { drawHeatmap(th.canvas, th.spec, ctx.scheme, ctx.defer); };
    if (ctx.defer) ctx.defer(paint); else paint();
  });
  if (typeof ResizeObserver === 'function') {
    if (observers.has(root)) observers.get(root).disconnect();
    const probe = el('div', 'flow-probe'), ro = new ResizeObserver(function () { rebalance(root); });
    probe.setAttribute('aria-hidden', 'true');
    root.appendChild(probe);
    ro.observe(probe);
    observers.set(root, ro);
  }
  return thumbs;
}

// The block: a chain redrawn in place.
export function flow() {
  const box = el('div');
  return { root: box, update: (b, ctx) => render(box, b.items, ctx) };
}
