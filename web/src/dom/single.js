/* single.js - one figure on its own, for embed.html and <block-lens>: the shared controller,
   a compute of its own (a Worker where one can start), the figure, optional settings (none |
   compact | full), SVG/PNG export, an "open in BlockLens" link and messages for bad settings
   (the last good figure stays). Everything lives in the root it is given (a page element or
   a shadow root). */
import { createController } from '../model/controller.js';
import { toHash } from '../model/params.js';
import { figure, ready } from '../figures/index.js';
import { createCompute } from './compute.js';
import * as controlsForm from './controls.js';
import { el } from './el.js';
import * as exportbar from './exportbar.js';
import { mount as mountFigure } from './figure-view.js';
import { createHost } from './host.js';
import { apply as applyI18n } from './i18n-dom.js';

export const MODES = ['none', 'compact', 'full'];

// opts: { view, controls, engine, workerUrl, workerCode, openUrl(stateHash) -> url | '',
// onRender(status), onTheme(scheme, lang) }
export function create(parent, opts) {
  const view = opts.view, mode = MODES.includes(opts.controls) ? opts.controls : 'compact';
  const fig = figure(view);
  let started = false, drawnOnce = false;

  const box = el('div', 'bl-one controls-' + mode);
  box.dataset.view = view;
  box.dataset.status = 'idle';
  const head = el('div', 'bl-head'), title = el('span', 'bl-title');
  // Which trained model and block the figure shows (the SVG export's state line says it too).
  const model = el('span', 'bl-model');
  model.hidden = true;
  head.appendChild(title);
  head.appendChild(model);
  const status = el('div', 'status');
  status.setAttribute('role', 'alert');
  status.hidden = true;
  const controlsBox = el('div', 'bl-controls'), figBox = el('div', 'figure bl-figure'), foot = el('div', 'bl-foot');
  const drawnFor = () => { const d = figView.drawn(); return d && { res: d.res, ctx: host.drawnCtx(d) }; };
  const bar = exportbar.create({ view, get: drawnFor });
  const open = el('a', 'bl-open');
  open.target = '_blank';
  open.rel = 'noopener';
  foot.appendChild(open);
  foot.appendChild(bar.root);
  if (mode !== 'none') box.appendChild(head);
  else box.appendChild(model);
  box.appendChild(status);
  if (mode === 'full') box.appendChild(controlsBox);
  box.appendChild(figBox);
  if (mode !== 'none') box.appendChild(foot);
  parent.appendChild(box);

  const ctl = createController(null, render, [fig.reads]);
  const host = createHost(ctl), t = host.t;
  const figView = mountFigure(figBox, fig, host.figure);
  const controls = mode === 'full' ? controlsForm.mount(controlsBox, host.form) : null;

  // A bad setting that this figure reads keeps its last drawing (faded, with a note); one it
  // does not read (heads for the FFN views) is reported while the figure follows the rest.
  function render() {
    const c = host.ctx(), errs = ctl.errors(), res = ctl.result;
    if (opts.onTheme) opts.onTheme(c.scheme.name, c.lang);
    box.lang = c.lang === 'zh' ? 'zh-CN' : 'en';
    title.textContent = t('h_' + view);
    applyI18n(box, c.lang);
    // (An answer comes in parts: the figure is drawn once the stages it needs are in.)
    if (res && ctl.fresh(fig.reads) && ready(view, res)) {
      figView.update(res, c);
      const marks = typeof performance === 'object' && performance.mark;
      if (!drawnOnce && marks) performance.mark('blocklens:figure:' + view);
      drawnOnce = true;
    } else figView.redraw(c);
    const drawn = figView.drawn(), shown = drawn && drawn.res.trained ? drawn.res : null;
    model.hidden = !shown;
    model.textContent = shown ? t(fig.reads.includes('layer') ? 'embed_model_layer' : 'embed_model',
      { layer: shown.layer, n: shown.layers }) : '';
    figView.status(host.texts(errs), host.staleNote(fig.reads));
    const headsBad = drawn && ctl.badOf(['heads']).length && fig.reads.includes('heads');
    if (controls) controls.update(ctl.state, c, errs, headsBad ? drawn.state : null);
    bar.update(t);
    const url = opts.openUrl ? opts.openUrl(toHash(drawn ? host.drawnCtx(drawn).state : c.state)) : '';
    open.hidden = !url;
    if (url) { open.href = url; open.textContent = t('embed_open'); }
    status.textContent = '';
    errs.forEach((e) => status.appendChild(el('p', null, c.message(e))));
    if (!res && !errs.length && started) status.appendChild(el('p', 'stale-note', t('embed_loading')));
    status.hidden = !status.childNodes.length;
    const busy = ctl.busy(fig.needs);
    box.dataset.status = errs.length && !busy ? 'error' : res && !busy ? 'ready' : started ? 'loading' : 'idle';
    box.dataset.errors = errs.map((e) => e.code).join(' ');
    if (opts.onRender) opts.onRender(box.dataset.status);
  }

  // Start computing (once): the figure is about to be seen.
  function start() {
    if (started) return;
    started = true;
    if (!opts.engine || !opts.engine.load) return ctl.fail({ key: 'engine', code: 'noEngine', vars: {} });
    ctl.attach(createCompute({ engine: opts.engine, workerUrl: opts.workerUrl, workerCode: opts.workerCode,
      assetUrl: opts.assetUrl, want: fig.needs, onProgress: () => {} }));
  }

  return { root: box, start, render,
    setState: (next, errors) => ctl.replace(next, errors),
    status: () => box.dataset.status,
    svg: () => { const d = drawnFor(); return d ? exportbar.svgText(Object.assign({ view }, d)) : null; } };
}
