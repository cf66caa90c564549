#!/usr/bin/env node
/* run.js - the benchmark of issue 5: BlockLens (wasm SIMD, wasm FMA, wasm scalar, native C) side by side
   with tfjs-backend-wasm (XNNPACK) and onnxruntime-web (wasm), both on one thread, plus plain
   JS loops as the floor. Every peer's output is checked against the engine's before it is
   timed. Writes tools/bench/REPORT.md.

   usage:  bash tools/build && node tools/bench/run.js [--quick] [--out FILE]
     --quick   the small shapes and the 128-row shapes only (about a minute)
   Large shapes: one call per sample, weights resident in every implementation (engine heap,
   tf tensors, ONNX initialisers), the input copied in and the output read back.
   Small shapes: through the public JS API (engine.ffn / engine.attention: argument checks and
   copies both ways included), per-call time from batches of calls after ~0.5 s of warm-up.
   Medians of >= 5 samples, interleaved across implementations; the machine is shared and
   noisy, so compare ratios, not absolute times. */
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync, spawnSync } = require('node:child_process');
const peers = require('./peers.js');

const root = path.join(__dirname, '..', '..');
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const outFile = args.includes('--out') ? args[args.indexOf('--out') + 1] : path.join(__dirname, 'REPORT.md');

const { SMALL, LARGE: ALL_LARGE, inputs } = require('./cases.js');
const LARGE = ALL_LARGE.filter((c) => !quick || c.shape[0] === 128);

/* ---- timing ---------------------------------------------------------------------------- */
const median = (a) => { const b = [...a].sort((x, y) => x - y); return b[b.length >> 1]; };

/* A peer's promise is awaited; the engine's synchronous API returns its result directly. */
const isThenable = (r) => r !== null && typeof r === 'object' && typeof r.then === 'function';

/* Calls per sample: 1 for the large shapes; for the small ones enough calls to last ~30 ms,
   after warming up for ~0.5 s (the JS wrapper must reach V8's optimising tier too). */
async function calibrate(run, small) {
  if (!small) return 1;
  let calls = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < 500 || calls < 1000) { const r = run(); if (isThenable(r)) await r; calls++; }
  const per = (performance.now() - t0) / calls;
  return Math.max(1, Math.min(50000, Math.ceil(30 / per)));
}

async function sample(run, inner) {
  const t0 = performance.now();
  for (let i = 0; i < inner; i++) { const r = run(); if (isThenable(r)) await r; }
  return (performance.now() - t0) / inner;
}

function maxRelDiff(got, want) {
  if (!got || got.length !== want.length) return Infinity;
  let diff = 0, ref = 1;
  for (let i = 0; i < want.length; i++) {
    diff = Math.max(diff, Math.abs(got[i] - want[i]));
    if (!(Math.abs(got[i] - want[i]) <= diff)) diff = Infinity;   /* NaN */
    ref = Math.max(ref, Math.abs(want[i]));
  }
  return diff / ref;
}
const TOLERANCE = 2e-3;   /* max |diff| / max(1, max |engine|): summation order, erf fits */

/* ---- native: the same C through tools/bench/bench_native.c ---------------------------- */
function buildNative() {
  const exe = path.join(root, 'build', 'bench', 'bench_native');
  fs.mkdirSync(path.dirname(exe), { recursive: true });
  const cmake = fs.readFileSync(path.join(root, 'CMakeLists.txt'), 'utf8');
  const sources = cmake.match(/set\(BL_SOURCES([^)]*)\)/)[1].trim().split(/\s+/);
  /* the flags of the native Release build (CMake's -O3 -DNDEBUG, no -march) */
  const files = sources.map((s) => path.join(root, s));
  execFileSync('cc', ['-O3', '-DNDEBUG', '-std=gnu11', '-I', path.join(root, 'include'),
    ...files, path.join(__dirname, 'bench_native.c'), '-lm', '-o', exe]);
  return { exe, sources: files };
}
/* The same bench binary linked with OpenBLAS (Debian's libopenblas-dev), for its GEMM and FFN
   rows; null (and a note) where it is not installed. */
