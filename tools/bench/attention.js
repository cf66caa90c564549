#!/usr/bin/env node
/* attention.js - GFLOPS of llama.c's causal attention core (attend(): q k^T, softmax, weights v)
   alone in wasm, on GQA shapes and on multi-head attention with the same FLOPs (H = KVH), FMA
   and SIMD builds, this tree beside other checkouts (--before DIR: e.g. a worktree of main),
   cases interleaved round by round. Built like tools/bench/kernels.js (the engine's sources
   with the wasm build's flags, then tools/relax.js), with bench_attention.c including the
   tree's src/llama.c. Also checks each case against a double reference and prints concat's
   hash: equal hashes across trees and builds mean bit-identical results.

   usage: node tools/bench/attention.js [--runs 7] [--before DIR] [--tree 'NAME=DIR -DFLAG'] [--L 64,256]
     --chromium   run the cases in Debian's Chromium instead (wall time)
   Node 20 restarts itself with --experimental-wasm-relaxed-simd. GFLOPS = flops / the
   process's CPU time (median of the runs). */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const { execFileSync, spawnSync } = require('node:child_process');

const root = path.join(__dirname, '..', '..');
const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const RELAXED = '--experimental-wasm-relaxed-simd';
const runs = Number(opt('--runs', 7));
const Ls = opt('--L', '64,256').split(',').map(Number);
const trees = [['after', root]];
if (opt('--before')) trees.unshift(['before', path.resolve(opt('--before'))]);
/* --tree 'NAME=DIR -DFLAG ...': another checkout and/or flags */
args.forEach((a, i) => {
  if (a !== '--tree') return;
  const t = args[i + 1], [dir, ...flags] = t.slice(t.indexOf('=') + 1).split(/\s+/);
  trees.push([t.slice(0, t.indexOf('=')), path.resolve(dir), flags.join(' ')]);
});
/* name, q heads, kv heads, head_dim */
const MODELS = [['SmolLM2-135M', 9, 3, 64], ['Qwen2.5-0.5B', 14, 2, 64], ['Llama-3.2-1B', 32, 8, 64]];

function build(tree, flags = '', web = false) {
  const cmake = fs.readFileSync(path.join(tree, 'CMakeLists.txt'), 'utf8');
  const sources = cmake.match(/set\(BL_SOURCES([^)]*)\)/)[1].trim().split(/\s+/).map((s) => path.join(tree, s));
  const llama = path.join(tree, 'src', 'llama.c');
  const files = [...sources.filter((f) => f !== llama), path.join(__dirname, 'bench_attention.c')];
  const hash = crypto.createHash('sha1').update(flags + (web ? 'web' : '') + [...files, llama, path.join(tree, 'src', 'bl_internal.h')].map((f) => fs.readFileSync(f)).join('')).digest('hex').slice(0, 10);
  const dir = path.join(root, 'build', 'bench'), js = path.join(dir, `attention-${hash}${web ? '-web' : ''}.js`), wasm = js.replace(/\.js$/, '.wasm');
  if (!fs.existsSync(js)) {
    fs.mkdirSync(dir, { recursive: true });
    execFileSync('emcc', ['-O3', '-msimd128', '-mrelaxed-simd', '-DBL_FMA', ...flags.split(/\s+/).filter(Boolean),
      '-I', path.join(tree, 'include'), '-I', path.join(tree, 'src'), `-DBL_BENCH_LLAMA="${llama}"`,
      ...files, '-o', js,
      '-sMODULARIZE=1', `-sEXPORT_NAME=BA_${hash}`, '-sALLOW_MEMORY_GROWTH=1', '-sMAXIMUM_MEMORY=4294967296',
      `-sENVIRONMENT=${web ? 'web' : 'node'}`, '-sFILESYSTEM=0',
      '-sEXPORTED_FUNCTIONS=_ba_setup,_ba_run,_ba_flops,_ba_hash,_ba_err'],
    { env: { ...process.env, NODE_PATH: '/usr/share/nodejs' }, stdio: 'inherit' });
    execFileSync(process.execPath, [path.join(root, 'tools', 'relax.js'), wasm, wasm], { stdio: 'ignore' });
  }
  if (web) return { name: `BA_${hash}`, js: fs.readFileSync(js, 'utf8'), wasm: fs.readFileSync(wasm).toString('base64') };
  return require(js)({ wasmBinary: fs.readFileSync(wasm) });
}

const median = (a) => { const b = [...a].sort((x, y) => x - y); return b[b.length >> 1]; };

