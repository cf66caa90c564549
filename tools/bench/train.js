#!/usr/bin/env node
/* train.js - the training benchmark of issue 22: tokens per second (batch x L positions per step
   over the time of a step; L the batch's longest line, at most the context 64) for the poem
   config (bl.trainer's character vocabulary of web/models/poems/train.txt, n_embd 64, 2 layers,
   4 heads, n_inner 256, ReLU, context 64, batch 8, AdamW, clipping to 1), one thread, the same
   model from the same initial weights on the same batches, side by side in one run:
     BlockLens FMA / SIMD builds  bl.trainer(...).step()                 (Node 22, .cache/node22)
     tfjs-backend-wasm            the GPT-2 in tfjs ops, tf.variableGrads, AdamW in tf ops, 1 thread
                                  (--tfjs-plain: also with tfjs's own matMul gradients)
     PyTorch CPU                  train_torch.py under /usr/bin/python3, torch.set_num_threads(1),
                                  on Debian's reference BLAS and, when found, on OpenBLAS
   then BlockLens and tfjs again in headless Chromium (--no-chromium to skip).
   Writes tools/bench/REPORT-train.md.

   usage:  bash tools/build && node tools/bench/train.js [--rounds 9] [--steps 4] [--warm 4] [--tfjs-plain]
                                 [--no-torch] [--no-tfjs] [--no-chromium] [--openblas DIR] [--out FILE]
   Warm-up steps first, then rounds: each round every implementation trains --steps steps (the
   order reversed every other round), timed in wall time and in CPU time (process.cpuUsage(); torch:
   time.thread_time(); Chromium: the renderer's ThreadTime); ratios are taken round by round, then
   the median. The peers start from the weights the trainer wrote before its first step (t.save())
   and train on its batches, drawn again here from the same seed (each BlockLens step checks that
   its batch matches); the losses are compared step by step. */
/* global tf */
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');
const { spawn, spawnSync } = require('node:child_process');

const root = path.join(__dirname, '..', '..');
const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const ROUNDS = Number(opt('--rounds', 9));
const STEPS = Number(opt('--steps', 4));
const WARM = Number(opt('--warm', 4));
const outFile = opt('--out', path.join(__dirname, 'REPORT-train.md'));
const NODE22 = path.join(root, '.cache', 'node22', 'node_modules', '.bin', 'node');
const PYTHON = '/usr/bin/python3';
const log = (m) => process.stderr.write(m + '\n');

/* The poem config (HF GPT-2 keys) and the optimiser, shared by every implementation. */
const CONFIG = { n_embd: 64, n_layer: 2, n_head: 4, n_positions: 64, n_inner: 256,
  activation_function: 'relu', layer_norm_epsilon: 1e-5 };
/* lr, weightDecay, warmup: bl.trainer's options; betas, eps, clipping: what it always uses. */
const OPTIM = { batch: 8, lr: 3e-3, weightDecay: 0.01, warmup: 10, beta1: 0.9, beta2: 0.95, eps: 1e-8, clip: 1 };
const SEED = 1234;

const median = (a) => { const b = [...a].sort((x, y) => x - y); return b[b.length >> 1]; };
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };

/* ---- data: bl.trainer's batches, drawn again ------------------------------------------------------ */

/* The trainer's samples (web/src/engine/engine-train.js): the text's non-empty lines (a trailing \r
   dropped) cut to n_positions code points, line i held out when i % 20 == 19; a sample is <s> then
   its characters' ids (<unk> for unknown ones). */
function trainRows(text, vocab) {
  const ids = new Map(vocab.map((ch, i) => [ch, i]));
  const all = text.split('\n').map((l) => Array.from(l.endsWith('\r') ? l.slice(0, -1) : l).slice(0, CONFIG.n_positions))
    .filter((cs) => cs.length > 0);
  return all.filter((cs, i) => !(all.length >= 20 && i % 20 === 19))
    .map((cs) => Int32Array.from([0, ...cs.map((ch) => (ids.has(ch) ? ids.get(ch) : 1))]));
}

/* n batches as trainer.step() draws them: per step `batch` uniform doubles of the data stream
   (an MT19937 seeded with the seed: numpyRandom(seed).rand, bl_rng_uniform_f64), line
   floor(u N); tokens (batch, L + 1) with L the longest line, -1 padded. Serialised as one
   Int32Array: per batch L, then its tokens. */
function drawBatches(rows, n, B, random) {
  const parts = [];
  for (let k = 0; k < n; k++) {
    const picked = Array.from(random.rand(B), (u) => rows[Math.min(rows.length - 1, Math.floor(u * rows.length))]);
    const L = picked.reduce((a, r) => Math.max(a, r.length - 1), 1), t = new Int32Array(1 + B * (L + 1)).fill(-1);
    t[0] = L;
    picked.forEach((r, b) => t.set(r, 1 + b * (L + 1)));
    parts.push(t);
  }
  const out = new Int32Array(parts.reduce((a, t) => a + t.length, 0));
  parts.reduce((at, t) => (out.set(t, at), at + t.length), 0);
  return out;
}

/* ---- weights: safetensors in and out ------------------------------------------------------------ */

