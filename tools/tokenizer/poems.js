#!/usr/bin/env node
/* tools/tokenizer/poems.js - writes web/models/poems/tokenizer.json (Hugging Face tokenizers'
   format) from vocab.json, giving the ids of the engine's character-level encode
   (web/src/engine/engine-vocab.js): "<s>", then one id per character (code point), "<unk>" for a
   character not in the vocabulary, spaces and newlines included (the vocabulary has neither, so
   they are "<unk>"). How: a BPE with no merges (a word is split into its characters and never
   joined), no normalizer and no pre-tokenizer (the whole text is one word), unk_token "<unk>"
   without fuse_unk (one "<unk>" per character), TemplateProcessing "<s> $A", and the Fuse
   decoder (the tokens' strings joined; with no decoder the Rust library joins them with spaces).
   "<s>" and "<unk>" are not added tokens: an added token is cut out of the text before the model
   sees it, so "<s>" typed in a text would become id 0, where the engine reads its 3 characters.
   Usage: node tools/tokenizer/poems.js [--check]   (--check: fail if the file differs) */
'use strict';
const fs = require('fs');
const path = require('path');

const DIR = path.join(__dirname, '..', '..', 'web', 'models', 'poems');

function poemTokenizerJson(list) {
  const vocab = {};
  list.forEach((s, i) => { vocab[s] = i; });
  if (vocab['<s>'] !== 0 || vocab['<unk>'] !== 1) throw new Error('vocab.json must start with "<s>", "<unk>"');
  const bos = { id: '<s>', type_id: 0 };
  return {
    version: '1.0', truncation: null, padding: null, added_tokens: [], normalizer: null, pre_tokenizer: null,
    post_processor: { type: 'TemplateProcessing',
      single: [{ SpecialToken: bos }, { Sequence: { id: 'A', type_id: 0 } }],
      pair: [{ SpecialToken: bos }, { Sequence: { id: 'A', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } }],
      special_tokens: { '<s>': { id: '<s>', ids: [0], tokens: ['<s>'] } } },
    decoder: { type: 'Fuse' },
    model: { type: 'BPE', dropout: null, unk_token: '<unk>', continuing_subword_prefix: null, end_of_word_suffix: null,
      fuse_unk: false, byte_fallback: false, ignore_merges: false, vocab: vocab, merges: [] }
  };
}

function main(argv) {
  const list = JSON.parse(fs.readFileSync(path.join(DIR, 'vocab.json'), 'utf8'));
  const out = JSON.stringify(poemTokenizerJson(list), null, 2) + '\n', file = path.join(DIR, 'tokenizer.json');
  if (argv.includes('--check')) {
    if (fs.readFileSync(file, 'utf8') !== out) throw new Error(file + ' is not what vocab.json gives: rerun without --check');
    return console.log(file + ' matches vocab.json');
  }
  fs.writeFileSync(file, out);
  console.log('wrote ' + path.relative(process.cwd(), file) + ' (' + out.length + ' bytes, ' + list.length + ' tokens)');
}

if (require.main === module) main(process.argv.slice(2));
module.exports = { poemTokenizerJson };
