#!/usr/bin/env node
/* tools/tokenizer/fixtures.js - writes a tokenizer.json into each fixture model folder of
   tests/fixtures/models/ (gen_models.py writes config + weights only), so that the page can open
   the folders as a reader's: a character-level BPE with no merges over vocab_size (64) single
   characters, id i = CHARS[i] (a-z, A-Z, 0-9, "." and ","), unk_token ",", no normalizer,
   pre-tokenizer or post-processor (no BOS: the text's characters are the ids), the Fuse decoder.
   The references' ids [3, 17, 0, 42, 63, 17] are then the text "draQ,r".
   Usage: node tools/tokenizer/fixtures.js [--check]   (--check: fail if a file differs) */
'use strict';
const fs = require('fs');
const path = require('path');

const ROOT = path.join(__dirname, '..', '..', 'tests', 'fixtures', 'models');
const CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,';

function fixtureTokenizerJson(size) {
  if (size > CHARS.length) throw new Error('vocab_size ' + size + ' is more than the ' + CHARS.length + ' characters');
  const vocab = {};
  Array.from(CHARS.slice(0, size)).forEach((c, i) => { vocab[c] = i; });
  return {
    version: '1.0', truncation: null, padding: null, added_tokens: [], normalizer: null, pre_tokenizer: null,
    post_processor: null, decoder: { type: 'Fuse' },
    model: { type: 'BPE', dropout: null, unk_token: CHARS[size - 1], continuing_subword_prefix: null,
      end_of_word_suffix: null, fuse_unk: false, byte_fallback: false, ignore_merges: false, vocab, merges: [] }
  };
}

// The text whose characters are these ids.
const textOf = (ids) => ids.map((i) => CHARS[i]).join('');

function main(argv) {
  for (const name of fs.readdirSync(ROOT).sort()) {
    const dir = path.join(ROOT, name);
    if (!fs.existsSync(path.join(dir, 'config.json'))) continue;
    const cfg = JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8'));
    const out = JSON.stringify(fixtureTokenizerJson(cfg.vocab_size), null, 2) + '\n', file = path.join(dir, 'tokenizer.json');
    if (argv.includes('--check')) {
      if (fs.readFileSync(file, 'utf8') !== out) throw new Error(file + ' differs: rerun without --check');
      continue;
    }
    fs.writeFileSync(file, out);
    console.log('wrote ' + path.relative(process.cwd(), file));
  }
}

if (require.main === module) main(process.argv.slice(2));
module.exports = { fixtureTokenizerJson, textOf, CHARS };
