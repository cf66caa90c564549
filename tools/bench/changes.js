#!/usr/bin/env node
/* tools/bench/changes.js - how the page answers a settings change, as a reader feels it: for
   each change (a preset, the seed, the activation, a token pick, the causal mask, the attention
   view), the time from the input to every figure it touches being redrawn (the page's
   'blocklens:draw:<view>' measures, which end after a figure's last heatmap or plot job at
   large sizes), the first figure redrawn, the longest main-thread task in between
   (PerformanceObserver longtask: tasks over 50 ms), and the main thread's busy time and its
   style + layout part (CDP Performance.getMetrics, over the change and 700 ms after it: less
   moved by the host's load than the wall-clock times). Headless Chromium, served page.
   A benchmark: prints numbers, asserts nothing.
   Usage: node tools/bench/changes.js [--runs 3] [--size bert|classic|both] [--only TEXT]
          [--web DIR,DIR...] [--trace] [--keep DIR]
   --only: the changes whose name contains TEXT. --web: other builds' web/ folders (e.g. an
   older commit's, bundled), run in turn with each change, one row each: on a shared host,
   paired runs are the way to tell two builds apart. --trace: a Chromium trace of each change
   too: the main thread's CPU time over the change (the tasks' thread time, less moved by the
   host's load than wall time) and the longest task in CPU time, with its largest parts; and the
   compute Worker's thread: its tasks' wall and CPU time, GC, wasm compiles or memory.grow.
   --keep DIR: with --trace, keep each trace in DIR (forced layouts carry their JS stacks), to
   open in DevTools' Performance panel. */
'use strict';
const path = require('path');
const fs = require('fs');
const os = require('os');
const bench = require('./browser.js');

const args = process.argv.slice(2);
const opt = (name, def) => { const i = args.indexOf('--' + name); return i >= 0 ? args[i + 1] : def; };
const RUNS = Number(opt('runs', 3)), SIZE = opt('size', 'both'), ONLY = opt('only', '');
const WEBS = opt('web', bench.WEB).split(','), TRACE = args.includes('--trace'), KEEP = opt('keep', '');
let traceCount = 0;
const WORDS64 = Array.from({ length: 64 }, (_, i) => 'tok' + i).join(' ');
const START = {
  classic: 'lang=en',
  bert: 'lang=en&d=768&dff=3072&heads=12&act=gelu&tokens=' + encodeURIComponent(WORDS64)
};
// Each change, done inside the page (element events, no driver round trip in the timing).
// Text fields wait for a pause in typing (250 ms) by design; the table says which ones do.
const typeInto = (sel, v) => (p) => p.evaluate(([s2, v2]) => {
  const e = document.querySelector(s2); e.value = v2; e.dispatchEvent(new Event('input', { bubbles: true }));
}, [sel, v]);
// Typed, then Enter (the field's change event): applied without the pause.
const typeEnter = (sel, v) => (p) => p.evaluate(([s2, v2]) => {
  const e = document.querySelector(s2); e.value = v2; e.dispatchEvent(new Event('input', { bubbles: true }));
  e.dispatchEvent(new Event('change', { bubbles: true }));
}, [sel, v]);
const choose = (sel, v) => (p) => p.evaluate(([s2, v2]) => {
  const e = document.querySelector(s2); e.value = v2; e.dispatchEvent(new Event('change', { bubbles: true }));
}, [sel, v]);
const press = (sel) => (p) => p.evaluate((s2) => document.querySelector(s2).click(), sel);
const CHANGES = {
  classic: [
    ['seed 42 -> 7 (typed)', typeInto('#controls [name="seed"]', '7')],
    ['seed 42 -> 7 (typed, Enter)', typeEnter('#controls [name="seed"]', '7')],
    ['activation relu -> gelu', choose('#controls [name="act"]', 'gelu')],
    ['token pick', press('#fig-rows .tok[data-index="3"]')],
    ['causal on', press('#controls [name="causal"]')],
    ['attention view: raw scores', press('#fig-attention .seg-btn[data-mode="raw"]')],
    ['preset: BERT-base widths', press('button[data-i18n="quick_bert"]')]
  ],
  bert: [
    ['seed 42 -> 7 (typed)', typeInto('#controls [name="seed"]', '7')],
    ['seed 42 -> 7 (typed, Enter)', typeEnter('#controls [name="seed"]', '7')],
    ['activation gelu -> relu', choose('#controls [name="act"]', 'relu')],
    ['token pick', press('#fig-rows .tok[data-index="3"]')],
    ['causal on', press('#controls [name="causal"]')],
    ['attention view: raw scores', press('#fig-attention .seg-btn[data-mode="raw"]')],
    ['preset: classic example', press('button[data-i18n="quick_classic"]')]
  ]
};

function observe() {
  window.__long = [];
  new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push({ start: e.startTime, dur: e.duration }); })
    .observe({ type: 'longtask', buffered: true });
  window.__draws = [];
  new PerformanceObserver((l) => { for (const e of l.getEntries()) if (e.name.startsWith('blocklens:draw:')) window.__draws.push({ name: e.name, end: e.startTime + e.duration }); })
    .observe({ type: 'measure', buffered: true });
}

