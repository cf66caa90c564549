/* i18n-dom.js - strings into the DOM: [data-i18n] elements and attributes, and `code` spans
   built as elements (text is never parsed as HTML). */
import { t } from '../i18n/index.js';

// Fill an element with text in which `x` spans become <code>x</code>.
export function fill(node, text) {
  node.textContent = '';
  String(text).split('`').forEach((part, i) => {
    if (!part) return;
    if (i % 2) {
      const c = document.createElement('code');
      c.textContent = part;
      node.appendChild(c);
    } else {
      node.appendChild(document.createTextNode(part));
    }
  });
}

// data-i18n="key" sets the text (data-i18n-trained="key2": the text instead while the figures show
// a trained model, trained true); data-i18n-attr="aria-label:key title:key2" sets attributes.
// trained 'model' (a folder the reader opened): "key_model" where the dictionary has one, else
// the text for random weights (the poem model's would name the wrong model).
// part (optional): { before: el } only the elements ahead of el in the document (the first
// screen, dressed before the rest is laid out), { from: el } only the others (el and after).
export function apply(rootEl, lang, trained, part) {
  const keep = inPart(part);
  rootEl.querySelectorAll('[data-i18n]').forEach((n) => {
    if (!keep(n)) return;
    const key = n.getAttribute('data-i18n');
    if (trained === 'model') return fill(n, t(lang, t(lang, key + '_model') !== key + '_model' ? key + '_model' : key));
    const own = trained && n.getAttribute('data-i18n-trained');
    fill(n, t(lang, own || key));
  });
  rootEl.querySelectorAll('[data-i18n-attr]').forEach((n) => {
    if (!keep(n)) return;
    n.getAttribute('data-i18n-attr').split(/\s+/).forEach((pair) => {
      const i = pair.indexOf(':');
      if (i > 0) n.setAttribute(pair.slice(0, i), t(lang, pair.slice(i + 1)));
    });
  });
}

// Is a node ahead of the boundary (before it and not inside it)? Each node is in exactly one part.
function inPart(part) {
  const edge = part && (part.before || part.from);
  if (!edge) return () => true;
  const ahead = (n) => (edge.compareDocumentPosition(n) & 10) === 2;   // PRECEDING, not CONTAINS
  return part.before ? ahead : (n) => !ahead(n);
}
