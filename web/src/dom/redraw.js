/* redraw.js - the page's drawing schedule: which figures an answer (or a part of one, or a
   change of language, theme or width) draws, in slices at large sizes; each figure's note
   (updating, or stale behind a bad setting); the URL hash once the drawing is on screen; the
   page's status; User Timing marks. Built from its inputs, with no DOM or clock of its own, so
   Node tests drive it with fakes (tests/node/redraw.test.js). */
import { toHash } from '../model/params.js';

// L x max(d_ff, L) cells from which figures are drawn in slices, each heatmap in bands (7 tokens
// at BERT widths: 21,504). At 64 tokens x d_ff 96 (6,144: a small opened model) a figure drawn
// whole was one job of 35-58 ms of the main thread's CPU time (tools/bench/REPORT-modelwide.md).
export const BIG_DRAW = 4096;

// opts: {
//   ctl: the controller (model/controller.js); host: dom/host.js's createHost(ctl);
//   views: Map view -> figure-view (dom/figure-view.js), in page order;
//   figures: Map view -> { reads, stream? } (figures/index.js FIGURES); ready(view, res);
//   slices: { add(job), cancel() } (dom/slices.js);
//   clock: { frame(fn): after the next frame, later(fn): in a task of its own };
//   timing: { now(), mark(name), measure(name, start) } or null (no User Timing);
//   writeHash(hash): puts '#...' in the URL; onDrawn(ctx): every figure's drawing is done;
//   onStatus(): show the status again (the hash was written, a sliced drawing ended) }
// Returns { render(all), status(texts) -> { stale, busy, word }, hash() }.
export function createRedraw(opts) {
  const { ctl, host, views, figures, ready, slices, clock, timing } = opts;
  const marked = new Set();
  let drawing = false, drawingFor = 0, finisher = 0, pending = new Map();
  let wasBusy = false, hashSoon = false, lastHash = '';

  // once: the first time only (each figure's first drawing: tools/bench/load.js); else the
  // latest one kept (the latest request and answer: tests measure input handling between them).
  function mark(name, once) {
    if (!timing || (once && marked.has(name))) return;
    if (once) marked.add(name);
    timing.mark(name);
  }

  // all: the page changed (language, theme, width): every figure drawn again; else a new
  // answer, or the next part of one. The figures that may show the latest answer are drawn
  // from it; a figure blocked by a bad setting keeps its drawing (redrawn from its own
  // numbers when the language or theme changes).
  function render(all) {
    const c = host.ctx(), res = ctl.result, look = c.lang + ' ' + c.scheme.name;
    // (The mark is the whole answer's: its parts, compute.js, come before it.)
    if (!all && res && !res.missing.length) mark('blocklens:result');
    // The answer comes in parts (compute.js): the figures a later part of the one being drawn
    // makes ready join the queue; anything else starts the drawing over.
    const more = !all && drawing && !!res && res.request === drawingFor;
    // Figures of a sliced drawing that a newer render cut short have text but unfinished canvases.
    const unfinished = more ? new Map() : pending;
    if (!more) { slices.cancel(); drawing = false; pending = new Map(); }
    if (!res) return;
    // A figure is drawn once the stages it needs are in; until then it keeps its drawing,
    // marked as updating (status).
    const fresh = (k) => ctl.fresh(views.get(k).reads) && ready(k, res);
    // A figure whose settings (its `reads`), language and theme are what it already shows is
    // left alone: picking a token redraws the rows figure, not every figure. (A folder opened
    // again under the same name is another model: its serial differs.)
    const same = (k, d) => {
      const f = figures.get(k), stream = f.stream || [];
      return d.look === look && d.res.serial === res.serial &&
        f.reads.every((key) => stream.includes(key) || d.state[key] === c.state[key]) &&
        (!stream.length || d.res.keys.weights === res.keys.weights) &&
        (f.later || []).every((n) => !d.res.missing.includes(n) || res.missing.includes(n));   // (it came)
    };
    const todo = [...views.keys()].filter((k) => {
      if (pending.get(k) === 'update') return false;   // (more: queued from an earlier part)
      const d = views.get(k).drawn();
      if (all || !d || unfinished.has(k)) return fresh(k) || !!d;
      return fresh(k) ? !same(k, d) : d.look !== look;
    });
    // (The measure ends after the figure's own later jobs, c.defer, at large sizes: they run
    // before the next figure's.)
    const draw = (k) => {
      const t0 = timing ? timing.now() : 0;
      if (fresh(k)) views.get(k).update(res, c); else views.get(k).redraw(c);
      const end = () => { if (timing) timing.measure('blocklens:draw:' + k, t0); mark('blocklens:figure:' + k, true); };
      if (c.defer) c.defer(end); else end();
    };
    const big = todo.some((k) => {
      const r = fresh(k) ? res : views.get(k).drawn().res;
      return r.L * Math.max(r.dff, r.L) >= BIG_DRAW;
    });
    if (!todo.length && more) return;
    if (!big && todo.length <= 2 && !more) {
      todo.forEach(draw);
      return opts.onDrawn(c);
    }
    // Many figures, or large sizes: each figure (at large sizes its text, then each of its
    // heatmaps and plots: c.defer) as short jobs over many tasks, so clicks and keys are handled
    // between them (eleven figures at the classic size took 60-70 ms in one task). A newer render
    // drops what is left of this one.
    if (big) c.defer = slices.add;
    drawing = true;
    drawingFor = res.request;
    // pending: figure -> what its queued job does, 'update' (from this answer) or 'redraw' (its own
    // numbers, e.g. a cut-short drawing). A figure queued for a redraw that a later part makes
    // ready is queued again, to update; the job that lost its place does nothing.
    todo.forEach((k) => {
      const kind = fresh(k) ? 'update' : 'redraw';
      pending.set(k, kind);
      // (At the classic size a figure is whole once its job has run: a newer render need not redo it.)
      slices.add(() => { if (pending.get(k) !== kind) return; draw(k); if (!big) pending.delete(k); });
    });
    const last = ++finisher;   // only the last render's finishing job runs: it follows every figure
    slices.add(() => {
      if (last !== finisher) return;
      drawing = false; pending = new Map(); opts.onDrawn(c); opts.onStatus();
    });
  }

  // Each figure's note (texts: every message as { key, text }), the request mark, and the URL
  // hash once all is drawn. Returns how many figures are stale, whether the compute is busy,
  // and the page's status word.
  function status(texts) {
    const res = ctl.result;
    let stale = 0;
    for (const [k, v] of views) {
      const blocked = ctl.stale(v.reads);
      if (blocked) stale++;
      // A figure whose own stages are still being computed (a partial answer) is marked updating.
      const waiting = !blocked && !!res && !ready(k, res) && !!v.drawn();
      v.status(texts, waiting ? host.t('figUpdating') : host.staleNote(v.reads));
    }
    const busy = ctl.busy();
    // (The request mark is the start of a compute: not moved by a partial answer drawn meanwhile.)
    if (busy && (!wasBusy || !res || !res.missing.length)) mark('blocklens:request');
    wasBusy = busy;
    // The URL follows once every figure is drawn, after the next frame: writing it lays the
    // page out, which then has nothing left to do (right after the drawing it took 5-40 ms).
    // The page is ready once the URL says what it shows.
    if (!busy && !drawing && res && !hashSoon && '#' + toHash(ctl.shown()) !== lastHash) {
      hashSoon = true;
      clock.frame(() => clock.later(() => { hashSoon = false; writeHash(); opts.onStatus(); }));
    }
    // Busy first: with a bad setting the other figures are still being computed.
    const word = busy || drawing || hashSoon ? 'busy' : ctl.errors().length ? 'error' : res ? 'ready' : 'loading';
    return { stale, busy, word };
  }

  function writeHash() {
    const h = '#' + toHash(ctl.shown());
    if (h === lastHash) return;
    lastHash = h;
    opts.writeHash(h);
  }

  // hash(): the last hash written (a hashchange to it is the page's own).
  return { render, status, hash: () => lastHash };
}
