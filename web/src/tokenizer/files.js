/* tokenizer/files.js - a model folder's tokenizer files read as Hugging Face reads them: the
   bytes as UTF-8 text, JSON parsed with the file named in every error, and GPT-2's vocab.json +
   merges.txt turned into the tokenizer.json that transformers' GPT2Converter builds from them. */

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
export const FILE_NAMES = ['tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json', 'vocab.json',
  'merges.txt'];

// files[name] (Uint8Array, ArrayBuffer or string) -> string, or null where the folder has none.
export function text(files, name) {
  if (!Object.prototype.hasOwnProperty.call(files, name) || files[name] == null) return null;
  const v = files[name];
  if (typeof v === 'string') return v;
  const bytes = v instanceof ArrayBuffer ? new Uint8Array(v) : ArrayBuffer.isView(v) ? v : null;
  if (!bytes) throw new Error(name + ' must be a Uint8Array or a string, not ' + describe(v));
  try {
    return UTF8.decode(bytes);
  } catch (e) {
    throw new Error(name + ' is not UTF-8 text', { cause: e });
  }
}

export function json(files, name) {
  const s = text(files, name);
  if (s === null) return null;
  try {
    return JSON.parse(s);
  } catch (e) {
    throw new Error(name + ' is not JSON: ' + e.message, { cause: e });
  }
}

export function describe(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return (v.constructor && v.constructor.name) || 'an object';
  return typeof v;
}

// A special token's text as tokenizer_config.json or special_tokens_map.json writes it: a
// string, or an AddedToken object { content, ... }.
const content = (t) => (typeof t === 'string' ? t : t && typeof t.content === 'string' ? t.content : null);

/* vocab.json ({ token: id }) + merges.txt ("a b" per line after a "#version" line) -> the
   tokenizer.json of a byte-level BPE, as transformers' GPT2Converter writes it: ByteLevel
   pre-tokenizer (add_prefix_space from tokenizer_config.json, default false), ByteLevel decoder
   and post-processor (TemplateProcessing with the bos_token where add_bos_token is true), and the
   special tokens of tokenizer_config.json / special_tokens_map.json (GPT-2's default:
   "<|endoftext|>") as added tokens where the vocabulary has them. */
export function gpt2TokenizerJson(vocab, mergesTxt, config, specialMap) {
  if (!vocab || typeof vocab !== 'object' || Array.isArray(vocab)) {
    throw new Error('vocab.json must be an object { token: id } (GPT-2\'s form), not ' + describe(vocab));
  }
  for (const [tok, id] of Object.entries(vocab)) {
    if (!Number.isInteger(id) || id < 0) throw new Error('vocab.json: the id of ' + JSON.stringify(tok) + ' is ' + id);
  }
  const merges = [];
  const lines = mergesTxt.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line === '' || (i === 0 && line.startsWith('#version'))) continue;
    const parts = line.split(' ');
    if (parts.length !== 2 || !parts[0] || !parts[1]) {
      throw new Error('merges.txt line ' + (i + 1) + ' is not two tokens separated by one space: ' +
        JSON.stringify(line));
    }
    merges.push(parts);
  }
  const cfg = config || {}, map = specialMap || {};
  const names = ['bos_token', 'eos_token', 'unk_token', 'sep_token', 'pad_token', 'cls_token', 'mask_token'];
  const specials = new Set();
  for (const src of [cfg, map]) {
    for (const n of names) if (content(src[n])) specials.add(content(src[n]));
    for (const t of src.additional_special_tokens || []) if (content(t)) specials.add(content(t));
  }
  if (!specials.size) specials.add('<|endoftext|>');
  const added = [];
  for (const s of specials) {
    if (Object.prototype.hasOwnProperty.call(vocab, s)) {
      added.push({ id: vocab[s], content: s, single_word: false, lstrip: false, rstrip: false, normalized: true,
        special: true });
    }
  }
  added.sort((a, b) => a.id - b.id);
  const bos = content(cfg.bos_token) || content(map.bos_token);
  const post = cfg.add_bos_token && bos && Object.prototype.hasOwnProperty.call(vocab, bos)
    ? { type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: bos, type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
      pair: [{ SpecialToken: { id: bos, type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: bos, type_id: 1 } }, { Sequence: { id: 'B', type_id: 1 } }],
      special_tokens: { [bos]: { id: bos, ids: [vocab[bos]], tokens: [bos] } } }
    : { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true };
  return {
    version: '1.0', truncation: null, padding: null, added_tokens: added, normalizer: null,
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: !!cfg.add_prefix_space, trim_offsets: true, use_regex: true },
    post_processor: post,
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: { type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: '', end_of_word_suffix: '',
      fuse_unk: false, byte_fallback: false, ignore_merges: false, vocab: vocab, merges: merges }
  };
}
