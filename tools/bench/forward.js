#!/usr/bin/env node
/* forward.js - the whole-model benchmark of issue 20: BlockLens's `model.forward(ids)` (the C
   decoder, bl_decoder_forward) on a GPT-2-small-shaped checkpoint against onnxruntime-web's wasm
   backend (one thread, SIMD) running the same weights exported to ONNX by Debian's torch, on the
   same 64 ids, in Node 22 and in headless Chromium. Writes tools/bench/REPORT-forward.md.

   usage:  bash tools/build && node tools/bench/forward.js [--rounds N] [--no-chromium] [--no-profile]
                                                           [--dir DIR] [--out FILE]
   The first run writes the checkpoint (498 MB, ~1 s) and its ONNX export (649 MB, ~30 s with torch)
   into DIR (default $BLOCKLENS_BENCH_DIR or /tmp/blocklens-forward-gpt2-s20; see forward-model.js);
   later runs reuse them. The Node figures come from Node 22 (.cache/node22, `bash tools/bootstrap
   --tests`), started as child processes: one for the timings, one per implementation for its load
   time, wasm heap and peak RSS alone, one for the profile.

   Timed, interleaved round by round (the order reversed every other round) after two warm-up calls:
     BlockLens FMA build  forward(ids, { layers: [11] })   only the last layer's intermediates kept
     BlockLens FMA build  forward(ids)                     every layer's intermediates kept
     BlockLens SIMD build forward(ids, { layers: [11] })   (load({ fma: false }): Firefox, Safari)
     onnxruntime-web      session.run({ ids })             logits only
   Each call in wall time and in its thread's CPU time. The ratio onnxruntime-web / BlockLens is
   taken within each round (pair by pair), then the median over rounds. Then where BlockLens's
   time goes (profileRun), in Node and in Chromium. Every output's logits are compared first with the float64 torch reference
   and with each other. */
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const http = require('node:http');
const { spawnSync } = require('node:child_process');
const bench = require('./browser.js');
const fm = require('./forward-model.js');

const root = path.join(__dirname, '..', '..');
const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const ROUNDS = Number(opt('--rounds', 15));
const outFile = opt('--out', path.join(__dirname, 'REPORT-forward.md'));
const NODE22 = path.join(root, '.cache', 'node22', 'node_modules', '.bin', 'node');
const log = (m) => process.stderr.write(m + '\n');

/* ---- shared by Node and the page (sent as source text: closes over nothing) ------------------ */

/* Records every wasm memory made or exported from here on, with the label current at that time
   (the implementation that is loading), so each one's heap can be read at the end. */
function watchMemories() {
  const W = WebAssembly, seen = [], state = { label: '' };
  const note = (mem) => { if (!seen.some((s) => s.mem === mem)) seen.push({ mem, label: state.label }); };
  const Mem = W.Memory;
  W.Memory = new Proxy(Mem, { construct(t, a, nt) { const m = Reflect.construct(t, a, nt); note(m); return m; } });
  const scan = (r) => {
    const inst = r && r.instance ? r.instance : r;
    if (inst && inst.exports) for (const v of Object.values(inst.exports)) if (v instanceof Mem) note(v);
    return r;
  };
  for (const f of ['instantiate', 'instantiateStreaming']) {
    const orig = W[f];
    if (orig) W[f] = function () { return orig.apply(W, arguments).then(scan); };
  }
  const OrigInstance = W.Instance;
  W.Instance = new Proxy(OrigInstance, { construct(t, a, nt) { return scan(Reflect.construct(t, a, nt)); } });
  state.bytes = (label) => seen.filter((s) => s.label === label).reduce((n, s) => n + s.mem.buffer.byteLength, 0);
  return state;
}

/* max |a - b| over the arrays, max |ref|: the logits' agreement. */
function agreement(a, b) {
  let diff = 0, top = 0;
  for (let i = 0; i < b.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    if (!(d <= diff)) diff = d;   /* NaN propagates */
    if (Math.abs(b[i]) > top) top = Math.abs(b[i]);
  }
  return { maxAbs: diff, rel: diff / top, refMax: top };
}

/* The timed comparison, given the loaded implementations: impls [{ name, key, run(): logits }],
   the float64 reference, cpu() (this thread's CPU time in ms, a Promise); returns per
   implementation its checks, wall and CPU samples, and the pair ratios of both. */
