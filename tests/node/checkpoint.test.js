// checkpoint.test.js - the tests' safetensors writer (checkpoint.js) against the engine's reader:
// what it writes (F32, F16, BF16 from numbers or raw bits; padded or unaligned; with or without
// __metadata__; one file or shards) loads through bl.loadModel with exactly the bits expected,
// and rewriting the files Python wrote (tools/gen_models.py, the poem model) gives their bytes.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { BlockLens, root } = require('./helpers.js');
const ck = require('./checkpoint.js');

let bl;
test.before(async () => { bl = await BlockLens.load(); });

const f32 = new Float32Array(1), u32 = new Uint32Array(f32.buffer);
const bitsOf = (v) => { f32[0] = v; return u32[0]; };
const valueOf = (bits) => { u32[0] = bits; return f32[0]; };

/* The value v takes in dtype, rounded to nearest even from float32 (as the manual says), found
   between its two neighbours on the dtype's grid: not checkpoint.js's bit arithmetic. */
function nearestEven(v, dtype) {
  const a = Math.abs(Math.fround(v));
  if (dtype === 'F32' || a === 0) return Math.fround(v);
  const e = ((bitsOf(a) >>> 23) & 0xff) - 127;   // float32's exponent (-127: a float32 subnormal)
  const step = dtype === 'F16' ? 2 ** (Math.max(e, -14) - 10) : 2 ** (Math.max(e, -126) - 7);
  const k = Math.floor(a / step), lo = k * step, hi = lo + step;
  return Math.sign(v) * (a - lo < hi - a || (a - lo === hi - a && k % 2 === 0) ? lo : hi);
}
/* F16 / BF16 bits -> value, from the formats' definitions. */
function halfValue(h, dtype) {
  if (dtype === 'BF16') return valueOf(h << 16);
  const s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 31, f = h & 1023;
  return e === 0 ? s * f * 2 ** -24 : s * (1 + f / 1024) * 2 ** (e - 15);
}

/* Where each of layerWeights(l)'s arrays comes from: [tensor, pick (index into it) or null]. */
function sources(l, D) {
  const h = `h.${l}.`, col = (j) => (i) => Math.floor(i / D) * 3 * D + j * D + (i % D), part = (j) => (i) => j * D + i;
  return { Wq: [h + 'attn.c_attn.weight', col(0)], Wk: [h + 'attn.c_attn.weight', col(1)], Wv: [h + 'attn.c_attn.weight', col(2)],
    bq: [h + 'attn.c_attn.bias', part(0)], bk: [h + 'attn.c_attn.bias', part(1)], bv: [h + 'attn.c_attn.bias', part(2)],
    Wo: [h + 'attn.c_proj.weight'], bo: [h + 'attn.c_proj.bias'], W1: [h + 'mlp.c_fc.weight'], b1: [h + 'mlp.c_fc.bias'],
    W2: [h + 'mlp.c_proj.weight'], b2: [h + 'mlp.c_proj.bias'], ln1Gamma: [h + 'ln_1.weight'], ln1Beta: [h + 'ln_1.bias'],
    ln2Gamma: [h + 'ln_2.weight'], ln2Beta: [h + 'ln_2.bias'] };
}

/* Every value of every layer's weights as the engine read them, against want(name, index): the
   float32 value that tensor's element must hold. Returns how many values were compared. */
function sameWeights(m, config, want, label) {
  let n = 0;
  for (let l = 0; l < config.n_layer; l++) {
    const w = m.layerWeights(l), src = sources(l, config.n_embd);
    assert.deepEqual(Object.keys(w).sort(), Object.keys(src).sort(), `${label}: layer ${l}'s arrays`);
    for (const [k, [name, pick]] of Object.entries(src))
      for (let i = 0; i < w[k].length; i++) {
        const at = pick ? pick(i) : i, expected = want(name, at);
        if (!Object.is(w[k][i], expected)) assert.fail(`${label}: ${name}[${at}] (layer ${l} ${k}[${i}]) is ${w[k][i]}, want ${expected}`);
        n++;
      }
  }
  return n;
}

