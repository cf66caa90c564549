/* rows.js - figure 3, per-token rows: one token's row stays coloured through x, hidden (gated:
   the gate and the up projection), activated and out while the others are greyed (the FFN
   treats each row alone); beside it the links attention makes between rows and the FFN's
   single self-link. */
import * as F from '../draw/format.js';
import { absMax } from '../draw/heatmap.js';
import { X, legendOf, matrixPanel } from './common.js';

export default {
  view: 'rows',
  needs: ['weights', 'ffn', 'attnmean'],   // the model's stages it draws from (model/stages/)
  reads: ['tokens', 'd', 'dff', 'act', 'seed', 'init', 'layer', 'heads', 'causal', 'scale', 'sel'],
  controls: [{ type: 'tokens', key: 'sel', aria: 'tokensAria' }],
  build(res, ctx) {
    const t = ctx.t, L = res.L, tk = res.tokens, sel = res.sel, fx = res.ffn;
    const stages = [
      { name: 'x', data: res.x, cols: res.d },
      { name: res.gated ? t('gateName') : t('hiddenName'), data: fx.hidden, cols: res.dff },
      ...(res.gated ? [{ name: t('upName'), data: fx.up, cols: res.dff }] : []),
      { name: t('activatedName'), data: fx.activated, cols: res.dff },
      { name: t('outName'), data: fx.out, cols: res.d }
    ];
    const panels = stages.map((st, k) => Object.assign(matrixPanel(st.name, st.data, L, st.cols, tk, ctx, {
      title: st.name, shape: L + X + st.cols, focusRow: sel, maxCell: 18,
      label: t('rowsLabel', { name: st.name, tok: tk[sel] }), onPick: (r) => ctx.set({ sel: r }) }),
    { flex: Math.max(8, Math.min(st.cols, 64)), data: { stage: k }, legend: legendOf('diverging', absMax(st.data)) }));
    const mean = res.attnmean.mean, at = sel * L;   // the selected query's row
    return {
      data: { selected: sel },
      blocks: [
        { type: 'headline', text: t('exp_selected', { tok: tk[sel], i: sel }) },
        { type: 'panels', layout: 'stages', panels },
        { type: 'links', attnCaption: t(res.causal ? 'insetAttnCausal' : 'insetAttn'), ffnCaption: t('insetFfn'),
          note: t(res.causal ? 'insetNoteCausal' : 'insetNote', { tok: tk[sel] }),
          label: t('insetLabel', { tok: tk[sel] }),
          table: { caption: t('insetTable', { tok: tk[sel] }), rows: L, cols: 1, rowLabels: tk,
            colLabels: [t('meanWeight')], corner: t('keyCol'), cell: (r) => F.short(mean[at + r]) } }
      ]
    };
  }
};
