/* tokenizer/fixes.js - where @huggingface/tokenizers 0.2.0 splits text differently from Hugging
   Face's Rust tokenizers (whose regular expressions are Oniguruma's), the repair: applied to the
   tokenizer.json before the library reads it, or to the pre-tokenizers it built. Each was found
   by comparing splits with Oniguruma itself (tools/tokenizer/splits.js) or with the Rust
   library's source and its unit tests (tokenizer_rust_rules.test.js). */
import { charMatches, cut, invert, regexMatches } from './split.js';

// Letters whose Unicode simple case folding reaches outside ASCII (CaseFolding.txt): Oniguruma's
// (?i:'s) also matches "'ſ" (U+017F), (?i:k) the Kelvin sign; the library folds ASCII only.
const FOLD_EXTRA = { k: '\\x{212A}', s: '\\x{017F}' };

/* (?i:...) groups of plain literals and alternatives (Llama-3's and Qwen's (?i:'s|'t|'re|...))
   rewritten as (?:...) with every ASCII letter a class of its case variants, in Oniguruma syntax
   (the library translates the rest). A group with anything else (classes, escapes, nesting) is
   left to the library's own translation. */
export function expandInlineIgnoreCase(pattern) {
  return pattern.replace(/\(\?i:((?:[^()[\]\\]|\\[^A-Za-z0-9])*)\)/g, (whole, body, at) => {
    let slashes = 0;
    for (let i = at - 1; i >= 0 && pattern[i] === '\\'; i--) slashes++;
    if (slashes % 2) return whole;                        // an escaped "(", not a group
    let out = '';
    for (let i = 0; i < body.length; i++) {
      const c = body[i];
      if (c === '\\') { out += c + body[++i]; continue; }
      const lower = c.toLowerCase();
      if (/[a-z]/.test(lower)) out += '[' + lower + lower.toUpperCase() + (FOLD_EXTRA[lower] || '') + ']';
      else out += c;
    }
    return '(?:' + out + ')';
  });
}

/* tokenizer.json -> a copy with the Split patterns rewritten (the rest shared, not copied). */
export function fixTokenizerJson(tj) {
  const fixPre = (p) => {
    if (!p || typeof p !== 'object') return p;
    if (p.type === 'Sequence' && Array.isArray(p.pretokenizers)) {
      return Object.assign({}, p, { pretokenizers: p.pretokenizers.map(fixPre) });
    }
    if (p.type === 'Split' && p.pattern && typeof p.pattern.Regex === 'string') {
      return Object.assign({}, p, { pattern: { Regex: expandInlineIgnoreCase(p.pattern.Regex) } });
    }
    // Whitespace (\w+|[^\w\s]+) and WhitespaceSplit (runs of non-White_Space): the library matches
    // JavaScript's ASCII \w and its \s; as Splits that keep the matches, its Oniguruma translation
    // gives Unicode \w and White_Space, as the Rust library has them.
    const keep = (re) => ({ type: 'Split', pattern: { Regex: re }, behavior: 'Removed', invert: true });
    if (p.type === 'Whitespace') return keep('\\w+|[^\\w\\s]+');
    if (p.type === 'WhitespaceSplit') return keep('\\S+');
    return p;
  };
  return Object.assign({}, tj, { pre_tokenizer: fixPre(tj.pre_tokenizer) });
}

// GPT-2's pattern (the ByteLevel pre-tokenizer's use_regex) with \s and \S as Oniguruma reads
// them, Unicode White_Space: JavaScript's \s adds U+FEFF and leaves out U+0085.
const BYTE_LEVEL_RE = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\p{White_Space}\p{L}\p{N}]+|\p{White_Space}+(?!\P{White_Space})|\p{White_Space}+/gu;

