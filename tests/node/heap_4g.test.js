// heap_4g.test.js - the wasm heap past 2 GiB (issue 20): with a block of ballast taken first
// (bl._take), every call's heap block and a loaded model's weights sit past 2 GiB, where wasm
// hands JS negative addresses; each result there equals, bit for bit, the same call's result
// computed low in the heap. Then requests the heap cannot hold are refused with an Error naming
// the call and the 4 GiB limit, and the engine keeps working. The ballast is never written: wasm
// pages stay untouched until used, so the process stays small (checked at the end).
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { BlockLens, root } = require('./helpers.js');

const GiB = 2 ** 30, HEAP_MAX = 4294901760;
const BALLAST = 3.5 * GiB;   // everything taken after it sits past 3.5 GiB
const dir = path.join(root, 'web', 'models', 'poems');
const files = { weights: fs.readFileSync(path.join(dir, 'model.safetensors')),
  config: JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8')),
  vocab: JSON.parse(fs.readFileSync(path.join(dir, 'vocab.json'), 'utf8')) };

let bl, low, lowModel, highModel, ballast = 0;

/* The calls compared, with inputs from a fixed stream: every kind of heap access the engine
   makes (struct records, pointer arguments, HEAPF64 counts, HEAPU8 key masks and random state,
   `into`, the model's layer records and descriptor). Returns name -> typed arrays. */
function runAll(model) {
  const rnd = bl.numpyRandom(20), f = (n) => rnd.randnF32(n), out = {};
  const put = (name, r) => {
    const walk = (v, at) => {
      if (ArrayBuffer.isView(v)) out[at] = v.slice();
      else if (v && typeof v === 'object') for (const k of Object.keys(v)) walk(v[k], at + '.' + k);
    };
    walk(r, name);
  };
  const L = 7, D = 16, F = 32, H = 4;
  const ffn = { L, dModel: D, dFF: F, activation: 'gelu', x: f(L * D), W1: f(D * F), b1: f(F), W2: f(F * D), b2: f(D) };
  put('ffn', bl.ffn(ffn));
  put('ffn_into', bl.ffn(ffn, bl.ffn(ffn)));
  put('ffn_swiglu', bl.ffn({ ...ffn, activation: 'swiglu', W3: f(D * F), b3: f(F) }));
  const attn = { L, dModel: D, nHeads: H, x: f(L * D), Wq: f(D * D), bq: f(D), Wk: f(D * D), bk: f(D),
    Wv: f(D * D), bv: f(D), Wo: f(D * D), bo: f(D), causal: true, keyMask: [1, 1, 0, 1, 1, 1, 0] };
  put('attention', bl.attention(attn));
  put('encoderLayer', bl.encoderLayer({ ...attn, ...ffn, keyMask: undefined, norm: 'pre', ln1Gamma: f(D), ln2Beta: f(D) }));
  put('moe', bl.moe({ L, dModel: D, dFF: F, nExperts: 4, topK: 2, x: f(L * D), Wr: f(D * 4), W1: f(4 * D * F),
    W2: f(4 * F * D) }));
  put('layerNorm', bl.layerNorm({ L, d: D, x: f(L * D), gamma: f(D), beta: f(D) }));
  put('rmsNorm', bl.rmsNorm({ L, d: D, x: f(L * D), gamma: f(D) }));
  put('batchNorm', bl.batchNorm({ L, d: D, x: f(L * D) }));
  put('randn', bl.numpyRandom(7).randn(1000));
  put('rand', bl.numpyRandom(7).rand(1000));
  out.paramCount = Float64Array.from(Object.values(bl.paramCount('bert-base')));
  const ids = model.encode('床前明月光，疑是地上霜。');
  put('forward', model.forward(ids));
  put('forward_layer1', model.forward(ids, { layers: [1] }));
  put('layerWeights', model.layerWeights(1));
  return out;
}

