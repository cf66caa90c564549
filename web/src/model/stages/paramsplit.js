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

// -> [{ name, count, config }] (the engine's paramCount(name) and presetConfig(name).config)
export const presets = {
  name: 'presets',
  deps: [],
  key: () => 'all',
  steps(engine) {
    return [{ cost: 1e4, run() {
      return engine.presets.map(function (name) {
        return { name: name, count: engine.paramCount(name), config: engine.presetConfig(name).config };
      });
    } }];
  }
};

// What the table's note says of the presets, from their counts: -> { twoThirds: [names], layer:
// { name: FFN / (FFN + attention) }, outside: { name: share of the total outside the layers },
// least, most: the names with the smallest and largest share outside }.
export function presetShares(rows) {
  const layer = {}, outside = {}, twoThirds = [];
  let least = null, most = null;
  for (const p of rows) {
    const c = p.count;
    layer[p.name] = c.ffn / (c.ffn + c.attention);
    outside[p.name] = 1 - (c.ffn + c.attention) / c.total;
    if (Math.abs(layer[p.name] - 2 / 3) < 0.005) twoThirds.push(p.name);
    if (least === null || outside[p.name] < outside[least]) least = p.name;
    if (most === null || outside[p.name] > outside[most]) most = p.name;
  }
  return { twoThirds, layer, outside, least, most };
}
