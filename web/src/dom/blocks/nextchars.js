/* nextchars.js - the `nextchars` block on the page: the most likely next characters as a list
   of buttons (character, probability bar, percent; a press appends it) and one action button
   (append a draw at the temperature, or switch to the trained model). draw/svg/nextchars.js draws
   the same list for the export. */
import { el } from '../el.js';

// A uniform number in [0, 1) for the draw (the one place randomness enters the page).
function uniform() {
  const a = new Uint32Array(1);
  (self.crypto || crypto).getRandomValues(a);
  return a[0] / 4294967296;
}

// After a press the figures above redraw for the longer text and grow: the list is kept where
// it was on screen (scrolled back by what moved it) until the page is ready, for at most 5 s,
// or until the reader scrolls or types.
function keepInView(node) {
  const top = node.getBoundingClientRect().top, until = performance.now() + 5000;
  let stop = false;
  const quit = () => { stop = true; };
  const events = ['wheel', 'touchstart', 'keydown', 'mousedown'];
  events.forEach((e) => addEventListener(e, quit, { once: true, passive: true }));
  const start = performance.now();
  let idle = 0, busy = false;
  (function frame() {
    const moved = node.isConnected ? node.getBoundingClientRect().top - top : 0;
    if (Math.abs(moved) >= 1) scrollBy(0, moved);
    const ready = document.body.dataset.status === 'ready';
    busy = busy || !ready;
    // (Ready again after the change, or it never showed busy within half a second.)
    idle = ready && (busy || performance.now() - start > 500) ? idle + 1 : 0;
    if (!stop && idle < 3 && performance.now() < until) requestAnimationFrame(frame);
    else events.forEach((e) => removeEventListener(e, quit));
  })();
}

export function nextchars() {
  const box = el('div', 'nextchars'), cap = el('p', 'fig-note next-cap'), list = el('ol', 'next-list');
  const capText = el('span'), hint = el('span', 'next-hint');
  cap.appendChild(capText); cap.appendChild(hint);
  const act = el('button', 'pill next-action');
  act.type = 'button';
  box.appendChild(cap); box.appendChild(list); box.appendChild(act);
  let cur = null;
  act.addEventListener('click', () => { if (cur && cur.action) { keepInView(box); cur.action.run(uniform()); } });
  return { root: box, update: (b, ctx) => {
    cur = b;
    capText.textContent = b.caption || '';
    // (No space after a full-width mark: Chinese runs on.)
    const gap = /[\u3000-\u303f\uff00-\uffef]$/.test(b.caption || '') ? '' : ' ';
    hint.textContent = b.hint ? gap + b.hint : '';
    cap.hidden = !b.caption;
    list.textContent = '';
    list.hidden = !b.items.length;
    // A real vocabulary's pieces are often words ("␣understanding"): a wider column for them.
    list.classList.toggle('next-long', b.items.some((it) => Array.from(it.ch).length > 3));
    // Bars on an absolute scale (0 to 100 %): scaled to the top item, 0.7 % looked like 77 %.
    b.items.forEach((it, i) => {
      const li = el('li'), btn = el('button', 'next-item'), bar = el('span', 'next-bar'), fill = el('i');
      btn.type = 'button';
      btn.title = it.hint;
      btn.setAttribute('aria-label', it.hint + ' (' + it.label + ')');
      btn.disabled = !it.run;
      btn.dataset.rank = i + 1;
      btn.appendChild(el('span', 'next-ch' + (Array.from(it.ch).length > 1 ? ' special' : ''), it.ch));   // <unk>, <s>
      fill.style.width = (100 * it.p) + '%';
      fill.style.background = ctx.scheme.css.ffn;
      bar.appendChild(fill);
      btn.appendChild(bar);
      btn.appendChild(el('span', 'next-p', it.label));
      btn.addEventListener('click', () => { if (it.run) { keepInView(box); it.run(); } });
      li.appendChild(btn);
      list.appendChild(li);
    });
    act.hidden = !b.action;
    if (b.action) act.textContent = b.action.label;
  } };
}
