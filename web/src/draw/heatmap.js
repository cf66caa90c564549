/* heatmap.js - one matrix drawn on any 2D context: cells, token/index labels, greyed rows,
   × marks, masked cells. Matrices wider than the space are max-|v| pooled so a single large
   value (the perturbed row) never disappears between pixels. A canvas on the page
   (dom/heatmap-canvas.js) and a recorder for the SVG/PNG export run the same steps. */
import * as colors from './colors.js';
import * as format from './format.js';

const FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Noto Sans CJK SC", "PingFang SC", ' +
  '"Hiragino Sans GB", "Microsoft YaHei", sans-serif';

function labelWidth(ctx, labels) {
  let w = 0;
  for (let i = 0; i < labels.length; i++) w = Math.max(w, ctx.measureText(labels[i]).width);
  return Math.ceil(w);
}

// `text` cut with an ellipsis until it is at most maxW wide in ctx's current font.
function fit(ctx, text, maxW) {
  if (ctx.measureText(text).width <= maxW) return text;
  const chars = Array.from(text);
  let n = chars.length - 1;
  while (n > 1 && ctx.measureText(chars.slice(0, n).join('') + '\u2026').width > maxW) n--;
  return chars.slice(0, Math.max(1, n)).join('') + '\u2026';
}

// Token labels for the left edge: at most 110 px (the focus row is measured in bold, as drawn).
function rowLabels(ctx, s) {
  const text = s.rowLabels.map(function (t) { return format.label(t, 10); });
  const bold = '600 ' + FONT, focus = s.focusRow >= 0 && s.focusRow < text.length ? s.focusRow : -1;
  let w = labelWidth(ctx, text);
  if (focus >= 0) { ctx.font = bold; w = Math.max(w, Math.ceil(ctx.measureText(text[focus]).width)); ctx.font = FONT; }
  const left = Math.min(110, w + 10);
  if (w + 10 > left) {
    for (let r = 0; r < text.length; r++) {
      if (r === focus) ctx.font = bold;
      text[r] = fit(ctx, text[r], left - 10);
      if (r === focus) ctx.font = FONT;
    }
  }
  return { text: text, left: left };
}

// Key labels above the columns: every column when they fit flat, else rotated or flat, every
// step-th column, whichever shows more of them without any two touching.
function colLabels(ctx, s, cw) {
  if (s.colLabels === 'index') {
    /* room for the widest index and a gap: "2816" must not run into "3072" */
    let step = Math.max(1, Math.ceil(Math.max(28, ctx.measureText(String(s.cols - 1)).width + 10) / cw));
    step = step <= 1 ? 1 : step <= 2 ? 2 : step <= 4 ? 4 : step <= 8 ? 8 : Math.pow(2, Math.ceil(Math.log2(step)));
    return { text: null, step: step, rotate: false, top: 18 };
  }
  const text = s.colLabels.map(function (t) { return format.label(t, 8); });
  const w = labelWidth(ctx, text);
  if (w <= cw - 2) return { text: text, step: 1, rotate: false, top: 18 };
  const flat = Math.ceil((w + 8) / cw), turned = Math.max(1, Math.ceil(13 / cw));
  if (flat <= turned) return { text: text, step: flat, rotate: false, top: 18 };
  const top = Math.min(70, w + 8);
  return { text: text.map(function (t) { return fit(ctx, t, top - 8); }), step: turned, rotate: true, top: top };
}

// Where everything goes, in CSS pixels. Cells shrink to fit `width`; text never does.
function layout(ctx, s) {
  ctx.font = FONT;
  const rows = s.rowLabels ? rowLabels(ctx, s) : null;
  const left = rows ? rows.left : 4;
  const avail = Math.max(40, s.width - left - 6);
  let cw = Math.min(s.maxCell || 26, avail / s.cols);
  if (cw >= 4) cw = Math.floor(cw);
  const ch = s.cellH ||
    (s.rows <= 12 ? Math.max(18, Math.min(24, cw)) : s.rows <= 32 ? 13 : Math.max(3, Math.floor(520 / s.rows)));
  const cols = s.colLabels ? colLabels(ctx, s, cw) : null;
  const top = cols ? cols.top : 6;
  return { left: left, top: top, cw: cw, ch: ch, rowText: rows ? rows.text : null,
    colText: cols ? { step: cols.step, text: cols.text } : null, rotate: !!(cols && cols.rotate),
    w: Math.ceil(left + s.cols * cw + (s.rowFlags ? 14 : 6)), h: Math.ceil(top + s.rows * ch + 4) };
}

