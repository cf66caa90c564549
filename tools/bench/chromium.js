#!/usr/bin/env node
/* chromium.js - the large shapes of issue 5 in headless Chromium (Debian's /usr/bin/chromium),
   where the page runs: BlockLens's FMA build (relaxed SIMD, what Chromium loads) and SIMD
   build side by side with tfjs-backend-wasm (XNNPACK) and onnxruntime-web (wasm), one thread
   each, all in one page. Same inputs, output checks and interleaved medians as run.js.

   usage:  bash tools/build && node tools/bench/chromium.js [--quick] [--out FILE]
     --quick   the 128-row shapes only
   Writes tools/bench/REPORT-chromium.md. Files reach the page through request interception
   (no server, no network): web/dist, tfjs and onnxruntime-web from node_modules. */
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const bench = require('./browser.js');
const cases = require('./cases.js');
const { engineRaw, ortModel } = require('./peers.js');

const root = path.join(__dirname, '..', '..');
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const outFile = args.includes('--out') ? args[args.indexOf('--out') + 1] : path.join(__dirname, 'REPORT-chromium.md');
const ORIGIN = 'http://bench.invalid';
const TOLERANCE = 0.002;
const nm = (p) => path.join(root, 'node_modules', p);
const FILES = {
  '/blocklens.js': path.join(root, 'web', 'dist', 'blocklens.js'),
  '/tf-core.min.js': nm('@tensorflow/tfjs-core/dist/tf-core.min.js'),
  '/tfwasm/tf-backend-wasm.min.js': nm('@tensorflow/tfjs-backend-wasm/dist/tf-backend-wasm.min.js'),
  '/ort.wasm.min.js': nm('onnxruntime-web/dist/ort.wasm.min.js')
};
const PAGE = `<!doctype html><meta charset="utf-8"><title>bench</title>
<script src="/blocklens.js"></script><script src="/tf-core.min.js"></script>
<script src="/tfwasm/tf-backend-wasm.min.js"></script><script src="/ort.wasm.min.js"></script>`;
const TYPES = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm' };

