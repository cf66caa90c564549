/* engine-source.js - how a model's bytes reach the heap: TensorReads, the reads an architecture's
   copy asks for (a tensor's values as float32, or its bytes as stored), run at once over files in
   memory or in pieces over a Blob (blobSource) or a Node file (fileSource), in file order, with
   progress and cancelling between pieces. A source is what memorySource (engine-safetensors.js)
   describes (a file's source may have release(), called once the reads are done with it); the
   architecture never sees which source holds a tensor. */
  /* global bytesAt, cut, decodeAt, fail, q, ST_DTYPES, TA_LENGTH, TA_SET */
  /* exported blobSource, BLOB_SIZE, fileSource, isBlob, TensorReads */

  /* Bytes read at once from a Blob or a file (a tensor's value never straddles two reads). */
  const READ_PIECE = 32 << 20;

  /* The reads a copy asks for, in the order asked; nothing is read until run / runNow. Each one:
     { t (the tensor entry), b (its first byte in the file), n (values), size (bytes per value),
     at (a heap float index for f32, a heap byte offset for raw), raw }. */
  function TensorReads() { this.list = []; }

  /* n values of tensor t from value `from` on, as float32 into heap float index `at`. */
  TensorReads.prototype.f32 = function (t, from, n, at) { this._add(t, from, n, at, false); };

  /* n values of tensor t from value `from` on, their bytes as the file stores them (t.dtype,
     little-endian), into the heap from byte `at` on (any alignment). */
  TensorReads.prototype.raw = function (t, from, n, at) { this._add(t, from, n, at, true); };

  TensorReads.prototype._add = function (t, from, n, at, raw) {
    const size = ST_DTYPES[t.dtype], b = t.begin + from * size;
    if (!size || !Number.isSafeInteger(n) || n < 0 || !Number.isSafeInteger(from) || from < 0 || b + n * size > t.end ||
        !Number.isSafeInteger(at) || at < 0)
      fail('internal: a read of ' + n + ' values from value ' + from + ' of tensor ' + q(t.name) + ' is outside it');
    this.list.push({ t: t, b: b, n: n, size: size, at: at, raw: raw });
  };

  /* k values of read r, from its value `done` on, out of `bytes` (a plain view) at byte `off`. */
  function transfer(m, bytes, off, r, done, k) {
    if (r.raw) TA_SET.call(m.HEAPU8, bytesAt(bytes, off, k * r.size), r.at + done * r.size);
    else decodeAt(m, bytes, off, r.t.dtype, k, r.at + done);
  }

  /* A memory source's bytes, checked still whole (a caller may detach its buffer meanwhile). */
  function wholeBytes(source) {
    if (TA_LENGTH.call(source.bytes) !== source.size)
      fail(source.label + ': its buffer was detached or resized during the load');
    return source.bytes;
  }

  /* Every read at once: all its sources are in memory (loadModel({ weights, ... })). */
  TensorReads.prototype.runNow = function (m) {
    this.list.forEach(function (r) { transfer(m, wholeBytes(r.t.source), r.b, r, 0, r.n); });
  };

  /* Every read, source by source in file order: from memory at once, else in pieces of at most
     READ_PIECE bytes (more for a value larger than that), each piece read once and spread over the
     reads it holds. watch: { check() (throws once cancelled), progress(source, byte reached) }. */
  TensorReads.prototype.run = async function (m, watch) {
    const bySource = new Map();
    this.list.forEach(function (r, i) {
      r.i = i;
      const s = r.t.source;
      if (!bySource.has(s)) bySource.set(s, []);
      bySource.get(s).push(r);
    });
    for (const [source, list] of bySource) {
      list.sort(function (a, c) { return a.b - c.b || a.i - c.i; });
      if (source.bytes) {
        watch.check();
        const bytes = wholeBytes(source);
        list.forEach(function (r) { transfer(m, bytes, r.b, r, 0, r.n); });
        watch.progress(source, source.size);
        continue;
      }
      let piece = null, pb = 0, pe = 0;
      for (const r of list) {
        for (let done = 0; done < r.n;) {
          const b = r.b + done * r.size;
          if (piece === null || b < pb || b + r.size > pe) {   /* the next value is not in the piece */
            watch.check();
            pe = Math.min(source.size, b + Math.max(READ_PIECE, r.size));
            piece = await source.read(b, pe);
            pb = b;
            watch.check();
            watch.progress(source, pe);
          }
          const k = Math.min(r.n - done, Math.floor((pe - b) / r.size));
          transfer(m, piece, b - pb, r, done, k);
          done += k;
        }
      }
      if (source.release) source.release();
    }
  };

  /* Blobs (File too), through Blob.prototype's own getter and methods, never the caller's. */
  const BLOB_PROTO = typeof Blob === 'function' ? Blob.prototype : null;
  const BLOB_SIZE = BLOB_PROTO && Object.getOwnPropertyDescriptor(BLOB_PROTO, 'size').get;
  const BLOB_SLICE = BLOB_PROTO && BLOB_PROTO.slice, BLOB_READ = BLOB_PROTO && BLOB_PROTO.arrayBuffer;
  function isBlob(v) {
    if (!BLOB_SIZE || v === null || typeof v !== 'object') return false;
    try {
      BLOB_SIZE.call(v);   /* throws for anything but a real Blob */
      return true;
    } catch (e) {
      return false;
    }
  }

  /* The source of a Blob (a File): each read is Blob.slice(begin, end).arrayBuffer(). */
  function blobSource(blob, label) {
    const size = BLOB_SIZE.call(blob);
    return { label: label, size: size, bytes: null, read: function (begin, end) {
      return BLOB_READ.call(BLOB_SLICE.call(blob, begin, end)).then(function (buf) {
        const v = new Uint8Array(buf);
        if (TA_LENGTH.call(v) !== end - begin)
          fail(label + ': read ' + TA_LENGTH.call(v) + ' bytes at byte ' + begin + ', expected ' + (end - begin) +
            ' (did the file change?)');
        return v;
      }, function (e) {
        fail(label + ': could not be read (' + cut(String(e && e.message)) + '): did the file change or go away?');
      });
    } };
  }

  /* The source of a file opened with Node's fs.promises (handle: a FileHandle) of `size` bytes:
     each read fills one buffer of its own, reused (the view returned is valid until the next read)
     until release() drops it (a model of many shards holds one piece at a time). */
  function fileSource(handle, size, label) {
    let buf = null;
    async function read(begin, end) {
      const n = end - begin;
      if (!buf || buf.length < n) buf = new Uint8Array(n);
      for (let got = 0; got < n;) {
        const r = await handle.read(buf, got, n - got, begin + got);
        if (!r.bytesRead)
          fail(label + ': the file ends at byte ' + (begin + got) + ', before its ' + size + ' bytes (did it change?)');
        got += r.bytesRead;
      }
      return buf.subarray(0, n);
    }
    return { label: label, size: size, bytes: null, read: read, release: function () { buf = null; } };
  }
