/* i18n.js - the two languages: lookup with {named} variables and the browser's language as the
   default. Each figure's own strings live in i18n/<view>.js ({ en, zh }); i18n/en.js and
   i18n/zh.js hold the page's and those several figures share. The same keys in both languages
   (the i18n test checks each file and the merged dictionaries). Text only, never HTML. */
import enBase from './en.js';
import zhBase from './zh.js';
import ablation from './ablation.js';
import activation from './activation.js';
import attention from './attention.js';
import block from './block.js';
import modelview from './modelview.js';
import moe from './moe.js';
import lens from './lens.js';
import next from './next.js';
import neurons from './neurons.js';
import opened from './opened.js';
import norms from './norms.js';
import paramsplit from './paramsplit.js';
import patching from './patching.js';
import pipeline from './pipeline.js';
import positionwise from './positionwise.js';
import rows from './rows.js';
import saturation from './saturation.js';

// In page order; no key is in two files (tests/browser/i18n.test.js).
const PARTS = [pipeline, activation, rows, attention, saturation, positionwise, norms, block, moe, paramsplit, next,
  modelview, lens, ablation, patching, neurons, opened];
const merged = (base, lang) => Object.freeze(Object.assign({}, base, ...PARTS.map((p) => p[lang])));
export const DICTS = Object.freeze({ en: merged(enBase, 'en'), zh: merged(zhBase, 'zh') });
const en = DICTS.en;
const own = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

// Missing keys show as the key itself: visible in review, never a crash.
export function t(lang, key, vars) {
  const d = own(DICTS, lang) ? DICTS[lang] : en;
  const s = own(d, key) ? d[key] : own(en, key) ? en[key] : undefined;
  if (s === undefined) return key;
  return String(s).replace(/\{(\w+)\}/g, (m, k) => (vars && own(vars, k) && vars[k] !== undefined ? String(vars[k]) : m));
}

// 'zh' | 'en' | 'auto' -> 'zh' | 'en', 'auto' from the given (or the browser's) language list.
export function resolve(lang, languages) {
  if (lang === 'zh' || lang === 'en') return lang;
  const list = languages || (typeof navigator !== 'undefined' ? (navigator.languages || [navigator.language]) : []);
  for (const item of list) {
    const l = String(item || '').toLowerCase();
    if (l.startsWith('zh')) return 'zh';
    if (l.startsWith('en')) return 'en';
  }
  return 'en';
}

// A translate function bound to one language.
export function translator(lang) { return (key, vars) => t(lang, key, vars); }


// A checking error { key, code, vars } as "<field>: <what is wrong>".
export function message(tr, e) {
  const field = e.key === 'hash' ? tr('lbl_hash') : e.key === 'engine' ? tr('lbl_engine') : tr('ctl_' + e.key);
  return field + ': ' + tr('err_' + e.code, e.vars);
}
