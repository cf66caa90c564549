/* embed.js - glue of embed.html: the hash picks the figure (view=), the controls (controls=),
   an id for the parent, and the page's usual settings; the frame tells its parent its height:
   parent.postMessage({ type: 'blocklens:height', height, id, view }, '*') on every change.
   Runs on the figure code of dist/blocklens-element.js (BlockLens.ui). */
(function (ui) {
  'use strict';
  var P = ui.params;
  var EMBED = { view: ui.figure.VIEWS, controls: ui.single.MODES };

  // "#view=rows&controls=none&id=x&tokens=..." -> { view, controls, id, state, errors }
  function parse(hash) {
    var out = { view: 'attention', controls: 'compact', id: '', errors: [] };
    String(hash || '').replace(/^#/, '').split('&').forEach(function (pair) {
      var eq = pair.indexOf('='), k, v;
      try {
        k = decodeURIComponent(eq < 0 ? pair : pair.slice(0, eq));
        v = eq < 0 ? '' : decodeURIComponent(pair.slice(eq + 1).replace(/\+/g, '%20'));
      } catch (e) { return; }   // params.parseHash reports broken parts
      if (k === 'id') out.id = v.slice(0, 100);
      else if (EMBED[k]) {
        if (EMBED[k].indexOf(v) >= 0) out[k] = v;
        else out.errors.push({ key: k, code: 'enum', vars: { value: v.slice(0, 40) } });
      }
    });
    var parsed = P.parseHash(hash);
    out.state = parsed.state;
    out.errors = out.errors.concat(parsed.errors);
    return out;
  }

  var current = parse(location.hash), lastHeight = -1, one;

  function postHeight() {
    var h = Math.ceil(document.body.getBoundingClientRect().height);
    if (h === lastHeight || window.parent === window) return;
    lastHeight = h;
    try {
      window.parent.postMessage({ type: 'blocklens:height', height: h, id: current.id, view: current.view }, '*');
    } catch (e) { /* a parent that cannot be reached has nothing to resize */ }
  }

  function start() {
    one = ui.single.create(document.getElementById('root'), {
      view: current.view, controls: current.controls,
      openUrl: function (stateHash) { return 'index.html#' + stateHash; },
      onTheme: function (scheme, lang) {
        document.documentElement.dataset.theme = scheme;
        document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
        document.title = 'BlockLens: ' + ui.i18n.t(lang, 'h_' + current.view);
      },
      onRender: function (status) { document.body.dataset.status = status; postHeight(); }
    });
    one.setState(current.state, current.errors);
    one.start();
    if (typeof ResizeObserver === 'function') new ResizeObserver(postHeight).observe(document.body);
    window.addEventListener('load', postHeight);
    window.addEventListener('hashchange', function () {
      var next = parse(location.hash);
      // Another figure or control set is another page; settings alone redraw in place.
      if (next.view !== current.view || next.controls !== current.controls) return location.reload();
      current = next;
      one.setState(next.state, next.errors);
    });
    if (window.matchMedia) {
      matchMedia('(prefers-color-scheme: dark)').addEventListener('change', function () { one.render(); });
    }
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
  ui.embed = { parse: parse };
})(window.BlockLens.ui);   // the figure code inside dist/blocklens-element.js
