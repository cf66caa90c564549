/* engine-model.js - bl.loadModel's core: a trained model's config and weights into the wasm heap
   once, and the Model it returns (forward, encode, decode, layerWeights, free). loadBytes is the
   synchronous form ({ weights, config, vocab }); engine-folder.js adds the folder forms and
   loadModel itself. What is particular to an architecture (config keys, tensor names, the copy,
   the forward call) lives in its own file, engine-gpt2.js for GPT-2,
   engine-llama.js for the Llama family, picked by config.model_type. */
  /* global args, fail, forwardOptions, GPT2, HEAP_MAX, heapAlloc, idx4, LLAMA, optionNames, outOfMemory */
  /* global parseSafetensors, plainBytes, readVocab, rethrow, show, TensorReads, Vocab */
  /* exported architectureOf, checkHeap, copyModel, loadBytes, Model, reserveModel */

  /* The architectures by config.model_type; a config without one is GPT-2's. What each one is:
       config(c) -> cfg         the config.json read once and checked (its reader's messages)
       describe(cfg) -> dims    { nLayers, dModel, nHeads, dFF, vocabSize, nPositions, activation,
                                eps, bos, unk }: the Model's public sizes, the special-token ids
       plan(cfg) -> plan        the heap layout; plan.bytes is the whole block's size
       tensors(map, cfg, plan) -> t   every tensor it reads, by tensorOf(map, name, shape, names) (map:
                                name -> { dtype, shape, begin, end, source }, every shard's)
       copy(m, src, t, plan, f0, cfg) -> check
                                asks src (a TensorReads) for what goes where in the block at heap
                                float index f0: src.f32(tensor, from, n, at) (n values from value
                                `from` on, as float32, into heap float index `at`) and
                                src.raw(tensor, from, n, at) (their bytes as stored, into heap byte
                                `at`); nothing has landed yet when copy returns (it may write what
                                needs no weights, such as records); check() runs once every read
                                has landed (NaN checks); it throws to refuse the load
       forward(state, ids, o), layerWeights(state, l)   on a loaded Model (see Model; o: forwardOptions) */
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

  /* A load's name in out-of-memory messages. */
  function loadWhat(dims) {
    return 'loadModel (n_layer ' + dims.nLayers + ', n_embd ' + dims.dModel + ', vocab_size ' + dims.vocabSize + ')';
  }

  /* Refuses a model whose heap block is past the heap's maximum: how big, and the limit. */
  function checkHeap(plan, dims) {
    if (plan.bytes > HEAP_MAX) outOfMemory(loadWhat(dims), plan.bytes, false);
  }

  /* The heap block of a model (checked against the maximum first): its address. */
  function reserveModel(m, plan, dims) {
    checkHeap(plan, dims);
    const base = heapAlloc(m, plan.bytes);
    if (!base) outOfMemory(loadWhat(dims), plan.bytes, true);
    return base;
  }

  /* The architecture's copy into the block at `base`: the reads it asks for and its check. */
  function copyModel(m, arch, t, plan, base, cfg) {
    const reads = new TensorReads();
    return { reads: reads, check: arch.copy(m, reads, t, plan, idx4(base), cfg) };
  }

  /* loadModel({ weights, config, vocab }) -> a Model, synchronously. A failed load leaves nothing
     allocated. The weights are read through a plain view of their buffer (plainBytes), whatever
     the caller's Uint8Array (a subclass) says of itself. */
  function loadBytes(engine, o) {
    o = args(o, 'loadModel', MODEL_ARGS);
    const bytes = plainBytes(o.weights);
    if (!bytes) fail('weights must be a Uint8Array (the bytes of a .safetensors file), not ' + show(o.weights));
    const arch = architectureOf(o.config), cfg = arch.config(o.config), dims = arch.describe(cfg);
    const vocab = new Vocab(readVocab(o.vocab, dims.vocabSize), dims.bos, dims.unk);
    const plan = arch.plan(cfg), map = parseSafetensors(bytes);
    const t = arch.tensors(map, cfg, plan), m = engine._m;   /* every tensor checked before memory is taken */
    const base = reserveModel(m, plan, dims);
    try {
      const copy = copyModel(m, arch, t, plan, base, cfg);
      copy.reads.runNow(m);
      copy.check();
    } catch (e) {
      m._free(base);
      throw e;
    }
    return new Model({ engine: engine, arch: arch, base: base, plan: plan, dims: dims, vocab: vocab }, cfg);
  }

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

  /* forward(ids, opts): logits and, for the layers kept (default all), every intermediate (the
     architecture's file says which); the hooks and the lens (engine-hooks.js). The arguments are read first
     (the caller's getters may run), then the model checked alive again right before the heap is touched. */
  Model.prototype.forward = function (ids, opts) {
    const s = stateOf(this, 'forward');
    const list = s.vocab.idList(ids, 'forward', s.dims.nPositions), o = forwardOptions(opts, s, list.length);
    stateOf(this, 'forward');
    return s.arch.forward(s, list, o);
  };

  /* Layer l's weights in the JS API's names (as engine.attention / ffn / encoderLayer take them). */
  Model.prototype.layerWeights = function (l) {
    const s = stateOf(this, 'layerWeights'), NL = s.dims.nLayers;
    if (typeof l !== 'number' || !Number.isInteger(l) || l < 0 || l >= NL)
      fail('layerWeights: layer ' + (typeof l === 'number' ? '(' + l + ') ' : show(l) + ' ') +
        'must be a layer index in [0, ' + NL + ')');
    return s.arch.layerWeights(s, l);
  };

  /* Direct logits of a vector written into the residual stream (an FFN neuron's output row):
     U (vocab, d) · (g ⊙ v), g the final norm's weight, no centring, no bias; sums in double. */
  Model.prototype.directLogits = function (v) {
    const s = stateOf(this, 'directLogits'), D = s.dims.dModel;
    if (!(v instanceof Float32Array) || v.length !== D)
      fail('directLogits: v must be a Float32Array of dModel (' + D + ') values, not ' + show(v));
    for (let i = 0; i < D; i++) if (!isFinite(v[i])) fail('directLogits: v[' + i + '] is not finite (' + v[i] + ')');
    return s.arch.directLogits(s, v);
  };

  /* Tests only: the heap address of the weights. */
  Model.prototype._heapAt = function () { return stateOf(this, '_heapAt').base; };

  /* Gives the weights' heap memory back; the model cannot be used after. Safe to call twice. */
  Model.prototype.free = function () {
    const s = MODELS.get(this);
    if (s && s.base) s.engine._m._free(s.base);
    if (s) s.base = 0;
  };
