#!/usr/bin/env node
/* tools/bench/modelwide.js - the whole-model views (issue 21) on the page in headless Chromium:
   after the token text changes, how long until the model view (figure 12) shows its first cell
   and all its cells, the logit lens (figure 13) its table, and, pressing "every head alone",
   the ablation sweep (figure 14) its heatmap; the main thread's longest task during each (a
   PerformanceObserver of 'longtask', with its attribution, and of 'long-animation-frame', whose
   scripts and style/layout/paint split say where the time went) and the count of tasks over
   50 ms. On the poem model (64 tokens, its whole context) and on a SmolLM2-135M-shaped BF16
   checkpoint with random weights (30 layers, 9 / 3 heads of 64, d 576, d_ff 1536, vocab 49152;
   llama.js's generator, written once into $TMPDIR/blocklens-modelwide-smollm2, not committed)
   opened through the page's "Open a model folder…" input. Prints numbers, asserts nothing.

   usage:  node tools/bench/modelwide.js [--runs 3] [--sweeps 1] [--models poems,smollm2[,mv30]]
                                         [--web DIR] [--vs DIR] [--out FILE] [--keep]
     --web DIR  the web/ tree to measure (default this checkout's web/)
     --vs DIR   a second web/ tree (e.g. the code before a change, with its dist/): both are
                opened side by side and measured in turn, run by run (paired)
     --out FILE the Markdown report (e.g. tools/bench/REPORT-modelwide.md; default: print only)
     --keep     keep the SmolLM2-shaped folder (else deleted at the end)
     --sweep-models M  the models whose sweep is timed (default both; SmolLM2's takes minutes)
     --trace    one more run per tree under Chromium tracing: the main thread's busy time, wall
                and CPU, and each task over 50 ms by kind (wall / CPU)
     --scrolls N  N fresh pages per tree (trees in turn): once every map is drawn below the
                fold, the model view is scrolled into view, and the longest task of the next
                1.5 s is taken (the compositor's first upload of the grid's canvases) */
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { checkpoint, SHAPE } = require('./llama.js');
const { launch, fileUrl, watch, CHROMIUM, DESKTOP } = require('./browser.js');
const { writeGridFolder } = require('../../tests/node/grid_folder.js');

const root = path.join(__dirname, '..', '..');
const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const RUNS = Number(opt('--runs', 3)), SWEEPS = Number(opt('--sweeps', 1));
const MODELS = opt('--models', 'poems,smollm2').split(',');
const WEBS = [opt('--web', path.join(root, 'web')), opt('--vs', null)].filter(Boolean).map((d) => path.resolve(d));
const SWEEP_MODELS = opt('--sweep-models', 'poems,smollm2').split(','), TRACE = args.includes('--trace');
const SCROLLS = Number(opt('--scrolls', 0));
const OUT = opt('--out', null), L = 64, AFTER = 1000, LONG = 50;
const DIR = path.join(os.tmpdir(), 'blocklens-modelwide-smollm2');
const log = (m) => process.stderr.write(m + '\n');
for (const m of MODELS) if (!['poems', 'smollm2', 'mv30'].includes(m)) throw new Error(`--models: poems, smollm2 or mv30, not ${m}`);

/* The SmolLM2-shaped folder: llama.js's BF16 bytes, its config, and a vocab.json of one code
   point per token (the page's vocabulary tokenizer maps n characters to <s> and n ids). */
function smolFolder() {
  const { D, H, KVH, F, V, NL } = SHAPE;
  if (fs.existsSync(path.join(DIR, 'done'))) return DIR;
  fs.mkdirSync(DIR, { recursive: true });
  fs.writeFileSync(path.join(DIR, 'model.safetensors'), checkpoint('BF16'));
  fs.writeFileSync(path.join(DIR, 'config.json'), JSON.stringify({ model_type: 'llama', hidden_size: D,
    intermediate_size: F, num_hidden_layers: NL, num_attention_heads: H, num_key_value_heads: KVH, vocab_size: V,
    max_position_embeddings: 8192, rms_norm_eps: 1e-5, rope_theta: 100000, tie_word_embeddings: true }));
  const vocab = ['<unk>', '<s>', '</s>'];
  for (let i = 3; i < V; i++) vocab.push(String.fromCodePoint(0x1000 + i + (0x1000 + i >= 0xd800 ? 0x800 : 0)));
  fs.writeFileSync(path.join(DIR, 'vocab.json'), JSON.stringify(vocab));
  fs.writeFileSync(path.join(DIR, 'done'), '');
  return DIR;
}

