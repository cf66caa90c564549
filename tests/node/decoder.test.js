// decoder.test.js - bl.loadModel and model.forward: safetensors files (F32, F16, BF16, GPT-2's
// names; checkpoint.js writes them) against a plain float64 forward (reference.js), every
// malformed file and bad argument as a named Error after which the engine still works, and the
// shipped poem model (web/models/poems) against its committed fixture (tests/fixtures/poems.json).
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { BlockLens, assertClose, root } = require('./helpers.js');
const ref = require('./reference.js');
const ck = require('./checkpoint.js');

let bl;
test.before(async () => { bl = await BlockLens.load(); });

/* ---- files: checkpoint.js's writer, F16 / BF16 values asserted exact in the dtype ---------- */
/* tensors: { name: [dtype, shape, values or raw Uint16Array bits] } -> a .safetensors file;
   edit(header) may change the header before it is written. */
const safetensors = (tensors, edit) => ck.safetensors(tensors, { exact: true, edit });

/* ---- a small random GPT-2 --------------------------------------------------------------- */
const VOCAB = ['<s>', '<unk>', '，', '。', '月', '光', 'a', 'b', '𠀀', 'c', 'd'];
// values k / 256, |k| <= 256 * scale <= 128: exact in float16 and bfloat16 alike
function draws(r, n, scale = 0.5, offset = 0, unit = 256) {
  return Array.from(r.rand(n), (u) => offset + Math.floor((u * 2 - 1) * unit * scale) / unit);
}
function randomModel({ seed = 7, nLayer = 2, D = 8, H = 2, F = 16, P = 8, activation = 'gelu_new', dtype = 'F32' } = {}) {
  const r = bl.numpyRandom(seed), V = VOCAB.length, t = {};
  const put = (name, shape, values) => { t[name] = [dtype, shape, values]; };
  put('wte.weight', [V, D], draws(r, V * D));
  put('wpe.weight', [P, D], draws(r, P * D, 0.25));
  for (let l = 0; l < nLayer; l++) {
    const h = `h.${l}.`;
    put(h + 'ln_1.weight', [D], draws(r, D, 1 / 8, 1, 128));   // 1 + k / 128: 8 bits, as bfloat16
    put(h + 'ln_1.bias', [D], draws(r, D, 1 / 16));
    put(h + 'attn.c_attn.weight', [D, 3 * D], draws(r, 3 * D * D));
    put(h + 'attn.c_attn.bias', [3 * D], draws(r, 3 * D, 1 / 16));
    put(h + 'attn.c_proj.weight', [D, D], draws(r, D * D));
    put(h + 'attn.c_proj.bias', [D], draws(r, D, 1 / 16));
    put(h + 'ln_2.weight', [D], draws(r, D, 1 / 8, 1, 128));
    put(h + 'ln_2.bias', [D], draws(r, D, 1 / 16));
    put(h + 'mlp.c_fc.weight', [D, F], draws(r, D * F));
    put(h + 'mlp.c_fc.bias', [F], draws(r, F, 1 / 16));
    put(h + 'mlp.c_proj.weight', [F, D], draws(r, F * D, 0.25));
    put(h + 'mlp.c_proj.bias', [D], draws(r, D, 1 / 16));
  }
  put('ln_f.weight', [D], draws(r, D, 1 / 8, 1, 128));
  put('ln_f.bias', [D], draws(r, D, 1 / 16));
  const config = { n_embd: D, n_layer: nLayer, n_head: H, n_positions: P, vocab_size: V,
    activation_function: activation, layer_norm_epsilon: 1e-5, n_inner: F };
  return { tensors: t, config, vocab: VOCAB.slice() };
}

/* The float64 forward of a model's tensors: reference.js's pre-LN causal layer per layer. */
function referenceForward(model, ids) {
  const c = model.config, D = c.n_embd, V = c.vocab_size, L = ids.length, F = c.n_inner;
  const act = { gelu_new: 'gelu_tanh', gelu: 'gelu', relu: 'relu' }[c.activation_function];
  const w = (name) => Float64Array.from(model.tensors[name][2]);
  const wte = w('wte.weight'), wpe = w('wpe.weight');
  let x = new Float64Array(L * D);
  for (let i = 0; i < L; i++) for (let k = 0; k < D; k++) x[i * D + k] = wte[ids[i] * D + k] + wpe[i * D + k];
  const out = { embeddings: x, layers: [] };
  for (let l = 0; l < c.n_layer; l++) {
    const h = `h.${l}.`, qkv = w(h + 'attn.c_attn.weight'), bqkv = w(h + 'attn.c_attn.bias');
    const col = (j) => Float64Array.from({ length: D * D }, (_, i) => qkv[Math.floor(i / D) * 3 * D + j * D + (i % D)]);
    const r = ref.encoderLayer({ L, dModel: D, nHeads: c.n_head, dFF: F, x, norm: 'pre', causal: true, eps: c.layer_norm_epsilon,
      activation: act, ln1Gamma: w(h + 'ln_1.weight'), ln1Beta: w(h + 'ln_1.bias'),
      Wq: col(0), Wk: col(1), Wv: col(2), bq: bqkv.slice(0, D), bk: bqkv.slice(D, 2 * D), bv: bqkv.slice(2 * D),
      Wo: w(h + 'attn.c_proj.weight'), bo: w(h + 'attn.c_proj.bias'), ln2Gamma: w(h + 'ln_2.weight'), ln2Beta: w(h + 'ln_2.bias'),
      W1: w(h + 'mlp.c_fc.weight'), b1: w(h + 'mlp.c_fc.bias'), W2: w(h + 'mlp.c_proj.weight'), b2: w(h + 'mlp.c_proj.bias') });
    out.layers.push({ x, norm1: r.norm1, attention: { q: r.attn.q, k: r.attn.k, v: r.attn.v, scores: r.attn.scores,
      weights: r.attn.weights, context: r.attn.context, concat: r.attn.concat, out: r.attn.out },
    resid1: r.resid1, norm2: r.norm2, ffn: { hidden: r.ffn.hidden, activated: r.ffn.activated, out: r.ffn.out }, resid2: r.resid2 });
    x = r.resid2;
  }
  out.hidden = ref.norm('layer', { L, d: D, x, gamma: w('ln_f.weight'), beta: w('ln_f.bias'), eps: c.layer_norm_epsilon }).out;
  out.logits = ref.linear(out.hidden, Float64Array.from({ length: D * V }, (_, i) => wte[(i % V) * D + Math.floor(i / V)]), null, L, D, V);
  return out;
}