// The page's main thread (the one that has the user-timing draws) from the change's mark on:
// its tasks' CPU (thread time, tdur) summed, the longest in CPU, and that task's largest
// direct-or-nested events (function calls, layout, GC) by CPU.
function traceCpu(file) {
  const raw = JSON.parse(fs.readFileSync(file, 'utf8')), ev = raw.traceEvents || raw;
  const t0 = ev.find((e) => e.name === 'blocklens:change' && e.cat && e.cat.includes('user_timing'));
  if (!t0) return null;
  const main = ev.filter((e) => e.pid === t0.pid && e.tid === t0.tid && e.ph === 'X' && e.ts >= t0.ts);
  const tasks = main.filter((e) => e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask');
  const cpu = (e) => (e.tdur === undefined ? e.dur : e.tdur) / 1000;
  const tops = tasks.slice().sort((a, b) => cpu(b) - cpu(a)).slice(0, 3), top = tops[0];
  const parts = tops.map((t) => {
    const sum = new Map();   // (nested events counted in each of their ancestors' names too)
    main.filter((e) => e !== t && e.ts >= t.ts && e.ts + e.dur <= t.ts + t.dur).forEach((e) => {
      const d = e.args && e.args.data, name = e.name + (d && d.url ? ' ' + String(d.url).split('/').pop() + ':' + d.lineNumber : '') +
        (d && d.functionName ? ' ' + d.functionName : '');
      sum.set(name, (sum.get(name) || 0) + cpu(e));
    });
    // (what posted the task, e.g. FormControlDidChange for the change itself, and how many
    // layouts it forced: a sum of many small ones reads differently from one large one)
    const src = t.args && t.args.src_func ? ' (' + t.args.src_func + ')' : '';
    const n = main.filter((e) => e.name === 'Layout' && e.ts >= t.ts && e.ts + e.dur <= t.ts + t.dur).length;
    return 'task ' + cpu(t).toFixed(1) + ' ms' + src + ', ' + n + ' layouts: ' + Array.from(sum, ([name, ms]) => ({ name, ms })).sort((a, b) => b.ms - a.ms).slice(0, 4)
      .map((p) => p.name + ' ' + p.ms.toFixed(1)).join(', ');
  });
  const lay = main.filter((e) => e.name === 'Layout' || e.name === 'UpdateLayoutTree');
  // The compute Worker's thread in the same renderer: its tasks' wall and CPU (a Worker starved
  // of a core shows wall far above CPU), its GC, and any wasm compile (lazy or tier-up) or
  // memory.grow in the window; beside it, the CPU of every thread the trace saw (the page's
  // own drawing, raster and compositor compete with the Worker for the cores).
  const names = new Map();
  ev.filter((e) => e.ph === 'M' && e.name === 'thread_name').forEach((e) => names.set(e.pid + ':' + e.tid, e.args.name));
  const wk = ev.filter((e) => e.pid === t0.pid && e.ph === 'X' && e.ts >= t0.ts && names.get(e.pid + ':' + e.tid) === 'DedicatedWorker thread');
  const wTasks = wk.filter((e) => e.name === 'ThreadControllerImpl::RunTask');
  const sum = (a, f) => a.reduce((t, e) => t + f(e), 0);
  const roots = ev.filter((e) => e.ph === 'X' && e.ts >= t0.ts &&
    /^(ThreadControllerImpl::RunTask|ThreadPool_RunTask|SingleThreadTaskGraphRunner::RunTaskWithLockAcquired)$/.test(e.name));
  const worker = wTasks.length ? { wall: sum(wTasks, (e) => e.dur / 1000), cpu: sum(wTasks, cpu),
    gc: sum(wk.filter((e) => e.name === 'MajorGC' || e.name === 'MinorGC'), cpu),
    wasm: Array.from(new Set(ev.filter((e) => e.ts >= t0.ts && /wasm/i.test(e.name)).map((e) => e.name))).join(' ') || 'none',
    allCpu: sum(roots, cpu) } : null;
  return { worker, cpu: tasks.reduce((t, e) => t + cpu(e), 0), layouts: lay.filter((e) => e.name === 'Layout').length,
    layoutCpu: lay.reduce((t, e) => t + cpu(e), 0), jsCpu: main.filter((e) => e.name === 'FunctionCall').reduce((t, e) => t + cpu(e), 0), longest: top ? cpu(top) : 0, wall: top ? top.dur / 1000 : 0, parts };
}

async function one(browser, base, size, change) {
  const context = await browser.newContext({ viewport: bench.DESKTOP });
  await context.addInitScript(observe);
  const page = await context.newPage();
  await page.goto(base + '#' + START[size]);
  await page.waitForFunction(() => document.body.dataset.status === 'ready', null, { timeout: 60000 });
  await page.waitForTimeout(3000);   // the Worker starts after the first answer and warms up
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');
  const metrics = async () => Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
  const m0 = await metrics();
  const traceFile = path.join(os.tmpdir(), `blocklens-changes-trace-${process.pid}.json`);
  if (TRACE) {
    await browser.startTracing(page, { path: traceFile, categories: ['toplevel', 'devtools.timeline', 'blink.user_timing',
      'v8', 'v8.wasm', 'disabled-by-default-v8.wasm.detailed'].concat(KEEP ? ['disabled-by-default-devtools.timeline.stack'] : []) });
  }
  const t0 = await page.evaluate(() => { window.__long = []; window.__draws = []; window.__t0 = performance.now(); performance.mark('blocklens:change'); return window.__t0; });
  await change[1](page);
  await page.waitForTimeout(300);    // typing debounce, then the answer
  await page.waitForFunction(() => document.body.dataset.status === 'ready', null, { timeout: 60000 });
  await page.waitForTimeout(400);
  const r = await page.evaluate(() => ({ draws: window.__draws, long: window.__long, t0: window.__t0,
    ready: performance.now(), compute: document.body.dataset.compute }));
  const m1 = await metrics(), ms = (k) => (m1[k] - m0[k]) * 1000;
  let trace = null;
  if (TRACE) {
    await browser.stopTracing(); trace = traceCpu(traceFile);
    if (KEEP) {
      const name = `${++traceCount}-${size}-${change[0].replace(/[^a-z0-9]+/gi, '_')}.json`;
      fs.mkdirSync(KEEP, { recursive: true }); fs.copyFileSync(traceFile, path.join(KEEP, name));
    }
    fs.unlinkSync(traceFile);
  }
  await context.close();
  const last = r.draws.length ? Math.max(...r.draws.map((d) => d.end)) - t0 : NaN;
  const first = r.draws.length ? Math.min(...r.draws.map((d) => d.end)) - t0 : NaN;
  return { last, first, n: new Set(r.draws.map((d) => d.name)).size, longest: Math.max(0, ...r.long.map((e) => e.dur)), compute: r.compute,
    busy: ms('TaskDuration'), style: ms('RecalcStyleDuration') + ms('LayoutDuration'), trace };
}

(async () => {
  const browser = await bench.launch();
  const servers = [];
  for (const root of WEBS) servers.push(await bench.serve(path.resolve(root)));
  const med = (a) => { const s = a.slice().sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };
  const cell = (v, w) => (v.toFixed(0) + ' ms').padStart(w);
  try {
    for (const size of SIZE === 'both' ? ['classic', 'bert'] : [SIZE]) {
      console.log(`\n${size === 'bert' ? 'BERT-base widths, 64 tokens' : 'classic example'} (${RUNS} runs each, medians; long task = over 50 ms)`);
      console.log('change'.padEnd(32) + 'first figure'.padStart(14) + 'all redrawn'.padStart(14) + 'figures'.padStart(9) + 'longest task'.padStart(14) +
        'main busy'.padStart(11) + 'style+layout'.padStart(14) + (WEBS.length > 1 ? '  web' : ''));
      for (const ch of CHANGES[size].filter((c) => c[0].includes(ONLY))) {
        const rs = servers.map(() => []);
        for (let i = 0; i < RUNS; i++) for (let j = 0; j < servers.length; j++) rs[j].push(await one(browser, servers[j].url, size, ch));
        rs.forEach((runs, j) => {
          const m = (k) => med(runs.map((r) => r[k]));
          console.log(ch[0].padEnd(32) + cell(m('first'), 14) + cell(m('last'), 14) + String(m('n')).padStart(9) +
            (m('longest') ? cell(m('longest'), 14) : '< 50 ms'.padStart(14)) + cell(m('busy'), 11) + cell(m('style'), 14) +
            (WEBS.length > 1 ? '  ' + WEBS[j] : ''));
          if (TRACE) {
            const tr = runs.map((r) => r.trace).filter(Boolean), mt = (k) => med(tr.map((t) => t[k]));
            if (tr.length) {
              console.log('    trace: main-thread CPU ' + mt('cpu').toFixed(0) + ' ms (style + layout ' + mt('layoutCpu').toFixed(0) + ' ms in ' +
                mt('layouts') + ' layouts, JS ' + mt('jsCpu').toFixed(0) + ' ms), longest task CPU ' + mt('longest').toFixed(1) +
                ' ms (runs: ' + tr.map((t) => t.longest.toFixed(1) + '/' + t.wall.toFixed(1)).join(', ') + ' CPU/wall)');
              const wt = tr.map((t) => t.worker).filter(Boolean), mw = (k) => med(wt.map((w) => w[k]));
              if (wt.length) {
                console.log('    Worker thread: tasks ' + mw('wall').toFixed(0) + ' ms wall, ' + mw('cpu').toFixed(0) + ' ms CPU (GC ' +
                  mw('gc').toFixed(0) + '); all traced threads ' + mw('allCpu').toFixed(0) + ' ms CPU; wasm events: ' + wt[0].wasm);
              }
              const worst = tr.slice().sort((a, b) => b.longest - a.longest)[0];
              worst.parts.forEach((p) => console.log('      ' + p));
            }
          }
        });
      }
    }
  } finally {
    await browser.close();
    for (const srv of servers) await srv.close();
  }
})().catch((e) => { console.error(e); process.exit(1); });
