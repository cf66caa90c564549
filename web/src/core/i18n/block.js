/* i18n/block.js - the `block` figure's strings, English and 中文 (same keys). */
export default {
  en: {
    h_block: 'block',
    p_block_1: '', p_block_2: ''
  },
  zh: {
    h_block: 'block',
    p_block_1: '', p_block_2: ''
  }
};
