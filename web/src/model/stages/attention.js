/* stages/attention.js - attention of the page's settings (attn) and what the figures say about
   it, made once per run rather than at each redraw: the attention figure's softmax statistics
   (attnstats) and the rows figure's head-averaged weights of every query (attnmean: a new
   selected token reads another row and computes nothing). */
import { NS_PER_FLOP, allWeights, attnCall, attnFlops } from '../draws.js';

// -> the engine's { out, scores, weights (H, L, L), ... }
export const attn = {
  name: 'attn',
  deps: ['weights', 'attnw'],
  key: (s, keys) => [keys.weights, s.heads, s.causal, s.scale].join('|'),
  steps(engine, s, get) {
    return [{ cost: attnFlops(s) * NS_PER_FLOP, run() {
      const w = allWeights(get);
      return attnCall(engine, s, w, w.xAttn || w.x);
    } }];
  }
};

// The spread (std) of the raw scores and the peak, the mean over heads and rows of each row's
// largest weight (1/L uniform, 1 one-hot). A: the engine's attention, H heads of L x L.
export function attnStats(A, H, L) {
  let sc = A.scores, n = sc.length, mean = 0, v = 0, peak = 0, i;
  for (i = 0; i < n; i++) mean += sc[i];
  mean /= n;
  for (i = 0; i < n; i++) v += (sc[i] - mean) * (sc[i] - mean);
  for (let r = 0; r < H * L; r++) {
    let m = 0;
    for (let j = 0; j < L; j++) m = Math.max(m, A.weights[r * L + j]);
    peak += m / (H * L);
  }
  return { sd: Math.sqrt(v / n), peak: peak };
}

// Head-averaged weights (L, L), float64: row i is what query i gives each key.
export function meanWeights(A, H, L) {
  const w = A.weights, mean = new Float64Array(L * L);
  for (let h = 0; h < H; h++) {
    for (let i = 0; i < L; i++) for (let j = 0; j < L; j++) mean[i * L + j] += w[(h * L + i) * L + j] / H;
  }
  return mean;
}

// -> { sd, peak }
export const attnStatsStage = {
  name: 'attnstats',
  deps: ['attn'],
  key: (s, keys) => 'attnstats|' + keys.attn,
  steps: (engine, s, get) => [{ cost: 4 * s.heads * s.L * s.L, run: () => attnStats(get('attn'), s.heads, s.L) }]
};

// -> { mean (L, L) }
export const attnMean = {
  name: 'attnmean',
  deps: ['attn'],
  key: (s, keys) => 'attnmean|' + keys.attn,
  steps: (engine, s, get) => [{ cost: 2 * s.heads * s.L * s.L,
    run: () => ({ mean: meanWeights(get('attn'), s.heads, s.L) }) }]
};
