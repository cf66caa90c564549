// llama.test.js - bl.loadModel on the tiny Hugging Face folders of tests/fixtures/models
// (tools/gen_models.py): Llama, Mistral, Qwen2 (two shards, merged here into one file, the
// loader's input today), Qwen3 and GPT-2, forward() against each folder's independent float64
// reference at its float32 tolerance; the weights kept in their dtype; every bad config refused
// with a message naming the key, after which the engine still works.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { BlockLens, assertClose, root } = require('./helpers.js');
const ck = require('./checkpoint.js');

const DIR = path.join(root, 'tests', 'fixtures', 'models');
let bl;
test.before(async () => { bl = await BlockLens.load(); });

/* ---- a folder ----------------------------------------------------------------------------- */
/* The shards of a folder as one safetensors file (checkpoint.js's writer): the same tensors,
   bytes and header entries; edit(entry) may replace an entry's dtype and data first. */
function merged(files, edit) {
  const entries = files.flatMap((bytes) => Object.entries(ck.read(bytes).tensors)
    .map(([name, [dtype, shape, data]]) => ({ name, dtype, shape, data })));
  if (edit) entries.forEach(edit);
  return ck.safetensors(Object.fromEntries(entries.map((e) => [e.name, [e.dtype, e.shape, e.data]])));
}