async function compare(impls, ref, rounds, say, cpu) {
  const outs = [];
  for (const im of impls) {
    const o = await im.run();
    outs.push(o);
    im.vsRef = agreement(o, ref);
    await im.run();   /* second warm-up */
    im.samples = [];
    im.cpu = [];
    say(`${im.name}: max |logit - float64 reference| ${im.vsRef.maxAbs.toExponential(2)}`);
  }
  const peer = impls.findIndex((im) => im.key === 'ort');
  for (const im of impls) im.vsPeer = agreement(outs[impls.indexOf(im)], outs[peer]);
  for (let r = 0; r < rounds; r++) {
    const order = impls.map((_, i) => i);
    if (r % 2) order.reverse();
    for (const i of order) {
      const c0 = await cpu(), t0 = performance.now();
      await impls[i].run();
      const t1 = performance.now(), c1 = await cpu();
      impls[i].samples.push(t1 - t0);
      impls[i].cpu.push(c1 - c0);
    }
    say(`round ${r + 1}/${rounds}, wall / CPU ms: ` +
      impls.map((im) => `${im.key} ${im.samples[r].toFixed(0)} / ${im.cpu[r].toFixed(0)}`).join(', '));
  }
  const P = impls[peer];
  return impls.map((im) => ({ name: im.name, key: im.key, vsRef: im.vsRef, vsPeer: im.vsPeer, samples: im.samples,
    cpu: im.cpu, ratios: im.samples.map((t, r) => P.samples[r] / t), cpuRatios: im.cpu.map((t, r) => P.cpu[r] / t) }));
}

/* ---- Node: the child processes (run under Node 22) ------------------------------------------- */

