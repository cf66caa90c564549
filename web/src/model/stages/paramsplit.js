/* stages/paramsplit.js - parameter counts by the engine: one block's attention and FFN at the
   page's sizes (split), and every preset model's (presets; the moe figure reads them too). */

// -> { attention, ffn }: per layer, biases included
export const split = {
  name: 'split',
  deps: [],
  key: (s) => [s.d, s.dff, s.heads, s.gated].join('|'),
  steps(engine, s) {
    return [{ cost: 1e4, run() {
      const c = engine.paramCount({ vocab: 1, dModel: s.d, nLayers: 1, nHeads: s.heads, dFF: s.dff,
        gated: s.gated ? 1 : 0, attnBias: 1, ffnBias: 1 });
      return { attention: c.attentionPerLayer, ffn: c.ffnPerLayer };
    } }];
  }
};

// -> [{ name, count }] (the engine's paramCount(name))
export const presets = {
  name: 'presets',
  deps: [],
  key: () => 'all',
  steps(engine) {
    return [{ cost: 1e4, run() {
      return engine.presets.map(function (name) { return { name: name, count: engine.paramCount(name) }; });
    } }];
  }
};
