/* embedcode.js - "Embed" under each figure of the page: for the current view and state, an
   iframe snippet (embed.html with the state in its hash) and a script + <block-lens> snippet,
   each in a read-only box with a Copy button. Pure snippet builders are exported for tests. */
import * as i18n from './i18n-dom.js';
import * as params from '../core/params.js';
import { el } from './el.js';

function attr(v) {
  return String(v).replace(/[&<>"]/g, function (c) { return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]; });
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

// view, state, base URL, suggested height -> { iframe, element }
function snippets(view, state, root, height) {
  const hash = 'view=' + view + '&' + params.toHash(state);
  const id = 'blocklens-' + view;
  const iframe = '<iframe src="' + attr(root + 'embed.html#' + hash + '&id=' + id) + '" id="' + id + '"\n' +
    '  title="BlockLens: ' + attr(view) + '" width="100%" height="' + Math.round(height) + '" loading="lazy"\n' +
    '  style="border:0" sandbox="allow-scripts allow-downloads"></iframe>\n' +
    '<script>/* optional: let the frame take the height it reports */\n' +
    'addEventListener("message", function (e) { var d = e.data, f = document.getElementById(d && d.id);\n' +
    '  if (d && d.type === "blocklens:height" && f && e.source === f.contentWindow) f.style.height = d.height + "px"; });\n' +
    '</script>';
  const element = '<script src="' + attr(root + 'dist/blocklens-element.js') + '"></script>\n' +
    '<block-lens view="' + view + '" ' + attrs(state).join(' ') + '></block-lens>';
  return { iframe: iframe, element: element };
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
  const body = el('div', 'embed-body');
  det.appendChild(body);
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
  const last = { t: function (k) { return k; } };
  boxes.forEach(function (bx) { bx.button.addEventListener('click', function () { copy(bx.area, bx.button, last.t); }); });
  return {
    root: det,
    update: function (state, t, height) {
      last.t = t;
      sum.textContent = t('embed_btn');
      sum.title = t('embed_title');
      const root = base(), s = snippets(view, state, root, height);
      fileNote.hidden = /^https?:$/.test(location.protocol);
      fileNote.textContent = t('embed_file', { base: root });
      boxes.forEach(function (bx) {
        bx.label.textContent = t('embed_' + bx.kind);
        bx.area.value = s[bx.kind];
        bx.button.textContent = t('embed_copy');
      });
      i18n.fill(staticNote, t('embed_static'));
    }
  };
}

export { create, snippets };
