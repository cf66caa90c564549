// tokenizer_gpt2.test.js - GPT-2's byte-level BPE from a folder's vocab.json + merges.txt and from
// its tokenizer.json gives js-tiktoken's 'gpt2' ids on 3,000 seeded texts; decode gives each text
// back; piece() gives every token's bytes, with text null where they are part of a character.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { getEncoding } = require('js-tiktoken');
const { Tokenizers, gpt2Files, gpt2TokenizerJson } = require('./tokenizer_data.js');
const { texts } = require('./tokenizer_strings.js');

const TEXTS = texts(7, 3000);
// js-tiktoken's pattern uses JavaScript's \s (U+FEFF in, U+0085 out), unlike the Rust libraries:
// those texts are left to tokenizer_splits.test.js, which holds the split to Oniguruma's.
const JS_SPACE = /[\u0085\ufeff]/;
const FORMS = { 'vocab.json + merges.txt': gpt2Files, 'tokenizer.json': () => ({ 'tokenizer.json': JSON.stringify(gpt2TokenizerJson()) }) };

for (const [form, files] of Object.entries(FORMS)) {
  test(`gpt2_from_${form.replace(/[^a-z0-9]+/gi, '_')}_gives_tiktokens_ids`, () => {
    const t = Tokenizers.fromFiles(files()), ref = getEncoding('gpt2'), bad = [];
    let compared = 0;
    for (const s of TEXTS) {
      if (JS_SPACE.test(s)) continue;
      compared++;
      const got = t.encode(s), want = ref.encode(s, 'all');   // "<|endoftext|>" in a text is the special token
      if (JSON.stringify(got) !== JSON.stringify(want)) bad.push(JSON.stringify(s) + ': ' + got + ' / ' + want);
    }
    assert.ok(compared > 2500, `${compared} texts compared`);
    assert.deepEqual(bad.slice(0, 5), [], `${bad.length} of ${compared} texts differ`);
    assert.equal(t.vocabSize, 50257);
    assert.deepEqual(t.specials, [{ id: 50256, text: '<|endoftext|>' }]);
  });
}

test('gpt2_adds_no_special_tokens_and_keeps_endoftext_text_as_its_id', () => {
  const t = Tokenizers.fromFiles(gpt2Files());
  assert.deepEqual(t.encode('Hello world'), [15496, 995]);
  assert.deepEqual(t.encode('a<|endoftext|>b'), [64, 50256, 65]);
  assert.deepEqual(t.encode(''), []);
});

test('gpt2_decode_gives_every_text_back', () => {
  const t = Tokenizers.fromFiles(gpt2Files()), bad = TEXTS.filter((s) => t.decode(t.encode(s)) !== s);
  assert.deepEqual(bad.slice(0, 5), [], `${bad.length} of ${TEXTS.length} texts do not round-trip`);
  assert.equal(t.decode([]), '');
  assert.equal(t.decode(Int32Array.of(15496, 995)), 'Hello world');
});

test('gpt2_pieces_are_the_texts_bytes_and_null_where_part_of_a_character', () => {
  const t = Tokenizers.fromFiles(gpt2Files());
  let partial = 0;
  for (const s of TEXTS) {
    const pieces = t.encode(s).map((id) => t.piece(id));
    assert.deepEqual(Buffer.concat(pieces.map((p) => p.bytes)), Buffer.from(s, 'utf8'), JSON.stringify(s));
    for (const p of pieces) {
      const valid = (() => { try { return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(p.bytes); } catch (e) { return null; } })();
      assert.equal(p.text, valid);
      if (p.text === null) partial++;
    }
  }
  assert.ok(partial > 100, `${partial} pieces are part of a character`);
  // 床 (e5 ba 8a) is two GPT-2 tokens: e5 ba, then 8a
  const ids = t.encode('床');
  assert.deepEqual(ids.map((id) => Array.from(t.piece(id).bytes)), [[0xe5, 0xba], [0x8a]]);
  assert.deepEqual(ids.map((id) => t.piece(id).text), [null, null]);
  assert.deepEqual(t.piece(995), { text: ' world', bytes: Uint8Array.from(Buffer.from(' world')) });
  assert.deepEqual(t.piece(50256), { text: '<|endoftext|>', bytes: Uint8Array.from(Buffer.from('<|endoftext|>')) });
});