/* The header as bytes 8.. of the file hold it (read here, not with checkpoint.js). */
function headerText(file) {
  const n = Number(new DataView(file.buffer, file.byteOffset, 8).getBigUint64(0, true));
  return { n, text: new TextDecoder().decode(file.subarray(8, 8 + n)) };
}

// rounding cases: ties to even in F16 (1 + 2^-11, 3 * 2^-25) and BF16 (1 + 2^-8), subnormals, -0
const SPECIAL = [-0, 0, 2 ** -24, 2 ** -25, 3 * 2 ** -25, 1 + 2 ** -11, 1 + 3 * 2 ** -11, 1 + 2 ** -8, 1 + 3 * 2 ** -8, -1 / 3,
  0.1, 65504, 1e-40, -(2 ** -14), 2 ** -126, -7.5];

test('numbers_written_in_F32_F16_BF16_load_as_the_nearest_even_value_aligned_or_not_with_or_without_metadata', () => {
  const model = ck.randomGpt2(bl, { seed: 9 }), ids = [0, 3, 5, 7, 11, 23];
  model.values['h.0.mlp.c_fc.bias'][1].set(SPECIAL);
  let compared = 0, files = 0;
  for (const dtype of ['F32', 'F16', 'BF16']) {
    const tensors = ck.tensorsOf(model, { dtype }), want = (name, i) => nearestEven(model.values[name][1][i], dtype);
    for (const offset of [undefined, 1, 6])
      for (const metadata of [undefined, null, { format: 'pt', note: 'BlockLens' }]) {
        const label = `${dtype} data at ${offset} mod 8, metadata ${JSON.stringify(metadata)}`;
        const file = ck.safetensors(tensors, { offset, metadata }), { n, text } = headerText(file), header = JSON.parse(text);
        assert.ok(text.length - text.trimEnd().length < 8 && text.startsWith('{'), `${label}: the JSON, then up to 7 spaces`);
        assert.equal((8 + n) % 8, offset ?? 0, `${label}: where the data starts`);
        assert.deepEqual(header.__metadata__, metadata === undefined ? { format: 'pt' } : metadata ?? undefined, label);
        const m = bl.loadModel({ weights: file, config: model.config, vocab: model.vocab });
        compared += sameWeights(m, model.config, want, label);
        // embeddings: wte[id] + wpe[i] in float32 (fround of a double sum of two floats is exact)
        const e = m.forward(ids).embeddings, D = model.config.n_embd;
        for (let i = 0; i < e.length; i++) {
          const t = Math.floor(i / D), k = i % D;
          const x = Math.fround(want('wte.weight', ids[t] * D + k) + want('wpe.weight', t * D + k));
          if (!Object.is(e[i], x)) assert.fail(`${label}: embeddings[${i}] is ${e[i]}, want ${x}`);
        }
        m.free();
        files++;
      }
  }
  assert.equal(nearestEven(1 + 2 ** -11, 'F16'), 1);   // the reference itself rounds ties to even
  assert.equal(nearestEven(1 + 3 * 2 ** -11, 'F16'), 1 + 2 ** -9);
  assert.equal(nearestEven(1 + 2 ** -8, 'BF16'), 1);
  console.log(`# ${compared} weights read back as written, in ${files} files`);
});

