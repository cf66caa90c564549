/* stages/index.js - the compute stages of the later figures, in the order they run (after the
   six first figures' stages in model.js). Each is { name, deps?, key(s, keys), steps(engine, s, get) }:
   key is a string of exactly what the stage reads (keys: the earlier stages' keys, e.g.
   keys.weights), steps a list of { cost, run } whose last run() returns the stage's value;
   get(name) reads an earlier stage, one of those listed in deps. */
import block, { blockAttention } from './block.js';
import glu from './glu.js';
import maskpair from './masks.js';
import moe, { moeWeights } from './moe.js';
import norms from './norms.js';
import saturation from './saturation.js';

// Their keys are made in this order (moe's reads moew's); model.js ORDER says when each runs.
export default [glu, maskpair, blockAttention, block, norms, saturation, moeWeights, moe];
