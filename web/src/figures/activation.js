/* activation.js - figure 2, the activation map: hidden before and after the activation on one
   colour scale, cells the activation set to 0 marked ×, the negative counts, and the curve
   traced by the engine's own (before, after) pairs. */
import * as F from '../core/format.js';
import { absMax } from '../core/heatmap.js';
import { zeroedMarks } from '../core/model.js';
import { X, legendOf, matrixPanel } from './common.js';

export default {
  view: 'activation',
  reads: ['tokens', 'd', 'dff', 'act', 'seed'],
  build(res, ctx) {
    const t = ctx.t, fx = res.ffn, L = res.L, f = res.dff, tk = res.tokens, act = t('act_' + res.act);
    const z = zeroedMarks(fx), marks = z.marks;
    const max = Math.max(absMax(fx.hidden), res.gated ? absMax(fx.activated) : 0);
    const nameB = res.gated ? t('gateName') : t('hiddenName'), nameA = t('activatedName');
    const common = { kind: 'diverging', max, maxCell: 24 };
    const before = matrixPanel('hidden', fx.hidden, L, f, tk, ctx, Object.assign({ title: t('beforeTitle', { name: nameB }),
      shape: L + X + f, label: t('heatLabel', { name: nameB, r: L, c: f }), tableCaption: nameB }, common));
    const after = matrixPanel('activated', fx.activated, L, f, tk, ctx, Object.assign({ title: t('afterTitle', { act }),
      shape: L + X + f, marks, label: t('heatLabel', { name: nameA, r: L, c: f }), tableCaption: nameA,
      cell: (r, c) => F.short(fx.activated[r * f + c]) + (marks[r * f + c] ? ' \u00d7' : '') }, common));
    // Hover on a marked cell also says what it was before.
    const plain = after.spec.describe;
    after.spec.describe = (r, c) => plain(r, c) + (marks[r * f + c] ? '  (' + t('wasValue', { v: F.f32(fx.hidden[r * f + c]) }) + ')' : '');
    return {
      data: { negativesBefore: fx.negBefore, negativesAfter: fx.negAfter, zeroed: z.count },
      blocks: [
        { type: 'stats', items: [
          { cls: 'neg-before', num: F.int(fx.negBefore), label: t('negBeforeLabel', { total: F.int(fx.hidden.length) }) },
          { cls: 'neg-after', num: F.int(fx.negAfter), label: t('negAfterLabel', { act }) },
          { cls: 'zeroed', num: F.int(z.count), label: t('zeroedLabel') }] },
        { type: 'panels', layout: 'pair', panels: [before, after], legend: legendOf('diverging', max, z.count ? t('markNote') : '') },
        { type: 'curve', title: t(res.gated ? 'curveTitleGated' : 'curveTitle', { act }), note: t(res.gated ? 'curveNoteGated' : 'curveNote'),
          label: (n) => t('curveLabel', { n }) }
      ]
    };
  }
};
