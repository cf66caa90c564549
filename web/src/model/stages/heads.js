/* stages/heads.js - what each head of a trained model's block does on the text on the page
   (headroles): the mean weight its queries put on the previous token, on the token one line up
   (5- or 7-character lines with their marks), on punctuation and on <s>, each against what a
   uniform causal row would put there, and the pattern that stands out most. Random weights
   have no jobs to name: null. */

export const MARKS = '，。？！；';
export const PATTERNS = ['prev', 'up', 'column', 'punct', 'bos'];
export const DIFFUSE = 2;   // a pattern stands out from 2 times a uniform row's weight on it

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

// Per head, per pattern: { w (mean weight), u (a uniform causal row's: query q gives every key
// 1/(q + 1)), q (queries), lift (w / u) }; absent patterns are left out. The queries are q >= 2
// (q = 1 has no key but <s> and itself); the line patterns take those from the second line on
// (q >= n + 2). Query q predicts token q + 1, so "up" is key q - n, above the character about
// to be written, and "column" key q - n - 1, above the query itself (the mark takes a slot).
// A: the engine's attention (weights (H, L, L)); tokens: L labels, <s> first.
export function headRoles(A, tokens, H, L) {
  const n = lineLength(tokens), w = A.weights, heads = [];
  const mark = tokens.map((tk) => MARKS.includes(tk));
  for (let h = 0; h < H; h++) {
    const acc = Object.fromEntries(PATTERNS.map((p) => [p, { w: 0, u: 0, q: 0 }]));
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
    const out = {};
    for (const p of PATTERNS) {
      const a = acc[p];
      if (a.q) out[p] = { w: a.w / a.q, u: a.u / a.q, q: a.q, lift: a.w / a.u };
    }
    const top = Object.keys(out).reduce((b, p) => (!b || out[p].lift > out[b].lift ? p : b), '');
    heads.push({ patterns: out, top, sharp: !!top && out[top].lift >= DIFFUSE });
  }
  return { n, heads };
}

// -> null (random weights, or fewer than 3 tokens) or { n, heads: [{ patterns, top, sharp }] }
export default {
  name: 'headroles',
  deps: ['attn'],
  key: (s, keys) => (s.weights === 'poems' && s.L > 2 ? 'headroles|' + keys.attn : 'headroles|none'),
  steps: (engine, s, get) => [{ cost: 6 * s.heads * s.L * s.L,
    run: () => (s.weights === 'poems' && s.L > 2 ? headRoles(get('attn'), s.tokens, s.heads, s.L) : null) }]
};
