/* compute.js - the page's way to the numbers: a Worker built from a Blob computes, the page
   keeps a mirror of its stages, the newest request wins. Where no Worker can start (CSP without
   blob:, an old browser) the same steps run on the page in slices of ~30 ms. */
(function (ui) {
  'use strict';
  var BOOT_TIMEOUT = 15000;   // a Worker that never says ready is treated as one that failed

  // create({ onProgress(info) }) -> { request(state, cb(err, res)), cancel(), busy(), mode() }.
  // cb runs once, for the newest request only; synchronously when nothing needs computing.
  function create(opts) {
    var mirror = ui.model.create(null);      // stages as the Worker sent them
    var local = null, worker = null, mode = 'starting', seq = 0, latest = null, broken = null;

    function finish(id, err) {
      if (!latest || latest.id !== id) return;
      var job = latest;
      latest = null;
      if (err) return job.cb(err);
      job.cb(null, (local || mirror).result(job.spec));
    }

    function progress(id, stage, done, total) {
      if (latest && latest.id === id) opts.onProgress({ stage: stage, fraction: total ? done / total : 0 });
    }

    // ---- the Worker ----
    function startWorker() {
      var url = null, timer = 0;
      try {
        url = URL.createObjectURL(new Blob([ui.worker.source(BlockLens)], { type: 'text/javascript' }));
        worker = new Worker(url);
      } catch (e) {
        if (url) URL.revokeObjectURL(url);
        return fallBack();
      }
      timer = setTimeout(fallBack, BOOT_TIMEOUT);
      worker.onmessage = function (e) {
        var m = e.data;
        if (m.type === 'ready') { mode = 'worker'; clearTimeout(timer); URL.revokeObjectURL(url); }
        else if (m.type === 'progress') progress(m.id, m.stage, m.done, m.total);
        // Every reply is absorbed, stale or not: the Worker sends each stage once.
        else if (m.type === 'done') { mirror.absorb(m.stages); finish(m.id, null); }
        else if (m.type === 'failed') finish(m.id, new Error(m.message));
        else if (m.type === 'fatal') { clearTimeout(timer); fallBack(); }
      };
      worker.onerror = function (e) {
        if (e && e.preventDefault) e.preventDefault();
        clearTimeout(timer);
        fallBack();
      };
    }

    // ---- on the page, in slices ----
    function fallBack() {
      if (mode === 'local' || mode === 'loading') return;
      if (worker) { worker.terminate(); worker = null; }
      mode = 'loading';                      // requests wait in `latest` meanwhile
      BlockLens.load().then(function (engine) {
        var model = ui.model.create(engine);
        local = { model: model, result: model.result, run: ui.worker.runner(model, {
          progress: progress,
          done: function (id) { finish(id, null); },
          failed: function (id, err) { finish(id, err); }
        }, 30) };
        mode = 'local';
        if (latest) send(latest);
      }, function (err) {
        broken = err;
        mode = 'broken';
        if (latest) finish(latest.id, err);
      });
    }

    function send(job) {
      if (mode === 'local') local.run.request(job.id, job.spec);
      else if (worker) worker.postMessage({ id: job.id, spec: job.spec });
    }

    function request(state, cb) {
      var spec = ui.model.resolve(state);
      if (broken) return cb(broken);
      latest = { id: ++seq, spec: spec, cb: cb };
      var have = local ? local.model : mirror;
      if (!have.missing(spec).length) {
        // Everything is known (a view-only change): answer now, and stop older work.
        cancelSent();
        return finish(latest.id, null);
      }
      if (mode !== 'loading') send(latest);
    }

    function cancelSent() {
      if (mode === 'local') local.run.cancel(seq);
      else if (worker) worker.postMessage({ id: seq, spec: null });
    }

    function cancel() { if (latest) { latest = null; cancelSent(); } }

    if (typeof Worker === 'function' && typeof Blob === 'function' && typeof URL === 'function' &&
        URL.createObjectURL && BlockLens.workerSource) startWorker();
    else fallBack();

    return { request: request, cancel: cancel, busy: function () { return !!latest; },
      mode: function () { return mode; } };
  }

  ui.compute = { create: create };
})(window.BlockLensUI = window.BlockLensUI || {});
