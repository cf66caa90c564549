#!/usr/bin/env node
/* kernels.js - GFLOPS of the GEMM kernel (src/matmul.c) alone in wasm: F32, F16 and BF16 B, the
   FMA and the SIMD build, on issue 23's shapes, optionally beside tfjs-backend-wasm and
   onnxruntime-web (one thread, F32, weights resident) in the same run, in Node or in headless
   Chromium. The engine's sources plus bench_kernels.c are compiled with the wasm build's flags
   by tools/bench/emcc.js; --variant 'NAME=-DFLAG ...' adds builds with other flags, timed
   interleaved with the default one (for A/B of kernel parameters).

   usage: node tools/bench/kernels.js [--runs 7] [--peers] [--simd] [--micro] [--chromium]
            [--dtypes f32,f32t,f16,bf16] [--shapes 128x768x3072,64x896x4864]
            [--variant 'name=-DFLAG ...'] [--variant 'name=@DIR'] ...
            [--limit GFLOPS]   (else measured: tools/bench/fma_probe.c --peak)
     f32t      F32 B given transposed (N, K), as F16 and BF16 always are (a checkpoint's layout)
     f16f      F16 with the caller's word that it holds no inf or NaN (as loadModel checks): no watch
     --simd    also the SIMD build (the same module with FMA off); --simd-only: only it
     --micro   the micro-kernels alone, operands in L1
     --chromium  everything in a page of Debian's Chromium (tools/bench/browser.js); the peers'
               files come from node_modules through request interception (no network)
     @DIR      the engine sources of another checkout (e.g. a worktree of main): before/after
   Node 20 restarts itself with --experimental-wasm-relaxed-simd. Prints a markdown table of
   medians per case: CPU time (Node: the process's; Chromium: the renderer main thread's
   ThreadTime) and wall time of many calls per sample, GFLOPS = 2MKN / CPU time, its share of
   LIMIT (one core's 128-bit FMA peak, measured natively: see hostLimit), the ratio to the best peer, and for products of at most
   8 rows B's bytes per second against a memcpy of B's size in the same module. Cases are
   interleaved round by round; read ratios within one run, the host is shared. */
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { options, relaxedRestart, build: emcc, median } = require('./emcc.js');

const { args, opt, has, runs } = options();
const dtypes = opt('--dtypes', 'f32,f32t,f16,bf16').split(',');
const shapes = opt('--shapes', '128x768x3072,64x896x4864').split(',').map((s) => s.split('x').map(Number));
const variants = [['main', '']];
args.forEach((a, i) => { if (a === '--variant') { const v = args[i + 1]; variants.push([v.slice(0, v.indexOf('=')), v.slice(v.indexOf('=') + 1)]); } });
const DT = { f32: 0, f32t: 0, f16: 1, bf16: 2, f16f: 3 };   /* f32t: F32 given transposed (N, K); f16f:
   F16 known finite (bl_llama_desc.weights_finite, as a page's models are) */
const EXPORTS = ['_bk_setup', '_bk_run', '_bk_ref', '_bk_out', '_bk_micro', '_bk_copy'];
/* GFLOPS of one core's 128-bit FMA peak, measured on this host (fma_probe.c --peak: 12
   independent 128-bit FMA chains, native, best of 7 samples) unless --limit G is given: the
   hosts behind these runs have changed (an Intel Xeon at 46.5, an AMD EPYC at 56-58). The SIMD
   build's share is of the same figure (its unfused multiply and add have no measured ceiling). */
function hostLimit() {
  if (opt('--limit', null)) return Number(opt('--limit', null));
  const { execFileSync } = require('node:child_process');
  const src = path.join(__dirname, 'fma_probe.c'), dir = path.join(__dirname, '..', '..', 'build', 'bench');
  const exe = path.join(dir, 'fma_probe');
  fs.mkdirSync(dir, { recursive: true });
  let g = NaN;
  try {   /* (x86 with FMA3 only: elsewhere the probe does not build) */
    if (!fs.existsSync(exe) || fs.statSync(exe).mtimeMs < fs.statSync(src).mtimeMs)
      execFileSync('cc', ['-O2', '-mfma', '-mavx2', src, '-o', exe], { stdio: 'pipe' });
    g = Number(execFileSync(exe, ['--peak'], { encoding: 'utf8' }).trim());
  } catch (e) { /* reported below */ }
  if (!(g > 0)) throw new Error('tools/bench/fma_probe.c gave no FMA limit on this host: pass --limit GFLOPS');
  return g;
}
const LIMIT = hostLimit();
const PEER_TOL = 1e-4;   /* peers' F32 sums in their own order: |error| / max(1, |want|) */