function readSafetensors(bytes) {
  const u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  const dv = new DataView(u8.buffer, u8.byteOffset, u8.byteLength);
  const n = Number(dv.getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(u8.subarray(8, 8 + n)));
  const base = 8 + n, out = {};
  for (const [name, h] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const [a, b] = h.data_offsets, count = h.shape.reduce((x, y) => x * y, 1), data = new Float32Array(count);
    const at = (i, size) => base + a + i * size;
    if (h.dtype === 'F32') for (let i = 0; i < count; i++) data[i] = dv.getFloat32(at(i, 4), true);
    else if (h.dtype === 'BF16') {
      const u32 = new Uint32Array(data.buffer);
      for (let i = 0; i < count; i++) u32[i] = dv.getUint16(at(i, 2), true) << 16;
    } else if (h.dtype === 'F16') for (let i = 0; i < count; i++) data[i] = f16(dv.getUint16(at(i, 2), true));
    else throw new Error(`weights: tensor ${name} has dtype ${h.dtype} (F32, F16, BF16 read)`);
    if (b - a !== count * (h.dtype === 'F32' ? 4 : 2)) throw new Error(`weights: tensor ${name} has ${b - a} bytes for shape ${h.shape}`);
    out[name.replace(/^transformer\./, '')] = { shape: h.shape, data };
  }
  return out;
}

function f16(h) {
  const s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 31, m = h & 1023;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

function writeSafetensors(file, tensors) {
  const header = {}, names = Object.keys(tensors).sort();
  let off = 0;
  for (const k of names) {
    const bytes = tensors[k].data.length * 4;
    header[k] = { dtype: 'F32', shape: tensors[k].shape, data_offsets: [off, off + bytes] };
    off += bytes;
  }
  let h = JSON.stringify(header);
  h += ' '.repeat((8 - (h.length % 8)) % 8);
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(h.length));
  fs.writeFileSync(file, Buffer.concat([len, Buffer.from(h), ...names.map((k) => Buffer.from(tensors[k].data.buffer))]));
}

/* The tensor names and shapes of a GPT-2 of CONFIG (HF Conv1D layout: W stored (in, out)). */
function shapes(V) {
  const d = CONFIG.n_embd, F = CONFIG.n_inner, t = { 'wte.weight': [V, d], 'wpe.weight': [CONFIG.n_positions, d] };
  for (let l = 0; l < CONFIG.n_layer; l++) {
    const h = `h.${l}.`;
    Object.assign(t, { [h + 'ln_1.weight']: [d], [h + 'ln_1.bias']: [d],
      [h + 'attn.c_attn.weight']: [d, 3 * d], [h + 'attn.c_attn.bias']: [3 * d],
      [h + 'attn.c_proj.weight']: [d, d], [h + 'attn.c_proj.bias']: [d],
      [h + 'ln_2.weight']: [d], [h + 'ln_2.bias']: [d],
      [h + 'mlp.c_fc.weight']: [d, F], [h + 'mlp.c_fc.bias']: [F],
      [h + 'mlp.c_proj.weight']: [F, d], [h + 'mlp.c_proj.bias']: [d] });
  }
  t['ln_f.weight'] = [d];
  t['ln_f.bias'] = [d];
  return t;
}

/* Every tensor of the GPT-2 present with its shape, or an Error naming the first that is not. */
function checkWeights(w, V) {
  for (const [k, s] of Object.entries(shapes(V))) {
    if (!w[k]) throw new Error(`weights: no tensor ${k}`);
    if (w[k].shape.join() !== s.join()) throw new Error(`weights: ${k} has shape [${w[k].shape}], expected [${s}]`);
  }
  return w;
}

/* ---- peers ----------------------------------------------------------------------------------------- */

/* tfjs-core's CommonJS bundle registers no gradients (the union package @tensorflow/tfjs does):
   bundle its ES-module register_all_gradients.js with esbuild and run it; the gradients land in
   the registry tfjs keeps on the global object, shared with the bundle required here. */
function registerTfGradients() {
  const esbuild = require('esbuild');
  const entry = require.resolve('@tensorflow/tfjs-core/dist/register_all_gradients.js');
  const r = esbuild.buildSync({ entryPoints: [entry], bundle: true, platform: 'node', format: 'cjs', write: false, logLevel: 'error' });
  const m = new module.constructor(entry);
  m.paths = module.paths;
  m._compile(r.outputFiles[0].text, entry);
}

/* ---- shared by Node and the page (sent as source text: these close over nothing) ------------------ */

/* The same GPT-2 in tfjs ops on whatever backend tf runs (wasm here); AdamW written out in tf ops as
   torch.optim.AdamW computes it (decoupled decay on the matrices named in `decayed`, bias
   correction, eps outside the square root). C: the config, O: the optimiser, weights: { name:
   { shape, data } }, batches: as drawBatches writes them (per batch L, then (batch, L + 1) ids, -1
   none: inputs -1 read as id 0, targets -1 are not scored). */
