/* stages/ablation.js - head ablation (figure 14): the next-token distribution at the last
   position with a set of heads (their outputs zeroed before the output projection) or FFNs off,
   against the wide stage's unablated run; and the sweep that switches each head and each FFN off
   alone. Every rerun starts at the first ablated layer from the wide run (forward's `start`):
   the layers before it are unchanged, so this halves a sweep on average. Random weights: null. */
import { RUNS, appliesTo, forwardCost } from './wide.js';

// "1.3,2.1,2.ffn" (1-based layer.head or layer.ffn) -> { list: [[layer, head | 'ffn']] 0-based,
// sorted, no repeats } or { error: { code, vars } }. layers, heads: the model's, when known.
export function parseAblate(text, layers, heads) {
  const list = [], seen = new Set(), str = String(text).trim();
  if (!str) return { list };
  for (const raw of str.split(',')) {
    const item = raw.trim(), m = /^(\d{1,3})\.(\d{1,3}|ffn)$/i.exec(item);
    if (!m || Number(m[1]) < 1 || (m[2].toLowerCase() !== 'ffn' && Number(m[2]) < 1)) {
      return { error: { code: 'ablateItem', vars: { value: item.slice(0, 40) } } };
    }
    const l = Number(m[1]) - 1, h = m[2].toLowerCase() === 'ffn' ? 'ffn' : Number(m[2]) - 1;
    if (layers && l >= layers) return { error: { code: 'ablateLayer', vars: { value: item, max: layers } } };
    if (heads && h !== 'ffn' && h >= heads) return { error: { code: 'ablateHead', vars: { value: item, max: heads } } };
    const k = l + '.' + h;
    if (!seen.has(k)) { seen.add(k); list.push([l, h]); }
  }
  // Layer by layer, heads before the FFN: one canonical text per set.
  list.sort((a, b) => a[0] - b[0] || (a[1] === 'ffn' ? 1 : b[1] === 'ffn' ? -1 : a[1] - b[1]));
  return { list };
}

// The canonical text of a list (0-based) as the page state writes it.
export const ablateText = (list) => list.map(([l, h]) => (l + 1) + '.' + (h === 'ffn' ? 'ffn' : h + 1)).join(',');

// log-softmax of a float32 row, in double.
export function logSoftmax(x) {
  let max = -Infinity, sum = 0;
  for (let i = 0; i < x.length; i++) if (x[i] > max) max = x[i];
  for (let i = 0; i < x.length; i++) sum += Math.exp(x[i] - max);
  const lse = max + Math.log(sum), out = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) out[i] = x[i] - lse;
  return out;
}

// KL(p || q) in nats from log-probabilities.
export function klDiv(lp, lq) {
  let s = 0;
  for (let i = 0; i < lp.length; i++) if (lp[i] > -Infinity) s += Math.exp(lp[i]) * (lp[i] - lq[i]);
  return Math.max(0, s);
}

// The id of the largest value (ties: the lower id).
export function argmax(a) {
  let b = 0;
  for (let i = 1; i < a.length; i++) if (a[i] > a[b]) b = i;
  return b;
}

// The last row's logits (vocab) of forward with `list` ablated, started at its first layer from
// run (RUNS' { model, out, ids }); only that row is unembedded (logits: 'last', bit for bit the
// full call's row).
export function ablatedLogits(run, list) {
  const m = run.model, V = m.vocabSize, L = run.ids.length;
  if (!list.length) return run.out.logits.slice((L - 1) * V, L * V);
  const first = Math.min(...list.map((a) => a[0]));
  const opts = { layers: [], start: { layer: first, from: run.out }, ablate: list, logits: 'last' };
  return m.forward(run.ids, opts).logits;
}

// The chosen token: the reader's (abltok, if it is in the vocabulary), else the top one unablated.
export const targetOf = (abltok, logits) => (abltok >= 0 && abltok < logits.length ? abltok : argmax(logits));

const ablateList = (s) => {
  const r = parseAblate(s.ablate || '', s.layers, s.heads);
  return r.error ? [] : r.list;
};