function value(s, r, c) { return s.data[(s.offset || 0) + r * s.cols + c]; }

// The cell drawers below draw rows r0 .. r1-1; paint() runs them over all rows, in bands.
// Small cells: one rectangle each, with a 1px gap when there is room for one.
// A cell's colour: the mask colour, or the value's, greyed when another row has the focus.
function cellColor(s, sc, r, c, dim, rgb, grey) {
  if (s.masked && s.masked(r, c)) return sc.maskRGB;
  const col = colors.color(sc, s.kind, value(s, r, c), s.max, rgb);
  return dim ? sc.grey(col, grey) : col;
}

function drawCells(ctx, s, g, sc, dpr, r0, r1) {
  const rgb = [0, 0, 0], grey = [0, 0, 0], gap = g.cw >= 8 && g.ch >= 8 ? 1 : 0;
  for (let r = r0; r < r1; r++) {
    const dim = s.focusRow >= 0 && r !== s.focusRow;
    for (let c = 0; c < s.cols; c++) {
      const col = cellColor(s, sc, r, c, dim, rgb, grey);
      ctx.fillStyle = 'rgb(' + col[0] + ',' + col[1] + ',' + col[2] + ')';
      ctx.fillRect(g.left + c * g.cw, g.top + r * g.ch, g.cw - gap, g.ch - gap);
    }
  }
}

// Integer cell size, offset and dpr: every cell edge falls on a whole device pixel.
function wholePixels(g, dpr) {
  const whole = function (v) { return v === Math.round(v); };
  return whole(dpr) && whole(g.cw) && whole(g.ch) && whole(g.left) && whole(g.top);
}

// The same cells as pixels, for wholePixels() geometry only: drawCells' rectangles would then
// cover exactly these pixels, so the picture is the same, at a fraction of the cost (one
// fillStyle per cell is slow). Each matrix row is one line of pixels copied down its height.
function drawCellPixels(ctx, s, g, sc, dpr, r0, r1) {
  const gap = g.cw >= 8 && g.ch >= 8 ? 1 : 0, cw = g.cw * dpr, ch = g.ch * dpr, pw = s.cols * cw;
  const inW = (g.cw - gap) * dpr, inH = (g.ch - gap) * dpr, bg = sc.bgRGB;
  const img = ctx.createImageData(pw, (r1 - r0) * ch), px = img.data, line = new Uint8ClampedArray(pw * 4);
  let gapLine = new Uint8ClampedArray(pw * 4), rgb = [0, 0, 0], grey = [0, 0, 0], x, i;
  for (i = 0; i < pw * 4; i += 4) {
    gapLine[i] = bg[0]; gapLine[i + 1] = bg[1]; gapLine[i + 2] = bg[2]; gapLine[i + 3] = 255;
  }
  for (let r = r0; r < r1; r++) {
    const dim = s.focusRow >= 0 && r !== s.focusRow;
    for (let c = 0; c < s.cols; c++) {
      const col = cellColor(s, sc, r, c, dim, rgb, grey);
      for (x = 0; x < cw; x++) {
        const k = (c * cw + x) * 4, fill = x < inW ? col : bg;
        line[k] = fill[0]; line[k + 1] = fill[1]; line[k + 2] = fill[2]; line[k + 3] = 255;
      }
    }
    for (let y = 0; y < ch; y++) px.set(y < inH ? line : gapLine, ((r - r0) * ch + y) * pw * 4);
  }
  ctx.putImageData(img, g.left * dpr, (g.top + r0 * g.ch) * dpr);
}

// The value with the largest magnitude among columns c0 .. c1-1 of row r that are not masked;
// null when all of them are.
function pool(s, r, c0, c1, data, base) {
  let best = null, mag = -1;
  if (!s.masked) {   // (the common case, without a call per value: wide matrices are most of a redraw)
    best = data[base + c0]; mag = Math.abs(best);
    for (let i = base + c0 + 1, end = base + c1; i < end; i++) {
      const a = Math.abs(data[i]);
      if (a > mag) { best = data[i]; mag = a; }
    }
    return best;
  }
  for (let c = c0; c < c1; c++) {
    if (s.masked && s.masked(r, c)) continue;
    const v = data[base + c], a = Math.abs(v);
    if (best === null || a > mag) { best = v; mag = a; }
  }
  return best;
}

