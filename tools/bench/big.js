#!/usr/bin/env node
/* tools/bench/big.js - do checkpoints of real small-LLM sizes load? A random BF16 checkpoint of
   TinyLlama-1.1B's shapes (22 layers, d 2048, 32 / 4 heads of 64, d_ff 5632, vocab 32000, untied
   lm_head, rope_theta 10000: 2.2 GB) and of Qwen2.5-0.5B's (24 layers, d 896, 14 / 2 heads of 64,
   d_ff 4864, vocab 151936, tied, q/k/v bias: 0.99 GB), written as two shards with
   model.safetensors.index.json as Hugging Face does, loaded (a) in Node 22 with
   bl.loadModel(folder) and (b) in headless Chromium through the page's "Open a model folder…"
   file input (web/index.html from file://). Reports load time, wasm heap after load and at its
   peak, forward times; on a failure, the error and the heap it reached. Asserts nothing but
   finite logits. Deletes the files at the end (unless --keep).

   usage:  bash tools/build && node tools/bench/big.js [--models tinyllama,qwen05] [--no-chromium]
                                                       [--runs 3] [--keep] [--dir DIR] [--out FILE]
     --dir   parent of the model folders (default $TMPDIR); needs the checkpoint's size free
     --out   the Markdown report (default tools/bench/REPORT-big.md; '-' prints only) */
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const bench = require('./browser.js');

const root = path.join(__dirname, '..', '..');
const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const RUNS = Number(opt('--runs', 3));
const MODELS = opt('--models', 'tinyllama,qwen05').split(',');
const PARENT = opt('--dir', os.tmpdir());
const OUT = opt('--out', path.join(__dirname, 'REPORT-big.md'));
const NODE22 = path.join(root, '.cache', 'node22', 'node_modules', '.bin', 'node');
const LENGTHS = [8, 64];
const log = (m) => process.stderr.write(m + '\n');

const SPECS = {
  tinyllama: { name: 'TinyLlama-1.1B', config: { model_type: 'llama', hidden_size: 2048, intermediate_size: 5632,
    num_hidden_layers: 22, num_attention_heads: 32, num_key_value_heads: 4, vocab_size: 32000,
    max_position_embeddings: 2048, rms_norm_eps: 1e-5, rope_theta: 10000, tie_word_embeddings: false } },
  qwen05: { name: 'Qwen2.5-0.5B', config: { model_type: 'qwen2', hidden_size: 896, intermediate_size: 4864,
    num_hidden_layers: 24, num_attention_heads: 14, num_key_value_heads: 2, vocab_size: 151936,
    max_position_embeddings: 32768, rms_norm_eps: 1e-6, rope_theta: 1000000, tie_word_embeddings: true,
    use_sliding_window: false, sliding_window: 32768 } }
};

/* [name, shape] of every tensor, in Hugging Face's names (nn.Linear weights (out, in)). */
function tensorList(c) {
  const D = c.hidden_size, HD = D / c.num_attention_heads, Q = c.num_attention_heads * HD, KV = c.num_key_value_heads * HD;
  const F = c.intermediate_size, bias = c.model_type === 'qwen2', list = [['model.embed_tokens.weight', [c.vocab_size, D]]];
  for (let l = 0; l < c.num_hidden_layers; l++) {
    const p = `model.layers.${l}.`;
    list.push([p + 'input_layernorm.weight', [D]], [p + 'self_attn.q_proj.weight', [Q, D]],
      [p + 'self_attn.k_proj.weight', [KV, D]], [p + 'self_attn.v_proj.weight', [KV, D]]);
    if (bias) list.push([p + 'self_attn.q_proj.bias', [Q]], [p + 'self_attn.k_proj.bias', [KV]], [p + 'self_attn.v_proj.bias', [KV]]);
    list.push([p + 'self_attn.o_proj.weight', [D, Q]], [p + 'post_attention_layernorm.weight', [D]],
      [p + 'mlp.gate_proj.weight', [F, D]], [p + 'mlp.up_proj.weight', [F, D]], [p + 'mlp.down_proj.weight', [D, F]]);
  }
  list.push(['model.norm.weight', [D]]);
  if (!c.tie_word_embeddings) list.push(['lm_head.weight', [c.vocab_size, D]]);
  return list;
}
const count = (shape) => shape.reduce((a, b) => a * b, 1);

