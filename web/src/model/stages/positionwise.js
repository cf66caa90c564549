/* stages/positionwise.js - the position-wise experiment: row `pert` of x set to `pval`,
   everything else unchanged, through the FFN (pertf) and attention (perta) apart, so that a
   change of either alone redoes only its half. (With trained weights the FFN and attention read
   their own normed inputs: the row is set in each.) */
import { NS_PER_FLOP, allWeights, attnCall, attnFlops, ffnCall, perturbed } from '../draws.js';

// |a - b| (L, d) and the rows where anything changed (exact float comparison, on purpose).
export function diff(a, b, L, d) {
  const out = new Float32Array(a.length), rows = [];
  for (let i = 0; i < L; i++) {
    let changed = false;
    for (let c = 0; c < d; c++) {
      const v = Math.abs(a[i * d + c] - b[i * d + c]);
      out[i * d + c] = v;
      if (v !== 0 || a[i * d + c] !== b[i * d + c]) changed = true;
    }
    if (changed) rows.push(i);
  }
  return { abs: out, rows: rows };
}

// -> { abs (L, d), rows }
export const pertFfn = {
  name: 'pertf',
  deps: ['weights', 'ffn'],
  key: (s, keys) => [keys.ffn, s.pert, s.pval].join('|'),
  steps(engine, s, get) {
    return [{ cost: 2 * s.L * s.d * s.dff * (s.gated ? 3 : 2) * NS_PER_FLOP, run() {
      const w = get('weights');
      return diff(ffnCall(engine, s, w, perturbed(w.xFfn || w.x, s)).out, get('ffn').out, s.L, s.d);
    } }];
  }
};

export const pertAttn = {
  name: 'perta',
  deps: ['weights', 'attnw', 'attn'],
  key: (s, keys) => [keys.attn, s.pert, s.pval].join('|'),
  steps(engine, s, get) {
    return [{ cost: attnFlops(s) * NS_PER_FLOP, run() {
      const w = allWeights(get);
      return diff(attnCall(engine, s, w, perturbed(w.xAttn || w.x, s)).out, get('attn').out, s.L, s.d);
    } }];
  }
};
