#!/usr/bin/env node
/* tools/bench/llama.js - a Llama-family model of SmolLM2-135M's shapes (30 layers, d 576, 9 query /
   3 kv heads of 64, d_ff 1536, vocab 49152, tied) with random weights, written here as one
   safetensors file in BF16 and in F32, through bl.loadModel and model.forward in Node. A benchmark:
   it prints numbers and asserts nothing (beyond the logits being finite).

   usage:  node tools/bench/llama.js [--runs 5] [--out FILE]
           node --experimental-wasm-relaxed-simd tools/bench/llama.js ...   (the FMA build)
     --runs N    timed forwards per length and dtype (default 5), interleaved; median, min, max
     --out FILE  also write the report as Markdown (tools/bench/REPORT-llama.md)
     --before DIR  also another checkout's built engine (DIR/web/dist), its forwards interleaved
                   with this tree's, and the ratio before / after of CPU times */
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const BlockLens = require(path.join(__dirname, '..', '..'));

const argv = process.argv.slice(2);
const opt = (name, fallback) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : fallback; };
const RUNS = Number(opt('--runs', 5)), OUT = opt('--out', null), BEFORE = opt('--before', null);
const D = 576, H = 9, KVH = 3, HD = 64, F = 1536, V = 49152, NL = 30, LENGTHS = [8, 64, 256];

/* The safetensors bytes of the model in dtype (values uniform in [-0.05, 0.05), as float32 rounded). */
function checkpoint(dtype) {
  const shapes = { 'model.embed_tokens.weight': [V, D], 'model.norm.weight': [D] };
  for (let l = 0; l < NL; l++) {
    const p = `model.layers.${l}.`;
    Object.assign(shapes, { [p + 'input_layernorm.weight']: [D], [p + 'post_attention_layernorm.weight']: [D],
      [p + 'self_attn.q_proj.weight']: [H * HD, D], [p + 'self_attn.k_proj.weight']: [KVH * HD, D],
      [p + 'self_attn.v_proj.weight']: [KVH * HD, D], [p + 'self_attn.o_proj.weight']: [D, H * HD],
      [p + 'mlp.gate_proj.weight']: [F, D], [p + 'mlp.up_proj.weight']: [F, D], [p + 'mlp.down_proj.weight']: [D, F] });
  }
  const size = dtype === 'BF16' ? 2 : 4, header = {};
  let off = 0;
  for (const [n, s] of Object.entries(shapes)) {
    const b = s.reduce((a, c) => a * c, 1) * size;
    header[n] = { dtype, shape: s, data_offsets: [off, off + b] };
    off += b;
  }
  let text = JSON.stringify(header);
  while (text.length % 8) text += ' ';
  const buf = new Uint8Array(8 + text.length + off), start = 8 + text.length, n = off / size;
  new DataView(buf.buffer).setBigUint64(0, BigInt(text.length), true);
  buf.set(new TextEncoder().encode(text), 8);
  const f = new Float32Array(1), u = new Uint32Array(f.buffer);
  const dst = size === 2 ? new Uint16Array(buf.buffer, start, n) : new Float32Array(buf.buffer, start, n);
  let s = 1;
  for (let i = 0; i < n; i++) {
    s = (s * 1664525 + 1013904223) >>> 0;
    f[0] = ((s >>> 8) / 16777216 - 0.5) * 0.1;
    dst[i] = size === 2 ? u[0] >>> 16 : f[0];
  }
  return buf;
}

const median = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];

/* wllama.js reuses the checkpoint: the same bytes for both peers. */
module.exports = { checkpoint, SHAPE: { D, H, KVH, HD, F, V, NL } };

