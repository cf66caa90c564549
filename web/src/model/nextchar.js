/* nextchar.js - a trained model's next-character distribution at a temperature: softmax of
   logits / T over the whole vocabulary (float64), its top k, and a draw from it. No DOM. */

// logits (vocab), T > 0 -> probabilities (Float64Array), max-subtracted for stability.
export function probabilities(logits, T) {
  const n = logits.length, p = new Float64Array(n);
  let max = -Infinity, z = 0;
  for (let i = 0; i < n; i++) max = Math.max(max, logits[i]);
  for (let i = 0; i < n; i++) { p[i] = Math.exp((logits[i] - max) / T); z += p[i]; }
  for (let i = 0; i < n; i++) p[i] /= z;
  return p;
}

// The k most likely ids, most likely first (ties: the lower id first). One pass keeping the k
// best in order: a sort of a 150k vocabulary was a long task on the page at every redraw.
export function top(p, k) {
  const best = [], n = Math.min(Math.max(0, Math.floor(k)), p.length);
  if (!n) return best;
  for (let i = 0; i < p.length; i++) {
    const v = p[i];
    // (an id after equals is behind them: ids come in order)
    if (best.length === n && !(v > p[best[n - 1]])) continue;
    let j = best.length === n ? n - 1 : best.length;
    while (j > 0 && v > p[best[j - 1]]) { best[j] = best[j - 1]; j--; }
    best[j] = i;
  }
  return best;
}

// The id at cumulative probability u in [0, 1): a draw when u is uniform.
export function sample(p, u) {
  let c = 0;
  for (let i = 0; i < p.length; i++) { c += p[i]; if (u < c) return i; }
  return p.length - 1;
}
