#!/usr/bin/env node
/* tools/bench/page.js - main-thread long tasks after a BERT-base answer on the page (headless Chromium, longtask observer): prints numbers, asserts nothing.
   Usage: node tools/bench/page.js [--runs 3] [--file] [--after 2000] [--phases] [--trace] [--web DIR]
   (--web serves another copy of web/, e.g. an older commit's: git archive HEAD~1 web | tar -x -C /tmp/old)
   Each run: a fresh page with 64 tokens, click "BERT-base widths", record every long task (> 50 ms)
   from the 'blocklens:request' mark to --after ms past the figures being ready; print the longest,
   their sum and count. --trace also records a Chromium trace and prints the longest main-thread
   task of any length (the observer only sees tasks over 50 ms). --phases also prints each view's
   update() times, from the 'blocklens:draw:<view>' User Timing measures the page makes around
   them (web/src/entries/page.js render()). At BERT-base sizes the heatmaps and plots are drawn
   in later slice jobs, outside update(); the page's modules are bundled with no globals, so
   those jobs (and heatmap draws, plots) have no clean hook from outside and are not timed on
   their own any more: the long tasks and --trace cover them. */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const bench = require('./browser.js');

const args = process.argv.slice(2);
const opt = (name, def) => { const i = args.indexOf('--' + name); return i >= 0 ? Number(args[i + 1]) : def; };
const str = (name, def) => { const i = args.indexOf('--' + name); return i >= 0 ? args[i + 1] : def; };
const WEB = path.resolve(str('web', bench.WEB));
const RUNS = opt('runs', 3), AFTER = opt('after', 2000), FILE = args.includes('--file'), PHASES = args.includes('--phases');
const TRACE = args.includes('--trace');
const WORDS = Array.from({ length: 64 }, (_, i) => 'tok' + i).join(' ');
const HASH = 'lang=en&tokens=' + encodeURIComponent(WORDS);

// Runs in the page before its scripts: buffered observers of long tasks and (with --phases) of
// the page's User Timing measures (it keeps only the latest of each name; an observer sees all).
function instrument(phases) {
  window.__long = [];
  window.__phases = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__long.push({ start: e.startTime, dur: e.duration });
  }).observe({ type: 'longtask', buffered: true });
  if (!phases) return;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.name.startsWith('blocklens:draw:')) window.__phases.push({ name: 'view:' + e.name.slice(15), start: e.startTime, dur: e.duration });
    }
  }).observe({ type: 'measure', buffered: true });
}

// Every task of the page's main thread (the one that marked 'blocklens:result') from the
// request mark on: [{ start, dur }] in ms, relative to the request.
function traceTasks(file) {
  const raw = JSON.parse(fs.readFileSync(file, 'utf8')), ev = raw.traceEvents || raw;
  const mark = (name) => ev.find((e) => e.name === name && e.cat && e.cat.includes('user_timing'));
  const req = mark('blocklens:request'), res = mark('blocklens:result');
  if (!req || !res) return null;
  const tasks = ev.filter((e) => e.pid === res.pid && e.tid === res.tid && e.ph === 'X' && e.ts >= req.ts &&
    (e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask'));
  return { res: (res.ts - req.ts) / 1000, tasks: tasks.map((e) => ({ start: (e.ts - req.ts) / 1000, dur: e.dur / 1000 })) };
}

async function run(browser, base) {
  const context = await browser.newContext({ viewport: bench.DESKTOP });
  await context.addInitScript(instrument, PHASES);
  const page = await context.newPage();
  await page.goto(base + '#' + HASH);
  await page.waitForFunction(() => document.body.dataset.status === 'ready', null, { timeout: 30000 });
  await page.evaluate(() => { window.__long.length = 0; window.__phases.length = 0; performance.clearMarks(); });
  const traceFile = path.join(os.tmpdir(), `blocklens-page-trace-${process.pid}.json`);
  if (TRACE) await browser.startTracing(page, { path: traceFile, categories: ['toplevel', 'devtools.timeline', 'blink.user_timing'] });
  await page.click('button[data-i18n="quick_bert"]');
  await page.waitForFunction(() => {
    const req = performance.getEntriesByName('blocklens:request')[0], res = performance.getEntriesByName('blocklens:result')[0];
    return req && res && res.startTime > req.startTime && document.body.dataset.status === 'ready';
  }, null, { timeout: 60000, polling: 50 });
  const readyAt = await page.evaluate(() => performance.now());
  await page.waitForTimeout(AFTER);
  const r = await page.evaluate((readyAt) => {
    const req = performance.getEntriesByName('blocklens:request')[0].startTime;
    const res = performance.getEntriesByName('blocklens:result')[0].startTime;
    return { req, res, readyAt, long: window.__long.filter((e) => e.start + e.dur >= req), phases: window.__phases.filter((p) => p.start >= req) };
  }, readyAt);
  if (TRACE) { await browser.stopTracing(); r.trace = traceTasks(traceFile); fs.unlinkSync(traceFile); }
  await context.close();
  return r;
}

(async () => {
  const browser = await bench.launch();
  const srv = FILE ? null : await bench.serve(WEB);
  const base = FILE ? bench.fileUrl(WEB) : srv.url;
  const f = (ms) => ms.toFixed(0);
  const maxes = [], traced = [];
  try {
    for (let i = 1; i <= RUNS; i++) {
      const r = await run(browser, base);
      const after = r.long.filter((e) => e.start + e.dur >= r.res), during = r.long.filter((e) => e.start + e.dur < r.res);
      const longest = Math.max(0, ...after.map((e) => e.dur)), sum = after.reduce((s, e) => s + e.dur, 0);
      maxes.push(longest);
      console.log(`run ${i}: compute ${f(r.res - r.req)} ms, drawn ${f(r.readyAt - r.res)} ms after the answer; ` +
        `long tasks after the answer: ${after.length}, longest ${f(longest)} ms, sum ${f(sum)} ms ` +
        `[${after.map((e) => f(e.dur)).join(' ')}]; during the compute: ${during.length}` +
        (during.length ? ` (longest ${f(Math.max(...during.map((e) => e.dur)))} ms)` : ''));
      if (r.trace) {
        const t = r.trace.tasks.filter((e) => e.start + e.dur >= r.trace.res).sort((a, b) => b.dur - a.dur);
        console.log(`   trace: ${t.length} main-thread tasks after the answer, longest ${t.slice(0, 5).map((e) => e.dur.toFixed(1)).join(', ')} ms`);
        traced.push(t.length ? t[0].dur : 0);
      }
      if (PHASES) {
        const by = {};
        r.phases.filter((p) => p.start >= r.res).forEach((p) => {
          const b = by[p.name] = by[p.name] || { n: 0, sum: 0, max: 0 };
          b.n++; b.sum += p.dur; b.max = Math.max(b.max, p.dur);
        });
        Object.keys(by).forEach((k) => console.log(`   ${k.padEnd(20)} x${by[k].n}  sum ${f(by[k].sum)} ms  longest ${f(by[k].max)} ms`));
        if (!Object.keys(by).length) console.log('   no blocklens:draw measures after the answer (a page from before them?)');
      }
    }
    console.log(`longest task after the answer per run: ${maxes.map((m) => m ? f(m) : '< 50').join(', ')} ms (${FILE ? 'file://' : 'served'}, ${RUNS} runs)`);
    if (TRACE) console.log(`longest main-thread task after the answer per run (trace): ${traced.map(f).join(', ')} ms`);
  } finally {
    await browser.close();
    if (srv) await srv.close();
  }
})().catch((e) => { console.error(e); process.exit(1); });
