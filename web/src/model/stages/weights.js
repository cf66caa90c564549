/* stages/weights.js - the weights every figure reads: random ones as the numpy example draws them
   (weights: x and the FFN's; attnw: the attention's, the same stream going on), or a trained
   model's block `layer` with the inputs it really sees (one forward of the whole model). */
import { NS_PER_FLOP, drawSteps } from '../draws.js';

// Every weight from one numpyRandom(seed) stream, in a fixed order:
// x (L,d), W1 (d,dff), b1 (dff), W2 (dff,d), b2 (d)  <- exactly the numpy example
// [gated: W3 (d,dff), b3 (dff)] (the weights stage) then Wq, bq, Wk, bk, Wv, bv, Wo, bo (d,d) /
// (d) (the attnw stage, the same stream going on: the FFN figures need not wait for them).
// The attention draws are divided by sqrt(d) (like nn.Linear's init), so q·k has the
// variance d_k that the 1/sqrt(d_k) scaling is meant for; their biases are drawn and zeroed.
// init 'scaled' divides the FFN matrices by sqrt(fan_in) too (W1, W3 by sqrt(d), W2 by
// sqrt(d_ff)): at wide sizes unit-variance weights push the hidden values to +-100 and more.
function randomSteps(engine, s) {
  let L = s.L, d = s.d, dff = s.dff, r = null, w = {}, steps = [];
  const draw = (name, n, scale) => drawSteps(steps, () => r, w, name, n, scale);
  steps.push({ cost: 1e4, run: function () { r = engine.numpyRandom(s.seed); } });
  const sc = s.init === 'scaled', inD = sc ? 1 / Math.sqrt(d) : undefined, inF = sc ? 1 / Math.sqrt(dff) : undefined;
  draw('x', L * d); draw('W1', d * dff, inD); draw('b1', dff); draw('W2', dff * d, inF); draw('b2', d);
  if (s.gated) { draw('W3', d * dff, inD); draw('b3', dff); }
  // The stream where the FFN's draws end, for attnw (not enumerable: it stays in this model,
  // never sent to the page).
  steps.push({ cost: 0, run: function () { return Object.defineProperty(w, 'stream', { value: r }); } });
  return steps;
}

// A trained model's block `layer`: its weights, and the inputs it really sees for the tokens:
// x, the residual stream entering the block; xAttn = LN1(x); xFfn = LN2(x + attention). One
// forward of the whole model gives them and the next-character logits.
function trainedSteps(engine, s, get, assets) {
  return [{ cost: 2 * s.L * 330000 * NS_PER_FLOP + 5e5, run: function () {
    const m = assets.model(engine, s.weights), ids = m.encode(s.tokens.slice(1).join(''));
    const i = s.layer - 1, out = m.forward(ids), lw = m.layerWeights(i), lay = out.layers[i];
    const V = m.config.vocab_size, last = out.logits.slice((ids.length - 1) * V, ids.length * V);
    let unknown = 0;
    for (let k = 1; k < ids.length; k++) if (ids[k] === m.unkId) unknown++;
    return Object.assign({}, lw, { x: lay.input, xAttn: lay.norm1, xFfn: lay.norm2, ids: ids, unknown: unknown,
      next: { logits: last, vocab: m.vocab }, layers: m.config.n_layer });
  } }];
}

export const weights = {
  name: 'weights',
  deps: [],
  key: (s) => (s.weights === 'poems' ? ['poems', s.layer, s.tokens.join('\u0001')].join('|')
    : [s.seed, s.L, s.d, s.dff, s.gated, s.init].join('|')),
  steps: (engine, s, get, assets) => (s.weights === 'poems' ? trainedSteps(engine, s, get, assets)
    : randomSteps(engine, s))
};

// The attention weights: a copy of the weights stage's stream goes on (so this stage can be
// drawn again at will); a trained model's come with its weights stage.
export const attnWeights = {
  name: 'attnw',
  deps: ['weights'],
  key: (s, keys) => keys.weights,
  steps(engine, s, get) {
    if (s.weights === 'poems') return [{ cost: 0, run: () => ({}) }];
    let d = s.d, r = null, w = {}, steps = [];
    // (name null: a bias drawn and discarded)
    const draw = (name, n, scale) => drawSteps(steps, () => r, w, name, n, scale);
    steps.push({ cost: 1e4, run: function () { r = get('weights').stream.copy(); } });
    ['q', 'k', 'v', 'o'].forEach(function (n) { draw('W' + n, d * d, 1 / Math.sqrt(d)); draw(null, d); });
    steps.push({ cost: 0, run: function () {
      ['q', 'k', 'v', 'o'].forEach(function (n) { w['b' + n] = new Float32Array(d); });
      return w;
    } });
    return steps;
  }
};
