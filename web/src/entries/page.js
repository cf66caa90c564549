/* page.js - index.html's glue: URL hash <-> settings, the form, the figures with their export
   and embed tools, messages for bad input (the last good figures stay), language and colour
   scheme. The controller decides what to compute, the Worker computes, dom/redraw.js decides
   which figures are drawn when; this file wires them to the page. The whole model's figures
   (12-15: every layer kept, the lens, reruns) are computed only while one of them is on screen
   or within a screen of it (<html data-wide="eager">: always, as tests of their content ask).
   The first screen (the first figure, the form, the texts above and beside it) is built and
   dressed first; the other figures, their texts and the Train view once the first figure is
   drawn (before it they cost ~75 ms of the main thread and made its first layout the whole
   page's: tools/bench/REPORT-load.md). */
import { PAGE_KEYS, createController } from '../model/controller.js';
import { closure } from '../model/model.js';
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
import { mount as mountTrain } from '../train/controller.js';

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
// change, or when the page is drawn again.) part: which texts (i18n-dom.js apply's `part`).
function dress(c, all, weights, part) {
  const html = document.documentElement, lang = c.lang === 'zh' ? 'zh-CN' : 'en';
  if (!all && html.lang === lang && html.dataset.theme === c.scheme.name && html.dataset.weights === weights) return;
  html.lang = lang;
  html.dataset.theme = c.scheme.name;
  html.dataset.weights = weights;
  document.title = c.t('pageTitle');
  applyI18n(document.body, c.lang, trainedOf(weights), part);
}
const trainedOf = (weights) => (weights === 'model' ? 'model' : weights !== 'random');

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

// The figures that read the whole-model forward (stages/wide.js), and the stages the others need.
const WIDE = VIEWS.filter((k) => closure(FIGURES.get(k).needs).includes('wide'));
const NARROW = [...new Set(VIEWS.filter((k) => !WIDE.includes(k)).flatMap((k) => FIGURES.get(k).needs))];

// near(): is a whole-model figure on screen or about to be (IntersectionObserver, a screen's margin)?
// onChange(near) when that changes. Without an observer (or eager): always.
function watchWide(onChange) {
  let near = document.documentElement.dataset.wide === 'eager' || typeof IntersectionObserver !== 'function';
  if (near) return () => true;
  const seen = new Map();
  const io = new IntersectionObserver((entries) => {
    entries.forEach((e) => seen.set(e.target, e.isIntersecting));
    const now = [...seen.values()].some(Boolean);
    if (now !== near) { near = now; onChange(near); }
  }, { rootMargin: '100% 0px' });
  WIDE.forEach((k) => io.observe($('fig-' + k).closest('section') || $('fig-' + k)));
  return () => near;
}

// The first figure, and where the rest of the page begins (its section: texts from there on wait).
const FIRST = VIEWS[0];
const restStart = () => $('fig-' + VIEWS[1]).closest('section');

