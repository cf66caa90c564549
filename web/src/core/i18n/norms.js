/* i18n/norms.js - the `norms` figure's strings, English and 中文 (same keys). */
export default {
  en: {
    h_norms: 'norms',
    p_norms_1: '', p_norms_2: ''
  },
  zh: {
    h_norms: 'norms',
    p_norms_1: '', p_norms_2: ''
  }
};
