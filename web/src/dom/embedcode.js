/* embedcode.js - "Embed" under each figure of the page: for the current view and state, an
   iframe snippet (embed.html with the state in its hash) and a script + <block-lens> snippet,
   each in a read-only box with a Copy button. The boxes are in the page only while their
   <details> is open: Chromium's autofill looks at every form control of the page after each
   edit of a field, and the 32 closed textareas cost it 16 forced layouts of the whole page
   (~30 ms a keystroke, 45 ms and more at BERT widths). */
import * as i18n from './i18n-dom.js';
import * as params from '../model/params.js';
import { el } from './el.js';
import { PHONE, WIDTHS, formatHeights, heightAt } from './heights.js';

function attr(v) {
  const ENT = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
  return String(v).replace(/[&<>"]/g, function (c) { return ENT[c]; });
}

// Where embed.html and dist/ live: this page's folder when served, a placeholder from a file.
function base() {
  if (/^https?:$/.test(location.protocol)) return location.href.replace(/#.*$/, '').replace(/[^/]*$/, '');
  return 'https://example.com/blocklens/';
}

// The settings that differ from the defaults, as element attributes (tokens always).
function attrs(state) {
  const def = params.defaults(), out = [];
  params.PARAMS.forEach(function (p) {
    let v = state[p.key];
    if (p.key !== 'tokens' && v === def[p.key]) return;
    if (p.kind === 'bool') v = v ? '1' : '0';
    out.push(p.key + '="' + attr(v) + '"');
  });
  return out;
}

// A fresh id for each copy of a snippet: two copies of one figure in a post must not share one.
function freshId(view) {
  const r = new Uint32Array(1);
  if (typeof crypto === 'object' && crypto.getRandomValues) crypto.getRandomValues(r);
  else r[0] = Math.random() * 2 ** 32;
  return 'blocklens-' + view + '-' + r[0].toString(36);
}

// view, state, base URL, heights ([[width, height], ...] measured, or a one-entry guess), id ->
// { iframe, element }. The frame's height attribute is the one at a phone's width (never cut
// off from 360 px on, without the script); the optional script gives each frame, before it
// loads, the height measured nearest its own width (data-heights), then the height it reports.
// The listener finds the frame that sent the message (e.source), so any number of frames on
// one page each fit. The element reserves the same heights (its `heights` attribute).
function snippets(view, state, root, table, id) {
  const hash = 'view=' + view + '&' + params.toHash(state);
  id = id || freshId(view);
  const heights = formatHeights(table), phone = heightAt(table, PHONE);
  const iframe = '<iframe src="' + attr(root + 'embed.html#' + hash + '&id=' + id) + '" id="' + id + '"\n' +
    '  title="BlockLens: ' + attr(view) + '" width="100%" height="' + Math.round(phone) + '" loading="lazy"\n' +
    '  data-heights="' + heights + '"\n' +
    '  style="border:0" sandbox="allow-scripts allow-downloads"></iframe>\n' +
    '<script>/* optional: each BlockLens frame takes the height it needs at its width, then the one it reports */\n' +
    'document.querySelectorAll("iframe[data-heights]").forEach(function (f) { if (f.style.height) return;\n' +
    '  var w = f.clientWidth, lo = 0, hi = 0; f.getAttribute("data-heights").split(" ").forEach(function (p) {\n' +
    '    var a = p.split(":"); if (+a[0] <= w) lo = +a[1]; else if (!hi) hi = +a[1]; });\n' +
    '  if (lo || hi) f.style.height = Math.max(lo, hi) + "px"; });\n' +
    'addEventListener("message", function (e) { var d = e.data; if (!d || d.type !== "blocklens:height") return;\n' +
    '  document.querySelectorAll("iframe").forEach(function (f) { ' +
    'if (f.contentWindow === e.source) f.style.height = d.height + "px"; }); });\n' +
    '</script>';
  const element = '<script src="' + attr(root + 'dist/blocklens-element.js') + '"></script>\n' +
    '<block-lens view="' + view + '" ' + attrs(state).concat('heights="' + heights + '"').join(' ') +
    '></block-lens>';
  return { iframe: iframe, element: element };
}

// The embed's own heights at the widths of heights.js: embed.html laid out once in a hidden
// frame, then resized to each width in turn, each height read from the frame's answer to a
// 'blocklens:measure' message. Resolves [[width, height], ...], or null when the figure is not
// drawn within 10 s (a width that does not answer within 2 s is left out).
function measure(root, view, state) {
  return new Promise((resolve) => {
    const frame = document.createElement('iframe'), id = freshId(view), table = [];
    // Our own embed.html, not sandboxed: a sandboxed frame of a file:// page may load no files.
    frame.setAttribute('aria-hidden', 'true');
    frame.tabIndex = -1;
    frame.className = 'embed-measure';
    frame.width = String(WIDTHS[0]);
    frame.height = '400';
    let done = false, at = -1, timer = 0;
    const finish = (ok) => {
      if (done) return;
      done = true;
      removeEventListener('message', onMessage);
      clearTimeout(timer);
      frame.remove();
      resolve(ok && table.length ? table : null);
    };
    // The next width: resize, then ask (the frame answers once it has drawn at that width).
    const next = () => {
      at++;
      if (at >= WIDTHS.length) return finish(true);
      frame.width = String(WIDTHS[at]);
      clearTimeout(timer);
      timer = setTimeout(next, 2000);
      frame.contentWindow.postMessage({ type: 'blocklens:measure', id, n: at }, '*');
    };
    const onMessage = (e) => {
      const d = e.data;
      if (e.source !== frame.contentWindow || !d || d.type !== 'blocklens:height' || d.id !== id) return;
      if (d.status !== 'ready') return finish(false);
      if (at < 0) return next();   // drawn: start the sweep
      if (d.measure === at) { table.push([WIDTHS[at], d.height]); next(); }
    };
    timer = setTimeout(() => finish(false), 10000);
    addEventListener('message', onMessage);
    frame.src = root + 'embed.html#view=' + view + '&' + params.toHash(state) + '&id=' + id;
    document.body.appendChild(frame);
  });
}

function copy(area, button, t) {
  function done(ok) {
    button.textContent = t(ok ? 'embed_copied' : 'embed_copyFail');
    setTimeout(function () { button.textContent = t('embed_copy'); }, 1600);
  }
  area.focus();
  area.select();
  if (navigator.clipboard && navigator.clipboard.writeText) {
    navigator.clipboard.writeText(area.value).then(function () { done(true); }, function () {
      done(document.execCommand && document.execCommand('copy'));
    });
  } else done(document.execCommand && document.execCommand('copy'));
}

// A <details> whose boxes follow the latest state; returns { root, update(view, state, t, h) }.
function create(view) {
  const det = el('details', 'embed-code');
  const sum = el('summary', 'mini');
  det.appendChild(sum);
  const body = el('div', 'embed-body');   // appended when opened
  const fileNote = el('p', 'fig-note embed-file');
  body.appendChild(fileNote);
  const boxes = ['iframe', 'element'].map(function (kind) {
    const wrap = el('div', 'embed-box');
    const label = el('label', 'embed-label');
    const area = el('textarea', 'embed-' + kind);
    area.readOnly = true;
    area.spellcheck = false;
    area.rows = kind === 'iframe' ? 7 : 3;
    area.id = 'embed-' + view + '-' + kind;
    label.htmlFor = area.id;
    const b = el('button', 'mini');
    b.type = 'button';
    wrap.appendChild(label); wrap.appendChild(area); wrap.appendChild(b);
    body.appendChild(wrap);
    return { kind: kind, label: label, area: area, button: b };
  });
  const staticNote = el('p', 'fig-note');
  body.appendChild(staticNote);
  const last = { t: function (k) { return k; }, state: null, heights: [[PHONE, 600]], key: '', size: null };
  // The height the snippets suggest before the measured ones: the figure's on the page, read
  // only while the box is open (reading it forces a layout of the whole page).
  function guess() {
    const h = last.size && det.open ? last.size() : 0;
    if (h > 0) last.heights = [[PHONE, h]];
  }
  // A copy takes the snippet as it is; the next copy gets a new id.
  boxes.forEach(function (bx) {
    bx.button.addEventListener('click', function () { copy(bx.area, bx.button, last.t); fillBoxes(); });
  });
  function fillBoxes() {
    const s = snippets(view, last.state, base(), last.heights);
    boxes.forEach(function (bx) { bx.area.value = s[bx.kind]; });
  }
  // The suggested height is measured only when someone opens the box (and again per state).
  function measured() {
    const key = params.toHash(last.state);
    if (!det.open || key === last.key) return;
    guess();
    fillBoxes();
    last.key = key;
    det.dataset.measured = 'pending';
    measure(location.href.replace(/#.*$/, '').replace(/[^/]*$/, ''), view, last.state).then(function (h) {
      if (key !== params.toHash(last.state)) return;
      if (h) { last.heights = h; fillBoxes(); }
      // (The height at a phone's width, and all of them, for tests.)
      det.dataset.measured = h ? String(heightAt(h, PHONE)) : 'failed';
      det.dataset.heights = h ? formatHeights(h) : '';
    });
  }
  // The open box's texts, for the latest state and language.
  function render() {
    const t = last.t, root = base(), s = snippets(view, last.state, root, last.heights);
    fileNote.hidden = /^https?:$/.test(location.protocol);
    fileNote.textContent = t('embed_file', { base: root });
    boxes.forEach(function (bx) {
      bx.label.textContent = t('embed_' + bx.kind);
      bx.area.value = s[bx.kind];
      bx.button.textContent = t('embed_copy');
    });
    i18n.fill(staticNote, t('embed_static'));
  }
  det.addEventListener('toggle', function () {
    if (!det.open) { body.remove(); return; }
    if (!last.state) return;
    det.appendChild(body);
    measured();
    render();
  });
  return {
    root: det,
    // size: () => the figure's height on the page (px), the suggestion until one is measured.
    update: function (state, t, size) {
      last.t = t;
      last.size = size;
      last.state = state;
      sum.textContent = t('embed_btn');
      sum.title = t('embed_title');
      if (!det.open) return;
      if (!body.parentNode) det.appendChild(body);
      measured();
      render();
    }
  };
}

export { create };
