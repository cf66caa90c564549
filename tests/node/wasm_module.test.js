// wasm_module.test.js - how load() gets its wasm: the inlined base64 decoded once by the
// wrapper and never fetch()ed (a strict CSP without connect-src refuses the data: URL), and a
// compiled module shared through engine.wasmModule / load({ wasmModule }) (for a Worker).
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const { Worker } = require('node:worker_threads');
const { BlockLens, root } = require('./helpers.js');

const file = path.join(root, 'web', 'dist', 'blocklens.js');

/* blocklens.js in a fresh browser-like context (window, no process, no Buffer): Emscripten takes
   its web path, which fetch()es a data: URL unless handed the module. fetch, atob and
   WebAssembly.compile count their calls. */
function browserLike() {
  const calls = { fetch: 0, atob: 0, compile: 0 };
  const ctx = vm.createContext({ console, setTimeout, clearTimeout, TextDecoder,
    fetch: () => { calls.fetch++; return Promise.reject(new TypeError('fetch refused (Content-Security-Policy)')); },
    atob: (s) => { calls.atob++; return atob(s); } });
  ctx.window = ctx.self = ctx;
  vm.runInContext(fs.readFileSync(file, 'utf8'), ctx, { filename: file });
  const wasm = vm.runInContext('WebAssembly', ctx), compile = wasm.compile, instantiate = wasm.instantiate;
  wasm.compile = function (...a) { calls.compile++; return compile.apply(this, a); };
  wasm.instantiate = function (src, ...a) {
    if (!(src instanceof wasm.Module) && Object.prototype.toString.call(src) !== '[object WebAssembly.Module]') calls.compile++;
    return instantiate.call(this, src, ...a);
  };
  return { BlockLens: ctx.BlockLens, calls };
}

function ffnArgs(bl) {
  const r = bl.numpyRandom(5), L = 4, D = 8, F = 16;
  return { L, dModel: D, dFF: F, x: r.randnF32(L * D), W1: r.randnF32(D * F), b1: r.randnF32(F),
    W2: r.randnF32(F * D), b2: r.randnF32(D), activation: 'gelu' };
}

/* Every build this runtime can load, as [key, load() options], each once. */
async function builds() {
  const seen = new Map();
  for (const opts of [{ simd: false }, { fma: false }, { fma: true }]) {
    let bl;
    try { bl = await BlockLens.load(opts); } catch (e) { continue; }   // runtime lacks it
    const key = bl.fma ? 'fma' : bl.simd ? 'simd' : 'scalar';
    if (!seen.has(key)) seen.set(key, { simd: bl.simd, fma: bl.fma });
  }
  return [...seen];
}

test('load_decodes_only_the_module_it_runs_once_and_never_fetches_it', async () => {
  for (const [key, opts] of await builds()) {
    const page = browserLike();
    const bl = await page.BlockLens.load(opts);
    assert.equal(bl.fma, key === 'fma', key);
    assert.equal(bl.simd, key !== 'scalar', key);
    assert.deepEqual(page.calls, { fetch: 0, atob: 1, compile: 1 }, `${key}: one decode, one compile, no fetch`);
    const here = await BlockLens.load(opts);   // arrays of this realm for this realm's engine
    assert.deepEqual(Array.from(bl.ffn(ffnArgs(bl)).out), Array.from(here.ffn(ffnArgs(here)).out), key);
  }
});

test('engine_wasmModule_is_the_compiled_module_tagged_with_its_build', async () => {
  for (const [key, opts] of await builds()) {
    const bl = await BlockLens.load(opts);
    assert.ok(bl.wasmModule instanceof WebAssembly.Module, key);
    const tag = WebAssembly.Module.customSections(bl.wasmModule, 'blocklens').map((b) => Buffer.from(b).toString());
    assert.deepEqual(tag, [key === 'scalar' ? 'blocklens scalar' : `blocklens simd fma=${key === 'fma' ? 1 : 0}`]);
  }
});

