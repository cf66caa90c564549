// fuzz.test.js - thousands of randomized adversarial calls per run, from a fixed seed: valid
// calls in disguise (Float64Array, plain arrays, Proxies of arrays, getters, null-prototype or
// Proxy options, subarray views, lying subclasses of the right real length, frozen `into`) must
// equal a plain-JS reference (tests/node/reference.js); broken ones (bad sizes, types, lengths,
// NaN and infinity, unknown option names and the option names of another call, options that
// are not an object, throwing getters, Proxies of typed arrays, detached, overlapping or foreign
// `into`, requests past the heap) must throw a BlockLens Error. After every refusal the engine
// must still compute a known case bit for bit.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { BlockLens } = require('./helpers.js');
const ref = require('./reference.js');

// tools/test runs the whole 4000 calls from 20240613 in one build and fewer calls from another seed
// in the others (BLOCKLENS_FUZZ_CALLS, BLOCKLENS_FUZZ_SEED): each build still meets the fuzzer,
// and the other builds' calls are new ones, not a replay of the first.
function envInt(name, dflt, min) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return dflt;
  if (!/^[0-9]+$/.test(raw) || Number(raw) < min || Number(raw) > 2 ** 32 - 1) {
    throw new Error(`${name} must be an integer from ${min} to 2^32-1, got ${JSON.stringify(raw)}`);
  }
  return Number(raw);
}
const SEED = envInt('BLOCKLENS_FUZZ_SEED', 20240613, 0), CALLS = envInt('BLOCKLENS_FUZZ_CALLS', 4000, 200);

