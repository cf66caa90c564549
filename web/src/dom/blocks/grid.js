/* grid.js - the `grid` block on the page (figure 12, the model view): a small heatmap per layer x
   head in its own horizontally scrolling box, each a button framed and badged by a measure; hover
   or focus shows the cell's text under the grid, pressing it calls block.pick and scrolls to
   block.target. Each map is drawn as a job of its own (the page's slices), so 30 x 9 maps of 64
   tokens never make a long task. The export draws it in draw/svg/grid.js. */
import * as colors from '../../draw/colors.js';
import { el, setText } from '../el.js';
import { draw as drawHeatmap } from '../heatmap-canvas.js';

export function grid() {
  const box = el('div', 'mv'), scroll = el('div', 'mv-scroll'), table = el('div', 'mv-grid');
  const hover = el('p', 'mv-hover fig-note'), hint = el('p', 'mv-press fig-note');
  hover.setAttribute('aria-live', 'polite');
  scroll.appendChild(table);
  box.appendChild(hint); box.appendChild(scroll); box.appendChild(hover);
  let cur = null, shape = '', buttons = [], gen = 0;
  const show = (i) => setText(hover, cur && cur.cells[i] ? cur.cells[i].hint : '');
  // (Rebuilt only when the grid's shape changes: focus and scroll position survive a redraw.)
  function build(b) {
    table.textContent = '';
    table.style.gridTemplateColumns = 'auto repeat(' + b.heads + ', max-content)';
    table.appendChild(el('span', 'mv-corner'));
    const heads = [];
    for (let h = 0; h < b.heads; h++) heads.push(table.appendChild(el('span', 'mv-col')));
    buttons = [];
    const rows = [];
    for (let l = 0; l < b.layers; l++) {
      rows.push(table.appendChild(el('span', 'mv-row')));
      for (let h = 0; h < b.heads; h++) {
        const i = buttons.length, btn = el('button', 'mv-cell'), canvas = el('canvas', 'hm');
        btn.type = 'button';
        btn.dataset.layer = l; btn.dataset.head = h;
        btn.appendChild(canvas);
        btn.appendChild(el('span', 'mv-badge'));
        btn.addEventListener('pointerenter', () => show(i));
        btn.addEventListener('focus', () => show(i));
        btn.addEventListener('click', () => {
          const c = cur.cells[i];
          cur.pick(c.layer, c.head);
          const target = cur.target && document.getElementById(cur.target);
          if (target) target.scrollIntoView({ block: 'start' });
        });
        table.appendChild(btn);
        buttons.push(btn);
      }
    }
    return { heads, rows };
  }
  let labels = null;
  return { root: box, update: (b, ctx) => {
    cur = b;
    const key = b.layers + 'x' + b.heads;
    if (key !== shape) { labels = build(b); shape = key; }
    labels.heads.forEach((s, h) => setText(s, b.colLabel(h)));
    labels.rows.forEach((s, l) => setText(s, b.rowLabel(l)));
    table.setAttribute('role', 'group');
    table.setAttribute('aria-label', b.label);
    setText(hint, b.hint);
    const rgb = [0, 0, 0], later = ctx.defer || ((f) => f()), n = ++gen;
    b.cells.forEach((c, i) => {
      const btn = buttons[i], canvas = btn.firstChild;
      colors.color(ctx.scheme, 'sequential', c.strength, 1, rgb);
      btn.style.borderColor = 'rgb(' + rgb.join(',') + ')';
      btn.dataset.strength = c.strength.toFixed(4);
      btn.setAttribute('aria-label', c.hint);
      setText(btn.lastChild, c.badge);
      // One job per map; a newer update makes the older jobs do nothing.
      later(() => {
        if (n !== gen) return;
        drawHeatmap(canvas, c.spec, ctx.scheme, null);
        canvas.removeAttribute('role');
      });
    });
    if (box.contains(document.activeElement)) show(buttons.indexOf(document.activeElement));
  } };
}
