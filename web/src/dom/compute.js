/* compute.js - the hosts' way to the numbers. The engine loads on the page first (one wasm
   compile) and answers the first request itself, so the first figure does not wait for a
   Worker; once its first part is drawn, a Worker starts (from a same-origin script where the page
   is served, from a Blob of the engine's own text from file://), receives the compiled module
   instead of compiling it again, and takes every later request. The page keeps a mirror of the
   Worker's stages; the newest request wins. Where no Worker can start (a CSP without it, an old
   browser) the page computes in slices of ~30 ms. */
import { createAssets } from '../model/assets.js';
import { closure, create as createModel, resolve } from '../model/model.js';
import { runner } from '../model/runner.js';
import { loadAsset } from './assets.js';

// A User Timing mark of each answer's arrival (tools/bench/changes.js).
const mark = (name) => { if (typeof performance === 'object' && performance.mark) performance.mark(name); };
const BOOT_TIMEOUT = 15000;   // a Worker that never says ready is treated as one that failed
const AT_ONCE = 4e6;          // estimated ns below which the page's engine answers in the same task

// Which Worker this document may start: `url` (a file of its own origin) where it is served
// over http(s); false in a sandboxed frame of a served page (an opaque origin may load neither
// that file nor, under a CSP, a blob: script, and browsers log both refusals: the page then
// computes in slices); null elsewhere (file://): a Worker from a Blob.
export function ownWorkerUrl(url) {
  if (typeof location !== 'object' || !/^https?:$/.test(location.protocol)) return null;
  return typeof self === 'object' && self.origin && self.origin !== 'null' ? url : false;
}