const NUMERIC = /\p{N}/u;                                         // char::is_numeric: Nd, Nl, No
const PUNCT = /[!-/:-@[-`{-~]|\p{P}/u;                             // is_ascii_punctuation || is_punctuation

/* The library's pre-tokenizer tree (p) repaired in place, walked beside the tokenizer.json it
   was built from (c): ByteLevel gets the pattern above; Split keeps the text between matches and
   follows its behavior and invert (the library keeps only matches where invert is set and reads
   every behavior but Removed as Isolated); Digits splits at every numeric character, not only
   ASCII digits; Punctuation isolates each punctuation character (the library keeps runs);
   Metaspace splits before each "▁" unless split is false and reads add_prefix_space: false as
   prepend_scheme "never" (the library ignores both). */
export function fixPreTokenizer(p, c) {
  if (!p || !c) return;
  if (c.type === 'Sequence') {
    (p.tokenizers || []).forEach((x, i) => fixPreTokenizer(x, (c.pretokenizers || [])[i]));
  } else if (c.type === 'ByteLevel' && p.pattern instanceof RegExp) {
    p.pattern = BYTE_LEVEL_RE;
  } else if (c.type === 'Split' && p.pattern instanceof RegExp) {
    const re = p.pattern;
    p.pre_tokenize_text = (text) => {
      const found = regexMatches(text, re);
      return cut(text, c.invert ? invert(found) : found, c.behavior);
    };
  } else if (c.type === 'Digits') {
    const behavior = c.individual_digits ? 'Isolated' : 'Contiguous';
    p.pre_tokenize_text = (text) => cut(text, charMatches(text, (ch) => NUMERIC.test(ch)), behavior);
  } else if (c.type === 'Punctuation') {
    p.pre_tokenize_text = (text) => cut(text, charMatches(text, (ch) => PUNCT.test(ch)), c.behavior || 'Isolated');
  } else if (c.type === 'Metaspace') {
    const m = metaspace(c);
    p.pre_tokenize_text = (text, options) => {
      let s = text.split(' ').join(m.rep);
      const first = !options || !options.section_index;
      if (!s.startsWith(m.rep) && (m.scheme === 'always' || (m.scheme === 'first' && first))) s = m.rep + s;
      return m.split ? cut(s, charMatches(s, (ch) => ch === m.rep), 'MergedWithNext') : [s];
    };
  }
}

// A Metaspace's settings as the Rust library reads them: split defaults to true, prepend_scheme to
// "always"; add_prefix_space: false means "never" (Rust requires a "never" beside it).
function metaspace(c) {
  const rep = c.replacement || '\u2581';
  const scheme = c.add_prefix_space === false ? 'never' : c.prepend_scheme || 'always';
  return { rep, scheme, split: c.split !== false };
}

/* The library's decoder tree (d) repaired in place, beside its tokenizer.json (c): ByteFallback
   turns a run of <0xNN> tokens that is not valid UTF-8 into one U+FFFD per byte (TextDecoder
   gives one per invalid sequence); Metaspace drops every "▁" of the first token unless
   prepend_scheme is "never" (the library drops one leading space, always). */
export function fixDecoder(d, c) {
  if (!d || !c) return;
  if (c.type === 'Sequence') (d.decoders || []).forEach((x, i) => fixDecoder(x, (c.decoders || [])[i]));
  else if (c.type === 'ByteFallback') d.decode_chain = byteFallbackChain;
  else if (c.type === 'Metaspace') {
    const m = metaspace(c);
    d.decode_chain = (tokens) => tokens.map((t, i) => t.split(m.rep).join(i === 0 && m.scheme !== 'never' ? '' : ' '));
  }
}

const STRICT = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const BYTE_TOKEN = /^<0x([0-9A-Fa-f]{2})>$/;

function byteFallbackChain(tokens) {
  const out = [];
  let run = [];
  const flush = () => {
    if (!run.length) return;
    try {
      out.push(STRICT.decode(Uint8Array.from(run)));
    } catch (e) {
      for (let i = 0; i < run.length; i++) out.push('\ufffd');
    }
    run = [];
  };
  for (const t of tokens) {
    const m = BYTE_TOKEN.exec(t);
    if (m) run.push(parseInt(m[1], 16));
    else { flush(); out.push(t); }
  }
  flush();
  return out;
}

/* The library's BPE model repaired in place: with fuse_unk, consecutive unknown characters
   become one unk_token within each pre-tokenized word, as Rust's merge_word does (the library
   fuses across the words of a whole section). */
export function fixModel(model, c) {
  if (!model || !c || c.type !== 'BPE' || !c.fuse_unk) return;
  const unk = c.unk_token;
  model._call = (words) => words.flatMap((w) => {
    const out = [];
    for (const t of model.encode([w])) if (!(t === unk && out[out.length - 1] === unk)) out.push(t);
    return out;
  });
}

const LEADING_SPACE = /^\p{White_Space}+/u, TRAILING_SPACE = /\p{White_Space}+$/u;

/* The library's normalizer tree (n) repaired in place, beside its tokenizer.json (c): Prepend
   leaves an empty text empty, and Strip strips White_Space (char::is_whitespace; JavaScript's
   trim also strips U+FEFF and keeps U+0085). */
export function fixNormalizer(n, c) {
  if (!n || !c) return;
  if (c.type === 'Sequence') (n.normalizers || []).forEach((x, i) => fixNormalizer(x, (c.normalizers || [])[i]));
  else if (c.type === 'Prepend') n.normalize = (text) => (text ? (c.prepend || '') + text : text);
  else if (c.type === 'Strip') {
    n.normalize = (text) => {
      if (c.strip_left) text = text.replace(LEADING_SPACE, '');
      if (c.strip_right) text = text.replace(TRAILING_SPACE, '');
      return text;
    };
  }
}
