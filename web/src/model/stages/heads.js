/* stages/heads.js - what each head of a trained model's block does on the text on the page
   (headroles): the mean weight its queries put on a kind of key, against what a uniform causal
   row would put there, and the kind that stands out most. The poem model: the previous token, the
   token one line up (5- or 7-character lines with their marks), punctuation and <s>. An opened
   model (any text): the previous token, the first (the "attention sink"), the token itself, the
   token after an earlier occurrence of the current one (induction), and each head's entropy.
   Random weights have no jobs to name: null. */

export const MARKS = '，。？！；';
export const PATTERNS = ['prev', 'up', 'column', 'punct', 'bos'];
export const ANY_PATTERNS = ['prev', 'sink', 'self', 'induction'];
export const DIFFUSE = 2;   // a pattern stands out from 2 times a uniform row's weight on it
export const FOCUSED = 0.5;  // no job but rows under half an even row's entropy: focused on other keys

// The line length n of a poem (tokens: <s> then one per character): every line closed by a
// mark has n = 5 or 7 characters and the open last line at most n; 0 for any other text.
export function lineLength(tokens) {
  const lens = [];
  let run = 0;
  for (let i = 1; i < tokens.length; i++) {
    if (MARKS.includes(tokens[i])) { lens.push(run); run = 0; } else run++;
  }
  const n = lens[0];
  return (n === 5 || n === 7) && lens.every((x) => x === n) && run <= n ? n : 0;
}

// Accumulators per pattern -> { w (mean weight), u (a uniform causal row's mean), q (queries),
// lift (w / u) }, patterns no query saw left out; and the one with the largest lift.
function summarise(acc, names) {
  const out = {};
  for (const p of names) {
    const a = acc[p];
    if (a.q) out[p] = { w: a.w / a.q, u: a.u / a.q, q: a.q, lift: a.w / a.u };
  }
  const top = Object.keys(out).reduce((b, p) => (!b || out[p].lift > out[b].lift ? p : b), '');
  return { patterns: out, top, sharp: !!top && out[top].lift >= DIFFUSE };
}
const accumulators = (names) => Object.fromEntries(names.map((p) => [p, { w: 0, u: 0, q: 0 }]));

// Per head, per pattern: { w, u, q, lift } as above. The queries are q >= 2 (q = 1 has no key but
// <s> and itself); the line patterns take those from the second line on (q >= n + 2). Query q
// predicts token q + 1, so "up" is key q - n, above the character about to be written, and
// "column" key q - n - 1, above the query itself (the mark takes a slot).
// A: the engine's attention (weights (H, L, L)); tokens: L labels, <s> first.
export function headRoles(A, tokens, H, L) {
  const n = lineLength(tokens), w = A.weights, heads = [];
  const mark = tokens.map((tk) => MARKS.includes(tk));
  for (let h = 0; h < H; h++) {
    const acc = accumulators(PATTERNS);
    const add = (p, weight, share) => { acc[p].w += weight; acc[p].u += share; acc[p].q++; };
    for (let q = 2; q < L; q++) {
      const row = (h * L + q) * L, u = 1 / (q + 1);
      add('prev', w[row + q - 1], u);
      add('bos', w[row], u);
      let marks = 0, on = 0;
      for (let k = 1; k <= q; k++) if (mark[k]) { marks++; on += w[row + k]; }
      if (marks) add('punct', on, marks * u);
      if (n && q >= n + 2) { add('up', w[row + q - n], u); add('column', w[row + q - n - 1], u); }
    }
    heads.push(summarise(acc, PATTERNS));
  }
  return { kind: 'poem', n, heads };
}

// The jobs any causal model's heads may have on any text: a pure function of weights (H, L, L)
// (softmax rows, causal), the L token ids and H, so a view can run it on every layer.
// Queries q >= 2, where the four kinds of key are apart: "sink" key 0, "prev" key q - 1, "self"
// key q, "induction" the keys k in 1 .. q - 2 whose previous token is the query's
// (ids[k - 1] === ids[q]: what came after it last time), counted only at queries that have one.
// entropy: the head's mean over those rows of -sum w log2 w, in bits; uniformEntropy: a uniform
// causal row's (the mean of log2(q + 1)). repeats: the queries with an induction key. focused:
// no job, yet an entropy under FOCUSED times an even row's.
// -> null for L < 3, else { kind: 'any', heads: [{ patterns, top, sharp, entropy, focused }], uniformEntropy,
//    repeats }
export function headJobs(weights, ids, H, L) {
  if (L < 3) return null;
  const heads = [];
  let repeats = 0, uniformEntropy = 0;
  const earlier = [];   // per query, the induction keys
  for (let q = 2; q < L; q++) {
    const ks = [];
    for (let k = 1; k <= q - 2; k++) if (ids[k - 1] === ids[q]) ks.push(k);
    earlier.push(ks);
    if (ks.length) repeats++;
    uniformEntropy += Math.log2(q + 1);
  }
  for (let h = 0; h < H; h++) {
    const acc = accumulators(ANY_PATTERNS);
    const add = (p, weight, share) => { acc[p].w += weight; acc[p].u += share; acc[p].q++; };
    let ent = 0;
    for (let q = 2; q < L; q++) {
      const row = (h * L + q) * L, u = 1 / (q + 1), ks = earlier[q - 2];
      add('prev', weights[row + q - 1], u);
      add('sink', weights[row], u);
      add('self', weights[row + q], u);
      if (ks.length) add('induction', ks.reduce((t, k) => t + weights[row + k], 0), ks.length * u);
      for (let k = 0; k <= q; k++) { const v = weights[row + k]; if (v > 0) ent -= v * Math.log2(v); }
    }
    heads.push(Object.assign(summarise(acc, ANY_PATTERNS), { entropy: ent / (L - 2) }));
  }
  // A head with no job whose rows are sharp all the same reads other keys (by content, not place):
  // "focused", not spread out.
  const u = uniformEntropy / (L - 2);
  for (const r of heads) r.focused = !r.sharp && r.entropy < FOCUSED * u;
  return { kind: 'any', heads, uniformEntropy: u, repeats };
}

// -> null (random weights, or fewer than 3 tokens), the poem model's { kind: 'poem', n, heads }
// or an opened model's headJobs (model.js gives an opened model's stages its layer's attention).
export default {
  name: 'headroles',
  deps: ['attn'],
  key: (s, keys) => (s.weights === 'poems' || s.weights === 'model') && s.L > 2 ? 'headroles|' + keys.attn
    : 'headroles|none',
  steps: (engine, s, get) => [{ cost: 6 * s.heads * s.L * s.L, run() {
    if (s.L <= 2) return null;
    if (s.weights === 'poems') return headRoles(get('attn'), s.tokens, s.heads, s.L);
    return s.weights === 'model' ? headJobs(get('attn').weights, s.ids, s.heads, s.L) : null;
  } }]
};
