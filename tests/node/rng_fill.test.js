// rng_fill.test.js - the wasm build's batched normal fills (src/rng.c: SIMD words, attempts and
// a two-lane log) give the values of draws made a few at a time (those stay on the single-draw
// path and libc's log), bit for bit, at the sizes the page draws at BERT widths.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { BlockLens } = require('./helpers.js');

// n values from r in calls of 15 (fewer than the 8 pairs a batched pass needs), as `View`.
function fewAtATime(r, n, View) {
  const out = new View(n);
  for (let i = 0; i < n; i += 15) out.set(r.randn(Math.min(15, n - i)), i);
  return out;
}

function firstDiff(a, b) {
  const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength), y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return Math.floor(i / a.BYTES_PER_ELEMENT);
  return -1;
}

test('randnF32_fills_at_bert_widths_equal_draws_a_few_at_a_time', async () => {
  const bl = await BlockLens.load();
  const fill = bl.numpyRandom(7), few = bl.numpyRandom(7);
  // x (64, 768) then W1 (768, 3072) in the page's 2^18 chunks, then an odd tail
  for (const n of [64 * 768, 1 << 18, 1 << 18, 100003, 17]) {
    const got = fill.randnF32(n), want = fewAtATime(few, n, Float32Array);
    assert.equal(firstDiff(got, want), -1, `randnF32(${n}): first differing index`);
  }
  // the streams end in the same place: the next draws agree too
  assert.deepEqual(Array.from(fill.rand(3)), Array.from(few.rand(3)));
});

test('randn_f64_fills_equal_draws_a_few_at_a_time_across_the_cached_value', async () => {
  const bl = await BlockLens.load();
  const fill = bl.numpyRandom(42), few = bl.numpyRandom(42);
  for (const n of [1, 1001, 1 << 16, 3]) {   // odd sizes: numpy's cached second value carries over
    const got = fill.randn(n), want = fewAtATime(few, n, Float64Array);
    assert.equal(firstDiff(got, want), -1, `randn(${n}): first differing index`);
  }
});

// doubles, not floats: a log one unit in the last place off would vanish in most float32 roundings
test('randn_f64_fills_of_a_million_values_equal_draws_a_few_at_a_time_bit_for_bit', async () => {
  const bl = await BlockLens.load();
  for (const seed of [0, 2026]) {
    const fill = bl.numpyRandom(seed), few = bl.numpyRandom(seed), n = 1 << 20;
    const got = fill.randn(n), want = fewAtATime(few, n, Float64Array);
    assert.equal(firstDiff(got, want), -1, `seed ${seed}, randn(${n}): first differing index`);
  }
});
