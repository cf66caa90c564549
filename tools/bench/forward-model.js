/* forward-model.js - the checkpoint of the whole-model benchmark (forward.js): a Hugging Face
   GPT-2 folder shaped like GPT-2 small (n_embd 768, n_layer 12, n_head 12, n_positions 1024,
   vocab 50257, gelu_new, F32: 498 MB) with random weights from a seed, written once into a cache
   folder; its ONNX export and float64 reference logits (forward_onnx.py, Debian's torch); the ids.

   Weights: a 32-bit LCG (the one of cases.js) per tensor, uniform, scaled to the standard
   deviation GPT-2's own initialisation uses, so that activations stay O(1) through 12 layers and
   the logits are spread like a real model's (a few units): wte 0.05, wpe 0.01; c_attn and c_fc
   1/sqrt(fan_in) (unit-variance q, k and pre-activations, so attention is far from uniform);
   both c_proj 1/sqrt(fan_in) / sqrt(2 n_layer) (GPT-2's residual scaling); biases 0.02;
   layer-norm gains 1 +- 0.02 (x ~ U(-sqrt 3, sqrt 3) * std). The safetensors file is written
   tensor by tensor (never whole in memory). */
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const GPT2_SMALL = { model_type: 'gpt2', architectures: ['GPT2LMHeadModel'], n_embd: 768, n_layer: 12, n_head: 12,
  n_positions: 1024, n_ctx: 1024, vocab_size: 50257, activation_function: 'gelu_new', layer_norm_epsilon: 1e-5,
  bos_token_id: 50256, eos_token_id: 50256 };
const SEED = 20, L = 64;

/* The tensors in file order: [name, shape, std, offset] (HF's names without "transformer."). */
function tensorList(c) {
  const D = c.n_embd, F = 4 * D, NL = c.n_layer, proj = 1 / Math.sqrt(2 * NL), t = [];
  t.push(['wte.weight', [c.vocab_size, D], 0.05, 0], ['wpe.weight', [c.n_positions, D], 0.01, 0]);
  for (let l = 0; l < NL; l++) {
    const h = `h.${l}.`;
    t.push([h + 'ln_1.weight', [D], 0.02, 1], [h + 'ln_1.bias', [D], 0.02, 0],
      [h + 'attn.c_attn.weight', [D, 3 * D], 1 / Math.sqrt(D), 0], [h + 'attn.c_attn.bias', [3 * D], 0.02, 0],
      [h + 'attn.c_proj.weight', [D, D], proj / Math.sqrt(D), 0], [h + 'attn.c_proj.bias', [D], 0.02, 0],
      [h + 'ln_2.weight', [D], 0.02, 1], [h + 'ln_2.bias', [D], 0.02, 0],
      [h + 'mlp.c_fc.weight', [D, F], 1 / Math.sqrt(D), 0], [h + 'mlp.c_fc.bias', [F], 0.02, 0],
      [h + 'mlp.c_proj.weight', [F, D], proj / Math.sqrt(F), 0], [h + 'mlp.c_proj.bias', [D], 0.02, 0]);
  }
  t.push(['ln_f.weight', [D], 0.02, 1], ['ln_f.bias', [D], 0.02, 0]);
  return t;
}

/* Tensor i's values: its own LCG stream (seed mixed with i), uniform with the given std. */
function values(i, n, std, offset, seed) {
  const out = new Float32Array(n), a = std * Math.sqrt(3) / 2 ** 31;
  let s = (Math.imul(seed, 0x9e3779b1) ^ Math.imul(i + 1, 0x85ebca6b)) >>> 0;
  for (let j = 0; j < n; j++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[j] = offset + (s - 2 ** 31) * a;
  }
  return out;
}

/* Writes config.json, vocab.json (token i is "<i>", the last "<|endoftext|>") and
   model.safetensors into dir, streaming. */
