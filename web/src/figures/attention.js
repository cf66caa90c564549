/* attention.js - figure 4, attention: the split into heads, concat and W_O as shapes, and one
   L x L heatmap per head (softmax weights, or the scores before/after the 1/sqrt(d_k)
   scaling), masked cells hatched. More than 4 heads: 8 at a time as small multiples and the
   one picked (setting `head`) large. */
import * as F from '../core/format.js';
import { absMax } from '../core/heatmap.js';
import { attnStats } from '../core/model.js';
import { X, legendOf, matrixPanel } from './common.js';

export const MODES = ['weights', 'scaled', 'raw'];
const ALL_HEADS = 4, PAGE = 8;   // up to 4 heads: all large; more: 8 at a time small, one large

export default {
  view: 'attention',
  reads: ['tokens', 'd', 'dff', 'act', 'seed', 'heads', 'causal', 'scale', 'show', 'head'],
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
    const panel = (h) => {
      const off = h * L * L, p = matrixPanel(what, data, L, L, tk, ctx, { offset: off, kind, max, colLabels: tk, maxCell: 34,
        masked, title: t('headTitle', { h: h + 1 }), shape: what + ' \u00b7 ' + L + X + L,
        label: t('headLabel', { h: h + 1, what, L }), tableCaption: t('headTitle', { h: h + 1 }) + ' \u00b7 ' + what,
        corner: t('queryKey'), cell: (r, c) => (masked && masked(r, c) ? '\u2014' : F.short(data[off + r * L + c])) });
      p.spec.describe = (r, c) => t('cellDescribe', { h: h + 1, q: tk[r], k: tk[c], what, v: F.f32(data[off + r * L + c]) }) +
        (masked && masked(r, c) ? '  ' + t('maskedCell') : '');
      p.data = { head: h };
      return p;
    };
    const legend = legendOf(kind, max, res.causal ? t('maskedNote') : ''), heads = [];
    const picked = Math.min(H, Math.max(1, ctx.state.head || 1));
    if (H <= ALL_HEADS) {
      const panels = [];
      for (let h = 0; h < H; h++) panels.push(panel(h));
      heads.push({ type: 'panels', layout: 'heads', panels, legend });
    } else {
      // Many heads: a page of up to 8 as small multiples (each picks itself), the picked one large.
      const sel = picked - 1, from = sel - sel % PAGE, to = Math.min(H, from + PAGE);
      let c = 84 / L;
      c = Math.min(12, c >= 4 ? Math.floor(c) : c);
      const small = [];
      for (let h = from; h < to; h++) {
        small.push({ head: h, title: t('headTitle', { h: h + 1 }), hint: t('headShow', { h: h + 1 }), spec: { data, offset: h * L * L, rows: L, cols: L, kind, max, masked,
          rowLabels: null, colLabels: null, focusRow: -1, maxCell: c, cellH: c, width: Math.ceil(L * c) + 10,
          label: t('headLabel', { h: h + 1, what, L }) } });
      }
      heads.push({ type: 'multiples', value: sel, count: H, panels: small, pick: (h) => ctx.set({ head: h + 1 }),
        label: t('headPick', { n: H }), range: t('headRange', { a: from + 1, b: to, n: H }), prev: t('headPrev'), next: t('headNext') });
      heads.push({ type: 'panels', layout: 'one', panels: [Object.assign(panel(sel), { cls: 'head head-large' })], legend });
    }
    const st = attnStats(A, H, L);
    return {
      data: { mode, causal: String(res.causal), peak: st.peak.toFixed(4), head: H <= ALL_HEADS ? 'all' : String(picked) },
      blocks: [
        { type: 'flow', items: flow },
        ...heads,
        { type: 'note', text: t(res.scale ? 'attnStats' : 'attnStatsOff', { raw: F.short(st.sd), scaled: F.short(st.sd * s),
          peak: st.peak.toFixed(2), uniform: (1 / L).toFixed(2) }) }
      ]
    };
  }
};
