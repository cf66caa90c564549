#!/usr/bin/env node
/* kernels.js - GFLOPS of the GEMM kernel (src/matmul.c) alone in wasm: F32, F16 and BF16 B, the
   FMA and the SIMD build, on issue 23's shapes, optionally beside tfjs-backend-wasm and
   onnxruntime-web (one thread, F32) in the same run. The engine's sources plus
   bench_kernels.c are compiled with the wasm build's flags (-O3 -msimd128 -mrelaxed-simd
   -DBL_FMA, then tools/relax.js); --variant 'NAME=-DFLAG ...' adds builds with other flags,
   timed interleaved with the default one (for A/B of kernel parameters).

   usage: node tools/bench/kernels.js [--runs 7] [--peers] [--simd] [--micro]
            [--dtypes f32,f32t,f16,bf16] [--shapes 128x768x3072,64x896x4864]
            [--variant 'name=-DFLAG ...'] [--variant 'name=@DIR'] ...
     f32t      F32 B given transposed (N, K), as F16 and BF16 always are (a checkpoint's layout)
     --simd    also the SIMD build (the same module with FMA off); --simd-only: only it
     --micro   the micro-kernels alone, operands in L1
     @DIR      the engine sources of another checkout (e.g. a worktree of main): before/after
   Node 20 restarts itself with --experimental-wasm-relaxed-simd. Prints a markdown table of
   median GFLOPS (2MKN / the process's CPU time, steadier than wall time on
   the shared host) per case; read ratios within one run, the host is shared. */
'use strict';
const path = require('node:path');
const { options, relaxedRestart, build: emcc, median } = require('./emcc.js');

const { args, opt, runs } = options();
const dtypes = opt('--dtypes', 'f32,f32t,f16,bf16').split(',');
const shapes = opt('--shapes', '128x768x3072,64x896x4864').split(',').map((s) => s.split('x').map(Number));
const variants = [['main', '']];
args.forEach((a, i) => { if (a === '--variant') { const v = args[i + 1]; variants.push([v.slice(0, v.indexOf('=')), v.slice(v.indexOf('=') + 1)]); } });
const DT = { f32: 0, f32t: 0, f16: 1, bf16: 2 };   /* f32t: F32 given transposed (N, K) */
const EXPORTS = ['_bk_setup', '_bk_run', '_bk_ref', '_bk_out', '_bk_micro'];

/* spec: '-DFLAG ...' (this tree) or '@DIR -DFLAG ...' (another checkout) */
function build(spec, web = false) {
  const tree = spec.startsWith('@') ? path.resolve(spec.slice(1).split(/\s+/)[0]) : undefined;
  const flags = spec.startsWith('@') ? spec.slice(1).split(/\s+/).slice(1).join(' ') : spec;
  return emcc({ tree, flags, web, bench: 'bench_kernels.c', replaced: path.join('src', 'matmul.c'), define: 'BL_BENCH_MATMUL',
    hashed: [path.join('src', 'kernel_simd.h')], prefix: 'kernels', exportName: (h) => (web ? `BK_${h}` : 'BK'), exports: EXPORTS });
}
const load = (spec) => { const b = build(spec); return require(b.js)({ wasmBinary: require('node:fs').readFileSync(b.wasm) }); };


