/* engine.js - the BlockLens JavaScript API: the only code that touches the wasm heap.
   Appended to Emscripten's output (the BlockLensCore* factories) inside engine-pre.js's
   scope; engine-load.js follows it (parameter counts, random streams, load).
   Every call checks its arguments, copies them into one heap block (kept and reused by the
   next call, so the heap does not grow per call), calls C and copies the results out as
   caller-owned Float32Arrays, or into the arrays of a previous result passed as `into`. */

  var ACTIVATIONS = ['relu', 'gelu', 'gelu_tanh', 'silu', 'identity', 'swiglu', 'geglu'];
  var GATED = { swiglu: 1, geglu: 1 };
  var MAX_DIM = 65536, MAX_ELEMS = 1 << 28;
  /* Fresh results of at most POOL_MAX bytes are carved out of one shared POOL_BYTES buffer (as
     Node's Buffer pool does): one ArrayBuffer per call cost more than the call itself at the
     page's sizes. A full pool is dropped for a new one; it lives as long as a result uses it. */
  var POOL_BYTES = 16384, POOL_MAX = 4096;
  /* The C structs on wasm32: sizeof and the byte offset of every field, the only copy of these
     numbers in the wrapper (descriptors are written and outputs read through it by field name).
     At load the wasm module's own sizeof / offsetof of every field (bl__abi_layout in
     src/wasm_abi.c) must match it field by field. Nested structs are one field here. */
  var ABI = {
    bl_error: { sizeof: 196, status: 0, message: 4 },
    bl_rng: { sizeof: 2512, mt: 0, pos: 2496, has_gauss: 2500, gauss: 2504 },
    bl_ffn_desc: { sizeof: 44, L: 0, d_model: 4, d_ff: 8, activation: 12, x: 16, w1: 20, b1: 24,
      w3: 28, b3: 32, w2: 36, b2: 40 },
    bl_ffn_out: { sizeof: 16, hidden: 0, up: 4, activated: 8, out: 12 },
    bl_attention_desc: { sizeof: 60, L: 0, d_model: 4, n_heads: 8, causal: 12, no_scale: 16,
      key_mask: 20, x: 24, wq: 28, bq: 32, wk: 36, bk: 40, wv: 44, bv: 48, wo: 52, bo: 56 },
    bl_attention_out: { sizeof: 32, q: 0, k: 4, v: 8, scores: 12, weights: 16, context: 20,
      concat: 24, out: 28 },
    bl_block_desc: { sizeof: 116, L: 0, d_model: 4, n_heads: 8, d_ff: 12, activation: 16,
      pre_ln: 20, causal: 24, no_scale: 28, key_mask: 32, eps: 36, x: 40, wq: 44, bq: 48, wk: 52,
      bk: 56, wv: 60, bv: 64, wo: 68, bo: 72, ln1_gamma: 76, ln1_beta: 80, ln2_gamma: 84,
      ln2_beta: 88, w1: 92, b1: 96, w3: 100, b3: 104, w2: 108, b2: 112 },
    bl_block_out: { sizeof: 68, attn: 0, ffn: 32, resid1: 48, norm1: 52, resid2: 56, norm2: 60,
      out: 64 }
  };
  var RNG_BYTES = ABI.bl_rng.sizeof, ERR_BYTES = ABI.bl_error.sizeof;
  /* bl_model_config's fields, in order (see src/wasm_abi.c). */
  var CONFIG_KEYS = ['vocab', 'maxPositions', 'typeVocab', 'dModel', 'nLayers', 'nHeads',
    'nKvHeads', 'dFF', 'gated', 'norm', 'attnBias', 'ffnBias', 'embedNorm', 'finalNorm',
    'lmHead', 'pooler', 'nExperts', 'topK', 'nDecLayers'];
  var COUNT_KEYS = ['embeddings', 'attention', 'ffn', 'norms', 'other', 'total', 'active',
    'attentionPerLayer', 'ffnPerLayer'];
  /* C argument names -> the JS names users wrote, for messages that come from C. */
  var C_NAMES = { d_model: 'dModel', n_heads: 'nHeads', d_ff: 'dFF', n_kv_heads: 'nKvHeads',
    n_experts: 'nExperts', top_k: 'topK', n_layers: 'nLayers', n_dec_layers: 'nDecLayers',
    max_positions: 'maxPositions', type_vocab: 'typeVocab', key_mask: 'keyMask',
    ln1_gamma: 'ln1Gamma', ln1_beta: 'ln1Beta', ln2_gamma: 'ln2Gamma', ln2_beta: 'ln2Beta',
    w1: 'W1', w2: 'W2', w3: 'W3', wq: 'Wq', wk: 'Wk', wv: 'Wv', wo: 'Wo' };

  function fail(message) { throw new Error('BlockLens: ' + message); }

  function options(o, fn) {
    if (o === null || typeof o !== 'object' || Array.isArray(o))
      fail(fn + ' expects an options object');
    return o;
  }

  /* A size: an integer in [1, MAX_DIM]. */
  function dim(o, name) {
    var v = o[name];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_DIM)
      fail(name + ' (' + String(v) + ') must be an integer between 1 and ' + MAX_DIM);
    return v;
  }

  function elems(name, a, b) {
    if (a * b > MAX_ELEMS) fail(name + ' (' + a + ' x ' + b + ') exceeds ' + MAX_ELEMS + ' values');
    return a * b;
  }

  function flag(o, name, fallback) {
    var v = o[name];
    if (v === undefined) return fallback;
    if (typeof v !== 'boolean') fail(name + ' must be true or false, not ' + String(v));
    return v;
  }

  /* A call's layout in the heap block: inputs, then descriptor records, then the outputs
     back to back (one copy brings them all out). Layouts are cached per call signature
     (shapes, flags, which optional inputs are given), so a repeated call only checks and
     copies its arrays: the layout, its addresses and its descriptor words are reused. */
  function Layout(names) {
    this.bytes = 0;
    this.off = {};
    this.ins = [];          /* [heap name, property, length, required, kind] per input */
    this.outs = [];         /* [heap name, float offset within the outputs, length, result path] */
    this.outFloats = 0;
    this.outAt = 0;
    this.records = [];      /* [heap name, word list] */
    this.names = names;     /* every pointer name the call passes (absent ones are 0) */
    this.base = -1;
    this.p = null;          /* name -> address for the current arena */
    this.words = null;      /* the records' words for the current arena */
    this._views = null;     /* see views() */
    this._all = null;
    this._viewHeap = null;
    this._viewStart = -1;
    this.make = null;       /* arrays in output order -> a fresh result (else built by path) */
    this._intoArrs = null;  /* see intoAll() */
    this._intoView = null;
  }
  Layout.prototype.add = function (name, nbytes) {
    this.off[name] = this.bytes;
    this.bytes += (nbytes + 15) & ~15;
  };
  /* kind 'f': float array (Float32Array, Float64Array, array of finite numbers);
     'm': key mask (truthy -> 1), one byte per value */
  Layout.prototype.input = function (name, prop, n, required, kind) {
    this.add(name, kind === 'm' ? n : n * 4);
    this.ins.push([name, prop, n, required, kind || 'f']);
  };
  /* path: where the array sits in the result, e.g. ['out'] or ['ffn', 'hidden'] */
  Layout.prototype.output = function (name, n, path) {
    this.outs.push([name, this.outFloats, n, path]);
    this.outFloats += n;
  };
  /* A record of 32-bit words: ints, pointer names {p: name}, floats {f: value}. */
  Layout.prototype.record = function (name, words) {
    this.add(name, words.length * 4);
    this.records.push([name, words]);
  };
  /* A C struct (a name in ABI) as a record: values by field name, as for record(), or
     {s: struct, v: values} for a nested struct; fields not named stay 0 (C's default). */
  Layout.prototype.struct = function (name, type, values) {
    var words = [];
    for (var i = 0; i < ABI[type].sizeof >> 2; i++) words.push(0);
    structWords(words, type, 0, values);
    this.record(name, words);
  };
  function structWords(words, type, at, values) {
    var t = ABI[type];
    for (var k in values) {
      if (k === 'sizeof' || !(k in t)) fail('internal: ' + type + ' has no field ' + k);
      var v = values[k];
      if (v !== null && typeof v === 'object' && 's' in v) structWords(words, v.s, at + t[k], v.v);
      else words[(at + t[k]) >> 2] = v;
    }
  }
  Layout.prototype.finish = function () {
    /* (pointer, length) of every float input, for one NaN/infinity check in wasm */
    var list = [];
    this.floatIns = [];
    for (var i = 0; i < this.ins.length; i++)
      if (this.ins[i][4] === 'f') { list.push({ p: this.ins[i][0] }, this.ins[i][2]); this.floatIns.push(this.ins[i]); }
    if (list.length) this.record('finite', list);
    this.outAt = this.bytes;
    this.bytes += this.outFloats * 4;
    return this;
  };
  /* Views of the outputs in the heap, one per output and one of them all (kept until the arena
     moves or the memory grows). */
  Layout.prototype.views = function (heap, start) {
    if (this._viewHeap === heap && this._viewStart === start) return this._views;
    var v = [];
    for (var i = 0; i < this.outs.length; i++)
      v.push(heap.subarray(start + this.outs[i][1], start + this.outs[i][1] + this.outs[i][2]));
    this._views = v;
    this._all = heap.subarray(start, start + this.outFloats);
    this._viewHeap = heap;
    this._viewStart = start;
    return v;
  };
  /* Addresses and record words for an arena at `base` (recomputed only when it moves). */
  Layout.prototype.at = function (base) {
    if (base === this.base) return this.p;
    var p = {}, i, j, off = this.off;
    for (i = 0; i < this.names.length; i++) p[this.names[i]] = 0;
    for (var k in off) p[k] = base + off[k];
    for (i = 0; i < this.outs.length; i++) p[this.outs[i][0]] = base + this.outAt + this.outs[i][1] * 4;
    var first = this.records.length ? off[this.records[0][0]] : 0;
    var last = this.records.length ? off[this.records[this.records.length - 1][0]] +
      this.records[this.records.length - 1][1].length * 4 : 0;
    var buf = new ArrayBuffer(last - first), i32 = new Int32Array(buf), f32 = new Float32Array(buf);
    for (i = 0; i < this.records.length; i++) {
      var at = (off[this.records[i][0]] - first) >> 2, w = this.records[i][1];
      for (j = 0; j < w.length; j++) {
        var v = w[j];
        if (v !== null && typeof v === 'object') {
          if ('f' in v) f32[at + j] = v.f;
          else i32[at + j] = p[v.p];
        } else i32[at + j] = v | 0;
      }
    }
    this.words = i32;
    this.wordsAt = base + first;
    this.inAt = this.ins.map(function (d) { return p[d[0]]; });   /* addresses, by input */
    this.base = base;
    this.p = p;
    return p;
  };

  /* A float array argument: Float32Array, Float64Array or plain array of finite numbers.
     Float32Arrays are checked for NaN/infinity in wasm after the copy (_run), the rest here. */
  function floats(o, name, n, required) {
    var v = o[name];
    if (v === undefined || v === null) {
      if (required) fail(name + ' is required (' + n + ' numbers)');
      return null;
    }
    var ok = v instanceof Float32Array || v instanceof Float64Array || Array.isArray(v);
    if (!ok) fail(name + ' must be a Float32Array or an array of numbers');
    if (v.length !== n) fail(name + ' has ' + v.length + ' values, expected ' + n);
    if (v instanceof Float32Array) return v;
    for (var i = 0; i < n; i++)
      if (typeof v[i] !== 'number' || !isFinite(v[i])) notFinite(name, i, v[i]);
    return v;
  }

  function notFinite(name, i, v) { fail(name + '[' + i + '] is ' + String(v) + ', not a finite number'); }

  function keyMask(o, L) {
    var km = o.keyMask;
    if (!(Array.isArray(km) || ArrayBuffer.isView(km)) || km.length !== L)
      fail('keyMask must be an array of ' + L + ' booleans or 0/1 values');
    return km;
  }

  function Engine(mod) {
    this._m = mod;
    this._arena = 0;
    this._arenaBytes = 0;
    this._layouts = new Map();
    this._last = {};
    this._pool = null;            /* see POOL_BYTES */
    this._poolF32 = null;
    this._poolUsed = POOL_BYTES;
    this.activations = ACTIVATIONS.slice();
    var n = mod._bl_preset_count(), names = [];
    for (var i = 0; i < n; i++) names.push(mod.UTF8ToString(mod._bl_preset_name(i)));
    this.presets = names;
    this._checkAbi(ABI);
  }

  /* The wasm module's struct layout, as ABI: { struct: { sizeof, field: offset } } from
     bl__abi_layout's numbers and bl__abi_layout_names' "struct field field;struct ...". */
  Engine.prototype._abiFromC = function () {
    var m = this._m, n = m._bl__abi_layout(0, 0), c = {}, at = 0;
    var nums = this._call(n * 4, function (base, m) {
      m._bl__abi_layout(base, n);
      return Array.prototype.slice.call(m.HEAP32.subarray(base >> 2, (base >> 2) + n));
    });
    m.UTF8ToString(m._bl__abi_layout_names()).split(';').forEach(function (s) {
      var f = s.split(' '), t = c[f[0]] = { sizeof: nums[at++] };
      for (var i = 1; i < f.length; i++) t[f[i]] = nums[at++];
    });
    if (at !== n) fail('wasm struct layout has ' + n + ' numbers for ' + at + ' names: rebuild');
    return c;
  };

  /* Throws unless `table` (ABI, or an altered copy in tests) matches the wasm module's layout
     field by field: same structs, same fields, same offsets and sizes. */
  Engine.prototype._checkAbi = function (table) {
    var c = this._abiFromC(), s, f;
    for (s in table) if (!c[s]) fail('the wasm module has no struct ' + s + ' (the wrapper uses it): rebuild');
    for (s in c) {
      var t = table[s], cs = c[s];
      if (!t) fail('wasm struct ' + s + ' is not in the wrapper\'s layout table');
      for (f in cs) {
        if (f === 'sizeof') continue;
        if (!(f in t)) fail('wasm struct ' + s + ' has a field ' + f + ' (at byte ' + cs[f] + ') the wrapper does not know');
        if (cs[f] !== t[f])
          fail('wasm struct ' + s + '.' + f + ' is at byte ' + cs[f] + ', the wrapper writes it at ' + t[f]);
      }
      for (f in t)
        if (!(f in cs)) fail('wasm struct ' + s + ' has no field ' + f + ' (the wrapper writes it at byte ' + t[f] + ')');
      if (cs.sizeof !== t.sizeof)
        fail('wasm struct ' + s + ' is ' + cs.sizeof + ' bytes, the wrapper\'s is ' + t.sizeof);
    }
  };

  /* A copy of the wrapper's layout table (for tests of _checkAbi). */
  Engine.prototype._abiTable = function () { return JSON.parse(JSON.stringify(ABI)); };

  /* Size of the wasm memory in bytes (it grows on demand and never shrinks). */
  Engine.prototype.heapBytes = function () { return this._m.HEAPU8.length; };

  /* Runs fn(base, module, errPtr) on the heap block (see _block). */
  Engine.prototype._call = function (bytes, fn) {
    var base = this._block(bytes);
    return fn(base, this._m, base + bytes);
  };

  /* The heap block for a call of `bytes` plus an error record: kept for the next call and only
     replaced by a larger one, so repeated calls neither malloc nor grow the heap. */
  Engine.prototype._block = function (bytes) {
    var m = this._m, need = bytes + ERR_BYTES;
    if (need > this._arenaBytes) {
      if (this._arena) m._free(this._arena);
      this._arenaBytes = 0;
      this._arena = m._malloc(Math.max(need, 1 << 16));
      if (!this._arena) fail('out of memory: could not allocate ' + need + ' bytes');
      this._arenaBytes = Math.max(need, 1 << 16);
    }
    return this._arena;
  };

  Engine.prototype._check = function (status, errPtr) {
    if (status === 0) return;
    var msg = this._m.UTF8ToString(errPtr + ABI.bl_error.message);
    msg = msg.replace(/\b[a-z0-9]+(?:_[a-z0-9]+)+\b|\bw[1-3qkvo]\b/g, function (w) {
      return C_NAMES[w] || w;
    });
    fail(msg || ('status ' + status));
  };

  /* Runs a call with a finished layout: checks every input (and `into`) before anything is
     written, copies the inputs in, writes the records, calls invoke(module, addresses, errPtr)
     and returns the outputs: views of one fresh buffer (or of the pool), or copied into the
     arrays of `into` (a previous result of the same call, reused so that repeated calls
     allocate nothing). */
  Engine.prototype._run = function (lay, o, invoke, into) {
    var ins = lay.ins, n = ins.length, vals = new Array(n), i, d;
    for (i = 0; i < n; i++) {
      d = ins[i];
      vals[i] = d[4] === 'm' ? keyMask(o, d[2]) : floats(o, d[1], d[2], d[3]);
    }
    var outs = lay.outs, dst = null;
    if (into !== undefined) dst = targets(into, outs);
    var m = this._m, base = this._block(lay.bytes), p = lay.at(base), heap = m.HEAPF32;
    var inAt = lay.inAt;
    for (i = 0; i < n; i++) {
      d = ins[i];
      if (d[4] === 'f') heap.set(vals[i], inAt[i] >> 2);
      else for (var j = 0, km = vals[i], at = inAt[i]; j < d[2]; j++) m.HEAPU8[at + j] = km[j] ? 1 : 0;
    }
    if (lay.records.length) m.HEAP32.set(lay.words, lay.wordsAt >> 2);
    /* NaN / infinity in a float input (as float32: a Float64Array's 1e300 is one too) */
    var bad = lay.floatIns.length ? m._bl__first_nonfinite_of(p.finite, lay.floatIns.length) : -1;
    if (bad >= 0) {
      d = lay.floatIns[bad];
      var at2 = m._bl__first_nonfinite(p[d[0]], d[2]), src = o[d[1]];
      notFinite(d[1], at2, src[at2]);
    }
    this._check(invoke(m, p, base + lay.bytes), base + lay.bytes);
    /* re-read HEAPF32: memory may have grown */
    var views = lay.views(m.HEAPF32, (base + lay.outAt) >> 2);
    if (dst) {
      var whole = lay.outFloats * 4 <= POOL_MAX ? intoAll(lay, dst) : null;
      if (whole) whole.set(lay._all);
      else for (i = 0; i < outs.length; i++) dst[i].set(views[i]);
      return into;
    }
    var bytes = lay.outFloats * 4, buf, off;
    if (bytes <= POOL_MAX) {
      if (this._poolUsed + bytes > POOL_BYTES) {
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
      var arrs = new Array(outs.length);
      for (i = 0; i < outs.length; i++) arrs[i] = new Float32Array(buf, off + outs[i][1] * 4, outs[i][2]);
      return lay.make(arrs);
    }
    var res = {};
    for (i = 0; i < outs.length; i++) {
      var path = outs[i][3], v = new Float32Array(buf, off + outs[i][1] * 4, outs[i][2]);
      if (path.length === 1) res[path[0]] = v;
      else (res[path[0]] || (res[path[0]] = {}))[path[1]] = v;
    }
    return res;
  };

  /* The arrays of `into` that receive each output, checked: Float32Arrays of the right size. */
  function targets(into, outs) {
    if (into === null || typeof into !== 'object') fail('into must be a previous result of the same call');
    var dst = new Array(outs.length);
    for (var i = 0; i < outs.length; i++) {
      var path = outs[i][3], v = path.length === 1 ? into[path[0]] : (into[path[0]] || {})[path[1]];
      if (!(v instanceof Float32Array) || v.length !== outs[i][2])
        fail('into.' + path.join('.') + (v instanceof Float32Array ? ' has ' + v.length +
          ' values, expected ' + outs[i][2] : ' must be a Float32Array (pass a previous result of the same call)'));
      dst[i] = v;
    }
    return dst;
  }

  /* One view over all the arrays of `into` when they sit back to back in one buffer as the
     outputs do in the heap (any small fresh result does), so one copy fills them all; else null.
     The answer is kept for the same arrays' next call (a typed array never moves): reading
     .buffer and .byteOffset costs more than the copies it saves. Small results only, so the
     layout cache holds on to little memory. */
  function intoAll(lay, dst) {
    var last = lay._intoArrs, i;
    if (last && last.length === dst.length) {
      for (i = 0; i < dst.length && dst[i] === last[i]; i++);
      if (i === dst.length) return lay._intoView;
    }
    var outs = lay.outs, buf = dst[0].buffer, at = dst[0].byteOffset, view = null;
    for (i = 1; i < dst.length; i++)
      if (dst[i].buffer !== buf || dst[i].byteOffset !== at + outs[i][1] * 4) break;
    if (i === dst.length) view = new Float32Array(buf, at, lay.outFloats);
    lay._intoArrs = dst;
    lay._intoView = view;
    return view;
  }

  /* The layout cache: a call signature -> its Layout. Bounded, so odd callers that change
     sizes every call cannot make it grow without end. Callers first try _same (this op's
     previous signature) so that a repeated call creates no build closure. */
  Engine.prototype._same = function (op, a, b, c, code) {
    var last = this._last[op];
    return last && last.sig[0] === a && last.sig[1] === b && last.sig[2] === c && last.sig[3] === code
      ? last : null;
  };
  Engine.prototype._layout = function (op, a, b, c, code, build) {
    var key = op + ':' + a + ',' + b + ',' + c + ':' + code, lay = this._layouts.get(key);
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
    var a = o.activation === undefined ? 'relu' : o.activation;
    var idx = ACTIVATIONS.indexOf(a);
    if (idx < 0) fail('activation "' + String(a) + '" is not one of ' + ACTIVATIONS.join(', '));
    return idx;
  }

  /* Gated FFNs accept Llama-style names: Wg/bg = W1/b1, Wu/bu = W3/b3, Wd/bd = W2/b2. */
  var FFN_ALIAS = { Wg: 'W1', bg: 'b1', Wu: 'W3', bu: 'b3', Wd: 'W2', bd: 'b2' };
  var FFN_PLAIN = { W1: 'W1', b1: 'b1', W3: 'W3', b3: 'b3', W2: 'W2', b2: 'b2' };
  function ffnWeights(o) {
    if (o.Wg === undefined && o.bg === undefined && o.Wu === undefined && o.bu === undefined &&
        o.Wd === undefined && o.bd === undefined) return FFN_PLAIN;   /* the common case */
    var alias = FFN_ALIAS, r = {};
    for (var k in alias) {
      if (o[k] !== undefined && o[alias[k]] !== undefined) fail('give ' + k + ' or ' + alias[k] + ', not both');
      r[alias[k]] = o[k] !== undefined ? k : alias[k];
    }
    return r;
  }

  /* The FFN part of a call: checks that need no arrays, and its cache-key fragment. */
  function ffnSig(o, L, D, F) {
    var act = activationOf(o), gated = !!GATED[ACTIVATIONS[act]], n = ffnWeights(o);
    elems('hidden (L x dFF)', L, F);
    elems(n.W1 + ' (dModel x dFF)', D, F);
    if (!gated && (o[n.W3] !== undefined || o[n.b3] !== undefined))
      fail(n.W3 + '/' + n.b3 + ' are only used by gated activations (swiglu, geglu), not ' + ACTIVATIONS[act]);
    var key = n === FFN_PLAIN ? act * 8 + (o.b1 != null ? 4 : 0) + (o.b3 != null ? 2 : 0) + (o.b2 != null ? 1 : 0)
      : act * 8 + given(o, n.b1) * 4 + given(o, n.b3) * 2 + given(o, n.b2);
    if (n !== FFN_PLAIN) key += ':' + n.W1 + n.b1 + n.W3 + n.b3 + n.W2 + n.b2;
    return { act: act, gated: gated, n: n, key: key };
  }

  var FFN_PTRS = ['W1', 'b1', 'W3', 'b3', 'W2', 'b2', 'hidden', 'up', 'activated', 'ffnOut'];

  /* FFN inputs and outputs onto a layout; names prefixed with `prefix` in the heap. */
  function addFfn(lay, o, L, D, F, f, prefix, at) {
    var n = f.n;
    lay.input(prefix + 'W1', n.W1, D * F, true);
    if (given(o, n.b1)) lay.input(prefix + 'b1', n.b1, F, false);
    if (f.gated) {
      lay.input(prefix + 'W3', n.W3, D * F, true);
      if (given(o, n.b3)) lay.input(prefix + 'b3', n.b3, F, false);
    }
    lay.input(prefix + 'W2', n.W2, F * D, true);
    if (given(o, n.b2)) lay.input(prefix + 'b2', n.b2, D, false);
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
     addFfn's output order; gated ones carry gate as gateAlias would. */
  function ffnResult(a) { return { hidden: a[0], activated: a[1], out: a[2] }; }
  function gatedResult(a) { return { hidden: a[0], up: a[1], activated: a[2], out: a[3], gate: a[0] }; }

  /* Gated activations: the hidden layer is also called the gate. */
  function gateAlias(r) { if (r.up && r.gate !== r.hidden) r.gate = r.hidden; return r; }

  function prefixed(prefix, names) { return names.map(function (k) { return prefix + k; }); }

  function ffnInvoke(m, p, err) { return m._bl_ffn_forward(p.desc, p.outs, err); }

  Engine.prototype.ffn = function (o, into) {
    options(o, 'ffn');
    var L = dim(o, 'L'), D = dim(o, 'dModel'), F = dim(o, 'dFF');
    elems('hidden (L x dFF)', L, F);
    elems('x (L x dModel)', L, D);
    var f = ffnSig(o, L, D, F);
    var lay = this._same('ffn', L, D, F, f.key) || this._layout('ffn', L, D, F, f.key, function () {
      var lay = new Layout(['x', 'desc', 'outs'].concat(FFN_PTRS));
      lay.input('x', 'x', L * D, true);
      addFfn(lay, o, L, D, F, f, '', []);
      lay.struct('desc', 'bl_ffn_desc', Object.assign({ L: L, d_model: D, d_ff: F,
        activation: f.act, x: { p: 'x' } }, ffnWeightFields('')));
      lay.struct('outs', 'bl_ffn_out', ffnOutFields(''));
      lay.make = f.gated ? gatedResult : ffnResult;
      return lay;
    });
    return gateAlias(this._run(lay, o, ffnInvoke, into));
  };

  var ATTN_W = ['Wq', 'bq', 'Wk', 'bk', 'Wv', 'bv', 'Wo', 'bo'];
  var ATTN_OUT = ['q', 'k', 'v', 'scores', 'weights', 'context', 'concat', 'attnOut'];

  /* The attention part of a call: checks that need no arrays, and its cache-key fragment. */
  function attnSig(o, L, D, H) {
    elems('Wq (dModel x dModel)', D, D);
    var causal = flag(o, 'causal', false), noScale = !flag(o, 'scale', true);
    /* named loads, not given(o, k): this runs on every call */
    var mask = o.keyMask != null ? 1 : 0;
    var key = (causal ? 64 : 0) + (noScale ? 32 : 0) + mask * 16 + (o.bq != null ? 8 : 0) +
      (o.bk != null ? 4 : 0) + (o.bv != null ? 2 : 0) + (o.bo != null ? 1 : 0);
    return { causal: causal, noScale: noScale, mask: mask, key: key };
  }

  function addAttention(lay, o, L, D, H, a, at) {
    ATTN_W.forEach(function (k) {
      var w = k[0] === 'W';
      if (w || given(o, k)) lay.input(k, k, w ? D * D : D, w);
    });
    if (a.mask) lay.input('keyMask', 'keyMask', L, true, 'm');
    [['q', L * D], ['k', L * D], ['v', L * D], ['scores', H * L * L], ['weights', H * L * L],
      ['context', L * D], ['concat', L * D], ['attnOut', L * D]].forEach(function (b) {
      lay.output(b[0], b[1], at.concat(b[0] === 'attnOut' ? 'out' : b[0]));
    });
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
  var ATTN_DESC_PTRS = ['keyMask', 'x', 'Wq', 'bq', 'Wk', 'bk', 'Wv', 'bv', 'Wo', 'bo'];

  function attnInvoke(m, p, err) { return m._bl_attention_forward(p.desc, p.outs, 0, err); }

  Engine.prototype.attention = function (o, into) {
    options(o, 'attention');
    var L = dim(o, 'L'), D = dim(o, 'dModel'), H = dim(o, 'nHeads');
    if (D % H !== 0) fail('dModel (' + D + ') must be divisible by nHeads (' + H + ')');
    elems('scores (nHeads x L x L)', H * L, L);
    elems('x (L x dModel)', L, D);
    var a = attnSig(o, L, D, H);
    var lay = this._same('attn', L, D, H, a.key) || this._layout('attn', L, D, H, a.key, function () {
      var lay = new Layout(['desc', 'outs'].concat(ATTN_DESC_PTRS, ATTN_OUT));
      lay.input('x', 'x', L * D, true);
      addAttention(lay, o, L, D, H, a, []);
      lay.struct('desc', 'bl_attention_desc', Object.assign({ L: L, d_model: D, n_heads: H,
        causal: a.causal, no_scale: a.noScale }, attnInputFields()));
      lay.struct('outs', 'bl_attention_out', attnOutFields());
      lay.make = attnResult;
      return lay;
    });
    return this._run(lay, o, attnInvoke, into);
  };

  function epsOf(o) {
    var eps = o.eps === undefined ? 1e-5 : o.eps;
    if (typeof eps !== 'number' || !(eps > 0) || !isFinite(eps) || Math.fround(eps) === 0)
      fail('eps (' + String(eps) + ') must be a positive finite number');
    return eps;
  }

  /* kind: 'layer' | 'rms' | 'batch'. Statistics are per token, or per feature for batch. */
  Engine.prototype._norm = function (o, kind, into) {
    options(o, kind + 'Norm');
    var L = dim(o, 'L'), d = dim(o, 'd'), eps = epsOf(o);
    var nStat = kind === 'batch' ? d : L;
    elems('x (L x d)', L, d);
    if (kind === 'rms' && o.beta !== undefined) fail('beta is not used by rmsNorm');
    var lay = this._layout(kind, L, d, 0, given(o, 'gamma') * 2 + given(o, 'beta'), function () {
      var lay = new Layout(['x', 'gamma', 'beta', 'out', 'mean', 'rstd']);
      lay.input('x', 'x', L * d, true);
      if (given(o, 'gamma')) lay.input('gamma', 'gamma', d, false);
      if (kind !== 'rms' && given(o, 'beta')) lay.input('beta', 'beta', d, false);
      lay.output('out', L * d, ['out']);
      if (kind !== 'rms') lay.output('mean', nStat, ['mean']);
      lay.output('rstd', nStat, ['rstd']);
      return lay;
    });
    return this._run(lay, o, function (m, p, err) {
      if (kind === 'rms')
        return m._bl_rmsnorm_forward(p.out, p.rstd, p.x, p.gamma, L, d, eps, err);
      var fn = kind === 'layer' ? m._bl_layernorm_forward : m._bl_batchnorm_forward;
      return fn(p.out, p.mean, p.rstd, p.x, p.gamma, p.beta, L, d, eps, err);
    }, into);
  };
  Engine.prototype.layerNorm = function (o, into) { return this._norm(o, 'layer', into); };
  Engine.prototype.rmsNorm = function (o, into) { return this._norm(o, 'rms', into); };
  Engine.prototype.batchNorm = function (o, into) { return this._norm(o, 'batch', into); };

  var LN_KEYS = ['ln1Gamma', 'ln1Beta', 'ln2Gamma', 'ln2Beta'];
  var BLOCK_OUT = ['resid1', 'norm1', 'resid2', 'norm2', 'out'];

  Engine.prototype.encoderLayer = function (o, into) {
    options(o, 'encoderLayer');
    var L = dim(o, 'L'), D = dim(o, 'dModel'), H = dim(o, 'nHeads'), F = dim(o, 'dFF');
    var norm = o.norm === undefined ? 'post' : o.norm, eps = epsOf(o);
    if (norm !== 'post' && norm !== 'pre') fail('norm "' + String(norm) + '" must be "post" or "pre"');
    if (D % H !== 0) fail('dModel (' + D + ') must be divisible by nHeads (' + H + ')');
    elems('hidden (L x dFF)', L, F);
    elems('scores (nHeads x L x L)', H * L, L);
    elems('x (L x dModel)', L, D);
    var a = attnSig(o, L, D, H), f = ffnSig(o, L, D, F);
    var code = F + ':' + norm + ':' + eps + ':' + a.key + ':' + f.key + ':' +
      LN_KEYS.map(function (k) { return given(o, k); }).join('');
    var lay = this._layout('block', L, D, H, code, function () {
      var lay = new Layout(['desc', 'outs'].concat(ATTN_DESC_PTRS, ATTN_OUT, LN_KEYS,
        prefixed('f_', FFN_PTRS), BLOCK_OUT));
      lay.input('x', 'x', L * D, true);
      addAttention(lay, o, L, D, H, a, ['attn']);
      addFfn(lay, o, L, D, F, f, 'f_', ['ffn']);
      LN_KEYS.forEach(function (k) { if (given(o, k)) lay.input(k, k, D, false); });
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
    var r = this._run(lay, o, function (m, p, err) {
      return m._bl_block_forward(p.desc, p.outs, 0, err);
    }, into);
    gateAlias(r.ffn);
    return r;
  };
