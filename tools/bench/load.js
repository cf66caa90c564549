#!/usr/bin/env node
/* tools/bench/load.js - how long the page takes to show its figures, as a person opening it would
   see it: headless Chromium (Debian's /usr/bin/chromium, launched through playwright-core), a
   fresh browser context per load (no HTTP cache, no code cache carried between loads), from
   file:// and served by tools/serve.js. A benchmark: it prints numbers and asserts nothing.

   usage:  node tools/bench/load.js [--runs 5] [--web DIR] [--trace] [--out FILE]
     --runs N        timed loads per way of opening the page (default 5), interleaved; the report
                     gives median, min and max
     --web DIR       the web/ tree to load (default: this checkout's web/), e.g. an older commit's:
                     git worktree add /tmp/old HEAD~1 && mkdir -p /tmp/old/web/dist && cp web/dist/* /tmp/old/web/dist/
     --only file|served   one way of opening the page only
     --warmup N      untimed loads first (default 1: the browser's own start-up)
     --hash H        URL fragment to open (default none: the page as a visitor first sees it)
     --driver playwright|cdp
                     playwright (default): playwright-core, as the browser tests. It holds every
                     Worker the page starts until it has attached to it (a round trip to this
                     process); a visitor's browser does not. cdp: the same Chromium and switches
                     driven over --remote-debugging-pipe with only the page attached, so Workers
                     start unhindered: the closer to what a visitor sees.
     --quiet P       before each load wait until the cores are at most P % busy over half a second
                     (default 25; 0: don't wait), for at most --quiet-wait S seconds (default 30)
     --wide          also wait for the whole model's figures (12-16), which the page computes only
                     when scrolled near: the page is loaded with <html data-wide="eager">. Without
                     it "all figures" means the eagerly drawn ones (1-11)
     --timeout MS    give up on a load after MS (default 30000)
     --trace         also trace --trace-runs N loads (default 3; file://, or --trace-url served)
                     with Chromium's tracing and the JS sampling profiler, and report where the
                     time goes: milestones, phases, main-thread and Worker time by kind (wall and
                     CPU), scripts, wasm compilation, the longest tasks, sampled JS functions.
                     Traced loads are slower and never part of the timed numbers.
     --trace-compile like --trace, also recording every lazy JS compile (slower still)
     --trace-dir D   keep the traces there (load-trace-N.json: DevTools > Performance > Load profile)
     --top N         rows in the trace tables (default 12)
     --out FILE      also write the report as Markdown (tools/bench/REPORT-load.md)

   Figure times: the page marks performance.mark('blocklens:figure:<view>') right after each
   figure's first complete draw (startTime is from navigation start); those are used when present.
   A page without the marks is timed by polling on every animation frame, from before its first
   script, for the first frame in which #fig-<view> holds drawn content (every canvas.hm with a
   data-rows attribute; for paramsplit a .pbar or a table row). Frame times are also recorded
   when the marks exist ("seen in a frame"), so old and new pages can be compared the same way.
   Ready: the first time body[data-status="ready"] is set (a MutationObserver). The probe also
   notes new Worker() and WebAssembly.compile/instantiate calls on the page's thread. */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const bench = require('./browser.js');

const { FIGURES, VIEWS: ALL_VIEWS } = require('../../web/src/figures/index.js');
const { closure } = require('../../web/src/model/model.js');
// The figures a load waits for: those the page draws without being scrolled to. The whole
// model's (12-16, reading the 'wide' stage) are computed only when near the screen
// (entries/page.js watchWide), so by default they are left out; --wide loads the page with
// <html data-wide="eager"> and waits for all of them.
const WIDE = ALL_VIEWS.filter((k) => closure(FIGURES.get(k).needs).includes('wide'));
const EAGER = ALL_VIEWS.filter((k) => !WIDE.includes(k));
const WANT_WIDE = process.argv.includes('--wide');
const VIEWS = WANT_WIDE ? ALL_VIEWS : EAGER;
const TARGET = { first: 300, all: 600 };   // ms after navigation, file://, median of 5 loads

