/* engine-hooks.js - model.forward's options (layers, lens, ablate, patch, start, set, stop, logits)
   read and checked once, and the forward both architectures share: the heap layout of the desc, out, layer
   records, edits and start, the call, the logit lens of every residual, the copy out. What differs
   (the desc's fields, the sizes, the record's names) comes from the architecture's `spec`. */
  /* global ABI, cut, elems, fail, idx4, rethrow, show, TA_LENGTH, TA_TAG */
  /* exported forwardOptions, runForward */

  /* bl_site, in order; the widths: head_out is one head's (head_dim), ffn_hidden the FFN's. */
  const SITES = ['resid_in', 'attn_in', 'head_out', 'attn_out', 'resid_mid', 'ffn_in', 'ffn_hidden', 'ffn_out'];
  const HEAD_OUT = 2, FFN_OUT = 7;
  const FORWARD_OPTIONS = ['layers', 'lens', 'ablate', 'patch', 'start', 'set', 'stop', 'logits'];
  /* each forward result -> the model state that made it (patch / start read its residuals without
     a check; a copy, e.g. one that crossed a Worker boundary, has its residual checked) */
  const RESULTS = new WeakMap();

  function isInt(v) { return typeof v === 'number' && Number.isInteger(v); }
  function num(v) { return typeof v === 'number' ? String(v) : show(v); }
  function list(v, name, what) {
    if (!Array.isArray(v)) fail('forward: ' + name + ' must be an array' + (what || '') + ', not ' + show(v));
    return v.slice();
  }
  function index(v, name, n, what) {
    if (!isInt(v) || v < 0 || v >= n)
      fail('forward: ' + name + ' (' + num(v) + ') must be ' + what + ' in [0, ' + n + ')');
    return v;
  }

  /* The residual entering block `layer` that result `from` kept (the caller's `name`), a copy. from is
     this model's result (not another model's), or a copy of a result (structuredClone, postMessage):
     its layers then has nLayers entries and layers[layer].x is n finite float32 values. */
  function residualOf(s, from, layer, name, n) {
    if (from === null || typeof from !== 'object' || Array.isArray(from))
      fail('forward: ' + name + '.from must be a result of this model\'s forward (or a copy of one), not ' +
        show(from));
    const own = RESULTS.get(from) === s, layers = from.layers;
    if (!own && RESULTS.has(from))
      fail('forward: ' + name + '.from must be a result of this model\'s forward, not another model\'s');
    if (!Array.isArray(layers))
      fail('forward: ' + name + '.from.layers must be an array (a forward result\'s), not ' + show(layers));
    if (!own && layers.length !== s.dims.nLayers)
      fail('forward: ' + name + '.from.layers has ' + layers.length + ' entries, this model has ' + s.dims.nLayers +
        ' layers (from must be a result of this model)');
    const rec = layers[layer];
    if (rec === null || typeof rec !== 'object' || TA_TAG.call(rec.x) !== 'Float32Array')
      fail('forward: ' + name + '.from did not keep layer ' + layer + ' (run it with layers including ' + layer + ')');
    if (TA_LENGTH.call(rec.x) !== n)
      fail('forward: ' + name + '.from has ' + TA_LENGTH.call(rec.x) + ' values in layer ' + layer + '\'s x, ' +
        'this forward needs ' + n + ' (the same model and number of tokens)');
    const x = rec.x.slice();
    if (!own)
      for (let i = 0; i < n; i++)
        if (!isFinite(x[i]))
          fail('forward: ' + name + '.from.layers[' + layer + '].x[' + i + '] is ' + x[i] + ', not finite');
    return x;
  }

  /* values of `name`: a Float32Array of n finite values (copied) or null (zeros) */
  function values(v, name, n) {
    if (v === null) return null;
    if (TA_TAG.call(v) !== 'Float32Array')
      fail('forward: ' + name + ' must be a Float32Array of ' + n + ' values or null (zeros), not ' + show(v));
    if (TA_LENGTH.call(v) !== n) fail('forward: ' + name + ' has ' + TA_LENGTH.call(v) + ' values, expected ' + n);
    const c = v.slice();
    for (let i = 0; i < n; i++)
      if (!isFinite(c[i])) fail('forward: ' + name + '[' + i + '] is ' + c[i] + ', not finite');
    return c;
  }

  /* forward(ids, opts)'s options for model state s and L tokens -> { keep (NL booleans), edits:
     [{ layer, site, head, row, values }] (patch, then ablate, then set: applied in that order),
     first, start (Float32Array or null), end (0: every block), lens (0: none), last (logits: 'last') }. Every option is
     read once, inside one try (the caller's getters run there), and checked before the heap. */
  function forwardOptions(opts, s, L) {
    const d = s.dims, NL = d.nLayers, D = d.dModel, H = d.nHeads, F = d.dFF, V = d.vocabSize;
    const hd = d.headDim || D / H;
    const r = { keep: new Array(NL).fill(true), edits: [], first: 0, start: null, end: 0, lens: 0, last: false };
    if (opts === undefined) return r;
    if (opts === null || typeof opts !== 'object' || Array.isArray(opts))
      fail('forward: opts must be an object ({ ' + FORWARD_OPTIONS.join(', ') + ' }), not ' + show(opts));
    try {
      Object.keys(opts).forEach(function (k) {
        if (FORWARD_OPTIONS.indexOf(k) < 0)
          fail('forward has no option "' + cut(k) + '" (known: ' + FORWARD_OPTIONS.join(', ') + ')');
      });
      const o = {};
      FORWARD_OPTIONS.forEach(function (k) { o[k] = opts[k]; });
      if (o.layers !== undefined) {
        r.keep.fill(false);
        list(o.layers, 'layers', ' of layer indices').forEach(function (l, i) {
          r.keep[index(l, 'layers[' + i + ']', NL, 'a layer index')] = true;
        });
      }
      if (o.lens !== undefined) {
        if (!isInt(o.lens) || o.lens < 1 || o.lens > V)
          fail('forward: lens (' + num(o.lens) + ') must be an integer k in [1, vocab ' + V + ']');
        r.lens = o.lens;
      }
      if (o.logits !== undefined) {
        if (o.logits !== 'all' && o.logits !== 'last')
          fail('forward: logits must be \'all\' (every row, the default) or \'last\' (the last row only), not ' +
            show(o.logits));
        r.last = o.logits === 'last';
      }
      if (o.stop !== undefined) {
        if (!isInt(o.stop) || o.stop < 1 || o.stop > NL)
          fail('forward: stop (' + num(o.stop) + ') must be a number of blocks in [1, ' + NL + ']');
        r.end = o.stop;
      }
      const end = r.end || NL;
      if (o.start !== undefined) {
        const st = o.start;
        if (st === null || typeof st !== 'object') fail('forward: start must be { layer, from }, not ' + show(st));
        r.first = index(st.layer, 'start.layer', end, 'a layer');
        r.start = residualOf(s, st.from, r.first, 'start', L * D);
      }
      const run = '[' + r.first + ', ' + end + ')';
      function layerIn(v, name) {
        if (!isInt(v) || v < r.first || v >= end)
          fail('forward: ' + name + ' (' + num(v) + ') must be a layer that runs, in ' + run);
        return v;
      }
      if (o.patch !== undefined)
        list(o.patch, 'patch').forEach(function (p, i) {
          const name = 'patch[' + i + ']';
          if (p === null || typeof p !== 'object')
            fail('forward: ' + name + ' must be { layer, position, from }, not ' + show(p));
          const layer = layerIn(p.layer, name + '.layer'), row = index(p.position, name + '.position', L, 'a position');
          const x = residualOf(s, p.from, layer, name, L * D);
          r.edits.push({ layer: layer, site: 0, head: 0, row: row, values: x.slice(row * D, (row + 1) * D) });
        });
      if (o.ablate !== undefined)
        list(o.ablate, 'ablate').forEach(function (a, i) {
          const name = 'ablate[' + i + ']';
          if (!Array.isArray(a) || a.length !== 2)
            fail('forward: ' + name + ' must be [layer, head] or [layer, \'ffn\'], not ' + show(a));
          const layer = layerIn(a[0], name + '[0]');
          if (a[1] === 'ffn') r.edits.push({ layer: layer, site: FFN_OUT, head: 0, row: -1, values: null });
          else r.edits.push({ layer: layer, site: HEAD_OUT, head: index(a[1], name + '[1]', H, 'a head'), row: -1,
            values: null });
        });
      if (o.set !== undefined)
        list(o.set, 'set').forEach(function (e, i) {
          const name = 'set[' + i + ']';
          if (e === null || typeof e !== 'object')
            fail('forward: ' + name + ' must be { layer, site, position, values, head }, not ' + show(e));
          const layer = layerIn(e.layer, name + '.layer');
          if (typeof e.site !== 'string' || SITES.indexOf(e.site) < 0)
            fail('forward: ' + name + '.site ' + (typeof e.site === 'string' ? '"' + cut(e.site) + '"' : show(e.site)) +
              ' is not one of ' + SITES.join(', '));
          const site = SITES.indexOf(e.site), width = site === HEAD_OUT ? hd : site === 6 ? F : D;
          let head = 0;
          if (site === HEAD_OUT) head = index(e.head, name + '.head', H, 'a head');
          else if (e.head !== undefined) fail('forward: ' + name + '.head is for site head_out only');
          const row = e.position === undefined ? -1 : index(e.position, name + '.position', L, 'a position');
          if (e.values === undefined)
            fail('forward: ' + name + '.values is required (a Float32Array, or null for zeros)');
          const v = values(e.values, name + '.values', row < 0 ? L * width : width);
          r.edits.push({ layer: layer, site: site, head: head, row: row, values: v });
        });
    } catch (e) {
      rethrow(e, 'forward');
    }
    return r;
  }

  /* The forward of model state s on ids `list` with options o (forwardOptions) for architecture
     `spec`: { desc, out, layerOut (struct names), fn, wsFn, lensFn, lensWsFn (module exports),
     sizes(L) (floats of each kept field, by C name), wsFloats(L), lensWsFloats(L), fill(word,
     fword, descAt, idsAt) (writes the desc's own fields: ints, floats), record(g) (a kept layer's record
     from g(C field name)), what(L) (the call's name in out-of-memory messages) }.
     -> { logits (L x V, V with logits 'last', null with stop), embeddings, hidden (null with stop), layers:
     per layer null or its record, lens (with lens: k): NL + 1 entries (null where that residual was not
     computed), each { ids, probs, rank, prob } (rank / prob: the next token's, 0 / NaN at the last row) }. */
  function runForward(s, spec, ids, o) {
    const d = s.dims, L = ids.length, D = d.dModel, V = d.vocabSize, NL = d.nLayers, K = o.lens;
    const end = o.end || NL, size = spec.sizes(L), fields = Object.keys(size);
    elems('logits (L x vocab)', L, V);
    if (K) elems('lens (L x k)', L, K);
    const A = ABI, E = A.bl_edit;
    let bytes = 0, l, i;
    function take(n) { const at = bytes; bytes += Math.ceil(n / 16) * 16; return at; }
    /* records: desc, out, the layer-out pointers, a layer-out per layer run that keeps anything (the
       lens needs every resid2), the edits, ids; then the inputs (start, edit values) and outputs */
    const descAt = take(A[spec.desc].sizeof), outAt = take(A[spec.out].sizeof), listAt = take(4 * NL);
    const recs = [];
    const keep = o.keep.map(function (k, j) { return k && j >= o.first && j < end; });
    for (l = 0; l < NL; l++)
      recs.push(l >= o.first && l < end && (keep[l] || K) ? take(A[spec.layerOut].sizeof) : -1);
    const editsAt = take(E.sizeof * o.edits.length), idsAt = take(4 * L);
    /* the lens's targets: the next token of each row, -1 at the last; one bl_lens_target per entry */
    const T = A.bl_lens_target, targetsAt = K ? take(4 * L) : -1, tgtAt = K ? take(T.sizeof) : -1;
    const first = bytes, outs = [], ins = [];
    function output(n, layer, field) {
      outs.push({ at: take(4 * n), n: n, key: layer < 0 ? field : layer + '.' + field, layer: layer, field: field });
    }
    function input(v) { const at = take(4 * v.length); ins.push({ at: at, v: v }); return at; }
    const startAt = o.start ? input(o.start) : -1;
    const valueAt = o.edits.map(function (e) { return e.values ? input(e.values) : -1; });
    if (!o.end) output((o.last ? 1 : L) * V, -1, 'logits');
    output(L * D, -1, 'embeddings');
    if (!o.end) output(L * D, -1, 'hidden');
    for (l = 0; l < NL; l++) {
      if (keep[l]) fields.concat('x').forEach(function (f) { output(f === 'x' ? L * D : size[f], l, f); });
      else if (recs[l] >= 0) output(L * D, l, 'resid2');
    }
    /* the lens: entry j is the residual entering block j (0: the embeddings, NL: the last resid2) */
    const lensOf = [];
    if (K) {
      for (let j = 0; j <= NL; j++) {
        const src = j === 0 ? 'embeddings' : j === o.first ? 'start' :
          j > o.first && j <= end ? (j - 1) + '.resid2' : null;
        lensOf.push(src === null ? null : { src: src, ids: take(4 * L * K), probs: take(4 * L * K), rank: take(4 * L),
          prob: take(4 * L) });
      }
    }
    const last = bytes, wsFloats = spec.wsFloats(L), wsAt = take(4 * wsFloats);
    const lensWsAt = K ? take(4 * spec.lensWsFloats(L)) : 0, engine = s.engine, m = engine._m;
    const base = engine._block(bytes, spec.what(L)), err = base + bytes;
    const i32 = m.HEAP32, dd = A[spec.desc];
    function word(at, v) { i32[idx4(base + at)] = v; }
    function fword(at, v) { m.HEAPF32[idx4(base + at)] = v; }
    for (let z = idx4(base); z < idx4(base + first); z++) i32[z] = 0;   /* NULL = not kept */
    spec.fill(word, fword, descAt, base + idsAt);
    word(descAt + dd.edits, o.edits.length ? base + editsAt : 0);
    word(descAt + dd.n_edits, o.edits.length);
    word(descAt + dd.first_layer, o.first);
    word(descAt + dd.start, o.start ? base + startAt : 0);
    word(descAt + dd.end_layer, o.end);
    word(descAt + dd.logits_last, o.last ? 1 : 0);
    o.edits.forEach(function (e, j) {
      const at = editsAt + j * E.sizeof;
      word(at + E.layer, e.layer);
      word(at + E.site, e.site);
      word(at + E.head, e.head);
      word(at + E.row, e.row);
      word(at + E.values, e.values ? base + valueAt[j] : 0);
    });
    for (i = 0; i < ins.length; i++) m.HEAPF32.set(ins[i].v, idx4(base + ins[i].at));
    if (m[spec.wsFn](base + descAt) !== wsFloats)
      fail('internal: the ' + spec.desc + ' workspace size disagrees with the wrapper\'s');
    const dout = A[spec.out], lo = A[spec.layerOut], at = {};
    outs.forEach(function (x) { at[x.key] = base + x.at; });
    word(outAt + dout.logits, at.logits || 0);
    word(outAt + dout.embed, at.embeddings);
    word(outAt + dout.hidden, at.hidden || 0);
    word(outAt + dout.layers, base + listAt);
    for (l = 0; l < NL; l++) if (recs[l] >= 0) word(listAt + 4 * l, base + recs[l]);
    for (i = 0; i < outs.length; i++)
      if (outs[i].layer >= 0) word(recs[outs[i].layer] + lo[outs[i].field], base + outs[i].at);
    i32.set(ids, idx4(base + idsAt));
    engine._check(m[spec.fn](base + descAt, base + outAt, base + wsAt, err), err);
    if (K) {
      if (m[spec.lensWsFn](base + descAt) !== spec.lensWsFloats(L))
        fail('internal: the ' + spec.desc + ' lens workspace size disagrees with the wrapper\'s');
      at.start = base + startAt;
      const h32 = m.HEAP32;   /* (re-read: memory may have grown) */
      for (i = 0; i < L; i++) h32[idx4(base + targetsAt) + i] = i + 1 < L ? ids[i + 1] : -1;
      h32[idx4(base + tgtAt + T.targets)] = base + targetsAt;
      lensOf.forEach(function (e) {
        if (!e) return;
        h32[idx4(base + tgtAt + T.rank)] = base + e.rank;
        h32[idx4(base + tgtAt + T.prob)] = base + e.prob;
        engine._check(m[spec.lensFn](base + descAt, at[e.src], K, base + e.ids, base + e.probs, base + tgtAt,
          base + lensWsAt, err), err);
      });
    }
    /* one copy of every output out of the heap (re-read: memory may have grown) */
    const all = m.HEAPF32.slice(idx4(base + first), idx4(base + last)), buf = all.buffer, kept = {};
    for (i = 0; i < outs.length; i++) kept[outs[i].key] = new Float32Array(buf, outs[i].at - first, outs[i].n);
    const res = { logits: kept.logits || null, embeddings: kept.embeddings, hidden: kept.hidden || null, layers: [] };
    for (l = 0; l < NL; l++) {
      if (!keep[l]) { res.layers.push(null); continue; }
      const g = function (name) { return kept[l + '.' + name]; };
      res.layers.push(spec.record(g));
    }
    if (K)
      res.lens = lensOf.map(function (e) {
        return e && { ids: new Int32Array(buf, e.ids - first, L * K),
          probs: new Float32Array(buf, e.probs - first, L * K), rank: new Int32Array(buf, e.rank - first, L),
          prob: new Float32Array(buf, e.prob - first, L) };
      });
    RESULTS.set(res, s);
    return res;
  }
