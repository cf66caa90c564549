// shards.test.js - a model in shards named by model.safetensors.index.json gives the logits of
// its one-file form; every folder BlockLens refuses (a missing file, a shard the index
// contradicts, a truncated or malformed shard, a quantized dtype, a model past the heap, a
// cancelled load...) is a named BlockLens Error after which nothing stays allocated and the
// engine loads and runs the next model as before.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { BlockLens } = require('./helpers.js');
const ck = require('./checkpoint.js');

let bl, tmp, model, TENSORS;
test.before(async () => {
  bl = await BlockLens.load();
  model = ck.randomGpt2(bl, { seed: 12 });
  TENSORS = ck.tensorsOf(model);
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'blocklens-shards-'));
});
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const INDEX = 'model.safetensors.index.json';
const SHARD = (i, n) => `model-0000${i}-of-0000${n}.safetensors`;
const ids = [0, 4, 8, 15, 16, 23, 2];
const same = (a, b, what) => {
  assert.equal(a.length, b.length, `${what}: length`);
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) assert.fail(`${what}: logit ${i} is ${a[i]}, want ${b[i]}`);
};

test('two_and_three_shards_with_an_index_give_the_logits_of_one_file', async () => {
  const three = ck.randomGpt2(bl, { seed: 11, nLayer: 3 });
  for (const dtype of ['F32', 'BF16']) {
    const tensors = ck.tensorsOf(three, { dtype, prefix: 'transformer.', masks: 'U8' });
    const one = await bl.loadModel({ files: ck.folderOf(three, tensors) }), want = one.forward(ids).logits;
    one.free();
    for (const n of [2, 3]) {
      const files = ck.folderOf(three, tensors, { shards: n });
      assert.equal(Object.keys(files).filter((f) => f.endsWith('.safetensors')).length, n);
      const dir = ck.writeFolder(path.join(tmp, `${dtype}-${n}`), files);
      const blobs = Object.fromEntries(Object.entries(files).map(([k, v]) => [k, new Blob([v])]));
      for (const [what, source] of [['a path', dir], ['bytes', { files }], ['Blobs', { files: blobs }]]) {
        const events = [], m = await bl.loadModel(source, { onProgress: (e) => events.push(e) });
        same(m.forward(ids).logits, want, `${dtype} in ${n} shards from ${what}`);
        assert.equal(events.filter((e) => e.phase === 'headers').length, n, 'one header event per shard');
        assert.equal(events.at(-1).bytesRead, events.at(-1).bytesTotal);
        m.free();
      }
    }
  }
});

/* ---- refusals ------------------------------------------------------------------------------ */
const good = () => ck.folderOf(model, TENSORS);
const shards = (edit) => { const f = ck.folderOf(model, TENSORS, { shards: 2 }); if (edit) edit(f); return f; };
const index = (f) => JSON.parse(new TextDecoder().decode(f[INDEX]));
const withIndex = (f, fn) => { const doc = index(f); fn(doc.weight_map); f[INDEX] = ck.json(doc); };
const without = (f, ...names) => { for (const n of names) delete f[n]; return f; };
const changed = (tensors) => ({ ...TENSORS, ...tensors });

