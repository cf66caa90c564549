/* i18n/saturation.js - the `saturation` figure's strings, English and 中文 (same keys). */
export default {
  en: {
    h_saturation: 'saturation',
    p_saturation_1: '', p_saturation_2: ''
  },
  zh: {
    h_saturation: 'saturation',
    p_saturation_1: '', p_saturation_2: ''
  }
};
