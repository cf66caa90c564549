/* model.js - state -> weights -> engine calls -> arrays, and the numbers the figures derive from
   them. No DOM: figures only lay out what this returns.
   Weights follow the classic numpy order (x, W1, b1, W2, b2 from one seed), then the rest.
   The work is cut into named, cached stages of short steps, so that a Worker (worker.js) or the
   page itself can run it in slices; compute(state) runs them all at once. */
import { MODELS, isGated, tokenize, tokensFor } from './params.js';
import { NS_PER_FLOP, allWeights, attnCall, drawSteps, ffnCall, perturbed } from './draws.js';
import EXTRA from './stages/index.js';

// The stages in the order they run; each is cached under a key of exactly what it reads, and
// sent to the page as soon as it is done: each figure is drawn once the stages it needs
// (figures/index.js) are in, so the cheap ones come first and the rest in page order.
// The later figures' stages live in stages/<name>.js: { name, key(s, keys), steps(engine, s, get) }.
const ORDER = ['split', 'presets', 'weights', 'ffn', 'glu', 'zeros', 'pertf', 'attnw', 'attn', 'maskpair', 'perta',
  'saturation', 'norms', 'blocka', 'block', 'moew', 'moe'];
// The earlier stages each one reads (get(name) in its steps); the later figures' stages list theirs.
const DEPS = Object.assign({ ffn: ['weights'], zeros: ['ffn', 'glu'], attnw: ['weights'], attn: ['weights', 'attnw'], pertf: ['weights', 'ffn'],
  perta: ['weights', 'attnw', 'attn'] },
  Object.fromEntries(EXTRA.map((x) => [x.name, x.deps || []])));

// The stages a host's figures need (their `needs`), with what those read, in ORDER; all without.
function closure(want) {
  if (!want) return ORDER;
  const all = new Set(), add = (n) => {
    if (!ORDER.includes(n)) throw new Error('BlockLens: unknown stage "' + String(n).slice(0, 40) + '"');
    if (!all.has(n)) { all.add(n); (DEPS[n] || []).forEach(add); }
  };
  want.forEach(add);
  return ORDER.filter((n) => all.has(n));
}

function countBelow(a, limit) {
  let n = 0;
  for (let i = 0; i < a.length; i++) if (a[i] < limit) n++;
  return n;
}

// |a - b| (L, d) and the rows where anything changed (exact float comparison, on purpose).
function diff(a, b, L, d) {
  const out = new Float32Array(a.length), rows = [];
  for (let i = 0; i < L; i++) {
    let changed = false;
    for (let c = 0; c < d; c++) {
      const v = Math.abs(a[i * d + c] - b[i * d + c]);
      out[i * d + c] = v;
      if (v !== 0 || a[i * d + c] !== b[i * d + c]) changed = true;
    }
    if (changed) rows.push(i);
  }
  return { abs: out, rows: rows };
}

// Page state -> spec: everything the stages read, tokens already split.
function resolve(state) {
  if (state.weights === 'poems') return resolveTrained(state, MODELS.poems);
  const tokens = tokenize(state.tokens), L = tokens.length;
  return { tokens: tokens, L: L, d: state.d, dff: state.dff, heads: state.heads, act: state.act,
    gated: isGated(state.act), causal: !!state.causal, scale: !!state.scale, seed: state.seed,
    sel: Math.min(state.sel, L - 1), pert: Math.min(state.pert, L - 1), pval: state.pval,
    init: state.init || 'classic', ln: state.ln || 'post', masks: state.masks || 'one',
    experts: state.experts || 8, topk: Math.min(state.topk || 2, state.experts || 8) };
}

// A trained model: its sizes, a causal scaled attention (a GPT), the characters as tokens.
function resolveTrained(state, m) {
  const tokens = tokensFor(state), L = tokens.length;
  return { tokens: tokens, L: L, d: m.d, dff: m.dff, heads: m.heads, act: m.act, gated: false,
    causal: true, scale: true, seed: state.seed, sel: Math.min(state.sel, L - 1), pert: Math.min(state.pert, L - 1),
    pval: state.pval, init: 'trained', ln: 'pre', masks: state.masks || 'one', experts: state.experts || 8,
    topk: Math.min(state.topk || 2, state.experts || 8), weights: 'poems', layer: Math.min(state.layer || 1, m.layers), layers: m.layers };
}