// Large matrices: build the pixels directly; each device pixel column shows the value with
// the largest magnitude among the columns it covers. One line of pixels per matrix row,
// copied down the row's height; the column ranges are the same for every row.
function drawPooled(ctx, s, g, sc, dpr, r0, r1) {
  const pw = Math.max(1, Math.round(s.cols * g.cw * dpr)), top = Math.round(r0 * g.ch * dpr);
  const ph = (r1 === s.rows ? Math.max(1, Math.round(s.rows * g.ch * dpr)) : Math.round(r1 * g.ch * dpr)) - top;
  if (ph <= 0) return;
  const img = ctx.createImageData(pw, ph), px = img.data, rgb = [0, 0, 0], grey = [0, 0, 0];
  const from = new Int32Array(pw), to = new Int32Array(pw), line = new Uint8ClampedArray(pw * 4);
  let data = s.data, cols = s.cols, x;
  for (x = 0; x < pw; x++) {
    from[x] = Math.floor(x / pw * cols);
    to[x] = Math.max(from[x] + 1, Math.floor((x + 1) / pw * cols));
  }
  for (let r = r0; r < r1; r++) {
    const dim = s.focusRow >= 0 && r !== s.focusRow, base = (s.offset || 0) + r * cols;
    for (x = 0; x < pw; x++) {
      const best = pool(s, r, from[x], to[x], data, base);
      let col = best === null ? sc.maskRGB : colors.color(sc, s.kind, best, s.max, rgb);
      if (dim) col = sc.grey(col, grey);
      line[x * 4] = col[0]; line[x * 4 + 1] = col[1]; line[x * 4 + 2] = col[2]; line[x * 4 + 3] = 255;
    }
    const y0 = Math.round(r * g.ch * dpr) - top, y1 = Math.min(ph, Math.round((r + 1) * g.ch * dpr) - top);
    for (let y = y0; y < y1; y++) px.set(line, y * pw * 4);
  }
  ctx.putImageData(img, Math.round(g.left * dpr), Math.round(g.top * dpr) + top);
}

// The same pooling for a recorder (no pixels there): columns merged into strips >= 2 px wide,
// each strip the largest |value| it covers, equal neighbours joined into one rectangle. Rows
// under 2 px are merged into bands the same way (a thumbnail of a 128 x 128 matrix).
function drawPooledRects(ctx, s, g, sc, dpr, r0, r1) {
  const n = Math.max(1, Math.floor(s.cols * g.cw / 2)), w = s.cols * g.cw / n, rgb = [0, 0, 0], grey = [0, 0, 0];
  const per = g.ch >= 2 ? 1 : Math.ceil(2 / g.ch);
  for (let r = Math.ceil(r0 / per) * per; r < r1; r += per) {
    let dim = s.focusRow >= 0 && (s.focusRow < r || s.focusRow >= r + per), runStart = 0, runCol = null;
    const rEnd = Math.min(s.rows, r + per);
    for (let x = 0; x <= n; x++) {
      let col = null;
      if (x < n) {
        const c0 = Math.floor(x / n * s.cols), c1 = Math.max(c0 + 1, Math.floor((x + 1) / n * s.cols));
        let best = null;
        for (let rr = r; rr < rEnd; rr++) {
          const v = pool(s, rr, c0, c1, s.data, (s.offset || 0) + rr * s.cols);
          if (v !== null && (best === null || Math.abs(v) > Math.abs(best))) best = v;
        }
        let cc = best === null ? sc.maskRGB : colors.color(sc, s.kind, best, s.max, rgb);
        if (dim) cc = sc.grey(cc, grey);
        col = 'rgb(' + cc[0] + ',' + cc[1] + ',' + cc[2] + ')';
      }
      if (col !== runCol) {
        if (runCol !== null) {
          ctx.fillStyle = runCol;
          ctx.fillRect(g.left + runStart * w, g.top + r * g.ch, (x - runStart) * w, (rEnd - r) * g.ch);
        }
        runStart = x; runCol = col;
      }
    }
  }
}

