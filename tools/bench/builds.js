#!/usr/bin/env node
/* tools/bench/builds.js - the small calls of two engine builds side by side: ffn (7, 8, 32) and
   attention (7 tokens, d 8, 2 heads) through the public API, fresh and with `into`, each build in
   its own process, the two in turn (A B, then B A), and the ratio taken pair by pair (this host
   is shared and noisy: a ratio of neighbours moves less than either time).
   Usage: node tools/bench/builds.js OLD/blocklens.js NEW/blocklens.js [--pairs 14] [--calls 40000]
   [--fma] (a child is started per sample; `taskset -c 1 node ...` keeps every child on one core;
   --fma loads the FMA build: Node 22, or Node 20 with --experimental-wasm-relaxed-simd). Wall
   and CPU time (process.cpuUsage) per call: CPU time shows what the host's other load adds. */
'use strict';
const { execFileSync } = require('child_process');
const path = require('path');

// In a child: per-call microseconds of each case, median of 7 batches after a warm-up.
async function child(file, N, fma) {
  const bl = await require(path.resolve(file)).load({ fma });
  const rnd = (n, s) => Float32Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32 - 0.5;
  });
  const L = 7, D = 8, F = 32;
  const ffn = { L, dModel: D, dFF: F, x: rnd(L * D, 1), W1: rnd(D * F, 2), b1: rnd(F, 3), W2: rnd(F * D, 4),
    b2: rnd(D, 5), activation: 'gelu' };
  const att = { L, dModel: D, nHeads: 2, x: rnd(L * D, 6), Wq: rnd(D * D, 7), bq: rnd(D, 8), Wk: rnd(D * D, 9),
    bk: rnd(D, 10), Wv: rnd(D * D, 11), bv: rnd(D, 12), Wo: rnd(D * D, 13), bo: rnd(D, 14), causal: true };
  const fi = bl.ffn(ffn), ai = bl.attention(att);
  const cases = { ffn: () => bl.ffn(ffn), attention: () => bl.attention(att),
    ffn_into: () => bl.ffn(ffn, fi), attention_into: () => bl.attention(att, ai) };
  const samples = {}, cpu = {};
  for (const k in cases) { for (let i = 0; i < N / 4; i++) cases[k](); samples[k] = []; cpu[k] = []; }
  for (let b = 0; b < 7; b++) {
    for (const k in cases) {
      const f = cases[k], t0 = performance.now(), c0 = process.cpuUsage();
      for (let i = 0; i < N / 7; i++) f();
      const c = process.cpuUsage(c0);
      samples[k].push((performance.now() - t0) * 1000 / (N / 7));
      cpu[k].push((c.user + c.system) / (N / 7));
    }
  }
  const med = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
  const out = {};
  for (const k in cases) { out[k] = med(samples[k]); out[`${k} cpu`] = med(cpu[k]); }
  process.stdout.write(JSON.stringify(out));
}

function main(argv) {
  const files = argv.filter((a, i) => !a.startsWith('--') && !['--pairs', '--calls'].includes(argv[i - 1]));
  const opt = (name, def) => { const i = argv.indexOf(name); return i < 0 ? def : Number(argv[i + 1]); };
  const pairs = opt('--pairs', 14), calls = opt('--calls', 40000), fma = argv.includes('--fma');
  if (files.length !== 2 || !(pairs >= 1) || !(calls >= 7)) {
    console.error('usage: node tools/bench/builds.js OLD/blocklens.js NEW/blocklens.js [--pairs N] [--calls N] [--fma]');
    return 2;
  }
  const run = (file) => JSON.parse(execFileSync(process.execPath,
    [...process.execArgv, __filename, '--child', file, String(calls), fma ? 'fma' : '']));
  const a = [], b = [];
  // A B, then B A: the second child of a pair ran slower on a loaded host (B / A 1.25 for two
  // builds that ABBA shows equal), so the order alternates
  for (let i = 0; i < pairs; i++) {
    if (i % 2 === 0) { a.push(run(files[0])); b.push(run(files[1])); } else { b.push(run(files[1])); a.push(run(files[0])); }
  }
  const med = (v) => v.slice().sort((x, y) => x - y)[v.length >> 1];
  console.log(`${pairs} pairs, ${calls} calls a case${fma ? ', FMA build' : ''}; microseconds a call (medians; "cpu": CPU time), and B / A pair by pair`);
  console.log('case                A       B      B/A (min - max)');
  for (const k of Object.keys(a[0])) {
    const r = a.map((x, i) => b[i][k] / x[k]);
    console.log(k.padEnd(19), med(a.map((x) => x[k])).toFixed(2).padStart(6), med(b.map((x) => x[k])).toFixed(2).padStart(7),
      med(r).toFixed(3).padStart(8), `(${Math.min(...r).toFixed(2)} - ${Math.max(...r).toFixed(2)})`);
  }
  return 0;
}

if (process.argv[2] === '--child') child(process.argv[3], Number(process.argv[4]), process.argv[5] === 'fma');
else process.exitCode = main(process.argv.slice(2));
