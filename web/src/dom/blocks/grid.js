/* grid.js - the `grid` block on the page (figure 12, the model view): a small heatmap per layer x
   head in its own horizontally scrolling box, each cell a button framed and badged by a measure;
   hover or focus shows the cell's text under the grid, pressing it calls block.pick and scrolls to
   block.target; block.table is its data table (dom/table.js, built only while open). The maps of a
   layer are drawn into one canvas laid over its row of buttons (an empty box in each button keeps
   the map's place): at 30 x 9 heads, a canvas per map made the first frame that showed the grid
   one long task (the compositor's first upload of 270 canvases, 123-329 ms; tools/bench/modelwide.js
   --scrolls). The maps are drawn a few per animation frame (BUDGET ms), and a map already showing
   the same weights at the same place is left as it is, so 30 x 9 maps of 64 tokens never make a
   long task (each frame's share is timed as the performance measure 'blocklens:grid:frame'; the
   grid's data-maps counts the maps showing the latest update's weights at their place, "drawn/all",
   written at the end of each frame that drew some). The export draws it in draw/svg/grid.js. */
import * as colors from '../../draw/colors.js';
import { layout, paint } from '../../draw/heatmap.js';
import { el, setData, setText } from '../el.js';
import { dpr } from '../heatmap-canvas.js';
import * as tables from '../table.js';

// One map into the scratch canvas (never on the page), then copied to (x, y) device pixels of
// its layer's canvas; paint() covers the map's box with the background first. The box's data-*
// hooks (tests: the map's shape, its plot inside the box, its place in the layer's canvas) are
// written only when they change.
function drawMap(scratch, line, x, y, box, s, sc) {
  const k = dpr(), ctx = scratch.getContext('2d'), g = layout(ctx, s);
  const w = Math.round(g.w * k), h = Math.round(g.h * k);
  if (scratch.width !== w || scratch.height !== h) { scratch.width = w; scratch.height = h; }
  ctx.setTransform(k, 0, 0, k, 0, 0);
  paint(ctx, s, sc, g, k);
  line.getContext('2d').drawImage(scratch, x, y);
  setData(box, { rows: s.rows, cols: s.cols, plotX: g.left, plotY: g.top, cellW: g.cw, cellH: g.ch, cssW: g.w,
    cssH: g.h, mapX: x / k, mapY: y / k, maskRgb: sc.maskRGB.join(',') });
}

