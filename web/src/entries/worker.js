/* worker.js - the compute Worker: page -> { type: 'init', wasmModule? } first, then { id, spec, want }
   (spec null: cancel; want: the stages the page's figures need, all when absent) and
   { type: 'asset', name, files } (trained weights, before a spec needs them),
   { type: 'open', files, tokenizers } (a model folder: File[]; tokenizers: the tokenizer module's
   source for a Blob Worker, which cannot importScripts a file:// URL) and { type: 'cancelOpen' }.
   Worker -> { type: 'ready' }, { type: 'progress', id, stage, done, total },
   { type: 'part', id, stages } each time a stage is done and more follow,
   { type: 'done', id, stages } with only the stages the page does not have yet,
   { type: 'failed', id, message }, { type: 'fatal', message }, { type: 'openProgress', phase,
   bytesRead, bytesTotal }, { type: 'opened', meta } | { type: 'openFailed', message }; the page's
   tokenizer: { type: 'encode', n, serial, text } -> { type: 'encoded', n, ids } | { type: 'encoded',
   n, message } (meta.pieces: every id's label and text, model/pieces.js).
   Training (train/session.js; the page's Train view starts a Worker of its own for it):
   page -> { type: 'train', text, heldout, probe, config (GPT-2 keys), seed, batch, lr, weightDecay,
   warmup, steps, every, coverage? } (a new run; the last one is freed), { type: 'trainPause' },
   { type: 'trainResume', steps? } (steps: a larger total continues a finished run),
   { type: 'trainReset' } (frees it), { type: 'trainSave', purpose }. Worker -> { type: 'trainStarted',
   vocabSize, params, unigram, unseen, probe, heldChars, trainLines }, { type: 'trainProgress',
   losses: [[step, loss]], step, steps, ms (in steps), wall (with measurements), tokens (scored) } per tick,
   { type: 'trainSnapshot', step, heldout, sample, labels, ids, logits (the probe's last row),
   layers: [{ weights: Float32Array (H, L, L), zeros }] } every `every` steps and at 0,
   { type: 'trainState', state: 'running' | 'paused' | 'done' | 'idle', step },
   { type: 'trainSaved', files: { name: Uint8Array }, step, purpose }, { type: 'trainFailed', message }.
   The engine is self.BlockLens:
   prepended to this script (the Blob built from file://, the element bundle) or, for
   dist/blocklens-worker.js, loaded from the file beside it. */
import { createAssets } from '../model/assets.js';
import { byName, facts, needsTokenizer } from '../model/folder.js';
import { create, STAGES } from '../model/model.js';
import { pieceTable, tableBuffers } from '../model/pieces.js';
import { copyForTransfer, runner } from '../model/runner.js';
import { createSession } from '../train/session.js';

const TOK = Symbol.for('blocklens.tokenizers');

// The page encodes an opened folder's text through the tokenizer the engine loaded the model
// with (made once, here, off the page's thread): the module's fromFiles is wrapped so that the
// tokenizer it makes is kept. -> { take() -> the last one made since the previous take() }.
function keepTokenizers(scope) {
  const real = scope[TOK];
  let made = null;
  if (real && !real.keptBy) {
    scope[TOK] = Object.assign({}, real, { keptBy: 'worker', fromFiles: (files) => (made = real.fromFiles(files)) });
  }
  return { take: () => { const t = made; made = null; return t; } };
}

// The opened model's tokenizer for the page: { serial, tok } (null for a vocab.json list, which
// the page reads itself). An encode for an older model is refused.
function encodeFor(scope, current, m) {
  let ids = null, message = null;
  try {
    if (!current || current.serial !== m.serial) throw new Error('BlockLens: that model is no longer open');
    ids = Int32Array.from(current.tok.encode(String(m.text)));
  } catch (err) {
    message = String((err && err.message) || err);
  }
  if (ids) scope.postMessage({ type: 'encoded', n: m.n, ids }, [ids.buffer]);
  else scope.postMessage({ type: 'encoded', n: m.n, message });
}

