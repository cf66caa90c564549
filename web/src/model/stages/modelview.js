/* stages/modelview.js - the model view's numbers (figure 12): for every layer of the wide
   stage's forward, each head's mean weight on the previous token, the first, itself and (poem
   model) the token one line up, its entropy (stages/heads.js's headJobs / headRoles, per layer),
   and its largest weights for the hover text. One step per layer: a long model shows progress
   and a newer request cuts the sweep short. Random weights (no wide forward): null. */
import { headJobs, headRoles } from './heads.js';

export const MEASURES = ['prev', 'sink', 'self', 'up', 'entropy'];
export const TOP = 3;   // the largest weights kept per head

// The TOP largest weights of head h of w (H, L, L) over queries q >= 1 (query 0 can only read
// itself: weight 1, saying nothing) -> [{ q, k, w }], largest first, ties to the earlier cell.
export function topWeights(w, h, L, n = TOP) {
  const out = [];
  for (let q = 1; q < L; q++) {
    const row = (h * L + q) * L;
    for (let k = 0; k <= q; k++) {
      const v = w[row + k];
      if (out.length === n && v <= out[n - 1].w) continue;
      let i = out.length < n ? out.length : n - 1;
      while (i > 0 && out[i - 1].w < v) i--;
      out.splice(i, 0, { q, k, w: v });
      if (out.length > n) out.pop();
    }
  }
  return out;
}

// One layer's heads: weights (H, L, L), ids (L), tokens (labels, for the poem's line length).
// -> [{ prev, sink, self, up (null: no lines), entropy, top, sharp, focused, largest }]
export function layerSummary(weights, ids, tokens, H, L, poem) {
  const jobs = headJobs(weights, ids, H, L);
  const roles = poem ? headRoles({ weights }, tokens, H, L) : null;
  return jobs.heads.map((r, h) => {
    const P = r.patterns, up = roles && roles.heads[h].patterns.up;
    return { prev: P.prev.w, sink: P.sink.w, self: P.self.w, up: up ? up.w : null, entropy: r.entropy,
      top: r.sharp ? r.top : r.focused ? 'focused' : 'diffuse', largest: topWeights(weights, h, L) };
  });
}

// -> null (random weights, fewer than 3 tokens), or { layers: [[head summary] per layer], L, H,
//    uniformEntropy (bits: an even causal row's), lines (the poem's line length, 0 for none) }
function steps(engine, s, get) {
  if (!(s.weights === 'poems' || s.weights === 'model') || s.L < 3) return [{ cost: 1, run: () => null }];
  const NL = s.layers || 1, out = [];
  return Array.from({ length: NL }, (_, l) => ({ cost: 8 * s.heads * s.L * s.L, run() {
    const wide = get('wide');
    if (!wide) return null;
    const poem = s.weights === 'poems';
    out[l] = layerSummary(wide.attention[l], wide.ids, s.tokens, wide.heads, wide.L, poem);
    if (l < NL - 1) return undefined;
    const jobs = headJobs(wide.attention[0], wide.ids, wide.heads, wide.L);
    const roles = poem ? headRoles({ weights: wide.attention[0] }, s.tokens, wide.heads, wide.L) : null;
    return { layers: out.slice(), L: wide.L, H: wide.heads, uniformEntropy: jobs.uniformEntropy,
      lines: roles ? roles.n : 0 };
  } }));
}

export default {
  name: 'modelview',
  deps: ['wide'],
  key: (s, keys) => 'modelview|' + keys.wide,
  steps: steps
};
