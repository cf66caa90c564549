/* stages/patching.js - activation patching (figure 15): the corrupted text run once through every
   layer, then for each (layer, position) the clean run's residual entering that block patched into
   it at that position, only the blocks from there on rerun (forward's start + patch), and the last
   position's logits kept for the candidate answers (both runs' top TOP), so that picking another
   answer pair costs no rerun; the reruns unembed only that row (logits: 'last'). The clean run is
   the wide stage's (RUNS). One step per cell. */
import { RUNS, appliesTo, forwardCost, modelOf } from './wide.js';

export const TOP = 10;   // the answer and the wrong token are picked from each run's top 10

// The ids of row `row` of logits (L x V) sorted by logit, largest first, the top k; and the
// row's softmax at those ids.
function topOf(logits, row, V, k) {
  const r = logits.subarray(row * V, (row + 1) * V), ids = [];
  for (let j = 0; j < V; j++) {
    if (ids.length === k && r[j] <= r[ids[k - 1]]) continue;
    let at = ids.length;
    while (at > 0 && r[ids[at - 1]] < r[j]) at--;   // (ties: the lower id first)
    ids.splice(at, 0, j);
    if (ids.length > k) ids.pop();
  }
  let mx = -Infinity, sum = 0;
  for (let j = 0; j < V; j++) mx = Math.max(mx, r[j]);
  for (let j = 0; j < V; j++) sum += Math.exp(r[j] - mx);
  return { ids, probs: ids.map((j) => Math.exp(r[j] - mx) / sum) };
}

// Do rows p of two (L, d) matrices hold the same float32 bits? (Then a patch there is a no-op.)
function sameRow(a, b, p, d) {
  const x = new Uint32Array(a.buffer, a.byteOffset + 4 * p * d, d);
  const y = new Uint32Array(b.buffer, b.byteOffset + 4 * p * d, d);
  for (let i = 0; i < d; i++) if (x[i] !== y[i]) return false;
  return true;
}

// The corrupted text's ids: the opened folder's tokenizer gave them (model.js); the poem model's
// vocabulary puts <s> first itself.
const corruptIds = (s, m) => (s.weights === 'model' ? Int32Array.from(s.corruptIds)
  : m.encode(s.corruptTokens.slice(1).join('')));

// -> null (random weights), { state: 'empty' } (no corrupted text yet), { state: 'length', L, Lx,
//    xTokens } (the two differ in length), or { state: 'ok', L, layers, xTokens, differ (positions
//    where the ids differ), cand (C ids: the clean run's top TOP, then the corrupted run's not in
//    it), labels (C: the model's vocabulary entries), clean / corrupt (C: the last position's
//    logits at cand), cleanTop / corruptTop ({ ids, probs } TOP each), patched (layers x L x C:
//    the patched run's last-position logits at cand), reran (cells that needed a forward; the
//    others' rows were bit-identical in both runs) }
function steps(engine, s, get, assets) {
  if (!appliesTo(s)) return [{ cost: 1, run: () => null }];
  if (!s.corrupt) return [{ cost: 1, run: () => ({ state: 'empty' }) }];
  const Lx = s.corruptTokens.length;
  if (s.weights === 'model' ? s.corruptIds.length !== s.L : Lx !== s.L) {
    return [{ cost: 1, run: () => ({ state: 'length', L: s.L, Lx, xTokens: s.corruptTokens }) }];
  }
  const NL = s.layers, L = s.L;
  let st = null;   // the runs, shared by the steps (kept while a newer request cuts the sweep short)
  const first = { cost: forwardCost(s), run() {
    const clean = RUNS.get(get('wide')), { m } = modelOf(engine, s, assets), ids = corruptIds(s, m), V = m.vocabSize;
    const xRun = m.forward(ids, { logits: 'last' });
    const cleanTop = topOf(clean.out.logits, L - 1, V, TOP), corruptTop = topOf(xRun.logits, 0, V, TOP);
    const cand = Int32Array.from([...cleanTop.ids, ...corruptTop.ids.filter((j) => !cleanTop.ids.includes(j))]);
    // the candidates of a last row (V) or of the last row of logits (L x V)
    const pick = (logits) => Float32Array.from(cand, (j) => logits[logits.length - V + j]);
    const differ = [];
    for (let p = 0; p < L; p++) if (ids[p] !== clean.ids[p]) differ.push(p);
    st = { m, ids, clean: clean.out, xRun, V, pick, value: { state: 'ok', L, layers: NL, xTokens: s.corruptTokens,
      differ, cand, labels: Array.from(cand, (j) => (m.vocab && m.vocab[j] !== undefined ? m.vocab[j]
        : String(j))),
      clean: pick(clean.out.logits), corrupt: pick(xRun.logits), cleanTop, corruptTop,
      patched: new Float32Array(NL * L * cand.length), reran: 0 } };
  } };
  // Cell (l, p): a rerun of blocks l.. (cost in proportion), or the corrupted run's own logits
  // where the clean row entering block l is the corrupted one bit for bit (before the first
  // changed token, by causality): patching it would change nothing.
  const cells = [];
  for (let l = 0; l < NL; l++) {
    for (let p = 0; p < L; p++) {
      cells.push({ cost: forwardCost(s) * (NL - l) / NL, run() {
        const v = st.value, C = v.cand.length, at = (l * L + p) * C;
        if (sameRow(st.clean.layers[l].x, st.xRun.layers[l].x, p, st.m.dModel)) {
          v.patched.set(v.corrupt, at);
        } else {
          const r = st.m.forward(st.ids, { start: { layer: l, from: st.xRun },
            patch: [{ layer: l, position: p, from: st.clean }], layers: [], logits: 'last' });
          v.patched.set(st.pick(r.logits), at);
          v.reran++;
        }
        return v;
      } });
    }
  }
  return [first, ...cells];
}

export default {
  name: 'patching',
  deps: ['wide'],
  key: (s, keys) => (appliesTo(s) ? ['patching', keys.wide, s.corrupt].join('|') : 'patching|none'),
  steps: steps
};
