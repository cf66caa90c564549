/* holder.js - the width of an element that a canvas is drawn to fit, without a forced layout
   at every drawing: read once, then kept by a ResizeObserver (which reads it after layout, when
   reading costs nothing). Every panel of a figure read it after writing its own text, so each
   redraw laid the whole page out once per canvas (50 forced layouts, ~45 ms, for an activation
   change at the classic size). */

// Returns width(): the element's clientWidth as last seen; onChange() runs when it changes
// (scrollbars, resizes, a phone turned) so the caller can draw again. The element's width
// must come from the page layout, never from what is drawn in it, or the two would loop.
export function tracked(holder, onChange) {
  let known = 0;
  if (typeof ResizeObserver === 'function') {
    new ResizeObserver(() => {
      const w = holder.clientWidth;
      if (Math.abs(w - known) < 1) return;
      known = w;
      onChange();
    }).observe(holder);
  }
  return function width() {
    if (!known) known = holder.clientWidth;   // the first drawing (or a hidden holder): read now
    return known;
  };
}

// A canvas painted to fit holder: paint(fn, ctx) runs fn(width) now, or as a later job
// (ctx.defer, the page's slices), and runs the latest fn again whenever the width changes.
export function fitted(holder) {
  let again = null;
  const width = tracked(holder, () => { if (again) again(); });
  return function paint(fn, ctx) {
    again = () => fn(width());
    if (ctx && ctx.defer) ctx.defer(again); else again();
  };
}