/* The folder: config.json, vocab.json (one code point per token, so the page's vocab tokenizer
   maps a text of n characters to <s> and n ids), two BF16 shards split near the middle and the
   index. Values uniform in [-0.05, 0.05) from an LCG (norm weights 1, so the activations stay sane),
   written tensor by tensor in 4 MB pieces: nothing of checkpoint size is held in memory. */
function writeFolder(dir, c) {
  fs.mkdirSync(dir, { recursive: true });
  const list = tensorList(c), total = list.reduce((n, [, s]) => n + 2 * count(s), 0);
  const shards = [[], []];
  let acc = 0;
  for (const t of list) { shards[acc < total / 2 ? 0 : 1].push(t); acc += 2 * count(t[1]); }
  const names = ['model-00001-of-00002.safetensors', 'model-00002-of-00002.safetensors'], weightMap = {};
  let seed = 1;
  const piece = new Uint16Array(1 << 21), f = new Float32Array(1), u = new Uint32Array(f.buffer);
  shards.forEach((tensors, si) => {
    const header = {};
    let off = 0;
    for (const [n, s] of tensors) { header[n] = { dtype: 'BF16', shape: s, data_offsets: [off, off + 2 * count(s)] }; off += 2 * count(s); weightMap[n] = names[si]; }
    let text = JSON.stringify(header);
    while (text.length % 8) text += ' ';
    const fd = fs.openSync(path.join(dir, names[si]), 'w'), len = Buffer.alloc(8);
    len.writeBigUInt64LE(BigInt(text.length));
    fs.writeSync(fd, len);
    fs.writeSync(fd, Buffer.from(text));
    for (const [n, s] of tensors) {
      const norm = /norm\.weight$/.test(n);
      for (let left = count(s); left > 0;) {
        const k = Math.min(left, piece.length);
        for (let i = 0; i < k; i++) {
          seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
          f[0] = norm ? 1 : ((seed >>> 8) / 16777216 - 0.5) * 0.1;
          piece[i] = u[0] >>> 16;
        }
        fs.writeSync(fd, new Uint8Array(piece.buffer, 0, 2 * k));
        left -= k;
      }
    }
    fs.closeSync(fd);
  });
  fs.writeFileSync(path.join(dir, 'model.safetensors.index.json'), JSON.stringify({ metadata: { total_size: total }, weight_map: weightMap }));
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(c));
  const vocab = ['<unk>', '<s>', '</s>'];
  for (let i = 3; i < c.vocab_size; i++) vocab.push(String.fromCodePoint(0x1000 + i + (0x1000 + i >= 0xd800 ? 0x800 : 0)));
  fs.writeFileSync(path.join(dir, 'vocab.json'), JSON.stringify(vocab));
  return { bytes: total, params: total / 2, shardBytes: names.map((n) => fs.statSync(path.join(dir, n)).size) };
}

/* ---- (a) Node: a child process (Node 22 where bash tools/bootstrap --tests put it) ------------- */
async function nodeChild(dir) {
  const BlockLens = require(root), out = { node: process.version };
  const bl = await BlockLens.load();
  out.build = bl.fma ? 'FMA' : bl.simd ? 'SIMD' : 'scalar';
  out.heapStart = bl.heapBytes();
  let model;
  const t0 = performance.now();
  try {
    model = await bl.loadModel(dir);
  } catch (e) {
    out.error = String(e.message || e);
    out.heapAtError = bl.heapBytes();
    out.maxRSS = process.resourceUsage().maxRSS * 1024;
    return out;
  }
  out.load = performance.now() - t0;
  out.heapLoad = bl.heapBytes();
  out.weights = model.heapBytes;
  out.forward = {};
  for (const L of LENGTHS) {
    const ids = Array.from({ length: L }, (_, i) => 3 + (i * 7919) % (model.vocabSize - 3));
    try {
      const ts = [];
      for (let r = 0; r <= RUNS; r++) {   /* the first is a warm-up */
        const t = performance.now(), res = model.forward(ids, { layers: [] }), dt = performance.now() - t;
        if (!res.logits.every(Number.isFinite)) throw new Error('non-finite logits');
        if (r) ts.push(dt);
      }
      out.forward[L] = ts;
    } catch (e) {
      out.forward[L] = String(e.message || e);
      out.heapAtError = bl.heapBytes();
    }
  }
  out.heapPeak = bl.heapBytes();
  out.maxRSS = process.resourceUsage().maxRSS * 1024;
  model.free();
  return out;
}