test('load_wasmModule_instantiates_the_given_module_same_FFN_bits_no_decode_compile_or_fetch', async () => {
  for (const [key, opts] of await builds()) {
    const bl = await BlockLens.load(opts);
    const page = browserLike();
    const shared = await page.BlockLens.load({ ...opts, wasmModule: bl.wasmModule });
    assert.notEqual(shared, bl);
    assert.equal(shared.wasmModule, bl.wasmModule);
    assert.equal(shared.fma, bl.fma);
    assert.deepEqual(page.calls, { fetch: 0, atob: 0, compile: 0 }, key);
    const got = shared.ffn(ffnArgs(shared)), want = bl.ffn(ffnArgs(bl));
    for (const k of ['hidden', 'activated', 'out']) assert.deepEqual(Array.from(got[k]), Array.from(want[k]), `${key} ${k}`);
  }
});

test('a_Worker_given_engine_wasmModule_by_postMessage_computes_the_same_FFN_bits_without_fetching', async () => {
  const bl = await BlockLens.load();
  const worker = new Worker(`
    const { parentPort } = require('node:worker_threads');
    let fetched = 0, decoded = 0;
    globalThis.fetch = () => { fetched++; throw new Error('fetch refused'); };
    const from = Buffer.from;
    Buffer.from = function (v, enc) { if (enc === 'base64') decoded++; return from.apply(this, arguments); };
    parentPort.once('message', async ({ wasmModule, args }) => {
      const bl = await require(${JSON.stringify(root)}).load({ wasmModule });
      parentPort.postMessage({ fma: bl.fma, same: bl.wasmModule === wasmModule, out: bl.ffn(args).out, fetched, decoded });
    });`, { eval: true });
  try {
    const args = ffnArgs(bl);
    const reply = new Promise((resolve, reject) => { worker.once('message', resolve); worker.once('error', reject); });
    worker.postMessage({ wasmModule: bl.wasmModule, args });
    const r = await reply;
    assert.deepEqual({ ...r, out: null }, { fma: bl.fma, same: true, out: null, fetched: 0, decoded: 0 });
    assert.deepEqual(r.out, bl.ffn(args).out);
  } finally {
    await worker.terminate();
  }
});

test('a_wasmModule_of_another_build_is_rejected_with_a_BlockLens_error', async () => {
  const all = await builds();
  for (const [key, opts] of all) {
    for (const [other] of all) {
      if (other === key) continue;
      const wasmModule = (await BlockLens.load(opts)).wasmModule;
      const otherOpts = all.find((b) => b[0] === other)[1];
      await assert.rejects(BlockLens.load({ ...otherOpts, wasmModule }),
        { message: new RegExp(`^BlockLens: wasmModule was compiled for the ${key} build, but this load\\(\\) picked the ${other} build`) });
      await assert.rejects(browserLike().BlockLens.load({ ...otherOpts, wasmModule }), /compiled for the/);
    }
  }
});

test('a_wasmModule_that_is_not_BlockLenss_or_not_a_module_is_rejected_with_a_BlockLens_error', async () => {
  const empty = new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));
  await assert.rejects(BlockLens.load({ wasmModule: empty }),
    { message: 'BlockLens: wasmModule is not a BlockLens wasm module (no "blocklens" build tag)' });
  const page = browserLike();
  await assert.rejects(page.BlockLens.load({ wasmModule: empty }), /not a BlockLens wasm module/);
  for (const bogus of [new ArrayBuffer(8), {}, 'module', null]) {
    assert.throws(() => BlockLens.load({ wasmModule: bogus }), /^Error: BlockLens: wasmModule must be a WebAssembly.Module/);
  }
  assert.deepEqual(page.calls, { fetch: 0, atob: 0, compile: 0 });
});

test('load_wasmModule_keeps_one_promise_per_build', async () => {
  const p = BlockLens.load();
  const bl = await p, opts = { simd: bl.simd, fma: bl.fma };
  assert.equal(BlockLens.load({ wasmModule: bl.wasmModule }), p);
  const page = browserLike();
  const a = page.BlockLens.load({ ...opts, wasmModule: bl.wasmModule }), b = page.BlockLens.load(opts);
  assert.equal(a, b);
  assert.equal((await b).wasmModule, bl.wasmModule);
});