export function grid() {
  const box = el('div', 'mv'), scroll = el('div', 'mv-scroll'), table = el('div', 'mv-grid');
  const hover = el('p', 'mv-hover fig-note'), hint = el('p', 'mv-press fig-note');
  const scratch = document.createElement('canvas');
  hover.setAttribute('aria-live', 'polite');
  scroll.appendChild(table);
  // The summary's data table: built only while its <details> is open (270 rows at 30 x 9).
  const data = tables.create();
  box.appendChild(hint); box.appendChild(scroll); box.appendChild(hover); box.appendChild(data.root);
  // A few maps per frame: the page's slices would paint 40 ms of maps per task, and the frame
  // after it uploads every canvas they changed.
  const frames = frameQueue();
  let cur = null, last = null, shape = '', buttons = [], maps = [], lines = [], gen = 0, labels = null;
  let shown = [], placed = [];   // per map: what it shows; per layer: where its maps were placed
  const show = (i) => setText(hover, cur && cur.cells[i] ? cur.cells[i].hint : '');
  // (Rebuilt only when the grid's shape changes: focus and scroll position survive a redraw.)
  function build(b) {
    table.textContent = '';
    table.style.gridTemplateColumns = 'auto repeat(' + b.heads + ', max-content)';
    table.appendChild(el('span', 'mv-corner'));
    const heads = [];
    for (let h = 0; h < b.heads; h++) heads.push(table.appendChild(el('span', 'mv-col')));
    buttons = []; maps = []; lines = []; shown = []; placed = [];
    const rows = [];
    for (let l = 0; l < b.layers; l++) {
      rows.push(table.appendChild(el('span', 'mv-row')));
      // The layer's canvas: positioned in the grid area of its buttons, outside the grid's sizing.
      const line = el('canvas', 'mv-line');
      line.dataset.layer = l;
      line.setAttribute('aria-hidden', 'true');
      line.style.gridRow = String(l + 2);
      line.style.gridColumn = '2 / span ' + b.heads;
      lines.push(line);
      for (let h = 0; h < b.heads; h++) {
        const i = buttons.length, btn = el('button', 'mv-cell');
        btn.type = 'button';
        btn.dataset.layer = l; btn.dataset.head = h;
        btn.appendChild(maps[i] = el('span', 'mv-map'));
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
      table.appendChild(line);   // (after its buttons: drawn over them, under the sticky labels)
    }
    return { heads, rows };
  }
  // Where each map goes: its box's offset in its layer's canvas, in device pixels, each canvas
  // sized to its boxes. One layout read. A layer whose boxes moved or whose canvas changed size
  // is cleared, and its maps are all drawn again.
  function place(n) {
    if (!table.isConnected || !table.getBoundingClientRect().width) return null;
    const k = dpr(), at = lines.map((c) => c.getBoundingClientRect());
    const boxes = maps.map((m) => m.getBoundingClientRect());
    const H = cur.heads, out = [];
    lines.forEach((line, l) => {
      let w = 0, h = 0;
      for (let j = l * H; j < (l + 1) * H; j++) {
        const r = boxes[j];
        out[j] = [Math.round((r.left - at[l].left) * k), Math.round((r.top - at[l].top) * k)];
        w = Math.max(w, r.right - at[l].left); h = Math.max(h, r.bottom - at[l].top);
      }
      w = Math.ceil(w); h = Math.ceil(h);
      const key = [w, h, k].concat(out.slice(l * H, (l + 1) * H)).join(' ');
      if (key === placed[l]) return;
      placed[l] = key;
      if (line.width !== Math.round(w * k) || line.height !== Math.round(h * k)) {
        line.width = Math.round(w * k); line.height = Math.round(h * k);   // (cleared)
        line.style.width = w + 'px'; line.style.height = h + 'px';
      } else {
        line.getContext('2d').clearRect(0, 0, line.width, line.height);
      }
      for (let j = l * H; j < (l + 1) * H; j++) shown[j] = null;
    });
    return n === gen ? out : null;
  }
  function update(b, ctx) {
    cur = b;
    const key = b.layers + 'x' + b.heads;
    let moved = false;
    if (key !== shape) { labels = build(b); shape = key; moved = true; }
    // (Labels of another width may move the boxes: the maps are then placed again.)
    const text = (s, v) => { if (s.textContent !== v) { s.textContent = v; moved = true; } };
    labels.heads.forEach((s, h) => text(s, b.colLabel(h)));
    labels.rows.forEach((s, l) => text(s, b.rowLabel(l)));
    table.setAttribute('role', 'group');
    table.setAttribute('aria-label', b.label);
    setText(hint, b.hint);
    data.update(b.table, ctx.t);
    const rgb = [0, 0, 0], sctx = scratch.getContext('2d');
    b.cells.forEach((c, i) => {
      const btn = buttons[i];
      colors.color(ctx.scheme, 'sequential', c.frame, 1, rgb);
      btn.style.borderColor = 'rgb(' + rgb.join(',') + ')';
      btn.dataset.strength = c.strength.toFixed(4);
      btn.setAttribute('aria-label', c.hint);
      setText(btn.lastChild, c.badge);
      // The box the map's place is kept by: its size, written only when it changes.
      const g = layout(sctx, c.spec), st = maps[i].style, w = g.w + 'px', h = g.h + 'px';
      if (st.width !== w || st.height !== h) { st.width = w; st.height = h; moved = true; }
    });
    if (box.contains(document.activeElement)) show(buttons.indexOf(document.activeElement));
    last = ctx;
    queue(moved);
  }
  // Queues the maps of the latest update that do not show their weights at their place, after a
  // first job that places them (a layout read at the frame, before the browser's own); a newer
  // call drops the older one's jobs. Not laid out (no size): nothing yet, the observer below
  // calls again once the grid has a size.
  function queue(moved) {
    const b = cur, ctx = last, n = ++gen, k = dpr();
    const want = (c) => [c.spec.offset, c.spec.rows, c.spec.maxCell, ctx.scheme.name, k].join(' ');
    const stale = (c, i) => !shown[i] || shown[i].data !== c.spec.data || shown[i].want !== want(c);
    const report = () => {
      if (n === gen) box.dataset.maps = b.cells.filter((c, i) => !stale(c, i)).length + '/' + b.cells.length;
    };
    frames.cancel();
    if (!moved && !b.cells.some(stale)) { report(); return; }
    frames.add(() => {
      const at = place(n);
      if (!at) return;
      b.cells.forEach((c, i) => {
        if (!stale(c, i)) return;
        frames.add(() => {
          if (n !== gen) return;
          drawMap(scratch, lines[c.layer], at[i][0], at[i][1], maps[i], c.spec, ctx.scheme);
          shown[i] = { data: c.spec.data, want: want(c) };
        }, report);
      });
    }, report);
  }
  // The grid laid out anew (shown after being hidden, fonts or labels of another width): placed
  // again, and the maps of a layer whose boxes moved drawn again.
  if (typeof ResizeObserver === 'function') new ResizeObserver(() => { if (cur) queue(true); }).observe(table);
  return { root: box, update };
}

// Jobs run at the animation frames, each frame's for BUDGET ms (at least one), timed; a job may
// add jobs (run in the same frame while there is time); a job's `after` runs once at the end of
// the frame it ran in. cancel() drops those not run yet.
const BUDGET = 8;
function frameQueue() {
  let queue = [], asked = false, running = false;
  const next = typeof requestAnimationFrame === 'function' ? requestAnimationFrame : (f) => setTimeout(f, 16);
  function run() {
    asked = false; running = true;
    const t0 = performance.now();
    let ran = 0;
    const after = new Set();
    while (queue.length && (!ran || performance.now() - t0 < BUDGET)) {
      const job = queue.shift();
      job.run();
      if (job.after) after.add(job.after);
      ran++;
    }
    running = false;
    after.forEach((f) => f());
    if (ran) performance.measure('blocklens:grid:frame', { start: t0, end: performance.now() });
    if (queue.length) { asked = true; next(run); }
  }
  return {
    add(job, after) { queue.push({ run: job, after }); if (!asked && !running) { asked = true; next(run); } },
    cancel() { queue = []; }
  };
}
