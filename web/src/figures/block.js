/* block.js - the whole block: x -> attention -> + residual -> LayerNorm -> FFN -> + residual ->
   LayerNorm (post-LN) or with the norms in front of each sublayer (pre-LN, setting `ln`), run
   by the engine on the weights of the figures above (the calls of its encoderLayer, in two
   stages: model/stages/block.js). One row of heatmaps per
   sublayer (its input, what it adds, the sum, on one colour scale), then per token the size
   of x, of both updates and of the output. */
import * as F from '../draw/format.js';
import { absMax } from '../draw/heatmap.js';
import { legendOf, matrixPanel } from './common.js';

export const PLACEMENTS = ['post', 'pre'];
const SERIES = [['x', 'other'], ['attn', 'attention'], ['ffn', 'ffn'], ['out', 'norms']];

// The two rows of panels: [title, matrix] x 4 each, in the order the block computes them.
function rows(B, x, pre) {
  return pre
    ? [
      [['x', x], ['LN\u2081(x)', B.norm1], ['Attention(LN\u2081(x))', B.attn], ['h = x + Attention(\u2026)', B.resid1]],
      [['h', B.resid1], ['LN\u2082(h)', B.norm2], ['FFN(LN\u2082(h))', B.ffn], ['out = h + FFN(\u2026)', B.resid2]]]
    : [
      [['x', x], ['Attention(x)', B.attn], ['x + Attention(x)', B.resid1], ['h = LN\u2081(\u2026)', B.norm1]],
      [['h', B.norm1], ['FFN(h)', B.ffn], ['h + FFN(h)', B.resid2], ['out = LN\u2082(\u2026)', B.norm2]]];
}

const mean = (a) => a.reduce((s, v) => s + v, 0) / a.length;

// Which weights' note: the poem model's, or an opened model's (LayerNorm or RMSNorm).
const trainedNote = (res) => (res.trained !== 'model' ? 'blockTrained'
  : res.norm === 'rms' ? 'blockModelRms' : 'blockModel');

export default {
  view: 'block',
  needs: ['weights', 'block'],   // the model's stages it draws from (model/stages/)
  reads: ['tokens', 'd', 'dff', 'act', 'seed', 'init', 'weights', 'layer', 'heads', 'causal', 'scale', 'ln'],
  controls: [{ type: 'segment', key: 'ln', options: PLACEMENTS, label: (m, t) => t('ln_' + m), aria: 'lnAria',
    model: true }],
  build(res, ctx) {
    const t = ctx.t, B = res.block, L = res.L, d = res.d, tk = res.tokens, pre = B.ln === 'pre', S = B.stats;
    const names = [t('rowAttn'), t('rowFfn')];
    const formulas = pre ? ['h = x + Attention(LN\u2081(x))', 'out = h + FFN(LN\u2082(h))']
      : ['h = LN\u2081(x + Attention(x))', 'out = LN\u2082(h + FFN(h))'];
    const panelRows = rows(B, res.x, pre).map((row, k) => {
      const max = Math.max(...row.map((p) => absMax(p[1])));
      const panels = row.map(([title, m], i) => Object.assign(matrixPanel(title, m, L, d, tk, ctx, {
        title, max, maxCell: 22, label: t('blockHeatLabel', { name: title, r: L, c: d }),
        tableCaption: names[k] + ': ' + title }), { flex: 1, data: { stage: k * 4 + i } }));
      const scaleNote = t('blockScaleNote', { shape: L + '\u00a0\u00d7\u00a0' + d });
      return { type: 'panels', layout: 'stages', panels, legend: legendOf('diverging', max, scaleNote) };
    });
    const norms = { x: S.x.norm, attn: S.attn.norm, ffn: S.ffn.norm, out: S.out.norm };
    const series = SERIES.map(([key, color]) => ({ key, color, label: t('bar_' + key),
      values: Array.from(norms[key]) }));
    const m = { x: mean(series[0].values), a: mean(series[1].values), f: mean(series[2].values),
      o: mean(series[3].values) };
    const big = m.f / mean(Array.from(S.ffnIn.norm));   // the FFN's update against its own input
    let dm = 0, ds = 0;
    for (let i = 0; i < L; i++) {
      dm = Math.max(dm, Math.abs(S.out.mean[i]));
      ds = Math.max(ds, Math.abs(S.out.std[i] - 1));
    }
    const summary = pre
      ? t('blockPre', { L, x: F.short(m.x), a: F.short(m.a), f: F.short(m.f), o: F.short(m.o),
        r: (m.o / m.x).toFixed(1) })
      : t('blockPost', { L, x: F.short(m.x), a: F.short(m.a), f: F.short(m.f), dm: F.short(dm), ds: F.short(ds),
        sq: F.short(Math.sqrt(d)) });
    const cols = ['x', 'attn', 'ffn', 'out'].map((k) => t('bar_' + k)).concat([t('colOutMean'), t('colOutStd')]);
    const cell = (r, c) => F.short(c < 4 ? norms[SERIES[c][0]][r] : c === 4 ? S.out.mean[r] : S.out.std[r]);
    const bigKey = res.init === 'classic' ? 'blockBigClassic' : 'blockBig';
    return {
      data: { ln: B.ln, causal: String(res.causal), meanX: m.x.toFixed(4), meanAttn: m.a.toFixed(4),
        meanFfn: m.f.toFixed(4), meanOut: m.o.toFixed(4) },
      blocks: [
        { type: 'headline', text: t('blockKind_' + B.ln + '_' + (res.causal ? 'causal' : 'bi')) },
        ...(res.trained ? [{ type: 'note', text: t(trainedNote(res), { layer: res.layer }) }] : []),
        { type: 'formulas', rows: [[names[0], formulas[0]]] },
        panelRows[0],
        { type: 'formulas', rows: [[names[1], formulas[1]]] },
        panelRows[1],
        ...(big >= 4 ? [{ type: 'note', text: t(bigKey, { r: big.toFixed(0) }) }] : []),
        { type: 'tokenbars', title: t('barsTitle'), yLabel: t('barsAxis'), tokens: tk, series,
          label: t('barsLabel', { L }), note: t(res.causal ? 'barsNoteCausal' : 'barsNote'),
          table: { caption: t('barsTitle'), rows: L, cols: 6, rowLabels: tk, colLabels: cols,
            corner: t('tokenCol'), cell } },
        { type: 'note', text: summary }
      ]
    };
  }
};
