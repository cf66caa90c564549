#!/usr/bin/env node
/* tools/bench/wllama.js - BlockLens against wllama (llama.cpp's wasm build, @wllama/wllama) on a
   Llama model of SmolLM2-135M's shapes with random weights, in headless Chromium, one thread each.
   A benchmark: it prints numbers and asserts nothing beyond sanity (finite logits, the peer
   evaluating every prompt token).

   usage:  bash tools/build && node tools/bench/wllama.js [--rounds 5] [--lengths 8,64] [--gguf f16] [--out FILE]
     --rounds N    timed calls per length and implementation, interleaved (default 5)
     --lengths     prompt lengths (default 8,64; with --gguf f32 8,64,256)
     --out FILE    the Markdown report (default tools/bench/REPORT-wllama.md; '-' prints only)
     --dir DIR     where the model files go (default $TMPDIR/blocklens-wllama-smollm2; kept, reused)
     --peer-log    print every console line of the page (llama.cpp's own log included)
     --gguf TYPE   wllama's matrices: f16 (default), f32 (llama.cpp's other float path, 0.54 GB) or
                   q8_0 (8-bit blocks, what wllama users often load; not the same weights any more)

   The weights are llama.js's checkpoint('BF16') (the same bytes BlockLens loads), written again
   by gguf.js as GGUF F16 (matrices F16, norms F32, q/k rows permuted into llama.cpp's rope order,
   tied: no output.weight) with a synthetic SentencePiece vocabulary. Chromium gets the files from
   a loopback server; the page is not cross-origin isolated, so wllama runs single-threaded in its
   Worker (Memory64 + JSPI build), and BlockLens (FMA build) on the page's main thread.
   Timed: BlockLens model.forward(ids, { layers: [] }) (all L x vocab logits); the same on a
   checkpoint with a 256-token vocabulary (to estimate a last-row-only forward); wllama
   createCompletion({ prompt, max_tokens: 1, cache_prompt: false }) (one batch of L ids,
   logits of the last position, one greedy token), in wall time around the call and in
   llama.cpp's own timings.prompt_ms. */
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const http = require('node:http');
const bench = require('./browser.js');
const gguf = require('./gguf.js');
const { checkpoint, SHAPE } = require('./llama.js');

const root = path.join(__dirname, '..', '..');
const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const ROUNDS = Number(opt('--rounds', 5));
const OUT = opt('--out', path.join(__dirname, 'REPORT-wllama.md'));
const DIR = opt('--dir', process.env.BLOCKLENS_BENCH_DIR || path.join(os.tmpdir(), 'blocklens-wllama-smollm2'));
const GGUF_TYPE = opt('--gguf', 'f16');
/* F16 and Q8_0 take wllama about a minute at L 256 here: left out by default to stay near 5 min */
const LENGTHS = opt('--lengths', GGUF_TYPE === 'f32' ? '8,64,256' : '8,64').split(',').map(Number);
if (!['f16', 'f32', 'q8_0'].includes(GGUF_TYPE)) throw new Error(`--gguf: f16, f32 or q8_0, not ${GGUF_TYPE}`);
const GGUF_FILE = `model-${GGUF_TYPE}.gguf`;
const log = (m) => process.stderr.write(m + '\n');
const { D, H, KVH, HD, F, V, NL } = SHAPE;
const CONFIG = { model_type: 'llama', hidden_size: D, intermediate_size: F, num_hidden_layers: NL,
  num_attention_heads: H, num_key_value_heads: KVH, vocab_size: V, max_position_embeddings: 8192,
  rms_norm_eps: 1e-5, rope_theta: 100000, tie_word_embeddings: true };

/* The tensors of a safetensors file's bytes: name -> { dtype, shape, data (a view) }. */
function tensorsOf(bytes) {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  const head = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n))), out = {};
  for (const [name, t] of Object.entries(head)) {
    if (name === '__metadata__') continue;
    const [a, b] = t.data_offsets, at = bytes.byteOffset + 8 + n + a;
    out[name] = { dtype: t.dtype, shape: t.shape, data: new Uint16Array(bytes.buffer, at, (b - a) / 2) };
  }
  return out;
}

