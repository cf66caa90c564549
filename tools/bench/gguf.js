/* tools/bench/gguf.js - a small GGUF v3 writer (llama.cpp's model file), for the wllama bench.
   Layout (all little-endian): "GGUF", u32 version 3, u64 tensor count, u64 key-value count; the
   key-values (string key, u32 type, value); one info per tensor (string name, u32 n_dims, u64
   dims fastest first, u32 ggml type, u64 offset into the data); padding to general.alignment
   (32); the tensors' bytes, each at an offset that is a multiple of the alignment. A string is
   a u64 byte length and UTF-8 bytes; an array a u32 element type, u64 count, the elements.

   usage:  const g = require('./gguf.js');
           const bytes = g.write({ 'general.architecture': g.str('llama'), 'llama.block_count': g.u32(30), ... },
                                 [{ name: 'token_embd.weight', shape: [V, D], type: g.F16, data: Uint8Array }]);
   shape is PyTorch's (slowest first, as in safetensors); the writer reverses it into ggml's ne[]. */
'use strict';

const ALIGN = 32;
/* ggml tensor types (ggml.h enum ggml_type): [elements per block, bytes per block] */
const F32 = 0, F16 = 1, Q8_0 = 8, BF16 = 30;
const BLOCK = { [F32]: [1, 4], [F16]: [1, 2], [Q8_0]: [32, 34], [BF16]: [1, 2] };
/* GGUF value types (gguf.h enum gguf_type) */
const T = { u8: 0, i8: 1, u16: 2, i16: 3, u32: 4, i32: 5, f32: 6, bool: 7, str: 8, arr: 9, u64: 10, i64: 11, f64: 12 };

/* Tagged values, so the writer knows each one's GGUF type. */
const u32 = (v) => ({ t: T.u32, v });
const i32 = (v) => ({ t: T.i32, v });
const f32 = (v) => ({ t: T.f32, v });
const bool = (v) => ({ t: T.bool, v });
const str = (v) => ({ t: T.str, v });
/* an array of one element type: arr('str', ['a', 'b']), arr('f32', Float32Array), arr('i32', ...) */
const arr = (type, v) => ({ t: T.arr, et: T[type], v });

/* A growable little-endian byte writer. */
class Out {
  constructor() { this.buf = new Uint8Array(1 << 20); this.n = 0; }
  room(k) {
    if (this.n + k <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.n + k) cap *= 2;
    const b = new Uint8Array(cap);
    b.set(this.buf.subarray(0, this.n));
    this.buf = b;
  }
  num(kind, size, v) { this.room(size); new DataView(this.buf.buffer, this.n, size)[kind](0, v, true); this.n += size; }
  u32(v) { this.num('setUint32', 4, v); }
  u64(v) { this.num('setBigUint64', 8, BigInt(v)); }
  bytes(b) { this.room(b.length); this.buf.set(b, this.n); this.n += b.length; }
  str(s) { const b = new TextEncoder().encode(s); this.u64(b.length); this.bytes(b); }
  scalar(t, v) {
    switch (t) {
      case T.u8: this.num('setUint8', 1, v); break;
      case T.i8: this.num('setInt8', 1, v); break;
      case T.u16: this.num('setUint16', 2, v); break;
      case T.i16: this.num('setInt16', 2, v); break;
      case T.u32: this.num('setUint32', 4, v); break;
      case T.i32: this.num('setInt32', 4, v); break;
      case T.f32: this.num('setFloat32', 4, v); break;
      case T.bool: this.num('setUint8', 1, v ? 1 : 0); break;
      case T.str: this.str(v); break;
      case T.u64: this.num('setBigUint64', 8, BigInt(v)); break;
      case T.i64: this.num('setBigInt64', 8, BigInt(v)); break;
      case T.f64: this.num('setFloat64', 8, v); break;
      default: throw new Error(`gguf: value type ${t} is not a scalar`);
    }
  }
}

