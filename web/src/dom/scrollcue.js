/* scrollcue.js - a table wider than its column says so: a line above it ("scroll sideways for
   all columns"), a fade on the right edge while columns are hidden there, and data-more="left
   right" on the wrapper for the styles (base.css; the parameter table's first column stays
   put and casts a shadow once scrolled). A table that fits shows none of it. */
import { el } from './el.js';

// Cues waiting to be measured, all in one animation frame: every size read first, then every
// change written, so that a redraw with many tables lays the page out once, not once per table.
const waiting = new Set();
let frame = 0;
function measureAll() {
  frame = 0;
  const cues = Array.from(waiting);
  waiting.clear();
  cues.map((c) => c.read()).forEach((m, i) => cues[i].write(m));
}

// scroller: the element that scrolls sideways; returns { root, update(t, label) }, root being
// a wrapper around the hint and the scroller. update() after each new table.
export function scrollCue(scroller) {
  const root = el('div', 'scroll-cue'), hint = el('p', 'scroll-hint'), box = el('div', 'scroll-frame');
  hint.hidden = true;
  hint.setAttribute('aria-hidden', 'true');   // a sighted reader's cue; the table itself is read whole
  root.appendChild(hint);
  root.appendChild(box);
  box.appendChild(scroller);
  let label = '', shown = null;
  const cue = {
    read: () => ({ room: scroller.scrollWidth - scroller.clientWidth, x: Math.abs(scroller.scrollLeft) }),
    // (Only what changed is written: an unchanged cue leaves the layout clean.)
    write({ room, x }) {
      const over = room > 1;
      const more = [over && x > 1 ? 'left' : '', over && x < room - 1 ? 'right' : ''].filter(Boolean).join(' ');
      if (shown && shown.over === over && shown.more === more && shown.label === label) return;
      shown = { over, more, label };
      hint.hidden = !over;
      root.dataset.more = more;
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
  };
  const later = () => { waiting.add(cue); if (!frame) frame = requestAnimationFrame(measureAll); };
  scroller.addEventListener('scroll', later, { passive: true });
  if (typeof ResizeObserver === 'function') new ResizeObserver(later).observe(scroller);
  return {
    root,
    update(t, name) {
      const text = t('tableScroll');
      if (hint.textContent !== text) hint.textContent = text;
      label = name || '';
      later();
    }
  };
}
