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

// The k most likely ids, most likely first (ties: the lower id first).
export function top(p, k) {
  const ids = Array.from(p.keys());
  ids.sort((a, b) => p[b] - p[a] || a - b);
  return ids.slice(0, k);
}

// The id at cumulative probability u in [0, 1): a draw when u is uniform.
export function sample(p, u) {
  let c = 0;
  for (let i = 0; i < p.length; i++) { c += p[i]; if (u < c) return i; }
  return p.length - 1;
}
