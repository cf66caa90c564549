/* grid.js - the `grid` block on the page (figure 12, the model view): a small heatmap per layer x
   head in its own horizontally scrolling box, each a button framed and badged by a measure; hover
   or focus shows the cell's text under the grid, pressing it calls block.pick and scrolls to
   block.target; block.table is its data table (dom/table.js, built only while open). The maps
   are drawn a few per animation frame (BUDGET ms), and a map already showing the same weights is
   left as it is, so 30 x 9 maps of 64 tokens never make a long task (each frame's share is timed
   as the performance measure 'blocklens:grid:frame'; the grid's data-maps counts the maps of
   the latest update drawn so far, "drawn/total"). The export draws it in draw/svg/grid.js. */
import * as colors from '../../draw/colors.js';
import { layout, paint } from '../../draw/heatmap.js';
import { el, setText } from '../el.js';
import { dpr } from '../heatmap-canvas.js';
import * as tables from '../table.js';

// One map into its canvas. The backing store is sized only when the map's size changes (a
// resize reallocates and clears it: at 270 canvases, resizing each one on every redraw made
// the frames that showed them long); paint() covers the canvas with the background first.
// The data-* hooks (tests, as heatmap-canvas.js writes them) are written only when they change.
function drawMap(canvas, s, sc) {
  const k = dpr(), ctx = canvas.getContext('2d'), g = layout(ctx, s);
  const w = Math.round(g.w * k), h = Math.round(g.h * k);
  if (canvas.width !== w || canvas.height !== h) {
    canvas.width = w; canvas.height = h;
    canvas.style.width = g.w + 'px'; canvas.style.height = g.h + 'px';
  }
  ctx.setTransform(k, 0, 0, k, 0, 0);
  paint(ctx, s, sc, g, k);
  const ds = canvas.dataset, hooks = { rows: s.rows, cols: s.cols, plotX: g.left, plotY: g.top, cellW: g.cw,
    cellH: g.ch, cssW: g.w, cssH: g.h, maskRgb: sc.maskRGB.join(',') };
  for (const key in hooks) if (ds[key] !== String(hooks[key])) ds[key] = hooks[key];
}

export function grid() {
  const box = el('div', 'mv'), scroll = el('div', 'mv-scroll'), table = el('div', 'mv-grid');
  const hover = el('p', 'mv-hover fig-note'), hint = el('p', 'mv-press fig-note');
  hover.setAttribute('aria-live', 'polite');
  scroll.appendChild(table);
  // The summary's data table: built only while its <details> is open (270 rows at 30 x 9).
  const data = tables.create();
  box.appendChild(hint); box.appendChild(scroll); box.appendChild(hover); box.appendChild(data.root);
  // A few maps per frame: the page's slices would paint 40 ms of maps per task, and the frame
  // after it uploads every canvas they changed (at 270 canvases, 70-140 ms tasks).
  const frames = frameQueue(), shown = new WeakMap();   // canvas -> what it shows
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
    data.update(b.table, ctx.t);
    const rgb = [0, 0, 0], n = ++gen;
    let total = 0, done = 0;
    const report = () => { if (n === gen) box.dataset.maps = done + '/' + total; };
    frames.cancel();
    b.cells.forEach((c, i) => {
      const btn = buttons[i];
      colors.color(ctx.scheme, 'sequential', c.frame, 1, rgb);
      btn.style.borderColor = 'rgb(' + rgb.join(',') + ')';
      btn.dataset.strength = c.strength.toFixed(4);
      btn.setAttribute('aria-label', c.hint);
      setText(btn.lastChild, c.badge);
    });
    // A map per job; a newer update drops the older jobs. (A new measure changes no map.)
    b.cells.forEach((c, i) => {
      const canvas = buttons[i].firstChild, had = shown.get(canvas);
      const want = [c.spec.offset, c.spec.rows, c.spec.maxCell, ctx.scheme.name, dpr()].join(' ');
      if (had && had.data === c.spec.data && had.key === want) return;
      total++;
      frames.add(() => {
        if (n !== gen) return;
        drawMap(canvas, c.spec, ctx.scheme);
        shown.set(canvas, { data: c.spec.data, key: want });
        done++;
      }, report);
    });
    if (!total) report();
    if (box.contains(document.activeElement)) show(buttons.indexOf(document.activeElement));
  } };
}

// Jobs run at the animation frames, each frame's for BUDGET ms (at least one), timed; a job's
// `after` runs once at the end of the frame it ran in. cancel() drops those not run yet.
const BUDGET = 8;
function frameQueue() {
  let queue = [], asked = false;
  const next = typeof requestAnimationFrame === 'function' ? requestAnimationFrame : (f) => setTimeout(f, 16);
  function run() {
    asked = false;
    const t0 = performance.now();
    let ran = 0;
    const after = new Set();
    while (queue.length && (!ran || performance.now() - t0 < BUDGET)) {
      const job = queue.shift();
      job.run();
      if (job.after) after.add(job.after);
      ran++;
    }
    after.forEach((f) => f());
    if (ran) performance.measure('blocklens:grid:frame', { start: t0, end: performance.now() });
    if (queue.length) { asked = true; next(run); }
  }
  return {
    add(job, after) { queue.push({ run: job, after }); if (!asked) { asked = true; next(run); } },
    cancel() { queue = []; }
  };
}
