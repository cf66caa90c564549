/* engine.js - the BlockLens JavaScript API: the only code that touches the wasm heap.
   Appended to Emscripten's output (the BlockLensCore* factories) inside engine-pre.js's
   scope; the format readers (engine-safetensors.js, engine-vocab.js), GPT-2 (engine-gpt2.js),
   trained models (engine-model.js) and engine-load.js (parameter counts, random streams,
   load) follow it.
   Every call checks its arguments, copies them into one heap block (kept and reused by the
   next call, so the heap does not grow per call), calls C and copies the results out as
   caller-owned Float32Arrays, or into the arrays of a previous result passed as `into`. */
  /* exported ABI, ACTIVATIONS, args, CONFIG_KEYS, COUNT_KEYS, cut, dim, elems, Engine, fail */
  /* exported flag, HEAP_MAX, MAX_ELEMS, oneOf, optionNames, outOfMemory, rethrow, show */
  /* exported TA_LENGTH, TA_TAG */

  const ACTIVATIONS = ['relu', 'gelu', 'gelu_tanh', 'silu', 'identity', 'swiglu', 'geglu'];
  const GATED = { swiglu: 1, geglu: 1 };
  const MAX_DIM = 65536, MAX_ELEMS = 1 << 28;
  /* Fresh results of at most POOL_MAX bytes are carved out of one shared POOL_BYTES buffer (as
     Node's Buffer pool does): one ArrayBuffer per call cost more than the call itself at the
     page's sizes. A full pool is dropped for a new one; it lives as long as a result uses it. */
  const POOL_BYTES = 16384, POOL_MAX = 4096;
  /* The C structs the wrapper fills or reads, and the fields of each it names (nested structs
     are one field). Their sizes and byte offsets are not written here: they are read from the
     wasm module at load (bl__abi_layout, src/wasm_abi.c), and a module that lacks one of these
     fails to load. Fields not named stay 0 in what the wrapper writes (C's default). */
  const ABI_USES = {
    bl_error: 'message',
    bl_rng: '',   /* copied whole */
    bl_ffn_desc: 'L d_model d_ff activation x w1 b1 w3 b3 w2 b2',
    bl_ffn_out: 'hidden up activated out',
    bl_attention_desc: 'L d_model n_heads causal no_scale key_mask x wq bq wk bk wv bv wo bo',
    bl_attention_out: 'q k v scores weights context concat out',
    bl_block_desc: 'L d_model n_heads d_ff activation pre_ln causal no_scale key_mask eps x wq bq wk bk ' +
      'wv bv wo bo ln1_gamma ln1_beta ln2_gamma ln2_beta w1 b1 w3 b3 w2 b2',
    bl_block_out: 'attn ffn resid1 norm1 resid2 norm2 out',
    bl_moe_desc: 'L d_model d_ff n_experts top_k activation x wr w1 b1 w3 b3 w2 b2',
    bl_moe_out: 'logits probs top_index top_weight load out',
    bl_decoder_layer: 'ln1_gamma ln1_beta wq bq wk bk wv bv wo bo ln2_gamma ln2_beta w1 b1 w2 b2',
    bl_decoder_desc: 'n_layers d_model n_heads d_ff vocab n_positions activation eps L ids wte wpe layers ' +
      'lnf_gamma lnf_beta',
    bl_decoder_layer_out: 'norm1 q k v scores weights context concat attn_out resid1 norm2 hidden ' +
      'activated ffn_out resid2',
    bl_decoder_out: 'logits embed hidden layers'
  };
  /* The layout: { struct: { sizeof, field: byte offset } }, read from the first module loaded
     (every build in this file is the same C for wasm32; a later one must agree). */
  let ABI = null;
  /* bl_model_config's fields, in order (see src/wasm_abi.c). */
  const CONFIG_KEYS = ['vocab', 'maxPositions', 'typeVocab', 'dModel', 'nLayers', 'nHeads',
    'nKvHeads', 'dFF', 'gated', 'norm', 'attnBias', 'ffnBias', 'embedNorm', 'finalNorm',
    'lmHead', 'pooler', 'nExperts', 'topK', 'nDecLayers'];
  const COUNT_KEYS = ['embeddings', 'attention', 'ffn', 'norms', 'other', 'total', 'active',
    'attentionPerLayer', 'ffnPerLayer'];
  /* C argument names -> the JS names users wrote, for messages that come from C. */
  const C_NAMES = { d_model: 'dModel', n_heads: 'nHeads', d_ff: 'dFF', n_kv_heads: 'nKvHeads',
    n_experts: 'nExperts', top_k: 'topK', n_layers: 'nLayers', n_dec_layers: 'nDecLayers',
    max_positions: 'maxPositions', type_vocab: 'typeVocab', key_mask: 'keyMask',
    ln1_gamma: 'ln1Gamma', ln1_beta: 'ln1Beta', ln2_gamma: 'ln2Gamma', ln2_beta: 'ln2Beta',
    w1: 'W1', w2: 'W2', w3: 'W3', wq: 'Wq', wk: 'Wk', wv: 'Wv', wo: 'Wo', wr: 'Wr',
    top_index: 'topIndex', top_weight: 'topWeight' };

  /* The most wasm memory there can be (-sMAXIMUM_MEMORY in cmake/wasm.cmake): a call that needs
     more is refused before anything is allocated (sizes are counted in doubles, never cut). */
  const HEAP_MAX = 2147483648;

  /* Our own errors, so that an exception thrown by the caller's code (a getter, a Proxy trap)
     while its arguments are read can be told apart and reported as a BlockLens Error. */
  const OURS = new WeakSet();
  function fail(message) {
    const e = new Error('BlockLens: ' + message);
    OURS.add(e);
    throw e;
  }

  /* Rethrows e: as it is when it is ours, else as a BlockLens Error about reading fn's
     arguments, with e as its cause. */
  function rethrow(e, fn) {
    if (OURS.has(e)) throw e;
    let what;
    try {
      what = e instanceof Error ? String(e.name) + ': ' + String(e.message) : show(e);
    } catch (e2) {
      what = 'an exception';
    }
    const err = new Error('BlockLens: ' + fn + ': reading its arguments threw ' + cut(what));
    err.cause = e;
    OURS.add(err);
    throw err;
  }

  /* Intrinsics of typed arrays, so that a subclass or a Proxy cannot lie about what it holds:
     TA_TAG(v) is v's kind ('Float32Array', ...) or undefined for anything but a typed array
     (a Proxy, a DataView, a primitive); TA_LENGTH(v) its real length (0 once detached). */
  const TA_PROTO = Object.getPrototypeOf(Int8Array.prototype);
  function taGetter(name) { return Object.getOwnPropertyDescriptor(TA_PROTO, name).get; }
  const TA_TAG = taGetter(Symbol.toStringTag), TA_LENGTH = taGetter('length');
  const TA_BUFFER = taGetter('buffer'), TA_OFFSET = taGetter('byteOffset'), TA_SET = TA_PROTO.set;

  /* A quoted string: at most QUOTE_MAX characters of it. */
  const QUOTE_MAX = 40;
  function cut(s) { return s.length > QUOTE_MAX ? s.slice(0, QUOTE_MAX) + '\u2026' : s; }

  /* A value as a message shows it, without running any of the caller's code: numbers as JS
     writes them, strings quoted and cut, the kind of anything else. */
  function show(v) {
    switch (typeof v) {
      case 'number': case 'boolean': case 'undefined': return String(v);
      case 'string': return '"' + cut(v) + '" (a string)';
      case 'bigint': return cut(String(v)) + 'n';
      case 'symbol': return 'a symbol';
      case 'function': return 'a function';
    }
    if (v === null) return 'null';
    const tag = TA_TAG.call(v);
    if (tag) return 'a ' + tag;
    try {
      if (Array.isArray(v)) return 'an array';   /* throws for a revoked Proxy */
    } catch (e) { /* an object */ }
    return 'an object';
  }

  /* A call's option names: the list (for messages), a Set of the names it takes (the list
     and `more`, names refused with a message of their own), `read`, which copies the value of
     each of them from an options object into an object literal (a loop of keyed stores costs
     more than a whole small call), and `last`, the names of the last options found all known.
     Checked once here: read copies exactly those names. */
  function optionNames(list, read, more) {
    const all = list.concat(more || []);
    if (Object.keys(read({})).join() !== all.join()) fail('internal: the option reader of ' + list + ' disagrees');
    return { list: list, has: new Set(all), read: read, last: null };
  }

  /* A call's options, read once: the value of every known name (inherited ones too) into a
     plain object, after checking that every own enumerable name is a known one. The caller's
     getters and Proxy traps run here; everything after reads the copy. */
  function args(o, fn, known) {
    try {
      if (o === null || typeof o !== 'object' || Array.isArray(o)) fail(fn + ' expects an options object');
      let keys = Object.keys(o), last = known.last, n = keys.length, i = 0;
      if (last !== null && last.length === n) for (; i < n && keys[i] === last[i]; i++);
      if (last === null || i !== n) {   /* not the names the last call had: look each up */
        for (i = 0; i < n; i++)
          if (!known.has.has(keys[i]))
            fail(fn + ' has no option "' + cut(keys[i]) + '" (known: ' + known.list.join(', ') + ')');
        known.last = keys;
      }
      return known.read(o);
    } catch (e) {
      rethrow(e, fn);
    }
  }

  /* A size v (the option `name`): an integer in [1, MAX_DIM]. Values are passed, not
     looked up by name: a load with a varying name costs more than the check. */
  function dim(v, name) {
    if (typeof v !== 'number') fail(name + ' must be an integer between 1 and ' + MAX_DIM + ', not ' + show(v));
    if (!Number.isInteger(v) || v < 1 || v > MAX_DIM)
      fail(name + ' (' + v + ') must be an integer between 1 and ' + MAX_DIM);
    return v;
  }

  function elems(name, a, b) {
    if (a * b > MAX_ELEMS) fail(name + ' (' + a + ' x ' + b + ') exceeds ' + MAX_ELEMS + ' values');
    return a * b;
  }

  function flag(v, name, fallback) {
    if (v === undefined) return fallback;
    if (typeof v !== 'boolean') fail(name + ' must be true or false, not ' + show(v));
    return v;
  }

  /* One of a list of strings. */
  function oneOf(v, name, list) {
    if (typeof v !== 'string') fail(name + ' must be a string (one of ' + list.join(', ') + '), not ' + show(v));
    const i = list.indexOf(v);
    if (i < 0) fail(name + ' "' + cut(v) + '" is not one of ' + list.join(', '));
    return i;
  }

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
      (tried ? 'which the heap could not provide' : 'more than the ' + HEAP_MAX + ' (2 GiB) the heap can hold') +
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

  /* The value v of the float array argument `name` (n values): a Float32Array or Float64Array
     (by its real kind and length, which a subclass cannot fake), used as it is, or an array of
     finite numbers, read once into a Float64Array; null when absent. NaN and infinity (also as
     float32: 1e39) are found in wasm after the copy (_run). */
  function floats(v, name, n, required) {
    if (v === undefined || v === null) {
      if (required) fail(name + ' is required (' + n + ' numbers)');
      return null;
    }
    const tag = TA_TAG.call(v);
    if (tag === 'Float32Array' || tag === 'Float64Array') {
      const len = TA_LENGTH.call(v);
      if (len !== n) fail(name + ' has ' + len + ' values, expected ' + n);
      return v;
    }
    if (!Array.isArray(v)) fail(name + ' must be a Float32Array or an array of numbers, not ' + show(v));
    const m = v.length;
    if (m !== n) fail(name + ' has ' + show(m) + ' values, expected ' + n);
    const copy = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const x = v[i];
      if (typeof x !== 'number' || !isFinite(x)) notFinite(name, i, x);
      copy[i] = x;
    }
    return copy;
  }

  function notFinite(name, i, v) {
    if (typeof v === 'number' && isFinite(v)) fail(name + '[' + i + '] is ' + v + ', beyond float32\'s range (+-3.4e38)');
    fail(name + '[' + i + '] is ' + show(v) + ', not a finite number');
  }

  /* The key mask as 0/1 bytes (truthy -> 1), read once: an array or any typed array of L
     values. A new copy per call: a getter may call the engine again before this one is used. */
  function keyMask(km, L) {
    const n = TA_TAG.call(km) ? TA_LENGTH.call(km) : Array.isArray(km) ? km.length : -1;
    if (n !== L) fail('keyMask must be an array of ' + L + ' booleans or 0/1 values');
    const mask = new Uint8Array(L);
    for (let j = 0; j < L; j++) mask[j] = km[j] ? 1 : 0;
    return mask;
  }

  function Engine(mod) {
    useAbi(mod);
    this._m = mod;
    this._arena = 0;
    this._arenaBytes = 0;
    this._layouts = new Map();
    this._last = {};
    this._pool = null;            /* see POOL_BYTES */
    this._poolF32 = null;
    this._poolUsed = POOL_BYTES;
    this.activations = ACTIVATIONS.slice();
    const n = mod._bl_preset_count(), names = [];
    for (let i = 0; i < n; i++) names.push(mod.UTF8ToString(mod._bl_preset_name(i)));
    this.presets = names;
  }

  /* The struct layout module m was built with, as ABI has it: bl__abi_layout's numbers (per
     struct its sizeof, then each field's offsetof) named by bl__abi_layout_names'
     "struct field field;struct ...". Read with malloc / free: the call block needs ABI. */
  function abiOf(m) {
    const n = m._bl__abi_layout(0, 0), p = m._malloc(n * 4), table = {};
    if (!p) fail('out of memory reading the wasm struct layout');
    let nums, at = 0;
    try {
      m._bl__abi_layout(p, n);
      nums = Array.from(m.HEAP32.subarray(p >> 2, (p >> 2) + n));
    } finally {
      m._free(p);
    }
    m.UTF8ToString(m._bl__abi_layout_names()).split(';').forEach(function (s) {
      const f = s.split(' '), t = table[f[0]] = { sizeof: nums[at++] };
      for (let i = 1; i < f.length; i++) t[f[i]] = nums[at++];
    });
    if (at !== n) fail('the wasm struct layout has ' + n + ' numbers for ' + at + ' names: rebuild web/dist/blocklens.js');
    return table;
  }

  /* Throws unless layout `table` has every struct and field of ABI_USES, each field a 32-bit
     word inside its struct (the wrapper reads and writes words). */
  function checkAbi(table) {
    Object.keys(ABI_USES).forEach(function (s) {
      const t = table[s];
      if (!t || !(t.sizeof > 0) || t.sizeof % 4)
        fail('the wasm module has no struct ' + s + ' (the wrapper uses it): rebuild web/dist/blocklens.js');
      ABI_USES[s].split(' ').forEach(function (f) {
        if (!f) return;
        if (!Object.prototype.hasOwnProperty.call(t, f) || f === 'sizeof')
          fail('the wasm module\'s struct ' + s + ' has no field ' + f + ' (the wrapper uses it): rebuild web/dist/blocklens.js');
        if (!(t[f] >= 0 && t[f] + 4 <= t.sizeof) || t[f] % 4)
          fail('the wasm module\'s ' + s + '.' + f + ' is at byte ' + t[f] + ', not a 32-bit word of its ' + t.sizeof + ' bytes');
      });
    });
  }

  /* Reads and checks module m's layout; the first one becomes ABI. */
  function useAbi(m) {
    const table = abiOf(m);
    checkAbi(table);
    if (ABI === null) ABI = table;
    else if (JSON.stringify(table) !== JSON.stringify(ABI))
      fail('this build\'s struct layout differs from the one loaded before: rebuild web/dist/blocklens.js');
  }

  /* The loaded layout, a copy (tests pin it); _checkAbi(table) runs the load check on a table. */
  Engine.prototype._abi = function () { return JSON.parse(JSON.stringify(ABI)); };
  Engine.prototype._checkAbi = function (table) { checkAbi(table); };

  /* Size of the wasm memory in bytes (it grows on demand and never shrinks). */
  Engine.prototype.heapBytes = function () { return this._m.HEAPU8.length; };

  /* Runs fn(base, module, errPtr) on the heap block (see _block); `what` names the call. */
  Engine.prototype._call = function (bytes, fn, what) {
    const base = this._block(bytes, what);
    return fn(base, this._m, base + bytes);
  };

  /* The heap block for a call of `bytes` plus an error record: kept for the next call and only
     replaced by a larger one, so repeated calls neither malloc nor grow the heap. `about` (a
     Layout, or a string naming the call) is what an out-of-memory message names. Requests past
     the heap's maximum are refused before the old block is freed. */
  Engine.prototype._block = function (bytes, about) {
    const m = this._m, need = bytes + ABI.bl_error.sizeof;
    if (need > this._arenaBytes) {
      if (need > HEAP_MAX) outOfMemory(about || 'this call', need, false);
      if (this._arena) m._free(this._arena);
      this._arenaBytes = 0;
      this._arena = m._malloc(Math.max(need, 1 << 16));
      if (!this._arena) outOfMemory(about || 'this call', need, true);
      this._arenaBytes = Math.max(need, 1 << 16);
    }
    return this._arena;
  };

  Engine.prototype._check = function (status, errPtr) {
    if (status === 0) return;
    let msg = this._m.UTF8ToString(errPtr + ABI.bl_error.message);
    msg = msg.replace(/\b[a-z0-9]+(?:_[a-z0-9]+)+\b|\bw[1-3qkvor]\b/g, function (w) {
      return C_NAMES[w] || w;
    });
    fail(msg || ('status ' + status));
  };

  /* Runs a call with a finished layout: reads and checks every input (and `into`) before
     anything is written, copies the inputs in, writes the records, calls invoke(module,
     addresses, errPtr) and returns the outputs: views of one fresh buffer (or of the pool), or
     copied into the arrays of `into` (a previous result of the same call, reused so that
     repeated calls allocate nothing). `fn` names the call for messages; invoke also gets the
     layout and `arg`. */
  Engine.prototype._run = function (lay, o, invoke, into, fn, arg) {
    let ins = lay.ins, n = ins.length, vals = new Array(n), outs = lay.outs, dst = null, whole = null;
    let late = false, i, d;
    /* The caller's code (getters, Proxy traps, elements of plain arrays) runs in this block only:
       `into` is read first and checked after the inputs (their errors come first). */
    try {
      if (into !== undefined) dst = readInto(into, lay);
      for (i = 0; i < n; i++) {
        d = ins[i];
        const value = o[d.prop];
        vals[i] = d.kind === 'm' ? keyMask(value, d.n) : floats(value, d.prop, d.n, d.required);
        if (vals[i] !== value) late = true;   /* a copy: the caller's code may have run */
      }
    } catch (e) {
      rethrow(e, fn);
    }
    /* An input checked before the caller's code ran may have been detached or resized by it. */
    if (late)
      for (i = 0; i < n; i++)
        if (ins[i].kind === 'f' && vals[i] !== null && TA_LENGTH.call(vals[i]) !== ins[i].n)
          fail(ins[i].prop + ' was detached or resized while the arguments were read');
    if (dst !== null) whole = intoPlan(lay, dst);
    const m = this._m, base = this._block(lay.bytes, lay), p = lay.at(base), heap = m.HEAPF32;
    const inAt = lay.inAt;
    for (i = 0; i < n; i++) {
      if (ins[i].kind === 'f') heap.set(vals[i], inAt[i] >> 2);
      else m.HEAPU8.set(vals[i], inAt[i]);
    }
    if (lay.records.length) m.HEAP32.set(lay.words, lay.wordsAt >> 2);
    /* NaN / infinity in a float input (as float32: a Float64Array's 1e300 is one too) */
    const bad = lay.floatIns.length ? m._bl__first_nonfinite_of(p.finite, lay.floatIns.length) : -1;
    if (bad >= 0) {
      d = lay.floatIns[bad];
      const at2 = m._bl__first_nonfinite(p[d.heap], d.n);
      notFinite(d.prop, at2, vals[lay.floatAt[bad]][at2]);
    }
    this._check(invoke(m, p, base + lay.bytes, lay, arg), base + lay.bytes);
    /* re-read HEAPF32: memory may have grown */
    const views = lay.views(m.HEAPF32, (base + lay.outAt) >> 2);
    if (dst) {
      if (whole) whole.set(lay._all);
      else for (i = 0; i < outs.length; i++) TA_SET.call(dst[i], views[i]);
      const gateTo = dst[outs.length + 1];   /* a gated result without its gate gets it (= hidden) */
      if (gateTo) gateTo.gate = dst[lay.gate.hidden];
      return into;
    }
    let bytes = lay.outFloats * 4, buf, off;
    if (bytes <= POOL_MAX) {
      /* a new pool when this one is full, or gone: transferred to a worker with a result */
      if (this._poolUsed + bytes > POOL_BYTES || this._pool.byteLength === 0) {
        this._pool = new ArrayBuffer(POOL_BYTES);
        this._poolF32 = new Float32Array(this._pool);
        this._poolUsed = 0;
      }
      buf = this._pool;
      off = this._poolUsed;
      this._poolUsed += bytes;
      this._poolF32.set(lay._all, off >> 2);
    } else {
      buf = lay._all.slice().buffer;
      off = 0;
    }
    if (lay.make) {
      const arrs = new Array(outs.length);
      for (i = 0; i < outs.length; i++) arrs[i] = outView(buf, off, outs[i]);
      return lay.make(arrs);
    }
    const res = {};
    for (i = 0; i < outs.length; i++) {
      const path = outs[i].path, v = outView(buf, off, outs[i]);
      if (path.length === 1) res[path[0]] = v;
      else (res[path[0]] || (res[path[0]] = {}))[path[1]] = v;
    }
    if (lay.gate) {   /* gated: the hidden layer is also called the gate */
      const g = lay.gate.path.length ? res[lay.gate.path[0]] : res;
      g.gate = g.hidden;
    }
    return res;
  };

  /* Output d (a Layout.outs entry) of a fresh result whose outputs start at byte off of buf. */
  function outView(buf, off, d) {
    return d.type === 'Int32Array' ? new Int32Array(buf, off + d.at * 4, d.n) : new Float32Array(buf, off + d.at * 4, d.n);
  }

  /* The arrays of `into` that receive each output, read once (checked by intoPlan), or false
     when `into` is no object. For a gated FFN two more entries: its gate as read, and the
     object to add the gate to when it is absent and the object can take one (else null). */
  function readInto(into, lay) {
    if (into === null || typeof into !== 'object') return false;
    let outs = lay.outs, dst = new Array(outs.length + 2), parts = null, i;
    for (i = 0; i < outs.length; i++) {
      let path = outs[i].path, holder = into;
      if (path.length === 2) {
        parts = parts || {};
        holder = parts[path[0]];
        if (holder === undefined) {
          holder = into[path[0]];
          if (holder === null || typeof holder !== 'object') holder = null;
          parts[path[0]] = holder;
        }
      }
      dst[i] = holder ? holder[path[path.length - 1]] : undefined;
    }
    dst[i + 1] = null;
    if (lay.gate) {
      const gh = lay.gate.path.length ? parts[lay.gate.path[0]] : into;
      if (gh) {
        dst[i] = gh.gate;
        if (dst[i] === undefined && Object.isExtensible(gh)) dst[i + 1] = gh;
      }
    }
    return dst;
  }

  /* Checks the arrays of `into` (from readInto): real Float32Arrays of the right lengths that do
     not overlap, a gated FFN's gate its hidden array or absent. Returns one view over them all
     when they sit back to back in one buffer as the outputs do in the heap (any small fresh
     result does), so one copy fills them all; else null. For the same arrays as the last call
     (a typed array never moves) only their lengths are checked again (a buffer can be
     detached or resized) and the view is reused; kept for small results only, so the layout
     cache holds on to little memory. */
  function intoPlan(lay, dst) {
    if (dst === false) fail('into must be a previous result of the same call');
    let last = lay._intoArrs, outs = lay.outs, n = outs.length, same = last !== null, i, j;
    for (i = 0; i < n && same; i++) same = dst[i] === last[i];
    for (i = 0; i < n; i++) {
      if (!same && TA_TAG.call(dst[i]) !== outs[i].type)
        fail('into.' + outs[i].path.join('.') + ' must be a' + (outs[i].type === 'Int32Array' ? 'n ' : ' ') +
          outs[i].type + ' (pass a previous result of the same call)');
      const len = TA_LENGTH.call(dst[i]);
      if (len !== outs[i].n) fail('into.' + outs[i].path.join('.') + ' has ' + len + ' values, expected ' + outs[i].n);
    }
    if (lay.gate && dst[n] !== undefined && dst[n] !== dst[lay.gate.hidden]) {
      const at = lay.gate.path.length ? lay.gate.path[0] + '.' : '';
      fail('into.' + at + 'gate must be into.' + at + 'hidden (the same array, as in a result) or absent');
    }
    if (same) return lay._intoView;
    const buf = new Array(n), off = new Array(n);
    for (i = 0; i < n; i++) {
      buf[i] = TA_BUFFER.call(dst[i]);
      off[i] = TA_OFFSET.call(dst[i]);
    }
    for (i = 0; i < n; i++)
      for (j = i + 1; j < n; j++)
        if (buf[i] === buf[j] && off[i] < off[j] + outs[j].n * 4 && off[j] < off[i] + outs[i].n * 4)
          fail('into.' + outs[i].path.join('.') + ' and into.' + outs[j].path.join('.') +
            ' overlap (pass a previous result of the same call)');
    for (i = 1; i < n; i++)
      if (buf[i] !== buf[0] || off[i] !== off[0] + outs[i].at * 4) break;
    const view = i === n ? new Float32Array(buf[0], off[0], lay.outFloats) : null;
    if (lay.outFloats * 4 <= POOL_MAX) {
      lay._intoArrs = dst;
      lay._intoView = view;
    }
    return view;
  }

  /* The layout cache: a call signature -> its Layout. Bounded, so odd callers that change
     sizes every call cannot make it grow without end. Callers first try _same (this op's
     previous signature) so that a repeated call creates no build closure. */
  Engine.prototype._same = function (op, a, b, c, code) {
    const last = this._last[op];
    return last && last.sig[0] === a && last.sig[1] === b && last.sig[2] === c && last.sig[3] === code
      ? last : null;
  };
  Engine.prototype._layout = function (op, a, b, c, code, build) {
    let key = op + ':' + a + ',' + b + ',' + c + ':' + code, lay = this._layouts.get(key);
    if (!lay) {
      if (this._layouts.size >= 64) this._layouts.clear();
      lay = build().finish();
      lay.sig = [a, b, c, code];
      this._layouts.set(key, lay);
    }
    this._last[op] = lay;
    return lay;
  };

  function given(o, k) { return o[k] !== undefined && o[k] !== null ? 1 : 0; }

  function activationOf(o) {
    return o.activation === undefined ? 0 : oneOf(o.activation, 'activation', ACTIVATIONS);
  }

  /* Gated FFNs accept Llama-style names: Wg/bg = W1/b1, Wu/bu = W3/b3, Wd/bd = W2/b2. */
  const FFN_ALIAS = { Wg: 'W1', bg: 'b1', Wu: 'W3', bu: 'b3', Wd: 'W2', bd: 'b2' };
  const FFN_PLAIN = { W1: 'W1', b1: 'b1', W3: 'W3', b3: 'b3', W2: 'W2', b2: 'b2' };
  function ffnWeights(o) {
    if (o.Wg == null && o.bg == null && o.Wu == null && o.bu == null && o.Wd == null && o.bd == null)
      return FFN_PLAIN;   /* the common case */
    const alias = FFN_ALIAS, r = {};
    for (const k in alias) {
      if (o[k] != null && o[alias[k]] != null) fail('give ' + k + ' or ' + alias[k] + ', not both');
      r[alias[k]] = o[k] != null ? k : alias[k];
    }
    return r;
  }

  /* The FFN part of a call: checks that need no arrays, and its cache-key fragment. */
  function ffnSig(o, L, D, F) {
    const act = activationOf(o), gated = !!GATED[ACTIVATIONS[act]], n = ffnWeights(o);
    elems('hidden (L x dFF)', L, F);
    elems(n.W1 + ' (dModel x dFF)', D, F);
    if (!gated && (o[n.W3] != null || o[n.b3] != null))
      fail(n.W3 + '/' + n.b3 + ' are only used by gated activations (swiglu, geglu), not ' + ACTIVATIONS[act]);
    let key = n === FFN_PLAIN ? act * 8 + (o.b1 != null ? 4 : 0) + (o.b3 != null ? 2 : 0) + (o.b2 != null ? 1 : 0)
      : act * 8 + given(o, n.b1) * 4 + given(o, n.b3) * 2 + given(o, n.b2);
    if (n !== FFN_PLAIN) key += ':' + n.W1 + n.b1 + n.W3 + n.b3 + n.W2 + n.b2;
    return { act: act, gated: gated, n: n, key: key };
  }

  const FFN_PTRS = ['W1', 'b1', 'W3', 'b3', 'W2', 'b2', 'hidden', 'up', 'activated', 'ffnOut'];

  /* FFN inputs and outputs onto a layout; names prefixed with `prefix` in the heap. */
  function addFfn(lay, o, L, D, F, f, prefix, at) {
    const n = f.n;
    lay.input(prefix + 'W1', n.W1, D * F, true);
    if (given(o, n.b1)) lay.input(prefix + 'b1', n.b1, F, false);
    if (f.gated) {
      lay.input(prefix + 'W3', n.W3, D * F, true);
      if (given(o, n.b3)) lay.input(prefix + 'b3', n.b3, F, false);
    }
    lay.input(prefix + 'W2', n.W2, F * D, true);
    if (given(o, n.b2)) lay.input(prefix + 'b2', n.b2, D, false);
    if (f.gated) lay.gate = { path: at, hidden: lay.outs.length };
    lay.output(prefix + 'hidden', L * F, at.concat('hidden'));
    if (f.gated) lay.output(prefix + 'up', L * F, at.concat('up'));
    lay.output(prefix + 'activated', L * F, at.concat('activated'));
    lay.output(prefix + 'ffnOut', L * D, at.concat('out'));
  }

  /* bl_ffn_desc's (and bl_block_desc's) FFN weight fields; bl_ffn_out's fields. */
  function ffnWeightFields(prefix) {
    return { w1: { p: prefix + 'W1' }, b1: { p: prefix + 'b1' }, w3: { p: prefix + 'W3' },
      b3: { p: prefix + 'b3' }, w2: { p: prefix + 'W2' }, b2: { p: prefix + 'b2' } };
  }
  function ffnOutFields(prefix) {
    return { hidden: { p: prefix + 'hidden' }, up: { p: prefix + 'up' },
      activated: { p: prefix + 'activated' }, out: { p: prefix + 'ffnOut' } };
  }

  /* Fresh FFN results as object literals (one shape each, cheaper than a store per path), in
     addFfn's output order; gated ones call the hidden layer the gate too. */
  function ffnResult(a) { return { hidden: a[0], activated: a[1], out: a[2] }; }
  function gatedResult(a) { return { hidden: a[0], up: a[1], activated: a[2], out: a[3], gate: a[0] }; }

  function prefixed(prefix, names) { return names.map(function (k) { return prefix + k; }); }

  function ffnInvoke(m, p, err) { return m._bl_ffn_forward(p.desc, p.outs, err); }

  /* Every call's option names (beyond these, a name is refused as unknown). */
  const FFN_NAMES = ['activation', 'W1', 'b1', 'W3', 'b3', 'W2', 'b2', 'Wg', 'bg', 'Wu', 'bu', 'Wd', 'bd'];
  const ATTN_NAMES = ['Wq', 'bq', 'Wk', 'bk', 'Wv', 'bv', 'Wo', 'bo', 'causal', 'scale', 'keyMask'];
  const FFN_ARGS = optionNames(['L', 'dModel', 'dFF', 'x'].concat(FFN_NAMES), function (o) {
    return { L: o.L, dModel: o.dModel, dFF: o.dFF, x: o.x, activation: o.activation, W1: o.W1, b1: o.b1,
      W3: o.W3, b3: o.b3, W2: o.W2, b2: o.b2, Wg: o.Wg, bg: o.bg, Wu: o.Wu, bu: o.bu, Wd: o.Wd, bd: o.bd };
  });
  const ATTN_ARGS = optionNames(['L', 'dModel', 'nHeads', 'x'].concat(ATTN_NAMES), function (o) {
    return { L: o.L, dModel: o.dModel, nHeads: o.nHeads, x: o.x, Wq: o.Wq, bq: o.bq, Wk: o.Wk, bk: o.bk,
      Wv: o.Wv, bv: o.bv, Wo: o.Wo, bo: o.bo, causal: o.causal, scale: o.scale, keyMask: o.keyMask };
  });
  function readNorm(o) { return { L: o.L, d: o.d, x: o.x, gamma: o.gamma, beta: o.beta, eps: o.eps }; }
  const NORM_ARGS = optionNames(['L', 'd', 'x', 'gamma', 'beta', 'eps'], readNorm);
  const RMS_ARGS = optionNames(['L', 'd', 'x', 'gamma', 'eps'], function (o) {
    return { L: o.L, d: o.d, x: o.x, gamma: o.gamma, eps: o.eps, beta: o.beta };
  }, ['beta']);   /* beta: refused by name */
  const BLOCK_ARGS = optionNames(['L', 'dModel', 'nHeads', 'dFF', 'x', 'norm', 'eps', 'ln1Gamma', 'ln1Beta',
    'ln2Gamma', 'ln2Beta'].concat(ATTN_NAMES, FFN_NAMES), function (o) {
    return { L: o.L, dModel: o.dModel, nHeads: o.nHeads, dFF: o.dFF, x: o.x, norm: o.norm, eps: o.eps,
      ln1Gamma: o.ln1Gamma, ln1Beta: o.ln1Beta, ln2Gamma: o.ln2Gamma, ln2Beta: o.ln2Beta,
      Wq: o.Wq, bq: o.bq, Wk: o.Wk, bk: o.bk, Wv: o.Wv, bv: o.bv, Wo: o.Wo, bo: o.bo,
      causal: o.causal, scale: o.scale, keyMask: o.keyMask, activation: o.activation, W1: o.W1, b1: o.b1,
      W3: o.W3, b3: o.b3, W2: o.W2, b2: o.b2, Wg: o.Wg, bg: o.bg, Wu: o.Wu, bu: o.bu, Wd: o.Wd, bd: o.bd };
  });

  Engine.prototype.ffn = function (o, into) {
    o = args(o, 'ffn', FFN_ARGS);
    const L = dim(o.L, 'L'), D = dim(o.dModel, 'dModel'), F = dim(o.dFF, 'dFF');
    elems('hidden (L x dFF)', L, F);
    elems('x (L x dModel)', L, D);
    const f = ffnSig(o, L, D, F);
    const layout = this._same('ffn', L, D, F, f.key) || this._layout('ffn', L, D, F, f.key, function () {
      const lay = new Layout(['x', 'desc', 'outs'].concat(FFN_PTRS), 'ffn (L ' + L + ', dModel ' + D + ', dFF ' + F + ')');
      lay.input('x', 'x', L * D, true);
      addFfn(lay, o, L, D, F, f, '', []);
      lay.struct('desc', 'bl_ffn_desc', Object.assign({ L: L, d_model: D, d_ff: F,
        activation: f.act, x: { p: 'x' } }, ffnWeightFields('')));
      lay.struct('outs', 'bl_ffn_out', ffnOutFields(''));
      lay.make = f.gated ? gatedResult : ffnResult;
      return lay;
    });
    return this._run(layout, o, ffnInvoke, into, 'ffn');
  };

  /* ---- mixture of experts: expert weights stacked on a leading expert axis, named as ffn's ---- */
  const MAX_EXPERTS = 64;   /* BL_MOE_MAX_EXPERTS */
  const MOE_ARGS = optionNames(['L', 'dModel', 'dFF', 'nExperts', 'topK', 'x', 'Wr'].concat(FFN_NAMES), function (o) {
    return { L: o.L, dModel: o.dModel, dFF: o.dFF, nExperts: o.nExperts, topK: o.topK, x: o.x, Wr: o.Wr,
      activation: o.activation, W1: o.W1, b1: o.b1, W3: o.W3, b3: o.b3, W2: o.W2, b2: o.b2, Wg: o.Wg, bg: o.bg,
      Wu: o.Wu, bu: o.bu, Wd: o.Wd, bd: o.bd };
  });

  /* A count v (the option `name`): an integer in [1, max]; maxName names the bound's option. */
  function count(v, name, max, maxName) {
    const range = '1 and ' + (maxName ? maxName + ' (' + max + ')' : max);
    if (typeof v !== 'number') fail(name + ' must be an integer between ' + range + ', not ' + show(v));
    if (!Number.isInteger(v) || v < 1 || v > max) fail(name + ' (' + v + ') must be an integer between ' + range);
    return v;
  }

  function moeResult(a) {
    return { logits: a[0], probs: a[1], topIndex: a[2], topWeight: a[3], load: a[4], out: a[5] };
  }

  /* The workspace the layout holds is the one C asks for (the formula lives in both). */
  function moeInvoke(m, p, err, lay) {
    if (m._bl_moe_workspace_size(p.desc, p.outs) !== lay.work) fail('internal: moe workspace size disagrees with C');
    return m._bl_moe_forward(p.desc, p.outs, p.work, err);
  }

  Engine.prototype.moe = function (o, into) {
    o = args(o, 'moe', MOE_ARGS);
    const L = dim(o.L, 'L'), D = dim(o.dModel, 'dModel'), F = dim(o.dFF, 'dFF');
    const E = count(o.nExperts, 'nExperts', MAX_EXPERTS), K = count(o.topK, 'topK', E, 'nExperts');
    elems('x (L x dModel)', L, D);
    const f = ffnSig(o, L, D, F), n = f.n;
    elems(n.W1 + ' (nExperts x dModel x dFF)', E * D, F);
    /* bl_moe_workspace_size with logits given: gathered tokens, expert output, activated, up */
    const work = L * (2 * D + (f.gated ? 2 : 1) * F);
    if (work > MAX_ELEMS)
      fail('workspace (L x (2 dModel + ' + (f.gated ? '2 ' : '') + 'dFF) = ' + work + ') exceeds ' + MAX_ELEMS + ' values');
    const code = typeof f.key === 'number' ? (E * 65 + K) * 64 + f.key : E + ',' + K + ':' + f.key;
    const layout = this._same('moe', L, D, F, code) || this._layout('moe', L, D, F, code, function () {
      const lay = new Layout(['desc', 'outs', 'work', 'x', 'Wr', 'W1', 'b1', 'W3', 'b3', 'W2', 'b2', 'logits',
        'probs', 'topIndex', 'topWeight', 'load', 'out'],
      'moe (L ' + L + ', dModel ' + D + ', dFF ' + F + ', nExperts ' + E + ', topK ' + K + ')');
      lay.input('x', 'x', L * D, true);
      lay.input('Wr', 'Wr', D * E, true);
      lay.input('W1', n.W1, E * D * F, true);
      if (given(o, n.b1)) lay.input('b1', n.b1, E * F, false);
      if (f.gated) {
        lay.input('W3', n.W3, E * D * F, true);
        if (given(o, n.b3)) lay.input('b3', n.b3, E * F, false);
      }
      lay.input('W2', n.W2, E * F * D, true);
      if (given(o, n.b2)) lay.input('b2', n.b2, E * D, false);
      lay.add('work', work * 4);
      lay.work = work;
      lay.output('logits', L * E, ['logits']);
      lay.output('probs', L * E, ['probs']);
      lay.output('topIndex', L * K, ['topIndex'], true);
      lay.output('topWeight', L * K, ['topWeight']);
      lay.output('load', E, ['load'], true);
      lay.output('out', L * D, ['out']);
      lay.struct('desc', 'bl_moe_desc', Object.assign({ L: L, d_model: D, d_ff: F, n_experts: E, top_k: K,
        activation: f.act, x: { p: 'x' }, wr: { p: 'Wr' } }, ffnWeightFields('')));
      lay.struct('outs', 'bl_moe_out', { logits: { p: 'logits' }, probs: { p: 'probs' },
        top_index: { p: 'topIndex' }, top_weight: { p: 'topWeight' }, load: { p: 'load' }, out: { p: 'out' } });
      lay.make = moeResult;
      return lay;
    });
    return this._run(layout, o, moeInvoke, into, 'moe');
  };

  const ATTN_W = ['Wq', 'bq', 'Wk', 'bk', 'Wv', 'bv', 'Wo', 'bo'];
  const ATTN_OUT = ['q', 'k', 'v', 'scores', 'weights', 'context', 'concat', 'attnOut'];

  /* The attention part of a call: checks that need no arrays, and its cache-key fragment. */
  function attnSig(o, L, D) {
    elems('Wq (dModel x dModel)', D, D);
    const causal = flag(o.causal, 'causal', false), noScale = !flag(o.scale, 'scale', true);
    /* named loads, not given(o, k): this runs on every call */
    const mask = o.keyMask != null ? 1 : 0;
    const key = (causal ? 64 : 0) + (noScale ? 32 : 0) + mask * 16 + (o.bq != null ? 8 : 0) +
      (o.bk != null ? 4 : 0) + (o.bv != null ? 2 : 0) + (o.bo != null ? 1 : 0);
    return { causal: causal, noScale: noScale, mask: mask, key: key };
  }

  function addAttention(lay, o, L, D, H, a, at) {
    ATTN_W.forEach(function (k) {
      const w = k[0] === 'W';
      if (w || given(o, k)) lay.input(k, k, w ? D * D : D, w);
    });
    if (a.mask) lay.input('keyMask', 'keyMask', L, true, 'm');
    const n = { q: L * D, k: L * D, v: L * D, scores: H * L * L, weights: H * L * L, context: L * D,
      concat: L * D, attnOut: L * D };
    ATTN_OUT.forEach(function (k) { lay.output(k, n[k], at.concat(k === 'attnOut' ? 'out' : k)); });
  }

  /* A fresh attention result as an object literal, in addAttention's output order. */
  function attnResult(a) {
    return { q: a[0], k: a[1], v: a[2], scores: a[3], weights: a[4], context: a[5], concat: a[6], out: a[7] };
  }

  /* bl_attention_out's fields; bl_attention_desc's (and bl_block_desc's) mask, input and
     weight fields. */
  function attnOutFields() {
    return { q: { p: 'q' }, k: { p: 'k' }, v: { p: 'v' }, scores: { p: 'scores' },
      weights: { p: 'weights' }, context: { p: 'context' }, concat: { p: 'concat' }, out: { p: 'attnOut' } };
  }
  function attnInputFields() {
    return { key_mask: { p: 'keyMask' }, x: { p: 'x' }, wq: { p: 'Wq' }, bq: { p: 'bq' },
      wk: { p: 'Wk' }, bk: { p: 'bk' }, wv: { p: 'Wv' }, bv: { p: 'bv' }, wo: { p: 'Wo' }, bo: { p: 'bo' } };
  }
  const ATTN_DESC_PTRS = ['keyMask', 'x', 'Wq', 'bq', 'Wk', 'bk', 'Wv', 'bv', 'Wo', 'bo'];

  function attnInvoke(m, p, err) { return m._bl_attention_forward(p.desc, p.outs, 0, err); }

  Engine.prototype.attention = function (o, into) {
    o = args(o, 'attention', ATTN_ARGS);
    const L = dim(o.L, 'L'), D = dim(o.dModel, 'dModel'), H = dim(o.nHeads, 'nHeads');
    if (D % H !== 0) fail('dModel (' + D + ') must be divisible by nHeads (' + H + ')');
    elems('scores (nHeads x L x L)', H * L, L);
    elems('x (L x dModel)', L, D);
    const a = attnSig(o, L, D);
    const layout = this._same('attn', L, D, H, a.key) || this._layout('attn', L, D, H, a.key, function () {
      const lay = new Layout(['desc', 'outs'].concat(ATTN_DESC_PTRS, ATTN_OUT),
        'attention (L ' + L + ', dModel ' + D + ', nHeads ' + H + ')');
      lay.input('x', 'x', L * D, true);
      addAttention(lay, o, L, D, H, a, []);
      lay.struct('desc', 'bl_attention_desc', Object.assign({ L: L, d_model: D, n_heads: H,
        causal: a.causal, no_scale: a.noScale }, attnInputFields()));
      lay.struct('outs', 'bl_attention_out', attnOutFields());
      lay.make = attnResult;
      return lay;
    });
    return this._run(layout, o, attnInvoke, into, 'attention');
  };

  /* eps: a positive number that is one in float32 too (1e-60 is 0 there, 1e39 infinity). */
  function epsOf(o) {
    const eps = o.eps === undefined ? 1e-5 : o.eps;
    if (typeof eps !== 'number') fail('eps must be a positive number, not ' + show(eps));
    const f = Math.fround(eps);
    if (!(eps > 0) || !(f > 0) || f === Infinity)
      fail('eps (' + eps + ') must be a positive number that float32 can hold (1.4e-45 to 3.4e38)');
    return eps;
  }

  /* kind: 'layer' | 'rms' | 'batch'. Statistics are per token, or per feature for batch. */
  Engine.prototype._norm = function (o, kind, into) {
    const fn = kind + 'Norm';
    o = args(o, fn, kind === 'rms' ? RMS_ARGS : NORM_ARGS);
    const L = dim(o.L, 'L'), d = dim(o.d, 'd'), eps = epsOf(o);
    elems('x (L x d)', L, d);
    if (kind === 'rms' && o.beta !== undefined) fail('beta is not used by rmsNorm');
    const code = (o.gamma != null ? 2 : 0) + (o.beta != null ? 1 : 0);
    const layout = this._same(kind, L, d, 0, code) || this._layout(kind, L, d, 0, code, function () {
      const lay = new Layout(['x', 'gamma', 'beta', 'out', 'mean', 'rstd'], fn + ' (L ' + L + ', d ' + d + ')');
      const nStat = kind === 'batch' ? d : L;
      lay.input('x', 'x', L * d, true);
      if (code & 2) lay.input('gamma', 'gamma', d, false);
      if (code & 1) lay.input('beta', 'beta', d, false);
      lay.output('out', L * d, ['out']);
      if (kind !== 'rms') lay.output('mean', nStat, ['mean']);
      lay.output('rstd', nStat, ['rstd']);
      lay.norm = { kind: kind, L: L, d: d };
      return lay;
    });
    return this._run(layout, o, normInvoke, into, fn, eps);
  };

  function normInvoke(m, p, err, lay, eps) {
    const kind = lay.norm.kind, L = lay.norm.L, d = lay.norm.d;
    if (kind === 'rms') return m._bl_rmsnorm_forward(p.out, p.rstd, p.x, p.gamma, L, d, eps, err);
    const f = kind === 'layer' ? m._bl_layernorm_forward : m._bl_batchnorm_forward;
    return f(p.out, p.mean, p.rstd, p.x, p.gamma, p.beta, L, d, eps, err);
  }
  Engine.prototype.layerNorm = function (o, into) { return this._norm(o, 'layer', into); };
  Engine.prototype.rmsNorm = function (o, into) { return this._norm(o, 'rms', into); };
  Engine.prototype.batchNorm = function (o, into) { return this._norm(o, 'batch', into); };

  const LN_KEYS = ['ln1Gamma', 'ln1Beta', 'ln2Gamma', 'ln2Beta'];
  const BLOCK_OUT = ['resid1', 'norm1', 'resid2', 'norm2', 'out'];

  Engine.prototype.encoderLayer = function (o, into) {
    o = args(o, 'encoderLayer', BLOCK_ARGS);
    const L = dim(o.L, 'L'), D = dim(o.dModel, 'dModel'), H = dim(o.nHeads, 'nHeads'), F = dim(o.dFF, 'dFF');
    const norm = o.norm === undefined ? 'post' : o.norm, eps = epsOf(o);
    if (typeof norm !== 'string') fail('norm must be "post" or "pre", not ' + show(norm));
    if (norm !== 'post' && norm !== 'pre') fail('norm "' + cut(norm) + '" must be "post" or "pre"');
    if (D % H !== 0) fail('dModel (' + D + ') must be divisible by nHeads (' + H + ')');
    elems('hidden (L x dFF)', L, F);
    elems('scores (nHeads x L x L)', H * L, L);
    elems('x (L x dModel)', L, D);
    const a = attnSig(o, L, D), f = ffnSig(o, L, D, F);
    /* the signature as one number where it can be (F, norm, attention and norm-input bits, the
       FFN's key), with eps and Llama-style names appended when they are not the defaults */
    const ln = (o.ln1Gamma != null ? 8 : 0) + (o.ln1Beta != null ? 4 : 0) + (o.ln2Gamma != null ? 2 : 0) +
      (o.ln2Beta != null ? 1 : 0);
    let code = (((F * 2 + (norm === 'pre' ? 1 : 0)) * 128 + a.key) * 16 + ln) * 64;
    code = typeof f.key === 'number' ? code + f.key : code + ':' + f.key;
    if (eps !== 1e-5) code = code + ':' + eps;
    const layout = this._same('block', L, D, H, code) || this._layout('block', L, D, H, code, function () {
      const lay = new Layout(['desc', 'outs'].concat(ATTN_DESC_PTRS, ATTN_OUT, LN_KEYS,
        prefixed('f_', FFN_PTRS), BLOCK_OUT),
      'encoderLayer (L ' + L + ', dModel ' + D + ', nHeads ' + H + ', dFF ' + F + ')');
      lay.input('x', 'x', L * D, true);
      addAttention(lay, o, L, D, H, a, ['attn']);
      addFfn(lay, o, L, D, F, f, 'f_', ['ffn']);
      LN_KEYS.forEach(function (k, i) { if (ln & (8 >> i)) lay.input(k, k, D, false); });
      BLOCK_OUT.forEach(function (k) { lay.output(k, L * D, [k]); });
      lay.struct('desc', 'bl_block_desc', Object.assign({ L: L, d_model: D, n_heads: H, d_ff: F,
        activation: f.act, pre_ln: norm === 'pre', causal: a.causal, no_scale: a.noScale,
        eps: { f: eps }, ln1_gamma: { p: 'ln1Gamma' }, ln1_beta: { p: 'ln1Beta' },
        ln2_gamma: { p: 'ln2Gamma' }, ln2_beta: { p: 'ln2Beta' } }, attnInputFields(),
        ffnWeightFields('f_')));
      lay.struct('outs', 'bl_block_out', { attn: { s: 'bl_attention_out', v: attnOutFields() },
        ffn: { s: 'bl_ffn_out', v: ffnOutFields('f_') }, resid1: { p: 'resid1' },
        norm1: { p: 'norm1' }, resid2: { p: 'resid2' }, norm2: { p: 'norm2' }, out: { p: 'out' } });
      return lay;
    });
    return this._run(layout, o, blockInvoke, into, 'encoderLayer');
  };

  function blockInvoke(m, p, err) { return m._bl_block_forward(p.desc, p.outs, 0, err); }
