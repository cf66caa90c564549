// tokenizer_rust_rules.test.js - pre-tokenizers and decoders that Llama-3, Qwen3 and GPT-2 do not
// use, held to the Rust library's own unit tests (huggingface/tokenizers: pre_tokenizers/split.rs,
// digits.rs, punctuation.rs, metaspace.rs, decoders/byte_fallback.rs): Split's five behaviours and
// invert, Digits on every numeric character, Punctuation one character at a time, Metaspace's
// split and prepend_scheme, and its decoder. @huggingface/tokenizers alone differs on each.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { Tokenizer: LibTokenizer } = require('@huggingface/tokenizers');
const { Tokenizers } = require('./tokenizer_data.js');

// A tokenizer.json around one pre-tokenizer or decoder (a one-token BPE: only they matter here).
const json = (extra) => Object.assign({ added_tokens: [], normalizer: null, pre_tokenizer: null, post_processor: null,
  decoder: null, model: { type: 'BPE', vocab: { a: 0 }, merges: [] } }, extra);
const ours = (extra) => Tokenizers.fromFiles({ 'tokenizer.json': JSON.stringify(json(extra)) });
const lib = (extra) => new LibTokenizer(json(extra), {});

function pre(pre_tokenizer, text, want) {
  assert.deepEqual(ours({ pre_tokenizer }).pretokenize(text), want, JSON.stringify(pre_tokenizer));
  return lib({ pre_tokenizer }).pre_tokenizer(text);
}

test('split_follows_each_behavior_and_invert_as_split_rs_tests', () => {
  const s = 'How are you doing?', words = { Regex: '\\w+|[^\\w\\s]+' };
  const want = {
    Removed: ['How', 'are', 'you', 'doing', '?'],
    Isolated: ['How', ' ', 'are', ' ', 'you', ' ', 'doing', '?'],
    MergedWithPrevious: ['How ', 'are ', 'you ', 'doing', '?'],
    MergedWithNext: ['How', ' are', ' you', ' doing', '?'],
    Contiguous: ['How', ' ', 'are', ' ', 'you', ' ', 'doing?']
  };
  let libDiffers = 0;
  for (const [behavior, pieces] of Object.entries(want)) {
    const got = pre({ type: 'Split', pattern: words, behavior, invert: true }, s, pieces);
    if (JSON.stringify(got) !== JSON.stringify(pieces)) libDiffers++;
  }
  assert.equal(libDiffers, 4, 'the library keeps only the matches where invert is set (right for Removed only)');
  // normalizer.rs's example: "-" on "the-final--countdown"
  const dash = { String: '-' };
  pre({ type: 'Split', pattern: dash, behavior: 'MergedWithPrevious', invert: false }, 'the-final--countdown', ['the-', 'final-', '-', 'countdown']);
  pre({ type: 'Split', pattern: dash, behavior: 'MergedWithNext', invert: false }, 'the-final--countdown', ['the', '-final', '-', '-countdown']);
  const got = pre({ type: 'Split', pattern: dash, behavior: 'Contiguous', invert: false }, 'the-final--countdown', ['the', '-', 'final', '--', 'countdown']);
  assert.notDeepEqual(got, ['the', '-', 'final', '--', 'countdown'], 'the library reads Contiguous as Isolated');
  // invert: splitting on " " is keeping "Hello"
  pre({ type: 'Split', pattern: { String: ' ' }, behavior: 'Removed', invert: false }, 'Hello Hello Hello', ['Hello', 'Hello', 'Hello']);
  pre({ type: 'Split', pattern: { String: 'Hello' }, behavior: 'Removed', invert: true }, 'Hello Hello Hello', ['Hello', 'Hello', 'Hello']);
});

test('digits_split_at_every_numeric_character_as_digits_rs_tests', () => {
  pre({ type: 'Digits', individual_digits: false }, 'Hey 123 friend!', ['Hey ', '123', ' friend!']);
  pre({ type: 'Digits', individual_digits: true }, 'Hey 123 friend!', ['Hey ', '1', '2', '3', ' friend!']);
  // char::is_numeric: Arabic-Indic digits, superscripts, fractions and Roman numerals too
  const got = pre({ type: 'Digits', individual_digits: false }, 'x٣٤²½Ⅳy', ['x', '٣٤²½Ⅳ', 'y']);
  assert.deepEqual(got, ['x٣٤²½Ⅳy'], 'the library reads ASCII digits only');
});

test('punctuation_isolates_each_character_as_punctuation_rs_tests', () => {
  const want = ['Hey friend', '!', '     How are you', '?', '!', '?'];
  const got = pre({ type: 'Punctuation', behavior: 'Isolated' }, 'Hey friend!     How are you?!?', want);
  assert.notDeepEqual(got, want, 'the library keeps runs of punctuation together');
  pre({ type: 'Punctuation' }, '«Oui»—non', ['«', 'Oui', '»', '—', 'non']);
});

