// hostile_args.test.js - what a careless or hostile caller can pass (issue 13, items 2-4, 6, 7
// and 10): requests past the heap, getters that change between reads, transferred result
// buffers, huge strings, null-prototype objects, Proxies, typed arrays whose length lies,
// frozen `into`, misspelt option names. Each gets a correct result or a BlockLens Error, and
// the engine keeps computing correctly afterwards.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { BlockLens } = require('./helpers.js');
const ref = require('./reference.js');

let bl, rnd;
test.before(async () => {
  bl = await BlockLens.load();
  rnd = bl.numpyRandom(13);
});

const f32 = (n) => rnd.randnF32(n);

function ffnArgs(L = 3, D = 4, F = 8, activation = 'gelu') {
  const o = { L, dModel: D, dFF: F, activation, x: f32(L * D), W1: f32(D * F), b1: f32(F), W2: f32(F * D), b2: f32(D) };
  if (activation === 'swiglu' || activation === 'geglu') { o.W3 = f32(D * F); o.b3 = f32(F); }
  return o;
}
function attnArgs(L = 3, D = 4, H = 2) {
  return { L, dModel: D, nHeads: H, x: f32(L * D), Wq: f32(D * D), bq: f32(D), Wk: f32(D * D),
    Wv: f32(D * D), Wo: f32(D * D), bo: f32(D) };
}

/* Throws an Error whose message starts with 'BlockLens: ' and matches `pattern`. */
function refuses(fn, pattern) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof Error, `an Error, not ${e}`);
    assert.ok(e.message.startsWith('BlockLens: '), `a BlockLens Error, not ${e.constructor.name}: ${e.message.slice(0, 200)}`);
    if (pattern) assert.match(e.message, pattern);
    return true;
  });
}

function close(got, want, label) {
  const miss = ref.compare(got, want, 1e-4, 1e-4);
  assert.equal(miss, null, label);
}

/* The engine still computes: a fixed small ffn and attention equal their references. */
function stillWorks(label) {
  const f = ffnArgs(), a = attnArgs();
  close(bl.ffn(f), ref.ffn(f), `${label}: ffn afterwards`);
  close(bl.attention(a), ref.attention(a), `${label}: attention afterwards`);
  const big = ffnArgs(64, 32, 128, 'relu');   // an arena larger than the first one
  close(bl.ffn(big), ref.ffn(big), `${label}: a larger ffn afterwards`);
}

test('a_request_past_the_4_GiB_heap_throws_naming_its_sizes_before_anything_is_allocated', () => {
  // scores + weights 2 x 1 GiB and hidden, up, activated 3 x 683 MiB: 4.1 GiB, which used to be
  // passed to malloc cut to 32 bits (a small block, then writes far past it).
  const L = 16384, F = 10923, one = new Float32Array([1]);
  const heap = bl.heapBytes();
  const layer = (dFF) => bl.encoderLayer({ L, dModel: 1, nHeads: 1, dFF, activation: 'swiglu', x: new Float32Array(L),
    Wq: one, Wk: one, Wv: one, Wo: one, W1: new Float32Array(dFF), W3: new Float32Array(dFF), W2: new Float32Array(dFF) });
  refuses(() => layer(F),
    /^BlockLens: out of memory: encoderLayer \(L 16384, dModel 1, nHeads 1, dFF 10923\) needs \d+ bytes .*scores \(1073741824 bytes\)/);
  assert.equal(bl.heapBytes(), heap, 'the heap did not grow');
  stillWorks('after encoderLayer past the heap');
  // x and the FFN outputs past 4 GiB (x, hidden, activated and out 1 GiB each): refused from the
  // sizes, before the arrays are read
  refuses(() => bl.ffn({ L: 65536, dModel: 4096, dFF: 4096, x: one, W1: one, W2: one }),
    /out of memory: ffn \(L 65536, dModel 4096, dFF 4096\) needs \d+ bytes.*more than the 4294901760 \(4 GiB\).*hidden \(1073741824 bytes\)/);
  // just under 4 GiB (dFF 10900: 4.29 GB): more than the heap can still give (it holds code, data
  // and stack too), refused without asking malloc
  refuses(() => layer(10900),
    /out of memory: encoderLayer \(L 16384, dModel 1, nHeads 1, dFF 10900\) needs \d+ bytes of wasm memory, which the heap could not provide/);
  assert.equal(bl.heapBytes(), heap, 'the heap did not grow');
  stillWorks('after ffn and encoderLayer past the heap');
});

