/* stages/moe.js - the numbers of the `moe` figure: a Mixtral-style mixture of experts (the
   engine's bl.moe) on the input the page's FFN reads, with its own random weights, and the
   parameter counts of such a layer at the page's sizes.
   Weights: np.random.seed(seed + 1) (mod 2^32), then Wr = randn(d, E), W1 = randn(E, d, f),
   b1 = randn(E, f), [gated: W3 = randn(E, d, f), b3 = randn(E, f)], W2 = randn(E, f, d),
   b2 = randn(E, d), float32. init 'classic' keeps the unit draws; otherwise (scaled, trained)
   Wr, W1, W3 are divided by sqrt(d) and W2 by sqrt(f), as the page's FFN.
   Width: f = d_ff when the experts' matrices hold at most MAX_DRAWN values, else the widest
   that fits (at BERT widths 8 experts at d_ff would be 38M draws, about 1 s, which the moe
   figure would wait for; 2^21 draws take about 50 ms). The parameter counts are for
   the full d_ff. */

import { NS_PER_FLOP, drawSteps } from '../draws.js';

export const MAX_DRAWN = 1 << 21;

// The width each expert is computed at: d_ff, or the largest that keeps E x m x d x f within
// MAX_DRAWN (m = 3 matrices when gated, else 2).
export function expertWidth(E, d, dff, gated) {
  const per = E * (gated ? 3 : 2) * d;
  return per * dff <= MAX_DRAWN ? dff : Math.max(1, Math.floor(MAX_DRAWN / per));
}

// Every expert tied for the largest load, in index order (load: tokens per expert).
export function busiest(load) {
  const most = Math.max(...load), out = [];
  for (let e = 0; e < load.length; e++) if (load[e] === most) out.push(e);
  return out;
}

// The router's and experts' weights: a stage of their own (cached by the model under what they
// read), so a change of top-k or the activation alone reuses them.
export const moeWeights = {
  name: 'moew',
  deps: [],
  key: (s) => ['moew', s.seed, s.d, s.dff, s.gated, s.init, s.experts].join('|'),
  steps(engine, s) {
    const E = s.experts, d = s.d, f = expertWidth(E, d, s.dff, s.gated), seed = (s.seed + 1) % 4294967296;
    const scaled = s.init !== 'classic', steps = [], w = {};
    let r = null;
    const draw = (name, n, scale) => drawSteps(steps, () => r, w, name, n, scale);
    steps.push({ cost: 1e4, run() { r = engine.numpyRandom(seed); } });
    const inD = scaled ? 1 / Math.sqrt(d) : undefined, inF = scaled ? 1 / Math.sqrt(f) : undefined;
    draw('Wr', d * E, inD); draw('W1', E * d * f, inD); draw('b1', E * f);
    if (s.gated) { draw('W3', E * d * f, inD); draw('b3', E * f); }
    draw('W2', E * f * d, inF); draw('b2', E * d);
    steps.push({ cost: 0, run: () => ({ w, width: f, seed, scaled }) });
    return steps;
  }
};

export default {
  name: 'moe',
  deps: ['weights', 'moew'],
  key: (s, keys) => [s.weights === 'poems' ? keys.weights : ['x', s.seed, s.L, s.d].join('|'),
    keys.moew, s.act, s.topk].join('|'),
  steps(engine, s, get) {
    const E = s.experts, K = s.topk, d = s.d, f = expertWidth(E, d, s.dff, s.gated), steps = [];
    const flops = 2 * s.L * d * E + 2 * s.L * K * d * f * (s.gated ? 3 : 2);
    steps.push({ cost: flops * NS_PER_FLOP + 1e5, run() {
      const x = get('weights').xFfn || get('weights').x, { w, seed, scaled } = get('moew');
      const a = { L: s.L, dModel: d, dFF: f, nExperts: E, topK: K, x, Wr: w.Wr, W1: w.W1, b1: w.b1, W2: w.W2, b2: w.b2,
        activation: s.act };
      if (s.gated) { a.W3 = w.W3; a.b3 = w.b3; }
      const m = engine.moe(a);
      // Parameters of one such layer at the full d_ff: all experts and the router, and what one
      // token uses (top-k experts and the router); a dense FFN of the same width beside it. (The
      // split into heads changes no count.)
      const cfg = { vocab: 1, dModel: d, nLayers: 1, nHeads: 1, dFF: s.dff, gated: s.gated ? 1 : 0,
        attnBias: 1, ffnBias: 1 };
      const c = engine.paramCount(Object.assign({ nExperts: E, topK: K }, cfg));
      const dense = engine.paramCount(cfg).ffnPerLayer;
      const mix = engine.presets.includes('mixtral-8x7b') ? engine.presetConfig('mixtral-8x7b').config : null;
      return { logits: m.logits, probs: m.probs, topIndex: m.topIndex, topWeight: m.topWeight, load: m.load, out: m.out,
        busiest: busiest(m.load),
        E, K, width: f, seed, scaled, drawn: E * (s.gated ? 3 : 2) * d * f,
        params: { total: c.ffnPerLayer, active: c.ffnPerLayer - (c.total - c.active), expert: dense, router: d * E },
        mixtral: mix && { E: mix.nExperts, K: mix.topK } };
    } });
    return steps;
  }
};