/* spec: '-DFLAG ...' (this tree) or '@DIR -DFLAG ...' (another checkout) */
function build(spec, web = false) {
  const tree = spec.startsWith('@') ? path.resolve(spec.slice(1).split(/\s+/)[0]) : undefined;
  const flags = spec.startsWith('@') ? spec.slice(1).split(/\s+/).slice(1).join(' ') : spec;
  return emcc({ tree, flags, web, bench: 'bench_kernels.c', replaced: path.join('src', 'matmul.c'), define: 'BL_BENCH_MATMUL',
    hashed: [path.join('src', 'kernel_simd.h')], prefix: 'kernels', exportName: (h) => (web ? `BK_${h}` : 'BK'), exports: EXPORTS });
}

/* max |out - want| / max(1, |want|) over 64 entries of x (M, K) @ w (K, N) + b, in double.
   Also sent to the page as source text. */
function gemmErr(out, d, M, K, N) {
  let err = 0;
  for (let i = 0; i < 64; i++) {
    const row = (i * 37) % M, col = (i * 1031) % N;
    let want = d.b[col];
    for (let k = 0; k < K; k++) want += d.x[row * K + k] * d.w[k * N + col];
    err = Math.max(err, Math.abs(out[row * N + col] - want) / Math.max(1, Math.abs(want)));
  }
  return err;
}

/* ---- where the cases run: { mods, call(mi, fn, ...a), timed(mi, fn, ...a) -> { value, cpu, wall }
   (ms), peers: [{ name, prepare(M, K, N) -> { err, id }, timed(id, n) -> { cpu, wall } }], label,
   close() }; a peer keeps each prepared case (weights resident) */
async function nodeSide(wantPeers) {
  const mods = variants.map(([, flags]) => { const b = build(flags); return require(b.js)({ wasmBinary: fs.readFileSync(b.wasm) }); });
  const ms = await Promise.all(mods);
  const clock = () => ({ cpu: process.cpuUsage(), wall: process.hrtime.bigint() });
  const since = (t) => { const u = process.cpuUsage(t.cpu); return { cpu: (u.user + u.system) / 1000, wall: Number(process.hrtime.bigint() - t.wall) / 1e6 }; };
  const peers = [];
  if (wantPeers) {
    const p = require('./peers.js'), { gemmCase, inputs } = require('./cases.js');
    for (const peer of [await p.tfjs(), await p.ort()]) {
      const runs = [];
      peers.push({ name: peer.name,
        prepare: async (M, K, N) => {
          const c = gemmCase(M, K, N), d = inputs(c, 12345), run = (await peer.gemm(c, d)).run;
          const err = gemmErr(await run(), d, M, K, N);
          await run();
          return { err, id: runs.push(run) - 1 };
        },
        timed: async (id, n) => { const t = clock(); for (let i = 0; i < n; i++) await runs[id](); return since(t); } });
    }
  }
  return { mods: ms, peers, label: `node ${process.version}`, close: async () => {},
    call: async (mi, fn, ...a) => ms[mi][fn](...a),
    timed: async (mi, fn, ...a) => { const t = clock(), value = ms[mi][fn](...a); return { value, ...since(t) }; } };
}

