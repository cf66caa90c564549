// readme.test.js - the README's Node example runs as printed and says what its comments claim.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { root } = require('./helpers.js');

test('the_README_example_runs_and_prints_the_classic_numbers', () => {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const match = readme.match(/```js\n([\s\S]*?)```/);
  assert.ok(match, 'README has a js example');
  const out = execFileSync(process.execPath, ['-e', match[1]], { cwd: root, encoding: 'utf8' });
  assert.match(out, /negative before ReLU: 100\n/);
  assert.match(out, /negative after ReLU: 0\n/);
  assert.match(out, /head 0, token 1 attends to \[ [0-9.e-]+, [0-9.e-]+ \]/);
  assert.match(out, /BERT-base parameters: 109482240\n/);
  assert.match(out, /BlockLens: dModel \(8\) must be divisible by nHeads \(3\)/);
});
