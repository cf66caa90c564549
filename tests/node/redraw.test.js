// redraw.test.js - the page's drawing schedule (web/src/dom/redraw.js), driven in Node with the
// real controller and fakes for the compute, the figures, the slices queue and the clock: an
// answer draws the figures it can, newer answers cut older drawings short, unchanged figures
// stay, the URL hash follows the drawing and the page is ready only then, and a bad setting
// leaves its figures' drawings in place with a note.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const SRC = path.join(__dirname, '..', '..', 'web', 'src');
const { createController } = require(path.join(SRC, 'model', 'controller.js'));
const { toHash } = require(path.join(SRC, 'model', 'params.js'));
const { createHost } = require(path.join(SRC, 'dom', 'host.js'));
const { BIG_DRAW, createRedraw } = require(path.join(SRC, 'dom', 'redraw.js'));

// Three figures: two from the FFN stage, one from attention, each reading its own setting.
const FIGURES = new Map([
  ['ffn', { reads: ['act', 'seed'], needs: ['ffn'] }],
  ['attn', { reads: ['heads', 'seed'], needs: ['attention'] }],
  ['rows', { reads: ['sel', 'seed'], needs: ['ffn'] }]
]);
// (as figures/index.js: stages a figure lists in `later` are not waited for)
const readyIn = (figs) => (k, res) => !figs.get(k).needs.some((n) => res.missing.includes(n) && !(figs.get(k).later || []).includes(n));
const CLASSIC = { L: 7, dff: 32 }, BERT = { L: 64, dff: 3072 };
assert.ok(BERT.L * BERT.dff >= BIG_DRAW && CLASSIC.L * CLASSIC.dff < BIG_DRAW);

// A compute that keeps the latest request until the test answers it, part by part.
function fakeCompute() {
  let id = 0, job = null;
  return {
    compute: { request(state, cb) { job = { id: ++id, state, cb, done: false }; }, cancel() { job = null; },
      busy: () => !!job && !job.done },
    // missing: the stages still to come (none: the whole answer).
    answer(missing, size) {
      if (!missing.length) job.done = true;
      job.cb(null, Object.assign({ request: job.id, missing, keys: { weights: 'w' + job.state.seed }, trained: false }, size));
    }
  };
}

// A figure that logs what it draws: 'update <request>' from an answer, 'redraw' from its own
// numbers, 'plot <request>' for a later job (c.defer, at large sizes).
function fakeView(reads) {
  let drawn = null;
  const v = { reads, log: [], note: '' };
  const draw = (res, c) => {
    drawn = { res, state: c.state, look: c.lang + ' ' + c.scheme.name };
    if (c.defer) c.defer(() => v.log.push('plot ' + res.request));
  };
  v.update = (res, c) => { v.log.push('update ' + res.request); draw(res, c); };
  v.redraw = (c) => { if (drawn) { v.log.push('redraw'); draw(drawn.res, Object.assign({}, c, { state: drawn.state })); } };
  v.drawn = () => drawn;
  v.status = (texts, note) => { v.note = note; };
  return v;
}

// Like dom/slices.js, but a job runs only when the test says so.
function fakeSlices() {
  let queue = [], added = null, gen = 0;
  return {
    add(job) { if (added) added.push(job); else queue.push(job); },
    cancel() { gen++; queue = []; added = null; },
    // n jobs (all when absent); what a job adds runs right after it.
    run(n = Infinity) {
      while (queue.length && n-- > 0) {
        const job = queue.shift(), g = gen;
        added = [];
        job();
        if (g === gen) queue = added.concat(queue);
        added = null;
      }
    },
    get length() { return queue.length; }
  };
}

// Frames and tasks that come when the test says so.
function fakeClock() {
  const frames = [], tasks = [];
  const drain = (q) => q.splice(0).forEach((fn) => fn());
  return { frames, tasks, frame: (fn) => frames.push(fn), later: (fn) => tasks.push(fn),
    nextFrame: () => drain(frames), nextTasks: () => drain(tasks) };
}

const settle = () => new Promise((r) => setTimeout(r, 5));

// The page's wiring (entries/page.js) around fakes; `word` is the page's status.
async function page(FIGS = FIGURES) {
  const p = { hashes: [], marks: [], word: '', stale: 0 };
  p.views = new Map([...FIGS].map(([k, f]) => [k, fakeView(f.reads)]));
  p.slices = fakeSlices();
  p.clock = fakeClock();
  const status = () => { const st = p.redraw.status(p.host.texts(p.ctl.errors())); p.word = st.word; p.stale = st.stale; };
  p.ctl = createController(null, (kind) => {
    if (kind === 'result' || kind === 'page') p.redraw.render(kind === 'page');
    status();
  }, [...FIGS.values()].map((f) => f.reads));
  p.host = createHost(p.ctl);
  p.redraw = createRedraw({ ctl: p.ctl, host: p.host, views: p.views, figures: FIGS, ready: readyIn(FIGS), slices: p.slices, clock: p.clock,
    timing: { now: () => 0, mark: (name) => p.marks.push(name), measure() {} },
    writeHash: (h) => p.hashes.push(h), onDrawn() {}, onStatus: status });
  const fake = fakeCompute();
  p.answer = fake.answer;
  p.ctl.replace({ lang: 'en', theme: 'light' }, []);
  p.ctl.attach(fake.compute);
  await settle();
  return p;
}

const logs = (p) => Object.fromEntries([...p.views].map(([k, v]) => [k, v.log.splice(0)]));
const notes = (p) => Object.fromEntries([...p.views].map(([k, v]) => [k, v.note]));

