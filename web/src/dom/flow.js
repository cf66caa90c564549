/* flow.js - a left-to-right chain of tensors and operations with their shapes, used by the FFN
   pipeline and the attention split. It wraps to a top-down chain on narrow screens (CSS). */
import { el } from './el.js';
import { draw as drawHeatmap } from './heatmap-canvas.js';
import * as interact from './interact.js';

// items: [{ op: text, sub: text } | { name, shape, note, thumb: heatmap spec or null }]
// Returns the thumbnail canvases so the caller can draw into them after layout.
function render(root, items, ctx) {
  root.textContent = '';
  root.classList.add('flow');
  const thumbs = [];
  items.forEach(function (it) {
    if (it.op !== undefined) {
      const op = el('div', 'flow-op');
      op.appendChild(el('span', 'flow-arrow', '\u2192'));
      op.appendChild(el('span', 'flow-op-text', it.op));
      if (it.sub) op.appendChild(el('span', 'flow-op-sub', it.sub));
      root.appendChild(op);
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
      thumbs.push({ canvas: canvas, spec: it.thumb });
    }
    if (it.note) card.appendChild(el('span', 'flow-note', it.note));
    root.appendChild(card);
  });
  // Thumbnails are drawn once the cards have their size (as later jobs: see panel.js).
  thumbs.forEach(function (th) {
    function paint() {
      th.spec.width = Math.min(th.spec.maxWidth || 200, th.canvas.parentNode.clientWidth || 160);
      drawHeatmap(th.canvas, th.spec, ctx.scheme, ctx.defer);
    }
    if (ctx.defer) ctx.defer(paint); else paint();
  });
  return thumbs;
}

export { render };