/* --models mv30: the model view's grid at SmolLM2's 30 x 9 heads with a tiny width, the browser
   test's folder (tests/node/grid_folder.js): forwards take milliseconds, so runs time the grid. */
const MV30 = path.join(os.tmpdir(), 'blocklens-modelwide-mv30');
function mv30Folder() {
  if (fs.existsSync(path.join(MV30, 'done'))) return MV30;
  writeGridFolder(MV30);
  fs.writeFileSync(path.join(MV30, 'done'), '');
  return MV30;
}

/* Run r's text of L - 1 characters (with <s>, L tokens): held-out poem characters, or code
   points of the synthetic vocabulary from an LCG. Each run's differs, so each is a new forward. */
function textOf(model, r) {
  if (model === 'mv30') return require('../tokenizer/fixtures.js').textOf(Array.from({ length: L }, (_, i) => (i * 7 + r * 5) % 64));
  if (model === 'poems') {
    const chars = Array.from(fs.readFileSync(path.join(root, 'web', 'models', 'poems', 'heldout.txt'), 'utf8'))
      .filter((c) => !/\s/u.test(c));
    return chars.slice(r * 97, r * 97 + L - 1).join('');
  }
  let s = 7 + r, out = '';
  for (let i = 0; i < L - 1; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const id = 3 + (s >>> 8) % (SHAPE.V - 3);
    out += String.fromCodePoint(0x1000 + id + (0x1000 + id >= 0xd800 ? 0x800 : 0));
  }
  return out;
}

/* Before the page's scripts: recorders of long tasks, long animation frames, the page's
   blocklens:* User Timing, the Worker's messages (the forward's answer arrives as parts), input
   and click events, and attribute changes that say a figure drew: a model-view canvas's data-rows (set by
   every map's draw before the grid drew its own maps), the grid's data-maps ("drawn/all",
   after them), the lens figure's data-top, the ablation figure's data-sweep. */
function instrument() {
  const W = self.__mw = { long: [], loaf: [], marks: [], msgs: [], muts: [], inputs: [] };
  const obs = (type, f) => { try { new PerformanceObserver((l) => l.getEntries().forEach(f)).observe({ type, buffered: true }); } catch (e) { /* unsupported */ } };
  obs('longtask', (e) => W.long.push({ start: e.startTime, dur: e.duration,
    attr: (e.attribution || []).map((a) => [a.name, a.containerType, a.containerName || a.containerSrc].filter(Boolean).join('/')).join(' ') }));
  obs('long-animation-frame', (e) => W.loaf.push({ start: e.startTime, dur: e.duration, block: e.blockingDuration,
    render: e.renderStart ? e.renderStart - e.startTime : 0, style: e.styleAndLayoutStart ? e.styleAndLayoutStart - e.startTime : 0,
    scripts: e.scripts.map((s) => ({ inv: s.invoker, fn: s.sourceFunctionName, src: (s.sourceURL || '').split('/').pop(),
      at: s.sourceCharPosition, dur: s.duration, forced: s.forcedStyleAndLayoutDuration })) }));
  for (const type of ['mark', 'measure']) {
    obs(type, (e) => { if (e.name.startsWith('blocklens:')) W.marks.push({ name: e.name, start: e.startTime, dur: e.duration }); });
  }
  const Native = self.Worker;
  self.Worker = class extends Native {
    constructor(...a) {
      super(...a);
      this.addEventListener('message', (e) => {
        const m = e.data || {};
        W.msgs.push({ t: performance.now(), type: m.type, stages: m.stages ? Object.keys(m.stages) : [] });
      });
    }
  };
  document.addEventListener('input', () => W.inputs.push(performance.now()), true);
  document.addEventListener('click', () => W.inputs.push(performance.now()), true);
  document.addEventListener('DOMContentLoaded', () => {
    // The whole-model figures as if on screen (they are computed only once scrolled near them
    // otherwise), as tests/browser/helpers.js's open() does: the runs time them without scrolling.
    document.documentElement.dataset.wide = 'eager';
    new MutationObserver((recs) => {
      const t = performance.now();
      for (const r of recs) {
        const n = r.target;
        if (n.tagName === 'CANVAS' && n.closest('#fig-heads .mv-cell')) W.muts.push({ t, what: 'cell', cell: n.parentNode.dataset.layer + '.' + n.parentNode.dataset.head, rows: +n.dataset.rows });
        else if (n.classList.contains('mv') && n.closest('#fig-heads')) W.muts.push({ t, what: 'maps', v: n.dataset.maps });
        else if (n.id === 'fig-lens' || n.id === 'fig-ablation') W.muts.push({ t, what: n.id + ':' + r.attributeName, v: n.getAttribute(r.attributeName) });
      }
    }).observe(document.body, { subtree: true, attributes: true, attributeFilter: ['data-rows', 'data-maps', 'data-top', 'data-sweep'] });
  });
}

