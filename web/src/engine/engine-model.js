/* engine-model.js - bl.loadModel: a trained model's safetensors file, config.json and vocabulary
   into the wasm heap once (as float32), and the Model it returns (forward, encode, decode,
   layerWeights, free). What is particular to an architecture (config keys, tensor names, the
   forward call) lives in its own file, engine-gpt2.js for GPT-2, picked by config.model_type. */
  /* global args, Engine, fail, GPT2, HEAP_MAX, LLAMA, optionNames, outOfMemory, parseSafetensors, plainBytes, q */
  /* global readVocab, rethrow, show, Vocab */

  /* The architectures by config.model_type; a config without one is GPT-2's. */
  const ARCHITECTURES = { gpt2: GPT2, llama: LLAMA, mistral: LLAMA, qwen2: LLAMA, qwen3: LLAMA };

  const MODEL_ARGS = optionNames(['weights', 'config', 'vocab'], function (o) {
    return { weights: o.weights, config: o.config, vocab: o.vocab };
  });

  /* The architecture of `config` (read once; its reader reports a config that is no object). */
  function architectureOf(config) {
    if (config === null || typeof config !== 'object' || Array.isArray(config)) return GPT2;
    let type;
    try {
      type = config.model_type;
    } catch (e) {
      rethrow(e, 'loadModel');
    }
    if (type === undefined) return GPT2;
    if (typeof type !== 'string' || !Object.prototype.hasOwnProperty.call(ARCHITECTURES, type))
      fail('config.model_type ' + show(type) + ' is not one BlockLens reads (' +
        Object.keys(ARCHITECTURES).join(', ') + ')');
    return ARCHITECTURES[type];
  }

  /* bl.loadModel({ weights, config, vocab }) -> a Model. A failed load leaves nothing allocated.
     The weights are read through a plain view of their buffer (plainBytes), whatever the caller's
     Uint8Array (a subclass) says of itself. */
  Engine.prototype.loadModel = function (o) {
    o = args(o, 'loadModel', MODEL_ARGS);
    const bytes = plainBytes(o.weights);
    if (!bytes) fail('weights must be a Uint8Array (the bytes of a .safetensors file), not ' + show(o.weights));
    const arch = architectureOf(o.config), cfg = arch.config(o.config), dims = arch.describe(cfg);
    const vocab = new Vocab(readVocab(o.vocab, dims.vocabSize), dims.bos, dims.unk);
    const plan = arch.plan(cfg), map = parseSafetensors(bytes);
    const t = arch.tensors(map, cfg, plan), m = this._m;   /* every tensor checked before memory is taken */
    const what = 'loadModel (n_layer ' + dims.nLayers + ', n_embd ' + dims.dModel + ', vocab_size ' +
      dims.vocabSize + ')';
    if (plan.bytes > HEAP_MAX) outOfMemory(what, plan.bytes, false);
    const base = m._malloc(plan.bytes);
    if (!base) outOfMemory(what, plan.bytes, true);
    try {
      arch.copy(m, bytes, t, plan, base >> 2, cfg);
    } catch (e) {
      m._free(base);
      throw e;
    }
    return new Model({ engine: this, arch: arch, base: base, plan: plan, dims: dims, vocab: vocab }, cfg);
  };

  /* Each Model's own state, out of the caller's reach: { engine, arch, base (0 once freed), plan,
     dims (the sizes forward uses), vocab }. The Model's public fields are read-only copies. */
  const MODELS = new WeakMap();
  function stateOf(model, fn) {
    const s = MODELS.get(model);
    if (!s) fail(fn + ' must be called on a Model that loadModel returned');
    if (!s.base) fail(fn + ': this model was freed (free() was called)');
    return s;
  }

  /* A loaded model: its weights stay in the heap (state.base) until free(). */
  function Model(state, cfg) {
    const d = state.dims, v = state.vocab;
    MODELS.set(this, state);
    Object.freeze(v.list);
    const fields = { config: Object.freeze(cfg), vocab: v.list, nLayers: d.nLayers, dModel: d.dModel,
      nHeads: d.nHeads, dFF: d.dFF, vocabSize: d.vocabSize, nPositions: d.nPositions, activation: d.activation,
      nKvHeads: d.nKvHeads || d.nHeads, headDim: d.headDim || d.dModel / d.nHeads,
      eps: d.eps, heapBytes: state.plan.bytes, bosId: v.bosId, unkId: v.unkId };
    for (const k in fields) Object.defineProperty(this, k, { value: fields[k], enumerable: true });
  }

  /* See Vocab: "<s>" then one id per character; the ids' strings joined. */
  Model.prototype.encode = function (text) {
    return stateOf(this, 'encode').vocab.encode(text);
  };
  Model.prototype.decode = function (ids) {
    return stateOf(this, 'decode').vocab.decode(ids);
  };

  /* forward(ids, { layers }): logits and, for the layers kept (default all), every intermediate
     (the architecture's file says which). The arguments are read first (the caller's getters may
     run), then the model checked alive again right before the heap is touched. */
  Model.prototype.forward = function (ids, opts) {
    const s = stateOf(this, 'forward');
    const list = s.vocab.idList(ids, 'forward', s.dims.nPositions), keep = chosen(opts, s.dims.nLayers);
    stateOf(this, 'forward');
    return s.arch.forward(s, list, keep);
  };

  /* Which of NL layers' intermediates forward keeps: opts.layers, a list of layer indices
     (default all). */
  function chosen(opts, NL) {
    const keep = new Array(NL).fill(opts === undefined);
    if (opts === undefined) return keep;
    if (opts === null || typeof opts !== 'object' || Array.isArray(opts))
      fail('forward: opts must be an object ({ layers }), not ' + show(opts));
    let list;
    try {
      Object.keys(opts).forEach(function (k) {
        if (k !== 'layers') fail('forward has no option ' + q(k) + ' (known: layers)');
      });
      list = opts.layers;
      if (list === undefined) return keep.fill(true);
      if (!Array.isArray(list)) fail('forward: layers must be an array of layer indices, not ' + show(list));
      list = list.slice();
    } catch (e) {
      rethrow(e, 'forward');
    }
    list.forEach(function (l, i) {
      if (typeof l !== 'number' || !Number.isInteger(l) || l < 0 || l >= NL)
        fail('forward: layers[' + i + '] (' + (typeof l === 'number' ? l : show(l)) +
          ') must be a layer index in [0, ' + NL + ')');
      keep[l] = true;
    });
    return keep;
  }

  /* Layer l's weights in the JS API's names (as engine.attention / ffn / encoderLayer take them). */
  Model.prototype.layerWeights = function (l) {
    const s = stateOf(this, 'layerWeights'), NL = s.dims.nLayers;
    if (typeof l !== 'number' || !Number.isInteger(l) || l < 0 || l >= NL)
      fail('layerWeights: layer ' + (typeof l === 'number' ? '(' + l + ') ' : show(l) + ' ') +
        'must be a layer index in [0, ' + NL + ')');
    return s.arch.layerWeights(s, l);
  };

  /* Gives the weights' heap memory back; the model cannot be used after. Safe to call twice. */
  Model.prototype.free = function () {
    const s = MODELS.get(this);
    if (s && s.base) s.engine._m._free(s.base);
    if (s) s.base = 0;
  };
