/* engine-safetensors.js - the safetensors format: the header parsed and checked (every tensor's
   dtype, shape and byte range consistent, names unique, the ranges tiling the data), each entry
   saying which source (file, shard) holds it and where; a tensor looked up by name and shape, and
   values (F32, F16 or BF16) decoded into the wasm heap as float32. Knows no architecture's names. */
  /* global cut, fail, show, TA_BUFFER, TA_LENGTH, TA_OFFSET, TA_SET, TA_TAG */
  /* exported bytesAt, decodeAt, headerLength, memorySource, parseHeader, parseSafetensors, plainBytes, q */
  /* exported ST_DTYPES, tensorOf */

  /* safetensors dtypes this reads, in bytes per value. */
  const ST_DTYPES = { F32: 4, F16: 2, BF16: 2 };
  /* every safetensors dtype, in bits per value (for the size check of tensors this does not read) */
  const ST_BITS = { BOOL: 8, U8: 8, I8: 8, F8_E5M2: 8, F8_E4M3: 8, F8_E8M0: 8, I16: 16, U16: 16, F16: 16,
    BF16: 16, I32: 32, U32: 32, F32: 32, C64: 64, F64: 64, I64: 64, U64: 64, F4: 4, F6_E2M3: 6, F6_E3M2: 6 };
  const TEXT = new TextDecoder('utf-8', { fatal: true });
  const AB_LENGTH = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength').get;

  /* A plain Uint8Array over the bytes of v (a Uint8Array, a subclass's too, or an ArrayBuffer),
     made through the intrinsics: none of the caller's methods, getters or Symbol.species runs when
     it is read or copied. null for anything else. */
  function plainBytes(v) {
    const ta = TA_TAG.call(v) === 'Uint8Array';
    if (!ta) {
      try {
        AB_LENGTH.call(v);   /* throws for anything but an ArrayBuffer (a SharedArrayBuffer too) */
      } catch (e) {
        return null;
      }
    }
    try {
      return ta ? new Uint8Array(TA_BUFFER.call(v), TA_OFFSET.call(v), TA_LENGTH.call(v)) : new Uint8Array(v);
    } catch (e) {
      fail('weights: its buffer was detached (transferred)');
    }
  }

  /* bytes [begin, begin + n) of the plain view `bytes`, as a view (no copy). */
  function bytesAt(bytes, begin, n) { return new Uint8Array(TA_BUFFER.call(bytes), TA_OFFSET.call(bytes) + begin, n); }

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

  /* The first name the top-level object of `text` (JSON, already parsed) has twice, else
     undefined: JSON.parse keeps the last of them without a word. */
  function repeatedName(text) {
    const seen = new Set();
    let depth = 0, key = true;   /* key: the next string at depth 1 is a name */
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 34) {   /* a string, to its closing quote */
        let j = i + 1;
        while (text.charCodeAt(j) !== 34) j += text.charCodeAt(j) === 92 ? 2 : 1;
        if (depth === 1 && key) {
          const name = JSON.parse(text.slice(i, j + 1));
          if (seen.has(name)) return name;
          seen.add(name);
          key = false;
        }
        i = j;
      } else if (c === 123 || c === 91) depth++;
      else if (c === 125 || c === 93) depth--;
      else if (c === 44 && depth === 1) key = true;
    }
    return undefined;
  }

  /* Whole-file headers are at most this long (as HF's reader has it: 100 MB). */
  const ST_HEADER_MAX = 100000000;
  const ST_READS = 'BlockLens reads F32, F16 and BF16';

  /* The header length of a safetensors file of `size` bytes from its first 8 bytes (a plain view,
     little-endian), checked against the file's size; label: the file as messages name it. */
  function headerLength(bytes, size, label) {
    if (size < 8)
      fail(label + ': truncated file (' + size + ' bytes): a safetensors file starts with an 8-byte header length');
    const hlen = (bytes[0] | bytes[1] << 8 | bytes[2] << 16) + bytes[3] * 16777216 +
      (bytes[4] | bytes[5] << 8 | bytes[6] << 16) * 4294967296 + bytes[7] * 72057594037927936;
    if (hlen > size - 8)
      fail(label + ': the header length (' + hlen + ' bytes) runs past the end of the file (' + size +
        ' bytes): truncated or not a safetensors file');
    if (hlen > ST_HEADER_MAX)
      fail(label + ': the header length (' + hlen + ' bytes) is past the ' + ST_HEADER_MAX +
        ' bytes safetensors allows');
    return hlen;
  }

  /* The header of a safetensors file: an 8-byte little-endian length n, n bytes of JSON (an
     object from its first byte: tensor name -> { dtype, shape, data_offsets: [begin, end) into
     the data after the header }, and an optional "__metadata__"), then the data. json: a plain
     view of the n bytes of JSON; size: the file's bytes; source: where the file's bytes are
     (engine-source.js), its label naming it in messages. Returns a Map of the entries
     { dtype, shape, begin, end (absolute byte offsets in the file), source }, every one checked,
     used or not: a safetensors dtype, end - begin the bytes its shape needs, within the data; no
     name twice; the ranges, sorted, tile the data with no overlap and no hole (as HF's reader has
     it: InvalidOffset, MetadataIncompleteBuffer). The Map's label names the file too. */
  function parseHeader(json, size, source) {
    const label = source.label, hlen = TA_LENGTH.call(json);
    let text, header;
    try {
      const copy = new Uint8Array(hlen);   /* a copy: TextDecoder refuses shared memory */
      TA_SET.call(copy, json);
      text = TEXT.decode(copy);
    } catch (e) {
      fail(label + ': the header is not UTF-8 text');
    }
    try {
      header = JSON.parse(text);
    } catch (e) {
      fail(label + ': the header is not JSON (' + cut(String(e.message)) + ')');
    }
    if (header === null || typeof header !== 'object' || Array.isArray(header))
      fail(label + ': the header is ' + show(header) + ', not a JSON object of tensors');
    if (text.charCodeAt(0) !== 123)
      fail(label + ': the header starts with ' + JSON.stringify(text.charAt(0)) +
        ', not "{" (as safetensors requires)');
    const twice = repeatedName(text);
    if (twice !== undefined) fail(label + ': the header names tensor ' + q(twice) + ' twice (safetensors forbids it)');
    const start = 8 + hlen, data = size - start, map = new Map(), spans = [];
    map.label = label;
    Object.keys(header).forEach(function (name) {
      if (name === '__metadata__') return;
      const e = header[name], bad = label + ': tensor ' + q(name) + ' in the header: ';
      if (e === null || typeof e !== 'object' || Array.isArray(e)) fail(bad + show(e) + ', not an object');
      if (typeof e.dtype !== 'string') fail(bad + 'its dtype is ' + show(e.dtype) + ', not a string');
      if (!Array.isArray(e.shape) || !e.shape.every(function (d) { return Number.isSafeInteger(d) && d >= 0; }))
        fail(bad + 'its shape must be a list of whole numbers, not ' + cut(JSON.stringify(e.shape) || show(e.shape)));
      const o = e.data_offsets;
      if (!Array.isArray(o) || o.length !== 2 || !o.every(function (v) { return Number.isSafeInteger(v) && v >= 0; }) ||
          o[0] > o[1])
        fail(bad + 'data_offsets must be [begin, end] with 0 <= begin <= end, not ' +
          cut(JSON.stringify(o) || show(o)));
      if (o[1] > data)
        fail(label + ': tensor ' + q(name) + ' has data_offsets [' + o[0] + ', ' + o[1] +
          '], past the end of the data (' + data + ' bytes): truncated file?');
      if (!Object.prototype.hasOwnProperty.call(ST_BITS, e.dtype))
        fail(bad + 'its dtype ' + q(e.dtype) + ' is not a safetensors dtype (' + ST_READS + ')');
      const bits = e.shape.reduce(function (a, b) { return a * b; }, 1) * ST_BITS[e.dtype];
      if (bits / 8 !== o[1] - o[0])
        fail(label + ': tensor ' + q(name) + ' holds ' + (o[1] - o[0]) + ' bytes; [' + e.shape.join(', ') + '] in ' +
          e.dtype + ' needs ' + bits / 8);
      map.set(name, { dtype: e.dtype, shape: e.shape, begin: start + o[0], end: start + o[1], source: source });
      spans.push({ begin: o[0], end: o[1], name: name });
    });
    /* sorted by begin (then end), each range begins where the one before ends, the last ends the data */
    spans.sort(function (a, b) { return a.begin - b.begin || a.end - b.end; });
    let at = 0, a = null;
    spans.forEach(function (b) {
      if (b.begin < at)
        fail(label + ': tensors ' + q(a.name) + ' [' + a.begin + ', ' + a.end + ') and ' +
          q(b.name) + ' [' + b.begin + ', ' + b.end + ') overlap');
      if (b.begin > at)
        fail(label + ': data bytes [' + at + ', ' + b.begin + ') ' + (a ? 'between tensors ' + q(a.name) + ' and '
          : 'before tensor ') + q(b.name) + ' are no tensor\'s: safetensors forbids holes');
      at = b.end;
      a = b;
    });
    if (at < data)
      fail(label + ': data bytes [' + at + ', ' + data + ') ' +
        (a ? 'after tensor ' + q(a.name) : 'of a file of no tensors') + ' are no tensor\'s: safetensors forbids holes');
    return map;
  }

  /* The source of a file whose bytes are all in memory (a plain view): reads need no waiting. A
     source is { label (the file as messages name it), size (bytes), bytes (the plain view, or null),
     read(begin, end) (else: a Promise of a plain view of those bytes, valid until the next read) }. */
  function memorySource(bytes, label) {
    return { label: label, size: TA_LENGTH.call(bytes), bytes: bytes, read: null };
  }

  /* A whole safetensors file in memory (a plain view, plainBytes): its header parsed and checked
     (parseHeader), its tensors' source the bytes themselves, named `label` (default "weights"). */
  function parseSafetensors(bytes, label) {
    const source = memorySource(bytes, label || 'weights'), n = source.size;
    const hlen = headerLength(bytes, n, source.label);
    return parseHeader(bytesAt(bytes, 8, hlen), n, source);
  }

  /* The entry of tensor `full` (its whole name) in `map` (parseHeader's, or the shards' merged),
     checked: present (else the message says `names`, the names the architecture reads), a dtype
     this reads, the expected shape (its size was checked with the header). */
  function tensorOf(map, full, shape, names) {
    const t = map.get(full);
    if (!t) fail((map.label || 'weights') + ': no tensor ' + q(full) + ' (' + names + ')');
    const label = t.source.label;
    if (!Object.prototype.hasOwnProperty.call(ST_DTYPES, t.dtype))
      fail(label + ': tensor ' + q(full) + ' has dtype ' + q(t.dtype) + '; ' + ST_READS);
    if (t.shape.join() !== shape.join() || t.shape.length !== shape.length)
      fail(label + ': tensor ' + q(full) + ' has shape [' + t.shape.join(', ') + '], expected [' +
        shape.join(', ') + ']');
    t.name = full;
    return t;
  }

  /* n values of dtype `dtype` at byte b of the plain view `bytes` (any alignment), as float32 into
     heap float index `at`: F32 copied, F16 and BF16 up-cast exactly. */
  function decodeAt(m, bytes, b, dtype, n, at) {
    let f32 = m.HEAPF32, i;
    if (dtype === 'F32') {
      TA_SET.call(m.HEAPU8, bytesAt(bytes, b, n * 4), at * 4);   /* both little-endian */
    } else if (dtype === 'F16') {
      const table = f16Table();
      for (i = 0; i < n; i++, b += 2) f32[at + i] = table[bytes[b] | bytes[b + 1] << 8];
    } else {   /* BF16: the top half of a float32 */
      const i32 = m.HEAP32;
      for (i = 0; i < n; i++, b += 2) i32[at + i] = (bytes[b] | bytes[b + 1] << 8) << 16;
    }
  }
