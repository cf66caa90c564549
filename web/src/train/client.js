/* train/client.js - the Train view's own Worker (the figures' Worker keeps computing beside it, so
   training never holds a figure back): the same code as the page's compute Worker (a same-origin
   file where served, a Blob of the engine's text from file://), given the page's compiled wasm
   module, and the messages of entries/worker.js's training protocol. */

// opts: { engine (the BlockLens API), loading (a Promise of the page's engine), workerUrl (string |
// null for a Blob | false: none may start), workerCode, onMessage(msg) }.
// -> { post(msg) (queued until the Worker has the module), available(), stop() }
export function createTrainWorker(opts) {
  let worker = null, queue = null, url = null;
  const failed = (message) => opts.onMessage({ type: 'trainFailed', message, fatal: true });
  const available = () => typeof Worker === 'function' && opts.workerUrl !== false &&
    !!(opts.workerUrl || (typeof Blob === 'function' && URL.createObjectURL && opts.engine &&
      opts.engine.workerSource));

  function boot() {
    try {
      if (opts.workerUrl) worker = new Worker(opts.workerUrl);
      else {
        const code = opts.engine.workerSource() + opts.workerCode;
        url = URL.createObjectURL(new Blob([code], { type: 'text/javascript' }));
        worker = new Worker(url);
      }
    } catch (e) {
      worker = null;
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
    queue = [];
    // The page's compiled module saves the Worker a compile; without one it compiles its own.
    const go = (engine) => {
      if (!worker) return;
      worker.postMessage({ type: 'init', wasmModule: (engine && engine.wasmModule) || null });
      const q = queue;
      queue = null;
      q.forEach((m) => worker.postMessage(m));
    };
    Promise.resolve(opts.loading).then(go, () => go(null));
  }

  function post(msg) {
    if (!worker) {
      if (!available()) return failed('BlockLens: training needs a Web Worker, which this page could not start');
      boot();
      if (!worker) return undefined;
    }
    if (queue) queue.push(msg); else worker.postMessage(msg);
    return undefined;
  }

  function stop() {
    if (worker) worker.terminate();
    worker = null;
    queue = null;
    if (url) { URL.revokeObjectURL(url); url = null; }
  }

  return { post, available, stop };
}
