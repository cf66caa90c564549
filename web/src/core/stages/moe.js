/* stages/moe.js - the numbers of the `moe` figure (placeholder until the figure lands). */
export default {
  name: 'moe',
  key: (s, keys) => keys.weights,
  steps: () => [{ cost: 0, run: () => null }]
};
