/* stages/saturation.js - the numbers of the `saturation` figure (placeholder until the figure lands). */
export default {
  name: 'saturation',
  key: (s, keys) => keys.weights,
  steps: () => [{ cost: 0, run: () => null }]
};
