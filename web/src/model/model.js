/* model.js - the machinery of the numbers: page state -> spec, the stages (stages/: each declares
   what it reads) run in an order derived from their deps, cached under their keys, and the
   figures' input assembled from them. No DOM: figures only lay out what this returns.
   The work is cut into named, cached stages of short steps, so that a Worker (worker.js) or the
   page itself can run it in slices; compute(state) runs them all at once. */
import { MODELS, getOpened, isGated, tokenize, tokensFor } from './params.js';
import { OPENED_STEPS } from './stages/opened.js';
import LIST from './stages/index.js';

// The stages in an order where each comes after its deps: a stable topological sort, ties
// broken by rank(name) then by place in `stages`. Throws on a duplicate name, an unknown dep
// or a cycle. (The model ranks by place alone: stages/index.js lists them in page order.)
function stageOrder(stages, rank = () => 0) {
  const at = new Map(), out = [], done = new Set();
  stages.forEach((st, i) => {
    if (at.has(st.name)) throw new Error('BlockLens: two stages named "' + st.name + '"');
    at.set(st.name, i);
  });
  stages.forEach((st) => (st.deps || []).forEach((d) => {
    if (!at.has(d)) throw new Error('BlockLens: stage "' + st.name + '" depends on "' + d + '", which is no stage');
  }));
  const before = (a, b) => rank(a.name) - rank(b.name) || at.get(a.name) - at.get(b.name);
  while (out.length < stages.length) {
    let next = null;
    for (const st of stages) {
      if (done.has(st.name) || !(st.deps || []).every((d) => done.has(d))) continue;
      if (!next || before(st, next) < 0) next = st;
    }
    if (!next) {
      throw new Error('BlockLens: stages depend on each other in a cycle: ' +
        stages.filter((st) => !done.has(st.name)).map((st) => st.name + ' <- ' + (st.deps || []).join(', '))
          .join('; '));
    }
    done.add(next.name);
    out.push(next);
  }
  return out;
}

// Every stage by name, and the order they run in: each is cached under a key of exactly what it
// reads, and sent to the page as soon as it is done; each figure is drawn once the stages it
// needs (figures/index.js) are in, so the first figures' come first.
const STAGES = Object.fromEntries(LIST.map((st) => [st.name, st]));
const ORDER = stageOrder(LIST).map((st) => st.name);

// The stages a host's figures need (their `needs`), with what those read, in ORDER; all without.
function closure(want) {
  if (!want) return ORDER;
  const all = new Set(), add = (n) => {
    if (!Object.prototype.hasOwnProperty.call(STAGES, n)) {
      throw new Error('BlockLens: unknown stage "' + String(n).slice(0, 40) + '"');
    }
    if (!all.has(n)) { all.add(n); STAGES[n].deps.forEach(add); }
  };
  want.forEach(add);
  return ORDER.filter((n) => all.has(n));
}

// Page state -> spec: everything the stages read, tokens already split.
function resolve(state) {
  if (state.weights === 'poems') return resolveTrained(state, MODELS.poems);
  if (state.weights === 'model' && getOpened()) return resolveOpened(state, getOpened());
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
    topk: Math.min(state.topk || 2, state.experts || 8), weights: 'poems', layer: Math.min(state.layer || 1, m.layers),
    layers: m.layers, ablate: state.ablate, abltok: state.abltok, sweep: state.sweep, corrupt: state.corrupt || '',
    neuron: state.neuron || '', nsearch: state.nsearch || 'off',
    corruptTokens: tokensFor({ weights: 'poems', tokens: state.corrupt || '' }) };
}

