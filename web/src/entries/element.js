/* element.js - dist/blocklens-element.js after the engine: <block-lens view="attention"
   tokens="..." heads="2"></block-lens>, one live figure per element, styles sealed in a shadow
   root, computed once scrolled near the viewport, redrawn when an attribute changes. The same
   file is the elements' Worker script when it is served from the page's origin. */
import { compose } from '../figures/compose.js';
import { PARAMS, byKey, coerce, defaults, parseHash, poemDefaults, quote, toHash } from '../model/params.js';
import { VIEWS } from '../figures/index.js';
import { ownWorkerUrl } from '../dom/compute.js';
import { heightAt, parseHeights } from '../dom/heights.js';
import { MODES, create } from '../dom/single.js';
import { inWorker, main } from './worker.js';

const KEYS = PARAMS.map((p) => p.key);
const OWN = ['view', 'controls', 'page', 'heights'];
const own = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

// The "Open in BlockLens" link of page="...": a relative or http(s) URL, resolved against the
// document; null for anything else (javascript:, data:, ...), which never reaches an href.
export function safeLink(raw, base) {
  const text = String(raw);
  let absolute, resolved;
  try {
    // Anything with a scheme of its own (javascript:, data:, ...) leaves the placeholder host.
    absolute = new URL(text, 'http://relative.invalid/').host !== 'relative.invalid';
    resolved = new URL(text, base || document.baseURI);
  } catch (e) { return null; }
  if (absolute && !/^https?:$/.test(resolved.protocol)) return null;
  return resolved.href.replace(/#.*$/, '');
}

function defineElement(BL) {
  // Where this script and the full page are: next to dist/ in a BlockLens checkout.
  const script = document.currentScript && document.currentScript.src;
  const PAGE = script && /\/dist\/blocklens-element\.js(\?.*)?$/.test(script)
    ? script.replace(/dist\/[^/]*$/, 'index.html') : '';
  // This file as the Worker where it comes from the page's own origin (script-src 'self');
  // from elsewhere a Blob of its text (see ownWorkerUrl for sandboxed frames).
  let workerUrl = script ? ownWorkerUrl(script) : null;
  // Trained weights (weights="poems") from the file beside this one, fetched only when asked for.
  const assetUrl = (name) => (script ? script.replace(/[^/]*(\?.*)?$/, 'blocklens-' + name + '.js')
    : 'blocklens-' + name + '.js');
  try { if (workerUrl && new URL(script).origin !== location.origin) workerUrl = null; } catch (e) { workerUrl = null; }

  // One stylesheet object shared by every shadow root (constructable: allowed by style-src 'self').
  let sheet = null;
  function styles(shadow) {
    try {
      if (!sheet) { sheet = new CSSStyleSheet(); sheet.replaceSync(__ELEMENT_CSS__); }
      shadow.adoptedStyleSheets = [sheet];
    } catch (e) {   // older engines: a <style> element (needs style-src 'unsafe-inline' under a CSP)
      const st = document.createElement('style');
      st.textContent = __ELEMENT_CSS__;
      shadow.appendChild(st);
    }
  }

  // Figures start computing when they come within 300 px of the viewport.
  const seen = typeof IntersectionObserver === 'function' ? new IntersectionObserver((entries) => {
    for (const e of entries) {
      if (!e.isIntersecting) continue;
      seen.unobserve(e.target);
      e.target._start();
    }
  }, { rootMargin: '300px' }) : null;

  class BlockLensElement extends HTMLElement {
    static get observedAttributes() { return KEYS.concat(OWN); }

    constructor() {
      super();
      this._one = null;
      this._visible = false;
      this._built = '';
      const shadow = this.attachShadow({ mode: 'open' });
      styles(shadow);
      this._frame = document.createElement('div');
      this._frame.className = 'bl-frame';
      shadow.appendChild(this._frame);
    }

    // Attributes -> { state, errors, view, controls }; a bare boolean attribute means on.
    _read() {
      const state = defaults(), errors = [];
      for (const k of KEYS) {
        if (!this.hasAttribute(k)) continue;
        let raw = this.getAttribute(k);
        if (byKey[k].kind === 'bool' && raw === '') raw = '1';
        const r = coerce(k, raw, state);
        if (r.error) errors.push(r.error); else state[k] = r.value;
      }
      poemDefaults(state, KEYS.filter((k) => this.hasAttribute(k)));
      let view = this.getAttribute('view') || 'attention';
      if (!VIEWS.includes(view)) {
        errors.push({ key: 'view', code: 'enum', vars: { value: quote(view) } });
        view = 'attention';
      }
      let controls = this.getAttribute('controls') || 'compact';
      if (!MODES.includes(controls)) {
        errors.push({ key: 'controls', code: 'enum', vars: { value: quote(controls) } });
        controls = 'compact';
      }
      const page = this.hasAttribute('page') ? safeLink(this.getAttribute('page')) : PAGE;
      if (page === null) errors.push({ key: 'page', code: 'link', vars: { value: quote(this.getAttribute('page')) } });
      return { state, errors, view, controls, page: page || '' };
    }

    // (Re)build the figure when the view or the controls change; otherwise only new settings.
    _sync() {
      const a = this._read(), key = a.view + '|' + a.controls + '|' + a.page;
      if (key !== this._built) {
        this._frame.textContent = '';
        this._built = key;
        const page = a.page;
        this._one = create(this._frame, { view: a.view, controls: a.controls, engine: BL, workerUrl,
          workerCode: __WORKER_CODE__, assetUrl,
          openUrl: (stateHash) => (page ? page + '#' + stateHash : ''),
          onTheme: (scheme) => { this._frame.dataset.theme = scheme; },
          onRender: (status) => {
            if (status === 'ready' || status === 'error') this._frame.style.minHeight = '';
            this.dispatchEvent(new CustomEvent('blocklens:render', { detail: { status } }));
          } });
        if (this._visible) this._one.start();
      }
      this._one.setState(a.state, a.errors);
      this._reserve();
    }

    // Until it is drawn, the height the embed code measured for this width (heights="320:1304
    // 360:1296 ..."), so that the page does not jump when the figure comes in.
    _reserve() {
      const table = parseHeights(this.getAttribute('heights')), st = this._one.status();
      if (!table.length || st === 'ready' || st === 'error') return;
      const h = heightAt(table, Math.round(this.getBoundingClientRect().width));
      if (h) this._frame.style.minHeight = h + 'px';
    }

    connectedCallback() {
      if (!this._built) this._sync();
      else this._reserve();
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
    toSVG() { return this._one && this._one.status() === 'ready' ? this._one.svg() : null; }
  }

  if (!customElements.get('block-lens')) customElements.define('block-lens', BlockLensElement);
  return BlockLensElement;
}

if (inWorker()) main(self);
else if (typeof BlockLens === 'object' && BlockLens && !own(BlockLens, 'ui')) {
  // The figure code for scripts: lay out any figure as SVG, read and write page state.
  BlockLens.ui = { VIEWS, compose, params: { PARAMS, defaults, parseHash, toHash },
    Element: typeof HTMLElement === 'function' ? defineElement(BlockLens) : null };
}
