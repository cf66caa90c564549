/* engine.js - the Engine, the object load() resolves to: one per wasm module, owning its heap block,
   layout cache and result pool (the engine files are the only code that touches the wasm heap).
   The files after it add its calls: engine-run.js runs one; engine-ffn/-attention/-block.js;
   engine-train.js the trainer (bl.trainer). */
  /* global ABI, addr, checkAbi, HEAP_MAX, heapAlloc, useAbi */
  /* exported ACTIVATIONS, CONFIG_KEYS, COUNT_KEYS, Engine, POOL_BYTES, POOL_MAX */

  const ACTIVATIONS = ['relu', 'gelu', 'gelu_tanh', 'silu', 'identity', 'swiglu', 'geglu'];
  /* Fresh results of at most POOL_MAX bytes are carved out of one shared POOL_BYTES buffer (as
     Node's Buffer pool does): one ArrayBuffer per call cost more than the call itself at the
     page's sizes. A full pool is dropped for a new one; it lives as long as a result uses it. */
  const POOL_BYTES = 16384, POOL_MAX = 4096;
  /* bl_model_config's fields, in order (see src/wasm_abi.c). */
  const CONFIG_KEYS = ['vocab', 'maxPositions', 'typeVocab', 'dModel', 'nLayers', 'nHeads',
    'nKvHeads', 'dFF', 'gated', 'norm', 'attnBias', 'ffnBias', 'embedNorm', 'finalNorm',
    'lmHead', 'pooler', 'nExperts', 'topK', 'nDecLayers'];
  const COUNT_KEYS = ['embeddings', 'attention', 'ffn', 'norms', 'other', 'total', 'active',
    'attentionPerLayer', 'ffnPerLayer'];

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
    for (let i = 0; i < n; i++) names.push(mod.UTF8ToString(addr(mod._bl_preset_name(i))));
    this.presets = names;
  }

  /* The loaded layout, a copy (tests pin it); _checkAbi(table) runs the load check on a table. */
  Engine.prototype._abi = function () { return JSON.parse(JSON.stringify(ABI)); };
  Engine.prototype._checkAbi = function (table) { checkAbi(table); };

  /* Size of the wasm memory in bytes (it grows on demand and never shrinks). */
  Engine.prototype.heapBytes = function () { return this._m.HEAPU8.length; };

  /* Tests only: `bytes` of the heap taken as the engine takes memory, and their address (0 when
     the heap cannot give them); _give(address) frees them. Ballast that puts what the engine
     takes next past it (tests/node/heap_4g.test.js: past 2 GiB). */
  Engine.prototype._take = function (bytes) {
    return bytes >= 0 && bytes <= HEAP_MAX ? heapAlloc(this._m, bytes) : 0;
  };
  Engine.prototype._give = function (p) { this._m._free(p); };
