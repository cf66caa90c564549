/* draws.js - numpy-compatible random weights as short steps, the rough costs (ns) the stages
   use to size slices and show progress, and the engine calls several stages make. Shared by
   the stages of stages/. No DOM. */

// Values per drawing step (about 15 ms at BERT-base on a laptop) and rough costs in ns.
export const CHUNK = 1 << 18, NS_PER_DRAW = 55, NS_PER_FLOP = 0.12;

// Flops of one attention call: the four projections and the two L x L products.
export const attnFlops = (s) => 8 * s.L * s.d * s.d + 4 * s.L * s.L * s.d;

// Every weight of the block: the weights stage's (x and the FFN's; a trained model's all) with the
// attention's of the attnw stage, for the stages that call attention (get: the model's).
export const allWeights = (get) => Object.assign({}, get('weights'), get('attnw'));

// Large weight matrices kept in the engine's heap (engine.holdWeights) while they are among the
// HOLD_MAX last used: the FFN, position-wise and block stages call with the same W1 and W2 (19 MB
// at BERT widths), which each call copied in before. Keyed by the array itself: a stage's arrays
// are never written once it is done. Small ones (the classic size) are copied as before.
const HOLD_MIN = 1 << 16, HOLD_MAX = 8, holds = new WeakMap();
export function held(engine, a) {
  if (!a || a.length < HOLD_MIN || typeof engine.holdWeights !== 'function') return a;
  let kept = holds.get(engine);
  if (!kept) holds.set(engine, kept = new Map());
  let h = kept.get(a);
  if (h) kept.delete(a);   // (set again below: the Map's order is the order of use)
  else {
    h = engine.holdWeights(a);
    if (kept.size >= HOLD_MAX) {
      const [oldest, oh] = kept.entries().next().value;
      kept.delete(oldest);
      oh.free();
    }
  }
  kept.set(a, h);
  return h;
}

// The FFN and the attention of the page's settings st on weights w and input x (L, d).
export function ffnCall(engine, st, w, x) {
  const a = { L: st.L, dModel: st.d, dFF: st.dff, x: x, W1: held(engine, w.W1), b1: w.b1,
    W2: held(engine, w.W2), b2: w.b2, activation: st.act };
  if (st.gated) { a.W3 = held(engine, w.W3); a.b3 = w.b3; }
  return engine.ffn(a);
}

export function attnCall(engine, st, w, x) {
  return engine.attention({ L: st.L, dModel: st.d, nHeads: st.heads, x: x,
    Wq: held(engine, w.Wq), bq: w.bq, Wk: held(engine, w.Wk), bk: w.bk, Wv: held(engine, w.Wv), bv: w.bv,
    Wo: held(engine, w.Wo), bo: w.bo, causal: st.causal, scale: st.scale });
}

// x with row s.pert set to s.pval (the position-wise experiment).
export function perturbed(x, s) {
  const x2 = new Float32Array(x);
  x2.fill(s.pval, s.pert * s.d, (s.pert + 1) * s.d);
  return x2;
}

// Steps that fill w[name] (Float32Array n) from the stream rng() returns when they run; scale
// (optional) multiplies each float32 value; name null draws and discards. Drawn in chunks: the
// stream (and numpy's cached second normal) carries over between calls, so the values are
// bit-identical to one call per array.
export function drawSteps(steps, rng, w, name, n, scale) {
  for (let off = 0; off < n; off += CHUNK) {
    const m = Math.min(CHUNK, n - off), at = off;
    steps.push({ cost: m * NS_PER_DRAW, run() {
      const v = rng().randnF32(m);
      if (!name) return;
      if (at === 0) w[name] = new Float32Array(n);
      if (scale !== undefined) for (let i = 0; i < m; i++) v[i] *= scale;   // float32 a * s
      w[name].set(v, at);
    } });
  }
}
