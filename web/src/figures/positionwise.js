/* positionwise.js - figure 5, the position-wise experiment: set one token's vector to a large
   value and draw |change| of the FFN output (only that row moves) next to |change| of the
   attention output (every row that can see that token moves). */
import * as F from '../draw/format.js';
import { absMax } from '../draw/heatmap.js';
import { X, legendOf, matrixPanel } from './common.js';

export default {
  view: 'positionwise',
  needs: ['pertf', 'perta'],   // the model's stages it draws from (model/stages/)
  reads: ['tokens', 'd', 'dff', 'act', 'seed', 'init', 'layer', 'heads', 'causal', 'scale', 'pert', 'pval'],
  controls: [{ type: 'tokens', key: 'pert', aria: 'pertAria' }, { type: 'number', key: 'pval', label: 'pvalLabel' }],
  build(res, ctx) {
    const t = ctx.t, P = res.pert, L = res.L, d = res.d, tk = res.tokens;
    const part = (name, D, title, cls) => {
      const max = absMax(D.abs), p = matrixPanel(name, D.abs, L, d, tk, ctx, { kind: 'sequential', max, maxCell: 26,
        rowFlags: tk.map((_, r) => D.rows.includes(r)), title, shape: L + X + d,
        label: t('diffLabel', { name, n: D.rows.length, L }) });
      p.spec.describe = (r, c) => '|\u0394 ' + name + '[' + tk[r] + ', ' + c + ']| = ' + F.f32(D.abs[r * d + c]);
      p.legend = legendOf('sequential', max);
      p.cls = cls;
      return p;
    };
    return {
      data: { perturbed: P.index, ffnRows: P.ffn.rows.join(','), attnRows: P.attn.rows.join(',') },
      blocks: [
        { type: 'headline', text: t('pertSummary', { tok: tk[P.index], v: F.short(P.value), nf: P.ffn.rows.length,
          na: P.attn.rows.length, L, rows: P.attn.rows.map((r) => tk[r]).join(' ') }) },
        { type: 'panels', layout: 'pair', panels: [part('FFN', P.ffn, t('diffFfnTitle'), 'diff-ffn'),
          part('attention', P.attn, t('diffAttnTitle'), 'diff-attn')], note: t('changedDot') }
      ]
    };
  }
};