function drawMarks(ctx, s, g, sc) {
  if (!s.marks || g.cw < 5 || g.ch < 5) return;
  const k = Math.max(1.5, Math.min(g.cw, g.ch) * 0.22);
  ctx.lineWidth = 1.3;
  for (let r = 0; r < s.rows; r++) {
    ctx.strokeStyle = s.focusRow >= 0 && r !== s.focusRow ? sc.css.maskInk : sc.css.mark;
    ctx.beginPath();
    for (let c = 0; c < s.cols; c++) {
      if (!s.marks[r * s.cols + c]) continue;
      const x = g.left + (c + 0.5) * g.cw - 0.5, y = g.top + (r + 0.5) * g.ch - 0.5;
      ctx.moveTo(x - k, y - k); ctx.lineTo(x + k, y + k);
      ctx.moveTo(x + k, y - k); ctx.lineTo(x - k, y + k);
    }
    ctx.stroke();
  }
}

// spec.cellText(r, c) -> string or null: a word inside each cell (the logit lens's top token),
// dark or light after the cell's colour; drawn only where cells are big enough to read it.
// spec.cellTextCut false: a word that does not fit whole is left out, not cut with an ellipsis
// (a rank of 115 cut to "1…" would read as 1; the hover and the data table have it).
// spec.boxes (rows x cols, non-zero: framed): an outline inside those cells.
function drawCellText(ctx, s, g, sc) {
  if (!s.cellText || g.cw < 14 || g.ch < 12) return;
  const rgb = [0, 0, 0], fitted = new Map();   // (words repeat: each is measured once)
  ctx.font = FONT; ctx.textAlign = 'center'; ctx.textBaseline = 'middle';
  for (let r = 0; r < s.rows; r++) {
    for (let c = 0; c < s.cols; c++) {
      const text = s.cellText(r, c);
      if (!text) continue;
      const col = cellColor(s, sc, r, c, false, rgb, rgb);
      const y = 0.2126 * col[0] + 0.7152 * col[1] + 0.0722 * col[2];
      ctx.fillStyle = y < 140 ? '#ffffff' : '#1d2330';
      if (!fitted.has(text)) {
        fitted.set(text, s.cellTextCut === false && ctx.measureText(text).width > g.cw - 3 ? null
          : fit(ctx, text, g.cw - 3));
      }
      if (fitted.get(text) === null) continue;
      ctx.fillText(fitted.get(text), g.left + (c + 0.5) * g.cw - 0.5, g.top + (r + 0.5) * g.ch);
    }
  }
}

function drawBoxes(ctx, s, g, sc) {
  if (!s.boxes || g.cw < 5 || g.ch < 5) return;
  ctx.strokeStyle = sc.css.focus; ctx.lineWidth = 2;
  for (let r = 0; r < s.rows; r++) {
    for (let c = 0; c < s.cols; c++) {
      if (s.boxes[r * s.cols + c]) ctx.strokeRect(g.left + c * g.cw + 1, g.top + r * g.ch + 1, g.cw - 3, g.ch - 3);
    }
  }
}

// Masked cells get diagonal hatching on top of their neutral fill, so that a masked cell never
// reads as a small value, however small the cells. The lines run along u + v = m + 1/2 (u, v
// in cells), every k-th m so they stay about 5 px apart: they pass cell corners, never a
// cell's centre. Each line is cut into the runs that cross masked cells only.
function drawHatch(ctx, s, g, sc) {
  if (!s.masked) return;
  const step = g.cw * g.ch / Math.sqrt(g.cw * g.cw + g.ch * g.ch), k = Math.max(1, Math.ceil(5 / step));
  const at = function (u, v) { return [g.left + u * g.cw, g.top + v * g.ch]; };
  ctx.strokeStyle = sc.css.maskInk; ctx.lineWidth = 1;
  ctx.beginPath();
  for (let m = 0; m < s.rows + s.cols; m += k) {
    let from = -1;   // v where the current run started
    for (let h = 0; h <= 2 * s.rows; h++) {
      // half-row h: v in [h/2, h/2 + 1/2]; its cell is (r, m - r) on top, (r, m - r - 1) below
      const r = h >> 1, c = h & 1 ? m - r - 1 : m - r;
      const on = h < 2 * s.rows && c >= 0 && c < s.cols && s.masked(r, c);
      if (on && from < 0) from = h / 2;
      if (!on && from >= 0) {
        const a = at(m + 0.5 - from, from), b = at(m + 0.5 - h / 2, h / 2);
        ctx.moveTo(a[0], a[1]); ctx.lineTo(b[0], b[1]);
        from = -1;
      }
    }
  }
  ctx.stroke();
}