function tfjsModel(tf, C, O, weights, batches, V, decayed, fast) {
  const { n_embd: d, n_head: H, n_positions: T, layer_norm_epsilon: eps } = C, B = O.batch, dk = d / H;
  const P = {}, M = {}, S = {}, decay = new Set(decayed);
  for (const [k, w] of Object.entries(weights)) {
    P[k] = tf.variable(tf.tensor(w.data, w.shape), true);
    M[k] = tf.variable(tf.zeros(w.shape), false);
    S[k] = tf.variable(tf.zeros(w.shape), false);
  }
  const maskData = new Float32Array(T * T);
  for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) maskData[i * T + j] = -1e9;
  const mask = tf.tensor(maskData, [T, T]), list = batchList(batches, B);
  const ln = (x, g, b) => {
    const { mean, variance } = tf.moments(x, -1, true);
    return tf.add(tf.mul(tf.mul(tf.sub(x, mean), tf.rsqrt(tf.add(variance, eps))), g), b);
  };
  /* tfjs-backend-wasm runs a 2-D product through XNNPACK only untransposed (512x64 @ 64x256:
     12 GFLOPS, 1.5 with either operand transposed), and matMul's own gradient multiplies by
     transposed operands: so products go through mm, whose gradient transposes explicitly
     (a copy, ~1 ms for wte) and multiplies untransposed. fast false: tfjs's plain autograd. */
  const mmGrad = tf.customGrad((x, w, save) => {
    save([x, w]);
    return { value: tf.matMul(x, w), gradFunc: (dy, [xs, ws]) => [tf.matMul(dy, tf.transpose(ws)), tf.matMul(tf.transpose(xs), dy)] };
  });
  const mm = fast ? (a, b) => mmGrad(a, b) : (a, b) => tf.matMul(a, b);
  const lin = fast ? (x, w, b, activation) => (activation === 'relu' ? tf.relu : (y) => y)(tf.add(mm(x, w), b))
    : (x, w, b, activation) => tf.fused.matMul({ a: x, b: w, bias: b, activation });
  const heads = (t, L) => tf.transpose(tf.reshape(t, [B, L, H, dk]), [0, 2, 1, 3]);
  /* The wasm backend lacks UnsortedSegmentSum, tf.gather's gradient: the embedding's gradient as a
     ScatterNd instead (it sums the rows of repeated ids). */
  const embed = (w, ids) => tf.customGrad((wt) => ({ value: tf.gather(wt, ids),
    gradFunc: (dy) => [tf.scatterND(tf.reshape(ids, [-1, 1]), dy, wt.shape)] }))(w);
  const lossOf = (xIds, yOneHot, scored, L) => () => {
    const wpe = tf.slice(P['wpe.weight'], [0, 0], [L, d]), causal = tf.slice(mask, [0, 0], [L, L]);
    let x = tf.reshape(tf.add(tf.reshape(embed(P['wte.weight'], xIds), [B, L, d]), wpe), [B * L, d]);
    for (let l = 0; l < C.n_layer; l++) {
      const h = `h.${l}.`;
      const [q, k, v] = tf.split(lin(ln(x, P[h + 'ln_1.weight'], P[h + 'ln_1.bias']), P[h + 'attn.c_attn.weight'], P[h + 'attn.c_attn.bias']), 3, 1);
      const w = tf.softmax(tf.add(tf.mul(tf.matMul(heads(q, L), heads(k, L), false, true), 1 / Math.sqrt(dk)), causal));
      const c = tf.reshape(tf.transpose(tf.matMul(w, heads(v, L)), [0, 2, 1, 3]), [B * L, d]);
      x = tf.add(x, lin(c, P[h + 'attn.c_proj.weight'], P[h + 'attn.c_proj.bias']));
      const f = lin(ln(x, P[h + 'ln_2.weight'], P[h + 'ln_2.bias']), P[h + 'mlp.c_fc.weight'], P[h + 'mlp.c_fc.bias'], 'relu');
      x = tf.add(x, lin(f, P[h + 'mlp.c_proj.weight'], P[h + 'mlp.c_proj.bias']));
    }
    const hf = ln(x, P['ln_f.weight'], P['ln_f.bias']);
    const logits = fast ? mm(hf, tf.transpose(P['wte.weight'])) : tf.matMul(hf, P['wte.weight'], false, true);
    return tf.losses.softmaxCrossEntropy(yOneHot, logits, scored);   /* mean over the scored targets */
  };
  /* batch i: input ids, one-hot targets (a -1 target's row is all zero), 1 where scored, L */
  const xy = (i) => {
    const { L, tokens } = list[i % list.length], x = new Int32Array(B * L), y = new Int32Array(B * L), w = new Float32Array(B * L);
    for (let r = 0; r < B; r++)
      for (let j = 0; j < L; j++) {
        x[r * L + j] = Math.max(0, tokens[r * (L + 1) + j]);
        y[r * L + j] = tokens[r * (L + 1) + j + 1];
        w[r * L + j] = y[r * L + j] >= 0 ? 1 : 0;
      }
    return [tf.tensor(x, [B * L], 'int32'), tf.oneHot(tf.tensor(y, [B * L], 'int32'), V), tf.tensor(w, [B * L]), L];
  };
  const names = Object.keys(P);
  let t = 0;
  return {
    step() {
      t++;
      const lr = O.warmup > 0 ? O.lr * Math.min(1, t / O.warmup) : O.lr;
      const loss = tf.tidy(() => {
        const [x, y, w, L] = xy(t - 1);
        const { value, grads } = tf.variableGrads(lossOf(x, y, w, L), names.map((k) => P[k]));
        /* torch.nn.utils.clip_grad_norm_: every gradient times clip / (norm + 1e-6) when below 1 */
        const scale = O.clip > 0
          ? tf.minimum(1, tf.div(O.clip, tf.add(tf.sqrt(tf.addN(names.map((k) => tf.sum(tf.square(grads[P[k].name]))))), 1e-6))) : null;
        const bc1 = 1 - O.beta1 ** t, bc2 = 1 - O.beta2 ** t;
        for (const k of names) {
          const g = scale ? tf.mul(grads[P[k].name], scale) : grads[P[k].name];  /* keyed by the variable's name */
          M[k].assign(tf.add(tf.mul(M[k], O.beta1), tf.mul(g, 1 - O.beta1)));
          S[k].assign(tf.add(tf.mul(S[k], O.beta2), tf.mul(tf.square(g), 1 - O.beta2)));
          const p = decay.has(k) ? tf.mul(P[k], 1 - lr * O.weightDecay) : P[k];
          const upd = tf.div(M[k], tf.add(tf.div(tf.sqrt(S[k]), Math.sqrt(bc2)), O.eps));
          P[k].assign(tf.sub(p, tf.mul(upd, lr / bc1)));
        }
        return value;
      });
      const out = loss.dataSync()[0];
      loss.dispose();
      return out;
    },
    free() { for (const k of names) { P[k].dispose(); M[k].dispose(); S[k].dispose(); } mask.dispose(); }
  };
}