// An opened model folder: its sizes and tokenizer; the ids travel in the spec (the Worker runs
// forward on them); `model` (a number per opened folder) keys its stages.
function resolveOpened(state, m) {
  const enc = m.encode(state.tokens), L = enc.ids.length, cor = state.corrupt ? m.encode(state.corrupt) : null;
  return { tokens: enc.labels, ids: enc.ids, L: L, d: m.d, dff: m.dff, heads: m.heads, kvHeads: m.kvHeads,
    dk: m.headDim, ffnBias: m.ffnBias, oBias: m.oBias, counts: m.counts, name: m.name,
    act: m.act, gated: isGated(m.act), causal: true, scale: true, seed: state.seed, sel: Math.min(state.sel, L - 1),
    pert: Math.min(state.pert, L - 1), pval: state.pval, init: 'trained', ln: 'pre', norm: m.norm,
    masks: 'one', experts: state.experts || 8, topk: Math.min(state.topk || 2, state.experts || 8), weights: 'model',
    model: m.serial, layer: Math.min(state.layer || 1, m.layers), layers: m.layers, ablate: state.ablate,
    abltok: state.abltok, sweep: state.sweep, neuron: state.neuron || '',
    // (activation patching's corrupted text, through the same tokenizer: stages/patching.js)
    corrupt: state.corrupt || '', corruptIds: cor ? cor.ids : [], corruptTokens: cor ? cor.labels : [] };
}

// Every stage's key for spec s. A key may read other stages' keys (keys.weights), each made once
// when first read; reading an unknown stage's key, or a key that reads itself, throws.
function keysOf(s) {
  const made = {}, making = new Set();
  const keys = new Proxy(made, { get(target, n) {
    if (Object.prototype.hasOwnProperty.call(made, n)) return made[n];
    if (typeof n !== 'string' || !Object.prototype.hasOwnProperty.call(STAGES, n)) {
      throw new Error('BlockLens: no stage key "' + String(n) + '"');
    }
    if (making.has(n)) throw new Error('BlockLens: the key of stage "' + n + '" reads itself');
    making.add(n);
    // (An opened model's keys: its number first, so no cached random stage ever matches one; its
    // weights stage reads the layer and the ids.)
    made[n] = s.weights !== 'model' ? STAGES[n].key(s, keys) : 'model' + s.model + '|' +
      (n === 'weights' ? s.layer + '|' + s.ids.join(',') : STAGES[n].key(s, keys));
    making.delete(n);
    return made[n];
  } });
  const out = {};
  ORDER.forEach((n) => { out[n] = keys[n]; });
  return out;
}

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
      if (!p || p.key !== keys[name]) {
        // (An opened model's stages read its forward pass: stages/opened.js; the others give null.)
        const steps = s.weights !== 'model' ? STAGES[name].steps(engine, s, get, assets)
          : OPENED_STEPS[name] ? OPENED_STEPS[name](engine, s, get, assets) : [{ cost: 0, run: () => null }];
        p = partial[name] = { key: keys[name], next: 0, steps: steps };
      }
      p.steps.slice(p.next).forEach(function (st) {
        out.push({ stage: name, cost: st.cost, run: stepper(name, p, st) });
      });
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
        if (total + cost > budget || STAGES[st.stage].deps.some((d) => left.has(d))) { left.add(st.stage); return; }
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
    const r = { tokens: s.tokens, L: s.L, d: s.d, dff: s.dff, heads: s.heads, dk: s.dk || s.d / s.heads,
      kvHeads: s.kvHeads || s.heads, norm: s.norm || 'layer', ffnBias: s.ffnBias !== false,
      oBias: s.oBias !== false, modelName: s.name || '',
      act: s.act, gated: s.gated, causal: s.causal, scale: s.scale, seed: s.seed, sel: s.sel,
      init: s.init, ln: s.ln, masks: s.masks, experts: s.experts, topk: s.topk,
      trained: s.weights === 'poems' || s.weights === 'model' ? s.weights : '', layer: s.layer || 0,
      layers: s.layers || 0, serial: s.model || 0,
      weights: w, x: w && w.x };
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

export { create, resolve, closure, stageOrder, ORDER as STAGES };