/* ---- in the page ------------------------------------------------------------------------ */
/* Sets up every implementation for one case; returns their names. Runs in the page. */
async function pageSetup(c) {
  const d = inputs(c, 12345), impls = [], say = (m) => console.log(m);
  say('inputs ready');
  const fma = await BlockLens.load(), simd = await BlockLens.load({ fma: false });
  if (!fma.fma) throw new Error('Chromium did not load the FMA build');
  impls.push({ name: 'BlockLens wasm FMA (relaxed SIMD, Chromium\'s default build)', kind: 'fma', ...(await engineRaw(fma)[c.op](c, d)) });
  impls.push({ name: 'BlockLens wasm SIMD', kind: 'simd', ...(await engineRaw(simd)[c.op](c, d)) });
  say('engine ready');
  /* tfjs: fused matMul + bias, the same graphs as peers.js */
  const w = {};
  for (const [k, v] of Object.entries(d)) if (k !== 'x') w[k] = tf.tensor(v, c.dims[k]);
  const gelu = (h) => tf.mul(tf.mul(h, 0.5), tf.add(1, tf.erf(tf.mul(h, Math.SQRT1_2))));
  const lin = (x, wk, bk) => tf.fused.matMul({ a: x, b: w[wk], bias: w[bk] });
  const graph = {
    gemm: (x) => lin(x, 'w', 'b'),
    ffn: (x) => tf.fused.matMul({ a: gelu(lin(x, 'w1', 'b1')), b: w.w2, bias: w.b2 }),
    attn: (x) => {
      const { L, D, H } = c, dk = D / H;
      const heads = (t) => tf.transpose(tf.reshape(t, [L, H, dk]), [1, 0, 2]);
      const q = heads(lin(x, 'wq', 'bq')), k = heads(lin(x, 'wk', 'bk')), v = heads(lin(x, 'wv', 'bv'));
      const p = tf.softmax(tf.mul(tf.matMul(q, k, false, true), 1 / Math.sqrt(dk)));
      return lin(tf.reshape(tf.transpose(tf.matMul(p, v), [1, 0, 2]), [L, D]), 'wo', 'bo');
    }
  }[c.op];
  impls.push({ name: `tfjs-backend-wasm ${tf.version_core || ''} (XNNPACK, 1 thread)`, kind: 'peer',
    run: async () => { const y = tf.tidy(() => graph(tf.tensor(d.x, c.dims.x))); const o = y.dataSync(); y.dispose(); return o; } });
  say('tfjs ready');
  const bytes = new Uint8Array(window.__model.reduce((n, b) => n + b.length, 0));
  window.__model.reduce((at, b) => (bytes.set(b, at), at + b.length), 0);
  window.__model = null;
  say('model: ' + bytes.length + ' bytes');
  const session = await ort.InferenceSession.create(bytes, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
  impls.push({ name: `onnxruntime-web ${ort.env.versions.web || ort.env.versions.common} (wasm, 1 thread)`, kind: 'peer',
    run: async () => (await session.run({ x: new ort.Tensor('float32', d.x, c.dims.x) })).out.data });
  window.__impls = impls;
  return impls.map((i) => i.name);
}

/* Checks every output against the first's, warms each up, then takes `rounds` samples
   interleaved across the implementations. Runs in the page. */
async function pageMeasure(rounds, tolerance) {
  const impls = window.__impls, ref = await impls[0].run(), rows = [];
  let top = 1;
  for (let i = 0; i < ref.length; i++) top = Math.max(top, Math.abs(ref[i]));
  for (const impl of impls) {
    const out = await impl.run();
    let diff = 0;
    for (let i = 0; i < ref.length; i++) diff = Math.max(diff, Math.abs(out[i] - ref[i]));
    rows.push({ name: impl.name, kind: impl.kind, diff: diff / top, samples: [] });
    await impl.run();
  }
  for (let r = 0; r < rounds; r++)
    for (let i = 0; i < impls.length; i++) {
      if (!(rows[i].diff <= tolerance)) continue;
      const t0 = performance.now();
      await impls[i].run();
      rows[i].samples.push(performance.now() - t0);
    }
  return rows;
}

/* ---- driver ----------------------------------------------------------------------------- */
const median = (a) => { const b = [...a].sort((x, y) => x - y); return b[b.length >> 1]; };

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'blocklens-bench-'));
  const browser = await bench.launch({ profile: dir });
  try {
    const page = await browser.newPage();
    bench.watch(page, (t) => process.stderr.write(t + '\n'));
    if (process.env.BENCH_DEBUG) page.on('console', (m) => process.stderr.write(`[page] ${m.text()}\n`));
    await page.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.origin !== ORIGIN) return route.abort();
      const p = url.pathname;
      if (p === '/') return route.fulfill({ contentType: 'text/html', body: PAGE });
      let file = FILES[p];
      if (!file && p.startsWith('/tfwasm/')) file = nm('@tensorflow/tfjs-backend-wasm/dist/' + path.basename(p));
      if (!file && /^\/ort-wasm[\w.-]*\.(mjs|wasm)$/.test(p)) file = nm('onnxruntime-web/dist' + p);
      if (!file || !fs.existsSync(file)) return route.fulfill({ status: 404, body: 'not found' });
      return route.fulfill({ contentType: TYPES[path.extname(file)] || 'application/octet-stream', body: fs.readFileSync(file) });
    });
    await page.goto(ORIGIN + '/');
    const helpers = [cases.gemmCase, cases.ffnCase, cases.attnCase, cases.inputs, engineRaw, pageSetup, pageMeasure]
      .map((f) => f.toString()).join('\n');
    await page.addScriptTag({ content: helpers });
    const info = await page.evaluate(async (origin) => {
      tf.wasm.setWasmPaths(origin + '/tfwasm/');
      tf.wasm.setThreadsCount(1);
      await tf.setBackend('wasm');
      await tf.ready();
      ort.env.wasm.numThreads = 1;
      ort.env.wasm.wasmPaths = origin + '/';
      ort.env.logLevel = 'error';
      return { ua: navigator.userAgent, tf: tf.getBackend() };
    }, ORIGIN);
    process.stderr.write(`${info.ua}\n`);
    const large = cases.LARGE.filter((c) => !quick || c.shape[0] === 128);
    const start = Date.now(), load0 = os.loadavg(), sections = [], summary = [];
    for (const c of large) {
      process.stderr.write(`${c.label}\n`);
      /* the ONNX model (weights included: up to 19 MB) goes over in 1 MB pieces */
      const model = Buffer.from(ortModel(c.op, c, cases.inputs(c, 12345)));
      await page.evaluate(() => { window.__model = []; });
      for (let at = 0; at < model.length; at += 1 << 20)
        await page.evaluate((b64) => { window.__model.push(Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0))); },
          model.subarray(at, at + (1 << 20)).toString('base64'));
      await page.evaluate((cc) => pageSetup(cc), c);
      const rows = await page.evaluate(([n, tol]) => pageMeasure(n, tol), [7, TOLERANCE]);
      const peers = rows.filter((r) => r.kind === 'peer' && r.samples.length);
      const best = Math.min(...peers.map((r) => median(r.samples)));
      const lines = ['| implementation | median | GFLOPS | speed vs best peer | max rel. diff vs FMA build |', '|---|---:|---:|---:|---:|'];
      for (const r of rows) {
        if (!r.samples.length) { lines.push(`| ${r.name} | - | - | - | **${r.diff.toExponential(1)} (failed)** |`); continue; }
        const ms = median(r.samples);
        lines.push(`| ${r.name} | ${ms.toFixed(1)} ms | ${(c.flops / ms / 1e6).toFixed(2)} | ${(best / ms).toFixed(2)}x | ${r.diff.toExponential(1)} |`);
        process.stderr.write(`  ${r.name.padEnd(60)} ${ms.toFixed(1).padStart(8)} ms  ${(c.flops / ms / 1e6).toFixed(2).padStart(6)} GFLOPS\n`);
        if (r.kind !== 'peer') summary.push({ c, r, ms, best });
      }
      sections.push(`### ${c.label}\n\n${(c.flops / 1e9).toFixed(2)} GFLOP per call.\n\n${lines.join('\n')}\n`);
    }
    const minutes = ((Date.now() - start) / 60000).toFixed(1), load1 = os.loadavg();
    const sum = ['| shape, engine build | engine | GFLOPS | best peer | engine / best peer |', '|---|---:|---:|---:|---:|'];
    for (const s of summary)
      sum.push(`| ${s.c.label}, ${s.r.kind === 'fma' ? 'FMA build' : 'SIMD build'} | ${s.ms.toFixed(1)} ms | ${(s.c.flops / s.ms / 1e6).toFixed(2)} | ${s.best.toFixed(1)} ms | ${(s.best / s.ms).toFixed(2)}x |`);
    fs.writeFileSync(outFile, `# BlockLens benchmark report: headless Chromium

Generated by \`node tools/bench/chromium.js${quick ? ' --quick' : ''}\` (after \`bash tools/build\`) on
${new Date().toISOString().slice(0, 10)}: ${os.cpus()[0] ? os.cpus()[0].model : 'unknown CPU'}, ${os.cpus().length} vCPU,
${info.ua.replace(/.*(HeadlessChrome\/[\d.]+).*/, '$1')}. Load average ${load0.map((x) => x.toFixed(1)).join(' / ')} at the start,
${load1.map((x) => x.toFixed(1)).join(' / ')} at the end; the run took ${minutes} min. Read the ratios, not the times.

Method: all four in one page, one thread each (tfjs-backend-wasm's XNNPACK build, onnxruntime-web's
wasm execution provider; the page is not cross-origin isolated, so neither can start threads). Each
output is compared with the FMA build's (max |diff| / max(1, max |out|) <= ${TOLERANCE}) before
timing; then one warm-up call and 7 samples per implementation, interleaved round by round;
medians. The engine runs on its own heap with the weights resident, like the peers'
initialisers and tensors (the same calls as run.js). Inputs as in run.js (tools/bench/cases.js).

## Summary

${sum.join('\n')}

## Per shape

${sections.join('\n')}`);
    process.stderr.write(`wrote ${path.relative(process.cwd(), outFile)} (${minutes} min)\n`);
  } finally {
    await browser.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
