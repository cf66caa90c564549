/* attention.js - figure 4, attention: the split into heads, concat and W_O as shapes, and one
   L x L heatmap per head (softmax weights, or the scores before/after the 1/sqrt(d_k)
   scaling), masked cells drawn as empty. */
import * as F from '../core/format.js';
import { absMax } from '../core/heatmap.js';
import { attnStats } from '../core/model.js';
import { X, legendOf, matrixPanel } from './common.js';

export const MODES = ['weights', 'scaled', 'raw'];

export default {
  view: 'attention',
  reads: ['tokens', 'd', 'dff', 'act', 'seed', 'heads', 'causal', 'scale', 'show'],
  controls: [{ type: 'segment', key: 'show', options: MODES, label: (m, t) => t('mode_' + m), aria: 'modeAria' }],
  build(res, ctx) {
    const t = ctx.t, L = res.L, H = res.heads, dk = res.dk, d = res.d, A = res.attn, tk = res.tokens;
    const mode = ctx.state.show, s = 1 / Math.sqrt(dk);   // the 'scaled' view always divides
    const flow = [
      { name: 'x', shape: L + X + d },
      { op: '\u00b7 W_Q, W_K, W_V', sub: t('qkvSub', { shape: d + X + d }) },
      { name: 'Q, K, V', shape: t('threeOf', { shape: L + X + d }) },
      { op: t(H === 1 ? 'splitOp_one' : 'splitOp', { h: H }), sub: 'd_k = ' + d + ' / ' + H + ' = ' + dk },
      { name: t('perHead'), shape: H + X + L + X + dk },
      { op: res.scale ? 'softmax(QK\u1d40/\u221a' + dk + ')' : 'softmax(QK\u1d40)', sub: t(res.causal ? 'maskCausal' : 'maskNone') },
      { name: t('weightsName'), shape: H + X + L + X + L, accent: true },
      { op: '\u00b7 V', sub: t('mixOp') },
      { name: t('contextName'), shape: H + X + L + X + dk },
      { op: t('concatOp'), sub: H + X + dk + ' = ' + d },
      { name: 'concat', shape: L + X + d },
      { op: '\u00b7 W_O + b_O', sub: t('woSub', { shape: d + X + d }) },
      { name: t('outName'), shape: L + X + d }
    ];
    let data = A.weights, kind = 'sequential';
    if (mode !== 'weights') {
      kind = 'diverging';
      data = mode === 'raw' ? A.scores : A.scores.map((v) => v * s);
    }
    const max = absMax(data), masked = res.causal ? (r, c) => c > r : null, what = t('mode_' + mode);
    const panels = [];
    for (let h = 0; h < H; h++) {
      const off = h * L * L, p = matrixPanel(what, data, L, L, tk, ctx, { offset: off, kind, max, colLabels: tk, maxCell: 34,
        masked, title: t('headTitle', { h: h + 1 }), shape: what + ' \u00b7 ' + L + X + L,
        label: t('headLabel', { h: h + 1, what, L }), tableCaption: t('headTitle', { h: h + 1 }) + ' \u00b7 ' + what,
        corner: t('queryKey'), cell: (r, c) => (masked && masked(r, c) ? '\u2014' : F.short(data[off + r * L + c])) });
      p.spec.describe = (r, c) => t('cellDescribe', { h: h + 1, q: tk[r], k: tk[c], what, v: F.f32(data[off + r * L + c]) }) +
        (masked && masked(r, c) ? '  ' + t('maskedCell') : '');
      p.data = { head: h };
      panels.push(p);
    }
    const st = attnStats(A, H, L);
    return {
      data: { mode, causal: String(res.causal), peak: st.peak.toFixed(4) },
      blocks: [
        { type: 'flow', items: flow },
        { type: 'panels', layout: 'heads', panels, legend: legendOf(kind, max, res.causal ? t('maskedNote') : '') },
        { type: 'note', text: t(res.scale ? 'attnStats' : 'attnStatsOff', { raw: F.short(st.sd), scaled: F.short(st.sd * s),
          peak: st.peak.toFixed(2), uniform: (1 / L).toFixed(2) }) }
      ]
    };
  }
};