const ready = (page, timeout = 10 * 60000) => page.waitForFunction(() => document.body.dataset.status === 'ready', null, { timeout, polling: 50 });
const clear = (page) => page.evaluate(() => { const W = self.__mw; for (const k of Object.keys(W)) W[k] = []; return performance.now(); });
const take = (page) => page.evaluate(() => self.__mw);

/* One page of web tree `web` on `model`, ready for runs. */
async function openPage(browser, web, model) {
  const context = await browser.newContext({ viewport: DESKTOP });
  await context.addInitScript(instrument);
  const page = await context.newPage(), errors = [];
  watch(page, (m) => errors.push(m));
  const hash = model === 'poems' ? 'lang=en&weights=poems&tokens=' + encodeURIComponent(textOf(model, 100)) : 'lang=en';
  await page.goto(fileUrl(web) + '#' + hash);
  await ready(page);
  let load = null;
  if (model !== 'poems') {
    const t0 = Date.now();
    await page.setInputFiles('#open-dir-input', model === 'mv30' ? mv30Folder() : smolFolder());
    await page.waitForFunction(() => ['opened', 'failed'].includes(document.body.dataset.open), null, { timeout: 10 * 60000, polling: 100 });
    if (await page.evaluate(() => document.body.dataset.open) !== 'opened') throw new Error(web + ': the folder did not open');
    load = Date.now() - t0;
    await ready(page);
  }
  return { context, page, errors, load };
}

/* Tasks of the recorder w within [a, b] (ms, page clock): the longest, the count over 50 ms, and
   the long animation frames overlapping the longest, split into script / style+layout / paint. */
function tasksIn(w, a, b) {
  const long = w.long.filter((e) => e.start + e.dur >= a && e.start <= b);
  const top = long.reduce((m, e) => (e.dur > (m ? m.dur : 0) ? e : m), null);
  const loafs = top ? w.loaf.filter((f) => f.start <= top.start + top.dur && f.start + f.dur >= top.start) : [];
  const frame = loafs.sort((x, y) => y.dur - x.dur)[0] || null;
  return { longest: top ? top.dur : 0, over: long.length, all: long.map((e) => Math.round(e.dur)), attr: top ? top.attr : '',
    frame: frame && { dur: frame.dur, render: frame.render, style: frame.style,
      scripts: frame.scripts.sort((x, y) => y.dur - x.dur).slice(0, 3).map((s) => `${s.inv || '?'}${s.fn ? ' ' + s.fn : ''} ${s.src}:${s.at} ${Math.round(s.dur)} ms` +
        (s.forced ? ` (forced layout ${Math.round(s.forced)})` : '')) } };
}

/* --trace: the main thread in a Chromium trace of one run: its busy time over the trace, wall and
   CPU (load.js's busyTime: the thread's own clock; wall well above CPU means it waited for a
   core), and its tasks over 50 ms, each with its wall and CPU time, its time by kind (load.js's
   selfTimes: the innermost event with a kind claims its self time; wall / CPU ms) and its
   largest inner events. */