// A page past its first answer (classic size), drawn, with the hash written.
async function shown() {
  const p = await page();
  p.answer([], CLASSIC);
  p.slices.run();
  p.clock.nextFrame();
  p.clock.nextTasks();
  assert.equal(p.word, 'ready');
  logs(p);
  p.hashes.length = 0;
  return p;
}

test('a_partial_answer_draws_the_figures_whose_stages_are_in_and_marks_the_rest_updating', async () => {
  const p = await shown();
  p.ctl.set({ seed: 7 });
  await settle();
  p.answer(['attention'], CLASSIC);
  assert.deepEqual(logs(p), { ffn: ['update 3'], attn: [], rows: ['update 3'] }, 'the FFN figures, at once');
  const updating = p.host.t('figUpdating');
  assert.deepEqual(notes(p), { ffn: '', attn: updating, rows: '' });
  assert.equal(p.word, 'busy');
  p.answer([], CLASSIC);
  p.slices.run();
  assert.deepEqual(logs(p), { ffn: [], attn: ['update 3'], rows: [] }, 'the rest once its stage is in; the others stay');
  assert.deepEqual(notes(p), { ffn: '', attn: '', rows: '' });
});

test('a_newer_answer_while_figures_are_half_drawn_cancels_the_old_jobs_and_draws_only_the_newer_figures', async () => {
  const p = await shown();
  p.ctl.set({ seed: 7, tokens: 'a b' });
  await settle();
  p.answer([], BERT);
  p.slices.run(1);   // the first figure's text; its plot is still queued
  assert.deepEqual(logs(p), { ffn: ['update 3'], attn: [], rows: [] }, 'half drawn');
  p.ctl.set({ sel: 1 });   // read by the rows figure only
  await settle();
  p.answer([], BERT);
  p.slices.run();
  // Every figure from the newer answer, each with its plot: the older answer's queue is gone,
  // and the figure it left without its plot is drawn again though its settings did not change.
  assert.deepEqual(logs(p), { ffn: ['update 4', 'plot 4'], attn: ['update 4', 'plot 4'], rows: ['update 4', 'plot 4'] });
  assert.equal(p.slices.length, 0);
});

test('a_figure_whose_reads_did_not_change_is_not_redrawn', async () => {
  const p = await shown();
  p.ctl.set({ sel: 1 });
  await settle();
  p.answer([], CLASSIC);
  p.slices.run();
  assert.deepEqual(logs(p), { ffn: [], attn: [], rows: ['update 3'] });
});

test('the_hash_is_written_once_after_the_frame_following_the_last_drawing_and_ready_only_then', async () => {
  const p = await shown();
  p.ctl.set({ seed: 7 });
  await settle();
  p.answer([], CLASSIC);
  assert.equal(p.slices.length > 0, true, 'three figures: drawn in slices');
  assert.equal(p.clock.frames.length, 0, 'no hash asked for while figures are queued');
  assert.equal(p.word, 'busy');
  p.slices.run();
  assert.deepEqual(p.hashes, [], 'not right after the drawing');
  assert.equal(p.clock.frames.length, 1);
  assert.equal(p.word, 'busy');
  p.clock.nextFrame();
  assert.deepEqual(p.hashes, [], 'not in the frame either');
  assert.equal(p.word, 'busy');
  p.clock.nextTasks();
  assert.deepEqual(p.hashes, ['#' + toHash(p.ctl.shown())]);
  assert.ok(p.hashes[0].includes('seed=7'));
  assert.equal(p.word, 'ready');
  p.ctl.set({ lang: 'en' });   // the status shown again: nothing new to write
  p.slices.run();
  p.clock.nextFrame();
  p.clock.nextTasks();
  assert.equal(p.hashes.length, 1, 'written once');
  assert.equal(p.word, 'ready');
});

test('a_figure_blocked_by_a_bad_setting_keeps_its_last_drawing_with_the_stale_note', async () => {
  const p = await shown();
  const before = p.views.get('attn').drawn();
  p.ctl.setRaw('heads', 'x', true);
  const stale = p.host.t('figStale', { fields: p.host.label('heads') });
  assert.deepEqual(notes(p), { ffn: '', attn: stale, rows: '' });
  assert.equal(p.word, 'error');
  p.ctl.set({ seed: 9 });
  await settle();
  p.answer([], CLASSIC);
  p.slices.run();
  assert.deepEqual(logs(p), { ffn: ['update 3'], attn: [], rows: ['update 3'] }, 'the others follow');
  assert.equal(p.views.get('attn').drawn(), before, 'its last drawing stays');
  assert.deepEqual(notes(p), { ffn: '', attn: stale, rows: '' });
  assert.equal(p.stale, 1);
});

// A figure whose long stage comes `later` (figure 14's sweep): drawn as soon as its other stages are
// in, and drawn again when that stage arrives, though no setting changed.
test('a_figure_is_drawn_without_its_later_stage_and_again_when_it_comes', async () => {
  const figs = new Map([['abl', { reads: ['seed'], needs: ['ffn', 'sweep'], later: ['sweep'] }],
    ['attn', { reads: ['heads', 'seed'], needs: ['attention'] }]]);
  const p = await page(figs);
  p.answer(['attention', 'sweep'], CLASSIC);
  p.slices.run();
  assert.deepEqual(logs(p), { abl: ['update 2'], attn: [] }, 'drawn before the sweep is in');
  assert.deepEqual(notes(p), { abl: '', attn: '' }, '(not marked updating: it says so itself)');
  p.answer(['sweep'], CLASSIC);
  p.slices.run();
  assert.deepEqual(logs(p), { abl: [], attn: ['update 2'] }, 'another part, the sweep still out: not redrawn');
  p.answer([], CLASSIC);
  p.slices.run();
  assert.deepEqual(logs(p), { abl: ['update 2'], attn: [] }, 'the sweep came: drawn again');
});