test('metaspace_splits_and_prepends_as_metaspace_rs_tests', () => {
  const always = { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'always', split: true };
  pre(always, 'Hey friend!', ['\u2581Hey', '\u2581friend!']);
  const got = pre(always, 'Hey   friend!', ['\u2581Hey', '\u2581', '\u2581', '\u2581friend!']);
  assert.deepEqual(got, ['\u2581Hey\u2581\u2581\u2581friend!'], 'the library does not split');
  pre(Object.assign({}, always, { split: false }), 'Hey   friend!', ['\u2581Hey\u2581\u2581\u2581friend!']);
  // split defaults to true; add_prefix_space: false is prepend_scheme "never"
  pre({ type: 'Metaspace', replacement: '\u2581', add_prefix_space: false }, 'Hey friend', ['Hey', '\u2581friend']);
  // "first": only the text's first section (not the one after an added token) gets the "▁"
  const first = ours({ pre_tokenizer: { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'first', split: false },
    added_tokens: [{ id: 1, content: '<s>', special: true, normalized: false }],
    model: { type: 'BPE', vocab: { a: 0, '<s>': 1, '\u2581Hey\u2581my\u2581friend\u2581': 2, 'how\u2581are\u2581you': 3 }, merges: [],
      ignore_merges: true } });
  assert.deepEqual(first.encode('Hey my friend <s>how are you'), [2, 1, 3]);
});

test('metaspace_decoder_drops_the_first_tokens_marks_as_metaspace_rs_tests', () => {
  const vocab = { '\u2581Hey': 0, '\u2581friend!': 1, '\u2581\u2581a': 2 };
  const dec = (scheme) => ours({ decoder: { type: 'Metaspace', replacement: '\u2581', prepend_scheme: scheme, split: true },
    model: { type: 'BPE', vocab, merges: [] } });
  assert.equal(dec('always').decode([0, 1]), 'Hey friend!');
  assert.equal(dec('never').decode([0, 1]), ' Hey friend!');
  assert.equal(dec('always').decode([2, 0]), 'a Hey', 'every "▁" of the first token is dropped');
  const libDecode = new LibTokenizer(json({ decoder: { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'never' },
    model: { type: 'BPE', vocab, merges: [] } }), { clean_up_tokenization_spaces: false });
  assert.equal(libDecode.decode([0, 1]), 'Hey friend!', 'the library strips the first space even for "never"');
});

test('byte_fallback_decodes_bad_utf8_one_replacement_per_byte_as_byte_fallback_rs_tests', () => {
  const t = ours({ decoder: { type: 'ByteFallback' }, model: { type: 'BPE', vocab: { '<0x61>': 0, '<0xE5>': 1, '<0x8f>': 2,
    '<0xab>': 3, Hey: 4, friend: 5, '<0xE5>x': 6 }, merges: [] } });
  assert.equal(t.decode([4, 5]), 'Heyfriend');
  assert.equal(t.decode([0]), 'a');
  assert.equal(t.decode([1]), '\ufffd');
  assert.equal(t.decode([1, 2]), '\ufffd\ufffd');
  assert.equal(t.decode([1, 2, 3, 0]), '叫a');
  assert.equal(t.decode([6]), '<0xE5>x');
});

test('fuse_unk_joins_unknown_characters_within_a_word_as_bpe_model_rs', () => {
  const model = (fuse) => ({ type: 'BPE', unk_token: '<unk>', fuse_unk: fuse, vocab: { '<unk>': 0, a: 1 }, merges: [] });
  const pre_tokenizer = { type: 'WhitespaceSplit' };
  assert.deepEqual(ours({ pre_tokenizer, model: model(true) }).encode('xx yy a xa'), [0, 0, 1, 0, 1]);
  assert.deepEqual(ours({ pre_tokenizer, model: model(false) }).encode('xx yy a xa'), [0, 0, 0, 0, 1, 0, 1]);
  assert.deepEqual(lib({ pre_tokenizer, model: model(true) }).encode('xx yy a xa').ids, [0, 1, 0, 1], 'the library fuses across words');
  // an unk_token missing from the vocabulary is an error when it is needed (Rust: UnkTokenOutOfVocabulary)
  const broken = ours({ model: { type: 'BPE', unk_token: '<unk>', vocab: { a: 0 }, merges: [] } });
  assert.deepEqual(broken.encode('aa'), [0, 0]);
  assert.throws(() => broken.encode('ab'), { message: /^encode: the text has a character outside the vocabulary, whose unk_token "<unk>" is not in it$/ });
  assert.throws(() => ours({ model: { type: 'BPE', vocab: { a: 0 }, merges: [], continuing_subword_prefix: '##' } }),
    { message: /^tokenizer\.json: a BPE with continuing_subword_prefix "##" is not supported$/ });
});

test('prepend_leaves_empty_text_and_strip_strips_white_space_as_normalizers_rs', () => {
  const model = { type: 'BPE', unk_token: '<unk>', vocab: { '<unk>': 0, '\u2581': 1, a: 2, '\ufeff': 3 }, merges: [] };
  const normalizer = { type: 'Sequence', normalizers: [{ type: 'Strip', strip_left: true, strip_right: true },
    { type: 'Prepend', prepend: '\u2581' }] };
  const t = ours({ normalizer, model });
  assert.deepEqual(t.encode('  '), [], 'stripped to nothing, nothing is prepended');
  assert.deepEqual(lib({ normalizer, model }).encode('  ').ids, [1], 'the library prepends to the empty text');
  assert.deepEqual(t.encode('\u0085a\ufeff'), [1, 2, 3], 'U+0085 is White_Space, U+FEFF is not');
  assert.deepEqual(lib({ normalizer, model }).encode('\u0085a\ufeff').ids, [1, 0, 2]);
  assert.throws(() => ours({ normalizer: { type: 'Precompiled', precompiled_charsmap: '' } }),
    { message: /^tokenizer\.json: the Precompiled normalizer \(a SentencePiece charsmap\) is not supported$/ });
});
