/* stages/masks.js - the attention figure's "both masks" view (setting masks = both): the same
   input through attention with the other mask (causal if the page's is not, none if it is), so
   that BERT's and GPT's weights sit side by side, and the numbers its note quotes. Nothing is
   computed when masks = one. */
import { NS_PER_FLOP, allWeights } from '../draws.js';
import { uniformPeak } from './attention.js';

// Per mask: the first query's weight on itself (mean over heads), the largest |row sum - 1|
// (float64 sums of the float32 weights), the mean over heads and rows of a row's largest
// weight (peak) and that of uniform rows under the mask (uniform). weights (H, L, L).
function stats(weights, H, L, causal) {
  let self0 = 0, dev = 0, peak = 0;
  for (let h = 0; h < H; h++) {
    self0 += weights[h * L * L] / H;
    for (let i = 0; i < L; i++) {
      const row = (h * L + i) * L;
      let sum = 0, m = 0;
      for (let j = 0; j < L; j++) { sum += weights[row + j]; m = Math.max(m, weights[row + j]); }
      dev = Math.max(dev, Math.abs(sum - 1));
      peak += m / (H * L);
    }
  }
  return { self0, dev, peak, uniform: uniformPeak(L, causal) };
}

export default {
  name: 'maskpair',   // not 'masks': the result already has the setting under that name
  deps: ['weights', 'attnw', 'attn'],
  key: (s, keys) => (s.masks === 'both' ? keys.attn + '|both' : 'one'),
  // -> null (masks = one) or { causal (of this second run), weights, scores (H, L, L),
  //    bert, gpt: stats(), lastDiff: largest |difference| of the last query's weights }
  steps(engine, s, get) {
    if (s.masks !== 'both') return [{ cost: 0, run: () => null }];
    return [{ cost: (8 * s.L * s.d * s.d + 4 * s.L * s.L * s.d) * NS_PER_FLOP, run() {
      const w = allWeights(get), main = get('attn'), H = s.heads, L = s.L;
      const o = engine.attention({ L, dModel: s.d, nHeads: H, x: w.xAttn || w.x, Wq: w.Wq, bq: w.bq, Wk: w.Wk, bk: w.bk,
        Wv: w.Wv, bv: w.bv, Wo: w.Wo, bo: w.bo, causal: !s.causal, scale: s.scale });
      const gpt = s.causal ? main.weights : o.weights, bert = s.causal ? o.weights : main.weights;
      let lastDiff = 0;
      for (let h = 0; h < H; h++) {
        const row = (h * L + L - 1) * L;
        for (let j = 0; j < L; j++) lastDiff = Math.max(lastDiff, Math.abs(gpt[row + j] - bert[row + j]));
      }
      return { causal: !s.causal, weights: o.weights, scores: o.scores, bert: stats(bert, H, L, false),
        gpt: stats(gpt, H, L, true), lastDiff };
    } }];
  }
};
