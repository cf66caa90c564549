/* stages/neurons.js - FFN neurons (figure 16): from the wide stage's forward, each layer's 10
   neurons with the largest activation on this text, the chosen neuron's activation on every
   token, and (weights only) the tokens its output row promotes and suppresses: U · (g ⊙ w_out),
   g the final norm's weight, no centring (model.directLogits). For the poem model, the held-out
   search (nsearch): that neuron's top 10 of the 300 held-out poems, a few poems per step so the
   page shows progress and a newer request cancels it between steps. Random weights: null. */
import { RUNS, appliesTo, forwardCost } from './wide.js';

export const TOP = 10;              // neurons listed per layer; promoted / suppressed tokens; poems found
const PER_STEP = 10;                // held-out poems per search step

// "2.97" (1-based layer.neuron) -> { pick: [layer, neuron] 0-based | null ('': the default) }
// or { error: { code, vars } }; layers, dff: the model's, when known.
export function parseNeuron(text, layers, dff) {
  const str = String(text).trim();
  if (!str) return { pick: null };
  const m = /^(\d{1,3})\s*[.:]\s*(\d{1,6})$/.exec(str);
  if (!m || Number(m[1]) < 1 || Number(m[2]) < 1) {
    return { error: { code: 'neuronItem', vars: { value: str.slice(0, 40) } } };
  }
  const l = Number(m[1]) - 1, n = Number(m[2]) - 1;
  if (layers && l >= layers) return { error: { code: 'neuronLayer', vars: { value: str, max: layers } } };
  if (dff && n >= dff) return { error: { code: 'neuronIndex', vars: { value: str, max: dff } } };
  return { pick: [l, n] };
}

// The positions a neuron is ranked over: 2..L (position 1 sees only itself, the same row for
// every text that starts with the same token), all of them for a one-token text.
const firstRanked = (L) => (L > 1 ? 1 : 0);

// The k indexes of the largest (sign 1) or smallest (sign -1) values, ties the lower index first.
export function topIndexes(values, k, sign) {
  const idx = [];
  const better = (i, j) => sign * values[i] > sign * values[j] || (values[i] === values[j] && i < j);
  for (let i = 0; i < values.length; i++) {
    if (idx.length === k && !better(i, idx[k - 1])) continue;
    let j = Math.min(idx.length, k - 1);
    idx[j] = i;
    while (j > 0 && better(i, idx[j - 1])) { idx[j] = idx[j - 1]; idx[--j] = i; }
  }
  return idx;
}

// Largest activation of neuron n in act (L, F) over the ranked positions: { v, at }.
function peak(act, L, F, n) {
  let at = firstRanked(L);
  for (let i = at + 1; i < L; i++) if (act[i * F + n] > act[at * F + n]) at = i;
  return { v: act[at * F + n], at };
}

// Neuron n's output row w_out (d): GPT-2's c_proj row n (W2 (F, d)); Llama's down_proj column n
// (Wdown stored (d, F)).
function outRow(m, l, n) {
  const w = m.layerWeights(l), D = m.dModel, F = m.dFF;
  if (w.W2) return w.W2.slice(n * D, (n + 1) * D);
  const v = new Float32Array(D);
  for (let k = 0; k < D; k++) v[k] = w.Wdown[k * F + n];
  return v;
}

const neuronList = (s) => {
  const r = parseNeuron(s.neuron || '', s.layers, s.dff);
  return r.error ? null : r.pick;
};

// -> null, or { layers, dff, L, lists: [{ ids: Int32Array (TOP), max: Float32Array, at: Int32Array }]
//    per layer, layer, neuron (0-based), picked (the reader's or the default: the last layer's top),
//    act: Float32Array (L), peak: { v, at }, promote / suppress: Int32Array (TOP), promoteV /
//    suppressV: Float32Array, vocab: { id: string } (the poem model's; an opened model labels on the page) }
const neurons = {
  name: 'neurons',
  deps: ['wide'],
  key: (s, keys) => (appliesTo(s) ? ['neurons', keys.wide, s.neuron || ''].join('|') : 'neurons|none'),
  steps: neuronSteps
};

