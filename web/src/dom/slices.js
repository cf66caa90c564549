/* slices.js - the page's drawing at large sizes as a queue of short jobs spread over tasks, so
   clicks and keys are handled between them. A job may add jobs: they run right after it (a
   figure's heatmaps before the next figure). cancel() drops what has not run yet. */

// A task runs jobs while the time spent plus the longest job seen in this drawing stays under
// LIMIT: tasks stay below 50 ms (a "long task"), and there are few of them. Every task is
// followed by a frame (~10-20 ms of style, layout and paint of the whole page), so at 6 ms a
// task the frames between jobs had taken more time than the jobs.
const LIMIT = 40;

function now() { return typeof performance === 'object' ? performance.now() : Date.now(); }

// Returns { add(job), cancel() }; jobs are functions of no arguments.
function create(opts) {
  if (opts && opts.atOnce) return { add: function (job) { job(); }, cancel: function () {} };
  let queue = [], added = null, posted = false, gen = 0, longest = 0;
  const channel = typeof MessageChannel === 'function' ? new MessageChannel() : null;
  if (channel) channel.port1.onmessage = slice;

  function post() {
    if (posted) return;
    posted = true;
    if (channel) channel.port2.postMessage(0);
    else setTimeout(slice, 0);
  }

  function add(job) {
    if (added) added.push(job);
    else { queue.push(job); post(); }
  }

  // Jobs (at least one) while the next would likely end within LIMIT; what a job added goes to
  // the front of the queue. An error is reported (as an uncaught one, like any other) without
  // stopping the queue.
  function slice() {
    posted = false;
    const t0 = now();
    let t = t0, first = true;
    while (queue.length && (first || t - t0 + longest < LIMIT)) {
      first = false;
      const job = queue.shift(), g = gen;
      added = [];
      try { job(); } catch (e) { setTimeout(function () { throw e; }, 0); }
      if (g === gen) queue = added.concat(queue);
      added = null;
      const end = now();
      longest = Math.max(longest, end - t);
      t = end;
    }
    if (queue.length) post(); else longest = 0;
  }

  // From inside a job too: what it added so far goes, what it adds after this runs.
  function cancel() {
    gen++;
    queue = [];
    added = null;
  }

  return { add: add, cancel: cancel };
}

export { create };
