/* stages/index.js - the compute stages of the later figures, in the order they run (after the
   six first figures' stages in model.js). Each is { name, key(s, keys), steps(engine, s, get) }:
   key is a string of exactly what the stage reads (keys: the earlier stages' keys, e.g.
   keys.weights), steps a list of { cost, run } whose last run() returns the stage's value;
   get(name) reads an earlier stage. */
import block from './block.js';
import glu from './glu.js';
import maskpair from './masks.js';
import moe, { moeWeights } from './moe.js';
import norms from './norms.js';
import saturation from './saturation.js';

// glu and maskpair feed the first figures, so they run with them; the stages only the block,
// norms, saturation and moe figures read run last (model.js LATE: the page draws the other
// figures before they finish).
export default [glu, maskpair, block, norms, saturation, moeWeights, moe];
