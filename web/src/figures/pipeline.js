/* pipeline.js - figure 1, the FFN as a chain: x -> ·W1+b1 -> activation -> ·W2+b2 -> out,
   with every shape, value count and parameter count, and a thumbnail of each real matrix. */
import * as F from '../core/format.js';
import { absMax } from '../core/heatmap.js';
import { collapseGap } from '../core/model.js';
import { X, legendOf } from './common.js';

function thumb(name, data, rows, cols, tokens, t) {
  return { data, rows, cols, kind: 'diverging', max: absMax(data), rowLabels: null, colLabels: null, focusRow: -1,
    maxCell: 6, cellH: Math.max(1, Math.min(7, Math.floor(70 / rows))), width: 4 + cols * Math.max(1, Math.min(6, Math.floor(96 / cols))) + 6,
    maxWidth: 170, label: t('thumbLabel', { name, r: rows, c: cols }),
    describe: (r, c) => name + '[' + tokens[r] + ', ' + c + '] = ' + F.f32(data[r * cols + c]) };
}

const count = (t, n) => (n === 1 ? t('nValues_one') : t('nValues', { n: F.int(n) }));

export default {
  view: 'pipeline',
  reads: ['tokens', 'd', 'dff', 'act', 'seed'],
  build(res, ctx) {
    const t = ctx.t, L = res.L, d = res.d, f = res.dff, fx = res.ffn, tk = res.tokens;
    const p1 = d * f + f, p2 = f * d + d, p3 = res.gated ? d * f + f : 0, act = t('act_' + res.act);
    const items = [
      { name: 'x', shape: L + X + d, note: count(t, L * d), thumb: thumb('x', res.x, L, d, tk, t) },
      { op: '\u00b7 W\u2081 + b\u2081', sub: t('weightShape', { name: 'W\u2081', shape: d + X + f, n: F.int(p1) }) },
      { name: res.gated ? t('gateName') : t('hiddenName'), shape: L + X + f, note: count(t, L * f),
        thumb: thumb('hidden', fx.hidden, L, f, tk, t) },
      { op: act, sub: res.gated ? t('gatedOp', { shape: d + X + f, n: F.int(p3) }) : t('elementwise') },
      { name: t('activatedName'), shape: L + X + f, accent: true, note: t('negCount', { n: F.int(fx.negBefore), m: F.int(fx.negAfter) }),
        thumb: thumb('activated', fx.activated, L, f, tk, t) },
      { op: '\u00b7 W\u2082 + b\u2082', sub: t('weightShape', { name: 'W\u2082', shape: f + X + d, n: F.int(p2) }) },
      { name: t('outName'), shape: L + X + d, note: t('sameShape'), thumb: thumb('out', fx.out, L, d, tk, t) }
    ];
    const stats = [t('pipelineStats', { total: F.int(p1 + p2 + p3), ratio: (f / d).toFixed(2).replace(/\.?0+$/, '') })];
    if (res.act === 'identity') {
      const gap = collapseGap(res);
      stats.push(gap === null ? t('collapseNote') : t('collapseCheck', { gap: gap.toExponential(1) }));
    }
    return {
      blocks: [{ type: 'flow', items }, { type: 'note', text: stats.join(' ') }, legendOf('diverging', null, t('exp_ownScale'))]
    };
  }
};
