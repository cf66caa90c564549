// tokenizer_llama3_qwen3.test.js - Llama-3's and Qwen3's tokenizer.json (byte-level BPE with a
// Split pre-tokenizer; Llama-3 with ignore_merges, Qwen3 with an NFC normalizer) give the ids
// and decodings of @lenml/tokenizers on 3,000 seeded texts, and the post-processor as the file
// writes it: this Llama-3 file adds nothing, Meta's adds <|begin_of_text|>.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { Tokenizers, llama3Files, qwen3Files, lenml } = require('./tokenizer_data.js');
const { texts } = require('./tokenizer_strings.js');

// @lenml/tokenizers shares the library's (?i:...) folding and reads \s as JavaScript does: those
// texts are left to tokenizer_splits.test.js, which holds the split to Oniguruma's.
const LENML_DIFFERS = /[\u0085\ufeff]|'[\u017f\u212a]/i;
const TEXTS = texts(11, 3400).filter((s) => !LENML_DIFFERS.test(s));

// transformers' clean_up_tokenization, which decode applies where tokenizer_config.json's
// clean_up_tokenization_spaces is true (Llama-3's is).
const cleanUp = (s) => s.replace(/ \./g, '.').replace(/ \?/g, '?').replace(/ !/g, '!').replace(/ ,/g, ',')
  .replace(/ ' /g, '\'').replace(/ n't/g, 'n\'t').replace(/ 'm/g, '\'m').replace(/ 's/g, '\'s')
  .replace(/ 've/g, '\'ve').replace(/ 're/g, '\'re');

// Each tokenizer read once (Llama-3's takes about 2 s).
const once = (f) => { let v; return () => (v === undefined ? (v = f()) : v); };
const LLAMA3 = once(() => Tokenizers.fromFiles(llama3Files())), QWEN3 = once(() => Tokenizers.fromFiles(qwen3Files()));
const LLAMA3_REF = once(() => lenml(llama3Files())), QWEN3_REF = once(() => lenml(qwen3Files()));

function compare(t, ref) {
  const bad = [], badDecode = [];
  for (const s of TEXTS) {
    const got = t.encode(s), want = ref.encode(s);
    if (JSON.stringify(got) !== JSON.stringify(want)) bad.push(JSON.stringify(s) + ': ' + got + ' / ' + want);
    else if (t.decode(got) !== ref.decode(want)) badDecode.push(JSON.stringify(s));
  }
  assert.ok(TEXTS.length >= 3000, `${TEXTS.length} texts compared`);
  assert.deepEqual(bad.slice(0, 5), [], `${bad.length} of ${TEXTS.length} texts differ`);
  assert.deepEqual(badDecode.slice(0, 5), [], `${badDecode.length} decodings differ`);
  return t;
}

test('llama3_gives_lenml_ids_and_decodings', () => {
  const t = compare(LLAMA3(), LLAMA3_REF());
  assert.equal(t.vocabSize, 128256);
  assert.equal(t.specials.length, 256);
  assert.deepEqual(t.specials[0], { id: 128000, text: '<|begin_of_text|>' });
  const bad = TEXTS.filter((s) => t.decode(t.encode(s)) !== cleanUp(s));
  assert.deepEqual(bad.slice(0, 5), [], 'decode gives the text back, spaces cleaned up as transformers does');
});

test('llama3_splits_digits_in_threes_and_keeps_vocab_words_whole', () => {
  const t = LLAMA3();
  assert.deepEqual(t.pretokenize('x 1234567'), ['x', ' ', '123', '456', '7']);
  assert.deepEqual(t.encode('Hello world'), [9906, 1917]);
  // ignore_merges: a pre-tokenized word that is in the vocabulary is one token, whatever the
  // merges give (" jeho" is id 101503; Llama-3's merges alone make 3 tokens of it, 588 such words)
  const tj = JSON.parse(llama3Files()['tokenizer.json']);
  const merged = Tokenizers.fromFiles({ 'tokenizer.json': JSON.stringify(Object.assign({}, tj,
    { model: Object.assign({}, tj.model, { ignore_merges: false }) })) });
  assert.deepEqual(t.encode('a jeho'), [64, 101503]);
  assert.equal(merged.encode('a jeho').length, 4);
  assert.deepEqual(LLAMA3_REF().encode('a jeho'), [64, 101503]);
});

test('llama3_metas_post_processor_adds_begin_of_text', () => {
  const files = llama3Files(), tj = JSON.parse(files['tokenizer.json']);
  const bos = '<|begin_of_text|>';
  // Meta's Llama-3 tokenizer.json: ByteLevel, then TemplateProcessing "<|begin_of_text|> $A"
  tj.post_processor = { type: 'Sequence', processors: [
    { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true },
    { type: 'TemplateProcessing', single: [{ SpecialToken: { id: bos, type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
      pair: [{ SpecialToken: { id: bos, type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: bos, type_id: 1 } }, { Sequence: { id: 'B', type_id: 1 } }],
      special_tokens: { [bos]: { id: bos, ids: [128000], tokens: [bos] } } }] };
  const meta = Tokenizers.fromFiles({ 'tokenizer.json': JSON.stringify(tj), 'tokenizer_config.json': files['tokenizer_config.json'] });
  const plain = LLAMA3();
  for (const s of TEXTS.slice(0, 500)) assert.deepEqual(meta.encode(s), [128000].concat(plain.encode(s)));
  assert.deepEqual(meta.encode(''), [128000]);
  assert.equal(meta.decode(meta.encode('Hello world')), '<|begin_of_text|>Hello world');
});

test('qwen3_gives_lenml_ids_and_decodings', () => {
  const t = compare(QWEN3(), QWEN3_REF());
  assert.equal(t.vocabSize, 151669);
  assert.deepEqual(t.specials[0], { id: 151643, text: '<|endoftext|>' });
  const bad = TEXTS.filter((s) => t.decode(t.encode(s)) !== s.normalize('NFC'));
  assert.deepEqual(bad.slice(0, 5), [], 'decode gives the NFC text back');
});

test('qwen3_normalizes_nfc_and_splits_digits_one_by_one', () => {
  const t = QWEN3();
  assert.deepEqual(t.encode('e\u0301'), t.encode('\u00e9'));
  assert.deepEqual(t.encode('\u1112\u1161\u11ab'), t.encode('한'));
  assert.deepEqual(t.pretokenize('x 123'), ['x', ' ', '1', '2', '3']);
  assert.deepEqual(t.encode('<|im_start|>hi<|im_end|>').filter((id) => id >= 151643), [151644, 151645]);
});
