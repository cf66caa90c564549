/* quickbar.js - index.html on phones and narrow windows, where the settings form sits far above
   the figures: a bar that sticks to the top of the figures with a menu of the figures (and
   which one is on screen) and the settings that can change in the current mode (random
   weights: d_model, heads, activation, causal mask, weights; a trained model, which fixes
   those: weights, layer, text), bound to the same controller as the form and following every
   change. CSS shows the bar only in the one-column layout. Links within the page (table of
   contents, skip link) scroll without touching the URL hash, which holds the settings. */
import { byKey, switchWeights } from '../model/params.js';
import { el } from './el.js';

// key, control, label key, the modes it is shown in; text fields are debounced by the
// controller like the form's (type 'text': a number, 'line': any text).
// A select's options are named by `options` + '_' + value (the bar's short names for weights).
const RANDOM = ['random'], TRAINED = ['trained'], BOTH = ['random', 'trained'];
const FIELDS = [
  { key: 'weights', type: 'select', label: 'ctl_weights', options: 'qb_weights', modes: BOTH },
  { key: 'layer', type: 'text', label: 'ctl_layer', modes: TRAINED },
  { key: 'd', type: 'text', label: 'ctl_d', modes: RANDOM },
  { key: 'heads', type: 'text', label: 'ctl_heads', modes: RANDOM },
  { key: 'act', type: 'select', label: 'ctl_act', options: 'act', modes: RANDOM },
  { key: 'causal', type: 'checkbox', label: 'qb_causal', modes: RANDOM },
  { key: 'tokens', type: 'line', label: 'ctl_tokens', modes: TRAINED }
];

// A link within the page (a figure, the skip link): scroll there and move focus to it; the
// hash keeps the settings (a hash of "#s-attention" would read as "all settings at their
// defaults").
function jump(a, e) {
  const target = document.getElementById(a.getAttribute('href').slice(1));
  if (!target) return;
  e.preventDefault();
  const still = matchMedia('(prefers-reduced-motion: reduce)').matches;
  target.scrollIntoView({ behavior: still ? 'auto' : 'smooth', block: 'start' });
  if (!target.hasAttribute('tabindex')) target.tabIndex = -1;
  target.focus({ preventScroll: true });
}

// The figures menu: a disclosure listing the table of contents' links, closed by a pick, a
// press outside it or Escape; its button says which figure is on screen ("4 / 6").
function figureMenu(bar) {
  const det = el('details', 'qb-menu'), sum = el('summary', 'qb-field qb-menu-btn');
  const label = el('span', 'qb-label'), num = el('span', 'qb-menu-num');
  label.setAttribute('data-i18n', 'tocTitle');
  sum.appendChild(label); sum.appendChild(num); det.appendChild(sum);
  const list = el('ol', 'qb-menu-list');
  const links = Array.from(document.querySelectorAll('nav.toc a[href^="#s-"]')).map((a) => {
    const li = el('li'), b = el('a');
    b.href = a.getAttribute('href');
    b.setAttribute('data-i18n', a.getAttribute('data-i18n'));
    li.appendChild(b); list.appendChild(li);
    return b;
  });
  det.appendChild(list);
  bar.appendChild(det);
  list.addEventListener('click', (e) => { if (e.target.closest('a')) det.open = false; });
  document.addEventListener('pointerdown', (e) => { if (det.open && !det.contains(e.target)) det.open = false; }, true);
  det.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && det.open) { det.open = false; sum.focus(); }
  });

  // Which figure is on screen: the last section whose top is above the bar's lower edge.
  const sections = links.map((a) => document.getElementById(a.getAttribute('href').slice(1)));
  let frame = 0;
  function current() {
    frame = 0;
    const y = bar.getBoundingClientRect().bottom + 24;
    let at = -1;
    sections.forEach((s, i) => { if (s && s.getBoundingClientRect().top <= y) at = i; });
    num.textContent = at >= 0 ? (at + 1) + ' / ' + sections.length : String(sections.length);
    links.forEach((a, i) => {
      if (i === at) a.setAttribute('aria-current', 'location'); else a.removeAttribute('aria-current');
    });
  }
  addEventListener('scroll', () => { if (!frame) frame = requestAnimationFrame(current); }, { passive: true });
  current();
}

