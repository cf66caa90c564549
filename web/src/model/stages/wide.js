/* stages/wide.js - the whole model at once, for the model-wide views (model view, logit lens,
   head ablation, activation patching): one forward of the text through every layer of the
   trained poem model or of an opened folder, keeping every layer and the logit lens. The
   forward's own result stays here in the Worker (RUNS): the reruns that start from it or patch
   from it need the object itself (forward checks it by identity), and it is too big to post
   (every layer's intermediates, L x vocab logits). Random weights have one block: null. */
import { NS_PER_FLOP } from '../draws.js';

export const LENS_K = 5;      // the lens keeps the top 5 per (residual point, position)

// stage value -> { model, out (the forward's result), ids }
export const RUNS = new WeakMap();

export const appliesTo = (s) => s.weights === 'poems' || s.weights === 'model';

// The engine's Model of spec s (the poem model's or the opened folder's) and the ids of its text:
// an opened folder's tokenizer gave s.ids; the poem model's vocabulary puts <s> first itself.
export function modelOf(engine, s, assets) {
  const m = assets.model(engine, s.weights === 'model' ? 'model' : 'poems');
  return { m: m, ids: s.weights === 'model' ? Int32Array.from(s.ids) : m.encode(s.tokens.slice(1).join('')) };
}

// A rough cost (ns) of one forward of spec s through all its layers.
export const forwardCost = (s) => 2 * s.L * (4 * s.d * s.d + 3 * s.d * s.dff) * (s.layers || 1) * NS_PER_FLOP + 5e5;

// -> null, or { ids, L, layers, heads, vocabSize, attention: [(H, L, L) per layer], lens: [{ ids, probs
//    (L x LENS_K), rank, prob (L: the next token's, 0 / NaN at the last position) } per residual point:
//    the embeddings, then after each block], logits (the last position's, vocab) }
function steps(engine, s, get, assets) {
  if (!appliesTo(s)) return [{ cost: 1, run: () => null }];
  return [{ cost: forwardCost(s), run() {
    const { m, ids } = modelOf(engine, s, assets), L = ids.length, V = m.vocabSize;
    const out = m.forward(ids, { lens: LENS_K });
    const value = { ids: ids, L: L, layers: m.nLayers, heads: m.nHeads, vocabSize: V,
      attention: out.layers.map((lay) => lay.attention.weights),
      lens: out.lens.map((e) => ({ ids: e.ids, probs: e.probs, rank: e.rank, prob: e.prob })),
      logits: out.logits.slice((L - 1) * V, L * V) };
    RUNS.set(value, { model: m, out: out, ids: ids });
    return value;
  } }];
}

export default {
  name: 'wide',
  deps: [],
  key: (s) => (appliesTo(s) ? ['wide', s.weights, s.tokens.join('\u0001')].join('|') : 'wide|none'),
  steps: steps
};
