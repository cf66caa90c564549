// tokenizer_files.test.js - fromFiles reads a folder as transformers does (tokenizer.json wins
// over vocab.json + merges.txt; tokenizer_config.json's add_bos_token, add_prefix_space and
// clean_up_tokenization_spaces) and throws an Error naming the problem: no tokenizer file, a
// file that is not UTF-8 or not JSON, an unsupported model type, bad arguments.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { Tokenizers, gpt2Files, root } = require('./tokenizer_data.js');

const POEMS = fs.readFileSync(path.join(root, 'web', 'models', 'poems', 'tokenizer.json'));
const fromFiles = Tokenizers.fromFiles;
const small = (model, extra) => JSON.stringify(Object.assign({ added_tokens: [], normalizer: null, pre_tokenizer: null,
  post_processor: null, decoder: null, model }, extra));

test('tokenizer_json_wins_over_vocab_json_and_merges_txt', () => {
  const t = fromFiles(Object.assign(gpt2Files(), { 'tokenizer.json': POEMS }));
  assert.deepEqual(t.encode('a'), [0, 1]);
  assert.equal(t.vocabSize, 3436);
});

test('gpt2_files_read_tokenizer_config_and_special_tokens_map', () => {
  const cfg = (c) => Object.assign(gpt2Files(), { 'tokenizer_config.json': JSON.stringify(c) });
  assert.deepEqual(fromFiles(cfg({ add_bos_token: true, bos_token: '<|endoftext|>' })).encode('Hello'), [50256, 15496]);
  assert.deepEqual(fromFiles(cfg({ add_prefix_space: true })).encode('Hello'), [18435]);   // " Hello"
  // clean_up_tokenization_spaces: false unless the config says true (the library's default is true)
  assert.equal(fromFiles(gpt2Files()).decode(fromFiles(gpt2Files()).encode('Hello . a ,b')), 'Hello . a ,b');
  const clean = fromFiles(cfg({ clean_up_tokenization_spaces: true }));
  assert.equal(clean.decode(clean.encode('Hello . a ,b')), 'Hello. a,b');
  const withMap = fromFiles(Object.assign(gpt2Files(), { 'special_tokens_map.json': '{"eos_token": {"content": "<|endoftext|>"}}' }));
  assert.deepEqual(withMap.specials, [{ id: 50256, text: '<|endoftext|>' }]);
});

test('strings_and_bytes_are_both_read', () => {
  const fromString = fromFiles({ 'tokenizer.json': POEMS.toString('utf8') });
  const fromBytes = fromFiles({ 'tokenizer.json': new Uint8Array(POEMS) });
  const fromBuffer = fromFiles({ 'tokenizer.json': POEMS.buffer.slice(POEMS.byteOffset, POEMS.byteOffset + POEMS.length) });
  for (const t of [fromBytes, fromBuffer]) assert.deepEqual(t.encode('床前明月光'), fromString.encode('床前明月光'));
});

