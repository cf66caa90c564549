/* engine-check.js - argument checking for every call: errors of our own (fail, rethrow), values
   shown in messages without running the caller's code, option objects read once, and sizes,
   flags, names, float arrays and key masks checked before anything touches the wasm heap. */
  /* exported args, count, cut, dim, elems, epsOf, fail, flag, floats, keyMask, MAX_ELEMS, notFinite */
  /* exported oneOf, optionNames, rethrow, show, TA_BUFFER, TA_LENGTH, TA_OFFSET, TA_SET, TA_TAG */

  const MAX_DIM = 65536, MAX_ELEMS = 1 << 28;

  /* Our own errors, so that an exception thrown by the caller's code (a getter, a Proxy trap)
     while its arguments are read can be told apart and reported as a BlockLens Error. */
  const OURS = new WeakSet();
  function fail(message) {
    const e = new Error('BlockLens: ' + message);
    OURS.add(e);
    throw e;
  }

  /* Rethrows e: as it is when it is ours, else as a BlockLens Error about reading fn's
     arguments, with e as its cause. */
  function rethrow(e, fn) {
    if (OURS.has(e)) throw e;
    let what;
    try {
      what = e instanceof Error ? String(e.name) + ': ' + String(e.message) : show(e);
    } catch (e2) {
      what = 'an exception';
    }
    const err = new Error('BlockLens: ' + fn + ': reading its arguments threw ' + cut(what));
    err.cause = e;
    OURS.add(err);
    throw err;
  }

  /* Intrinsics of typed arrays, so that a subclass or a Proxy cannot lie about what it holds:
     TA_TAG(v) is v's kind ('Float32Array', ...) or undefined for anything but a typed array
     (a Proxy, a DataView, a primitive); TA_LENGTH(v) its real length (0 once detached). */
  const TA_PROTO = Object.getPrototypeOf(Int8Array.prototype);
  function taGetter(name) { return Object.getOwnPropertyDescriptor(TA_PROTO, name).get; }
  const TA_TAG = taGetter(Symbol.toStringTag), TA_LENGTH = taGetter('length');
  const TA_BUFFER = taGetter('buffer'), TA_OFFSET = taGetter('byteOffset'), TA_SET = TA_PROTO.set;

  /* A quoted string: at most QUOTE_MAX characters of it. */
  const QUOTE_MAX = 40;
  function cut(s) { return s.length > QUOTE_MAX ? s.slice(0, QUOTE_MAX) + '\u2026' : s; }

  /* A value as a message shows it, without running any of the caller's code: numbers as JS
     writes them, strings quoted and cut, the kind of anything else. */
  function show(v) {
    switch (typeof v) {
      case 'number': case 'boolean': case 'undefined': return String(v);
      case 'string': return '"' + cut(v) + '" (a string)';
      case 'bigint': return cut(String(v)) + 'n';
      case 'symbol': return 'a symbol';
      case 'function': return 'a function';
    }
    if (v === null) return 'null';
    const tag = TA_TAG.call(v);
    if (tag) return 'a ' + tag;
    try {
      if (Array.isArray(v)) return 'an array';   /* throws for a revoked Proxy */
    } catch (e) { /* an object */ }
    return 'an object';
  }

  /* A call's option names: the list (for messages), a Set of the names it takes (the list
     and `more`, names refused with a message of their own), `read`, which copies the value of
     each of them from an options object into an object literal (a loop of keyed stores costs
     more than a whole small call), and `last`, the names of the last options found all known.
     Checked once here: read copies exactly those names. */
  function optionNames(list, read, more) {
    const all = list.concat(more || []);
    if (Object.keys(read({})).join() !== all.join()) fail('internal: the option reader of ' + list + ' disagrees');
    return { list: list, has: new Set(all), read: read, last: null };
  }

  /* A call's options, read once: the value of every known name (inherited ones too) into a
     plain object, after checking that every own enumerable name is a known one. The caller's
     getters and Proxy traps run here; everything after reads the copy. */
  function args(o, fn, known) {
    try {
      if (o === null || typeof o !== 'object' || Array.isArray(o)) fail(fn + ' expects an options object');
      let keys = Object.keys(o), last = known.last, n = keys.length, i = 0;
      if (last !== null && last.length === n) for (; i < n && keys[i] === last[i]; i++);
      if (last === null || i !== n) {   /* not the names the last call had: look each up */
        for (i = 0; i < n; i++)
          if (!known.has.has(keys[i]))
            fail(fn + ' has no option "' + cut(keys[i]) + '" (known: ' + known.list.join(', ') + ')');
        known.last = keys;
      }
      return known.read(o);
    } catch (e) {
      rethrow(e, fn);
    }
  }

  /* A size v (the option `name`): an integer in [1, MAX_DIM]. Values are passed, not
     looked up by name: a load with a varying name costs more than the check. */
  function dim(v, name) {
    if (typeof v !== 'number') fail(name + ' must be an integer between 1 and ' + MAX_DIM + ', not ' + show(v));
    if (!Number.isInteger(v) || v < 1 || v > MAX_DIM)
      fail(name + ' (' + v + ') must be an integer between 1 and ' + MAX_DIM);
    return v;
  }

  function elems(name, a, b) {
    if (a * b > MAX_ELEMS) fail(name + ' (' + a + ' x ' + b + ') exceeds ' + MAX_ELEMS + ' values');
    return a * b;
  }

  function flag(v, name, fallback) {
    if (v === undefined) return fallback;
    if (typeof v !== 'boolean') fail(name + ' must be true or false, not ' + show(v));
    return v;
  }

  /* One of a list of strings. */
  function oneOf(v, name, list) {
    if (typeof v !== 'string') fail(name + ' must be a string (one of ' + list.join(', ') + '), not ' + show(v));
    const i = list.indexOf(v);
    if (i < 0) fail(name + ' "' + cut(v) + '" is not one of ' + list.join(', '));
    return i;
  }

  /* A count v (the option `name`): an integer in [1, max]; maxName names the bound's option. */
  function count(v, name, max, maxName) {
    const range = '1 and ' + (maxName ? maxName + ' (' + max + ')' : max);
    if (typeof v !== 'number') fail(name + ' must be an integer between ' + range + ', not ' + show(v));
    if (!Number.isInteger(v) || v < 1 || v > max) fail(name + ' (' + v + ') must be an integer between ' + range);
    return v;
  }

  /* The value v of the float array argument `name` (n values): a Float32Array or Float64Array
     (by its real kind and length, which a subclass cannot fake), used as it is, or an array of
     finite numbers, read once into a Float64Array; null when absent. NaN and infinity (also as
     float32: 1e39) are found in wasm after the copy (_run). */
  function floats(v, name, n, required) {
    if (v === undefined || v === null) {
      if (required) fail(name + ' is required (' + n + ' numbers)');
      return null;
    }
    const tag = TA_TAG.call(v);
    if (tag === 'Float32Array' || tag === 'Float64Array') {
      const len = TA_LENGTH.call(v);
      if (len !== n) fail(name + ' has ' + len + ' values, expected ' + n);
      return v;
    }
    if (!Array.isArray(v)) fail(name + ' must be a Float32Array or an array of numbers, not ' + show(v));
    const m = v.length;
    if (m !== n) fail(name + ' has ' + show(m) + ' values, expected ' + n);
    const copy = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const x = v[i];
      if (typeof x !== 'number' || !isFinite(x)) notFinite(name, i, x);
      copy[i] = x;
    }
    return copy;
  }

  function notFinite(name, i, v) {
    if (typeof v === 'number' && isFinite(v))
      fail(name + '[' + i + '] is ' + v + ', beyond float32\'s range (+-3.4e38)');
    fail(name + '[' + i + '] is ' + show(v) + ', not a finite number');
  }

  /* The key mask as 0/1 bytes (truthy -> 1), read once: an array or any typed array of L
     values. A new copy per call: a getter may call the engine again before this one is used. */
  function keyMask(km, L) {
    const n = TA_TAG.call(km) ? TA_LENGTH.call(km) : Array.isArray(km) ? km.length : -1;
    if (n !== L) fail('keyMask must be an array of ' + L + ' booleans or 0/1 values');
    const mask = new Uint8Array(L);
    for (let j = 0; j < L; j++) mask[j] = km[j] ? 1 : 0;
    return mask;
  }

  /* eps: a positive number that is one in float32 too (1e-60 is 0 there, 1e39 infinity). */
  function epsOf(o) {
    const eps = o.eps === undefined ? 1e-5 : o.eps;
    if (typeof eps !== 'number') fail('eps must be a positive number, not ' + show(eps));
    const f = Math.fround(eps);
    if (!(eps > 0) || !(f > 0) || f === Infinity)
      fail('eps (' + eps + ') must be a positive number that float32 can hold (1.4e-45 to 3.4e38)');
    return eps;
  }