export const TOP = 10;

// The k ids of the largest log-probabilities, largest first (ties: the lower id first).
export function topIds(lp, k) {
  const ids = [];
  for (let i = 0; i < lp.length; i++) {
    if (ids.length === k && lp[i] <= lp[ids[k - 1]]) continue;
    let j = Math.min(ids.length, k - 1);
    ids[j] = i;
    while (j > 0 && lp[ids[j - 1]] < lp[i]) { ids[j] = ids[j - 1]; ids[--j] = i; }
  }
  return ids;
}

// -> null, or { list (0-based), target, kl (nats, KL(before || after)), top: { before, after }
//    (TOP ids each), tokens: [{ id, label, before, after }] (probabilities of every listed id and
//    the target) }
const ablation = {
  name: 'ablation',
  deps: ['wide'],
  key: (s, keys) => (appliesTo(s) ? ['ablation', keys.wide, ablateText(ablateList(s)), s.abltok].join('|')
    : 'ablation|none'),
  steps(engine, s, get) {
    const list = ablateList(s), first = list.length ? Math.min(...list.map((a) => a[0])) : s.layers;
    return [{ cost: appliesTo(s) ? forwardCost(s) * (s.layers - first) / s.layers + 1e5 : 1, run() {
      const w = get('wide'), run = w && RUNS.get(w);
      if (!run) return null;
      const before = logSoftmax(w.logits), after = list.length ? logSoftmax(ablatedLogits(run, list)) : before;
      const target = targetOf(s.abltok, w.logits), top = { before: topIds(before, TOP), after: topIds(after, TOP) };
      const ids = [...new Set([...top.before, ...top.after, target])], vocab = run.model.vocab;
      return { list, target, kl: list.length ? klDiv(before, after) : 0, top,
        tokens: ids.map((id) => ({ id, label: String(vocab[id]), before: Math.exp(before[id]),
          after: Math.exp(after[id]) })) };
    } }];
  }
};

// The sweep (only with sweep = on: a button, never a keystroke): each head alone, then each
// layer's FFN, one rerun per step from its layer, so a newer request cuts it short between reruns.
// -> null, or { layers, heads, target, base (its log-probability unablated), drop (NL x H: base
//    minus its log-probability with that head off; > 0: the head helped it), kl (NL x H, nats),
//    ffnDrop, ffnKl (NL) }
const ablsweep = {
  name: 'ablsweep',
  deps: ['wide'],
  key: (s, keys) => (appliesTo(s) && s.sweep === 'on' ? ['ablsweep', keys.wide, s.abltok].join('|') : 'ablsweep|none'),
  steps(engine, s, get) {
    if (!appliesTo(s) || s.sweep !== 'on') return [{ cost: 1, run: () => null }];
    const NL = s.layers, H = s.heads, out = { layers: NL, heads: H, target: 0, base: 0,
      drop: new Float32Array(NL * H), kl: new Float32Array(NL * H), ffnDrop: new Float32Array(NL),
      ffnKl: new Float32Array(NL) };
    let before = null, run = null;
    const one = (l, h) => ({ cost: forwardCost(s) * (NL - l) / NL + 1e5, run() {
      if (!before) {
        const w = get('wide');
        run = w && RUNS.get(w);
        if (!run) return null;
        before = logSoftmax(w.logits);
        out.target = targetOf(s.abltok, w.logits);
        out.base = before[out.target];
      }
      if (!run) return null;
      const after = logSoftmax(ablatedLogits(run, [[l, h]]));
      const at = h === 'ffn' ? l : l * H + h;
      (h === 'ffn' ? out.ffnDrop : out.drop)[at] = before[out.target] - after[out.target];
      (h === 'ffn' ? out.ffnKl : out.kl)[at] = klDiv(before, after);
      return out;
    } });
    const steps = [];
    for (let l = 0; l < NL; l++) {
      for (let h = 0; h < H; h++) steps.push(one(l, h));
      steps.push(one(l, 'ffn'));
    }
    return steps;
  }
};

export { ablation, ablsweep };