function load(model, edit) {
  return bl.loadModel({ weights: safetensors(model.tensors, edit), config: model.config, vocab: model.vocab });
}

/* Every array of want (nested) against got; returns the largest difference. */
function closeAll(got, want, atol, rtol, label) {
  let max = 0;
  for (const [k, w] of Object.entries(want)) {
    if (w instanceof Float64Array || Array.isArray(w) && typeof w[0] === 'number') {
      assert.ok(got[k] instanceof Float32Array, `${label}.${k} is a Float32Array`);
      max = Math.max(max, assertClose(got[k], w, atol, rtol, `${label}.${k}`));
    } else max = Math.max(max, closeAll(got[k], w, atol, rtol, `${label}.${k}`));
  }
  return max;
}

// float32 against float64 on these sizes: max differences measured at 2.2e-6
const ATOL = 2e-5, RTOL = 1e-4;

test('a_random_GPT_2_in_safetensors_matches_a_plain_float64_forward_every_layer_and_the_logits', () => {
  let worst = 0;
  for (const opts of [{}, { activation: 'relu', nLayer: 3, D: 12, H: 3, F: 20 }, { activation: 'gelu', nLayer: 1, H: 1 }]) {
    const model = randomModel(opts), m = load(model);
    assert.equal(m.nLayers, model.config.n_layer);
    assert.equal(m.activation, { gelu_new: 'gelu_tanh', relu: 'relu', gelu: 'gelu' }[model.config.activation_function]);
    for (const ids of [[0, 4, 5, 2, 6, 7, 3], [0], [0, 1, 2, 3, 4, 5, 6, 7]]) {
      const got = m.forward(ids), want = referenceForward(model, ids);
      assert.equal(got.logits.length, ids.length * VOCAB.length);
      assert.equal(got.layers.length, model.config.n_layer);
      const max = closeAll(got, want, ATOL, RTOL, `model ${JSON.stringify(opts)} ids ${ids}`);
      worst = Math.max(worst, max);
    }
    m.free();
  }
  console.log(`# max |float32 - float64| over every array: ${worst.toExponential(2)} (atol ${ATOL}, rtol ${RTOL})`);
  assert.ok(worst > 0);   // float32 arithmetic, not a copy of the reference
});

test('F16_and_BF16_files_give_the_same_model_as_F32_and_the_transformer_prefix_is_read_too', () => {
  const ids = [0, 6, 7, 8, 9, 2];
  const base = load(randomModel()).forward(ids).logits;
  for (const dtype of ['F16', 'BF16']) {
    const m = load(randomModel({ dtype }));
    assert.deepEqual(Array.from(m.forward(ids).logits), Array.from(base), dtype);
    m.free();
  }
  const model = randomModel({ dtype: 'F16' });
  model.tensors = Object.fromEntries(Object.entries(model.tensors).map(([k, v]) => ['transformer.' + k, v]));
  const m = load(model);
  assert.deepEqual(Array.from(m.forward(ids).logits), Array.from(base));
  m.free();
});

test('float16_and_bfloat16_values_decode_exactly_subnormals_extremes_negative_zero', () => {
  // bits -> value, from the formats' definitions
  const f16 = [[0x3c00, 1], [0xc000, -2], [0x7bff, 65504], [0x0001, 2 ** -24], [0x03ff, 1023 * 2 ** -24],
    [0x0400, 2 ** -14], [0x8000, -0], [0x3555, 0.333251953125], [0x5640, 100], [0xfbff, -65504],
    [0x2e66, 0.0999755859375], [0x4248, 3.140625], [0x0200, 2 ** -15], [0x7800, 32768], [0x1400, 2 ** -10], [0xbc00, -1]];
  const bf16 = [[0x3f80, 1], [0xc2c8, -100], [0x3eab, 0.333984375], [0x4b80, 16777216], [0x0080, 2 ** -126],
    [0x0001, 2 ** -133], [0x8000, -0], [0x3dcd, 0.10009765625], [0x4049, 3.140625], [0xbf80, -1],
    [0x0100, 2 ** -125], [0x7000, 2 ** 97], [0xc780, -65536], [0x3a83, 0.00099945068359375], [0x2000, 2 ** -63], [0x4000, 2]];
  for (const [dtype, pairs] of [['F16', f16], ['BF16', bf16]]) {
    const model = randomModel({ dtype, D: 8 });
    const wte = new Uint16Array(VOCAB.length * 8);
    pairs.forEach(([bits], i) => { wte[i] = bits; });
    model.tensors['wte.weight'] = [dtype, [VOCAB.length, 8], wte];
    model.tensors['wpe.weight'] = [dtype, [8, 8], new Uint16Array(64)];   // zeros: embeddings = wte rows
    const m = load(model), e = m.forward([0, 1]).embeddings;
    pairs.forEach(([bits, value], i) => assert.ok(e[i] === value, `${dtype} 0x${bits.toString(16)}: got ${e[i]}, want ${value}`));
    m.free();
  }
});