/* drawBatches's Int32Array as [{ L, tokens: (batch, L + 1) }]. */
function batchList(all, B) {
  const out = [];
  for (let at = 0; at < all.length;) {
    const L = all[at], n = B * (L + 1);
    out.push({ L, tokens: all.subarray(at + 1, at + 1 + n) });
    at += 1 + n;
  }
  return out;
}

/* k steps of step() (returning the loss), timed: wall by performance.now(), CPU by cpu() (ms, async). */
async function timeSteps(step, k, cpu) {
  const losses = [], c0 = await cpu(), w0 = performance.now();
  for (let i = 0; i < k; i++) losses.push(step());
  const wall = (performance.now() - w0) / 1000;
  return { losses, wall, cpu: ((await cpu()) - c0) / 1000 };
}

/* Warm-up, then rounds: each round every implementation ({ key, run(k): { losses, wall, cpu } })
   trains `steps` steps (the same batches), in reverse order every other round. Per implementation:
   all losses, and per round the wall and CPU seconds. */
async function rounds(impls, warm, nRounds, steps, say) {
  const res = Object.fromEntries(impls.map((im) => [im.key, { losses: [], wall: [], cpu: [] }]));
  say(`warm-up: ${warm} steps each`);
  for (const im of impls) res[im.key].losses.push(...(await im.run(warm)).losses);
  for (let r = 0; r < nRounds; r++) {
    for (const im of r % 2 ? [...impls].reverse() : impls) {
      const o = await im.run(steps), R = res[im.key];
      R.losses.push(...o.losses);
      R.wall.push(o.wall);
      R.cpu.push(o.cpu);
    }
    say(`round ${r + 1}/${nRounds}: ` + impls.map((im) => `${im.key} ${(res[im.key].wall[r] * 1000 / steps).toFixed(0)} ms`).join(', '));
  }
  return res;
}

/* In the page: the trainers of both BlockLens builds (when it has bl.trainer) and the tfjs model,
   from the weights and batches the driver wrote, timed in rounds. */
async function pageRun(C, O, V, decayed, warm, nRounds, steps, seed) {
  const get = async (p) => new Uint8Array(await (await fetch(p)).arrayBuffer());
  const weights = readSafetensors(await get('/init.safetensors')), b = await get('/batches.bin');
  const batches = new Int32Array(b.buffer, b.byteOffset, b.byteLength / 4);
  const cpu = () => window.__cpu(), impls = [], say = (m) => console.log(m);
  const text = new TextDecoder().decode(await get('/train.txt'));
  for (const [key, opts] of [['fma', {}], ['simd', { fma: false }]]) {
    const bl = await BlockLens.load(opts);
    if (key === 'fma' && !bl.fma) throw new Error('Chromium did not load the FMA build');
    const t = bl.trainer({ text, config: C, seed, batch: O.batch, lr: O.lr, weightDecay: O.weightDecay, warmup: O.warmup });
    impls.push({ key, run: (k) => timeSteps(() => t.step(), k, cpu), free: () => t.free() });
  }
  tf.wasm.setWasmPaths(location.origin + '/tfwasm/');
  tf.wasm.setThreadsCount(1);
  await tf.setBackend('wasm');
  await tf.ready();
  const m = tfjsModel(tf, C, O, weights, batches, V, decayed, true);
  impls.push({ key: 'tfjs', run: (k) => timeSteps(() => m.step(), k, cpu), free: () => m.free() });
  const res = await rounds(impls, warm, nRounds, steps, say);
  for (const im of impls) im.free();
  return { res, keys: impls.map((im) => im.key), tf: tf.version_core, crossOriginIsolated: self.crossOriginIsolated,
    ua: navigator.userAgent };
}

