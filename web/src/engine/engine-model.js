/* engine-model.js - bl.loadModel: a trained model's safetensors file, config.json and vocabulary
   into the wasm heap once (as float32), and the Model it returns (forward, encode, decode,
   layerWeights, free). What is particular to an architecture (config keys, tensor names, the
   forward call) lives in its own file, engine-gpt2.js for GPT-2, picked by config.model_type. */
  /* global args, Engine, fail, GPT2, HEAP_MAX, optionNames, outOfMemory, parseSafetensors, q */
  /* global readVocab, rethrow, show, TA_TAG, Vocab */

  /* The architectures by config.model_type; a config without one is GPT-2's. */
  const ARCHITECTURES = { gpt2: GPT2 };

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

  /* bl.loadModel({ weights, config, vocab }) -> a Model. A failed load leaves nothing allocated. */
  Engine.prototype.loadModel = function (o) {
    o = args(o, 'loadModel', MODEL_ARGS);
    let bytes = o.weights;
    const tag = TA_TAG.call(bytes);
    if (Object.prototype.toString.call(bytes) === '[object ArrayBuffer]') bytes = new Uint8Array(bytes);
    else if (tag !== 'Uint8Array')
      fail('weights must be a Uint8Array (the bytes of a .safetensors file), not ' + show(bytes));
    const arch = architectureOf(o.config), cfg = arch.config(o.config), dims = arch.describe(cfg);
    const vocab = new Vocab(readVocab(o.vocab, dims.vocabSize), dims.bos, dims.unk);
    const plan = arch.plan(cfg), map = parseSafetensors(bytes);
    const t = arch.tensors(map, cfg), m = this._m;   /* every tensor checked before memory is taken */
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
    return new Model(this, arch, base, plan, cfg, dims, vocab);
  };

  /* A loaded model: its weights stay in the heap (base) until free(). */
  function Model(engine, arch, base, plan, cfg, dims, vocab) {
    this._engine = engine;
    this._arch = arch;
    this._base = base;
    this._plan = plan;
    this._vocab = vocab;
    this.config = cfg;
    this.vocab = vocab.list;
    this.nLayers = dims.nLayers;
    this.dModel = dims.dModel;
    this.nHeads = dims.nHeads;
    this.dFF = dims.dFF;
    this.vocabSize = dims.vocabSize;
    this.nPositions = dims.nPositions;
    this.activation = dims.activation;
    this.eps = dims.eps;
    this.heapBytes = plan.bytes;
    this.bosId = vocab.bosId;
    this.unkId = vocab.unkId;
  }

  Model.prototype._live = function (fn) {
    if (!this._base) fail(fn + ': this model was freed (free() was called)');
  };

  /* See Vocab: "<s>" then one id per character; the ids' strings joined. */
  Model.prototype.encode = function (text) {
    this._live('encode');
    return this._vocab.encode(text);
  };
  Model.prototype.decode = function (ids) {
    this._live('decode');
    return this._vocab.decode(ids);
  };

  /* forward(ids, { layers }): logits and, for the layers kept (default all), every intermediate
     (the architecture's file says which). */
  Model.prototype.forward = function (ids, opts) {
    this._live('forward');
    const list = this._vocab.idList(ids, 'forward', this.nPositions), keep = this._chosen(opts);
    return this._arch.forward(this, list, keep);
  };

  /* Which layers' intermediates forward keeps: opts.layers, a list of layer indices (default
     all). */
  Model.prototype._chosen = function (opts) {
    const NL = this.nLayers, keep = new Array(NL).fill(opts === undefined);
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
  };

  /* Layer l's weights in the JS API's names (as engine.attention / ffn / encoderLayer take them). */
  Model.prototype.layerWeights = function (l) {
    this._live('layerWeights');
    if (typeof l !== 'number' || !Number.isInteger(l) || l < 0 || l >= this.nLayers)
      fail('layerWeights: layer ' + (typeof l === 'number' ? '(' + l + ') ' : show(l) + ' ') +
        'must be a layer index in [0, ' + this.nLayers + ')');
    return this._arch.layerWeights(this, l);
  };

  /* Gives the weights' heap memory back; the model cannot be used after. Safe to call twice. */
  Model.prototype.free = function () {
    if (this._base) this._engine._m._free(this._base);
    this._base = 0;
  };
