// tokenizer_poems.test.js - the poem model's tokenizer.json (web/models/poems, written by
// tools/tokenizer/poems.js from vocab.json) gives the engine's own character-level ids
// (engine-vocab.js: "<s>", one id per character, "<unk>" for unknown ones, spaces and newlines
// included) and decodings, on 4,000 texts: seeded mixed texts and poem-like lines of its characters.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { BlockLens, root } = require('./helpers.js');
const { Tokenizers } = require('./tokenizer_data.js');
const { texts, rng } = require('./tokenizer_strings.js');
const { poemTokenizerJson } = require('../../tools/tokenizer/poems.js');

const DIR = path.join(root, 'web', 'models', 'poems');
const read = (f) => fs.readFileSync(path.join(DIR, f));
const VOCAB = JSON.parse(read('vocab.json'));

// Lines of the vocabulary's characters, with unknown characters, spaces, newlines and the
// special tokens' texts among them.
function poemTexts(seed, n) {
  const r = rng(seed), extra = [' ', '\n', '\u3000', 'a', 'Z', '7', '😀', '<s>', '<unk>', '</s>', '\u0085', 'e\u0301'];
  const out = [];
  for (let i = 0; i < n; i++) {
    let s = '';
    for (let j = Math.floor(r() * 30); j > 0; j--) s += r() < 0.85 ? VOCAB[2 + Math.floor(r() * (VOCAB.length - 2))] : extra[Math.floor(r() * extra.length)];
    out.push(s);
  }
  return out;
}

let engine, model;
test.before(async () => {
  engine = await BlockLens.load();
  model = engine.loadModel({ weights: read('model.safetensors'), config: JSON.parse(read('config.json')), vocab: VOCAB });
});
test.after(() => model && model.free());

test('poems_tokenizer_json_is_what_vocab_json_gives', () => {
  assert.equal(read('tokenizer.json').toString('utf8'), JSON.stringify(poemTokenizerJson(VOCAB), null, 2) + '\n',
    'node tools/tokenizer/poems.js rewrites it');
});

test('poems_tokenizer_gives_the_engines_ids_and_decodings', () => {
  const t = Tokenizers.fromFiles({ 'tokenizer.json': read('tokenizer.json') });
  const all = texts(3, 2000).concat(poemTexts(5, 2000), ['', ' ', '\n\n', '<s>', '<unk>', '床前明月光，疑是地上霜。']);
  const bad = [];
  let known = 0, unknown = 0;
  for (const s of all) {
    const got = t.encode(s), want = Array.from(model.encode(s));
    if (JSON.stringify(got) !== JSON.stringify(want)) { bad.push(JSON.stringify(s) + ': ' + got + ' / ' + want); continue; }
    if (t.decode(got) !== model.decode(want)) bad.push(JSON.stringify(s) + ' decodes as ' + JSON.stringify(t.decode(got)));
    for (const id of got.slice(1)) if (id === 1) unknown++; else known++;
  }
  assert.deepEqual(bad.slice(0, 5), [], `${bad.length} of ${all.length} texts differ`);
  assert.ok(known > 20000 && unknown > 20000, `${known} known and ${unknown} unknown characters compared`);
  assert.deepEqual(t.encode('床前 明\n'), [0, VOCAB.indexOf('床'), VOCAB.indexOf('前'), 1, VOCAB.indexOf('明'), 1]);
  assert.equal(t.decode([0, 1, VOCAB.indexOf('月')]), '<s><unk>月');
  assert.equal(t.vocabSize, VOCAB.length);
  assert.deepEqual(t.specials, [{ id: 0, text: '<s>' }, { id: 1, text: '<unk>' }]);
  assert.deepEqual(t.piece(VOCAB.indexOf('月')), { text: '月', bytes: Uint8Array.from(Buffer.from('月')) });
});