/* o with `name` replaced by a getter that returns `value` on the first read, undefined later. */
function onceGetter(o, name) {
  const value = o[name], copy = { ...o };
  let reads = 0;
  delete copy[name];
  Object.defineProperty(copy, name, { enumerable: true, get() { return reads++ === 0 ? value : undefined; } });
  return { o: copy, reads: () => reads };
}

test('every_argument_is_read_once_a_getter_that_changes_does_not_poison_later_honest_calls', () => {
  for (const [call, args, name] of [['ffn', ffnArgs(5, 4, 8), 'b1'], ['ffn', ffnArgs(5, 4, 8, 'swiglu'), 'b3'],
    ['attention', attnArgs(5, 4, 2), 'bq'], ['layerNorm', { L: 5, d: 4, x: f32(20), gamma: f32(4), beta: f32(4) }, 'beta']]) {
    const g = onceGetter(args, name);
    const want = call === 'ffn' ? ref.ffn(args) : call === 'attention' ? ref.attention(args) : ref.norm('layer', args);
    let got;
    try { got = bl[call](g.o); } catch (e) { assert.ok(e.message.startsWith('BlockLens: '), e.message); }
    if (got) close(got, want, `${call} with a ${name} getter: the value read once`);
    assert.equal(g.reads(), 1, `${call}: ${name} read once`);
    close(bl[call](args), want, `${call}: the same shape with ${name} given honestly uses it`);
    const without = { ...args };
    delete without[name];
    const wantWithout = call === 'ffn' ? ref.ffn(without) : call === 'attention' ? ref.attention(without) : ref.norm('layer', without);
    close(bl[call](without), wantWithout, `${call}: and without ${name} leaves it out`);
  }
});

test('transferring_a_small_results_buffer_does_not_break_the_calls_that_follow', async () => {
  const f = ffnArgs(), a = attnArgs();
  for (let round = 0; round < 3; round++) {
    const r = bl.ffn(f);
    if (round === 0) structuredClone(r.out, { transfer: [r.out.buffer] });
    else {
      const { port1, port2 } = new MessageChannel();
      port1.postMessage(r.out, [r.out.buffer]);
      port1.close();
      port2.close();
    }
    assert.equal(r.out.length, 0, 'the pool was transferred (detached here)');
    for (let i = 0; i < 100; i++) {
      close(bl.ffn(f), ref.ffn(f), `ffn ${i} after transfer ${round}`);
      close(bl.attention(a), ref.attention(a), `attention ${i} after transfer ${round}`);
    }
  }
});

test('messages_quote_at_most_a_short_prefix_of_a_huge_value', () => {
  const huge = 'x'.repeat(1e6), f = ffnArgs(), a = attnArgs();
  const cases = [
    () => bl.ffn({ ...f, activation: huge }),
    () => bl.attention({ ...a, causal: huge }),
    () => bl.layerNorm({ L: 3, d: 4, x: f.x, eps: huge }),
    () => bl.encoderLayer({ ...a, ...f, norm: huge }),
    () => bl.ffn({ ...f, L: huge }),
    () => bl.ffn({ ...f, [huge]: 1 }),
    () => bl.paramCount(huge),
    () => bl.paramCount({ dModel: 8, nHeads: 2, dFF: 8, [huge]: 1 }),
    () => bl.paramCount({ dModel: 8, nHeads: 2, dFF: 8, norm: huge }),
    () => bl.numpyRandom(huge),
    () => BlockLens.load({ fma: huge }),
    () => BlockLens.load({ wasmModule: huge })
  ];
  cases.forEach((fn, i) => {
    refuses(fn, /x…/);
    try { fn(); } catch (e) { assert.ok(e.message.length < 400, `case ${i}: ${e.message.length} characters`); }
  });
});

