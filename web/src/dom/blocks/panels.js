/* panels.js - the `panels` and `multiples` blocks on the page: heatmap panels side by side (hover,
   keyboard, data tables; dom/panel.js), and a page of small heads that pick the one shown large.
   The export draws them in draw/svg/panels.js. */
import { el, setData } from '../el.js';
import { draw as drawHeatmap } from '../heatmap-canvas.js';
import * as panel from '../panel.js';

export function panels() {
  const box = el('div'), grid = el('div'), lg = el('div', 'legend'), note = el('div', 'legend');
  box.appendChild(grid); box.appendChild(lg); box.appendChild(note);
  const made = [];
  return { root: box, update: (b, ctx) => {
    grid.className = ['heads', 'stages', 'one'].includes(b.layout) ? b.layout : 'pair';
    const cls = b.layout === 'heads' ? 'head' : b.layout === 'stages' ? 'stage' : '';
    while (made.length < b.panels.length) made.push(panel.create(grid, { cls }));
    while (made.length > b.panels.length) grid.removeChild(made.pop().root);
    b.panels.forEach((p, i) => {
      const pn = made[i];
      pn.root.className = 'panel' + (cls ? ' ' + cls : '') + (p.cls ? ' ' + p.cls : '');
      if (p.flex) pn.root.style.flex = p.flex + ' 1 0';
      setData(pn.root, p.data);
      const spec = Object.assign({}, p.spec, { noLegend: !p.legend });
      if (p.legend) Object.assign(spec, { kind: p.legend.kind, max: p.legend.max, legendNote: p.legend.note });
      pn.draw(spec, p.table, ctx);
    });
    lg.hidden = !b.legend;
    if (b.legend) panel.legend(lg, ctx.scheme, b.legend.kind, b.legend.max, b.legend.note);
    note.hidden = !b.note;
    if (b.note) panel.legendNote(note, b.note);
  } };
}

// Many heads: "Head (1-n) [<] [n] [>]", then a page of small multiples, each a button that
// picks its head. The buttons' arrows are CSS, so the text is the same as in the export.
export function multiples() {
  const box = el('div', 'head-picker'), bar = el('div', 'head-pick-bar'), label = el('label', 'head-pick-label');
  const text = el('span'), input = el('input', 'head-pick-input'), range = el('span', 'head-pick-range');
  const prev = el('button', 'mini head-step head-prev'), next = el('button', 'mini head-step head-next');
  const grid = el('div', 'head-thumbs');
  input.type = 'number'; input.min = '1'; input.step = '1'; input.name = 'head'; input.inputMode = 'numeric';
  prev.type = next.type = 'button';
  label.appendChild(text); label.appendChild(input);
  bar.appendChild(prev); bar.appendChild(label); bar.appendChild(next); bar.appendChild(range);
  box.appendChild(bar); box.appendChild(grid);
  let cur = null;
  const go = (h) => { if (cur && h >= 0 && h < cur.count && h !== cur.value) cur.pick(h); };
  prev.addEventListener('click', () => go(cur.value - 1));
  next.addEventListener('click', () => go(cur.value + 1));
  input.addEventListener('change', () => {
    const v = Number(input.value);
    if (Number.isInteger(v)) go(Math.min(cur.count, Math.max(1, v)) - 1);
    else input.value = String(cur.value + 1);
  });
  return { root: box, update: (b, ctx) => {
    cur = b;
    text.textContent = b.label;
    range.textContent = b.range;
    input.max = String(b.count);
    if (document.activeElement !== input) input.value = String(b.value + 1);
    prev.setAttribute('aria-label', b.prev); prev.title = b.prev; prev.disabled = b.value <= 0;
    next.setAttribute('aria-label', b.next); next.title = b.next; next.disabled = b.value >= b.count - 1;
    const had = grid.contains(document.activeElement) ? document.activeElement.dataset.head : null;
    grid.textContent = '';
    for (const p of b.panels) {
      const btn = el('button', 'head-thumb'), canvas = el('canvas', 'hm');
      btn.type = 'button';
      btn.dataset.head = p.head;
      btn.title = p.hint;
      btn.setAttribute('aria-pressed', String(p.head === b.value));
      btn.appendChild(el('span', 'head-thumb-title', p.title));
      btn.appendChild(canvas);
      btn.addEventListener('click', () => go(p.head));
      grid.appendChild(btn);
      drawHeatmap(canvas, p.spec, ctx.scheme, ctx.defer);
      canvas.removeAttribute('role');
      if (had === String(p.head)) btn.focus();
    }
  } };
}
