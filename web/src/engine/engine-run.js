/* engine-run.js - how every call runs: the heap block (kept and reused), C's status turned into
   an Error, the inputs checked and copied in, and the outputs copied out as caller-owned arrays
   (a fresh buffer, the pool, or the arrays of a previous result passed as `into`); the layout cache. */
  /* global ABI, Engine, fail, floats, HEAP_MAX, heapAlloc, idx4, keyMask, notFinite, outOfMemory, POOL_BYTES */
  /* global POOL_MAX */
  /* global heldAddresses, heldInput, heldWords, isHeld, rethrow, TA_BUFFER, TA_LENGTH, TA_OFFSET, TA_SET, TA_TAG */

  /* C argument names -> the JS names users wrote, for messages that come from C. */
  const C_NAMES = { d_model: 'dModel', n_heads: 'nHeads', d_ff: 'dFF', n_kv_heads: 'nKvHeads',
    n_experts: 'nExperts', top_k: 'topK', n_layers: 'nLayers', n_dec_layers: 'nDecLayers',
    max_positions: 'maxPositions', type_vocab: 'typeVocab', key_mask: 'keyMask',
    ln1_gamma: 'ln1Gamma', ln1_beta: 'ln1Beta', ln2_gamma: 'ln2Gamma', ln2_beta: 'ln2Beta',
    w1: 'W1', w2: 'W2', w3: 'W3', wq: 'Wq', wk: 'Wk', wv: 'Wv', wo: 'Wo', wr: 'Wr',
    top_index: 'topIndex', top_weight: 'topWeight' };

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
      this._arena = heapAlloc(m, Math.max(need, 1 << 16));
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
    let late = false, held = null, handles = null, i, d;
    /* The caller's code (getters, Proxy traps, elements of plain arrays) runs in this block only:
       `into` is read first and checked after the inputs (their errors come first). */
    try {
      if (into !== undefined) dst = readInto(into, lay);
      for (i = 0; i < n; i++) {
        d = ins[i];
        const value = o[d.prop];
        /* weights of engine.holdWeights (engine-weights.js): already in the heap, not copied */
        if (isHeld(value)) {
          if (!held) { held = []; handles = []; }
          held.push(i, heldInput(this, value, d));
          handles.push(value);
          vals[i] = null;
          continue;
        }
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
    /* ... and a handle freed by it (its address is checked again) */
    if (late && held)
      for (i = 0; i < handles.length; i++) heldInput(this, handles[i], ins[held[2 * i]]);
    if (dst !== null) whole = intoPlan(lay, dst);
    const m = this._m, base = this._block(lay.bytes, lay), heap = m.HEAPF32;
    let p = lay.at(base);
    const inAt = lay.inAt;
    for (i = 0; i < n; i++) {
      if (vals[i] === null) continue;   /* held */
      if (ins[i].kind === 'f') heap.set(vals[i], idx4(inAt[i]));
      else m.HEAPU8.set(vals[i], inAt[i]);
    }
    if (held) p = heldAddresses(lay, p, held);
    if (lay.records.length) m.HEAP32.set(held ? heldWords(lay, held) : lay.words, idx4(lay.wordsAt));
    /* NaN / infinity in a float input (as float32: a Float64Array's 1e300 is one too) */
    const bad = lay.floatIns.length ? m._bl__first_nonfinite_of(p.finite, lay.floatIns.length) : -1;
    if (bad >= 0) {
      d = lay.floatIns[bad];
      const at2 = m._bl__first_nonfinite(p[d.heap], d.n);
      notFinite(d.prop, at2, vals[lay.floatAt[bad]][at2]);
    }
    this._check(invoke(m, p, base + lay.bytes, lay, arg), base + lay.bytes);
    /* re-read HEAPF32: memory may have grown */
    const views = lay.views(m.HEAPF32, idx4(base + lay.outAt));
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
    return d.type === 'Int32Array' ? new Int32Array(buf, off + d.at * 4, d.n)
      : new Float32Array(buf, off + d.at * 4, d.n);
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
