/* stages/block.js - the numbers of the `block` figure: one whole block, post-LN or pre-LN
   (setting `ln`), LayerNorm gamma 1 and beta 0 (a trained model's own), then per token the size
   of the stream and of what each sublayer adds to it. Two stages, so that a change of the
   activation redoes only the FFN half: blocka, the attention sublayer and its residual, and
   block, the FFN sublayer on what blocka left. Each runs the engine's own attention, layerNorm
   and ffn, the calls bl.encoderLayer makes, with the residual sums in float32 as it does them:
   the same bits as one encoderLayer call (tests/node/stages.test.js: random weights, post- and
   pre-LN; a trained model's gamma and beta go to the same C norm). Post-LN attention reads x
   itself, so it is the attn stage's (a trained model's blocks are pre-LN). */
import { NS_PER_FLOP, allWeights, attnCall, ffnCall } from '../draws.js';

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

// a + b in float32, as the C block sums a sublayer's output into the stream.
function add(a, b) {
  const out = new Float32Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i] + b[i];
  return out;
}

// LayerNorm of x (L, d) with its gamma and beta when the weights bring them (1 and 0 otherwise).
function layerNorm(engine, s, x, gamma, beta) {
  const a = { L: s.L, d: s.d, x };
  if (gamma) a.gamma = gamma;
  if (beta) a.beta = beta;
  return engine.layerNorm(a).out;
}

const attnCost = (s) => (8 * s.L * s.d * s.d + 4 * s.L * s.L * s.d) * NS_PER_FLOP;

// -> { ln, attnIn, attn, resid1, norm1 }: post-LN norm1 = LN1(x + attn(x)); pre-LN norm1 = LN1(x),
// the attention's input.
export const blockAttention = {
  name: 'blocka',
  deps: ['weights', 'attnw', 'attn'],
  key: (s, keys) => ['blocka', keys.attn, s.ln].join('|'),
  steps(engine, s, get) {
    const pre = s.ln === 'pre', reuse = !pre && s.weights !== 'poems';
    return [{ cost: (reuse ? 0 : attnCost(s)) + 20 * s.L * s.d, run() {
      const w = allWeights(get), x = w.x;
      if (pre) {
        const norm1 = layerNorm(engine, s, x, w.ln1Gamma, w.ln1Beta), attn = attnCall(engine, s, w, norm1).out;
        return { ln: 'pre', attnIn: norm1, attn, resid1: add(x, attn), norm1 };
      }
      const attn = (reuse ? get('attn') : attnCall(engine, s, w, x)).out, resid1 = add(x, attn);
      return { ln: 'post', attnIn: x, attn, resid1, norm1: layerNorm(engine, s, resid1, w.ln1Gamma, w.ln1Beta) };
    } }];
  }
};

export default {
  name: 'block',
  deps: ['weights', 'blocka'],
  key: (s, keys) => ['block', keys.blocka, keys.ffn].join('|'),
  steps(engine, s, get) {
    return [{ cost: 2 * s.L * s.d * s.dff * (s.gated ? 3 : 2) * NS_PER_FLOP + 20 * s.L * s.d, run() {
      const w = get('weights'), A = get('blocka'), L = s.L, d = s.d, pre = A.ln === 'pre';
      // The FFN reads LN2(x + attn) (pre-LN) or norm1 (post-LN), and is summed into what it read
      // (post-LN) or into the stream (pre-LN).
      const ffnIn = pre ? layerNorm(engine, s, A.resid1, w.ln2Gamma, w.ln2Beta) : A.norm1;
      const ffn = ffnCall(engine, s, w, ffnIn).out, resid2 = add(pre ? A.resid1 : A.norm1, ffn);
      const norm2 = pre ? ffnIn : layerNorm(engine, s, resid2, w.ln2Gamma, w.ln2Beta), out = pre ? resid2 : norm2;
      const st = (m) => rowStats(m, L, d);
      return Object.assign({}, A, { ffnIn, ffn, resid2, norm2, out,
        stats: { x: st(w.x), attn: st(A.attn), resid1: st(A.resid1), ffnIn: st(ffnIn), ffn: st(ffn),
          resid2: st(resid2), out: st(out) } });
    } }];
  }
};