function keysOf(s) {
  const w = s.weights === 'poems' ? ['poems', s.layer, s.tokens.join('\u0001')].join('|')
    : [s.seed, s.L, s.d, s.dff, s.gated, s.init].join('|');
  const f = w + '|' + s.act;
  const a = [w, s.heads, s.causal, s.scale].join('|');
  const keys = { weights: w, attnw: w, ffn: f, zeros: 'zeros|' + f, attn: a, pertf: [f, s.pert, s.pval].join('|'), perta: [a, s.pert, s.pval].join('|'),
    split: [s.d, s.dff, s.heads, s.gated].join('|'), presets: 'all' };
  EXTRA.forEach((x) => { keys[x.name] = x.key(s, keys); });
  return keys;
}

// Every weight from one numpyRandom(seed) stream, in a fixed order:
// x (L,d), W1 (d,dff), b1 (dff), W2 (dff,d), b2 (d)  <- exactly the numpy example
// [gated: W3 (d,dff), b3 (dff)] (the weights stage) then Wq, bq, Wk, bk, Wv, bv, Wo, bo (d,d) /
// (d) (the attnw stage, the same stream going on: the FFN figures need not wait for them).
// The attention draws are divided by sqrt(d) (like nn.Linear's init), so q·k has the
// variance d_k that the 1/sqrt(d_k) scaling is meant for; their biases are drawn and zeroed.
// init 'scaled' divides the FFN matrices by sqrt(fan_in) too (W1, W3 by sqrt(d), W2 by
// sqrt(d_ff)): at wide sizes unit-variance weights push the hidden values to +-100 and more.
function weightSteps(engine, s) {
  let L = s.L, d = s.d, dff = s.dff, r = null, w = {}, steps = [];
  const draw = (name, n, scale) => drawSteps(steps, () => r, w, name, n, scale);
  steps.push({ cost: 1e4, run: function () { r = engine.numpyRandom(s.seed); } });
  const sc = s.init === 'scaled', inD = sc ? 1 / Math.sqrt(d) : undefined, inF = sc ? 1 / Math.sqrt(dff) : undefined;
  draw('x', L * d); draw('W1', d * dff, inD); draw('b1', dff); draw('W2', dff * d, inF); draw('b2', d);
  if (s.gated) { draw('W3', d * dff, inD); draw('b3', dff); }
  // The stream where the FFN's draws end, for attnw (not enumerable: it stays in this model,
  // never sent to the page).
  steps.push({ cost: 0, run: function () { return Object.defineProperty(w, 'stream', { value: r }); } });
  return steps;
}

// The attention weights: a copy of the weights stage's stream goes on (so this stage can be
// drawn again at will); a trained model's come with its weights stage.
function attnWeightSteps(engine, s, get) {
  if (s.weights === 'poems') return [{ cost: 0, run: () => ({}) }];
  let d = s.d, r = null, w = {}, steps = [];
  const draw = (name, n, scale) => drawSteps(steps, () => r, w, name, n, scale);   // name null: a bias drawn and discarded
  steps.push({ cost: 1e4, run: function () { r = get('weights').stream.copy(); } });
  ['q', 'k', 'v', 'o'].forEach(function (n) { draw('W' + n, d * d, 1 / Math.sqrt(d)); draw(null, d); });
  steps.push({ cost: 0, run: function () {
    ['q', 'k', 'v', 'o'].forEach(function (n) { w['b' + n] = new Float32Array(d); });
    return w;
  } });
  return steps;
}