function writeCheckpoint(dir, config = GPT2_SMALL, seed = SEED) {
  fs.mkdirSync(dir, { recursive: true });
  const list = tensorList(config), header = { __metadata__: { format: 'pt', blocklens_bench_seed: String(seed) } };
  let off = 0;
  for (const [name, shape] of list) {
    const bytes = 4 * shape.reduce((x, y) => x * y, 1);
    header[name] = { dtype: 'F32', shape, data_offsets: [off, off + bytes] };
    off += bytes;
  }
  let text = JSON.stringify(header);
  while ((8 + text.length) % 8) text += ' ';
  const file = path.join(dir, 'model.safetensors'), tmp = file + '.part', fd = fs.openSync(tmp, 'w');
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(text.length));
  fs.writeSync(fd, len);
  fs.writeSync(fd, Buffer.from(text, 'utf8'));
  list.forEach(([, shape, std, offset], i) => {
    const v = values(i, shape.reduce((x, y) => x * y, 1), std, offset, seed);
    fs.writeSync(fd, new Uint8Array(v.buffer));
  });
  fs.closeSync(fd);
  const vocab = Array.from({ length: config.vocab_size }, (_, i) => `<${i}>`);
  vocab[config.bos_token_id] = '<|endoftext|>';
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config, null, 2));
  fs.writeFileSync(path.join(dir, 'vocab.json'), JSON.stringify(vocab));
  fs.renameSync(tmp, file);   /* last: a folder with model.safetensors is complete */
  return 8 + text.length + off;
}

/* The benchmark's ids: <|endoftext|> then L - 1 ids from an LCG over the whole vocabulary. */
function benchIds(config = GPT2_SMALL, n = L, seed = SEED) {
  const ids = [config.bos_token_id];
  let s = seed >>> 0;
  while (ids.length < n) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    ids.push(Math.floor(s / 2 ** 32 * config.vocab_size));
  }
  return ids;
}

const defaultDir = () => process.env.BLOCKLENS_BENCH_DIR || path.join(os.tmpdir(), `blocklens-forward-gpt2-s${SEED}`);

/* The folder, the ONNX file and the reference, each made if missing: { dir, onnx, ref, ids, ... }. */
function prepare(dir = defaultDir(), log = (m) => process.stderr.write(m + '\n')) {
  const ids = benchIds(), made = {};
  const st = path.join(dir, 'model.safetensors');
  if (!fs.existsSync(st)) {
    log(`writing the GPT-2-small-shaped checkpoint into ${dir}`);
    const t0 = Date.now();
    writeCheckpoint(dir);
    made.checkpoint = Date.now() - t0;
  }
  const onnx = path.join(dir, 'model.onnx'), ref = path.join(dir, `ref-L${ids.length}.f64`);
  const idsFile = path.join(dir, `ids-L${ids.length}.json`);
  if (!fs.existsSync(onnx) || !fs.existsSync(ref)) {
    fs.writeFileSync(idsFile, JSON.stringify(ids));
    log('exporting it to ONNX with torch (tools/bench/forward_onnx.py), float64 reference logits');
    try {
      execFileSync('/usr/bin/python3', ['-c', 'import torch, numpy'], { stdio: 'ignore' });
    } catch (e) {
      throw new Error('forward_onnx.py needs Debian\'s torch and numpy: apt-get install -y python3-torch python3-numpy');
    }
    const t0 = Date.now();
    execFileSync('/usr/bin/python3', [path.join(__dirname, 'forward_onnx.py'), dir, onnx + '.part', idsFile,
      ref + '.part'], { stdio: ['ignore', 'ignore', 'inherit'] });
    fs.renameSync(ref + '.part', ref);
    fs.renameSync(onnx + '.part', onnx);
    made.onnx = Date.now() - t0;
  }
  return { dir, onnx, ref, ids, made, config: GPT2_SMALL, seed: SEED,
    bytes: { safetensors: fs.statSync(st).size, onnx: fs.statSync(onnx).size } };
}

module.exports = { GPT2_SMALL, SEED, L, tensorList, writeCheckpoint, benchIds, prepare, defaultDir };

if (require.main === module) console.log(JSON.stringify(prepare(process.argv[2]), null, 1));
