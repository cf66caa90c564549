/* norms.js - the `norms` figure: LayerNorm, BatchNorm and RMSNorm of the same x (L x d_model).
   Which axis each one averages over (the rows or the columns ruled, one group outlined, its
   statistics as strips along that axis), the three outputs, and the position-wise
   consequence: one token perturbed changes one row of LayerNorm's output, every row of
   BatchNorm's. Numbers from stages/norms.js (the engine's layerNorm, batchNorm, rmsNorm). */
import * as F from '../draw/format.js';
import { absMax } from '../draw/heatmap.js';
import { X, legendOf, matrixPanel } from './common.js';

const NAMES = { layer: 'LayerNorm', batch: 'BatchNorm', rms: 'RMSNorm' };
const RSTD_SHOWN = 6;   // an opened model's rstd per token: the first 6 by name, then the range

// One card of the `groups` block: x with the groups of `kind`, and its statistics as strips.
function card(kind, res, ctx, max) {
  const t = ctx.t, N = res.norms[kind], L = res.L, d = res.d, tk = res.tokens, x = res.x;
  const rows = kind !== 'batch', n = rows ? L : d;
  const sd = Float32Array.from(N.rstd, (r) => 1 / r);
  const names = kind === 'rms' ? ['rms'] : ['\u03bc', '\u03c3'], stats = kind === 'rms' ? [sd] : [N.mean, sd];
  const data = new Float32Array(n * stats.length);
  stats.forEach((a, k) => a.forEach((v, i) => { data[rows ? i * stats.length + k : k * n + i] = v; }));
  const group = (i) => (rows ? t('normsRowName', { tok: tk[i] }) : t('normsColName', { c: i }));
  const statText = (i) => names.map((nm, k) => nm + ' = ' + F.f32(stats[k][i])).join(', ');
  const matrix = { data: x, rows: L, cols: d, kind: 'diverging', max, rowLabels: tk, colLabels: 'index', focusRow: -1,
    maxCell: 24,
    label: t('normsCardLabel', { name: NAMES[kind], L, d, n, axis: t(rows ? 'normsAxisRows' : 'normsAxisCols') }),
    describe: (r, c) => 'x[' + tk[r] + ', ' + c + '] = ' + F.f32(x[r * d + c]) + '  \u00b7  ' + NAMES[kind] + ': ' +
      group(rows ? r : c) + ', ' + statText(rows ? r : c) };
  const strips = rows
    ? { data, rows: L, cols: names.length, kind: 'diverging', max, rowLabels: null, colLabels: names,
      focusRow: -1, maxCell: 28, label: t('normsStripsLabel', { name: NAMES[kind], n }),
      describe: (r) => group(r) + ': ' + statText(r) }
    : { data, rows: names.length, cols: d, kind: 'diverging', max, rowLabels: names, colLabels: null, focusRow: -1,
      label: t('normsStripsLabel', { name: NAMES[kind], n }), describe: (r, c) => group(c) + ': ' + statText(c) };
  // The data table: the statistics first (a wide x is cut at the right), then x.
  const table = rows
    ? { caption: NAMES[kind] + ' \u00b7 ' + t('normsTableCaption'), rows: L, cols: names.length + d, rowLabels: tk,
      colLabels: names.concat(Array.from({ length: d }, (_, c) => String(c))), corner: t('tokenCol'),
      cell: (r, c) => F.short(c < names.length ? stats[c][r] : x[r * d + c - names.length]) }
    : { caption: NAMES[kind] + ' \u00b7 ' + t('normsTableCaption'), rows: names.length + L, cols: d,
      rowLabels: names.concat(tk), colLabels: null, corner: t('tokenCol'),
      cell: (r, c) => F.short(r < names.length ? stats[r][c] : x[(r - names.length) * d + c]) };
  return { title: NAMES[kind], shape: t(rows ? 'normsPerToken' : 'normsPerFeature'), axis: rows ? 'rows' : 'cols',
    hi: 0, note: t('normsNote_' + kind, { L, d, tok: tk[0] }), matrix, strips, table, data: { kind, groups: n } };
}

