/* engine-safetensors.js - the safetensors format: the header parsed and checked (every byte range
   in the data, none overlapping), a tensor looked up by name and shape, and its values (F32, F16
   or BF16) copied into the wasm heap as float32. Knows no architecture's tensor names. */
  /* global cut, fail, show, TA_LENGTH */
  /* exported decodeInto, parseSafetensors, q, tensorOf */

  /* safetensors dtypes this reads, in bytes per value. */
  const ST_DTYPES = { F32: 4, F16: 2, BF16: 2 };
  const TEXT = new TextDecoder('utf-8', { fatal: true });

  /* float16 -> float32, all 65536 values (every one is exact in float32), made on first use. */
  let F16 = null;
  function f16Table() {
    if (F16) return F16;
    F16 = new Float32Array(65536);
    for (let h = 0; h < 65536; h++) {
      const s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 31, f = h & 1023;
      F16[h] = e === 0 ? s * f * Math.pow(2, -24) : e === 31 ? (f ? NaN : s * Infinity)
        : s * (1 + f / 1024) * Math.pow(2, e - 15);
    }
    return F16;
  }

  /* A tensor name as a message quotes it. */
  function q(name) { return '"' + cut(String(name)) + '"'; }

  /* The header of a safetensors file: an 8-byte little-endian length n, n bytes of JSON (an
     object: tensor name -> { dtype, shape, data_offsets: [begin, end) into the data after the
     header }, and an optional "__metadata__"), then the data. Returns a Map of the entries
     (byte ranges made absolute), every range checked to lie in the data and none to overlap. */
  function parseSafetensors(bytes) {
    const n = TA_LENGTH.call(bytes);
    if (n < 8)
      fail('weights: truncated file (' + n + ' bytes): a safetensors file starts with an 8-byte header length');
    const hlen = (bytes[0] | bytes[1] << 8 | bytes[2] << 16) + bytes[3] * 16777216 +
      (bytes[4] | bytes[5] << 8 | bytes[6] << 16) * 4294967296 + bytes[7] * 72057594037927936;
    if (hlen > n - 8)
      fail('weights: the header length (' + hlen + ' bytes) runs past the end of the file (' + n +
        ' bytes): truncated or not a safetensors file');
    let text, header;
    try {
      text = TEXT.decode(bytes.slice(8, 8 + hlen));   /* a copy: TextDecoder refuses shared memory */
    } catch (e) {
      fail('weights: the header is not UTF-8 text');
    }
    try {
      header = JSON.parse(text);
    } catch (e) {
      fail('weights: the header is not JSON (' + cut(String(e.message)) + ')');
    }
    if (header === null || typeof header !== 'object' || Array.isArray(header))
      fail('weights: the header is ' + show(header) + ', not a JSON object of tensors');
    const start = 8 + hlen, size = n - start, map = new Map(), spans = [];
    Object.keys(header).forEach(function (name) {
      if (name === '__metadata__') return;
      const e = header[name], bad = 'weights: tensor ' + q(name) + ' in the header: ';
      if (e === null || typeof e !== 'object' || Array.isArray(e)) fail(bad + show(e) + ', not an object');
      if (typeof e.dtype !== 'string') fail(bad + 'its dtype is ' + show(e.dtype) + ', not a string');
      if (!Array.isArray(e.shape) || !e.shape.every(function (d) { return Number.isSafeInteger(d) && d >= 0; }))
        fail(bad + 'its shape must be a list of whole numbers, not ' + cut(JSON.stringify(e.shape) || show(e.shape)));
      const o = e.data_offsets;
      if (!Array.isArray(o) || o.length !== 2 || !o.every(function (v) { return Number.isSafeInteger(v) && v >= 0; }) ||
          o[0] > o[1])
        fail(bad + 'data_offsets must be [begin, end] with 0 <= begin <= end, not ' +
          cut(JSON.stringify(o) || show(o)));
      if (o[1] > size)
        fail('weights: tensor ' + q(name) + ' has data_offsets [' + o[0] + ', ' + o[1] +
          '], past the end of the data (' + size + ' bytes): truncated file?');
      map.set(name, { dtype: e.dtype, shape: e.shape, begin: start + o[0], end: start + o[1] });
      if (o[1] > o[0]) spans.push({ begin: o[0], end: o[1], name: name });
    });
    spans.sort(function (a, b) { return a.begin - b.begin; });
    for (let i = 1; i < spans.length; i++) {
      const a = spans[i - 1], b = spans[i];
      if (b.begin < a.end)
        fail('weights: tensors ' + q(a.name) + ' [' + a.begin + ', ' + a.end + ') and ' +
          q(b.name) + ' [' + b.begin + ', ' + b.end + ') overlap');
    }
    return map;
  }

  /* The entry of tensor `full` (its whole name), checked: present (else the message says `names`,
     the names the architecture reads), a dtype this reads, the expected shape, exactly the bytes
     that shape needs. */
  function tensorOf(map, full, shape, names) {
    const t = map.get(full);
    if (!t) fail('weights: no tensor ' + q(full) + ' (' + names + ')');
    if (!Object.prototype.hasOwnProperty.call(ST_DTYPES, t.dtype))
      fail('weights: tensor ' + q(full) + ' has dtype ' + q(t.dtype) + '; BlockLens reads F32, F16 and BF16');
    if (t.shape.join() !== shape.join() || t.shape.length !== shape.length)
      fail('weights: tensor ' + q(full) + ' has shape [' + t.shape.join(', ') + '], expected [' +
        shape.join(', ') + ']');
    const need = shape.reduce(function (a, b) { return a * b; }, 1) * ST_DTYPES[t.dtype];
    if (t.end - t.begin !== need)
      fail('weights: tensor ' + q(full) + ' holds ' + (t.end - t.begin) + ' bytes; [' + shape.join(', ') + '] in ' +
        t.dtype + ' needs ' + need);
    t.name = full;
    return t;
  }

  /* n values of tensor t from value `from` on, as float32 into heap float index `at`. */
  function decodeInto(m, bytes, t, from, n, at) {
    let b = t.begin + from * ST_DTYPES[t.dtype], f32 = m.HEAPF32, i;
    if (t.dtype === 'F32') {
      m.HEAPU8.set(bytes.subarray(b, b + n * 4), at * 4);   /* both little-endian */
    } else if (t.dtype === 'F16') {
      const table = f16Table();
      for (i = 0; i < n; i++, b += 2) f32[at + i] = table[bytes[b] | bytes[b + 1] << 8];
    } else {   /* BF16: the top half of a float32 */
      const i32 = m.HEAP32;
      for (i = 0; i < n; i++, b += 2) i32[at + i] = (bytes[b] | bytes[b + 1] << 8) << 16;
    }
  }
