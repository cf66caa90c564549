/* single.js - one figure on its own, for embed.html and <block-lens>: state -> shared engine ->
   one view, with optional controls (none | compact | full), SVG/PNG export, an "open in
   BlockLens" link and messages for bad settings (the last good figure stays). No page globals:
   everything lives in the root element it is given (a page element or a shadow root). */
(function (ui) {
  'use strict';
  var el = ui.table.el, P = ui.params;
  var PAGE_KEYS = ['lang', 'theme'];
  var MODES = ['none', 'compact', 'full'];

  // opts: { view, controls, openUrl(hash) -> url or '', onRender(), onTheme(scheme, lang) }
  function create(parent, opts) {
    var view = opts.view, mode = MODES.indexOf(opts.controls) >= 0 ? opts.controls : 'compact';
    var state = P.defaults(), good = null, res = null, model = null;
    var given = [], fieldErrors = {}, engineErrors = [], timer = 0, started = false;

    var box = el('div', 'bl-one controls-' + mode);
    box.dataset.view = view;
    box.dataset.status = 'idle';
    var head = el('div', 'bl-head');
    var title = el('span', 'bl-title');
    head.appendChild(title);
    var status = el('div', 'status');
    status.setAttribute('role', 'alert');
    status.hidden = true;
    var controlsBox = el('div', 'bl-controls');
    var fig = el('div', 'figure bl-figure');
    var foot = el('div', 'bl-foot');
    var bar = ui.exportbar.create({ view: view, get: function () { return res && { res: res, ctx: ctx() }; } });
    var open = el('a', 'bl-open');
    open.target = '_blank';
    open.rel = 'noopener';
    foot.appendChild(open);
    foot.appendChild(bar.root);
    if (mode !== 'none') box.appendChild(head);
    box.appendChild(status);
    if (mode === 'full') box.appendChild(controlsBox);
    box.appendChild(fig);
    if (mode !== 'none') box.appendChild(foot);
    parent.appendChild(box);

    function lang() { return ui.i18n.resolve(state.lang); }
    function t(key, vars) { return ui.i18n.t(lang(), key, vars); }
    function message(e) {
      var field = e.key === 'hash' ? t('lbl_hash') : e.key === 'engine' ? t('lbl_engine') : t('ctl_' + e.key);
      return field + ': ' + t('err_' + e.code, e.vars);
    }
    function pick(o) { var r = {}; PAGE_KEYS.forEach(function (k) { r[k] = o[k]; }); return r; }
    function values(o) { return Object.keys(o).map(function (k) { return o[k]; }); }
    function blocking() { return values(fieldErrors).concat(P.validate(state), engineErrors); }
    function ctx() {
      return { t: t, lang: lang(), scheme: ui.colors.scheme(ui.colors.resolve(state.theme)),
        state: Object.assign({}, good || state, pick(state)), set: set, setRaw: setRaw, setMany: set, message: message };
    }

    var figView = ui.views[view].mount(fig, ctx());
    var controls = mode === 'full' ? ui.views.controls.mount(controlsBox, { get state() { return state; }, setRaw: setRaw, setMany: set }) : null;

    function set(patch) {
      given = [];
      Object.keys(patch).forEach(function (k) { delete fieldErrors[k]; });
      Object.assign(state, patch);
      schedule(0);
    }
    function setRaw(key, raw, input, now) {
      var r = P.coerce(key, raw);
      given = [];
      if (r.error) { fieldErrors[key] = r.error; clearTimeout(timer); return render(); }
      delete fieldErrors[key];
      state[key] = r.value;
      schedule(now ? 0 : 250);
    }
    function schedule(delay) { clearTimeout(timer); timer = setTimeout(run, delay); }

    function run() {
      engineErrors = [];
      if (!model || blocking().length) return render();
      try {
        res = model.compute(state);
        good = Object.assign({}, state);
      } catch (e) {
        engineErrors = [{ key: 'engine', code: 'engine', vars: { message: String(e && e.message || e) } }];
      }
      render();
    }

    function render() {
      var c = ctx(), errs = blocking().concat(given);
      if (opts.onTheme) opts.onTheme(c.scheme.name, c.lang);
      box.lang = c.lang === 'zh' ? 'zh-CN' : 'en';
      title.textContent = t('h_' + view);
      ui.i18n.apply(box, c.lang);
      if (res) figView.update(res, c);
      if (controls) controls.update(state, c, errs);
      bar.update(t);
      var hash = 'view=' + view + '&' + P.toHash(c.state);
      var url = opts.openUrl ? opts.openUrl(P.toHash(c.state), hash) : '';
      open.hidden = !url;
      if (url) { open.href = url; open.textContent = t('embed_open'); }
      status.textContent = '';
      errs.forEach(function (e) { status.appendChild(el('p', null, message(e))); });
      if (!res && !errs.length && started) status.appendChild(el('p', 'stale-note', t('embed_loading')));
      status.hidden = !status.childNodes.length;
      box.classList.toggle('stale', blocking().length > 0 && !!res);
      box.dataset.status = errs.length ? 'error' : res ? 'ready' : started ? 'loading' : 'idle';
      box.dataset.errors = errs.map(function (e) { return e.code; }).join(' ');
      if (opts.onRender) opts.onRender(box.dataset.status);
    }

    // New settings from outside (hash, attributes): parse errors are shown, good fields kept.
    function setState(next, errors) {
      state = Object.assign(P.defaults(), next);
      given = errors || [];
      fieldErrors = {};
      if (started) schedule(0); else render();
    }

    // Load (or reuse) the one engine and compute; later calls only recompute.
    function start() {
      if (started) return;
      started = true;
      render();
      if (typeof BlockLens === 'undefined' || !BlockLens.load) {
        engineErrors = [{ key: 'engine', code: 'noEngine', vars: {} }];
        return render();
      }
      BlockLens.load().then(function (engine) {
        model = ui.model.create(engine);
        run();
      }, function (e) {
        engineErrors = [{ key: 'engine', code: 'engine', vars: { message: String(e && e.message || e) } }];
        render();
      });
    }

    return { root: box, setState: setState, start: start, render: render,
      status: function () { return box.dataset.status; },
      svg: function () { return res ? ui.exportbar.svgText({ view: view, res: res, ctx: ctx() }) : null; } };
  }

  ui.single = { create: create, MODES: MODES };
})(window.BlockLensUI = window.BlockLensUI || {});
