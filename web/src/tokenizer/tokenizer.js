/* tokenizer/tokenizer.js - a model folder's tokenizer: the ids Hugging Face's tokenizer(text)
   gives (special tokens as the file's post-processor adds them), their decoding, and each token's
   bytes for the page's token strip. @huggingface/tokenizers does the work; fixes.js repairs where
   it splits text unlike the Rust library.
     const t = fromFiles({ 'tokenizer.json': bytes });   // or vocab.json + merges.txt (GPT-2)
     t.encode('Hello') -> [9906]; t.decode([9906]) -> 'Hello'; t.piece(9906) -> { text, bytes } */
import { Tokenizer as HFTokenizer } from '@huggingface/tokenizers';
import { FILE_NAMES, describe, gpt2TokenizerJson, json, text } from './files.js';
import { fixDecoder, fixModel, fixNormalizer, fixPreTokenizer, fixTokenizerJson } from './fixes.js';

const MODELS = ['BPE'];   // the model types whose ids are checked against Hugging Face's (tests/node/tokenizer*)
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const UTF8_LOSSY = new TextDecoder('utf-8', { ignoreBOM: true });   // keeps a U+FEFF at the start
const ENC = new TextEncoder();

// GPT-2's byte -> printable character map (bytes_to_unicode), reversed: character -> byte.
const UNICODE_TO_BYTE = (() => {
  const m = new Map();
  let n = 0;
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
    m.set(String.fromCharCode(printable ? b : 256 + n++), b);
  }
  return m;
})();

const utf8OrNull = (bytes) => {
  try {
    return UTF8.decode(bytes);
  } catch (e) {
    return null;
  }
};

// Every component config of a kind in a tree of Sequences.
function components(c, key, out) {
  if (!c || typeof c !== 'object') return out;
  if (Array.isArray(c[key])) c[key].forEach((x) => components(x, key, out));
  else out.push(c);
  return out;
}

/* files: { 'tokenizer.json': Uint8Array | string, ... } -> the tokenizer.json to read. */
function tokenizerJson(files) {
  const tj = json(files, 'tokenizer.json');
  const config = json(files, 'tokenizer_config.json'), specialMap = json(files, 'special_tokens_map.json');
  if (tj !== null) return { tj: tj, config: config };   // as in transformers: tokenizer.json wins
  const vocab = json(files, 'vocab.json'), merges = text(files, 'merges.txt');
  if (vocab !== null && merges !== null) return { tj: gpt2TokenizerJson(vocab, merges, config, specialMap), config };
  const have = Object.keys(files).filter((k) => files[k] != null);
  if (vocab !== null) {
    throw new Error('vocab.json without merges.txt: a byte-level BPE needs both (or a tokenizer.json)');
  }
  throw new Error('no tokenizer file: the folder needs tokenizer.json, or vocab.json with merges.txt (it has ' +
    (have.length ? have.join(', ') : 'none of ' + FILE_NAMES.join(', ')) + ')');
}

function checkJson(tj) {
  if (!tj || typeof tj !== 'object' || Array.isArray(tj)) {
    throw new Error('tokenizer.json must be an object, not ' + describe(tj));
  }
  const m = tj.model;
  if (!m || typeof m !== 'object') throw new Error('tokenizer.json has no "model"');
  const type = m.type || (m.merges ? 'BPE' : Array.isArray(m.vocab) ? 'Unigram' : 'WordPiece or WordLevel');
  if (!MODELS.includes(type)) {
    throw new Error('tokenizer.json: model type ' + JSON.stringify(type) + ' is not supported (supported: ' +
      MODELS.join(', ') + ': byte-level as GPT-2, Llama-3 and Qwen, or SentencePiece-style with byte fallback)');
  }
  if (!m.vocab || typeof m.vocab !== 'object' || Array.isArray(m.vocab)) {
    throw new Error('tokenizer.json: model.vocab must be an object { token: id }');
  }
  if (!Array.isArray(m.merges)) throw new Error('tokenizer.json: model.merges must be an array');
  if (components(tj.normalizer, 'normalizers', []).some((n) => n.type === 'Precompiled')) {
    throw new Error('tokenizer.json: the Precompiled normalizer (a SentencePiece charsmap) is not supported');
  }
  if (m.continuing_subword_prefix) {
    throw new Error('tokenizer.json: a BPE with continuing_subword_prefix ' +
      JSON.stringify(m.continuing_subword_prefix) + ' is not supported');
  }
  if (tj.added_tokens != null && !Array.isArray(tj.added_tokens)) {
    throw new Error('tokenizer.json: added_tokens must be an array');
  }
  // The keys the library requires, null where the file leaves them out (as the Rust library reads it).
  const full = Object.assign({ normalizer: null, pre_tokenizer: null, post_processor: null, decoder: null }, tj);
  full.added_tokens = tj.added_tokens || [];
  return full;
}

/* The Tokenizer: encode, decode, piece, vocabSize, specials (see the file's header). */
class Tokenizer {
  constructor(tj, config) {
    let hf, fixed;
    try {
      // transformers reads clean_up_tokenization_spaces from tokenizer_config.json, false if unset
      // (since 4.45); the library's own default is true.
      fixed = fixTokenizerJson(tj);
      hf = new HFTokenizer(fixed, Object.assign({}, config || {},
        { clean_up_tokenization_spaces: !!(config && config.clean_up_tokenization_spaces) }));
    } catch (e) {
      throw new Error('tokenizer.json: ' + e.message, { cause: e });
    }
    fixPreTokenizer(hf.pre_tokenizer, fixed.pre_tokenizer);
    fixDecoder(hf.decoder, fixed.decoder);
    fixModel(hf.model, fixed.model);
    fixNormalizer(hf.normalizer, fixed.normalizer);
    this._hf = hf;
    this._vocab = hf.model.vocab;                  // id -> token string (added tokens included)
    this._added = new Map(tj.added_tokens.map((t) => [t.id, t]));
    this._unk = tj.model.unk_token;
    this._byteLevel = components(tj.decoder, 'decoders', []).some((d) => d.type === 'ByteLevel');
    this._byteFallback = !!tj.model.byte_fallback;
    const meta = components(tj.decoder, 'decoders', []).map((d) =>
      (d.type === 'Metaspace' ? d.replacement || '\u2581'
        : d.type === 'Replace' && d.pattern && d.content === ' ' ? d.pattern.String : null)).find((x) => x);
    this._metaspace = meta || null;
    this.vocabSize = this._vocab.length;
    this.specials = specialTokens(tj, hf);
  }

