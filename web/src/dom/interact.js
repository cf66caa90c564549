/* interact.js - hover, touch and keyboard for heatmap canvases: a tooltip with the exact value,
   a keyboard cursor (arrow keys, Home/End, Enter picks), and a polite live region for screen
   readers. It reads the geometry of the latest draw, so redraws need no re-wiring. The tooltip
   goes away on a scroll anywhere, a tap or click elsewhere and Escape. */
import * as heatmap from './heatmap-canvas.js';

const tips = new WeakMap();   // document or shadow root -> its tooltip (styles do not cross shadow roots)
let tip = null;             // the tooltip shown last
let owner = null;           // the canvas it describes; keyed: shown for the keyboard cursor
let keyed = false;
const attached = new WeakSet();
const cursors = new WeakMap();   // canvas -> { r, c, el }

function tooltip(node) {
  let root = node && node.getRootNode ? node.getRootNode() : document;
  if (root.nodeType !== 11) root = document;   // 11: a shadow root (<block-lens>)
  let t = tips.get(root);
  if (!t) {
    t = document.createElement('div');
    t.className = 'bl-tip';
    t.setAttribute('role', 'status');
    t.setAttribute('aria-live', 'polite');
    t.hidden = true;
    (root === document ? document.body : root).appendChild(t);
    tips.set(root, t);
  }
  dismissOn(document);
  if (root !== document) dismissOn(root);
  if (tip && tip !== t) tip.hidden = true;
  tip = t;
  return t;
}

function show(words, x, y, node, byKey) {
  const t = tooltip(node);
  owner = node; keyed = !!byKey;
  t.textContent = words;
  t.hidden = false;
  const w = t.offsetWidth, h = t.offsetHeight;
  let left = Math.min(x + 14, window.innerWidth - w - 8), top = y + 16;
  if (top + h > window.innerHeight - 8) top = y - h - 12;
  t.style.left = Math.max(8, left) + 'px';
  t.style.top = Math.max(8, top) + 'px';
}

function hide() { if (tip) tip.hidden = true; owner = null; }

// A tooltip is fixed to the viewport, so anything that moves the page under it ends it: a
// scroll of the page or of any scroller (scroll does not bubble: listened to in the capture
// phase, on the document and on each shadow root, where a non-composed event stops), a press
// outside the heatmaps, Escape. The keyboard cursor's tooltip follows its cell instead while
// the cell is on screen.
const watched = new WeakSet();
function dismissOn(target) {
  if (watched.has(target)) return;
  watched.add(target);
  target.addEventListener('scroll', onScroll, { capture: true, passive: true });
  target.addEventListener('pointerdown', function (e) {
    if (!tip || tip.hidden) return;
    const path = e.composedPath ? e.composedPath() : [e.target];
    if (!path.some(function (n) { return attached.has(n); })) hide();
  }, { capture: true, passive: true });
  target.addEventListener('keydown', function (e) { if (e.key === 'Escape') hide(); }, true);
}

function onScroll() {
  if (!tip || tip.hidden) return;
  const cur = owner && cursors.get(owner);
  if (keyed && cur && !cur.el.hidden) {
    const r = cur.el.getBoundingClientRect();
    if (r.bottom > 0 && r.top < window.innerHeight) return placeCursor(owner, cur);
  }
  hide();
}

// Pointer position -> cell, or null outside the plot (CSS may have scaled the canvas).
function cellAt(canvas, clientX, clientY) {
  const geo = heatmap.geometry(canvas);
  if (!geo) return null;
  const rect = canvas.getBoundingClientRect(), k = rect.width / geo.g.w;
  const x = (clientX - rect.left) / k - geo.g.left, y = (clientY - rect.top) / k - geo.g.top;
  const c = Math.floor(x / geo.g.cw), r = Math.floor(y / geo.g.ch);
  if (x < 0 || y < 0 || r >= geo.s.rows || c >= geo.s.cols) return null;
  return { r: r, c: c, geo: geo };
}

