/* element.js - <block-lens view="attention" tokens="..." heads="2" seed="42"></block-lens>: one
   live figure per element, styles sealed in a shadow root, computed only once scrolled near the
   viewport, redrawn when an attribute changes. Every element shares the one engine that
   BlockLens.load() returns. Bundled with the engine by tools/bundle.js (dist/blocklens-element.js). */
(function (ui) {
  'use strict';
  var P = ui.params;
  var KEYS = P.PARAMS.map(function (p) { return p.key; });
  var OWN = ['view', 'controls', 'page'];

  // Where the full page is: next to dist/ when this script came from a BlockLens checkout.
  var script = typeof document !== 'undefined' && document.currentScript && document.currentScript.src;
  var PAGE = script && /\/dist\/blocklens-element\.js(\?.*)?$/.test(script) ? script.replace(/dist\/[^/]*$/, 'index.html') : '';

  // One stylesheet object shared by every shadow root (constructable: allowed by style-src 'self').
  var sheet = null;
  function styles(shadow) {
    var css = ui.elementCSS || '';
    try {
      if (!sheet) { sheet = new CSSStyleSheet(); sheet.replaceSync(css); }
      shadow.adoptedStyleSheets = [sheet];
    } catch (e) {   // older engines: a <style> element (needs style-src 'unsafe-inline' under a CSP)
      var st = document.createElement('style');
      st.textContent = css;
      shadow.appendChild(st);
    }
  }

  // Figures start computing when they come within 300 px of the viewport.
  var seen = typeof IntersectionObserver === 'function' ? new IntersectionObserver(function (entries) {
    entries.forEach(function (e) {
      if (!e.isIntersecting) return;
      seen.unobserve(e.target);
      e.target._start();
    });
  }, { rootMargin: '300px' }) : null;

  class BlockLensElement extends HTMLElement {
    static get observedAttributes() { return KEYS.concat(OWN); }

    constructor() {
      super();
      this._one = null;
      this._visible = false;
      this._built = '';
      var shadow = this.attachShadow({ mode: 'open' });
      styles(shadow);
      this._frame = document.createElement('div');
      this._frame.className = 'bl-frame';
      shadow.appendChild(this._frame);
    }

    // Attributes -> { state, errors }; a bare boolean attribute (causal) means on.
    _read() {
      var state = P.defaults(), errors = [], self = this;
      KEYS.forEach(function (k) {
        if (!self.hasAttribute(k)) return;
        var raw = self.getAttribute(k);
        if (P.byKey[k].kind === 'bool' && raw === '') raw = '1';
        var r = P.coerce(k, raw);
        if (r.error) errors.push(r.error); else state[k] = r.value;
      });
      var view = this.getAttribute('view') || 'attention';
      if (ui.figure.VIEWS.indexOf(view) < 0) {
        errors.push({ key: 'view', code: 'enum', vars: { value: view.slice(0, 40) } });
        view = 'attention';
      }
      var controls = this.getAttribute('controls') || 'compact';
      if (ui.single.MODES.indexOf(controls) < 0) {
        errors.push({ key: 'controls', code: 'enum', vars: { value: controls.slice(0, 40) } });
        controls = 'compact';
      }
      return { state: state, errors: errors, view: view, controls: controls };
    }

    // (Re)build the figure when the view or the controls change; otherwise only new settings.
    _sync() {
      var a = this._read(), key = a.view + '|' + a.controls, self = this;
      if (key !== this._built) {
        this._frame.textContent = '';
        this._built = key;
        var page = this.getAttribute('page') || PAGE;
        this._one = ui.single.create(this._frame, { view: a.view, controls: a.controls,
          openUrl: function (stateHash) { return page ? page + '#' + stateHash : ''; },
          onTheme: function (scheme) { self._frame.dataset.theme = scheme; },
          onRender: function (status) {
            self.dispatchEvent(new CustomEvent('blocklens:render', { detail: { status: status } }));
          } });
        if (this._visible) this._one.start();
      }
      this._one.setState(a.state, a.errors);
    }

    connectedCallback() {
      if (!this._built) this._sync();
      if (seen) seen.observe(this); else this._start();
    }

    disconnectedCallback() { if (seen) seen.unobserve(this); }

    attributeChangedCallback() { if (this._built) this._sync(); }

    _start() {
      this._visible = true;
      if (this._one) this._one.start();
    }

    // For scripts: 'idle' (not yet in view), 'loading', 'ready' or 'error'.
    get status() { return this._one ? this._one.status() : 'idle'; }

    // The figure as SVG text (what the SVG button saves); null before it is computed.
    toSVG() {
      var box = this._one && this._one.root;
      return box && box.dataset.status === 'ready' ? this._one.svg() : null;
    }
  }

  if (typeof customElements !== 'undefined' && !customElements.get('block-lens')) {
    customElements.define('block-lens', BlockLensElement);
  }
  ui.element = { Element: BlockLensElement };
})(window.BlockLensUI = window.BlockLensUI || {});