test('null_prototype_option_objects_work_like_plain_ones', () => {
  const f = ffnArgs(), a = attnArgs(), n = { L: 3, d: 4, x: f.x, gamma: f.b2 };
  const bare = (o) => Object.assign(Object.create(null), o);
  close(bl.ffn(bare(f)), ref.ffn(f), 'ffn');
  close(bl.attention(bare({ ...a, causal: true })), ref.attention({ ...a, causal: true }), 'attention');
  close(bl.rmsNorm(bare(n)), ref.norm('rms', n), 'rmsNorm');
  const e = { ...a, ...f, dFF: 8 };
  close(bl.encoderLayer(bare(e)), ref.encoderLayer(e), 'encoderLayer');
  assert.equal(bl.paramCount(bare({ dModel: 8, nHeads: 2, dFF: 32 })).total, bl.paramCount({ dModel: 8, nHeads: 2, dFF: 32 }).total);
  // null-prototype objects (no toString) as values: refused with a message, not a TypeError
  const odd = Object.create(null);
  refuses(() => bl.ffn({ ...f, L: odd }), /L must be an integer between 1 and 65536, not an object/);
  refuses(() => bl.ffn({ ...f, activation: odd }), /activation must be a string/);
  refuses(() => bl.attention({ ...a, causal: odd }), /causal must be true or false, not an object/);
  refuses(() => bl.ffn({ ...f, x: odd }), /x must be a Float32Array/);
  refuses(() => bl.paramCount(odd), /dModel \(0\) must be between 1/);   // an empty config
  refuses(() => bl.paramCount({ dModel: odd, nHeads: 2, dFF: 8 }), /dModel/);
  refuses(() => bl.numpyRandom(odd), /seed/);
  refuses(() => bl.layerNorm({ ...n, eps: odd }), /eps/);
  refuses(() => bl.ffn({ ...f, W1: [odd, ...new Array(31).fill(0)] }), /W1\[0\] is an object, not a finite number/);
  stillWorks('null-prototype objects');
});

test('proxies_and_typed_arrays_whose_length_lies_give_a_correct_result_or_a_BlockLens_Error', () => {
  const f = ffnArgs(), want = ref.ffn(f);
  // a Proxy around a Float32Array is no typed array (its length getter refuses the Proxy)
  refuses(() => bl.ffn({ ...f, x: new Proxy(f.x, {}) }), /x must be a Float32Array/);
  // a Proxy around a plain array is an array: read once per element
  let gets = 0;
  const px = new Proxy(Array.from(f.x), { get(t, k) { if (/^\d+$/.test(k)) gets++; return t[k]; } });
  close(bl.ffn({ ...f, x: px }), want, 'ffn with a Proxy of an array');
  assert.equal(gets, 12, 'each element of the Proxy read once');
  // the options object itself behind a Proxy
  close(bl.ffn(new Proxy({ ...f }, {})), want, 'ffn with Proxy options');
  // subclasses whose length lies: the real length counts
  class Short extends Float32Array { get length() { return 12; } }
  refuses(() => bl.ffn({ ...f, x: new Short(3) }), /x has 3 values, expected 12/);
  class Long extends Float32Array { get length() { return 3; } }
  const long = new Long(12);
  long.set(f.x);
  close(bl.ffn({ ...f, x: long }), want, 'ffn with a subclass claiming fewer values than it has');
  class Lying64 extends Float64Array { get length() { return 12; } }
  refuses(() => bl.ffn({ ...f, x: new Lying64(5) }), /x has 5 values, expected 12/);
  // keyMask: a typed array whose length lies, a DataView, a Proxy
  const a = attnArgs();
  class Mask extends Uint8Array { get length() { return 3; } }
  refuses(() => bl.attention({ ...a, keyMask: new Mask(2) }), /keyMask must be an array of 3/);
  refuses(() => bl.attention({ ...a, keyMask: new DataView(new ArrayBuffer(3)) }), /keyMask must be an array of 3/);
  refuses(() => bl.attention({ ...a, keyMask: new Proxy(new Uint8Array(3), {}) }), /keyMask must be an array of 3/);
  close(bl.attention({ ...a, keyMask: new Proxy([1, 0, 1], {}) }), ref.attention({ ...a, keyMask: [1, 0, 1] }), 'keyMask as a Proxy of an array');
  stillWorks('Proxies and lying lengths');
});

