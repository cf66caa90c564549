/* app.js - page glue: URL hash <-> state, controls -> engine -> views, messages for bad input
   (the last good figures stay), language and colour scheme. The only file with page-wide state.
   The engine runs off this thread (compute.js); the figures change when its answer arrives. */
(function (ui) {
  'use strict';
  var P = ui.params;
  var VIEWS = ['pipeline', 'activation', 'rows', 'attention', 'positionwise', 'paramsplit'];
  var PAGE_KEYS = ['lang', 'theme'];   // change the page, never the numbers

  var state, good = null, lastRes = null, engine = null, progress = null;
  var fieldErrors = {}, hashErrors = [], engineErrors = [];
  var views = {}, tools = {}, controls = null, timer = 0, lastHash = '', drawing = false, slices = null;
  var BIG_DRAW = 50000;   // L x max(d_ff, L) cells from which figures are drawn in slices
  var $ = function (id) { return document.getElementById(id); };

  function lang() { return ui.i18n.resolve(state.lang); }
  function t(key, vars) { return ui.i18n.t(lang(), key, vars); }

  function message(e) {
    var field = e.key === 'hash' ? t('lbl_hash') : e.key === 'engine' ? t('lbl_engine') : t('ctl_' + e.key);
    return field + ': ' + t('err_' + e.code, e.vars);
  }

  function ctx() {
    return { t: t, lang: lang(), scheme: ui.colors.scheme(ui.colors.resolve(state.theme)),
      state: Object.assign({}, good || state, pick(state, PAGE_KEYS)), set: set, setRaw: setRaw,
      setMany: set, message: message };
  }

  function pick(o, keys) { var r = {}; keys.forEach(function (k) { r[k] = o[k]; }); return r; }
  function values(o) { return Object.keys(o).map(function (k) { return o[k]; }); }
  function blocking() { return values(fieldErrors).concat(P.validate(state), engineErrors); }

  // ---- changes ---------------------------------------------------------------------------
  function set(patch) {
    Object.keys(patch).forEach(function (k) { delete fieldErrors[k]; });
    Object.assign(state, patch);
    hashErrors = [];
    if (Object.keys(patch).every(function (k) { return PAGE_KEYS.indexOf(k) >= 0; })) return applyPage();
    schedule(0);
  }

  // Text from a control: parsed by the parameter list; typing waits for a pause.
  function setRaw(key, raw, input, now) {
    var r = P.coerce(key, raw);
    hashErrors = [];
    if (r.error) { fieldErrors[key] = r.error; clearTimeout(timer); showStatus(); return; }
    delete fieldErrors[key];
    state[key] = r.value;
    schedule(now ? 0 : 250);
  }

  function schedule(delay) {
    clearTimeout(timer);
    timer = setTimeout(run, delay);
  }

  // ---- compute and draw ------------------------------------------------------------------
  // Only the newest request's answer arrives (compute.js drops the rest); until then the last
  // good figures stay, with a progress line if it takes a while.
  function run() {
    if (!engine) return showStatus();
    engineErrors = [];
    if (blocking().length) { engine.cancel(); progress.stop(); return showStatus(); }
    var asked = Object.assign({}, state);
    progress.start();
    document.body.dataset.status = 'busy';
    engine.request(asked, function (err, res) {
      mark('blocklens:result');
      progress.stop();
      if (err) {
        engineErrors = [{ key: 'engine', code: 'engine', vars: { message: String(err && err.message || err) } }];
        return showStatus();
      }
      good = asked;
      lastRes = res;
      writeHash();
      render();
    });
    if (engine.busy()) mark('blocklens:request');
  }

  // User Timing marks, the latest of each: when the engine was last asked and when it answered
  // (the browser tests measure input handling between the two).
  function mark(name) {
    if (!window.performance || !performance.mark) return;
    performance.clearMarks(name);
    performance.mark(name);
  }

  function render() {
    var c = ctx();
    document.documentElement.lang = c.lang === 'zh' ? 'zh-CN' : 'en';
    document.documentElement.dataset.theme = c.scheme.name;
    document.title = t('pageTitle');
    ui.i18n.apply(document.body, c.lang);
    slices.cancel();
    drawing = false;
    if (!lastRes || lastRes.L * Math.max(lastRes.dff, lastRes.L) < BIG_DRAW) {
      if (lastRes) VIEWS.forEach(function (k) { views[k].update(lastRes, c); });
      return drawn(c);
    }
    // Large sizes: each figure's text, then each of its heatmaps and plots (c.defer), as short
    // jobs over many tasks, so clicks and keys are handled between them (a figure at BERT-base
    // widths took up to ~190 ms in one piece). A newer render drops what is left of this one.
    var res = lastRes;
    c.defer = slices.add;
    drawing = true;
    showStatus();
    VIEWS.forEach(function (k) { slices.add(function () { views[k].update(res, c); }); });
    slices.add(function () { drawing = false; drawn(c); });
  }

  function drawn(c) {
    VIEWS.forEach(function (k) {
      tools[k].bar.update(c.t);
      tools[k].embed.update(c.state, c.t, $('fig-' + k).offsetHeight + 90);
    });
    showStatus();
  }

  function showStatus() {
    var c = ctx(), all = blocking().concat(hashErrors), box = $('status');
    controls.update(state, c, all);
    box.textContent = '';
    all.forEach(function (e) { box.appendChild(ui.table.el('p', null, message(e))); });
    if (blocking().length && lastRes) box.appendChild(ui.table.el('p', 'stale-note', t('staleNote')));
    box.hidden = !all.length;
    $('figures').classList.toggle('stale', blocking().length > 0 && !!lastRes);
    document.body.dataset.status = all.length ? 'error' : (engine && engine.busy()) || drawing ? 'busy' : lastRes ? 'ready' : 'loading';
    document.body.dataset.errors = all.map(function (e) { return e.code; }).join(' ');
    document.body.dataset.compute = engine ? engine.mode() : '';   // worker | local: where it ran
  }

  function applyPage() {
    writeHash();
    render();
    var lb = $('lang-toggle'), tb = $('theme-toggle');
    lb.textContent = lang() === 'zh' ? 'English' : '中文';
    lb.setAttribute('lang', lang() === 'zh' ? 'en' : 'zh');
    tb.textContent = t('theme_' + state.theme);
  }

  // ---- URL hash --------------------------------------------------------------------------
  function writeHash() {
    var h = '#' + P.toHash(Object.assign({}, good || state, pick(state, PAGE_KEYS)));
    if (h === location.hash) return;
    lastHash = h;
    try { history.replaceState(null, '', h); } catch (e) { location.hash = h; }
  }

  function onHash() {
    if (location.hash === lastHash) return;
    var parsed = P.parseHash(location.hash);
    if (parsed.errors.length) { hashErrors = parsed.errors; return showStatus(); }
    state = parsed.state;
    fieldErrors = {}; hashErrors = [];
    applyPage();
    schedule(0);
  }

  // Under each figure: SVG / PNG export of what is on screen, and the embed code.
  function mountTools(k) {
    var row = ui.table.el('div', 'fig-tools');
    var bar = ui.exportbar.create({ view: k, get: function () { return lastRes && { res: lastRes, ctx: ctx() }; } });
    var embed = ui.embedcode.create(k);
    row.appendChild(bar.root);
    row.appendChild(embed.root);
    $('fig-' + k).parentNode.appendChild(row);
    return { bar: bar, embed: embed };
  }

  // ---- start -----------------------------------------------------------------------------
  function start() {
    var parsed = P.parseHash(location.hash);
    state = parsed.state;
    if (parsed.errors.length) {
      hashErrors = parsed.errors;
      state = Object.assign(P.defaults(), pick(parsed.state, PAGE_KEYS));
    }
    controls = ui.views.controls.mount($('controls'), { get state() { return state; }, setRaw: setRaw, setMany: set });
    VIEWS.forEach(function (k) {
      views[k] = ui.views[k].mount($('fig-' + k), ctx());
      tools[k] = mountTools(k);
    });
    $('lang-toggle').addEventListener('click', function () { set({ lang: lang() === 'zh' ? 'en' : 'zh' }); });
    $('theme-toggle').addEventListener('click', function () {
      var order = P.byKey.theme.options;
      set({ theme: order[(order.indexOf(state.theme) + 1) % order.length] });
    });
    window.addEventListener('hashchange', onHash);
    var resizeTimer = 0;
    window.addEventListener('resize', function () { clearTimeout(resizeTimer); resizeTimer = setTimeout(render, 150); });
    if (window.matchMedia) {
      matchMedia('(prefers-color-scheme: dark)').addEventListener('change', function () { if (state.theme === 'auto') render(); });
    }
    progress = ui.progress.mount($('status'), function () { return t; });
    slices = ui.slices.create();
    applyPage();
    if (typeof BlockLens === 'undefined') {
      engineErrors = [{ key: 'engine', code: 'noEngine', vars: {} }];
      return showStatus();
    }
    engine = ui.compute.create({ onProgress: function (info) { progress.update(info); } });
    run();
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})(window.BlockLensUI = window.BlockLensUI || {});