const CATEGORIES = ['toplevel', 'devtools.timeline', 'disabled-by-default-devtools.timeline', 'blink.user_timing', 'v8', 'v8.execute'];
function traceTasks(file) {
  const { selfTimes, busyTime } = require('./load.js');
  const raw = JSON.parse(fs.readFileSync(file, 'utf8')), ev = raw.traceEvents || raw;
  const mark = ev.find((e) => e.name === 'blocklens:request' && /user_timing/.test(e.cat || ''));
  if (!mark) return null;
  const mine = ev.filter((e) => e.pid === mark.pid && e.tid === mark.tid && e.ph === 'X');
  const t0 = Math.min(...mine.map((e) => e.ts)), t1 = Math.max(...mine.map((e) => e.ts + e.dur));
  const busy = busyTime(mine, t0, t1);
  const ms1 = (us) => (us === undefined ? null : +(us / 1000).toFixed(1));
  const long = mine.filter((e) => (e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask') && e.dur > LONG * 1000);
  // (a RunTask inside another is one task: only the outermost counts)
  const tasks = long.filter((t) => !long.some((o) => o !== t && o.ts <= t.ts && o.ts + o.dur >= t.ts + t.dur));
  return { span: ms1(t1 - t0), busy: +busy.wall.toFixed(1), busyCpu: +busy.cpu.toFixed(1), tasks: tasks.sort((a, b) => b.dur - a.dur).slice(0, 6).map((t) => {
    const kinds = Object.entries(selfTimes(mine, t.ts, t.ts + t.dur)).sort((a, b) => b[1].wall - a[1].wall).slice(0, 5)
      .map(([k, v]) => `${k} ${v.wall.toFixed(0)} / ${v.cpu.toFixed(0)}`);
    const inner = mine.filter((e) => e !== t && e.ts >= t.ts && e.ts + e.dur <= t.ts + t.dur && e.dur > 5000 && e.name !== t.name)
      .sort((a, b) => b.dur - a.dur).slice(0, 6).map((e) => {
        const d = (e.args && e.args.data) || {};
        return `${e.name}${d.functionName ? ' ' + d.functionName : ''}${d.type ? ' ' + d.type : ''} ${(e.dur / 1000).toFixed(0)}`;
      });
    return { dur: ms1(t.dur), cpu: ms1(t.tdur), kinds, inner };
  }) };
}

/* One run: a new text; the model view's cells, the lens table, the tasks around them. */
async function viewRun(p, model, r, NL, H, traceFile) {
  await p.page.waitForTimeout(2000);
  if (traceFile) await p.page.context().browser().startTracing(p.page, { path: traceFile, categories: CATEGORIES });
  await clear(p.page);
  await p.page.fill('#ctl-tokens', textOf(model, r));
  await p.page.waitForFunction((n) => {
    const W = self.__mw, cells = new Set(W.muts.filter((m) => m.what === 'cell' && m.rows === 64).map((m) => m.cell));
    return (cells.size === n || W.muts.some((m) => m.what === 'maps' && m.v === n + '/' + n)) && W.muts.some((m) => m.what === 'fig-lens:data-top') && document.body.dataset.status === 'ready';
  }, NL * H, { timeout: 10 * 60000, polling: 100 });
  await p.page.waitForTimeout(AFTER);
  const w = await take(p.page), t0 = w.inputs[0];
  let traced = null;
  if (traceFile) { await p.page.context().browser().stopTracing(); traced = traceTasks(traceFile); fs.unlinkSync(traceFile); }
  const req = w.marks.find((m) => m.name === 'blocklens:request');
  const part = (s) => (w.msgs.find((m) => m.stages.includes(s)) || {}).t;
  // (Either kind of page: per-canvas data-rows, or the grid's count.)
  const cells = w.muts.filter((m) => m.what === 'cell' && m.rows === 64);
  const maps = w.muts.filter((m) => m.what === 'maps' && +m.v.split('/')[0] > 0);
  let first, all = 0;
  if (maps.length) {
    first = maps[0].t;
    all = maps.find((m) => m.v === NL * H + '/' + NL * H).t;
  } else {
    const seen = new Set();
    first = cells[0].t;
    for (const c of cells) { seen.add(c.cell); if (seen.size === NL * H) { all = c.t; break; } }
  }
  const lens = w.muts.find((m) => m.what === 'fig-lens:data-top').t;
  const lensDraw = w.marks.filter((m) => m.name === 'blocklens:draw:lens').map((m) => m.start + m.dur).pop();
  const wide = part('wide'), mv = part('modelview');
  const end = Math.max(all, lens) + AFTER;
  return { request: req ? req.start - t0 : null, wide: wide - t0, modelview: mv - t0, first: first - t0, all: all - t0,
    firstAfterWide: first - wide, allAfterWide: all - wide, lens: lens - t0, lensDrawn: lensDraw ? lensDraw - t0 : null,
    heads: tasksIn(w, wide, all + AFTER), lensTasks: tasksIn(w, wide, (lensDraw || lens) + 200), whole: tasksIn(w, t0, end),
    gridFrames: w.marks.filter((m) => m.name === 'blocklens:grid:frame').map((m) => m.dur), traced,
    msgs: w.msgs.map((m) => `${(m.t - t0).toFixed(0)} ${m.type} ${m.stages.join(',')}`) };
}

/* A new measure in figure 12's controls: the figure's redraw (its blocklens:draw:heads measure),
   the grid frames it caused (none expected: a measure relabels cells, it repaints no map) and
   the longest task, from the click to 1 s after. The measures in turn, then back to the first. */
const MEASURES = ['entropy', 'itself', 'first token', 'previous token'];
async function measureRun(p) {
  const res = [];
  for (const m of MEASURES) {
    await ready(p.page);
    await p.page.waitForTimeout(300);
    await clear(p.page);
    await p.page.click('#fig-heads .fig-controls button:has-text("' + m + '")');
    await ready(p.page);
    await p.page.waitForTimeout(AFTER);
    const w = await take(p.page), t0 = w.inputs[0];
    const draws = w.marks.filter((x) => x.name === 'blocklens:draw:heads').map((x) => x.dur);
    res.push({ measure: m, draw: draws.length ? Math.max(...draws) : null, draws: draws.length,
      frames: w.marks.filter((x) => x.name === 'blocklens:grid:frame').length, tasks: tasksIn(w, t0, t0 + AFTER + 500) });
  }
  return res;
}

/* --scrolls: on a page of its own (the first scroll-in is what is timed), a text of L tokens,
   every map drawn off screen, then figure 12 scrolled into view: the longest task from the
   scroll to 1.5 s after, and its long animation frame. */
async function scrollRun(browser, web, model, NL, H) {
  const p = await openPage(browser, web, model);
  try {
    await viewRun(p, model, 0, NL, H);
    await p.page.waitForTimeout(1000);
    const t0 = await clear(p.page);
    await p.page.evaluate(() => document.getElementById('fig-heads').scrollIntoView({ block: 'start' }));
    await p.page.waitForTimeout(1500);
    const w = await take(p.page);
    return Object.assign(tasksIn(w, t0, t0 + 1500), { errors: p.errors });
  } finally {
    await p.context.close();
  }
}

/* A sweep: press "every head alone", wait for its heatmap, then switch it off again. */
async function sweepRun(p) {
  await ready(p.page);
  await p.page.waitForTimeout(500);
  await clear(p.page);
  await p.page.click('#fig-ablation .fig-controls button[data-mode="on"]');
  await p.page.waitForFunction(() => document.querySelector('#fig-ablation').dataset.sweep === 'done' && document.body.dataset.status === 'ready',
    null, { timeout: 20 * 60000, polling: 200 });
  await p.page.waitForTimeout(AFTER);
  const w = await take(p.page), t0 = w.inputs[0];   // (the click's event)
  const done = w.muts.filter((m) => m.what === 'fig-ablation:data-sweep' && m.v === 'done').map((m) => m.t).pop();
  const res = { done: done - t0, tasks: tasksIn(w, t0, done + AFTER), progress: w.msgs.filter((m) => m.type === 'progress').length };
  await p.page.click('#fig-ablation .fig-controls button[data-mode="off"]');
  await ready(p.page);
  return res;
}

async function main() {
  const browser = await launch();
  const started = new Date(), load0 = os.loadavg(), cpu0 = process.cpuUsage(), out = [];
  try {
    for (const model of MODELS) {
      const NL = model === 'poems' ? 2 : SHAPE.NL, H = model === 'poems' ? 4 : SHAPE.H;   // (mv30: 30 x 9 too)
      log(`${model}: opening ${WEBS.length} page(s)`);
      const pages = [];
      for (const web of WEBS) pages.push(await openPage(browser, web, model));
      const rec = pages.map((p, i) => ({ web: WEBS[i], load: p.load, runs: [], sweeps: [], errors: p.errors }));
      for (let r = 0; r <= RUNS; r++) {   /* run 0 is a warm-up */
        // (Strictly in turn: with ABBA order the page measured twice in a row was the slower one,
        // whichever tree it was: its own Worker's work after a run overlaps the next.)
        for (let i = 0; i < pages.length; i++) {
          const x = await viewRun(pages[i], model, r, NL, H);
          log(`${model} ${path.basename(path.dirname(WEBS[i]))}/${path.basename(WEBS[i])} run ${r}: first cell ${x.first.toFixed(0)} ms after the input ` +
            `(${x.firstAfterWide.toFixed(0)} after the forward's answer), all ${x.all.toFixed(0)}, lens ${x.lens.toFixed(0)}; ` +
            `longest task ${x.whole.longest.toFixed(0)} ms, ${x.whole.over} over 50 [${x.whole.all}]`);
          if (r) rec[i].runs.push(x);
        }
      }
      for (let i = 0; i < pages.length; i++) {
        const x = await measureRun(pages[i]);
        log(`${model} measures: ${x.map((y) => `${y.measure} ${y.draw === null ? '-' : y.draw.toFixed(1)} ms, ${y.frames} grid frames, longest task ${y.tasks.longest.toFixed(0)}`).join('; ')}`);
        for (const y of x) if (y.tasks.frame) log(`  ${y.measure}: longest task ${y.tasks.longest.toFixed(0)} ms (${y.tasks.attr}), frame ${JSON.stringify(y.tasks.frame)}`);
        rec[i].measures = x;
      }
      if (TRACE) {
        for (let i = 0; i < pages.length; i++) {
          const x = await viewRun(pages[i], model, RUNS + 1, NL, H, path.join(os.tmpdir(), `blocklens-modelwide-${process.pid}.json`));
          const tr = x.traced || {};
          log(`${model} traced run, ${WEBS[i]}: main thread busy ${tr.busy} ms wall, ${tr.busyCpu} ms CPU over ${tr.span} ms; ` +
            `tasks over 50 ms (wall / CPU, kinds wall / CPU): ${JSON.stringify(tr.tasks, null, 1)}`);
          rec[i].traced = x.traced;
        }
      }
      for (let s = 0; s < (SWEEP_MODELS.includes(model) ? SWEEPS : 0); s++) {
        const order = s % 2 ? pages.map((_, i) => i).reverse() : pages.map((_, i) => i);
        for (const i of order) {
          const x = await sweepRun(pages[i]);
          log(`${model} sweep ${s}: ${x.done.toFixed(0)} ms, longest task ${x.tasks.longest.toFixed(0)} ms, ${x.tasks.over} over 50`);
          rec[i].sweeps.push(x);
        }
      }
      for (const p of pages) await p.context.close();
      for (let s = 0; s < SCROLLS; s++) {
        for (let i = 0; i < WEBS.length; i++) {
          const x = await scrollRun(browser, WEBS[i], model, NL, H);
          log(`${model} scroll-in ${s}, ${WEBS[i]}: longest task ${x.longest.toFixed(0)} ms, ${x.over} over 50 [${x.all}]` +
            (x.frame ? `, frame ${JSON.stringify(x.frame)}` : ''));
          (rec[i].scrolls = rec[i].scrolls || []).push(x);
        }
      }
      out.push({ model, NL, H, rec });
    }
  } finally {
    await browser.close();
    if (!args.includes('--keep')) for (const d of [DIR, MV30]) fs.rmSync(d, { recursive: true, force: true });
  }
  const cpu = process.cpuUsage(cpu0);
  const report = writeReport(out, { started, load0, load1: os.loadavg(), cpu, ua: (await chromiumVersion()) });
  console.log(report);
  if (OUT) fs.writeFileSync(OUT, report);
  fs.writeFileSync(path.join(os.tmpdir(), 'blocklens-modelwide.json'), JSON.stringify(out, null, 1));
}

async function chromiumVersion() {
  const { execFileSync } = require('node:child_process');
  try { return execFileSync(CHROMIUM, ['--version'], { encoding: 'utf8' }).trim().split(' built')[0]; } catch (e) { return 'Chromium'; }
}

const med = (a) => { const b = a.filter((x) => x !== null && Number.isFinite(x)).sort((x, y) => x - y); return b.length ? b[b.length >> 1] : NaN; };
const ms = (a) => { const b = a.filter(Number.isFinite); return b.length ? `${med(b).toFixed(0)} (${Math.min(...b).toFixed(0)}-${Math.max(...b).toFixed(0)})` : '-'; };

function writeReport(out, info) {
  const name = (w) => path.relative(root, w) || '.';
  const lines = [`# The whole-model views on the page: model view, logit lens, ablation sweep

Written by \`node tools/bench/modelwide.js${args.filter((a) => a !== OUT && a !== '--out').map((a) => ' ' + a).join('')}\` on ${info.started.toISOString().slice(0, 16).replace('T', ' ')} UTC,
${info.ua} (headless, --disable-gpu), 1280 x 900, web/index.html from file://; ${os.cpus().length} cores (shared), load
average ${info.load0.map((x) => x.toFixed(1)).join(' / ')} at the start, ${info.load1.map((x) => x.toFixed(1)).join(' / ')} at the end.
${L} tokens (<s> and ${L - 1} characters, a new text each run: a new forward), ${RUNS} runs after a warm-up${WEBS.length > 1 ? ', the two trees in turn (A B A B ...)' : ''}, 2 s apart.
Times in ms from the text's input event: *answer* is the Worker's first message with the wide
stage (the forward of every layer), *first cell* / *all cells* the first / the last of the
model view's maps drawn (a canvas's data-rows set), *lens* the logit lens figure's data. Tasks:
PerformanceObserver 'longtask' (> 50 ms) from the answer to 1 s after the last cell ("model
view") and from the input to 1 s after everything ("whole update"); the longest one's long
animation frame says where its time went (script / from the start to style and layout / to
render). Median (min-max) over the runs.
`];
  for (const m of out) {
    lines.push(`## ${{ poems: 'The poem model (GPT-2, 2 layers x 4 heads, d 64)', smollm2: 'SmolLM2-135M shapes, random BF16 (30 layers x 9 heads, 3 kv heads, d 576, d_ff 1536, vocab 49152)',
      mv30: 'The grid alone: 30 layers x 9 heads (3 kv) at d 72, vocab 64, F32 (the browser test\'s folder)' }[m.model]}
`);
    lines.push(`| tree | answer | first cell | first cell after the answer | all cells | all after the answer | lens | longest task, model view | tasks > 50 ms, model view | longest task, whole update | tasks > 50 ms, whole | grid frame share, median / max |`);
    lines.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const r of m.rec) {
      const R = r.runs, f = (k) => ms(R.map((x) => x[k]));
      const frames = R.flatMap((x) => x.gridFrames);
      lines.push(`| ${name(r.web)} | ${f('wide')} | ${f('first')} | ${f('firstAfterWide')} | ${f('all')} | ${f('allAfterWide')} | ${f('lens')} | ` +
        `${ms(R.map((x) => x.heads.longest))} | ${R.map((x) => x.heads.over).join(', ')} | ${ms(R.map((x) => x.whole.longest))} | ` +
        `${R.map((x) => x.whole.over).join(', ')} | ${frames.length ? med(frames).toFixed(1) + ' / ' + Math.max(...frames).toFixed(1) : '-'} |`);
    }
    lines.push('');
    for (const r of m.rec) {
      const worst = r.runs.reduce((a, x) => (x.whole.longest > a.whole.longest ? x : a), r.runs[0]);
      if (worst && worst.whole.longest) {
        const fr = worst.whole.frame;
        lines.push(`- ${name(r.web)}: the longest task of all runs, ${worst.whole.longest.toFixed(0)} ms (attribution "${worst.whole.attr}")` +
          (fr ? `; its frame ${fr.dur.toFixed(0)} ms, style and layout from ${fr.style.toFixed(0)} ms, render from ${fr.render.toFixed(0)} ms; scripts: ${fr.scripts.join('; ') || 'none'}` : '') + '.');
      }
      if (r.load) lines.push(`- ${name(r.web)}: the folder opened in ${(r.load / 1000).toFixed(1)} s.`);
      if (r.traced) lines.push(`- ${name(r.web)}: traced run: the main thread busy ${r.traced.busy} ms wall, ${r.traced.busyCpu} ms CPU ` +
        `over ${r.traced.span} ms; tasks over 50 ms (wall / CPU): ${r.traced.tasks.map((t) => `${t.dur} / ${t.cpu}`).join(', ') || 'none'}.`);
      if (r.errors.length) lines.push(`- ${name(r.web)}: page errors: ${r.errors.slice(0, 3).join(' | ')}`);
    }
    if (m.rec.some((r) => r.measures)) {
      lines.push(`
A new measure in the model view's controls (${MEASURES.join(', ')}): the figure's redraw (blocklens:draw:heads,
the longest if the page drew twice), the grid frames it caused (a measure repaints no map: 0 expected) and the
longest task from the click to 1.5 s after:

| tree | redraw, median (min-max) ms | grid frames | longest task |
|---|---:|---:|---:|`);
      for (const r of m.rec.filter((x) => x.measures)) {
        lines.push(`| ${name(r.web)} | ${ms(r.measures.map((x) => x.draw))} | ${r.measures.map((x) => x.frames).join(', ')} | ` +
          `${ms(r.measures.map((x) => x.tasks.longest))} |`);
      }
      lines.push('');
    }
    if (m.rec.some((r) => r.scrolls)) {
      lines.push(`
The model view scrolled into view once all its maps are drawn below the fold (a fresh page each
time: the first scroll-in is what is timed), the longest task from the scroll to 1.5 s after:

| tree | longest task, median (min-max) ms | tasks > 50 ms |
|---|---:|---:|`);
      for (const r of m.rec.filter((x) => x.scrolls)) {
        lines.push(`| ${name(r.web)} | ${ms(r.scrolls.map((x) => x.longest))} | ${r.scrolls.map((x) => x.over).join(', ')} |`);
      }
      lines.push('');
    }
    const sw = m.rec.filter((r) => r.sweeps.length);
    if (sw.length) {
      lines.push(`
Ablation sweep ("every head alone": ${m.NL * m.H} heads and ${m.NL} FFNs, each a forward), from the press to the heatmap:

| tree | sweep | longest task | tasks > 50 ms | Worker progress messages |
|---|---:|---:|---:|---:|`);
      for (const r of sw) {
        lines.push(`| ${name(r.web)} | ${ms(r.sweeps.map((x) => x.done))} | ${ms(r.sweeps.map((x) => x.tasks.longest))} | ` +
          `${r.sweeps.map((x) => x.tasks.over).join(', ')} | ${r.sweeps.map((x) => x.progress).join(', ')} |`);
      }
      for (const r of sw) {
        const x = r.sweeps.reduce((a, s) => (s.tasks.longest > a.tasks.longest ? s : a), r.sweeps[0]);
        if (x.tasks.frame) lines.push(`\n- ${name(r.web)}: the sweep's longest task ${x.tasks.longest.toFixed(0)} ms; its frame's scripts: ${x.tasks.frame.scripts.join('; ') || 'none'}.`);
      }
    }
    lines.push('');
  }
  lines.push(`The bench process's own CPU time: ${((info.cpu.user + info.cpu.system) / 1e6).toFixed(1)} s (Chromium's is not in it).
`);
  return lines.join('\n');
}

main().catch((e) => { log(e.stack || String(e)); process.exit(1); });
