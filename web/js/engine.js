/* engine.js - the BlockLens JavaScript API: the only code that touches the wasm heap.
   Appended to Emscripten's output (the BlockLensCore factory) inside engine-pre.js's scope;
   engine-load.js follows it (parameter counts, random streams, load).
   Every call checks its arguments, copies them into one heap block (kept and reused by the
   next call, so the heap does not grow per call), calls C and copies the results out as
   caller-owned Float32Arrays. */

  var ACTIVATIONS = ['relu', 'gelu', 'gelu_tanh', 'silu', 'identity', 'swiglu', 'geglu'];
  var GATED = { swiglu: 1, geglu: 1 };
  var MAX_DIM = 65536, MAX_ELEMS = 1 << 28;
  /* sizeof of bl_error, bl_rng, bl_ffn_desc, bl_ffn_out, bl_attention_desc, bl_attention_out,
     bl_block_desc, bl_block_out on wasm32: the field tables below must agree (checked at load). */
  var ABI_SIZES = [196, 2512, 44, 16, 60, 32, 116, 68];
  var RNG_BYTES = 2512, ERR_BYTES = 196;
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

  /* A float array argument: Float32Array, Float64Array or plain array of finite numbers. */
  function floats(o, name, n, required) {
    var v = o[name];
    if (v === undefined || v === null) {
      if (required) fail(name + ' is required (' + n + ' numbers)');
      return null;
    }
    var ok = v instanceof Float32Array || v instanceof Float64Array || Array.isArray(v);
    if (!ok) fail(name + ' must be a Float32Array or an array of numbers');
    if (v.length !== n) fail(name + ' has ' + v.length + ' values, expected ' + n);
    var i;
    if (v instanceof Float32Array) {           /* numbers for sure: x - x is 0 unless NaN/inf */
      for (i = 0; i < n; i++) if (v[i] - v[i] !== 0) break;
      if (i === n) return v;
    }
    for (i = 0; i < n; i++)
      if (typeof v[i] !== 'number' || !isFinite(v[i]))
        fail(name + '[' + i + '] is ' + String(v[i]) + ', not a finite number');
    return v;
  }

  /* Lays out a call's buffers in one heap block; ptr(name) gives each address. Outputs sit
     back to back at the end, so a single copy brings them all out. */
  function Plan() { this.bytes = 0; this.at = {}; this.inputs = []; this.outs = []; this.outFloats = 0; }
  Plan.prototype.add = function (name, nbytes) {
    this.at[name] = this.bytes;
    this.bytes += (nbytes + 15) & ~15;
  };
  Plan.prototype.input = function (name, array) {
    if (array === null) return;
    this.add(name, array.length * 4);
    this.inputs.push(this.at[name], array);     /* flat (offset, array) pairs */
  };
  Plan.prototype.output = function (name, n) {
    this.outs.push([name, n]);
    this.outFloats += n;
  };
  Plan.prototype.finish = function () {
    for (var i = 0; i < this.outs.length; i++) {
      this.at[this.outs[i][0]] = this.bytes;
      this.bytes += this.outs[i][1] * 4;
    }
  };

  function Engine(mod) {
    this._m = mod;
    this._arena = 0;
    this._arenaBytes = 0;
    this.activations = ACTIVATIONS.slice();
    var n = mod._bl_preset_count(), names = [];
    for (var i = 0; i < n; i++) names.push(mod.UTF8ToString(mod._bl_preset_name(i)));
    this.presets = names;
    var sizes = this._call(ABI_SIZES.length * 4, function (base, m) {
      m._bl__abi_sizes(base, ABI_SIZES.length);
      return Array.prototype.slice.call(m.HEAP32.subarray(base >> 2, (base >> 2) + ABI_SIZES.length));
    });
    if (sizes.join() !== ABI_SIZES.join())
      fail('wasm struct sizes ' + sizes.join() + ' do not match the wrapper ' + ABI_SIZES.join());
  }

  /* Size of the wasm memory in bytes (it grows on demand and never shrinks). */
  Engine.prototype.heapBytes = function () { return this._m.HEAPU8.length; };

  /* Runs fn(base, module, errPtr) on a heap block of `bytes` plus an error record. The block
     is kept for the next call and only replaced by a larger one, so repeated calls neither
     malloc nor grow the heap (and small calls stay cheap). */
  Engine.prototype._call = function (bytes, fn) {
    var m = this._m, need = bytes + ERR_BYTES;
    if (need > this._arenaBytes) {
      if (this._arena) m._free(this._arena);
      this._arenaBytes = 0;
      this._arena = m._malloc(Math.max(need, 1 << 16));
      if (!this._arena) fail('out of memory: could not allocate ' + need + ' bytes');
      this._arenaBytes = Math.max(need, 1 << 16);
    }
    return fn(this._arena, m, this._arena + bytes);
  };

  Engine.prototype._check = function (status, errPtr) {
    if (status === 0) return;
    var msg = this._m.UTF8ToString(errPtr + 4);
    msg = msg.replace(/\b[a-z0-9]+(?:_[a-z0-9]+)+\b|\bw[1-3qkvo]\b/g, function (w) {
      return C_NAMES[w] || w;
    });
    fail(msg || ('status ' + status));
  };

  /* Runs a plan: copies inputs in, writes the descriptor words, calls, copies outputs out. */
  Engine.prototype._run = function (plan, invoke) {
    var self = this;
    plan.finish();
    return this._call(plan.bytes, function (base, m, errPtr) {
      var i, heap = m.HEAPF32, at = plan.at, inputs = plan.inputs;
      for (i = 0; i < inputs.length; i += 2) heap.set(inputs[i + 1], (base + inputs[i]) >> 2);
      var ptr = function (name) { var off = at[name]; return off === undefined ? 0 : base + off; };
      var status = invoke(m, ptr, errPtr);
      self._check(status, errPtr);
      /* One fresh buffer holds every output; re-read HEAPF32: memory may have grown. */
      var start = ptr(plan.outs[0][0]) >> 2, res = {}, off = 0;
      var all = new Float32Array(plan.outFloats);
      all.set(m.HEAPF32.subarray(start, start + plan.outFloats));
      for (i = 0; i < plan.outs.length; i++) {
        res[plan.outs[i][0]] = all.subarray(off, off + plan.outs[i][1]);
        off += plan.outs[i][1];
      }
      return res;
    });
  };

  /* Writes descriptor words (ints, pointers, floats) at `at`; floats marked by {f: value}. */
  function writeWords(m, at, list) {
    for (var i = 0; i < list.length; i++) {
      var w = list[i];
      if (w !== null && typeof w === 'object') m.HEAPF32[(at >> 2) + i] = w.f;
      else m.HEAP32[(at >> 2) + i] = w | 0;
    }
  }

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

  /* FFN inputs onto a plan; returns the names used in messages and the activation. */
  function planFfn(plan, o, L, D, F, prefix) {
    var act = activationOf(o), gated = !!GATED[ACTIVATIONS[act]], n = ffnWeights(o);
    elems('hidden (L x dFF)', L, F);
    elems(n.W1 + ' (dModel x dFF)', D, F);
    plan.input(prefix + 'W1', floats(o, n.W1, D * F, true));
    plan.input(prefix + 'b1', floats(o, n.b1, F, false));
    if (gated) {
      plan.input(prefix + 'W3', floats(o, n.W3, D * F, true));
      plan.input(prefix + 'b3', floats(o, n.b3, F, false));
    } else if (o[n.W3] !== undefined || o[n.b3] !== undefined) {
      fail(n.W3 + '/' + n.b3 + ' are only used by gated activations (swiglu, geglu), not ' + ACTIVATIONS[act]);
    }
    plan.input(prefix + 'W2', floats(o, n.W2, F * D, true));
    plan.input(prefix + 'b2', floats(o, n.b2, D, false));
    plan.output(prefix + 'hidden', L * F);
    if (gated) plan.output(prefix + 'up', L * F);
    plan.output(prefix + 'activated', L * F);
    plan.output(prefix + 'ffnOut', L * D);
    return { act: act, gated: gated };
  }

  function ffnOutWords(ptr, prefix) {
    return [ptr(prefix + 'hidden'), ptr(prefix + 'up'), ptr(prefix + 'activated'), ptr(prefix + 'ffnOut')];
  }

  function ffnResult(r, prefix, gated) {
    var out = { hidden: r[prefix + 'hidden'], activated: r[prefix + 'activated'], out: r[prefix + 'ffnOut'] };
    if (gated) { out.gate = out.hidden; out.up = r[prefix + 'up']; }
    return out;
  }

  Engine.prototype.ffn = function (o) {
    options(o, 'ffn');
    var L = dim(o, 'L'), D = dim(o, 'dModel'), F = dim(o, 'dFF'), plan = new Plan();
    elems('hidden (L x dFF)', L, F);
    elems('x (L x dModel)', L, D);
    plan.input('x', floats(o, 'x', L * D, true));
    var f = planFfn(plan, o, L, D, F, '');
    plan.add('desc', 44);
    plan.add('outs', 16);
    var r = this._run(plan, function (m, ptr, err) {
      writeWords(m, ptr('desc'), [L, D, F, f.act, ptr('x'), ptr('W1'), ptr('b1'), ptr('W3'),
        ptr('b3'), ptr('W2'), ptr('b2')]);
      writeWords(m, ptr('outs'), ffnOutWords(ptr, ''));
      return m._bl_ffn_forward(ptr('desc'), ptr('outs'), err);
    });
    return ffnResult(r, '', f.gated);
  };

  /* Attention inputs and outputs onto a plan (shared by attention and encoderLayer). */
  function planAttention(plan, o, L, D, H) {
    elems('Wq (dModel x dModel)', D, D);
    ['Wq', 'bq', 'Wk', 'bk', 'Wv', 'bv', 'Wo', 'bo'].forEach(function (k) {
      plan.input(k, floats(o, k, k[0] === 'W' ? D * D : D, k[0] === 'W'));
    });
    var mask = null;
    if (o.keyMask !== undefined && o.keyMask !== null) {
      var km = o.keyMask;
      if (!(Array.isArray(km) || ArrayBuffer.isView(km)) || km.length !== L)
        fail('keyMask must be an array of ' + L + ' booleans or 0/1 values');
      mask = new Uint8Array(L);
      for (var i = 0; i < L; i++) mask[i] = km[i] ? 1 : 0;
      plan.add('keyMask', L);
    }
    var causal = flag(o, 'causal', false), noScale = !flag(o, 'scale', true);
    [['q', L * D], ['k', L * D], ['v', L * D], ['scores', H * L * L], ['weights', H * L * L],
      ['context', L * D], ['concat', L * D], ['attnOut', L * D]].forEach(function (b) {
      plan.output(b[0], b[1]);
    });
    return { mask: mask, causal: causal, noScale: noScale };
  }

  function attnOutWords(ptr) {
    return [ptr('q'), ptr('k'), ptr('v'), ptr('scores'), ptr('weights'), ptr('context'),
      ptr('concat'), ptr('attnOut')];
  }

  function attnResult(r) {
    return { q: r.q, k: r.k, v: r.v, scores: r.scores, weights: r.weights,
      context: r.context, concat: r.concat, out: r.attnOut };
  }

  function writeMask(m, ptr, mask) { if (mask) m.HEAPU8.set(mask, ptr('keyMask')); }

  Engine.prototype.attention = function (o) {
    options(o, 'attention');
    var L = dim(o, 'L'), D = dim(o, 'dModel'), H = dim(o, 'nHeads'), plan = new Plan();
    if (D % H !== 0) fail('dModel (' + D + ') must be divisible by nHeads (' + H + ')');
    elems('scores (nHeads x L x L)', H * L, L);
    elems('x (L x dModel)', L, D);
    plan.input('x', floats(o, 'x', L * D, true));
    var a = planAttention(plan, o, L, D, H);
    plan.add('desc', 60);
    plan.add('outs', 32);
    return attnResult(this._run(plan, function (m, ptr, err) {
      writeMask(m, ptr, a.mask);
      writeWords(m, ptr('desc'), [L, D, H, a.causal, a.noScale, ptr('keyMask'), ptr('x'),
        ptr('Wq'), ptr('bq'), ptr('Wk'), ptr('bk'), ptr('Wv'), ptr('bv'), ptr('Wo'), ptr('bo')]);
      writeWords(m, ptr('outs'), attnOutWords(ptr));
      return m._bl_attention_forward(ptr('desc'), ptr('outs'), 0, err);
    }));
  };

  function epsOf(o) {
    var eps = o.eps === undefined ? 1e-5 : o.eps;
    if (typeof eps !== 'number' || !(eps > 0) || !isFinite(eps) || Math.fround(eps) === 0)
      fail('eps (' + String(eps) + ') must be a positive finite number');
    return eps;
  }

  /* kind: 'layer' | 'rms' | 'batch'. Statistics are per token, or per feature for batch. */
  Engine.prototype._norm = function (o, kind) {
    options(o, kind + 'Norm');
    var L = dim(o, 'L'), d = dim(o, 'd'), eps = epsOf(o), plan = new Plan();
    var nStat = kind === 'batch' ? d : L;
    elems('x (L x d)', L, d);
    plan.input('x', floats(o, 'x', L * d, true));
    plan.input('gamma', floats(o, 'gamma', d, false));
    if (kind !== 'rms') plan.input('beta', floats(o, 'beta', d, false));
    else if (o.beta !== undefined) fail('beta is not used by rmsNorm');
    plan.output('out', L * d);
    if (kind !== 'rms') plan.output('mean', nStat);
    plan.output('rstd', nStat);
    return this._run(plan, function (m, ptr, err) {
      if (kind === 'rms')
        return m._bl_rmsnorm_forward(ptr('out'), ptr('rstd'), ptr('x'), ptr('gamma'), L, d, eps, err);
      var fn = kind === 'layer' ? m._bl_layernorm_forward : m._bl_batchnorm_forward;
      return fn(ptr('out'), ptr('mean'), ptr('rstd'), ptr('x'), ptr('gamma'), ptr('beta'), L, d, eps, err);
    });
  };
  Engine.prototype.layerNorm = function (o) { return this._norm(o, 'layer'); };
  Engine.prototype.rmsNorm = function (o) { return this._norm(o, 'rms'); };
  Engine.prototype.batchNorm = function (o) { return this._norm(o, 'batch'); };

  Engine.prototype.encoderLayer = function (o) {
    options(o, 'encoderLayer');
    var L = dim(o, 'L'), D = dim(o, 'dModel'), H = dim(o, 'nHeads'), F = dim(o, 'dFF');
    var norm = o.norm === undefined ? 'post' : o.norm, eps = epsOf(o), plan = new Plan();
    if (norm !== 'post' && norm !== 'pre') fail('norm "' + String(norm) + '" must be "post" or "pre"');
    if (D % H !== 0) fail('dModel (' + D + ') must be divisible by nHeads (' + H + ')');
    elems('hidden (L x dFF)', L, F);
    elems('scores (nHeads x L x L)', H * L, L);
    elems('x (L x dModel)', L, D);
    plan.input('x', floats(o, 'x', L * D, true));
    var a = planAttention(plan, o, L, D, H);
    var f = planFfn(plan, o, L, D, F, 'f_');
    ['ln1Gamma', 'ln1Beta', 'ln2Gamma', 'ln2Beta'].forEach(function (k) {
      plan.input(k, floats(o, k, D, false));
    });
    ['resid1', 'norm1', 'resid2', 'norm2', 'out'].forEach(function (k) { plan.output(k, L * D); });
    plan.add('desc', 116);
    plan.add('outs', 68);
    var r = this._run(plan, function (m, ptr, err) {
      writeMask(m, ptr, a.mask);
      writeWords(m, ptr('desc'), [L, D, H, F, f.act, norm === 'pre', a.causal, a.noScale,
        ptr('keyMask'), { f: eps }, ptr('x'), ptr('Wq'), ptr('bq'), ptr('Wk'), ptr('bk'),
        ptr('Wv'), ptr('bv'), ptr('Wo'), ptr('bo'), ptr('ln1Gamma'), ptr('ln1Beta'),
        ptr('ln2Gamma'), ptr('ln2Beta'), ptr('f_W1'), ptr('f_b1'), ptr('f_W3'), ptr('f_b3'),
        ptr('f_W2'), ptr('f_b2')]);
      writeWords(m, ptr('outs'), attnOutWords(ptr).concat(ffnOutWords(ptr, 'f_'),
        [ptr('resid1'), ptr('norm1'), ptr('resid2'), ptr('norm2'), ptr('out')]));
      return m._bl_block_forward(ptr('desc'), ptr('outs'), 0, err);
    });
    return { attn: attnResult(r), ffn: ffnResult(r, 'f_', f.gated), resid1: r.resid1,
      norm1: r.norm1, resid2: r.resid2, norm2: r.norm2, out: r.out };
  };