// One setting as a small box: its name in small type at the top, the control filling the box
// (the <label> wraps both, so a press anywhere in the box reaches the control).
function field(fd, ctl) {
  const wrap = el('label', 'qb-field qb-' + fd.key + (fd.type === 'checkbox' ? ' qb-check' : ''));
  const name = el('span', 'qb-label');
  name.setAttribute('data-i18n', fd.label);
  let input;
  if (fd.type === 'select') {
    input = el('select');
    byKey[fd.key].options.forEach((a) => {
      const o = el('option'); o.value = a; o.setAttribute('data-i18n', fd.options + '_' + a); input.appendChild(o);
    });
  } else {
    input = el('input');
    input.type = fd.type === 'line' ? 'text' : fd.type;
    input.autocomplete = 'off';
    if (fd.type === 'text') { input.inputMode = 'numeric'; input.size = 4; }
    if (fd.type === 'line') input.spellcheck = false;
  }
  input.id = 'qb-' + fd.key;
  input.name = fd.key;
  wrap.appendChild(name);
  wrap.appendChild(input);
  const typed = fd.type === 'text' || fd.type === 'line';
  input.addEventListener(typed ? 'input' : 'change', () => {
    // (New weights move the selected and perturbed tokens with the model's <s>, as in the form.)
    if (fd.key === 'weights') return ctl.set(switchWeights(ctl.state, input.value));
    ctl.setRaw(fd.key, fd.type === 'checkbox' ? (input.checked ? '1' : '0') : input.value, !typed);
  });
  if (typed) input.addEventListener('change', ctl.flush);   // Enter or leaving the field: no pause
  return { wrap, input, type: fd.type, key: fd.key, modes: fd.modes };
}

// root: the bar's empty element; form: the mounted settings form, whose update the returned
// object chains (same arguments: state, ctx, errors); ctl: the page's controller.
export function mount(root, form, ctl) {
  if (!root) return form;
  root.setAttribute('role', 'region');
  root.setAttribute('data-i18n-attr', 'aria-label:qb_title');
  figureMenu(root);
  const box = el('div', 'qb-fields'), f = {};
  FIELDS.forEach((fd) => { f[fd.key] = field(fd, ctl); box.appendChild(f[fd.key].wrap); });
  root.appendChild(box);
  const err = el('p', 'qb-err');
  err.id = 'qb-err';
  err.hidden = true;
  root.appendChild(err);
  Object.values(f).forEach((x) => x.input.setAttribute('aria-describedby', err.id));

  document.addEventListener('click', (e) => {
    const a = e.target.closest && e.target.closest('a[href^="#"]');
    if (a && !e.defaultPrevented && e.button === 0 && !e.metaKey && !e.ctrlKey && !e.shiftKey) jump(a, e);
  });
  // The figures' headings land below the bar, however tall it wraps.
  if (typeof ResizeObserver === 'function') {
    const height = () => document.documentElement.style.setProperty('--qb-h', root.offsetHeight + 'px');
    new ResizeObserver(height).observe(root);
  }

  // state -> fields (never the one being typed in, nor a rejected value), and the messages
  // about the bar's settings right under it.
  // The fields of the current mode only: a trained model fixes the sizes, the activation and
  // the mask (the form shows them, disabled, with the model's values).
  function own(state, c, errors) {
    const mode = state.weights === 'random' ? 'random' : 'trained';
    const shown = Object.values(f).filter((x) => x.modes.includes(mode));
    const mine = (Array.isArray(errors) ? errors : []).filter((e) => shown.some((x) => x.key === e.key));
    Object.values(f).forEach((x) => {
      x.wrap.hidden = !shown.includes(x);
      const k = x.key, bad = mine.some((e) => e.key === k);
      if (bad) x.input.setAttribute('aria-invalid', 'true'); else x.input.removeAttribute('aria-invalid');
      const typing = document.activeElement === x.input && (x.type === 'text' || x.type === 'line');
      if (x.type === 'checkbox') x.input.checked = !!state[k];
      else if (!typing && !bad) x.input.value = String(state[k]);
    });
    err.textContent = mine.map((e) => c.message(e)).join(' ');
    err.hidden = !mine.length;
  }
  return Object.assign({}, form, {
    update(...args) { form.update(...args); own(...args); }
  });
}