/* A SentencePiece-style vocabulary llama.cpp accepts: <unk>, <s>, </s>, the 256 byte tokens
   (its byte fallback looks them up), then one code point each from U+1000 (below the
   surrogates): wllama takes its prompt as text only, and a text of those characters tokenizes
   to exactly one id per character (no piece is two characters long, so nothing merges). */
const FIRST = 259, CHAR0 = 0x1000;
function vocabulary(n) {
  const tokens = ['<unk>', '<s>', '</s>'], types = [2, 3, 3];
  for (let b = 0; b < 256; b++) { tokens.push(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`); types.push(6); }
  for (let i = FIRST; i < n; i++) { tokens.push(String.fromCodePoint(CHAR0 + i - FIRST)); types.push(1); }
  return { tokens, types };
}

/* The GGUF (llama architecture, F16 matrices) of the BF16 safetensors tensors. */
function toGguf(st, vocab, type) {
  const T = [], f32 = (name) => gguf.bf16ToF32(st[name].data);
  /* q/k are permuted before Q8_0 blocks are made (a block is 32 values of one row) */
  const base = type === 'f16' ? (name) => gguf.bf16ToF16(st[name].data) : f32;
  const MT = { f16: gguf.F16, f32: gguf.F32, q8_0: gguf.Q8_0 }[type], fin = type === 'q8_0' ? gguf.toQ8_0 : (x) => x;
  const mat = (name) => fin(base(name)), perm = (name, nh) => fin(gguf.permuteQK(base(name), nh, D));
  const add = (name, shape, type, data) => T.push({ name, shape, type, data });
  add('token_embd.weight', [V, D], MT, mat('model.embed_tokens.weight'));
  add('output_norm.weight', [D], gguf.F32, f32('model.norm.weight'));
  for (let l = 0; l < NL; l++) {
    const p = `model.layers.${l}.`, b = `blk.${l}.`;
    add(b + 'attn_norm.weight', [D], gguf.F32, f32(p + 'input_layernorm.weight'));
    add(b + 'attn_q.weight', [H * HD, D], MT, perm(p + 'self_attn.q_proj.weight', H));
    add(b + 'attn_k.weight', [KVH * HD, D], MT, perm(p + 'self_attn.k_proj.weight', KVH));
    add(b + 'attn_v.weight', [KVH * HD, D], MT, mat(p + 'self_attn.v_proj.weight'));
    add(b + 'attn_output.weight', [D, H * HD], MT, mat(p + 'self_attn.o_proj.weight'));
    add(b + 'ffn_norm.weight', [D], gguf.F32, f32(p + 'post_attention_layernorm.weight'));
    add(b + 'ffn_gate.weight', [F, D], MT, mat(p + 'mlp.gate_proj.weight'));
    add(b + 'ffn_up.weight', [F, D], MT, mat(p + 'mlp.up_proj.weight'));
    add(b + 'ffn_down.weight', [D, F], MT, mat(p + 'mlp.down_proj.weight'));
  }
  const meta = {
    'general.architecture': gguf.str('llama'), 'general.name': gguf.str('blocklens-random-smollm2-135m-shape'),
    'general.file_type': gguf.u32({ f32: 0, f16: 1, q8_0: 7 }[type]),   /* llama_ftype */
    'llama.context_length': gguf.u32(CONFIG.max_position_embeddings), 'llama.embedding_length': gguf.u32(D),
    'llama.block_count': gguf.u32(NL), 'llama.feed_forward_length': gguf.u32(F),
    'llama.attention.head_count': gguf.u32(H), 'llama.attention.head_count_kv': gguf.u32(KVH),
    'llama.attention.key_length': gguf.u32(HD), 'llama.attention.value_length': gguf.u32(HD),
    'llama.rope.dimension_count': gguf.u32(HD), 'llama.rope.freq_base': gguf.f32(CONFIG.rope_theta),
    'llama.attention.layer_norm_rms_epsilon': gguf.f32(CONFIG.rms_norm_eps), 'llama.vocab_size': gguf.u32(V),
    'tokenizer.ggml.model': gguf.str('llama'), 'tokenizer.ggml.tokens': gguf.arr('str', vocab.tokens),
    'tokenizer.ggml.scores': gguf.arr('f32', vocab.tokens.map((_, i) => -i)),
    'tokenizer.ggml.token_type': gguf.arr('i32', vocab.types),
    'tokenizer.ggml.unknown_token_id': gguf.u32(0), 'tokenizer.ggml.bos_token_id': gguf.u32(1),
    'tokenizer.ggml.eos_token_id': gguf.u32(2), 'tokenizer.ggml.add_bos_token': gguf.bool(false),
    'tokenizer.ggml.add_eos_token': gguf.bool(false), 'tokenizer.ggml.add_space_prefix': gguf.bool(false)
  };
  return gguf.write(meta, T);
}

/* The model folders (BlockLens's full one, its 256-token-vocabulary twin, the GGUF), written once. */
function prepare() {
  const done = path.join(DIR, 'done-' + GGUF_TYPE);
  if (fs.existsSync(done)) return JSON.parse(fs.readFileSync(done, 'utf8'));
  fs.mkdirSync(DIR, { recursive: true });
  const t0 = performance.now(), vocab = vocabulary(V);
  const bytes = checkpoint('BF16'), st = tensorsOf(bytes);
  fs.writeFileSync(path.join(DIR, 'model.safetensors'), bytes);
  fs.writeFileSync(path.join(DIR, 'config.json'), JSON.stringify(CONFIG));
  fs.writeFileSync(path.join(DIR, 'vocab.json'), JSON.stringify(vocab.tokens));
  const g = toGguf(st, vocab, GGUF_TYPE);
  fs.writeFileSync(path.join(DIR, GGUF_FILE), g);
  /* the twin: the same layers, embed_tokens cut to its first 256 rows (and the tied unembedding) */
  const small = path.join(DIR, 'small');
  fs.mkdirSync(small, { recursive: true });
  const head = {}, parts = [];
  let off = 0;
  for (const [name, t] of Object.entries(st)) {
    const data = name === 'model.embed_tokens.weight' ? t.data.subarray(0, 256 * D) : t.data;
    const shape = name === 'model.embed_tokens.weight' ? [256, D] : t.shape;
    head[name] = { dtype: 'BF16', shape, data_offsets: [off, off + data.byteLength] };
    off += data.byteLength;
    parts.push(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  }
  let text = JSON.stringify(head);
  while (text.length % 8) text += ' ';
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(text.length));
  fs.writeFileSync(path.join(small, 'model.safetensors'), Buffer.concat([len, Buffer.from(text), ...parts]));
  fs.writeFileSync(path.join(small, 'config.json'), JSON.stringify(Object.assign({}, CONFIG, { vocab_size: 256 })));
  fs.writeFileSync(path.join(small, 'vocab.json'), JSON.stringify(vocab.tokens.slice(0, 256)));
  const info = { safetensors: bytes.length, gguf: g.length, seconds: (performance.now() - t0) / 1000 };
  fs.writeFileSync(done, JSON.stringify(info));
  log(`wrote ${DIR} in ${info.seconds.toFixed(1)} s`);
  return info;
}

/* ---- in the page ------------------------------------------------------------------------------- */

/* Before any page script: record wasm memories made on the page (BlockLens's), and prefix every
   JavaScript Blob made into a URL (wllama's Worker) with the same recorder, so its heap can be read. */
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
    if (obj instanceof Blob && /javascript/.test(obj.type))
      obj = new Blob([`(${hook.toString()})(self);\n`, obj], { type: obj.type });
    return make.call(URL, obj);
  };
}

/* Loads both peers (timed); returns what the driver reports. Runs in the page. */
async function pageLoad() {
  const get = async (url) => { const r = await fetch(url); if (!r.ok) throw new Error(url + ': ' + r.status); return r.blob(); };
  const folder = async (p) => ({ 'config.json': await get(p + 'config.json'), 'vocab.json': await get(p + 'vocab.json'),
    'model.safetensors': await get(p + 'model.safetensors') });
  const st = window.__st = {}, out = {};
  let t0 = performance.now();
  const bl = await BlockLens.load();
  out.blEngine = performance.now() - t0;
  out.fma = bl.fma;
  const heap0 = self.__heap(), files = await folder('/model/');
  t0 = performance.now();
  st.model = await bl.loadModel({ files });
  out.blLoad = performance.now() - t0;
  out.blHeapEngine = heap0;
  out.blHeapLoad = self.__heap();
  out.blWeights = st.model.heapBytes;
  const ggufBlob = new File([await get('/model.gguf')], 'model.gguf');
  t0 = performance.now();
  st.wl = new window.Wllama({ default: location.origin + '/wllama/esm/wasm/wllama.wasm' }, { suppressNativeLog: false });
  await st.wl.loadModel([ggufBlob], { n_threads: 1, n_gpu_layers: 0, n_ctx: 1024, n_batch: 512, n_ubatch: 512,
    n_parallel: 1, seed: 1 });
  out.wlLoad = performance.now() - t0;
  out.wlThreads = st.wl.getNumThreads();
  out.wlMultithread = st.wl.isMultithread();
  out.wlInfo = st.wl.getLoadedContextInfo();
  out.wlVersion = window.Wllama.getLibllamaVersion ? window.Wllama.getLibllamaVersion() : '?';
  out.crossOriginIsolated = self.crossOriginIsolated;
  return out;
}

/* One call of implementation key on L ids; returns its times (and, once, what it computed). */
async function pageCall(key, L, check) {
  /* ids past the special and byte tokens, so that wllama's prompt text is one character per id */
  const st = window.__st, V = st.model.vocabSize, ids = Array.from({ length: L }, (_, i) => 259 + (i * 7919 + 11) % (V - 259));
  if (key === 'wl') {
    const text = ids.map((id) => String.fromCodePoint(0x1000 + id - 259)).join(''), t0 = performance.now();
    const r = await st.wl.createCompletion({ prompt: text, max_tokens: 1, temperature: 0, cache_prompt: false, n_probs: 1 });
    const wall = performance.now() - t0, tm = r.timings || {};
    return { wall, promptMs: tm.prompt_ms, promptN: tm.prompt_n, cacheN: tm.cache_n, predictedMs: tm.predicted_ms,
      text: check ? r.choices[0].text : undefined, usage: r.usage };
  }
  const model = key === 'bl' ? st.model : st.small, use = key === 'bl' ? ids : ids.map((i) => i % 256);
  const t0 = performance.now(), res = model.forward(use, { layers: [] }), wall = performance.now() - t0;
  const lg = res.logits;
  let finite = true;
  for (let i = 0; i < lg.length; i++) if (!Number.isFinite(lg[i])) { finite = false; break; }
  let top = -1;
  if (check) {
    const row = lg.subarray((L - 1) * model.vocabSize);
    top = 0;
    for (let i = 1; i < row.length; i++) if (row[i] > row[top]) top = i;
  }
  return { wall, finite, top, topPiece: top >= 0 ? model.vocab[top] : undefined, rows: lg.length / model.vocabSize };
}

async function pageLoadSmall() {
  const get = async (url) => (await fetch(url)).blob();
  const files = { 'config.json': await get('/small/config.json'), 'vocab.json': await get('/small/vocab.json'),
    'model.safetensors': await get('/small/model.safetensors') };
  window.__st.small = await (await BlockLens.load()).loadModel({ files });
  return self.__heap();
}

/* ---- driver ------------------------------------------------------------------------------------ */
const PAGE = '<!doctype html><meta charset="utf-8"><title>wllama bench</title><script src="/blocklens.js"></script>' +
  '<script type="module">import { Wllama } from "/wllama/esm/index.js"; window.Wllama = Wllama; window.__wllamaReady = true;</script>';
const TYPES = { '.js': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };

function serve() {
  const wl = path.dirname(require.resolve('@wllama/wllama/package.json', { paths: [root] }));
  const files = { '/blocklens.js': path.join(root, 'web', 'dist', 'blocklens.js'), '/model.gguf': path.join(DIR, GGUF_FILE) };
  for (const n of ['config.json', 'vocab.json', 'model.safetensors']) {
    files['/model/' + n] = path.join(DIR, n);
    files['/small/' + n] = path.join(DIR, 'small', n);
  }
  const server = http.createServer((req, res) => {
    const p = new URL(req.url, 'http://x').pathname;
    if (p === '/') { res.writeHead(200, { 'content-type': 'text/html' }); return res.end(PAGE); }
    if (p === '/favicon.ico') { res.writeHead(204); return res.end(); }
    let file = files[p];
    if (!file && /^\/wllama\/esm\/[\w./-]+$/.test(p) && !p.includes('..')) file = path.join(wl, p.slice('/wllama/'.length));
    if (!file || !fs.existsSync(file)) { res.writeHead(404); return res.end(); }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream',
      'content-length': fs.statSync(file).size });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r(server)));
}

const median = (a) => { const b = [...a].sort((x, y) => x - y); return b[b.length >> 1]; };
const cell = (a) => `${median(a).toFixed(0)} (${Math.min(...a).toFixed(0)}-${Math.max(...a).toFixed(0)})`;
const MB = (b) => `${(b / 1e6).toFixed(0)} MB`;

async function main() {
  const info = prepare(), server = await serve(), origin = `http://127.0.0.1:${server.address().port}`;
  const browser = await bench.launch();
  const load0 = os.loadavg(), start = Date.now();
  try {
    const page = await browser.newPage();
    bench.watch(page, log);
    page.on('console', (m) => { const t = m.text(); if (args.includes('--peer-log') || /error|fail|warn/i.test(t)) log('[page] ' + t.slice(0, 300)); });
    await page.addInitScript(`(${initPage.toString()})();`);
    await page.goto(origin + '/');
    await page.waitForFunction(() => window.__wllamaReady && window.BlockLens);
    await page.addScriptTag({ content: [pageLoad, pageCall, pageLoadSmall].map((f) => f.toString()).join('\n') });
    log('loading both');
    const ld = await page.evaluate(() => pageLoad());
    const worker = () => { const w = page.workers(); if (w.length !== 1) throw new Error(`${w.length} workers, expected wllama's one`); return w[0]; };
    ld.wlHeapLoad = await worker().evaluate(() => self.__heap());
    log(JSON.stringify({ ...ld, wlInfo: undefined }));
    /* the heaps after the forwards at every length (wasm memory never shrinks: the peak) */
    const checks = {};
    for (const L of LENGTHS) {
      const b = await page.evaluate(([L]) => pageCall('bl', L, true), [L]);
      const w = await page.evaluate(([L]) => pageCall('wl', L, true), [L]);
      checks[L] = { bl: b, wl: w };
      log(`L ${L}: BlockLens top ${b.top} ${b.topPiece}, ${b.rows} rows, finite ${b.finite}; wllama "${w.text}", prompt_n ${w.promptN}`);
      if (!b.finite) throw new Error('BlockLens: non-finite logits');
      if (w.promptN !== L) throw new Error(`wllama evaluated ${w.promptN} prompt tokens, not ${L}`);
    }
    ld.blHeapPeak = await page.evaluate(() => self.__heap());
    ld.wlHeapPeak = await worker().evaluate(() => self.__heap());
    ld.blHeapWithSmall = await page.evaluate(() => pageLoadSmall());
    const T = {};
    for (const L of LENGTHS) {
      for (const k of ['bl', 'small', 'wl']) await page.evaluate(([k, L]) => pageCall(k, L, false), [k, L]);   /* warm-up */
      for (let r = 0; r < ROUNDS; r++) {
        const order = r % 2 ? ['wl', 'small', 'bl'] : ['bl', 'small', 'wl'];
        for (const k of order) {
          const x = await page.evaluate(([k, L]) => pageCall(k, L, false), [k, L]);
          if (x.finite === false) throw new Error(k + ': non-finite logits');
          (T[k + L] = T[k + L] || []).push(x.wall);
          if (k === 'wl') (T['wlp' + L] = T['wlp' + L] || []).push(x.promptMs);
        }
        const est = T['small' + L][r] + (T['bl' + L][r] - T['small' + L][r]) / L;
        (T['est' + L] = T['est' + L] || []).push(est);
        log(`L ${L} round ${r + 1}/${ROUNDS}: BlockLens ${T['bl' + L][r].toFixed(0)} ms, vocab-256 twin ${T['small' + L][r].toFixed(0)}, ` +
          `wllama ${T['wl' + L][r].toFixed(0)} (prompt_ms ${T['wlp' + L][r].toFixed(0)})`);
      }
    }
    const ua = await page.evaluate(() => navigator.userAgent);
    await page.close();
    const report = writeReport({ info, ld, checks, T, ua, load0, load1: os.loadavg(), minutes: (Date.now() - start) / 60000 });
    console.log(report);
    if (OUT !== '-') { fs.writeFileSync(OUT, report); log('wrote ' + path.relative(process.cwd(), OUT)); }
  } finally {
    await browser.close();
    server.close();
  }
}

function writeReport({ info, ld, checks, T, ua, load0, load1, minutes }) {
  const chrome = ua.replace(/.*(HeadlessChrome\/[\d.]+).*/, '$1'), cpu = os.cpus()[0] ? os.cpus()[0].model : '?';
  const ratio = (a, b) => median(a.map((t, r) => b[r] / t));   /* pair by pair: peer / BlockLens */
  const rows = LENGTHS.map((L) => `| ${L} | ${cell(T['bl' + L])} | ${cell(T['est' + L])} | ${cell(T['wl' + L])} | ${cell(T['wlp' + L])} | ` +
    `**${ratio(T['bl' + L], T['wl' + L]).toFixed(2)}x** | **${ratio(T['est' + L], T['wl' + L]).toFixed(2)}x** | ${ratio(T['bl' + L], T['wlp' + L]).toFixed(2)}x |`);
  const agree = LENGTHS.map((L) => `L ${L}: BlockLens's argmax of the last row ${checks[L].bl.top} ("${checks[L].bl.topPiece}"), ` +
    `wllama's greedy token "${checks[L].wl.text}"`).join('; ');
  return `# BlockLens against wllama (llama.cpp's wasm): SmolLM2-135M shapes, Chromium, GGUF ${GGUF_TYPE.toUpperCase()}

Written by \`node tools/bench/wllama.js --rounds ${ROUNDS} --lengths ${LENGTHS.join(',')}${GGUF_TYPE === 'f16' ? '' : ' --gguf ' + GGUF_TYPE}\` on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC:
${chrome}, ${os.cpus().length} x ${cpu} shared with other jobs, load average ${load0.map((x) => x.toFixed(1)).join(' / ')} at the
start and ${load1.map((x) => x.toFixed(1)).join(' / ')} at the end; the run took ${minutes.toFixed(1)} min. Read the ratios
(taken pair by pair within a round), not the absolute times.

Model: random weights of SmolLM2-135M's shapes (30 layers, d 576, 9 query / 3 kv heads of 64, d_ff
1536, vocab 49152, tied; \`llama.js\`'s generator): BlockLens loads the BF16 safetensors
(${MB(info.safetensors)}, kept in the heap as BF16), wllama ${ld.wlVersion === '?' ? '' : `(libllama ${ld.wlVersion}) `}the same values as GGUF ${GGUF_TYPE.toUpperCase()} written by
\`gguf.js\` (${MB(info.gguf)}: matrices ${GGUF_TYPE.toUpperCase()}, norms F32, synthetic SentencePiece vocabulary).

Method: one page served from 127.0.0.1, not cross-origin isolated (crossOriginIsolated
${ld.crossOriginIsolated}), so wllama runs single-threaded (threads ${ld.wlThreads}, multithread ${ld.wlMultithread}) in
its Worker, without WebGPU (\`n_gpu_layers: 0\`); BlockLens ${ld.fma ? 'FMA' : 'SIMD'} build on the page's main thread. After a warm-up
call each, ${ROUNDS} rounds per prompt length, each calling the three once (the order reversed
every other round). BlockLens: \`model.forward(ids, { layers: [] })\`, which computes all L x
49152 logits and copies them out. "Last row only (est.)": BlockLens has no option to compute one
row of logits, so it is estimated within each round as the forward of a twin checkpoint with a
256-token vocabulary (same layers) plus 1/L of the difference to the full one. wllama:
\`createCompletion({ prompt, max_tokens: 1, temperature: 0, cache_prompt: false })\`, the prompt
the text of the L ids (one character each), which its tokenizer turns back into exactly those L
ids (timings.prompt_n is checked), evaluated as one batch (n_batch = n_ubatch = 512), logits of the last position only, one
greedy token; its wall time includes the Worker round trip and the server loop; \`prompt_ms\` is
llama.cpp's own timing of the prompt batch. wllama cannot return the logits of every position:
its API (llama-server's completion) gives the sampled tokens and their top probabilities only.

## Prompt evaluation (ms, median (min-max); target BlockLens / wllama >= 1.0x)

| L | BlockLens forward, all L rows of logits | BlockLens, last row only (est.) | wllama createCompletion, wall | wllama prompt_ms (its own) | wllama wall / BlockLens | wllama wall / BlockLens last row (est.) | wllama prompt_ms / BlockLens |
|---:|---:|---:|---:|---:|---:|---:|---:|
${rows.join('\n')}

Ratios above 1 mean BlockLens is faster. Sanity: every BlockLens logit finite; wllama evaluated
L prompt tokens every time (timings.prompt_n). ${agree} (${GGUF_TYPE.toUpperCase()} against BF16 weights: a near tie
can pick another token).

## Load and memory

| | BlockLens | wllama |
|---|---:|---:|
| engine start (wasm compile) | ${ld.blEngine.toFixed(0)} ms | in the load |
| load (Blobs already in the page to a ready model) | ${ld.blLoad.toFixed(0)} ms | ${ld.wlLoad.toFixed(0)} ms (Worker, wasm compile, GGUF read, context) |
| wasm heap before the model | ${MB(ld.blHeapEngine)} | - |
| wasm heap after load | ${MB(ld.blHeapLoad)} (weights ${MB(ld.blWeights)}) | ${MB(ld.wlHeapLoad)} |
| wasm heap after the forwards (peak: memory never shrinks) | ${MB(ld.blHeapPeak)} | ${MB(ld.wlHeapPeak)} |

wllama's heap is its Worker's wasm memory (memory64, shared), read through a recorder prefixed to
the Worker's Blob; BlockLens's is the page's. The vocab-256 twin was loaded after these were read
(heap then ${MB(ld.blHeapWithSmall)}).

Rerun: \`bash tools/build && node tools/bench/wllama.js\` (writes the model files once into
\`$TMPDIR/blocklens-wllama-smollm2\` or \`--dir\`, ${MB(info.safetensors + info.gguf)}; delete it afterwards).
`;
}

main().catch((e) => { log(e.stack || String(e)); process.exit(1); });
