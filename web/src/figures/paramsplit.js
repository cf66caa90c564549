/* paramsplit.js - figure 6, where the parameters are: attention vs FFN for one block at the
   current sizes, then whole real models (embeddings, attention, FFN, norms, the rest) with exact
   totals from the engine next to the rounded figure their paper or model card prints. */
import * as F from '../draw/format.js';
import { presetShares } from '../model/stages/paramsplit.js';

const PARTS = ['embeddings', 'attention', 'ffn', 'norms', 'other'];

// The notes under the table, each sentence about the rows it names, its numbers from their counts:
// which rows have 2/3 of the layers' weights in the FFN and why the others differ; why FFN / all
// is lower in every row.
function presetNotes(presets, t, lang) {
  const s = presetShares(presets), by = new Map(presets.map((p) => [p.name, p]));
  const names = (list) => {
    const l = list.map((n) => t('preset_' + n));
    if (lang === 'zh' || l.length < 2) return l.join('\u3001');
    return l.slice(0, -1).join(', ') + ' and ' + l[l.length - 1];
  };
  const notes = [{ type: 'note', text: t('presetsTwoThirds', { names: names(s.twoThirds) }) }];
  const tr = by.get('transformer-base'), qwen = by.get('qwen2-0.5b'), mix = by.get('mixtral-8x7b');
  if (tr && qwen && mix)
    notes.push({ type: 'note', text: t('presetsOtherShares', { tr: F.pct(s.layer[tr.name]),
      qwen: F.pct(s.layer[qwen.name]), heads: qwen.config.nHeads, kv: qwen.config.nKvHeads,
      wide: (qwen.config.dFF / qwen.config.dModel).toFixed(1), mix: F.pct(s.layer[mix.name]),
      experts: mix.config.nExperts }) });
  notes.push({ type: 'note', text: t('presetsOutside', { least: t('preset_' + s.least),
    leastShare: F.pct(s.outside[s.least]), most: t('preset_' + s.most), mostShare: F.pct(s.outside[s.most]) }) });
  return notes;
}

export default {
  view: 'paramsplit',
  needs: ['split', 'presets'],   // the model's stages it draws from (model/stages/)
  reads: ['d', 'dff', 'act'],   // not heads: the split into heads changes no count
  build(res, ctx) {
    const t = ctx.t, d = res.d, f = res.dff, A = res.split.attention, Fn = res.split.ffn;
    const fA = '4\u00b7d\u00b2 + 4\u00b7d = 4\u00b7' + d + '\u00b2 + 4\u00b7' + d + ' = ' + F.int(A);
    const fF = res.gated
      ? '3\u00b7d\u00b7d_ff + 2\u00b7d_ff + d = 3\u00b7' + d + '\u00b7' + f + ' + 2\u00b7' + f + ' + ' + d +
        ' = ' + F.int(Fn)
      : '2\u00b7d\u00b7d_ff + d_ff + d = 2\u00b7' + d + '\u00b7' + f + ' + ' + f + ' + ' + d + ' = ' + F.int(Fn);
    const m = res.split.model;
    if (m) return opened(res, ctx, m, rows(res, t));
    return classic(res, ctx, fA, fF, rows(res, t));
  }
};

// The table's rows: every preset's exact parts and shares.
function rows(res, t) {
  return res.presets.map((p) => {
    const c = p.count;
    return { key: p.name,
      cells: [t('preset_' + p.name), PARTS.map((k) => ({ key: k, n: c[k] })), F.int(c.total),
        c.printedTotal ? F.big(c.printedTotal) : '\u2014', F.pct(c.ffn / c.total),
        F.pct(c.ffn / (c.ffn + c.attention))],
      sub: [null, null, c.active && c.active !== c.total ? t('activeNote', { n: F.big(c.active) }) : null] };
  });
}

const tableOf = (t, list) => ({ type: 'table', caption: t('presetsCaption'), columns: [
  { label: t('colModel') }, { label: t('colSplit'), bar: true }, { label: t('colTotal'), num: true },
  { label: t('colPrinted'), num: true }, { label: t('colFfnShare'), num: true },
  { label: t('colFfnLayer'), num: true }], rows: list });

// An opened model: its own counts, summed over its tensors by name, first in the table.
function opened(res, ctx, m, list) {
  const t = ctx.t, A = res.split.attention, Fn = res.split.ffn;
  const own = { key: 'model', cells: [m.name, PARTS.map((k) => ({ key: k, n: m[k] })), F.int(m.total), '\u2014',
    F.pct(m.ffn / m.total), F.pct(m.ffn / (m.ffn + m.attention))], sub: [null, null, null] };
  return {
    data: { attention: A, ffn: Fn, total: m.total },
    blocks: [
      { type: 'headline', text: t('splitTitle_model', { name: m.name, total: F.int(m.total) }) },
      { type: 'bar', parts: [{ key: 'attention', n: A }, { key: 'ffn', n: Fn }] },
      { type: 'formulas', rows: [[t('part_attention'), F.int(A)], [t('part_ffn'), F.int(Fn)]] },
      { type: 'note', text: t('splitRatio', { r: (Fn / A).toFixed(2), share: F.pct(Fn / (A + Fn)) }) },
      { type: 'swatches', items: PARTS.map((k) => ({ key: k, label: t('part_' + k) })) },
      tableOf(t, [own].concat(list)),
      { type: 'note', text: t('splitModelNote') }
    ]
  };
}

function classic(res, ctx, fA, fF, list) {
  const t = ctx.t, d = res.d, f = res.dff, A = res.split.attention, Fn = res.split.ffn;
  return {
    data: { attention: A, ffn: Fn },
    blocks: [
      { type: 'headline', text: t('splitTitle', { d, f }) },
      { type: 'bar', parts: [{ key: 'attention', n: A }, { key: 'ffn', n: Fn }] },
      { type: 'formulas', rows: [[t('part_attention'), fA], [t('part_ffn'), fF]] },
      { type: 'note', text: t('splitRatio', { r: (Fn / A).toFixed(2), share: F.pct(Fn / (A + Fn)) }) },
      { type: 'swatches', items: PARTS.map((k) => ({ key: k, label: t('part_' + k) })) },
      tableOf(t, list),
      { type: 'note', text: t('presetsNote') },
      ...presetNotes(res.presets, t, ctx.lang)
    ]
  };
}
