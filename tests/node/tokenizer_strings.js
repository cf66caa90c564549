// tokenizer_strings.js - test texts for the tokenizer tests, the same for a given seed: words in
// case variants (UPPER, Title, mIxEd: for the (?i:'s|'t|...) of Llama-3's and Qwen's patterns,
// with ſ and the Kelvin sign, which Unicode case folding joins to s and k), contractions, digit
// runs, whitespace runs (U+0085, U+00A0, U+3000, U+FEFF among them), newlines, CJK, kana,
// Hangul (composed and as jamo, for NFC), combining marks, emoji (skin tones, ZWJ families,
// flags, keycaps), punctuation, mixed scripts and special-token texts. Characters from Unicode
// 12 or older, which Oniguruma 6.9.8 and V8 class alike.
'use strict';

// mulberry32: 32-bit state, uniform in [0, 1).
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ['the', 'hello', 'world', 'token', 'tokenizer', 'transformer', 'attention', 'is', 'all', 'you',
  'need', 'it', 'they', 'we', 'don', 'can', 'shouldn', 'café', 'naïve', 'Straße', 'über', 'façade', 'ﬁne',
  'ǅemal', 'İstanbul', 'ıi', 'Ωmega', 'Kelvin', 'sss', 'ascii', 'JSON', 'HTTPServer', 'x', 'a', 'I'];
const SCRIPTS = ['Привет', 'мир', 'Ελληνικά', 'مرحبا', 'שלום', 'नमस्ते', 'สวัสดี', 'ქართული', 'Հայերեն', 'ትግርኛ',
  'こんにちは', 'カタカナ', '안녕하세요', '床前明月光', '疑是地上霜', '举头望明月', '低头思故乡', '한국어'];
const CONTRACTIONS = ['s', 't', 're', 've', 'm', 'll', 'd'];
const SPACES = [' ', ' ', ' ', '  ', '   ', '\t', '\n', '\n\n', '\r\n', ' \n', '\n ', '\u00a0', '\u3000', '\u0085',
  '\ufeff', '\u2009', '\u200b', '\u000b', '\u000c', '\r'];
const PUNCT = ['.', ',', '!', '?', ';', ':', '-', '--', '...', '(', ')', '[', ']', '{', '}', '"', '\'', '`', '/', '\\',
  '@', '#', '$', '%', '^', '&', '*', '+', '=', '<', '>', '|', '~', '_', '，', '。', '！', '？', '、', '「', '」', '《',
  '》', '—', '…', '·', '€', '£', '¥', '©', '°', '±', '×', '÷', '→', '∑', '√', '∞', '♥', '★'];
const EMOJI = ['😀', '😂', '🙏', '👍', '👍🏽', '👩‍💻', '👨‍👩‍👧‍👦', '🇫🇷', '🇨🇳', '1️⃣', '❤️', '🎉', '🔥', '🤖', '🦙',
  '🏳️‍🌈', '✨', '☃', '⌛'];
const COMBINING = ['e\u0301', 'a\u0308', 'n\u0303', 'o\u0302\u0323', 'c\u0327', '\u1100\u1161\u11a8', '\u1112\u1161\u11ab',
  'A\u030a', 'Å', 'ﬀ', 'ǆ', '\u212b'];
const SPECIAL = ['<|endoftext|>', '<|begin_of_text|>', '<|im_start|>', '<|im_end|>', '<s>', '</s>', '<unk>', '<|eot_id|>'];

function caseVariant(w, r) {
  const k = r();
  if (k < 0.45) return w;
  if (k < 0.6) return w.toUpperCase();
  if (k < 0.75) return w[0].toUpperCase() + w.slice(1);
  return Array.from(w, (c) => (r() < 0.5 ? c.toUpperCase() : c.toLowerCase())).join('');
}

function fragment(r) {
  const pick = (a) => a[Math.floor(r() * a.length)];
  const k = r();
  if (k < 0.22) return caseVariant(pick(WORDS), r);
  if (k < 0.32) {   // a contraction: 's 'S 'LL 'ſ (U+017F) 'K (U+212A) ...
    let c = caseVariant(pick(CONTRACTIONS), r);
    if (r() < 0.15) c = c.replace(/s/i, '\u017f');
    return (r() < 0.3 ? '' : caseVariant(pick(WORDS), r)) + pick(['\'', '\'', '’']) + c +
      (r() < 0.3 ? pick(['', 'a', 'x', 'K', '\u212a']) : '');
  }
  if (k < 0.42) {   // digits, 1-12 of them, sometimes full-width or Arabic-Indic
    const n = 1 + Math.floor(r() * 12), digits = r() < 0.85 ? '0123456789' : r() < 0.5 ? '０１２３４５６７８９' : '٠١٢٣٤٥٦٧٨٩';
    let s = '';
    for (let i = 0; i < n; i++) s += Array.from(digits)[Math.floor(r() * 10)];
    return s;
  }
  if (k < 0.56) return pick(SPACES) + (r() < 0.3 ? pick(SPACES) : '');
  if (k < 0.66) {   // CJK ideographs from U+4E00..U+9FA5
    let s = '';
    for (let i = 1 + Math.floor(r() * 4); i > 0; i--) s += String.fromCodePoint(0x4e00 + Math.floor(r() * 0x51a6));
    return s;
  }
  if (k < 0.74) return pick(SCRIPTS);
  if (k < 0.82) return pick(PUNCT) + (r() < 0.3 ? pick(PUNCT) : '');
  if (k < 0.89) return pick(EMOJI);
  if (k < 0.95) return pick(COMBINING);
  if (k < 0.97) return pick(SPECIAL);
  return String.fromCodePoint(0x20 + Math.floor(r() * 0x5f));   // one ASCII character
}

/* n texts of 1 to 12 fragments, the same for a seed. */
function texts(seed, n) {
  const r = rng(seed), out = [];
  for (let i = 0; i < n; i++) {
    let s = '';
    for (let j = 1 + Math.floor(r() * 12); j > 0; j--) s += fragment(r);
    out.push(s);
  }
  return out;
}

module.exports = { texts, rng };
