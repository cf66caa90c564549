// checkpoint.js - the one safetensors writer of the Node tests, and Hugging Face model folders
// written at test time: a small random GPT-2 whose F16 and BF16 files hold rounded values and
// whose F32 file holds exactly those values up-cast (so every dtype must give the same logits).
//
// Usage:
//   const ck = require('./checkpoint.js');
//   const file = ck.safetensors({ 'wte.weight': ['F16', [V, D], values] }, { exact: true });
//   bl.loadModel({ weights: file, config, vocab });
// Tensors are { name: [dtype, shape, data] }, written in that order; data is one of
//   - numbers (an array or a Float32/Float64Array): F32 as float32, F16 and BF16 rounded to
//     nearest even from that float32, U8 / BOOL / I8 as integers;
//   - a Uint16Array: raw F16 or BF16 bits, written as they are (NaN, infinities, -0, subnormals);
//   - a Uint8Array: the tensor's bytes, whatever its dtype.
// safetensors(tensors, opts) options:
//   exact     F16 / BF16 numbers must be exact in the dtype: one assertion per value, not rounded;
//   metadata  the __metadata__ object (default { format: 'pt' }, as save_pretrained writes; null: none);
//   edit      edit(header) may change the parsed header before it is written (a wrong dtype...);
//   offset    where the data starts, mod 8 (default 0: the JSON padded with spaces to a multiple
//             of 8 bytes, as the safetensors library writes it); 1, 3: the data at an odd
//             address, 2, 6: at 2 mod 4 (for the tests of unaligned reads).
// sharded(tensors, n, opts): n shards (consecutive names) + model.safetensors.index.json;
// raw(text, data): 8-byte length + text + data, for headers no writer would make;
// read(bytes): { header, start, tensors: { name: [dtype, shape, bytes] } }, the inverse (test side);
// randomGpt2, tensorsOf, folderOf, writeFolder, json: a random GPT-2's folder (see each one).
// Errors here are the test's own mistakes: thrown Errors naming the tensor or the value.
'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const f32 = new Float32Array(1), u32 = new Uint32Array(f32.buffer);

/* float32 -> float16 bits, rounded to nearest even (overflow to infinity). */
function toF16(v) {
  f32[0] = v;
  const x = u32[0], s = (x >>> 16) & 0x8000, e = (x >>> 23) & 0xff, f = x & 0x7fffff;
  if (e === 0xff) return s | 0x7c00 | (f ? 0x200 : 0);
  const a = Math.abs(f32[0]);
  if (a >= 65520) return s | 0x7c00;
  if (a < 2 ** -14) {   // subnormal: a multiple of 2^-24, rounded half to even (exact in double)
    const k = a * 2 ** 24, lo = Math.floor(k), frac = k - lo;
    return s | (frac > 0.5 || (frac === 0.5 && (lo & 1)) ? lo + 1 : lo);
  }
  let m = (f >>> 13), rest = f & 0x1fff, ex = e - 127 + 15;
  if (rest > 0x1000 || (rest === 0x1000 && (m & 1))) m++;
  if (m === 0x400) { m = 0; ex++; }
  return s | (ex << 10) | m;
}
function fromF16(h) {
  const s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 31, f = h & 1023;
  return e === 0 ? s * f * 2 ** -24 : e === 31 ? (f ? NaN : s * Infinity) : s * (1 + f / 1024) * 2 ** (e - 15);
}
/* float32 -> bfloat16 bits, rounded to nearest even. */
function toBF16(v) {
  f32[0] = v;
  const x = u32[0];
  return ((x + 0x7fff + ((x >>> 16) & 1)) >>> 16) & 0xffff;
}
function fromBF16(h) { u32[0] = h << 16; return f32[0]; }

const HALF = { F16: [toF16, fromF16, 'float16'], BF16: [toBF16, fromBF16, 'bfloat16'] };

