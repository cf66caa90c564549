/* moe.js - the `moe` figure (placeholder until it lands). */
export default {
  view: 'moe',
  reads: ['tokens'],
  build(res, ctx) {
    return { data: {}, blocks: [{ type: 'note', text: ctx.t('h_moe') }] };
  }
};
