/* stages/lens.js - the logit lens's "actual next token": at each residual point (the embeddings,
   then after each block) and each position, the rank and probability of the token that comes
   next in the text. The wide stage's forward (lens: 5) has them already: the engine's lens ranks
   the next token in the same logits it takes the top 5 from (result.lens[p].rank / prob), so
   this stage only lays them out and runs no forward. Random weights: null. */
import { RUNS, appliesTo } from './wide.js';

// Rank (1 = the top) and probability of id t in one row of logits z, as the lens orders them:
// larger logit first, equal logits the lower id first; the softmax in double. (The engine's lens
// computes this in C; this is the tests' independent form.)
export function rankOf(z, t) {
  const zt = z[t];
  let max = -Infinity, rank = 1;
  for (let j = 0; j < z.length; j++) {
    const v = z[j];
    if (v > max) max = v;
    if (v > zt || (v === zt && j < t)) rank++;
  }
  let sum = 0;
  for (let j = 0; j < z.length; j++) sum += Math.exp(z[j] - max);
  return { rank, p: Math.exp(zt - max) / sum };
}

// -> null, or { points (nLayers + 1), L, next: Int32Array (L: the id at position i + 1, -1 for
//    the last), rank: Int32Array (points x L, 0 for the last position), prob: Float32Array
//    (points x L, NaN there), vocabSize, vocab: { id: the model's string } for the ids the figure shows
//    (the poem model; an opened model's labels come from its tokenizer on the page) }
function steps(engine, s, get) {
  if (!appliesTo(s)) return [{ cost: 1, run: () => null }];
  return [{ cost: 1e3 * (s.layers + 1) * s.L + 1, run() {
    const w = get('wide');
    if (!w) return null;
    const P = w.lens.length, L = w.L, acc = { points: P, L, next: new Int32Array(L).fill(-1),
      rank: new Int32Array(P * L), prob: new Float32Array(P * L), vocab: null, vocabSize: w.vocabSize };
    for (let i = 0; i + 1 < L; i++) acc.next[i] = w.ids[i + 1];
    w.lens.forEach((e, p) => {
      acc.rank.set(e.rank, p * L);
      acc.prob.set(e.prob, p * L);
    });
    if (s.weights === 'poems') {
      const vocab = RUNS.get(w).model.vocab;
      acc.vocab = {};
      const keep = (id) => { acc.vocab[id] = vocab[id]; };
      w.ids.forEach(keep);
      w.lens.forEach((e) => e.ids.forEach(keep));
    }
    return acc;
  } }];
}

export default {
  name: 'lens',
  deps: ['wide'],
  key: (s, keys) => 'lens|' + keys.wide,
  steps: steps
};