test('into_is_checked_by_its_arrays_real_lengths_and_buffers_a_frozen_one_is_never_left_stale', () => {
  const g = ffnArgs(3, 4, 8, 'swiglu'), g2 = ffnArgs(3, 4, 8, 'swiglu');
  // frozen result of the same call: its arrays (gate is hidden) receive the new values
  const frozen = Object.freeze(bl.ffn(g));
  assert.equal(bl.ffn(g2, frozen), frozen);
  close(frozen, ref.ffn(g2), 'a frozen gated result as into');
  assert.equal(frozen.gate, frozen.hidden);
  // frozen, with a gate that is not its hidden array: refused, nothing written
  const r = bl.ffn(g), stale = Object.freeze({ ...r, gate: new Float32Array(24) });
  const keep = Float32Array.from(r.out);
  refuses(() => bl.ffn(g2, stale), /into\.gate must be into\.hidden/);
  assert.deepEqual(r.out, keep, 'into untouched');
  // frozen, without gate: filled, and no gate appears
  const noGate = { ...bl.ffn(g) };
  delete noGate.gate;
  Object.freeze(noGate);
  close(bl.ffn(g2, noGate), { ...ref.ffn(g2), gate: undefined }, 'a frozen into without gate');
  // arrays whose length lies, detached arrays, Proxies, overlapping arrays
  const f = ffnArgs(), base = bl.ffn(f);
  class Short extends Float32Array { get length() { return 12; } }
  refuses(() => bl.ffn(f, { ...base, out: new Short(5) }), /into\.out has 5 values, expected 12/);
  const gone = new Float32Array(12);
  structuredClone(gone, { transfer: [gone.buffer] });
  refuses(() => bl.ffn(f, { ...base, out: gone }), /into\.out has 0 values, expected 12/);
  refuses(() => bl.ffn(f, { ...base, out: new Proxy(new Float32Array(12), {}) }), /into\.out must be a Float32Array/);
  const shared = new Float32Array(48);
  refuses(() => bl.ffn(f, { hidden: shared.subarray(0, 24), activated: shared.subarray(20, 44), out: new Float32Array(12) }),
    /into\.hidden and into\.activated overlap/);
  const same = new Float32Array(24);
  refuses(() => bl.ffn(f, { hidden: same, activated: same, out: new Float32Array(12) }), /into\.hidden and into\.activated overlap/);
  // a subclass whose set() lies is filled anyway
  class NoSet extends Float32Array { set() {} }
  const own = { hidden: new NoSet(24), activated: new NoSet(24), out: new NoSet(12) };
  close(bl.ffn(f, own), ref.ffn(f), 'into arrays whose set() does nothing');
  stillWorks('hostile into');
});