function runNode(dir) {
  const has22 = fs.existsSync(NODE22);
  const r = spawnSync(has22 ? NODE22 : process.execPath, [__filename, '--child', dir, '--runs', String(RUNS)],
    { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', maxBuffer: 1 << 24 });
  if (r.status !== 0) return { error: `the Node child exited with ${r.status} ${r.signal || ''}`.trim() };
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

/* ---- (b) Chromium: the page from file://, the folder through its file input ------------------- */

/* Before the page's scripts: a recorder of wasm memories prefixed to every JavaScript Blob made
   into a URL (the page's engine Worker runs from one), and the times body's data-open and
   data-status change. */
function initPage() {
  const hook = (scope) => {
    const M = WebAssembly.Memory;
    scope.__mems = [];
    WebAssembly.Memory = new Proxy(M, { construct(t, a, nt) { const m = Reflect.construct(t, a, nt); scope.__mems.push(m); return m; } });
    for (const f of ['instantiate', 'instantiateStreaming']) {
      const orig = WebAssembly[f];
      WebAssembly[f] = function () {
        return orig.apply(WebAssembly, arguments).then((r) => {
          const inst = r.instance || r;
          for (const v of Object.values(inst.exports || {})) if (v instanceof M && !scope.__mems.includes(v)) scope.__mems.push(v);
          return r;
        });
      };
    }
    scope.__heap = () => scope.__mems.reduce((n, m) => n + m.buffer.byteLength, 0);
  };
  hook(self);
  const make = URL.createObjectURL;
  URL.createObjectURL = function (obj) {
    if (obj instanceof Blob && /javascript/.test(obj.type)) obj = new Blob([`(${hook.toString()})(self);\n`, obj], { type: obj.type });
    return make.call(URL, obj);
  };
  self.__events = [];
  document.addEventListener('DOMContentLoaded', () => {
    new MutationObserver(() => self.__events.push([performance.now(), document.body.dataset.open || '', document.body.dataset.status || '']))
      .observe(document.body, { attributes: true, attributeFilter: ['data-open', 'data-status'] });
  });
}

async function runChromium(dir, c) {
  const browser = await bench.launch();
  const out = {}, errors = [];
  try {
    const page = await browser.newPage();
    bench.watch(page, (t) => errors.push(t));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text().slice(0, 300)); });
    await page.addInitScript(`(${initPage.toString()})();`);
    await page.goto(bench.fileUrl());
    await page.waitForFunction(() => document.body.dataset.status === 'ready', null, { timeout: 60000 });
    out.ua = await page.evaluate(() => navigator.userAgent);
    const heaps = async () => {
      const list = [];
      for (const w of page.workers()) { try { list.push(await w.evaluate(() => (self.__heap ? self.__heap() : 0))); } catch (e) { list.push(-1); } }
      return list;
    };
    out.heapBefore = await heaps();
    const t0 = await page.evaluate(() => performance.now());
    await page.setInputFiles('#open-dir-input', dir);
    await page.waitForFunction(() => ['opened', 'failed'].includes(document.body.dataset.open), null, { timeout: 8 * 60000, polling: 100 });
    const ev = await page.evaluate(() => self.__events);
    const opening = ev.find((e) => e[1] === 'opening'), done = ev.find((e) => e[1] === 'opened' || e[1] === 'failed');
    out.state = done[1];
    out.load = done[0] - (opening ? opening[0] : t0);
    out.heapLoad = await heaps();
    if (out.state === 'failed') {
      out.error = await page.evaluate(() => [...document.querySelectorAll('.field-err')].map((e) => e.textContent).filter(Boolean).join(' | '));
      return out;
    }
    out.info = await page.textContent('#open-info');
    await page.waitForFunction(() => document.body.dataset.status === 'ready', null, { timeout: 5 * 60000 });
    /* the page's update after the text changes: data-status leaves 'ready' (the debounce is over,
       the Worker computes) until it is 'ready' again (the forward of the shown layer and the figures) */
    const vocab = JSON.parse(fs.readFileSync(path.join(dir, 'vocab.json'), 'utf8'));
    out.update = {};
    for (const L of LENGTHS) {
      out.update[L] = [];
      for (let r = 0; r <= RUNS; r++) {
        const text = Array.from({ length: L - 1 }, (_, i) => vocab[3 + ((i + r) * 7919) % (c.vocab_size - 3)]).join('');
        const n0 = await page.evaluate(() => self.__events.length);
        await page.fill('#ctl-tokens', text);
        await page.waitForFunction((n) => { const e = self.__events.slice(n); return e.some((x) => x[2] !== 'ready') && document.body.dataset.status === 'ready'; },
          n0, { timeout: 5 * 60000, polling: 50 });
        const e = (await page.evaluate(() => self.__events)).slice(n0);
        const a = e.find((x) => x[2] !== 'ready'), b = e.filter((x) => x[2] === 'ready').pop();
        if (r) out.update[L].push(b[0] - a[0]);   /* the first is a warm-up */
      }
    }
    out.heapPeak = await heaps();
    return out;
  } catch (e) {
    out.error = (out.error ? out.error + ' | ' : '') + String(e.message || e).split('\n')[0];
    return out;
  } finally {
    out.pageErrors = errors;
    await browser.close();
  }
}

