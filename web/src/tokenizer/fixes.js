/* tokenizer/fixes.js - where @huggingface/tokenizers 0.2.0 splits text differently from Hugging
   Face's Rust tokenizers (whose regular expressions are Oniguruma's), the repair: applied to the
   tokenizer.json before the library reads it, or to the pre-tokenizers it built. Each was found
   by comparing splits with Oniguruma itself (tools/tokenizer/splits.js). */

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

/* The library's pre-tokenizer tree, repaired in place: the ByteLevel pattern above. */
export function fixPreTokenizer(p) {
  if (!p) return;
  if (Array.isArray(p.tokenizers)) p.tokenizers.forEach(fixPreTokenizer);
  if (p.byte_encoder && p.pattern instanceof RegExp) p.pattern = BYTE_LEVEL_RE;
}

/* The library's decoder tree, repaired in place: ByteFallback turns a run of <0xNN> tokens that
   is not valid UTF-8 into one U+FFFD per byte, as the Rust library does (TextDecoder would give
   one per maximal invalid sequence). */
export function fixDecoder(d) {
  if (!d) return;
  if (Array.isArray(d.decoders)) d.decoders.forEach(fixDecoder);
  if (d.config && d.config.type === 'ByteFallback') d.decode_chain = byteFallbackChain;
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