// Each stage as steps [{ cost, run }]; the last run() returns the stage's value. get(name)
// reads an earlier stage when the step runs (earlier stages always finish first).
// A trained model's block `layer`: its weights, and the inputs it really sees for the tokens:
// x, the residual stream entering the block; xAttn = LN1(x); xFfn = LN2(x + attention). One
// forward of the whole model gives them and the next-character logits.
function trainedSteps(engine, s, get, assets) {
  return [{ cost: 2 * s.L * 330000 * NS_PER_FLOP + 5e5, run: function () {
    const m = assets.model(engine, s.weights), ids = m.encode(s.tokens.slice(1).join(''));
    const i = s.layer - 1, out = m.forward(ids), lw = m.layerWeights(i), lay = out.layers[i];
    const V = m.config.vocab_size, last = out.logits.slice((ids.length - 1) * V, ids.length * V);
    let unknown = 0;
    for (let k = 1; k < ids.length; k++) if (ids[k] === m.unkId) unknown++;
    return Object.assign({}, lw, { x: lay.input, xAttn: lay.norm1, xFfn: lay.norm2, ids: ids, unknown: unknown,
      next: { logits: last, vocab: m.vocab }, layers: m.config.n_layer });
  } }];
}

const STAGES = {
  weights: function (engine, s, get, assets) {
    return s.weights === 'poems' ? trainedSteps(engine, s, get, assets) : weightSteps(engine, s);
  },
  attnw: attnWeightSteps,
  ffn: function (engine, s, get) {
    return [{ cost: 2 * s.L * s.d * s.dff * (s.gated ? 3 : 2) * NS_PER_FLOP, run: function () {
      const w = get('weights'), f = ffnCall(engine, s, w, w.xFfn || w.x);
      f.negBefore = countBelow(f.hidden, 0);
      f.negAfter = countBelow(f.activated, 0);
      return f;
    } }];
  },
  // The activation figure's pass over every hidden value: its × marks and counts, and the
  // range its curve spans. Made with the numbers (in the Worker): on the page it was 15-25 ms
  // of each redraw at BERT widths.
  zeros: function (engine, s, get) {
    return [{ cost: 4 * s.L * s.dff, run: function () {
      const f = get('ffn');
      return Object.assign(zeroedMarks(f, s.act, s.gated ? get('glu').gate : null), { range: valueRange(f.hidden, f.activated) });
    } }];
  },
  attn: function (engine, s, get) {
    return [{ cost: attnFlops(s) * NS_PER_FLOP, run: function () { const w = allWeights(get); return attnCall(engine, s, w, w.xAttn || w.x); } }];
  },
  // Position-wise experiment: row `pert` of x set to `pval`, everything else unchanged; the FFN
  // (pertf) and attention (perta) apart, so that a change of either alone redoes only its half.
  // (With trained weights the FFN and attention read their own normed inputs: the row is set in each.)
  pertf: function (engine, s, get) {
    return [{ cost: 2 * s.L * s.d * s.dff * (s.gated ? 3 : 2) * NS_PER_FLOP, run: function () {
      const w = get('weights');
      return diff(ffnCall(engine, s, w, perturbed(w.xFfn || w.x, s)).out, get('ffn').out, s.L, s.d);
    } }];
  },
  perta: function (engine, s, get) {
    return [{ cost: attnFlops(s) * NS_PER_FLOP, run: function () {
      const w = allWeights(get);
      return diff(attnCall(engine, s, w, perturbed(w.xAttn || w.x, s)).out, get('attn').out, s.L, s.d);
    } }];
  },
  split: function (engine, s) {
    return [{ cost: 1e4, run: function () {
      const c = engine.paramCount({ vocab: 1, dModel: s.d, nLayers: 1, nHeads: s.heads, dFF: s.dff,
        gated: s.gated ? 1 : 0, attnBias: 1, ffnBias: 1 });
      return { attention: c.attentionPerLayer, ffn: c.ffnPerLayer };
    } }];
  },
  presets: function (engine) {
    return [{ cost: 1e4, run: function () {
      return engine.presets.map(function (name) { return { name: name, count: engine.paramCount(name) }; });
    } }];
  }
};

EXTRA.forEach((x) => { STAGES[x.name] = x.steps; });
if (ORDER.length !== Object.keys(STAGES).length || !ORDER.every((n) => STAGES[n])) throw new Error('model.js: ORDER and STAGES differ');

