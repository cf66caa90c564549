// tokenizer_byte_fallback.test.js - SentencePiece-style BPE with byte fallback, as Llama 2 and
// TinyLlama ship it: the tokenizer.json of Llama 2's 32,000-token vocabulary (rebuilt from the
// vocabulary and merges that llama-tokenizer-js embeds) gives llama-tokenizer-js's ids on
// 3,000 seeded texts; "▁" pieces read as spaces and <0xNN> pieces as their byte.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { Tokenizers } = require('./tokenizer_data.js');
const { texts } = require('./tokenizer_strings.js');

let llama, t;

// Llama 2's tokenizer.json (meta-llama/Llama-2-7b-hf, the same in TinyLlama): Prepend "▁" and
// spaces as "▁", no pre-tokenizer, BPE with byte_fallback and fuse_unk, "<s> $A", and the decoder
// chain Replace "▁" -> " ", ByteFallback, Fuse, Strip one leading space.
function llama2TokenizerJson(vocabById, merges) {
  const special = (id, content) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false,
    special: true });
  const vocab = {};
  vocabById.forEach((s, i) => { vocab[s] = i; });
  const bos = { SpecialToken: { id: '<s>', type_id: 0 } };
  return { version: '1.0', truncation: null, padding: null,
    added_tokens: [special(0, '<unk>'), special(1, '<s>'), special(2, '</s>')],
    normalizer: { type: 'Sequence', normalizers: [{ type: 'Prepend', prepend: '\u2581' },
      { type: 'Replace', pattern: { String: ' ' }, content: '\u2581' }] },
    pre_tokenizer: null,
    post_processor: { type: 'TemplateProcessing', single: [bos, { Sequence: { id: 'A', type_id: 0 } }],
      pair: [bos, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '<s>', type_id: 1 } },
        { Sequence: { id: 'B', type_id: 1 } }],
      special_tokens: { '<s>': { id: '<s>', ids: [1], tokens: ['<s>'] } } },
    decoder: { type: 'Sequence', decoders: [{ type: 'Replace', pattern: { String: '\u2581' }, content: ' ' },
      { type: 'ByteFallback' }, { type: 'Fuse' }, { type: 'Strip', content: ' ', start: 1, stop: 0 }] },
    model: { type: 'BPE', dropout: null, unk_token: '<unk>', continuing_subword_prefix: null, end_of_word_suffix: null,
      fuse_unk: true, byte_fallback: true, vocab, merges } };
}

// The special tokens' texts are cut out before the normalizer in Hugging Face (each part then
// gets its own "▁"); llama-tokenizer-js reads them as characters: those texts are tested apart.
const SPECIAL_TEXT = /<s>|<\/s>|<unk>/;
const TEXTS = texts(13, 3200).filter((s) => s && !SPECIAL_TEXT.test(s));

test.before(async () => {
  llama = (await import('llama-tokenizer-js')).default;
  const tj = llama2TokenizerJson(llama.vocabById, Array.from(llama.merges.keys()));
  t = Tokenizers.fromFiles({ 'tokenizer.json': JSON.stringify(tj) });
});

test('llama2_byte_fallback_gives_llama_tokenizer_js_ids', () => {
  const bad = [];
  for (const s of TEXTS) {
    const got = t.encode(s), want = llama.encode(s);
    if (JSON.stringify(got) !== JSON.stringify(want)) bad.push(JSON.stringify(s) + ': ' + got + ' / ' + want);
  }
  assert.ok(TEXTS.length >= 3000, `${TEXTS.length} texts compared`);
  assert.deepEqual(bad.slice(0, 5), [], `${bad.length} of ${TEXTS.length} texts differ`);
  assert.equal(t.vocabSize, 32000);
  assert.deepEqual(t.specials, [{ id: 0, text: '<unk>' }, { id: 1, text: '<s>' }, { id: 2, text: '</s>' }]);
});

test('llama2_decode_keeps_bos_and_gives_the_text_back', () => {
  const bad = TEXTS.filter((s) => t.decode(t.encode(s)) !== '<s> ' + s || t.decode(t.encode(s).slice(1)) !== s);
  assert.deepEqual(bad.slice(0, 5).map((s) => JSON.stringify(s)), [], `${bad.length} of ${TEXTS.length} texts`);
  assert.deepEqual(t.encode('Hello world!'), [1, 15043, 3186, 29991]);
  assert.equal(t.decode([1, 15043, 3186, 29991]), '<s> Hello world!');
  // a byte run that is not UTF-8: one U+FFFD per byte, as the Rust ByteFallback decoder gives
  const e5 = 3 + 0xe5, ba = 3 + 0xba;
  assert.equal(t.decode([e5, ba]), '\ufffd\ufffd');
  assert.equal(t.decode([e5, ba, 3 + 0x8a]), '床');
});

test('llama2_specials_in_text_are_cut_out_before_the_normalizer', () => {
  assert.deepEqual(t.encode(''), [1]);
  assert.deepEqual(t.encode('a</s>b'), [1].concat(t.encode('a').slice(1), [2], t.encode('b').slice(1)));
});

test('llama2_pieces_show_spaces_and_bytes', () => {
  assert.deepEqual(t.piece(15043), { text: ' Hello', bytes: Uint8Array.from(Buffer.from(' Hello')) });
  assert.deepEqual(t.piece(3 + 0x0a), { text: '\n', bytes: Uint8Array.of(0x0a) });
  assert.deepEqual(t.piece(3 + 0xe5), { text: null, bytes: Uint8Array.of(0xe5) });
  assert.deepEqual(t.piece(1), { text: '<s>', bytes: Uint8Array.from(Buffer.from('<s>')) });
  for (const s of TEXTS.slice(0, 1000)) {
    const bytes = Buffer.concat(t.encode(s).slice(1).map((id) => t.piece(id).bytes));
    assert.deepEqual(bytes, Buffer.from(' ' + s, 'utf8'), JSON.stringify(s));
  }
});
