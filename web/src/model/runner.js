/* runner.js - runs a model's steps in slices, newest request wins, in the Worker
   (entries/worker.js) or on the page when no Worker can start. No DOM. */

// A macrotask without setTimeout's 4 ms clamp on chains: input and messages get in between.
function yielder() {
  if (typeof MessageChannel !== 'function') return function (fn) { setTimeout(fn, 0); };
  const ch = new MessageChannel(), queue = [];
  ch.port1.onmessage = function () { queue.shift()(); };
  return function (fn) { queue.push(fn); ch.port2.postMessage(0); };
}

// Stages done within this many ms of the last part (or of the start) go out with the next one,
// unless that one's next step is estimated to take longer: each part is a message and a redraw
// on the page, and at small sizes most stages take microseconds.
const PART_GAP = 12;

// model: ui.model.create(engine). hooks: progress(id, stage, done, total), done(id, spec),
// failed(id, error), part(id, spec) (optional: stages are done and more follow, PART_GAP apart:
// the figures that need only the stages in so far can be drawn). request(id, spec, want) (want: the
// stages wanted, model.js closure) replaces whatever was asked before: the running job
// stops after its current step (finished stages and the current stage's progress are kept
// by the model), so only the newest request ever completes. budget: ms of steps per slice.
function runner(model, hooks, budget) {
  let later = yielder(), want = null, job = null, looping = false;

  function request(id, spec, stages) {
    want = { id: id, spec: spec, stages: stages };
    if (!looping) { looping = true; later(loop); }
  }

  function loop() {
    if (want) {
      const steps = want.spec ? model.plan(want.spec, want.stages) : [];
      job = want.spec ? { id: want.id, spec: want.spec, steps: steps, i: 0, done: 0, parted: Date.now(),
        total: steps.reduce(function (t, s) { return t + s.cost; }, 0) } : null;
      want = null;
    }
    if (!job) { looping = false; return; }
    const t0 = Date.now();
    try {
      while (job.i < job.steps.length && !want) {
        const st = job.steps[job.i++];
        st.run();
        job.done += st.cost;
        const next = job.steps[job.i];
        const partNow = Date.now() - job.parted >= PART_GAP || next && next.cost >= PART_GAP * 1e6;
        if (next && next.stage !== st.stage && hooks.part && partNow) {
          job.parted = Date.now();
          hooks.part(job.id, job.spec);
        }
        if (Date.now() - t0 >= budget) break;
      }
    } catch (e) {
      const failed = job;
      job = null;
      hooks.failed(failed.id, e);
      return later(loop);
    }
    if (job.i === job.steps.length && !want) {
      const finished = job;
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
  if (ArrayBuffer.isView(v)) { const c = v.slice(); buffers.push(c.buffer); return c; }
  if (Array.isArray(v)) return v.map(function (x) { return copyForTransfer(x, buffers); });
  if (v && typeof v === 'object') {
    const o = {};
    Object.keys(v).forEach(function (k) { o[k] = copyForTransfer(v[k], buffers); });
    return o;
  }
  return v;
}

export { runner, copyForTransfer };
