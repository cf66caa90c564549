/* page.js - index.html: URL hash <-> settings, the form, the six figures with their export and
   embed tools, messages for bad input (the last good figures stay), language and colour
   scheme. The controller decides what to compute; the Worker computes; this file draws. */
import * as colors from '../draw/colors.js';
import { PAGE_KEYS, createController } from '../model/controller.js';
import { message, resolve as resolveLang, translator } from '../i18n/index.js';
import { defaults, parseHash, toHash } from '../model/params.js';
import { FIGURES, VIEWS, ready } from '../figures/index.js';
import { createCompute, ownWorkerUrl } from '../dom/compute.js';
import * as controlsForm from '../dom/controls.js';
import { el, setData, setHidden } from '../dom/el.js';
import * as embedcode from '../dom/embedcode.js';
import * as exportbar from '../dom/exportbar.js';
import { mount as mountFigure } from '../dom/figure-view.js';
import { apply as applyI18n } from '../dom/i18n-dom.js';
import * as progressLine from '../dom/progress.js';
import * as quickbar from '../dom/quickbar.js';
import * as slicer from '../dom/slices.js';
import { resolve as resolveTheme } from '../dom/theme.js';

const BIG_DRAW = 16384;   // L x max(d_ff, L) cells from which figures are drawn in slices (7 tokens at BERT widths: 21,504)
const $ = (id) => document.getElementById(id);
const pick = (o, keys) => Object.fromEntries(keys.map((k) => [k, o[k]]));

// The engine compiles while the page builds its DOM.
const engineLoading = typeof BlockLens === 'object' && BlockLens ? BlockLens.load() : null;
if (engineLoading) engineLoading.catch(() => {});   // reported through the compute's first answer
const views = new Map(), tools = new Map(), marked = new Set();
let ctl, controls, progress, slices, lastHash = '', drawing = false, pending = new Map(), wasBusy = false;
let drawingFor = 0, finisher = 0, pageLook = '', hashSoon = false;

const lang = () => resolveLang(ctl.state.lang);
const t = (k, v) => translator(lang())(k, v);
function ctx() {
  return { t, lang: lang(), scheme: colors.scheme(resolveTheme(ctl.state.theme)), state: ctl.shown(),
    set: ctl.set, message: (e) => message(t, e) };
}

// User Timing marks: the latest request and answer (tests measure input handling between the
// two) and each figure's first drawing (tools/bench/load.js).
function mark(name, once) {
  if (typeof performance !== 'object' || !performance.mark) return;
  if (once) { if (marked.has(name)) return; marked.add(name); } else performance.clearMarks(name);
  performance.mark(name);
}

// ...and a measure of each figure's update() in every render, the latest kept (tools/bench/page.js
// --phases; when the page draws in slices, the heatmaps and plots are later jobs, not in it).
const timing = () => typeof performance === 'object' && !!performance.measure;
function measure(name, from) {
  if (!timing()) return;
  performance.clearMeasures(name);
  performance.measure(name, { start: from, end: performance.now() });
}

function change(kind) {
  // (The mark is the whole answer's: its parts, compute.js, come before it.)
  if (kind === 'result' && !ctl.result.missing.length) mark('blocklens:result');
  if (kind === 'result' || kind === 'page') render(kind === 'page');
  if (kind === 'page') toggles();
  showStatus();
}