/* ---- Node ------------------------------------------------------------------------------------------ */

async function tfjsPeer(weights, batches, V, decayed, fast) {
  const tf = require('@tensorflow/tfjs-core');
  const wasm = require('@tensorflow/tfjs-backend-wasm');
  wasm.setThreadsCount(1);
  await tf.setBackend('wasm');
  await tf.ready();
  registerTfGradients();
  const m = tfjsModel(tf, CONFIG, OPTIM, weights, batches, V, [...decayed], fast);
  return { ...m, name: `tfjs-backend-wasm ${require('@tensorflow/tfjs-backend-wasm/package.json').version}, 1 thread${fast ? '' : ', plain autograd'}` };
}

/* PyTorch in a child process (train_torch.py), one JSON line per request. env: added to the child's
   (LD_LIBRARY_PATH to swap the BLAS under Debian's torch). */
async function torchPeer(dir, V, decayed, env) {
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ ...CONFIG, vocab_size: V, batch: OPTIM.batch,
    lr: OPTIM.lr, warmup: OPTIM.warmup, weight_decay: OPTIM.weightDecay, beta1: OPTIM.beta1, beta2: OPTIM.beta2,
    eps: OPTIM.eps, clip: OPTIM.clip, decay: [...decayed] }));
  const p = spawn(PYTHON, [path.join(__dirname, 'train_torch.py'), '--weights', path.join(dir, 'init.safetensors'),
    '--batches', path.join(dir, 'batches.bin'), '--config', path.join(dir, 'config.json')],
  { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, OMP_NUM_THREADS: '1', OPENBLAS_NUM_THREADS: '1', ...env } });
  const lines = readline.createInterface({ input: p.stdout })[Symbol.asyncIterator]();
  const next = async () => {
    const r = await lines.next();
    if (r.done) throw new Error('train_torch.py stopped');
    return JSON.parse(r.value);
  };
  const ask = (o) => { p.stdin.write(JSON.stringify(o) + '\n'); return next(); };
  const hello = await next();
  return { name: `PyTorch ${hello.torch} CPU (${hello.capability}, ${hello.blas}), ${hello.threads} thread, native`, hello,
    run: (k) => ask({ run: k }), free: () => { p.stdin.end(JSON.stringify({ quit: 1 }) + '\n'); } };
}

/* Where an OpenBLAS libblas.so.3 is: --openblas DIR, Debian's package if installed, else one
   unpacked into .cache/openblas (see README.md); null when none. */
function openblasDir() {
  for (const d of [opt('--openblas'), '/usr/lib/x86_64-linux-gnu/openblas-pthread', path.join(root, '.cache', 'openblas')])
    if (d && fs.existsSync(path.join(d, 'libblas.so.3'))) return d;
  return null;
}

/* BlockLens's trainers (FMA and SIMD builds) from the same seed, or why there are none. */
async function blockLens(text) {
  const BlockLens = require(root), out = [];
  for (const [key, opts, name] of [['fma', {}, 'BlockLens wasm FMA build'], ['simd', { fma: false }, 'BlockLens wasm SIMD build']]) {
    const bl = await BlockLens.load(opts);
    if (typeof bl.trainer !== 'function') throw new Error('this build of web/dist/blocklens.js has no bl.trainer (bash tools/build)');
    if (key === 'fma' && !bl.fma) throw new Error('this Node did not load the FMA build (Node 22 does)');
    const t = bl.trainer({ text, config: CONFIG, seed: SEED, batch: OPTIM.batch, lr: OPTIM.lr,
      weightDecay: OPTIM.weightDecay, warmup: OPTIM.warmup });
    out.push({ key, short: name.replace(' wasm', '').replace(' build', ''), name, t, bl });
  }
  return out;
}

const nodeCpu = async () => cpuMs();