function folder(name) {
  const dir = path.join(DIR, name), read = (f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
  const config = read('config.json'), reference = read('reference.json');
  const index = fs.existsSync(path.join(dir, 'model.safetensors.index.json')) ? read('model.safetensors.index.json') : null;
  const files = index ? [...new Set(Object.values(index.weight_map))] : ['model.safetensors'];
  const shards = files.map((f) => new Uint8Array(fs.readFileSync(path.join(dir, f))));
  const weights = shards.length === 1 ? shards[0] : merged(shards);
  // the loader wants a vocabulary: vocab_size distinct strings
  const vocab = Array.from({ length: config.vocab_size }, (_, i) => 'tok' + i);
  return { config, reference, weights, vocab, shards: shards.length };
}

function load(f, config) {
  return bl.loadModel({ weights: f.weights, config: config || f.config, vocab: f.vocab });
}

/* reference.json's key for each array of forward()'s result. */
const LLAMA_KEYS = { x: 'x', norm1: 'norm1', rstd1: 'rstd1', 'attention.q': 'q', 'attention.k': 'k',
  'attention.v': 'v', 'attention.qRot': 'q_rot', 'attention.kRot': 'k_rot', 'attention.scores': 'scores',
  'attention.weights': 'weights', 'attention.context': 'context', 'attention.concat': 'concat',
  'attention.out': 'attn_out', resid1: 'resid1', norm2: 'norm2', rstd2: 'rstd2', 'ffn.gate': 'gate',
  'ffn.up': 'up', 'ffn.activated': 'activated', 'ffn.out': 'ffn_out', resid2: 'resid2' };
const GPT2_KEYS = { x: 'x', norm1: 'norm1', 'attention.q': 'q', 'attention.k': 'k', 'attention.v': 'v',
  'attention.scores': 'scores', 'attention.weights': 'weights', 'attention.context': 'context',
  'attention.concat': 'concat', 'attention.out': 'attn_out', resid1: 'resid1', norm2: 'norm2',
  'ffn.hidden': 'hidden', 'ffn.activated': 'activated', 'ffn.out': 'ffn_out', resid2: 'resid2' };

/* forward() of the folder's model on the reference's ids against every reference array. */
function matchesReference(name, keys) {
  const f = folder(name), r = f.reference, model = load(f);
  try {
    const out = model.forward(r.ids), e = r.expected, tol = [r.atol, r.rtol];
    let max = 0;
    max = Math.max(max, assertClose(out.logits, e.logits, ...tol, name + ' logits'));
    max = Math.max(max, assertClose(out.embeddings, e.embed, ...tol, name + ' embeddings'));
    max = Math.max(max, assertClose(out.hidden, e.hidden, ...tol, name + ' hidden'));
    const layer = out.layers[r.layer];
    for (const [k, ref] of Object.entries(keys)) {
      const got = k.split('.').reduce((o, p) => o[p], layer);
      assert.ok(got instanceof Float32Array, `${name} layers[${r.layer}].${k} is a Float32Array`);
      max = Math.max(max, assertClose(got, e['layer.' + ref], ...tol, `${name} layers[${r.layer}].${k}`));
    }
    console.log(`${name}: max diff ${max.toExponential(2)} (atol ${r.atol}, rtol ${r.rtol}, logits ` +
      `${assertClose(out.logits, e.logits, ...tol, 'logits').toExponential(2)})`);
    // keeping one layer only changes nothing in the logits
    assert.deepEqual(model.forward(r.ids, { layers: [r.layer] }).logits, out.logits);
    return model;
  } finally {
    model.free();
  }
}

test('llama_folder_with_gqa_and_llama3_rope_matches_its_torch_reference', () => { matchesReference('llama', LLAMA_KEYS); });
test('llama_bf16_folder_matches_its_torch_reference', () => { matchesReference('llama-bf16', LLAMA_KEYS); });
test('qwen2_f16_two_shards_with_qkv_biases_match_their_torch_reference', () => {
  assert.equal(folder('qwen2').shards, 2);
  matchesReference('qwen2', LLAMA_KEYS);
});
test('qwen3_bf16_folder_with_qk_norms_matches_its_torch_reference', () => { matchesReference('qwen3', LLAMA_KEYS); });
test('mistral_folder_with_one_kv_head_matches_its_torch_reference', () => { matchesReference('mistral', LLAMA_KEYS); });
test('gpt2_folder_with_transformer_names_and_mask_buffers_matches_its_torch_reference', () => {
  matchesReference('gpt2', GPT2_KEYS);
});

test('a_llama_model_describes_its_heads_and_keeps_bf16_weights_in_half_the_heap', () => {
  const a = load(folder('llama')), b = load(folder('llama-bf16')), q3 = load(folder('qwen3'));
  try {
    assert.equal(a.nHeads, 4);
    assert.equal(a.nKvHeads, 2);
    assert.equal(a.headDim, 8);
    assert.equal(a.dModel, 16);
    assert.equal(a.dFF, 24);
    assert.equal(a.activation, 'swiglu');
    assert.equal(a.eps, 1e-5);
    assert.equal(a.nPositions, 128);
    assert.equal(q3.headDim, 8);
    assert.equal(q3.eps, 1e-6);
    assert.ok(b.heapBytes < a.heapBytes * 0.55, `BF16 ${b.heapBytes} bytes vs F32 ${a.heapBytes}`);
    // the config as read, frozen through its rope settings (forward reads them)
    assert.deepEqual(a.config.rope, { type: 1, theta: 500000, factor: 8, low: 1, high: 4, original: 256 });
    assert.ok(Object.isFrozen(a.config) && Object.isFrozen(a.config.rope));
    assert.equal(q3.config.rope.theta, 1000000);   // from rope_parameters
  } finally {
    a.free(); b.free(); q3.free();
  }
});

test('layer_weights_are_the_files_values_up_cast_in_their_out_in_layout', () => {
  const f = folder('llama-bf16'), model = load(f);
  try {
    const { header, start } = ck.read(f.weights), e = header['model.layers.1.self_attn.k_proj.weight'];
    assert.equal(e.dtype, 'BF16');
    const bits = new Uint16Array(f.weights.slice(start + e.data_offsets[0], start + e.data_offsets[1]).buffer);
    const want = new Float32Array(new Uint32Array(Array.from(bits, (h) => h << 16)).buffer);
    const w = model.layerWeights(1);
    assert.deepEqual(w.Wk, want);
    assert.deepEqual(Object.keys(w), ['attnNorm', 'Wq', 'Wk', 'Wv', 'Wo', 'ffnNorm', 'Wgate', 'Wup', 'Wdown']);
  } finally {
    model.free();
  }
  const q2 = load(folder('qwen2'));
  try {
    assert.deepEqual(Object.keys(q2.layerWeights(0)),
      ['attnNorm', 'Wq', 'bq', 'Wk', 'bk', 'Wv', 'bv', 'Wo', 'ffnNorm', 'Wgate', 'Wup', 'Wdown']);
  } finally {
    q2.free();
  }
});

test('a_file_of_mixed_dtypes_is_kept_as_f32_and_gives_the_same_logits', () => {
  const f = folder('llama-bf16'), ids = f.reference.ids;
  // model.norm.weight as F32 (its exact values), every other tensor BF16
  const mixed = merged([f.weights], (e) => {
    if (e.name !== 'model.norm.weight') return;
    const bits = new Uint16Array(e.data.slice().buffer);
    e.dtype = 'F32';
    e.data = new Uint8Array(new Uint32Array(Array.from(bits, (h) => h << 16)).buffer);
  });
  const a = load(f), b = bl.loadModel({ weights: mixed, config: f.config, vocab: f.vocab });
  try {
    assert.ok(b.heapBytes > 1.9 * a.heapBytes, `mixed ${b.heapBytes} bytes vs BF16 ${a.heapBytes}`);
    assert.deepEqual(b.forward(ids, { layers: [] }).logits, a.forward(ids, { layers: [] }).logits);
  } finally {
    a.free(); b.free();
  }
});

test('a_nan_in_bf16_or_f16_weights_is_refused_naming_the_tensor', () => {
  for (const [name, nan] of [['llama-bf16', 0x7fc0], ['qwen3', 0xff80]]) {
    const f = folder(name), bad = merged([f.weights], (e) => {
      if (e.name !== 'model.layers.1.mlp.up_proj.weight') return;
      e.data = e.data.slice();
      new DataView(e.data.buffer).setUint16(2 * 5, nan, true);
    });
    assert.throws(() => bl.loadModel({ weights: bad, config: f.config, vocab: f.vocab }),
      /weights: tensor "model\.layers\.1\.mlp\.up_proj\.weight" holds a NaN or an infinity at value 5/);
  }
  const q2 = folder('qwen2'), bad = merged([q2.weights], (e) => {   // F16 (its shards merged): +infinity
    if (e.name !== 'model.embed_tokens.weight') return;
    e.data = e.data.slice();
    new DataView(e.data.buffer).setUint16(2 * 7, 0x7c00, true);
  });
  assert.throws(() => bl.loadModel({ weights: bad, config: q2.config, vocab: q2.vocab }),
    /weights: tensor "model\.embed_tokens\.weight" holds a NaN or an infinity at value 7/);
});

test('f16_logits_of_the_last_row_alone_have_that_rows_bits_in_the_whole_product_at_2_to_16_rows_and_beyond', () => {
  // The FMA build's products of F16 weights at 2-16 rows use their own fused tile (matmul.c
  // micro_4x8f), one row another (without the inf/NaN watch: loadModel's weights are finite),
  // more rows a third: each sums in k order, so the bits agree. The F16 Qwen2 fixture with its
  // tied embedding widened to 8192 tokens: its LM head (L x 16 x 8192, at least 2^20
  // multiply-adds) is fused.
  const q2 = folder('qwen2'), V = 8192, D = q2.config.hidden_size, bits = new Uint16Array(V * D);
  let s = 12345;   // finite F16 values of 2^-5 to 2^2 in magnitude, either sign
  for (let i = 0; i < bits.length; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    bits[i] = ((s >>> 31) << 15) | ((10 + ((s >>> 20) % 7)) << 10) | ((s >>> 5) & 1023);
  }
  const wide = merged([q2.weights], (e) => {
    if (e.name !== 'model.embed_tokens.weight') return;
    assert.equal(e.dtype, 'F16');
    e.shape = [V, D];
    e.data = new Uint8Array(bits.buffer);
  });
  const m = bl.loadModel({ weights: wide, config: { ...q2.config, vocab_size: V },
    vocab: Array.from({ length: V }, (_, i) => 'tok' + i) });
  try {
    for (const L of [9, 16, 20]) {   // the whole product at 9 and 16 rows in one tile, at 20 in another
      const ids = Array.from({ length: L }, (_, i) => (i * 2654435761) % V);
      const full = m.forward(ids).logits, last = m.forward(ids, { logits: 'last' }).logits;
      assert.equal(last.length, V);
      const row = full.subarray((L - 1) * V, L * V);
      let differ = 0;
      for (let j = 0; j < V; j++) if (!Object.is(last[j], row[j])) differ++;
      assert.equal(differ, 0, `L ${L}: ${differ} of ${V} logits differ`);
    }
  } finally { m.free(); }
});

test('a_llama_3_1_context_of_131072_positions_loads_and_reads_up_to_65536_tokens', () => {
  const f = folder('llama'), model = load(f, { ...f.config, max_position_embeddings: 131072 });
  try {
    assert.equal(model.nPositions, 65536);
    assert.equal(model.config.max_position_embeddings, 131072);
  } finally {
    model.free();
  }
});

test('a_mistral_sliding_window_bounds_the_tokens_it_reads', () => {
  const f = folder('mistral'), model = load(f, { ...f.config, sliding_window: 4 });
  try {
    assert.equal(model.nPositions, 4);
    assert.throws(() => model.forward(f.reference.ids), /ids has 6 tokens; the model reads 1 to 4/);
    assert.equal(model.forward([1, 2, 3, 4]).logits.length, 4 * 64);
  } finally {
    model.free();
  }
});

test('bad_llama_configs_are_refused_naming_the_key_and_the_engine_still_works', () => {
  const f = folder('llama'), c = f.config, q3 = folder('qwen3');
  const refused = (config, re, src = f) => assert.throws(() => load(src, config), re);
  refused({ ...c, rope_scaling: { rope_type: 'linear', factor: 2 } },
    /config\.rope_scaling\.rope_type "linear" \(a string\) is not supported \(BlockLens reads "default" and "llama3"\)/);
  refused({ ...c, rope_scaling: { type: 'dynamic', factor: 2 } }, /config\.rope_scaling\.type "dynamic" .*is not supported/);
  refused({ ...c, rope_scaling: { ...c.rope_scaling, factor: undefined } }, /config\.rope_scaling\.factor is missing/);
  refused({ ...c, rope_scaling: { ...c.rope_scaling, factor: 0.5 } }, /config\.rope_scaling\.factor \(0\.5\) must be at least 1/);
  refused({ ...c, rope_theta: 0.5 }, /config\.rope_theta \(0\.5\) must be at least 1/);
  refused({ ...c, rope_scaling: { ...c.rope_scaling, high_freq_factor: 0.5 } },
    /config\.rope_scaling\.high_freq_factor \(0\.5\) must be above low_freq_factor \(1\)/);
  refused({ ...q3.config, rope_parameters: { rope_type: 'yarn', factor: 4 } },
    /config\.rope_parameters\.rope_type "yarn" .*is not supported/, q3);
  refused({ ...q3.config, rope_parameters: { rope_theta: -5 } }, /config\.rope_parameters\.rope_theta \(-5\) must be a positive/, q3);
  refused({ ...c, hidden_act: 'gelu' }, /config\.hidden_act "gelu" \(a string\) is not supported/);
  refused({ ...c, num_key_value_heads: 3 },
    /config\.num_attention_heads \(4\) must be divisible by config\.num_key_value_heads \(3\)/);
  refused({ ...c, head_dim: 7 }, /config\.head_dim \(7\) must be even/);
  refused({ ...c, head_dim: undefined, hidden_size: 18 }, /config\.hidden_size \(18\) must be divisible by config\.num_attention_heads/);
  refused({ ...c, rms_norm_eps: -1 }, /config\.rms_norm_eps \(-1\) must be a positive number/);
  refused({ ...c, vocab_size: 0 }, /config\.vocab_size \(0\) must be an integer between 1 and/);
  refused({ ...c, max_position_embeddings: 'long' }, /config\.max_position_embeddings \("long" \(a string\)\) must be a whole number >= 1/);
  refused({ ...c, max_position_embeddings: 0 }, /config\.max_position_embeddings \(0\) must be a whole number >= 1/);
  refused({ ...c, tie_word_embeddings: 'yes' }, /config\.tie_word_embeddings must be true or false/);
  refused({ ...c, attention_bias: true }, /weights: no tensor "model\.layers\.0\.self_attn\.q_proj\.bias"/);
  refused({ ...c, num_hidden_layers: 3 }, /weights: no tensor "model\.layers\.2\.input_layernorm\.weight"/);
  refused({ ...c, model_type: 'falcon' }, /config\.model_type "falcon" .*is not one BlockLens reads \(gpt2, llama, mistral, qwen2, qwen3\)/);
  refused({ ...q3.config, use_sliding_window: true }, /config\.use_sliding_window true is not supported/, q3);
  // after every refusal the engine still loads and runs a model
  const model = load(f);
  try {
    assert.equal(model.forward([1, 2]).logits.length, 2 * 64);
  } finally {
    model.free();
  }
});

/* The folders as the folder loader reads them (qwen2's two shards through its index), with a
   vocab.json list added since the fixtures carry no tokenizer: the logits of the merged bytes. */
test('every_fixture_folder_opens_through_loadModel_files_with_the_logits_of_its_bytes', async () => {
  for (const name of ['llama', 'llama-bf16', 'qwen2', 'qwen3', 'mistral', 'gpt2']) {
    const dir = path.join(DIR, name), f = folder(name), files = {};
    for (const file of fs.readdirSync(dir)) if (file !== 'reference.json') files[file] = new Uint8Array(fs.readFileSync(path.join(dir, file)));
    files['vocab.json'] = new TextEncoder().encode(JSON.stringify(f.vocab));
    const a = await bl.loadModel({ files }), b = load(f);
    try {
      const ids = f.reference.ids, x = a.forward(ids).logits, y = b.forward(ids).logits;
      assert.equal(x.length, y.length);
      for (let i = 0; i < x.length; i++) assert.ok(Object.is(x[i], y[i]), `${name}: logit ${i} ${x[i]} vs ${y[i]}`);
      assert.equal(a.heapBytes, b.heapBytes, `${name}: the same heap plan`);
    } finally {
      a.free();
      b.free();
    }
  }
});