async function chromiumSide(wantPeers) {
  const bench = require('./browser.js');
  const { gemmCase, inputs } = require('./cases.js');
  const { ortModel } = require('./peers.js');
  const files = {};
  const names = variants.map(([, flags]) => {
    const b = build(flags, true), base = path.basename(b.js, '.js');
    files[`/bk/${base}.js`] = b.js;
    files[`/bk/${base}.wasm`] = b.wasm;
    return { base, global: `BK_${b.hash}` };
  });
  const browser = await bench.launch();
  try {
    /* the gemm graph of /model/MxKxN.onnx with the same weights as the page's inputs() */
    const page = await bench.peerPage(browser, { files, peers: wantPeers, dynamic: (p) => {
      const shape = p.match(/^\/model\/(\d+)x(\d+)x(\d+)\.onnx$/), c = shape && gemmCase(...shape.slice(1).map(Number));
      return c && Buffer.from(ortModel('gemm', c, inputs(c, 12345)));
    } });
    bench.watch(page, (t) => process.stderr.write(t + '\n'));
    for (const n of names) await page.addScriptTag({ url: `/bk/${n.base}.js` });
    await page.addScriptTag({ content: [gemmCase, inputs, gemmErr].map((f) => f.toString()).join('\n') });
    const peerNames = await page.evaluate(async ({ names, wantPeers }) => {
      self.__bk = [];
      for (const n of names)
        self.__bk.push(await self[n.global]({ wasmBinary: new Uint8Array(await (await fetch(`/bk/${n.base}.wasm`)).arrayBuffer()) }));
      if (!wantPeers) return [];
      /* the same work as peers.js's gemm makers: input copied in, output read out */
      self.__peers = [
        { name: `tfjs-backend-wasm ${tf.version_core}`, make: async (c, d) => {
          const w = tf.tensor(d.w, c.dims.w), b = tf.tensor(d.b, c.dims.b);
          return async () => { const y = tf.tidy(() => tf.fused.matMul({ a: tf.tensor(d.x, c.dims.x), b: w, bias: b })); const o = y.dataSync(); y.dispose(); return o; };
        } },
        { name: `onnxruntime-web ${ort.env.versions.web || ort.env.versions.common}`, make: async (c, d) => {
          const bytes = new Uint8Array(await (await fetch(`/model/${c.M}x${c.K}x${c.N}.onnx`)).arrayBuffer());
          const session = await ort.InferenceSession.create(bytes, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
          return async () => (await session.run({ x: new ort.Tensor('float32', d.x, c.dims.x) })).out.data;
        } }];
      return self.__peers.map((p) => p.name);
    }, { names, wantPeers });
    const cpu = await bench.cpuClock(page);
    const timed = async (body, arg) => {
      const c0 = await cpu(), r = await page.evaluate(body, arg), c1 = await cpu();
      return { ...r, cpu: c1 - c0 };
    };
    const peers = peerNames.map((name, pi) => ({ name,
      prepare: (M, K, N) => page.evaluate(async ([pi, M, K, N]) => {
        const c = gemmCase(M, K, N), d = inputs(c, 12345);
        const run = await self.__peers[pi].make(c, d), err = gemmErr(await run(), d, M, K, N);
        await run();
        return { err, id: (self.__runs = self.__runs || []).push(run) - 1 };
      }, [pi, M, K, N]),
      timed: (id, n) => timed(async ([id, n]) => {
        const run = self.__runs[id], t0 = performance.now();
        for (let i = 0; i < n; i++) await run();
        return { wall: performance.now() - t0 };
      }, [id, n]) }));
    return { mods: names, peers, label: `chromium ${browser.version()}`, close: () => browser.close(),
      call: (mi, fn, ...a) => page.evaluate(([mi, fn, a]) => self.__bk[mi][fn](...a), [mi, fn, a]),
      timed: (mi, fn, ...a) => timed(([mi, fn, a]) => {
        const t0 = performance.now(), value = self.__bk[mi][fn](...a);
        return { value, wall: performance.now() - t0 };
      }, [mi, fn, a]) };
  } catch (e) {
    await browser.close();
    throw e;
  }
}

const loadavg = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');
const f = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '-');

async function main() {
  relaxedRestart(__filename, args);
  const side = await (has('--chromium') ? chromiumSide : nodeSide)(has('--peers') && !has('--micro'));
  const load0 = loadavg();
  try {
    if (has('--micro')) await micro(side, load0);
    else await products(side, load0);
  } finally {
    await side.close();
  }
}

