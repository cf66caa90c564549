/* scrollcue.js - a table wider than its column says so: a line above it ("scroll sideways for
   all columns"), a fade on the right edge while columns are hidden there, and data-more="left
   right" on the wrapper for the styles (base.css; the parameter table's first column stays
   put and casts a shadow once scrolled). A table that fits shows none of it. */
import { el } from './el.js';

// scroller: the element that scrolls sideways; returns { root, update(t, label) }, root being
// a wrapper around the hint and the scroller. update() after each new table.
export function scrollCue(scroller) {
  const root = el('div', 'scroll-cue'), hint = el('p', 'scroll-hint'), frame = el('div', 'scroll-frame');
  hint.hidden = true;
  hint.setAttribute('aria-hidden', 'true');   // a sighted reader's cue; the table itself is read whole
  root.appendChild(hint);
  root.appendChild(frame);
  frame.appendChild(scroller);
  let pending = 0, label = '';
  function measure() {
    pending = 0;
    const room = scroller.scrollWidth - scroller.clientWidth, x = Math.abs(scroller.scrollLeft);
    const over = room > 1;
    hint.hidden = !over;
    root.dataset.more = [over && x > 1 ? 'left' : '', over && x < room - 1 ? 'right' : ''].filter(Boolean).join(' ');
    // A region that scrolls is reachable by keyboard (arrow keys scroll it once focused).
    if (over) {
      scroller.tabIndex = 0;
      scroller.setAttribute('role', 'region');
      scroller.setAttribute('aria-label', label);
    } else {
      scroller.removeAttribute('tabindex');
      scroller.removeAttribute('role');
      scroller.removeAttribute('aria-label');
    }
  }
  const later = () => { if (!pending) pending = requestAnimationFrame(measure); };
  scroller.addEventListener('scroll', later, { passive: true });
  if (typeof ResizeObserver === 'function') new ResizeObserver(later).observe(scroller);
  return {
    root,
    update(t, name) {
      hint.textContent = t('tableScroll');
      label = name || '';
      later();
    }
  };
}