async function main() {
  if (!WebAssembly.validate(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 6, 1, 96, 1, 123, 1, 123, 3, 2, 1, 0, 10, 13,
    1, 11, 0, 32, 0, 32, 0, 32, 0, 253, 133, 2, 11]))) {
    if (process.execArgv.includes(RELAXED)) throw new Error('relaxed SIMD does not validate');
    const r = spawnSync(process.execPath, [RELAXED, ...process.execArgv, __filename, ...args], { stdio: 'inherit' });
    process.exit(r.status === null ? 1 : r.status);
  }
  if (args.includes('--chromium')) return chromium();
  const mods = [];
  for (const [name, tree, flags] of trees) mods.push({ name, m: await build(tree, flags) });
  const cases = [];
  for (const L of Ls)
    for (const [model, H, KVH, hd] of MODELS)
      for (const [kind, kvh] of [['GQA', KVH], ['MHA', H]])
        for (const [bname, fma] of [['FMA', 1], ['SIMD', 0]])
          for (const { name, m } of mods) cases.push({ L, model, H, KVH: kvh, hd, kind, bname, fma, name, m, samples: [] });
  for (let r = 0; r < runs; r++)
    for (const c of cases) {
      const m = c.m;
      if (m._ba_setup(c.L, c.H, c.KVH, c.hd, c.fma)) throw new Error('out of wasm memory');
      c.flops = m._ba_flops();
      const reps = Math.max(1, Math.round(4e8 / c.flops));
      m._ba_run(1);
      if (r === 0) {
        let err = 0;
        for (let i = 0; i < 16; i++) err = Math.max(err, m._ba_err((i * 37) % c.L, (i * 5) % c.H, (i * 11) % c.hd));
        if (!(err < 1e-5)) throw new Error(`${c.name} ${c.model} ${c.kind}: max error ${err} against the double reference`);
        c.hash = (m._ba_hash() >>> 0).toString(16);
      }
      const t0 = process.cpuUsage(), w0 = process.hrtime.bigint();
      m._ba_run(reps);
      const t = process.cpuUsage(t0), w = Number(process.hrtime.bigint() - w0) / 1e6;
      c.samples.push({ cpu: (t.user + t.system) / 1000 / reps, wall: w / reps });
    }
  console.log(`node ${process.version}, loadavg ${require('node:os').loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  console.log('| L | shape | heads q/kv | build | tree | median ms (CPU) | median ms (wall) | GFLOPS (CPU) | concat hash |');
  console.log('|---:|---|---|---|---|---:|---:|---:|---|');
  for (const c of cases) {
    const cpu = median(c.samples.map((s) => s.cpu)), wall = median(c.samples.map((s) => s.wall));
    console.log(`| ${c.L} | ${c.model} ${c.kind} | ${c.H}/${c.KVH} | ${c.bname} | ${c.name} | ${cpu.toFixed(3)} | ${wall.toFixed(3)} | ${(c.flops / (cpu * 1e6)).toFixed(1)} | ${c.hash} |`);
  }
}

/* --chromium: the same cases in Debian's Chromium (tools/bench/browser.js), wall time from
   performance.now() (a page has no CPU clock), medians */
async function chromium() {
  const { launch } = require('./browser.js');
  const browser = await launch(), page = await browser.newPage();
  try {
    const mods = [];
    for (const [name, tree, flags] of trees) {
      const b = build(tree, flags, true);
      await page.addScriptTag({ content: b.js });
      mods.push({ name, global: b.name, wasm: b.wasm });
    }
    const cases = [];
    for (const L of Ls)
      for (const [model, H, KVH, hd] of MODELS)
        for (const [kind, kvh] of [['GQA', KVH], ['MHA', H]])
          for (const [bname, fma] of [['FMA', 1], ['SIMD', 0]])
            mods.forEach((m, mi) => cases.push({ L, model, H, KVH: kvh, hd, kind, bname, fma, name: m.name, mi }));
    const res = await page.evaluate(async ({ mods, cases, runs }) => {
      const ms = [];
      for (const m of mods) ms.push(await self[m.global]({ wasmBinary: Uint8Array.from(atob(m.wasm), (c) => c.charCodeAt(0)) }));
      const out = cases.map(() => ({ samples: [] }));
      for (let r = 0; r < runs; r++)
        cases.forEach((c, i) => {
          const m = ms[c.mi];
          if (m._ba_setup(c.L, c.H, c.KVH, c.hd, c.fma)) throw new Error('out of wasm memory');
          const flops = m._ba_flops(), reps = Math.max(1, Math.round(4e8 / flops));
          m._ba_run(1);
          if (r === 0) {
            let err = 0;
            for (let j = 0; j < 16; j++) err = Math.max(err, m._ba_err((j * 37) % c.L, (j * 5) % c.H, (j * 11) % c.hd));
            out[i].err = err;
            out[i].hash = (m._ba_hash() >>> 0).toString(16);
          }
          const t0 = performance.now();
          m._ba_run(reps);
          out[i].samples.push((performance.now() - t0) / reps);
          out[i].flops = flops;
        });
      return out;
    }, { mods, cases, runs });
    console.log(`chromium ${browser.version()}, loadavg ${require('node:os').loadavg().map((x) => x.toFixed(2)).join(' ')}`);
    console.log('| L | shape | heads q/kv | build | tree | median ms (wall) | GFLOPS (wall) | concat hash |');
    console.log('|---:|---|---|---|---|---:|---:|---|');
    cases.forEach((c, i) => {
      const r = res[i], w = median(r.samples);
      if (!(r.err < 1e-5)) throw new Error(`${c.name} ${c.model} ${c.kind}: max error ${r.err} against the double reference`);
      console.log(`| ${c.L} | ${c.model} ${c.kind} | ${c.H}/${c.KVH} | ${c.bname} | ${c.name} | ${w.toFixed(3)} | ${(r.flops / (w * 1e6)).toFixed(1)} | ${r.hash} |`);
    });
  } finally {
    await browser.close();
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