async function products(side, load0) {
  const builds = has('--simd-only') ? [['SIMD', 0]] : has('--simd') ? [['FMA', 1], ['SIMD', 0]] : [['FMA', 1]];
  const cases = [], peerCases = [];
  for (const [M, K, N] of shapes) {
    for (const dt of dtypes)
      for (const [bname, fma] of builds)
        variants.forEach(([name], mi) => cases.push({ M, K, N, dt, bname, fma, name, mi, samples: [], copies: [] }));
    side.peers.forEach((p, pi) => peerCases.push({ M, K, N, pi, name: p.name, samples: [] }));
  }
  /* calls per sample: about 1.2e9 multiply-adds (the peers the same count) */
  const reps = (c) => Math.max(1, Math.round(1.2e9 / (c.M * c.K * c.N)));
  /* each case: setup, check 64 outputs against a double reference, warm up, then one sample
     per round, cases interleaved round by round (the peers' after the engine's) */
  for (let r = 0; r < runs; r++) {
    for (const c of cases) {
      if (await side.call(c.mi, '_bk_setup', c.M, c.K, c.N, DT[c.dt], c.dt === 'f32t' ? 1 : 0, c.fma)) throw new Error('out of wasm memory');
      await side.call(c.mi, '_bk_run', 1);
      if (r === 0) {
        let err = 0;
        for (let i = 0; i < 64; i++) {
          const row = (i * 37) % c.M, col = (i * 1031) % c.N, want = await side.call(c.mi, '_bk_ref', row, col);
          err = Math.max(err, Math.abs(await side.call(c.mi, '_bk_out', row, col) - want) / Math.max(1, Math.abs(want)));
        }
        if (!(err < 1e-5)) throw new Error(`${c.name} ${c.dt}: max rel. error ${err} against the double reference`);
        await side.call(c.mi, '_bk_run', 1);
      }
      const n = reps(c), t = await side.timed(c.mi, '_bk_run', n);
      c.samples.push({ cpu: t.cpu / n, wall: t.wall / n });
      if (c.M <= 8 && c.fma) {   /* a memcpy of B's bytes, same module, same round */
        const nc = Math.max(4, n >> 2), k = await side.timed(c.mi, '_bk_copy', nc);
        if (!k.value) throw new Error('out of wasm memory for the copy');
        c.bytes = k.value;
        c.copies.push(k.cpu / nc);
      }
    }
    for (const c of peerCases) {
      if (r === 0) {
        const { err, id } = await side.peers[c.pi].prepare(c.M, c.K, c.N);
        if (!(err < PEER_TOL)) throw new Error(`${c.name} ${c.M}x${c.K}x${c.N}: max rel. error ${err} against the double reference`);
        c.id = id;
      }
      const n = reps(c), t = await side.peers[c.pi].timed(c.id, n);
      c.samples.push({ cpu: t.cpu / n, wall: t.wall / n });
    }
  }
  const cpuMs = (c) => median(c.samples.map((s) => s.cpu));
  const best = (M, K, N) => Math.min(...peerCases.filter((p) => p.M === M && p.K === K && p.N === N).map(cpuMs));
  console.log(`${side.label}, ${os.cpus()[0].model}, loadavg ${load0} at the start, ${loadavg()} at the end; limit ${LIMIT.toFixed(1)} GFLOPS (128-bit FMA, one core)`);
  console.log('| shape (M,K,N) | B dtype | build | variant | median ms (CPU) | median ms (wall) | GFLOPS (CPU) | min-max GFLOPS | of limit | best peer / this | B GB/s (copy GB/s) |');
  console.log('|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|');
  const row = (c, dt, bname, name) => {
    const g = (ms) => (2 * c.M * c.K * c.N / (ms * 1e6)), ms = cpuMs(c), cpus = c.samples.map((s) => s.cpu);
    const bw = c.copies && c.copies.length ? `${f(c.bytes / ms / 1e6)} (${f(c.bytes / median(c.copies) / 1e6)})` : '-';
    console.log(`| ${c.M}x${c.K}x${c.N} | ${dt} | ${bname} | ${name} | ${f(ms, 3)} | ${f(median(c.samples.map((s) => s.wall)), 3)} | ${f(g(ms))} | ${f(g(Math.max(...cpus)))}-${f(g(Math.min(...cpus)))} | ${f(100 * g(ms) / LIMIT, 0)}% | ${peerCases.length ? f(best(c.M, c.K, c.N) / ms, 2) + 'x' : '-'} | ${bw} |`);
  };
  for (const c of cases) row(c, c.dt, c.bname, c.name);
  for (const c of peerCases) row(c, 'f32', c.name, '-');
}

/* --micro: the micro-kernel alone (operands in L1), GFLOPS per variant, FMA and not */
async function micro(side, load0) {
  const rows = [];
  variants.forEach(([name], mi) => { for (const fused of [1, 0]) rows.push({ name, mi, fused, samples: [] }); });
  for (let r = 0; r < runs; r++)
    for (const row of rows) {
      const reps = 20000, t = await side.timed(row.mi, '_bk_micro', reps, row.fused);
      row.flops = 2 * t.value * reps;
      row.samples.push(t.cpu);
      (row.walls = row.walls || []).push(t.wall);
    }
  console.log(`${side.label}, loadavg ${load0} at the start, ${loadavg()} at the end; limit ${LIMIT.toFixed(1)} GFLOPS (128-bit FMA, one core)`);
  console.log('| variant | build | median GFLOPS (CPU) | best GFLOPS | median GFLOPS (wall) | of limit |');
  console.log('|---|---|---:|---:|---:|---:|');
  for (const row of rows) {
    const g = row.flops / median(row.samples) / 1e6;
    console.log(`| ${row.name} | ${row.fused ? 'FMA' : 'SIMD'} | ${f(g)} | ${f(row.flops / Math.min(...row.samples) / 1e6)} | ${f(row.flops / median(row.walls) / 1e6)} | ${f(100 * g / LIMIT, 0)}% |`);
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
