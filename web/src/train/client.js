/* train/client.js - the Train view's own Worker (the figures' Worker keeps computing beside it, so
   training never holds a figure back): the same code as the page's compute Worker (a same-origin
   file where served, a Blob of the engine's text from file://), given the page's compiled wasm
   module, and the messages of entries/worker.js's training protocol. */

// A Blob of the engine's text and the Worker's code, built in 64 kB pieces, one task each: a
// single Blob of the 600 kB text held the main thread 65-180 ms here (a long task).
async function blobOf(text, code) {
  const parts = [];
  for (let i = 0; i < text.length; i += 65536) {
    parts.push(new Blob([text.slice(i, i + 65536)]));
    await new Promise((r) => setTimeout(r, 0));
  }
  parts.push(new Blob([code]));
  return new Blob(parts, { type: 'text/javascript' });
}

// opts: { engine (the BlockLens API), loading (a Promise of the page's engine), workerUrl (string |
// null for a Blob | false: none may start), workerCode, onMessage(msg) }.
// -> { post(msg) (queued until the Worker has the module), warm() (starts it ahead of use),
// available(), stop() }
export function createTrainWorker(opts) {
  let worker = null, queue = null, url = null, booting = null;
  const failed = (message) => opts.onMessage({ type: 'trainFailed', message, fatal: true });
  const available = () => typeof Worker === 'function' && opts.workerUrl !== false &&
    !!(opts.workerUrl || (typeof Blob === 'function' && URL.createObjectURL && opts.engine &&
      opts.engine.workerSource));

  // The Worker and its engine (the page's compiled module saves it a compile); messages wait in
  // the queue meanwhile.
  function boot() {
    queue = queue || [];
    booting = (async () => {
      try {
        if (opts.workerUrl) worker = new Worker(opts.workerUrl);
        else {
          url = URL.createObjectURL(await blobOf(opts.engine.workerSource(), opts.workerCode));
          worker = new Worker(url);
        }
      } catch (e) {
        worker = null;
        queue = null;
        return failed('BlockLens: the training Worker could not start (' + String((e && e.message) || e) + ')');
      }
      worker.onmessage = (e) => {
        if (e.data && e.data.type === 'ready' && url) { URL.revokeObjectURL(url); url = null; }
        opts.onMessage(e.data);
      };
      worker.onerror = (e) => {
        if (e && e.preventDefault) e.preventDefault();
        stop();
        failed('BlockLens: the training Worker stopped' + (e && e.message ? ' (' + e.message + ')' : ''));
      };
      let engine = null;
      try { engine = await opts.loading; } catch (e) { /* the Worker compiles its own */ }
      if (!worker) return undefined;
      worker.postMessage({ type: 'init', wasmModule: (engine && engine.wasmModule) || null });
      const q = queue;
      queue = null;
      q.forEach((m) => worker.postMessage(m));
      return undefined;
    })();
  }

  function warm() { if (!booting && available()) boot(); }

  function post(msg) {
    if (!booting) {
      if (!available()) return failed('BlockLens: training needs a Web Worker, which this page could not start');
      boot();
    }
    if (queue) queue.push(msg); else if (worker) worker.postMessage(msg);
    return undefined;
  }

  function stop() {
    if (worker) worker.terminate();
    worker = null;
    queue = null;
    booting = null;
    if (url) { URL.revokeObjectURL(url); url = null; }
  }

  return { post, warm, available, stop };
}
