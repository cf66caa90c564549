// moe.test.js - bl.moe, the Mixtral-style mixture of experts, in the wasm build: against the torch
// fixture (top-1 and top-2, ReLU and SwiGLU experts, exact ties) with the fixture's tolerances,
// the `into` option, and bad arguments that throw named errors while the engine keeps working.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { BlockLens, fixture, assertClose, jsInputs } = require('./helpers.js');

let bl;
test.before(async () => { bl = await BlockLens.load(); });

/* A fixture case as bl.moe's options (the fixture uses the C names). */
function options(c) {
  const p = c.params, inputs = jsInputs(c.inputs);
  inputs.Wr = inputs.wr;
  delete inputs.wr;
  return { L: p.L, dModel: p.d_model, dFF: p.d_ff, nExperts: p.n_experts, topK: p.top_k,
    activation: p.activation, ...inputs };
}

test('moe_matches_torch_top_1_and_top_2_ReLU_and_SwiGLU_experts_ties_to_the_lower_index', () => {
  const seen = { ties: 0, gated: 0, top1: 0, top2: 0 };
  for (const c of fixture('moe.json')) {
    const p = c.params, got = bl.moe(options(c));
    for (const key of ['logits', 'probs', 'out'])
      assertClose(got[key], c.expected[key], c.atol, c.rtol, `${c.name}.${key}`);
    assertClose(got.topWeight, c.expected.top_weight, c.atol, c.rtol, `${c.name}.topWeight`);
    assert.ok(got.topIndex instanceof Int32Array && got.load instanceof Int32Array);
    assert.deepEqual(Array.from(got.topIndex), c.expected.top_index, `${c.name}.topIndex`);
    assert.deepEqual(Array.from(got.load), c.expected.load, `${c.name}.load`);
    if (p.tie) {   // the tied pair: the lower index taken without the higher, for some token
      const [a, b] = p.tie, K = p.top_k;
      let decided = 0;
      for (let i = 0; i < p.L; i++) {
        const row = Array.from(got.topIndex.subarray(i * K, (i + 1) * K));
        assert.equal(got.logits[i * p.n_experts + a], got.logits[i * p.n_experts + b]);
        assert.ok(!(row.includes(b) && !row.includes(a)), `${c.name}: token ${i} took ${b} over ${a}`);
        if (row.includes(a) && !row.includes(b)) decided++;
      }
      assert.ok(decided > 0, `${c.name}: the tie decided a choice`);
      seen.ties++;
    }
    if (p.activation === 'swiglu') seen.gated++;
    if (p.top_k === 1) seen.top1++;
    if (p.top_k === 2) seen.top2++;
  }
  assert.ok(seen.ties >= 2 && seen.gated >= 2 && seen.top1 >= 2 && seen.top2 >= 3, JSON.stringify(seen));
});

test('moe_takes_the_gated_names_of_ffn_Wg_Wu_Wd_and_bg_bu_bd_give_the_same_numbers', () => {
  const c = fixture('moe.json').find((k) => k.params.activation === 'swiglu' && k.params.bias);
  const o = options(c), plain = bl.moe(o);
  const named = bl.moe({ L: o.L, dModel: o.dModel, dFF: o.dFF, nExperts: o.nExperts, topK: o.topK,
    activation: 'swiglu', x: o.x, Wr: o.Wr, Wg: o.W1, bg: o.b1, Wu: o.W3, bu: o.b3, Wd: o.W2, bd: o.b2 });
  assert.deepEqual(named, plain);
  assert.throws(() => bl.moe({ ...o, Wg: o.W1 }), /^Error: BlockLens: give Wg or W1, not both$/);
});

