/* table.js - the data-table alternative of every heatmap, inside a <details>: built only when
   opened (a 64 x 3072 matrix is not worth 196k DOM cells until someone asks), text via
   textContent only. Very large matrices are cut, and the cut is said in the caption. */

import { el } from './el.js';

const MAX_CELLS = 4096;


// spec: { caption, rows, cols, rowLabels, colLabels, cell(r, c) -> string, note }
function build(spec, t) {
  const cols = Math.min(spec.cols, Math.max(1, Math.floor(MAX_CELLS / spec.rows)));
  const table = el('table', 'data');
  const cap = el('caption', null, spec.caption);
  if (cols < spec.cols) cap.textContent += ' ' + t('tableCut', { shown: cols, total: spec.cols });
  table.appendChild(cap);
  const head = el('thead'), tr = el('tr');
  tr.appendChild(el('th', null, spec.corner || ''));
  let c;
  for (c = 0; c < cols; c++) {
    const th = el('th', null, spec.colLabels ? spec.colLabels[c] : String(c));
    th.scope = 'col';
    tr.appendChild(th);
  }
  head.appendChild(tr);
  table.appendChild(head);
  const body = el('tbody');
  for (let r = 0; r < spec.rows; r++) {
    const row = el('tr');
    const rh = el('th', null, spec.rowLabels ? spec.rowLabels[r] : String(r));
    rh.scope = 'row';
    row.appendChild(rh);
    for (c = 0; c < cols; c++) row.appendChild(el('td', null, spec.cell(r, c)));
    body.appendChild(row);
  }
  table.appendChild(body);
  return table;
}

// A <details> whose table follows the latest spec; returns { root, update(spec, t) }.
function create(summaryKey) {
  const det = el('details', 'table-alt');
  const sum = el('summary');
  sum.setAttribute('data-i18n', summaryKey || 'showTable');
  det.appendChild(sum);
  const holder = el('div', 'table-scroll');
  det.appendChild(holder);
  let latest = null, tfn = null;
  function render() {
    holder.textContent = '';
    if (latest && det.open) holder.appendChild(build(latest, tfn));
  }
  det.addEventListener('toggle', render);
  return {
    root: det,
    update: function (spec, t) {
      latest = spec; tfn = t;
      sum.textContent = t(summaryKey || 'showTable');
      if (det.open) render();
    }
  };
}

export { create, build };
