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

// The peak a uniform row would have, averaged over the L rows: 1/L with no mask; under the
// causal mask row i (0-based) spreads over i + 1 keys, so the mean over rows of 1/(i + 1)
// (0.37 at L = 7, 0.15 at L = 25).
export function uniformPeak(L, causal) {
  if (!causal) return 1 / L;
  let sum = 0;
  for (let i = 1; i <= L; i++) sum += 1 / i;
  return sum / L;
}

// The spread (std) of the raw scores, the peak (the mean over heads and rows of each row's
// largest weight; 1 one-hot) and the peak of uniform rows under the same mask (uniformPeak).
// A: the engine's attention, H heads of L x L.
export function attnStats(A, H, L, causal) {
  let sc = A.scores, n = sc.length, mean = 0, v = 0, peak = 0, i;
  for (i = 0; i < n; i++) mean += sc[i];
  mean /= n;
  for (i = 0; i < n; i++) v += (sc[i] - mean) * (sc[i] - mean);
  for (let r = 0; r < H * L; r++) {
    let m = 0;
    for (let j = 0; j < L; j++) m = Math.max(m, A.weights[r * L + j]);
    peak += m / (H * L);
  }
  return { sd: Math.sqrt(v / n), peak: peak, uniform: uniformPeak(L, !!causal) };
}

// Head-averaged weights (L, L), float64: row i is what query i gives each key.
export function meanWeights(A, H, L) {
  const w = A.weights, mean = new Float64Array(L * L);
  for (let h = 0; h < H; h++) {
    for (let i = 0; i < L; i++) for (let j = 0; j < L; j++) mean[i * L + j] += w[(h * L + i) * L + j] / H;
  }
  return mean;
}

// -> { sd, peak, uniform }; keys.attn holds the sizes, heads and mask it reads.
export const attnStatsStage = {
  name: 'attnstats',
  deps: ['attn'],
  key: (s, keys) => 'attnstats|' + keys.attn,
  steps: (engine, s, get) => [{ cost: 4 * s.heads * s.L * s.L,
    run: () => attnStats(get('attn'), s.heads, s.L, s.causal) }]
};

// -> { mean (L, L) }
export const attnMean = {
  name: 'attnmean',
  deps: ['attn'],
  key: (s, keys) => 'attnmean|' + keys.attn,
  steps: (engine, s, get) => [{ cost: 2 * s.heads * s.L * s.L,
    run: () => ({ mean: meanWeights(get('attn'), s.heads, s.L) }) }]
};