function start() {
  const parsed = parseHash(location.hash);
  const ctl = createController(null, change, VIEWS.map((k) => FIGURES.get(k).reads));
  const host = createHost(ctl), t = host.t;
  const progress = progressLine.mount($('status'), () => t);
  // (Tests compare both ways.)
  const slices = slicer.create({ atOnce: document.documentElement.dataset.slices === 'off' });
  // Phones: common settings next to every figure (quickbar), bound like the form.
  const controls = quickbar.mount($('quickbar'), controlsForm.mount($('controls'), host.form), ctl);
  // views: the mounted figures in page order (the first one now, the others by mountRest()).
  const views = new Map(), tools = new Map();
  const mountView = (k) => {
    views.set(k, mountFigure($('fig-' + k), FIGURES.get(k), host.figure));
    tools.set(k, mountTools(k, host, views.get(k)));
  };
  mountView(FIRST);
  // A reload or a step back restores the scroll position once the page is loaded: it must be
  // whole by then, so the rest is mounted at once.
  const nav = performance.getEntriesByType ? performance.getEntriesByType('navigation')[0] : null;
  const wholeNow = !!nav && (nav.type === 'reload' || nav.type === 'back_forward');
  // Scrolled to (or near) the whole model's figures: they are computed from now on (and for the text
  // on screen, at once); scrolled away: later requests leave them out and they keep their drawing.
  // (Watched once the rest is mounted: before, the empty sections all sit within a screen.)
  let near = () => document.documentElement.dataset.wide === 'eager' || typeof IntersectionObserver !== 'function';
  const readyNow = (k, res) => ready(k, res) && (near() || !WIDE.includes(k));
  const redraw = createRedraw({ ctl, host, views, figures: FIGURES, ready: readyNow, slices, clock, timing,
    writeHash: writeUrl, onDrawn: drawn, onStatus: showStatus });
  let compute = null;
  // "Open a model folder…" beside the Weights field; an opened model is shown from its layer 1.
  const open = opener.mount(document.querySelector('.field-weights'), { compute: () => compute, t: () => host.t,
    tokenizersUrl: 'dist/blocklens-tokenizers.js', inlineTokenizers: ownWorkerUrl('x') === null,
    onEncoded: () => ctl.refresh(),
    onOpened: (m, view) => {
      const set = () => ctl.set(Object.assign(view ? Object.assign({}, view)
        : openedStart(m, ctl.state.tokens), { weights: 'model', model: m.name }));
      // The Worker encodes the text: the last token is known once its ids are back.
      if (view || !m.encoded) set(); else m.encoded(ctl.state.tokens).then(set, set);
    } });

  let train = null;   // the Train view (mountRest)

  // The rest of the page once the first figure is drawn (or a message shows instead), after
  // that frame: the other figures with their tools and texts, the Train view, the watch on the
  // whole model's figures; then the figures the answer so far makes ready are drawn.
  let rest = false, restSoon = false;
  function restAfterFirst() {
    if (restSoon || !(views.get(FIRST).drawn() || ctl.errors().length)) return;
    restSoon = true;
    clock.frame(() => clock.later(mountRest));
  }
  function mountRest() {
    if (rest) return;
    VIEWS.slice(1).forEach(mountView);
    // The Train view: its own Worker; "Inspect this model" opens the trained folder as above.
    train = mountTrain($('train-view'), { engine: typeof BlockLens === 'object' ? BlockLens : null,
      loading: engineLoading, workerUrl: ownWorkerUrl('dist/blocklens-worker.js'), workerCode: __WORKER_CODE__,
      t: () => host.t, scheme: () => host.ctx().scheme, poemsUrl: 'dist/blocklens-poems-text.js',
      openModel: (files) => open.open(files) });
    rest = true;
    // (Texts as the first screen's; none yet: the first render dresses the whole page.)
    const html = document.documentElement;
    const weights = html.dataset.weights;
    if (weights) applyI18n(document.body, host.lang(), trainedOf(weights), { from: restStart() });
    near = watchWide((on) => {
      if (!compute) return;
      compute.setWant(on ? null : NARROW);
      if (on) ctl.attach(compute);   // (attaching again requests the current settings)
    });
    redraw.render(false);
    showStatus();
  }

  if (wholeNow) mountRest();

  function change(kind) {
    if (kind === 'result' || kind === 'page') render(kind === 'page');
    if (kind === 'page') { toggles(host, ctl.state.theme); open.update(); if (train) train.update(); }
    showStatus();
    if (!rest) restAfterFirst();
  }

  function render(all) {
    const c = host.ctx();
    dress(c, all, (ctl.result && ctl.result.trained) || 'random', rest ? null : { before: restStart() });
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
    const attn = views.has('attention') && views.get('attention').drawn();
    controls.update(ctl.state, c, all, attn && ctl.badOf(['heads']).length ? attn.state : null);
    box.textContent = '';
    all.forEach((e) => box.appendChild(el('p', null, c.message(e))));
    const st = redraw.status(host.texts(all));
    if (st.stale) box.appendChild(el('p', 'stale-note', t('staleNote')));
    setHidden(box, !all.length);
    if (st.busy) progress.start(); else progress.stop();
    // (Not ready while the rest of the page is still to be mounted and drawn.)
    setData(document.body, { status: !rest && st.word === 'ready' ? 'busy' : st.word,
      errors: all.map((e) => e.code).join(' '),
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
    workerUrl: ownWorkerUrl('dist/blocklens-worker.js'), workerCode: __WORKER_CODE__, want: near() ? null : NARROW,
    onProgress: (info) => progress.update(info),
    onMode: (mode) => setData(document.body, { compute: mode }) });
  ctl.attach(compute);
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
