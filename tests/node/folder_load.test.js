// folder_load.test.js - bl.loadModel on a Hugging Face model folder (a path, { files } of bytes or
// Blobs, an array of File): the shipped poem folder gives exactly the logits of the bytes form;
// folders written here in F32, F16 and BF16, with and without "transformer." and HF's mask
// buffers, unaligned and larger than one read, give identical logits; progress events; the
// tokenizer module's hook.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { BlockLens, root } = require('./helpers.js');
const ck = require('./checkpoint.js');

let bl, tmp;
test.before(async () => {
  bl = await BlockLens.load();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'blocklens-folder-'));
});
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const POEMS = path.join(root, 'web', 'models', 'poems');
const poemFile = (name) => fs.readFileSync(path.join(POEMS, name));
const same = (a, b, what) => {
  assert.equal(a.length, b.length, `${what}: length`);
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) assert.fail(`${what}: logit ${i} is ${a[i]}, want ${b[i]}`);
};

test('the_poem_folder_by_path_files_and_File_list_gives_exactly_the_logits_of_the_bytes_form', async () => {
  const bytesForm = bl.loadModel({ weights: poemFile('model.safetensors'), config: JSON.parse(poemFile('config.json')),
    vocab: JSON.parse(poemFile('vocab.json')) });
  const ids = bytesForm.encode('床前明月光，疑是地上霜。'), want = bytesForm.forward(ids).logits;
  const names = fs.readdirSync(POEMS), bytes = Object.fromEntries(names.map((n) => [n, new Uint8Array(poemFile(n))]));
  const forms = {
    path: POEMS,
    'files of Uint8Array': { files: bytes },
    'files of ArrayBuffer': { files: Object.fromEntries(names.map((n) => [n, bytes[n].slice().buffer])) },
    'files of Blob': { files: Object.fromEntries(names.map((n) => [n, new Blob([bytes[n]])])) },
    'an array of File': names.map((n) => new File([bytes[n]], n))
  };
  for (const [what, source] of Object.entries(forms)) {
    const t0 = performance.now(), loading = bl.loadModel(source);
    assert.ok(loading instanceof Promise, `${what}: a Promise`);
    const m = await loading, ms = performance.now() - t0;
    assert.deepEqual(Array.from(m.encode('床前明月光，疑是地上霜。')), Array.from(ids), what);
    same(m.forward(ids).logits, want, what);
    assert.deepEqual(m.vocab, bytesForm.vocab);
    assert.equal(m.heapBytes, bytesForm.heapBytes);
    console.log(`# poem folder as ${what}: loaded in ${ms.toFixed(1)} ms`);
    m.free();
  }
  bytesForm.free();
});

test('progress_events_count_up_to_the_files_size_headers_then_weights_then_done', async () => {
  const events = [], m = await bl.loadModel(POEMS, { onProgress: (e) => events.push(e) });
  const size = fs.statSync(path.join(POEMS, 'model.safetensors')).size;
  assert.deepEqual(events.map((e) => e.phase), ['headers', 'weights', 'done']);
  assert.ok(events.every((e) => e.bytesTotal === size));
  assert.ok(events[0].bytesRead > 8 && events[0].bytesRead < 4096, 'the header first');
  for (let i = 1; i < events.length; i++) assert.ok(events[i].bytesRead >= events[i - 1].bytesRead, 'never back');
  assert.equal(events.at(-1).bytesRead, size);
  m.free();
});

/* The random model in every dtype, prefix and mask variant against its F32 up-cast reference. */
test('F32_F16_BF16_folders_with_or_without_transformer_and_mask_buffers_give_identical_logits', async () => {
  const model = ck.randomGpt2(bl, { seed: 3 }), ids = [0, 5, 9, 2, 17, 3, 3, 22];
  const plain = await bl.loadModel({ files: ck.folderOf(model, ck.tensorsOf(model)) }), unrounded = plain.forward(ids).logits;
  plain.free();
  let n = 0;
  for (const dtype of ['F16', 'BF16']) {
    const ref = await bl.loadModel({ files: ck.folderOf(model, ck.tensorsOf(model, { roundedAs: dtype })) });
    const want = ref.forward(ids).logits;
    ref.free();
    assert.ok(want.some((v, i) => v !== unrounded[i]), `${dtype}: rounding changes the logits (the test can fail)`);
    for (const prefix of ['', 'transformer.'])
      for (const masks of [null, 'U8', 'BOOL', 'F32', dtype]) {
        const files = ck.folderOf(model, ck.tensorsOf(model, { dtype, prefix, masks }));
        const dir = ck.writeFolder(path.join(tmp, `${dtype}-${prefix || 'bare'}-${masks}`), files);
        for (const source of [dir, { files }]) {
          const m = await bl.loadModel(source);
          same(m.forward(ids).logits, want, `${dtype} ${prefix || 'no prefix'} masks ${masks}`);
          m.free();
          n++;
        }
      }
    // and the F32 reference with HF's names and buffers: the same numbers again
    const m = await bl.loadModel({ files: ck.folderOf(model, ck.tensorsOf(model, { roundedAs: dtype, prefix: 'transformer.', masks: 'U8' })) });
    same(m.forward(ids).logits, want, `${dtype} as F32 with transformer. and masks`);
    m.free();
  }
  console.log(`# ${n} folders in F16 / BF16 matched their F32 up-cast reference bit for bit`);
});