function parseArgs(argv) {
  const a = argv.slice(2), o = {};
  const val = (name) => { const i = a.indexOf('--' + name); return i >= 0 ? a[i + 1] : undefined; };
  const num = (name, def) => { const v = val(name); if (v === undefined) return def; const n = Number(v); if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} needs a number, got ${v}`); return n; };
  o.runs = num('runs', 5);
  o.warmup = num('warmup', 1);
  o.traceRuns = num('trace-runs', 3);
  o.top = num('top', 12);
  o.timeout = num('timeout', 30000);
  o.quiet = num('quiet', 25);
  o.quietWait = num('quiet-wait', 30) * 1000;
  o.web = path.resolve(val('web') || bench.WEB);
  o.only = val('only');
  o.driver = val('driver') || 'playwright';
  if (!['playwright', 'cdp'].includes(o.driver)) throw new Error('--driver playwright|cdp');
  o.hash = val('hash') || '';
  o.trace = a.includes('--trace') || a.includes('--trace-compile');
  o.traceCompile = a.includes('--trace-compile');
  o.traceUrl = val('trace-url') || 'file';
  o.traceDir = val('trace-dir') ? path.resolve(val('trace-dir')) : null;
  o.out = val('out') ? path.resolve(val('out')) : null;
  if (o.only && !['file', 'served'].includes(o.only)) throw new Error('--only file|served');
  if (!['file', 'served'].includes(o.traceUrl)) throw new Error('--trace-url file|served');
  if (!fs.existsSync(path.join(o.web, 'index.html'))) throw new Error(`no index.html in ${o.web}`);
  return o;
}

/* ---- in the page, before any of its scripts (page.addInitScript) ------------------------- */
// Nothing else of the benchmark runs in the page until it is done: it says so on the console
// (a page.waitForFunction would have playwright evaluate its ~330 KB helper script on the page's
// main thread in the middle of the load).
function probe(views, wide) {
  if (window !== window.top) return;
  // (Before the page's DOMContentLoaded listener, which reads it.)
  if (wide) document.addEventListener('DOMContentLoaded', () => { document.documentElement.dataset.wide = 'eager'; });
  const w = window.__blBench = { frame: {}, frameHow: {}, status: [], frames: 0, readyFrame: null, workers: [], wasm: [], done: false };
  const markOf = (v) => performance.getEntriesByName('blocklens:figure:' + v, 'mark')[0];
  function drawn(v) {
    const root = document.getElementById('fig-' + v);
    if (!root) return false;
    if (v === 'paramsplit') return !!root.querySelector('.pbar, tr');
    const all = root.querySelectorAll('canvas.hm');
    if (!all.length) return false;
    for (const c of all) if (!c.hasAttribute('data-rows')) return false;
    return true;
  }
  function finish() {
    if (w.done) return;
    w.done = true;
    console.debug('__blBench:done');
  }
  // Every animation frame until all awaited figures are seen and the page said ready: what is in the DOM at
  // a frame's callbacks is what that frame paints.
  function tick() {
    const now = performance.now();
    w.frames++;
    for (const v of views) {
      if (w.frame[v] !== undefined) continue;
      const m = !!markOf(v);
      if (m || drawn(v)) { w.frame[v] = now; w.frameHow[v] = m ? 'mark' : 'dom'; }
    }
    const s = document.body && document.body.dataset.status;
    if (w.readyFrame === null && s === 'ready') w.readyFrame = now;
    if (s === 'error' || (Object.keys(w.frame).length === views.length && w.readyFrame !== null)) finish();
    else requestAnimationFrame(tick);
  }
  requestAnimationFrame(tick);
  // body[data-status] as it changes (the time of the task that changed it).
  new MutationObserver(() => {
    const s = document.body && document.body.dataset.status;
    if (s && (!w.status.length || w.status[w.status.length - 1][0] !== s)) w.status.push([s, performance.now()]);
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-status'] });
  // When the page starts Workers and compiles wasm on its own thread (calls only; what happens
  // inside a Worker is in the trace).
  if (typeof Worker === 'function') {
    const W = Worker;
    window.Worker = class extends W {
      constructor(...a) { const t = performance.now(); super(...a); w.workers.push([t, performance.now()]); }
    };
  }
  if (typeof WebAssembly === 'object') {
    ['compile', 'instantiate', 'compileStreaming', 'instantiateStreaming'].forEach((k) => {
      const f = WebAssembly[k];
      if (typeof f !== 'function') return;
      WebAssembly[k] = function () {
        const t = performance.now(), p = f.apply(this, arguments), rec = [k, t, null];
        w.wasm.push(rec);
        p.then(() => { rec[2] = performance.now(); }, () => {});
        return p;
      };
    });
  }
}

// What one load measured, read from the page once it is done.
function collect() {
  const w = window.__blBench, marks = {}, nav = performance.getEntriesByType('navigation')[0] || {};
  performance.getEntriesByType('mark').forEach((m) => { if (marks[m.name] === undefined) marks[m.name] = m.startTime; });
  const paint = {};
  performance.getEntriesByType('paint').forEach((p) => { paint[p.name] = p.startTime; });
  const ready = w.status.find((s) => s[0] === 'ready');
  return {
    marks, frame: w.frame, frameHow: w.frameHow, frames: w.frames, readyFrame: w.readyFrame,
    ready: ready ? ready[1] : null, statuses: w.status.map((s) => s[0]).join(' > '),
    fcp: paint['first-contentful-paint'] !== undefined ? paint['first-contentful-paint'] : null,
    dcl: nav.domContentLoadedEventStart || null, load: nav.loadEventEnd || null,
    scripts: document.scripts.length, workers: w.workers, wasm: w.wasm,
    compute: document.body.dataset.compute || '', pageErrors: document.body.dataset.errors || ''
  };
}

/* ---- one load, through one of two drivers ----------------------------------------------- */
// playwright-core: how the browser tests drive Chromium. It attaches to every Worker the page
// starts and holds it until it has (Target.setAutoAttach with waitForDebuggerOnStart), which no
// visitor's browser does; the Worker's start waits for a round trip to this process.
async function playwrightDriver() {
  const browser = await bench.launch();
  return {
    name: 'playwright-core', version: browser.version(),
    close: () => browser.close(),
    async load(url, o, traceFile) {
      const context = await browser.newContext({ viewport: bench.DESKTOP });
      try {
        await context.addInitScript(`(${probe})(${JSON.stringify(VIEWS)}, ${WANT_WIDE})`);
        const page = await context.newPage();
        const errors = [];
        let signal;
        const done = new Promise((res) => { signal = res; });
        page.on('pageerror', (e) => errors.push(e.message));
        page.on('console', (m) => {
          if (m.text() === '__blBench:done') signal();
          else if (m.type() === 'error') errors.push(m.text());
        });
        if (traceFile) await browser.startTracing(page, { path: traceFile, categories: traceCategories(o) });
        await page.goto(url, { waitUntil: 'commit' });
        await waitOrTimeout(done, o, errors);
        const r = await page.evaluate(collect);
        if (traceFile) {
          await page.waitForTimeout(100);   // the last frame's events
          await browser.stopTracing();
        }
        r.errors = errors;
        return r;
      } finally {
        await context.close();
      }
    }
  };
}

// The same Chromium (same executable, the test suite's switches plus the ones playwright-core
// 1.65 adds that bear on timing), driven over --remote-debugging-pipe by the few DevTools
// protocol calls a load needs: a browser context per load, the page's target only (no
// auto-attach, so Workers start as in any browser), the same init script, console and tracing.
const PLAYWRIGHT_SWITCHES = ['--disable-field-trial-config', '--disable-background-timer-throttling',
  '--disable-backgrounding-occluded-windows', '--disable-back-forward-cache', '--disable-breakpad',
  '--disable-component-extensions-with-background-pages', '--no-default-browser-check', '--disable-default-apps',
  '--disable-dev-shm-usage', '--disable-extensions',
  '--disable-features=AvoidUnnecessaryBeforeUnloadCheckSync,DestroyProfileOnBrowserClose,HttpsUpgrades,HttpsFirstBalancedModeAutoEnable,LensOverlay,MediaRouter,PaintHolding,ThirdPartyStoragePartitioning,AvoidCorsURLLoaderRestartOnRedirect,OptimizationHints,NetworkTimeServiceQuerying,AimEnabled,PreconnectToSearch',
  '--allow-pre-commit-input', '--disable-hang-monitor', '--disable-ipc-flooding-protection', '--disable-popup-blocking',
  '--disable-prompt-on-repost', '--disable-renderer-backgrounding', '--force-color-profile=srgb', '--metrics-recording-only',
  '--password-store=basic', '--use-mock-keychain', '--no-service-autorun', '--disable-search-engine-choice-screen',
  '--disable-infobars', '--hide-scrollbars', '--mute-audio', '--no-startup-window',
  '--blink-settings=primaryHoverType=2,availableHoverTypes=2,primaryPointerType=4,availablePointerTypes=4'];

async function cdpDriver() {
  const { spawn } = require('child_process');
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'blocklens-load-profile-'));
  const proc = spawn(bench.CHROMIUM,
    bench.CHROMIUM_ARGS.concat(PLAYWRIGHT_SWITCHES, ['--user-data-dir=' + profile, '--remote-debugging-pipe']),
    { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] });
  const toBrowser = proc.stdio[3], fromBrowser = proc.stdio[4];
  const pending = new Map(), listeners = new Set();
  let seq = 0, buf = '', exited = false;
  proc.on('exit', () => { exited = true; pending.forEach(([, rej]) => rej(new Error('chromium exited'))); pending.clear(); });
  fromBrowser.on('data', (d) => {
    buf += d.toString('utf8');
    let i;
    while ((i = buf.indexOf('\0')) >= 0) {
      const m = JSON.parse(buf.slice(0, i));
      buf = buf.slice(i + 1);
      if (m.id !== undefined && pending.has(m.id)) {
        const [res, rej] = pending.get(m.id);
        pending.delete(m.id);
        if (m.error) rej(new Error(m.error.message)); else res(m.result);
      } else listeners.forEach((f) => f(m));
    }
  });
  const send = (method, params, sessionId) => new Promise((res, rej) => {
    if (exited) return rej(new Error('chromium exited'));
    const m = { id: ++seq, method, params: params || {} };
    if (sessionId) m.sessionId = sessionId;
    pending.set(m.id, [res, rej]);
    toBrowser.write(JSON.stringify(m) + '\0');
  });
  const on = (f) => { listeners.add(f); return () => listeners.delete(f); };
  const version = (await send('Browser.getVersion')).product.replace(/^.*\//, '');
  const probeSource = `(${probe})(${JSON.stringify(VIEWS)}, ${WANT_WIDE})`;

  async function writeTrace(file) {
    const complete = new Promise((res) => { const off = on((m) => { if (m.method === 'Tracing.tracingComplete') { off(); res(m.params.stream); } }); });
    await send('Tracing.end');
    const handle = await complete, out = fs.openSync(file, 'w');
    try {
      for (;;) {
        const c = await send('IO.read', { handle, size: 1 << 20 });
        fs.writeSync(out, c.base64Encoded ? Buffer.from(c.data, 'base64') : c.data);
        if (c.eof) break;
      }
    } finally {
      fs.closeSync(out);
      await send('IO.close', { handle });
    }
  }

  return {
    name: 'DevTools protocol over a pipe', version,
    async close() {
      try { await send('Browser.close'); } catch (e) { /* already gone */ }
      if (!exited) await new Promise((res) => { const t = setTimeout(() => { proc.kill('SIGKILL'); res(); }, 5000); proc.once('exit', () => { clearTimeout(t); res(); }); });
      fs.rmSync(profile, { recursive: true, force: true });
    },
    async load(url, o, traceFile) {
      const { browserContextId } = await send('Target.createBrowserContext');
      const errors = [];
      let off = null;
      try {
        const { targetId } = await send('Target.createTarget', { url: 'about:blank', browserContextId });
        const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
        const S = (method, params) => send(method, params, sessionId);
        let signal;
        const done = new Promise((res) => { signal = res; });
        off = on((m) => {
          if (m.sessionId !== sessionId) return;
          if (m.method === 'Runtime.consoleAPICalled') {
            const text = m.params.args.map((a) => (a.value !== undefined ? String(a.value) : a.description || '')).join(' ');
            if (text === '__blBench:done') signal();
            else if (m.params.type === 'error') errors.push(text);
          } else if (m.method === 'Runtime.exceptionThrown') {
            const d = m.params.exceptionDetails;
            errors.push((d.exception && d.exception.description) || d.text);
          }
        });
        await S('Page.enable');
        await S('Runtime.enable');
        await S('Emulation.setDeviceMetricsOverride', { ...bench.DESKTOP, deviceScaleFactor: 1, mobile: false });
        await S('Page.addScriptToEvaluateOnNewDocument', { source: probeSource });
        if (traceFile) await send('Tracing.start', { transferMode: 'ReturnAsStream', traceConfig: { includedCategories: traceCategories(o) } });
        const nav = await S('Page.navigate', { url });
        if (nav.errorText) throw new Error(`${url}: ${nav.errorText}`);
        await waitOrTimeout(done, o, errors);
        const v = await S('Runtime.evaluate', { expression: `(${collect})()`, returnByValue: true });
        if (v.exceptionDetails) throw new Error('collect: ' + v.exceptionDetails.text);
        if (traceFile) {
          await new Promise((res) => setTimeout(res, 100));   // the last frame's events
          await writeTrace(traceFile);
        }
        const r = v.result.value;
        r.errors = errors;
        return r;
      } finally {
        if (off) off();
        await send('Target.disposeBrowserContext', { browserContextId }).catch(() => {});
      }
    }
  };
}

function waitOrTimeout(done, o, errors) {
  let timer;
  return Promise.race([done, new Promise((res) => {
    timer = setTimeout(() => { errors.push(`not all figures seen in ${o.timeout} ms`); res(); }, o.timeout);
  })]).finally(() => clearTimeout(timer));
}

const traceCategories = (o) => TRACE_CATEGORIES.concat(o.traceCompile ? COMPILE_CATEGORIES : []);

// Per figure: the mark when the page sets one, else the first frame that showed it.
function summarise(r) {
  if (/error/.test(r.statuses)) r.errors.push(`body[data-status] went to error (${r.pageErrors || 'no code'})`);
  const fig = {}, how = new Set();
  for (const v of VIEWS) {
    const m = r.marks['blocklens:figure:' + v];
    if (m !== undefined) { fig[v] = m; how.add('marks'); } else if (r.frame[v] !== undefined) { fig[v] = r.frame[v]; how.add('frames'); } else fig[v] = null;
  }
  const got = VIEWS.map((v) => fig[v]).filter((x) => x !== null);
  const seen = VIEWS.map((v) => r.frame[v]).filter((x) => x !== undefined);
  r.fig = fig;
  r.method = how.size === 2 ? 'mixed' : how.has('marks') ? 'marks' : 'frames';
  r.first = got.length ? Math.min(...got) : null;
  r.all = got.length === VIEWS.length ? Math.max(...got) : null;
  r.workerAt = r.workers && r.workers.length ? r.workers[0][0] : null;
  r.firstSeen = seen.length ? Math.min(...seen) : null;
  r.allSeen = seen.length === VIEWS.length ? Math.max(...seen) : null;
  return r;
}

/* ---- a quiet moment ---------------------------------------------------------------------- */
// Share of all cores busy over `ms` (Linux /proc/stat; null elsewhere).
function cpuBusy(msec) {
  const read = () => {
    try {
      const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
      return { idle: f[3] + (f[4] || 0), total: f.reduce((a, b) => a + b, 0) };
    } catch (e) { return null; }
  };
  const a = read();
  return new Promise((res) => setTimeout(() => {
    const b = read();
    res(a && b && b.total > a.total ? 1 - (b.idle - a.idle) / (b.total - a.total) : null);
  }, msec));
}

// Before each load: wait (up to o.quietWait ms) for a half second in which the machine's cores
// are at most o.quiet % busy. Returns the last reading, in %.
async function waitQuiet(o) {
  if (!o.quiet) return null;
  const until = Date.now() + o.quietWait;
  for (;;) {
    const b = await cpuBusy(500);
    if (b === null) return null;
    if (b * 100 <= o.quiet || Date.now() >= until) return b * 100;
  }
}

/* ---- statistics and formatting ----------------------------------------------------------- */
function median(xs) {
  const s = xs.filter((x) => x !== null && x !== undefined && Number.isFinite(x)).sort((a, b) => a - b);
  if (!s.length) return null;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
function stats(xs) {
  const s = xs.filter((x) => x !== null && x !== undefined && Number.isFinite(x));
  return { med: median(s), min: s.length ? Math.min(...s) : null, max: s.length ? Math.max(...s) : null, n: s.length, of: xs.length };
}
const ms = (x) => (x === null || x === undefined ? '-' : x.toFixed(0));
const ms1 = (x) => (x === null || x === undefined ? '-' : x.toFixed(1));

function table(head, rows) {
  const lines = ['| ' + head.join(' | ') + ' |', '|' + head.map((h, i) => (i ? '---:' : '---')).join('|') + '|'];
  rows.forEach((r) => lines.push('| ' + r.join(' | ') + ' |'));
  return lines.join('\n');
}

function modeReport(name, loads, target) {
  const row = (label, key, tgt) => {
    const s = stats(loads.map((l) => l[key]));
    const verdict = tgt === undefined || s.med === null ? '' : s.med <= tgt ? `<= ${tgt}: met` : `<= ${tgt}: missed by ${ms(s.med - tgt)}`;
    return [label, ms(s.med), ms(s.min), ms(s.max), loads.map((l) => ms(l[key])).join(' '), verdict];
  };
  const methods = [...new Set(loads.map((l) => l.method))].join(', ');
  const out = [];
  out.push(`### ${name}: ${loads.length} loads, figure times from ${methods === 'marks' ? "the page's performance marks" : methods === 'frames' ? 'animation-frame polling (the page sets no marks)' : methods}`);
  out.push('');
  out.push(table(['ms after navigation start', 'median', 'min', 'max', 'each load', 'target'], [
    row('first figure drawn', 'first', target ? target.first : undefined),
    row('all figures drawn', 'all', target ? target.all : undefined),
    row('body[data-status="ready"]', 'ready'),
    row('first figure seen in a frame', 'firstSeen'),
    row('all figures seen in a frame', 'allSeen'),
    row('first contentful paint', 'fcp'),
    row('DOMContentLoaded', 'dcl')
  ].concat(loads.some((l) => l.workerAt !== null) ? [row('new Worker() called', 'workerAt')] : [])));
  const per = VIEWS.map((v) => `${v} ${ms(median(loads.map((l) => l.fig[v])))}`).join(', ');
  out.push('');
  out.push(`Per figure (median ms): ${per}.`);
  const marks = {};
  loads.forEach((l) => Object.keys(l.marks).forEach((k) => { if (!k.startsWith('blocklens:figure:')) (marks[k] = marks[k] || []).push(l.marks[k]); }));
  const mk = Object.keys(marks).sort((a, b) => median(marks[a]) - median(marks[b]));
  if (mk.length) out.push(`Other marks (median ms): ${mk.map((k) => `${k} ${ms(median(marks[k]))}`).join(', ')}.`);
  const l0 = loads[0];
  out.push(`Script elements: ${l0.scripts}; Workers started: ${l0.workers.length}; body[data-compute]: ${[...new Set(loads.map((l) => l.compute || '-'))].join(', ')}; ` +
    `status sequence: ${l0.statuses}; WebAssembly compile/instantiate calls on the page's thread: ` +
    (l0.wasm.length ? l0.wasm.map((w) => `${w[0]} at ${ms(w[1])}${w[2] !== null ? ' (done ' + ms(w[2]) + ')' : ''}`).join(', ') : 'none') + '.');
  const errs = [...new Set([].concat(...loads.map((l) => l.errors)))];
  if (errs.length) out.push(`**Errors:** ${errs.join('; ')}`);
  return out.join('\n');
}