/* ---- driver and report ------------------------------------------------------------------------- */
const median = (a) => { const b = [...a].sort((x, y) => x - y); return b[b.length >> 1]; };
const cell = (a) => (Array.isArray(a) ? `${median(a).toFixed(0)} (${Math.min(...a).toFixed(0)}-${Math.max(...a).toFixed(0)}) ms` : `failed: ${a}`);
const GB = (b) => (b > 0 ? `${(b / 2 ** 30).toFixed(2)} GiB` : '-');
const maxOf = (a) => (Array.isArray(a) ? Math.max(0, ...a) : a || 0);

async function main() {
  const ci = args.indexOf('--child');
  if (ci >= 0) { process.stdout.write(JSON.stringify(await nodeChild(args[ci + 1])) + '\n'); return; }
  const start = Date.now(), load0 = os.loadavg(), results = [];
  for (const key of MODELS) {
    const spec = SPECS[key];
    if (!spec) throw new Error(`--models: unknown ${key} (${Object.keys(SPECS).join(', ')})`);
    const need = tensorList(spec.config).reduce((n, [, s]) => n + 2 * count(s), 0), free = fs.statfsSync(PARENT);
    const avail = free.bavail * free.bsize;
    if (avail < need * 1.1) throw new Error(`${PARENT}: ${GB(avail)} free, ${spec.name} needs ${GB(need)}`);
    const dir = path.join(PARENT, `blocklens-big-${key}`);
    log(`${spec.name}: writing ${GB(need)} into ${dir} (${GB(avail)} free)`);
    const t0 = performance.now(), w = writeFolder(dir, spec.config), write = performance.now() - t0;
    try {
      log(`${spec.name}: Node`);
      const node = runNode(dir);
      log(JSON.stringify(node));
      let chrome = null;
      if (!args.includes('--no-chromium')) { log(`${spec.name}: Chromium`); chrome = await runChromium(dir, spec.config); log(JSON.stringify(chrome)); }
      results.push({ key, spec, w, write, node, chrome });
    } finally {
      if (!args.includes('--keep')) fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  const report = writeReport(results, load0, os.loadavg(), (Date.now() - start) / 60000);
  console.log(report);
  if (OUT !== '-') fs.writeFileSync(OUT, report);
}

function writeReport(results, load0, load1, minutes) {
  const lines = [`# Real small-LLM sizes in BF16: do they load?

Written by \`node tools/bench/big.js${args.filter((a) => a !== '--out' && a !== OUT).map((a) => ' ' + a).join('')}\` on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC:
${os.cpus().length} x ${os.cpus()[0] ? os.cpus()[0].model : '?'} (shared), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM, load average ${load0.map((x) => x.toFixed(1)).join(' / ')}
at the start, ${load1.map((x) => x.toFixed(1)).join(' / ')} at the end; ${minutes.toFixed(1)} min. Random BF16 weights of each model's shapes
(uniform in [-0.05, 0.05), norm weights 1), two shards and model.safetensors.index.json, config.json and a
vocab.json; deleted after the run. wasm32's limit is 4 GiB (65536 pages); the heap is the engine's
\`WebAssembly.Memory\` byte length (it grows, never shrinks: after the forwards it is the peak).
Forward: \`model.forward(ids, { layers: [] })\` (all L x vocab logits), ${RUNS} timed after a warm-up.
Chromium: web/index.html from file://, the folder given to the page's "Open a model folder…" input
(\`#open-dir-input\`); the engine runs in the page's Worker, whose heap is read through a recorder
prefixed to the Worker's Blob. Load: \`body[data-open]\` 'opening' to 'opened'. Update: after the
token text changes, \`body[data-status]\` leaving 'ready' until 'ready' again (the Worker's forward
keeping the shown layer, then the figures; the debounce is before it).
`];
  for (const r of results) {
    const c = r.spec.config, n = r.node, ch = r.chrome;
    lines.push(`## ${r.spec.name} shapes: ${c.num_hidden_layers} layers, d ${c.hidden_size}, ${c.num_attention_heads} / ${c.num_key_value_heads} heads of ${c.hidden_size / c.num_attention_heads}, d_ff ${c.intermediate_size}, vocab ${c.vocab_size}, ${c.tie_word_embeddings ? 'tied' : 'untied lm_head'}${c.model_type === 'qwen2' ? ', q/k/v bias' : ''}

${(r.w.params / 1e9).toFixed(3)} B parameters, ${GB(r.w.bytes)} of BF16 in two shards (${r.w.shardBytes.map(GB).join(' + ')}), written in ${(r.write / 1000).toFixed(0)} s.

| | Node ${n.node || ''} (${n.build || '?'} build) | Chromium ${ch && ch.ua ? ch.ua.replace(/.*(HeadlessChrome\/[\d.]+).*/, '$1') : ''} (the page) |
|---|---:|---:|
| loads? | ${n.error ? 'no: ' + n.error : 'yes'} | ${!ch ? 'not run' : ch.state === 'opened' ? 'yes' : 'no: ' + (ch.error || ch.state)} |
| load time | ${n.load ? (n.load / 1000).toFixed(1) + ' s' : '-'} | ${ch && ch.load ? (ch.load / 1000).toFixed(1) + ' s' : '-'} |
| wasm heap after load | ${GB(n.heapLoad || n.heapAtError)} (weights ${GB(n.weights)}) | ${ch ? GB(maxOf(ch.heapLoad)) : '-'} |
| wasm heap peak (after the forwards) | ${GB(n.heapPeak)} | ${ch ? GB(maxOf(ch.heapPeak)) : '-'} |
| peak RSS of the process | ${GB(n.maxRSS)} | - |
${LENGTHS.map((L) => `| forward, L ${L}: Node model.forward / page update | ${n.forward ? cell(n.forward[L]) : '-'} | ${ch && ch.update ? cell(ch.update[L]) : '-'} |`).join('\n')}
${ch && ch.info ? `\nThe page's line: "${ch.info.trim()}".` : ''}${ch && ch.pageErrors && ch.pageErrors.length ? `\nPage errors: ${ch.pageErrors.slice(0, 5).join(' | ')}` : ''}
`);
  }
  lines.push(`Rerun: \`bash tools/build && node tools/bench/big.js\` (\`--models tinyllama\`, \`--no-chromium\`,
\`--keep\` to keep the folders in \`$TMPDIR/blocklens-big-*\`).
`);
  return lines.join('\n');
}

main().catch((e) => { log(e.stack || String(e)); process.exit(1); });