async function run() {
  const text = fs.readFileSync(path.join(root, 'web', 'models', 'poems', 'train.txt'), 'utf8');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'blocklens-trainbench-'));
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));   /* also when a step throws */
  const impls = [], trainers = await blockLens(text), t0 = trainers[0].t;
  /* The trainer's vocabulary and initial weights (t.save() before any step) for every peer, and
     its batches drawn again from the same seed. */
  const vocab = t0.vocab, V = vocab.length;
  const weights = checkWeights(readSafetensors(t0.save().files['model.safetensors']), V);
  writeSafetensors(path.join(dir, 'init.safetensors'), weights);
  const rows = trainRows(text, vocab);
  if (rows.length !== t0.trainLines) throw new Error(`${rows.length} training lines drawn again, the trainer has ${t0.trainLines}`);
  const total = WARM + ROUNDS * STEPS, batches = drawBatches(rows, total, OPTIM.batch, trainers[0].bl.numpyRandom(SEED));
  fs.writeFileSync(path.join(dir, 'batches.bin'), Buffer.from(batches.buffer));
  const list = batchList(batches, OPTIM.batch), positions = list.map((b) => OPTIM.batch * b.L);
  const decayed = new Set(Object.keys(weights).filter((k) => weights[k].shape.length === 2));
  log(`vocab ${V}, ${t0.parameters} parameters, ${rows.length} training lines, ${total} steps each, in ${dir}`);

  /* step() with a check that the trainer drew the batch drawn again here (its L and scored count) */
  const checked = (t) => () => {
    const loss = t.step(), b = list[t.steps - 1], scored = b.tokens.reduce((n, v, i) => n + (v >= 0 && i % (b.L + 1) > 0 ? 1 : 0), 0);
    if (t.lastStep.positions !== OPTIM.batch * b.L || t.lastStep.tokens !== scored)
      throw new Error(`step ${t.steps}: the trainer's batch (${t.lastStep.positions} positions, ${t.lastStep.tokens} scored) is not the one drawn again (${OPTIM.batch * b.L}, ${scored})`);
    return loss;
  };
  for (const b of trainers) impls.push({ key: b.key, name: b.name, short: b.short, run: (k) => timeSteps(checked(b.t), k, nodeCpu), free: () => b.t.free() });
  if (!args.includes('--no-tfjs')) {
    const tfp = await tfjsPeer(weights, batches, V, decayed, true);
    impls.push({ key: 'tfjs', name: tfp.name, short: 'tfjs-backend-wasm', run: (k) => timeSteps(() => tfp.step(), k, nodeCpu), free: () => tfp.free() });
    if (args.includes('--tfjs-plain')) {
      const tpl = await tfjsPeer(weights, batches, V, decayed, false);
      impls.push({ key: 'tfjs-plain', name: tpl.name, short: 'tfjs, plain autograd', run: (k) => timeSteps(() => tpl.step(), k, nodeCpu), free: () => tpl.free() });
    }
  }
  if (!args.includes('--no-torch')) {
    const tp = await torchPeer(dir, V, decayed, {});
    impls.push({ key: 'torch', name: tp.name, short: 'PyTorch, reference BLAS', run: (k) => tp.run(k), free: tp.free });
    const ob = openblasDir();
    if (ob) {
      const to = await torchPeer(dir, V, decayed, { LD_LIBRARY_PATH: ob });
      if (to.hello.blas !== 'OpenBLAS') throw new Error(`torch under LD_LIBRARY_PATH=${ob} loaded ${to.hello.blas}`);
      impls.push({ key: 'torch-openblas', name: to.name, short: 'PyTorch + OpenBLAS', run: (k) => to.run(k), free: to.free });
    } else log('no OpenBLAS found (--openblas DIR): PyTorch runs on Debian\'s reference BLAS only');
  }
  const res = await rounds(impls, WARM, ROUNDS, STEPS, log);
  for (const im of impls) Object.assign(res[im.key], { name: im.name, short: im.short });
  for (const im of impls) im.free();
  let chrome = null;
  if (!args.includes('--no-chromium')) {
    log('Chromium');
    chrome = await chromiumPart(dir, V, decayed);
    const names = { fma: 'BlockLens wasm FMA build', simd: 'BlockLens wasm SIMD build', tfjs: `tfjs-backend-wasm ${chrome.tf}, 1 thread` };
    for (const k of chrome.keys) Object.assign(chrome.res[k], { name: names[k], short: names[k].replace(' wasm', '').replace(' build', '').split(',')[0] });
  }
  fs.rmSync(dir, { recursive: true, force: true });
  return { res, impls: impls.map((im) => im.key), chrome, V, total, positions, lines: rows.length, params: t0.parameters };
}

/* The page: Debian's Chromium, files through request interception (no server, no network):
   web/dist/blocklens.js, tfjs-core's and tfjs-backend-wasm's browser bundles, the gradients
   (bundled by esbuild as in Node), the weights, the batches, the text. */
