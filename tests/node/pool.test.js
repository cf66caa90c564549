// pool.test.js - small fresh results share pool buffers (web/src/engine/engine.js, POOL_BYTES): they
// never alias one another, keep their values, leak nothing, and `into` is checked as before.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const v8 = require('node:v8');
const vm = require('node:vm');
const { BlockLens } = require('./helpers.js');

function ffnArgs(bl, seed, L = 7, D = 8, F = 32) {
  const r = bl.numpyRandom(seed);
  return { L, dModel: D, dFF: F, activation: 'gelu', x: r.randnF32(L * D), W1: r.randnF32(D * F),
    b1: r.randnF32(F), W2: r.randnF32(F * D), b2: r.randnF32(D) };
}

function attnArgs(bl, seed, L = 7, D = 8, H = 2) {
  const r = bl.numpyRandom(seed), w = () => r.randnF32(D * D);
  return { L, dModel: D, nHeads: H, x: r.randnF32(L * D), Wq: w(), Wk: w(), Wv: w(), Wo: w(),
    bq: r.randnF32(D), causal: true };
}

/* The Float32Arrays of a result, nested ones included (gate is hidden again: listed once). */
function arrays(res) {
  const out = [];
  for (const v of Object.values(res)) {
    if (v instanceof Float32Array) { if (!out.includes(v)) out.push(v); } else out.push(...arrays(v));
  }
  return out;
}

function copies(res) { return arrays(res).map((a) => Float32Array.from(a)); }

function overlap(a, b) {
  return a.buffer === b.buffer && a.byteOffset < b.byteOffset + b.byteLength &&
    b.byteOffset < a.byteOffset + a.byteLength;
}

test('two_fresh_small_results_do_not_alias_writing_one_leaves_the_other_unchanged', async () => {
  const bl = await BlockLens.load();
  for (const [call, args] of [['ffn', ffnArgs(bl, 1)], ['attention', attnArgs(bl, 2)],
    ['layerNorm', { L: 7, d: 8, x: bl.numpyRandom(3).randnF32(56) }]]) {
    const first = bl[call](args), second = bl[call](args);
    const keep = copies(second);
    for (const a of arrays(first)) a.fill(NaN);
    assert.deepEqual(arrays(second), keep, `${call}: the second result is unchanged`);
    const all = arrays(first).concat(arrays(second));
    for (let i = 0; i < all.length; i++)
      for (let j = i + 1; j < all.length; j++) assert.ok(!overlap(all[i], all[j]), `${call}: arrays ${i} and ${j} overlap`);
  }
});

test('small_results_keep_their_values_after_thousands_of_later_calls', async () => {
  const bl = await BlockLens.load();
  const kept = [];
  for (let i = 0; i < 3000; i++) {
    const res = i % 2 ? bl.ffn(ffnArgs(bl, 100 + (i % 40))) : bl.attention(attnArgs(bl, 200 + (i % 40)));
    if (i % 97 === 0) kept.push([res, copies(res)]);
  }
  let into = bl.ffn(ffnArgs(bl, 7));
  for (let i = 0; i < 100; i++) into = bl.ffn(ffnArgs(bl, 300 + i), into);
  for (const [res, want] of kept) assert.deepEqual(arrays(res), want);
});

test('fresh_and_into_results_are_bit_identical_for_every_small_call', async () => {
  const bl = await BlockLens.load();
  const gated = Object.assign(ffnArgs(bl, 5), { activation: 'swiglu', W3: bl.numpyRandom(6).randnF32(256) });
  const layer = Object.assign(attnArgs(bl, 7), ffnArgs(bl, 8), { activation: 'relu', norm: 'pre' });
  for (const [call, a, b] of [['ffn', ffnArgs(bl, 9), ffnArgs(bl, 10)], ['ffn', gated, Object.assign({}, gated, { x: ffnArgs(bl, 11).x })],
    ['attention', attnArgs(bl, 12), attnArgs(bl, 13)], ['encoderLayer', layer, Object.assign({}, layer, { x: ffnArgs(bl, 14).x })],
    ['rmsNorm', { L: 7, d: 8, x: ffnArgs(bl, 15).x }, { L: 7, d: 8, x: ffnArgs(bl, 16).x }]]) {
    const into = bl[call](a), fresh = bl[call](b);
    assert.equal(bl[call](b, into), into);
    assert.deepEqual(into, fresh, `${call}: into matches a fresh result`);
    assert.deepEqual(bl[call](b, fresh), bl[call](b), `${call}: a fresh result refilled by its own call`);
  }
});

