/* el.js - the one way figures make elements: tag, class, text (always as text, never HTML). */
export function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
