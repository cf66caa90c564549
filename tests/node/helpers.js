// helpers.js - shared by the Node tests: the built module, the committed fixtures (the same
// files the C tests read) and a tolerance check that reports the max difference.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const assert = require('node:assert/strict');

const root = path.join(__dirname, '..', '..');
const BlockLens = require(root);   // package.json main: web/dist/blocklens.js

function fixture(name) {
  const doc = JSON.parse(fs.readFileSync(path.join(root, 'tests', 'fixtures', name), 'utf8'));
  assert.ok(Array.isArray(doc.cases) && doc.cases.length > 0, `${name} has cases`);
  return doc.cases;
}

/* |got - want| <= atol + rtol * |want| everywhere; returns the max difference. */
function assertClose(got, want, atol, rtol, label) {
  assert.equal(got.length, want.length, `${label}: length`);
  let maxDiff = 0, bad = -1;
  for (let i = 0; i < want.length; i++) {
    const diff = Math.abs(got[i] - want[i]);
    if (!(diff <= atol + rtol * Math.abs(want[i])) && bad < 0) bad = i;
    if (!(diff <= maxDiff)) maxDiff = diff;
  }
  assert.ok(bad < 0, `${label}: index ${bad} got ${got[bad]} want ${want[bad]} (max diff ${maxDiff}, atol ${atol}, rtol ${rtol})`);
  return maxDiff;
}

/* Fixture inputs use the C names; the JS API uses these. */
const JS_NAME = { w1: 'W1', w2: 'W2', w3: 'W3', wq: 'Wq', wk: 'Wk', wv: 'Wv', wo: 'Wo',
  key_mask: 'keyMask', ln1_gamma: 'ln1Gamma', ln1_beta: 'ln1Beta', ln2_gamma: 'ln2Gamma',
  ln2_beta: 'ln2Beta' };
function jsInputs(inputs) {
  const out = {};
  for (const [k, v] of Object.entries(inputs)) out[JS_NAME[k] || k] = k === 'key_mask' ? v : Float32Array.from(v);
  return out;
}

module.exports = { BlockLens, fixture, assertClose, jsInputs, root };
