/* heads.js - figure 12, the model view: every layer x head attention map of the text as a grid
   of small heatmaps (rows layers, columns heads; the causal mask in the mask colour), each cell
   framed and badged by the measure chosen (stage modelview: mean weight on the previous token,
   the first, itself, one line up, or entropy), its largest weights as hover text; pressing a
   cell opens figure 4 at that layer and head. Its data table lists every head, sorted by the
   measure. Random weights have one block: the figure says so and offers the poem model. */
import * as F from '../draw/format.js';
import { MEASURES } from '../model/stages/modelview.js';
import { POEM } from '../model/params.js';

const causal = (r, c) => c > r;
const dash = '\u2014';
// A measure's value as the badge and the table show it: weights as percent, entropy in bits.
const shown = (m, v) => (v === null ? dash : m === 'entropy' ? v.toFixed(2) : Math.round(100 * v) + '%');
// Each cell's frame strength in 0..1: a weight itself; entropy against an even row (1 = sharpest).
const strength = (m, v, u) => (v === null ? 0 : m === 'entropy' ? Math.max(0, Math.min(1, 1 - v / u)) : v);

// Cell side in CSS px: the map about 64 px whatever L (whole pixels from 4 up, at most 8).
function cellSize(L) {
  const c = 64 / L;
  return Math.min(8, c >= 4 ? Math.floor(c) : c);
}

function random(ctx) {
  const t = ctx.t;
  return { data: { trained: 'no' }, blocks: [
    { type: 'note', text: t('mvRandom') },
    { type: 'nextchars', items: [], action: { label: t('nextUsePoems'),
      run: () => ctx.set({ weights: 'poems', tokens: POEM.tokens, sel: POEM.sel }) } }
  ] };
}

export default {
  view: 'heads',
  needs: ['wide', 'modelview'],   // the model's stages it draws from (model/stages/)
  reads: ['tokens', 'hmeasure'],
  controls: [{ type: 'segment', key: 'hmeasure', options: MEASURES, label: (m, t) => t('mv_' + m),
    aria: 'mvMeasureAria' }],
  build(res, ctx) {
    const t = ctx.t, mv = res.modelview, wide = res.wide;
    if (!res.trained || !mv || !wide) return random(ctx);
    const L = mv.L, H = mv.H, NL = mv.layers.length, tk = res.tokens, c = cellSize(L);
    const m = MEASURES.includes(ctx.state.hmeasure) ? ctx.state.hmeasure : 'prev', u = mv.uniformEntropy;
    const q = (i) => F.label(tk[i], 8);
    const jobName = (j) => t(j === 'focused' ? 'jobFocused' : j === 'diffuse' ? 'jobSpread' : 'job_' + j);
    const largest = (r) => r.largest.map((x) => t('mvPair', { q: q(x.q), k: q(x.k), w: x.w.toFixed(2) }))
      .join(t('listSep'));
    const cells = [];
    for (let l = 0; l < NL; l++) {
      for (let h = 0; h < H; h++) {
        const r = mv.layers[l][h], v = r[m];
        const name = t('mvCell', { l: l + 1, h: h + 1 });
        cells.push({ layer: l, head: h, name, badge: shown(m, v), strength: strength(m, v, u),
          label: t('mvCellLabel', { name, what: t('mv_' + m), v: shown(m, v) }),
          hint: t('mvHint', { name, what: t('mv_' + m), v: shown(m, v), top: largest(r) }),
          spec: { data: wide.attention[l], offset: h * L * L, rows: L, cols: L, kind: 'sequential', max: 1,
            masked: causal, rowLabels: null, colLabels: null, focusRow: -1, maxCell: c, cellH: c,
            width: Math.ceil(L * c) + 10, label: t('headLabel', { h: h + 1, what: t('mode_weights'), L }) } });
      }
    }
    // Frames on the grid's own scale: the strongest head's darkest (weights of 0.3 are pale on 0..1).
    const top = Math.max(1e-9, ...cells.map((x) => x.strength));
    for (const x of cells) x.frame = x.strength / top;
    // The table: every head, the chosen measure's strongest first (entropy: the sharpest).
    const order = cells.map((x, i) => i).sort((a, b) => cells[b].strength - cells[a].strength || a - b);
    const table = { caption: t('mvCaption', { what: t('mv_' + m), u: u.toFixed(2) }), rows: order.length,
      cols: 1 + MEASURES.length, corner: t('colHead'), rowLabels: order.map((i) => cells[i].name),
      colLabels: [t('colJob'), ...MEASURES.map((k) => t('mv_' + k))],
      cell: (row, col) => {
        const r = mv.layers[cells[order[row]].layer][cells[order[row]].head];
        return col === 0 ? jobName(r.top) : shown(MEASURES[col - 1], r[MEASURES[col - 1]]);
      } };
    const blocks = [
      { type: 'headline', text: t('mvTitle', { n: NL, h: H, what: t('mv_' + m) }) },
      { type: 'grid', layers: NL, heads: H, cells, rowLabel: (l) => t('mvLayer', { l: l + 1 }),
        colLabel: (h) => t('mvHead', { h: h + 1 }), label: t('mvGridLabel', { n: NL, h: H }),
        hint: t('mvPress'), target: 's-attention', pooledNote: (w) => t('mvPooled', { w }),
        pick: (l, h) => ctx.set({ layer: l + 1, head: h + 1 }), table },
      { type: 'legend', kind: 'sequential', max: 1, note: t('maskedNote') }
    ];
    if (!mv.lines) blocks.push({ type: 'note', text: t(res.trained === 'model' ? 'mvNoLinesModel' : 'mvNoLines') });
    return {
      data: { measure: m, layers: String(NL), heads: String(H), cells: String(cells.length),
        best: 'l' + (cells[order[0]].layer + 1) + 'h' + (cells[order[0]].head + 1) },
      blocks
    };
  }
};