test('moe_with_one_expert_is_ffn_the_same_output_bit_for_bit_weight_1_every_token_routed', () => {
  const r = bl.numpyRandom(5), L = 7, D = 8, F = 32;
  for (const activation of bl.activations) {
    const gated = activation === 'swiglu' || activation === 'geglu';
    const w = { x: r.randnF32(L * D), W1: r.randnF32(D * F), b1: r.randnF32(F), W2: r.randnF32(F * D),
      b2: r.randnF32(D), ...(gated ? { W3: r.randnF32(D * F) } : {}) };
    const m = bl.moe({ L, dModel: D, dFF: F, nExperts: 1, topK: 1, Wr: r.randnF32(D), activation, ...w });
    assert.deepEqual(m.out, bl.ffn({ L, dModel: D, dFF: F, activation, ...w }).out, activation);
    assert.deepEqual(Array.from(m.topWeight), new Array(L).fill(1));
    assert.deepEqual(Array.from(m.load), [L]);
  }
});

test('moe_into_a_previous_result_fills_its_arrays_Int32Array_ones_included_and_returns_it', () => {
  const cases = fixture('moe.json'), a = options(cases[1]), b = { ...a, x: a.x.map((v) => -v) };
  const r = bl.moe(a), want = bl.moe(b), keep = r.topIndex;
  assert.equal(bl.moe(b, r), r);
  assert.equal(r.topIndex, keep);
  assert.deepEqual(r, want);
  assert.notDeepEqual(Array.from(r.topIndex), Array.from(bl.moe(a).topIndex));
  assert.throws(() => bl.moe(a, { ...r, topIndex: new Float32Array(r.topIndex.length) }),
    /^Error: BlockLens: into\.topIndex must be an Int32Array \(pass a previous result of the same call\)$/);
  assert.throws(() => bl.moe(a, { ...r, load: new Int32Array(3) }), /into\.load has 3 values, expected 8/);
  assert.deepEqual(r, want, 'a refused into is left untouched');
});

