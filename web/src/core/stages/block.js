/* stages/block.js - the numbers of the `block` figure: one whole block by the engine
   (bl.encoderLayer) on the weights stage's x and weights, post-LN or pre-LN (setting `ln`),
   LayerNorm gamma 1 and beta 0, then per token the size of the stream and of what each
   sublayer adds to it. */
import { NS_PER_FLOP, allWeights } from '../draws.js';

// Per row of a (L, d) matrix: the L2 norm, the mean and the (biased) standard deviation, in
// float64 from the engine's float32 values.
export function rowStats(a, L, d) {
  const norm = new Float64Array(L), mean = new Float64Array(L), std = new Float64Array(L);
  for (let i = 0; i < L; i++) {
    let s = 0, ss = 0;
    for (let c = 0; c < d; c++) { const v = a[i * d + c]; s += v; ss += v * v; }
    const m = s / d;
    let dev = 0;
    for (let c = 0; c < d; c++) { const v = a[i * d + c] - m; dev += v * v; }
    norm[i] = Math.sqrt(ss); mean[i] = m; std[i] = Math.sqrt(dev / d);
  }
  return { norm, mean, std };
}

export default {
  name: 'block',
  deps: ['weights', 'attnw'],
  key: (s, keys) => ['block', keys.ffn, s.heads, s.causal, s.scale, s.ln].join('|'),
  steps(engine, s, get) {
    const flops = 8 * s.L * s.d * s.d + 4 * s.L * s.L * s.d + 2 * s.L * s.d * s.dff * (s.gated ? 3 : 2);
    return [{ cost: flops * NS_PER_FLOP + 20 * s.L * s.d, run() {
      const w = allWeights(get), L = s.L, d = s.d, pre = s.ln === 'pre';
      const a = { L, dModel: d, nHeads: s.heads, dFF: s.dff, x: w.x, norm: pre ? 'pre' : 'post',
        causal: s.causal, scale: s.scale, activation: s.act,
        Wq: w.Wq, bq: w.bq, Wk: w.Wk, bk: w.bk, Wv: w.Wv, bv: w.bv, Wo: w.Wo, bo: w.bo,
        W1: w.W1, b1: w.b1, W2: w.W2, b2: w.b2 };
      if (s.gated) { a.W3 = w.W3; a.b3 = w.b3; }
      // Weights that bring their own LayerNorm parameters (a trained model) pass them on.
      ['ln1Gamma', 'ln1Beta', 'ln2Gamma', 'ln2Beta'].forEach((k) => { if (w[k]) a[k] = w[k]; });
      const r = engine.encoderLayer(a);
      // What each sublayer reads, and what it adds to the stream it is summed into.
      const attnIn = pre ? r.norm1 : w.x, ffnIn = pre ? r.norm2 : r.norm1;
      const st = (m) => rowStats(m, L, d);
      return { ln: pre ? 'pre' : 'post', attnIn, attn: r.attn.out, resid1: r.resid1, norm1: r.norm1,
        ffnIn, ffn: r.ffn.out, resid2: r.resid2, norm2: r.norm2, out: r.out,
        stats: { x: st(w.x), attn: st(r.attn.out), resid1: st(r.resid1), ffnIn: st(ffnIn), ffn: st(r.ffn.out),
          resid2: st(r.resid2), out: st(r.out) } };
    } }];
  }
};