/* The GGUF bytes of metadata (key -> tagged value) and tensors [{ name, shape, type, data }]. */
function write(metadata, tensors) {
  const o = new Out();
  o.bytes(new TextEncoder().encode('GGUF'));
  o.u32(3);
  o.u64(tensors.length);
  const kv = Object.assign({ 'general.alignment': u32(ALIGN) }, metadata);
  o.u64(Object.keys(kv).length);
  for (const [key, val] of Object.entries(kv)) {
    if (!val || typeof val.t !== 'number') throw new Error(`gguf: metadata ${key} is not a tagged value (use u32(), str(), ...)`);
    o.str(key);
    o.u32(val.t);
    if (val.t === T.arr) {
      o.u32(val.et);
      o.u64(val.v.length);
      for (const x of val.v) o.scalar(val.et, x);
    } else o.scalar(val.t, val.v);
  }
  let off = 0;
  const offsets = [];
  for (const t of tensors) {
    const n = t.shape.reduce((a, c) => a * c, 1), blk = BLOCK[t.type];
    if (!blk) throw new Error(`gguf: tensor ${t.name}: type ${t.type} is not written here`);
    if (n % blk[0] || t.data.byteLength !== n / blk[0] * blk[1]) throw new Error(`gguf: tensor ${t.name}: ${t.data.byteLength} bytes for shape [${t.shape}] of type ${t.type}`);
    o.str(t.name);
    o.u32(t.shape.length);
    for (const d of t.shape.slice().reverse()) o.u64(d);   /* ggml's ne[0] is the fastest dimension */
    o.u32(t.type);
    o.u64(off);
    offsets.push(off);
    off += Math.ceil(t.data.byteLength / ALIGN) * ALIGN;
  }
  const start = Math.ceil(o.n / ALIGN) * ALIGN, out = new Uint8Array(start + off);
  out.set(o.buf.subarray(0, o.n));
  tensors.forEach((t, i) => out.set(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength), start + offsets[i]));
  return out;
}

/* float32 -> IEEE half, round to nearest even (subnormals kept, overflow to infinity). */
const f32buf = new Float32Array(1), u32buf = new Uint32Array(f32buf.buffer);
function toHalf(x) {
  f32buf[0] = x;
  const b = u32buf[0], sign = (b >>> 16) & 0x8000, e = (b >>> 23) & 0xff, m = b & 0x7fffff;
  if (e === 0xff) return sign | 0x7c00 | (m ? 0x200 : 0);
  const he = e - 127 + 15;
  if (he >= 0x1f) return sign | 0x7c00;
  if (he <= 0) {   /* subnormal half (or zero): shift the full mantissa down, round to nearest even */
    if (he < -10) return sign;
    const mm = m | 0x800000, shift = 14 - he, half = 1 << (shift - 1);
    let r = mm >>> shift;
    const rest = mm & ((1 << shift) - 1);
    if (rest > half || (rest === half && (r & 1))) r++;
    return sign | r;
  }
  let r = (he << 10) | (m >>> 13);
  const rest = m & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (r & 1))) r++;   /* a carry into the exponent is right */
  return sign | r;
}

/* BF16 bits (Uint16Array) -> F16 bits, through float32 (exact for BF16, then rounded). */
function bf16ToF16(src) {
  const out = new Uint16Array(src.length);
  for (let i = 0; i < src.length; i++) { u32buf[0] = src[i] << 16; out[i] = toHalf(f32buf[0]); }
  return out;
}

/* BF16 bits -> float32 values. */
function bf16ToF32(src) {
  const out = new Float32Array(src.length), u = new Uint32Array(out.buffer);
  for (let i = 0; i < src.length; i++) u[i] = src[i] << 16;
  return out;
}

/* float32 -> Q8_0 blocks of 32 (llama.cpp's quantize_row_q8_0_ref): an F16 scale d = max|x| / 127,
   then 32 int8 round(x / d). */
function toQ8_0(x) {
  const out = new Uint8Array(x.length / 32 * 34), dv = new DataView(out.buffer);
  for (let b = 0; b < x.length / 32; b++) {
    let amax = 0;
    for (let i = 0; i < 32; i++) amax = Math.max(amax, Math.abs(x[b * 32 + i]));
    const d = amax / 127, id = d ? 1 / d : 0;
    dv.setUint16(b * 34, toHalf(d), true);
    for (let i = 0; i < 32; i++) {
      const v = x[b * 32 + i] * id;
      dv.setInt8(b * 34 + 2 + i, Math.sign(v) * Math.floor(Math.abs(v) + 0.5));   /* roundf: half away from zero */
    }
  }
  return out;
}

/* HF's q_proj / k_proj rows (n_head, 2, hd / 2) -> llama.cpp's (n_head, hd / 2, 2): llama.cpp's
   "llama" rope rotates adjacent pairs, HF's the two halves of a head (convert_hf_to_gguf's permute). */
function permuteQK(rows, nHead, nIn) {
  const out = new rows.constructor(rows.length), hd = rows.length / nIn / nHead, h2 = hd / 2;
  for (let h = 0; h < nHead; h++)
    for (let i = 0; i < h2; i++)
      for (let j = 0; j < 2; j++) {
        const src = (h * hd + j * h2 + i) * nIn, dst = (h * hd + i * 2 + j) * nIn;
        out.set(rows.subarray(src, src + nIn), dst);
      }
  return out;
}

module.exports = { write, u32, i32, f32, bool, str, arr, F32, F16, Q8_0, BF16, ALIGN, toHalf, bf16ToF16, bf16ToF32, toQ8_0, permuteQK };