/* ---- trace analysis ---------------------------------------------------------------------- */
const TRACE_CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8', 'v8.execute',
  'v8.wasm', 'disabled-by-default-v8.wasm.detailed', 'blink.user_timing', 'toplevel', 'loading', '__metadata',
  'disabled-by-default-v8.cpu_profiler'];
// --trace-compile: every lazy function compile too (many small events: the load slows down more).
const COMPILE_CATEGORIES = ['disabled-by-default-v8.compile'];

const JS = 'JS (functions, callbacks, microtasks)';
// Kind of work an event stands for; time inside it that no inner event claims is counted there.
function kindOf(e) {
  const n = e.name;
  switch (n) {
    case 'ParseHTML': return 'HTML parse';
    case 'ParseAuthorStyleSheet': return 'CSS parse';
    case 'EvaluateScript': case 'v8.run': return 'script top level (run)';
    case 'v8.compile': case 'V8.CompileScript': case 'v8.produceCache': case 'v8.compileModule': return 'script compile (this thread)';
    case 'V8.CompileCode': case 'V8.CompileLazy': case 'V8.ParseFunction': case 'V8.PreParse': case 'V8.CompileIgnition':
    case 'V8.CollectSourcePositions': return 'JS lazy compile';
    case 'FunctionCall': case 'v8.callFunction': case 'TimerFire': case 'FireAnimationFrame': case 'RunMicrotasks':
    case 'HandlePostMessage': case 'FunctionCall::MessagePort': return JS;
    case 'UpdateLayoutTree': case 'RecalculateStyles': return 'style';
    case 'Layout': return 'layout';
    case 'PrePaint': case 'Paint': case 'Layerize': case 'Commit': case 'UpdateLayer': case 'PaintImage': case 'CompositeLayers':
      return 'paint / commit';
    case 'MinorGC': case 'MajorGC': case 'V8.GC_SCAVENGER': case 'BlinkGC.AtomicPhase': return 'GC';
    case 'V8PerIsolateData::Initialize': case 'V8.DeserializeIsolate': case 'V8.DeserializeContext': case 'LocalWindowProxy::Initialize':
      return 'V8 isolate / context set-up';
    case 'CpuProfiler::StartProfiling': return 'tracing overhead (profiler start)';
    case 'v8.parseOnBackground': case 'v8.parseOnBackgroundParsing': return 'script parse (streamed, off the main thread)';
    default:
      if (n.startsWith('wasm.')) return 'wasm compile / instantiate';
      if (/^(ResourceFetcher::|URLLoader::|ThrottlingURLLoader::|ResourceRequestSender::|MojoURLLoaderClient::|ResponseBodyLoader::|HTMLDocumentParser::MaybeFetchQueuedPreloads)/.test(n))
        return 'resource loading (requests, responses)';
      return null;
  }
}
const isTask = (e) => e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask' || e.name === 'ThreadPool_RunTask';
const GENERIC = /^(RunTask|ThreadControllerImpl::RunTask|ThreadPool_RunTask|SimpleWatcher::OnHandleReady|EventDispatch|v8\.callFunction|V8\.StackGuard|V8\.HandleInterrupts|V8\.InvokeApiInterruptCallbacks)$/;
// Label for time that nothing with a kind claims: the innermost named event, else the task's
// origin (the source function that posted it).
function otherLabel(chain) {
  if (chain.some((e) => e.args && /worker_thread\.cc$/.test(e.args.src_file || '') && e.args.src_func === 'Start'))
    return 'Worker thread start (set-up; under playwright also waiting for it to attach)';
  for (let i = chain.length - 1; i >= 0; i--) {
    const e = chain[i], a = e.args || {};
    if (e.name === 'Receive mojo message' || e.name === 'Receive mojo reply') {
      const tag = a.chrome_mojo_event_info && a.chrome_mojo_event_info.mojo_interface_tag;
      return 'other: mojo message' + (tag ? ' ' + tag : '');
    }
    if (e.name === 'EventDispatch' && a.data && a.data.type) return 'other: ' + a.data.type + ' event';
    if (!GENERIC.test(e.name)) return 'other: ' + e.name;
  }
  for (let i = chain.length - 1; i >= 0; i--) {
    const a = chain[i].args || {};
    if (a.src_func) return 'other: task from ' + (a.src_file || '').replace(/^.*\//, '') + ' ' + a.src_func;
  }
  return 'other';
}

// Self time per kind inside [t0, t1] (µs) of one thread's complete events: the innermost event
// with a kind claims the time. { kind: { wall, cpu } } in ms; cpu from the events' thread clock
// (tdur), pro rata for events that straddle the window.
function selfTimes(events, t0, t1) {
  const nodes = events.filter((e) => e.ph === 'X' && e.ts < t1 && e.ts + (e.dur || 0) > t0)
    .sort((a, b) => a.ts - b.ts || (b.dur || 0) - (a.dur || 0))
    .map((e) => {
      const s = Math.max(e.ts, t0), f = Math.min(e.ts + (e.dur || 0), t1);
      const cpu = e.tdur !== undefined && e.dur > 0 ? e.tdur * (f - s) / e.dur : null;
      return { e, kind: kindOf(e), s, f, cpu, kids: 0, kidsCpu: 0, parent: null };
    });
  const st = [];
  for (const n of nodes) {
    while (st.length && st[st.length - 1].f <= n.s) st.pop();
    n.parent = st.length ? st[st.length - 1] : null;
    if (n.parent) { n.parent.kids += Math.min(n.f, n.parent.f) - n.s; n.parent.kidsCpu += n.cpu || 0; }
    st.push(n);
  }
  const out = {};
  for (const n of nodes) {
    const self = n.f - n.s - n.kids, selfCpu = n.cpu === null ? 0 : Math.max(0, n.cpu - n.kidsCpu);
    if (self <= 0 && selfCpu <= 0) continue;
    let k = null, inJs = false;
    const chain = [];
    for (let p = n; p; p = p.parent) {
      if (!k && p.kind) k = p.kind;
      else if (k && (p.kind === JS || p.kind === 'script top level (run)')) inJs = true;
      chain.unshift(p.e);
    }
    if (!k) k = otherLabel(chain);
    else if (inJs && (k === 'style' || k === 'layout')) k += ', forced by JS';
    const o = out[k] = out[k] || { wall: 0, cpu: 0 };
    o.wall += Math.max(0, self) / 1000;
    o.cpu += selfCpu / 1000;
  }
  return out;
}

// Busy time (ms) of a thread's top-level tasks inside [t0, t1] (µs), and their CPU time (the
// thread's own clock, tdur, pro rata when a task straddles the window): wall time well above
// CPU time means the thread was waiting for a core (2 cores, busy machine) or blocked.
function busyTime(events, t0, t1) {
  const tasks = events.filter((e) => e.ph === 'X' && isTask(e) && e.ts < t1 && e.ts + e.dur > t0).sort((a, b) => a.ts - b.ts);
  let sum = 0, cpu = 0, endT = t0;
  for (const t of tasks) {
    const s = Math.max(t.ts, endT), f = Math.min(t.ts + t.dur, t1);
    if (f > s) { sum += f - s; endT = f; if (t.tdur !== undefined && t.dur > 0) cpu += t.tdur * (f - s) / t.dur; }
  }
  return { wall: sum / 1000, cpu: cpu / 1000 };
}

// JS self time (ms) from the sampling profiler's chunks, per thread id, within [t0, t1] (µs).
function jsProfile(ev, pid, t0, t1) {
  const profiles = {};
  ev.forEach((e) => {
    if (e.pid !== pid) return;
    if (e.name === 'Profile') profiles[e.id] = { tid: e.tid, start: e.args.data.startTime, nodes: new Map(), samples: [], deltas: [] };
    else if (e.name === 'ProfileChunk' && profiles[e.id]) {
      const p = profiles[e.id], d = e.args.data, cp = d.cpuProfile || {};
      (cp.nodes || []).forEach((n) => p.nodes.set(n.id, n));
      (cp.samples || []).forEach((s) => p.samples.push(s));
      (d.timeDeltas || []).forEach((t) => p.deltas.push(t));
    }
  });
  const res = {};
  Object.values(profiles).forEach((p) => {
    const by = res[p.tid] = res[p.tid] || {};
    let t = p.start;
    for (let i = 0; i < p.samples.length; i++) {
      t += p.deltas[i] || 0;
      const dt = Math.min(i + 1 < p.deltas.length ? p.deltas[i + 1] : 0, 5000);
      if (t < t0 || t > t1) continue;
      const n = p.nodes.get(p.samples[i]);
      if (!n) continue;
      const cf = n.callFrame || {}, fn = cf.functionName || '(anonymous)';
      if (fn === '(idle)' || fn === '(root)' || fn === '(program)') continue;   // (program): native work, in the kinds above
      const file = shortUrl(cf.url || '');
      const key = fn + (file ? ' @ ' + file + (cf.lineNumber >= 0 ? ':' + (cf.lineNumber + 1) : '') : '');
      by[key] = (by[key] || 0) + dt / 1000;
    }
  });
  return res;
}

const shortUrl = (u) => u.replace(/^blob:.*$/, '(Worker blob)').replace(/^.*\/web\//, '').replace(/^[a-z]+:\/\/[^/]*\//, '');

// One traced load: milestones, time per kind (whole load and per phase), longest tasks, wasm
// events, sampled JS. Times in ms after the page's navigation start.
function analyseTrace(file, load) {
  const raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  const ev = raw.traceEvents || raw;
  const tname = {};
  ev.forEach((e) => { if (e.ph === 'M' && e.name === 'thread_name') tname[e.pid + ':' + e.tid] = e.args.name; });
  const navs = ev.filter((e) => e.name === 'navigationStart' && e.args && e.args.data &&
    /^(file|https?):/.test(e.args.data.documentLoaderURL || '') && e.args.data.isOutermostMainFrame !== false);
  const nav = navs[navs.length - 1];
  if (!nav) throw new Error('no navigationStart for the page in the trace');
  const pid = nav.pid, mainTid = nav.tid, T0 = nav.ts;
  const end = Math.max(load.ready || 0, load.all || 0, load.allSeen || 0);
  const T1 = T0 + end * 1000;
  const rel = (ts) => (ts - T0) / 1000, abs = (t) => T0 + t * 1000;
  const workers = Object.keys(tname).filter((k) => k.startsWith(pid + ':') && /DedicatedWorker/.test(tname[k])).map((k) => Number(k.split(':')[1]));
  const byThread = {};
  ev.forEach((e) => { if (e.pid === pid) (byThread[e.tid] = byThread[e.tid] || []).push(e); });
  const mainEv = byThread[mainTid] || [];
  const wName = (i) => (workers.length > 1 ? `Worker ${i + 1}` : 'Worker');
  const where = (tid) => (tid === mainTid ? 'main' : workers.includes(tid) ? wName(workers.indexOf(tid)) : (tname[pid + ':' + tid] || 'thread ' + tid));
  const r = { end, milestones: [], phases: [], main: {}, workers: [], wasm: [], top: {}, scripts: [], bgParse: [], js: {} };

  // Milestones ----------------------------------------------------------------------------
  const M = (name, t, thread, phase) => { if (t !== null && t !== undefined && Number.isFinite(t) && t >= 0) r.milestones.push({ name, t, where: thread, phase: !!phase }); };
  mainEv.filter((e) => e.name === 'EvaluateScript' && e.ph === 'X' && e.ts >= T0 && e.ts < T1).forEach((e) => {
    const url = (e.args && e.args.data && e.args.data.url) || '';
    r.scripts.push({ url: url ? shortUrl(url) : '(no url)', start: rel(e.ts), dur: e.dur / 1000, compile: sumDur(mainEv, 'v8.compile', e) });
  });
  const pageScripts = r.scripts.filter((s) => s.url !== '(no url)');
  if (pageScripts.length) {
    M(`first page script starts (${pageScripts[0].url})`, pageScripts[0].start, 'main');
    const last = pageScripts[pageScripts.length - 1];
    M(`last page script done (${last.url})`, last.start + last.dur, 'main');
  }
  const parse1 = mainEv.find((e) => e.name === 'ParseHTML' && e.ts >= T0);
  if (parse1) M('HTML parsing starts', rel(parse1.ts), 'main');
  M('first contentful paint', load.fcp, 'main');
  M('DOMContentLoaded', load.dcl, 'main', true);
  const dcl = mainEv.find((e) => e.name === 'EventDispatch' && e.args && e.args.data && e.args.data.type === 'DOMContentLoaded' && e.ts >= T0);
  if (dcl && dcl.dur > 1000) M(`DOMContentLoaded handlers done (${ms(dcl.dur / 1000)} ms)`, rel(dcl.ts + dcl.dur), 'main', true);
  (load.workers || []).forEach((w, i) => M(`new Worker() called${load.workers.length > 1 ? ' (' + (i + 1) + ')' : ''}`, w[0], 'main', i === 0));
  (load.wasm || []).forEach((w) => { M(`WebAssembly.${w[0]}() called on the main thread`, w[1], 'main'); if (w[2] !== null) M(`WebAssembly.${w[0]}() resolved on the main thread`, w[2], 'main'); });
  workers.forEach((tid, i) => {
    const w = (byThread[tid] || []).filter((e) => e.ph === 'X' && e.ts < T1);
    if (!w.length) return;
    M(`${wName(i)} thread starts (isolate set-up)`, rel(Math.min(...w.map((e) => e.ts))), wName(i));
    w.filter((e) => e.name === 'EvaluateScript').forEach((e) => {
      M(`${wName(i)} script loaded, evaluation starts`, rel(e.ts), wName(i));
      M(`${wName(i)} script evaluated (${ms(e.dur / 1000)} ms, of which compile ${ms(sumDur(w, 'v8.compile', e))} ms)`, rel(e.ts + e.dur), wName(i), true);
    });
  });
  const wasmEv = ev.filter((e) => e.pid === pid && e.ph === 'X' && /^wasm\./.test(e.name) && e.ts < T1);
  const wasmBy = {};
  wasmEv.forEach((e) => {
    const k = where(e.tid) + '|' + e.name;
    const b = wasmBy[k] = wasmBy[k] || { where: where(e.tid), name: e.name, n: 0, total: 0, first: rel(e.ts), last: rel(e.ts + e.dur) };
    b.n++; b.total += e.dur / 1000; b.last = Math.max(b.last, rel(e.ts + e.dur));
  });
  r.wasm = Object.values(wasmBy).sort((a, b) => a.first - b.first);
  const starts = wasmEv.filter((e) => /^wasm\.(AsyncCompile|SyncCompile|StartStreamingCompilation)$/.test(e.name));
  r.wasmModules = { compiled: wasmEv.filter((e) => e.name === 'wasm.NewNativeModule').length,
    starts: starts.map((e) => where(e.tid) + ' ' + e.name.slice(5)) };
  starts.forEach((e) => M(`wasm ${e.name.slice(5)} starts`, rel(e.ts), where(e.tid)));
  wasmEv.filter((e) => e.name === 'wasm.InstanceBuilder.Build' && e.dur > 100).forEach((e) => M('wasm module instantiated', rel(e.ts + e.dur), where(e.tid)));
  const posts = mainEv.filter((e) => e.ph === 'X' && e.name === 'HandlePostMessage' && e.ts >= T0 && e.ts < T1);
  posts.forEach((e, i) => { if (i < 2 || e.dur > 5000) M(`main thread handles a Worker message (${ms1(e.dur / 1000)} ms)`, rel(e.ts), 'main', e.dur > 5000); });
  Object.keys(load.marks).forEach((k) => M('mark ' + k, load.marks[k], 'main', /result|figure/.test(k)));
  VIEWS.forEach((v) => { if (load.frame[v] !== undefined && load.marks['blocklens:figure:' + v] === undefined) M(`figure ${v} seen in a frame`, load.frame[v], 'main'); });
  M('body[data-status=ready]', load.ready, 'main', true);
  r.milestones.sort((a, b) => a.t - b.t);

  // Time per kind: whole load, and per phase between the main milestones ---------------------
  r.main = { busy: busyTime(mainEv, T0, T1), kinds: selfTimes(mainEv, T0, T1) };
  r.workers = workers.map((tid, i) => ({ name: wName(i), busy: busyTime(byThread[tid], T0, T1), kinds: selfTimes(byThread[tid], T0, T1) }));
  const cuts = [0].concat(r.milestones.filter((m) => m.phase).map((m) => m.t), end).filter((t, i, a) => i === 0 || t > a[i - 1] + 0.5);
  const label = (t) => { const m = r.milestones.find((x) => x.phase && Math.abs(x.t - t) < 0.01); return t === 0 ? 'navigation' : m ? m.name.replace(/ \(.*\)$/, '') : 'end'; };
  for (let i = 1; i < cuts.length; i++) {
    const a = abs(cuts[i - 1]), b = abs(cuts[i]);
    r.phases.push({ from: cuts[i - 1], to: cuts[i], name: `${label(cuts[i - 1])} → ${label(cuts[i])}`,
      main: { busy: busyTime(mainEv, a, b), kinds: selfTimes(mainEv, a, b) },
      workers: workers.map((tid) => ({ busy: busyTime(byThread[tid], a, b), kinds: selfTimes(byThread[tid], a, b) })) });
  }
  ev.filter((e) => e.pid === pid && e.ph === 'X' && e.name === 'v8.parseOnBackground' && e.ts < T1).forEach((e) => {
    r.bgParse.push({ url: shortUrl((e.args && e.args.data && e.args.data.url) || ''), start: rel(e.ts), dur: e.dur / 1000,
      cpu: e.tdur !== undefined ? e.tdur / 1000 : e.dur / 1000 });
  });
  // Longest tasks, with what is inside them ---------------------------------------------------
  const topTasks = (list, thread) => list.filter((e) => e.ph === 'X' && isTask(e) && e.ts < T1 && e.ts + e.dur > T0)
    .filter((e, i, a) => !a.some((o) => o !== e && o.ts <= e.ts && o.ts + o.dur >= e.ts + e.dur && o.dur > e.dur))
    .sort((a, b) => b.dur - a.dur).slice(0, OPTS.top).map((t) => {
      const k = selfTimes(list, t.ts, t.ts + t.dur);
      const parts = Object.keys(k).sort((a, b) => k[b].wall - k[a].wall).filter((x) => k[x].wall >= 0.5).slice(0, 4).map((x) => `${x} ${ms1(k[x].wall)}`);
      const inner = list.filter((e) => e.ph === 'X' && e.ts >= t.ts && e.ts + e.dur <= t.ts + t.dur &&
        ['EvaluateScript', 'FunctionCall', 'EventDispatch', 'TimerFire', 'FireAnimationFrame', 'HandlePostMessage', 'ParseHTML', 'RunMicrotasks',
          'Receive mojo message', 'UpdateLayoutTree', 'Commit'].includes(e.name))
        .sort((a, b) => b.dur - a.dur).slice(0, 2);
      const what = inner.map((e) => {
        const d = (e.args && e.args.data) || {}, info = (e.args && e.args.chrome_mojo_event_info) || {};
        return e.name + (d.type ? ' ' + d.type : '') + (d.functionName ? ' ' + d.functionName : '') + (d.url ? ' (' + shortUrl(d.url) + ')' : '') +
          (info.mojo_interface_tag ? ' ' + info.mojo_interface_tag : '');
      }).join(' > ') || ((t.args && t.args.src_func) ? 'task from ' + t.args.src_func : '');
      return { thread, start: rel(t.ts), dur: t.dur / 1000, cpu: t.tdur !== undefined ? t.tdur / 1000 : null, what, parts: parts.join(', ') };
    });
  r.top.main = topTasks(mainEv, 'main');
  r.top.worker = [].concat(...workers.map((tid, i) => topTasks(byThread[tid], wName(i)))).sort((a, b) => b.dur - a.dur).slice(0, OPTS.top);
  const prof = jsProfile(ev, pid, T0, T1);
  const pick = (tid) => Object.entries(prof[tid] || {}).map(([fn, t]) => ({ fn, ms: t })).sort((a, b) => b.ms - a.ms);
  r.js.main = pick(mainTid);
  r.js.worker = [].concat(...workers.map(pick)).sort((a, b) => b.ms - a.ms);
  return r;
}

function sumDur(list, name, within) {
  return list.filter((e) => e.name === name && e.ph === 'X' && e.ts >= within.ts && e.ts + e.dur <= within.ts + within.dur)
    .reduce((s, e) => s + e.dur, 0) / 1000;
}

// Several traced loads: time per kind as medians; milestones, phases and tables from the load
// nearest the median.
function traceReport(list, label) {
  const out = [];
  const readies = list.map((x) => x.load.ready || x.load.all || 0);
  const medReady = median(readies);
  const pickIdx = readies.reduce((bi, v, i) => (Math.abs(v - medReady) < Math.abs(readies[bi] - medReady) ? i : bi), 0);
  const rep = list[pickIdx].a;
  const kindRows = (kinds, min) => Object.keys(kinds).map((k) => ({ k, v: kinds[k].wall, cpu: kinds[k].cpu })).filter((x) => x.v >= min).sort((a, b) => b.v - a.v);
  const topKinds = (kinds, n) => kindRows(kinds, 1).slice(0, n).map((x) => `${x.k} ${ms(x.v)}`).join(', ');
  out.push(`### Where the time goes (${label}, ${list.length} traced load${list.length > 1 ? 's' : ''})`);
  out.push('');
  out.push(`Traced loads are slower than untraced ones (tracing and the JS sampling profiler cost time): ready at ${list.map((x) => ms(x.load.ready)).join(', ')} ms, ` +
    `all figures at ${list.map((x) => ms(x.load.all)).join(', ')} ms. The milestones and tables below are from the load nearest the median (ready at ${ms(list[pickIdx].load.ready)} ms); the time per kind is the median over all traced loads.`);
  out.push('');
  out.push('**Milestones** (ms after navigation start):');
  out.push('');
  let prev = 0;
  out.push(table(['ms', '+ms', 'milestone', 'thread'], rep.milestones.map((m) => { const d = m.t - prev; prev = m.t; return [ms(m.t), ms(d), m.name, m.where]; })));
  out.push('');
  out.push('**Phases** (between the milestones above; busy = wall time in tasks / the CPU time the thread got; top kinds by self time, ms):');
  out.push('');
  const bc = (b) => `${ms(b.wall)} / ${ms(b.cpu)}`;
  out.push(table(['phase', 'ms', 'main busy / CPU', 'main thread: mostly', 'Worker busy / CPU', 'Worker: mostly'], rep.phases.map((p) => [
    `${ms(p.from)}–${ms(p.to)} ${p.name}`, ms(p.to - p.from), bc(p.main.busy), topKinds(p.main.kinds, 4) || '-',
    p.workers.length ? p.workers.map((w) => bc(w.busy)).join(' + ') : '-', p.workers.map((w) => topKinds(w.kinds, 3)).filter(Boolean).join('; ') || '-'])));
  out.push('');
  const threads = [['Main thread', list.map((x) => x.a.main)]];
  const nW = Math.max(...list.map((x) => x.a.workers.length));
  for (let i = 0; i < nW; i++) threads.push([list[0].a.workers[i] ? list[0].a.workers[i].name : 'Worker', list.map((x) => x.a.workers[i]).filter(Boolean)]);
  threads.forEach(([name, per]) => {
    if (!per.length) return;
    const keys = [...new Set([].concat(...per.map((p) => Object.keys(p.kinds))))];
    const med = {};
    keys.forEach((k) => { med[k] = { wall: median(per.map((p) => (p.kinds[k] ? p.kinds[k].wall : 0))), cpu: median(per.map((p) => (p.kinds[k] ? p.kinds[k].cpu : 0))) }; });
    const rows = kindRows(med, 0);
    const shown = rows.filter((x) => x.v >= 2).slice(0, 16), rest = rows.slice(shown.length);
    const restW = rest.reduce((t, x) => t + x.v, 0), restC = rest.reduce((t, x) => t + x.cpu, 0);
    out.push(`**${name}**, from navigation start to the last figure or ready: busy ${ms(median(per.map((p) => p.busy.wall)))} ms of ${ms(median(list.map((x) => x.a.end)))}, CPU ${ms(median(per.map((p) => p.busy.cpu)))} ms (medians). Self time by kind (medians; wall time, and the CPU time the thread got):`);
    out.push('');
    out.push(table(['kind', 'wall ms', 'CPU ms'], shown.map((x) => [x.k, ms1(x.v), ms1(x.cpu)]).concat(restW >= 0.5 ? [['(the rest, each < 2 ms)', ms1(restW), ms1(restC)]] : [])));
    out.push('');
  });
  if (rep.scripts.length) {
    const s = rep.scripts.slice().sort((a, b) => b.dur - a.dur);
    const total = s.reduce((t, x) => t + x.dur, 0), comp = s.reduce((t, x) => t + x.compile, 0);
    out.push(`**Scripts run on the main thread**: ${s.length}, ${ms1(total)} ms in all (compile on the main thread ${ms1(comp)} ms; the rest was compiled while streaming, off the main thread); longest: ` +
      s.slice(0, 6).map((x) => `${x.url} ${ms1(x.dur)} ms at ${ms(x.start)}`).join('; ') + '.');
    out.push('');
  }
  if (rep.bgParse.length) {
    const b = rep.bgParse.slice().sort((x, y) => y.cpu - x.cpu);
    out.push(`**Parsed and compiled off the main thread** (script streaming): ${b.length} scripts, ${ms1(b.reduce((t, x) => t + x.cpu, 0))} ms of CPU on pool threads; most: ` +
      b.slice(0, 4).map((x) => `${x.url} ${ms1(x.cpu)} ms`).join(', ') + '.');
    out.push('');
  }
  out.push(`**WebAssembly**: ${rep.wasmModules.compiled} module(s) compiled (wasm.NewNativeModule), started by: ${rep.wasmModules.starts.join(', ') || 'none seen'}. ` +
    'Liftoff compiles each function lazily on its first call (wasm.CompileLazy), on the calling thread; SyncValidate is the engine\'s SIMD / relaxed-SIMD probes.');
  out.push('');
  if (rep.wasm.length) out.push(table(['thread', 'event', 'count', 'total ms', 'first at', 'last ends'], rep.wasm.filter((w) => w.total >= 0.1 || /Compile|Instantiate/.test(w.name)).map((w) => [w.where, w.name, w.n, ms1(w.total), ms(w.first), ms(w.last)])));
  out.push('');
  const tt = (rows) => table(['start', 'ms', 'CPU ms', 'task', 'inside (self ms, wall)'], rows.map((t) => [ms(t.start), ms1(t.dur), ms1(t.cpu), t.what.replace(/\|/g, '\\|') || '-', t.parts || '-']));
  out.push('**Longest main-thread tasks**:');
  out.push('');
  out.push(tt(rep.top.main));
  out.push('');
  if (rep.top.worker.length) {
    out.push('**Longest Worker tasks**:');
    out.push('');
    out.push(tt(rep.top.worker));
    out.push('');
  }
  const jsTable = (rows) => table(['function @ file:line', 'self ms'], rows.slice(0, OPTS.top).map((x) => [x.fn.replace(/\|/g, '\\|'), ms1(x.ms)]));
  const note = 'sampled; a function\'s self time includes the style and layout it forces and the lazy compiles it triggers';
  if (rep.js.main.length) { out.push(`**JS self time on the main thread** (${note}):`); out.push(''); out.push(jsTable(rep.js.main)); out.push(''); }
  if (rep.js.worker.length) { out.push('**JS self time in the Worker** (sampled):'); out.push(''); out.push(jsTable(rep.js.worker)); out.push(''); }
  return out.join('\n');
}

/* ---- main -------------------------------------------------------------------------------- */
let OPTS = null;
async function main() {
  const o = OPTS = parseArgs(process.argv);
  const load0 = os.loadavg();
  const driver = o.driver === 'cdp' ? await cdpDriver() : await playwrightDriver();
  const loadOnce = async (url, traceFile) => {
    const busy = await waitQuiet(o), r = summarise(await driver.load(url, o, traceFile));
    r.busyBefore = busy;
    return r;
  };
  const srv = o.only === 'file' && !(o.trace && o.traceUrl === 'served') ? null : await bench.serve(o.web);
  const hash = o.hash ? '#' + o.hash.replace(/^#/, '') : '';
  const urls = {
    file: bench.fileUrl(o.web) + hash,
    served: srv ? srv.url + hash : null
  };
  const modes = o.only ? [o.only] : ['file', 'served'];
  const loads = { file: [], served: [] };
  const say = (s) => process.stdout.write(s);
  const report = [];
  let traced = [];
  try {
    const version = driver.version;
    say(`BlockLens page load, ${o.web}\nChromium ${version}, ${os.cpus().length} CPUs, load average ${load0.map((x) => x.toFixed(2)).join(' ')}\n`);
    for (let i = 0; i < o.warmup; i++) for (const m of modes) await loadOnce(urls[m]);
    // Interleaved, so that a busy moment of the machine hurts both ways alike.
    for (let i = 0; i < o.runs; i++) {
      for (const m of modes) {
        const r = await loadOnce(urls[m]);
        loads[m].push(r);
        say(`${m.padEnd(6)} load ${i + 1}: first figure ${ms(r.first)} ms, all ${ms(r.all)} ms, ready ${ms(r.ready)} ms (${r.method}${r.busyBefore !== null ? `; CPU ${ms(r.busyBefore)}% busy before` : ''})` +
          (r.errors.length ? ' ERRORS: ' + r.errors.join('; ') : '') + '\n');
      }
    }
    if (o.trace) {
      const url = urls[o.traceUrl];
      for (let i = 0; i < o.traceRuns; i++) {
        const file = path.join(os.tmpdir(), `blocklens-load-trace-${process.pid}-${i}.json`);
        const r = await loadOnce(url, file);
        traced.push({ load: r, a: analyseTrace(file, r) });
        if (o.traceDir) { fs.mkdirSync(o.traceDir, { recursive: true }); fs.copyFileSync(file, path.join(o.traceDir, `load-trace-${i + 1}.json`)); }
        fs.unlinkSync(file);
        say(`traced load ${i + 1}: first figure ${ms(r.first)} ms, all ${ms(r.all)} ms, ready ${ms(r.ready)} ms${r.busyBefore !== null ? ` (CPU ${ms(r.busyBefore)}% busy before)` : ''}\n`);
      }
    }
    const load1 = os.loadavg();
    report.push('# BlockLens page load in headless Chromium');
    report.push('');
    report.push(`Written by \`node tools/bench/load.js${process.argv.slice(2).length ? ' ' + process.argv.slice(2).join(' ') : ''}\` on ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')}.`);
    report.push('');
    report.push(`- Page: \`${o.web}/index.html\`, opened ${modes.map((m) => m === 'file' ? 'from file://' : 'served by tools/serve.js (127.0.0.1)').join(' and ')}${hash ? ' with ' + hash : ''}; viewport 1280x900.`);
    report.push(`- Chromium ${version} (${process.env.CHROMIUM || '/usr/bin/chromium'}, headless), driven by ${driver.name}, Node ${process.version}.`);
    report.push(`- Machine: ${os.cpus().length} x ${os.cpus()[0] ? os.cpus()[0].model.trim() : '?'}; load average (1, 5, 15 min) ${load0.map((x) => x.toFixed(2)).join(', ')} before, ${load1.map((x) => x.toFixed(2)).join(', ')} after.`);
    report.push(`- ${o.runs} timed loads per way, interleaved, after ${o.warmup} untimed warm-up load(s); a fresh browser context (no HTTP or code cache) for every load, one browser.` +
      (o.quiet ? ` Before each load the script waited (up to ${o.quietWait / 1000} s) for the cores to be at most ${o.quiet}% busy over half a second; ` +
        `busy before the timed loads: ${[].concat(...modes.map((m) => loads[m].map((l) => l.busyBefore))).filter((x) => x !== null).map((x) => ms(x) + '%').join(' ')}.` : ''));
    report.push(`- Targets (file://, median): first figure <= ${TARGET.first} ms, all figures (${WANT_WIDE ? 'all ' + ALL_VIEWS.length : 'the ' + EAGER.length + ' drawn without scrolling'}) <= ${TARGET.all} ms after navigation start.`);
    report.push('');
    for (const m of modes.filter((x) => loads[x].length)) {
      report.push(modeReport(m === 'file' ? 'file://' : 'served', loads[m], m === 'file' ? TARGET : null));
      report.push('');
    }
    if (traced.length) report.push(traceReport(traced, o.traceUrl === 'file' ? 'file://' : 'served'));
    const text = report.join('\n').replace(/\n{3,}/g, '\n\n').trim() + '\n';
    say('\n' + text);
    if (o.out) { fs.writeFileSync(o.out, text); say(`\nwrote ${o.out}\n`); }
  } finally {
    await driver.close();
    if (srv) await srv.close();
  }
}

if (require.main === module) main().catch((e) => { console.error(e); process.exit(1); });
module.exports = { analyseTrace, selfTimes, busyTime, median, probe, collect, summarise, playwrightDriver, cdpDriver, VIEWS,
  EAGER, WIDE };
