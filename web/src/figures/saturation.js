/* saturation.js - why attention divides by sqrt(d_k): as d_k grows, the variance of q·k and the
   average largest softmax weight over L keys, with and without the scaling (the engine's
   numbers from stages/saturation.js), the page's own d_k marked; the plot behind the
   "Divide scores by sqrt(d_k)" switch. */
import * as F from '../draw/format.js';

const LEGEND = [{ key: 'raw', color: 'focus', marker: 'square' },
  { key: 'scaled', color: 'attention', marker: 'circle' }];
const X_TICKS = [1, 4, 16, 64, 256, 1024];

// A log2 axis from the power of 4 below the values to the power of 2 above, ticks at powers of 4.
function logAxis(values) {
  const lo = Math.floor(Math.log2(Math.min(...values)) / 2) * 2, hi = Math.ceil(Math.log2(Math.max(...values)));
  const ticks = [];
  for (let e = lo; e <= hi; e += 2) ticks.push(Math.pow(2, e));
  return { ticks, min: Math.pow(2, lo), max: Math.pow(2, hi) };
}

export default {
  view: 'saturation',
  needs: ['saturation'],   // the model's stages it draws from (model/stages/)
  reads: ['tokens', 'seed', 'd', 'heads', 'weights', 'scale'],
  build(res, ctx) {
    const t = ctx.t, S = res.saturation, P = S.points, L = S.L, dk = res.dk, at = P.find((p) => p.dk === dk) || P[0];
    const legend = LEGEND.map((l) => Object.assign({ label: t('sat_' + l.key) }, l));
    const vmark = { x: dk, label: t('satYourDk', { dk }) };
    const va = logAxis(P.flatMap((p) => [p.varRaw, p.varScaled]));
    const plots = [
      { key: 'variance', title: t('satVarTitle'), xLog: true, yLog: true, xTicks: X_TICKS, yTicks: va.ticks,
        yMin: va.min, yMax: va.max, xLabel: t('satAxisDk'), yLabel: t('satAxisVar'), vmark,
        series: [{ key: 'raw', points: P.map((p) => [p.dk, p.varRaw]) },
          { key: 'scaled', points: P.map((p) => [p.dk, p.varScaled]) }],
        label: t('satVarLabel', { dk, raw: F.short(at.varRaw), scaled: F.short(at.varScaled) }) },
      { key: 'peak', title: t('satPeakTitle', { L }), xLog: true, yLog: false, xTicks: X_TICKS,
        yTicks: [0, 0.25, 0.5, 0.75, 1], yMin: 0, yMax: 1, xLabel: t('satAxisDk'), yLabel: t('satAxisPeak'), vmark,
        hmarks: L > 1 ? [{ y: 1 / L, label: t('satUniform', { L, u: F.short(1 / L) }) }] : [],
        series: [{ key: 'raw', points: P.map((p) => [p.dk, p.peakRaw]) },
          { key: 'scaled', points: P.map((p) => [p.dk, p.peakScaled]) }],
        label: t('satPeakLabel', { dk, L, raw: F.short(at.peakRaw), scaled: F.short(at.peakScaled) }) }
    ];
    const cols = [t('satColPairs'), t('satColRows'),
      t('sat_raw') + ': ' + t('satColVar'), t('sat_scaled') + ': ' + t('satColVar'),
      t('sat_raw') + ': ' + t('satColPeak'), t('sat_scaled') + ': ' + t('satColPeak')];
    const fields = ['pairs', 'rows', 'varRaw', 'varScaled', 'peakRaw', 'peakScaled'];
    const big = P[P.length - 1];
    return {
      data: { dk: String(dk), L: String(L), scale: String(res.scale),
        varRaw: at.varRaw.toPrecision(6), varScaled: at.varScaled.toPrecision(6),
        peakRaw: at.peakRaw.toPrecision(6), peakScaled: at.peakScaled.toPrecision(6) },
      blocks: [
        { type: 'headline', text: t('satHeadline', { dk, d: res.d, h: res.heads, L, vr: F.short(at.varRaw),
          pr: at.peakRaw.toFixed(2), vs: F.short(at.varScaled), ps: at.peakScaled.toFixed(2) }) },
        { type: 'lines', legend, plots,
          note: t('satSample', { seed: S.seed, L, n: F.int(P[0].pairs), m: F.int(big.pairs), r: F.int(big.rows) }),
          table: { caption: t('satTable', { L }), rows: P.length, cols: fields.length,
            rowLabels: P.map((p) => 'd_k = ' + p.dk), colLabels: cols, corner: 'd_k',
            cell: (r, c) => (c < 2 ? F.int(P[r][fields[c]]) : F.short(P[r][fields[c]])) } },
        { type: 'note', text: t(res.trained ? 'satSwitchTrained' : res.scale ? 'satSwitchOn' : 'satSwitchOff',
          { dk, pr: at.peakRaw.toFixed(2), ps: at.peakScaled.toFixed(2) }) }
      ]
    };
  }
};
