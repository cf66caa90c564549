/* ablation.js - the head ablation figure's two blocks on the page (draw/svg/ablation.js draws
   them for the export): `toggles`, a layers x (heads + FFN) grid of switches (buttons with
   aria-pressed, so Tab / Enter / Space work) and a clear button; `toplists`, lists of the most
   likely next tokens side by side (before and after), each item a button that follows it. */
import { el } from '../el.js';

export function toggles() {
  const box = el('div', 'abl-toggles'), cap = el('p', 'fig-note'), grid = el('div', 'abl-grid');
  const clear = el('button', 'mini abl-clear');
  clear.type = 'button';
  box.appendChild(cap); box.appendChild(grid); box.appendChild(clear);
  let cur = null;
  clear.addEventListener('click', () => { if (cur) cur.clear.run(); });
  return { root: box, update: (b) => {
    cur = b;
    cap.textContent = b.caption;
    clear.textContent = b.clear.label;
    clear.disabled = !b.any;
    // (The focused switch keeps its place: the grid is rebuilt, focus goes back to the same cell.)
    const focused = document.activeElement && grid.contains(document.activeElement)
      ? document.activeElement.dataset.cell : null;
    grid.textContent = '';
    grid.style.gridTemplateColumns = 'auto repeat(' + b.colLabels.length + ', minmax(2.2em, max-content))';
    grid.appendChild(el('span', 'abl-corner', b.corner));
    b.colLabels.forEach((c) => grid.appendChild(el('span', 'abl-col', c)));
    b.rowLabels.forEach((rl, r) => {
      grid.appendChild(el('span', 'abl-row', rl));
      b.colLabels.forEach((c, j) => {
        const on = b.on(r, j), btn = el('button', 'abl-cell', on ? b.offMark : b.onMark);
        btn.type = 'button';
        btn.dataset.cell = r + '.' + j;
        btn.setAttribute('aria-pressed', String(on));
        btn.setAttribute('aria-label', b.hint(r, j));
        btn.title = b.hint(r, j);
        btn.addEventListener('click', () => b.press(r, j));
        grid.appendChild(btn);
        if (focused === btn.dataset.cell) btn.focus();
      });
    });
  } };
}

export function toplists() {
  const box = el('div', 'abl-lists');
  return { root: box, update: (b, ctx) => {
    box.textContent = '';
    for (const list of b.lists) {
      const col = el('div', 'abl-list'), ol = el('ol', 'next-list');
      col.appendChild(el('p', 'fig-note abl-list-title', list.title));
      list.items.forEach((it, i) => {
        const li = el('li'), btn = el('button', 'next-item' + (it.chosen ? ' abl-chosen' : ''));
        const bar = el('span', 'next-bar'), fill = el('i');
        btn.type = 'button';
        btn.title = it.hint;
        btn.setAttribute('aria-label', it.hint + ' (' + it.label + ')');
        btn.setAttribute('aria-pressed', String(!!it.chosen));
        btn.dataset.rank = i + 1;
        btn.dataset.id = it.id;
        btn.appendChild(el('span', 'next-ch' + (Array.from(it.ch).length > 1 ? ' special' : ''), it.ch));
        fill.style.width = (100 * it.p) + '%';
        fill.style.background = ctx.scheme.css[it.chosen ? 'attention' : 'ffn'];
        bar.appendChild(fill);
        btn.appendChild(bar);
        btn.appendChild(el('span', 'next-p', it.label));
        btn.addEventListener('click', () => it.run());
        li.appendChild(btn);
        ol.appendChild(li);
      });
      col.appendChild(ol);
      box.appendChild(col);
    }
  } };
}