export default {
  view: 'norms',
  needs: ['weights', 'norms'],   // the model's stages it draws from (model/stages/)
  // x is the stream's first draw: no d_ff, act, init
  reads: ['tokens', 'd', 'seed', 'weights', 'layer', 'pert', 'pval'],
  controls: [{ type: 'tokens', key: 'pert', aria: 'pertAria' }, { type: 'number', key: 'pval', label: 'pvalLabel' }],
  build(res, ctx) {
    const t = ctx.t, N = res.norms, L = res.L, d = res.d, tk = res.tokens, kinds = ['layer', 'batch', 'rms'];
    const sdMax = Math.max(...kinds.map((k) => absMax(Float32Array.from(N[k].rstd, (r) => 1 / r))));
    const max = Math.max(absMax(res.x), absMax(N.layer.mean), absMax(N.batch.mean), sdMax);
    const outMax = Math.max(...kinds.map((k) => absMax(N[k].out)));
    const outPanel = (k) => {
      const name = NAMES[k] + '(x)', p = matrixPanel(name, N[k].out, L, d, tk, ctx, { max: outMax, maxCell: 24,
        title: name, shape: L + X + d, label: t('normsOutLabel', { name, L, d }) });
      p.cls = 'norm-out norm-' + k;
      p.flex = 1;
      p.data = { kind: k };
      return p;
    };
    const diffPanel = (k) => {
      const D = N[k], name = NAMES[k], m = absMax(D.abs), flags = tk.map((_, r) => D.rows.includes(r));
      const p = matrixPanel('|\u0394 ' + name + '|', D.abs, L, d, tk, ctx, { kind: 'sequential', max: m, maxCell: 24,
        rowFlags: flags, title: '|\u0394 ' + name + '(x)|', shape: L + X + d,
        label: t('diffLabel', { name, n: D.rows.length, L }) });
      p.spec.describe = (r, c) => '|\u0394 ' + name + '(x)[' + tk[r] + ', ' + c + ']| = ' + F.f32(D.abs[r * d + c]) +
        '  \u00b7  ' + t('normsRowMax', { v: F.f32(D.rowMax[r]) });
      p.legend = legendOf('sequential', m);
      p.cls = 'norm-diff norm-' + k;
      p.flex = 1;
      p.data = { kind: k, rows: D.rows.join(',') };
      return p;
    };
    const range = (a, b) => (F.short(a) === F.short(b) ? F.short(a)
      : t('normsRange', { a: F.short(a), b: F.short(b) }));
    const P = N.pert, tok = tk[P], lnRow = N.layer.pertOut[P * d], rmsRow = N.rms.pertOut[P * d];
    const flat = (a) => { for (let c = 1; c < d; c++) if (a[P * d + c] !== a[P * d]) return false; return true; };
    const notes = [];
    // An opened model's own norm at this layer: RMSNorm (the Llama family: no mean, 1/rms per
    // token, as forward computed it before attention) or GPT-2's LayerNorm.
    const w = res.weights, rstd = res.trained === 'model' && w && w.rstd1;
    if (rstd) {
      // The first tokens by name (quoted: a token may be "," or "."), then the range of the rest.
      const show = Math.min(rstd.length, RSTD_SHOWN), list = Array.from(rstd.subarray(0, show), (v, i) =>
        t('normsTok', { tok: res.tokens[i], v: F.short(v) })).join(t('normsListSep'));
      const more = show === rstd.length ? ''
        : t('normsModelRmsMore', { n: rstd.length, lo: F.short(Math.min(...rstd)), hi: F.short(Math.max(...rstd)) });
      notes.push({ type: 'note', text: t('normsModelRms', { list: list + more }) });
    } else if (res.trained === 'model') notes.push({ type: 'note', text: t('normsModelLayer') });
    if (flat(N.layer.pertOut) && flat(N.rms.pertOut)) {
      notes.push({ type: 'note', text: t('normsFlatRow', { tok, d, ln: F.short(lnRow), rms: F.short(rmsRow) }) });
    }
    notes.push({ type: 'note', text: t('normsBatchShift', { tok, m0: F.short(N.batch.mean[0]),
      m1: F.short(N.batch.pertMean[0]), s0: F.short(1 / N.batch.rstd[0]), s1: F.short(1 / N.batch.pertRstd[0]) }) });
    return {
      data: { perturbed: P, layerRows: N.layer.rows.join(','), batchRows: N.batch.rows.join(','),
        rmsRows: N.rms.rows.join(',') },
      blocks: [
        { type: 'headline', text: t('normsAxesHead', { L, d }) },
        { type: 'groups', cards: kinds.map((k) => card(k, res, ctx, max)),
          legend: legendOf('diverging', max, t('normsStripsNote')) },
        { type: 'panels', layout: 'stages', panels: kinds.map(outPanel), legend: legendOf('diverging', outMax) },
        { type: 'note', text: t('normsOutCheck', { lm: F.short(N.layer.check.mean),
          ls: range(N.layer.check.sdMin, N.layer.check.sdMax),
          bm: F.short(N.batch.check.mean), bs: range(N.batch.check.sdMin, N.batch.check.sdMax),
          rr: range(N.rms.check.rmsMin, N.rms.check.rmsMax), rm: F.short(N.rms.check.mean) }) },
        { type: 'headline', text: t('normsPertHead', { tok, v: F.short(N.pval), L,
          nl: N.layer.rows.length, nb: N.batch.rows.length, nr: N.rms.rows.length }) },
        { type: 'panels', layout: 'stages', panels: kinds.map(diffPanel), note: t('changedDot') },
        ...notes
      ]
    };
  }
};