// ---- drawing ---------------------------------------------------------------------------
// The figures that may show the latest answer are drawn from it; a figure blocked by a bad
// setting keeps its drawing (redrawn from its own numbers when the language or theme changes).
function render(all) {
  const c = ctx(), res = ctl.result, look = c.lang + ' ' + c.scheme.name;
  // (Setting these, even to the value they have, restyles the whole page: only on a change.)
  if (all || look !== pageLook) {
    pageLook = look;
    document.documentElement.lang = c.lang === 'zh' ? 'zh-CN' : 'en';
    document.documentElement.dataset.theme = c.scheme.name;
    document.title = t('pageTitle');
    applyI18n(document.body, c.lang);
  }
  weightsNote(c, res);
  // The answer comes in parts (compute.js): the figures a later part of the one being drawn
  // makes ready join the queue; anything else starts the drawing over.
  const more = !all && drawing && !!res && res.request === drawingFor;
  // Figures of a sliced drawing that a newer render cut short have text but unfinished canvases.
  const unfinished = more ? new Map() : pending;
  if (!more) { slices.cancel(); drawing = false; pending = new Map(); }
  if (!res) return;
  // A figure is drawn once the stages it needs are in (figures/index.js ready); until then it
  // keeps its drawing, marked as updating (showStatus).
  const fresh = (k) => ctl.fresh(views.get(k).reads) && ready(k, res);
  // A figure whose settings (its `reads`), language and theme are what it already shows is
  // left alone: picking a token redraws the rows figure, not all six.
  const same = (k, d) => {
    const f = FIGURES.get(k), stream = f.stream || [];
    return d.look === look && f.reads.every((key) => stream.includes(key) || d.state[key] === c.state[key]) &&
      (!stream.length || d.res.keys.weights === res.keys.weights);
  };
  const todo = VIEWS.filter((k) => {
    if (pending.get(k) === 'update') return false;   // (more: queued from an earlier part)
    const d = views.get(k).drawn();
    if (all || !d || unfinished.has(k)) return fresh(k) || !!d;
    return fresh(k) ? !same(k, d) : d.look !== look;
  });
  // (The measure ends after the figure's own later jobs, c.defer, at large sizes: they run
  // before the next figure's.)
  const draw = (k) => {
    const t0 = timing() ? performance.now() : 0;
    if (fresh(k)) views.get(k).update(res, c); else views.get(k).redraw(c);
    const end = () => { measure('blocklens:draw:' + k, t0); mark('blocklens:figure:' + k, true); };
    if (c.defer) c.defer(end); else end();
  };
  const big = todo.some((k) => { const r = fresh(k) ? res : views.get(k).drawn().res; return r.L * Math.max(r.dff, r.L) >= BIG_DRAW; });
  if (!todo.length && more) return;
  if (!big && todo.length <= 2 && !more) {
    todo.forEach(draw);
    return drawn(c);
  }
  // Many figures, or large sizes: each figure (at large sizes its text, then each of its
  // heatmaps and plots: c.defer) as short jobs over many tasks, so clicks and keys are handled
  // between them (eleven figures at the classic size took 60-70 ms in one task). A newer render
  // drops what is left of this one.
  if (big) c.defer = slices.add;
  drawing = true;
  drawingFor = res.request;
  // pending: figure -> what its queued job does, 'update' (from this answer) or 'redraw' (its own
  // numbers, e.g. a cut-short drawing). A figure queued for a redraw that a later part makes
  // ready is queued again, to update; the job that lost its place does nothing.
  todo.forEach((k) => {
    const kind = fresh(k) ? 'update' : 'redraw';
    pending.set(k, kind);
    // (At the classic size a figure is whole once its job has run: a newer render need not redo it.)
    slices.add(() => { if (pending.get(k) !== kind) return; draw(k); if (!big) pending.delete(k); });
  });
  const last = ++finisher;   // only the last render's finishing job runs: it follows every figure
  slices.add(() => { if (last !== finisher) return; drawing = false; pending = new Map(); drawn(c); showStatus(); });
}

// Under the introduction: which weights the figures show, when they are a trained model's.
function weightsNote(c, res) {
  const note = $('weights-note'), on = !!(res && res.trained);
  note.hidden = !on;
  if (on) note.textContent = t('weightsBanner', { layer: res.layer, n: res.layers, L: res.L });
}

// The settings a figure was drawn with, in the page's current language and theme.
function drawnState(k, c) {
  const d = views.get(k).drawn();
  return d && Object.assign({}, d.state, pick(c.state, PAGE_KEYS));
}

function drawn(c) {
  VIEWS.forEach((k) => {
    const tl = tools.get(k);
    tl.bar.update(c.t);
    tl.embed.update(drawnState(k, c) || c.state, c.t, () => $('fig-' + k).offsetHeight + 90);
  });
}

// Messages: all of them in the settings box, each also under its field (the form's, or the
// one inside a figure), and on each figure that still shows older settings, a note saying why.
function showStatus() {
  const c = ctx(), all = ctl.errors(), box = $('status');
  const attn = views.get('attention').drawn();
  controls.update(ctl.state, c, all, attn && ctl.badOf(['heads']).length ? attn.state : null);
  box.textContent = '';
  all.forEach((e) => box.appendChild(el('p', null, message(t, e))));
  const texts = all.map((e) => ({ key: e.key, text: message(t, e) }));
  let stale = 0;
  const res = ctl.result;
  for (const [k, v] of views) {
    const bad = ctl.stale(v.reads) ? ctl.badOf(v.reads) : null;
    if (bad) stale++;
    // A figure whose own stage is still being computed (a partial answer) is marked updating.
    const waiting = !bad && !!res && !ready(k, res) && !!v.drawn();
    v.status(texts, waiting ? t('figUpdating') : !bad ? '' : bad.length ? t('figStale', { fields: bad.map(label).join(t('listSep')) }) : t('figUpdating'));
  }
  if (stale) box.appendChild(el('p', 'stale-note', t('staleNote')));
  setHidden(box, !all.length);
  const busy = ctl.busy();
  // (The request mark is the start of a compute: not moved by a partial answer drawn meanwhile.)
  if (busy) { progress.start(); if (!wasBusy || !ctl.result || !ctl.result.missing.length) mark('blocklens:request'); } else progress.stop();
  wasBusy = busy;
  // The URL follows once every figure is drawn, after the next frame: replaceState lays the
  // page out, which then has nothing left to do (right after the drawing it took 5-40 ms).
  // The page is ready once the URL says what it shows.
  if (!busy && !drawing && ctl.result && !hashSoon && '#' + toHash(ctl.shown()) !== lastHash) {
    hashSoon = true;
    const write = () => setTimeout(() => { hashSoon = false; writeHash(); showStatus(); }, 0);
    if (document.hidden) write(); else requestAnimationFrame(write);
  }
  // Busy first: with a bad setting the other figures are still being computed.
  setData(document.body, { status: busy || drawing || hashSoon ? 'busy' : all.length ? 'error' : ctl.result ? 'ready' : 'loading',
    errors: all.map((e) => e.code).join(' '),
    compute: compute ? compute.mode() : '' });   // worker | local: where it ran
}

