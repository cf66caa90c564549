/* engine-load.js - the rest of the JS API (parameter counts, numpy-compatible random streams),
   load() with its choice of build (the chosen module decoded here, never fetched; or a compiled
   one shared from another engine: load({ wasmModule })), and the export; appended after the
   other engine files in the same scope, before engine-post.js closes it. */
  /* global ABI, args, CONFIG_KEYS, COUNT_KEYS, cut, Engine, fail, flag, idx8, MAX_ELEMS, oneOf */
  /* global optionNames, rethrow, show */

  const CONFIG_ARGS = optionNames(CONFIG_KEYS, function (c) {
    const r = {};
    CONFIG_KEYS.forEach(function (k) { r[k] = c[k]; });
    return r;
  });

  /* attnBias's values and their bl_attn_bias codes: true / false as before, 'qkv' for Qwen2's
     biases on q, k and v only ('all' and 'none' spell out the other two). */
  const ATTN_BIAS = [undefined, false, 0, 'none', true, 1, 'all', 'qkv'];
  const ATTN_BIAS_CODE = [0, 0, 0, 0, 1, 1, 1, 2];

  /* Parameter counts of a config object or a preset name. */
  Engine.prototype.paramCount = function (c) {
    const self = this;
    let printed = 0, read;
    if (typeof c === 'string') {
      const p = this.presetConfig(c);
      printed = p.printedTotal;
      c = p.config;
    }
    try {
      if (c === null || typeof c !== 'object' || Array.isArray(c))
        fail('paramCount expects an options object (a config) or a preset name, not ' + show(c));
      const keys = Object.keys(c);
      for (let i = 0; i < keys.length; i++)
        if (!CONFIG_ARGS.has.has(keys[i]))
          fail('unknown config key "' + cut(keys[i]) + '" (known: ' + CONFIG_KEYS.join(', ') + ')');
      read = CONFIG_ARGS.read(c);   /* each key read once */
    } catch (e) {
      rethrow(e, 'paramCount');
    }
    const fields = CONFIG_KEYS.map(function (k) {
      const v = read[k];
      if (k === 'norm') {
        if (v === undefined || v === 'layer') return 0;
        if (v === 'rms') return 1;
        fail(typeof v === 'string' ? 'norm "' + cut(v) + '" must be "layer" or "rms"'
          : 'norm must be "layer" or "rms", not ' + show(v));
      }
      if (k === 'attnBias') {   /* which projections: bl_attn_bias (none 0, all 1, q/k/v only 2) */
        const at = ATTN_BIAS.indexOf(v);
        if (at >= 0) return ATTN_BIAS_CODE[at];
        fail('attnBias must be true (q, k, v and o), "qkv" (q, k and v only) or false, not ' + show(v));
      }
      if (v === undefined || v === false) return 0;
      if (v === true) return 1;
      if (typeof v !== 'number') fail(k + ' must be a whole number >= 0 (or true / false), not ' + show(v));
      if (!Number.isSafeInteger(v) || v < 0) fail(k + ' (' + v + ') must be a whole number >= 0');
      return v;
    });
    return this._call(8 * (CONFIG_KEYS.length + COUNT_KEYS.length), function (base, m, err) {
      const counts = base + 8 * CONFIG_KEYS.length;
      m.HEAPF64.set(fields, idx8(base));
      self._check(m._bl__param_count_f64(base, counts, err), err);
      const r = {};
      COUNT_KEYS.forEach(function (k, i) {
        const v = m.HEAPF64[idx8(counts) + i];
        /* C counts in int64; past 2^53 a JS number would hold a rounded count */
        if (!Number.isSafeInteger(v))
          fail(k + ' (about ' + v.toPrecision(4) + ') is past 2^53 - 1: a JS number cannot hold it exactly');
        r[k] = v;
      });
      r.printedTotal = printed;
      return r;
    });
  };

  /* { config, printedTotal } of a named preset. */
  Engine.prototype.presetConfig = function (name) {
    const self = this;
    oneOf(name, 'preset', this.presets);
    const len = this._m.lengthBytesUTF8(name) + 1;
    return this._call(8 * (CONFIG_KEYS.length + 1) + len, function (base, m, err) {
      const printed = base + 8 * CONFIG_KEYS.length, str = printed + 8;
      m.stringToUTF8(name, str, len);
      self._check(m._bl__preset_f64(str, base, printed, err), err);
      const config = {};
      CONFIG_KEYS.forEach(function (k, i) {
        const v = m.HEAPF64[idx8(base) + i];
        config[k] = k === 'norm' ? (v ? 'rms' : 'layer') : k === 'attnBias' && v === 2 ? 'qkv' : v;
      });
      return { config: config, printedTotal: m.HEAPF64[idx8(printed)] };
    });
  };

  /* numpy's legacy RandomState(seed): state lives in JS, copied in and out per call. */
  Engine.prototype.numpyRandom = function (seed) {
    if (typeof seed !== 'number') fail('seed must be an integer between 0 and 2**32 - 1, not ' + show(seed));
    if (!Number.isInteger(seed) || seed < 0 || seed > 4294967295)
      fail('seed (' + seed + ') must be an integer between 0 and 2**32 - 1');
    const state = new Uint8Array(ABI.bl_rng.sizeof);
    this._call(state.length, function (base, m) {
      m._bl_rng_seed(base, seed >>> 0);
      state.set(m.HEAPU8.subarray(base, base + state.length));
    });
    return randomState(this, seed, state);
  };

  /* The stream object over `state` (a bl_rng's bytes, its own). copy(): a second one that continues
     from here independently (a stream drawn in parts, each part redone at will). */
  function randomState(engine, seed, state) {
    function draw(n, fnName, bytesPer, View, name) {
      if (typeof n !== 'number') fail('n must be an integer between 0 and ' + MAX_ELEMS + ', not ' + show(n));
      if (!Number.isInteger(n) || n < 0 || n > MAX_ELEMS)
        fail('n (' + n + ') must be an integer between 0 and ' + MAX_ELEMS);
      const size = state.length;
      return engine._call(size + n * bytesPer, function (base, m, err) {
        m.HEAPU8.set(state, base);
        const out = base + size;
        engine._check(m[fnName](base, out, n, err), err);
        state.set(m.HEAPU8.subarray(base, base + size));
        const view = new View(m.HEAPU8.buffer, out, n);
        return view.slice();
      }, name + '(' + n + ')');
    }
    return {
      seed: seed,
      randn: function (n) { return draw(n, '_bl_rng_normal_f64', 8, Float64Array, 'randn'); },
      rand: function (n) { return draw(n, '_bl_rng_uniform_f64', 8, Float64Array, 'rand'); },
      randnF32: function (n) { return draw(n, '_bl_rng_normal_f32', 4, Float32Array, 'randnF32'); },
      copy: function () { return randomState(engine, seed, state.slice()); }
    };
  }

  /* A module with one function returning an i32x4.splat: valid only where wasm SIMD is. */
  const SIMD_PROBE = [0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 8, 1, 6,
    0, 65, 0, 253, 17, 11];
  /* (v128) -> v128: f32x4.relaxed_madd of its argument three times (0xfd 0x85 0x02, the
     standard opcode): valid only where relaxed SIMD is (Chromium; Node 20 with a flag). */
  const FMA_PROBE = [0, 97, 115, 109, 1, 0, 0, 0, 1, 6, 1, 96, 1, 123, 1, 123, 3, 2, 1, 0, 10, 13,
    1, 11, 0, 32, 0, 32, 0, 32, 0, 253, 133, 2, 11];
  function validates(bytes) {
    try {
      return typeof WebAssembly === 'object' && WebAssembly.validate(new Uint8Array(bytes));
    } catch (e) {
      return false;
    }
  }

  const LOAD_ARGS = optionNames(['simd', 'fma', 'wasmModule'], function (o) {
    return { simd: o.simd, fma: o.fma, wasmModule: o.wasmModule };
  });

  /* Byte offsets of the FMA instructions (f32x4.relaxed_madd, 0xfd 0x85 0x02) in the SIMD
     module, written by tools/relax.js --fill-sites when the file is built. */
  const FMA_SITES = /*@FMA_SITES*/[]/*@*/;

  /* What each build's module says it is: its "blocklens" custom section (src/wasm_abi.c). */
  const BUILD_TAGS = { fma: 'blocklens simd fma=1', simd: 'blocklens simd fma=0', scalar: 'blocklens scalar' };

  /* The bytes of a factory's inlined module (Emscripten's SINGLE_FILE data: URL), decoded here
     and handed over through instantiateWasm, so that Emscripten never fetch()es the data: URL
     (a page whose CSP has no connect-src would log a violation before the fallback). */
  const DATA_URL = 'data:application/octet-stream;base64,';
  function inlinedBytes(factory) {
    let src = factory.toString(), at = -1;
    do at = src.indexOf(DATA_URL, at + 1);   /* the first one is the glue's empty prefix */
    while (at >= 0 && src.charAt(at + DATA_URL.length) === '"');
    if (at < 0) fail('the wasm module is missing from this file');
    const b64 = src.slice(at + DATA_URL.length, src.indexOf('"', at));
    if (typeof Buffer === 'function' && typeof Buffer.from === 'function') {
      const b = Buffer.from(b64, 'base64');
      return new Uint8Array(b.buffer, b.byteOffset, b.length);
    }
    const bin = atob(b64), n = bin.length, bytes = new Uint8Array(n);
    for (let i = 0; i < n; i++) bytes[i] = bin.charCodeAt(i);
    return bytes;
  }

  /* [start, end) of the payload of the custom section `name` in a wasm binary, or null: walks
     the section headers only. */
  function customSection(bytes, name) {
    let p = 8;
    function leb() {
      let r = 0, shift = 0, b;
      do { b = bytes[p++]; r += (b & 127) * Math.pow(2, shift); shift += 7; } while (b & 128);
      return r;
    }
    while (p < bytes.length) {
      const id = bytes[p++], size = leb(), end = p + size;
      if (id === 0) {
        const n = leb();
        if (String.fromCharCode.apply(null, bytes.subarray(p, p + n)) === name) return [p + n, end];
      }
      p = end;
    }
    return null;
  }

  /* The SIMD module for the SIMD build: each FMA instruction becomes v128.bitselect + nop
     (0xfd 0x52 0x01), the same stack shape and length, so the module validates without relaxed
     SIMD; bl__set_fma is never called there, so that code never runs. Its tag says fma=0. */
  function withoutFma(bytes) {
    FMA_SITES.forEach(function (at) {
      if (bytes[at] !== 0xfd || bytes[at + 1] !== 0x85 || bytes[at + 2] !== 0x02)
        fail('the SIMD module has no FMA instruction at byte ' + at + ': rebuild it');
      bytes[at + 1] = 0x52;
      bytes[at + 2] = 0x01;
    });
    const tag = customSection(bytes, 'blocklens');
    if (!tag || String.fromCharCode.apply(null, bytes.subarray(tag[0], tag[1])) !== BUILD_TAGS.fma)
      fail('the SIMD module has no "' + BUILD_TAGS.fma + '" tag: rebuild it');
    bytes[tag[1] - 1] = 0x30;   /* fma=1 -> fma=0 */
    return bytes;
  }

  /* Checks that `wasmModule` (load's option) was compiled from this file for build `key`. */
  function checkModule(wasmModule, key) {
    const sections = WebAssembly.Module.customSections(wasmModule, 'blocklens');
    const tag = sections.length === 1 ? String.fromCharCode.apply(null, new Uint8Array(sections[0])) : null;
    if (tag === BUILD_TAGS[key]) return;
    let was = null;
    for (const k in BUILD_TAGS) if (BUILD_TAGS[k] === tag) was = k;
    fail(was ? 'wasmModule was compiled for the ' + was + ' build, but this load() picked the ' + key +
      ' build (pass the options it was loaded with, or its engine.fma / engine.simd)'
      : 'wasmModule is not a BlockLens wasm module (no "blocklens" build tag)');
  }

  /* Runs the build's Emscripten factory with the module compiled from `wasmModule` (a checked
     WebAssembly.Module) or from its inlined bytes, decoded (and patched) only for this build.
     Resolves to [Emscripten module, WebAssembly.Module]. */
  function instantiate(key, wasmModule) {
    return new Promise(function (resolve, reject) {
      const source = wasmModule || (key === 'scalar' ? inlinedBytes(BlockLensCoreScalar)
        : key === 'simd' ? withoutFma(inlinedBytes(BlockLensCore)) : inlinedBytes(BlockLensCore));
      let compiled = null;
      const factory = key === 'scalar' ? BlockLensCoreScalar : BlockLensCore;
      factory({
        instantiateWasm: function (imports, receive) {
          const made = wasmModule ? WebAssembly.instantiate(wasmModule, imports).then(function (instance) {
            return { module: wasmModule, instance: instance };
          }) : WebAssembly.instantiate(source, imports);
          made.then(function (r) {
            compiled = r.module;
            receive(r.instance, r.module);
          }).catch(reject);
          return {};   /* exports arrive through receive */
        }
      }).then(function (mod) { resolve([mod, compiled]); }, reject);
    });
  }

  function isModule(v) {
    return typeof WebAssembly === 'object' && Object.prototype.toString.call(v) === '[object WebAssembly.Module]';
  }

  const loading = {};
  /* One shared engine per page / process and build: load() returns the same promise every
     time. Three ways to run the same C: FMA (SIMD plus relaxed-SIMD fused multiply-add in
     large matrix products) where the runtime validates relaxed SIMD, SIMD where it validates
     SIMD, scalar elsewhere; FMA and SIMD are one module, with FMA switched on or patched out.
     load({ fma: false }) and load({ simd: false }) step down (tests, benchmarks); true for
     either rejects where the runtime lacks it. engine.simd and engine.fma say which runs.
     engine.wasmModule is the compiled WebAssembly.Module: post it to a Worker, whose
     load({ wasmModule }) (with the same simd / fma options) then instantiates it instead of
     decoding and compiling again; a module of another build rejects. When that build is
     already loaded, load({ wasmModule }) returns the same promise as ever. */
  function load(opts) {
    if (opts !== undefined && (opts === null || typeof opts !== 'object' || Array.isArray(opts)))
      fail('load expects no argument or an options object');
    const o = opts === undefined ? {} : args(opts, 'load', LOAD_ARGS);   /* each option read once */
    const wantSimd = flag(o.simd, 'simd', undefined), wantFma = flag(o.fma, 'fma', undefined);
    const wasmModule = o.wasmModule === undefined ? null : o.wasmModule;
    if (wasmModule !== null && !isModule(wasmModule) || o.wasmModule === null)
      fail('wasmModule must be a WebAssembly.Module (an engine.wasmModule), not ' + show(o.wasmModule));
    if (wantSimd === false && wantFma === true) fail('fma needs simd: { simd: false, fma: true } cannot be met');
    const simd = wantSimd === false ? false : validates(SIMD_PROBE);
    const fma = simd && wantFma !== false && validates(FMA_PROBE);
    if (wantSimd === true && !simd) return Promise.reject(new Error('BlockLens: this runtime has no wasm SIMD'));
    if (wantFma === true && !fma)
      return Promise.reject(new Error('BlockLens: this runtime has no relaxed wasm SIMD (fma)'));
    const key = fma ? 'fma' : simd ? 'simd' : 'scalar';
    if (wasmModule) {
      try {
        checkModule(wasmModule, key);
      } catch (e) {
        return Promise.reject(e);
      }
    }
    if (!loading[key]) {
      loading[key] = instantiate(key, wasmModule).then(function (r) {
        const mod = r[0];
        if (fma) mod._bl__set_fma(1);
        const engine = new Engine(mod);
        engine.simd = simd;
        engine.fma = fma;
        engine.wasmModule = r[1];
        return engine;
      });
      loading[key].catch(function () { loading[key] = null; });
    }
    return loading[key];
  }

  /* ---- worker source (front end; kept apart from the API above) ----
     The whole engine script (this scope: Emscripten's factories and this API) as the text of a
     classic script that defines BlockLens in a Worker. A page opened from file:// cannot start
     a Worker from a URL, but it can from a Blob of this text. */
  function workerSource() {
    return '(' + blocklensModule.toString() + ')(self);\n';
  }

  const api = { load: load, version: '0.1.0', workerSource: workerSource };
  if (typeof module === 'object' && module && module.exports) module.exports = api;
  else root.BlockLens = api;
