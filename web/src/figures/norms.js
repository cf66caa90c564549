/* norms.js - the `norms` figure (placeholder until it lands). */
export default {
  view: 'norms',
  reads: ['tokens'],
  build(res, ctx) {
    return { data: {}, blocks: [{ type: 'note', text: ctx.t('h_norms') }] };
  }
};