const label = (k) => t(k === 'engine' ? 'lbl_engine' : 'ctl_' + k);

// The theme button names the scheme on screen ("light, as the system" under auto); each click
// switches to the other one, which is 'auto' again when that is the system's (so every click
// changes what is seen, and the page can return to following the system).
function toggles() {
  const lb = $('lang-toggle'), tb = $('theme-toggle'), now = resolveTheme(ctl.state.theme);
  lb.textContent = lang() === 'zh' ? 'English' : '中文';
  lb.setAttribute('lang', lang() === 'zh' ? 'en' : 'zh');
  tb.textContent = t(ctl.state.theme === 'auto' ? 'theme_auto' : 'theme_' + now, { mode: t('themeName_' + now) });
  tb.dataset.theme = now;
}

function nextTheme() {
  const other = resolveTheme(ctl.state.theme) === 'dark' ? 'light' : 'dark';
  return resolveTheme('auto') === other ? 'auto' : other;
}

// ---- URL hash --------------------------------------------------------------------------
function writeHash() {
  const h = '#' + toHash(ctl.shown());
  if (h === lastHash) return;
  lastHash = h;
  if (h === location.hash) return;
  try { history.replaceState(null, '', h); } catch (e) { location.hash = h; }
}

function onHash() {
  if (location.hash === lastHash) return;
  const parsed = parseHash(location.hash);
  if (parsed.errors.length) return ctl.note(parsed.errors);
  ctl.replace(parsed.state, []);
}

// Under each figure: SVG / PNG export of what is on screen, and the embed code.
function mountTools(k) {
  const row = el('div', 'fig-tools');
  const bar = exportbar.create({ view: k, get: () => {
    const c = ctx(), d = views.get(k).drawn();
    return d && { res: d.res, ctx: Object.assign(c, { state: drawnState(k, c) }) };
  } });
  const embed = embedcode.create(k);
  row.appendChild(bar.root);
  row.appendChild(embed.root);
  $('fig-' + k).parentNode.appendChild(row);
  return { bar, embed };
}

// ---- start -----------------------------------------------------------------------------
let compute = null;
function start() {
  const parsed = parseHash(location.hash);
  ctl = createController(null, change, VIEWS.map((k) => FIGURES.get(k).reads));
  progress = progressLine.mount($('status'), () => t);
  slices = slicer.create({ atOnce: document.documentElement.dataset.slices === 'off' });   // tests compare both ways
  const host = { set: ctl.set, setRaw: (k, raw) => ctl.setRaw(k, raw, true) };
  controls = controlsForm.mount($('controls'), { get state() { return ctl.state; },
    setRaw: (k, raw, input, now) => ctl.setRaw(k, raw, now), flush: ctl.flush, setMany: ctl.set });
  controls = quickbar.mount($('quickbar'), controls, ctl);   // phones: common settings next to every figure
  for (const k of VIEWS) {
    views.set(k, mountFigure($('fig-' + k), FIGURES.get(k), host));
    tools.set(k, mountTools(k));
  }
  $('lang-toggle').addEventListener('click', () => ctl.set({ lang: lang() === 'zh' ? 'en' : 'zh' }));
  $('theme-toggle').addEventListener('click', () => ctl.set({ theme: nextTheme() }));
  addEventListener('hashchange', onHash);
  let resizeTimer = 0;
  addEventListener('resize', () => { clearTimeout(resizeTimer); resizeTimer = setTimeout(() => render(true), 150); });
  if (window.matchMedia) {
    matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => { render(true); toggles(); });
  }
  if (parsed.errors.length) {
    ctl.replace(Object.assign(defaults(), Object.fromEntries(PAGE_KEYS.map((k) => [k, parsed.state[k]]))), parsed.errors);
  } else ctl.replace(parsed.state, []);
  if (typeof BlockLens === 'undefined') return ctl.fail({ key: 'engine', code: 'noEngine', vars: {} });
  compute = createCompute({ engine: BlockLens, loading: engineLoading, workerUrl: ownWorkerUrl('dist/blocklens-worker.js'),
    workerCode: __WORKER_CODE__, onProgress: (info) => progress.update(info),
    onMode: (mode) => setData(document.body, { compute: mode }) });
  ctl.attach(compute);
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
