/* el.js - the one way figures make elements: tag, class, text (always as text, never HTML). */
export function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// Text and hidden written only when they differ: a status shown again (several times per
// settings change) then changes nothing on the page, where each write was a new text node to
// style and lay out.
export function setText(e, text) { if (e.textContent !== text) e.textContent = text; }
export function setHidden(e, hidden) { if (e.hidden !== hidden) e.hidden = hidden; }

// data-* attributes from an object, likewise only those that differ (an attribute written
// again, even to its value, restyles what a selector on it matches).
export function setData(node, data) {
  Object.keys(data || {}).forEach((k) => { if (node.dataset[k] !== String(data[k])) node.dataset[k] = data[k]; });
}
