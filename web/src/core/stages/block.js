/* stages/block.js - the numbers of the `block` figure (placeholder until the figure lands). */
export default {
  name: 'block',
  key: (s, keys) => keys.weights,
  steps: () => [{ cost: 0, run: () => null }]
};
