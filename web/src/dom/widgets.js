/* widgets.js - small controls that live inside figures: the row of token buttons (per-token rows,
   position-wise experiment). Text goes in with textContent only: tokens are user text. */
import { el } from './el.js';

// Token buttons, rebuilt only when the tokens change so keyboard focus survives a redraw.
function tokenBar(root, label) {
  const bar = el('div', 'tokens');
  bar.setAttribute('role', 'group');
  root.appendChild(bar);
  let key = null;
  bar.addEventListener('keydown', function (e) {
    const b = e.target.closest && e.target.closest('button');
    if (!b) return;
    const next = e.key === 'ArrowRight' ? b.nextElementSibling
      : e.key === 'ArrowLeft' ? b.previousElementSibling : null;
    if (next) { e.preventDefault(); next.focus(); next.click(); }
  });
  return function update(tokens, sel, onPick, t) {
    bar.setAttribute('aria-label', t(label));
    const k = tokens.join('\u0000');
    if (k !== key) {
      key = k;
      bar.textContent = '';
      tokens.forEach(function (tok, i) {
        const b = el('button', 'tok', tok);
        b.type = 'button';
        b.dataset.index = i;
        b.addEventListener('click', function () { onPick.current(i); });
        bar.appendChild(b);
      });
    }
    Array.prototype.forEach.call(bar.children, function (b, i) {
      b.setAttribute('aria-pressed', String(i === sel));
      b.title = t('tokenTitle', { i: i, tok: tokens[i] });
    });
  };
}



// A row of mutually exclusive buttons (e.g. weights | scaled | raw); returns update(value, t, onPick).
function segmented(root, options, label, aria) {
  const seg = el('div', 'seg');
  seg.setAttribute('role', 'group');
  root.appendChild(seg);
  let pick = function () {};
  const btns = options.map(function (m) {
    const b = el('button', 'seg-btn');
    b.type = 'button';
    b.dataset.mode = m;
    b.addEventListener('click', function () { pick(m); });
    seg.appendChild(b);
    return b;
  });
  // fixed: the value is not the reader's to choose here (a trained model's), shown disabled.
  return function update(value, t, onPick, fixed) {
    pick = onPick;
    seg.setAttribute('aria-label', t(aria));
    btns.forEach(function (b) {
      b.textContent = label(b.dataset.mode, t);
      b.disabled = !!fixed;
      b.setAttribute('aria-pressed', String(b.dataset.mode === value));
    });
  };
}

// A labelled text field for one number, with its own message line (a bad value is reported
// next to it, not only in the settings far above). Returns { update(value, t), error(text) }.
let fields = 0;
// (type 'text': a wider field for a line of text, e.g. activation patching's corrupted text.)
function numberField(root, key, labelKey, onChange, type) {
  const label = el('label', 'inline-field');
  const text = el('span');
  const input = el('input');
  input.type = 'text';
  input.inputMode = type === 'text' ? 'text' : 'decimal';
  input.size = type === 'text' ? 24 : 8;
  input.name = key;
  const err = el('p', 'field-err');
  err.id = 'bl-field-' + (++fields) + '-err';
  err.hidden = true;
  input.setAttribute('aria-describedby', err.id);
  label.appendChild(text); label.appendChild(input);
  root.appendChild(label);
  root.appendChild(err);
  input.addEventListener('change', function () { onChange(input.value, input); });
  let shown = '';
  const idle = function () { return input.getRootNode().activeElement !== input; };   // a shadow root has its own
  return {
    // Typing, and a rejected value its message refers to, are left alone.
    update: function (value, t) {
      text.textContent = t(labelKey);
      shown = String(value);
      if (idle() && err.hidden) input.value = shown;
    },
    // A message ('' when the value is fine again: the field then shows the value in use).
    error: function (message) {
      if (!message && !err.hidden && idle()) input.value = shown;
      err.textContent = message;
      err.hidden = !message;
      if (message) input.setAttribute('aria-invalid', 'true'); else input.removeAttribute('aria-invalid');
    }
  };
}

export { segmented, numberField };
export { tokenBar };