export function main(scope) {
  const sent = {}, assets = createAssets();
  let early = [], run = null, started = false, model = null, loading = null;
  // The stages the page does not have yet, moved (not copied) to it.
  function post(type, id) {
    const stages = {}, buffers = [];
    STAGES.forEach((name) => {
      const e = model.entry(name);
      if (!e || sent[name] === e.key) return;
      stages[name] = { key: e.key, value: copyForTransfer(e.value, buffers) };
      sent[name] = e.key;
    });
    scope.postMessage({ type, id, stages }, buffers);
  }

  function start(wasmModule) {
    started = true;
    loading = scope.BlockLens.load(wasmModule ? { wasmModule } : undefined);
    loading.then((engine) => {
      model = create(engine, assets);
      run = runner(model, {
        progress: (id, stage, done, total) => scope.postMessage({ type: 'progress', id, stage, done, total }),
        done: (id) => post('done', id),
        part: (id) => post('part', id),
        failed: (id, err) => scope.postMessage({ type: 'failed', id, message: String((err && err.message) || err) })
      }, 50);
      scope.postMessage({ type: 'ready', simd: engine.simd });
      early.forEach((m) => run.request(m.id, m.spec, m.want));
      early = null;
    }, (err) => scope.postMessage({ type: 'fatal', message: String((err && err.message) || err) }));
  }
  // A model folder: the tokenizer module first if its files need it, then the engine's load.
  let opening = null, serial = 0, kept = null, tokenizer = null;
  async function open(m) {
    if (opening) opening.abort();
    const ctl = opening = new AbortController();
    try {
      if (!started) start(null);
      const engine = await loading;
      if (needsTokenizer(byName(m.files)) && !scope[TOK]) {
        if (m.tokenizers) {
          const url = URL.createObjectURL(new Blob([m.tokenizers], { type: 'text/javascript' }));
          try { scope.importScripts(url); } finally { URL.revokeObjectURL(url); }
        } else scope.importScripts('blocklens-tokenizers.js');
      }
      if (!kept && scope[TOK]) kept = keepTokenizers(scope);
      if (kept) kept.take();
      const loaded = await engine.loadModel(Array.from(m.files), { signal: ctl.signal,
        onProgress: (p) => scope.postMessage({ type: 'openProgress', phase: p.phase, bytesRead: p.bytesRead,
          bytesTotal: p.bytesTotal }) });
      if (ctl !== opening) { loaded.free(); return; }
      const meta = await facts(m.files, loaded, ++serial), tok = kept ? kept.take() : null;
      tokenizer = tok ? { serial, tok } : null;
      meta.pieces = tok ? pieceTable(tok, Math.max(loaded.vocabSize, tok.vocabSize || 0), loaded.vocab) : null;
      assets.put('model', loaded);
      scope.postMessage({ type: 'opened', meta }, meta.pieces ? tableBuffers(meta.pieces) : []);
    } catch (err) {
      if (ctl === opening) scope.postMessage({ type: 'openFailed', message: String((err && err.message) || err) });
    } finally {
      if (ctl === opening) opening = null;
    }
  }

  // A training run: the engine first (the page may send 'train' before 'init').
  let session = null;
  async function train(m) {
    try {
      if (!started) start(null);
      const engine = await loading;
      if (!session) session = createSession(engine, (msg, transfer) => scope.postMessage(msg, transfer || []));
      session.handle(m);
    } catch (err) { scope.postMessage({ type: 'trainFailed', message: String((err && err.message) || err) }); }
  }

  scope.onmessage = (e) => {
    const m = e.data;
    if (m && typeof m.type === 'string' && /^train/.test(m.type)) { train(m); return; }
    if (m && m.type === 'open') { open(m); return; }
    if (m && m.type === 'cancelOpen') { if (opening) opening.abort(); return; }
    if (m && m.type === 'encode') { encodeFor(scope, tokenizer, m); return; }
    if (m && m.type === 'init') { if (!started) start(m.wasmModule); return; }
    // Trained weights, before the requests that need them.
    if (m && m.type === 'asset') { assets.add(m.name, m.files); return; }
    if (!started) start(null);
    if (run) run.request(m.id, m.spec, m.want); else early.push(m);
  };
}

// True inside a dedicated Worker (no document, importScripts present).
export function inWorker() {
  return typeof document === 'undefined' && typeof importScripts === 'function' && typeof postMessage === 'function';
}
