/* engine-train.js - bl.trainer(options): a character-level GPT-2 trained in the engine (src/train.c,
   src/adamw.c): its options, the samples (engine-train-text.js), the seeded initialisation, one heap block
   holding parameters, gradients, AdamW's moments, the workspace and the random state, and the
   trained model handed out as a Model (loadBytes) or as a Hugging Face folder's three files. */
  /* global ABI, args, dim, Engine, fail, HEAP_MAX, heapAlloc, idx4, idx8, loadBytes, optionNames */
  /* global buildVocab, linesOf, outOfMemory, rowOf, safetensorsBytes, show, tokenizerJson, UTF8_OUT */
  /* exported Trainer */

  const TRAINER_ARGS = optionNames(['text', 'config', 'seed', 'batch', 'lr', 'weightDecay', 'warmup', 'steps',
    'coverage'], function (o) {
      return { text: o.text, config: o.config, seed: o.seed, batch: o.batch, lr: o.lr, weightDecay: o.weightDecay,
        warmup: o.warmup, steps: o.steps, coverage: o.coverage };
    });
  const TRAIN_KEYS = ['n_embd', 'n_layer', 'n_head', 'n_positions', 'n_inner', 'activation_function',
    'layer_norm_epsilon'];
  /* activation_function -> the engine's bl_activation (relu 0, gelu 1, gelu_tanh 2) */
  const TRAIN_ACT = { relu: 0, gelu: 1, gelu_new: 2 };
  const HELD_OUT_EVERY = 20;     /* line i is held out when i % 20 == 19 (with 20 lines or more) */
  const BETA1 = 0.9, BETA2 = 0.95, ADAM_EPS = 1e-8, CLIP = 1.0;
  const TRAIN_PARTS = ['ln1_gamma', 'ln1_beta', 'wq', 'wk', 'wv', 'bq', 'bk', 'bv', 'wo', 'bo',
    'ln2_gamma', 'ln2_beta', 'w1', 'b1', 'w2', 'b2'];   /* bl_train_part's order within a layer */

  /* A number option: finite, in [lo, hi] (hi may be Infinity), integer when asked; its default when undefined. */
  function numberOpt(v, name, fallback, lo, hi, integer) {
    if (v === undefined) return fallback;
    const what = (integer ? 'an integer' : 'a number') + ' between ' + lo + ' and ' + hi;
    if (typeof v !== 'number') fail('trainer: ' + name + ' must be ' + what + ', not ' + show(v));
    if (!(v >= lo && v <= hi) || !isFinite(v) || (integer && !Number.isInteger(v)))
      fail('trainer: ' + name + ' (' + v + ') must be ' + what);
    return v;
  }

  /* config (HF GPT-2 keys) checked -> the full config.json object BlockLens writes. */
  function trainConfig(c, vocabSize) {
    if (c === null || typeof c !== 'object' || Array.isArray(c))
      fail('trainer: config must be an object of GPT-2 config keys (' + TRAIN_KEYS.join(', ') + '), not ' +
        show(c));
    const r = {};
    Object.keys(c).forEach(function (k) {
      if (TRAIN_KEYS.indexOf(k) < 0)
        fail('trainer: config has no key "' + k + '" (known: ' + TRAIN_KEYS.join(', ') + ')');
    });
    TRAIN_KEYS.forEach(function (k) { r[k] = c[k]; });
    ['n_embd', 'n_layer', 'n_head', 'n_positions'].forEach(function (k) {
      if (r[k] === undefined) fail('trainer: config.' + k + ' is required');
      dim(r[k], 'trainer: config.' + k);
    });
    if (r.n_inner === undefined || r.n_inner === null) r.n_inner = 4 * r.n_embd;
    dim(r.n_inner, 'trainer: config.n_inner');
    if (r.n_embd % r.n_head !== 0)
      fail('trainer: config.n_embd (' + r.n_embd + ') must be divisible by config.n_head (' + r.n_head + ')');
    if (r.activation_function === undefined) r.activation_function = 'gelu_new';
    const act = r.activation_function;
    if (typeof act !== 'string' || !Object.prototype.hasOwnProperty.call(TRAIN_ACT, act))
      fail('trainer: config.activation_function ' + show(r.activation_function) + ' is not one of ' +
        Object.keys(TRAIN_ACT).join(', '));
    r.layer_norm_epsilon = numberOpt(r.layer_norm_epsilon, 'config.layer_norm_epsilon', 1e-5, 1e-30, 1);
    return { model_type: 'gpt2', architectures: ['GPT2LMHeadModel'], vocab_size: vocabSize, n_embd: r.n_embd,
      n_head: r.n_head, n_inner: r.n_inner, n_layer: r.n_layer, n_positions: r.n_positions,
      layer_norm_epsilon: r.layer_norm_epsilon, activation_function: r.activation_function,
      tie_word_embeddings: true, bos_token_id: 0, unk_token_id: 1, torch_dtype: 'float32' };
  }

  /* The state of each Trainer, out of the caller's reach. */
  const TRAINERS = new WeakMap();
  function live(t, fn) {
    const s = TRAINERS.get(t);
    if (!s) fail(fn + ' must be called on a trainer that bl.trainer returned');
    if (!s.base) fail(fn + ': this trainer was freed (free() was called)');
    return s;
  }

  /* bl.trainer(options) -> a Trainer (see web/blocklens.d.ts). */
  Engine.prototype.trainer = function (options) {
    const o = args(options, 'trainer', TRAINER_ARGS);
    if (typeof o.text !== 'string') fail('trainer: text must be a string (the training text), not ' + show(o.text));
    const seed = numberOpt(o.seed, 'seed', 1234, 0, 4294967295, true);
    const batch = numberOpt(o.batch, 'batch', 8, 1, 4096, true);
    const lr = numberOpt(o.lr, 'lr', 3e-3, 0, 10);
    const weightDecay = numberOpt(o.weightDecay, 'weightDecay', 0.01, 0, 10);
    const warmup = numberOpt(o.warmup, 'warmup', 0, 0, 1e9, true);
    const steps = numberOpt(o.steps, 'steps', 0, 1, 1e9, true);
    const coverage = numberOpt(o.coverage, 'coverage', 1, 0, 1);
    const P = trainConfig(o.config, 0).n_positions;   /* the config checked before the text is read */
    const all = linesOf(o.text, P), held = [], train = [];
    all.forEach(function (cs, i) {
      (all.length >= HELD_OUT_EVERY && i % HELD_OUT_EVERY === HELD_OUT_EVERY - 1 ? held : train).push(cs);
    });
    const nchars = train.reduce(function (a, cs) { return a + cs.length; }, 0);
    if (nchars < 2) fail('trainer: text has ' + nchars + ' character' + (nchars === 1 ? '' : 's') +
      ' outside the held-out lines; it needs at least 2 to train on');
    const vocab = buildVocab(train, coverage), list = vocab.list, config = trainConfig(o.config, list.length);
    const ids = new Map(list.map(function (s, i) { return [s, i]; }));
    return new Trainer(this, { config: config, list: list, ids: ids, batch: batch, lr: lr, weightDecay: weightDecay,
      warmup: warmup, total: steps, seed: seed, covered: vocab.covered,
      train: train.map(function (cs) { return rowOf(ids, cs); }),
      held: held.map(function (cs) { return rowOf(ids, cs); }) });
  };

  /* The trainer's heap block, one table for its size and use (byte offsets): params, grads, m, v
     (n floats each), the workspace, tokens (batch x (n_positions + 1) int32), cfg (9 int32), loss,
     norm, the two random states (initialisation, data order) and the error record. */
  function Trainer(engine, s) {
    const m = engine._m, c = s.config, NL = c.n_layer;
    s.engine = engine;
    s.cfg = [NL, c.n_embd, c.n_head, c.n_inner, c.vocab_size, c.n_positions, TRAIN_ACT[c.activation_function],
      s.batch, c.n_positions];
    s.eps = c.layer_norm_epsilon;
    /* the layout and sizes from C (its messages name a refused size) */
    const lay = engine._call(64 + (6 + 16 * NL) * 8, function (base, mm, err) {
      const cfgAt = base, outAt = base + 64;
      s.cfg.forEach(function (v, i) { mm.HEAP32[idx4(cfgAt) + i] = v; });
      engine._check(mm._bl__train_layout(cfgAt, s.eps, outAt, err), err);
      return Array.from(mm.HEAPF64.subarray(idx8(outAt), idx8(outAt) + 6 + 16 * NL));
    }, 'trainer');
    const n = lay[0], W = lay[1];
    s.n = n;
    s.off = { wte: lay[2], wpe: lay[3], lnf_gamma: lay[4], lnf_beta: lay[5], layers: [] };
    for (let l = 0; l < NL; l++) {
      const p = {};
      TRAIN_PARTS.forEach(function (k, j) { p[k] = lay[6 + 16 * l + j]; });
      s.off.layers.push(p);
    }
    const rng = ABI.bl_rng.sizeof, at = {};
    let bytes = 0;
    [['params', n * 4], ['grads', n * 4], ['m', n * 4], ['v', n * 4], ['ws', W * 4],
      ['tokens', s.batch * (c.n_positions + 1) * 4], ['cfg', 64], ['loss', 8], ['norm', 8],
      ['rngInit', rng], ['rngData', rng], ['err', ABI.bl_error.sizeof]].forEach(function (e) {
      at[e[0]] = bytes;
      bytes += Math.ceil(e[1] / 8) * 8;
    });
    const what = 'trainer (n_layer ' + NL + ', n_embd ' + c.n_embd + ', vocab ' + c.vocab_size + ', batch ' +
      s.batch + ')';
    if (bytes > HEAP_MAX) outOfMemory(what, bytes, false);
    const base = heapAlloc(m, bytes);
    if (!base) outOfMemory(what, bytes, true);
    s.base = base;
    s.at = {};
    for (const k in at) s.at[k] = base + at[k];
    s.step = 0;
    s.last = null;
    TRAINERS.set(this, s);
    try {
      init(s);
    } catch (e) {
      m._free(base);
      s.base = 0;
      throw e;
    }
    const fields = { vocab: Object.freeze(s.list.slice()), config: Object.freeze(Object.assign({}, c)),
      parameters: n, trainLines: s.train.length, heldOutLines: s.held.length, batch: s.batch, coverage: s.covered };
    for (const k in fields) Object.defineProperty(this, k, { value: fields[k], enumerable: true });
  }

  /* Parameters as train.py initialises GPT-2 (normal std 0.02, wpe 0.01, the residual projections
     0.02 / sqrt(2 n_layer), biases 0, gains 1), drawn from the engine's numpy-compatible RNG seeded
     with `seed` in HF order (c_attn as one (d, 3d) matrix, split into wq, wk, wv); m = v = 0. */
  function init(s) {
    const m = s.engine._m, c = s.config, D = c.n_embd, F = c.n_inner, NL = c.n_layer;
    m._bl_rng_seed(s.at.rngInit, s.seed >>> 0);
    m._bl_rng_seed(s.at.rngData, s.seed >>> 0);
    s.cfg.forEach(function (v, i) { m.HEAP32[idx4(s.at.cfg) + i] = v; });
    const p0 = idx4(s.at.params), scratch = s.at.grads;
    const F32 = function () { return m.HEAPF32; };
    F32().fill(0, p0, p0 + 4 * s.n);   /* params, grads, m, v */
    function draw(count, std) {
      s.engine._check(m._bl_rng_normal_f32(s.at.rngInit, scratch, count, s.at.err), s.at.err);
      const h = F32(), g0 = idx4(scratch), f = Math.fround(std);
      for (let i = 0; i < count; i++) h[g0 + i] = h[g0 + i] * f;
      return g0;
    }
    function place(off, count, std) {
      const g0 = draw(count, std);
      F32().copyWithin(p0 + off, g0, g0 + count);
    }
    function ones(off, count) { F32().fill(1, p0 + off, p0 + off + count); }
    const proj = 0.02 / Math.sqrt(2 * NL);
    place(s.off.wte, c.vocab_size * D, 0.02);
    place(s.off.wpe, c.n_positions * D, 0.01);
    s.off.layers.forEach(function (p) {
      ones(p.ln1_gamma, D);
      const g0 = draw(D * 3 * D, 0.02), h = F32();
      for (let r = 0; r < D; r++)
        ['wq', 'wk', 'wv'].forEach(function (k, j) {
          h.copyWithin(p0 + p[k] + r * D, g0 + (3 * r + j) * D, g0 + (3 * r + j + 1) * D);
        });
      place(p.wo, D * D, proj);
      ones(p.ln2_gamma, D);
      place(p.w1, D * F, 0.02);
      place(p.w2, F * D, proj);
    });
    ones(s.off.lnf_gamma, D);
    F32().fill(0, idx4(scratch), idx4(scratch) + s.n);
  }

  /* The learning rate of step k (0-based): linear warm-up over `warmup` steps, then constant, or
     with `steps` given a cosine from lr down to lr / 10 at step `steps` (tools/train/train.py's),
     lr / 10 after it. */
  function lrAt(s, k) {
    if (k < s.warmup) return s.lr * (k + 1) / s.warmup;
    if (!s.total) return s.lr;
    const t = Math.min(1, (k - s.warmup) / Math.max(1, s.total - s.warmup));
    return s.lr * (0.1 + 0.9 * 0.5 * (1 + Math.cos(Math.PI * t)));
  }

  /* rows (token id rows, each <s> + line) into the tokens block as (count, L + 1), -1 padded;
     cfg's batch and L set. Returns the scored targets. */
  function fillTokens(s, rows) {
    const m = s.engine._m, L = rows.reduce(function (a, r) { return Math.max(a, r.length - 1); }, 1);
    const t0 = idx4(s.at.tokens), h = m.HEAP32;
    let scored = 0;
    h.fill(-1, t0, t0 + rows.length * (L + 1));
    rows.forEach(function (r, b) {
      h.set(r, t0 + b * (L + 1));
      scored += r.length - 1;
    });
    h[idx4(s.at.cfg) + 7] = rows.length;
    h[idx4(s.at.cfg) + 8] = L;
    return { scored: scored, positions: rows.length * L };
  }

  /* Mean loss (nats per token) of rows under the current weights, `batch` rows per call. */
  function meanLoss(s, rows) {
    const m = s.engine._m;
    let total = 0, count = 0;
    for (let i = 0; i < rows.length; i += s.batch) {
      const part = rows.slice(i, i + s.batch), k = fillTokens(s, part);
      s.engine._check(m._bl__train_run(s.at.cfg, s.eps, s.at.params, s.at.tokens, 0, s.at.loss, s.at.ws, s.at.err),
        s.at.err);
      total += m.HEAPF32[idx4(s.at.loss)] * k.scored;
      count += k.scored;
    }
    return total / count;
  }

  /* One step: `batch` training lines drawn (uniformly, with replacement, from the data stream),
     forward and backward, clipping to norm 1, AdamW. Returns the batch's mean loss. */
  Trainer.prototype.step = function () {
    const s = live(this, 'step'), m = s.engine._m, N = s.train.length;
    const u = s.engine._call(s.batch * 8, function (base, mm, err) {
      s.engine._check(mm._bl_rng_uniform_f64(s.at.rngData, base, s.batch, err), err);
      return Array.from(mm.HEAPF64.subarray(idx8(base), idx8(base) + s.batch));
    }, 'step');
    const rows = u.map(function (x) { return s.train[Math.min(N - 1, Math.floor(x * N))]; });
    const k = fillTokens(s, rows), a = s.at, lr = lrAt(s, s.step);
    s.engine._check(m._bl__train_run(a.cfg, s.eps, a.params, a.tokens, a.grads, a.loss, a.ws, a.err), a.err);
    const loss = m.HEAPF32[idx4(a.loss)];
    s.engine._check(m._bl__train_update(a.cfg, s.eps, a.params, a.grads, a.m, a.v, lr, BETA1, BETA2, ADAM_EPS,
      s.weightDecay, s.step + 1, CLIP, a.norm, a.err), a.err);
    s.step++;
    s.last = Object.freeze({ loss: loss, tokens: k.scored, positions: k.positions, lr: lr,
      gradNorm: m.HEAPF32[idx4(a.norm)] });
    return loss;
  };

  /* The rows fn scores: the held-out lines', or those of `text` (split as trainer() splits its text). */
  function scoredRows(s, text, fn) {
    if (text === undefined) {
      if (!s.held.length)
        fail(fn + ': the training text has no held-out lines (every ' + HELD_OUT_EVERY + 'th line is held out ' +
          'once it has ' + HELD_OUT_EVERY + ' or more); pass a text: ' + fn + '(text)');
      return s.held;
    }
    if (typeof text !== 'string') fail(fn + ': text must be a string, not ' + show(text));
    const rows = linesOf(text, s.config.n_positions).map(function (cs) { return rowOf(s.ids, cs); });
    if (!rows.length) fail(fn + ': text has no non-empty line to score');
    return rows;
  }

  /* evaluate(): the held-out lines' mean loss; evaluate(text): that text's. */
  Trainer.prototype.evaluate = function (text) {
    const s = live(this, 'evaluate');
    return meanLoss(s, scoredRows(s, text, 'evaluate'));
  };

  /* unigramLoss(): the held-out lines' mean loss (nats per token) under the training targets'
     token frequencies (the baseline a model must beat); unigramLoss(text): that text's. A token the
     training lines never have as a target counts as frequency 1e-12 (as tools/train/train.py). */
  Trainer.prototype.unigramLoss = function (text) {
    const s = live(this, 'unigramLoss'), rows = scoredRows(s, text, 'unigramLoss');
    if (!s.unigram) {
      const counts = new Float64Array(s.list.length);
      let total = 0;
      s.train.forEach(function (r) { for (let i = 1; i < r.length; i++) counts[r[i]]++; });
      counts.forEach(function (c) { total += c; });
      s.unigram = counts.map(function (c) { return -Math.log(Math.max(c, 1e-12) / total); });
    }
    let sum = 0, n = 0;
    rows.forEach(function (r) { for (let i = 1; i < r.length; i++) { sum += s.unigram[r[i]]; n++; } });
    return sum / n;
  };

  /* The current weights as GPT-2 tensors (c_attn reassembled from wq, wk, wv), copied out. */
  function tensors(s) {
    const c = s.config, D = c.n_embd, F = c.n_inner, h = s.engine._m.HEAPF32, p0 = idx4(s.at.params);
    function part(off, count) { return h.slice(p0 + off, p0 + off + count); }
    const out = [{ name: 'wte.weight', shape: [c.vocab_size, D], data: part(s.off.wte, c.vocab_size * D) },
      { name: 'wpe.weight', shape: [c.n_positions, D], data: part(s.off.wpe, c.n_positions * D) }];
    s.off.layers.forEach(function (p, l) {
      const pre = 'h.' + l + '.', qkv = new Float32Array(D * 3 * D);
      for (let r = 0; r < D; r++)
        ['wq', 'wk', 'wv'].forEach(function (k, j) {
          qkv.set(h.subarray(p0 + p[k] + r * D, p0 + p[k] + (r + 1) * D), (3 * r + j) * D);
        });
      out.push({ name: pre + 'ln_1.weight', shape: [D], data: part(p.ln1_gamma, D) },
        { name: pre + 'ln_1.bias', shape: [D], data: part(p.ln1_beta, D) },
        { name: pre + 'attn.c_attn.weight', shape: [D, 3 * D], data: qkv },
        { name: pre + 'attn.c_attn.bias', shape: [3 * D], data: part(p.bq, 3 * D) },
        { name: pre + 'attn.c_proj.weight', shape: [D, D], data: part(p.wo, D * D) },
        { name: pre + 'attn.c_proj.bias', shape: [D], data: part(p.bo, D) },
        { name: pre + 'ln_2.weight', shape: [D], data: part(p.ln2_gamma, D) },
        { name: pre + 'ln_2.bias', shape: [D], data: part(p.ln2_beta, D) },
        { name: pre + 'mlp.c_fc.weight', shape: [D, F], data: part(p.w1, D * F) },
        { name: pre + 'mlp.c_fc.bias', shape: [F], data: part(p.b1, F) },
        { name: pre + 'mlp.c_proj.weight', shape: [F, D], data: part(p.w2, F * D) },
        { name: pre + 'mlp.c_proj.bias', shape: [D], data: part(p.b2, D) });
    });
    out.push({ name: 'ln_f.weight', shape: [D], data: part(s.off.lnf_gamma, D) },
      { name: 'ln_f.bias', shape: [D], data: part(s.off.lnf_beta, D) });
    return out;
  }

  /* The Hugging Face folder of the current weights: config.json, model.safetensors (F32),
     tokenizer.json, as Uint8Arrays. */
  Trainer.prototype.save = function () {
    const s = live(this, 'save');
    return { files: {
      'config.json': UTF8_OUT.encode(JSON.stringify(s.config, null, 2) + '\n'),
      'model.safetensors': safetensorsBytes(tensors(s)),
      'tokenizer.json': UTF8_OUT.encode(JSON.stringify(tokenizerJson(s.list)) + '\n')
    } };
  };

  /* A Model (as bl.loadModel gives) of a copy of the current weights: later steps do not change
     it; free() it when done. */
  Trainer.prototype.model = function () {
    const s = live(this, 'model');
    return loadBytes(s.engine, { weights: safetensorsBytes(tensors(s)), config: s.config, vocab: s.list.slice() });
  };

  /* Gives the heap block back; the trainer cannot be used after. Safe to call twice. */
  Trainer.prototype.free = function () {
    const s = TRAINERS.get(this);
    if (s && s.base) s.engine._m._free(s.base);
    if (s) s.base = 0;
  };

  /* Tests only: the heap address of the trainer's block. */
  Trainer.prototype._heapAt = function () { return live(this, '_heapAt').base; };

  Object.defineProperty(Trainer.prototype, 'steps', { get: function () { return live(this, 'steps').step; } });
  Object.defineProperty(Trainer.prototype, 'lastStep', { get: function () { return live(this, 'lastStep').last; } });
  /* the learning rate step k (0-based; default: the next) uses */
  Trainer.prototype.lrAt = function (k) {
    const s = live(this, 'lrAt');
    if (k === undefined) k = s.step;
    if (typeof k !== 'number' || !Number.isInteger(k) || k < 0) fail('lrAt: k must be an integer >= 0, not ' + show(k));
    return lrAt(s, k);
  };

  /* ---- tests only (tests/node/train_reference.test.js): the C calls on the caller's flat buffers ----
     desc: { n_layers, d_model, n_heads, d_ff, vocab, n_positions, activation (0 relu, 1 gelu, 2 gelu_tanh),
     eps, batch, L }; params a Float32Array in the layout of include/blocklens.h. _trainGrad(desc, params,
     tokens) -> { loss, grads }; _trainSteps(desc, params, batches, opt) -> { losses, params }: per batch the
     gradient, clipping to opt.clip, AdamW ({ lr, beta1, beta2, eps, weight_decay }), step 1, 2, ... */
  function withTrainBlock(engine, desc, fn) {
    const m = engine._m, cfg = [desc.n_layers, desc.d_model, desc.n_heads, desc.d_ff, desc.vocab,
      desc.n_positions, desc.activation, desc.batch, desc.L];
    const lay = engine._call(64 + 16, function (base, mm, err) {
      cfg.forEach(function (v, i) { mm.HEAP32[idx4(base) + i] = v; });
      engine._check(mm._bl__train_layout(base, desc.eps, base + 64, err), err);
      return [mm.HEAPF64[idx8(base + 64)], mm.HEAPF64[idx8(base + 72)]];
    }, '_train');
    const n = lay[0], tok = desc.batch * (desc.L + 1);
    const bytes = (4 * n + lay[1] + tok) * 4 + 64 + 16 + ABI.bl_error.sizeof;
    const base = heapAlloc(m, bytes);
    if (!base) outOfMemory('_train', bytes, true);
    const at = { params: base, grads: base + 4 * n, m: base + 8 * n, v: base + 12 * n, ws: base + 16 * n };
    at.tokens = at.ws + lay[1] * 4;
    at.cfg = at.tokens + tok * 4;
    at.loss = at.cfg + 64;
    at.err = at.loss + 16;
    try {
      m.HEAPF32.fill(0, idx4(base), idx4(base) + 4 * n);
      cfg.forEach(function (v, i) { m.HEAP32[idx4(at.cfg) + i] = v; });
      return fn(m, at, n);
    } finally {
      m._free(base);
    }
  }
  function gradAt(engine, m, at, desc, tokens) {
    m.HEAP32.set(tokens, idx4(at.tokens));
    engine._check(m._bl__train_run(at.cfg, desc.eps, at.params, at.tokens, at.grads, at.loss, at.ws, at.err), at.err);
    return m.HEAPF32[idx4(at.loss)];
  }
  Engine.prototype._trainGrad = function (desc, params, tokens) {
    const engine = this;
    return withTrainBlock(this, desc, function (m, at, n) {
      m.HEAPF32.set(params, idx4(at.params));
      const loss = gradAt(engine, m, at, desc, tokens);
      return { loss: loss, grads: m.HEAPF32.slice(idx4(at.grads), idx4(at.grads) + n) };
    });
  };
  Engine.prototype._trainSteps = function (desc, params, batches, opt) {
    const engine = this;
    return withTrainBlock(this, desc, function (m, at, n) {
      m.HEAPF32.set(params, idx4(at.params));
      const losses = batches.map(function (tokens, k) {
        const loss = gradAt(engine, m, at, desc, tokens);
        engine._check(m._bl__train_update(at.cfg, desc.eps, at.params, at.grads, at.m, at.v, opt.lr, opt.beta1,
          opt.beta2, opt.eps, opt.weight_decay, k + 1, opt.clip, at.loss + 4, at.err), at.err);
        return loss;
      });
      return { losses: losses, params: m.HEAPF32.slice(idx4(at.params), idx4(at.params) + n) };
    });
  };