async function chromiumPart(dir, V, decayed) {
  const bench = require('./browser.js');
  const nm = (p) => path.join(root, 'node_modules', p), ORIGIN = 'http://bench.invalid';
  const grads = require('esbuild').buildSync({ entryPoints: [require.resolve('@tensorflow/tfjs-core/dist/register_all_gradients.js')],
    bundle: true, platform: 'browser', format: 'iife', write: false, logLevel: 'error' }).outputFiles[0].text;
  const FILES = { '/blocklens.js': path.join(root, 'web', 'dist', 'blocklens.js'),
    '/tf-core.min.js': nm('@tensorflow/tfjs-core/dist/tf-core.min.js'),
    '/tfwasm/tf-backend-wasm.min.js': nm('@tensorflow/tfjs-backend-wasm/dist/tf-backend-wasm.min.js'),
    '/init.safetensors': path.join(dir, 'init.safetensors'), '/batches.bin': path.join(dir, 'batches.bin'),
    '/train.txt': path.join(root, 'web', 'models', 'poems', 'train.txt') };
  const PAGE = '<!doctype html><meta charset="utf-8"><title>train bench</title><script src="/blocklens.js"></script>' +
    '<script src="/tf-core.min.js"></script><script src="/tfwasm/tf-backend-wasm.min.js"></script><script src="/grads.js"></script>';
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'blocklens-trainbench-chromium-'));
  const browser = await bench.launch({ profile });
  try {
    const page = await browser.newPage();
    bench.watch(page, log);
    page.on('console', (m) => log(`[page] ${m.text()}`));
    await page.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.origin !== ORIGIN) return route.abort();
      const p = url.pathname;
      if (p === '/') return route.fulfill({ contentType: 'text/html', body: PAGE });
      if (p === '/grads.js') return route.fulfill({ contentType: 'text/javascript', body: grads });
      let file = FILES[p];
      if (!file && /^\/tfwasm\/tfjs-backend-wasm[\w-]*\.wasm$/.test(p)) file = nm('@tensorflow/tfjs-backend-wasm/dist/' + path.basename(p));
      if (!file) return route.fulfill({ status: 404, body: '' });
      return route.fulfill({ contentType: p.endsWith('.wasm') ? 'application/wasm' : p.endsWith('.js') ? 'text/javascript' : 'application/octet-stream',
        body: fs.readFileSync(file) });
    });
    /* the renderer main thread's CPU time (the DevTools protocol's ThreadTime), in ms */
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    await page.exposeFunction('__cpu', async () =>
      1000 * (await cdp.send('Performance.getMetrics')).metrics.find((x) => x.name === 'ThreadTime').value);
    await page.goto(ORIGIN + '/');
    await page.addScriptTag({ content: [readSafetensors, f16, tfjsModel, batchList, timeSteps, rounds, pageRun].map((f) => f.toString()).join('\n') });
    const r = await page.evaluate((a) => pageRun(...a), [CONFIG, OPTIM, V, [...decayed], WARM, ROUNDS, STEPS, SEED]);
    r.version = browser.browser() ? browser.browser().version() : '';
    return r;
  } finally {
    await browser.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

/* ---- report ------------------------------------------------------------------------------------------ */
const BL_KEYS = ['fma', 'simd'];
const spread = (a) => `${median(a).toFixed(2)}x (${Math.min(...a).toFixed(2)} - ${Math.max(...a).toFixed(2)})`;

/* The speed table and the ratio table of one run (Node or the page); pos: positions (batch x L)
   of each step, the same for every implementation. */
function speedTables(res, keys, pos, L) {
  const roundPos = res[keys[0]].wall.map((_, r) => pos.slice(WARM + r * STEPS, WARM + (r + 1) * STEPS).reduce((a, b) => a + b, 0));
  const rate = (t) => median(t.map((s, r) => roundPos[r] / s)).toFixed(0);
  L.push('| implementation | tokens/s, wall: median over rounds | ms / step, wall: median (min - max) | CPU ms / step | tokens/s from CPU time |',
    '|---|---:|---:|---:|---:|');
  for (const k of keys) {
    const R = res[k], ms = R.wall.map((s) => (s * 1000) / STEPS);
    L.push(`| ${R.name} | ${rate(R.wall)} | ${median(ms).toFixed(1)} (${Math.min(...ms).toFixed(1)} - ${Math.max(...ms).toFixed(1)}) | ` +
      `${((median(R.cpu) * 1000) / STEPS).toFixed(1)} | ${rate(R.cpu)} |`);
  }
  /* tokens/s of the row over the column's, pair by pair within each round (the same batches) */
  const peers = keys.filter((k) => !BL_KEYS.includes(k)), bls = keys.filter((k) => BL_KEYS.includes(k));
  const colKeys = peers.filter((k) => k !== 'tfjs-plain').concat(peers.includes('tfjs-plain') ? ['tfjs-plain'] : []);
  if (!colKeys.length || !bls.length) return;
  L.push('', 'Speed of each BlockLens build over each peer (tokens/s ratio, > 1: BlockLens is faster), median over rounds (min - max):', '',
    `| | ${colKeys.map((k) => `over ${res[k].short}: wall | CPU`).join(' | ')} |`,
    `|---|${colKeys.map(() => '---:|---:').join('|')}|`);
  for (const r of bls)
    L.push(`| ${res[r].name} | ${colKeys.map((c) => `${spread(res[c].wall.map((s, i) => s / res[r].wall[i]))} | ${spread(res[c].cpu.map((s, i) => s / res[r].cpu[i]))}`).join(' | ')} |`);
}

/* Losses at chosen steps and the largest difference from ref over all steps. */
function lossTable(res, keys, ref, L) {
  const n = ref.losses.length, at = [0, 1, WARM, Math.floor(n / 2), n - 1].filter((v, i, a) => v < n && a.indexOf(v) === i);
  const early = Math.min(10, n);
  L.push(`| implementation | ${at.map((s) => `step ${s + 1}`).join(' | ')} | max \\|loss - ${ref.short}\\|, steps 1-${early} | all ${n} steps |`,
    `|---|${at.map(() => '---:').join('|')}|---:|---:|`);
  for (const k of keys) {
    const R = res[k], d = (m) => R.losses.slice(0, m).reduce((a, x, i) => Math.max(a, Math.abs(x - ref.losses[i])), 0).toExponential(2);
    L.push(`| ${R.name} | ${at.map((s) => R.losses[s].toFixed(5)).join(' | ')} | ${R === ref ? '-' : d(early)} | ${R === ref ? '-' : d(n)} |`);
  }
}

function report(o, load0, load1, minutes) {
  const { res } = o, keys = o.impls, L = [];
  const ref = res.torch || res[keys[keys.length - 1]];
  L.push('# Training speed: BlockLens against tfjs-backend-wasm and PyTorch CPU (issue 22)', '',
    `Written by \`node tools/bench/train.js\` on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ` +
    `Node ${process.version}, ${os.cpus()[0].model}, ${os.cpus().length} cores shared with other jobs ` +
    `(load average ${load0.map((x) => x.toFixed(1)).join(' ')} at the start, ${load1.map((x) => x.toFixed(1)).join(' ')} at the end); ${minutes} min.`, '',
    `The poem config: vocab ${o.V} (\`<s>\`, \`<unk>\`, the characters of web/models/poems/train.txt), n_embd ${CONFIG.n_embd}, ` +
    `${CONFIG.n_layer} layers, ${CONFIG.n_head} heads, n_inner ${CONFIG.n_inner}, ReLU, context ${CONFIG.n_positions}, batch ${OPTIM.batch}, ` +
    `tied embeddings, ${o.params} parameters; AdamW (lr ${OPTIM.lr}, linear warm-up ${OPTIM.warmup} steps, then constant, ` +
    `betas ${OPTIM.beta1} / ${OPTIM.beta2}, eps ${OPTIM.eps}, decay ${OPTIM.weightDecay} on the matrices${OPTIM.clip ? `, clip ${OPTIM.clip}` : ', no clipping'}). ` +
    `One thread everywhere. Every implementation starts from the trainer's initial weights (\`t.save()\` before its first step, seed ${SEED}) ` +
    `and trains on the trainer's batches: ${OPTIM.batch} of its ${o.lines} training lines (\`<s>\` + a poem cut to ${CONFIG.n_positions} characters) ` +
    `drawn with the same seeded stream (\`bl.numpyRandom(${SEED}).rand\`), padded to the batch's longest line L, padding not scored; ` +
    `each BlockLens step checks its batch has the L and scored count of the one drawn again here. A step computes batch x L positions ` +
    `(L median ${median(o.positions.map((p) => p / OPTIM.batch))}, ${o.positions.filter((p) => p === OPTIM.batch * CONFIG.n_positions).length} of ${o.total} steps at the full ${CONFIG.n_positions}); ` +
    'tokens/s counts those positions.', '');
  L.push('## Node', '', `${WARM} warm-up steps each, then ${ROUNDS} rounds of ${STEPS} steps each, the order reversed every other round; ` +
    'per step: wall time and CPU time (Node: `process.cpuUsage()`; torch: `time.thread_time()`); ratios are taken round by round, then the median (min - max).', '');
  speedTables(res, keys, o.positions, L);
  if (o.chrome) {
    const c = o.chrome;
    L.push('', '## Chromium', '', `Debian's Chromium ${c.version}, headless, one page (crossOriginIsolated ${c.crossOriginIsolated}: ` +
      'one thread for every wasm), the same weights, batches, warm-up and rounds; CPU time is the renderer main thread\'s (DevTools `ThreadTime`).', '');
    speedTables(c.res, c.keys, o.positions, L);
  } else L.push('', '## Chromium', '', 'Not run (`--no-chromium`).');
  L.push('', '## Do they compute the same thing?', '',
    `Loss (nats per token, of each step's batch before its update) at chosen steps and the largest difference from ${ref.short} ` +
    `over all ${ref.losses.length} steps (ln ${o.V} = ${Math.log(o.V).toFixed(4)}). Node:`, '');
  lossTable(res, keys, ref, L);
  if (o.chrome) {
    const c = o.chrome, cr = { ...ref, short: ref.short + ' (Node)' }, cres = { ...c.res, ref: cr };
    L.push('', 'Chromium, against the same reference:', '');
    lossTable(cres, c.keys, cr, L);
  }
  return L.join('\n') + '\n';
}

async function main() {
  if (Number(process.versions.node.split('.')[0]) < 22 && fs.existsSync(NODE22)) {
    const r = spawnSync(NODE22, [__filename, ...args], { stdio: 'inherit' });
    process.exit(r.status === null ? 1 : r.status);
  }
  const load0 = os.loadavg(), start = Date.now();
  /* --json FILE keeps the measurements; --from-json FILE writes the report from them again */
  const again = opt('--from-json');
  const o = again ? JSON.parse(fs.readFileSync(again, 'utf8')) : await run();
  if (!again) Object.assign(o, { load0, load1: os.loadavg(), minutes: ((Date.now() - start) / 60000).toFixed(1) });
  if (opt('--json')) fs.writeFileSync(opt('--json'), JSON.stringify(o));
  const text = report(o, o.load0, o.load1, o.minutes);
  fs.writeFileSync(outFile, text);
  process.stdout.write(text);
  log(`wrote ${path.relative(process.cwd(), outFile)}`);
}

if (require.main === module) main().catch((e) => { log(e.stack || String(e)); process.exit(1); });
module.exports = { trainRows, drawBatches, batchList, readSafetensors, writeSafetensors, shapes, checkWeights };