async function main() {
  relaxedRestart(__filename, args);
  const mods = [];
  if (args.includes('--micro')) return micro();
  for (const [name, flags] of variants) mods.push({ name, m: await load(flags) });
  const builds = args.includes('--simd-only') ? [['SIMD', 0]] : args.includes('--simd') ? [['FMA', 1], ['SIMD', 0]] : [['FMA', 1]];
  const peers = args.includes('--peers') ? await loadPeers() : [];
  const cases = [];
  for (const [M, K, N] of shapes)
    for (const dt of dtypes)
      for (const [bname, fma] of builds)
        for (const { name, m } of mods) cases.push({ M, K, N, dt, bname, fma, name, m, samples: [] });
  /* each case: setup, check 64 outputs against a double reference, warm up, then one sample
     per round, cases interleaved round by round */
  const reps = (c) => Math.max(1, Math.round(1.2e9 / (c.M * c.K * c.N)));
  for (let r = 0; r < runs; r++)
    for (const c of cases) {
      const m = c.m;
      if (m._bk_setup(c.M, c.K, c.N, DT[c.dt], c.dt === 'f32t' ? 1 : 0, c.fma)) throw new Error('out of wasm memory');
      m._bk_run(1);
      if (r === 0) {
        let err = 0;
        for (let i = 0; i < 64; i++) {
          const row = (i * 37) % c.M, col = (i * 1031) % c.N, want = m._bk_ref(row, col);
          err = Math.max(err, Math.abs(m._bk_out(row, col) - want) / Math.max(1, Math.abs(want)));
        }
        if (!(err < 1e-5)) throw new Error(`${c.name} ${c.dt}: max rel. error ${err} against the double reference`);
        m._bk_run(1);
      }
      const n = reps(c), t0 = process.cpuUsage();
      m._bk_run(n);
      const t = process.cpuUsage(t0);
      c.samples.push((t.user + t.system) / 1000 / n);
    }
  const peerRows = [];
  for (const [M, K, N] of shapes) for (const p of peers) peerRows.push({ M, K, N, ...(await p.time(M, K, N)) });
  console.log('| shape (M,K,N) | B dtype | build | variant | median ms | GFLOPS | min-max GFLOPS |');
  console.log('|---|---|---|---|---:|---:|---:|');
  for (const c of cases) {
    const g = (ms) => (2 * c.M * c.K * c.N / (ms * 1e6));
    console.log(`| ${c.M}x${c.K}x${c.N} | ${c.dt} | ${c.bname} | ${c.name} | ${median(c.samples).toFixed(2)} | ${g(median(c.samples)).toFixed(1)} | ${g(Math.max(...c.samples)).toFixed(1)}-${g(Math.min(...c.samples)).toFixed(1)} |`);
  }
  for (const p of peerRows)
    console.log(`| ${p.M}x${p.K}x${p.N} | f32 | ${p.name} | - | ${p.ms.toFixed(2)} | ${(2 * p.M * p.K * p.N / (p.ms * 1e6)).toFixed(1)} | - |`);
}

/* --micro: the micro-kernel alone (operands in L1), GFLOPS per variant, FMA and not */
async function micro() {
  const mods = [];
  for (const [name, flags] of variants) mods.push({ name, m: await load(flags) });
  const rows = [];
  for (const { name, m } of mods) for (const fused of [1, 0]) rows.push({ name, m, fused, samples: [] });
  for (let r = 0; r < runs; r++)
    for (const row of rows) {
      const reps = 20000, t0 = process.cpuUsage();
      const macs = row.m._bk_micro(reps, row.fused), t = process.cpuUsage(t0);
      row.flops = 2 * macs * reps;
      row.samples.push((t.user + t.system) / 1000);
    }
  console.log('| variant | build | median GFLOPS | best GFLOPS |');
  console.log('|---|---|---:|---:|');
  for (const row of rows)
    console.log(`| ${row.name} | ${row.fused ? 'FMA' : 'SIMD'} | ${(row.flops / median(row.samples) / 1e6).toFixed(1)} | ${(row.flops / Math.min(...row.samples) / 1e6).toFixed(1)} |`);
}

/* the peers through tools/bench/peers.js (F32, weights resident, input copied in, output out) */
async function loadPeers() {
  const peers = require('./peers.js'), { gemmCase, inputs } = require('./cases.js');
  const list = [await peers.tfjs(), await peers.ort()];
  return list.map((p) => ({ time: async (M, K, N) => {
    const c = gemmCase(M, K, N), run = (await p.gemm(c, inputs(c, 12345))).run, s = [];
    await run(); await run();
    for (let r = 0; r < runs; r++) { const t0 = process.cpuUsage(); await run(); const t = process.cpuUsage(t0); s.push((t.user + t.system) / 1000); }
    return { name: p.name, ms: median(s) };
  } }));
}

main().catch((e) => { console.error(e); process.exit(1); });