test('messages_say_what_was_wrong_strings_quoted_arrays_named_values_as_given_unknown_names_listed', () => {
  const f = ffnArgs(), a = attnArgs(), n = { L: 3, d: 4, x: f.x };
  refuses(() => bl.attention({ ...a, causal: 'true' }), /^BlockLens: causal must be true or false, not "true" \(a string\)$/);
  refuses(() => bl.attention({ ...a, scale: 1 }), /^BlockLens: scale must be true or false, not 1$/);
  refuses(() => bl.ffn({ ...f, activation: ['relu'] }), /^BlockLens: activation must be a string \(one of relu, gelu, gelu_tanh, silu, identity, swiglu, geglu\), not an array$/);
  refuses(() => bl.ffn({ ...f, activation: 'tanh' }), /^BlockLens: activation "tanh" is not one of relu, gelu/);
  refuses(() => bl.layerNorm({ ...n, eps: 1e39 }), /^BlockLens: eps \(1e\+39\) must be a positive number that float32 can hold/);
  refuses(() => bl.encoderLayer({ ...a, ...f, eps: 1e39 }), /^BlockLens: eps \(1e\+39\)/);
  refuses(() => bl.ffn({ ...f, dFF: '8' }), /^BlockLens: dFF must be an integer between 1 and 65536, not "8" \(a string\)$/);
  refuses(() => bl.ffn({ ...f, x: [1e39, ...new Array(11).fill(0)] }), /^BlockLens: x\[0\] is 1e\+39, beyond float32's range/);
  refuses(() => bl.attention({ ...a, Causal: true }),
    /^BlockLens: attention has no option "Causal" \(known: L, dModel, nHeads, x, Wq, bq, Wk, bk, Wv, bv, Wo, bo, causal, scale, keyMask\)$/);
  refuses(() => bl.ffn({ ...f, dff: 8 }), /^BlockLens: ffn has no option "dff" \(known: L, dModel, dFF, x, activation, /);
  refuses(() => bl.layerNorm({ ...n, epsilon: 1e-6 }), /layerNorm has no option "epsilon"/);
  refuses(() => bl.rmsNorm({ ...n, beta: f.b2 }), /^BlockLens: beta is not used by rmsNorm/);
  refuses(() => bl.encoderLayer({ ...a, ...f, preNorm: true }), /encoderLayer has no option "preNorm"/);
  refuses(() => BlockLens.load({ FMA: false }), /load has no option "FMA" \(known: simd, fma, wasmModule\)/);
  stillWorks('messages');
});

test('parameter_counts_past_2_53_throw_instead_of_coming_back_rounded', () => {
  refuses(() => bl.paramCount({ dModel: 2 ** 30, nHeads: 1, dFF: 2 ** 30, nLayers: 1 }),
    /^BlockLens: attention \(about 4\.612e\+18\) is past 2\^53 - 1: a JS number cannot hold it exactly$/);
  refuses(() => bl.paramCount({ dModel: 2 ** 30, nHeads: 1, dFF: 2 ** 30 }), /attentionPerLayer \(about 4\.612e\+18\) is past 2\^53 - 1/);
  // below 2^53: returned, exact
  const c = bl.paramCount({ dModel: 2 ** 24, nHeads: 1, dFF: 2 ** 24, nLayers: 1 });
  assert.ok(Number.isSafeInteger(c.total) && c.total > 2 ** 50 && c.total === c.attention + c.ffn + c.norms);
});

test('a_getter_that_calls_the_engine_again_does_not_disturb_the_call_it_runs_in', () => {
  const e = { ...attnArgs(3, 4, 2), ...ffnArgs(3, 4, 8, 'swiglu'), keyMask: [1, 0, 1] };
  const other = { ...e, keyMask: [0, 1, 1], x: f32(12) };
  const W1 = Array.from(e.W1);
  let inner = null;
  Object.defineProperty(W1, 0, { get() { if (!inner) inner = bl.encoderLayer(other); return e.W1[0]; } });
  const into = bl.encoderLayer(e);
  delete into.ffn.gate;
  const got = bl.encoderLayer({ ...e, W1 }, into);
  assert.ok(inner, 'the getter ran');
  close(got, ref.encoderLayer(e), 'the outer call, with its own mask and weights');
  assert.equal(got.ffn.gate, got.ffn.hidden, 'its gate added');
  close(inner, ref.encoderLayer(other), 'the inner call');
});