function drawLabels(ctx, s, g, sc) {
  ctx.font = FONT;
  if (g.rowText) {
    ctx.textAlign = 'right'; ctx.textBaseline = 'middle';
    const every = Math.max(1, Math.ceil(12 / g.ch));
    for (let r = 0; r < s.rows; r++) {
      if (r % every && r !== s.focusRow) continue;
      const on = s.focusRow < 0 || r === s.focusRow;
      ctx.fillStyle = on ? sc.css.fg : sc.css.muted;
      ctx.font = (r === s.focusRow ? '600 ' : '') + FONT;
      ctx.fillText(g.rowText[r], g.left - 6, g.top + (r + 0.5) * g.ch);
    }
    ctx.font = FONT;
  }
  if (!g.colText) return;
  ctx.fillStyle = sc.css.muted;
  for (let c = 0; c < s.cols; c += g.colText.step) {
    const x = g.left + (c + 0.5) * g.cw;
    const t = g.colText.text ? g.colText.text[c] : String(c);
    if (g.rotate) {
      ctx.save(); ctx.translate(x, g.top - 5); ctx.rotate(-Math.PI / 2);
      ctx.textAlign = 'left'; ctx.textBaseline = 'middle'; ctx.fillText(t, 0, 0); ctx.restore();
    } else {
      ctx.textAlign = g.colText.text ? 'center' : 'left'; ctx.textBaseline = 'alphabetic';
      ctx.fillText(t, g.colText.text ? x : g.left + c * g.cw + 1, g.top - 5);
    }
  }
}

// Everything but the canvas setup, at (0, 0) of `ctx` in CSS pixels, as steps to run in order:
// the background, the cells in bands of rows (about BAND values each, an eighth of that as
// rectangles), then marks, focus box, labels and changed-row dots. `dpr` only decides between
// cells and pooled pixels.
const BAND = 1 << 14;
function steps(ctx, s, sc, g, dpr) {
  const cells = g.cw * dpr >= 3 ? (!ctx.isRecorder && wholePixels(g, dpr) ? drawCellPixels : drawCells)
    : ctx.isRecorder ? drawPooledRects : drawPooled;
  const out = [function () { ctx.fillStyle = sc.css.bg; ctx.fillRect(0, 0, g.w, g.h); }];
  const per = Math.max(1, Math.floor(BAND / s.cols / (cells === drawCells ? 8 : 1)));
  for (let r = 0; r < s.rows; r += per) out.push(cells.bind(null, ctx, s, g, sc, dpr, r, Math.min(s.rows, r + per)));
  out.push(function () {
    drawHatch(ctx, s, g, sc);
    drawMarks(ctx, s, g, sc);
    drawCellText(ctx, s, g, sc);
    drawBoxes(ctx, s, g, sc);
    if (s.focusRow >= 0) {
      ctx.strokeStyle = sc.css.fg; ctx.lineWidth = 2;
      ctx.strokeRect(g.left - 1, g.top + s.focusRow * g.ch - 1, s.cols * g.cw + 1, g.ch + 1);
    }
    drawLabels(ctx, s, g, sc);
    if (s.rowFlags) {   // a dot after each flagged row: "changed", however small the change
      ctx.fillStyle = sc.css.focus;
      s.rowFlags.forEach(function (on, r) {
        if (!on) return;
        ctx.beginPath();
        ctx.arc(g.left + s.cols * g.cw + 7, g.top + (r + 0.5) * g.ch, Math.min(3.5, g.ch / 3), 0, 2 * Math.PI);
        ctx.fill();
      });
    }
  });
  return out;
}

function paint(ctx, s, sc, g, dpr) { steps(ctx, s, sc, g, dpr).forEach(function (f) { f(); }); }

// Into a recorder at (x, y): the export's heatmaps. Returns the geometry (g.w x g.h).
function record(rec, s, sc, x, y) {
  const g = layout(rec, s);
  rec.save();
  rec.translate(x, y);
  paint(rec, s, sc, g, 2);
  rec.restore();
  return g;
}

// Largest |value| in a range, for a symmetric scale; 1 when everything is zero.
function absMax(a, from, to) {
  let m = 0;
  for (let i = from || 0, n = to === undefined ? a.length : to; i < n; i++) {
    const v = Math.abs(a[i]);
    if (v > m && isFinite(v)) m = v;
  }
  return m || 1;
}

export { steps, paint, record, layout, absMax, fit, FONT };
