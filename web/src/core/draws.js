/* draws.js - numpy-compatible random weights as short steps, and the rough costs (ns) the
   stages use to size slices and show progress. Shared by model.js and the stages of core/stages/
   (which model.js imports, so these cannot live there). No DOM. */

// Values per drawing step (about 15 ms at BERT-base on a laptop) and rough costs in ns.
export const CHUNK = 1 << 18, NS_PER_DRAW = 55, NS_PER_FLOP = 0.12;

// Every weight of the block: the weights stage's (x and the FFN's; a trained model's all) with the
// attention's of the attnw stage, for the stages that call attention (get: the model's).
export const allWeights = (get) => Object.assign({}, get('weights'), get('attnw'));

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