test('moe_refuses_bad_arguments_with_errors_that_name_them_and_keeps_working', () => {
  const r = bl.numpyRandom(9), L = 3, D = 4, F = 6, E = 8, K = 2;
  const good = { L, dModel: D, dFF: F, nExperts: E, topK: K, x: r.randnF32(L * D), Wr: r.randnF32(D * E),
    W1: r.randnF32(E * D * F), b1: r.randnF32(E * F), W2: r.randnF32(E * F * D), b2: r.randnF32(E * D) };
  const before = bl.moe(good), heap = bl.heapBytes();
  const nan = Float32Array.from(good.W1);
  nan[77] = NaN;
  const cases = [
    [{ nExperts: 0 }, /^BlockLens: nExperts \(0\) must be an integer between 1 and 64$/],
    [{ nExperts: 65 }, /^BlockLens: nExperts \(65\) must be an integer between 1 and 64$/],
    [{ nExperts: 2.5 }, /nExperts \(2\.5\) must be an integer/],
    [{ nExperts: '8' }, /^BlockLens: nExperts must be an integer between 1 and 64, not "8" \(a string\)$/],
    [{ topK: 0 }, /^BlockLens: topK \(0\) must be an integer between 1 and nExperts \(8\)$/],
    [{ topK: 9 }, /^BlockLens: topK \(9\) must be an integer between 1 and nExperts \(8\)$/],
    [{ topK: undefined }, /^BlockLens: topK must be an integer between 1 and nExperts \(8\), not undefined$/],
    [{ L: 0 }, /^BlockLens: L \(0\) must be an integer between 1 and 65536$/],
    [{ dFF: NaN }, /dFF \(NaN\)/],
    [{ Wr: undefined }, /^BlockLens: Wr is required \(32 numbers\)$/],
    [{ Wr: new Float32Array(4) }, /^BlockLens: Wr has 4 values, expected 32$/],
    [{ W1: new Float32Array(24) }, /^BlockLens: W1 has 24 values, expected 192$/],
    [{ b1: new Float32Array(6) }, /^BlockLens: b1 has 6 values, expected 48$/],
    [{ W2: 'abc' }, /^BlockLens: W2 must be a Float32Array or an array of numbers, not "abc" \(a string\)$/],
    [{ b2: new Array(32).fill(0).concat([Infinity]).slice(1) }, /^BlockLens: b2\[31\] is Infinity, not a finite number$/],
    [{ W1: nan }, /^BlockLens: W1\[77\] is NaN, not a finite number$/],
    [{ activation: 'tanh' }, /^BlockLens: activation "tanh" is not one of relu, gelu/],
    [{ activation: 'swiglu' }, /^BlockLens: W3 is required \(192 numbers\)$/],
    [{ W3: good.W1 }, /^BlockLens: W3\/b3 are only used by gated activations \(swiglu, geglu\), not relu$/],
    [{ nExpert: 8 }, /^BlockLens: moe has no option "nExpert" \(known: L, dModel, dFF, nExperts, topK, x, Wr, /],
    [{ L: 65536, dFF: 65536 }, /^BlockLens: hidden \(L x dFF\) \(65536 x 65536\) exceeds 268435456 values$/],
    [{ nExperts: 64, dModel: 4096, dFF: 4096 }, /^BlockLens: W1 \(nExperts x dModel x dFF\) \(262144 x 4096\) exceeds/],
    [{ L: 65536, dModel: 2048, dFF: 1 }, /^BlockLens: workspace \(L x \(2 dModel \+ dFF\) = 268500992\) exceeds 268435456 values$/],
    // W1, W3, W2 1 GiB each and the workspace 1 GiB: past the 4 GiB heap
    [{ nExperts: 64, dModel: 2048, dFF: 2048, L: 32768, activation: 'swiglu' }, /^BlockLens: out of memory: moe \(L 32768, dModel 2048, dFF 2048, nExperts 64, topK 2\) needs \d+ bytes of wasm memory, more than the 4294901760 \(4 GiB\) the heap can hold \(largest: W1 \(1073741824 bytes\), W3 \(1073741824 bytes\), W2 \(1073741824 bytes\)\)$/],
  ];
  for (const [change, pattern] of cases) {
    const o = { ...good, ...change };
    for (const k of Object.keys(change)) if (change[k] === undefined) delete o[k];
    assert.throws(() => bl.moe(o), (e) => e instanceof Error && pattern.test(e.message) || assert.fail(
      `${JSON.stringify(Object.keys(change))}: ${e.message}`));
  }
  assert.throws(() => bl.moe(null), /^Error: BlockLens: moe expects an options object$/);
  assert.throws(() => bl.moe({ ...good, x: {} }),
    /^Error: BlockLens: x must be a Float32Array or an array of numbers, not an object$/);
  assert.throws(() => bl.moe({ ...good, get Wr() { throw new RangeError('no router'); } }),
    (e) => e.message === 'BlockLens: moe: reading its arguments threw RangeError: no router' && e.cause instanceof RangeError);
  assert.equal(bl.heapBytes(), heap, 'nothing was allocated for the refused calls');
  assert.deepEqual(bl.moe(good), before);
});

test('router_logits_that_overflow_float32_throw_naming_the_token_and_expert_never_a_NaN_top_1', () => {
  // Finite x and Wr: token 3's logit for expert 0 is 1e30 * 1e30 + 1e30 * (+-1e30): Inf, or
  // Inf - Inf = NaN (which, first in its row, used to win the top-1 with NaN weights).
  for (const [sign, what] of [[1, 'infinite'], [-1, 'NaN']]) {
    const L = 5, D = 4, F = 6, E = 4, r = bl.numpyRandom(3);
    const x = r.randnF32(L * D), Wr = r.randnF32(D * E);
    x.set([1e30, 1e30, 0, 0], 3 * D);
    Wr[0] = 1e30;
    Wr[E] = sign * 1e30;
    const args = { L, dModel: D, dFF: F, nExperts: E, topK: 2, x, Wr, W1: r.randnF32(E * D * F), W2: r.randnF32(E * F * D) };
    assert.throws(() => bl.moe(args), new RegExp(`^Error: BlockLens: router logit of token 3, expert 0 is ${what}: x @ Wr overflows float32`));
    x.set([0, 0, 0, 0], 3 * D);   // and the same call with a finite product runs
    const ok = bl.moe(args);
    assert.ok(ok.topWeight.every(Number.isFinite) && ok.logits.every(Number.isFinite));
  }
});
