/* i18n/core.js - the two languages: lookup with {named} variables, the browser's language as
   default, and applying strings to [data-i18n] elements. Text is set as text, never as HTML;
   `backticks` in a string become <code> elements built with the DOM. */
(function (root, factory) {
  var ui = root.BlockLensUI = root.BlockLensUI || {};
  factory(ui);
  if (typeof module === 'object' && module.exports) module.exports = ui;
})(typeof window !== 'undefined' ? window : globalThis, function (ui) {
  'use strict';
  var dicts = {};

  function add(lang, dict) { dicts[lang] = Object.assign(dicts[lang] || {}, dict); }

  // Missing keys show as the key itself: visible in review, never a crash.
  function t(lang, key, vars) {
    var s = (dicts[lang] && dicts[lang][key]);
    if (s === undefined) s = (dicts.en && dicts.en[key]);
    if (s === undefined) return key;
    return String(s).replace(/\{(\w+)\}/g, function (m, k) {
      return vars && vars[k] !== undefined ? String(vars[k]) : m;
    });
  }

  function resolve(lang, languages) {
    if (lang === 'zh' || lang === 'en') return lang;
    var list = languages || (typeof navigator !== 'undefined' ? (navigator.languages || [navigator.language]) : []);
    for (var i = 0; i < list.length; i++) {
      var l = String(list[i] || '').toLowerCase();
      if (l.indexOf('zh') === 0) return 'zh';
      if (l.indexOf('en') === 0) return 'en';
    }
    return 'en';
  }

  // Fill an element with text in which `x` spans become <code>x</code>.
  function fill(node, text) {
    node.textContent = '';
    String(text).split('`').forEach(function (part, i) {
      if (!part) return;
      if (i % 2) {
        var c = document.createElement('code');
        c.textContent = part;
        node.appendChild(c);
      } else {
        node.appendChild(document.createTextNode(part));
      }
    });
  }

  // data-i18n="key" sets the text; data-i18n-attr="aria-label:key title:key2" sets attributes.
  function apply(rootEl, lang) {
    rootEl.querySelectorAll('[data-i18n]').forEach(function (n) { fill(n, t(lang, n.getAttribute('data-i18n'))); });
    rootEl.querySelectorAll('[data-i18n-attr]').forEach(function (n) {
      n.getAttribute('data-i18n-attr').split(/\s+/).forEach(function (pair) {
        var i = pair.indexOf(':');
        if (i > 0) n.setAttribute(pair.slice(0, i), t(lang, pair.slice(i + 1)));
      });
    });
  }

  ui.i18n = { add: add, t: t, resolve: resolve, apply: apply, fill: fill, has: function (l) { return !!dicts[l]; } };
});