const OPENBLAS_INC = '/usr/include/x86_64-linux-gnu/openblas-pthread';
function buildOpenblas(sources) {
  if (!fs.existsSync(path.join(OPENBLAS_INC, 'cblas.h'))) {
    process.stderr.write('OpenBLAS rows left out: apt-get install libopenblas-dev to add them\n');
    return null;
  }
  const exe = path.join(root, 'build', 'bench', 'bench_openblas');
  execFileSync('cc', ['-O3', '-DNDEBUG', '-std=gnu11', '-DBL_BENCH_OPENBLAS', '-I', path.join(root, 'include'),
    '-I', OPENBLAS_INC, ...sources, path.join(__dirname, 'bench_native.c'), '-lopenblas', '-lm', '-o', exe]);
  return exe;
}
function openblasVersion() {
  try { return execFileSync('dpkg-query', ['-W', '-f=${Version}', 'libopenblas0-pthread'], { encoding: 'utf8' }).replace(/[+-].*/, ''); }
  catch (e) { return ''; }
}

function native(exe, c, runs, reps, op = c.op) {
  const out = execFileSync(exe, [op, ...c.shape.map(String), String(runs), String(reps)],
    { encoding: 'utf8', env: { ...process.env, OPENBLAS_NUM_THREADS: '1' } });
  const ms = JSON.parse(out).ms;
  return { ms: median(ms), samples: ms };
}

/* ---- one case -------------------------------------------------------------------------- */
async function measure(c, impls, nativeExe, small, blasExe) {
  const d = inputs(c, 12345), rows = [], live = [];
  let ref = null;
  for (const impl of impls) {
    const maker = impl.api[c.op];
    if (!maker) continue;
    const runner = await maker(c, d);
    const out = await runner.run();   /* also the first warm-up call */
    const row = { name: impl.name, kind: impl.kind, samples: [] };
    if (!ref) { ref = out; row.diff = 0; } else row.diff = maxRelDiff(out, ref);
    rows.push(row);
    if (!(row.diff <= TOLERANCE)) {
      row.failed = true;
      process.stderr.write(`  ${impl.name}: output differs from the engine's (${row.diff.toExponential(2)}), not timed\n`);
      continue;
    }
    if (!small && impl.kind !== 'floor') await runner.run();
    live.push({ row, run: runner.run, inner: await calibrate(runner.run, small),
      runs: !small && (impl.kind === 'floor' || impl.kind === 'scalar') ? 5 : 7 });
  }
  /* Samples interleaved round by round, so a busy phase of the shared machine hits every
     implementation alike; the plain-JS floor (seconds per call) is timed on its own after. */
  for (let r = 0; r < 7; r++)
    for (const l of live)
      if (l.row.kind !== 'floor' && r < l.runs) l.row.samples.push(await sample(l.run, l.inner));
  for (const l of live)
    if (l.row.kind === 'floor')
      for (let r = 0; r < l.runs; r++) l.row.samples.push(await sample(l.run, l.inner));
  for (const l of live) {
    l.row.ms = median(l.row.samples);
    process.stderr.write(`  ${l.row.name.padEnd(34)} ${fmtTime(l.row.ms).padStart(10)}  ${gflops(c, l.row.ms).toFixed(2).padStart(6)} GFLOPS\n`);
  }
  const nat = native(nativeExe, c, 7, small ? 20000 : 1);
  rows.push({ name: 'BlockLens native C (-O3, SSE2)', kind: 'native', diff: null, ...nat });
  process.stderr.write(`  ${'native'.padEnd(34)} ${fmtTime(nat.ms).padStart(10)}  ${gflops(c, nat.ms).toFixed(2).padStart(6)} GFLOPS\n`);
  if (blasExe && !small && (c.op === 'gemm' || c.op === 'ffn')) {
    const b = native(blasExe, c, 7, 1, 'blas-' + c.op);
    rows.push({ name: `OpenBLAS ${openblasVersion()} native (cblas_sgemm, AVX2 + FMA, 1 thread)`, kind: 'openblas', diff: null, ...b });
    process.stderr.write(`  ${'OpenBLAS'.padEnd(34)} ${fmtTime(b.ms).padStart(10)}  ${gflops(c, b.ms).toFixed(2).padStart(6)} GFLOPS\n`);
  }
  return rows;
}

