/* engine-folder.js - bl.loadModel(source, options): the synchronous { weights, config, vocab } form
   (loadBytes), or a Hugging Face model folder, read asynchronously: a path (Node's fs), { files }
   (name -> Uint8Array, ArrayBuffer or Blob) or a FileList / array of File (a browser). config.json,
   the tokenizer or vocab.json, model.safetensors or the shards model.safetensors.index.json names:
   every header read and checked (across shards too) before memory is taken, then the tensors read
   in pieces into the heap, with progress events and an AbortSignal. */
  /* global require */
  /* global architectureOf, args, blobSource, BLOB_SIZE, bytesAt, checkHeap, copyModel, cut, Engine, fail */
  /* global fileSource, headerLength, isBlob, loadBytes, memorySource, Model, optionNames, parseHeader */
  /* global plainBytes, q, readVocab, reserveModel, rethrow, show, TA_LENGTH, tokenizerOf, Vocab */

  const CONFIG = 'config.json', SINGLE = 'model.safetensors', INDEX = 'model.safetensors.index.json';
  const TOKENIZER_FILES = ['tokenizer.json', 'tokenizer_config.json', 'vocab.json', 'merges.txt',
    'special_tokens_map.json'];
  /* Weights of other formats, named when a folder has only them. */
  const OTHER_WEIGHTS = /^(pytorch_model.*\.bin|.*\.pt|.*\.pth|tf_model\.h5|flax_model\.msgpack|.*\.gguf|.*\.onnx)$/;
  /* The small files (config, index, tokenizer) are read whole, up to this size. */
  const WHOLE_MAX = 256 << 20;
  const UTF8 = new TextDecoder('utf-8', { fatal: true });

  const FILES_ARGS = optionNames(['files'], function (o) { return { files: o.files }; });
  const FOLDER_OPTIONS = optionNames(['onProgress', 'signal'], function (o) {
    return { onProgress: o.onProgress, signal: o.signal };
  });

  /* bl.loadModel: { weights, config, vocab } -> a Model (today's form); a folder -> a Promise. */
  Engine.prototype.loadModel = function (source, options) {
    if (isFolder(source)) return loadFolder(this, source, options);
    if (options !== undefined)
      fail('loadModel({ weights, config, vocab }) takes no options: onProgress and signal are for a folder');
    return loadBytes(this, source);
  };

  const FILE_LIST_LENGTH = typeof FileList === 'function' ?
    Object.getOwnPropertyDescriptor(FileList.prototype, 'length').get : null;
  const FILE_LIST_ITEM = FILE_LIST_LENGTH && FileList.prototype.item;
  const FILE_PROTO = typeof File === 'function' ? File.prototype : null;
  const FILE_NAME = FILE_PROTO && Object.getOwnPropertyDescriptor(FILE_PROTO, 'name').get;
  const RELATIVE = FILE_PROTO && Object.getOwnPropertyDescriptor(FILE_PROTO, 'webkitRelativePath');
  function isFileList(v) {
    if (!FILE_LIST_LENGTH) return false;
    try {
      FILE_LIST_LENGTH.call(v);
      return true;
    } catch (e) {
      return false;
    }
  }

  /* A folder form: a path, a FileList, an array (of File), or an object with `files`. */
  function isFolder(v) {
    if (typeof v === 'string') return true;
    if (v === null || typeof v !== 'object') return false;
    try {
      return isFileList(v) || Array.isArray(v) || Object.prototype.hasOwnProperty.call(v, 'files');
    } catch (e) {
      return false;   /* a revoked Proxy: loadBytes reports it */
    }
  }

  /* A folder's files: name -> { name, size, bytes (a plain view) | blob | path }. */
  async function folderFiles(source) {
    if (typeof source === 'string') return nodeFolder(source);
    const files = new Map();
    function add(name, file) {
      if (files.has(name)) fail('loadModel: two files are named ' + q(name));
      file.name = name;
      files.set(name, file);
    }
    if (isFileList(source) || Array.isArray(source)) {
      const list = [];
      try {
        if (isFileList(source))
          for (let i = 0, n = FILE_LIST_LENGTH.call(source); i < n; i++) list.push(FILE_LIST_ITEM.call(source, i));
        else for (let i = 0, n = source.length; i < n; i++) list.push(source[i]);
      } catch (e) {
        rethrow(e, 'loadModel');
      }
      list.forEach(function (f, i) {
        let name = null;
        try {
          name = FILE_NAME && isBlob(f) ? FILE_NAME.call(f) : null;
        } catch (e) { /* a Blob that is no File */ }
        if (name === null) fail('loadModel: files[' + i + '] is ' + show(f) + ', not a File');
        const rel = RELATIVE && RELATIVE.get ? String(RELATIVE.get.call(f)) : '';
        add(rel.indexOf('/') >= 0 ? rel.slice(rel.indexOf('/') + 1) : name, { size: BLOB_SIZE.call(f), blob: f });
      });
      return files;
    }
    const o = args(source, 'loadModel', FILES_ARGS), given = o.files;
    if (given === null || typeof given !== 'object' || Array.isArray(given))
      fail('loadModel: files must be an object (file name -> Uint8Array, ArrayBuffer or Blob), not ' + show(given));
    const entries = [];
    try {
      Object.keys(given).forEach(function (name) { entries.push([name, given[name]]); });
    } catch (e) {
      rethrow(e, 'loadModel');
    }
    entries.forEach(function (e) {
      const v = e[1];
      if (isBlob(v)) return add(e[0], { size: BLOB_SIZE.call(v), blob: v });
      const bytes = plainBytes(v);
      if (!bytes)
        fail('loadModel: files[' + q(e[0]) + '] must be a Uint8Array, an ArrayBuffer or a Blob, not ' + show(v));
      add(e[0], { size: TA_LENGTH.call(bytes), bytes: bytes });
    });
    return files;
  }

  /* The regular files of folder `dir` (Node). */
  async function nodeFolder(dir) {
    if (typeof require !== 'function')
      fail('loadModel: a folder path needs Node\'s fs; in a browser pass a FileList, an array of File or { files }');
    const fs = require('fs'), path = require('path'), files = new Map();
    let names;
    try {
      names = await fs.promises.readdir(dir);
    } catch (e) {
      fail('loadModel: cannot read the folder ' + q(dir) + ' (' + cut(String(e.code || e.message)) + ')');
    }
    for (const name of names) {
      const p = path.join(dir, name);
      let st = null;
      try {
        st = await fs.promises.stat(p);   /* follows links (a Hugging Face cache snapshot) */
      } catch (e) { /* a dangling link: not a file of the folder */ }
      if (st && st.isFile()) files.set(name, { name: name, size: st.size, path: p });
    }
    return files;
  }

  /* A small file's bytes, whole. */
  async function wholeFile(file) {
    if (file.size > WHOLE_MAX)
      fail(file.name + ' is ' + file.size + ' bytes, more than the ' + WHOLE_MAX + ' BlockLens reads of such a file');
    if (file.bytes) return file.bytes;
    if (file.blob) return blobSource(file.blob, file.name).read(0, file.size);
    const b = await require('fs').promises.readFile(file.path);
    return new Uint8Array(b.buffer, b.byteOffset, b.length);
  }

  /* A JSON file of the folder, parsed. */
  async function jsonFile(file) {
    const bytes = await wholeFile(file);
    let text;
    try {
      text = UTF8.decode(bytes.slice());   /* a copy of our own: TextDecoder refuses shared memory */
    } catch (e) {
      fail(file.name + ' is not UTF-8 text');
    }
    try {
      return JSON.parse(text);
    } catch (e) {
      fail(file.name + ' is not JSON (' + cut(String(e.message)) + ')');
    }
  }

  /* The source of a file's bytes; Node's file handles are kept in `open` to be closed. */
  async function sourceOf(file, open) {
    if (file.bytes) return memorySource(file.bytes, file.name);
    if (file.blob) return blobSource(file.blob, file.name);
    const handle = await require('fs').promises.open(file.path, 'r');
    open.push(handle);
    return fileSource(handle, file.size, file.name);
  }

  /* A shard's header: its first 8 bytes, then the header they announce, parsed and checked. */
  async function shardHeader(source) {
    if (source.bytes) {
      const n = headerLength(source.bytes, source.size, source.label);
      return parseHeader(bytesAt(source.bytes, 8, n), source.size, source);
    }
    const first = await source.read(0, Math.min(8, source.size));
    const hlen = headerLength(first, source.size, source.label);
    return parseHeader(await source.read(8, 8 + hlen), source.size, source);
  }

  /* The weights' files: model.safetensors, else the shards of model.safetensors.index.json
     (weight_map: tensor name -> shard file), each named once, in the order first named. */
  async function weightFiles(files) {
    if (files.has(SINGLE)) return { names: [SINGLE], index: null };
    if (!files.has(INDEX)) {
      const names = Array.from(files.keys());
      const shards = names.filter(function (n) { return /\.safetensors$/.test(n); });
      const other = names.filter(function (n) { return OTHER_WEIGHTS.test(n); });
      fail('the folder has no weights: BlockLens reads ' + SINGLE + ', or ' + INDEX + ' and the shards it names' +
        (shards.length ? ' (it has ' + shards.slice(0, 3).map(q).join(', ') + ' but no ' + INDEX + ')'
          : other.length ? ' (it has ' + other.slice(0, 3).map(q).join(', ') + ': convert it to safetensors)' : ''));
    }
    const doc = await jsonFile(files.get(INDEX));
    const map = doc !== null && typeof doc === 'object' ? doc.weight_map : undefined;
    if (map === null || typeof map !== 'object' || Array.isArray(map))
      fail(INDEX + ': its weight_map is ' + show(map) + ', not an object of tensor name -> shard file');
    const index = new Map(), names = [];
    Object.keys(map).forEach(function (name) {
      const f = map[name];
      if (typeof f !== 'string') fail(INDEX + ' puts tensor ' + q(name) + ' in ' + show(f) + ', not a file name');
      if (!files.has(f))
        fail(INDEX + ' puts tensor ' + q(name) + ' in ' + q(f) + ', which is not in the folder' +
          (/[/\\]/.test(f) ? ' (a shard is a file of the folder itself)' : ''));
      if (names.indexOf(f) < 0) names.push(f);
      index.set(name, f);
    });
    if (!names.length) fail(INDEX + ': its weight_map names no tensor');
    return { names: names, index: index };
  }

  /* The tensors of every shard in one Map (labelled for messages), checked against each other
     (no tensor in two shards) and against the index (each where it says, every one it lists held). */
  function mergeShards(maps, index) {
    if (!index) return maps[0];
    const all = new Map();
    all.label = INDEX + ' and its shards';
    maps.forEach(function (map) {
      map.forEach(function (t, name) {
        if (all.has(name))
          fail('tensor ' + q(name) + ' is in two shards, ' + q(all.get(name).source.label) + ' and ' + q(map.label));
        all.set(name, t);
      });
    });
    maps.forEach(function (map) {
      map.forEach(function (t, name) {
        if (!index.has(name)) fail(map.label + ' holds tensor ' + q(name) + ', which ' + INDEX + ' does not list');
        if (index.get(name) !== map.label)
          fail(map.label + ' holds tensor ' + q(name) + ', which ' + INDEX + ' puts in ' + q(index.get(name)));
      });
    });
    index.forEach(function (f, name) {
      if (!all.has(name)) fail(INDEX + ' puts tensor ' + q(name) + ' in ' + q(f) + ', which does not hold it');
    });
    return all;
  }

  /* The folder's vocabulary: the tokenizer module's (tokenizer.json, or vocab.json + merges.txt),
     else vocab.json as a JSON array of strings (token i is entry i: the poem model's). */
  async function folderVocab(files, dims) {
    const why = files.has('tokenizer.json') ? 'tokenizer.json'
      : files.has('vocab.json') && files.has('merges.txt') ? 'vocab.json and merges.txt' : null;
    if (why) {
      const given = {};
      for (const name of TOKENIZER_FILES)
        if (files.has(name)) given[name] = (await wholeFile(files.get(name))).slice();   /* the module's own copy */
      return tokenizerOf(given, why, dims.vocabSize, dims.bos, dims.unk);
    }
    if (!files.has('vocab.json'))
      fail('the folder has no tokenizer: BlockLens reads tokenizer.json, vocab.json and merges.txt, ' +
        'or vocab.json as a JSON array of the token strings');
    const v = await jsonFile(files.get('vocab.json'));
    if (!Array.isArray(v))
      fail('vocab.json is ' + show(v) + ': without merges.txt it must be a JSON array of the token strings');
    return new Vocab(readVocab(v, dims.vocabSize), dims.bos, dims.unk);
  }

  const ABORTED = typeof AbortSignal === 'function' ?
    Object.getOwnPropertyDescriptor(AbortSignal.prototype, 'aborted').get : null;

  /* The load's options, checked: { onProgress, signal } -> the watch the reads report to. */
  function folderWatch(options) {
    const o = options === undefined ? {} : args(options, 'loadModel', FOLDER_OPTIONS);
    const onProgress = o.onProgress, signal = o.signal;
    if (onProgress !== undefined && typeof onProgress !== 'function')
      fail('loadModel: onProgress must be a function ({ bytesRead, bytesTotal, phase }), not ' + show(onProgress));
    if (signal !== undefined) {
      try {
        ABORTED.call(signal);
      } catch (e) {
        fail('loadModel: signal must be an AbortSignal, not ' + show(signal));
      }
    }
    const reached = new Map();
    const watch = {
      total: 0,
      check: function () {
        if (signal !== undefined && ABORTED.call(signal)) fail('loadModel was cancelled (its signal was aborted)');
      },
      /* every source counts up to the byte reached in it: all of them at phase 'done' */
      progress: function (source, at, phase) {
        reached.set(source, Math.max(reached.get(source) || 0, at));
        let read = 0;
        reached.forEach(function (n) { read += n; });
        if (onProgress) onProgress({ bytesRead: read, bytesTotal: watch.total, phase: phase || 'weights' });
      },
      /* the last event: every source read to its end (what was not read is no tensor the model uses) */
      done: function (sources) {
        sources.forEach(function (s) { reached.set(s, s.size); });
        watch.progress(sources[0], 0, 'done');
      }
    };
    return watch;
  }

  /* A folder (a path, { files }, a FileList or an array of File) -> a Promise of a Model. Every
     file's header is checked before memory is taken; a failed or cancelled load frees what it took
     and closes what it opened. */
  async function loadFolder(engine, source, options) {
    const watch = folderWatch(options), open = [], m = engine._m;
    watch.check();
    const files = await folderFiles(source);
    if (!files.has(CONFIG)) {
      const names = Array.from(files.keys());
      fail('the folder has no ' + CONFIG + ' (it has ' + (names.length ? names.slice(0, 8).map(q).join(', ') +
        (names.length > 8 ? ', \u2026' : '') : 'no files') + ')');
    }
    const config = await jsonFile(files.get(CONFIG));
    if (config !== null && typeof config === 'object' && config.quantization_config != null)
      fail(CONFIG + ' has a quantization_config: BlockLens reads unquantized weights (F32, F16 and BF16)');
    const arch = architectureOf(config), cfg = arch.config(config), dims = arch.describe(cfg);
    const vocab = await folderVocab(files, dims);
    const plan = arch.plan(cfg);
    checkHeap(plan, dims);   /* before a byte of weights is read */
    const weights = await weightFiles(files);
    weights.names.forEach(function (name) { watch.total += files.get(name).size; });
    let base = 0;
    try {
      const maps = [], sources = [];
      for (const name of weights.names) {
        watch.check();
        const src = await sourceOf(files.get(name), open), map = await shardHeader(src);
        if (src.release) src.release();
        maps.push(map);
        sources.push(src);
        watch.check();
        watch.progress(src, src.size - dataBytes(map), 'headers');   /* 8 + the header's length */
      }
      const t = arch.tensors(mergeShards(maps, weights.index), cfg, plan);
      base = reserveModel(m, plan, dims);
      const copy = copyModel(m, arch, t, plan, base, cfg);
      await copy.reads.run(m, watch);
      watch.check();
      copy.check();
      const model = new Model({ engine: engine, arch: arch, base: base, plan: plan, dims: dims, vocab: vocab }, cfg);
      base = 0;
      watch.done(sources);
      return model;
    } finally {
      if (base) m._free(base);
      for (const handle of open) await handle.close().catch(function () {});
    }
  }

  /* The bytes of a parsed file's data (the tensors tile it). */
  function dataBytes(map) {
    let n = 0;
    map.forEach(function (t) { n += t.end - t.begin; });
    return n;
  }
