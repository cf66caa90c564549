/* engine-gpt2.js - GPT-2 in the engine: its config.json, its tensor names and Conv1D (in, out)
   layout mapped onto bl_decoder_forward's descriptor (c_attn split into Wq, Wk, Wv), the heap plan
   of its weights, forward and layerWeights. engine-model.js picks it by config.model_type. */
  /* global ABI, ACTIVATIONS, dim, elems, fail, idx4, q, rethrow, runForward, show, tensorOf */
  /* exported GPT2 */

  /* GPT-2's config.json, read once: sizes, activation, eps (n_inner null: 4 n_embd). */
  const GPT2_ACT = { relu: 'relu', gelu: 'gelu', gelu_new: 'gelu_tanh', gelu_pytorch_tanh: 'gelu_tanh',
    gelu_tanh: 'gelu_tanh', silu: 'silu', swish: 'silu' };
  function gpt2Config(c) {
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
    if (r.n_embd % r.n_head !== 0)
      fail('config.n_embd (' + r.n_embd + ') must be divisible by config.n_head (' + r.n_head + ')');
    const act = r.activation_function === undefined ? 'gelu_new' : r.activation_function;
    if (typeof act !== 'string' || !Object.prototype.hasOwnProperty.call(GPT2_ACT, act))
      fail('config.activation_function ' + show(act) + ' is not one of ' + Object.keys(GPT2_ACT).join(', '));
    r.activation_function = act;
    const eps = r.layer_norm_epsilon = r.layer_norm_epsilon === undefined ? 1e-5 : r.layer_norm_epsilon;
    if (typeof eps !== 'number' || !(eps > 0) || !(Math.fround(eps) > 0) || Math.fround(eps) === Infinity)
      fail('config.layer_norm_epsilon (' + (typeof eps === 'number' ? eps : show(eps)) +
        ') must be a positive number that float32 can hold');
    return r;
  }

  /* The heap copy of the weights (sizes checked first): float offsets of each part (one table for size and use), and
     the bl_decoder_layer records after the floats. */
  const LAYER_PARTS = ['ln1_gamma', 'ln1_beta', 'wq', 'bq', 'wk', 'bk', 'wv', 'bv', 'wo', 'bo',
    'ln2_gamma', 'ln2_beta', 'w1', 'b1', 'w2', 'b2'];
  function gpt2Plan(cfg) {
    const D = cfg.n_embd, F = cfg.n_inner, V = cfg.vocab_size, P = cfg.n_positions, NL = cfg.n_layer;
    elems('wte (vocab_size x n_embd)', V, D);
    elems('wpe (n_positions x n_embd)', P, D);
    elems('c_fc (n_embd x n_inner)', D, F);
    elems('c_attn (n_embd x 3 n_embd)', D, 3 * D);
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

  /* Every tensor by its GPT-2 name (with or without "transformer."), checked before any
     memory is taken; c_attn holds q, k and v side by side (Conv1D: (in, out)). */
  function gpt2Tensors(map, cfg) {
    const D = cfg.n_embd, F = cfg.n_inner, V = cfg.vocab_size, P = cfg.n_positions;
    const prefix = !map.has('wte.weight') && map.has('transformer.wte.weight') ? 'transformer.' : '';
    function get(name, shape) {
      return tensorOf(map, prefix + name, shape, 'GPT-2 names, with or without "transformer."');
    }
    const t = { wte: get('wte.weight', [V, D]), wpe: get('wpe.weight', [P, D]),
      lnf_gamma: get('ln_f.weight', [D]), lnf_beta: get('ln_f.bias', [D]), layers: [] };
    for (let l = 0; l < cfg.n_layer; l++) {
      const h = 'h.' + l + '.';
      t.layers.push({
        ln1_gamma: get(h + 'ln_1.weight', [D]), ln1_beta: get(h + 'ln_1.bias', [D]),
        c_attn: get(h + 'attn.c_attn.weight', [D, 3 * D]), c_attn_b: get(h + 'attn.c_attn.bias', [3 * D]),
        wo: get(h + 'attn.c_proj.weight', [D, D]), bo: get(h + 'attn.c_proj.bias', [D]),
        ln2_gamma: get(h + 'ln_2.weight', [D]), ln2_beta: get(h + 'ln_2.bias', [D]),
        w1: get(h + 'mlp.c_fc.weight', [D, F]), b1: get(h + 'mlp.c_fc.bias', [F]),
        w2: get(h + 'mlp.c_proj.weight', [F, D]), b2: get(h + 'mlp.c_proj.bias', [D])
      });
    }
    return t;
  }

  /* The checked tensors into the heap at float index f0 (reads asked of `src`, a TensorReads),
     c_attn split into wq, wk, wv (its column blocks); the layer records written. Returns the check
     run once every read has landed: each part checked for NaN and infinity. */
  function gpt2Copy(m, src, t, plan, f0, cfg) {
    const D = cfg.n_embd;
    const parts = [];   /* for the finite check: { at: float index, n, tensor, what } */
    function whole(tensor, at, n) {
      src.f32(tensor, 0, n, f0 + at);
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
        for (let r = 0; r < D; r++) src.f32(w.c_attn, r * 3 * D + j * D, D, f0 + p['w' + c] + r * D);
        parts.push({ at: f0 + p['w' + c], n: D * D, tensor: w.c_attn, what: ' (its ' + c + ' columns)' });
        src.f32(w.c_attn_b, j * D, D, f0 + p['b' + c]);
        parts.push({ at: f0 + p['b' + c], n: D, tensor: w.c_attn_b, what: ' (its ' + c + ' part)' });
      });
    });
    const rec = idx4(f0 * 4 + plan.records), size = ABI.bl_decoder_layer.sizeof >> 2;
    plan.layers.forEach(function (p, l) {
      LAYER_PARTS.forEach(function (k) {
        m.HEAP32[rec + l * size + (ABI.bl_decoder_layer[k] >> 2)] = (f0 + p[k]) * 4;
      });
    });
    return function check() {
      parts.forEach(function (x) {
        const bad = m._bl__first_nonfinite(x.at * 4, x.n);
        if (bad >= 0)
          fail(x.tensor.source.label + ': tensor ' + q(x.tensor.name) + x.what + ' holds ' + m.HEAPF32[x.at + bad] +
            ' at value ' + bad);
      });
    };
  }

  /* model.forward(ids, opts) with ids checked (list) and the options read (o, engine-hooks.js); s: the model's
     own state (engine-model.js: engine, base, plan, dims) -> runForward's result, each kept layer's record
     { x, norm1, attention: { q, k, v, scores, weights, context, concat, out }, resid1, norm2,
     ffn: { hidden, activated, out }, resid2 }. */
  function gpt2Forward(s, list, o) {
    const d = s.dims, D = d.dModel, H = d.nHeads, F = d.dFF, V = d.vocabSize, NL = d.nLayers, p = s.plan, wb = s.base;
    return runForward(s, {
      desc: 'bl_decoder_desc', out: 'bl_decoder_out', layerOut: 'bl_decoder_layer_out',
      fn: '_bl_decoder_forward', wsFn: '_bl_decoder_workspace_size', lensFn: '_bl_decoder_lens',
      lensWsFn: '_bl_decoder_lens_workspace_size',
      what: function (L) { return 'forward (L ' + L + ', n_layer ' + NL + ', vocab ' + V + ')'; },
      sizes: function (L) {
        elems('scores (nHeads x L x L)', H * L, L);
        return { norm1: L * D, q: L * D, k: L * D, v: L * D, scores: H * L * L, weights: H * L * L, context: L * D,
          concat: L * D, attn_out: L * D, resid1: L * D, norm2: L * D, hidden: L * F, activated: L * F,
          ffn_out: L * D, resid2: L * D };
      },
      wsFloats: function (L) { return L * (12 * D + F + 1); },
      lensWsFloats: function (L) { return Math.min(L, 16) * (D + V); },
      fill: function (word, fword, descAt, ids) {
        const dd = ABI.bl_decoder_desc, L = list.length;
        const desc = { n_layers: NL, d_model: D, n_heads: H, d_ff: F, vocab: V, n_positions: d.nPositions,
          activation: ACTIVATIONS.indexOf(d.activation), L: L, ids: ids, wte: wb + p.wte * 4,
          wpe: wb + p.wpe * 4, layers: wb + p.records, lnf_gamma: wb + p.lnf_gamma * 4, lnf_beta: wb + p.lnf_beta * 4 };
        for (const f in desc) word(descAt + dd[f], desc[f]);
        fword(descAt + dd.eps, d.eps);
      },
      record: function (g) {
        return { x: g('x'), input: g('x'), norm1: g('norm1'),
          attention: { q: g('q'), k: g('k'), v: g('v'), scores: g('scores'), weights: g('weights'),
            context: g('context'), concat: g('concat'), out: g('attn_out') },
          resid1: g('resid1'), norm2: g('norm2'),
          ffn: { hidden: g('hidden'), activated: g('activated'), out: g('ffn_out') },
          resid2: g('resid2') };
      }
    }, list, o);
  }

  /* Layer l's weights (l checked) in the JS API's names (as engine.attention / ffn / encoderLayer take
     them): copies out of the heap, c_attn already split into Wq, Wk, Wv. */
  const JS_WEIGHT = { ln1_gamma: 'ln1Gamma', ln1_beta: 'ln1Beta', wq: 'Wq', bq: 'bq', wk: 'Wk', bk: 'bk',
    wv: 'Wv', bv: 'bv', wo: 'Wo', bo: 'bo', ln2_gamma: 'ln2Gamma', ln2_beta: 'ln2Beta', w1: 'W1', b1: 'b1',
    w2: 'W2', b2: 'b2' };
  function gpt2LayerWeights(s, l) {
    const plan = s.plan, p = plan.layers[l];
    const next = l + 1 < s.dims.nLayers ? plan.layers[l + 1].ln1_gamma : plan.floats;
    const f0 = idx4(s.base), heap = s.engine._m.HEAPF32, r = {};
    LAYER_PARTS.forEach(function (k, i) {
      const end = i + 1 < LAYER_PARTS.length ? p[LAYER_PARTS[i + 1]] : next;
      r[JS_WEIGHT[k]] = heap.slice(f0 + p[k], f0 + end);
    });
    return r;
  }

  /* U · (ln_f gamma ⊙ v), U the tied wte (vocab, d), float32 in the heap. */
  function gpt2DirectLogits(s, v) {
    const D = s.dims.dModel, V = s.dims.vocabSize, f0 = idx4(s.base), heap = s.engine._m.HEAPF32;
    const u = new Float64Array(D), out = new Float32Array(V);
    for (let k = 0; k < D; k++) u[k] = heap[f0 + s.plan.lnf_gamma + k] * v[k];
    for (let j = 0, at = f0 + s.plan.wte; j < V; j++, at += D) {
      let sum = 0;
      for (let k = 0; k < D; k++) sum += heap[at + k] * u[k];
      out[j] = sum;
    }
    return out;
  }

  /* What engine-model.js asks of an architecture (see ARCHITECTURES there). */
  const GPT2 = {
    config: gpt2Config,
    /* the Model's public sizes, the config's special-token ids */
    describe: function (cfg) {
      return { nLayers: cfg.n_layer, dModel: cfg.n_embd, nHeads: cfg.n_head, dFF: cfg.n_inner,
        vocabSize: cfg.vocab_size, nPositions: cfg.n_positions, activation: GPT2_ACT[cfg.activation_function],
        eps: cfg.layer_norm_epsilon, bos: cfg.bos_token_id, unk: cfg.unk_token_id };
    },
    plan: gpt2Plan,
    tensors: gpt2Tensors,
    copy: gpt2Copy,
    forward: gpt2Forward,
    layerWeights: gpt2LayerWeights,
    directLogits: gpt2DirectLogits
  };
