/* worker.js - runs a model's steps in slices, newest request wins, in a Worker or on the page.
   Its own factory's text, with model.js's and the engine's, becomes the Worker's script (a Blob:
   pages opened from file:// cannot start a Worker from a file). No DOM. */
(function (root, factory) {
  var ui = root.BlockLensUI = root.BlockLensUI || {};
  factory(ui);
  if (typeof module === 'object' && module.exports) module.exports = ui;
})(typeof window !== 'undefined' ? window : globalThis, function blocklensWorker(ui) {
  'use strict';

  // A macrotask without setTimeout's 4 ms clamp on chains: input and messages get in between.
  function yielder() {
    if (typeof MessageChannel !== 'function') return function (fn) { setTimeout(fn, 0); };
    var ch = new MessageChannel(), queue = [];
    ch.port1.onmessage = function () { queue.shift()(); };
    return function (fn) { queue.push(fn); ch.port2.postMessage(0); };
  }

  // model: ui.model.create(engine). hooks: progress(id, stage, done, total), done(id, spec),
  // failed(id, error). request(id, spec) replaces whatever was asked before: the running job
  // stops after its current step (finished stages and the current stage's progress are kept
  // by the model), so only the newest request ever completes. budget: ms of steps per slice.
  function runner(model, hooks, budget) {
    var later = yielder(), want = null, job = null, looping = false;

    function request(id, spec) {
      want = { id: id, spec: spec };
      if (!looping) { looping = true; later(loop); }
    }

    function loop() {
      if (want) {
        var steps = want.spec ? model.plan(want.spec) : [];
        job = want.spec ? { id: want.id, spec: want.spec, steps: steps, i: 0, done: 0,
          total: steps.reduce(function (t, s) { return t + s.cost; }, 0) } : null;
        want = null;
      }
      if (!job) { looping = false; return; }
      var t0 = Date.now();
      try {
        while (job.i < job.steps.length && !want) {
          var st = job.steps[job.i++];
          st.run();
          job.done += st.cost;
          if (Date.now() - t0 >= budget) break;
        }
      } catch (e) {
        var failed = job;
        job = null;
        hooks.failed(failed.id, e);
        return later(loop);
      }
      if (job.i === job.steps.length && !want) {
        var finished = job;
        job = null;
        hooks.done(finished.id, finished.spec);
      } else if (!want) {
        hooks.progress(job.id, job.steps[job.i].stage, job.done, job.total);
      }
      later(loop);
    }

    return { request: request, cancel: function (id) { request(id, null); } };
  }

  // Typed arrays copied (in the worker, off the page's thread) and their buffers listed so that
  // postMessage moves them instead of cloning on the page; the model keeps its own.
  function copyForTransfer(v, buffers) {
    if (ArrayBuffer.isView(v)) { var c = v.slice(); buffers.push(c.buffer); return c; }
    if (Array.isArray(v)) return v.map(function (x) { return copyForTransfer(x, buffers); });
    if (v && typeof v === 'object') {
      var o = {};
      Object.keys(v).forEach(function (k) { o[k] = copyForTransfer(v[k], buffers); });
      return o;
    }
    return v;
  }

  // Inside the Worker. Page -> { id, spec } (spec null: cancel). Worker -> { type: 'ready' },
  // { type: 'progress', id, stage, done, total }, { type: 'done', id, stages } with only the
  // stages the page does not have yet, { type: 'failed', id, message }, { type: 'fatal', message }.
  function main(scope) {
    var sent = {}, early = [], run = null;
    scope.onmessage = function (e) { if (run) run.request(e.data.id, e.data.spec); else early.push(e.data); };
    scope.BlockLens.load().then(function (engine) {
      var model = ui.model.create(engine);
      run = runner(model, {
        progress: function (id, stage, done, total) {
          scope.postMessage({ type: 'progress', id: id, stage: stage, done: done, total: total });
        },
        done: function (id) {
          var stages = {}, buffers = [];
          ui.model.STAGES.forEach(function (name) {
            var e = model.entry(name);
            if (!e || sent[name] === e.key) return;
            stages[name] = { key: e.key, value: copyForTransfer(e.value, buffers) };
            sent[name] = e.key;
          });
          scope.postMessage({ type: 'done', id: id, stages: stages }, buffers);
        },
        failed: function (id, err) {
          scope.postMessage({ type: 'failed', id: id, message: String(err && err.message || err) });
        }
      }, 50);
      scope.postMessage({ type: 'ready', simd: engine.simd });
      early.forEach(function (m) { run.request(m.id, m.spec); });
      early = null;
    }, function (err) {
      scope.postMessage({ type: 'fatal', message: String(err && err.message || err) });
    });
  }

  // The Worker's whole script: the engine, model.js and this file, each from its own function.
  function source(BlockLens) {
    return BlockLens.workerSource() +
      'self.BlockLensUI = {};\n' +
      '(' + ui.model.factory.toString() + ')(self.BlockLensUI);\n' +
      '(' + blocklensWorker.toString() + ')(self.BlockLensUI);\n' +
      'self.BlockLensUI.worker.main(self);\n';
  }

  ui.worker = { runner: runner, main: main, source: source };
});