/* One tensor's data (see the manual) as the bytes of dtype. */
function tensorBytes(name, dtype, values, exact) {
  if (values instanceof Uint8Array) return values;
  if (values instanceof Uint16Array) {
    if (!HALF[dtype]) throw new Error(`checkpoint.js: tensor "${name}": raw Uint16Array bits are F16 or BF16, not ${dtype}`);
    return new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
  }
  if (dtype === 'F32') return new Uint8Array(Float32Array.from(values).buffer);
  if (HALF[dtype]) {
    const [to, from, what] = HALF[dtype];
    return new Uint8Array(Uint16Array.from(values, (v) => {
      const h = to(v);
      if (exact) assert.ok(Object.is(from(h), v), `${v} is not exact in ${what}`);   // -0 stays -0
      return h;
    }).buffer);
  }
  if (dtype === 'U8' || dtype === 'BOOL' || dtype === 'I8') return Uint8Array.from(values, (v) => v & 255);
  throw new Error(`checkpoint.js: tensor "${name}": no writer for ${dtype} from numbers (give its bytes as a Uint8Array)`);
}

/* header text and data bytes -> a .safetensors file: the u64 little-endian header length first. */
function raw(text, data = new Uint8Array(0)) {
  const head = new TextEncoder().encode(text), bytes = typeof data === 'number' ? new Uint8Array(data) : data;
  const out = new Uint8Array(8 + head.length + bytes.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(head.length), true);
  out.set(head, 8);
  out.set(bytes, 8 + head.length);
  return out;
}

/* tensors: { name: [dtype, shape, data] } -> the bytes of a .safetensors file (opts: the manual). */
function safetensors(tensors, opts = {}) {
  for (const k of Object.keys(opts))   // an option misspelt (or the old pad) would be ignored without a word
    if (!['exact', 'metadata', 'edit', 'offset'].includes(k)) throw new Error(`checkpoint.js: safetensors() has no option "${k}"`);
  const { exact = false, metadata = { format: 'pt' }, edit, offset = 0 } = opts;
  const header = metadata === null ? {} : { __metadata__: { ...metadata } }, parts = [];
  let off = 0;
  for (const [name, [dtype, shape, values]] of Object.entries(tensors)) {
    const b = tensorBytes(name, dtype, values, exact);
    header[name] = { dtype, shape, data_offsets: [off, off + b.length] };
    parts.push(b);
    off += b.length;
  }
  if (edit) edit(header);
  const text = JSON.stringify(header), n = new TextEncoder().encode(text).length;
  const data = new Uint8Array(off);
  let at = 0;
  for (const p of parts) { data.set(p, at); at += p.length; }
  return raw(text + ' '.repeat((((offset - 8 - n) % 8) + 8) % 8), data);
}

function headerLength(bytes) { return Number(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getBigUint64(0, true)); }

/* A .safetensors file's header (parsed), where its data starts, and each tensor's bytes (views). */
function read(bytes) {
  const n = headerLength(bytes);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n))), start = 8 + n, tensors = {};
  for (const [name, e] of Object.entries(header))
    if (name !== '__metadata__') tensors[name] = [e.dtype, e.shape, bytes.subarray(start + e.data_offsets[0], start + e.data_offsets[1])];
  return { header, start, tensors };
}

/* A random GPT-2 (GPT-2's names, Conv1D (in, out)): { config, vocab, values: name -> [shape,
   Float64Array] }; values from bl.numpyRandom, scaled. */
function randomGpt2(bl, { seed = 7, nLayer = 2, D = 16, H = 2, F = 32, P = 16, V = 24, activation = 'gelu_new' } = {}) {
  const r = bl.numpyRandom(seed), values = {};
  const put = (name, shape, scale = 0.5, offset = 0) => {
    const n = shape.reduce((a, b) => a * b, 1);
    values[name] = [shape, r.randn(n).map((v) => offset + v * scale)];
  };
  put('wte.weight', [V, D]);
  put('wpe.weight', [P, D], 0.1);
  for (let l = 0; l < nLayer; l++) {
    const h = `h.${l}.`;
    put(h + 'ln_1.weight', [D], 0.1, 1);
    put(h + 'ln_1.bias', [D], 0.05);
    put(h + 'attn.c_attn.weight', [D, 3 * D], 0.3);
    put(h + 'attn.c_attn.bias', [3 * D], 0.05);
    put(h + 'attn.c_proj.weight', [D, D], 0.3);
    put(h + 'attn.c_proj.bias', [D], 0.05);
    put(h + 'ln_2.weight', [D], 0.1, 1);
    put(h + 'ln_2.bias', [D], 0.05);
    put(h + 'mlp.c_fc.weight', [D, F], 0.3);
    put(h + 'mlp.c_fc.bias', [F], 0.05);
    put(h + 'mlp.c_proj.weight', [F, D], 0.2);
    put(h + 'mlp.c_proj.bias', [D], 0.05);
  }
  put('ln_f.weight', [D], 0.1, 1);
  put('ln_f.bias', [D], 0.05);
  const vocab = ['<s>', '<unk>'];
  for (let i = 2; i < V; i++) vocab.push(String.fromCodePoint(0x4e00 + i));
  const config = { model_type: 'gpt2', n_embd: D, n_layer: nLayer, n_head: H, n_positions: P, vocab_size: V,
    activation_function: activation, layer_norm_epsilon: 1e-5, n_inner: F, bos_token_id: 0, unk_token_id: 1 };
  return { config, vocab, values };
}

