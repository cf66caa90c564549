/* stages/norms.js - the numbers of the `norms` figure: LayerNorm, BatchNorm and RMSNorm of the
   same x (L, d) by the engine (no gamma / beta: the normalisation alone), then again with row
   `pert` of x set to `pval`, and which rows of each output changed (exact float comparison). */
import { perturbed } from '../draws.js';

const KINDS = ['layer', 'batch', 'rms'];
const NS_PER_VALUE = 15;   // rough: six norm calls and the comparisons, per value of x

function norm(engine, kind, L, d, x) {
  const r = engine[kind + 'Norm']({ L, d, x });
  return { out: r.out, mean: r.mean || null, rstd: r.rstd };
}

// Per row of a (L, d) pair: the largest |a - b| and whether anything differs (exactly).
export function rowChange(a, b, L, d) {
  const max = new Float32Array(L), rows = [];
  for (let i = 0; i < L; i++) {
    let m = 0, changed = false;
    for (let c = 0; c < d; c++) {
      const u = a[i * d + c], v = b[i * d + c];
      if (u !== v && !(u !== u && v !== v)) changed = true;   // NaN == NaN here: "unchanged"
      m = Math.max(m, Math.abs(u - v));
    }
    max[i] = m;
    if (changed) rows.push(i);
  }
  return { max, rows };
}

// The output's own statistics over the same groups (rows, or columns for batch), in float64:
// the largest |mean|, and the smallest and largest std and root mean square.
export function groupStats(a, L, d, byCol) {
  const n = byCol ? d : L, m = byCol ? L : d, at = byCol ? (g, j) => a[j * d + g] : (g, j) => a[g * d + j];
  const r = { mean: 0, sdMin: Infinity, sdMax: 0, rmsMin: Infinity, rmsMax: 0 };
  for (let g = 0; g < n; g++) {
    let s = 0, q = 0;
    for (let j = 0; j < m; j++) { const v = at(g, j); s += v; q += v * v; }
    const mean = s / m, sd = Math.sqrt(Math.max(0, q / m - mean * mean)), rms = Math.sqrt(q / m);
    r.mean = Math.max(r.mean, Math.abs(mean));
    r.sdMin = Math.min(r.sdMin, sd); r.sdMax = Math.max(r.sdMax, sd);
    r.rmsMin = Math.min(r.rmsMin, rms); r.rmsMax = Math.max(r.rmsMax, rms);
  }
  return r;
}

export default {
  name: 'norms',
  deps: ['weights'],
  // Random weights: x is the first draw of the seed's stream (no d_ff, act or init in it); a
  // trained model's x is its residual stream, keyed by the weights stage.
  key: (s, keys) => [s.weights !== 'random' ? keys.weights : ['x', s.seed, s.L, s.d].join('|'), s.pert, s.pval]
    .join('|'),
  steps(engine, s, get) {
    const cost = s.L * s.d * NS_PER_VALUE;
    return [{ cost, run() {
      const x = get('weights').x, L = s.L, d = s.d;
      const x2 = perturbed(x, s);
      const out = { pert: s.pert, pval: s.pval };
      KINDS.forEach((k) => {
        const a = norm(engine, k, L, d, x), b = norm(engine, k, L, d, x2);
        const ch = rowChange(b.out, a.out, L, d), abs = new Float32Array(L * d);
        for (let i = 0; i < abs.length; i++) abs[i] = Math.abs(b.out[i] - a.out[i]);
        out[k] = { out: a.out, mean: a.mean, rstd: a.rstd, pertOut: b.out, pertMean: b.mean, pertRstd: b.rstd,
          abs, rowMax: ch.max, rows: ch.rows, check: groupStats(a.out, L, d, k === 'batch') };
      });
      return out;
    } }];
  }
};