if (require.main === module) (async () => {
  const bl = await BlockLens.load();
  const trees = [['', bl]];
  if (BEFORE) trees.push(['before ', await require(path.resolve(BEFORE)).load()]);
  const config = { model_type: 'llama', hidden_size: D, intermediate_size: F, num_hidden_layers: NL,
    num_attention_heads: H, num_key_value_heads: KVH, vocab_size: V, max_position_embeddings: 8192,
    rms_norm_eps: 1e-5, rope_theta: 100000, tie_word_embeddings: true };
  const vocab = Array.from({ length: V }, (_, i) => 't' + i), rows = [], models = {};
  for (const dtype of ['BF16', 'F32']) {
    const bytes = checkpoint(dtype), t0 = performance.now();
    for (const [tn, b] of trees) models[tn + dtype] = b.loadModel({ weights: bytes, config, vocab });
    rows.push(`| loadModel, ${dtype} | ${(performance.now() - t0).toFixed(0)} ms | file ${bytes.length} bytes, ` +
      `heap ${models[dtype].heapBytes} bytes |`);
  }
  const times = {};
  for (const L of LENGTHS) {
    const ids = Array.from({ length: L }, (_, i) => (i * 7919) % V);
    for (const m of Object.values(models)) m.forward(ids, { layers: [] });   /* warm-up */
    for (let r = 0; r < RUNS; r++)
      for (const [tn] of trees)
        for (const dtype of ['BF16', 'F32']) {
          const c0 = process.cpuUsage(), t0 = performance.now(), out = models[tn + dtype].forward(ids, { layers: [] });
          const c = process.cpuUsage(c0);
          (times[tn + L + dtype] = times[tn + L + dtype] || []).push(performance.now() - t0);
          (times['cpu ' + tn + L + dtype] = times['cpu ' + tn + L + dtype] || []).push((c.user + c.system) / 1000);
          if (!out.logits.every(Number.isFinite)) throw new Error('non-finite logits');
        }
  }
  const table = ['| forward (logits only) | BF16 median (min-max) ms | F32 median (min-max) ms | BF16 / F32 |',
    '|---|---:|---:|---:|'];
  for (const L of LENGTHS) {
    const b = times[L + 'BF16'], f = times[L + 'F32'];
    const cell = (a) => `${median(a).toFixed(0)} (${Math.min(...a).toFixed(0)}-${Math.max(...a).toFixed(0)})`;
    table.push(`| L ${L} | ${cell(b)} | ${cell(f)} | ${(median(b) / median(f)).toFixed(2)} |`);
  }
  /* CPU times (ms, medians) per tree, and before / after where a before tree ran */
  table.push('', '| forward, CPU time | ' + trees.map(([tn]) => `${tn || 'this tree '}BF16 | ${tn || 'this tree '}F32`).join(' | ') +
    (BEFORE ? ' | before / after BF16 | before / after F32 |' : ' |'), '|---|' + '---:|'.repeat(2 * trees.length + (BEFORE ? 2 : 0)));
  for (const L of LENGTHS) {
    const m = (k) => median(times['cpu ' + k]);
    table.push(`| L ${L} | ` + trees.map(([tn]) => `${m(tn + L + 'BF16').toFixed(0)} | ${m(tn + L + 'F32').toFixed(0)}`).join(' | ') +
      (BEFORE ? ` | ${(m('before ' + L + 'BF16') / m(L + 'BF16')).toFixed(3)} | ${(m('before ' + L + 'F32') / m(L + 'F32')).toFixed(3)} |` : ' |'));
  }
  for (const m of Object.values(models)) m.free();
  const report = ['# A Llama-family model of SmolLM2-135M\'s shapes in Node', '',
    `Written by \`node tools/bench/llama.js --runs ${RUNS}\` on ${new Date().toISOString()}: Node ${process.version}, ` +
    `build ${bl.fma ? 'FMA' : bl.simd ? 'SIMD' : 'scalar'}, ${os.cpus().length} x ${os.cpus()[0].model}, load average ` +
    `${os.loadavg().map((x) => x.toFixed(2)).join(', ')}. Random weights, 30 layers, d 576, 9 / 3 heads of 64, d_ff 1536, ` +
    'vocab 49152 (tied); the same checkpoint in BF16 (kept in the heap as BF16) and in F32. Runs interleaved; a ' +
    'shared host: read the ratios.', '', '| load | time | sizes |', '|---|---:|---|', ...rows, '', ...table, ''].join('\n');
  console.log(report);
  if (OUT) fs.writeFileSync(OUT, report);
})();
