/* engine-llama.js - the Llama family in the engine (model_type llama, mistral, qwen2, qwen3): its
   config.json, its tensor names in nn.Linear's (out, in) layout mapped onto bl_llama_forward's
   descriptor, the heap plan of its weights (kept in the file's dtype: a BF16 model takes half the
   heap a float32 copy would), forward and layerWeights. engine-model.js picks it by model_type. */
  /* global ABI, dim, elems, fail, idx4, MAX_ELEMS, q, rethrow, runForward, show, tensorOf */
  /* exported LLAMA */

  /* What differs by model_type: which projections carry biases (Qwen2: q, k, v always, never o;
     the others: attention_bias for all four), the per-head q / k norms (Qwen3), and whether a
     sliding window applies (Mistral: sliding_window; Qwen: only with use_sliding_window). */
  const LLAMA_KINDS = {
    llama: { qwen2Bias: false, qkNorm: false, window: 'never' },
    mistral: { qwen2Bias: false, qkNorm: false, window: 'sliding_window' },
    qwen2: { qwen2Bias: true, qkNorm: false, window: 'use_sliding_window' },
    qwen3: { qwen2Bias: false, qkNorm: true, window: 'use_sliding_window' }
  };
  const LLAMA_KEYS = ['model_type', 'hidden_size', 'intermediate_size', 'num_hidden_layers', 'num_attention_heads',
    'num_key_value_heads', 'head_dim', 'rms_norm_eps', 'rope_theta', 'rope_parameters', 'rope_scaling',
    'tie_word_embeddings', 'attention_bias', 'mlp_bias', 'hidden_act', 'vocab_size', 'max_position_embeddings',
    'sliding_window', 'use_sliding_window', 'bos_token_id', 'unk_token_id'];
  const ROPE_KEYS = ['rope_type', 'type', 'rope_theta', 'factor', 'low_freq_factor', 'high_freq_factor',
    'original_max_position_embeddings'];
  const ROPE_TYPES = { default: 0, llama3: 1 };

  /* A positive number float32 holds (config key `name`), or `fallback` when absent. */
  function positive(v, name, fallback) {
    if (v == null) return fallback;
    if (typeof v !== 'number' || !(v > 0) || !(Math.fround(v) > 0) || Math.fround(v) === Infinity)
      fail(name + ' (' + (typeof v === 'number' ? v : show(v)) + ') must be a positive number that float32 can hold');
    return v;
  }
  /* A whole number >= 1 of any size (config key `name`). */
  function wholePositive(v, name) {
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1)
      fail(name + ' (' + (typeof v === 'number' ? v : show(v)) + ') must be a whole number >= 1');
    return v;
  }
  function bool(v, name, fallback) {
    if (v == null) return fallback;
    if (typeof v !== 'boolean') fail(name + ' must be true or false, not ' + show(v));
    return v;
  }

  /* The rope settings (rope_scaling, or the newer rope_parameters, which also holds rope_theta):
     { type: 0 default / 1 llama3, theta, factor, low, high, original }. */
  function ropeOf(r) {
    const p = r.rope_parameters, s = r.rope_scaling != null ? r.rope_scaling : p;
    const where = r.rope_scaling != null ? 'config.rope_scaling' : 'config.rope_parameters';
    const theta = positive(r.rope_theta != null ? r.rope_theta : p && p.rope_theta,
      r.rope_theta != null ? 'config.rope_theta' : 'config.rope_parameters.rope_theta', 10000);
    if (theta < 1) fail((r.rope_theta != null ? 'config.rope_theta' : 'config.rope_parameters.rope_theta') + ' (' +
      theta + ') must be at least 1');
    const rope = { type: 0, theta: theta, factor: 0, low: 0, high: 0, original: 0 };
    if (s == null) return rope;
    const type = s.rope_type != null ? s.rope_type : s.type != null ? s.type : 'default';
    if (typeof type !== 'string' || !Object.prototype.hasOwnProperty.call(ROPE_TYPES, type))
      fail(where + '.' + (s.rope_type != null ? 'rope_type' : 'type') + ' ' + show(type) +
        ' is not supported (BlockLens reads "default" and "llama3")');
    rope.type = ROPE_TYPES[type];
    if (rope.type === 0) return rope;
    rope.factor = positive(s.factor, where + '.factor');
    rope.low = positive(s.low_freq_factor, where + '.low_freq_factor');
    rope.high = positive(s.high_freq_factor, where + '.high_freq_factor');
    [['factor', rope.factor], ['low_freq_factor', rope.low], ['high_freq_factor', rope.high]].forEach(function (k) {
      if (k[1] === undefined) fail(where + '.' + k[0] + ' is missing (rope_type "llama3" needs it)');
    });
    if (rope.factor < 1) fail(where + '.factor (' + rope.factor + ') must be at least 1 (as transformers checks it)');
    if (!(rope.high > rope.low))
      fail(where + '.high_freq_factor (' + rope.high + ') must be above low_freq_factor (' + rope.low + ')');
    rope.original = dim(s.original_max_position_embeddings, where + '.original_max_position_embeddings');
    return rope;
  }

  /* A Llama-family config.json, read once: sizes, head layout, norms, rope, biases, tying. */
  function llamaConfig(c) {
    if (c === null || typeof c !== 'object' || Array.isArray(c))
      fail('config must be an object (a config.json), not ' + show(c));
    const r = {};
    try {
      LLAMA_KEYS.forEach(function (k) { r[k] = c[k]; });
      ['rope_parameters', 'rope_scaling'].forEach(function (k) {
        const v = r[k];
        if (v == null) return;
        if (typeof v !== 'object' || Array.isArray(v)) fail('config.' + k + ' must be an object, not ' + show(v));
        r[k] = {};
        ROPE_KEYS.forEach(function (f) { r[k][f] = v[f]; });
      });
    } catch (e) {
      rethrow(e, 'loadModel');
    }
    const kind = LLAMA_KINDS[r.model_type];
    ['hidden_size', 'intermediate_size', 'num_hidden_layers', 'num_attention_heads'].forEach(function (k) {
      dim(r[k], 'config.' + k);
    });
    wholePositive(r.max_position_embeddings, 'config.max_position_embeddings');
    const V = r.vocab_size;
    if (typeof V !== 'number' || !Number.isInteger(V) || V < 1 || V > MAX_ELEMS)
      fail('config.vocab_size (' + (typeof V === 'number' ? V : show(V)) + ') must be an integer between 1 and ' +
        MAX_ELEMS);
    const H = r.num_attention_heads, D = r.hidden_size;
    const KVH = r.num_key_value_heads == null ? H : dim(r.num_key_value_heads, 'config.num_key_value_heads');
    if (H % KVH !== 0)
      fail('config.num_attention_heads (' + H + ') must be divisible by config.num_key_value_heads (' + KVH + ')');
    if (r.head_dim == null && D % H !== 0)
      fail('config.hidden_size (' + D + ') must be divisible by config.num_attention_heads (' + H +
        ') when there is no config.head_dim');
    const hd = r.head_dim == null ? D / H : dim(r.head_dim, 'config.head_dim');
    if (hd % 2) fail('config.head_dim (' + hd + ') must be even (RoPE pairs its values)');
    if (H * hd > 65536) fail('config.num_attention_heads x head_dim (' + H + ' x ' + hd + ') exceeds 65536');
    const act = r.hidden_act == null ? 'silu' : r.hidden_act;
    if (act !== 'silu')
      fail('config.hidden_act ' + show(act) + ' is not supported (the Llama family\'s FFN is SwiGLU: "silu")');
    const attnBias = bool(r.attention_bias, 'config.attention_bias', false);
    /* the tokens a forward reads: the engine's limit (L <= 65536, Llama 3.1 says 131072), and
       Mistral's sliding window, below which full causal attention is exact */
    let P = Math.min(r.max_position_embeddings, 65536);
    if (kind.window === 'sliding_window' && r.sliding_window != null)
      P = Math.min(P, wholePositive(r.sliding_window, 'config.sliding_window'));
    if (kind.window === 'use_sliding_window' && bool(r.use_sliding_window, 'config.use_sliding_window', false))
      fail('config.use_sliding_window true is not supported (BlockLens computes full causal attention)');
    return { model_type: r.model_type, hidden_size: D, intermediate_size: r.intermediate_size,
      num_hidden_layers: r.num_hidden_layers, num_attention_heads: H, num_key_value_heads: KVH, head_dim: hd,
      vocab_size: V, max_position_embeddings: r.max_position_embeddings, n_positions: P,
      rms_norm_eps: positive(r.rms_norm_eps, 'config.rms_norm_eps', 1e-6), rope: Object.freeze(ropeOf(r)),
      tie_word_embeddings: bool(r.tie_word_embeddings, 'config.tie_word_embeddings', false),
      qkv_bias: kind.qwen2Bias || attnBias, o_bias: !kind.qwen2Bias && attnBias,
      mlp_bias: bool(r.mlp_bias, 'config.mlp_bias', false), qk_norm: kind.qkNorm,
      bos_token_id: r.bos_token_id, unk_token_id: r.unk_token_id };
  }

  /* bl_llama_layer's fields, the HF name after "model.layers.N." of each, and its shape and
     presence from the config (Q = heads x head_dim, KV = kv heads x head_dim). */
  function layerParts(cfg) {
    const D = cfg.hidden_size, F = cfg.intermediate_size, hd = cfg.head_dim;
    const Q = cfg.num_attention_heads * hd, KV = cfg.num_key_value_heads * hd;
    const b = cfg.qkv_bias, o = cfg.o_bias, m = cfg.mlp_bias, n = cfg.qk_norm;
    return [['attn_norm', 'input_layernorm.weight', [D], true],
      ['wq', 'self_attn.q_proj.weight', [Q, D], true], ['bq', 'self_attn.q_proj.bias', [Q], b],
      ['wk', 'self_attn.k_proj.weight', [KV, D], true], ['bk', 'self_attn.k_proj.bias', [KV], b],
      ['wv', 'self_attn.v_proj.weight', [KV, D], true], ['bv', 'self_attn.v_proj.bias', [KV], b],
      ['q_norm', 'self_attn.q_norm.weight', [hd], n], ['k_norm', 'self_attn.k_norm.weight', [hd], n],
      ['wo', 'self_attn.o_proj.weight', [D, Q], true], ['bo', 'self_attn.o_proj.bias', [D], o],
      ['ffn_norm', 'post_attention_layernorm.weight', [D], true],
      ['w_gate', 'mlp.gate_proj.weight', [F, D], true], ['b_gate', 'mlp.gate_proj.bias', [F], m],
      ['w_up', 'mlp.up_proj.weight', [F, D], true], ['b_up', 'mlp.up_proj.bias', [F], m],
      ['w_down', 'mlp.down_proj.weight', [D, F], true], ['b_down', 'mlp.down_proj.bias', [D], m]
    ].filter(function (p) { return p[3]; });
  }

  /* The size checks, before any tensor is read; the layout itself needs the file's dtypes and is
     completed by llamaTensors (llamaLayout). */
  function llamaPlan(cfg) {
    const D = cfg.hidden_size, V = cfg.vocab_size;
    elems('embed_tokens (vocab_size x hidden_size)', V, D);
    elems('q_proj (heads x head_dim x hidden_size)', cfg.num_attention_heads * cfg.head_dim, D);
    elems('gate_proj (intermediate_size x hidden_size)', cfg.intermediate_size, D);
    return { bytes: 0, rope: cfg.rope };
  }

  const DTYPE_CODE = { F32: 0, F16: 1, BF16: 2 }, DTYPE_BYTES = { F32: 4, F16: 2, BF16: 2 };

  /* plan's heap layout: every tensor at a 16-byte aligned byte offset, in the file's dtype when
     all tensors share one (else all as F32), then the bl_llama_layer records. */
  function llamaLayout(plan, t) {
    const all = [t.embed, t.final_norm].concat(t.lm_head ? [t.lm_head] : []);
    t.layers.forEach(function (w) { for (const k in w) all.push(w[k]); });
    const dtype = all.every(function (x) { return x.dtype === all[0].dtype; }) ? all[0].dtype : 'F32';
    let at = 0;
    function place(tensor) {
      const n = tensor.shape.reduce(function (a, b) { return a * b; }, 1), p = { at: at, n: n, tensor: tensor };
      at += Math.ceil(n * DTYPE_BYTES[dtype] / 16) * 16;
      return p;
    }
    plan.dtype = dtype;
    plan.embed = place(t.embed);
    plan.final_norm = place(t.final_norm);
    plan.lm_head = t.lm_head ? place(t.lm_head) : null;
    plan.layers = t.layers.map(function (w) {
      const p = {};
      for (const k in w) p[k] = place(w[k]);
      return p;
    });
    plan.records = at;
    plan.bytes = at + t.layers.length * ABI.bl_llama_layer.sizeof;
  }

  /* Every tensor by its HF name, checked (present, shape) before any memory is taken; the plan
     completed for the file's dtype. */
  function llamaTensors(map, cfg, plan) {
    const D = cfg.hidden_size, V = cfg.vocab_size, names = 'Hugging Face ' + cfg.model_type + ' names';
    function get(name, shape) { return tensorOf(map, name, shape, names); }
    const t = { embed: get('model.embed_tokens.weight', [V, D]), final_norm: get('model.norm.weight', [D]),
      lm_head: cfg.tie_word_embeddings ? null : get('lm_head.weight', [V, D]), layers: [] };
    const parts = layerParts(cfg);
    for (let l = 0; l < cfg.num_hidden_layers; l++) {
      const w = {};
      parts.forEach(function (p) { w[p[0]] = get('model.layers.' + l + '.' + p[1], p[2]); });
      t.layers.push(w);
    }
    llamaLayout(plan, t);
    return t;
  }

  /* The tensors asked of src into the heap at byte `b0`: raw bytes when the plan keeps the file's
     dtype, else up-cast to float32; the layer records written now; the returned check looks for
     NaN and infinity once every read has landed. */
  function llamaCopy(m, src, t, plan, f0) {
    const b0 = f0 * 4, code = DTYPE_CODE[plan.dtype], parts = [];
    function copy(p) {
      const x = p.tensor, to = b0 + p.at;
      if (x.dtype === plan.dtype) src.raw(x, 0, p.n, to);
      else src.f32(x, 0, p.n, idx4(to));
      parts.push({ to: to, n: p.n, tensor: x });
    }
    [plan.embed, plan.final_norm].concat(plan.lm_head ? [plan.lm_head] : []).forEach(copy);
    const rec = idx4(b0 + plan.records), words = ABI.bl_llama_layer.sizeof >> 2;
    plan.layers.forEach(function (p, l) {
      for (let z = 0; z < words; z++) m.HEAP32[rec + l * words + z] = 0;   /* NULL: absent */
      for (const k in p) {
        copy(p[k]);
        m.HEAP32[rec + l * words + (ABI.bl_llama_layer[k] >> 2)] = b0 + p[k].at;
      }
    });
    return function check() {
      parts.forEach(function (x) {
        const bad = code ? m._bl__first_nonfinite_16(x.to, x.n, code) : m._bl__first_nonfinite(x.to, x.n);
        if (bad >= 0)
          fail(x.tensor.source.label + ': tensor ' + q(x.tensor.name) + ' holds a NaN or an infinity at value ' + bad);
      });
    };
  }

  /* model.forward(ids, opts) with ids checked (list) and the options read (o, engine-hooks.js); s: the model's
     state (engine-model.js) -> runForward's result, each kept layer's record { x, norm1, attention: { q, k, v,
     qRot, kRot, scores, weights, context, concat, out }, resid1, norm2, ffn: { gate, up, activated, out },
     resid2, rstd1, rstd2 }. */
  function llamaForward(s, list, o) {
    const d = s.dims, rope = s.plan.rope, D = d.dModel, H = d.nHeads, F = d.dFF, V = d.vocabSize;
    const NL = d.nLayers, hd = d.headDim, Q = H * hd, KV = d.nKvHeads * hd, wb = s.base, p = s.plan;
    return runForward(s, {
      desc: 'bl_llama_desc', out: 'bl_llama_out', layerOut: 'bl_llama_layer_out',
      fn: '_bl_llama_forward', wsFn: '_bl_llama_workspace_size', lensFn: '_bl_llama_lens',
      lensWsFn: '_bl_llama_lens_workspace_size',
      what: function (L) { return 'forward (L ' + L + ', layers ' + NL + ', vocab ' + V + ')'; },
      sizes: function (L) {
        elems('scores (nHeads x L x L)', H * L, L);
        return { norm1: L * D, rstd1: L, q: L * Q, k: L * KV, v: L * KV, q_rot: L * Q, k_rot: L * KV,
          scores: H * L * L, weights: H * L * L, context: L * Q, concat: L * Q, attn_out: L * D, resid1: L * D,
          norm2: L * D, rstd2: L, gate: L * F, up: L * F, activated: L * F, ffn_out: L * D, resid2: L * D };
      },
      wsFloats: function (L) {
        return L * (7 * D + 2 * Q + 2 * KV + 3 * F + Math.min(L, 64) + hd) + Math.max(D, Q, F);
      },
      lensWsFloats: function (L) { return Math.min(L, 16) * (D + V) + D; },
      fill: function (word, fword, descAt, ids) {
        const dd = ABI.bl_llama_desc;
        const desc = { n_layers: NL, d_model: D, n_heads: H, n_kv_heads: d.nKvHeads, head_dim: hd, d_ff: F, vocab: V,
          max_positions: d.nPositions, dtype: DTYPE_CODE[p.dtype], rope_type: rope.type,
          rope_original_max_positions: rope.original, L: list.length, ids: ids, embed: wb + p.embed.at,
          layers: wb + p.records, final_norm: wb + p.final_norm.at, lm_head: p.lm_head ? wb + p.lm_head.at : 0,
          weights_finite: 1 };   /* (llamaCopy's check refused any NaN or infinity at load) */
        for (const f in desc) word(descAt + dd[f], desc[f]);
        const floatsOf = { eps: d.eps, rope_theta: rope.theta, rope_factor: rope.factor,
          rope_low_freq_factor: rope.low, rope_high_freq_factor: rope.high };
        for (const f in floatsOf) fword(descAt + dd[f], floatsOf[f]);
      },
      record: function (g) {
        return { x: g('x'), input: g('x'), norm1: g('norm1'),
          attention: { q: g('q'), k: g('k'), v: g('v'), qRot: g('q_rot'), kRot: g('k_rot'), scores: g('scores'),
            weights: g('weights'), context: g('context'), concat: g('concat'), out: g('attn_out') },
          resid1: g('resid1'), norm2: g('norm2'),
          ffn: { gate: g('gate'), up: g('up'), activated: g('activated'), out: g('ffn_out') },
          resid2: g('resid2'), rstd1: g('rstd1'), rstd2: g('rstd2') };
      }
    }, list, o);
  }

  /* Layer l's weights as float32 copies (up-cast from F16 / BF16), in the file's (out, in) layout, named
     attnNorm, Wq, bq, Wk, bk, Wv, bv, qNorm, kNorm, Wo, bo, ffnNorm, Wgate, bgate, Wup, bup, Wdown, bdown
     (those the model has). */
  const LLAMA_JS = { attn_norm: 'attnNorm', wq: 'Wq', bq: 'bq', wk: 'Wk', bk: 'bk', wv: 'Wv', bv: 'bv',
    q_norm: 'qNorm', k_norm: 'kNorm', wo: 'Wo', bo: 'bo', ffn_norm: 'ffnNorm', w_gate: 'Wgate', b_gate: 'bgate',
    w_up: 'Wup', b_up: 'bup', w_down: 'Wdown', b_down: 'bdown' };
  function llamaLayerWeights(s, l) {
    const m = s.engine._m, p = s.plan.layers[l], r = {};
    for (const k in p) {
      const at = s.base + p[k].at, n = p[k].n;
      if (s.plan.dtype === 'F32') {
        r[LLAMA_JS[k]] = m.HEAPF32.slice(idx4(at), idx4(at) + n);
        continue;
      }
      const h = new Uint16Array(m.HEAPU8.buffer, at, n), out = new Float32Array(n);
      if (s.plan.dtype === 'BF16') {
        const u = new Uint32Array(out.buffer);
        for (let i = 0; i < n; i++) u[i] = h[i] << 16;
      } else {
        for (let i = 0; i < n; i++) out[i] = f16(h[i]);
      }
      r[LLAMA_JS[k]] = out;
    }
    return r;
  }
  /* U · (model.norm ⊙ v), U lm_head (or the tied embed_tokens), (vocab, d) in the file's dtype. */
  function llamaDirectLogits(s, v) {
    const D = s.dims.dModel, V = s.dims.vocabSize, m = s.engine._m, dt = s.plan.dtype;
    const row = (p, j) => {   /* float32 values of row j of plan part p (a view, or a converted copy) */
      const at = s.base + p.at + j * D * (dt === 'F32' ? 4 : 2);
      if (dt === 'F32') return m.HEAPF32.subarray(idx4(at), idx4(at) + D);
      const h = new Uint16Array(m.HEAPU8.buffer, at, D), out = new Float32Array(D);
      if (dt === 'BF16') { const w = new Uint32Array(out.buffer); for (let i = 0; i < D; i++) w[i] = h[i] << 16; }
      else for (let i = 0; i < D; i++) out[i] = f16(h[i]);
      return out;
    };
    const g = row(s.plan.final_norm, 0), u = new Float64Array(D), out = new Float32Array(V);
    for (let k = 0; k < D; k++) u[k] = g[k] * v[k];
    const U = s.plan.lm_head || s.plan.embed;
    for (let j = 0; j < V; j++) {
      const r = row(U, j);
      let sum = 0;
      for (let k = 0; k < D; k++) sum += r[k] * u[k];
      out[j] = sum;
    }
    return out;
  }
  function f16(h) {   /* float16 bits -> its value (exact in a double, then in float32) */
    const s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 31, f = h & 1023;
    if (e === 0) return s * f * Math.pow(2, -24);
    return e === 31 ? (f ? NaN : s * Infinity) : s * (1 + f / 1024) * Math.pow(2, e - 15);
  }

  /* What engine-model.js asks of an architecture (see GPT2 in engine-gpt2.js). */
  const LLAMA = {
    config: llamaConfig,
    /* the Model's public sizes, the config's special-token ids */
    describe: function (cfg) {
      return { nLayers: cfg.num_hidden_layers, dModel: cfg.hidden_size, nHeads: cfg.num_attention_heads,
        nKvHeads: cfg.num_key_value_heads, headDim: cfg.head_dim, dFF: cfg.intermediate_size,
        vocabSize: cfg.vocab_size, nPositions: cfg.n_positions, activation: 'swiglu', eps: cfg.rms_norm_eps,
        bos: cfg.bos_token_id, unk: cfg.unk_token_id };
    },
    plan: llamaPlan,
    tensors: llamaTensors,
    copy: llamaCopy,
    forward: llamaForward,
    layerWeights: llamaLayerWeights,
    directLogits: llamaDirectLogits
  };
