/* heights.js - an embedded figure's height at the reader's width. A figure's height depends on the
   width it is laid out in (phones: one column, wrapped text, taller), so the embed code carries
   the heights measured at a few widths ("320:1304 360:1296 ... 1280:638", CSS px), and the
   frame or element reserves the one for its own width before it is drawn. */

// The widths measured: every 40 px from 320 to 1280. Heights step at the CSS breakpoints and
// where another head fits in a row, anywhere: between two measured widths the step is at most
// 40 px away.
export const WIDTHS = Array.from({ length: 25 }, (_, i) => 320 + 40 * i);
// The width a frame's own height attribute is for: a phone's, so that no reader of 360 px or
// more sees it cut off when the page has no listener.
export const PHONE = 360;

// "320:1304 360:1296" -> [[320, 1304], [360, 1296]] sorted by width; bad pairs are left out.
export function parseHeights(text) {
  const out = [];
  String(text || '').trim().split(/\s+/).slice(0, 40).forEach((pair) => {
    const m = /^(\d{1,5}):(\d{1,6})$/.exec(pair);
    if (m && +m[2] > 0) out.push([+m[1], +m[2]]);
  });
  return out.sort((a, b) => a[0] - b[0]);
}

export const formatHeights = (table) => table.map((p) => p[0] + ':' + p[1]).join(' ');

// The height to reserve at `width`: the larger of those measured at the nearest widths below and
// above it (between two measured widths the height may go either way); 0 with no table.
export function heightAt(table, width) {
  let lo = 0, hi = 0;
  for (const [w, h] of table) {
    if (w <= width) lo = h;
    else if (!hi) hi = h;
  }
  return Math.max(lo, hi);
}