test('a_folder_without_a_tokenizer_file_is_named', () => {
  assert.throws(() => fromFiles({}), { message: /^no tokenizer file: the folder needs tokenizer\.json, or vocab\.json with merges\.txt \(it has none of tokenizer\.json, / });
  assert.throws(() => fromFiles({ 'config.json': '{}' }), { message: /no tokenizer file: .*\(it has config\.json\)/ });
  assert.throws(() => fromFiles({ 'vocab.json': '{"a": 0}' }), { message: /^vocab\.json without merges\.txt/ });
  assert.throws(() => fromFiles({ 'merges.txt': 'a b' }), { message: /^no tokenizer file/ });
});

test('bad_text_and_bad_json_name_the_file', () => {
  assert.throws(() => fromFiles({ 'tokenizer.json': '{"model": ' }), { message: /^tokenizer\.json is not JSON: / });
  assert.throws(() => fromFiles({ 'tokenizer.json': Uint8Array.of(0x7b, 0xff, 0x7d) }), { message: /^tokenizer\.json is not UTF-8 text$/ });
  assert.throws(() => fromFiles({ 'tokenizer.json': POEMS, 'tokenizer_config.json': 'nope' }), { message: /^tokenizer_config\.json is not JSON/ });
  assert.throws(() => fromFiles({ 'tokenizer.json': 42 }), { message: /^tokenizer\.json must be a Uint8Array or a string, not number$/ });
  assert.throws(() => fromFiles({ 'tokenizer.json': '[]' }), { message: /^tokenizer\.json must be an object, not an array$/ });
  assert.throws(() => fromFiles({ 'tokenizer.json': '{}' }), { message: /^tokenizer\.json has no "model"$/ });
  assert.throws(() => fromFiles(Object.assign(gpt2Files(), { 'merges.txt': '#version: 0.2\nĠ t\nbad\n' })),
    { message: /^merges\.txt line 3 is not two tokens separated by one space: "bad"$/ });
  assert.throws(() => fromFiles({ 'vocab.json': '["a"]', 'merges.txt': '' }), { message: /^vocab\.json must be an object \{ token: id \}/ });
});

test('an_unsupported_model_type_says_which_are_supported', () => {
  const msg = /^tokenizer\.json: model type "(Unigram|WordPiece|WordLevel)" is not supported \(supported: BPE: byte-level as GPT-2, Llama-3 and Qwen, or SentencePiece-style with byte fallback\)$/;
  assert.throws(() => fromFiles({ 'tokenizer.json': small({ type: 'Unigram', vocab: [['a', 0]] }) }), { message: msg });
  assert.throws(() => fromFiles({ 'tokenizer.json': small({ type: 'WordPiece', vocab: { a: 0 } }) }), { message: msg });
  assert.throws(() => fromFiles({ 'tokenizer.json': small({ type: 'WordLevel', vocab: { a: 0 } }) }), { message: msg });
  assert.throws(() => fromFiles({ 'tokenizer.json': small({ type: 'BPE', vocab: { a: 0 }, merges: [] }, { normalizer: { type: 'Nope' } }) }),
    { message: /^tokenizer\.json: Unknown Normalizer type: Nope$/ });
});

test('bad_arguments_are_named', () => {
  const t = fromFiles({ 'tokenizer.json': POEMS });
  assert.throws(() => fromFiles(null), { message: /^fromFiles expects \{ "tokenizer\.json": bytes, \.\.\. \}, not null$/ });
  assert.throws(() => fromFiles([]), { message: /not an array$/ });
  assert.throws(() => t.encode(5), { message: /^encode expects a string, not number$/ });
  assert.throws(() => t.decode('abc'), { message: /^decode expects an array of token ids, not string$/ });
  assert.throws(() => t.decode(new Float32Array(2)), { message: /^decode expects an array of token ids, not Float32Array$/ });
  assert.throws(() => t.decode([0, 3436]), { message: /^decode: id 3436 is not in \[0, 3436\)$/ });
  assert.throws(() => t.decode([1.5]), { message: /^decode: id 1\.5 is not in/ });
  assert.throws(() => t.piece(-1), { message: /^piece: id -1 is not in \[0, 3436\)$/ });
  assert.deepEqual(t.decode([]), '');
});

test('the_bundle_registers_under_its_symbol_where_there_is_no_commonjs', () => {
  // as a classic <script> or a Worker's importScripts runs it: no module, self is the global
  const vm = require('node:vm');
  const code = fs.readFileSync(path.join(root, 'web', 'dist', 'blocklens-tokenizers.js'), 'utf8');
  const ctx = vm.createContext({ TextDecoder, TextEncoder });
  vm.runInContext('globalThis.self = globalThis', ctx);
  const before = vm.runInContext('Object.getOwnPropertyNames(globalThis).join()', ctx);
  vm.runInContext(code, ctx);
  const api = vm.runInContext('self[Symbol.for("blocklens.tokenizers")]', ctx);
  assert.equal(typeof api.fromFiles, 'function');
  assert.equal(vm.runInContext('Object.getOwnPropertyNames(globalThis).join()', ctx), before, 'no named global');
  assert.deepEqual(Array.from(api.fromFiles({ 'tokenizer.json': POEMS.toString('utf8') }).encode('月')), [0, 19]);
});
