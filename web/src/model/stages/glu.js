/* stages/glu.js - what the FFN figures add to the ffn stage: for a gated FFN (SwiGLU, GeGLU) the
   gate after its function, act(x · W1 + b1), which bl.ffn does not return (it returns the gate
   before it, the up projection and their product); and the weight counts behind the parity
   line (an ungated FFN at d_ff = 4 d against a gated one at d_ff = 8/3 d). */
import { NS_PER_FLOP } from '../draws.js';

// The gate's function: an ungated bl.ffn with it applies the same kernel epilogue to the same
// x · W1 + b1 as the gated call (kernel_simd.h: SILU = SWIGLU, GELU = GEGLU), bit for bit.
const GATE_FN = { swiglu: 'silu', geglu: 'gelu' };

// Matrix weights of one FFN, biases left out: those are what 8/3 keeps equal.
const weightsOf = (engine, d, dff, gated) => engine.paramCount({ vocab: 1, dModel: d, nLayers: 1, nHeads: 1, dFF: dff,
  gated: gated ? 1 : 0, attnBias: 0, ffnBias: 0 }).ffnPerLayer;

export default {
  name: 'glu',
  deps: ['weights'],
  key: (s, keys) => (s.gated ? keys.ffn : ['plain', s.d, s.dff].join('|')),
  // -> { gate: act(x · W1 + b1) (L, d_ff) or null when ungated, parity: { d, dff, gated, at
  //    (round(8 d / 3)), plain4d, gatedAt, current } (weights only) }
  steps(engine, s, get) {
    return [{ cost: s.gated ? 4 * s.L * s.d * s.dff * NS_PER_FLOP : 1e4, run() {
      const d = s.d, at = Math.max(1, Math.round(8 * d / 3));
      const parity = { d, dff: s.dff, gated: s.gated, at, plain4d: weightsOf(engine, d, 4 * d, false),
        gatedAt: weightsOf(engine, d, at, true), current: weightsOf(engine, d, s.dff, s.gated) };
      let gate = null;
      if (s.gated) {
        const w = get('weights');
        gate = engine.ffn({ L: s.L, dModel: d, dFF: s.dff, x: w.xFfn || w.x, W1: w.W1, b1: w.b1, W2: w.W2, b2: w.b2,
          activation: GATE_FN[s.act] }).activated;
      }
      return { gate, parity };
    } }];
  }
};