function text(geo, r, c) { return geo.s.describe ? geo.s.describe(r, c) : ''; }

function placeCursor(canvas, cur) {
  const geo = heatmap.geometry(canvas);
  if (!geo) return;
  cur.r = Math.max(0, Math.min(geo.s.rows - 1, cur.r));
  cur.c = Math.max(0, Math.min(geo.s.cols - 1, cur.c));
  const k = canvas.getBoundingClientRect().width / geo.g.w || 1, g = geo.g;
  const cw = Math.max(g.cw, 2), ch = Math.max(g.ch, 2);
  cur.el.style.left = (canvas.offsetLeft + (g.left + cur.c * g.cw) * k - 1) + 'px';
  cur.el.style.top = (canvas.offsetTop + (g.top + cur.r * g.ch) * k - 1) + 'px';
  cur.el.style.width = (cw * k + 2) + 'px';
  cur.el.style.height = (ch * k + 2) + 'px';
  cur.el.hidden = false;
  const rect = cur.el.getBoundingClientRect();
  show(text(geo, cur.r, cur.c), rect.right, rect.bottom - 8, canvas, true);
}

function onKey(canvas, e) {
  const cur = cursors.get(canvas), geo = heatmap.geometry(canvas);
  if (!cur || !geo) return;
  let big = e.shiftKey ? 8 : 1, handled = true;
  switch (e.key) {
    case 'ArrowLeft': cur.c -= big; break;
    case 'ArrowRight': cur.c += big; break;
    case 'ArrowUp': cur.r -= big; break;
    case 'ArrowDown': cur.r += big; break;
    case 'Home': cur.c = 0; break;
    case 'End': cur.c = geo.s.cols - 1; break;
    case 'Enter': case ' ': if (geo.s.onPick) geo.s.onPick(cur.r, cur.c); break;
    case 'Escape': hide(); cur.el.hidden = true; break;
    default: handled = false;
  }
  if (handled) { e.preventDefault(); if (e.key !== 'Escape') placeCursor(canvas, cur); }
}

// Wire a canvas once; its parent must be positioned (the .hm-wrap element).
function attach(canvas) {
  if (attached.has(canvas)) return;
  attached.add(canvas);
  canvas.tabIndex = 0;
  canvas.setAttribute('role', 'img');
  const el = document.createElement('div');
  el.className = 'hm-cursor';
  el.hidden = true;
  canvas.parentNode.appendChild(el);
  const cur = { r: 0, c: 0, el: el };
  cursors.set(canvas, cur);

  canvas.addEventListener('pointermove', function (e) {
    const hit = cellAt(canvas, e.clientX, e.clientY);
    if (!hit) { hide(); canvas.style.cursor = ''; return; }
    canvas.style.cursor = hit.geo.s.onPick ? 'pointer' : 'crosshair';
    show(text(hit.geo, hit.r, hit.c), e.clientX, e.clientY, canvas);
  });
  canvas.addEventListener('pointerleave', hide);
  canvas.addEventListener('click', function (e) {
    const hit = cellAt(canvas, e.clientX, e.clientY);
    if (!hit) return;
    show(text(hit.geo, hit.r, hit.c), e.clientX, e.clientY, canvas);
    if (hit.geo.s.onPick) hit.geo.s.onPick(hit.r, hit.c);
  });
  canvas.addEventListener('focus', function () {
    const geo = heatmap.geometry(canvas);
    if (geo && geo.s.focusRow >= 0) cur.r = geo.s.focusRow;
    if (canvas.matches(':focus-visible')) placeCursor(canvas, cur);
  });
  canvas.addEventListener('blur', function () { hide(); el.hidden = true; });
  canvas.addEventListener('keydown', function (e) { onKey(canvas, e); });
}

// After a redraw the cursor box may sit on a different cell size: put it back.
function refresh(canvas) {
  const cur = cursors.get(canvas);
  if (cur && !cur.el.hidden && document.activeElement === canvas) placeCursor(canvas, cur);
}

export { attach, refresh };
