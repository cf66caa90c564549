#!/usr/bin/env node
/* attention.js - GFLOPS of llama.c's causal attention core (attend(): q k^T, softmax, weights v)
   alone in wasm, on GQA shapes and on multi-head attention with the same FLOPs (H = KVH), FMA
   and SIMD builds, this tree beside other checkouts (--before DIR: e.g. a worktree of main),
   cases interleaved round by round. Built like tools/bench/kernels.js (the engine's sources
   with the wasm build's flags, then tools/relax.js), with bench_attention.c including the
   tree's src/llama.c. Also checks each case against a double reference and prints concat's
   hash: equal hashes across trees and builds mean bit-identical results.

   usage: node tools/bench/attention.js [--runs 7] [--before DIR] [--tree 'NAME=DIR -DFLAG'] [--L 64,256]
     --chromium   run the cases in a page of Debian's Chromium instead (CPU: the renderer's ThreadTime)
     --peers      also tfjs-backend-wasm and onnxruntime-web (one thread, F32) on each shape: causal
                  attention as MatMul-Softmax-MatMul (tools/bench/peers.js), checked like the engine
   Node 20 restarts itself with --experimental-wasm-relaxed-simd. GFLOPS = flops / the
   process's CPU time (median of the runs); the peers' with the engine's flop count. */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { options, relaxedRestart, build: emcc, median, root } = require('./emcc.js');

const { args, opt, runs } = options();
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
  const { js, wasm, hash } = emcc({ tree, flags, web, bench: 'bench_attention.c', replaced: path.join('src', 'llama.c'),
    define: 'BL_BENCH_LLAMA', hashed: [path.join('src', 'bl_internal.h')], prefix: 'attention', exportName: (h) => `BA_${h}`,
    exports: ['_ba_setup', '_ba_run', '_ba_flops', '_ba_hash', '_ba_err'] });
  if (web) return { name: `BA_${hash}`, js: fs.readFileSync(js, 'utf8'), wasm: fs.readFileSync(wasm).toString('base64') };
  return require(js)({ wasmBinary: fs.readFileSync(wasm) });
}

/* ---- where the cases run: { call(mi, fn, ...a), timed(mi, fn, ...a) -> { value, cpu, wall } (ms),
   peers: [{ name, prepare(s) -> { err, id }, timed(id, n) -> { cpu, wall } }], label, close() } */
async function nodeSide(wantPeers) {
  const ms = [];
  for (const [, tree, flags] of trees) ms.push(await build(tree, flags));
  const clock = () => ({ cpu: process.cpuUsage(), wall: process.hrtime.bigint() });
  const since = (t) => { const u = process.cpuUsage(t.cpu); return { cpu: (u.user + u.system) / 1000, wall: Number(process.hrtime.bigint() - t.wall) / 1e6 }; };
  const peers = [];
  if (wantPeers) {
    const p = require('./peers.js');
    for (const peer of [await p.tfjs(), await p.ort()]) {
      const list = [];
      peers.push({ name: peer.name,
        prepare: async (sh) => {
          const d = p.coreInputs(sh), run = (await peer.core(sh, d)).run, err = p.coreErr(await run(), d, sh);
          await run();
          return { err, id: list.push(run) - 1 };
        },
        timed: async (id, n) => { const t = clock(); for (let i = 0; i < n; i++) await list[id](); return since(t); } });
    }
  }
  return { peers, label: `node ${process.version}`, close: async () => {},
    call: async (mi, fn, ...a) => ms[mi][fn](...a),
    timed: async (mi, fn, ...a) => { const t = clock(), value = ms[mi][fn](...a); return { value, ...since(t) }; } };
}

/* --chromium: the same in a page of Debian's Chromium (tools/bench/browser.js); CPU time is
   the renderer main thread's ThreadTime, wall time performance.now() in the page */
