/* stages/opened.js - the stages of a model folder the reader opened (weights 'model'): one forward
   pass of the whole model (in the Worker, where it was loaded) gives the chosen layer's real
   intermediates, and the FFN and attention stages hand those on instead of calling bl.ffn or
   bl.attention (which know neither RoPE nor grouped-query attention). Stages not listed here
   give null under such a model (model.js), and their figures say why (figures/index.js). */
import { NS_PER_FLOP } from '../draws.js';
import { ablation, ablsweep } from './ablation.js';
import { attnStats, meanWeights } from './attention.js';
import { zeros } from './ffn.js';
import headroles from './heads.js';
import modelview from './modelview.js';
import { rowStats } from './block.js';
import norms from './norms.js';
import { presets } from './paramsplit.js';
import lens from './lens.js';
import patching from './patching.js';
import { neurons } from './neurons.js';
import wide from './wide.js';
import { diff } from './positionwise.js';

const countBelow = (a) => a.reduce((n, v) => n + (v < 0 ? 1 : 0), 0);
// The gate's function after the gate projection (forward's ffn.gate is before it).
const silu = (v) => v / (1 + Math.exp(-v));

// The whole forward result behind each weights stage value, kept here in the Worker (it holds
// L x vocab logits: never sent to the page) for the position-wise reruns, which start at the
// layer from its residual stream.
const FORWARDS = new WeakMap();

// -> { x (L, d): the residual stream entering the layer, xAttn / xFfn (its norms' outputs),
//    layer (forward's layers[l]), next: { logits (vocab) of the last token, labels } }
function weights(engine, s, get, assets) {
  return [{ cost: 2 * s.L * (4 * s.d * s.d + 3 * s.d * s.dff) * s.layers * NS_PER_FLOP + 5e5, run() {
    const m = assets.model(engine, 'model'), i = s.layer - 1;
    const out = m.forward(Int32Array.from(s.ids), { layers: [i] }), lay = out.layers[i], V = m.vocabSize;
    const value = { x: lay.x, xAttn: lay.norm1, xFfn: lay.norm2, rstd1: lay.rstd1 || null, rstd2: lay.rstd2 || null,
      layer: lay, ids: s.ids, unknown: 0, layers: m.nLayers,
      next: { logits: out.logits.slice((s.L - 1) * V, s.L * V) } };
    FORWARDS.set(value, out);
    return value;
  } }];
}

// The position-wise experiment on the chosen layer: row `pert` of the sublayer's normed input
// (ffn_in or attn_in) set to pval, the layer alone rerun from its residual stream (start, stop),
// |change| of that sublayer's output. The FFN's other rows come out bit-identical; the
// attention's change from the perturbed row on (causal).
function rerun(engine, s, get, assets, site, pick) {
  return [{ cost: 2 * s.L * (4 * s.d * s.d + 3 * s.d * s.dff) * NS_PER_FLOP, run() {
    const m = assets.model(engine, 'model'), i = s.layer - 1, w = get('weights'), from = FORWARDS.get(w);
    const row = new Float32Array(s.d).fill(s.pval);
    const r = m.forward(Int32Array.from(s.ids), { start: { layer: i, from: from }, stop: i + 1, layers: [i],
      set: [{ layer: i, site: site, position: s.pert, values: row }] });
    return diff(pick(r.layers[i]), pick(w.layer), s.L, s.d);
  } }];
}
const pertf = (engine, s, get, assets) => rerun(engine, s, get, assets, 'ffn_in', (lay) => lay.ffn.out);
const perta = (engine, s, get, assets) => rerun(engine, s, get, assets, 'attn_in', (lay) => lay.attention.out);

// The FFN as forward computed it: gated (SwiGLU) { hidden = gate before SiLU, up, activated
// = SiLU(gate) * up, out }, else { hidden, activated, out }.
function ffn(engine, s, get) {
  return [{ cost: 1e4, run() {
    const f = get('weights').layer.ffn;
    const r = s.gated ? { hidden: f.gate, up: f.up, activated: f.activated, out: f.out, gate: f.gate }
      : { hidden: f.hidden, activated: f.activated, out: f.out };
    r.negBefore = countBelow(r.hidden);
    r.negAfter = countBelow(r.activated);
    return r;
  } }];
}

// For SwiGLU the gate after SiLU (the pipeline's middle step); the parity line is not drawn.
function glu(engine, s, get) {
  return [{ cost: 1e4,
    run: () => ({ gate: s.gated ? Float32Array.from(get('ffn').gate, silu) : null, parity: null }) }];
}

// forward's attention: q (L, H·d_k), k and v (L, KV·d_k), scores (H, L, L) before scaling,
// weights (H, L, L), context, concat, out (L, d).
function attn(engine, s, get) {
  return [{ cost: 1e4, run: () => Object.assign({}, get('weights').layer.attention) }];
}

const attnstats = (engine, s, get) => [{ cost: 4 * s.heads * s.L * s.L,
  run: () => attnStats(get('attn'), s.heads, s.L, true) }];
const attnmean = (engine, s, get) => [{ cost: 2 * s.heads * s.L * s.L,
  run: () => ({ mean: meanWeights(get('attn'), s.heads, s.L) }) }];
const attnw = () => [{ cost: 0, run: () => ({}) }];

// The block figure's pre-norm residual stream, as forward computed it: x, norm1 (the attention's
// input), attention out, resid1 = x + attention, norm2 (the FFN's input), FFN out, resid2.
const blocka = (engine, s, get) => [{ cost: 1e4, run() {
  const lay = get('weights').layer;
  return { ln: 'pre', attnIn: lay.norm1, attn: lay.attention.out, resid1: lay.resid1, norm1: lay.norm1 };
} }];
const block = (engine, s, get) => [{ cost: 1e4, run() {
  const lay = get('weights').layer, A = get('blocka'), st = (m) => rowStats(m, s.L, s.d);
  return Object.assign({}, A, { ffnIn: lay.norm2, ffn: lay.ffn.out, resid2: lay.resid2, norm2: lay.norm2,
    out: lay.resid2,
    stats: { x: st(lay.x), attn: st(A.attn), resid1: st(A.resid1), ffnIn: st(lay.norm2), ffn: st(lay.ffn.out),
      resid2: st(lay.resid2), out: st(lay.resid2) } });
} }];

// The parameter split from the folder's tensors (model/folder.js counts them by name): one
// layer's attention and FFN, and the whole model's parts.
const split = (engine, s) => [{ cost: 0, run: () => ({ attention: s.counts.attentionPerLayer, ffn: s.counts.ffnPerLayer,
  model: Object.assign({ name: s.name }, s.counts) }) }];

// (zeros and norms as for the poem model: the × marks of the FFN above; LayerNorm, BatchNorm and
// RMSNorm of the model's own x; headroles: the jobs any text shows, on the layer's attention.)
export const OPENED_STEPS = { weights, attnw, ffn, glu, zeros: zeros.steps, attn, attnstats, attnmean,
  headroles: headroles.steps, norms: norms.steps, split, presets: presets.steps, blocka, block, pertf, perta,
  wide: wide.steps, modelview: modelview.steps, lens: lens.steps, ablation: ablation.steps, ablsweep: ablsweep.steps,
  patching: patching.steps, neurons: neurons.steps };
