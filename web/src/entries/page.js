/* page.js - index.html's glue: URL hash <-> settings, the form, the figures with their export
   and embed tools, messages for bad input (the last good figures stay), language and colour
   scheme. The controller decides what to compute, the Worker computes, dom/redraw.js decides
   which figures are drawn when; this file wires them to the page. */
import { PAGE_KEYS, createController } from '../model/controller.js';
import { defaults, getOpened, openedStart, parseHash } from '../model/params.js';
import { FIGURES, VIEWS, ready } from '../figures/index.js';
import { createCompute, ownWorkerUrl } from '../dom/compute.js';
import * as controlsForm from '../dom/controls.js';
import { el, setData, setHidden } from '../dom/el.js';
import * as embedcode from '../dom/embedcode.js';
import * as exportbar from '../dom/exportbar.js';
import { mount as mountFigure } from '../dom/figure-view.js';
import { createHost } from '../dom/host.js';
import { apply as applyI18n } from '../dom/i18n-dom.js';
import * as opener from '../dom/opener.js';
import * as progressLine from '../dom/progress.js';
import * as quickbar from '../dom/quickbar.js';
import { createRedraw } from '../dom/redraw.js';
import * as slicer from '../dom/slices.js';
import { resolve as resolveTheme } from '../dom/theme.js';

const $ = (id) => document.getElementById(id);

// The engine compiles while the page builds its DOM.
const engineLoading = typeof BlockLens === 'object' && BlockLens ? BlockLens.load() : null;
if (engineLoading) engineLoading.catch(() => {});   // reported through the compute's first answer

// User Timing by name, the latest kept: the request and answer marks (tests measure input
// handling between them), each figure's first drawing (tools/bench/load.js) and each
// figure's drawing time (tools/bench/page.js --phases, tools/bench/changes.js).
const timing = typeof performance === 'object' && performance.mark && performance.measure ? {
  now: () => performance.now(),
  mark: (name) => { performance.clearMarks(name); performance.mark(name); },
  measure: (name, from) => {
    performance.clearMeasures(name);
    performance.measure(name, { start: from, end: performance.now() });
  }
} : null;

// After the next frame (none comes while the tab is hidden); in a task of its own.
const clock = { frame: (fn) => (document.hidden ? fn() : requestAnimationFrame(fn)), later: (fn) => setTimeout(fn, 0) };

// The page's language, theme and title, and its texts for the weights the figures show (random
// or trained). (Setting these, even to the value they have, restyles the whole page: only on a
// change, or when the page is drawn again.)
function dress(c, all, weights) {
  const html = document.documentElement, lang = c.lang === 'zh' ? 'zh-CN' : 'en';
  if (!all && html.lang === lang && html.dataset.theme === c.scheme.name && html.dataset.weights === weights) return;
  html.lang = lang;
  html.dataset.theme = c.scheme.name;
  html.dataset.weights = weights;
  document.title = c.t('pageTitle');
  applyI18n(document.body, c.lang, weights === 'model' ? 'model' : weights !== 'random');
}

// Under the introduction: which weights the figures show, when they are a trained model's.
function weightsNote(t, res) {
  const note = $('weights-note'), on = !!(res && res.trained);
  note.hidden = !on;
  if (on && res.trained === 'model') {
    note.textContent = t('weightsBanner_model', { name: (getOpened() || {}).name, layer: res.layer, n: res.layers,
      L: res.L });
  } else if (on) note.textContent = t('weightsBanner', { layer: res.layer, n: res.layers, L: res.L });
}

// The theme button names the scheme on screen ("light, as the system" under auto); each click
// switches to the other one, which is 'auto' again when that is the system's (so every click
// changes what is seen, and the page can return to following the system).
function toggles(host, theme) {
  const lb = $('lang-toggle'), tb = $('theme-toggle'), now = resolveTheme(theme), t = host.t;
  lb.textContent = host.lang() === 'zh' ? 'English' : '中文';
  lb.setAttribute('lang', host.lang() === 'zh' ? 'en' : 'zh');
  tb.textContent = t(theme === 'auto' ? 'theme_auto' : 'theme_' + now, { mode: t('themeName_' + now) });
  tb.dataset.theme = now;
}

function nextTheme(theme) {
  const other = resolveTheme(theme) === 'dark' ? 'light' : 'dark';
  return resolveTheme('auto') === other ? 'auto' : other;
}

// The URL says what the figures show, without a history entry per change.
function writeUrl(h) {
  if (h === location.hash) return;
  try { history.replaceState(null, '', h); } catch (e) { location.hash = h; }
}

// Under each figure: SVG / PNG export of what is on screen, and the embed code.
function mountTools(k, host, view) {
  const row = el('div', 'fig-tools');
  const drawn = () => { const d = view.drawn(); return d && { res: d.res, ctx: host.drawnCtx(d) }; };
  const bar = exportbar.create({ view: k, get: drawn });
  const embed = embedcode.create(k);
  row.appendChild(bar.root);
  row.appendChild(embed.root);
  $('fig-' + k).parentNode.appendChild(row);
  return { bar, embed };
}

