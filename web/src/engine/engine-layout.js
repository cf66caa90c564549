/* engine-layout.js - a call's Layout in the heap block: its inputs, C structs (words written
   from ABI) and outputs, their addresses for an arena, views of the outputs, and the refusal of
   a call the heap cannot hold (outOfMemory). */
  /* global ABI, fail, HEAP_MAX */
  /* exported Layout, outOfMemory */

  /* A call's layout in the heap block: inputs, then descriptor records, then the outputs
     back to back (one copy brings them all out). Layouts are cached per call signature
     (shapes, flags, which optional inputs are given), so a repeated call only checks and
     copies its arrays: the layout, its addresses and its descriptor words are reused. */
  function Layout(names, what) {
    this.what = what;       /* the call and its sizes, for messages: 'ffn (L 7, dModel 8, dFF 32)' */
    this.bytes = 0;
    this.off = {};
    this.ins = [];          /* per input { heap: its name in the heap, prop: the option, n: its
                               values, required, kind: 'f' floats or 'm' key mask } */
    this.outs = [];         /* per output { heap, at: its word offset within the outputs, n,
                               path: where it sits in the result, type: 'Float32Array' or
                               'Int32Array' } */
    this.outFloats = 0;
    this.outAt = 0;
    this.records = [];      /* per record { heap, words } */
    this.names = names;     /* every pointer name the call passes (absent ones are 0) */
    this.base = -1;
    this.p = null;          /* name -> address for the current arena */
    this.words = null;      /* the records' words for the current arena */
    this._views = null;     /* see views() */
    this._all = null;
    this._viewHeap = null;
    this._viewStart = -1;
    this.make = null;       /* arrays in output order -> a fresh result (else built by path) */
    this.gate = null;       /* gated FFN: { path: where its result sits, hidden: its index in outs } */
    this.norm = null;       /* norms: { kind, L, d } of the call */
    this.work = 0;          /* moe: the workspace's floats */
    this._intoArrs = null;  /* see intoPlan() */
    this._intoView = null;
  }
  /* Sizes are doubles here (never cut to 32 bits); finish() refuses what the heap cannot hold. */
  Layout.prototype.add = function (name, nbytes) {
    this.off[name] = this.bytes;
    this.bytes += Math.ceil(nbytes / 16) * 16;
  };
  /* kind 'f': float array (Float32Array, Float64Array, array of finite numbers);
     'm': key mask (truthy -> 1), one byte per value */
  Layout.prototype.input = function (name, prop, n, required, kind) {
    this.add(name, kind === 'm' ? n : n * 4);
    this.ins.push({ heap: name, prop: prop, n: n, required: required, kind: kind || 'f' });
  };
  /* path: where the array sits in the result, e.g. ['out'] or ['ffn', 'hidden']; int: an
     Int32Array (C's int32_t), else a Float32Array. Either is 4 bytes a value, so the outputs stay
     one block of words, copied as floats: bit for bit (same-type typed array copies keep bits). */
  Layout.prototype.output = function (name, n, path, int) {
    this.outs.push({ heap: name, at: this.outFloats, n: n, path: path, type: int ? 'Int32Array' : 'Float32Array' });
    this.outFloats += n;
  };
  /* A record of 32-bit words: ints, pointer names {p: name}, floats {f: value}. */
  Layout.prototype.record = function (name, words) {
    this.add(name, words.length * 4);
    this.records.push({ heap: name, words: words });
  };
  /* A C struct (a name in ABI) as a record: values by field name, as for record(), or
     {s: struct, v: values} for a nested struct; fields not named stay 0 (C's default). */
  Layout.prototype.struct = function (name, type, values) {
    const words = [];
    for (let i = 0; i < ABI[type].sizeof >> 2; i++) words.push(0);
    structWords(words, type, 0, values);
    this.record(name, words);
  };
  function structWords(words, type, at, values) {
    const t = ABI[type];
    for (const k in values) {
      if (k === 'sizeof' || !(k in t)) fail('internal: ' + type + ' has no field ' + k);
      const v = values[k];
      if (v !== null && typeof v === 'object' && 's' in v) structWords(words, v.s, at + t[k], v.v);
      else words[(at + t[k]) >> 2] = v;
    }
  }
  Layout.prototype.finish = function () {
    /* (pointer, length) of every float input, for one NaN/infinity check in wasm */
    const list = [];
    this.floatIns = [];
    this.floatAt = [];      /* their indices in ins */
    for (let i = 0; i < this.ins.length; i++)
      if (this.ins[i].kind === 'f') {
        list.push({ p: this.ins[i].heap }, this.ins[i].n);
        this.floatIns.push(this.ins[i]);
        this.floatAt.push(i);
      }
    if (list.length) this.record('finite', list);
    this.outAt = this.bytes;
    this.bytes += this.outFloats * 4;
    /* a call that needs more than the heap can be is refused before anything is allocated */
    const need = this.bytes + ABI.bl_error.sizeof;
    if (need > HEAP_MAX) outOfMemory(this, need, false);
    return this;
  };

  /* Refuses a call of `need` bytes: more than the heap can hold (or, when `tried`, than malloc
     found), naming the call, its sizes and its largest arrays. */
  function outOfMemory(lay, need, tried) {
    let parts = [], i;
    if (typeof lay === 'string') lay = { what: lay, ins: [], outs: [] };
    for (i = 0; i < lay.ins.length; i++)
      parts.push({ name: lay.ins[i].prop, bytes: lay.ins[i].kind === 'm' ? lay.ins[i].n : lay.ins[i].n * 4 });
    for (i = 0; i < lay.outs.length; i++) parts.push({ name: lay.outs[i].path.join('.'), bytes: lay.outs[i].n * 4 });
    parts.sort(function (a, b) { return b.bytes - a.bytes; });
    fail('out of memory: ' + lay.what + ' needs ' + need + ' bytes of wasm memory, ' +
      (tried ? 'which the heap could not provide' : 'more than the ' + HEAP_MAX + ' (4 GiB) the heap can hold') +
      (parts.length ? ' (largest: ' + parts.slice(0, 3).map(function (p) {
        return p.name + ' (' + p.bytes + ' bytes)';
      }).join(', ') + ')' : ''));
  }
  /* Views of the outputs in the heap, one per output and one of them all (kept until the arena
     moves or the memory grows). */
  Layout.prototype.views = function (heap, start) {
    if (this._viewHeap === heap && this._viewStart === start) return this._views;
    const v = [];
    for (let i = 0; i < this.outs.length; i++) {
      const d = this.outs[i], at = start + d.at;
      v.push(d.type === 'Int32Array' ? new Int32Array(heap.buffer, heap.byteOffset + at * 4, d.n)
        : heap.subarray(at, at + d.n));
    }
    this._views = v;
    this._all = heap.subarray(start, start + this.outFloats);
    this._viewHeap = heap;
    this._viewStart = start;
    return v;
  };
  /* Addresses and record words for an arena at `base` (recomputed only when it moves). */
  Layout.prototype.at = function (base) {
    if (base === this.base) return this.p;
    let p = {}, i, j, off = this.off;
    for (i = 0; i < this.names.length; i++) p[this.names[i]] = 0;
    for (const k in off) p[k] = base + off[k];
    for (i = 0; i < this.outs.length; i++) p[this.outs[i].heap] = base + this.outAt + this.outs[i].at * 4;
    const recs = this.records, end = recs[recs.length - 1];
    const first = recs.length ? off[recs[0].heap] : 0, last = recs.length ? off[end.heap] + end.words.length * 4 : 0;
    const buf = new ArrayBuffer(last - first), i32 = new Int32Array(buf), f32 = new Float32Array(buf);
    for (i = 0; i < this.records.length; i++) {
      const at = (off[recs[i].heap] - first) >> 2, w = recs[i].words;
      for (j = 0; j < w.length; j++) {
        const v = w[j];
        if (v !== null && typeof v === 'object') {
          if ('f' in v) f32[at + j] = v.f;
          else i32[at + j] = p[v.p];
        } else i32[at + j] = v | 0;
      }
    }
    this.words = i32;
    this.wordsAt = base + first;
    this.inAt = this.ins.map(function (d) { return p[d.heap]; });   /* addresses, by input */
    this.base = base;
    this.p = p;
    return p;
  };
