/* engine-weights.js - weights kept in the wasm heap between calls: engine.holdWeights(values)
   copies a float array in and checks it once, and returns a handle that ffn, moe, attention,
   encoderLayer and the norms take in place of that array (any float input): a call then copies
   none of it (W1 and W2 are 19 MB at BERT widths). handle.free() gives the memory back; a freed
   handle, one of another engine, or one of the wrong length is refused naming the argument. */
  /* global Engine, fail, floats, HEAP_MAX, heapAlloc, idx4, MAX_ELEMS, notFinite, outOfMemory, show */
  /* global TA_LENGTH, TA_TAG */
  /* exported heldAddresses, heldInput, heldWords, isHeld */

  /* handle -> { engine, p: its address (0 once freed), n }: the handle itself shows no address. */
  const HELD = new WeakMap();

  function HeldWeights() {}
  /* values held; 0 once freed */
  Object.defineProperty(HeldWeights.prototype, 'length', { get: function () {
    const s = HELD.get(this);
    return s && s.p ? s.n : 0;
  } });
  Object.defineProperty(HeldWeights.prototype, 'freed', { get: function () {
    const s = HELD.get(this);
    return !s || s.p === 0;
  } });
  /* Gives the heap memory back; again, it does nothing. */
  HeldWeights.prototype.free = function () {
    const s = HELD.get(this);
    if (!s || s.p === 0) return;
    s.engine._m._free(s.p);
    s.p = 0;
  };

  /* values: a Float32Array, Float64Array or array of finite numbers (1 to MAX_ELEMS of them). */
  Engine.prototype.holdWeights = function (values) {
    const tag = values !== null && typeof values === 'object' ? TA_TAG.call(values) : undefined;
    const n = tag ? TA_LENGTH.call(values) : Array.isArray(values) ? values.length : -1;
    if (n < 0) fail('holdWeights: values must be a Float32Array or an array of numbers, not ' + show(values));
    if (n < 1 || n > MAX_ELEMS) fail('holdWeights: values has ' + n + ' values, expected 1 to ' + MAX_ELEMS);
    const v = floats(values, 'values', n, true), m = this._m, bytes = n * 4;
    if (bytes > HEAP_MAX) outOfMemory('holdWeights (' + n + ' values)', bytes, false);
    const p = heapAlloc(m, bytes);
    if (!p) outOfMemory('holdWeights (' + n + ' values)', bytes, true);
    m.HEAPF32.set(v, idx4(p));
    const bad = m._bl__first_nonfinite(p, n);
    if (bad >= 0) {
      m._free(p);
      notFinite('values', bad, v[bad]);
    }
    const h = new HeldWeights();
    HELD.set(h, { engine: this, p: p, n: n });
    return h;
  };

  /* A handle of holdWeights (WeakMap lookup: runs none of the caller's code). */
  function isHeld(v) { return v !== null && typeof v === 'object' && HELD.has(v); }

  /* The address of handle h given as input d (a Layout.ins entry) of a call of `engine`. */
  function heldInput(engine, h, d) {
    const s = HELD.get(h);
    if (s.p === 0) fail(d.prop + ' is a freed holdWeights handle');
    if (s.engine !== engine) fail(d.prop + ' is a holdWeights handle of another engine');
    if (d.kind !== 'f') fail(d.prop + ' cannot be a holdWeights handle');
    if (s.n !== d.n) fail(d.prop + ' holds ' + s.n + ' values, expected ' + d.n);
    return s.p;
  }

  /* Where a layout's records name each input: name -> word indices (into lay.words), and the
     indices that are (pointer, count) pairs of the finiteness list. Made once per layout. */
  function slots(lay) {
    if (lay._heldSlots) return lay._heldSlots;
    const at = {}, listed = new Set(), recs = lay.records, first = recs.length ? lay.off[recs[0].heap] : 0;
    for (let i = 0; i < recs.length; i++) {
      const base = (lay.off[recs[i].heap] - first) >> 2, w = recs[i].words;
      for (let j = 0; j < w.length; j++) {
        const v = w[j];
        if (v === null || typeof v !== 'object' || !('p' in v)) continue;
        (at[v.p] || (at[v.p] = [])).push(base + j);
        if (recs[i].heap === 'finite') listed.add(base + j);
      }
    }
    lay._heldSlots = { at: at, listed: listed };
    return lay._heldSlots;
  }

  /* held: [input index, address, ...]. The layout's record words with those inputs pointing at
     the held memory, and their entries in the finiteness list empty (checked when held). */
  function heldWords(lay, held) {
    const w = lay.words.slice(), s = slots(lay);
    for (let k = 0; k < held.length; k += 2) {
      const list = s.at[lay.ins[held[k]].heap] || [];
      for (let j = 0; j < list.length; j++) {
        w[list[j]] = held[k + 1];
        if (s.listed.has(list[j])) w[list[j] + 1] = 0;
      }
    }
    return w;
  }

  /* The call's addresses (lay.at's p, not changed) with the held inputs' own. */
  function heldAddresses(lay, p, held) {
    const q = Object.assign({}, p);
    for (let k = 0; k < held.length; k += 2) q[lay.ins[held[k]].heap] = held[k + 1];
    return q;
  }