test('into_receives_outputs_in_the_arrays_it_holds_now_even_ones_swapped_in_from_another_result', async () => {
  const bl = await BlockLens.load();
  const a = ffnArgs(bl, 20), b = ffnArgs(bl, 21), c = ffnArgs(bl, 22);
  const r = bl.ffn(a), other = bl.ffn(b);
  bl.ffn(c, r);                        // r's arrays back to back: one copy fills them
  const otherHidden = Float32Array.from(other.hidden);
  r.out = other.out;                   // no longer back to back
  const want = bl.ffn(c);
  assert.equal(bl.ffn(c, r), r);
  assert.deepEqual(r.hidden, want.hidden);
  assert.deepEqual(other.out, want.out, 'the swapped-in array received out');
  assert.deepEqual(other.hidden, otherHidden, 'the rest of the other result is untouched');
  r.out = new Float32Array(56);        // a plain array of its own
  bl.ffn(a, r);
  assert.deepEqual(r.out, bl.ffn(a).out);
});

test('an_into_from_another_call_is_refused_and_left_untouched_whatever_shares_its_buffer', async () => {
  const bl = await BlockLens.load();
  const small = bl.ffn(ffnArgs(bl, 30, 3, 8, 32)), keep = copies(small);
  assert.throws(() => bl.ffn(ffnArgs(bl, 31), small), /^Error: BlockLens: into\.hidden has 96 values, expected 224$/);
  const attn = bl.attention(attnArgs(bl, 32));
  assert.throws(() => bl.ffn(ffnArgs(bl, 33), attn), /into\.hidden must be a Float32Array/);
  assert.throws(() => bl.ffn(Object.assign(ffnArgs(bl, 34), { x: null }), small), /x is required/);
  assert.deepEqual(arrays(small), keep);
});

test('many_fresh_small_calls_keep_no_pool_buffer_alive_and_leave_the_heap_where_it_was', async () => {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc');
  const bl = await BlockLens.load();
  const f = ffnArgs(bl, 40), at = attnArgs(bl, 41);
  for (let i = 0; i < 100; i++) { bl.ffn(f); bl.attention(at); }
  const heap = bl.heapBytes();
  gc();
  const before = process.memoryUsage().arrayBuffers;
  for (let i = 0; i < 10000; i++) { bl.ffn(f); bl.attention(at); }   // about 40 MB of results
  let grown = Infinity;
  for (let i = 0; i < 5 && grown >= 1 << 20; i++) {    // freeing may take more than one collection
    gc();
    await new Promise((resolve) => setImmediate(resolve));
    grown = process.memoryUsage().arrayBuffers - before;
  }
  assert.ok(grown < 1 << 20, `array buffers grew by ${grown} bytes`);
  assert.equal(bl.heapBytes(), heap);
});

test('a_result_too_large_for_the_pool_owns_its_buffer_a_small_one_copied_with_slice_does', async () => {
  const bl = await BlockLens.load();
  const big = bl.ffn(ffnArgs(bl, 50, 16, 8, 128));       // 2 x 2048 + 128 floats
  assert.equal(big.hidden.byteOffset, 0);
  assert.equal(big.hidden.buffer.byteLength, (2 * 2048 + 128) * 4);
  const small = bl.ffn(ffnArgs(bl, 51)), neighbour = bl.ffn(ffnArgs(bl, 52)), keep = copies(neighbour);
  const own = small.out.slice();                          // what the Worker (web/src/entries/worker.js) transfers
  assert.equal(own.buffer.byteLength, own.byteLength);
  structuredClone(own, { transfer: [own.buffer] });
  assert.equal(own.length, 0, 'the copy moved');
  assert.equal(small.out.length, 56);
  assert.deepEqual(arrays(neighbour), keep);
});