/* Each array of `got` has the bytes of the same array of `want`. */
function sameBits(got, want, label) {
  assert.deepEqual(Object.keys(got).sort(), Object.keys(want).sort(), `${label}: the same arrays`);
  for (const k of Object.keys(want)) {
    const a = Buffer.from(got[k].buffer, got[k].byteOffset, got[k].byteLength);
    const b = Buffer.from(want[k].buffer, want[k].byteOffset, want[k].byteLength);
    if (Buffer.compare(a, b) !== 0) {
      let i = 0;
      while (a[i] === b[i]) i++;
      assert.fail(`${label}: ${k} differs from byte ${i} on (${got[k][0]} vs ${want[k][0]} first)`);
    }
  }
  return Object.keys(want).length;
}

/* The safetensors bytes of the poem model with value `at` of tensor `name` set to NaN (F16 0x7e00). */
function withNaN(name, at) {
  const b = Uint8Array.from(files.weights), n = Number(Buffer.from(b.buffer).readBigUInt64LE(0));
  const t = JSON.parse(Buffer.from(b.subarray(8, 8 + n)).toString('utf8'))[name];
  assert.equal(t.dtype, 'F16');
  const p = 8 + n + t.data_offsets[0] + 2 * at;
  b[p] = 0x00;
  b[p + 1] = 0x7e;
  return b;
}

test.before(async () => {
  bl = await BlockLens.load();
});
test.after(() => {
  if (ballast) bl._give(ballast);
  if (lowModel) lowModel.free();
  if (highModel) highModel.free();
  keptLow.forEach((m) => m.free());
});

/* Llama-family fixtures (F32 with GQA and llama3 RoPE; Qwen3's BF16, kept as BF16 in the heap),
   and their forward's every array, low in the heap. */
const LLAMAS = ['llama', 'qwen3'].map((name) => {
  const d = path.join(root, 'tests', 'fixtures', 'models', name), config = JSON.parse(fs.readFileSync(path.join(d, 'config.json')));
  return { name, config, weights: fs.readFileSync(path.join(d, 'model.safetensors')),
    vocab: Array.from({ length: config.vocab_size }, (_, i) => 't' + i) };
});
const llamaLow = {}, keptLow = [];
function llamaRun(model) {
  const out = model.forward(Int32Array.from({ length: 9 }, (_, i) => (7 * i + 3) % model.vocabSize)), r = { logits: out.logits };
  for (const [k, v] of Object.entries(out.layers[1])) {
    if (v instanceof Float32Array) r[k] = v;
    else if (v) for (const [k2, v2] of Object.entries(v)) r[k + '.' + k2] = v2;
  }
  return r;
}

test('llama_family_forwards_low_in_the_heap_first', () => {
  assert.equal(LLAMAS.length, 2, 'the single-file Llama fixtures: llama (F32), qwen3 (BF16)');
  for (const f of LLAMAS) {
    const m = bl.loadModel({ weights: f.weights, config: f.config, vocab: f.vocab });
    assert.ok(m._heapAt() < 2 ** 31);
    llamaLow[f.name] = llamaRun(m);
    keptLow.push(m);   // kept until the end: freed, its hole would take the high load
  }
});

test('calls_and_a_model_past_2_GiB_give_the_bits_they_give_low_in_the_heap', () => {
  lowModel = bl.loadModel(files);
  low = runAll(lowModel);
  assert.ok(bl._arena < 2 ** 31 && lowModel._heapAt() < 2 ** 31, 'the first results were computed low in the heap');
  // ballast above what the engine holds, then a model and a larger heap block above the ballast
  ballast = bl._take(BALLAST);
  assert.ok(ballast > 0 && ballast < 2 ** 31, `the ballast was taken (at ${ballast})`);
  highModel = bl.loadModel(files);
  assert.ok(highModel._heapAt() >= ballast + BALLAST, `the model's weights sit past the ballast (at ${highModel._heapAt()})`);
  const grow = { L: 512, dModel: 64, dFF: 256, x: new Float32Array(512 * 64), W1: new Float32Array(64 * 256),
    W2: new Float32Array(256 * 64) };
  assert.equal(bl.ffn(grow).out.length, 512 * 64);   // a larger heap block: the old one is given back
  assert.ok(bl._arena >= ballast + BALLAST, `the calls' heap block sits past the ballast (at ${bl._arena})`);
  assert.ok(bl.heapBytes() > BALLAST, `the heap grew past ${BALLAST} bytes (${bl.heapBytes()})`);
  const n = sameBits(runAll(highModel), low, 'model and calls past 3.5 GiB');
  sameBits(runAll(lowModel), low, 'calls past 3.5 GiB, the model low');
  console.log(`# ${n} arrays equal bit for bit; heap ${bl.heapBytes()} bytes, model at ${highModel._heapAt()},` +
    ` calls at ${bl._arena}`);
});

