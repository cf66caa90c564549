/* i18n/moe.js - the `moe` figure's strings, English and 中文 (same keys). */
export default {
  en: {
    h_moe: 'moe',
    p_moe_1: '', p_moe_2: ''
  },
  zh: {
    h_moe: 'moe',
    p_moe_1: '', p_moe_2: ''
  }
};