function start() {
  const parsed = parseHash(location.hash);
  const ctl = createController(null, change, VIEWS.map((k) => FIGURES.get(k).reads));
  const host = createHost(ctl), t = host.t;
  const progress = progressLine.mount($('status'), () => t);
  // (Tests compare both ways.)
  const slices = slicer.create({ atOnce: document.documentElement.dataset.slices === 'off' });
  // Phones: common settings next to every figure (quickbar), bound like the form.
  const controls = quickbar.mount($('quickbar'), controlsForm.mount($('controls'), host.form), ctl);
  const views = new Map(), tools = new Map();
  for (const k of VIEWS) {
    views.set(k, mountFigure($('fig-' + k), FIGURES.get(k), host.figure));
    tools.set(k, mountTools(k, host, views.get(k)));
  }
  const redraw = createRedraw({ ctl, host, views, figures: FIGURES, ready, slices, clock, timing,
    writeHash: writeUrl, onDrawn: drawn, onStatus: showStatus });
  let compute = null;
  // "Open a model folder…" beside the Weights field; an opened model is shown from its layer 1.
  const open = opener.mount(document.querySelector('.field-weights'), { compute: () => compute, t: () => host.t,
    tokenizersUrl: 'dist/blocklens-tokenizers.js', inlineTokenizers: ownWorkerUrl('x') === null,
    onOpened: (m, view) => ctl.set(Object.assign(view ? Object.assign({}, view)
      : openedStart(m, ctl.state.tokens), { weights: 'model', model: m.name })) });

  function change(kind) {
    if (kind === 'result' || kind === 'page') render(kind === 'page');
    if (kind === 'page') { toggles(host, ctl.state.theme); open.update(); }
    showStatus();
  }

  function render(all) {
    const c = host.ctx();
    dress(c, all, (ctl.result && ctl.result.trained) || 'random');
    weightsNote(t, ctl.result);
    redraw.render(all);
  }

  // The tools under each figure follow its drawing.
  function drawn(c) {
    for (const [k, tl] of tools) {
      const d = views.get(k).drawn();
      tl.bar.update(c.t);
      tl.embed.update(d ? host.drawnCtx(d).state : c.state, c.t, () => $('fig-' + k).offsetHeight + 90);
    }
  }

  // Messages: all of them in the settings box, each also under its field (the form's, or the
  // one inside a figure), and on each figure that still shows older settings, a note saying why.
  function showStatus() {
    const c = host.ctx(), all = ctl.errors(), box = $('status');
    const attn = views.get('attention').drawn();
    controls.update(ctl.state, c, all, attn && ctl.badOf(['heads']).length ? attn.state : null);
    box.textContent = '';
    all.forEach((e) => box.appendChild(el('p', null, c.message(e))));
    const st = redraw.status(host.texts(all));
    if (st.stale) box.appendChild(el('p', 'stale-note', t('staleNote')));
    setHidden(box, !all.length);
    if (st.busy) progress.start(); else progress.stop();
    setData(document.body, { status: st.word, errors: all.map((e) => e.code).join(' '),
      compute: compute ? compute.mode() : '' });   // worker | local: where it ran
  }

  function onHash() {
    if (location.hash === redraw.hash()) return;
    const next = parseHash(location.hash);
    if (next.errors.length) return ctl.note(next.errors);
    ctl.replace(next.state, []);
  }

  $('lang-toggle').addEventListener('click', () => ctl.set({ lang: host.lang() === 'zh' ? 'en' : 'zh' }));
  $('theme-toggle').addEventListener('click', () => ctl.set({ theme: nextTheme(ctl.state.theme) }));
  addEventListener('hashchange', onHash);
  let resizeTimer = 0;
  addEventListener('resize', () => { clearTimeout(resizeTimer); resizeTimer = setTimeout(() => render(true), 150); });
  if (window.matchMedia) {
    matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
      render(true);
      toggles(host, ctl.state.theme);
    });
  }
  // A view of a model folder (weights=model): shown on random weights until the folder is opened,
  // which the page asks for by name.
  if (parsed.state.weights === 'model' && !getOpened()) {
    open.askFor(Object.assign({}, parsed.state));
    parsed.state.weights = 'random';
    parsed.errors = parsed.errors.filter((e) => e.code !== 'noModel');
  }
  if (parsed.errors.length) {
    const page = Object.fromEntries(PAGE_KEYS.map((k) => [k, parsed.state[k]]));
    ctl.replace(Object.assign(defaults(), page), parsed.errors);
  } else ctl.replace(parsed.state, []);
  if (typeof BlockLens === 'undefined') return ctl.fail({ key: 'engine', code: 'noEngine', vars: {} });
  compute = createCompute({ engine: BlockLens, loading: engineLoading,
    workerUrl: ownWorkerUrl('dist/blocklens-worker.js'), workerCode: __WORKER_CODE__,
    onProgress: (info) => progress.update(info),
    onMode: (mode) => setData(document.body, { compute: mode }) });
  ctl.attach(compute);
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