  /* text -> ids, as Hugging Face's tokenizer(text).input_ids (add_special_tokens: true). */
  encode(textIn) {
    if (typeof textIn !== 'string') throw new Error('encode expects a string, not ' + describe(textIn));
    const ids = this._hf.encode(textIn).ids;
    if (ids.some((id) => id === undefined)) {   // as Rust's UnkTokenOutOfVocabulary
      throw new Error('encode: the text has a character outside the vocabulary, whose unk_token ' +
        JSON.stringify(this._unk) + ' is not in it');
    }
    return ids.slice();
  }

  /* text -> the pieces the model encodes one by one, as text: after the normalizer and the
     pre-tokenizer, added tokens not cut out (tokenizer_splits.test.js holds them to Oniguruma's). */
  pretokenize(textIn) {
    if (typeof textIn !== 'string') throw new Error('pretokenize expects a string, not ' + describe(textIn));
    const hf = this._hf, normal = hf.normalizer ? hf.normalizer(textIn) : textIn;
    const pieces = hf.pre_tokenizer ? hf.pre_tokenizer(normal, { section_index: 0 }) : [normal];
    if (!this._byteLevel) return pieces;
    return pieces.map((p) => UTF8_LOSSY.decode(Uint8Array.from(p, (c) => UNICODE_TO_BYTE.get(c))));
  }

  /* ids -> text, as Hugging Face's tokenizer.decode(ids) (special tokens kept). */
  decode(ids) {
    const list = this._ids(ids, 'decode');
    return list.length ? this._hf.decode(list, { skip_special_tokens: false }) : '';
  }

  /* id -> { text, bytes }: the bytes the token stands for (byte-level tokens mapped back through
     GPT-2's byte map, <0xNN> as its byte, "▁" as a space) and text, their UTF-8 decoding, or null
     where the bytes alone are not valid UTF-8 (part of a character). */
  piece(id) {
    this._ids([id], 'piece');
    const tok = this._vocab[id];
    if (tok === undefined) return { text: null, bytes: new Uint8Array(0) };
    if (this._added.has(id)) return { text: tok, bytes: ENC.encode(tok) };
    let bytes = null;
    if (this._byteLevel) {
      const chars = Array.from(tok);
      if (chars.every((c) => UNICODE_TO_BYTE.has(c))) bytes = Uint8Array.from(chars, (c) => UNICODE_TO_BYTE.get(c));
    }
    if (!bytes && this._byteFallback && /^<0x[0-9A-Fa-f]{2}>$/.test(tok)) bytes = Uint8Array.of(parseInt(tok.slice(3, 5), 16));
    if (!bytes) bytes = ENC.encode(this._metaspace ? tok.split(this._metaspace).join(' ') : tok);
    return { text: utf8OrNull(bytes), bytes: bytes };
  }

  // ids (an array or an integer typed array of token ids) -> a plain array, checked.
  _ids(ids, fn) {
    const ok = Array.isArray(ids) || (ArrayBuffer.isView(ids) && !(ids instanceof DataView) &&
      !(ids instanceof Float32Array) && !(ids instanceof Float64Array));
    if (!ok) throw new Error(fn + ' expects an array of token ids, not ' + describe(ids));
    const out = new Array(ids.length);
    for (let i = 0; i < ids.length; i++) {
      const v = typeof ids[i] === 'bigint' ? Number(ids[i]) : ids[i];
      if (!Number.isInteger(v) || v < 0 || v >= this.vocabSize) {
        throw new Error(fn + ': id ' + String(ids[i]) + ' is not in [0, ' + this.vocabSize + ')');
      }
      out[i] = v;
    }
    return out;
  }
}

/* The ids that stand for no text: added tokens marked special, the tokens the post-processor
   inserts and the model's unk_token; sorted by id. */
function specialTokens(tj, hf) {
  const out = new Map();
  for (const t of tj.added_tokens) if (t.special) out.set(t.id, t.content);
  for (const p of components(tj.post_processor, 'processors', [])) {
    for (const s of Object.values(p.special_tokens || {})) {
      (s.ids || []).forEach((id, i) => out.set(id, (s.tokens || [])[i] || s.id));
    }
  }
  const unk = tj.model.unk_token;
  if (typeof unk === 'string' && hf.model.tokens_to_ids.has(unk)) out.set(hf.model.tokens_to_ids.get(unk), unk);
  return Array.from(out, ([id, t]) => ({ id: id, text: t })).sort((a, b) => a.id - b.id);
}

/* A folder's tokenizer files -> a Tokenizer; an Error naming the problem otherwise. */
export function fromFiles(files) {
  if (!files || typeof files !== 'object' || Array.isArray(files)) {
    throw new Error('fromFiles expects { "tokenizer.json": bytes, ... }, not ' + describe(files));
  }
  const { tj, config } = tokenizerJson(files);
  return new Tokenizer(checkJson(tj), config);
}