function mulberry32(seed) {   // small deterministic PRNG: a failure replays from SEED
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ACTS = ['relu', 'gelu', 'gelu_tanh', 'silu', 'identity', 'swiglu', 'geglu'];
const GATED = new Set(['swiglu', 'geglu']);
const BAD_SIZES = [0, -1, 2.5, NaN, Infinity, '4', null, undefined, 65537, {}, Object.create(null), true, 4n, [4], Symbol('L')];
const NOT_OPTIONS = [null, undefined, 'bert-base', 42, true, [], () => 0];
// The option names each call takes (engine-ffn.js, engine-attention.js, engine-block.js); a name
// that only another call takes is refused.
const FFN_NAMES = ['L', 'dModel', 'dFF', 'x', 'activation', 'W1', 'b1', 'W3', 'b3', 'W2', 'b2', 'Wg', 'bg', 'Wu', 'bu', 'Wd', 'bd'];
const ATTN_NAMES = ['L', 'dModel', 'nHeads', 'x', 'Wq', 'bq', 'Wk', 'bk', 'Wv', 'bv', 'Wo', 'bo', 'causal', 'scale', 'keyMask'];
const NAMES = { ffn: FFN_NAMES, attention: ATTN_NAMES, layerNorm: ['L', 'd', 'x', 'gamma', 'beta', 'eps'],
  rmsNorm: ['L', 'd', 'x', 'gamma', 'eps'], batchNorm: ['L', 'd', 'x', 'gamma', 'beta', 'eps'],
  encoderLayer: [...new Set(FFN_NAMES.concat(ATTN_NAMES, ['norm', 'eps', 'ln1Gamma', 'ln1Beta', 'ln2Gamma', 'ln2Beta']))] };
const ALL_NAMES = [...new Set(Object.values(NAMES).flat().concat(['nLayers', 'vocab', 'nExperts', 'topK']))];
const detached = () => { const a = new Float32Array(4); structuredClone(a, { transfer: [a.buffer] }); return a; };

function fuzz(bl, rnd, log) {
  const int = (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1));
  const pick = (list) => list[Math.floor(rnd() * list.length)];
  const chance = (p) => rnd() < p;
  const floats = (n, s = 1) => Float32Array.from({ length: n }, () => Math.fround((rnd() * 2 - 1) * s));

  /* A field: { value (what the call gets), content (the numbers the reference uses), valid }. */
  const ok = (value, content = value) => ({ value, content, valid: true });
  const bad = (value) => ({ value, valid: false });

  /* An array field in a valid disguise, or broken. */
  function arrayField(a, required) {
    const n = a.length, r = rnd();
    if (r < 0.7) return ok(a);
    if (r < 0.75) return ok(Float64Array.from(a), a);
    if (r < 0.8) return ok(Array.from(a), a);
    if (r < 0.83) return ok(new Proxy(Array.from(a), {}), a);
    if (r < 0.87) { const big = new Float32Array(n + 5); big.set(a, 3); return ok(big.subarray(3, 3 + n), a); }
    if (r < 0.9) {
      class Lies extends Float32Array { get length() { return n + 7; } }
      const l = new Lies(n); l.set(a); return ok(l, a);
    }
    if (r < 0.96) return required ? ok(a) : ok(chance(0.5) ? null : undefined, undefined);
    const broken = pick([
      () => new Float32Array(n + pick([-1, 1])), () => Int32Array.from(a), () => Uint8Array.from(a),
      () => new DataView(new ArrayBuffer(n * 4)), () => 'x'.repeat(n), () => ({ length: n }), () => new Proxy(a, {}),
      () => { const b = a.slice(); b[int(0, n - 1)] = pick([NaN, Infinity, -Infinity]); return b; },
      () => { const b = Float64Array.from(a); b[int(0, n - 1)] = pick([1e39, -1e300]); return b; },
      () => { const b = Array.from(a); b[int(0, n - 1)] = pick(['1', undefined, null, {}, 2n]); return b; },
      () => { const b = Array.from(a); delete b[int(0, n - 1)]; return b; },
      () => detached(),
      () => { class Short extends Float32Array { get length() { return n; } } return new Short(n + 1); },
      () => (required ? null : new Float32Array(0))
    ])();
    return bad(broken);
  }

  const sizeField = (v) => (chance(0.03) ? bad(pick(BAD_SIZES)) : ok(v));
  function flagField() {
    const r = rnd();
    if (r < 0.96) return ok(pick([true, false, undefined]));
    return bad(pick(['true', 1, 0, null, {}]));
  }

  /* The plan of one call: fields, structural validity, and how the options are wrapped. */
  function plan(call) {
    const f = {}, big = chance(0.01);
    let structural = true;
    const L = int(1, 5);
    if (call === 'ffn' || call === 'attention' || call === 'encoderLayer') {
      const D = pick([1, 2, 3, 4, 6, 8]), divisors = [1, 2, 3, 4, 6, 8].filter((h) => D % h === 0);
      const H = pick(divisors), F = int(1, 10);
      f.L = sizeField(L);
      f.dModel = sizeField(D);
      f.x = arrayField(floats(L * D), true);
      if (call !== 'ffn') {
        f.nHeads = chance(0.03) ? bad(pick(BAD_SIZES.concat([D + 1]))) : ok(H);
        for (const k of ['Wq', 'Wk', 'Wv', 'Wo']) f[k] = arrayField(floats(D * D, 0.7), true);
        for (const k of ['bq', 'bk', 'bv', 'bo']) if (chance(0.3)) f[k] = arrayField(floats(D), false);
        f.causal = flagField();
        f.scale = flagField();
        if (chance(0.25)) {
          const m = Array.from({ length: L }, () => (chance(0.7) ? 1 : 0));
          const r = rnd();
          f.keyMask = r < 0.3 ? ok(m) : r < 0.5 ? ok(m.map(Boolean), m) : r < 0.65 ? ok(Uint8Array.from(m), m)
            : r < 0.75 ? ok(Float32Array.from(m), m) : r < 0.85 ? ok(new Proxy(m.slice(), {}), m)
              : bad(pick([m.concat([1]), new DataView(new ArrayBuffer(L)), new Proxy(Uint8Array.from(m), {}), 'x', {}]));
        }
      }
      if (call !== 'attention') {
        f.dFF = sizeField(F);
        const act = chance(0.96) ? pick(ACTS) : null, gated = GATED.has(act);
        f.activation = act === null ? bad(pick(['tanh', ['relu'], 'RELU', 3, null])) : chance(0.1) && act === 'relu' ? ok(undefined) : ok(act);
        const llama = chance(0.2);
        const names = llama ? { W1: 'Wg', b1: 'bg', W3: 'Wu', b3: 'bu', W2: 'Wd', b2: 'bd' }
          : { W1: 'W1', b1: 'b1', W3: 'W3', b3: 'b3', W2: 'W2', b2: 'b2' };
        f[names.W1] = arrayField(floats(D * F, 0.7), true);
        f[names.W2] = arrayField(floats(F * D, 0.7), true);
        if (chance(0.5)) f[names.b1] = arrayField(floats(F), false);
        if (chance(0.5)) f[names.b2] = arrayField(floats(D), false);
        if (gated) {
          if (chance(0.97)) f[names.W3] = arrayField(floats(D * F, 0.7), true);
          if (chance(0.5)) f[names.b3] = arrayField(floats(F), false);
        } else if (chance(0.05)) f[chance(0.5) ? names.W3 : names.b3] = ok(floats(chance(0.5) ? D * F : F));   // not used: refused
        const has = (k) => f[k] && f[k].value != null;
        if (gated && !has(names.W3)) structural = false;
        if (!gated && act !== null && (has(names.W3) || has(names.b3))) structural = false;
        if (llama && chance(0.05)) { f.W1 = ok(floats(D * F)); structural = false; }   // W1 and Wg
        f._ffnNames = names;
      }
      if (call === 'encoderLayer') {
        f.norm = chance(0.95) ? ok(pick(['post', 'pre', undefined])) : bad(pick(['middle', 'PRE', 1, null]));
        for (const k of ['ln1Gamma', 'ln1Beta', 'ln2Gamma', 'ln2Beta']) if (chance(0.3)) f[k] = arrayField(floats(D), false);
      }
      if (big) {   // within the size limits, past the heap: refused before anything is read
        Object.assign(f, pick([{ L: ok(65536), dModel: ok(1), dFF: ok(4096) }, { L: ok(16384), dModel: ok(4), nHeads: ok(1) },
          { L: ok(16384), dModel: ok(1), nHeads: ok(1), dFF: ok(10923) }]));
        structural = false;
      }
    } else {   // norms
      const d = int(1, 8);
      f.L = sizeField(L);
      f.d = sizeField(d);
      f.x = arrayField(floats(L * d, 2), true);
      if (chance(0.5)) f.gamma = arrayField(floats(d), false);
      if (call !== 'rmsNorm' && chance(0.5)) f.beta = arrayField(floats(d), false);
      if (call === 'rmsNorm' && chance(0.05)) { f.beta = ok(floats(d)); structural = false; }
      if (big) { f.L = ok(65536); f.d = ok(4096); structural = false; }
    }
    if (call === 'encoderLayer' || call.endsWith('Norm')) {
      const r = rnd();
      f.eps = r < 0.5 ? ok(undefined) : r < 0.95 ? ok(pick([1e-5, 1e-3, 0.5, 1e-30, 1e-12])) : bad(pick([0, -1, 1e39, 1e-60, NaN, '1e-5', null]));
    }
    const misspelt = ['Causal', 'dff', 'epsilon', '__proto__', 'constructor'];
    const extra = chance(0.04) ? pick(chance(0.5) ? misspelt : ALL_NAMES.filter((k) => !NAMES[call].includes(k))) : null;
    return { call, f, structural, extra,
      wrap: pick(['plain', 'plain', 'plain', 'plain', 'nullproto', 'proxy', 'getters']), throwing: chance(0.01) };
  }

  /* The options object of a plan, and whether the call is valid. */
  function materialize(p) {
    const o = p.wrap === 'nullproto' ? Object.create(null) : {};
    let valid = p.structural;
    for (const [k, fld] of Object.entries(p.f)) {
      if (k.startsWith('_')) continue;
      valid = valid && fld.valid;
      if (fld.value === undefined && chance(0.5)) continue;   // absent rather than undefined
      if (p.wrap === 'getters' && chance(0.5)) {
        let reads = 0;
        const once = chance(0.5);   // read once: a getter that answers only once must be enough
        Object.defineProperty(o, k, { enumerable: true, configurable: true, get: () => (once && reads++ > 0 ? undefined : fld.value) });
      } else o[k] = fld.value;
    }
    if (p.throwing) {
      Object.defineProperty(o, 'x', { enumerable: true, get() { throw new RangeError('no x for you'); } });
      valid = false;
    }
    if (p.extra) {
      Object.defineProperty(o, p.extra, { enumerable: true, value: 1 });
      valid = false;
    }
    return { o: p.wrap === 'proxy' ? new Proxy(o, {}) : o, valid };
  }

  /* The reference's arguments: plain numbers under the engine's names (aliases resolved). */
  function referenceArgs(p) {
    const r = {};
    for (const [k, fld] of Object.entries(p.f)) if (!k.startsWith('_') && fld.content != null) r[k] = fld.content;
    const n = p.f._ffnNames;
    if (n && n.W1 === 'Wg') for (const [std, alias] of Object.entries(n)) { if (r[alias] !== undefined) r[std] = r[alias]; delete r[alias]; }
    if (r.activation === undefined && p.call !== 'attention') delete r.activation;
    return r;
  }

  function reference(call, a) {
    if (call === 'ffn') return ref.ffn(a);
    if (call === 'attention') return ref.attention(a);
    if (call === 'encoderLayer') return ref.encoderLayer(a);
    return ref.norm(call.replace('Norm', ''), a);
  }

  /* Results kept to be passed back as `into`, by call and shape. */
  const kept = new Map();
  const shapeKey = (call, a) => [call, a.L, a.dModel, a.nHeads, a.dFF, a.d, GATED.has(a.activation)].join(',');
  const arraysOf = (r) => Object.values(r).flatMap((v) => (v instanceof Float32Array ? [v] : v && typeof v === 'object' ? arraysOf(v) : []));

  /* `into` for a valid call whose reference result is `want`: { into, valid } or null for none.
     A kept result of the same shape, frozen or not, or of another; primitives; a copy of a
     kept result broken in one array (detached, a Proxy, overlapping another, a lying length)
     or with a gate of its own. Validity is decided by intoValid, from the arrays themselves. */
  function intoFor(call, a, want) {
    if (!chance(0.35)) return null;
    const same = kept.get(shapeKey(call, a)), r = rnd(), gated = GATED.has(a.activation);
    const judged = (into) => ({ into, valid: intoValid(into, want, gated) });
    if (same && r < 0.6) {
      if (chance(0.3)) Object.freeze(same);
      return judged(same);
    }
    if (r < 0.7 && kept.size) return judged(pick([...kept.values()]));
    if (r < 0.8) return judged(pick([null, 42, 'into', [], () => 0]));
    if (!same || arraysOf(same).some((v) => lengthOf.call(v) === 0)) return null;   // detached: no copy
    const copy = structuredClone(same), holder = call === 'encoderLayer' && chance(0.5) ? copy.ffn : copy;
    const victim = pick(Object.keys(holder).filter((k) => holder[k] instanceof Float32Array && k !== 'gate'));
    const n = holder[victim].length, how = pick(['detached', 'proxy', 'overlap', 'gate', 'lies']);
    if (how === 'detached') holder[victim] = detached();
    else if (how === 'proxy') holder[victim] = new Proxy(holder[victim], {});
    else if (how === 'overlap') holder[victim] = pick(arraysOf(copy).filter((v) => v.length >= n)).subarray(0, n);
    else if (how === 'gate') holder.gate = new Float32Array(holder.hidden ? holder.hidden.length : n);
    else { class Lies extends Float32Array { get length() { return n + 1; } } holder[victim] = new Lies(n); }
    return judged(copy);
  }

  const judge = Object.getPrototypeOf(Int8Array.prototype);
  const tagOf = Object.getOwnPropertyDescriptor(judge, Symbol.toStringTag).get;
  const lengthOf = Object.getOwnPropertyDescriptor(judge, 'length').get;

  /* What the API promises `into` is: an object whose arrays at every output path of the result
     are real Float32Arrays (whatever their own properties say) of the output's length, no two
     overlapping; for a gated FFN, gate absent or the hidden array. */
  function intoValid(into, want, gated) {
    if (into === null || typeof into !== 'object') return false;
    const arrays = [];
    const walk = (w, h) => {
      for (const [k, v] of Object.entries(w)) {
        if (k === 'gate') continue;
        if (ArrayBuffer.isView(v)) {   // an output (the reference's are Float64Array, or Float32Array: x + ...)
          const got = h[k];
          if (tagOf.call(got) !== 'Float32Array' || lengthOf.call(got) !== v.length) return false;
          arrays.push(got);
        } else {
          const sub = h[k];
          if (sub === null || typeof sub !== 'object' || !walk(v, sub)) return false;
        }
      }
      if (gated && w.up && h.gate !== undefined && h.gate !== h.hidden) return false;
      return true;
    };
    if (!walk(want, into)) return false;
    for (let i = 0; i < arrays.length; i++)
      for (let j = i + 1; j < arrays.length; j++) {
        const p = arrays[i], q = arrays[j];
        if (p.buffer === q.buffer && p.byteOffset < q.byteOffset + q.byteLength && q.byteOffset < p.byteOffset + p.byteLength) return false;
      }
    return true;
  }

  const stats = { calls: 0, results: 0, refusals: 0, checked: 0, transfers: 0, foreignNames: 0, notOptions: 0 };
  const known = { L: 2, dModel: 4, dFF: 6, activation: 'gelu', x: floats(8), W1: floats(24), b1: floats(6), W2: floats(24) };
  const knownOut = Float32Array.from(bl.ffn(known).out);
  const CALLS_OF = ['ffn', 'ffn', 'attention', 'attention', 'layerNorm', 'rmsNorm', 'batchNorm', 'encoderLayer', 'paramCount', 'numpyRandom'];

  for (let i = 0; i < CALLS; i++) {
    const call = pick(CALLS_OF);
    stats.calls++;
    const where = `call ${i} (${call}, seed ${SEED})`;
    let valid = null, run, check;
    if (call === 'paramCount') {
      const cfg = chance(0.2) ? pick(['bert-base', 'gpt2', 'llama-2-7b', 'gpt-5', 'x'.repeat(100), 7, null])
        : { dModel: pick([8, 64, 768, 0, -8, 12.5, '8']), nHeads: pick([1, 2, 4, 12, 5]), dFF: pick([16, 3072, 0]),
          ...(chance(0.3) ? { nLayers: pick([1, 12, 2 ** 20]), vocab: pick([0, 30522]) } : {}),
          ...(chance(0.2) ? { nExperts: pick([0, 4, 8]), topK: pick([1, 2, 9]) } : {}),
          ...(chance(0.1) ? { norm: pick(['rms', 'layer', 'batch', 1]) } : {}), ...(chance(0.05) ? { dFf: 1 } : {}) };
      if (cfg && typeof cfg === 'object' && chance(0.2)) Object.setPrototypeOf(cfg, null);
      run = () => bl.paramCount(cfg);
      check = (c) => {
        const sum = c.embeddings + c.attention + c.ffn + c.norms + c.other;
        assert.ok(Number.isSafeInteger(c.total) && c.total >= 0 && c.total === sum, `${where}: counts ${JSON.stringify(c)}`);
      };
    } else if (call === 'numpyRandom') {
      const seed = chance(0.9) ? int(0, 2 ** 32 - 1) : pick([-1, 2 ** 32, 1.5, NaN, '1', null, Object.create(null)]);
      const draw = pick(['randn', 'rand', 'randnF32']);
      const n = chance(0.9) ? int(0, 40) : pick([-1, 2.5, '3', draw === 'randnF32' ? 2 ** 28 + 1 : 2 ** 28, null]);
      run = () => bl.numpyRandom(seed)[draw](n);
      check = (v) => assert.ok(v.length === n && v.every(Number.isFinite), `${where}: ${n} finite numbers`);
    } else {
      const p = plan(call), m = materialize(p);
      valid = m.valid;
      if (p.extra) stats.foreignNames++;
      if (chance(0.02)) {   // not an options object at all
        m.o = pick(NOT_OPTIONS);
        stats.notOptions++;
        valid = false;
      }
      const a = referenceArgs(p), want = valid ? reference(call, a) : null;
      const into = valid ? intoFor(call, a, want) : chance(0.1) ? { into: pick([null, 7, {}]), valid: false } : null;
      if (into && !into.valid) valid = false;
      run = () => (into ? bl[call](m.o, into.into) : bl[call](m.o));
      check = (r) => {
        if (into) assert.equal(r, into.into, `${where}: into returned`);
        const tol = call === 'encoderLayer' ? 5e-4 : 1e-4, miss = ref.compare(r, want, tol, tol);
        assert.equal(miss, null, `${where}: ${miss}`);
        const f = call === 'encoderLayer' ? r.ffn : r;
        if (GATED.has(a.activation) && Object.isExtensible(f)) assert.equal(f.gate, f.hidden, `${where}: gate is hidden`);
        stats.checked++;
        if (Object.isExtensible(r)) kept.set(shapeKey(call, a), r);
      };
    }
    let result, error = null;
    try { result = run(); } catch (e) { error = e; }
    if (error) {
      if (!(error instanceof Error) || !error.message.startsWith('BlockLens: ')) {
        log(`${where}: ${error && error.stack}`);
        assert.fail(`${where}: threw ${error && error.constructor && error.constructor.name}: ${error && String(error.message).slice(0, 300)}`);
      }
      assert.ok(valid !== true, `${where}: a valid call was refused: ${error.message.slice(0, 300)}`);
      stats.refusals++;
      assert.deepEqual(bl.ffn(known).out, knownOut, `${where}: the known case after the refusal`);
    } else {
      assert.ok(valid !== false, `${where}: an invalid call was accepted`);
      check(result);
      stats.results++;
    }
    if (chance(0.01)) {   // a small result's buffer (the shared pool) goes to a "worker"
      const r = bl.ffn(known);
      structuredClone(r.out, { transfer: [r.out.buffer] });
      stats.transfers++;
    }
  }
  return stats;
}

test(`${CALLS}_randomized_adversarial_calls_from_seed_${SEED}_each_equal_the_reference_or_throw_a_BlockLens_Error`, async () => {
  const bl = await BlockLens.load(), t0 = performance.now();
  const stats = fuzz(bl, mulberry32(SEED), (s) => console.error(s));
  const ms = performance.now() - t0;
  console.log(`fuzz: ${stats.calls} calls from seed ${SEED} (${stats.results} results, ${stats.checked} checked against the reference, ` +
    `${stats.refusals} refusals, ${stats.transfers} pool transfers, ${stats.foreignNames} unknown or foreign option names, ` +
    `${stats.notOptions} non-object options) in ${ms.toFixed(0)} ms`);
  assert.ok(stats.checked > CALLS / 4 && stats.refusals > CALLS / 10 && stats.foreignNames > CALLS / 200 && stats.notOptions > CALLS / 200, JSON.stringify(stats));
});
