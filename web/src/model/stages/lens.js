/* stages/lens.js - the logit lens's "actual next token": at each residual point (the embeddings,
   then after each block) and each position, the rank and probability of the token that comes
   next in the text. The wide stage keeps only the top 5 per cell; the rank beyond those needs
   the whole softmax, made here one residual point per step from the wide forward's own cache:
   the last block rerun from that point's residual with its attention and FFN outputs set to
   zero (x + 0 + 0 = x exactly), so its logits are the final norm and unembedding of the point.
   Random weights: null. */
import { NS_PER_FLOP } from '../draws.js';
import { RUNS, appliesTo, forwardCost } from './wide.js';

// Rank (1 = the top) and probability of id t in one row of logits z, as the lens orders them:
// larger logit first, equal logits the lower id first; the softmax in double.
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

// Point p's logits (L, V): forward's own for the last point, else the last block rerun from
// the point's residual (out.layers[p].x) with both sublayers' outputs zeroed.
function pointLogits(m, run, p) {
  const last = m.nLayers - 1, out = run.out;
  if (p === m.nLayers) return out.logits;
  return m.forward(run.ids, { start: { layer: last, from: out }, layers: [],
    set: [{ layer: last, site: 'resid_in', values: out.layers[p].x }, { layer: last, site: 'attn_out', values: null },
      { layer: last, site: 'ffn_out', values: null }] }).logits;
}

// -> null, or { points (nLayers + 1), L, next: Int32Array (L: the id at position i + 1, -1 for
//    the last), rank: Int32Array (points x L, 0 for the last position), prob: Float32Array
//    (points x L, NaN there), vocabSize, vocab: { id: the model's string } for the ids the figure shows
//    (the poem model; an opened model's labels come from its tokenizer on the page) }
function steps(engine, s, get) {
  if (!appliesTo(s)) return [{ cost: 1, run: () => null }];
  // (The spec has no vocabulary size: the cost guesses a GPT-2 / SmolLM2-sized one. Measured on a
  // SmolLM2-135M shape, BF16, 64 tokens, in Node: about 1 s a step, 31 steps.)
  const P = s.layers + 1, L = s.L, V = 50000;
  const cost = forwardCost(s) / s.layers + 2 * L * s.d * V * NS_PER_FLOP;
  let acc = null;
  return Array.from({ length: P }, (_, p) => ({ cost, run() {
    const w = get('wide'), run = RUNS.get(w), m = run.model, Vm = m.vocabSize;
    if (p === 0) {
      acc = { points: P, L, next: new Int32Array(L).fill(-1), rank: new Int32Array(P * L),
        prob: new Float32Array(P * L).fill(NaN), vocab: null, vocabSize: Vm };
      for (let i = 0; i + 1 < L; i++) acc.next[i] = run.ids[i + 1];
    }
    const z = pointLogits(m, run, p);
    for (let i = 0; i + 1 < L; i++) {
      const r = rankOf(z.subarray(i * Vm, (i + 1) * Vm), acc.next[i]);
      acc.rank[p * L + i] = r.rank;
      acc.prob[p * L + i] = r.p;
    }
    if (p < P - 1) return null;
    if (s.weights === 'poems') {
      acc.vocab = {};
      const keep = (id) => { acc.vocab[id] = m.vocab[id]; };
      run.ids.forEach(keep);
      w.lens.forEach((e) => e.ids.forEach(keep));
    }
    return acc;
  } }));
}

export default {
  name: 'lens',
  deps: ['wide'],
  key: (s, keys) => 'lens|' + keys.wide,
  steps: steps
};