async function nodeSetup(which, prep, mem) {
  const BlockLens = require(root);
  const out = { impls: [], loads: {}, heaps: {} };
  const ref = new Float64Array(fs.readFileSync(prep.ref).buffer.slice(0));
  const idsI32 = Int32Array.from(prep.ids), idsI64 = BigInt64Array.from(prep.ids.map(BigInt));
  for (const [key, opts, name] of [['fma', {}, 'BlockLens FMA build'], ['simd', { fma: false }, 'BlockLens SIMD build']]) {
    if (!which.includes(key) && !which.includes(key + '-all')) continue;
    mem.label = key;
    const bl = await BlockLens.load(opts);
    if (key === 'fma' && !bl.fma) throw new Error('this Node did not load the FMA build (Node 22 does)');
    if (!bl.simd) throw new Error('no wasm SIMD here');
    const t0 = performance.now();
    const model = await bl.loadModel(prep.dir);
    out.loads[key] = performance.now() - t0;
    const last = model.nLayers - 1;
    if (which.includes(key))
      out.impls.push({ name: `${name}, forward(ids, { layers: [${last}] })`, key,
        run: () => model.forward(idsI32, { layers: [last] }).logits });
    if (which.includes(key + '-all'))
      out.impls.push({ name: `${name}, forward(ids): all ${model.nLayers} layers kept`, key: key + '-all',
        run: () => model.forward(idsI32).logits });
    out.engines = out.engines || {};
    out.engines[key] = bl;
  }
  if (which.includes('ort')) {
    mem.label = 'ort';
    const rt = require('onnxruntime-web');
    rt.env.wasm.numThreads = 1;
    rt.env.wasm.simd = true;
    rt.env.wasm.proxy = false;
    rt.env.logLevel = 'error';
    const t0 = performance.now();
    const session = await rt.InferenceSession.create(fs.readFileSync(prep.onnx),
      { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
    out.loads.ort = performance.now() - t0;
    const input = new rt.Tensor('int64', idsI64, [idsI64.length]);
    out.impls.push({ name: `onnxruntime-web ${rt.env.versions.web || rt.env.versions.common} (wasm, 1 thread, SIMD)`,
      key: 'ort', run: async () => (await session.run({ ids: input })).logits.data });
  }
  out.ref = ref;
  return out;
}

const rss = () => process.resourceUsage().maxRSS * 1024;
/* This process's CPU time (user + system) in ms: the wasm runs on the main thread in both. */
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };

async function child(mode, prep) {
  const mem = watchMemories();
  if (mode === 'time') {
    const s = await nodeSetup(['fma', 'fma-all', 'simd', 'ort'], prep, mem);
    const rows = await compare(s.impls, s.ref, ROUNDS, log, async () => cpuMs());
    return { rows, loads: s.loads, node: process.version, maxRSS: rss(),
      heaps: { fma: mem.bytes('fma'), simd: mem.bytes('simd'), ort: mem.bytes('ort') } };
  }
  if (mode.startsWith('alone:')) {   /* one implementation alone: load, 3 calls, heap, peak RSS */
    const key = mode.slice(6), rss0 = rss();
    const s = await nodeSetup([key], prep, mem);
    const afterLoad = rss();
    for (let i = 0; i < 3; i++) await s.impls[0].run();
    return { key, load: s.loads[key.replace('-all', '')], heap: mem.bytes(key.replace('-all', '')),
      rssStart: rss0, rssAfterLoad: afterLoad, maxRSS: rss() };
  }
  if (mode === 'profile') return profile(prep);
  throw new Error('unknown child mode ' + mode);
}

/* ---- where the time goes (Node and the page) ---------------------------------------------------- */
/* The same decoder on checkpoints that differ in one thing (loaded from bytes in memory, random
   weights with forward-model.js's scales): 12 layers and the real vocabulary; 12 layers with a
   vocabulary of 256 (the difference: the unembedding 64 x 768 x 50257); 1 layer with 256 (with
   the 12-layer one: the cost of a layer). Within a layer, the engine's own bl_linear_forward on
   each product's shape, weights resident, against onnxruntime-web running that one product
   (MatMul + Add, the ONNX of peers.js); the attention core, norms and GELU are the rest. Timed
   in CPU time, round by round. Sent to the page as source text: closes over nothing. */
const PRODUCTS = [['q, k, v, o (each)', 64, 768, 768, 10], ['c_attn', 64, 768, 2304, 4], ['c_fc', 64, 768, 3072, 3],
  ['mlp c_proj', 64, 3072, 768, 3], ['unembedding', 64, 768, 50257, 1]];
async function profileRun(bl, simd, ort, tensorList, base, ids, rounds, cpu, products, onnxOf) {
  const m = bl._m, enc = new TextEncoder();
  const median = (a) => { const b = [...a].sort((x, y) => x - y); return b[b.length >> 1]; };
  const modelOf = (nLayer, V) => {
    const c = Object.assign({}, base, { n_layer: nLayer, vocab_size: V, bos_token_id: V - 1, eos_token_id: V - 1 });
    const list = tensorList(c), header = {};
    let off = 0;
    for (const [name, shape] of list) {
      const n = 4 * shape.reduce((x, y) => x * y, 1);
      header[name] = { dtype: 'F32', shape, data_offsets: [off, off + n] };
      off += n;
    }
    let text = JSON.stringify(header);
    while ((8 + text.length) % 8) text += ' ';
    const bytes = new Uint8Array(8 + text.length + off), f = new Float32Array(bytes.buffer, 8 + text.length);
    new DataView(bytes.buffer).setUint32(0, text.length, true);
    bytes.set(enc.encode(text), 8);
    let at = 0;
    list.forEach(([, shape, std, offset], i) => {
      const n = shape.reduce((x, y) => x * y, 1);
      let st = i * 7919 + 1;
      for (let j = 0; j < n; j++) { st = (Math.imul(st, 1664525) + 1013904223) >>> 0; f[at++] = offset + (st / 2 ** 31 - 1) * std * 1.7320508; }
    });
    return bl.loadModel({ weights: bytes, config: c, vocab: Array.from({ length: V }, (_, i) => `<${i}>`) });
  };
  const runs = {}, reps = {};
  const variants = [['full', 12, base.vocab_size], ['smallVocab', 12, 256], ['oneLayer', 1, 256]];
  const small = Int32Array.from(ids, (i) => i % 256);
  for (const [k, nl, V] of variants) {
    const model = modelOf(nl, V), use = V === base.vocab_size ? Int32Array.from(ids) : small;
    runs[k] = () => model.forward(use, { layers: [nl - 1] });
    reps[k] = 1;
  }
  for (const [k, M, K, N, r] of products) {   /* out (M, N) = x (M, K) @ w (K, N) + b on the heap */
    const fill = (n) => { const a = m._malloc(n * 4); for (let i = 0; i < n; i++) m.HEAPF32[(a >> 2) + i] = Math.sin(i) * 0.03; return a; };
    const x = fill(M * K), w = fill(K * N), b = fill(N), out = m._malloc(M * N * 4);
    runs['bl ' + k] = () => { if (m._bl_linear_forward(out, x, w, b, M, K, N, 0) !== 0) throw new Error('linear'); };
    const s = simd._m, sx = s._malloc(M * K * 4), sw = s._malloc(K * N * 4), sb = s._malloc(N * 4), so = s._malloc(M * N * 4);
    s.HEAPF32.set(m.HEAPF32.subarray(x >> 2, (x >> 2) + M * K), sx >> 2);
    s.HEAPF32.set(m.HEAPF32.subarray(w >> 2, (w >> 2) + K * N), sw >> 2);
    s.HEAPF32.set(m.HEAPF32.subarray(b >> 2, (b >> 2) + N), sb >> 2);
    runs['simd ' + k] = () => { if (s._bl_linear_forward(so, sx, sw, sb, M, K, N, 0) !== 0) throw new Error('linear'); };
    const session = await ort.InferenceSession.create(await onnxOf(M, K, N), { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
    const xin = new ort.Tensor('float32', new Float32Array(M * K).map((_, i) => Math.sin(i) * 0.03), [M, K]);
    runs['ort ' + k] = async () => (await session.run({ x: xin })).out.data;
    reps['bl ' + k] = reps['simd ' + k] = reps['ort ' + k] = r;
  }
  const S = {};
  for (const k of Object.keys(runs)) { await runs[k](); await runs[k](); S[k] = []; }
  for (let round = 0; round < rounds; round++)
    for (const k of Object.keys(runs)) {
      const t0 = await cpu();
      for (let i = 0; i < reps[k]; i++) await runs[k]();
      S[k].push((await cpu() - t0) / reps[k]);
    }
  const med = {};
  for (const k of Object.keys(S)) med[k] = median(S[k]);
  /* the differences within each round, then their medians */
  const unembed = median(S.full.map((t, r) => t - S.smallVocab[r]));
  const layer = median(S.smallVocab.map((t, r) => (t - S.oneLayer[r]) / 11));
  const ratio = {};
  for (const [k] of products) {
    ratio[k] = median(S['ort ' + k].map((t, r) => t / S['bl ' + k][r]));
    ratio['fma/simd ' + k] = median(S['simd ' + k].map((t, r) => t / S['bl ' + k][r]));
  }
  return { med, samples: S, unembed, layer, ratio };
}

/* The ONNX of one product (peers.js's gemm: MatMul + Add), cached in the bench folder. */
function productOnnx(dir, M, K, N) {
  const file = path.join(dir, `gemm-${M}x${K}x${N}.onnx`);
  if (!fs.existsSync(file)) {
    const cases = require('./cases.js'), { ortModel } = require('./peers.js'), c = cases.gemmCase(M, K, N);
    fs.writeFileSync(file + '.part', ortModel('gemm', c, cases.inputs(c, 1)));
    fs.renameSync(file + '.part', file);
  }
  return file;
}

async function profile(prep) {
  const BlockLens = require(root), bl = await BlockLens.load(), simd = await BlockLens.load({ fma: false });
  const ort = require('onnxruntime-web');
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.proxy = false;
  ort.env.logLevel = 'error';
  return profileRun(bl, simd, ort, fm.tensorList, fm.GPT2_SMALL, prep.ids, ROUNDS, async () => cpuMs(), PRODUCTS,
    async (M, K, N) => fs.readFileSync(productOnnx(prep.dir, M, K, N)));
}

/* ---- Chromium ----------------------------------------------------------------------------------- */
const PAGE = '<!doctype html><meta charset="utf-8"><title>forward bench</title>' +
  '<script src="/blocklens.js"></script><script src="/ort.wasm.min.js"></script>';
const TYPES = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };

/* The page's part: fetch the files, load every implementation (timed), then compare. Runs in the page. */
async function pageRun(rounds, ids) {
  const say = (m) => console.log(m), mem = window.__mem, loads = {}, fetches = {};
  const get = async (url, how) => { const t0 = performance.now(); const r = await fetch(url); const v = await r[how](); fetches[url] = performance.now() - t0; return v; };
  const names = ['config.json', 'vocab.json', 'model.safetensors'], files = {};
  for (const n of names) files[n] = await get('/model/' + n, 'blob');
  const ref = new Float64Array(await get('/ref.f64', 'arrayBuffer'));
  const idsI32 = Int32Array.from(ids), idsI64 = BigInt64Array.from(ids.map(BigInt)), impls = [];
  for (const [key, opts, name] of [['fma', {}, 'BlockLens FMA build'], ['simd', { fma: false }, 'BlockLens SIMD build']]) {
    mem.label = key;
    const bl = await BlockLens.load(opts);
    if (key === 'fma' && !bl.fma) throw new Error('Chromium did not load the FMA build');
    const t0 = performance.now();
    const model = await bl.loadModel({ files });
    loads[key] = performance.now() - t0;
    const last = model.nLayers - 1;
    impls.push({ name: `${name}, forward(ids, { layers: [${last}] })`, key, run: () => model.forward(idsI32, { layers: [last] }).logits });
    if (key === 'fma')
      impls.push({ name: `${name}, forward(ids): all ${model.nLayers} layers kept`, key: 'fma-all', run: () => model.forward(idsI32).logits });
    say(key + ' loaded');
  }
  mem.label = 'ort';
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.simd = true;
  ort.env.wasm.wasmPaths = location.origin + '/';
  ort.env.logLevel = 'error';
  const bytes = new Uint8Array(await get('/model.onnx', 'arrayBuffer'));
  const t0 = performance.now();
  const session = await ort.InferenceSession.create(bytes, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
  loads.ort = performance.now() - t0;
  const input = new ort.Tensor('int64', idsI64, [idsI64.length]);
  impls.push({ name: `onnxruntime-web ${ort.env.versions.web || ort.env.versions.common} (wasm, 1 thread, SIMD)`, key: 'ort',
    run: async () => (await session.run({ ids: input })).logits.data });
  say('ort loaded');
  const rows = await compare(impls, ref, rounds, say, () => window.__cpu());
  return { rows, loads, fetches, heaps: { fma: mem.bytes('fma'), simd: mem.bytes('simd'), ort: mem.bytes('ort') },
    ua: navigator.userAgent };
}

/* Peak RSS (VmHWM) of the renderer processes started (through the browser) by this process. */
function rendererPeak(rootPid) {
  let best = 0;
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!cmd.includes('--type=renderer')) continue;
      let p = pid, ok = false;
      for (let i = 0; i < 8 && p > 1; i++) {
        p = Number(fs.readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
        if (p === rootPid) { ok = true; break; }
      }
      if (!ok) continue;
      const m = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmHWM:\s+(\d+) kB/);
      if (m) best = Math.max(best, Number(m[1]) * 1024);
    } catch (e) { /* gone */ }
  }
  return best;
}

