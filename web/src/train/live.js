/* train/live.js - the Train view's live figures drawn from the run's state (train/controller.js):
   the loss curves and their table, the samples, the probe's attention maps per head at the
   snapshot the time slider picks (the page's heatmap drawing, hover and keyboard), a table of
   what each head reads, and the ReLU zeros per layer. Text only as text. */
import { el, setText } from '../dom/el.js';
import * as heatmap from '../dom/heatmap-canvas.js';
import * as interact from '../dom/interact.js';
import * as table from '../dom/table.js';
import { headRoles } from '../model/stages/heads.js';
import { drawLoss } from './charts.js';

const pct = (v) => (v * 100).toFixed(1) + ' %';
const loss3 = (v) => (Number.isFinite(v) ? v.toFixed(3) : '–');

export function createLive(refs) {
  const lossTable = table.create('train_table'), headTable = table.create('train_headTable');
  refs.lossTable.appendChild(lossTable.root);
  const canvases = new Map();   // 'l.h' -> { wrap, canvas, cap }
  let headRows = null, headTableRoot = null;

  function loss(s, t, sc) {
    const w = Math.max(280, Math.min(760, refs.loss.parentNode.clientWidth || 600)), h = 240, k = heatmap.dpr();
    // (A canvas sized again is a new backing store: only when its size changes.)
    let g = refs.loss.getContext('2d');
    if (refs.loss.width !== Math.round(w * k) || refs.loss.height !== Math.round(h * k)) {
      g = heatmap.sizeCanvas(refs.loss, w, h);
    }
    drawLoss(g, { w, h, train: s.train, held: s.held, baseline: s.baseline, steps: Math.max(s.steps, 1), css: sc.css,
      labels: { x: t('train_axisStep'), y: t('train_axisLoss'),
        baseline: t('train_baseline', { v: loss3(s.baseline) }) }
    });
    const end = (a) => (a.length ? a[a.length - 1][1] : NaN), last = end(s.train), lastHeld = end(s.held);
    refs.loss.setAttribute('aria-label', t('train_lossAria', { step: s.step, train: loss3(last), held: loss3(lastHeld),
      base: loss3(s.baseline) }));
    setText(refs.legend, t('train_legend'));
    refs.loss.dataset.points = String(s.train.length);
    refs.loss.dataset.held = String(s.held.length);
    const rows = s.held.map((p) => p[0]), byStep = new Map(s.train.map((p) => [p[0], p[1]]));
    lossTable.update({ caption: t('train_tableCaption', { base: loss3(s.baseline) }), rows: rows.length, cols: 2,
      rowLabels: rows.map(String), colLabels: [t('train_col_train'), t('train_col_held')], corner: t('train_axisStep'),
      cell: (r, c) => (c ? loss3(s.held[r][1]) : loss3(byStep.get(rows[r]))) }, t);
  }

  function samples(s, t) {
    refs.sample.textContent = '';
    s.samples.slice(-6).reverse().forEach((x) => {
      const li = el('li');
      li.appendChild(el('span', 'train-sample-step', t('train_sampleStep', { step: x.step })));
      li.appendChild(el('span', 'train-sample-text', x.text || t('train_sampleEmpty')));
      refs.sample.appendChild(li);
    });
    if (!s.samples.length) refs.sample.appendChild(el('li', 'hint', t('train_none')));
  }

  // The snapshot the slider shows: one row of small maps per layer.
  function heads(s, t, sc) {
    const snap = s.snaps[s.shown];
    setText(refs.probe, s.probe ? t('train_probe', { text: s.probe }) : '');
    refs.time.max = String(Math.max(0, s.snaps.length - 1));
    refs.time.value = String(s.shown >= 0 ? s.shown : 0);
    refs.time.disabled = s.snaps.length < 2;
    setText(refs.timeLab, snap ? t('train_time', { step: snap.step, k: s.shown + 1, n: s.snaps.length })
      : t('train_timeNone'));
    refs.root.dataset.snapshots = String(s.snaps.length);
    if (!snap) { refs.heads.textContent = ''; canvases.clear(); headRows = null; return; }
    const L = snap.labels.length, H = snap.layers[0] ? snap.layers[0].weights.length / (L * L) : 0;
    const key = snap.layers.length + 'x' + H + 'x' + L;
    if (headRows !== key) { refs.heads.textContent = ''; canvases.clear(); headRows = key; }
    const avail = Math.max(160, Math.min(900, refs.heads.clientWidth || 600));
    const width = Math.max(150, Math.min(300, Math.floor(avail / Math.min(H, avail < 500 ? 2 : 4)) - 12));
    snap.layers.forEach((layer, l) => {
      for (let h = 0; h < H; h++) {
        const id = (l + 1) + '.' + (h + 1);
        let c = canvases.get(id);
        if (!c) {
          const wrap = el('div', 'train-head'), hm = el('div', 'hm-wrap'), canvas = el('canvas');
          const cap = el('p', 'train-head-cap');
          canvas.dataset.head = id;
          hm.appendChild(canvas);
          wrap.appendChild(cap);
          wrap.appendChild(hm);
          refs.heads.appendChild(wrap);
          interact.attach(canvas);
          c = { canvas, cap };
          canvases.set(id, c);
        }
        setText(c.cap, t('train_head', { id }));
        // Square cells; the keys are the same characters as the rows, and rows too small for a
        // 12 px label go without (hover and the keyboard cursor name every cell).
        const cell = Math.max(3, Math.min(14, Math.floor((width - 40) / L)));
        heatmap.draw(c.canvas, { data: layer.weights, offset: h * L * L, rows: L, cols: L, kind: 'sequential', max: 1,
          rowLabels: cell >= 12 ? snap.labels : null, width, maxCell: 14, cellH: cell,
          label: t('train_headAria', { id, step: snap.step }),
          describe: (q, k) => t('train_cell', { id, q: snap.labels[q], k: snap.labels[k],
            v: layer.weights[h * L * L + q * L + k].toFixed(3) }) }, sc);
        interact.refresh(c.canvas);
      }
    });
    headTableRoot = headTableRoot || refs.heads.parentNode.appendChild(headTable.root);
    // A poem probe (lines of 5 or 7 with their marks) also has the key one line up, as figure 4
    // measures it for the shipped model (model/stages/heads.js).
    const names = [], stats = [];
    let poem = false;
    snap.layers.forEach((layer, l) => {
      const roles = headRoles({ weights: layer.weights }, snap.labels, H, L);
      poem = roles.n > 0;
      for (let h = 0; h < H; h++) {
        const up = roles.heads[h].patterns.up;
        names.push((l + 1) + '.' + (h + 1));
        stats.push(reads(layer.weights, h, L).concat(poem ? [up ? up.w : 0] : []));
      }
    });
    const cols = [t('train_col_prev'), t('train_col_self'), t('train_col_bos')].concat(poem ? [t('train_col_up')] : []);
    refs.root.dataset.upMax = poem ? String(Math.max(...stats.map((x) => x[3]))) : '';
    headTable.update({ caption: t('train_headCaption', { step: snap.step }), rows: names.length, cols: cols.length,
      rowLabels: names, colLabels: cols, corner: t('train_col_head'), cell: (r, c) => pct(stats[r][c]) }, t);
  }

  function zeros(s, t) {
    const snap = s.snaps[s.shown];
    refs.zeros.textContent = '';
    if (!snap) { refs.zeros.appendChild(el('p', 'hint', t('train_none'))); return; }
    snap.layers.forEach((layer, l) => {
      const row = el('div', 'train-zero-row'), bar = el('span', 'train-zero-bar'), fill = el('span', 'train-zero-fill');
      fill.style.width = (layer.zeros * 100).toFixed(1) + '%';
      bar.appendChild(fill);
      row.appendChild(el('span', 'train-zero-name', t('train_block', { l: l + 1 })));
      row.appendChild(bar);
      row.appendChild(el('span', 'train-zero-val', pct(layer.zeros)));
      row.dataset.zeros = String(layer.zeros);
      refs.zeros.appendChild(row);
    });
  }

  return { loss, samples, heads, zeros };
}

// A head's mean weight, over the queries that have one, on the previous token, on itself, and
// on the first token (<s>).
export function reads(w, h, L) {
  const o = h * L * L;
  let prev = 0, self = 0, bos = 0;
  for (let i = 0; i < L; i++) {
    self += w[o + i * L + i];
    bos += w[o + i * L];
    if (i) prev += w[o + i * L + i - 1];
  }
  return [L > 1 ? prev / (L - 1) : 0, self / L, bos / L];
}