const REFUSED = [
  ['no config.json', () => without(good(), 'config.json'),
    /^BlockLens: the folder has no config\.json \(it has "(vocab\.json|model\.safetensors)", "(vocab\.json|model\.safetensors)"\)$/],
  ['an empty folder', () => ({}), /^BlockLens: the folder has no config\.json \(it has no files\)$/],
  ['config.json that is not JSON', () => ({ ...good(), 'config.json': ck.json('x').subarray(1) }), /^BlockLens: config\.json is not JSON \(/],
  ['no weights', () => without(good(), 'model.safetensors'),
    /^BlockLens: the folder has no weights: BlockLens reads model\.safetensors, or model\.safetensors\.index\.json and the shards it names$/],
  ['only PyTorch weights', () => ({ ...without(good(), 'model.safetensors'), 'pytorch_model.bin': new Uint8Array(4) }),
    /no weights: .* \(it has "pytorch_model\.bin": convert it to safetensors\)$/],
  ['shards without their index', () => without(shards(), INDEX),
    /no weights: .* \(it has "model-00001-of-00002\.safetensors", "model-00002-of-00002\.safetensors" but no model\.safetensors\.index\.json\)$/],
  ['a shard the index names that is missing', () => without(shards(), SHARD(2, 2)),
    /^BlockLens: model\.safetensors\.index\.json puts tensor "h\.1\.[a-z_.0-9]+" in "model-00002-of-00002\.safetensors", which is not in the folder$/],
  ['an index that is not JSON', () => shards((f) => { f[INDEX] = ck.json('{').subarray(0, 2); }), /^BlockLens: model\.safetensors\.index\.json is not JSON/],
  ['an index without a weight_map', () => shards((f) => { f[INDEX] = ck.json({ metadata: {} }); }),
    /^BlockLens: model\.safetensors\.index\.json: its weight_map is undefined, not an object of tensor name -> shard file$/],
  ['an index naming a path', () => shards((f) => withIndex(f, (w) => { w['wte.weight'] = '../model.safetensors'; })),
    /puts tensor "wte\.weight" in "\.\.\/model\.safetensors", which is not in the folder \(a shard is a file of the folder itself\)$/],
  ['a truncated shard', () => shards((f) => { f[SHARD(2, 2)] = f[SHARD(2, 2)].subarray(0, f[SHARD(2, 2)].length - 5); }),
    /^BlockLens: model-00002-of-00002\.safetensors: tensor "ln_f\.bias" has data_offsets \[\d+, \d+\], past the end of the data \(\d+ bytes\): truncated file\?$/],
  ['a shard cut inside its header', () => shards((f) => { f[SHARD(1, 2)] = f[SHARD(1, 2)].subarray(0, 40); }),
    /^BlockLens: model-00001-of-00002\.safetensors: the header length \(\d+ bytes\) runs past the end of the file \(40 bytes\)/],
  ['a shard of 3 bytes', () => shards((f) => { f[SHARD(1, 2)] = f[SHARD(1, 2)].subarray(0, 3); }),
    /^BlockLens: model-00001-of-00002\.safetensors: truncated file \(3 bytes\)/],
  ['an index naming a tensor that no shard holds', () => shards((f) => withIndex(f, (w) => { w['h.9.mlp.c_fc.weight'] = SHARD(1, 2); })),
    /^BlockLens: model\.safetensors\.index\.json puts tensor "h\.9\.mlp\.c_fc\.weight" in "model-00001-of-00002\.safetensors", which does not hold it$/],
  ['a shard holding a tensor the index puts elsewhere', () => shards((f) => withIndex(f, (w) => { w['wte.weight'] = SHARD(2, 2); })),
    /^BlockLens: model-00001-of-00002\.safetensors holds tensor "wte\.weight", which model\.safetensors\.index\.json puts in "model-00002-of-00002\.safetensors"$/],
  ['a shard holding a tensor the index does not list', () => shards((f) => withIndex(f, (w) => { delete w['wpe.weight']; })),
    /^BlockLens: model-00001-of-00002\.safetensors holds tensor "wpe\.weight", which model\.safetensors\.index\.json does not list$/],
  ['a tensor in two shards', () => {
    const names = Object.keys(TENSORS), half = names.slice(0, 20), rest = names.slice(19);   // names[19] in both
    const pick = (list) => Object.fromEntries(list.map((n) => [n, TENSORS[n]]));
    return { ...good(), 'model.safetensors': undefined, [SHARD(1, 2)]: ck.safetensors(pick(half)), [SHARD(2, 2)]: ck.safetensors(pick(rest)),
      [INDEX]: ck.json({ weight_map: Object.fromEntries(names.map((n, i) => [n, i < 20 ? SHARD(1, 2) : SHARD(2, 2)])) }) };
  }, /^BlockLens: tensor "h\.1\.[a-z_.0-9]+" is in two shards, "model-00001-of-00002\.safetensors" and "model-00002-of-00002\.safetensors"$/],
  ['a quantized dtype (I8)', () => ({ ...good(), 'model.safetensors': ck.safetensors(changed({ 'h.0.mlp.c_fc.weight': ['I8', [16, 32], new Uint8Array(512)] })) }),
    /^BlockLens: model\.safetensors: tensor "h\.0\.mlp\.c_fc\.weight" has dtype "I8"; BlockLens reads F32, F16 and BF16$/],
  ['an FP8 dtype in a shard', () => shards((f) => {
    const t = {}, names = Object.keys(TENSORS);
    for (const n of names.slice(Math.ceil(names.length / 2))) t[n] = TENSORS[n];
    t['ln_f.weight'] = ['U8', [16], new Uint8Array(16)];
    f[SHARD(2, 2)] = ck.safetensors(t, { edit: (h) => { h['ln_f.weight'].dtype = 'F8_E4M3'; } });
  }), /^BlockLens: model-00002-of-00002\.safetensors: tensor "ln_f\.weight" has dtype "F8_E4M3"; BlockLens reads F32, F16 and BF16$/],
  ['an unknown dtype', () => ({ ...good(), 'model.safetensors': ck.safetensors(TENSORS, { edit: (h) => { h['wpe.weight'].dtype = 'Q4_K'; } }) }),
    /^BlockLens: model\.safetensors: tensor "wpe\.weight" in the header: its dtype "Q4_K" is not a safetensors dtype \(BlockLens reads F32, F16 and BF16\)$/],
  ['a quantization_config', () => ({ ...good(), 'config.json': ck.json({ ...model.config, quantization_config: { bits: 4 } }) }),
    /^BlockLens: config\.json has a quantization_config: BlockLens reads unquantized weights \(F32, F16 and BF16\)$/],
  ['an unsupported model_type', () => ({ ...good(), 'config.json': ck.json({ ...model.config, model_type: 'mamba' }) }),
    /^BlockLens: config\.model_type "mamba" \(a string\) is not one BlockLens reads \(gpt2/],
  ['a shape that disagrees with the config', () => ({ ...good(), 'config.json': ck.json({ ...model.config, n_inner: 48 }) }),
    /^BlockLens: model\.safetensors: tensor "h\.0\.mlp\.c_fc\.weight" has shape \[16, 32\], expected \[16, 48\]$/],
  ['a tensor the sharded model lacks', () => shards((f) => {
    const t = {}, names = Object.keys(TENSORS);
    for (const n of names.slice(Math.ceil(names.length / 2))) if (n !== 'ln_f.bias') t[n] = TENSORS[n];
    f[SHARD(2, 2)] = ck.safetensors(t);
    withIndex(f, (w) => { delete w['ln_f.bias']; });
  }), /^BlockLens: model\.safetensors\.index\.json and its shards: no tensor "ln_f\.bias" \(GPT-2 names, with or without "transformer\."\)$/],
  // wpe 1 GiB, each layer's c_fc and c_proj 1 GiB each: 5.5 GiB
  ['a model too big for the heap', () => ({ ...good(), 'config.json': ck.json({ ...model.config, n_embd: 4096, n_positions: 65536, n_head: 32, n_inner: 65536 }) }),
    /^BlockLens: out of memory: loadModel \(n_layer 2, n_embd 4096, vocab_size 24\) needs \d+ bytes of wasm memory, more than the 4294901760 \(4 GiB\) the heap can hold$/],
  ['a vocab.json of the wrong size', () => ({ ...good(), 'vocab.json': ck.json(model.vocab.slice(1)) }), /^BlockLens: vocab has 23 entries, config\.vocab_size is 24$/],
  ['a vocab.json that is an object', () => ({ ...good(), 'vocab.json': ck.json({ a: 0 }) }),
    /^BlockLens: vocab\.json is an object: without merges\.txt it must be a JSON array of the token strings$/],
  ['no tokenizer', () => without(good(), 'vocab.json'), /^BlockLens: the folder has no tokenizer: BlockLens reads tokenizer\.json/],
  ['a hole in a shard', () => shards((f) => {
    const b = f[SHARD(1, 2)], c = new Uint8Array(b.length + 4);
    c.set(b);
    f[SHARD(1, 2)] = c;
  }), /^BlockLens: model-00001-of-00002\.safetensors: data bytes \[\d+, \d+\) after tensor "[^"]+" are no tensor's: safetensors forbids holes$/],
  ['a NaN in a shard', () => shards((f) => {
    const t = {}, names = Object.keys(TENSORS);
    for (const n of names.slice(Math.ceil(names.length / 2))) t[n] = TENSORS[n];
    t['ln_f.weight'] = ['F32', [16], Float32Array.from({ length: 16 }, (_, i) => (i === 9 ? NaN : 1))];
    f[SHARD(2, 2)] = ck.safetensors(t);
  }), /^BlockLens: model-00002-of-00002\.safetensors: tensor "ln_f\.weight" holds NaN at value 9$/],
  ['a file that is not a Uint8Array', () => ({ ...good(), 'config.json': 'text' }),
    /^BlockLens: loadModel: files\["config\.json"\] must be a Uint8Array, an ArrayBuffer or a Blob, not "text" \(a string\)$/]
];

/* The files of a case, without those set to undefined. */
const filesOf = (make) => Object.fromEntries(Object.entries(make()).filter(([, v]) => v !== undefined));

test('every_refused_folder_gives_its_named_error_from_files_and_from_a_path', async () => {
  const heap = bl.heapBytes();
  let n = 0;
  for (const [what, make, message] of REFUSED) {
    const files = filesOf(make);
    await assert.rejects(bl.loadModel({ files }), (e) => e instanceof Error && message.test(e.message) ||
      assert.fail(`${what}: ${e.message}`), what);
    if (Object.values(files).every((v) => v instanceof Uint8Array)) {
      const dir = ck.writeFolder(path.join(tmp, 'refused-' + n++), files);
      await assert.rejects(bl.loadModel(dir), (e) => message.test(e.message) || assert.fail(`${what} (path): ${e.message}`));
    }
  }
  const m = await bl.loadModel({ files: good() });   // the engine still works
  assert.equal(m.forward(ids).logits.length, ids.length * 24);
  m.free();
  assert.equal(bl.heapBytes(), heap, 'the refusals grew the heap');
  console.log(`# ${REFUSED.length} refusals, each from { files } (and ${n} from a path), each with its message`);
});

test('bad_sources_and_options_reject_with_named_errors', async () => {
  const cases = [
    [[path.join(tmp, 'no-such-folder')], /^BlockLens: loadModel: cannot read the folder ".+" \(ENOENT\)$/],
    [[{ files: good() }, { onProgress: 5 }], /^BlockLens: loadModel: onProgress must be a function \(\{ bytesRead, bytesTotal, phase \}\), not 5$/],
    [[{ files: good() }, { signal: { aborted: true } }], /^BlockLens: loadModel: signal must be an AbortSignal, not an object$/],
    [[{ files: good() }, { onprogress() {} }], /^BlockLens: loadModel has no option "onprogress" \(known: onProgress, signal\)$/],
    [[{ files: good(), weights: new Uint8Array(8) }], /^BlockLens: loadModel has no option "weights" \(known: files\)$/],
    [[{ files: [1] }], /^BlockLens: loadModel: files must be an object \(file name -> Uint8Array, ArrayBuffer or Blob\), not an array$/],
    [[[new Blob(['x'])]], /^BlockLens: loadModel: files\[0\] is an object, not a File$/],
    [[[new File(['x'], 'a.json'), new File(['y'], 'a.json')]], /^BlockLens: loadModel: two files are named "a\.json"$/]
  ];
  for (const [argv, message] of cases) await assert.rejects(bl.loadModel(...argv), { message }, String(message));
  // the synchronous form is as it was: it throws, and takes no options
  assert.throws(() => bl.loadModel({ weights: new Uint8Array(0), config: model.config, vocab: model.vocab }, {}),
    { message: /^BlockLens: loadModel\(\{ weights, config, vocab \}\) takes no options: onProgress and signal are for a folder$/ });
});

test('a_cancelled_load_rejects_frees_everything_and_the_engine_loads_the_next_model', async () => {
  // 64 x 24,000 F32 of wte (6 MB) per model: a leak of each cancelled load would grow the heap
  const big = ck.randomGpt2(bl, { seed: 13, nLayer: 1, D: 64, H: 4, F: 64, P: 8, V: 24000 });
  const file = ck.safetensors(ck.tensorsOf(big));
  const files = { 'config.json': ck.json(big.config), 'vocab.json': ck.json(big.vocab), 'model.safetensors': new Blob([file]) };
  const warm = await bl.loadModel({ files });
  const want = warm.forward([0, 1, 23999]).logits;
  warm.free();
  const heap = bl.heapBytes(), cancelled = /^BlockLens: loadModel was cancelled \(its signal was aborted\)$/;
  const before = new AbortController();
  before.abort();
  await assert.rejects(bl.loadModel({ files }, { signal: before.signal }), { message: cancelled });
  for (let i = 0; i < 30; i++) {
    const c = new AbortController(), at = ['headers', 'weights'][i % 2];
    // cancelled from the progress event of a phase: after the headers, or after the first read
    await assert.rejects(bl.loadModel({ files }, { signal: c.signal, onProgress: (e) => { if (e.phase === at) c.abort(); } }),
      { message: cancelled }, at);
    const c2 = new AbortController();   // and while a read is under way
    const p = bl.loadModel({ files }, { signal: c2.signal });
    setTimeout(() => c2.abort(), 0);
    await p.then((m) => m.free(), (e) => assert.match(e.message, cancelled));
  }
  // a throwing onProgress rejects with its own error, and frees too
  await assert.rejects(bl.loadModel({ files }, { onProgress: () => { throw new RangeError('mine'); } }), { name: 'RangeError', message: 'mine' });
  const m = await bl.loadModel({ files });
  same(m.forward([0, 1, 23999]).logits, want, 'after 61 cancelled loads');
  m.free();
  assert.equal(bl.heapBytes(), heap, 'cancelled loads grew the heap');
});

test('two_folder_loads_at_once_and_bytes_form_calls_meanwhile_give_their_own_models', async () => {
  const a = ck.randomGpt2(bl, { seed: 21 }), b = ck.randomGpt2(bl, { seed: 22, nLayer: 3, D: 24, H: 3 });
  const blobs = (m, n) => Object.fromEntries(Object.entries(ck.folderOf(m, ck.tensorsOf(m), { shards: n })).map(([k, v]) => [k, new Blob([v])]));
  const pa = bl.loadModel({ files: blobs(a, 2) }), pb = bl.loadModel({ files: blobs(b, 3) });
  const sync = bl.loadModel({ weights: ck.safetensors(ck.tensorsOf(a)), config: a.config, vocab: a.vocab });
  const [ma, mb] = await Promise.all([pa, pb]);
  same(ma.forward(ids).logits, sync.forward(ids).logits, 'a');
  const wantB = bl.loadModel({ weights: ck.safetensors(ck.tensorsOf(b)), config: b.config, vocab: b.vocab });
  same(mb.forward(ids).logits, wantB.forward(ids).logits, 'b');
  for (const m of [ma, mb, sync, wantB]) m.free();
});

test('randomly_corrupted_shards_and_indexes_load_or_reject_with_a_BlockLens_Error_nothing_else', async () => {
  const f16 = ck.tensorsOf(model, { dtype: 'F16', masks: 'U8' }), base = ck.folderOf(model, f16, { shards: 3 });
  const names = Object.keys(base).filter((n) => n !== 'config.json' && n !== 'vocab.json'), r = bl.numpyRandom(17);
  const heap = bl.heapBytes();
  let loaded = 0, refused = 0;
  for (let n = 0; n < 300; n++) {
    const u = r.rand(8), files = { ...base }, name = names[Math.floor(u[0] * names.length)], b = files[name].slice();
    const hlen = name.endsWith('.json') ? b.length : 8 + new DataView(b.buffer).getUint32(0, true);
    const at = n % 3 === 0 ? Math.floor(u[1] * Math.min(hlen, b.length)) : Math.floor(u[1] * b.length);   // the header or anywhere
    b[at] ^= 1 << Math.floor(u[2] * 8);
    if (u[3] < 0.3) b[Math.floor(u[4] * b.length)] = Math.floor(u[5] * 256);
    files[name] = u[6] < 0.2 ? b.subarray(0, Math.floor(u[7] * b.length)) : b;
    const source = n % 2 ? { files } : { files: Object.fromEntries(Object.entries(files).map(([k, v]) => [k, new Blob([v])])) };
    let m;
    try {
      m = await bl.loadModel(source);
    } catch (e) {
      assert.ok(e instanceof Error && e.message.startsWith('BlockLens: '), `run ${n} (${name}): ${e && e.stack}`);
      refused++;
      continue;
    }
    assert.equal(m.forward([0, 1, 2]).logits.length, 3 * 24);
    m.free();
    loaded++;
  }
  console.log(`# 300 corrupted sharded folders: ${loaded} loaded, ${refused} refused`);
  assert.ok(loaded > 20 && refused > 100);
  const a = await bl.loadModel({ files: base }), want = await bl.loadModel({ files: ck.folderOf(model, f16) });
  same(a.forward(ids).logits, want.forward(ids).logits, 'the engine after the corruptions');
  a.free();
  want.free();
  assert.equal(bl.heapBytes(), heap, 'the corrupted loads grew the heap');
});