async function chromiumSide(wantPeers) {
  const bench = require('./browser.js'), p = require('./peers.js');
  const browser = await bench.launch();
  try {
    /* /core/L-H-KVH-hd.onnx: the peers' ONNX graph of a shape */
    const page = await bench.peerPage(browser, { peers: wantPeers, dynamic: (u) => {
      const m = u.match(/^\/core\/(\d+)-(\d+)-(\d+)-(\d+)\.onnx$/);
      return m && Buffer.from(p.ortCore({ L: +m[1], H: +m[2], KVH: +m[3], hd: +m[4] }));
    } });
    bench.watch(page, (t) => process.stderr.write(t + '\n'));
    const mods = [];
    for (const [, tree, flags] of trees) {
      const b = build(tree, flags, true);
      await page.addScriptTag({ content: b.js });
      mods.push({ global: b.name, wasm: b.wasm });
    }
    await page.addScriptTag({ content: [p.coreInputs, p.coreMask, p.coreErr, p.tfCore].map((f) => f.toString()).join('\n') });
    const peerNames = await page.evaluate(async ({ mods, wantPeers }) => {
      self.__ba = [];
      for (const m of mods) self.__ba.push(await self[m.global]({ wasmBinary: Uint8Array.from(atob(m.wasm), (c) => c.charCodeAt(0)) }));
      if (!wantPeers) return [];
      /* as peers.js's core makers: q, k, v copied in, the output read out */
      self.__peers = [
        { name: `tfjs-backend-wasm ${tf.version_core}`, make: async (sh, d) => {
          const f = tfCore(tf, sh), mask = tf.tensor(coreMask(sh.L), [sh.L, sh.L]);
          return async () => {
            const y = tf.tidy(() => f(tf.tensor(d.q, [sh.L, sh.H * sh.hd]), tf.tensor(d.k, [sh.L, sh.KVH * sh.hd]), tf.tensor(d.v, [sh.L, sh.KVH * sh.hd]), mask));
            const o = y.dataSync();
            y.dispose();
            return o;
          };
        } },
        { name: `onnxruntime-web ${ort.env.versions.web || ort.env.versions.common}`, make: async (sh, d) => {
          const bytes = new Uint8Array(await (await fetch(`/core/${sh.L}-${sh.H}-${sh.KVH}-${sh.hd}.onnx`)).arrayBuffer());
          const session = await ort.InferenceSession.create(bytes, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
          return async () => (await session.run({ q: new ort.Tensor('float32', d.q, [sh.L, sh.H * sh.hd]),
            k: new ort.Tensor('float32', d.k, [sh.L, sh.KVH * sh.hd]), v: new ort.Tensor('float32', d.v, [sh.L, sh.KVH * sh.hd]) })).out.data;
        } }];
      return self.__peers.map((q) => q.name);
    }, { mods, wantPeers });
    const cpu = await bench.cpuClock(page);
    const timed = async (body, arg) => { const c0 = await cpu(), r = await page.evaluate(body, arg), c1 = await cpu(); return { ...r, cpu: c1 - c0 }; };
    const peers = peerNames.map((name, pi) => ({ name,
      prepare: (sh) => page.evaluate(async ([i, shape]) => {
        const d = coreInputs(shape), run = await self.__peers[i].make(shape, d), err = coreErr(await run(), d, shape);
        await run();
        return { err, id: (self.__runs = self.__runs || []).push(run) - 1 };
      }, [pi, sh]),
      timed: (id, n) => timed(async ([i, k]) => {
        const run = self.__runs[i], t0 = performance.now();
        for (let j = 0; j < k; j++) await run();
        return { wall: performance.now() - t0 };
      }, [id, n]) }));
    return { peers, label: `chromium ${browser.version()}`, close: () => browser.close(),
      call: (mi, fn, ...a) => page.evaluate(([i, f, x]) => self.__ba[i][f](...x), [mi, fn, a]),
      timed: (mi, fn, ...a) => timed(([i, f, x]) => {
        const t0 = performance.now(), value = self.__ba[i][f](...x);
        return { value, wall: performance.now() - t0 };
      }, [mi, fn, a]) };
  } catch (e) {
    await browser.close();
    throw e;
  }
}

const loadavg = () => require('node:os').loadavg().map((x) => x.toFixed(2)).join(' ');

async function main() {
  relaxedRestart(__filename, args);
  const side = await (args.includes('--chromium') ? chromiumSide : nodeSide)(args.includes('--peers'));
  try {
    await measure(side);
  } finally {
    await side.close();
  }
}

async function measure(side) {
  const load0 = loadavg(), cases = [], peerCases = [];
  for (const L of Ls)
    for (const [model, H, KVH, hd] of MODELS)
      for (const [kind, kvh] of [['GQA', KVH], ['MHA', H]]) {
        const first = cases.length;
        for (const [bname, fma] of [['FMA', 1], ['SIMD', 0]])
          trees.forEach(([name], mi) => cases.push({ L, model, H, KVH: kvh, hd, kind, bname, fma, name, mi, samples: [] }));
        side.peers.forEach((q, pi) => peerCases.push({ L, model, H, KVH: kvh, hd, kind, pi, name: q.name, engine: cases[first], samples: [] }));
      }
  for (let r = 0; r < runs; r++) {
    for (const c of cases) {
      if (await side.call(c.mi, '_ba_setup', c.L, c.H, c.KVH, c.hd, c.fma)) throw new Error('out of wasm memory');
      c.flops = await side.call(c.mi, '_ba_flops');
      const reps = Math.max(1, Math.round(4e8 / c.flops));
      await side.call(c.mi, '_ba_run', 1);
      if (r === 0) {
        let err = 0;
        for (let i = 0; i < 16; i++) err = Math.max(err, await side.call(c.mi, '_ba_err', (i * 37) % c.L, (i * 5) % c.H, (i * 11) % c.hd));
        if (!(err < 1e-5)) throw new Error(`${c.name} ${c.model} ${c.kind}: max error ${err} against the double reference`);
        c.hash = ((await side.call(c.mi, '_ba_hash')) >>> 0).toString(16);
      }
      const t = await side.timed(c.mi, '_ba_run', reps);
      c.samples.push({ cpu: t.cpu / reps, wall: t.wall / reps });
    }
    /* the peers: same shape, the engine's flop count (block-causal) for GFLOPS and reps */
    for (const c of peerCases) {
      if (r === 0) {
        const { err, id } = await side.peers[c.pi].prepare({ L: c.L, H: c.H, KVH: c.KVH, hd: c.hd });
        if (!(err < 1e-5)) throw new Error(`${c.name} ${c.model} ${c.kind}: max error ${err} against the double reference`);
        c.id = id;
      }
      c.flops = c.engine.flops;
      const reps = Math.max(1, Math.round(4e8 / c.flops)), t = await side.peers[c.pi].timed(c.id, reps);
      c.samples.push({ cpu: t.cpu / reps, wall: t.wall / reps });
    }
  }
  const cpuMs = (c) => median(c.samples.map((x) => x.cpu)), wallMs = (c) => median(c.samples.map((x) => x.wall));
  console.log(`${side.label}, loadavg ${load0}${peerCases.length ? `, ${loadavg()} at the end` : ''}`);
  console.log('| L | shape | heads q/kv | build | tree | median ms (CPU) | median ms (wall) | GFLOPS (CPU) | concat hash |');
  console.log('|---:|---|---|---|---|---:|---:|---:|---|');
  for (const c of cases)
    console.log(`| ${c.L} | ${c.model} ${c.kind} | ${c.H}/${c.KVH} | ${c.bname} | ${c.name} | ${cpuMs(c).toFixed(3)} | ${wallMs(c).toFixed(3)} | ${(c.flops / (cpuMs(c) * 1e6)).toFixed(1)} | ${c.hash} |`);
  if (!peerCases.length) return;
  /* the peers beside the engine's FMA build of the first tree: peer CPU time / engine's */
  console.log('\n| L | shape | heads q/kv | peer | median ms (CPU) | median ms (wall) | GFLOPS (CPU, engine\'s count) | peer / engine FMA (CPU) | peer / engine FMA (wall) |');
  console.log('|---:|---|---|---|---:|---:|---:|---:|---:|');
  for (const c of peerCases)
    console.log(`| ${c.L} | ${c.model} ${c.kind} | ${c.H}/${c.KVH} | ${c.name} | ${cpuMs(c).toFixed(3)} | ${wallMs(c).toFixed(3)} | ${(c.flops / (cpuMs(c) * 1e6)).toFixed(1)} | ${(cpuMs(c) / cpuMs(c.engine)).toFixed(2)}x | ${(wallMs(c) / wallMs(c.engine)).toFixed(2)}x |`);
}

main().catch((e) => { console.error(e); process.exit(1); });