test('unaligned_tensors_load_from_bytes_blobs_and_files_alike', async () => {
  const model = ck.randomGpt2(bl, { seed: 4 }), ids = [0, 1, 2, 3];
  for (const dtype of ['F32', 'F16', 'BF16']) {
    const ref = await bl.loadModel({ files: ck.folderOf(model, ck.tensorsOf(model, { roundedAs: dtype })) });
    const want = ref.forward(ids).logits;
    ref.free();
    for (const offset of [1, 3, 6]) {   // the data starts at an odd byte, or 2 mod 4
      const files = ck.folderOf(model, ck.tensorsOf(model, { dtype }), { offset });
      const dir = ck.writeFolder(path.join(tmp, `at${offset}-${dtype}`), files);
      const blobs = Object.fromEntries(Object.entries(files).map(([k, v]) => [k, new Blob([v])]));
      for (const [what, source] of [['bytes', { files }], ['a path', dir], ['Blobs', { files: blobs }]]) {
        const m = await bl.loadModel(source);
        same(m.forward(ids).logits, want, `${dtype}, data at ${offset} mod 8, from ${what}`);
        m.free();
      }
    }
  }
});

test('a_file_larger_than_one_read_loads_in_pieces_from_a_path_and_a_Blob_as_from_its_bytes', async () => {
  // wte 12,001 x 768 F32 (36.9 MB, past one 32 MB read), the header an odd length: reads start mid-file
  const model = ck.randomGpt2(bl, { seed: 5, nLayer: 1, D: 768, H: 12, F: 64, P: 8, V: 12001 });
  const tensors = ck.tensorsOf(model), file = ck.safetensors(tensors, { offset: 3 });
  const ids = [0, 12000, 7, 6000, 4];
  const want = bl.loadModel({ weights: file, config: model.config, vocab: model.vocab });
  const logits = want.forward(ids).logits;
  want.free();
  const dir = ck.writeFolder(path.join(tmp, 'big'), { 'config.json': ck.json(model.config), 'vocab.json': ck.json(model.vocab),
    'model.safetensors': file });
  for (const [what, source] of [['a path', dir], ['a Blob', { files: { 'config.json': ck.json(model.config),
    'vocab.json': ck.json(model.vocab), 'model.safetensors': new Blob([file]) } }]]) {
    const events = [], t0 = performance.now();
    const m = await bl.loadModel(source, { onProgress: (e) => events.push(e) });
    console.log(`# ${(file.length / 1e6).toFixed(1)} MB from ${what}: ${(performance.now() - t0).toFixed(0)} ms, ` +
      `${events.filter((e) => e.phase === 'weights').length} reads`);
    const reads = events.filter((e) => e.phase === 'weights');
    assert.ok(reads.length >= 2, `${what}: read in pieces`);
    reads.forEach((e, i) => assert.ok(e.bytesRead - (i ? reads[i - 1] : events[0]).bytesRead <= 32 << 20, `${what}: a piece of 32 MB at most`));
    same(m.forward(ids).logits, logits, what);
    m.free();
  }
});