// opts: { engine: the BlockLens API, loading: a promise of BlockLens.load() already under way
// (optional), workerUrl: string | null (a Blob) | false (none), workerCode, onProgress(info),
// assetUrl(name): where dist/blocklens-<name>.js is (trained weights, loaded when first asked),
// want: the stages the host's figures need (figures' `needs`; all when absent), onMode(mode):
// the Worker started or failed (mode() says where requests now go) }.
// Returns { request(state, cb(err, res)), cancel(), busy(needs), mode(), open, cancelOpen,
// encode(text, serial), setWant(list) (the stages later requests need, e.g. as figures come on
// screen; null: all) }.
// cb runs for the newest request only: with each part of the answer as its stages come in
// (res.missing lists those still coming; res.request is the request's number), the last time
// with all; synchronously when nothing needs computing.
export function createCompute(opts) {
  const BL = opts.engine;
  const mirror = createModel(null);          // stages as the Worker sent them
  let want = opts.want ? closure(opts.want) : null;
  const assets = createAssets(), assetFiles = new Map();   // trained weights, here and sent to the Worker
  let local = null, worker = null, workerReady = false, seq = 0, latest = null, broken = null, bootTimer = 0;
  let shown = null, warmed = false;   // the spec of the latest answer; the Worker's warm-up sent
  let wantWorker = typeof Worker === 'function' && opts.workerUrl !== false &&
    !!(opts.workerUrl || (typeof Blob === 'function' && URL.createObjectURL));

  function finish(id, err, from) {
    if (!latest || latest.id !== id) return;
    const job = latest;
    latest = null;
    if (!err) { shown = job.spec; mark('blocklens:answer'); }
    if (err) job.cb(err); else job.cb(null, answer(job, from));
    later();
    warm();
  }

  function answer(job, from) {
    const res = from.result(job.spec, want);
    res.request = job.id;
    job.res = res;
    return res;
  }

  // Some of the stages are in (the result lists what is missing), while the request goes on:
  // an answer for the figures those draw, when it brings a stage the last one lacked.
  function part(id, from) {
    if (!latest || latest.id !== id) return;
    const n = from.missing(latest.spec, want).length;
    if (n >= (latest.res ? latest.res.missing.length : closure(want).length)) return;
    mark('blocklens:answer:part');
    latest.cb(null, answer(latest, from));
    if (local && from === local.model) soon();
  }

  // The Worker starts once the first part of the first answer (the first figure) is drawn: after
  // that frame, so it does not compete with the first figure for the CPU, and booting while the
  // page's engine computes the rest (the page's engine answers small requests in microseconds).
  let soonAsked = false;
  function soon() {
    if (!wantWorker || soonAsked) return;
    soonAsked = true;
    const go = () => setTimeout(later, 0);
    if (typeof requestAnimationFrame === 'function') requestAnimationFrame(go); else go();
  }
  function later() {
    if (!wantWorker) return;
    wantWorker = false;
    startWorker();
    if (worker && local) worker.postMessage({ type: 'init', wasmModule: local.engine.wasmModule || null });
    else if (worker && broken) worker.postMessage({ type: 'init' });
  }

  function progress(id, stage, done, total) {
    if (latest && latest.id === id) opts.onProgress({ stage, fraction: total ? done / total : 0 });
  }

  // ---- the Worker ----
  function startWorker() {
    let url = null;
    try {
      if (opts.workerUrl) {
        worker = new Worker(opts.workerUrl);
      } else {
        url = URL.createObjectURL(new Blob([BL.workerSource() + opts.workerCode], { type: 'text/javascript' }));
        worker = new Worker(url);
      }
    } catch (e) {
      if (url) URL.revokeObjectURL(url);
      worker = null;
      return;
    }
    bootTimer = setTimeout(dropWorker, BOOT_TIMEOUT);
    assetFiles.forEach((files, name) => postAsset(name, files));
    worker.onmessage = (e) => {
      const m = e.data;
      if (m.type === 'ready') {
        workerReady = true;
        if (opts.onMode) opts.onMode('worker');
        clearTimeout(bootTimer);
        if (url) URL.revokeObjectURL(url);
        if (latest && !local) send(latest);   // it waited for an engine
        else warm();   // (a first answer still running here finishes on the page)
        if (opening && !opening.sent) sendOpen();
      } else if (m.type === 'openProgress' || m.type === 'opened' || m.type === 'openFailed') openReply(m);
      else if (m.type === 'encoded') encodeReply(m);
      else if (m.type === 'progress') progress(m.id, m.stage, m.done, m.total);
      // Every reply is absorbed, stale or not: the Worker sends each stage once.
      else if (m.type === 'part') { mirror.absorb(m.stages); part(m.id, mirror); }
      else if (m.type === 'done') { mirror.absorb(m.stages); finish(m.id, null, mirror); }
      else if (m.type === 'failed') finish(m.id, new Error(m.message));
      else if (m.type === 'fatal') dropWorker();
    };
    worker.onerror = (e) => { if (e && e.preventDefault) e.preventDefault(); dropWorker(); };
  }

  // Warm-up, once, when the Worker is ready and the page's engine has answered: the Worker
  // computes what the page shows now (id 0 answers nobody; its stages are absorbed), so the next
  // change finds the weights already drawn there.
  function warm() {
    if (warmed || !workerReady || latest || !shown) return;
    warmed = true;
    worker.postMessage({ id: 0, spec: shown, want });
  }

  // A Worker that failed: its request (if any) goes to the page's engine.
  function dropWorker() {
    clearTimeout(bootTimer);
    if (worker) worker.terminate();
    worker = null;
    const wasReady = workerReady;
    workerReady = false;
    // An opened model lived in that Worker: it is gone with it (a folder being opened fails).
    openedIn = false;
    if (opening) {
      const o = opening;
      opening = null;
      o.reject(new Error('BlockLens: the Worker stopped; open the folder again'));
    }
    encodes.forEach((e) => e.reject(noWorker()));
    encodes.clear();
    if (wasReady && opts.onMode) opts.onMode(local ? 'local' : 'broken');
    if (latest && (wasReady || !local)) send(latest);
  }

  // A copy of the bytes for the Worker (which keeps its own; ours stay for the page's engine).
  function postAsset(name, files) {
    const weights = files.weights.slice();
    worker.postMessage({ type: 'asset', name, files: { weights, config: files.config, vocab: files.vocab,
      heldout: files.heldout } },
      [weights.buffer]);
  }

  // Trained weights a request needs: fetched once, then given to both engines. The request
  // waits in `latest` meanwhile; a failed fetch answers it with the error.
  function needAsset(job) {
    const name = job.spec.weights;
    if (!name || name === 'random' || name === 'model' || assetFiles.has(name)) return false;
    const url = opts.assetUrl ? opts.assetUrl(name) : 'dist/blocklens-' + name + '.js';
    loadAsset(name, url).then((files) => {
      if (!assetFiles.has(name)) {
        assetFiles.set(name, files);
        assets.add(name, files);
        if (worker) postAsset(name, files);
      }
      if (latest) { const again = latest; if (!answerHere(again)) send(again); }
    }, (err) => { if (latest && latest.spec.weights === name) finish(latest.id, err); });
    return true;
  }

  // ---- a model folder the reader opens: loaded in the Worker only (its heap holds it once) ----
  let opening = null;
  function sendOpen() {
    opening.sent = true;
    worker.postMessage({ type: 'open', files: opening.files, tokenizers: opening.tokenizers });
  }
  function openReply(m) {
    if (!opening) return;
    const o = opening;
    if (m.type === 'openProgress') return o.onProgress(m);
    opening = null;
    if (m.type === 'opened') { openedIn = true; o.resolve(m.meta); } else o.reject(new Error(m.message));
  }
  // files: File[]; tokenizers: the tokenizer module's source (a Blob Worker needs it) or null.
  // -> Promise of the folder's facts (entries/worker.js); a newer call or cancelOpen() rejects it.
  function open(files, tokenizers, onProgress) {
    if (opening) opening.reject(new Error('BlockLens: the load was cancelled'));
    if (!worker && !wantWorker) {
      return Promise.reject(new Error('BlockLens: opening a model needs a Worker, which this page could not start'));
    }
    return new Promise((done, reject) => {
      opening = { files, tokenizers, onProgress: onProgress || (() => {}), resolve: done, reject, sent: false };
      if (!worker) later();
      if (workerReady) sendOpen();
    });
  }
  function cancelOpen() {
    if (!opening) return;
    if (opening.sent && worker) worker.postMessage({ type: 'cancelOpen' });
  }
  let openedIn = false;

  // The opened folder's tokenizer lives in the Worker (it loaded the model with it): text -> a
  // Promise of its ids (Int32Array), or of the tokenizer's refusal; without that Worker, of an
  // Error with code 'noWorker' (no answer about the text). serial: meta.serial.
  const encodes = new Map();
  let encodeSeq = 0;
  const noWorker = () => Object.assign(new Error('BlockLens: no model folder is open in the Worker'),
    { code: 'noWorker' });
  function encode(text, serial) {
    if (!worker || !openedIn) return Promise.reject(noWorker());
    return new Promise((done, reject) => {
      const n = ++encodeSeq;
      encodes.set(n, { resolve: done, reject });
      worker.postMessage({ type: 'encode', n, serial, text: String(text) });
    });
  }
  function encodeReply(m) {
    const e = encodes.get(m.n);
    if (!e) return;
    encodes.delete(m.n);
    if (m.ids) e.resolve(m.ids); else e.reject(new Error(m.message));
  }

  // ---- the engine on the page, in slices ----
  function startLocal() {
    (opts.loading || BL.load()).then((engine) => {
      const model = createModel(engine, assets);
      local = { engine, model, run: runner(model, {
        progress,
        part: (id) => part(id, model),
        done: (id) => finish(id, null, model),
        failed: (id, err) => finish(id, err)
      }, 30) };
      if (latest && !workerReady && !answerHere(latest)) send(latest);
    }, (err) => {
      broken = err;
      later();   // the Worker may still have an engine of its own
      if (latest && !worker) finish(latest.id, err);
    });
  }

  // Small work (the stages that fit in AT_ONCE: all but the saturation sweep at the classic
  // size) is computed at once by the page's engine, in the same task, so their figures follow
  // without a frame or a round trip to the Worker in between (about 30 ms at the classic size).
  // Returns whether it did. The rest follows from the Worker, or in slices here while there is none.
  function answerHere(job) {
    if (!local || assetWait(job) || job.spec.weights === 'model') return false;
    const steps = local.model.planWithin(job.spec, want, AT_ONCE);
    if (!steps.length) return false;
    cancelSent();
    try { steps.forEach((st) => st.run()); } catch (e) { finish(job.id, e); return true; }
    const rest = local.model.missing(job.spec, want);
    if (!rest.length) finish(job.id, null, local.model);
    else {
      part(job.id, local.model);
      if (!workerReady) local.run.request(job.id, job.spec, want);
      else {
        // The Worker computes only the rest (and what that reads); its answer is made in the
        // mirror, which takes the page's stages too. At the classic size the rest is the
        // saturation sweep: the Worker had drawn every other stage again before it.
        const here = {};
        closure(want).forEach((n) => { if (!rest.includes(n)) here[n] = local.model.entry(n); });
        mirror.absorb(here);
        send(job, rest);
      }
    }
    return true;
  }

  // stages: the stages the Worker is asked for (want when absent).
  function send(job, stages) {
    if (assetWait(job)) return;   // sent when the weights arrive (needAsset)
    if (job.spec.weights === 'model' && !(workerReady && openedIn)) return;   // waits for the Worker's model
    if (workerReady) worker.postMessage({ id: job.id, spec: job.spec, want: stages || want });
    else if (local) local.run.request(job.id, job.spec, want);
    else if (broken && !worker) finish(job.id, broken);
    // else: it waits in `latest` until the engine or the Worker is ready
  }

  function request(state, cb) {
    const spec = resolve(state);
    latest = { id: ++seq, spec, cb };
    const models = [mirror, local && local.model].filter(Boolean);
    const have = models.find((m) => !m.missing(spec, want).length);
    if (have) {
      // Everything is known (a view-only change): answer now, and stop older work.
      cancelSent();
      return finish(latest.id, null, have);
    }
    if (needAsset(latest)) return;
    // What is known already (e.g. all but the moe figure's stage when top-k changed) answers now.
    const most = models.sort((a, b) => a.missing(spec, want).length - b.missing(spec, want).length)[0];
    if (most) part(latest.id, most);
    if (!answerHere(latest)) send(latest);
  }

  const assetWait = (job) => !!job.spec.weights && job.spec.weights !== 'random' && job.spec.weights !== 'model' &&
    !assetFiles.has(job.spec.weights);

  function cancelSent() {
    if (local) local.run.cancel(seq);
    if (workerReady) worker.postMessage({ id: seq, spec: null });
  }

  function cancel() { if (latest) { latest = null; cancelSent(); } }

  startLocal();

  // busy(needs): still computing (needs: the stages of some figures: until those are in).
  return { request, cancel, open, cancelOpen, encode, setWant: (list) => { want = list ? closure(list) : null; },
    busy: (needs) => !!latest && (!needs || !latest.res || needs.some((n) => latest.res.missing.includes(n))),
    mode: () => (workerReady ? 'worker' : local ? 'local' : broken ? 'broken' : 'starting') };
}