/* The model's values as stored in `dtype` (rounded) and, exactly, as float32 read them back. */
function rounded(v, dtype) {
  if (dtype === 'F16') return v.map((x) => fromF16(toF16(x)));
  if (dtype === 'BF16') return v.map((x) => fromBF16(toBF16(x)));
  return Float32Array.from(v);
}

/* The tensors of a model's file: { name: [dtype, shape, values] }. opts: dtype (default F32),
   roundedAs (store F32 values rounded to that dtype: the exact up-cast reference), prefix
   ('transformer.'), masks (HF's causal-mask buffers h.N.attn.bias / masked_bias: a dtype). */
function tensorsOf(model, { dtype = 'F32', roundedAs = null, prefix = '', masks = null } = {}) {
  const t = {}, P = model.config.n_positions;
  for (const [name, [shape, v]] of Object.entries(model.values))
    t[prefix + name] = [dtype, shape, roundedAs ? rounded(v, roundedAs) : v];
  if (masks)
    for (let l = 0; l < model.config.n_layer; l++) {
      const tri = Array.from({ length: P * P }, (_, i) => (i % P <= Math.floor(i / P) ? 1 : 0));
      t[`${prefix}h.${l}.attn.bias`] = [masks, [1, 1, P, P], masks === 'U8' || masks === 'BOOL' ? tri : tri.map(Number)];
      t[`${prefix}h.${l}.attn.masked_bias`] = [masks === 'U8' || masks === 'BOOL' ? 'F32' : masks, [], [-1e4]];
    }
  return t;
}

/* The files of a folder: config.json, vocab.json (the poem model's format: an array of strings)
   and the weights, as one model.safetensors or `shards` files with an index; the other options
   are safetensors()'s. */
function folderOf(model, tensors, { shards = 1, ...opts } = {}) {
  const files = { 'config.json': json(model.config), 'vocab.json': json(model.vocab) };
  if (shards === 1) files['model.safetensors'] = safetensors(tensors, opts);
  else Object.assign(files, sharded(tensors, shards, opts));
  return files;
}

/* tensors split in `n` shards (consecutive names, as HF writes them) and their index, whose
   total_size counts the tensors' bytes, as save_pretrained's does. opts: safetensors()'s. */
function sharded(tensors, n, opts = {}) {
  const names = Object.keys(tensors), per = Math.ceil(names.length / n), files = {}, weightMap = {};
  let total = 0;
  for (let s = 0; s < n; s++) {
    const file = `model-${String(s + 1).padStart(5, '0')}-of-${String(n).padStart(5, '0')}.safetensors`;
    const part = {};
    for (const name of names.slice(s * per, (s + 1) * per)) { part[name] = tensors[name]; weightMap[name] = file; }
    files[file] = safetensors(part, opts);
    total += files[file].length - 8 - headerLength(files[file]);
  }
  files['model.safetensors.index.json'] = json({ metadata: { total_size: total }, weight_map: weightMap });
  return files;
}

function json(v) { return new TextEncoder().encode(JSON.stringify(v)); }

/* Writes files ({ name: bytes }) into a fresh folder under dir. */
function writeFolder(dir, files) {
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, bytes] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), bytes);
  return dir;
}

module.exports = { toF16, fromF16, toBF16, fromBF16, safetensors, sharded, raw, read, randomGpt2, tensorsOf, folderOf,
  json, writeFolder, rounded };
