/* common.js - small pieces the figure files share: heatmap specs with their hover text and
   data table, and the "×" of shapes. */
import * as F from '../draw/format.js';
import { absMax } from '../draw/heatmap.js';

export const X = ' \u00d7 ';

// A heatmap panel: spec (heatmap.js fields plus title, shape, label, describe) and its table.
// name: what hover calls the matrix; extra overrides the defaults (kind, max, marks, ...).
export function matrixPanel(name, data, rows, cols, tokens, ctx, extra = {}) {
  const off = extra.offset || 0;
  const spec = Object.assign({ data, rows, cols, kind: 'diverging', max: absMax(data), rowLabels: tokens,
    colLabels: 'index', focusRow: -1, maxCell: 24,
    describe: (r, c) => name + '[' + tokens[r] + ', ' + c + '] = ' + F.f32(data[off + r * cols + c]) }, extra);
  const table = { caption: extra.tableCaption || spec.title || name, rows, cols, rowLabels: tokens,
    colLabels: Array.isArray(spec.colLabels) ? spec.colLabels : null, corner: extra.corner || ctx.t('tokenCol'),
    cell: extra.cell || ((r, c) => F.short(data[off + r * cols + c])) };
  return { spec, table };
}

// "lo [bar] hi" legend of a spec; max null: each matrix on its own scale.
export function legendOf(kind, max, note = '') { return { type: 'legend', kind, max, note }; }

// Which initialisation the FFN's weights come from, as a sentence ('' for weights not drawn
// from the seed, e.g. trained ones).
export function initNote(res, t) {
  if (res.init === 'scaled') return t(res.gated ? 'initNote_scaledGated' : 'initNote_scaled', { d: res.d, f: res.dff });
  return res.init === 'classic' ? t('initNote_classic') : '';
}

// Sentences joined as the language writes them: with a space, or none after Chinese 。.
export const sentences = (list, ctx) => list.filter(Boolean).join(ctx.lang === 'zh' ? '' : ' ');