test('raw_F16_and_BF16_bits_load_bit_for_bit_from_one_file_or_shards', async () => {
  const r = bl.numpyRandom(17), model = ck.randomGpt2(bl, { seed: 10 });
  for (const dtype of ['F16', 'BF16']) {
    // every finite pattern may come: exponent all ones (infinity, NaN) is refused by the engine
    const inf = dtype === 'F16' ? 0x7c00 : 0x7f80, bits = {};
    const tensors = ck.tensorsOf(model, { dtype });
    for (const [name, [, shape]] of Object.entries(tensors)) {
      const b = Uint16Array.from(r.rand(shape.reduce((x, y) => x * y, 1)), (u) => Math.floor(u * 65536));
      for (let i = 0; i < b.length; i++) if ((b[i] & inf) === inf) b[i] &= ~0x4000;
      if (name === 'h.1.ln_1.bias') b.set([0x8000, 0x0001, 0x8001, 0x0000]);   // -0, smallest subnormals, +0
      bits[name] = b;
      tensors[name] = [dtype, shape, b];
    }
    const want = (name, i) => halfValue(bits[name][i], dtype);
    for (const [what, files] of [['one file, unaligned', ck.folderOf(model, tensors, { offset: 3 })], ['2 shards', ck.folderOf(model, tensors, { shards: 2 })],
      ['3 shards, unaligned', ck.folderOf(model, tensors, { shards: 3, offset: 6 })]]) {
      const m = await bl.loadModel({ files }), label = `${dtype} ${what}`;
      const n = sameWeights(m, model.config, want, label);
      if (dtype === 'BF16') {   // and as bits: float32's upper half is the bfloat16 written
        const w = m.layerWeights(1).ln1Beta;
        assert.deepEqual(Array.from(w.subarray(0, 4), bitsOf), [0x80000000, 0x00010000, 0x80010000, 0]);
      }
      m.free();
      const index = files['model.safetensors.index.json'];
      if (index) {
        const doc = JSON.parse(new TextDecoder().decode(index)), shards = [...new Set(Object.values(doc.weight_map))];
        assert.deepEqual(Object.keys(doc.weight_map).sort(), Object.keys(tensors).sort(), `${label}: every tensor in the index`);
        const data = shards.reduce((s, f) => s + files[f].length - 8 - headerText(files[f]).n, 0);
        assert.equal(doc.metadata.total_size, data, `${label}: total_size is the tensors' bytes`);
      }
      console.log(`# ${label}: ${n} weights bit for bit`);
    }
  }
});

test('rewriting_the_files_python_wrote_gives_their_bytes_back', () => {
  const dirs = fs.readdirSync(path.join(root, 'tests', 'fixtures', 'models')).map((d) => path.join(root, 'tests', 'fixtures', 'models', d));
  const files = [...dirs, path.join(root, 'web', 'models', 'poems')]
    .flatMap((d) => fs.readdirSync(d).filter((f) => f.endsWith('.safetensors')).map((f) => path.join(d, f)));
  assert.ok(files.length >= 8, `${files.length} files`);
  for (const file of files) {
    const bytes = new Uint8Array(fs.readFileSync(file)), { header, tensors } = ck.read(bytes);
    const again = ck.safetensors(tensors, { metadata: header.__metadata__ ?? null });
    assert.ok(Buffer.from(again).equals(Buffer.from(bytes)), `${path.relative(root, file)}: the same ${bytes.length} bytes`);
  }
});

test('the_writer_refuses_what_it_cannot_write_naming_the_tensor_or_the_value', () => {
  assert.throws(() => ck.safetensors({ x: ['F16', [2], [1, 0.1]] }, { exact: true }), /^AssertionError.*: 0\.1 is not exact in float16/s);
  assert.throws(() => ck.safetensors({ x: ['BF16', [1], [1 + 2 ** -8]] }, { exact: true }), /1\.00390625 is not exact in bfloat16/);
  assert.throws(() => ck.safetensors({ x: ['F16', [1], [65536]] }, { exact: true }), /65536 is not exact in float16/);
  assert.throws(() => ck.safetensors({ w: ['F32', [1], Uint16Array.of(1)] }), /tensor "w": raw Uint16Array bits are F16 or BF16, not F32/);
  assert.throws(() => ck.safetensors({ w: ['I32', [1], [1]] }), /tensor "w": no writer for I32 from numbers/);
  assert.throws(() => ck.folderOf(ck.randomGpt2(bl), {}, { pad: 3 }), /safetensors\(\) has no option "pad"/);
  // and what it can: the same values without exact are rounded, raw bytes go in as they are
  const t = ck.read(ck.safetensors({ x: ['F16', [2], [1, 0.1]], y: ['I32', [1], Uint8Array.of(1, 2, 3, 4)] })).tensors;
  assert.deepEqual(Array.from(new Uint16Array(t.x[2].slice().buffer)), [0x3c00, 0x2e66]);
  assert.deepEqual(Array.from(t.y[2]), [1, 2, 3, 4]);
});