const gflops = (c, ms) => c.flops / (ms * 1e6);
const fmtTime = (ms) => (ms < 1 ? `${(ms * 1000).toFixed(1)} us` : `${ms.toFixed(1)} ms`);

/* ---- report ---------------------------------------------------------------------------- */
function table(c, rows) {
  const timed = rows.filter((r) => !r.failed);
  const peerRows = timed.filter((r) => r.kind === 'peer');
  const best = peerRows.length ? Math.min(...peerRows.map((r) => r.ms)) : NaN;
  const lines = [`| implementation | median | GFLOPS | speed vs best peer | max rel. diff vs engine |`,
    '|---|---:|---:|---:|---:|'];
  for (const r of rows) {
    if (r.failed) { lines.push(`| ${r.name} | - | - | - | **${r.diff.toExponential(1)} (failed)** |`); continue; }
    lines.push(`| ${r.name} | ${fmtTime(r.ms)} | ${gflops(c, r.ms).toFixed(2)} | ${(best / r.ms).toFixed(2)}x | ${r.kind === 'openblas' ? 'reference, not compared' : r.diff === null ? 'same C' : r.diff.toExponential(1)} |`);
  }
  return { text: lines.join('\n'), best, engine: timed.find((r) => r.kind === 'simd'),
    into: timed.find((r) => r.kind === 'into'), fma: timed.find((r) => r.kind === 'fma') };
}

const RELAXED = '--experimental-wasm-relaxed-simd';

