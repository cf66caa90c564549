/* stages/index.js - every compute stage, listed in the page order of the first figure that needs
   each (figures/index.js; tests/node/stage_order.test.js checks it). A stage is
   { name, deps, key(s, keys), steps(engine, s, get, assets) }: deps, the stages get(name) reads;
   key, a string of exactly what the stage reads (keys: the other stages' keys, e.g. keys.weights);
   steps, a list of { cost (ns), run } whose last run() returns the stage's value. model.js runs
   them in this order, each after its deps. */
import { ablation, ablsweep } from './ablation.js';
import { attn, attnMean, attnStatsStage } from './attention.js';
import block, { blockAttention } from './block.js';
import { collapse, ffn, zeros } from './ffn.js';
import glu from './glu.js';
import headroles from './heads.js';
import lens from './lens.js';
import maskpair from './masks.js';
import modelview from './modelview.js';
import moe, { moeWeights } from './moe.js';
import norms from './norms.js';
import { presets, split } from './paramsplit.js';
import { pertAttn, pertFfn } from './positionwise.js';
import saturation from './saturation.js';
import { attnWeights, weights } from './weights.js';
import patching from './patching.js';
import { neurons, nsearch } from './neurons.js';
import wide from './wide.js';

export default [
  weights, ffn, glu, collapse,        // pipeline
  zeros,                              // activation
  attnWeights, attn, attnMean,        // rows
  maskpair, attnStatsStage, headroles, // attention
  saturation,                         // saturation
  pertFfn, pertAttn,                  // positionwise
  norms,                              // norms
  blockAttention, block,              // block
  moeWeights, moe, presets,           // moe
  split,                              // paramsplit
  wide,                               // the whole model (figures of stages/wide.js's users)
  modelview,                          // the model view
  lens,                               // the logit lens
  ablation, ablsweep,                 // ablation
  patching,                           // activation patching
  neurons, nsearch                    // FFN neurons
];
