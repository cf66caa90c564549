/* saturation.js - the `saturation` figure (placeholder until it lands). */
export default {
  view: 'saturation',
  reads: ['tokens'],
  build(res, ctx) {
    return { data: {}, blocks: [{ type: 'note', text: ctx.t('h_saturation') }] };
  }
};