test('hostile_files_are_read_through_the_intrinsics_and_a_buffer_detached_mid_load_is_refused', async () => {
  const model = ck.randomGpt2(bl, { seed: 8 }), files = ck.folderOf(model, ck.tensorsOf(model)), ids = [0, 3, 9];
  const ref = await bl.loadModel({ files }), want = ref.forward(ids).logits;
  ref.free();
  class Liar extends Uint8Array {
    get length() { return 3; }
    subarray() { return new Uint8Array(8); }
    slice() { return new Uint8Array(8); }
  }
  class LyingBlob extends Blob {
    slice() { return new Blob(['nonsense']); }
    arrayBuffer() { return Promise.resolve(new ArrayBuffer(8)); }
    get size() { return 8; }
  }
  const liars = Object.fromEntries(Object.entries(files).map(([k, v], i) => {
    if (i % 2) { const l = new Liar(v.length); l.set(v); return [k, l]; }
    return [k, new LyingBlob([v])];
  }));
  const m = await bl.loadModel({ files: liars });
  same(m.forward(ids).logits, want, 'lying Uint8Arrays and Blobs: their real bytes');
  m.free();
  // a getter that throws, and a buffer transferred once the headers are read
  await assert.rejects(bl.loadModel({ files: { ...files, get 'vocab.json'() { throw new TypeError('no'); } } }),
    { message: /^BlockLens: loadModel: reading its arguments threw TypeError: no$/ });
  const mine = { ...files, 'model.safetensors': files['model.safetensors'].slice() };
  await assert.rejects(bl.loadModel({ files: mine }, { onProgress: (e) => {
    if (e.phase === 'headers') structuredClone(mine['model.safetensors'].buffer, { transfer: [mine['model.safetensors'].buffer] });
  } }), { message: /^BlockLens: model\.safetensors: its buffer was detached or resized during the load$/ });
});

/* ---- the tokenizer module's hook ------------------------------------------------------------- */
const TOKENIZERS = Symbol.for('blocklens.tokenizers');

test('a_folder_with_tokenizer_json_needs_the_tokenizer_module_and_says_to_load_it', async () => {
  const model = ck.randomGpt2(bl, { seed: 6 }), files = ck.folderOf(model, ck.tensorsOf(model));
  delete globalThis[TOKENIZERS];
  // an engine copied alone into a folder: no blocklens-tokenizers.js beside it
  const alone = fs.mkdtempSync(path.join(os.tmpdir(), 'blocklens-alone-'));
  try {
    fs.copyFileSync(path.join(root, 'web', 'dist', 'blocklens.js'), path.join(alone, 'blocklens.js'));
    const lone = await require(path.join(alone, 'blocklens.js')).load();
    await assert.rejects(lone.loadModel({ files: { ...files, 'tokenizer.json': ck.json({ model: {} }) } }),
      { message: /^BlockLens: the folder's tokenizer \(tokenizer\.json\) needs the tokenizer module: load blocklens-tokenizers\.js first/ });
    await assert.rejects(lone.loadModel({ files: { ...files, 'merges.txt': ck.json('') } }),
      { message: /tokenizer \(vocab\.json and merges\.txt\) needs the tokenizer module/ });
  } finally {
    fs.rmSync(alone, { recursive: true, force: true });
  }
  const seen = [];
  globalThis[TOKENIZERS] = {
    fromFiles(given) {
      seen.push(Object.keys(given).sort());
      if (!given['tokenizer.json']) throw new Error('no tokenizer.json');
      // a byte-level tokenizer of its own: id = 2 + byte (wrapped into the vocabulary)
      return {
        encode: (text) => Array.from(new TextEncoder().encode(text), (b) => 2 + (b % 22)),
        decode: (ids) => ids.map((i) => `[${i}]`).join(''),
        piece: (id) => ({ text: `p${id}`, bytes: Uint8Array.of(id) })
      };
    }
  };
  try {
    const m = await bl.loadModel({ files: { ...files, 'tokenizer.json': ck.json({}), 'tokenizer_config.json': ck.json({}) } });
    assert.deepEqual(seen.at(-1), ['tokenizer.json', 'tokenizer_config.json', 'vocab.json']);
    assert.deepEqual(Array.from(m.encode('ab')), [2 + (97 % 22), 2 + (98 % 22)]);
    assert.equal(m.decode([3, 4]), '[3][4]');
    assert.equal(m.vocab[5], 'p5');
    assert.equal(m.forward(m.encode('abc')).logits.length, 3 * 24);
    m.free();
    await assert.rejects(bl.loadModel({ files: { ...files, 'merges.txt': ck.json('') } }),
      { message: /^BlockLens: the tokenizer module refused the folder's tokenizer \(vocab\.json and merges\.txt\): no tokenizer\.json$/ });
  } finally {
    delete globalThis[TOKENIZERS];
  }
});
