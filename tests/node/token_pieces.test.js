// token_pieces.test.js - the token strip's labels of an opened model (dom/opener.js pieceLabel):
// a piece is shown as its text, spaces as ␣ and newlines as ⏎; a piece that is only part of a
// UTF-8 character (GPT-2 cuts most Chinese characters into two or three byte pieces) as its
// bytes, e.g. <e5 ba>, never as U+FFFD.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { Tokenizers, gpt2Files } = require('./tokenizer_data.js');

const { pieceLabel } = require(path.join(__dirname, '..', '..', 'web', 'src', 'dom', 'opener.js'));

test('a_piece_shows_its_text_with_visible_spaces_and_newlines', () => {
  assert.equal(pieceLabel({ text: ' the', bytes: new Uint8Array([32, 116, 104, 101]) }), '\u2423the');
  assert.equal(pieceLabel({ text: '\n', bytes: new Uint8Array([10]) }), '\u23ce');
});

test('a_piece_that_is_part_of_a_utf8_character_shows_its_bytes', () => {
  assert.equal(pieceLabel({ text: null, bytes: new Uint8Array([0xe5, 0xba]) }), '<e5 ba>');
});

test('gpt2_pieces_of_chinese_text_are_bytes_or_text_and_never_the_replacement_character', () => {
  const t = Tokenizers.fromFiles(gpt2Files()), ids = t.encode('床前明月光，疑是地上霜。 the end');
  const labels = ids.map((id) => pieceLabel(t.piece(id)));
  assert.ok(labels.every((l) => !l.includes('\ufffd')), labels.join(' '));
  assert.ok(labels.some((l) => /^<[0-9a-f]{2}( [0-9a-f]{2})*>$/.test(l)), 'some piece is part of a character');
  assert.ok(labels.includes('\u2423the'), labels.join(' '));
  // The bytes of the pieces, joined, are the text's UTF-8.
  const bytes = Buffer.concat(ids.map((id) => Buffer.from(t.piece(id).bytes)));
  assert.equal(bytes.toString('utf8'), '床前明月光，疑是地上霜。 the end');
});