async function chromiumPart(prep) {
  const nm = (p) => path.join(root, 'node_modules', p);
  const files = { '/blocklens.js': path.join(root, 'web', 'dist', 'blocklens.js'),
    '/ort.wasm.min.js': nm('onnxruntime-web/dist/ort.wasm.min.js'), '/model.onnx': prep.onnx, '/ref.f64': prep.ref };
  for (const n of ['config.json', 'vocab.json', 'model.safetensors']) files['/model/' + n] = path.join(prep.dir, n);
  /* a loopback server rather than request interception (chromium.js): the files are 0.5 GB each */
  const server = http.createServer((req, res) => {
    const p = new URL(req.url, 'http://x').pathname;
    let file = files[p];
    if (!file && /^\/ort-wasm[\w.-]*\.(mjs|wasm)$/.test(p)) file = nm('onnxruntime-web/dist' + p);
    if (p === '/') { res.writeHead(200, { 'content-type': 'text/html' }); return res.end(PAGE); }
    if (p === '/favicon.ico') { res.writeHead(204); return res.end(); }
    if (!file || !fs.existsSync(file)) { res.writeHead(404); return res.end(); }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream',
      'content-length': fs.statSync(file).size });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${server.address().port}`;
  const browser = await bench.launch();
  const open = async () => {
    const page = await browser.newPage();
    bench.watch(page, log);
    page.on('console', (msg) => log(`[page] ${msg.text()}`));
    await page.addInitScript(`window.__mem = (${watchMemories.toString()})();`);
    /* the renderer main thread's CPU time (the DevTools protocol's ThreadTime), in ms */
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    await page.exposeFunction('__cpu', async () =>
      1000 * (await cdp.send('Performance.getMetrics')).metrics.find((x) => x.name === 'ThreadTime').value);
    await page.goto(origin + '/');
    await page.addScriptTag({ content: [agreement, compare, pageRun, profileRun, fm.tensorList].map((f) => f.toString()).join('\n') });
    return page;
  };
  try {
    const page = await open();
    const r = await page.evaluate(([n, ids]) => pageRun(n, ids), [ROUNDS, prep.ids]);
    r.rendererPeak = rendererPeak(process.pid);
    await page.close();
    if (!args.includes('--no-profile')) {
      log('Chromium: profile');
      for (const [, M, K, N] of PRODUCTS) files[`/gemm-${M}x${K}x${N}.onnx`] = productOnnx(prep.dir, M, K, N);
      const pp = await open();
      r.profile = await pp.evaluate(async ([base, ids, n, products]) => {
        const bl = await BlockLens.load(), simd = await BlockLens.load({ fma: false });
        ort.env.wasm.numThreads = 1;
        ort.env.wasm.wasmPaths = location.origin + '/';
        ort.env.logLevel = 'error';
        return profileRun(bl, simd, ort, tensorList, base, ids, n, () => window.__cpu(), products,
          async (M, K, N) => new Uint8Array(await (await fetch(`/gemm-${M}x${K}x${N}.onnx`)).arrayBuffer()));
      }, [fm.GPT2_SMALL, prep.ids, ROUNDS, PRODUCTS]);
      await pp.close();
    }
    return r;
  } finally {
    await browser.close();
    server.close();
  }
}

/* ---- driver and report ------------------------------------------------------------------------- */
const median = (a) => { const b = [...a].sort((x, y) => x - y); return b[b.length >> 1]; };
const MB = (b) => `${(b / 1e6).toFixed(0)} MB`;
const sec = (ms) => `${(ms / 1000).toFixed(2)} s`;

/* A child under Node 22 (.cache/node22); without it this Node, with relaxed SIMD switched on where it
   is behind a flag (Node 20), so that load() still picks the FMA build. */
function runChild(mode, dir) {
  const has22 = fs.existsSync(NODE22), flag = !has22 && Number(process.versions.node.split('.')[0]) < 21;
  if (!has22 && mode === 'time') log(`no Node 22 at ${path.relative(root, NODE22)} (bash tools/bootstrap --tests): using ${process.version}`);
  const r = spawnSync(has22 ? NODE22 : process.execPath,
    [...(flag ? ['--experimental-wasm-relaxed-simd'] : []), __filename, '--child', mode, '--dir', dir, '--rounds', String(ROUNDS)],
    { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`child ${mode} failed (${r.status})`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

const spread = (a) => `${median(a).toFixed(2)}x (${Math.min(...a).toFixed(2)} - ${Math.max(...a).toFixed(2)})`;
function rowsTable(rows) {
  const lines = ['| implementation | wall: median (min - max) | CPU: median | onnxruntime-web / this, wall, pair by pair: median (min - max) | the same in CPU time | max \\|logit - float64\\| | max \\|logit - onnxruntime-web\\| |',
    '|---|---:|---:|---:|---:|---:|---:|'];
  for (const r of rows) {
    const peer = r.key === 'ort';
    lines.push(`| ${r.name} | ${median(r.samples).toFixed(0)} ms (${Math.min(...r.samples).toFixed(0)} - ${Math.max(...r.samples).toFixed(0)}) | ` +
      `${median(r.cpu).toFixed(0)} ms | ${peer ? '1 (the peer)' : spread(r.ratios)} | ${peer ? '1' : spread(r.cpuRatios)} | ` +
      `${r.vsRef.maxAbs.toExponential(1)} | ${peer ? '-' : r.vsPeer.maxAbs.toExponential(1)} |`);
  }
  return lines.join('\n');
}

async function main() {
  const ci = args.indexOf('--child');
  if (ci >= 0) {
    const prep = fm.prepare(opt('--dir'), log);
    const r = await child(args[ci + 1], prep);
    process.stdout.write(JSON.stringify(r, (k, v) => (k === 'ref' ? undefined : v)) + '\n');
    return;
  }
  const prep = fm.prepare(opt('--dir', fm.defaultDir()), log);
  const load0 = os.loadavg(), start = Date.now();
  log('Node: the timed comparison');
  const nodeTime = runChild('time', prep.dir);
  log('Node: each implementation alone (load, heap, peak RSS)');
  const alone = {};
  for (const k of ['fma', 'fma-all', 'ort']) alone[k] = runChild('alone:' + k, prep.dir);
  const prof = args.includes('--no-profile') ? null : (log('Node: profile'), runChild('profile', prep.dir));
  const chrome = args.includes('--no-chromium') ? null : (log('Chromium'), await chromiumPart(prep));
  const load1 = os.loadavg(), minutes = ((Date.now() - start) / 60000).toFixed(1);
  const report = writeReport({ prep, nodeTime, alone, prof, chrome, load0, load1, minutes });
  fs.writeFileSync(outFile, report);
  log(`wrote ${path.relative(process.cwd(), outFile)} (${minutes} min)`);
}

function profileSection(where, prof, prep) {
  const c = prep.config, L = prep.ids.length, D = c.n_embd, F = 4 * D, V = c.vocab_size, NL = c.n_layer;
  const macs = (M, K, N) => M * K * N, layerMacs = 4 * macs(L, D, D) + 2 * macs(L, D, F) + 2 * L * L * D;
  const p = prof.med, layer = prof.layer, unembed = prof.unembed, b = (k) => p['bl ' + k], o = (k) => p['ort ' + k];
  const qkvo = 4 * b('q, k, v, o (each)'), mlp = b('c_fc') + b('mlp c_proj'), rest = layer - qkvo - mlp;
  const gfl = (ms, m) => (m ? (2 * m / ms / 1e6).toFixed(1) : '-');
  const row = (what, ms, m, peer, k, n) => `| ${what} | ${ms.toFixed(1)} ms | ${(100 * ms / p.full).toFixed(0)}% | ${gfl(ms, m)} | ` +
    `${k ? `${(n * p['simd ' + k]).toFixed(1)} ms: FMA **${prof.ratio['fma/simd ' + k].toFixed(2)}x** faster` : '-'} | ${peer || '-'} |`;
  const vs = (k, n) => `${(n * o(k)).toFixed(1)} ms (${gfl(n * o(k), n * macs(...PRODUCTS.find((x) => x[0] === k).slice(1, 4)))} GFLOPS): **${prof.ratio[k].toFixed(2)}x**`;
  return `
## Where BlockLens's time goes (${where}, FMA build)

CPU time, ${ROUNDS} rounds, medians. The same decoder on checkpoints that differ in one thing, all
loaded at once: 12 layers and vocab ${V}, ${p.full.toFixed(0)} ms a forward; 12 layers and vocab 256,
${p.smallVocab.toFixed(0)} ms; 1 layer and vocab 256, ${p.oneLayer.toFixed(0)} ms. A layer is the difference of the last
two over 11, the unembedding the difference of the first two (differences taken within each
round, then the median). Within a layer, the engine's own \`bl_linear_forward\` on each product's
shape (weights resident on the heap), the same in the SIMD build (\`load({ fma: false })\`), and
onnxruntime-web running that one product alone (MatMul + Add, \`peers.js\`'s ONNX; 12 of them, or
48 for q, k, v, o), in the same rounds; the ratios are the other's time / the FMA build's, pair
by pair.

| part | BlockLens per forward | share | GFLOPS | SIMD build, the same products alone | onnxruntime-web, the same products alone |
|---|---:|---:|---:|---:|---:|
${[row(`unembedding ${L} x ${D} x ${V} (wte read as (vocab, D) rows)`, unembed, macs(L, D, V), vs('unembedding', 1) + ' (vs bl_linear_forward below)', 'unembedding', 1),
    row(`${NL} layers`, NL * layer, NL * layerMacs),
    row(`&nbsp;&nbsp;q, k, v, o: 4 x ${L} x ${D} x ${D} per layer`, NL * qkvo, NL * 4 * macs(L, D, D), vs('q, k, v, o (each)', 4 * NL), 'q, k, v, o (each)', 4 * NL),
    row(`&nbsp;&nbsp;(not run: q, k, v as one c_attn product, ${L} x ${D} x ${3 * D} per layer, as the ONNX graph has it)`,
      NL * b('c_attn'), NL * macs(L, D, 3 * D), vs('c_attn', NL), 'c_attn', NL).replace(/\| \d+% \|/, '| - |'),
    row(`&nbsp;&nbsp;MLP c_fc: ${L} x ${D} x ${F} per layer`, NL * b('c_fc'), NL * macs(L, D, F), vs('c_fc', NL), 'c_fc', NL),
    row(`&nbsp;&nbsp;MLP c_proj: ${L} x ${F} x ${D} per layer`, NL * b('mlp c_proj'), NL * macs(L, F, D), vs('mlp c_proj', NL), 'mlp c_proj', NL),
    row('&nbsp;&nbsp;the rest: attention core (q k^T, softmax, weights v), 2 layer norms, GELU, residuals', NL * rest, NL * 2 * L * L * D),
    row('embeddings, ln_f, the logits\' copy out, JS (1-layer model less a layer)', p.oneLayer - layer, 0)].join('\n')}

\`bl_linear_forward\` on the unembedding's shape with the weights stored (K, N), a (${D}, ${V})
matrix as onnxruntime-web's folded graph holds it: ${b('unembedding').toFixed(0)} ms (${gfl(b('unembedding'), macs(L, D, V))} GFLOPS), against ${unembed.toFixed(0)} ms
inside the decoder, which reads wte as (vocab, D) rows.
`;
}

function writeReport({ prep, nodeTime, alone, prof, chrome, load0, load1, minutes }) {
  const c = prep.config, cpu = os.cpus()[0] ? os.cpus()[0].model : 'unknown CPU';
  const macs = (M, K, N) => M * K * N, L = prep.ids.length, D = c.n_embd, F = 4 * D, V = c.vocab_size, NL = c.n_layer;
  const layerMacs = 4 * macs(L, D, D) + 2 * macs(L, D, F) + 2 * L * L * D;
  const totalMacs = NL * layerMacs + macs(L, D, V);
  const gf = (ms) => (2 * totalMacs / ms / 1e6).toFixed(1);
  const sumRow = (where, rows) => rows.filter((r) => r.key !== 'ort').map((r) => {
    const o = rows.find((x) => x.key === 'ort'), w = median(r.ratios), c = median(r.cpuRatios);
    return `| ${where} | ${r.name} | ${median(r.samples).toFixed(0)} / ${median(r.cpu).toFixed(0)} ms (${gf(median(r.cpu))} GFLOPS) | ` +
      `${median(o.samples).toFixed(0)} / ${median(o.cpu).toFixed(0)} ms | **${w.toFixed(2)}x** / **${c.toFixed(2)}x** | ` +
      `${w >= 1.3 ? 'met' : 'not met'} / ${c >= 1.3 ? 'met' : 'not met'} |`;
  });
  let md = `# BlockLens whole-model forward: GPT-2 small shape, 64 tokens

Generated by \`node tools/bench/forward.js${ROUNDS !== 15 ? ' --rounds ' + ROUNDS : ''}${args.filter((x) => x.startsWith('--no-')).map((x) => ' ' + x).join('')}\` (after \`bash tools/build\`; Node 22 from
\`bash tools/bootstrap --tests\`) on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC: ${cpu}, ${os.cpus().length} vCPU
shared with other jobs. Load average ${load0.map((x) => x.toFixed(1)).join(' / ')} at the start, ${load1.map((x) => x.toFixed(1)).join(' / ')}
at the end${load0[0] > os.cpus().length / 2 ? ` (on ${os.cpus().length} cores: the host was busy)` : ''}; the run took ${minutes} min. Read the ratios, which are
taken pair by pair within a round, not the absolute times.

Model: a Hugging Face GPT-2 folder written by \`tools/bench/forward-model.js\` (n_embd ${D}, n_layer ${NL},
n_head ${c.n_head}, n_positions ${c.n_positions}, vocab ${V}, gelu_new, F32, seed ${prep.seed}:
model.safetensors ${MB(prep.bytes.safetensors)}), exported to ONNX (opset 17, ${MB(prep.bytes.onnx)}: torch's constant
folding stores the tied unembedding a second time, transposed) by \`tools/bench/forward_onnx.py\` with
Debian's torch, which also writes the float64 logits every output is compared with. ${L} ids
(\`<|endoftext|>\` then random ids). ${(2 * totalMacs / 1e9).toFixed(1)} GFLOP per forward, of which the unembedding
(${L} x ${D} x ${V}) is ${(100 * macs(L, D, V) / totalMacs).toFixed(0)}%.

Method: one process (Node) or one page (Chromium) holds all four; two warm-up calls each, then
${ROUNDS} rounds, each calling every implementation once (the order reversed every other round);
the ratio onnxruntime-web / BlockLens within each round, and its median. Each call is timed in
wall time and in CPU time of the thread it runs on (Node: \`process.cpuUsage()\`; Chromium: the
renderer main thread's \`ThreadTime\` from the DevTools protocol's Performance domain): on a host
whose 2 cores are shared with other jobs, CPU time leaves out the time spent waiting for a core,
so its ratio is the steadier one (cache and memory-bandwidth contention remain in both). BlockLens's time is
\`model.forward(ids)\` as a user calls it: the JS wrapper, the C decoder, the copy of every kept
output out of the heap. onnxruntime-web's is \`session.run({ ids })\` (wasm execution provider,
\`numThreads = 1\`, SIMD, graph optimisation \`all\`), logits only. Load: BlockLens's
\`loadModel(folder)\` (Node: the path; Chromium: the files as Blobs, as an \`<input type=file>\`
gives them) until the Model is ready; onnxruntime-web's \`InferenceSession.create\` (Node: from
\`fs.readFileSync\`, included; Chromium: from the bytes already fetched).

## Summary (target from issue 20: BlockLens >= 1.3x faster)

| where | BlockLens call | BlockLens median, wall / CPU | onnxruntime-web median, wall / CPU | ratio pair by pair, wall / CPU | target, wall / CPU |
|---|---|---:|---:|---:|---|
${[...sumRow('Node ' + nodeTime.node, nodeTime.rows), ...(chrome ? sumRow(chrome.ua.replace(/.*(HeadlessChrome\/[\d.]+).*/, '$1'), chrome.rows) : [])].join('\n')}

## Node ${nodeTime.node}

${rowsTable(nodeTime.rows)}

Largest |logit| of the float64 reference: ${nodeTime.rows[0].vsRef.refMax.toFixed(2)}.

Load and memory, each implementation alone in a fresh process (\`process.resourceUsage().maxRSS\`;
wasm heap: the implementation's wasm memories at the end; Node itself starts at ${MB(alone.fma.rssStart)}):

| implementation | load (folder or file to ready) | wasm heap | peak RSS after load | peak RSS after 3 calls |
|---|---:|---:|---:|---:|
| BlockLens FMA build, forward(ids, { layers: [11] }) | ${sec(alone.fma.load)} | ${MB(alone.fma.heap)} | ${MB(alone.fma.rssAfterLoad)} | ${MB(alone.fma.maxRSS)} |
| BlockLens FMA build, forward(ids), all layers kept | ${sec(alone['fma-all'].load)} | ${MB(alone['fma-all'].heap)} | ${MB(alone['fma-all'].rssAfterLoad)} | ${MB(alone['fma-all'].maxRSS)} |
| onnxruntime-web | ${sec(alone.ort.load)} | ${MB(alone.ort.heap)} | ${MB(alone.ort.rssAfterLoad)} | ${MB(alone.ort.maxRSS)} |

In the timed process (all four side by side): loads FMA ${sec(nodeTime.loads.fma)}, SIMD ${sec(nodeTime.loads.simd)},
onnxruntime-web ${sec(nodeTime.loads.ort)}; heaps ${MB(nodeTime.heaps.fma)} / ${MB(nodeTime.heaps.simd)} / ${MB(nodeTime.heaps.ort)}; peak RSS ${MB(nodeTime.maxRSS)}.
`;
  if (chrome) md += `
## Chromium (${chrome.ua.replace(/.*(HeadlessChrome\/[\d.]+).*/, '$1')})

${rowsTable(chrome.rows)}

Load: BlockLens FMA ${sec(chrome.loads.fma)}, SIMD ${sec(chrome.loads.simd)} (\`loadModel({ files })\` from Blobs);
onnxruntime-web ${sec(chrome.loads.ort)} (\`InferenceSession.create(bytes)\`). Fetching the files from the loopback
server: model.safetensors ${sec(chrome.fetches['/model/model.safetensors'])}, model.onnx ${sec(chrome.fetches['/model.onnx'])} (not in the loads).
wasm heaps: FMA ${MB(chrome.heaps.fma)}, SIMD ${MB(chrome.heaps.simd)}, onnxruntime-web ${MB(chrome.heaps.ort)}.
Peak RSS of the renderer (all of them in one page, plus the fetched files): ${MB(chrome.rendererPeak)}.
`;
  if (prof) md += profileSection('Node ' + nodeTime.node, prof, prep);
  if (chrome && chrome.profile) md += profileSection(chrome.ua.replace(/.*(HeadlessChrome\/[\d.]+).*/, '$1'), chrome.profile, prep);
  md += `
## Not measured yet

- A Llama-shaped checkpoint (RMSNorm, rotary positions, SwiGLU, grouped-query attention): the
  engine cannot load one yet (the Llama architecture is being written on another branch). Once
  it can, the same comparison needs a Llama writer in forward-model.js and a Llama forward in
  forward_onnx.py; wllama (llama.cpp's wasm, GGUF) is the other peer there.

Rerun: \`bash tools/build && node tools/bench/forward.js\` (add \`--no-chromium\`, \`--no-profile\`,
\`--rounds N\`; the checkpoint and its export are cached in \`${fm.defaultDir().replace(os.tmpdir(), '$TMPDIR')}\` or
\`$BLOCKLENS_BENCH_DIR\`).
`;
  return md;
}

module.exports = { chromiumPart, child, writeReport };

if (require.main === module) main().catch((e) => { console.error(e); process.exit(1); });
