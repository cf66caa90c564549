/* pipeline.js - figure 1, the FFN as a chain: x -> ·W1+b1 -> activation -> ·W2+b2 -> out,
   with every shape, value count and parameter count, and a thumbnail of each real matrix.
   Gated FFNs fork: the gate branch (x·W1+b1, its function) and the up branch (x·W3+b3) meet in
   an element-wise product. Under the chain: the weights' initialisation and the parameter
   parity of gated and ungated FFNs (8/3·d against 4·d). */
import * as F from '../draw/format.js';
import { absMax } from '../draw/heatmap.js';
import { X, initNote, legendOf, sentences } from './common.js';

function thumb(name, data, rows, cols, tokens, t) {
  return { data, rows, cols, kind: 'diverging', max: absMax(data), rowLabels: null, colLabels: null, focusRow: -1,
    maxCell: 6, cellH: Math.max(1, Math.min(7, Math.floor(70 / rows))),
    width: 4 + cols * Math.max(1, Math.min(6, Math.floor(96 / cols))) + 6,
    maxWidth: 170, label: t('thumbLabel', { name, r: rows, c: cols }),
    describe: (r, c) => name + '[' + tokens[r] + ', ' + c + '] = ' + F.f32(data[r * cols + c]) };
}

const count = (t, n) => (n === 1 ? t('nValues_one') : t('nValues', { n: F.int(n) }));
const ratio = (v) => v.toFixed(2).replace(/\.?0+$/, '');

// "Parity: ..." from the glu stage's counts (matrices only): an ungated FFN at 4·d against a
// gated one at 8/3·d, then where the current FFN stands.
function parityText(p, ctx) {
  const t = ctx.t;
  const exact = 8 * p.d / 3, f4 = 4 * p.d;
  const at = Number.isInteger(exact) ? '= ' + p.at : '\u2248 ' + ratio(exact) + ' \u2192 ' + p.at;
  const line = t('parityLine', { f4, n4: F.int(p.plain4d), at, nat: F.int(p.gatedAt) });
  const r = ratio(p.current / p.plain4d);
  const now = !p.gated ? t('parityPlain', { f: p.dff, n: F.int(p.current), r })
    : p.dff === p.at ? t('parityGatedAt', { f: p.dff, n: F.int(p.current) })
    : t('parityGatedOff', { f: p.dff, n: F.int(p.current), r, at: p.at });
  return sentences([line, now], ctx);
}

export default {
  view: 'pipeline',
  needs: ['weights', 'ffn', 'glu', 'collapse'],   // the model's stages it draws from (model/stages/)
  reads: ['tokens', 'd', 'dff', 'act', 'seed', 'init', 'layer'],
  build(res, ctx) {
    const t = ctx.t, L = res.L, d = res.d, f = res.dff, fx = res.ffn, tk = res.tokens;
    // (An opened Llama-family model's FFN has no biases unless its config says mlp_bias.)
    const nb = res.ffnBias === false, bias = nb ? 0 : 1, ws = nb ? 'weightShape_nobias' : 'weightShape';
    const p1 = d * f + f * bias, p2 = f * d + d * bias, p3 = res.gated ? d * f + f * bias : 0;
    const act = t('act_' + res.act);
    const gate = res.gated && res.glu ? res.glu.gate : null;
    const x = { name: 'x', shape: L + X + d, note: count(t, L * d), thumb: thumb('x', res.x, L, d, tk, t) };
    const w1 = { op: nb ? '\u00b7 W\u2081' : '\u00b7 W\u2081 + b\u2081',
      sub: t(ws, { name: 'W\u2081', shape: d + X + f, n: F.int(p1) }) };
    const activated = { name: t('activatedName'), shape: L + X + f, accent: true,
      note: t('negCount', { n: F.int(fx.negBefore), m: F.int(fx.negAfter) }),
      thumb: thumb('activated', fx.activated, L, f, tk, t) };
    const tail = [
      { op: nb ? '\u00b7 W\u2082' : '\u00b7 W\u2082 + b\u2082',
        sub: t(ws, { name: 'W\u2082', shape: f + X + d, n: F.int(p2) }) },
      { name: t('outName'), shape: L + X + d, note: t('sameShape'), thumb: thumb('out', fx.out, L, d, tk, t) }
    ];
    let flows;
    if (!gate) {
      flows = [[x, w1,
        { name: t('hiddenName'), shape: L + X + f, note: count(t, L * f),
          thumb: thumb('hidden', fx.hidden, L, f, tk, t) },
        { op: act, sub: t('elementwise') }, activated, ...tail]];
    } else {
      // Two branches from x, then their product: three chains, each read left to right.
      const fn = t('gateFn_' + res.act);
      flows = [
        [x, w1, { name: t('gateName'), shape: L + X + f, note: count(t, L * f),
          thumb: thumb('gate', fx.hidden, L, f, tk, t) },
          { op: fn, sub: t('elementwise') },
          { name: fn + '(' + t('gateName') + ')', shape: L + X + f, note: t('gateActNote'),
            thumb: thumb(fn + '(gate)', gate, L, f, tk, t) }],
        [x, { op: nb ? '\u00b7 W\u2083' : '\u00b7 W\u2083 + b\u2083',
          sub: t(ws, { name: 'W\u2083', shape: d + X + f, n: F.int(p3) }) },
          { name: t('upName'), shape: L + X + f, note: t('upNote'), thumb: thumb('up', fx.up, L, f, tk, t) }],
        [{ op: fn + '(' + t('gateName') + ') \u2299 ' + t('upName'), sub: t('productOp') }, activated, ...tail]
      ];
    }
    const stats = [t('pipelineStats', { total: F.int(p1 + p2 + p3), ratio: ratio(f / d) })];
    if (res.act === 'identity') {
      const gap = res.collapse.gap;
      stats.push(gap === null ? t('collapseNote') : t('collapseCheck', { gap: gap.toExponential(1) }));
    }
    const init = initNote(res, t), p = res.glu ? res.glu.parity : null;
    return {
      data: p ? { init: res.init, parityPlain: p.plain4d, parityGated: p.gatedAt, parityAt: p.at,
        parityCurrent: p.current, parity: String(!!p.gated && p.dff === p.at) } : { init: res.init },
      blocks: [
        ...flows.map((items) => ({ type: 'flow', items })),
        { type: 'note', text: sentences(stats.concat([init]), ctx) },
        ...(p ? [{ type: 'note', text: parityText(p, ctx) }] : []),
        legendOf('diverging', null, t('exp_ownScale'))
      ]
    };
  }
};