/* ---- malformed files --------------------------------------------------------------------- */
function bytesWith(fn) { const b = safetensors(randomModel().tensors); fn(b); return b; }
const headerOf = (text) => ck.raw(text, 16);   // any header text, then 16 zero bytes of data
const MALFORMED = [
  ['an empty file', new Uint8Array(0), /^BlockLens: weights: truncated file \(0 bytes\): a safetensors file starts with an 8-byte header length$/],
  ['a truncated file', () => safetensors(randomModel().tensors).slice(0, 5), /truncated file \(5 bytes\)/],
  ['a header length past the end', () => bytesWith((b) => { b[0] = 0xff; b[1] = 0xff; b[2] = 0x0f; }),
    /^BlockLens: weights: the header length \(1048575 bytes\) runs past the end of the file \(\d+ bytes\)/],
  ['a header length of 2^63', () => bytesWith((b) => { b[7] = 0x80; }), /the header length \(9\d{18} bytes\) runs past the end/],
  ['a file cut inside the data', () => safetensors(randomModel().tensors).slice(0, -3),
    /^BlockLens: weights: tensor "ln_f.bias" has data_offsets \[\d+, \d+\], past the end of the data/],
  ['a header that is not JSON', headerOf('{"wte.weight": {"dtype": "F32",'), /^BlockLens: weights: the header is not JSON \(/],
  ['a header that is not UTF-8', headerOf('{"a":1}').map((v, i) => (i === 9 ? 0xff : v)), /the header is not UTF-8 text/],
  ['a header that is an array', headerOf('[1, 2]'), /^BlockLens: weights: the header is an array, not a JSON object of tensors$/],
  ['a header that is null', headerOf('null'), /the header is null, not a JSON object/],
  ['an entry that is a number', headerOf('{"wte.weight": 5}'), /^BlockLens: weights: tensor "wte.weight" in the header: 5, not an object$/],
  ['an entry without a dtype', headerOf('{"wte.weight": {"shape": [1], "data_offsets": [0, 4]}}'), /tensor "wte.weight" in the header: its dtype is undefined, not a string/],
  ['a shape with a fraction', headerOf('{"x": {"dtype": "F32", "shape": [1.5], "data_offsets": [0, 4]}}'), /tensor "x" in the header: its shape must be a list of whole numbers, not \[1.5\]/],
  ['reversed data_offsets', headerOf('{"x": {"dtype": "F32", "shape": [1], "data_offsets": [8, 4]}}'), /tensor "x" in the header: data_offsets must be \[begin, end\] with 0 <= begin <= end, not \[8,4\]/],
  ['overlapping data_offsets', () => safetensors(randomModel().tensors, (h) => { h['wpe.weight'].data_offsets[0] -= 4; h['wpe.weight'].data_offsets[1] -= 4; }),
    /^BlockLens: weights: tensors "wte.weight" \[0, 352\) and "wpe.weight" \[348, 604\) overlap$/],
  // a dtype of the format's of the same size (I32), so that the size check with the header passes
  ['an unknown dtype', () => safetensors(randomModel().tensors, (h) => { h['h.0.attn.c_proj.weight'].dtype = 'I32'; }),
    /^BlockLens: weights: tensor "h.0.attn.c_proj.weight" has dtype "I32"; BlockLens reads F32, F16 and BF16$/],
  ['a dtype whose size does not fit the bytes', () => safetensors(randomModel().tensors, (h) => { h['h.0.attn.c_proj.weight'].dtype = 'I64'; }),
    /^BlockLens: weights: tensor "h.0.attn.c_proj.weight" holds 256 bytes; \[8, 8\] in I64 needs 512$/],
  // issue 24, item 3: what the format forbids, in tensors used or not, each named
  ['a tensor named twice', headerOf('{"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}, ' +
    '"__metadata__": {"a": "a"}, "a": {"dtype": "F32", "shape": [2], "data_offsets": [8, 16]}}'),
  /^BlockLens: weights: the header names tensor "a" twice \(safetensors forbids it\)$/],
  ['a repeated name written with an escape', headerOf('{"ln_f.bias": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}, ' +
    '"ln_f\\u002ebias": {"dtype": "F32", "shape": [2], "data_offsets": [8, 16]}}'), /the header names tensor "ln_f.bias" twice/],
  ['a hole between tensors', headerOf('{"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, ' +
    '"b": {"dtype": "F32", "shape": [2], "data_offsets": [8, 16]}}'),
  /^BlockLens: weights: data bytes \[4, 8\) between tensors "a" and "b" are no tensor's: safetensors forbids holes$/],
  ['a hole before the first tensor', headerOf('{"b": {"dtype": "F32", "shape": [3], "data_offsets": [4, 16]}}'),
    /^BlockLens: weights: data bytes \[0, 4\) before tensor "b" are no tensor's/],
  ['bytes after the last tensor', () => { const f = safetensors(randomModel().tensors), b = new Uint8Array(f.length + 4); b.set(f); return b; },
    /^BlockLens: weights: data bytes \[(\d+), \d+\) after tensor "ln_f.bias" are no tensor's: safetensors forbids holes$/],
  ['data and no tensors', headerOf('{"__metadata__": {}}'), /^BlockLens: weights: data bytes \[0, 16\) of a file of no tensors are no tensor's/],
  ['an empty tensor inside another', headerOf('{"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}, ' +
    '"e": {"dtype": "F32", "shape": [0], "data_offsets": [8, 8]}}'), /^BlockLens: weights: tensors "a" \[0, 16\) and "e" \[8, 8\) overlap$/],
  ['a header that starts with a space', headerOf(' {"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}'),
    /^BlockLens: weights: the header starts with " ", not "\{" \(as safetensors requires\)$/],
  ['an unused tensor whose shape does not fit its bytes', () => { const t = randomModel().tensors; t['h.0.attn.bias'] = ['F32', [1, 1, 8, 8], new Float32Array(4)]; return safetensors(t); },
    /^BlockLens: weights: tensor "h.0.attn.bias" holds 16 bytes; \[1, 1, 8, 8\] in F32 needs 256$/],
  ['an unused tensor of no safetensors dtype', () => safetensors({ ...randomModel().tensors, extra: ['F32', [1], [0]] }, (h) => { h.extra.dtype = 'F128'; }),
    /^BlockLens: weights: tensor "extra" in the header: its dtype "F128" is not a safetensors dtype \(BlockLens reads F32, F16 and BF16\)$/],
  ['an unused tensor of 4-bit values in half a byte', headerOf('{"a": {"dtype": "F32", "shape": [3], "data_offsets": [0, 12]}, ' +
    '"f4": {"dtype": "F4", "shape": [3], "data_offsets": [12, 14]}}'), /tensor "f4" holds 2 bytes; \[3\] in F4 needs 1.5/],
  ['a missing tensor', () => { const t = randomModel().tensors; delete t['h.1.mlp.c_fc.bias']; return safetensors(t); },
    /^BlockLens: weights: no tensor "h.1.mlp.c_fc.bias" \(GPT-2 names, with or without "transformer."\)$/],
  ['a tensor of the wrong shape', () => { const t = randomModel().tensors; t['wpe.weight'] = ['F32', [9, 8], new Float32Array(72)]; return safetensors(t); },
    /^BlockLens: weights: tensor "wpe.weight" has shape \[9, 8\], expected \[8, 8\]$/],
  ['a c_attn of one block', () => { const t = randomModel().tensors; t['h.1.attn.c_attn.weight'] = ['F32', [8, 8], new Float32Array(64)]; return safetensors(t); },
    /tensor "h.1.attn.c_attn.weight" has shape \[8, 8\], expected \[8, 24\]/],
  ['data_offsets that do not fit the shape', () => safetensors(randomModel().tensors, (h) => { h['ln_f.bias'].dtype = 'F16'; }),
    /^BlockLens: weights: tensor "ln_f.bias" holds 32 bytes; \[8\] in F16 needs 16$/],
  ['a NaN in a weight', () => { const t = randomModel().tensors; t['h.1.attn.c_attn.weight'][2][5 * 24 + 17] = NaN; return safetensors(t); },
    /^BlockLens: weights: tensor "h.1.attn.c_attn.weight" \(its v columns\) holds NaN at value 41$/],
  ['an infinity in float16', () => { const m = randomModel({ dtype: 'F16' }); m.tensors['ln_f.weight'][2] = Uint16Array.of(0x3c00, 0x7c00, 0, 0, 0, 0, 0, 0); return safetensors(m.tensors); },
    /tensor "ln_f.weight" holds Infinity at value 1/]
];

test('every_malformed_file_throws_a_named_BlockLens_Error_and_the_engine_keeps_working', () => {
  const good = randomModel(), ids = [0, 4, 5];
  const before = load(good).forward(ids).logits;
  for (const [what, make, message] of MALFORMED) {
    const weights = typeof make === 'function' ? make() : make;
    assert.throws(() => bl.loadModel({ weights, config: good.config, vocab: good.vocab }),
      (e) => e instanceof Error && message.test(e.message) || assert.fail(`${what}: ${e.message}`), what);
  }
  // the engine after all that: a block call and a model load give what they gave before
  const r = bl.numpyRandom(3);
  const f = bl.ffn({ L: 2, dModel: 4, dFF: 8, x: r.randnF32(8), W1: r.randnF32(32), W2: r.randnF32(32) });
  assert.equal(f.out.length, 8);
  assert.deepEqual(Array.from(load(good).forward(ids).logits), Array.from(before));
});

test('randomly_corrupted_files_load_or_throw_a_BlockLens_Error_nothing_else', () => {
  const good = randomModel({ dtype: 'F16' }), file = safetensors(good.tensors), r = bl.numpyRandom(11);
  const hlen = new DataView(file.buffer).getUint32(0, true);
  let loaded = 0, refused = 0;
  for (let n = 0; n < 400; n++) {
    const u = r.rand(8), b = file.slice();
    const at = n % 4 === 0 ? Math.floor(u[0] * 8)                    // the header length
      : n % 4 === 1 ? 8 + Math.floor(u[0] * hlen)                     // the JSON
        : 8 + hlen + Math.floor(u[0] * (b.length - 8 - hlen));        // the data
    b[at] ^= 1 << Math.floor(u[1] * 8);
    if (u[2] < 0.3) b[Math.floor(u[3] * b.length)] = Math.floor(u[4] * 256);
    const bytes = u[5] < 0.2 ? b.subarray(0, Math.floor(u[6] * b.length)) : b;
    let m;
    try {
      m = bl.loadModel({ weights: bytes, config: good.config, vocab: good.vocab });
    } catch (e) {
      assert.ok(e instanceof Error && e.message.startsWith('BlockLens: '), `run ${n}: ${e && e.stack}`);
      refused++;
      continue;
    }
    assert.equal(m.forward([0, 1, 2]).logits.length, 3 * VOCAB.length);
    m.free();
    loaded++;
  }
  console.log(`# 400 corrupted files: ${loaded} loaded, ${refused} refused`);
  assert.ok(loaded > 20 && refused > 100);
  const a = load(good), b = load(randomModel({ dtype: 'F16' }));   // the engine still works
  assert.deepEqual(Array.from(a.forward([0, 4]).logits), Array.from(b.forward([0, 4]).logits));
  a.free();
  b.free();
});

test('config_and_vocab_errors_are_named', () => {
  const g = randomModel(), weights = safetensors(g.tensors);
  const cases = [
    [{ config: { ...g.config, n_head: 3 } }, /^BlockLens: config.n_embd \(8\) must be divisible by config.n_head \(3\)$/],
    [{ config: { ...g.config, n_layer: 0 } }, /config.n_layer \(0\) must be an integer between 1 and 65536/],
    [{ config: { ...g.config, vocab_size: '11' } }, /config.vocab_size must be an integer between 1 and 65536, not "11" \(a string\)/],
    [{ config: { ...g.config, activation_function: 'swiglu' } }, /config.activation_function "swiglu" \(a string\) is not one of relu, gelu, gelu_new/],
    [{ config: { ...g.config, layer_norm_epsilon: 0 } }, /config.layer_norm_epsilon \(0\) must be a positive number/],
    [{ config: { ...g.config, n_inner: null } }, /tensor "h.0.mlp.c_fc.weight" has shape \[8, 16\], expected \[8, 32\]/],
    [{ config: { ...g.config, n_layer: 3 } }, /no tensor "h.2.ln_1.weight"/],
    [{ config: null }, /config must be an object \(GPT-2's config.json\), not null/],
    [{ config: { ...g.config, model_type: 'falcon' } },
      /^BlockLens: config.model_type "falcon" \(a string\) is not one BlockLens reads \(gpt2, llama, mistral, qwen2, qwen3\)$/],
    [{ vocab: g.vocab.slice(1) }, /^BlockLens: vocab has 10 entries, config.vocab_size is 11$/],
    [{ vocab: [...g.vocab.slice(0, 10), 'a'] }, /^BlockLens: vocab\[10\] "a" repeats vocab\[6\]$/],
    [{ vocab: [...g.vocab.slice(0, 10), 7] }, /vocab\[10\] is 7, not a string/],
    [{ vocab: 'abc' }, /vocab must be an array of strings/],
    [{ weights: [1, 2, 3] }, /weights must be a Uint8Array \(the bytes of a .safetensors file\), not an array/],
    [{ tokenizer: 1 }, /loadModel has no option "tokenizer" \(known: weights, config, vocab\)/]
  ];
  for (const [change, message] of cases)
    assert.throws(() => bl.loadModel({ weights, config: g.config, vocab: g.vocab, ...change }), { message }, JSON.stringify(change));
  assert.throws(() => bl.loadModel({ get weights() { throw new TypeError('no'); }, config: g.config, vocab: g.vocab }),
    { message: /loadModel: reading its arguments threw TypeError: no/ });
  // an ArrayBuffer is read as its bytes
  const m = bl.loadModel({ weights: weights.slice().buffer, config: g.config, vocab: g.vocab });
  assert.equal(m.forward([0, 1]).logits.length, 22);
  m.free();
});

test('a_failed_load_and_a_freed_model_leave_no_memory_behind', () => {
  // 2,000 x 64 floats of wte: 512 KB per load
  const big = randomModel({ D: 64, H: 4, F: 64 });
  const V = 2000, vocab = Array.from({ length: V }, (_, i) => (i < VOCAB.length ? VOCAB[i] : 'w' + i));
  big.config.vocab_size = V;
  big.tensors['wte.weight'] = ['F32', [V, 64], new Float32Array(V * 64).fill(0.25)];
  const good = safetensors(big.tensors);
  big.tensors['ln_f.bias'][2][63] = NaN;   // the last check, after the copy into the heap
  const bad = safetensors(big.tensors);
  const args = (weights) => ({ weights, config: big.config, vocab });
  const warm = bl.loadModel(args(good));
  warm.forward([0, 5, 6]);
  warm.free();
  assert.throws(() => bl.loadModel(args(bad)), { message: /tensor "ln_f.bias" holds NaN at value 63/ });
  const heap = bl.heapBytes();
  for (let i = 0; i < 40; i++) {
    assert.throws(() => bl.loadModel(args(bad)), { message: /holds NaN/ });
    const m = bl.loadModel(args(good));
    assert.ok(m.heapBytes > V * 64 * 4);
    m.forward([0, 5, 6]);
    m.free();
    m.free();   // twice is fine
  }
  assert.equal(bl.heapBytes(), heap, '40 x (a failed load + a load, forward, free) grew the heap');
});

test('encode_s_first_one_id_per_character_unk_for_the_unknown_decode_joins_the_strings', () => {
  const m = load(randomModel());
  assert.deepEqual(Array.from(m.encode('月光a?𠀀')), [0, 4, 5, 6, 1, 8]);
  assert.ok(m.encode('') instanceof Int32Array);
  assert.deepEqual(Array.from(m.encode('')), [0]);
  assert.equal(m.decode(m.encode('月光，ab')), '<s>月光，ab');
  assert.equal(m.decode([8, 3]), '𠀀。');
  assert.equal(m.decode(new Int32Array(0)), '');
  assert.throws(() => m.encode(5), { message: /^BlockLens: encode expects a string, not 5$/ });
  assert.throws(() => m.decode([1, 11]), { message: /^BlockLens: decode: ids\[1\] \(11\) must be in \[0, vocab 11\)$/ });
  assert.deepEqual(m.vocab, VOCAB);
  assert.equal(m.bosId, 0);
  assert.equal(m.unkId, 1);
  m.free();
  // without <s> and <unk> in the vocabulary: the config's ids, else a named error
  const g = randomModel(), vocab = g.vocab.map((s) => (s === '<s>' ? 'S' : s === '<unk>' ? 'U' : s));
  const weights = safetensors(g.tensors);
  const n = bl.loadModel({ weights, config: { ...g.config, bos_token_id: 3, unk_token_id: 2 }, vocab });
  assert.deepEqual(Array.from(n.encode('a?')), [3, 6, 2]);
  assert.deepEqual([n.bosId, n.unkId], [3, 2]);
  n.free();
  const o = bl.loadModel({ weights, config: g.config, vocab });
  assert.throws(() => o.encode('a'), { message: /encode: the vocabulary has no "<s>" \(nor the config a bos_token_id\)/ });
  o.free();
});

test('forward_keeps_the_chosen_layers_only_a_layers_x_is_the_previous_ones_resid2', () => {
  const model = randomModel({ nLayer: 3 }), m = load(model), ids = m.encode('月光ab，');
  const all = m.forward(ids), some = m.forward(ids, { layers: [2] }), none = m.forward(ids, { layers: [] });
  assert.deepEqual(Array.from(some.logits), Array.from(all.logits));
  assert.deepEqual(Array.from(none.logits), Array.from(all.logits));
  assert.deepEqual(some.layers.map((l) => l === null), [true, true, false]);
  assert.deepEqual(none.layers, [null, null, null]);
  assert.deepEqual(Array.from(some.layers[2].x), Array.from(all.layers[1].resid2));
  assert.deepEqual(Array.from(some.layers[2].attention.weights), Array.from(all.layers[2].attention.weights));
  assert.deepEqual(Array.from(all.layers[0].x), Array.from(all.embeddings));
  assert.equal(all.layers[1].input, all.layers[1].x);
  const L = ids.length;
  assert.equal(all.layers[1].attention.scores.length, 2 * L * L);
  assert.equal(all.layers[1].ffn.hidden.length, L * 16);
  // causal: row i of every head's weights sums to 1 over keys 0..i, 0 after
  const w = all.layers[0].attention.weights;
  for (let h = 0; h < 2; h++)
    for (let i = 0; i < L; i++) {
      let s = 0;
      for (let j = 0; j < L; j++) { if (j > i) assert.equal(w[(h * L + i) * L + j], 0); s += w[(h * L + i) * L + j]; }
      assert.ok(Math.abs(s - 1) < 1e-6);
    }
  const errors = [
    [[0, 11], undefined, /^BlockLens: forward: ids\[1\] \(11\) must be in \[0, vocab 11\)$/],
    [[0, -1], undefined, /ids\[1\] \(-1\) must be in/],
    [[0, 1.5], undefined, /ids\[1\] \(1.5\) must be in/],
    [[0, '1'], undefined, /ids\[1\] \("1" \(a string\)\) must be in/],
    [new Int32Array(9), undefined, /^BlockLens: forward: ids has 9 tokens; the model reads 1 to 8 \(n_positions\)$/],
    [[], undefined, /ids has 0 tokens/],
    [new Float32Array(2), undefined, /forward expects ids: an Int32Array or an array of token ids, not a Float32Array/],
    ['月光', undefined, /forward expects ids/],
    [[0], { layers: [3] }, /^BlockLens: forward: layers\[0\] \(3\) must be a layer index in \[0, 3\)$/],
    [[0], { layers: 1 }, /forward: layers must be an array of layer indices, not 1/],
    [[0], { layer: [1] }, /forward has no option "layer" \(known: layers, lens, ablate, patch, start, set, stop, logits\)/],
    [[0], [1], /forward: opts must be an object \(\{ layers, lens, ablate, patch, start, set, stop, logits \}\), not an array/]
  ];
  for (const [bad, opts, message] of errors) assert.throws(() => m.forward(bad, opts), { message });
  assert.deepEqual(Array.from(m.forward(ids).logits), Array.from(all.logits));   // still fine
  m.free();
  assert.throws(() => m.forward(ids), { message: /^BlockLens: forward: this model was freed \(free\(\) was called\)$/ });
  assert.throws(() => m.encode('a'), { message: /encode: this model was freed/ });
});

test('layerWeights_gives_a_layers_weights_under_the_engines_names_c_attn_split_by_columns', () => {
  const model = randomModel({ nLayer: 2, D: 8, F: 16 }), m = load(model), D = 8, t = model.tensors;
  const w = m.layerWeights(1), qkv = t['h.1.attn.c_attn.weight'][2], bqkv = t['h.1.attn.c_attn.bias'][2];
  ['Wq', 'Wk', 'Wv'].forEach((k, j) => {
    const want = Array.from({ length: D * D }, (_, i) => qkv[Math.floor(i / D) * 3 * D + j * D + (i % D)]);
    assert.deepEqual(Array.from(w[k]), want, k);
    assert.deepEqual(Array.from(w['b' + k[1]]), bqkv.slice(j * D, (j + 1) * D), 'b' + k[1]);
  });
  const named = { Wo: 'attn.c_proj.weight', bo: 'attn.c_proj.bias', W1: 'mlp.c_fc.weight', b1: 'mlp.c_fc.bias',
    W2: 'mlp.c_proj.weight', b2: 'mlp.c_proj.bias', ln1Gamma: 'ln_1.weight', ln1Beta: 'ln_1.bias',
    ln2Gamma: 'ln_2.weight', ln2Beta: 'ln_2.bias' };
  for (const [k, name] of Object.entries(named)) assert.deepEqual(Array.from(w[k]), t['h.1.' + name][2], k);
  assert.equal(Object.keys(w).length, 16);
  // the same block through engine.encoderLayer gives the model's layer 1
  const ids = [0, 4, 5, 6], out = m.forward(ids);
  const e = bl.encoderLayer({ L: 4, dModel: D, nHeads: 2, dFF: 16, x: out.layers[1].x, norm: 'pre', causal: true,
    activation: 'gelu_tanh', ...w });
  assert.deepEqual(Array.from(e.out), Array.from(out.layers[1].resid2));
  assert.throws(() => m.layerWeights(2), { message: /^BlockLens: layerWeights: layer \(2\) must be a layer index in \[0, 2\)$/ });
  m.free();
  assert.throws(() => m.layerWeights(0), { message: /layerWeights: this model was freed/ });
});

/* ---- issue 24: hostile weights, read-only sizes, unused tensors, a free during forward ---- */
test('a_hostile_Uint8Array_subclass_loads_from_its_real_bytes_and_leaves_another_model_intact', () => {
  const ids = [0, 4, 5, 6], first = load(randomModel({ seed: 3 })), before = first.forward(ids).logits;
  const g = randomModel({ seed: 5 }), file = safetensors(g.tensors);
  const plain = bl.loadModel({ weights: file, config: g.config, vocab: g.vocab }), want = plain.forward(ids).logits;
  plain.free();
  // Symbol.species: as asked for slice() (a length), 4 MB of 1.0f for subarray() (a buffer, offset, length)
  class Big extends Uint8Array {
    constructor(a) {
      if (typeof a === 'number') super(a);
      else { super(4 << 20); new Float32Array(this.buffer).fill(1); }
    }
  }
  const variants = {
    species: class extends Uint8Array { static get [Symbol.species]() { return Big; } },
    methods: class extends Uint8Array {
      subarray() { return new Big(); }
      slice(b, e) { return Uint8Array.from(Array.prototype.slice.call(this, b, e)); }
      get length() { return 1 << 30; }
      get byteLength() { return 1 << 30; }
      get byteOffset() { return 12345; }
      get buffer() { return new ArrayBuffer(8); }
    },
    constructor: class extends Uint8Array {}
  };
  Object.defineProperty(variants.constructor.prototype, 'constructor', { get() { return Big; } });
  let loaded = 0;
  for (const [what, Hostile] of Object.entries(variants)) {
    const weights = new Hostile(file.length);
    Uint8Array.prototype.set.call(weights, file);
    let m;
    try {
      m = bl.loadModel({ weights, config: g.config, vocab: g.vocab });
    } catch (e) {
      assert.ok(e.message.startsWith('BlockLens: '), `${what}: ${e.stack}`);
      continue;
    }
    assert.deepEqual(Array.from(m.forward(ids).logits), Array.from(want), `${what}: the file's own logits`);
    m.free();
    loaded++;
  }
  console.log(`# hostile Uint8Array subclasses: ${loaded} of 3 loaded from their real bytes, the others refused`);
  // a weights view into a bigger buffer, at an offset: its own bytes, no more
  const wide = new Uint8Array(file.length + 100);
  wide.set(file, 40);
  const sub = bl.loadModel({ weights: wide.subarray(40, 40 + file.length), config: g.config, vocab: g.vocab });
  assert.deepEqual(Array.from(sub.forward(ids).logits), Array.from(want));
  sub.free();
  // a buffer transferred by a config getter, and an object posing as an ArrayBuffer: BlockLens Errors
  const mine = file.slice(), config = { ...g.config };
  Object.defineProperty(config, 'n_embd', { get() { structuredClone(mine.buffer, { transfer: [mine.buffer] }); return 8; } });
  assert.throws(() => bl.loadModel({ weights: mine, config, vocab: g.vocab }), { message: /^BlockLens: weights: truncated file \(0 bytes\)/ });
  assert.throws(() => bl.loadModel({ weights: { [Symbol.toStringTag]: 'ArrayBuffer', byteLength: 8 }, config: g.config, vocab: g.vocab }),
    { message: /^BlockLens: weights must be a Uint8Array \(the bytes of a .safetensors file\), not an object$/ });
  assert.deepEqual(Array.from(first.forward(ids).logits), Array.from(before), 'the model loaded first, bit for bit');
  first.free();
});

test('a_models_sizes_are_read_only_and_forward_ignores_attempts_to_change_them', () => {
  const g = randomModel(), m = load(g), ids = [0, 4, 5], want = Array.from(m.forward(ids).logits);
  const changes = { nPositions: 1 << 20, vocabSize: 1 << 20, nLayers: 40, dModel: 4096, nHeads: 3, dFF: 1, eps: NaN,
    activation: 'relu', heapBytes: 0, bosId: 7, unkId: 7, config: {}, vocab: [] };
  for (const [k, v] of Object.entries(changes)) {
    const was = m[k];
    assert.throws(() => { m[k] = v; }, TypeError, `${k} = ${v}`);   // this file is strict: a read-only field throws
    assert.throws(() => Object.defineProperty(m, k, { value: v }), TypeError, `defineProperty ${k}`);
    assert.throws(() => { delete m[k]; }, TypeError, `delete ${k}`);
    assert.equal(m[k], was, k);
  }
  assert.throws(() => { m.config.n_embd = 4; }, TypeError);
  assert.throws(() => { m.vocab[4] = 'x'; }, TypeError);
  assert.deepEqual(Object.keys(m).filter((k) => k.startsWith('_')), [], 'no internal state on the model');
  assert.deepEqual(Array.from(m.forward(ids).logits), want, 'forward as before, bit for bit');
  assert.equal(m.decode([4, 5]), '月光');
  assert.throws(() => m.forward([0, 0, 0, 0, 0, 0, 0, 0, 0]), { message: /forward: ids has 9 tokens; the model reads 1 to 8/ });
  m.free();
});

test('unused_tensors_of_any_consistent_dtype_and_shape_are_ignored_GPT_2s_attn_bias_too', () => {
  const g = randomModel(), ids = [0, 4, 5, 6], want = Array.from(load(g).forward(ids).logits);
  const t = { ...g.tensors };
  for (let l = 0; l < 2; l++) {
    t[`h.${l}.attn.bias`] = ['F32', [1, 1, 8, 8], new Float32Array(64).fill(1)];   // as HF's GPT-2 has them
    t[`h.${l}.attn.masked_bias`] = ['F32', [], [-1e4]];                              // a scalar: shape []
  }
  t['extra.empty'] = ['F32', [0, 8], []];
  t['extra.ints'] = ['F32', [3], [0, 0, 0]];
  t['extra.bf16'] = ['BF16', [2, 3], [1, 2, 3, 4, 5, 6]];
  const m = bl.loadModel({ weights: safetensors(t, (h) => { h['extra.ints'].dtype = 'I32'; h.__metadata__['wte.weight'] = 'wte.weight'; }),
    config: g.config, vocab: g.vocab });
  assert.deepEqual(Array.from(m.forward(ids).logits), want);
  m.free();
});

test('a_getter_that_frees_the_model_during_forward_gets_this_model_was_freed', () => {
  const g = randomModel(), freed = { message: /^BlockLens: forward: this model was freed \(free\(\) was called\)$/ };
  const heap = bl.heapBytes();
  let m = load(g);
  assert.throws(() => m.forward([0, 1], { get layers() { m.free(); return [0]; } }), freed);
  m = load(g);
  const ids = [0, 4, 5];
  Object.defineProperty(ids, 2, { get() { m.free(); return 5; } });
  assert.throws(() => m.forward(ids), freed);
  // freed and another model loaded into its memory by the getter: still refused, the other one intact
  m = load(g);
  let other;
  assert.throws(() => m.forward([0, 1], { get layers() { m.free(); other = load(g); return [1]; } }), freed);
  assert.equal(other.forward([0, 1]).logits.length, 2 * VOCAB.length);
  other.free();
  assert.equal(bl.heapBytes(), heap);
});

/* ---- the shipped model ------------------------------------------------------------------ */
test('the_shipped_poem_model_matches_its_float64_fixture_ids_logits_every_intermediate_top_1', () => {
  // written by tools/train/reference.py (tools/gen_fixtures.py runs it); missing files fail here
  const dir = path.join(root, 'web', 'models', 'poems');
  const fixture = JSON.parse(fs.readFileSync(path.join(root, 'tests', 'fixtures', 'poems.json'), 'utf8'));
  const m = bl.loadModel({ weights: fs.readFileSync(path.join(dir, 'model.safetensors')),   // a Buffer, as the README has it
    config: JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8')),
    vocab: JSON.parse(fs.readFileSync(path.join(dir, 'vocab.json'), 'utf8')) });
  assert.equal(m.vocabSize, fixture.vocab_size);
  assert.ok(fixture.cases.length >= 3);
  let layersCompared = 0;
  for (const c of fixture.cases) {
    const ids = m.encode(c.text);
    assert.deepEqual(Array.from(ids), c.ids, `${c.text}: ids`);
    const got = m.forward(ids), V = m.vocabSize, L = ids.length;
    const last = got.logits.subarray((L - 1) * V, L * V);
    const diff = assertClose(last, c.last_logits, c.atol, c.rtol, `${c.text}: last logits`);
    let top = 0;
    for (let j = 1; j < V; j++) if (last[j] > last[top]) top = j;
    assert.equal(m.vocab[top], c.top10[0].char, `${c.text}: top-1 next character`);
    assert.equal(top, c.top10[0].id);
    if (c.logits) assertClose(got.logits, c.logits, c.atol, c.rtol, `${c.text}: logits`);
    if (c.layers) {
      assert.equal(c.layers.length, m.nLayers);
      c.layers.forEach((want, l) => { closeAll(got.layers[l], want, c.atol, c.rtol, `${c.text}: layers[${l}]`); layersCompared++; });
    }
    console.log(`# ${c.text}: next ${c.top10[0].char} (p ${c.top10[0].p}), last logits max diff ${diff.toExponential(2)} (atol ${c.atol})`);
  }
  assert.ok(layersCompared >= 1, 'the fixture gives at least one layer\'s intermediates');
  m.free();
});

test('logits_that_overflow_float32_throw_an_Error_naming_the_token_not_Inf_or_NaN', () => {
  // Finite weights whose products pass float32's 3.4e38: ln_f's gamma at 3e38 (an F32 file).
  const model = randomModel({ nLayer: 1 });
  model.tensors['ln_f.weight'][2] = new Array(8).fill(3e38);
  const m = load(model);
  assert.throws(() => m.forward([0, 4, 5]), /^Error: BlockLens: logit of token 0, vocabulary entry \d+ is (infinite|NaN): float32 overflowed inside the model/);
  m.free();
  const ok = load(randomModel({ nLayer: 1 }));   // the engine keeps working
  assert.ok(ok.forward([0, 4, 5]).logits.every(Number.isFinite));
  ok.free();
});