test('a_nan_in_a_model_or_an_input_past_2_GiB_is_named_where_it_is', () => {
  assert.throws(() => bl.loadModel({ ...files, weights: withNaN('h.1.mlp.c_fc.weight', 300) }),
    /^Error: BlockLens: weights: tensor "h\.1\.mlp\.c_fc\.weight" holds NaN at value 300$/);
  const x = new Float32Array(12);
  x[9] = NaN;
  assert.throws(() => bl.layerNorm({ L: 3, d: 4, x }), /^Error: BlockLens: x\[9\] is NaN, not a finite number$/);
  assert.ok(bl._arena >= 2 ** 31);
  sameBits(runAll(highModel), low, 'after the refusals');
});

test('llama_family_models_past_3_5_GiB_give_the_bits_they_give_low_in_the_heap', () => {
  for (const f of LLAMAS) {
    // a small model fits a hole low in the heap: loads that land low stay loaded, as plugs
    let m = bl.loadModel({ weights: f.weights, config: f.config, vocab: f.vocab });
    for (let tries = 0; m._heapAt() < ballast + BALLAST && tries < 200; tries++) {
      keptLow.push(m);
      m = bl.loadModel({ weights: f.weights, config: f.config, vocab: f.vocab });
    }
    try {
      assert.ok(m._heapAt() >= ballast + BALLAST, `${f.name}: its weights sit past the ballast (at ${m._heapAt()})`);
      sameBits(llamaRun(m), llamaLow[f.name], `${f.name} past 3.5 GiB`);
      assert.ok(bl._arena >= 2 ** 31, 'the forward ran in a heap block past 2 GiB');
    } finally {
      m.free();
    }
  }
});

test('a_request_past_4_GiB_or_past_what_the_heap_still_holds_is_refused_and_the_engine_keeps_working', () => {
  const heap = bl.heapBytes(), one = new Float32Array(1);
  // x, hidden, activated and out 1 GiB each: more than the heap can ever be
  assert.throws(() => bl.ffn({ L: 65536, dModel: 4096, dFF: 4096, x: one, W1: one, W2: one }),
    /^Error: BlockLens: out of memory: ffn \(L 65536, dModel 4096, dFF 4096\) needs \d+ bytes of wasm memory, more than the 4294901760 \(4 GiB\) the heap can hold \(largest: x \(1073741824 bytes\)/);
  // hidden and activated 1 GiB each: within 4 GiB, but not beside the ballast
  const L = 65536, F = 4096;
  assert.throws(() => bl.ffn({ L, dModel: 1, dFF: F, x: new Float32Array(L), W1: new Float32Array(F), W2: new Float32Array(F) }),
    /^Error: BlockLens: out of memory: ffn \(L 65536, dModel 1, dFF 4096\) needs \d+ bytes of wasm memory, which the heap could not provide \(largest: hidden \(1073741824 bytes\), activated \(1073741824 bytes\)/);
  assert.equal(bl._take(HEAP_MAX + 1), 0);
  assert.equal(bl.heapBytes(), heap, 'nothing was allocated for the refused calls');
  sameBits(runAll(highModel), low, 'after running out of memory');
  // given back, the ballast's room holds a block of more than 2 GiB again (malloc still grows the heap)
  bl._give(ballast);
  ballast = 0;
  const big = bl._take(3 * GiB);
  assert.ok(big > 0, 'a 3 GiB block after the refusals');
  bl._give(big);
  sameBits(runAll(highModel), low, 'after the ballast was given back');
  const rss = process.memoryUsage().rss;
  console.log(`# heap ${bl.heapBytes()} bytes, process RSS ${(rss / 2 ** 20).toFixed(0)} MiB`);
  assert.ok(rss < GiB, `the untouched heap stays out of memory (RSS ${rss} bytes)`);
});