// What the attention figures say about the softmax: the spread (std) of the raw scores and
// the peak, the mean over heads and rows of each row's largest weight (1/L uniform, 1 one-hot).
function attnStats(A, H, L) {
  let sc = A.scores, n = sc.length, mean = 0, v = 0, peak = 0, i;
  for (i = 0; i < n; i++) mean += sc[i];
  mean /= n;
  for (i = 0; i < n; i++) v += (sc[i] - mean) * (sc[i] - mean);
  for (let r = 0; r < H * L; r++) {
    let m = 0;
    for (let j = 0; j < L; j++) m = Math.max(m, A.weights[r * L + j]);
    peak += m / (H * L);
  }
  return { sd: Math.sqrt(v / n), peak: peak };
}

// Cells the activation sets to 0 by its definition: (L*dff) 0/1 marks and their count. ReLU:
// x <= 0. GELU (erf, tanh), SiLU, identity: x = 0 only. Gated, act(g) * up: g = 0 (SiLU and
// GELU are 0 there and nowhere else) or up = 0. Any other exact 0 of the output is float32
// rounding, not the function: GELU(x) below about -5.5 (1 + erf(x/sqrt 2) rounds to 0), a
// product of two tiny numbers. Those are counted apart (underflow) and never marked; with
// gate = act(g) (gated), gateUnderflow counts its own such zeros.
function zeroedMarks(ffn, act, gate) {
  const h = ffn.hidden, a = ffn.activated, up = isGated(act) ? ffn.up : null, n = h.length, marks = new Uint8Array(n);
  let count = 0, underflow = 0, gateUnderflow = 0;
  for (let i = 0; i < n; i++) {
    if (act === 'relu' ? h[i] <= 0 : h[i] === 0 || (up !== null && up[i] === 0)) { marks[i] = 1; count++; }
    else if (a[i] === 0) underflow++;
    if (gate && gate[i] === 0 && h[i] !== 0) gateUnderflow++;
  }
  return { marks: marks, count: count, underflow: underflow, gateUnderflow: gateUnderflow };
}

// The finite range of x and y values, 0 included (the curve's axes cross at 0).
function valueRange(xs, ys) {
  let xmin = 0, xmax = 0, ymin = 0, ymax = 0;
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i], y = ys[i];
    if (x < xmin && x > -Infinity) xmin = x; else if (x > xmax && x < Infinity) xmax = x;
    if (y < ymin && y > -Infinity) ymin = y; else if (y > ymax && y < Infinity) ymax = y;
  }
  return { xmin, xmax, ymin, ymax };
}

// With the identity, W1·W2 is one (d x d) matrix: the largest relative gap between the FFN's
// output and that single layer's (float64). null when the check would cost too much.
function collapseGap(res) {
  const d = res.d, f = res.dff, w = res.weights;
  if (d * d * f > 4e6) return null;
  let M = new Float64Array(d * d), c = new Float64Array(d), gap = 0, i, j, k;
  for (i = 0; i < d; i++) for (k = 0; k < f; k++) {
    const a = w.W1[i * f + k];
    for (j = 0; j < d; j++) M[i * d + j] += a * w.W2[k * d + j];
  }
  for (j = 0; j < d; j++) { c[j] = w.b2[j]; for (k = 0; k < f; k++) c[j] += w.b1[k] * w.W2[k * d + j]; }
  for (let r = 0; r < res.L; r++) for (j = 0; j < d; j++) {
    let y = c[j];
    for (i = 0; i < d; i++) y += res.x[r * d + i] * M[i * d + j];
    gap = Math.max(gap, Math.abs(y - res.ffn.out[r * d + j]) / Math.max(1, Math.abs(y)));
  }
  return gap;
}

// Head-averaged attention weights of query row `i`: (L).
function meanWeights(res, i) {
  const L = res.L, H = res.heads, w = res.attn.weights, mean = new Float64Array(L);
  for (let h = 0; h < H; h++) for (let j = 0; j < L; j++) mean[j] += w[(h * L + i) * L + j] / H;
  return mean;
}

function attnFlops(s) { return 8 * s.L * s.d * s.d + 4 * s.L * s.L * s.d; }

