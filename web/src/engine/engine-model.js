/* engine-model.js - a trained GPT-2-style model in the engine: bl.loadModel reads a
   safetensors file (GPT-2's tensor names and Conv1D (in, out) layout), its config.json and its
   vocabulary, copies the weights into the wasm heap once (as float32) and returns a model whose
   forward(ids) runs bl_decoder_forward. Appended after engine.js in the same scope (its checks,
   errors and struct table), before engine-load.js. */
  /* global ABI, ACTIVATIONS, args, cut, dim, elems, Engine, fail, HEAP_MAX, optionNames */
  /* global outOfMemory, rethrow, show, TA_LENGTH, TA_TAG */

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
    if (n < 8) fail('weights: truncated file (' + n + ' bytes): a safetensors file starts with an 8-byte header length');
    const hlen = (bytes[0] | bytes[1] << 8 | bytes[2] << 16) + bytes[3] * 16777216 +
      (bytes[4] | bytes[5] << 8 | bytes[6] << 16) * 4294967296 + bytes[7] * 72057594037927936;
    if (hlen > n - 8)
      fail('weights: the header length (' + hlen + ' bytes) runs past the end of the file (' + n + ' bytes): truncated or not a safetensors file');
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
      if (!Array.isArray(o) || o.length !== 2 || !o.every(function (v) { return Number.isSafeInteger(v) && v >= 0; }) || o[0] > o[1])
        fail(bad + 'data_offsets must be [begin, end] with 0 <= begin <= end, not ' + cut(JSON.stringify(o) || show(o)));
      if (o[1] > size)
        fail('weights: tensor ' + q(name) + ' has data_offsets [' + o[0] + ', ' + o[1] + '], past the end of the data (' + size + ' bytes): truncated file?');
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

  /* The entry of tensor `name` (with the checkpoint's prefix), checked: present, a dtype this
     reads, the expected shape, exactly the bytes that shape needs. */
  function tensorOf(map, prefix, name, shape) {
    const t = map.get(prefix + name);
    if (!t) fail('weights: no tensor ' + q(prefix + name) + ' (GPT-2 names, with or without "transformer.")');
    const full = prefix + name;
    if (!Object.prototype.hasOwnProperty.call(ST_DTYPES, t.dtype))
      fail('weights: tensor ' + q(full) + ' has dtype ' + q(t.dtype) + '; BlockLens reads F32, F16 and BF16');
    if (t.shape.join() !== shape.join() || t.shape.length !== shape.length)
      fail('weights: tensor ' + q(full) + ' has shape [' + t.shape.join(', ') + '], expected [' + shape.join(', ') + ']');
    const need = shape.reduce(function (a, b) { return a * b; }, 1) * ST_DTYPES[t.dtype];
    if (t.end - t.begin !== need)
      fail('weights: tensor ' + q(full) + ' holds ' + (t.end - t.begin) + ' bytes; [' + shape.join(', ') + '] in ' + t.dtype + ' needs ' + need);
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

  /* GPT-2's config.json, read once: sizes, activation, eps (n_inner null: 4 n_embd). */
  const GPT2_ACT = { relu: 'relu', gelu: 'gelu', gelu_new: 'gelu_tanh', gelu_pytorch_tanh: 'gelu_tanh',
    gelu_tanh: 'gelu_tanh', silu: 'silu', swish: 'silu' };
  function readConfig(c) {
    if (c === null || typeof c !== 'object' || Array.isArray(c))
      fail('config must be an object (GPT-2\'s config.json), not ' + show(c));
    const r = {};
    try {
      ['n_embd', 'n_layer', 'n_head', 'n_positions', 'vocab_size', 'activation_function',
        'layer_norm_epsilon', 'n_inner', 'bos_token_id', 'unk_token_id'].forEach(function (k) { r[k] = c[k]; });
    } catch (e) {
      rethrow(e, 'loadModel');
    }
    ['n_embd', 'n_layer', 'n_head', 'n_positions', 'vocab_size'].forEach(function (k) { dim(r[k], 'config.' + k); });
    if (r.n_inner == null) r.n_inner = 4 * r.n_embd;
    dim(r.n_inner, 'config.n_inner');
    if (r.n_embd % r.n_head !== 0) fail('config.n_embd (' + r.n_embd + ') must be divisible by config.n_head (' + r.n_head + ')');
    const act = r.activation_function === undefined ? 'gelu_new' : r.activation_function;
    if (typeof act !== 'string' || !Object.prototype.hasOwnProperty.call(GPT2_ACT, act))
      fail('config.activation_function ' + show(act) + ' is not one of ' + Object.keys(GPT2_ACT).join(', '));
    r.activation_function = act;
    const eps = r.layer_norm_epsilon = r.layer_norm_epsilon === undefined ? 1e-5 : r.layer_norm_epsilon;
    if (typeof eps !== 'number' || !(eps > 0) || !(Math.fround(eps) > 0) || Math.fround(eps) === Infinity)
      fail('config.layer_norm_epsilon (' + (typeof eps === 'number' ? eps : show(eps)) + ') must be a positive number that float32 can hold');
    return r;
  }

  /* The vocabulary: vocab_size distinct strings; id = index. */
  function readVocab(v, size) {
    const list = new Array(size), ids = new Map();
    try {
      if (!Array.isArray(v)) fail('vocab must be an array of strings (token i is vocab[i]), not ' + show(v));
      if (v.length !== size) fail('vocab has ' + v.length + ' entries, config.vocab_size is ' + size);
      for (let i = 0; i < size; i++) {
        const s = v[i];
        if (typeof s !== 'string') fail('vocab[' + i + '] is ' + show(s) + ', not a string');
        if (ids.has(s)) fail('vocab[' + i + '] ' + q(s) + ' repeats vocab[' + ids.get(s) + ']');
        ids.set(s, i);
        list[i] = s;
      }
    } catch (e) {
      rethrow(e, 'loadModel');
    }
    return { list: list, ids: ids };
  }

  /* The heap copy of the weights: float offsets of each part (one table for size and use), and
     the bl_decoder_layer records after the floats. */
  const LAYER_PARTS = ['ln1_gamma', 'ln1_beta', 'wq', 'bq', 'wk', 'bk', 'wv', 'bv', 'wo', 'bo',
    'ln2_gamma', 'ln2_beta', 'w1', 'b1', 'w2', 'b2'];
  function weightPlan(D, F, V, P, NL) {
    const sizes = { ln1_gamma: D, ln1_beta: D, wq: D * D, bq: D, wk: D * D, bk: D, wv: D * D, bv: D,
      wo: D * D, bo: D, ln2_gamma: D, ln2_beta: D, w1: D * F, b1: F, w2: F * D, b2: D };
    let at = 0, plan = { wte: 0, layers: [] };
    at += V * D;
    plan.wpe = at; at += P * D;
    plan.lnf_gamma = at; at += D;
    plan.lnf_beta = at; at += D;
    for (let l = 0; l < NL; l++) {
      const p = {};
      LAYER_PARTS.forEach(function (k) { p[k] = at; at += sizes[k]; });
      plan.layers.push(p);
    }
    plan.floats = at;
    plan.records = at * 4;   /* byte offset of the bl_decoder_layer records */
    plan.bytes = plan.records + NL * ABI.bl_decoder_layer.sizeof;
    return plan;
  }

  const MODEL_ARGS = optionNames(['weights', 'config', 'vocab'], function (o) {
    return { weights: o.weights, config: o.config, vocab: o.vocab };
  });

  /* bl.loadModel({ weights, config, vocab }) -> a Model. A failed load leaves nothing allocated. */
  Engine.prototype.loadModel = function (o) {
    o = args(o, 'loadModel', MODEL_ARGS);
    let bytes = o.weights, tag = TA_TAG.call(bytes);
    if (Object.prototype.toString.call(bytes) === '[object ArrayBuffer]') bytes = new Uint8Array(bytes);
    else if (tag !== 'Uint8Array') fail('weights must be a Uint8Array (the bytes of a .safetensors file), not ' + show(bytes));
    const cfg = readConfig(o.config);
    const D = cfg.n_embd, F = cfg.n_inner, V = cfg.vocab_size, P = cfg.n_positions, NL = cfg.n_layer;
    const vocab = readVocab(o.vocab, V);
    elems('wte (vocab_size x n_embd)', V, D);
    elems('wpe (n_positions x n_embd)', P, D);
    elems('c_fc (n_embd x n_inner)', D, F);
    elems('c_attn (n_embd x 3 n_embd)', D, 3 * D);
    const map = parseSafetensors(bytes);
    const prefix = !map.has('wte.weight') && map.has('transformer.wte.weight') ? 'transformer.' : '';
    /* every tensor found and checked before any memory is taken */
    const t = { wte: tensorOf(map, prefix, 'wte.weight', [V, D]), wpe: tensorOf(map, prefix, 'wpe.weight', [P, D]),
      lnf_gamma: tensorOf(map, prefix, 'ln_f.weight', [D]), lnf_beta: tensorOf(map, prefix, 'ln_f.bias', [D]), layers: [] };
    for (let l = 0; l < NL; l++) {
      const h = 'h.' + l + '.';
      t.layers.push({
        ln1_gamma: tensorOf(map, prefix, h + 'ln_1.weight', [D]), ln1_beta: tensorOf(map, prefix, h + 'ln_1.bias', [D]),
        c_attn: tensorOf(map, prefix, h + 'attn.c_attn.weight', [D, 3 * D]),
        c_attn_b: tensorOf(map, prefix, h + 'attn.c_attn.bias', [3 * D]),
        wo: tensorOf(map, prefix, h + 'attn.c_proj.weight', [D, D]), bo: tensorOf(map, prefix, h + 'attn.c_proj.bias', [D]),
        ln2_gamma: tensorOf(map, prefix, h + 'ln_2.weight', [D]), ln2_beta: tensorOf(map, prefix, h + 'ln_2.bias', [D]),
        w1: tensorOf(map, prefix, h + 'mlp.c_fc.weight', [D, F]), b1: tensorOf(map, prefix, h + 'mlp.c_fc.bias', [F]),
        w2: tensorOf(map, prefix, h + 'mlp.c_proj.weight', [F, D]), b2: tensorOf(map, prefix, h + 'mlp.c_proj.bias', [D])
      });
    }
    const plan = weightPlan(D, F, V, P, NL), m = this._m;
    const what = 'loadModel (n_layer ' + NL + ', n_embd ' + D + ', vocab_size ' + V + ')';
    if (plan.bytes > HEAP_MAX) outOfMemory(what, plan.bytes, false);
    const base = m._malloc(plan.bytes);
    if (!base) outOfMemory(what, plan.bytes, true);
    try {
      copyWeights(m, bytes, t, plan, base >> 2, D);
    } catch (e) {
      m._free(base);
      throw e;
    }
    return new Model(this, base, plan, cfg, vocab);
  };

  /* The checked tensors into the heap at float index f0, c_attn split into wq, wk, wv (its
     column blocks); each part then checked for NaN and infinity; the layer records written. */
  function copyWeights(m, bytes, t, plan, f0, D) {
    const parts = [];   /* for the finite check: { at: float index, n, tensor, what } */
    function whole(tensor, at, n) {
      decodeInto(m, bytes, tensor, 0, n, f0 + at);
      parts.push({ at: f0 + at, n: n, tensor: tensor, what: '' });
    }
    whole(t.wte, plan.wte, t.wte.shape[0] * D);
    whole(t.wpe, plan.wpe, t.wpe.shape[0] * D);
    whole(t.lnf_gamma, plan.lnf_gamma, D);
    whole(t.lnf_beta, plan.lnf_beta, D);
    t.layers.forEach(function (w, l) {
      const p = plan.layers[l], F = w.b1.shape[0];
      ['ln1_gamma', 'ln1_beta', 'wo', 'bo', 'ln2_gamma', 'ln2_beta', 'b1', 'b2'].forEach(function (k) {
        whole(w[k], p[k], w[k].shape.reduce(function (a, b) { return a * b; }, 1));
      });
      whole(w.w1, p.w1, D * F);
      whole(w.w2, p.w2, F * D);
      ['q', 'k', 'v'].forEach(function (c, j) {
        for (let r = 0; r < D; r++) decodeInto(m, bytes, w.c_attn, r * 3 * D + j * D, D, f0 + p['w' + c] + r * D);
        parts.push({ at: f0 + p['w' + c], n: D * D, tensor: w.c_attn, what: ' (its ' + c + ' columns)' });
        decodeInto(m, bytes, w.c_attn_b, j * D, D, f0 + p['b' + c]);
        parts.push({ at: f0 + p['b' + c], n: D, tensor: w.c_attn_b, what: ' (its ' + c + ' part)' });
      });
    });
    parts.forEach(function (x) {
      const bad = m._bl__first_nonfinite(x.at * 4, x.n);
      if (bad >= 0) fail('weights: tensor ' + q(x.tensor.name) + x.what + ' holds ' + m.HEAPF32[x.at + bad] + ' at value ' + bad);
    });
    const rec = (f0 * 4 + plan.records) >> 2, size = ABI.bl_decoder_layer.sizeof >> 2;
    plan.layers.forEach(function (p, l) {
      LAYER_PARTS.forEach(function (k) { m.HEAP32[rec + l * size + (ABI.bl_decoder_layer[k] >> 2)] = (f0 + p[k]) * 4; });
    });
  }

  /* A loaded model: its weights stay in the heap (base) until free(). */
  function Model(engine, base, plan, cfg, vocab) {
    this._engine = engine;
    this._base = base;
    this._plan = plan;
    this._ids = vocab.ids;
    this.config = cfg;
    this.vocab = vocab.list;
    this.nLayers = cfg.n_layer;
    this.dModel = cfg.n_embd;
    this.nHeads = cfg.n_head;
    this.dFF = cfg.n_inner;
    this.vocabSize = cfg.vocab_size;
    this.nPositions = cfg.n_positions;
    this.activation = GPT2_ACT[cfg.activation_function];
    this.eps = cfg.layer_norm_epsilon;
    this.heapBytes = plan.bytes;
    this.bosId = special(vocab.ids, '<s>', cfg.bos_token_id, cfg.vocab_size);
    this.unkId = special(vocab.ids, '<unk>', cfg.unk_token_id, cfg.vocab_size);
  }

  /* The id of a special token: the vocabulary's `text`, else the config's id, else -1. */
  function special(ids, text, id, n) {
    if (ids.has(text)) return ids.get(text);
    return Number.isInteger(id) && id >= 0 && id < n ? id : -1;
  }

  Model.prototype._live = function (fn) {
    if (!this._base) fail(fn + ': this model was freed (free() was called)');
  };

  /* "<s>" then one id per character (code point); "<unk>" for characters not in the vocabulary
     (without those strings in the vocabulary: config.bos_token_id, config.unk_token_id). */
  Model.prototype.encode = function (text) {
    this._live('encode');
    if (typeof text !== 'string') fail('encode expects a string, not ' + show(text));
    if (this.bosId < 0) fail('encode: the vocabulary has no "<s>" (nor the config a bos_token_id)');
    const chars = Array.from(text), out = new Int32Array(chars.length + 1);
    out[0] = this.bosId;
    for (let i = 0; i < chars.length; i++) {
      let id = this._ids.get(chars[i]);
      if (id === undefined) {
        if (this.unkId < 0) fail('encode: ' + q(chars[i]) + ' is not in the vocabulary, which has no "<unk>"');
        id = this.unkId;
      }
      out[i + 1] = id;
    }
    return out;
  };

  /* The vocabulary's strings of ids, joined (special tokens as the vocabulary writes them). */
  Model.prototype.decode = function (ids) {
    this._live('decode');
    const list = this._idList(ids, 'decode', 0);
    let s = '';
    for (let i = 0; i < list.length; i++) s += this.vocab[list[i]];
    return s;
  };

  /* ids as an Int32Array of values in [0, vocabSize), read once; max > 0 bounds the length. */
  Model.prototype._idList = function (ids, fn, max) {
    let tag = TA_TAG.call(ids), n;
    try {
      if (tag && tag !== 'Float32Array' && tag !== 'Float64Array' && tag !== 'BigInt64Array' && tag !== 'BigUint64Array') n = TA_LENGTH.call(ids);
      else if (Array.isArray(ids)) n = ids.length;
      else fail(fn + ' expects ids: an Int32Array or an array of token ids, not ' + show(ids));
      if (max && (n < 1 || n > max)) fail(fn + ': ids has ' + n + ' tokens; the model reads 1 to ' + max + ' (n_positions)');
      const out = new Int32Array(n);
      for (let i = 0; i < n; i++) {
        const v = ids[i];
        if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v >= this.vocabSize)
          fail(fn + ': ids[' + i + '] (' + (typeof v === 'number' ? v : show(v)) + ') must be in [0, vocab ' + this.vocabSize + ')');
        out[i] = v;
      }
      return out;
    } catch (e) {
      rethrow(e, fn);
    }
  };

  /* Which layers' intermediates forward keeps: opts.layers, a list of layer indices (default
     all). */
  Model.prototype._chosen = function (opts) {
    const NL = this.nLayers, keep = new Array(NL).fill(opts === undefined);
    if (opts === undefined) return keep;
    if (opts === null || typeof opts !== 'object' || Array.isArray(opts)) fail('forward: opts must be an object ({ layers }), not ' + show(opts));
    let list;
    try {
      Object.keys(opts).forEach(function (k) { if (k !== 'layers') fail('forward has no option ' + q(k) + ' (known: layers)'); });
      list = opts.layers;
      if (list === undefined) return keep.fill(true);
      if (!Array.isArray(list)) fail('forward: layers must be an array of layer indices, not ' + show(list));
      list = list.slice();
    } catch (e) {
      rethrow(e, 'forward');
    }
    list.forEach(function (l, i) {
      if (typeof l !== 'number' || !Number.isInteger(l) || l < 0 || l >= NL)
        fail('forward: layers[' + i + '] (' + (typeof l === 'number' ? l : show(l)) + ') must be a layer index in [0, ' + NL + ')');
      keep[l] = true;
    });
    return keep;
  };

  /* The outputs of one kept layer, in bl_decoder_layer_out's field order with their sizes. */
  const KEPT = ['norm1', 'q', 'k', 'v', 'scores', 'weights', 'context', 'concat', 'attn_out', 'resid1', 'norm2',
    'hidden', 'activated', 'ffn_out', 'resid2'];

  /* forward(ids, { layers }) -> { logits (L x vocab), embeddings, hidden (after ln_f),
     layers: per layer null or { x, norm1, attention: { q, k, v, scores, weights, context, concat,
     out }, resid1, norm2, ffn: { hidden, activated, out }, resid2 } }. */
  Model.prototype.forward = function (ids, opts) {
    this._live('forward');
    const list = this._idList(ids, 'forward', this.nPositions), keep = this._chosen(opts);
    const L = list.length, D = this.dModel, H = this.nHeads, F = this.dFF, V = this.vocabSize, NL = this.nLayers;
    elems('logits (L x vocab)', L, V);
    elems('scores (nHeads x L x L)', H * L, L);
    const size = { norm1: L * D, q: L * D, k: L * D, v: L * D, scores: H * L * L, weights: H * L * L, context: L * D,
      concat: L * D, attn_out: L * D, resid1: L * D, norm2: L * D, hidden: L * F, activated: L * F, ffn_out: L * D, resid2: L * D };
    /* records: desc, out, the layer-out pointers, one layer-out per layer that keeps anything
       (a kept layer's input is the previous layer's resid2), ids; then the outputs, the workspace */
    let A = ABI, recs = [], bytes = 0, l, k, i;
    function take(n) { const at = bytes; bytes += Math.ceil(n / 16) * 16; return at; }
    const descAt = take(A.bl_decoder_desc.sizeof), outAt = take(A.bl_decoder_out.sizeof), listAt = take(4 * NL);
    for (l = 0; l < NL; l++) recs.push(keep[l] || (l + 1 < NL && keep[l + 1]) ? take(A.bl_decoder_layer_out.sizeof) : -1);
    /* per output { at: byte offset, n: floats, key: its name in `kept`, layer (-1: the model's),
       field: its bl_decoder_layer_out field } */
    const idsAt = take(4 * L), first = bytes, outs = [];
    function output(n, layer, field) {
      outs.push({ at: take(4 * n), n: n, key: layer < 0 ? field : layer + '.' + field, layer: layer, field: field });
    }
    output(L * V, -1, 'logits');
    output(L * D, -1, 'embeddings');
    output(L * D, -1, 'hidden');
    for (l = 0; l < NL; l++) {
      if (keep[l]) for (k = 0; k < KEPT.length; k++) output(size[KEPT[k]], l, KEPT[k]);
      else if (recs[l] >= 0) output(L * D, l, 'resid2');
    }
    const last = bytes, wsFloats = L * (12 * D + F + 1), wsAt = take(4 * wsFloats);
    const engine = this._engine, m = engine._m;
    const base = engine._block(bytes, 'forward (L ' + L + ', n_layer ' + NL + ', vocab ' + V + ')'), err = base + bytes;
    const i32 = m.HEAP32, w = this._base + this._plan.records, wb = this._base;
    function word(at, v) { i32[(base + at) >> 2] = v; }
    for (let z = base >> 2; z < (base + first) >> 2; z++) i32[z] = 0;   /* NULL = not kept */
    const dd = A.bl_decoder_desc, p = this._plan;
    const desc = { n_layers: NL, d_model: D, n_heads: H, d_ff: F, vocab: V, n_positions: this.nPositions,
      activation: ACTIVATIONS.indexOf(this.activation), L: L, ids: base + idsAt, wte: wb + p.wte * 4,
      wpe: wb + p.wpe * 4, layers: w, lnf_gamma: wb + p.lnf_gamma * 4, lnf_beta: wb + p.lnf_beta * 4 };
    for (const f in desc) word(descAt + dd[f], desc[f]);
    m.HEAPF32[(base + descAt + dd.eps) >> 2] = this.eps;
    if (m._bl_decoder_workspace_size(base + descAt) !== wsFloats) fail('internal: the decoder\'s workspace size disagrees with the wrapper\'s');
    const dout = A.bl_decoder_out, lo = A.bl_decoder_layer_out, kept = {};
    word(outAt + dout.logits, base + outs[0].at);
    word(outAt + dout.embed, base + outs[1].at);
    word(outAt + dout.hidden, base + outs[2].at);
    word(outAt + dout.layers, base + listAt);
    for (l = 0; l < NL; l++) if (recs[l] >= 0) word(listAt + 4 * l, base + recs[l]);
    for (i = 3; i < outs.length; i++) word(recs[outs[i].layer] + lo[outs[i].field], base + outs[i].at);
    i32.set(list, (base + idsAt) >> 2);
    engine._check(m._bl_decoder_forward(base + descAt, base + outAt, base + wsAt, err), err);
    /* one copy of every output out of the heap (re-read: memory may have grown) */
    const all = m.HEAPF32.slice((base + first) >> 2, (base + last) >> 2), buf = all.buffer;
    for (i = 0; i < outs.length; i++) kept[outs[i].key] = new Float32Array(buf, outs[i].at - first, outs[i].n);
    const res = { logits: kept.logits, embeddings: kept.embeddings, hidden: kept.hidden, layers: [] };
    for (l = 0; l < NL; l++) {
      if (!keep[l]) { res.layers.push(null); continue; }
      const g = function (name) { return kept[l + '.' + name]; };
      const x = l === 0 ? kept.embeddings : kept[(l - 1) + '.resid2'];
      res.layers.push({ x: x, input: x, norm1: g('norm1'),
        attention: { q: g('q'), k: g('k'), v: g('v'), scores: g('scores'), weights: g('weights'),
          context: g('context'), concat: g('concat'), out: g('attn_out') },
        resid1: g('resid1'), norm2: g('norm2'), ffn: { hidden: g('hidden'), activated: g('activated'), out: g('ffn_out') },
        resid2: g('resid2') });
    }
    return res;
  };

  /* Layer l's weights in the JS API's names (as engine.attention / ffn / encoderLayer take
     them): copies out of the heap, c_attn already split into Wq, Wk, Wv. */
  const JS_WEIGHT = { ln1_gamma: 'ln1Gamma', ln1_beta: 'ln1Beta', wq: 'Wq', bq: 'bq', wk: 'Wk', bk: 'bk',
    wv: 'Wv', bv: 'bv', wo: 'Wo', bo: 'bo', ln2_gamma: 'ln2Gamma', ln2_beta: 'ln2Beta', w1: 'W1', b1: 'b1',
    w2: 'W2', b2: 'b2' };
  Model.prototype.layerWeights = function (l) {
    this._live('layerWeights');
    if (typeof l !== 'number' || !Number.isInteger(l) || l < 0 || l >= this.nLayers)
      fail('layerWeights: layer ' + (typeof l === 'number' ? '(' + l + ') ' : show(l) + ' ') + 'must be a layer index in [0, ' + this.nLayers + ')');
    const p = this._plan.layers[l], next = l + 1 < this.nLayers ? this._plan.layers[l + 1].ln1_gamma : this._plan.floats;
    const f0 = this._base >> 2, heap = this._engine._m.HEAPF32, r = {};
    LAYER_PARTS.forEach(function (k, i) {
      const end = i + 1 < LAYER_PARTS.length ? p[LAYER_PARTS[i + 1]] : next;
      r[JS_WEIGHT[k]] = heap.slice(f0 + p[k], f0 + end);
    });
    return r;
  };

  /* Gives the weights' heap memory back; the model cannot be used after. Safe to call twice. */
  Model.prototype.free = function () {
    if (this._base) this._engine._m._free(this._base);
    this._base = 0;
  };
