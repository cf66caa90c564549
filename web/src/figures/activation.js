/* activation.js - figure 2, the activation map: hidden before and after the activation on one
   colour scale, cells the activation sets to 0 by its definition marked × (float32 underflow
   counted apart), the negative counts, and the curve traced by the engine's own (before,
   after) pairs. Gated FFNs show four maps: the gate before and after its function (one scale),
   the up projection and the product (each on its own). */
import * as F from '../draw/format.js';
import { absMax } from '../draw/heatmap.js';
import { X, initNote, legendOf, matrixPanel, sentences } from './common.js';

// The sentence under the maps: the weights' initialisation and, when any, the zeros that come
// from float32 rounding rather than from the function.
function underNote(res, ctx, z) {
  const t = ctx.t, parts = [initNote(res, t)];
  if (z.underflow) {
    const key = z.underflow === 1 ? 'underflowNote_one' : 'underflowNote';
    parts.push(t(key, { n: F.int(z.underflow), act: t('act_' + res.act) }));
  }
  if (z.gateUnderflow) parts.push(t('underflowGate', { n: F.int(z.gateUnderflow) }));
  return sentences(parts, ctx);
}

const note = (text) => (text ? [{ type: 'note', text }] : []);

export default {
  view: 'activation',
  needs: ['ffn', 'glu', 'zeros'],   // the model's stages it draws from (model/stages/)
  reads: ['tokens', 'd', 'dff', 'act', 'seed', 'init', 'layer'],
  build(res, ctx) {
    const t = ctx.t, fx = res.ffn, L = res.L, f = res.dff, tk = res.tokens, act = t('act_' + res.act);
    const gate = res.gated && res.glu ? res.glu.gate : null;
    const z = res.zeros, marks = z.marks;
    const shape = L + X + f, cellText = (v, i) => F.short(v) + (marks[i] ? ' \u00d7' : '');
    // The product's panel: marks ×, and hover says what a marked or underflowed cell was.
    const after = (title, max, own) => {
      const p = matrixPanel('activated', fx.activated, L, f, tk, ctx, { title, shape, marks, max, maxCell: 24,
        label: t('heatLabel', { name: t('activatedName'), r: L, c: f }), tableCaption: t('activatedName'),
        cell: (r, c) => cellText(fx.activated[r * f + c], r * f + c) });
      const plain = p.spec.describe;
      p.spec.describe = (r, c) => {
        const i = r * f + c, was = F.f32(fx.hidden[i]);
        return plain(r, c) + (marks[i] ? '  (' + t('wasValue', { v: was }) + ')'
          : fx.activated[i] === 0 ? '  (' + t('underflowCell', { v: was }) + ')' : '');
      };
      if (own) p.legend = legendOf('diverging', max, own);
      p.data = { max: F.f32(max) };
      // (A trained model's hidden unit: a press shows it in figure 16, the FFN neurons.)
      if (res.trained) p.spec.onPick = (r, c) => ctx.set({ neuron: res.layer + '.' + (c + 1) });
      return p;
    };
    let maps;
    const nb = res.ffnBias === false ? '_nobias' : '';   // (Llama's FFN has no biases: no "+ b₁" in a title)
    if (!gate) {
      const max = absMax(fx.hidden);
      const before = matrixPanel('hidden', fx.hidden, L, f, tk, ctx, {
        title: t('beforeTitle' + nb, { name: t('hiddenName') }), shape, max, maxCell: 24,
        label: t('heatLabel', { name: t('hiddenName'), r: L, c: f }), tableCaption: t('hiddenName') });
      before.data = { max: F.f32(max) };
      maps = [{ type: 'panels', layout: 'pair', panels: [before, after(t('afterTitle', { act }), max)],
        legend: legendOf('diverging', max, z.count ? t('markNote') : '') }];
    } else {
      // The gate before and after its function share a scale (the function bends one into the
      // other); the up projection and the product are other quantities, each on its own.
      const fn = t('gateFn_' + res.act), gmax = Math.max(absMax(fx.hidden), absMax(gate)), umax = absMax(fx.up);
      const g0 = matrixPanel('gate', fx.hidden, L, f, tk, ctx, { title: t('gateTitle' + nb), shape, max: gmax,
        maxCell: 24,
        label: t('heatLabel', { name: t('gateName'), r: L, c: f }), tableCaption: t('gateTitle' + nb) });
      const g1 = matrixPanel(fn + '(gate)', gate, L, f, tk, ctx, { title: t('gateActTitle', { fn }), shape, max: gmax,
        maxCell: 24, label: t('heatLabel', { name: fn + '(gate)', r: L, c: f }),
        tableCaption: t('gateActTitle', { fn }) });
      const up = matrixPanel('up', fx.up, L, f, tk, ctx, { title: t('upTitle' + nb), shape, max: umax, maxCell: 24,
        label: t('heatLabel', { name: t('upName'), r: L, c: f }), tableCaption: t('upTitle' + nb) });
      g0.data = { max: F.f32(gmax), map: 'gate' }; g1.data = { max: F.f32(gmax), map: 'gate-act' };
      up.data = { max: F.f32(umax), map: 'up' }; up.legend = legendOf('diverging', umax, t('ownScale'));
      const prod = after(t('productTitle', { fn }), absMax(fx.activated),
        t('ownScale') + (z.count ? ' \u00b7 ' + t('markNote') : ''));
      prod.data.map = 'product';
      const gateLegend = legendOf('diverging', gmax, t('gateScale', { fn }));
      maps = [{ type: 'panels', layout: 'pair', panels: [g0, g1], legend: gateLegend },
        { type: 'panels', layout: 'pair', panels: [up, prod] }];
    }
    return {
      data: { negativesBefore: fx.negBefore, negativesAfter: fx.negAfter, zeroed: z.count, underflow: z.underflow,
        gateUnderflow: gate ? z.gateUnderflow : '', init: res.init },
      blocks: [
        { type: 'stats', items: [
          { cls: 'neg-before', num: F.int(fx.negBefore),
            label: t(gate ? 'negGateLabel' : 'negBeforeLabel', { total: F.int(fx.hidden.length) }) },
          { cls: 'neg-after', num: F.int(fx.negAfter), label: t('negAfterLabel', { act }) },
          { cls: 'zeroed', num: F.int(z.count), label: t('zeroedLabel') }] },
        ...maps,
        ...note(underNote(res, ctx, z)),
        { type: 'curve', title: t(res.gated ? 'curveTitleGated' : 'curveTitle', { act }),
          note: t(res.gated ? 'curveNoteGated' : 'curveNote'), label: (n) => t('curveLabel', { n }) }
      ]
    };
  }
};
