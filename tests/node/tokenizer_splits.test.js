// tokenizer_splits.test.js - the pre-tokenizers split text as Oniguruma does (the regex engine of
// Hugging Face's Rust tokenizers): GPT-2's ByteLevel pattern and Llama-3's and Qwen3's Split
// patterns, on the 1,200 texts of tests/fixtures/tokenizer_splits.json (tools/tokenizer/splits.js
// ran Oniguruma 6.9.8 on them), and the Whitespace and WhitespaceSplit pre-tokenizers keep what
// Oniguruma matches of \w+|[^\w\s]+ and \S+. @huggingface/tokenizers alone differs on some texts
// (the cases fixes.js repairs).
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { Tokenizer: LibTokenizer } = require('@huggingface/tokenizers');
const { Tokenizers, byteLevelText, gpt2TokenizerJson, llama3Files, qwen3Files, root } = require('./tokenizer_data.js');
const { texts } = require('./tokenizer_strings.js');

const doc = JSON.parse(fs.readFileSync(path.join(root, 'tests', 'fixtures', 'tokenizer_splits.json'), 'utf8'));
// A BPE over a one-token vocabulary: only its pre-tokenizer matters here.
const bare = (pre) => () => ({ 'tokenizer.json': JSON.stringify({ added_tokens: [], normalizer: null, pre_tokenizer: pre,
  post_processor: null, decoder: null, model: { type: 'BPE', vocab: { a: 0 }, merges: [] } }) });
const FILES = { gpt2: () => ({ 'tokenizer.json': JSON.stringify(gpt2TokenizerJson()) }),
  llama3: llama3Files, qwen3: qwen3Files,
  whitespace: bare({ type: 'Whitespace' }), whitespace_split: bare({ type: 'WhitespaceSplit' }) };

// pieces -> their UTF-16 lengths, as the fixture stores them
const lengths = (pieces) => pieces.map((p) => p.length);

// The library's own split, without fixes.js (its byte-level pieces mapped back to text).
function libSplit(files) {
  const tj = JSON.parse(files['tokenizer.json']), t = new LibTokenizer(tj, {});
  const toText = /ByteLevel/.test(JSON.stringify(tj.pre_tokenizer)) ? byteLevelText : (p) => p;
  return (text) => t.pre_tokenizer(t.normalizer ? t.normalizer(text) : text).map(toText);
}

test('the_fixture_texts_are_the_generators', () => {
  assert.deepEqual(doc.cases.map((c) => c.text), texts(doc.seed, doc.count));
});

for (const name of Object.keys(FILES)) {
  test(`${name}_splits_as_oniguruma_on_${doc.count}_texts`, () => {
    const t = Tokenizers.fromFiles(FILES[name]()), bad = [];
    for (const c of doc.cases) {
      const got = lengths(t.pretokenize(c.text));
      if (JSON.stringify(got) !== JSON.stringify(c[name])) bad.push(JSON.stringify(c.text) + ' ' + got + ' / ' + c[name]);
    }
    assert.deepEqual(bad.slice(0, 10), [], `${bad.length} of ${doc.count} texts split unlike Oniguruma`);
  });
}

// What fixes.js repairs: without it, the library differs from Oniguruma on these texts.
// (Whitespace: JavaScript's \w is ASCII, so any other letter, mark or digit may split a word.)
const LIB_DIFFERS = { gpt2: /[\u0085\ufeff]/, llama3: /'[\u017f\u212a]/i, qwen3: /'[\u017f\u212a]/i,
  whitespace: /[^ -~\t-\r]/, whitespace_split: /[\u0085\ufeff]/ };
for (const name of Object.keys(FILES)) {
  test(`${name}_the_library_alone_differs_only_where_fixed`, () => {
    const split = libSplit(FILES[name]()), differ = [];
    for (const c of doc.cases) {
      if (JSON.stringify(lengths(split(c.text))) !== JSON.stringify(c[name])) differ.push(c.text);
    }
    assert.ok(differ.length > 0, 'some texts show the library\'s difference');
    assert.deepEqual(differ.filter((s) => !LIB_DIFFERS[name].test(s)), [], 'every difference is one fixes.js repairs');
  });
}
