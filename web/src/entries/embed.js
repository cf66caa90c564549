/* embed.js - embed.html: the hash picks the figure (view=), the controls (controls=), an id
   for the parent, and the page's usual settings; the frame tells its parent its height:
   parent.postMessage({ type: 'blocklens:height', height, id, view }, '*') on every change. */
import { parseHash, quote } from '../model/params.js';
import { VIEWS } from '../figures/index.js';
import { ownWorkerUrl } from '../dom/compute.js';
import { MODES, create } from '../dom/single.js';
import { translator } from '../i18n/index.js';

const CHOICES = new Map([['view', VIEWS], ['controls', MODES]]);

// "#view=rows&controls=none&id=x&tokens=..." -> { view, controls, id, state, errors }
export function parse(hash) {
  const out = { view: 'attention', controls: 'compact', id: '', errors: [] };
  for (const pair of String(hash || '').replace(/^#/, '').split('&')) {
    const eq = pair.indexOf('=');
    let k, v;
    try {
      k = decodeURIComponent(eq < 0 ? pair : pair.slice(0, eq));
      v = eq < 0 ? '' : decodeURIComponent(pair.slice(eq + 1).replace(/\+/g, '%20'));
    } catch (e) { continue; }   // parseHash reports broken parts
    if (k === 'id') out.id = v.slice(0, 100);
    else if (CHOICES.has(k)) {
      if (CHOICES.get(k).includes(v)) out[k] = v;
      else out.errors.push({ key: k, code: 'enum', vars: { value: quote(v) } });
    }
  }
  const parsed = parseHash(hash);
  out.state = parsed.state;
  out.errors = out.errors.concat(parsed.errors);
  return out;
}

let current = parse(location.hash), lastHeight = -1, one, status = 'loading';

// Only once the figure is drawn (or an error shown): a frame that reserved the final height
// must not shrink to the "computing" line and grow again.
function postHeight() {
  const h = Math.ceil(document.body.getBoundingClientRect().height);
  if (h === lastHeight || window.parent === window || (status !== 'ready' && status !== 'error')) return;
  lastHeight = h;
  try {
    window.parent.postMessage({ type: 'blocklens:height', height: h, id: current.id, view: current.view, status }, '*');
  } catch (e) { /* a parent that cannot be reached has nothing to resize */ }
}

// After the layout and drawing a resize starts (two frames, then the tasks they queued).
function settled(fn) {
  requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(fn, 30)));
}

function start() {
  one = create(document.getElementById('root'), {
    view: current.view, controls: current.controls, engine: typeof BlockLens === 'undefined' ? null : BlockLens,
    workerUrl: ownWorkerUrl('dist/blocklens-worker.js'), workerCode: __WORKER_CODE__,
    openUrl: (stateHash) => 'index.html#' + stateHash,
    onTheme: (scheme, lang) => {
      document.documentElement.dataset.theme = scheme;
      document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
      document.title = 'BlockLens: ' + translator(lang)('h_' + current.view);
    },
    onRender: (st) => { status = st; document.body.dataset.status = st; postHeight(); }
  });
  one.setState(current.state, current.errors);
  one.start();
  if (typeof ResizeObserver === 'function') new ResizeObserver(postHeight).observe(document.body);
  // The page that writes the embed code lays this frame out at several widths and asks, after
  // each, for the height ({ type: 'blocklens:measure', id }): the answer comes after the
  // redraw, even when the height did not change.
  addEventListener('message', (e) => {
    const d = e.data;
    if (e.source !== window.parent || !d || d.type !== 'blocklens:measure' || d.id !== current.id) return;
    settled(() => {
      if (status !== 'ready' && status !== 'error') return;
      const h = Math.ceil(document.body.getBoundingClientRect().height);
      try {
        window.parent.postMessage({ type: 'blocklens:height', height: h, id: current.id, view: current.view, status,
          width: document.documentElement.clientWidth, measure: d.n }, '*');
      } catch (err) { /* nothing to answer */ }
    });
  });
  addEventListener('load', postHeight);
  addEventListener('hashchange', () => {
    const next = parse(location.hash);
    // Another figure or control set is another page; settings alone redraw in place.
    if (next.view !== current.view || next.controls !== current.controls) return location.reload();
    current = next;
    one.setState(next.state, next.errors);
  });
  if (window.matchMedia) matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => one.render());
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