function neuronSteps(engine, s, get) {
  if (!appliesTo(s)) return [{ cost: 1, run: () => null }];
  return [{ cost: 2 * s.L * s.dff * s.layers * 10 + 2 * s.d * 50000 * 5, run() {
    const w = get('wide'), run = w && RUNS.get(w);
    if (!run) return null;
    const m = run.model, L = run.ids.length, F = m.dFF, NL = m.nLayers;
    const lists = [], acts = [];
    for (let l = 0; l < NL; l++) {
      const act = run.out.layers[l].ffn.activated, max = new Float32Array(F), at = new Int32Array(F);
      for (let n = 0; n < F; n++) { const p = peak(act, L, F, n); max[n] = p.v; at[n] = p.at; }
      const ids = Int32Array.from(topIndexes(max, Math.min(TOP, F), 1));
      lists.push({ ids, max: Float32Array.from(ids, (n) => max[n]), at: Int32Array.from(ids, (n) => at[n]) });
      acts.push(act);
    }
    const pick = neuronList(s), picked = !!pick, l = pick ? pick[0] : NL - 1, n = pick ? pick[1] : lists[NL - 1].ids[0];
    const act = Float32Array.from({ length: L }, (_, i) => acts[l][i * F + n]);
    const direct = m.directLogits(outRow(m, l, n)), k = Math.min(TOP, direct.length);
    const promote = Int32Array.from(topIndexes(direct, k, 1)), suppress = Int32Array.from(topIndexes(direct, k, -1));
    const value = { layers: NL, dff: F, L, lists, layer: l, neuron: n, picked, act, peak: peak(acts[l], L, F, n),
      promote, suppress, promoteV: Float32Array.from(promote, (i) => direct[i]),
      suppressV: Float32Array.from(suppress, (i) => direct[i]), vocab: null };
    if (s.weights === 'poems') {
      value.vocab = {};
      for (const id of [...run.ids, ...promote, ...suppress]) value.vocab[id] = m.vocab[id];
    }
    return value;
  } }];
}

// The held-out poems (one per line) of the poem model's files, '' when not shipped.
const heldout = (assets) => {
  const f = assets.file ? assets.file('poems') : null;
  return f && typeof f.heldout === 'string' ? f.heldout.split('\n').filter((x) => x.length) : [];
};

// -> null, or { layer, neuron, poems (how many searched), hits: [{ line (0-based), position, value,
//    text (the poem as the model read it: cut to the context), chars: [the characters read] }] (TOP) }
const nsearch = {
  name: 'nsearch',
  deps: ['neurons'],
  key: (s, keys) => (s.weights === 'poems' && s.nsearch === 'on' ? ['nsearch', keys.neurons].join('|')
    : 'nsearch|none'),
  steps(engine, s, get, assets) {
    if (s.weights !== 'poems' || s.nsearch !== 'on') return [{ cost: 1, run: () => null }];
    const poems = heldout(assets), P = 64, cost = forwardCost(Object.assign({}, s, { L: P })) * PER_STEP;
    const scores = [];
    let N = null;
    const steps = [];
    for (let at = 0; at < Math.max(1, poems.length); at += PER_STEP) {
      steps.push({ cost, run() {
        N = N || get('neurons');
        if (!N) return null;
        const m = assets.model(engine, 'poems'), l = N.layer, n = N.neuron, F = m.dFF;
        for (let i = at; i < Math.min(poems.length, at + PER_STEP); i++) {
          const ids = m.encode(poems[i]).slice(0, m.nPositions), L = ids.length;
          const act = m.forward(ids, { layers: [l], stop: l + 1 }).layers[l].ffn.activated;
          const p = peak(act, L, F, n);
          scores.push({ line: i, position: p.at, value: p.v, L });
        }
        if (at + PER_STEP < poems.length) return null;
        scores.sort((a, b) => b.value - a.value || a.line - b.line);
        return { layer: l, neuron: n, poems: poems.length, hits: scores.slice(0, TOP).map((h) => {
          const chars = Array.from(poems[h.line]).slice(0, h.L - 1);
          return { line: h.line, position: h.position, value: h.value, chars };
        }) };
      } });
    }
    return steps;
  }
};

export { neurons, nsearch };