async function main() {
  const BlockLens = require(root);
  /* The FMA build needs relaxed SIMD: on by default from Node 21, behind a flag in Node 20 (which
     later versions reject): run again with the flag only where load() could not pick FMA. */
  if (!(await BlockLens.load()).fma) {
    if (process.execArgv.includes(RELAXED)) throw new Error('relaxed SIMD does not validate even with ' + RELAXED);
    const r = spawnSync(process.execPath, [RELAXED, ...process.execArgv, __filename, ...args], { stdio: 'inherit' });
    process.exit(r.status === null ? 1 : r.status);
  }
  const simd = await BlockLens.load({ fma: false }), scalar = await BlockLens.load({ simd: false });
  const fma = await BlockLens.load({ fma: true });
  if (!simd.simd) throw new Error('this runtime has no wasm SIMD: the engine SIMD build cannot be measured');
  process.stderr.write('building the native bench binary\n');
  const { exe: nativeExe, sources } = buildNative();
  const blasExe = buildOpenblas(sources);
  const tf = await peers.tfjs(), onnx = await peers.ort();
  const start = Date.now(), load0 = os.loadavg();
  const sections = [], summary = [];
  for (const [small, cases] of [[true, SMALL], [false, LARGE]]) {
    const eng = small ? peers.engineApi : peers.engineRaw;
    const how = small ? ' (public JS API, copies included)' : ' (wasm heap, weights resident)';
    const impls = [
      { name: 'BlockLens wasm SIMD' + how, kind: 'simd', api: eng(simd) },
      ...(small ? [{ name: 'BlockLens wasm SIMD (public JS API, previous result passed as into)', kind: 'into',
        api: eng(simd, true) }] : [{ name: 'BlockLens wasm FMA (relaxed SIMD: Chromium\'s default build)' + how,
        kind: 'fma', api: eng(fma) }]),
      { name: 'BlockLens wasm scalar' + how, kind: 'scalar', api: eng(scalar) },
      { name: tf.name + ' (XNNPACK, 1 thread)', kind: 'peer', api: tf },
      { name: onnx.name + ' (wasm, 1 thread)', kind: 'peer', api: onnx },
      { name: 'plain JS loops', kind: 'floor', api: peers.js }];
    for (const c of cases) {
      process.stderr.write(`${c.label}\n`);
      const rows = await measure(c, impls, nativeExe, small, blasExe);
      const t = table(c, rows);
      sections.push(`### ${c.label}\n\n${(c.flops / 1e9).toFixed(c.flops < 1e6 ? 6 : 2)} GFLOP per call${small ? ', timed through the public JS API' : ''}.\n\n${t.text}\n`);
      if (t.engine) summary.push({ c, small, engine: t.engine, best: t.best, note: small ? ', fresh outputs' : ', SIMD build' });
      if (t.into) summary.push({ c, small, engine: t.into, best: t.best, note: ', into' });
      if (t.fma) summary.push({ c, small, engine: t.fma, best: t.best, note: ', FMA build' });
    }
  }
  const minutes = ((Date.now() - start) / 60000).toFixed(1), load1 = os.loadavg();
  const sumLines = ['| shape, engine build or call | engine | GFLOPS | best peer | GFLOPS | engine / best peer | target | status |',
    '|---|---:|---:|---:|---:|---:|---|---|'];
  for (const s of summary) {
    const ratio = s.best / s.engine.ms;
    const target = s.small ? '<= 5 us per call' : '>= 1.4x';
    const ok = s.small ? s.engine.ms <= 0.005 : ratio >= 1.4;
    sumLines.push(`| ${s.c.label}${s.note || ''} | ${fmtTime(s.engine.ms)} | ${gflops(s.c, s.engine.ms).toFixed(2)} | ${fmtTime(s.best)} | ${gflops(s.c, s.best).toFixed(2)} | ${ratio.toFixed(2)}x | ${target} | ${ok ? 'met' : 'not met'} |`);
  }
  const cpu = os.cpus()[0] ? os.cpus()[0].model : 'unknown CPU';
  const md = `# BlockLens benchmark report

Generated by \`node tools/bench/run.js${quick ? ' --quick' : ''}\` (after \`bash tools/build\`) on
${new Date().toISOString().slice(0, 10)}: ${cpu}, ${os.cpus().length} vCPU, Node ${process.version},
${os.platform()} ${os.release()}. Load average ${load0.map((x) => x.toFixed(1)).join(' / ')} at the start,
${load1.map((x) => x.toFixed(1)).join(' / ')} at the end; the run took ${minutes} min.
The machine is shared: read the ratios, not the absolute times.

Method: each peer's output is compared with the engine's (max |diff| / max(1, max |engine out|)
<= ${TOLERANCE}) before it is timed (that call is also the first warm-up); medians of 7 samples
after warm-up (5 for the plain-JS floor and, on the large shapes, the scalar build), taken
round by round across the implementations so that a busy phase of the machine hits all of
them alike (the floor is timed alone afterwards). Large shapes: one call per sample, weights resident in every
implementation (engine heap, tf tensors, ONNX initialisers), input copied in, output read
back; the engine computes only the outputs the call needs (no scores/weights (heads, L, L)
tensors, no pre-activation copy). Small shapes: per-call time from batches of calls; the
engine goes through its public JS API, which is synchronous (argument checks, every input and
output copied; the peers' promises are awaited),
once with fresh output arrays per call and once with the previous result passed as \`into\`
(the outputs copied into the caller's arrays); the peers get a fresh input tensor per call
with resident weights. GFLOPS count the
multiply-adds of the matrix products only (GEMM 2MKN, FFN 4 L d d_ff, attention
8 L d^2 + 4 L^2 d). The FMA build (relaxed-SIMD fused multiply-add in products of >= 2^20
multiply-adds; what Chromium and Node 21+ load by default) ${process.execArgv.includes(RELAXED)
    ? 'runs because run.js restarted Node 20 with \`' + RELAXED + '\`; the peers\' wasm is the same with or without the flag'
    : 'is this Node\'s default build, picked by load() with no flag'}.
Native: the same C compiled with the flags of the native build
(\`-O3\`, no \`-march\`: SSE2, no FMA), run by tools/bench/bench_native.c. OpenBLAS: Debian's
libopenblas0-pthread with OPENBLAS_NUM_THREADS=1 (its own AVX2 + FMA kernels), GEMM and FFN only,
the native ceiling the wasm builds are measured against.

## Summary

${sumLines.join('\n')}

## Per shape

${sections.join('\n')}`;
  fs.writeFileSync(outFile, md);
  process.stderr.write(`wrote ${path.relative(process.cwd(), outFile)} (${minutes} min)\n`);
}

main().catch((e) => { console.error(e); process.exit(1); });