// One model per engine; it remembers the last value of each stage so that view-only changes
// (selected token, language) cost nothing and token edits skip nothing needed. Without an
// engine (create(null)) it is a mirror: absorb() fills it with stages computed elsewhere.
function create(engine, assets) {
  const cache = {}, partial = {};
  function get(name) { return cache[name].value; }
  function has(name, key) { return !!cache[name] && cache[name].key === key; }

  // The steps spec still needs, in order: [{ stage, cost, run }]; want: the stages the host
  // needs (closure()), all when absent. A stage cut short by a newer request keeps its
  // progress and resumes when a later plan needs the same key.
  function plan(s, want) {
    const keys = keysOf(s), out = [];
    closure(want).forEach(function (name) {
      if (has(name, keys[name])) return;
      let p = partial[name];
      if (!p || p.key !== keys[name]) p = partial[name] = { key: keys[name], next: 0, steps: STAGES[name](engine, s, get, assets) };
      p.steps.slice(p.next).forEach(function (st) { out.push({ stage: name, cost: st.cost, run: stepper(name, p, st) }); });
    });
    return out;
  }

  function stepper(name, p, st) {
    return function () {
      let v;
      try { v = st.run(); } catch (e) { delete partial[name]; throw e; }
      if (++p.next === p.steps.length) { cache[name] = { key: p.key, value: v }; delete partial[name]; }
    };
  }

  // The steps of plan(s, want) whose stages fit in `budget` (estimated ns) together, in order: a
  // stage that does not fit is left out, with those that read it (the page computes these at
  // once; dom/compute.js).
  function planWithin(s, want, budget) {
    const out = [], left = new Set();
    let total = 0;
    plan(s, want).forEach(function (st, i, all) {
      if (left.has(st.stage)) return;
      if (i === 0 || all[i - 1].stage !== st.stage) {   // a stage's first step: does it all fit?
        const cost = all.filter((x) => x.stage === st.stage).reduce((t, x) => t + x.cost, 0);
        if (total + cost > budget || (DEPS[st.stage] || []).some((d) => left.has(d))) { left.add(st.stage); return; }
        total += cost;
      }
      out.push(st);
    });
    return out;
  }

  // The stages spec still lacks (in ORDER), of those wanted.
  function missing(s, want) {
    const keys = keysOf(s);
    return closure(want).filter(function (name) { return !has(name, keys[name]); });
  }

  // The figures' input, from the cached stages of spec: each stage's value, or null while it is
  // still being computed (listed in `missing`, of those wanted: closure(); a figure waits until
  // the stages it needs are in).
  function result(s, want) {
    const keys = keysOf(s), absent = ORDER.filter((n) => !has(n, keys[n]));
    const val = (n) => (absent.includes(n) ? null : get(n)), w = val('weights');
    const r = { tokens: s.tokens, L: s.L, d: s.d, dff: s.dff, heads: s.heads, dk: s.d / s.heads,
      act: s.act, gated: s.gated, causal: s.causal, scale: s.scale, seed: s.seed, sel: s.sel,
      init: s.init, ln: s.ln, masks: s.masks, experts: s.experts, topk: s.topk, trained: s.weights === 'poems' ? s.weights : '', layer: s.layer || 0,
      layers: s.layers || 0, weights: w, x: w && w.x };
    ORDER.forEach((n) => { if (n !== 'weights') r[n] = val(n); });
    // The position-wise experiment's two halves, as the figure reads them.
    r.pert = r.pertf && r.perta && { index: s.pert, value: s.pval, ffn: r.pertf, attn: r.perta };
    r.missing = want ? absent.filter((n) => want.includes(n)) : absent;
    r.keys = keys;
    return r;
  }

  function compute(state) {
    const s = resolve(state);
    plan(s).forEach(function (st) { st.run(); });
    return result(s);
  }

  return { compute: compute, plan: plan, planWithin: planWithin, missing: missing, result: result,
    entry: function (name) { return cache[name]; },
    absorb: function (entries) { Object.keys(entries).forEach(function (n) { cache[n] = entries[n]; }); } };
}

export { create, resolve, attnStats, zeroedMarks, collapseGap, meanWeights, closure, ORDER as STAGES };
