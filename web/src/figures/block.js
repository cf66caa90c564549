/* block.js - the `block` figure (placeholder until it lands). */
export default {
  view: 'block',
  reads: ['tokens'],
  build(res, ctx) {
    return { data: {}, blocks: [{ type: 'note', text: ctx.t('h_block') }] };
  }
};
