/* stages/norms.js - the numbers of the `norms` figure (placeholder until the figure lands). */
export default {
  name: 'norms',
  key: (s, keys) => keys.weights,
  steps: () => [{ cost: 0, run: () => null }]
};
