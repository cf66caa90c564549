/* moe.js - the `moe` figure: a Mixtral-style mixture of experts on the current tokens. The
   router's probabilities per token (L x n_experts) with each token's top-k outlined, the load
   per expert, the combined output, and total vs active parameters for the page's sizes and
   for Mixtral-8x7B. Numbers from stages/moe.js (the engine's moe and paramCount). */
import * as F from '../draw/format.js';
import { MAX_DRAWN } from '../model/stages/moe.js';
import { X, legendOf, matrixPanel } from './common.js';

// Expert e's tokens, in order: [[row, rank], ...] per expert.
function routed(M, L) {
  const by = Array.from({ length: M.E }, () => []);
  for (let r = 0; r < L; r++) for (let k = 0; k < M.K; k++) by[M.topIndex[r * M.K + k]].push([r, k]);
  return by;
}

export default {
  view: 'moe',
  needs: ['moe', 'presets'],   // the model's stages it draws from (model/stages/)
  reads: ['tokens', 'd', 'dff', 'act', 'seed', 'init', 'weights', 'layer', 'experts', 'topk'],
  controls: [{ type: 'number', key: 'experts', label: 'ctl_experts' },
    { type: 'number', key: 'topk', label: 'ctl_topk' }],
  build(res, ctx) {
    const t = ctx.t, M = res.moe, L = res.L, d = res.d, E = M.E, K = M.K, f = M.width, tk = res.tokens;
    const rank = new Int8Array(L * E).fill(-1), cells = [];
    for (let r = 0; r < L; r++) {
      for (let k = 0; k < K; k++) {
        rank[r * E + M.topIndex[r * K + k]] = k;
        cells.push([r, M.topIndex[r * K + k]]);
      }
    }
    const pmax = Math.max(...M.probs);
    const describe = (r, e) => {
      const k = rank[r * E + e];
      return t('moeCell', { tok: tk[r], e, p: F.f32(M.probs[r * E + e]), z: F.f32(M.logits[r * E + e]) }) +
        (k >= 0 ? '  \u00b7  ' + t('moeChosen', { rank: k + 1, w: F.f32(M.topWeight[r * K + k]) }) : '');
    };
    const experts = Array.from({ length: E }, (_, e) => String(e));
    const probs = { title: t('moeProbsTitle'), shape: t('moeProbsShape', { E, L }), axis: null, cells,
      note: t('moeProbsNote', { K }), data: { kind: 'router' },
      matrix: { data: M.probs, rows: L, cols: E, kind: 'sequential', max: pmax, rowLabels: tk, colLabels: experts,
        focusRow: -1, maxCell: 34, label: t('moeProbsLabel', { L, E, K }), describe },
      table: { caption: t('moeProbsTitle'), rows: L, cols: E, rowLabels: tk,
        colLabels: experts.map((e) => t('moeExpert', { e })), corner: t('tokenCol'),
        cell: (r, e) => F.short(M.probs[r * E + e]) +
          (rank[r * E + e] >= 0 ? ' (#' + (rank[r * E + e] + 1) + ')' : '') } };
    const by = routed(M, L), load = Array.from(M.load), mean = L * K / E;
    const idle = load.filter((n) => n === 0).length;
    // Every expert tied for the most tokens, named ("1, 4 and 6"), or all of them.
    const busy = M.busiest, last = busy.length - 1;
    const tied = last ? busy.slice(0, last).join(t('listSep')) + t('moeAnd') + busy[last] : String(busy[0]);
    const busiest = t(busy.length === 1 ? 'moeBusyOne' : busy.length === E ? 'moeBusyAll' : 'moeBusyTie',
      { list: tied, n: load[busy[0]] });
    const counts = { type: 'counts', title: t('moeLoadTitle'), items: load.map((n, e) => ({ label: String(e), n })),
      mean, label: t('moeLoadLabel', { list: load.map((n, e) => e + ': ' + n).join(', ') }),
      note: t('moeLoadNote', { n: L * K, L, K, E, mean: F.short(mean), busiest,
        idle: idle ? t(idle === 1 ? 'moeIdleOne' : 'moeIdle', { n: idle }) : t('moeNoIdle') }),
      table: { caption: t('moeLoadTitle'), rows: E, cols: 2, rowLabels: experts.map((e) => t('moeExpert', { e })),
        colLabels: [t('moeColTokens'), t('moeColWhich')], corner: '',
        cell: (e, c) => (c === 0 ? String(load[e])
          : by[e].map(([r, k]) => tk[r] + ' (#' + (k + 1) + ')').join(' ')) } };
    const out = matrixPanel(t('moeOutName'), M.out, L, d, tk, ctx, { maxCell: 24, title: t('moeOutTitle'),
      shape: L + X + d, label: t('moeOutLabel', { L, d }) });
    out.legend = legendOf('diverging', out.spec.max);
    out.cls = 'moe-out';
    const P = M.params, mix = M.mixtral && (res.presets || []).find((p) => p.name === 'mixtral-8x7b');
    const rows = [[t('moeParamsThis'), t('moeParamsLine', { total: F.int(P.total), E, expert: F.int(P.expert),
      router: F.int(P.router), active: F.int(P.active), K, pct: F.pct(P.active / P.total) })]];
    if (mix) {
      rows.push(['Mixtral-8x7B', t('moeParamsMixtral', { E: M.mixtral.E, K: M.mixtral.K, total: F.int(mix.count.total),
        active: F.int(mix.count.active), pct: F.pct(mix.count.active / mix.count.total),
        printed: F.big(mix.count.printedTotal) })]);
    }
    const mats = res.gated ? 3 : 2;
    const names = ['Wr', 'W1', 'b1'].concat(res.gated ? ['W3', 'b3'] : [], ['W2', 'b2']).join(', ');
    const width = f === res.dff ? t('moeWidthFull', { f, E, m: mats, d, n: F.int(M.drawn) })
      : t('moeWidthCapped', { f, dff: res.dff, E, m: mats, full: F.int(E * mats * d * res.dff), cap: F.int(MAX_DRAWN),
        n: F.int(M.drawn) });
    return {
      data: { experts: E, topk: K, width: f, load: load.join(','), top: Array.from(M.topIndex).join(',') },
      blocks: [
        { type: 'flow', items: [
          { name: 'x', shape: L + X + d },
          { op: '\u00b7 W_r', sub: t('moeRouterSub', { shape: d + X + E }) },
          { name: t('moeLogits'), shape: L + X + E },
          { op: t('moeTopOp', { k: K }), sub: t('moeTopSub', { k: K }) },
          { name: t('moeWeights'), shape: L + X + K, accent: true },
          { op: '\u03a3 w \u00b7 FFN_e(x)', sub: t('moeMixSub', { act: t('act_' + res.act) }) },
          { name: 'out', shape: L + X + d }
        ] },
        { type: 'groups', cards: [probs], legend: legendOf('sequential', pmax, t('moeProbsLegend')) },
        counts,
        { type: 'panels', layout: 'one', panels: [out] },
        { type: 'formulas', rows },
        { type: 'note', text: width },
        { type: 'note', text: t('moeSeedNote', { seed: M.seed, names,
          init: t(M.scaled ? 'moeInitScaled' : 'moeInitClassic', { d, f }) }) }
      ]
    };
  }
};
